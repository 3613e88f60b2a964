/**
 * The REST API as a fastify instance (issue 5): `buildApp` wires the zod type provider, the
 * problem+json error handling, API-key authentication, the OpenAPI document generated from the
 * routes' zod schemas, the doc pages, the route plugins under `/api/v1`, and the MCP endpoint at
 * `/mcp` (`infra/mcp/http.ts`; JSON-RPC, so documented in docs/mcp.md, not in the OpenAPI document). It does not listen;
 * `commands/api.ts` does (and tests listen on port 0).
 *
 * Documents and pages (open even when authentication is on, contract section 4):
 * - `GET /openapi.json`: OpenAPI 3.1, generated from the same zod schemas that validate requests;
 * - `GET /api/v1/openapi.yaml`: the same document as YAML (needs the key when authentication is on);
 * - `GET /docs`: Swagger UI, served from `@fastify/swagger-ui` (no CDN);
 * - `GET /redoc`: ReDoc, its standalone bundle served from the `redoc` package at `/redoc/redoc.standalone.js`.
 *
 * Request bodies are limited to `DEFAULT_BODY_LIMIT` (10 MiB; graph imports 128 MiB); a larger body
 * is answered 413 as problem+json.
 *
 * Hardening (issue 15, `infra/http/hardening.ts`): JSON bodies must be valid UTF-8, nest at most
 * `MAX_BODY_DEPTH` levels and hold no `__proto__` key; a malformed URL is a 400 problem+json, and so is
 * what Node's HTTP parser refuses (header fields too large 431, timeout 408, else 400); a request
 * must arrive whole (headers and body) within `config.api.requestTimeoutSeconds` and a connection
 * silent that long is closed; closing the app closes connections still open after
 * `CONNECTION_DRAIN_MS`; request logs show query values of the API's own parameters only; unknown
 * query parameters on writes are a 400; writes are rate limited per authenticated key, else per
 * address; every answer carries helmet's security headers.
 */
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { stringify as toYaml } from 'yaml';
import type { Config } from '../../src/config.js';
import type { Logger } from '../../src/logger.js';
import type { LineageRuntime } from '../runtime.js';
import { authenticatedKeyId, registerApiKeyAuth } from './auth.js';
import {
  registerJsonBodyParser,
  registerSecurityHeaders,
  registerWriteRateLimit,
  serializeRequest,
  strictWriteQuerystrings,
} from './hardening.js';
import { problem, problemClientErrorHandler, registerProblemHandling, sendProblem } from './problem.js';
import { openApiOptions } from './openApi.js';
import { graphRoutes } from './routes/graphs.js';
import { pathRoutes } from './routes/paths.js';
import { nodeMetricsRoutes } from './routes/nodeMetrics.js';
import { provenanceRoutes } from './routes/provenance.js';
import { impactRoutes } from './routes/impact.js';
import { metaRoutes, packageInfo } from './routes/meta.js';
import { openLineageRoutes } from './routes/openLineage.js';
import { marquezRoutes } from './routes/marquez.js';
import { pushRoutes } from './routes/push.js';
import { taskRoutes } from './routes/tasks.js';
import { watcherRoutes } from './routes/watchers.js';
import { environmentRoutes } from './routes/environments.js';
import { createEnvironmentCatalog, type EnvironmentCatalog } from '../../services/environments.js';
import { operationsRoutes, registerOperationalHooks } from './routes/operations.js';
import { mcpRoutes } from '../mcp/http.js';
import { createTaskRunners } from '../../services/taskRunners.js';
import { createTaskService, type TaskRunners, type TaskService } from '../../services/tasks.js';
import { createWatcherService, type WatcherDepsFactory, type WatcherService } from '../../services/watchers.js';
import type { ServiceContext } from '../../services/context.js';
import { catalogPushers, type CatalogPush } from '../../services/push.js';
import { watcherEngineDeps } from '../../services/watcherEngine.js';
import { createServiceContext } from '../serviceContext.js';
import { hostname } from 'node:os';
import { startConfiguredPublisher } from '../publish/index.js';
import type { ChangeSink } from '../../services/publisher.js';
import {
  createOwnershipSweeper,
  createProcessLease,
  newProcessIdentity,
  type ProcessLease,
} from '../../services/ownership.js';

/** Largest request body, in bytes, on every route but graph import (10 MiB). */
export const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;

/** Longest path parameter, in characters: node ids are up to 2,048 characters, percent-encoded. */
export const MAX_PARAM_LENGTH = 8 * 1024;

/**
 * How long closing the app lets open connections finish their requests before closing them, in ms
 * (a stalled upload would otherwise hold the close until the process is killed).
 */
export const CONNECTION_DRAIN_MS = 3_000;

/** How long closing the app waits for running tasks before closing anyway, in ms. */
export const TASK_DRAIN_MS = 5_000;

/** What `buildApp` needs. */
export interface AppOptions {
  config: Config;
  logger: Logger;
  runtime: LineageRuntime;
  /** The work behind tasks; default the real extraction and enrichment (`services/taskRunners.ts`). */
  runners?: TaskRunners;
  /** The platform's environments (`GET /api/v1/environments`); default the platform's, cached (`services/environments.ts`). */
  environments?: EnvironmentCatalog;
  /** The use cases' context; default the real adapters (`infra/serviceContext.ts`). */
  services?: ServiceContext;
  /** Request body limit in bytes; default `DEFAULT_BODY_LIMIT`. */
  bodyLimit?: number;
  /** In-process watchers: engine dependencies (default the real poll and extraction), catalog pushes by type, how many may run. */
  watchers?: { engineDeps?: WatcherDepsFactory; pushers?: Readonly<Record<string, CatalogPush>>; maxRunning?: number };
  /** Sweep interval of the ownership sweeper in ms (default a third of `config.processes.leaseSeconds`); tests shorten it. */
  sweepMilliseconds?: number;
  /** Where lineage changes are published; default the sinks of `config.publish` (none unless configured). */
  publishSink?: ChangeSink;
}

/** The app, with the task and watcher services and this process's lease (so that callers can wait for tasks, e.g. on shutdown). */
export type LineageApp = FastifyInstance & { tasks: TaskService; watchers: WatcherService; lease: ProcessLease };

/** Every configured secret value, to be masked out of task errors. */
export function secretValues(config: Config): string[] {
  const credentials = Object.values(config.stream.credentials).flatMap((pair) => (pair ? [pair.key, pair.secret] : []));
  const others = [
    config.api.key,
    ...config.api.keys.map((entry) => entry.key),
    config.lakehouse.token,
    config.warehouse.accessToken,
    config.storage.url,
  ];
  return [
    ...new Set(
      [...credentials, ...others].filter((value): value is string => typeof value === 'string' && value !== ''),
    ),
  ];
}

const REDOC_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>lineage-svc API</title>
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <style>body { margin: 0; padding: 0; }</style>
  </head>
  <body>
    <redoc spec-url="/openapi.json"></redoc>
    <script src="/redoc/redoc.standalone.js"></script>
  </body>
</html>
`;

/** The Fastify instance with its limits, timeouts and Zod type provider. */
function createApiInstance(options: AppOptions) {
  const { config, logger } = options;
  const timeoutMs = config.api.requestTimeoutSeconds * 1000;
  return Fastify({
    loggerInstance: logger.child({}, { serializers: { req: serializeRequest } }),
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    requestTimeout: timeoutMs,
    connectionTimeout: timeoutMs,
    // Node checks request timeouts at this interval (30 s by default, too coarse for short timeouts).
    http: { connectionsCheckingInterval: Math.max(250, Math.min(30_000, timeoutMs / 4 || 30_000)) } as object,
    clientErrorHandler: problemClientErrorHandler,
    frameworkErrors: (error, _request, reply) =>
      sendProblem(reply, problem(400, `the request URL is malformed: ${error.message}`, { code: 'BAD_URL' })),
  }).withTypeProvider<ZodTypeProvider>();
}

type ApiInstance = ReturnType<typeof createApiInstance>;

/**
 * Validation, problem responses, the JSON body parser, operational hooks (CORS and timing, before the
 * key check), API key auth, security headers and the write rate limit; resolves with the API's metrics.
 */
async function registerRequestHandling(app: ApiInstance, config: Config, runtime: LineageRuntime) {
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerProblemHandling(app);
  registerJsonBodyParser(app);
  app.addHook('onRoute', strictWriteQuerystrings);
  const metrics = await registerOperationalHooks(app, { config, runtime }); // CORS and timing, before the key check
  registerApiKeyAuth(app, config.api.key, config.api.keys);
  registerSecurityHeaders(app);
  await registerWriteRateLimit(app, config.api.rateLimitPerMinute, { clientKey: authenticatedKeyId });
  return metrics;
}

/**
 * The OpenAPI document generator and Swagger UI at `/docs`: the document's options, `servers` from the
 * configuration and the documentation each route's schema leaves out come from `openApi.ts`.
 */
async function registerOpenApi(app: ApiInstance, config: Config): Promise<void> {
  await app.register(swagger, openApiOptions(config, packageInfo().version));
  await app.register(swaggerUi, { routePrefix: '/docs' });
}

/** The OpenAPI document as JSON and YAML, and the Redoc page with its bundle. */
function registerApiDocumentRoutes(app: ApiInstance): void {
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/api/v1/openapi.yaml', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/yaml; charset=utf-8').send(toYaml(app.swagger())),
  );
  const redocBundle = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
  app.get('/redoc', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(REDOC_PAGE),
  );
  app.get('/redoc/redoc.standalone.js', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type('application/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=86400')
      .send(createReadStream(redocBundle)),
  );
}

/** What tasks and watchers need to know about this process's ownership of them. */
interface Ownership {
  processId: string;
  isOwnerLive: ProcessLease['isOwnerLive'];
}

/** The watcher service: this process's watchers, pushing to the configured catalogs (or the options' test doubles). */
function createApiWatchers(options: AppOptions, services: ServiceContext, ownership: Ownership): WatcherService {
  const { config, logger, runtime } = options;
  const pushers = options.watchers?.pushers ?? catalogPushers(services);
  return createWatcherService({
    ...ownership,
    resumeOrphans: config.processes.resumeWatchers,
    store: runtime.store,
    watchers: runtime.watchers,
    projector: runtime.projector,
    logger,
    engineDeps:
      options.watchers?.engineDeps ??
      ((watcherId, settings) => watcherEngineDeps(services, { watcherId, settings, pushers })),
    pushTypes: Object.keys(pushers),
    ...(options.watchers?.maxRunning !== undefined ? { maxRunning: options.watchers.maxRunning } : {}),
  });
}

/** Closing the app: idle connections close at once, the rest after `CONNECTION_DRAIN_MS`; then `stop` runs. */
function registerShutdown(app: ApiInstance, stop: () => Promise<void>): void {
  app.addHook('preClose', async () => {
    app.server.closeIdleConnections();
    const timer = setTimeout(() => app.server.closeAllConnections(), CONNECTION_DRAIN_MS);
    app.server.once('close', () => clearTimeout(timer));
  });
  app.addHook('onClose', stop);
}

/**
 * Builds the API. Takes this process's lease (`services/ownership.ts`: `ProcessStarted`, renewed every
 * third of `config.processes.leaseSeconds`) and sweeps every third of it: tasks and watchers whose owner's
 * lease expired are interrupted (watchers resumed with `config.processes.resumeWatchers`), once; the
 * work of live processes, this one's or another's, is left alone. Closing the app drains tasks,
 * stops its watchers, then releases the lease (`ProcessStopped`). With a sink configured
 * (`config.publish`), it also publishes lineage changes while it holds the publisher's claim
 * (`services/publisher.ts`).
 */
export async function buildApp(options: AppOptions): Promise<LineageApp> {
  const { config, logger, runtime } = options;
  const app = createApiInstance(options);
  const metrics = await registerRequestHandling(app, config, runtime);
  await registerOpenApi(app, config);

  const services = options.services ?? createServiceContext({ config, runtime, logger });
  const runners = options.runners ?? createTaskRunners(services);
  let watchersRef: WatcherService | undefined;
  const lease = createProcessLease({
    store: runtime.store,
    processes: runtime.processes,
    projector: runtime.projector,
    logger,
    identity: newProcessIdentity('api', hostname(), process.pid),
    leaseSeconds: config.processes.leaseSeconds,
    onLost: () => void watchersRef?.stopAll('this process lost its lease'),
  });
  await lease.start();
  const ownership: Ownership = { processId: lease.identity.processId, isOwnerLive: lease.isOwnerLive };
  const tasks = createTaskService({
    ...ownership,
    store: runtime.store,
    tasks: runtime.tasks,
    projector: runtime.projector,
    logger,
    runners,
    secrets: secretValues(config),
  });

  await app.register(metaRoutes, { prefix: '/api/v1', config, lease, projector: runtime.projector });
  await app.register(graphRoutes, { prefix: '/api/v1', runtime });
  await app.register(pathRoutes, { prefix: '/api/v1', runtime });
  await app.register(nodeMetricsRoutes, { prefix: '/api/v1', runtime });
  await app.register(provenanceRoutes, { prefix: '/api/v1', runtime });
  await app.register(impactRoutes, { prefix: '/api/v1', context: { runtime } });
  await app.register(taskRoutes, { prefix: '/api/v1', config, tasks: runtime.tasks, service: tasks });
  await app.register(environmentRoutes, {
    prefix: '/api/v1',
    environments: options.environments ?? createEnvironmentCatalog(services),
  });
  await app.register(openLineageRoutes, { prefix: '/api/v1', runtime });
  await app.register(marquezRoutes, {
    prefix: '/api/v1',
    runtime,
    maxLineageNodes: config.api.marquezMaxLineageNodes,
  });
  await app.register(pushRoutes, { prefix: '/api/v1', context: services });
  const watchers = createApiWatchers(options, services, ownership);
  await app.register(watcherRoutes, {
    prefix: '/api/v1',
    watchers: runtime.watchers,
    service: watchers,
    minPollIntervalSeconds: config.api.minPollIntervalSeconds,
  });
  await app.register(operationsRoutes, { config, runtime, metrics });
  await app.register(mcpRoutes, { runtime, logger }); // POST /mcp: the MCP tools (infra/mcp/), outside the OpenAPI document
  registerApiDocumentRoutes(app);

  watchersRef = watchers;
  const sweeper = createOwnershipSweeper({
    lease,
    logger,
    ...(options.sweepMilliseconds === undefined ? {} : { intervalMilliseconds: options.sweepMilliseconds }),
    reclaim: async () => {
      await tasks.failInterrupted();
      await watchers.stopInterrupted();
    },
  });
  // Lineage changes as CloudEvents, when a sink is configured; one process publishes at a time.
  const publication = startConfiguredPublisher({ config, runtime, lease, logger, sink: options.publishSink });
  registerShutdown(app, async () => {
    await publication.stop();
    await sweeper.stop();
    await tasks.drain(TASK_DRAIN_MS);
    await watchers.stopAll();
    await lease.stop('API process shutting down');
  });
  await sweeper.sweep();
  return Object.assign(app, { tasks, watchers, lease }) as unknown as LineageApp;
}
