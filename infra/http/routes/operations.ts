/**
 * Operational endpoints (issue 12; `docs/operations.md`), beside the liveness `GET /api/v1/health`
 * of `./meta.ts`:
 *
 * - `GET /api/v1/ready`: 200 `{status: "ready", checks: {store, projections}}` when the store answers
 *   and can take writes and the projections keep up with it; else 503 problem+json (`type` ends in
 *   `not-ready`) with the same `checks` and a `detail` naming what is wrong;
 * - `GET /metrics`: Prometheus text format (version 0.0.4), the metrics of `../metrics.ts`.
 *
 * Both stay open when API-key authentication is on (probes and scrapers carry no key; neither
 * answers lineage data). `registerOperationalHooks` installs, on the root instance and before the
 * routes, CORS (`@fastify/cors`, only when `LINEAGE_SVC_API_CORS_ORIGINS` is set) and the hook that
 * times every request for the metrics.
 *
 * Readiness checks, each bounded by `READY_TIMEOUT_MILLISECONDS`:
 * - store: its head position is read (every backend: proves the connection and a query); the last
 *   append did not fail for a reason that means the store cannot write (a full disk, a read-only
 *   store, an I/O error: `infra/eventStore/writeHealth.ts`) within the last
 *   `READY_WRITE_FAILURE_HOLD_MILLISECONDS`, unless an append succeeded since; for the file and sqlite
 *   backends the storage folder and the store file must also be writable (`access` with `W_OK`, which
 *   also fails on a read-only mount, for root too) and their file system must have
 *   `READY_MINIMUM_FREE_BYTES` free (`statfs`, one system call: a full disk is seen before a write fails);
 * - projections: the projector is `live` (following the store, not retrying after a failure), and
 *   when they are behind the head just read, they must reach it within `READY_CATCH_UP_MILLISECONDS`
 *   (a stopped or failed projector never does). The lag is in positions, which are events on every
 *   backend but EventStoreDB (whose positions have gaps).
 *
 * The answer is open to anonymous callers, so it names no credential, host, port or database: a
 * store that does not answer is "did not answer", and the driver's error (which names the database)
 * is only logged (`Ready:NotReady`, with every detail).
 */
import { constants } from 'node:fs';
import { access, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import cors from '@fastify/cors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../../src/config.js';
import { errorMessage } from '../../../src/errors.js';
import type { EventStore } from '../../../src/eventStore.js';
import type { Projector } from '../../../projections/projector.js';
import { FILE_EVENT_STORE_LOG } from '../../eventStore/fileEventStore.js';
import { SQLITE_EVENT_STORE_FILE } from '../../eventStore/sqliteEventStore.js';
import type { StoreWriteHealth } from '../../eventStore/writeHealth.js';
import type { LineageRuntime } from '../../runtime.js';
import { createApiMetrics, type ApiMetrics } from '../metrics.js';
import { ProblemSchema, problem, sendProblem, type AnyFastifyInstance } from '../problem.js';
import { position } from './schemas.js';

/** How long each readiness check may take before it counts as failing, in milliseconds. */
export const READY_TIMEOUT_MILLISECONDS = 2_000;

/** How long the projections may take to reach the store's head before readiness fails, in milliseconds. */
export const READY_CATCH_UP_MILLISECONDS = 2_000;

/**
 * How long after an append failed because the store cannot write (with none succeeding since)
 * readiness fails, in milliseconds. Past it, readiness lets traffic back in to try again (no probe
 * write is made to find out), and the next failed append holds it off again.
 */
export const READY_WRITE_FAILURE_HOLD_MILLISECONDS = 30_000;

/** Free space the file and sqlite stores' file system must have for readiness, in bytes (1 MiB). */
export const READY_MINIMUM_FREE_BYTES = 1024 * 1024;

/** How long browsers may cache a CORS preflight answer, in seconds (`Access-Control-Max-Age`). */
export const CORS_MAX_AGE_SECONDS = 600;

/** The methods the API answers, as CORS allows them. */
export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** `ok`, `failing`, or `skipped` when a check could not run because another one failed first. */
export const CheckStatusSchema = z.enum(['ok', 'failing', 'skipped']);

/** The store check: the backend, the head position it answered, and the folder checked (file and sqlite). */
export const StoreCheckSchema = z.object({
  status: CheckStatusSchema,
  backend: z.string().describe('memory, file, sqlite, postgres or eventstoredb'),
  head_position: position('Global position of the last event; null when it could not be read').nullable(),
  folder: z.string().nullable().describe('Storage folder checked for writes (file and sqlite; null otherwise)'),
  message: z.string().optional().describe('What is wrong (failing checks only)'),
});
export type StoreCheck = z.infer<typeof StoreCheckSchema>;

/** The projections check: where the projections are against the store's head. */
export const ProjectionsCheckSchema = z.object({
  status: CheckStatusSchema,
  position: position('Global position the projections have applied'),
  head_position: position('The store head the projections were checked against').nullable(),
  lag: position('Positions behind the head when answering (events, except on EventStoreDB)').nullable(),
  message: z.string().optional().describe('What is wrong (failing or skipped checks only)'),
});
export type ProjectionsCheck = z.infer<typeof ProjectionsCheckSchema>;

/** Both checks. */
export const ReadinessChecksSchema = z.object({ store: StoreCheckSchema, projections: ProjectionsCheckSchema });
export type ReadinessChecks = z.infer<typeof ReadinessChecksSchema>;

/** The outcome of `checkReadiness`. */
export interface Readiness {
  ready: boolean;
  /** What is answered: no credential, host, port or database name. */
  checks: ReadinessChecks;
  /** The errors behind failing checks, as the drivers said them (they may name the database): for the log only. */
  details: string[];
}

/** What the readiness checks read. */
export interface ReadinessDeps {
  storage: Config['storage'];
  store: Pick<EventStore, 'headPosition'>;
  projector: Pick<Projector, 'position' | 'waitFor' | 'status'>;
  /** The store's last append outcome (`LineageRuntime.writeHealth`); unchecked when absent. */
  writeHealth?: StoreWriteHealth;
}

/**
 * Limits of the checks (defaults `READY_TIMEOUT_MILLISECONDS`, `READY_CATCH_UP_MILLISECONDS`,
 * `READY_WRITE_FAILURE_HOLD_MILLISECONDS` in milliseconds, `READY_MINIMUM_FREE_BYTES` in bytes).
 */
export interface ReadinessOptions {
  timeoutMilliseconds?: number;
  catchUpMilliseconds?: number;
  writeFailureHoldMilliseconds?: number;
  minimumFreeBytes?: number;
  /** Clock, in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
}

/** Resolves like `promise`, or rejects with `message` after `milliseconds`. */
async function within<T>(promise: Promise<T>, milliseconds: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), milliseconds);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Why `path` cannot be written to, or undefined when it can. */
async function notWritable(path: string): Promise<string | undefined> {
  try {
    await access(path, constants.W_OK);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? errorMessage(error);
  }
}

/** Bytes free for an unprivileged writer on the file system of `folder`, or undefined when it cannot be told. */
async function freeBytes(folder: string): Promise<number | undefined> {
  try {
    const stats = await statfs(folder);
    return stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
}

/** The folder and file the file and sqlite backends write to (undefined for the other backends and `:memory:`). */
function storageFiles(storage: Config['storage']): { folder: string; file: string } | undefined {
  if (storage.backend === 'file') return { folder: storage.path, file: join(storage.path, FILE_EVENT_STORE_LOG) };
  if (storage.backend === 'sqlite' && storage.path !== ':memory:')
    return { folder: storage.path, file: join(storage.path, SQLITE_EVENT_STORE_FILE) };
  return undefined;
}

/** What keeps the file and sqlite stores from writing: a folder or file not writable, a file system (nearly) full. */
async function storageFileProblems(
  files: { folder: string; file: string },
  minimumFreeBytes: number,
): Promise<string[]> {
  const folder = await notWritable(files.folder);
  if (folder) return [`the storage folder ${JSON.stringify(files.folder)} is not writable (${folder})`];
  const file = await notWritable(files.file);
  if (file) return [`the store file ${JSON.stringify(files.file)} is not writable (${file})`];
  const free = await freeBytes(files.folder);
  if (free !== undefined && free < minimumFreeBytes)
    return [
      `the storage folder's file system has ${free} bytes free, under the ${minimumFreeBytes} needed (disk full)`,
    ];
  return [];
}

/**
 * Runs the readiness checks (see the module's docstring). Never throws: every failure is a failing
 * check with a message.
 */
export async function checkReadiness(deps: ReadinessDeps, options: ReadinessOptions = {}): Promise<Readiness> {
  const timeout = options.timeoutMilliseconds ?? READY_TIMEOUT_MILLISECONDS;
  const catchUp = options.catchUpMilliseconds ?? READY_CATCH_UP_MILLISECONDS;
  const { storage, store, projector } = deps;
  const files = storageFiles(storage);
  const storeCheck: StoreCheck = {
    status: 'ok',
    backend: storage.backend,
    head_position: null,
    folder: files?.folder ?? null,
  };
  const problems: string[] = [];
  const details: string[] = [];
  try {
    storeCheck.head_position = await within(
      store.headPosition(),
      timeout,
      `the store did not answer within ${timeout} ms`,
    );
  } catch (error) {
    problems.push("the store's head position could not be read: the store did not answer (details in the server log)");
    details.push(`store: ${errorMessage(error)}`);
  }
  const writeFailure = deps.writeHealth?.failure;
  const now = (options.now ?? Date.now)();
  if (
    writeFailure &&
    now - writeFailure.at < (options.writeFailureHoldMilliseconds ?? READY_WRITE_FAILURE_HOLD_MILLISECONDS)
  ) {
    const seconds = Math.max(0, Math.round((now - writeFailure.at) / 1000));
    problems.push(
      `the store cannot take writes: an append failed ${seconds} s ago (${writeFailure.kind}, ${writeFailure.code})`,
    );
  }
  if (files) problems.push(...(await storageFileProblems(files, options.minimumFreeBytes ?? READY_MINIMUM_FREE_BYTES)));
  if (problems.length > 0) Object.assign(storeCheck, { status: 'failing', message: problems.join('; ') });

  const head = storeCheck.head_position;
  const projections: ProjectionsCheck = { status: 'ok', position: projector.position, head_position: head, lag: null };
  if (head === null) {
    Object.assign(projections, { status: 'skipped', message: "needs the store's head position" });
  } else {
    const behind = head - projector.position;
    if (behind > 0) {
      try {
        await projector.waitFor(head, catchUp);
      } catch {
        Object.assign(projections, {
          status: 'failing',
          message:
            `the projections are ${behind} positions behind the store head (at ${projector.position} of ${head})` +
            ` and did not catch up within ${catchUp} ms`,
        });
      }
    }
    projections.position = projector.position;
    projections.lag = Math.max(0, head - projector.position);
  }
  if (projections.status === 'ok' && projector.status !== 'live') {
    // Retrying after a store failure, failed on a projection's bug, or stopped: not following the store.
    Object.assign(projections, {
      status: 'failing',
      message: `the projections are not following the store (projector ${projector.status})`,
    });
  }
  return {
    ready: storeCheck.status === 'ok' && projections.status === 'ok',
    checks: { store: storeCheck, projections },
    details,
  };
}

/** The `detail` of a 503 answer: each failing check, `name: message`. */
export function notReadyDetail(checks: ReadinessChecks): string {
  return Object.entries(checks)
    .filter(([, check]) => check.status === 'failing')
    .map(([name, check]) => `${name}: ${check.message ?? 'failing'}`)
    .join('; ');
}

/**
 * Installs CORS (when configured) and request timing on the root instance, and creates the app's
 * metrics. Call it before authentication and before any route, so that preflight requests are
 * answered without a key and every route is timed. Returns the metrics (closed with the app).
 */
export async function registerOperationalHooks(
  app: AnyFastifyInstance,
  options: { config: Config; runtime: Pick<LineageRuntime, 'store' | 'projector' | 'watchers'> },
): Promise<ApiMetrics> {
  const origins = options.config.api.corsOrigins;
  if (origins.length > 0) {
    await app.register(cors, {
      origin: origins.includes('*') ? '*' : origins,
      methods: CORS_METHODS,
      maxAge: CORS_MAX_AGE_SECONDS,
    });
  }
  const metrics = createApiMetrics(options.runtime);
  app.addHook('onResponse', async (request, reply) => {
    metrics.observeRequest({
      method: request.method,
      route: request.routeOptions.url,
      statusCode: reply.statusCode,
      durationMilliseconds: reply.elapsedTime,
    });
  });
  app.addHook('onClose', async () => metrics.close());
  return metrics;
}

/** Options of the operational routes. */
export interface OperationsRoutesOptions {
  config: Config;
  runtime: Pick<LineageRuntime, 'store' | 'projector'> & Partial<Pick<LineageRuntime, 'writeHealth'>>;
  metrics: ApiMetrics;
  readiness?: ReadinessOptions;
}

const tags = ['operations'];

/**
 * Log level of the probe and scrape routes (`/api/v1/health`, `/api/v1/ready`, `/metrics`): called
 * every few seconds, their requests would flood the log at `info`; a failing readiness or liveness
 * check is still logged (`Ready:NotReady`, a warning; `Health:NotLive`, an error).
 */
export const PROBE_LOG_LEVEL = 'warn';

/** Registers `GET /api/v1/ready` and `GET /metrics` (register without a prefix). */
export const operationsRoutes: FastifyPluginAsyncZod<OperationsRoutesOptions> = async (app, options) => {
  const { config, runtime, metrics } = options;

  app.get(
    '/api/v1/ready',
    {
      logLevel: PROBE_LOG_LEVEL,
      schema: {
        tags,
        summary: 'Readiness: the store answers and can take writes, and the projections keep up; never needs a key',
        security: [],
        response: {
          200: z.object({ status: z.literal('ready'), checks: ReadinessChecksSchema }),
          503: ProblemSchema.extend({ checks: ReadinessChecksSchema }).describe('Not ready: what is wrong'),
        },
      },
    },
    async (request, reply) => {
      const readiness = await checkReadiness(
        {
          storage: config.storage,
          store: runtime.store,
          projector: runtime.projector,
          ...(runtime.writeHealth ? { writeHealth: runtime.writeHealth } : {}),
        },
        options.readiness,
      );
      if (readiness.ready) return { status: 'ready' as const, checks: readiness.checks };
      request.log.warn({ checks: readiness.checks, details: readiness.details }, 'Ready:NotReady');
      return sendProblem(reply, {
        ...problem(503, notReadyDetail(readiness.checks), { code: 'NOT_READY' }),
        checks: readiness.checks,
      } as ReturnType<typeof problem>);
    },
  );

  app.get(
    '/metrics',
    {
      logLevel: PROBE_LOG_LEVEL,
      schema: {
        tags,
        summary: 'Prometheus metrics (text format 0.0.4); never needs a key',
        security: [],
      },
    },
    async (_request, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );
};
