/**
 * The MCP server over Streamable HTTP (MCP specification 2025-11-25, "Transports"), on the SDK's
 * Web-standard transport (`WebStandardStreamableHTTPServerTransport`), in two places:
 *
 * - `mcpRoutes`, a fastify plugin: `POST /mcp` takes one JSON-RPC message (or a batch) and answers
 *   JSON; `GET /mcp` (the optional server-to-client stream) is 405 with `Allow: POST`. The API mounts
 *   it (`infra/http/app.ts`) behind its keys: `POST /mcp` needs the `read` role
 *   (`WRITE_ROUTE_ROLES` of `infra/http/auth.ts`), since every tool only reads.
 * - `startMcpHttpServer`: the same plugin on a server of its own, on 127.0.0.1 only
 *   (`lineage-svc-mcp --http`), with DNS-rebinding protection: a request whose `Host` is not
 *   `127.0.0.1:PORT` or `localhost:PORT` is refused 403 by the transport, so that a web page cannot
 *   reach it through a name of its own.
 *
 * Stateless: each request gets a new `McpServer` and transport (no `Mcp-Session-Id`), so any process
 * on the store answers any request and nothing is kept between requests; the SDK's documented
 * stateless mode. Bodies are parsed by the host app's JSON parser (the API's: UTF-8, depth and
 * prototype checks, the body limit) and handed to the transport.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import Fastify, { type FastifyPluginAsync, type FastifyRequest } from 'fastify';
import type { Logger } from '../../src/logger.js';
import type { LineageRuntime } from '../../services/runtime.js';
import { registerJsonBodyParser, registerSecurityHeaders } from '../http/hardening.js';
import { problem, registerProblemHandling, sendProblem } from '../http/problem.js';
import { createLineageMcpServer } from './server.js';

/** The path of the MCP endpoint, on the API and on `lineage-svc-mcp --http`. */
export const MCP_PATH = '/mcp';

/** Options of `mcpRoutes`. */
export interface McpRoutesOptions {
  runtime: LineageRuntime;
  logger?: Logger | undefined;
  /**
   * The `Host` values accepted (`127.0.0.1:8765`), read per request; absent: any (the API, which has
   * its own keys and listens where it is configured to).
   */
  allowedHosts?: (() => string[]) | undefined;
}

/** A fastify request as a Web `Request` (the body is handed over parsed, apart). */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const item of [value].flat()) headers.append(name, item);
  }
  return new Request(`http://${request.headers.host ?? '127.0.0.1'}${request.url}`, {
    method: request.method,
    headers,
  });
}

/** `POST /mcp` (the MCP endpoint) and `GET /mcp` (405: no server-to-client stream in stateless mode). */
export const mcpRoutes: FastifyPluginAsync<McpRoutesOptions> = async (app, options) => {
  app.post(MCP_PATH, { schema: { hide: true } }, async (request, reply) => {
    const server = createLineageMcpServer(options);
    const hosts = options.allowedHosts?.();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      ...(hosts ? { allowedHosts: hosts, enableDnsRebindingProtection: true } : {}),
    });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(webRequest(request), { parsedBody: request.body });
      const body = await response.text();
      reply.code(response.status);
      response.headers.forEach((value, name) => void reply.header(name, value));
      return reply.send(body === '' ? undefined : body);
    } finally {
      await server.close();
    }
  });
  app.get(MCP_PATH, { schema: { hide: true } }, async (_request, reply) =>
    sendProblem(
      reply.header('allow', 'POST'),
      problem(405, 'the MCP endpoint is stateless: send JSON-RPC messages with POST (no server-to-client stream)'),
    ),
  );
};

/** A running `lineage-svc-mcp --http` server. */
export interface McpHttpServer {
  /** `http://127.0.0.1:PORT/mcp`. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the MCP endpoint on `127.0.0.1:port` (0: an ephemeral port) at `/mcp`, with the API's JSON
 * body parser, problem answers and security headers, and DNS-rebinding protection.
 * @throws Error (from `listen`) when the port is in use.
 */
export async function startMcpHttpServer(options: {
  runtime: LineageRuntime;
  logger?: Logger | undefined;
  port: number;
}): Promise<McpHttpServer> {
  const host = '127.0.0.1';
  const app = Fastify({ logger: false });
  registerProblemHandling(app);
  registerJsonBodyParser(app);
  registerSecurityHeaders(app);
  let port = options.port;
  await app.register(mcpRoutes, {
    runtime: options.runtime,
    logger: options.logger,
    allowedHosts: () => [`${host}:${port}`, `localhost:${port}`],
  });
  await app.listen({ host, port: options.port });
  const address = app.server.address();
  if (address && typeof address === 'object') port = address.port;
  return { url: `http://${host}:${port}${MCP_PATH}`, close: () => app.close() };
}
