#!/usr/bin/env node
/**
 * `lineage-svc-mcp`: the MCP server (issue 29; `docs/mcp.md`): the lineage, history and OpenLineage
 * tools of `infra/mcp/server.ts` for AI assistants, over the store the other commands use (the same
 * `LINEAGE_SVC_STORAGE__*` settings and `.env`, `src/config.ts`). It only reads: nothing is appended.
 *
 * - default: stdio (the assistant starts it and talks JSON-RPC on stdin and stdout; logs go to stderr);
 * - `--http [--port N]`: Streamable HTTP at `http://127.0.0.1:N/mcp` (default port 8765, 0 for an
 *   ephemeral one); the line `lineage-svc-mcp: listening on URL` on stderr once it listens.
 *
 * It opens the store, catches the projections up and follows the store afterwards, so that a long
 * session sees later extractions. SIGINT/SIGTERM (or the end of stdin, on stdio) closes the store;
 * exit 0. Bad flags or configuration, a store that cannot be opened, or a port in use: one line on
 * stderr, exit 2.
 */
import './environment.js'; // first: .env settings before anything reads the environment
import { command, flag, number, option, optional } from 'cmd-ts';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { loadConfig } from '../src/config.js';
import { openRuntime, type LineageRuntime } from '../infra/runtime.js';
import { createLineageMcpServer } from '../infra/mcp/server.js';
import { startMcpHttpServer } from '../infra/mcp/http.js';
import { parseArguments, reportError } from './arguments.js';
import { settingsHelp } from './environment.js';
import { commandLogger } from './shared.js';

const NAME = 'lineage-svc-mcp';

/** The port of `--http` when `--port` is not given. */
export const DEFAULT_MCP_PORT = 8765;

/** The flags of `lineage-svc-mcp`. */
interface McpArgs {
  http: boolean;
  port: number | undefined;
}

const cli = command({
  name: NAME,
  description:
    'Serve the lineage tools to AI assistants over MCP: stdio by default, Streamable HTTP on 127.0.0.1 with --http. ' +
    `Reads the store of the other commands (settings from the environment and .env):\n${settingsHelp('mcp')}\n` +
    'Exit codes: 0 stopped (SIGINT, SIGTERM, or stdin closed); 2 bad flags or configuration, the store cannot be opened, or the port is in use. ' +
    'Clients and their configuration: docs/mcp.md.',
  args: {
    http: flag({ long: 'http', description: 'Serve Streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio' }),
    port: option({
      long: 'port',
      type: optional(number),
      description: `The port of --http (default ${DEFAULT_MCP_PORT}; 0 for any free one)`,
    }),
  },
  handler: (args) => args,
});

/** Resolves when the process is asked to stop: SIGINT, SIGTERM, or (on stdio) the end of stdin. */
function stopRequested(stdio: boolean): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
    if (stdio) process.stdin.once('end', () => resolve());
  });
}

/** Serves until stopped; resolves with the exit code. */
async function serve(args: McpArgs): Promise<number> {
  if (!args.http && args.port !== undefined) return reportError(process, NAME, new Error('--port applies to --http'));
  const port = args.port ?? DEFAULT_MCP_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    return reportError(process, NAME, new Error(`--port must be an integer from 0 to 65535, got ${port}`));
  let runtime: LineageRuntime | undefined;
  try {
    const config = loadConfig(process.env);
    const logger = commandLogger(config, process.env);
    runtime = await openRuntime(config, logger);
    const stopped = stopRequested(!args.http);
    if (args.http) {
      const server = await startMcpHttpServer({ runtime, logger, port });
      process.stderr.write(`${NAME}: listening on ${server.url}\n`);
      await stopped;
      await server.close();
    } else {
      const server = createLineageMcpServer({ runtime, logger });
      await server.connect(new StdioServerTransport());
      await stopped;
      await server.close();
    }
    return 0;
  } catch (error) {
    return reportError(process, NAME, error);
  } finally {
    await runtime?.close().catch(() => undefined);
  }
}

const parsed = await parseArguments<McpArgs>(cli, NAME, process.argv.slice(2));
process.exitCode = 'exitCode' in parsed ? parsed.exitCode : await serve(parsed.args);
