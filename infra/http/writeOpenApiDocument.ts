/**
 * Writes the OpenAPI document the API serves at `/openapi.json` to a file, without listening on a
 * port: `node --import tsx infra/http/writeOpenApiDocument.ts FILE` (`make lint` lints that file with
 * Redocly's CLI, `redocly.yaml`). With `--api-docs MARKDOWN` instead, it rewrites the endpoint table
 * of that page (`docs/api.md`, between the markers of `ENDPOINT_TABLE_MARKERS`; `make api-docs`).
 *
 * The app is built on an in-memory store with the configuration of the environment (so `servers`
 * follows `LINEAGE_SVC_API_PUBLIC_URL`, `LINEAGE_SVC_API_HOST` and `LINEAGE_SVC_API_PORT`), made ready,
 * asked for its document, and closed. Exit codes: 0 written, 2 bad arguments or a failure (one line
 * on stderr).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { openRuntime } from '../runtime.js';
import { buildApp } from './app.js';
import { endpointTable, withEndpointTable, type JsonObject } from './openApi.js';

/**
 * The OpenAPI document of an app built from `environment` (its storage settings replaced by an
 * in-memory store in a temporary folder, removed afterwards).
 */
export async function buildOpenApiDocument(environment: NodeJS.ProcessEnv = process.env): Promise<JsonObject> {
  const folder = mkdtempSync(join(tmpdir(), 'lineage-openapi-'));
  const config = loadConfig({
    ...environment,
    LINEAGE_SVC_STORAGE__BACKEND: 'memory',
    LINEAGE_SVC_STORAGE__PATH: folder,
    LINEAGE_SVC_STORAGE__URL: undefined,
    LINEAGE_SVC_LOG_LEVEL: 'ERROR',
  });
  const logger = createLogger({ level: 'error' });
  const runtime = await openRuntime(config, logger);
  try {
    const app = await buildApp({ config, logger, runtime });
    try {
      await app.ready();
      return app.swagger() as unknown as JsonObject;
    } finally {
      await app.close();
    }
  } finally {
    await runtime.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Runs the command with `args` (after the script's name); resolves with the exit code. */
export async function main(args: readonly string[]): Promise<number> {
  const usage = 'usage: writeOpenApiDocument.ts FILE | --api-docs MARKDOWN';
  if (args.length === 1 && args[0] !== undefined && !args[0].startsWith('-')) {
    writeFileSync(args[0], `${JSON.stringify(await buildOpenApiDocument(), null, 2)}\n`);
    return 0;
  }
  if (args.length === 2 && args[0] === '--api-docs' && args[1] !== undefined) {
    const markdown = readFileSync(args[1], 'utf8');
    writeFileSync(args[1], withEndpointTable(markdown, endpointTable(await buildOpenApiDocument())));
    return 0;
  }
  process.stderr.write(`${usage}\n`);
  return 2;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`writeOpenApiDocument: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(2);
    },
  );
}
