/**
 * REST API benchmark (issue 5), over loopback HTTP against a real `buildApp` on the sqlite store,
 * running in its own process, measured by clients in processes of their own:
 *
 * - traversal latency p50/p99, upstream and downstream, at 5 and 10 hops, on a 100,000-node /
 *   300,000-edge synthetic graph recorded through `recordGraph` (target: p99 under 20 ms at 10 hops);
 *   the graph is made of domains of 200 nodes with 2% cross-domain reads (`bench/syntheticGraph.ts`),
 *   so 10 hops reach about 600 nodes at the median and 2,100 at p99;
 * - the time to GET a whole 10,000-node graph (`GET /api/v1/graphs/{id}`), from its index;
 * - requests per second for `GET /api/v1/health` and for a traversal, with 50 concurrent
 *   connections (autocannon, in a client process of its own).
 *
 * Returns rows; prints nothing (`bench/run.ts` prints). Latencies are in milliseconds, measured by
 * a client in its own process (`bench/httpClient.ts`) from sending each request to the last byte of
 * its answer, sequentially, after a warm-up.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { buildApp } from '../infra/http/app.js';
import { openRuntime, TRAVERSAL_INDEX_QUIET_MILLISECONDS } from '../infra/runtime.js';
import { loadConfig } from '../src/config.js';
import { recordGraph } from '../src/graphCommands.js';
import { silentLogger } from '../src/logger.js';
import type { LatencyJob, LatencyResult, LatencySample, ThroughputJob, ThroughputResult } from './httpClient.js';
import { syntheticGraph } from './syntheticGraph.js';

/** One measured figure. */
export interface ApiBenchRow {
  measure: string;
  /** Milliseconds for latencies and durations, requests per second for throughput, MB for memory. */
  value: number;
  unit: 'ms' | 'requests/s' | 'MB';
  /** Requests the figure is computed from. */
  samples: number;
  /** Mean number of nodes in the answers (traversals and the whole-graph GET), else null. */
  nodes_per_answer: number | null;
}

const BIG_GRAPH = '00000000-0000-4000-8000-00000000a100';
const SMALL_GRAPH = '00000000-0000-4000-8000-00000000a010';

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Runs one job of `bench/httpClient.ts` in a client process of its own and answers its result. */
async function inClientProcess<Result>(job: LatencyJob | ThroughputJob): Promise<Result> {
  const child = spawn(process.execPath, [...process.execArgv, join(import.meta.dirname, 'httpClient.js')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.stdin.end(JSON.stringify(job));
  const chunks: Buffer[] = [];
  for await (const chunk of child.stdout) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Result;
}

/**
 * Latencies of GETs to `urls`, sequential, measured by a client in a process of its own
 * (`bench/httpClient.ts`): from sending each request to the last byte of its answer, as wrk and
 * autocannon measure. The first `warmup` URLs are sent once more before, unmeasured.
 */
async function latencies(urls: string[], warmup = 5): Promise<LatencySample[]> {
  const { samples } = await inClientProcess<LatencyResult>({ urls, warmup });
  const failed = samples.find((sample) => sample.status !== 200);
  if (failed) throw new Error(`a GET answered ${failed.status}`);
  return samples;
}

/** Requests per second to `url` with 50 connections for 5 s (autocannon, in a client process of its own). */
async function rps(url: string): Promise<{ value: number; samples: number }> {
  const result = await inClientProcess<ThroughputResult>({ throughput: { url, connections: 50, durationSeconds: 5 } });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { value: result.requestsPerSecond, samples: result.requests };
}

/** What the server process tells the bench once it listens. */
interface ServerReady {
  base: string;
  origins: string[];
  /** Milliseconds to build the traversal index of the 100k-node graph. */
  index_build_ms: number;
  /** Milliseconds to serialise every fragment of that index (the app does it in slices of 5 ms). */
  index_warm_ms: number;
}

/**
 * The server side, run in its own process (as in production, where clients are other processes):
 * records the 100k and 10k graphs, listens on loopback, prints `ServerReady` as one JSON line, and on
 * SIGTERM prints its peak RSS in MB and exits.
 */
async function serve(traversals: number): Promise<void> {
  // The sqlite store, as a deployment would run (the memory store would also hold every event).
  const folder = mkdtempSync(join(tmpdir(), 'lineage-svc-bench-api-'));
  const config = loadConfig({ LINEAGE_SVC_STORAGE__BACKEND: 'sqlite', LINEAGE_SVC_STORAGE__PATH: folder });
  const logger = silentLogger();
  const runtime = await openRuntime(config, logger, {
    traversalIndexQuietMilliseconds: TRAVERSAL_INDEX_QUIET_MILLISECONDS,
  });
  const app = await buildApp({
    config,
    logger,
    runtime,
    runners: { extract: async () => ({}), enrich: async () => ({}) },
  });
  const context = { cause: 'import', actor: 'bench' };
  const big = syntheticGraph({ nodes: 100_000, edges: 300_000 });
  await recordGraph(
    runtime.commands,
    BIG_GRAPH,
    big,
    { mode: 'replace', createIfMissing: true, name: 'bench-100k' },
    context,
  );
  await recordGraph(
    runtime.commands,
    SMALL_GRAPH,
    syntheticGraph({ nodes: 10_000, edges: 30_000, seed: 7 }),
    { mode: 'replace', createIfMissing: true, name: 'bench-10k' },
    context,
  );
  // Origins spread over the graph, the same for every configuration.
  const step = Math.floor(big.nodes.length / traversals);
  const origins = Array.from({ length: traversals }, (_, index) => big.nodes[index * step]!.id);
  // As in production: the graph is indexed once it has been quiet. Built here, timed, rather than by
  // the app's background sweep, so that every measured traversal uses it.
  await new Promise((resolve) => setTimeout(resolve, TRAVERSAL_INDEX_QUIET_MILLISECONDS));
  const indexStarted = performance.now();
  if (!runtime.graphs.traversalIndex(BIG_GRAPH)) throw new Error('the 100k-node graph was not indexed');
  const indexBuildMs = performance.now() - indexStarted;
  if (!runtime.graphs.traversalIndex(SMALL_GRAPH)) throw new Error('the 10k-node graph was not indexed');
  const warmStarted = performance.now();
  while (!runtime.graphs.prepareTraversalIndexes(1_000).done);
  const indexWarmMs = performance.now() - warmStarted;
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  (globalThis as { gc?: () => void }).gc?.();
  const steadyRssMb = process.memoryUsage().rss / 2 ** 20;
  process.on('SIGTERM', () => {
    rmSync(folder, { recursive: true, force: true });
    (globalThis as { gc?: () => void }).gc?.();
    const memory: ServerMemory = {
      peak_rss_mb: process.resourceUsage().maxRSS / 1024,
      steady_rss_mb: steadyRssMb,
      final_rss_mb: process.memoryUsage().rss / 2 ** 20,
      final_heap_mb: process.memoryUsage().heapUsed / 2 ** 20,
    };
    process.stdout.write(`${JSON.stringify(memory)}\n`, () => process.exit(0));
  });
  const ready: ServerReady = {
    base: `http://127.0.0.1:${address.port}/api/v1`,
    origins,
    index_build_ms: indexBuildMs,
    index_warm_ms: indexWarmMs,
  };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
}

/** Starts the server process and waits for its `ServerReady` line. */
/** Resident memory of the server process, in MB. */
interface ServerMemory {
  peak_rss_mb: number;
  /** After loading both graphs and indexing the big one, before any request (after GC). */
  steady_rss_mb: number;
  /** After every request of the bench (after GC): includes the traversal index's cached fragments. */
  final_rss_mb: number;
  /** JavaScript heap in use at the same point. */
  final_heap_mb: number;
}

async function startServer(traversals: number): Promise<{ ready: ServerReady; stop(): Promise<ServerMemory> }> {
  const child = spawn(
    process.execPath,
    ['--expose-gc', ...process.execArgv, import.meta.filename, 'serve', String(traversals)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout });
  const iterator = lines[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) throw new Error('the API bench server exited before it listened');
  const ready = JSON.parse(first.value) as ServerReady;
  return {
    ready,
    async stop() {
      child.kill('SIGTERM');
      const last = await iterator.next();
      return last.done
        ? { peak_rss_mb: Number.NaN, steady_rss_mb: Number.NaN, final_rss_mb: Number.NaN, final_heap_mb: Number.NaN }
        : (JSON.parse(last.value) as ServerMemory);
    },
  };
}

/**
 * Runs the API benchmark: the server in a child process, the client (this process) measuring.
 * @param options.traversals requests per traversal configuration (default 300).
 */
export async function benchApi(options: { traversals?: number } = {}): Promise<ApiBenchRow[]> {
  const traversals = options.traversals ?? 300;
  const server = await startServer(traversals);
  const rows: ApiBenchRow[] = [];
  let stopped = false;
  try {
    const { base, origins } = server.ready;
    rows.push({
      measure: 'traversal index build, 100k-node graph',
      value: server.ready.index_build_ms,
      unit: 'ms',
      samples: 1,
      nodes_per_answer: null,
    });
    rows.push({
      measure: 'traversal index warm-up (every fragment), 100k-node graph',
      value: server.ready.index_warm_ms,
      unit: 'ms',
      samples: 1,
      nodes_per_answer: null,
    });
    for (const direction of ['upstream', 'downstream'] as const) {
      for (const hops of [5, 10]) {
        const url = (id: string) =>
          `${base}/graphs/${BIG_GRAPH}/query/${direction}/${encodeURIComponent(id)}?hops=${hops}`;
        const results = await latencies(origins.map(url));
        const sorted = results.map((result) => result.ms).sort((a, b) => a - b);
        const meanNodes = results.reduce((sum, result) => sum + (result.nodeCount ?? 0), 0) / results.length;
        rows.push({
          measure: `traversal ${direction} ${hops} hops p50`,
          value: percentile(sorted, 50),
          unit: 'ms',
          samples: sorted.length,
          nodes_per_answer: meanNodes,
        });
        rows.push({
          measure: `traversal ${direction} ${hops} hops p99`,
          value: percentile(sorted, 99),
          unit: 'ms',
          samples: sorted.length,
          nodes_per_answer: meanNodes,
        });
      }
    }

    const wholeUrl = `${base}/graphs/${SMALL_GRAPH}`;
    const whole = await latencies(
      Array.from({ length: 10 }, () => wholeUrl),
      1,
    );
    const wholeSorted = whole.map((result) => result.ms).sort((a, b) => a - b);
    const wholeNodes = ((await (await fetch(wholeUrl)).json()) as { nodes: unknown[] }).nodes.length;
    rows.push({
      measure: 'GET whole 10,000-node graph (median)',
      value: percentile(wholeSorted, 50),
      unit: 'ms',
      samples: wholeSorted.length,
      nodes_per_answer: wholeNodes,
    });

    const health = await rps(`${base}/health`);
    rows.push({
      measure: 'GET /health, 50 connections',
      value: health.value,
      unit: 'requests/s',
      samples: health.samples,
      nodes_per_answer: null,
    });
    const traversal = await rps(
      `${base}/graphs/${BIG_GRAPH}/query/downstream/${encodeURIComponent(origins[1]!)}?hops=5`,
    );
    rows.push({
      measure: 'traversal downstream 5 hops, 50 connections',
      value: traversal.value,
      unit: 'requests/s',
      samples: traversal.samples,
      nodes_per_answer: null,
    });
    const memory = await server.stop();
    stopped = true;
    rows.push({
      measure: 'API server resident memory, 100k- and 10k-node graphs loaded and indexed (after GC)',
      value: memory.steady_rss_mb,
      unit: 'MB',
      samples: 1,
      nodes_per_answer: null,
    });
    rows.push({
      measure: 'API server resident memory after the benchmark (after GC)',
      value: memory.final_rss_mb,
      unit: 'MB',
      samples: 1,
      nodes_per_answer: null,
    });
    rows.push({
      measure: 'API server JavaScript heap in use after the benchmark (after GC)',
      value: memory.final_heap_mb,
      unit: 'MB',
      samples: 1,
      nodes_per_answer: null,
    });
    rows.push({
      measure: 'API server peak RSS (includes importing both graphs)',
      value: memory.peak_rss_mb,
      unit: 'MB',
      samples: 1,
      nodes_per_answer: null,
    });
    return rows;
  } finally {
    if (!stopped) await server.stop();
  }
}

if (process.argv[1] === import.meta.filename && process.argv[2] === 'serve') {
  await serve(Number(process.argv[3] ?? 300));
}
