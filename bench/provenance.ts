/**
 * Provenance of nodes and edges (issue 22, item 4): `nodeProvenance` and `edgeProvenance`
 * (`services/provenance.ts`, what `GET /graphs/{id}/nodes/{node_id}/history` and
 * `GET /graphs/{id}/edges/history` answer) on a 100,000-node / 300,000-edge graph after 100,000
 * changes, in a sqlite store: p50 and p99 over `SAMPLES` elements picked at random (seeded), nodes
 * and edges alternating, once the provenance index holds the graph. Also: the time to index the
 * graph's whole stream (what the first question about a graph costs), and the baseline measured in
 * the same run: the same answer for one node by scanning the graph's stream (what it would cost
 * without the index).
 *
 * Run alone with `node --expose-gc --import tsx bench/provenance.ts [changes]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteEventStore } from '../infra/eventStore/sqliteEventStore.js';
import { decodeEvent, streams } from '../src/events.js';
import { createGraphProjection } from '../projections/graphProjection.js';
import { createProjector } from '../projections/projector.js';
import { createProvenanceIndex } from '../projections/provenanceIndex.js';
import { edgeProvenance, nodeProvenance, type ProvenanceRuntime } from '../services/provenance.js';
import { recordSyntheticHistory, seededRandom, syntheticGraph } from './syntheticGraph.js';

/** The figures, in milliseconds. */
export interface ProvenanceBenchRow {
  nodes: number;
  edges: number;
  changes: number;
  /** Indexing the graph's whole stream: the first question about the graph. */
  index_build_ms: number;
  node_p50_ms: number;
  node_p99_ms: number;
  edge_p50_ms: number;
  edge_p99_ms: number;
  /** Baseline: one node's changes found by scanning the graph's stream (p50 of 3). */
  stream_scan_ms: number;
}

const GRAPH_ID = '00000000-0000-4000-8000-000000000220';
const BATCH = 5000;
/** Elements asked about, each kind (enough for a p99). */
const SAMPLES = 300;

const quantile = (values: number[], fraction: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(values.length * fraction) - 1)]!;

/** Runs the bench (100k nodes, 300k edges, `changes` changes, default 100,000). */
export async function benchProvenance(
  options: { nodes?: number; edges?: number; changes?: number } = {},
): Promise<ProvenanceBenchRow> {
  const graph = syntheticGraph({ nodes: options.nodes ?? 100_000, edges: options.edges ?? 300_000, seed: 22 });
  const changes = options.changes ?? 100_000;
  const folder = mkdtempSync(join(tmpdir(), 'lineage-svc-bench-provenance-'));
  const store = createSqliteEventStore({ path: folder });
  try {
    const stream = streams.graph(GRAPH_ID);
    await recordSyntheticHistory(store, GRAPH_ID, graph, { changes, random: seededRandom(23), cause: 'extraction' });
    const graphs = createGraphProjection();
    const provenance = createProvenanceIndex();
    const projector = createProjector({ store, projections: [graphs, provenance] });
    await projector.start();
    await projector.stop();
    const runtime = { store, graphs, provenance, commands: undefined as never } as ProvenanceRuntime;
    const pick = seededRandom(24);
    const firstNode = graph.nodes[0]!.id;
    const started = performance.now();
    await nodeProvenance(runtime, GRAPH_ID, firstNode);
    const indexBuild = performance.now() - started;
    const nodeTimes: number[] = [];
    const edgeTimes: number[] = [];
    for (let sample = 0; sample < SAMPLES; sample += 1) {
      const node = graph.nodes[Math.floor(pick() * graph.nodes.length)]!;
      let begin = performance.now();
      await nodeProvenance(runtime, GRAPH_ID, node.id);
      nodeTimes.push(performance.now() - begin);
      const edge = graph.edges[Math.floor(pick() * graph.edges.length)]!;
      begin = performance.now();
      await edgeProvenance(runtime, GRAPH_ID, edge);
      edgeTimes.push(performance.now() - begin);
    }
    // Baseline: the changes of one node found by reading and decoding the whole stream.
    const scans: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      const begin = performance.now();
      let found = 0;
      for (let from = 0; ; from += BATCH) {
        const page = await store.readStream(stream, { fromRevision: from, maxCount: BATCH });
        for (const recorded of page) {
          const event = decodeEvent(recorded);
          if ('nodes' in event.data && Array.isArray(event.data.nodes))
            found += (event.data.nodes as { id: string }[]).filter((node) => node.id === firstNode).length;
        }
        if (page.length < BATCH) break;
      }
      scans.push(performance.now() - begin);
      if (found === 0) throw new Error('the scan found nothing');
    }
    return {
      nodes: graph.nodes.length,
      edges: graph.edges.length,
      changes,
      index_build_ms: indexBuild,
      node_p50_ms: quantile(nodeTimes, 0.5),
      node_p99_ms: quantile(nodeTimes, 0.99),
      edge_p50_ms: quantile(edgeTimes, 0.5),
      edge_p99_ms: quantile(edgeTimes, 0.99),
      stream_scan_ms: quantile(scans, 0.5),
    };
  } finally {
    await store.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) {
  // `node --expose-gc --import tsx bench/provenance.ts [changes]`
  const changes = process.argv[2] === undefined ? undefined : Number(process.argv[2]);
  const row = await benchProvenance(changes === undefined ? {} : { changes });
  console.table([Object.fromEntries(Object.entries(row).map(([key, value]) => [key, Number(value.toFixed(2))]))]);
}
