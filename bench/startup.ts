/**
 * Start-up benchmark (issue 16, item 2): the API started on an empty sqlite store with a
 * 100,000-node / 300,000-edge graph file as `LINEAGE_SVC_GRAPH_FILE` (`bench/syntheticGraph.ts`),
 * then started again on the same store (a restart: the projections caught up from the store, no
 * import).
 *
 * Each start spawns `lineage-svc-api` (`commands/api.ts`, compiled when this file is, else through
 * tsx) in a process of its own and polls `GET /api/v1/ready` every 10 ms. Reported per start:
 *
 * - start to ready: milliseconds from the spawn to the first 200 of `/ready`;
 * - after ready, a workload: 100 downstream traversals of 10 hops (origins spread over the graph)
 *   and 500 OpenLineage RunEvents posted in batches of 50;
 * - the resident memory (`VmRSS` of `/proc/{pid}/status`) once ready, and the peak (`VmHWM`) over
 *   the start, the traversals and the ingest, read just before the process is stopped.
 *
 * A start on an empty store with no graph file is measured first: the floor (loading the modules,
 * opening the store, listening) that any start pays. Run it alone with
 * `node --import tsx bench/startup.ts` (prints the rows as JSON).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { writeGraphFile } from '../infra/graphFile.js';
import { DEFAULT_GRAPH_NAME, graphIdForName } from '../src/graphCommands.js';
import { syntheticGraph } from './syntheticGraph.js';

/** One start of the API. */
export interface StartupBenchRow {
  /** `empty store, no graph file`, `empty store, 100k graph file` or `restart on that store`. */
  start: string;
  /** Milliseconds from the spawn to the first 200 of `GET /api/v1/ready`. */
  ready_ms: number;
  /** Resident memory once ready, in MB (`VmRSS`). */
  ready_rss_mb: number;
  /** Peak resident memory over the start, the traversals and the ingest, in MB (`VmHWM`). */
  peak_rss_mb: number;
  /** Nodes in the graph `default` once ready (0 when there is none). */
  nodes: number;
  /** p50 of the 100 traversals after ready, milliseconds (null without a graph). */
  traversal_p50_ms: number | null;
}

/** Traversals after ready, downstream, 10 hops each. */
const TRAVERSALS = 100;
/** OpenLineage RunEvents posted after the traversals, in batches of `INGEST_BATCH`. */
const INGEST_EVENTS = 500;
const INGEST_BATCH = 50;

/** A free TCP port on 127.0.0.1 (taken and released at once). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A line of `/proc/{pid}/status` (`VmRSS`, `VmHWM`) in MB. */
function statusMegabytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}

/** Spawns the API on `folder`'s sqlite store, with `graphFile` as `LINEAGE_SVC_GRAPH_FILE`. */
function spawnApi(folder: string, graphFile: string, port: number): ChildProcess {
  // The command beside this bench, compiled (`.js`, `make bench`) or not (`.ts`, run with tsx).
  const api = join(import.meta.dirname, '..', 'commands', `api${extname(import.meta.filename)}`);
  return spawn(process.execPath, [...process.execArgv.filter((flag) => flag !== '--expose-gc'), api], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      LINEAGE_SVC_STORAGE__BACKEND: 'sqlite',
      LINEAGE_SVC_STORAGE__PATH: folder,
      LINEAGE_SVC_GRAPH_FILE: graphFile,
      LINEAGE_SVC_API_HOST: '127.0.0.1',
      LINEAGE_SVC_API_PORT: String(port),
      LINEAGE_SVC_LOG_LEVEL: 'ERROR',
    },
  });
}

/** Polls `GET /ready` every 10 ms until it answers 200. @throws Error when the process exits first. */
async function waitReady(child: ChildProcess, base: string): Promise<void> {
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  for (;;) {
    if (exited !== undefined) throw new Error(`the API exited with code ${exited} before it was ready`);
    const status = await fetch(`${base}/ready`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The traversals and the ingest after ready; answers the traversals' p50 (null without a graph). */
async function workload(base: string, origins: readonly string[]): Promise<number | null> {
  const times: number[] = [];
  const graphId = graphIdForName(DEFAULT_GRAPH_NAME);
  for (const origin of origins) {
    const started = performance.now();
    const response = await fetch(`${base}/graphs/${graphId}/query/downstream/${encodeURIComponent(origin)}?hops=10`);
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`a traversal answered ${response.status}`);
    times.push(performance.now() - started);
  }
  for (let sent = 0; sent < INGEST_EVENTS; sent += INGEST_BATCH) {
    const events = Array.from({ length: INGEST_BATCH }, (_, index) => runEvent(sent + index));
    const response = await fetch(`${base}/lineage/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(events),
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`an ingest answered ${response.status}`);
  }
  times.sort((a, b) => a - b);
  return times.length === 0 ? null : times[Math.floor(times.length / 2)]!;
}

/** An OpenLineage RunEvent of a job reading and writing Kafka topics. */
function runEvent(index: number): Record<string, unknown> {
  return {
    eventTime: new Date().toISOString(),
    eventType: 'COMPLETE',
    producer: 'https://example.com/lineage-svc-bench',
    schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
    run: { runId: randomUUID() },
    job: { namespace: 'bench', name: `job-${index % 20}` },
    inputs: [{ namespace: 'kafka://bench', name: `in-${index % 50}` }],
    outputs: [{ namespace: 'kafka://bench', name: `out-${index % 10}` }],
  };
}

/** One start: spawn, ready, workload, memory, stop. */
async function measureStart(
  start: string,
  folder: string,
  graphFile: string,
  origins: readonly string[],
): Promise<StartupBenchRow> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/api/v1`;
  const started = performance.now();
  const child = spawnApi(folder, graphFile, port);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitReady(child, base);
    const readyMs = performance.now() - started;
    const readyRss = statusMegabytes(child.pid!, 'VmRSS');
    const list = (await (await fetch(`${base}/graphs`)).json()) as {
      graphs: Array<{ graph_id: string; node_count: number }>;
    };
    const nodes = list.graphs.find((graph) => graph.graph_id === graphIdForName(DEFAULT_GRAPH_NAME))?.node_count ?? 0;
    const p50 = await workload(base, nodes > 0 ? origins : []);
    return {
      start,
      ready_ms: readyMs,
      ready_rss_mb: readyRss,
      peak_rss_mb: statusMegabytes(child.pid!, 'VmHWM'),
      nodes,
      traversal_p50_ms: p50,
    };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/**
 * Runs the start-up benchmark: a start with nothing to load, a start that imports the 100k-node
 * graph file, and a restart on the store that import filled.
 */
export async function benchStartup(options: { nodes?: number; edges?: number } = {}): Promise<StartupBenchRow[]> {
  const nodes = options.nodes ?? 100_000;
  const edges = options.edges ?? 300_000;
  const folder = mkdtempSync(join(tmpdir(), 'lineage-svc-bench-startup-'));
  try {
    const graph = syntheticGraph({ nodes, edges });
    const step = Math.floor(graph.nodes.length / TRAVERSALS);
    const origins = Array.from({ length: TRAVERSALS }, (_, index) => graph.nodes[index * step]!.id);
    const graphFile = join(folder, 'lineage_graph.json');
    await writeGraphFile(graphFile, graph);
    const label = `${nodes / 1000}k`;
    return [
      await measureStart('empty store, no graph file', join(folder, 'empty'), join(folder, 'missing.json'), origins),
      await measureStart(`empty store, ${label} graph file`, join(folder, 'store'), graphFile, origins),
      await measureStart(`restart on that store (${label} graph)`, join(folder, 'store'), graphFile, origins),
    ];
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) {
  const [nodes, edges] = process.argv.slice(2).map(Number);
  process.stdout.write(`${JSON.stringify(await benchStartup({ nodes, edges }), null, 2)}\n`);
}
