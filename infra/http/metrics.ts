/**
 * Prometheus metrics of the API process (`GET /metrics`, registered by `./routes/operations.ts`;
 * `docs/operations.md` lists them). One prom-client `Registry` per app, so that several apps in
 * one process (the tests) keep their own counts; the process metrics of prom-client
 * (`collectDefaultMetrics`: CPU, memory, event loop lag, GC, handles) are collected once per
 * process and merged in.
 *
 * Where the numbers come from:
 * - HTTP requests: observed by the app's `onResponse` hook (`observeRequest`);
 * - events: a listener on the projector (`Projector.onApplied`), so every event the projections
 *   apply is counted once, whichever process appended it (an extraction run by `lineage-svc-watch`
 *   is seen by the API that shares its store). Extraction durations and platform requests come
 *   from `ExtractionCompleted` and `ExtractionFailed`, OpenLineage ingest counts from
 *   `OpenLineageEventIngested`; events replayed at start are not counted again, only their number;
 * - gauges read at scrape time: the store's head position, the projections' position and lag, and
 *   the watchers by state (from the watcher projection).
 *
 * Counters start at zero with the process, as Prometheus expects. Every replica that shares a store
 * sees the same events, so event-derived counters must not be summed across replicas (use `max`).
 */
import client, { type Registry } from 'prom-client';
import { WATCHER_STATES, type StoredLineageEvent } from '../../src/events.js';
import { kafkaConsumerRegistry } from '../kafka/consumerMetrics.js';
import type { LineageRuntime } from '../runtime.js';

/** Prefix of every metric of lineage-svc (the process metrics keep prom-client's standard names). */
export const METRIC_PREFIX = 'lineage_svc_';

/** Buckets of the request latency histogram, in seconds (1 ms to 30 s). */
export const REQUEST_DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Buckets of the extraction duration histogram, in seconds (1 s to 1 h). */
export const EXTRACTION_DURATION_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600];

/** The `route` label of requests that matched no route (unknown paths are not labels: unbounded). */
export const UNMATCHED_ROUTE = 'unmatched';

/** What `observeRequest` needs of one answered request. */
export interface ObservedRequest {
  /** HTTP method, e.g. `GET`. */
  method: string;
  /** The route's URL pattern (`/api/v1/graphs/:graph_id`), or undefined when no route matched. */
  route: string | undefined;
  /** HTTP status code of the answer. */
  statusCode: number;
  /** Time from the request's arrival to the answer, in milliseconds. */
  durationMilliseconds: number;
}

/** The metrics of one app. */
export interface ApiMetrics {
  /** The app's metrics merged with the process metrics: what `GET /metrics` serializes. */
  readonly registry: Registry;
  /** Records one answered request in the latency histogram. */
  observeRequest(request: ObservedRequest): void;
  /** Stops listening to the projector (call when the app closes). Idempotent. */
  close(): void;
}

let processRegistry: Registry | undefined;

/** The registry of the process metrics, created (and its collectors started) on first use. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new client.Registry();
    client.collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * Creates the metrics of an app over `runtime`: registers every collector in a new registry and
 * starts listening to the projector's events. Call `close()` when the app closes.
 */
export function createApiMetrics(runtime: Pick<LineageRuntime, 'store' | 'projector' | 'watchers'>): ApiMetrics {
  const registry = new client.Registry();
  const name = (suffix: string) => `${METRIC_PREFIX}${suffix}`;
  const { store, projector, watchers } = runtime;

  const requestDuration = new client.Histogram({
    name: name('http_request_duration_seconds'),
    help: 'Time from a request to its answer, in seconds, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: REQUEST_DURATION_BUCKETS,
    registers: [registry],
  });

  // Read at scrape time; the last successful read is kept when the store fails to answer (the
  // readiness endpoint says why).
  let headPosition = 0;
  async function readHead(): Promise<number> {
    try {
      headPosition = await store.headPosition();
    } catch {
      // keep the last value
    }
    return headPosition;
  }
  new client.Gauge({
    name: name('store_head_position'),
    help: 'Global position of the last event in the store (EventStoreDB positions have gaps)',
    registers: [registry],
    async collect() {
      this.set(await readHead());
    },
  });
  new client.Gauge({
    name: name('projection_position'),
    help: 'Global position the projections of this process have applied',
    registers: [registry],
    collect() {
      this.set(projector.position);
    },
  });
  new client.Gauge({
    name: name('projection_lag'),
    help: 'Positions the projections are behind the store head (events, on every backend but EventStoreDB)',
    registers: [registry],
    async collect() {
      this.set(Math.max(0, (await readHead()) - projector.position));
    },
  });
  let replayedReported = 0;
  new client.Counter({
    name: name('projection_replayed_events_total'),
    help: 'Events replayed into the projections while catching up with the store (at start and on rebuild)',
    registers: [registry],
    collect() {
      const replayed = projector.replayedEvents;
      if (replayed > replayedReported) this.inc(replayed - replayedReported);
      replayedReported = replayed;
    },
  });
  const appended = new client.Counter({
    name: name('store_appended_events_total'),
    help: 'Events appended to the store (by any process sharing it) and applied by this process since it caught up, by type',
    labelNames: ['type'] as const,
    registers: [registry],
  });
  const extractionDuration = new client.Histogram({
    name: name('extraction_duration_seconds'),
    help: 'Duration of extractions, in seconds, by outcome (completed or failed), from their recorded events',
    labelNames: ['outcome'] as const,
    buckets: EXTRACTION_DURATION_BUCKETS,
    registers: [registry],
  });
  const platformRequests = new client.Counter({
    name: name('extraction_platform_requests_total'),
    help: 'Requests completed extractions made to the platform, by API (e.g. kafka-rest.topics)',
    labelNames: ['api'] as const,
    registers: [registry],
  });
  const openLineageIngested = new client.Counter({
    name: name('openlineage_events_ingested_total'),
    help: 'OpenLineage events ingested (after deduplication), by kind: RunEvent, JobEvent or DatasetEvent',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  new client.Gauge({
    name: name('watchers'),
    help: 'Registered watchers by state, from the watcher projection',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const counts = new Map<string, number>(WATCHER_STATES.map((state) => [state, 0]));
      for (const watcher of watchers.list()) counts.set(watcher.state, (counts.get(watcher.state) ?? 0) + 1);
      for (const [state, count] of counts) this.set({ state }, count);
    },
  });

  // Every label value known in advance is present from the start (at 0), so that rates and
  // absences read the same on a fresh process.
  for (const kind of ['RunEvent', 'JobEvent', 'DatasetEvent']) openLineageIngested.inc({ kind }, 0);

  function onEvent(event: StoredLineageEvent, replay: boolean): void {
    if (replay) return;
    appended.inc({ type: event.type });
    switch (event.type) {
      case 'ExtractionCompleted':
        extractionDuration.observe({ outcome: 'completed' }, event.data.duration_ms / 1000);
        for (const [api, count] of Object.entries(event.data.requests)) platformRequests.inc({ api }, count);
        break;
      case 'ExtractionFailed':
        extractionDuration.observe({ outcome: 'failed' }, event.data.duration_ms / 1000);
        break;
      case 'OpenLineageEventIngested':
        openLineageIngested.inc({ kind: event.data.kind });
        break;
      default:
        break;
    }
  }
  const stopListening = projector.onApplied(onEvent);

  return {
    // The OpenLineage Kafka consumer's lag and offsets (empty unless it consumes): infra/kafka/consumerMetrics.ts.
    registry: client.Registry.merge([processMetrics(), kafkaConsumerRegistry, registry]),
    observeRequest({ method, route, statusCode, durationMilliseconds }) {
      requestDuration.observe(
        { method, route: route ?? UNMATCHED_ROUTE, status_code: String(statusCode) },
        durationMilliseconds / 1000,
      );
    },
    close: () => {
      stopListening();
    },
  };
}
