/**
 * Export benchmark: every format of `src/export` on the 100k-node, 300k-edge synthetic graph, each
 * in a fresh process so that its peak memory is its own, the chunks encoded to UTF-8 as a response
 * would be and dropped. `gexf (graphology)` is graphology-gexf's writer, which builds the file as one
 * string, for comparison. Not part of `make bench` (yet); run it alone:
 *
 *   node --import tsx --expose-gc bench/export.ts [nodes] [edges]
 *
 * Figures: seconds to write the whole export; MiB of UTF-8 written; chunks; peak heap above the heap
 * with the graph built (sampled every 64 chunks, and after the export) and that heap; peak resident
 * memory of the process (building the graph sets it for the streaming formats), and how much of it
 * came during the export.
 */
import { spawnSync } from 'node:child_process';
import { MultiDirectedGraph } from 'graphology';
import { write as writeGexf } from 'graphology-gexf';
import { EXPORT_FORMATS, exportGraph, isExportFormat } from '../src/export/index.js';
import { edgeKey } from '../src/graph/model.js';
import { syntheticGraph } from './syntheticGraph.js';

/** One format's figures. */
export interface ExportFigures {
  format: string;
  seconds: number;
  mib_written: number;
  chunks: number;
  peak_heap_growth_mib: number;
  heap_with_graph_mib: number;
  peak_rss_mib: number;
  rss_growth_mib: number;
}

const MIB = 2 ** 20;
const VARIANTS = [...EXPORT_FORMATS, 'gexf (graphology)'] as const;

/** Measures one variant in this process (the child's side). */
function measure(variant: string, nodes: number, edges: number): ExportFigures {
  const graph = syntheticGraph({ nodes, edges });
  globalThis.gc?.();
  const baseHeap = process.memoryUsage().heapUsed;
  const baseMaxRss = process.resourceUsage().maxRSS * 1024;
  let peakHeap = baseHeap;
  let bytes = 0;
  let chunks = 0;
  const started = performance.now();
  const take = (chunk: string) => {
    bytes += Buffer.from(chunk, 'utf8').length;
    chunks += 1;
    if (chunks % 64 === 0) peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  };
  if (isExportFormat(variant)) {
    for (const chunk of exportGraph(graph, variant)) take(chunk);
  } else {
    const copy = new MultiDirectedGraph();
    for (const { id, attributes, ...fields } of graph.nodes) {
      const flat: Record<string, unknown> = { ...fields, label: fields.display_name };
      for (const [name, value] of Object.entries(attributes ?? {})) flat[`attributes.${name}`] = value;
      copy.addNode(id, flat);
    }
    for (const edge of graph.edges)
      copy.addEdgeWithKey(edgeKey(edge), edge.src_id, edge.dst_id, { edge_type: edge.edge_type });
    const text = writeGexf(copy);
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    take(text);
  }
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  const seconds = (performance.now() - started) / 1000;
  const maxRss = process.resourceUsage().maxRSS * 1024;
  return {
    format: variant,
    seconds: Number(seconds.toFixed(2)),
    mib_written: Number((bytes / MIB).toFixed(1)),
    chunks,
    peak_heap_growth_mib: Math.round((peakHeap - baseHeap) / MIB),
    heap_with_graph_mib: Math.round(baseHeap / MIB),
    peak_rss_mib: Math.round(maxRss / MIB),
    rss_growth_mib: Math.round((maxRss - baseMaxRss) / MIB),
  };
}

/** Runs every variant in a child process of its own and returns their figures. */
export function benchExports(nodes = 100_000, edges = 300_000): ExportFigures[] {
  return VARIANTS.map((variant) => {
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, import.meta.filename, '--one', variant, String(nodes), String(edges)],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    if (child.status !== 0) throw new Error(`export bench of ${variant} failed: ${child.stderr}`);
    return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as ExportFigures;
  });
}

if (process.argv[1] === import.meta.filename) {
  if (process.argv[2] === '--one') {
    console.log(JSON.stringify(measure(process.argv[3]!, Number(process.argv[4]), Number(process.argv[5]))));
  } else {
    const nodes = Number(process.argv[2] ?? 100_000);
    const edges = Number(process.argv[3] ?? nodes * 3);
    console.log(
      `Exports of a ${nodes.toLocaleString('en-US')}-node, ${edges.toLocaleString('en-US')}-edge graph, one process each`,
    );
    console.table(benchExports(nodes, edges));
  }
}
