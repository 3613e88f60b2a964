/**
 * The platform simulator's HTTP server: one fastify server on one port that stands in for every
 * host of the managed streaming platform (Confluent Cloud), with path prefixes in place of the
 * hosts the client discovers:
 *
 * | real host | simulator base |
 * |---|---|
 * | `https://api.confluent.cloud` (org, cmk, connect, fcpm, ksqldbcm, srcm, iam, tableflow) | `{url}` |
 * | `https://api.telemetry.confluent.cloud` (Metrics) | `{url}` |
 * | Kafka REST `https://pkc-xxxxx.<region>.<cloud>.confluent.cloud:443` | `{url}/kafka-rest/{lkc}` (cmk `spec.http_endpoint`) |
 * | Schema Registry + Stream Catalog `https://psrc-xxxxx...` | `{url}/schema-registry/{lsrc}` (srcm `spec.http_endpoint`, `spec.catalog_http_endpoint`) |
 * | ksqlDB `https://pksqlc-xxxxx...` | `{url}/ksqldb/{lksqlc}` (ksqldbcm `status.http_endpoint`) |
 * | Flink SQL `https://flink.<region>.<cloud>.confluent.cloud` | `{url}/flink/{cloud}-{region}` (fcpm regions `http_endpoint`) |
 *
 * Below each prefix the real paths are served unchanged. Every discovered endpoint in an answer
 * is such a prefixed URL, so a client that joins `<endpoint> + "/kafka/v3/..."` by string
 * concatenation works unchanged against both the simulator and the real platform.
 *
 * Each request goes through: accounting (per API name) -> global latency -> faults -> credentials
 * (HTTP basic, per service) -> handler. Answers and errors use the real bodies of each API family.
 */
import { timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { HttpError, errorIdSequence, renderError, standardMessage, type Family } from './errors.js';
import { FaultStore, type ActiveFault, type Fault } from './faults.js';
import { buildWorld, type World } from './model.js';
import { parseScenario, type Credential, type Scenario, type ScenarioInput } from './scenario.js';
import { applyScenarioOps, type ScenarioOp } from './mutations.js';
import { registerAdmin } from './routes/admin.js';
import { registerConnect } from './routes/connect.js';
import { registerControlPlane } from './routes/controlPlane.js';
import { registerFlink } from './routes/flink.js';
import { registerKafkaRest } from './routes/kafkaRest.js';
import { registerKsqldb } from './routes/ksqldb.js';
import { registerMetrics } from './routes/metrics.js';
import { registerSchemaRegistry } from './routes/schemaRegistry.js';

/** Which credential a route requires. */
export type AuthKind = 'none' | 'cloud' | 'tableflow' | 'kafka' | 'schema-registry' | 'flink' | 'ksqldb';

/** What the simulator knows about a route. */
export interface RouteMeta {
  /** API name used for accounting and fault matching, e.g. `kafka-rest.topics` */
  api: string;
  family: Family;
  auth: AuthKind;
}

/** Route handler: returns the JSON body (or sends through `reply` itself). */
export type Handler = (request: FastifyRequest, reply: FastifyReply) => unknown;

/**
 * A clock and one-shot timers: `now()` answers milliseconds since the epoch, `setTimeout` delays are
 * in milliseconds. Tests hand the simulator a controlled one so that held requests end when the test
 * moves time on, not after a real wait.
 */
export interface SimulatorClock {
  now(): number;
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The system's clock and timers (`Date.now`, `setTimeout`, `clearTimeout`). */
export const systemClock: SimulatorClock = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** What route modules use to declare routes. */
export interface Registrar {
  world: World;
  /** The simulator's base URL (`http://127.0.0.1:PORT`), known once listening. */
  base(): string;
  /** The simulator's clock: milliseconds since the epoch (relative Metrics intervals end now). */
  now(): number;
  get(url: string, meta: RouteMeta, handler: Handler): void;
  post(url: string, meta: RouteMeta, handler: Handler): void;
}

/** One request as recorded by the simulator. */
export interface RequestLogEntry {
  /** 1, 2, 3... in arrival order */
  seq: number;
  method: string;
  /** URL path without the query string */
  path: string;
  /** the query string without `?` ('' when none) */
  query: string;
  /** API name (`kafka-rest.topics`...), `unknown` for paths the simulator does not serve */
  api: string;
  /** HTTP status answered; `null` while pending or when the client gave up first */
  status: number | null;
  /** ids of the faults applied */
  faults: string[];
  /** true when the client closed the connection before the answer */
  aborted: boolean;
}

/** Options of `startPlatformSimulator`. */
export interface PlatformSimulatorOptions {
  /** the estate: a validated scenario or a scenario object (validated here) */
  scenario: Scenario | ScenarioInput;
  /** bind address, default `127.0.0.1` */
  host?: string;
  /** port, default 0 (ephemeral) */
  port?: number;
  /** milliseconds added to every request (overrides the scenario's `latency_ms`) */
  latencyMs?: number;
  /** pino-compatible logger for the server (default: silent) */
  logger?: FastifyBaseLogger | boolean;
  /** base URL written into answers (default `http://<host>:<port>`, `127.0.0.1` for wildcard hosts) */
  advertisedUrl?: string;
  /** clock and timers of latency and timeout faults and of the Metrics API (default `systemClock`) */
  clock?: SimulatorClock;
}

/** A running platform simulator. */
export interface PlatformSimulator {
  /** base URL, e.g. `http://127.0.0.1:43817` (no trailing slash) */
  url: string;
  port: number;
  /** the validated scenario served */
  scenario: Scenario;
  /** stops the server; pending (held) requests are dropped */
  close(): Promise<void>;
  /** installs a fault (see `faults.ts`); returns it with its counters */
  injectFault(fault: Fault): ActiveFault;
  /** removes every fault (including the scenario's) */
  clearFaults(): void;
  /** the installed faults with their counters (`hits`, `remaining`) */
  faults(): ActiveFault[];
  /** number of requests per API name since start or the last reset */
  requestCounts(): Record<string, number>;
  /** every request since start or the last reset (copies) */
  requestLog(): RequestLogEntry[];
  /** forgets the request log and counts */
  resetRequestLog(): void;
  /** sets the global latency added to every request (ms) */
  setLatency(ms: number): void;
  /**
   * Changes the served estate from the next request on (`mutations.ts`): operations such as
   * `{op: 'add_topic', ...}`, or a function that edits a copy of the scenario. The result is
   * validated again; on error nothing changes. Returns the new scenario (also `scenario`).
   * @throws ValidationError when an operation names something unknown or the result is invalid
   */
  mutate(change: readonly ScenarioOp[] | ((draft: Scenario) => void)): Scenario;
}

/** API family of a path that no route matched (for the 404 body). */
function familyOfPath(path: string): Family {
  if (path.startsWith('/kafka-rest/')) return 'kafka-rest';
  if (path.startsWith('/schema-registry/')) return 'schema-registry';
  if (path.startsWith('/ksqldb/')) return 'ksqldb';
  if (path.startsWith('/connect/')) return 'connect';
  if (path.startsWith('/v2/metrics/')) return 'metrics';
  if (path.startsWith('/_simulator')) return 'admin';
  return 'v2';
}

function credentialMatches(header: string | undefined, accepted: readonly Credential[]): boolean {
  if (header === undefined || !/^basic /i.test(header)) return false;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  const key = Buffer.from(decoded.slice(0, colon));
  const secret = Buffer.from(decoded.slice(colon + 1));
  return accepted.some((c) => {
    const k = Buffer.from(c.key);
    const s = Buffer.from(c.secret);
    return (
      k.length === key.length && s.length === secret.length && timingSafeEqual(k, key) && timingSafeEqual(s, secret)
    );
  });
}

function unauthorized(family: Family): HttpError {
  return new HttpError(401, family, standardMessage(family, 401), {
    headers: {
      'www-authenticate':
        'Basic realm="confluent", error="invalid_key", error_description="The API key or secret is invalid"',
    },
  });
}

/** The HttpError a terminal fault answers with. */
function faultError(fault: ActiveFault, family: Family): HttpError {
  const spec = fault.spec;
  const status = spec.kind === 'unauthorized' ? 401 : spec.kind === 'not_found' ? 404 : (spec.status ?? 500);
  const headers: Record<string, string> = {};
  if (status === 401) headers['www-authenticate'] = 'Basic realm="confluent", error="invalid_key"';
  if (spec.retry_after !== undefined) headers['retry-after'] = String(spec.retry_after);
  if (status === 429 && family !== 'kafka-rest' && family !== 'ksqldb') {
    headers['retry-after'] ??= '1';
    headers['x-ratelimit-limit'] = '100';
    headers['x-ratelimit-remaining'] = '0';
    headers['x-ratelimit-reset'] = headers['retry-after'];
  }
  return new HttpError(status, family, standardMessage(family, status), { headers, body: spec.body });
}

/**
 * Starts the platform simulator.
 * @returns the running simulator; `url` is its base URL
 * @throws ValidationError when the scenario is invalid
 */
export async function startPlatformSimulator(options: PlatformSimulatorOptions): Promise<PlatformSimulator> {
  let scenario = parseScenario(options.scenario, 'object');
  const world = buildWorld(scenario);
  const host = options.host ?? '127.0.0.1';
  let latencyMs = options.latencyMs ?? scenario.latency_ms;
  const clock = options.clock ?? systemClock;
  let baseUrl = '';
  const faults = new FaultStore();
  for (const f of scenario.faults) faults.add(f);

  const log: RequestLogEntry[] = [];
  let counts = new Map<string, number>();
  let seq = 0;
  /** ids of this simulator's `v2` error bodies (its own sequence, not shared with other simulators) */
  const nextErrorId = errorIdSequence();
  const entries = new WeakMap<FastifyRequest, RequestLogEntry>();
  const metaByRoute = new Map<string, RouteMeta>();
  /** wake-up functions of requests held by latency or timeout faults */
  const waiting = new Set<() => void>();
  let closing = false;

  const logger = options.logger ?? false;
  const app: FastifyInstance = Fastify({
    // Fastify 5 takes a ready logger instance as `loggerInstance`, a boolean as `logger`.
    ...(typeof logger === 'boolean' ? { logger } : { loggerInstance: logger }),
    forceCloseConnections: true,
    bodyLimit: 16 * 1024 * 1024,
    routerOptions: { maxParamLength: 2048, ignoreTrailingSlash: true },
  });

  // ksqlDB and Schema Registry clients send vendor JSON media types.
  app.addContentTypeParser(/^application\/(vnd\.[a-z0-9.+-]+\+)?json/i, { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text));
    } catch {
      const error = new Error('Malformed JSON request body') as Error & { statusCode: number };
      error.statusCode = 400;
      done(error, undefined);
    }
  });

  function metaOf(request: FastifyRequest): RouteMeta | undefined {
    const url = request.routeOptions.url;
    return url === undefined ? undefined : metaByRoute.get(`${request.method} ${url}`);
  }

  /** Sleeps `ms`, waking early when the client goes away or the simulator closes. */
  function hold(reply: FastifyReply, ms: number | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      let timer: unknown;
      const wake = (): void => {
        if (timer !== undefined) clock.clearTimeout(timer);
        reply.raw.off('close', wake);
        waiting.delete(wake);
        resolve();
      };
      if (ms !== undefined) timer = clock.setTimeout(wake, ms);
      reply.raw.once('close', wake);
      waiting.add(wake);
    });
  }

  app.addHook('onRequest', async (request, reply) => {
    const pathOnly = request.url.split('?')[0] ?? request.url;
    if (pathOnly.startsWith('/_simulator')) return;
    const meta = metaOf(request);
    const api = meta?.api ?? 'unknown';
    const family = meta?.family ?? familyOfPath(pathOnly);
    const queryIndex = request.url.indexOf('?');
    const entry: RequestLogEntry = {
      seq: ++seq,
      method: request.method,
      path: pathOnly,
      query: queryIndex < 0 ? '' : request.url.slice(queryIndex + 1),
      api,
      status: null,
      faults: [],
      aborted: false,
    };
    log.push(entry);
    entries.set(request, entry);
    counts.set(api, (counts.get(api) ?? 0) + 1);

    const decision = faults.decide(api, request.method, request.url);
    entry.faults = decision.applied;
    const wait = latencyMs + decision.latencyMs;
    if (wait > 0) await hold(reply, wait);
    const terminal = decision.terminal;
    if (terminal !== undefined && terminal.spec.kind === 'timeout') {
      await hold(reply, terminal.spec.ms);
    } else if (terminal !== undefined) {
      throw faultError(terminal, family);
    }
    if (closing || reply.raw.destroyed || reply.raw.writableEnded) {
      entry.aborted = true;
      reply.hijack();
    }
  });

  app.addHook('preHandler', async (request) => {
    const meta = metaOf(request);
    if (meta === undefined || meta.auth === 'none') return;
    const header = request.headers.authorization;
    const creds = scenario.credentials;
    const params = request.params as Record<string, string | undefined>;
    let accepted: Credential[];
    switch (meta.auth) {
      case 'cloud':
        accepted = [creds.cloud];
        break;
      case 'tableflow':
        accepted = creds.tableflow !== undefined ? [creds.tableflow, creds.cloud] : [creds.cloud];
        break;
      case 'kafka': {
        const cluster = world.clusters.get(params.hostCluster ?? '');
        if (cluster === undefined) throw new HttpError(404, 'kafka-rest', 'HTTP 404 Not Found');
        accepted = [cluster.def.api_key ?? creds.kafka];
        break;
      }
      case 'schema-registry': {
        const sr = world.schemaRegistries.get(params.lsrc ?? '');
        if (sr === undefined) throw new HttpError(404, 'schema-registry', 'HTTP 404 Not Found');
        accepted = [sr.def.api_key ?? creds.schema_registry];
        break;
      }
      case 'flink':
        accepted = [creds.flink];
        break;
      case 'ksqldb': {
        const k = world.ksqlClusters.get(params.ksql ?? '');
        if (k === undefined) throw new HttpError(404, 'ksqldb', 'HTTP 404 Not Found', { errorCode: 40400 });
        accepted = [k.def.api_key ?? creds.ksqldb];
        break;
      }
    }
    if (!credentialMatches(header, accepted)) throw unauthorized(meta.family);
  });

  app.addHook('onResponse', async (request, reply) => {
    const entry = entries.get(request);
    if (entry !== undefined) entry.status = reply.statusCode;
  });

  app.setErrorHandler((error: unknown, request, reply) => {
    const pathOnly = request.url.split('?')[0] ?? request.url;
    const meta = metaOf(request);
    const family = meta?.family ?? familyOfPath(pathOnly);
    let httpError: HttpError;
    if (error instanceof HttpError) {
      httpError = error;
    } else {
      const e = error as { statusCode?: number; message?: string };
      const status = typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 600 ? e.statusCode : 500;
      const message = status === 500 ? standardMessage(family, 500) : (e.message ?? standardMessage(family, status));
      if (status === 500) request.log.error({ err: error }, 'platform simulator handler failed');
      httpError = new HttpError(status, family, message);
    }
    const rendered = renderError(httpError, pathOnly, nextErrorId);
    void reply.code(rendered.status).headers(rendered.headers).type(rendered.contentType).send(rendered.body);
  });

  app.setNotFoundHandler((request, reply) => {
    const pathOnly = request.url.split('?')[0] ?? request.url;
    const family = familyOfPath(pathOnly);
    const rendered = renderError(new HttpError(404, family, standardMessage(family, 404)), pathOnly, nextErrorId);
    void reply.code(404).headers(rendered.headers).type(rendered.contentType).send(rendered.body);
  });

  const registrar: Registrar = {
    world,
    base: () => baseUrl,
    now: () => clock.now(),
    get(url, meta, handler) {
      metaByRoute.set(`GET ${url}`, meta);
      metaByRoute.set(`HEAD ${url}`, meta);
      app.get(url, async (request, reply) => handler(request, reply));
    },
    post(url, meta, handler) {
      metaByRoute.set(`POST ${url}`, meta);
      app.post(url, async (request, reply) => handler(request, reply));
    },
  };
  registerControlPlane(registrar);
  registerConnect(registrar);
  registerKafkaRest(registrar);
  registerSchemaRegistry(registrar);
  registerKsqldb(registrar);
  registerFlink(registrar);
  registerMetrics(registrar);

  const simulator: PlatformSimulator = {
    url: '',
    port: 0,
    scenario,
    async close() {
      closing = true;
      for (const wake of [...waiting]) wake();
      await app.close();
    },
    injectFault: (fault) => faults.add(fault),
    clearFaults: () => faults.clear(),
    faults: () => faults.list(),
    requestCounts: () => Object.fromEntries([...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    requestLog: () => log.map((e) => ({ ...e, faults: [...e.faults] })),
    resetRequestLog() {
      log.length = 0;
      counts = new Map();
    },
    setLatency(ms) {
      latencyMs = Math.max(0, ms);
    },
    mutate(change) {
      let next: Scenario;
      if (typeof change === 'function') {
        const draft = structuredClone(scenario);
        change(draft);
        next = parseScenario(draft, 'mutation');
      } else {
        next = applyScenarioOps(scenario, change, world);
      }
      // Route modules hold the `world` object itself: refresh it in place.
      Object.assign(world, buildWorld(next));
      scenario = next;
      simulator.scenario = next;
      return next;
    },
  };
  registerAdmin(app, simulator);

  try {
    await app.listen({ host, port: options.port ?? 0 });
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : (options.port ?? 0);
  const advertisedHost =
    host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  baseUrl = (options.advertisedUrl ?? `http://${advertisedHost}:${port}`).replace(/\/+$/, '');
  simulator.url = baseUrl;
  simulator.port = port;
  return simulator;
}
