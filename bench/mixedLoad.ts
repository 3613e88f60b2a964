/**
 * Mixed load against several API processes (issue 12): 50 clients for 60 s, each sending, one after
 * the other, a random mix of traversals (40%: `GET /graphs/{id}/query/{upstream|downstream}/{node}`,
 * 3 hops), reads (30%: `GET /graphs/{id}/nodes/{node}`), node upserts (20%: `POST
 * /graphs/{id}/nodes`, each client its own nodes) and OpenLineage ingest (10%: `POST /lineage`, one
 * RunEvent). Two setups, each on a fresh store seeded with a 2,000-node / 4,000-edge graph:
 *
 * - two `lineage-svc-api` processes on PostgreSQL (clients alternate between them); skipped with a
 *   note when no PostgreSQL answers (`LINEAGE_SVC_TEST_POSTGRES_URL`, default the local one);
 * - one `lineage-svc-api` process on sqlite, for comparison; then the same clients on it sending node
 *   reads only, the baseline of the reads' latency under the mix (`read_p50_ms`; issue 23: within 2x).
 *
 * Errors are answers other than 2xx and failed requests. Latencies are measured by the clients, in
 * this process, from sending each request to the end of its answer (milliseconds). The duration and
 * the number of clients are options (`LINEAGE_SVC_BENCH_MIXED_SECONDS` for `make bench`); tests run it
 * for a few seconds and check errors only, never timings. Run it alone with
 * `node --import tsx bench/mixedLoad.ts` (prints the rows as JSON).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import pg from 'pg';
import { openRuntime } from '../infra/runtime.js';
import { loadConfig } from '../src/config.js';
import { recordGraph } from '../src/graphCommands.js';
import { silentLogger } from '../src/logger.js';
import { seededRandom, syntheticGraph } from './syntheticGraph.js';

/** One setup's figures. */
export interface MixedLoadRow {
  setup: string;
  processes: number;
  clients: number;
  /** Seconds of load. */
  seconds: number;
  requests: number;
  errors: number;
  requests_per_second: number;
  /** Milliseconds, over every request. */
  p50_ms: number;
  p99_ms: number;
  /** Milliseconds, over the node reads (`GET /graphs/{id}/nodes/{node}`) only. */
  read_p50_ms: number;
  read_p99_ms: number;
  /** Requests per kind. */
  traversals: number;
  reads: number;
  upserts: number;
  ingests: number;
  /** Up to five error descriptions (status and path), for a look when errors is not 0. */
  error_samples: string[];
  /** Why the setup did not run (e.g. no PostgreSQL), else null. */
  skipped: string | null;
}

/** Options of `benchMixedLoad`. */
export interface MixedLoadOptions {
  /** Seconds of load per setup. Default 60. */
  seconds?: number;
  /** Concurrent clients. Default 50. */
  clients?: number;
  /** PostgreSQL to use. Default `LINEAGE_SVC_TEST_POSTGRES_URL`, else postgres://postgres@127.0.0.1:5432/test. */
  postgresUrl?: string;
  /** Every request a node read (the baseline of `read_p50_ms`). Default false: the mix. */
  readsOnly?: boolean;
}

const GRAPH_ID = '00000000-0000-4000-8000-0000000b1e4d';
const SEED_NODES = 2_000;
const SEED_EDGES = 4_000;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** `lineage-svc-api`, compiled (`make bench`) or not (tsx). */
function apiCommand(): string[] {
  const ext = extname(import.meta.filename);
  return [...process.execArgv, join(import.meta.dirname, '..', 'commands', `api${ext}`)];
}

/** A `lineage-svc-api` child process and the URL it listens at. */
export interface Child {
  process: ChildProcess;
  base: string;
}

/**
 * Starts `lineage-svc-api` on 127.0.0.1, an ephemeral port, with `env` over a clean environment (no
 * rate limit, no graph file); resolves once it logs where it listens.
 * @throws Error with its output when it exits before listening.
 */
export async function startApi(env: Record<string, string>): Promise<Child> {
  const child = spawn(process.execPath, apiCommand(), {
    // The checkout (or dist/): `--import tsx` in execArgv resolves from there.
    cwd: join(import.meta.dirname, '..'),
    env: {
      PATH: process.env.PATH ?? '',
      LINEAGE_SVC_API_HOST: '127.0.0.1',
      LINEAGE_SVC_API_PORT: '0',
      LINEAGE_SVC_LOG_LEVEL: 'INFO',
      LINEAGE_SVC_GRAPH_FILE: join(tmpdir(), `absent-${randomUUID()}.json`),
      // Every client comes from 127.0.0.1: the per-client write rate limit would answer most writes 429.
      LINEAGE_SVC_API_RATE_LIMIT_PER_MINUTE: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // The log (where fastify says where it listens) may be on either stream.
  const base = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      if (output.length < 100_000) output += chunk.toString('utf8');
      const match = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', () => reject(new Error(`lineage-svc-api exited before listening:\n${output}`)));
  });
  return { process: child, base };
}

/** Stops a child started by `startApi` (SIGTERM) and waits for it to exit. */
export async function stopApi(child: Child): Promise<void> {
  if (child.process.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.process.once('exit', () => resolve()));
  child.process.kill('SIGTERM');
  await exited;
}

/** Seeds the store named by `env` with the synthetic graph; resolves with some node ids. */
async function seed(env: Record<string, string>): Promise<string[]> {
  const runtime = await openRuntime(loadConfig(env), silentLogger());
  try {
    const graph = syntheticGraph({ nodes: SEED_NODES, edges: SEED_EDGES, seed: 7 });
    await recordGraph(
      runtime.commands,
      GRAPH_ID,
      graph,
      { mode: 'replace', createIfMissing: true, name: 'mixed-load' },
      { actor: 'bench' },
    );
    return graph.nodes.map((node) => node.id);
  } finally {
    await runtime.close();
  }
}

function runEvent(client: number, index: number): Record<string, unknown> {
  return {
    eventTime: new Date().toISOString(),
    eventType: 'COMPLETE',
    producer: 'https://example.com/lineage-svc-bench',
    schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
    run: { runId: randomUUID() },
    job: { namespace: 'bench', name: `job-${client}-${index % 20}` },
    inputs: [{ namespace: 'kafka://bench', name: `in-${index % 50}` }],
    outputs: [{ namespace: 'kafka://bench', name: `out-${client}` }],
  };
}

function upsertBody(client: number, index: number): Record<string, unknown> {
  const name = `bench-${client}-${index % 200}`;
  return {
    id: `stream:topic:env-bench:lkc-bench/${name}`,
    node_type: 'TOPIC',
    system: 'STREAM',
    qualified_name: `lkc-bench/${name}`,
    display_name: name,
    environment_id: 'env-bench',
    cluster_id: 'lkc-bench',
    attributes: { partitions: (index % 12) + 1 },
  };
}

/** Runs the clients against `bases` for `seconds`. */
async function load(
  setup: string,
  bases: string[],
  nodeIds: string[],
  options: Required<Omit<MixedLoadOptions, 'postgresUrl'>>,
) {
  const latencies: number[] = [];
  const readLatencies: number[] = [];
  const counts = { traversals: 0, reads: 0, upserts: 0, ingests: 0 };
  let errors = 0;
  const samples: string[] = [];
  const deadline = Date.now() + options.seconds * 1000;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: options.clients }, async (_, client) => {
      const random = seededRandom(client + 1);
      const base = bases[client % bases.length]!;
      for (let index = 0; Date.now() < deadline; index += 1) {
        const pick = options.readsOnly ? 0.5 : random();
        const node = encodeURIComponent(nodeIds[Math.floor(random() * nodeIds.length)]!);
        let method = 'GET';
        let path: string;
        let body: unknown;
        if (pick < 0.4) {
          counts.traversals += 1;
          path = `/api/v1/graphs/${GRAPH_ID}/query/${random() < 0.5 ? 'upstream' : 'downstream'}/${node}?hops=3`;
        } else if (pick < 0.7) {
          counts.reads += 1;
          path = `/api/v1/graphs/${GRAPH_ID}/nodes/${node}`;
        } else if (pick < 0.9) {
          counts.upserts += 1;
          method = 'POST';
          path = `/api/v1/graphs/${GRAPH_ID}/nodes`;
          body = upsertBody(client, index);
        } else {
          counts.ingests += 1;
          method = 'POST';
          path = '/api/v1/lineage';
          body = runEvent(client, index);
        }
        const sent = performance.now();
        try {
          const response = await fetch(`${base}${path}`, {
            method,
            ...(body === undefined
              ? {}
              : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
          });
          await response.arrayBuffer();
          if (!response.ok) {
            errors += 1;
            if (samples.length < 5) samples.push(`${response.status} ${method} ${path.slice(0, 120)}`);
          }
        } catch (error) {
          errors += 1;
          if (samples.length < 5)
            samples.push(`${error instanceof Error ? error.message : String(error)} ${method} ${path.slice(0, 120)}`);
        }
        latencies.push(performance.now() - sent);
        if (pick >= 0.4 && pick < 0.7) readLatencies.push(performance.now() - sent);
      }
    }),
  );
  const elapsed = (Date.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  readLatencies.sort((a, b) => a - b);
  return {
    setup,
    processes: bases.length,
    clients: options.clients,
    seconds: options.seconds,
    requests: latencies.length,
    errors,
    requests_per_second: latencies.length / elapsed,
    p50_ms: percentile(latencies, 50),
    p99_ms: percentile(latencies, 99),
    read_p50_ms: percentile(readLatencies, 50),
    read_p99_ms: percentile(readLatencies, 99),
    ...counts,
    error_samples: samples,
    skipped: null,
  } satisfies MixedLoadRow;
}

function skippedRow(
  setup: string,
  processes: number,
  options: Required<Omit<MixedLoadOptions, 'postgresUrl'>>,
  why: string,
): MixedLoadRow {
  return {
    setup,
    processes,
    clients: options.clients,
    seconds: options.seconds,
    requests: 0,
    errors: 0,
    requests_per_second: 0,
    p50_ms: Number.NaN,
    p99_ms: Number.NaN,
    read_p50_ms: Number.NaN,
    read_p99_ms: Number.NaN,
    traversals: 0,
    reads: 0,
    upserts: 0,
    ingests: 0,
    error_samples: [],
    skipped: why,
  };
}

/** Runs both setups; resolves with one row each. */
export async function benchMixedLoad(options: MixedLoadOptions = {}): Promise<MixedLoadRow[]> {
  const settings = { seconds: options.seconds ?? 60, clients: options.clients ?? 50, readsOnly: false };
  const postgresUrl =
    options.postgresUrl ?? process.env.LINEAGE_SVC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const rows: MixedLoadRow[] = [];

  // Two processes on PostgreSQL, in a schema of their own.
  const postgresSetup = 'postgres, 2 API processes';
  const schema = `lineage_bench_${randomUUID().replaceAll('-', '')}`;
  const admin = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 3000 });
  let reachable = true;
  try {
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  } catch (error) {
    reachable = false;
    rows.push(
      skippedRow(
        postgresSetup,
        2,
        settings,
        `no PostgreSQL at ${postgresUrl}: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  }
  if (reachable) {
    const url = new URL(postgresUrl);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const env = { LINEAGE_SVC_STORAGE__BACKEND: 'postgres', LINEAGE_SVC_STORAGE__URL: url.toString() };
    const children: Child[] = [];
    try {
      const nodeIds = await seed(env);
      children.push(...(await Promise.all([startApi(env), startApi(env)])));
      rows.push(
        await load(
          postgresSetup,
          children.map((child) => child.base),
          nodeIds,
          settings,
        ),
      );
    } finally {
      await Promise.all(children.map(stopApi));
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    }
  }
  await admin.end().catch(() => undefined);

  // One process on sqlite, for comparison.
  const folder = mkdtempSync(join(tmpdir(), 'lineage-bench-mixed-'));
  const env = { LINEAGE_SVC_STORAGE__BACKEND: 'sqlite', LINEAGE_SVC_STORAGE__PATH: folder };
  let child: Child | undefined;
  try {
    const nodeIds = await seed(env);
    child = await startApi(env);
    rows.push(await load('sqlite, 1 API process', [child.base], nodeIds, settings));
    // The same clients sending node reads only: what a read costs when no write holds the process.
    rows.push(await load('sqlite, 1 API process, reads only', [child.base], nodeIds, { ...settings, readsOnly: true }));
  } finally {
    if (child) await stopApi(child);
    rmSync(folder, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1] === import.meta.filename) {
  const seconds = Number(process.env.LINEAGE_SVC_BENCH_MIXED_SECONDS ?? 60);
  console.log(JSON.stringify(await benchMixedLoad({ seconds }), null, 2));
}
