/**
 * REST API benchmark (issue 5), over loopback HTTP against a real `buildApp` on the sqlite store,
 * running in its own process, measured by clients in processes of their own:
 *
 * - traversal latency p50/p99, upstream and downstream, at 5 and 10 hops, on a 100,000-node /
 *   300,000-edge synthetic graph recorded through `recordGraph` (target: p99 under 20 ms at 10 hops);
 *   the graph is made of domains of 200 nodes with 2% cross-domain reads (`bench/syntheticGraph.ts`),
 *   so 10 hops reach about 600 nodes at the median and 2,100 at p99;
 * - the time to GET a whole 10,000-node graph (`GET /api/v1/graphs/{id}`);
 * - requests per second for `GET /api/v1/health` and for a traversal, with 50 concurrent
 *   connections (autocannon, in a client process of its own).
 *
 * Returns rows; prints nothing (`bench/run.ts` prints). Latencies are in milliseconds, measured by
 * a client in its own process (`bench/httpClient.ts`) from sending each request to the last byte of
 * its answer, sequentially, after a warm-up. The graphs are recorded into the store by a process of
 * their own first, so that the server's memory is that of a server started on an existing store
 * (caught up from it), as after a restart, and not that of the import. Run it alone with
 * `node --expose-gc --import tsx bench/api.ts` (prints the rows as JSON).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { buildApp } from '../infra/http/app.js';
import { openRuntime, TRAVERSAL_INDEX_QUIET_MILLISECONDS } from '../infra/runtime.js';
import { loadConfig } from '../src/config.js';
import { limitHeapGrowth } from '../infra/v8Heap.js';
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
  // The client file beside this one, compiled (`.js`, `make bench`) or not (`.ts`, run with tsx).
  const client = join(import.meta.dirname, `httpClient${extname(import.meta.filename)}`);
  const child = spawn(process.execPath, [...process.execArgv, client], {
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
 * @throws Error when an answer's status is not `status` (default 200).
 */
export async function latencies(urls: string[], warmup = 5, status = 200): Promise<LatencySample[]> {
  const { samples } = await inClientProcess<LatencyResult>({ urls, warmup });
  const failed = samples.find((sample) => sample.status !== status);
  if (failed) throw new Error(`a GET answered ${failed.status}, not ${status}`);
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
}

/**
 * Cross-domain share of the 100k-node graph (`SyntheticGraphOptions.crossDomainShare`): `default`
 * (2% of job inputs read from another domain's topics) or `sparse` (0.2%: shared core topics ten
 * times rarer, so that 20 job hops from a topic stay within a few domains, as a real estate's lineage
 * from one dataset does; the Marquez bench's second shape).
 */
export type BigGraphShape = 'default' | 'sparse';

/** `crossDomainShare` of each `BigGraphShape`. */
const CROSS_DOMAIN_SHARE: Record<BigGraphShape, number> = { default: 0.02, sparse: 0.002 };

/**
 * Writes the 100k- (of `shape`, default `default`) and 10k-node graphs to the sqlite store in
 * `folder`, as an import would append them (`recordGraph`); run in a process of its own, so that the
 * server's memory is that of a server started on an existing store, not of the import.
 */
async function record(folder: string, shape: BigGraphShape = 'default'): Promise<void> {
  const config = loadConfig({ LINEAGE_SVC_STORAGE__BACKEND: 'sqlite', LINEAGE_SVC_STORAGE__PATH: folder });
  const runtime = await openRuntime(config, silentLogger());
  const context = { cause: 'import', actor: 'bench' };
  await recordGraph(
    runtime.commands,
    BIG_GRAPH,
    syntheticGraph({ nodes: 100_000, edges: 300_000, crossDomainShare: CROSS_DOMAIN_SHARE[shape] }),
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
  await runtime.close();
}

/**
 * The server side, run in its own process (as in production, where clients are other processes):
 * opens the sqlite store in `folder` that `record` wrote (the projection catches up from it), indexes
 * the graphs, listens on loopback, prints `ServerReady` as one JSON line, and on SIGTERM prints its
 * memory (`ServerMemory`) as one JSON line and exits.
 */
async function serve(traversals: number, folder: string): Promise<void> {
  // The sqlite store, as a deployment would run (the memory store would also hold every event).
  const config = loadConfig({ LINEAGE_SVC_STORAGE__BACKEND: 'sqlite', LINEAGE_SVC_STORAGE__PATH: folder });
  const logger = silentLogger();
  limitHeapGrowth(config.heapGrowthPercent); // as lineage-svc-api does
  const runtime = await openRuntime(config, logger, {
    traversalIndexQuietMilliseconds: TRAVERSAL_INDEX_QUIET_MILLISECONDS,
  });
  const app = await buildApp({
    config,
    logger,
    runtime,
    runners: { extract: async () => ({}), enrich: async () => ({}) },
  });
  // Origins spread over the graph (in the order its nodes were recorded), the same for every configuration.
  const nodes =
    runtime.graphs
      .get(BIG_GRAPH)
      ?.graph.nodeValues()
      .map((node) => node.id) ?? [];
  if (nodes.length !== 100_000) throw new Error(`the 100k-node graph has ${nodes.length} nodes`);
  const step = Math.floor(nodes.length / traversals);
  const origins = Array.from({ length: traversals }, (_, index) => nodes[index * step]!);
  // As in production: the graph is indexed once it has been quiet. Built here, timed, rather than by
  // the runtime's background sweep, so that every measured traversal uses it.
  await new Promise((resolve) => setTimeout(resolve, TRAVERSAL_INDEX_QUIET_MILLISECONDS));
  const indexStarted = performance.now();
  if (!runtime.graphs.traversalIndex(BIG_GRAPH)) throw new Error('the 100k-node graph was not indexed');
  const indexBuildMs = performance.now() - indexStarted;
  if (!runtime.graphs.traversalIndex(SMALL_GRAPH)) throw new Error('the 10k-node graph was not indexed');
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  (globalThis as { gc?: () => void }).gc?.();
  const steady = process.memoryUsage();
  process.on('SIGTERM', () => {
    (globalThis as { gc?: () => void }).gc?.();
    const memory: ServerMemory = {
      peak_rss_mb: process.resourceUsage().maxRSS / 1024,
      steady_rss_mb: steady.rss / 2 ** 20,
      steady_heap_mb: steady.heapUsed / 2 ** 20,
      steady_array_buffers_mb: steady.arrayBuffers / 2 ** 20,
      final_rss_mb: process.memoryUsage().rss / 2 ** 20,
      final_heap_mb: process.memoryUsage().heapUsed / 2 ** 20,
    };
    process.stdout.write(`${JSON.stringify(memory)}\n`, () => process.exit(0));
  });
  const ready: ServerReady = {
    base: `http://127.0.0.1:${address.port}/api/v1`,
    origins,
    index_build_ms: indexBuildMs,
  };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
}

/** Memory of the server process, in MB. */
interface ServerMemory {
  peak_rss_mb: number;
  /** After catching up with the store (both graphs) and indexing both, before any request (after GC). */
  steady_rss_mb: number;
  /** JavaScript heap in use at the same point. */
  steady_heap_mb: number;
  /** Memory of `Buffer`s and other array buffers at the same point, outside the heap. */
  steady_array_buffers_mb: number;
  /** After every request of the bench (after GC). */
  final_rss_mb: number;
  /** JavaScript heap in use at the same point. */
  final_heap_mb: number;
}

/** Runs `record` (the 100k-node graph of `shape`) in a process of its own. @throws Error when it fails. */
export async function recordInChildProcess(folder: string, shape: BigGraphShape = 'default'): Promise<void> {
  const child = spawn(process.execPath, [...process.execArgv, import.meta.filename, 'record', folder, shape], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`recording the benchmark graphs failed (exit code ${code})`);
}

/** Starts the server process on the store in `folder` and waits for its `ServerReady` line. */
export async function startServer(
  traversals: number,
  folder: string,
): Promise<{ ready: ServerReady; stop(): Promise<ServerMemory> }> {
  const child = spawn(
    process.execPath,
    ['--expose-gc', ...process.execArgv, import.meta.filename, 'serve', String(traversals), folder],
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
        ? {
            peak_rss_mb: Number.NaN,
            steady_rss_mb: Number.NaN,
            steady_heap_mb: Number.NaN,
            steady_array_buffers_mb: Number.NaN,
            final_rss_mb: Number.NaN,
            final_heap_mb: Number.NaN,
          }
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
  const folder = mkdtempSync(join(tmpdir(), 'lineage-svc-bench-api-'));
  try {
    await recordInChildProcess(folder);
    return await measure(await startServer(traversals, folder));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** A row of one figure. */
function row(measure: string, value: number, unit: ApiBenchRow['unit'], samples = 1, nodes: number | null = null) {
  return { measure, value, unit, samples, nodes_per_answer: nodes };
}

/** The measurements against a started server, which it stops. */
async function measure(server: Awaited<ReturnType<typeof startServer>>): Promise<ApiBenchRow[]> {
  let stopped = false;
  try {
    const { base, origins } = server.ready;
    const rows: ApiBenchRow[] = [
      row('traversal index build, 100k-node graph', server.ready.index_build_ms, 'ms'),
      ...(await traversalLatencies(base, origins)),
    ];
    const wholeUrl = `${base}/graphs/${SMALL_GRAPH}`;
    const whole = await latencies(
      Array.from({ length: 10 }, () => wholeUrl),
      1,
    );
    const wholeSorted = whole.map((result) => result.ms).sort((a, b) => a - b);
    const wholeNodes = ((await (await fetch(wholeUrl)).json()) as { nodes: unknown[] }).nodes.length;
    rows.push(
      row('GET whole 10,000-node graph (median)', percentile(wholeSorted, 50), 'ms', wholeSorted.length, wholeNodes),
    );
    const health = await rps(`${base}/health`);
    rows.push(row('GET /health, 50 connections', health.value, 'requests/s', health.samples));
    const traversal = await rps(
      `${base}/graphs/${BIG_GRAPH}/query/downstream/${encodeURIComponent(origins[1]!)}?hops=5`,
    );
    rows.push(row('traversal downstream 5 hops, 50 connections', traversal.value, 'requests/s', traversal.samples));
    const memory = await server.stop();
    stopped = true;
    const loaded = '100k- and 10k-node graphs loaded and indexed (after GC)';
    rows.push(
      row(`API server resident memory, ${loaded}`, memory.steady_rss_mb, 'MB'),
      row(`API server JavaScript heap in use, ${loaded}`, memory.steady_heap_mb, 'MB'),
      row(`API server array buffers (outside the heap), ${loaded}`, memory.steady_array_buffers_mb, 'MB'),
      row('API server resident memory after the benchmark (after GC)', memory.final_rss_mb, 'MB'),
      row('API server JavaScript heap in use after the benchmark (after GC)', memory.final_heap_mb, 'MB'),
      row('API server peak RSS (catching up with the store, then the benchmark)', memory.peak_rss_mb, 'MB'),
    );
    return rows;
  } finally {
    if (!stopped) await server.stop();
  }
}

/** p50 and p99 of traversals from `origins` on the 100k-node graph, each direction, at 5 and 10 hops. */
async function traversalLatencies(base: string, origins: string[]): Promise<ApiBenchRow[]> {
  const rows: ApiBenchRow[] = [];
  for (const direction of ['upstream', 'downstream'] as const) {
    for (const hops of [5, 10]) {
      const url = (id: string) =>
        `${base}/graphs/${BIG_GRAPH}/query/${direction}/${encodeURIComponent(id)}?hops=${hops}`;
      const results = await latencies(origins.map(url));
      const sorted = results.map((result) => result.ms).sort((a, b) => a - b);
      const meanNodes = results.reduce((sum, result) => sum + (result.nodeCount ?? 0), 0) / results.length;
      for (const p of [50, 99]) {
        rows.push(
          row(`traversal ${direction} ${hops} hops p${p}`, percentile(sorted, p), 'ms', sorted.length, meanNodes),
        );
      }
    }
  }
  return rows;
}

// `node --expose-gc --import tsx bench/api.ts` runs this benchmark alone and prints its rows as JSON;
// `serve` is the server process it starts.
if (process.argv[1] === import.meta.filename) {
  if (process.argv[2] === 'record') await record(process.argv[3]!, process.argv[4] === 'sparse' ? 'sparse' : 'default');
  else if (process.argv[2] === 'serve') await serve(Number(process.argv[3] ?? 300), process.argv[4]!);
  else process.stdout.write(`${JSON.stringify(await benchApi(), null, 2)}\n`);
}
