/**
 * One hot graph on PostgreSQL (issue 23, item 4): two `lineage-svc-api` processes on one store, and
 * `clients` clients (alternating between them) each upserting nodes of their own (`POST
 * /graphs/{id}/nodes`, one after the other) into the same graph for `seconds`. Every upsert appends to
 * the same stream, so the two processes race for its revision.
 *
 * Figures: upserts answered per second, their p50 and p99 latencies (milliseconds, from sending to the
 * end of the answer), errors (answers other than 2xx, failed requests), and the nodes that were
 * acknowledged but are missing from the graph afterwards (`lost`, read back from both processes, each
 * given up to 10 s to read what the other appended).
 * Target (issue 23): >= 500 upserts/s with p99 < 200 ms, and nothing lost. Skipped with a note when no
 * PostgreSQL answers (`LINEAGE_SVC_TEST_POSTGRES_URL`, default the local one). Run it alone with
 * `node --import tsx bench/hotGraph.ts`.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { startApi, stopApi, type Child } from './mixedLoad.js';

/** What one run measured. */
export interface HotGraphResult {
  clients: number;
  seconds: number;
  upserts: number;
  upserts_per_second: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  /** Acknowledged node ids missing from the graph afterwards, in either process. */
  lost: number;
  /** Up to five error descriptions. */
  error_samples: string[];
  /** Why it did not run (no PostgreSQL), else null. */
  skipped: string | null;
}

/** Options of `benchHotGraph`. */
export interface HotGraphOptions {
  /** Seconds of load. Default 20. */
  seconds?: number;
  /** Concurrent clients. Default 50. */
  clients?: number;
  /** PostgreSQL to use. Default `LINEAGE_SVC_TEST_POSTGRES_URL`, else postgres://postgres@127.0.0.1:5432/test. */
  postgresUrl?: string;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** The node client `client` upserts at its `index`th request. */
function node(client: number, index: number): Record<string, unknown> {
  const name = `hot-${client}-${index}`;
  return {
    id: `stream:topic:env-hot:lkc-hot/${name}`,
    node_type: 'TOPIC',
    system: 'STREAM',
    qualified_name: `lkc-hot/${name}`,
    display_name: name,
    environment_id: 'env-hot',
    cluster_id: 'lkc-hot',
    attributes: { partitions: 1 },
  };
}

/** How long the check for lost nodes waits for both processes to read every acknowledged node. */
const LOST_CHECK_MILLISECONDS = 10_000;

/** The ids of the graph's nodes, as `child` answers them. */
async function nodeIds(child: Child, graphId: string): Promise<Set<string>> {
  const present = new Set<string>();
  for (let offset = 0, total = 1; offset < total; offset += 10_000) {
    const page = (await (
      await fetch(`${child.base}/api/v1/graphs/${graphId}/nodes?limit=10000&offset=${offset}`)
    ).json()) as { nodes: Array<{ id: string }>; total: number };
    for (const entry of page.nodes) present.add(entry.id);
    total = page.total;
  }
  return present;
}

/** Runs the clients against two API processes on `env`'s store; resolves with the figures. */
async function load(children: Child[], graphId: string, clients: number, seconds: number): Promise<HotGraphResult> {
  const latencies: number[] = [];
  const acknowledged: string[] = [];
  const samples: string[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      const base = children[client % children.length]!.base;
      for (let index = 0; performance.now() < deadline; index += 1) {
        const body = node(client, index);
        const sent = performance.now();
        try {
          const response = await fetch(`${base}/api/v1/graphs/${graphId}/nodes`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          const text = await response.text();
          if (response.ok) acknowledged.push(body.id as string);
          else {
            errors += 1;
            if (samples.length < 5) samples.push(`${response.status}: ${text.slice(0, 200)}`);
          }
        } catch (error) {
          errors += 1;
          if (samples.length < 5) samples.push(error instanceof Error ? error.message : String(error));
        }
        latencies.push(performance.now() - sent);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  let lost = 0;
  for (const child of children) {
    // A process reads what another appended once its projection caught up (milliseconds): a node is
    // lost only when it is still missing after LOST_CHECK_MILLISECONDS.
    const settle = performance.now() + LOST_CHECK_MILLISECONDS;
    let missing: number;
    do {
      const present = await nodeIds(child, graphId);
      missing = acknowledged.filter((id) => !present.has(id)).length;
    } while (missing > 0 && performance.now() < settle && (await sleep(100)) === undefined);
    lost = Math.max(lost, missing);
  }
  latencies.sort((a, b) => a - b);
  return {
    clients,
    seconds,
    upserts: latencies.length,
    upserts_per_second: acknowledged.length / elapsed,
    p50_ms: percentile(latencies, 50),
    p99_ms: percentile(latencies, 99),
    errors,
    lost,
    error_samples: samples,
    skipped: null,
  };
}

/** Two API processes on a fresh PostgreSQL schema, the hot graph, the clients; drops the schema after. */
export async function benchHotGraph(options: HotGraphOptions = {}): Promise<HotGraphResult> {
  const clients = options.clients ?? 50;
  const seconds = options.seconds ?? 20;
  const postgresUrl =
    options.postgresUrl ?? process.env.LINEAGE_SVC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `lineage_hot_${randomUUID().replaceAll('-', '')}`;
  const admin = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  } catch (error) {
    await admin.end().catch(() => undefined);
    const why = `no PostgreSQL at ${postgresUrl}: ${error instanceof Error ? error.message : String(error)}`;
    return {
      clients,
      seconds,
      upserts: 0,
      upserts_per_second: 0,
      p50_ms: Number.NaN,
      p99_ms: Number.NaN,
      errors: 0,
      lost: 0,
      error_samples: [],
      skipped: why,
    };
  }
  const url = new URL(postgresUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const env = { LINEAGE_SVC_STORAGE__BACKEND: 'postgres', LINEAGE_SVC_STORAGE__URL: url.toString() };
  const children: Child[] = [];
  try {
    children.push(await startApi(env));
    children.push(await startApi(env));
    const created = await fetch(`${children[0]!.base}/api/v1/graphs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'hot' }),
    });
    const graphId = ((await created.json()) as { graph_id: string }).graph_id;
    return await load(children, graphId, clients, seconds);
  } finally {
    await Promise.all(children.map(stopApi));
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await admin.end().catch(() => undefined);
  }
}

if (process.argv[1] === import.meta.filename) {
  console.log(
    JSON.stringify(await benchHotGraph({ seconds: Number(process.env.LINEAGE_SVC_BENCH_HOT_SECONDS ?? 20) })),
  );
}
