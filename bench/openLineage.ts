/**
 * OpenLineage benchmark:
 * 1. Ingestion throughput through an `OpenLineageIngestor`, batches of 100 RunEvents, on a sqlite
 *    store (`synchronous=FULL`: every batch is durable when its call resolves).
 * 2. Dataset lineage latency (`datasetLineage`, upstream, depth 5) on a projection holding 1,000,000
 *    events. The 1M-event projection is built by applying decoded `OpenLineageEventIngested` events
 *    directly to the projection (not through the store): storing 1M events through sqlite would take
 *    minutes and measures nothing the first figure does not.
 *
 * Shape of the 1M events: 50,000 jobs in 10 layers, each job reading 2 datasets of its layer and
 * writing 1 of the next (10,000 datasets per layer), 10 runs per job with START and COMPLETE events.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSqliteEventStore } from '../infra/eventStore/sqliteEventStore.js';
import { createOpenLineageProjection, type OpenLineageProjection } from '../projections/openLineage/index.js';
import type { StoredLineageEvent } from '../src/events.js';
import { createOpenLineageIngestor } from '../src/openlineage/ingestion.js';
import { seededRandom as random } from './syntheticGraph.js';

/** Results of `benchOpenLineage`. */
export interface OpenLineageBenchResult {
  /** RunEvents stored durably per second (sqlite, batches of 100). */
  ingest_events_per_second: number;
  /** Median and 99th percentile latency of `datasetLineage` at depth 5, in milliseconds. */
  lineage_p50_ms: number;
  lineage_p99_ms: number;
  /** Events in the projection queried (1,000,000). */
  events_ingested: number;
  /** Mean number of jobs each lineage query reached. */
  mean_jobs_visited: number;
  /** How the 1M-event projection was built. */
  note: string;
}

const uuidOf = (n: number) => `0190a1b2-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

function runEvent(
  job: number,
  run: number,
  eventType: 'START' | 'COMPLETE',
  inputs: string[],
  output: string,
  time: number,
) {
  return {
    eventTime: new Date(time).toISOString(),
    eventType,
    producer: 'https://github.com/OpenLineage/OpenLineage/tree/1.19.0/integration/spark',
    schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
    run: { runId: uuidOf(job * 100 + run) },
    job: { namespace: 'bench', name: `job-${job}` },
    inputs: inputs.map((name) => ({ namespace: 's3://bench', name })),
    outputs: [{ namespace: 's3://bench', name: output }],
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/**
 * Ingests `events` RunEvents through an ingestor on a fresh sqlite store, in batches of 100.
 * @returns the seconds it took.
 * @throws Error when an event is not accepted.
 */
async function benchIngestion(events: number): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lineage-svc-bench-ol-'));
  const store = createSqliteEventStore({ path: dir });
  try {
    const rng = random(1);
    const bodies = Array.from({ length: events }, (_, at) =>
      runEvent(
        at,
        0,
        'COMPLETE',
        [`ds-${Math.floor(rng() * 10_000)}`],
        `ds-${Math.floor(rng() * 10_000)}`,
        Date.UTC(2026, 0, 1) + at,
      ),
    );
    const ingestor = createOpenLineageIngestor({ store });
    const started = performance.now();
    for (let at = 0; at < bodies.length; at += 100) {
      const results = await ingestor.ingest(bodies.slice(at, at + 100), { actor: 'bench' });
      if (results.some((result) => result.status !== 'accepted')) throw new Error('bench: an event was not accepted');
    }
    return (performance.now() - started) / 1000;
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A projection holding `events` RunEvents of the layered shape in the module comment, applied
 * directly (not through a store), and the outputs of its last layer (the lineage origins).
 */
function layeredProjection(events: number): { projection: OpenLineageProjection; lastLayerOutputs: string[] } {
  const projection = createOpenLineageProjection();
  const layers = 10;
  const perLayer = 10_000;
  const runsPerJob = 10;
  const jobs = Math.ceil(events / (runsPerJob * 2));
  const rng = random(2);
  let position = 0;
  const lastLayerOutputs: string[] = [];
  for (let job = 0; job < jobs && position < events; job += 1) {
    const layer = job % (layers - 1);
    const inputs = [`L${layer}-${Math.floor(rng() * perLayer)}`, `L${layer}-${Math.floor(rng() * perLayer)}`];
    const output = `L${layer + 1}-${Math.floor(rng() * perLayer)}`;
    if (layer === layers - 2) lastLayerOutputs.push(output);
    for (let run = 0; run < runsPerJob && position < events; run += 1) {
      for (const eventType of ['START', 'COMPLETE'] as const) {
        const time = Date.UTC(2026, 0, 1) + run * 3_600_000 + (eventType === 'COMPLETE' ? 60_000 : 0);
        const event = runEvent(job, run, eventType, inputs, output, time);
        position += 1;
        projection.apply({
          type: 'OpenLineageEventIngested',
          data: { kind: 'RunEvent', dedupe_key: `${job}:${run}:${eventType}`, event, warnings: [] },
          stream: `openlineage-${position}`,
          revision: 0,
          position,
          recorded_at: '2026-01-01T00:00:00.000Z',
          metadata: { event_id: String(position) },
        } as StoredLineageEvent);
      }
    }
  }
  return { projection, lastLayerOutputs };
}

/** Runs both measurements; see the module comment. */
export async function benchOpenLineage(
  options: { ingestEvents?: number; projectionEvents?: number; queries?: number } = {},
): Promise<OpenLineageBenchResult> {
  const ingestEvents = options.ingestEvents ?? 20_000;
  const queries = options.queries ?? 1_000;
  const ingestSeconds = await benchIngestion(ingestEvents);
  const { projection, lastLayerOutputs } = layeredProjection(options.projectionEvents ?? 1_000_000);
  const timings: number[] = [];
  let visitedJobs = 0;
  const qrng = random(3);
  for (let at = 0; at < queries; at += 1) {
    // Origins are datasets of the last layer that some job wrote, so every query walks 5 hops.
    const name = lastLayerOutputs[Math.floor(qrng() * lastLayerOutputs.length)]!;
    const started = performance.now();
    const result = projection.datasetLineage({ namespace: 's3://bench', name, direction: 'upstream', depth: 5 });
    timings.push(performance.now() - started);
    visitedJobs += result.jobs_visited;
  }
  timings.sort((a, b) => a - b);
  return {
    ingest_events_per_second: ingestEvents / ingestSeconds,
    lineage_p50_ms: percentile(timings, 50),
    lineage_p99_ms: percentile(timings, 99),
    events_ingested: projection.eventCount,
    mean_jobs_visited: visitedJobs / queries,
    note:
      `ingestion: ${ingestEvents} events through an OpenLineageIngestor on sqlite; ` +
      `lineage: ${projection.eventCount} events applied directly to the projection (not through the store)`,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await benchOpenLineage());
}
