/**
 * Projection build benchmark: how long the graph projection takes to fold a 100,000-node /
 * 300,000-edge graph from a store, and the peak resident memory of the process that does it.
 *
 * Each measurement runs in a fresh child process so that its peak RSS is its own: one child writes
 * the graph's events to a sqlite store, another opens that store and builds the projection.
 * Run directly (`node dist/bench/projection.js measure DIR`) it is that child.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteEventStore } from '../infra/eventStore/sqliteEventStore.js';
import { streams, toAppend } from '../src/events.js';
import { changeEvents, diffGraph } from '../src/graph/changes.js';
import { createGraphProjection } from '../projections/graphProjection.js';
import { createProjector } from '../projections/projector.js';
import { syntheticGraph } from './syntheticGraph.js';

export interface ProjectionBenchRow {
  nodes: number;
  edges: number;
  events: number;
  build_seconds: number;
  peak_rss_mb: number;
}

const GRAPH_ID = '00000000-0000-4000-8000-000000000100';

/** Writes the synthetic graph's events into a sqlite store in `folder`; returns the number of events. */
async function prepare(folder: string, nodes: number, edges: number): Promise<number> {
  const graph = syntheticGraph({ nodes, edges });
  const empty = { getNode: () => undefined, getEdge: () => undefined, nodes: () => [], edges: () => [] };
  const events = [
    { type: 'GraphCreated' as const, data: { graph_id: GRAPH_ID, name: 'bench', description: null } },
    ...changeEvents(GRAPH_ID, diffGraph(empty, graph, { mode: 'merge' })),
  ];
  const store = await createSqliteEventStore({ path: folder });
  await store.append(streams.graph(GRAPH_ID), toAppend(events, { cause: 'import', correlation_id: 'bench' }));
  await store.close();
  return events.length;
}

/** Builds the projection from the store in `folder`; returns what it measured. */
async function measure(
  folder: string,
): Promise<{ build_seconds: number; nodes: number; edges: number; peak_rss_mb: number }> {
  const store = await createSqliteEventStore({ path: folder });
  const started = performance.now();
  const projection = createGraphProjection();
  const projector = createProjector({ store, projections: [projection] });
  await projector.start();
  const buildSeconds = (performance.now() - started) / 1000;
  await projector.stop();
  const state = projection.get(GRAPH_ID)!;
  const result = {
    build_seconds: buildSeconds,
    nodes: state.graph.order,
    edges: state.graph.size,
    peak_rss_mb: process.resourceUsage().maxRSS / 1024,
  };
  await store.close();
  return result;
}

/** Runs the benchmark in child processes and returns its row. */
export async function benchProjection(options: { nodes?: number; edges?: number } = {}): Promise<ProjectionBenchRow> {
  const nodes = options.nodes ?? 100_000;
  const edges = options.edges ?? 300_000;
  const folder = mkdtempSync(join(tmpdir(), 'lineage-svc-bench-projection-'));
  try {
    const child = (...args: string[]) =>
      JSON.parse(
        execFileSync(process.execPath, [...process.execArgv, import.meta.filename, ...args], {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        }),
      ) as Record<string, number>;
    const { events } = child('prepare', folder, String(nodes), String(edges));
    const measured = child('measure', folder);
    return {
      nodes: measured.nodes!,
      edges: measured.edges!,
      events: events!,
      build_seconds: measured.build_seconds!,
      peak_rss_mb: measured.peak_rss_mb!,
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) {
  const [mode, folder, nodes, edges] = process.argv.slice(2);
  if (mode === 'prepare') {
    const events = await prepare(folder!, Number(nodes), Number(edges));
    process.stdout.write(JSON.stringify({ events }));
  } else if (mode === 'measure') {
    process.stdout.write(JSON.stringify(await measure(folder!)));
  }
}
