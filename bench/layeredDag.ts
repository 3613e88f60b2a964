/**
 * The layered DAG of issue 16 and its traversal benchmark (issue 16, item 3: traversal p99 under
 * 2 ms at 10 hops).
 *
 * The graph: 100 layers of 1,000 nodes, topics and stream jobs alternately (layer 0 is topics), each
 * node of layer `l > 0` with 3 parents in a band of layer `l - 1` around its own position (a topic
 * -CONSUMES-> a job, a job -PRODUCES-> a topic), plus 3,000 random long-range edges between layers
 * at least 3 apart, in their contract direction. Seeded: the same options give the same graph. A
 * 10-hop traversal from a middle layer reaches a few hundred nodes (about 110 KiB of JSON).
 *
 * The measurement, over loopback HTTP against a real API process, with the functions of
 * `bench/api.ts`: the API bench's graphs and the layered DAG are written to a sqlite store by
 * processes of their own, the server (`startServer`) catches up from it, and a lean client process
 * (`latencies`, `bench/httpClient.ts`) times the 10-hop traversals upstream and downstream from
 * random origins in layers 30 to 70, one at a time over one kept-alive connection, from the request
 * to the last byte of the answer, once the graph's traversal index is built; then the same origins
 * again (their answers' JSON fragments cached by the first pass). In the same run, the
 * baseline: the plain graphology walk in this process (graphology-traversal's `bfsFromNode` limited
 * to 10 hops, collecting the reached nodes and the edges followed) and `JSON.stringify` of that
 * answer, from the same origins, so that the ratio holds on a noisy machine. And the floor: as many
 * `GET /health` (a few constant bytes) over the same connection just before, whose p99 is what
 * this machine, loopback and the client add to any answer; a traversal's p99 is also given over it.
 *
 * Run it alone with `node --expose-gc --import tsx bench/layeredDag.ts` (prints the rows as JSON).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MultiDirectedGraph } from 'graphology';
import { bfsFromNode } from 'graphology-traversal';
import { openRuntime } from '../infra/runtime.js';
import { loadConfig } from '../src/config.js';
import { streamJobId, topicId } from '../src/graph/ids.js';
import type { Edge, LineageGraph, Node } from '../src/graph/model.js';
import { recordGraph } from '../src/graphCommands.js';
import { silentLogger } from '../src/logger.js';
import { latencies, recordInChildProcess, startServer } from './api.js';
import { seededRandom } from './syntheticGraph.js';

/** Shape of a layered DAG. */
export interface LayeredDagOptions {
  /** Layers (default 100); even layers are topics, odd layers stream jobs. */
  layers?: number;
  /** Nodes per layer (default 1,000). */
  width?: number;
  /** Parents of each node in the previous layer (default 3). */
  parents?: number;
  /** Width of the band of the previous layer the parents are drawn from, centered on the node's position (default 4). */
  band?: number;
  /** Random edges between layers at least 3 apart (default 3,000). */
  longRangeEdges?: number;
  seed?: number;
}

const ENVIRONMENT = 'env-dag';
const CLUSTER = 'lkc-dag';

/** The id of the node at `position` of `layer`. */
export function layeredDagNodeId(layer: number, position: number): string {
  return layer % 2 === 0
    ? topicId(ENVIRONMENT, CLUSTER, `l${layer}.t${position}`)
    : streamJobId(ENVIRONMENT, `l${layer}-s${position}`);
}

/** The node at `position` of `layer`: a topic on even layers, a Flink statement on odd ones. */
function layeredDagNode(layer: number, position: number): Node {
  const id = layeredDagNodeId(layer, position);
  if (layer % 2 === 0) {
    return {
      id,
      node_type: 'TOPIC',
      system: 'STREAM',
      qualified_name: `${CLUSTER}/l${layer}.t${position}`,
      display_name: `l${layer}.t${position}`,
      environment_id: ENVIRONMENT,
      cluster_id: CLUSTER,
      attributes: { partitions: 6, replication_factor: 3 },
    };
  }
  const name = `l${layer}-s${position}`;
  return {
    id,
    node_type: 'STREAM_JOB',
    system: 'STREAM',
    qualified_name: name,
    display_name: name,
    environment_id: ENVIRONMENT,
    cluster_id: null,
    attributes: { phase: 'RUNNING' },
  };
}

/** The edge from the node of layer `from` to the node of a later layer `to`, in its contract direction. */
function layeredDagEdge(from: number, fromPosition: number, to: number, toPosition: number): Edge {
  return {
    src_id: layeredDagNodeId(from, fromPosition),
    dst_id: layeredDagNodeId(to, toPosition),
    edge_type: from % 2 === 0 ? 'CONSUMES' : 'PRODUCES',
    attributes: null,
  };
}

/** Builds the layered DAG of issue 16 (deterministic for the same options). */
export function layeredDag(options: LayeredDagOptions = {}): LineageGraph {
  const { layers = 100, width = 1_000, parents = 3, band = 4, longRangeEdges = 3_000, seed = 16 } = options;
  const random = seededRandom(seed);
  const nodes: Node[] = [];
  const edges: Edge[] = [];
  const keys = new Set<string>();
  const add = (edge: Edge) => {
    const key = `${edge.src_id}\t${edge.dst_id}`;
    if (keys.has(key)) return false;
    keys.add(key);
    edges.push(edge);
    return true;
  };
  for (let layer = 0; layer < layers; layer += 1) {
    for (let position = 0; position < width; position += 1) {
      nodes.push(layeredDagNode(layer, position));
      if (layer === 0) continue;
      for (let added = 0; added < parents;) {
        const parent = (position - band / 2 + Math.floor(random() * band) + width) % width;
        if (add(layeredDagEdge(layer - 1, parent, layer, position))) added += 1;
      }
    }
  }
  for (let added = 0; added < longRangeEdges;) {
    const from = Math.floor(random() * (layers - 3));
    // A later layer of the other kind (an odd distance of at least 3), so the edge type is defined.
    const distance = 3 + 2 * Math.floor(random() * Math.floor((layers - from - 2) / 2));
    const to = from + distance;
    if (to >= layers) continue;
    if (add(layeredDagEdge(from, Math.floor(random() * width), to, Math.floor(random() * width)))) added += 1;
  }
  return { nodes, edges };
}

/** Origins of the measured traversals: random nodes of the middle layers (30 to 70), seeded. */
export function layeredDagOrigins(count: number, seed = 61): string[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () =>
    layeredDagNodeId(30 + Math.floor(random() * 41), Math.floor(random() * 1_000)),
  );
}

/** The graph id of the layered DAG in the benchmark's store. */
const LAYERED_GRAPH = '00000000-0000-4000-8000-0000000da600';

/** One figure of the benchmark. */
export interface LayeredDagBenchRow {
  measure: string;
  /** Milliseconds, bytes for answer sizes, or a ratio. */
  value: number;
  unit: 'ms' | 'KiB' | 'nodes' | 'x';
  samples: number;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Writes the layered DAG to the sqlite store in `folder`, as an import would append it. */
async function recordLayeredDag(folder: string): Promise<void> {
  const config = loadConfig({ LINEAGE_SVC_STORAGE__BACKEND: 'sqlite', LINEAGE_SVC_STORAGE__PATH: folder });
  const runtime = await openRuntime(config, silentLogger());
  await recordGraph(
    runtime.commands,
    LAYERED_GRAPH,
    layeredDag(),
    { mode: 'replace', createIfMissing: true, name: 'bench-layered-dag' },
    { cause: 'import', actor: 'bench' },
  );
  await runtime.close();
}

/** Runs `recordLayeredDag` in a process of its own. @throws Error when it fails. */
async function recordLayeredDagInChildProcess(folder: string): Promise<void> {
  const child = spawn(process.execPath, [...process.execArgv, import.meta.filename, 'record', folder], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`recording the layered DAG failed (exit code ${code})`);
}

/**
 * The baseline, in this process: graphology-traversal's `bfsFromNode` from each origin, stopped at
 * `hops`, collecting the reached nodes (with their hop) and the edges followed, then
 * `JSON.stringify` of that answer. Milliseconds per origin, and the answers' sizes in bytes.
 */
function graphologyBaseline(
  graph: LineageGraph,
  origins: readonly string[],
  direction: 'upstream' | 'downstream',
  hops: number,
): { ms: number[]; bytes: number[] } {
  const graphology = new MultiDirectedGraph<Node, Edge>();
  for (const node of graph.nodes) graphology.addNode(node.id, node);
  for (const edge of graph.edges) graphology.addEdge(edge.src_id, edge.dst_id, edge);
  const ms: number[] = [];
  const bytes: number[] = [];
  const mode = direction === 'upstream' ? 'inbound' : 'outbound';
  for (const origin of [...origins.slice(0, 20), ...origins]) {
    const started = performance.now();
    const nodes: Array<Node & { hop: number }> = [];
    const edges: Edge[] = [];
    bfsFromNode(
      graphology,
      origin,
      (id, node, depth) => {
        if (depth > 0) nodes.push({ ...node, hop: depth });
        if (depth >= hops) return true;
        if (direction === 'upstream') graphology.forEachInEdge(id, (_key, edge) => void edges.push(edge));
        else graphology.forEachOutEdge(id, (_key, edge) => void edges.push(edge));
        return false;
      },
      { mode },
    );
    const answer = {
      origin: graphology.getNodeAttributes(origin),
      direction,
      hops,
      nodes,
      edges,
      node_count: nodes.length,
      edge_count: edges.length,
    };
    const json = JSON.stringify(answer);
    ms.push(performance.now() - started);
    bytes.push(Buffer.byteLength(json));
  }
  // The first 20 were a warm-up.
  return { ms: ms.slice(20), bytes: bytes.slice(20) };
}

/** Milliseconds to wait for the server to index the layered DAG once it was asked for (quiet period and a sweep). */
const INDEXING_WAIT_MS = 5_000;

/**
 * Runs the benchmark: p50 and p99 of 10-hop traversals upstream and downstream over HTTP, and the
 * same run's baseline (graphology walk and `JSON.stringify` in process) with the ratios.
 * @param options.traversals origins per direction (default 300).
 * @param options.hops hops of each traversal (default 10).
 */
export async function benchLayeredDag(
  options: { traversals?: number; hops?: number } = {},
): Promise<LayeredDagBenchRow[]> {
  const traversals = options.traversals ?? 300;
  const hops = options.hops ?? 10;
  const folder = mkdtempSync(join(tmpdir(), 'lineage-svc-bench-layered-'));
  const origins = layeredDagOrigins(traversals);
  const graph = layeredDag();
  try {
    await recordInChildProcess(folder);
    await recordLayeredDagInChildProcess(folder);
    const server = await startServer(traversals, folder);
    const rows: LayeredDagBenchRow[] = [];
    try {
      const url = (direction: string) => (origin: string) =>
        `${server.ready.base}/graphs/${LAYERED_GRAPH}/query/${direction}/${encodeURIComponent(origin)}?hops=${hops}`;
      // Asking for the graph's traversals makes the server index it once the graph has been quiet.
      await latencies(origins.slice(0, 5).map(url('downstream')), 0);
      await new Promise((resolve) => setTimeout(resolve, INDEXING_WAIT_MS));
      // The floor of this machine and client: the same number of GET /health (a constant answer of a
      // few bytes) over the same connection. A traversal's tail cannot be below it.
      const floor = (
        await latencies(
          origins.map(() => `${server.ready.base}/health`),
          20,
        )
      )
        .map((sample) => sample.ms)
        .sort((a, b) => a - b);
      rows.push(
        {
          measure: 'floor: GET /health over HTTP p50',
          value: percentile(floor, 50),
          unit: 'ms',
          samples: floor.length,
        },
        {
          measure: 'floor: GET /health over HTTP p99',
          value: percentile(floor, 99),
          unit: 'ms',
          samples: floor.length,
        },
      );
      for (const direction of ['upstream', 'downstream'] as const) {
        const samples = await latencies(origins.map(url(direction)), 20);
        const http = samples.map((sample) => sample.ms).sort((a, b) => a - b);
        // The same origins again: every answer's fragments are cached now (what repeated traversals cost).
        const repeated = (await latencies(origins.map(url(direction)), 0))
          .map((sample) => sample.ms)
          .sort((a, b) => a - b);
        const baseline = graphologyBaseline(graph, origins, direction, hops);
        const walked = [...baseline.ms].sort((a, b) => a - b);
        const meanBytes = samples.reduce((sum, sample) => sum + sample.bytes, 0) / samples.length;
        const meanNodes = samples.reduce((sum, sample) => sum + (sample.nodeCount ?? 0), 0) / samples.length;
        const at = `${direction} ${hops} hops`;
        const n = samples.length;
        rows.push(
          { measure: `traversal ${at} over HTTP p50`, value: percentile(http, 50), unit: 'ms', samples: n },
          { measure: `traversal ${at} over HTTP p99`, value: percentile(http, 99), unit: 'ms', samples: n },
          {
            measure: `traversal ${at} over HTTP, origins repeated, p50`,
            value: percentile(repeated, 50),
            unit: 'ms',
            samples: n,
          },
          {
            measure: `traversal ${at} over HTTP, origins repeated, p99`,
            value: percentile(repeated, 99),
            unit: 'ms',
            samples: n,
          },
          {
            measure: `baseline ${at}: graphology bfs + JSON.stringify p50`,
            value: percentile(walked, 50),
            unit: 'ms',
            samples: n,
          },
          {
            measure: `baseline ${at}: graphology bfs + JSON.stringify p99`,
            value: percentile(walked, 99),
            unit: 'ms',
            samples: n,
          },
          {
            measure: `ratio ${at} p50, HTTP over baseline`,
            value: percentile(http, 50) / percentile(walked, 50),
            unit: 'x',
            samples: n,
          },
          {
            measure: `ratio ${at} p99, HTTP over baseline`,
            value: percentile(http, 99) / percentile(walked, 99),
            unit: 'x',
            samples: n,
          },
          {
            measure: `ratio ${at} p99, HTTP over the GET /health floor`,
            value: percentile(http, 99) / percentile(floor, 99),
            unit: 'x',
            samples: n,
          },
          { measure: `answer ${at}, mean nodes`, value: meanNodes, unit: 'nodes', samples: n },
          { measure: `answer ${at}, mean JSON size`, value: meanBytes / 1024, unit: 'KiB', samples: n },
        );
      }
    } finally {
      await server.stop();
    }
    return rows;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

// `node --expose-gc --import tsx bench/layeredDag.ts` runs this benchmark alone and prints its rows
// as JSON; `record FOLDER` is the process that writes the graph.
if (process.argv[1] === import.meta.filename) {
  if (process.argv[2] === 'record') await recordLayeredDag(process.argv[3]!);
  else process.stdout.write(`${JSON.stringify(await benchLayeredDag(), null, 2)}\n`);
}
