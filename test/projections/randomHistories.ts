/**
 * Random graph histories for the property tests of `as_of` and diffs (`snapshots.test.ts`,
 * `historyIndex.test.ts`): a history is a random sequence of appends of raw graph events over a small
 * set of nodes (so that nodes and edges are added, changed, removed and re-added often): node and edge
 * changes, edges whose endpoint is missing (skipped by the fold), nodes removed with their edges still
 * there, the graph deleted and created again. The store's clock moves by 0 to 3 ms per append and
 * sometimes back (another process's clock), so that times tie and are out of order. The reference
 * answers are the fold from the start (`foldGraphAsOf`).
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { EventStore } from '../../src/eventStore.js';
import { NotFoundError } from '../../src/errors.js';
import { streams, toAppend, type LineageEvent } from '../../src/events.js';
import { topicId } from '../../src/graph/ids.js';
import { EDGE_TYPES, type Edge, type Node } from '../../src/graph/model.js';
import {
  foldGraphAsOf,
  initialGraphState,
  toLineageGraph,
  type AsOf,
  type GraphState,
} from '../../projections/graphProjection.js';
import { wholeChanges, type GraphStateDiff } from '../../projections/snapshots.js';

/** The few node ids histories draw from, so that nodes are added, removed and re-added often. */
export const NODE_IDS = Array.from({ length: 6 }, (_, index) => topicId('env-1', 'lkc-1', `topic-${index}`));
/** A node id and a version of its fields. */
export const nodeArb = fc.record({ id: fc.constantFrom(...NODE_IDS), version: fc.integer({ min: 0, max: 2 }) });
/** An edge between two of the nodes, with a version of its attributes. */
export const edgeArb = fc.record({
  src: fc.constantFrom(...NODE_IDS),
  dst: fc.constantFrom(...NODE_IDS),
  type: fc.constantFrom(...EDGE_TYPES.slice(0, 2)),
  version: fc.integer({ min: 0, max: 2 }),
});

/** The node of an id at a version. */
export const node = (id: string, version: number): Node => ({
  id,
  node_type: 'TOPIC',
  system: 'STREAM',
  qualified_name: id,
  display_name: `${id.slice(-7)} v${version}`,
  environment_id: 'env-1',
  cluster_id: 'lkc-1',
  attributes: version === 0 ? null : { version },
});
/** The edge a spec names. */
export const edge = (e: { src: string; dst: string; type: Edge['edge_type']; version: number }): Edge => ({
  src_id: e.src,
  dst_id: e.dst,
  edge_type: e.type,
  attributes: e.version === 0 ? null : { weight: e.version },
});

/** One graph event of a random kind (GraphCreated and GraphDeleted rarely). */
export const eventArb = (graphId: string): fc.Arbitrary<LineageEvent> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.array(nodeArb, { minLength: 1, maxLength: 3 }).map((nodes) => ({
        type: 'NodesAdded' as const,
        data: { graph_id: graphId, nodes: nodes.map((n) => node(n.id, n.version)) },
      })),
    },
    {
      weight: 2,
      arbitrary: fc.array(nodeArb, { minLength: 1, maxLength: 2 }).map((nodes) => ({
        type: 'NodesChanged' as const,
        data: { graph_id: graphId, nodes: nodes.map((n) => node(n.id, n.version)) },
      })),
    },
    {
      weight: 2,
      arbitrary: fc
        .array(fc.constantFrom(...NODE_IDS), { minLength: 1, maxLength: 2 })
        .map((ids) => ({ type: 'NodesRemoved' as const, data: { graph_id: graphId, node_ids: ids } })),
    },
    {
      weight: 4,
      arbitrary: fc
        .array(edgeArb, { minLength: 1, maxLength: 3 })
        .map((edges) => ({ type: 'EdgesAdded' as const, data: { graph_id: graphId, edges: edges.map(edge) } })),
    },
    {
      weight: 2,
      arbitrary: fc
        .array(edgeArb, { minLength: 1, maxLength: 2 })
        .map((edges) => ({ type: 'EdgesChanged' as const, data: { graph_id: graphId, edges: edges.map(edge) } })),
    },
    {
      weight: 2,
      arbitrary: fc.array(edgeArb, { minLength: 1, maxLength: 2 }).map((edges) => ({
        type: 'EdgesRemoved' as const,
        data: {
          graph_id: graphId,
          edges: edges.map(({ src, dst, type }) => ({ src_id: src, dst_id: dst, edge_type: type })),
        },
      })),
    },
    { weight: 1, arbitrary: fc.constant({ type: 'GraphDeleted' as const, data: { graph_id: graphId } }) },
    {
      weight: 1,
      arbitrary: fc.constant({
        type: 'GraphCreated' as const,
        data: { graph_id: graphId, name: 'again', description: null },
      }),
    },
  );

/** A point: a revision, or an index into the recorded times with a millisecond offset. */
export type PointSpec = { revision: number } | { timeIndex: number; offset: -1 | 0 | 1 };
/** A random point (revisions up to 45, beyond most histories' head; times before, at and after the recorded ones). */
export const pointArb: fc.Arbitrary<PointSpec> = fc.oneof(
  fc.record({ revision: fc.integer({ min: 0, max: 45 }) }),
  fc.record({
    timeIndex: fc.integer({ min: -1, max: 46 }),
    offset: fc.constantFrom(-1 as const, 0 as const, 1 as const),
  }),
);

/** A state as the API shows it: its summary and its graph, in order. */
export const shown = (state: GraphState) =>
  JSON.stringify({
    name: state.name,
    description: state.description,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    revision: state.revision,
    position: state.position,
    deleted: state.deleted,
    skippedEdges: state.skippedEdges,
    graph: toLineageGraph(state),
  });

/** The reference: the fold from the start, or "not found". */
export async function fromStart(store: EventStore, graphId: string, asOf: AsOf): Promise<GraphState | 'not found'> {
  try {
    return await foldGraphAsOf(store, graphId, asOf);
  } catch (error) {
    if (error instanceof NotFoundError) return 'not found';
    throw error;
  }
}

/** Appends the scenario's history with the clock moved as it says; answers the recorded times in order. */
export async function record(
  store: EventStore,
  graphId: string,
  appends: Array<{ events: LineageEvent[]; step: number }>,
  clock: { time: number },
) {
  const created: LineageEvent = { type: 'GraphCreated', data: { graph_id: graphId, name: 'g', description: 'd' } };
  await store.append(streams.graph(graphId), toAppend([created], { correlation_id: randomUUID(), cause: 'api' }));
  for (const { events, step } of appends) {
    clock.time += step;
    await store.append(streams.graph(graphId), toAppend(events, { correlation_id: randomUUID(), cause: 'api' }));
  }
  return (await store.readStream(streams.graph(graphId))).map((event) => event.recorded_at);
}

/** The point a spec names in a history recorded at `times`. */
export const resolve = (spec: PointSpec, times: string[]): AsOf => {
  if ('revision' in spec) return spec;
  const base =
    spec.timeIndex < 0
      ? Date.parse(times[0]!) - 5
      : spec.timeIndex >= times.length
        ? Date.parse(times.at(-1)!) + 5
        : Date.parse(times[spec.timeIndex]!);
  return { time: new Date(base + spec.offset).toISOString() };
};

/** The reference diff: the two states folded from the start (the empty graph where there is none), compared whole. */
export async function expectedDiff(store: EventStore, graphId: string, from: AsOf, to: AsOf): Promise<GraphStateDiff> {
  const [before, after] = [await fromStart(store, graphId, from), await fromStart(store, graphId, to)];
  const empty = initialGraphState(graphId);
  const b = before === 'not found' ? empty : before;
  const a = after === 'not found' ? empty : after;
  return {
    from: { revision: b.revision, time: b.updatedAt },
    to: { revision: a.revision, time: a.updatedAt },
    ...wholeChanges(b, a),
  };
}
