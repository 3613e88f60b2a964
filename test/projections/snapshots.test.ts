/**
 * Snapshot-based `as_of` reads and diffs (`projections/snapshots.ts`) give the same answers as folding
 * the graph's stream from its start, on random histories, on every store backend
 * (`test/projections/snapshotsBackends.ts`).
 *
 * A history is a random sequence of appends of raw graph events over a small set of nodes (so that
 * nodes and edges are added, changed, removed and re-added often): node and edge changes, edges
 * whose endpoint is missing (skipped by the fold), nodes removed with their edges still there, the
 * graph deleted and created again. The store's clock moves by 0 to 3 ms per append and sometimes
 * back (another process's clock), so that times tie and are out of order. Snapshots are taken every
 * 2 to 5 events; some are then removed, replaced by garbage, or replaced by a snapshot of another
 * format whose content is wrong: none of that may change an answer. Queries: `as_of` at random
 * revisions and times (recorded times, one millisecond either side, before the first and after the
 * last), and diffs between random pairs of such points in either order.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
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
import {
  GRAPH_SNAPSHOT_FORMAT,
  diffGraphAsOf,
  encodeSnapshot,
  graphSnapshotKey,
  readGraphAsOf,
  snapshotPayload,
  snapshotWritesSettled,
  wholeChanges,
  writeGraphSnapshots,
} from '../../projections/snapshots.js';
import { snapshotBackends } from './snapshotsBackends.js';

const NODE_IDS = Array.from({ length: 6 }, (_, index) => topicId('env-1', 'lkc-1', `topic-${index}`));
const RUNS: Record<string, number> = { memory: 60, file: 25, sqlite: 25, postgres: 15, eventstoredb: 10 };

const nodeArb = fc.record({ id: fc.constantFrom(...NODE_IDS), version: fc.integer({ min: 0, max: 2 }) });
const edgeArb = fc.record({
  src: fc.constantFrom(...NODE_IDS),
  dst: fc.constantFrom(...NODE_IDS),
  type: fc.constantFrom(...EDGE_TYPES.slice(0, 2)),
  version: fc.integer({ min: 0, max: 2 }),
});

const node = (id: string, version: number): Node => ({
  id,
  node_type: 'TOPIC',
  system: 'STREAM',
  qualified_name: id,
  display_name: `${id.slice(-7)} v${version}`,
  environment_id: 'env-1',
  cluster_id: 'lkc-1',
  attributes: version === 0 ? null : { version },
});
const edge = (e: { src: string; dst: string; type: Edge['edge_type']; version: number }): Edge => ({
  src_id: e.src,
  dst_id: e.dst,
  edge_type: e.type,
  attributes: e.version === 0 ? null : { weight: e.version },
});

/** One graph event of a random kind (GraphCreated and GraphDeleted rarely). */
const eventArb = (graphId: string): fc.Arbitrary<LineageEvent> =>
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
type PointSpec = { revision: number } | { timeIndex: number; offset: -1 | 0 | 1 };
const pointArb: fc.Arbitrary<PointSpec> = fc.oneof(
  fc.record({ revision: fc.integer({ min: 0, max: 45 }) }),
  fc.record({
    timeIndex: fc.integer({ min: -1, max: 46 }),
    offset: fc.constantFrom(-1 as const, 0 as const, 1 as const),
  }),
);

const scenarioArb = (graphId: string) =>
  fc.record({
    appends: fc.array(
      fc.record({
        events: fc.array(eventArb(graphId), { minLength: 1, maxLength: 3 }),
        step: fc.integer({ min: -2, max: 3 }),
      }),
      { minLength: 1, maxLength: 15 },
    ),
    interval: fc.integer({ min: 2, max: 5 }),
    /** Take every snapshot first (else only those the queries' folds pass). */
    backfill: fc.boolean(),
    /** Snapshot points to spoil: 0 removes it, 1 replaces it with garbage, 2 adds a wrong one of another format. */
    spoil: fc.array(fc.record({ point: fc.nat(20), how: fc.constantFrom(0, 1, 2) }), { maxLength: 3 }),
    asOf: fc.array(pointArb, { minLength: 1, maxLength: 4 }),
    diffs: fc.array(fc.tuple(pointArb, pointArb), { minLength: 1, maxLength: 3 }),
  });

/** A state as the API shows it: its summary and its graph, in order. */
const shown = (state: GraphState) =>
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
async function fromStart(store: EventStore, graphId: string, asOf: AsOf): Promise<GraphState | 'not found'> {
  try {
    return await foldGraphAsOf(store, graphId, asOf);
  } catch (error) {
    if (error instanceof NotFoundError) return 'not found';
    throw error;
  }
}

/** Appends the scenario's history with the clock moved as it says; answers the recorded times in order. */
async function record(
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

/** Removes, corrupts or shadows some snapshot points (each must leave every answer as it was). */
async function spoil(
  store: EventStore,
  graphId: string,
  interval: number,
  spoils: Array<{ point: number; how: number }>,
) {
  const key = graphSnapshotKey(graphId);
  const first = snapshotPayload((await readGraphAsOf(store, graphId, { revision: 0 }, { write: false })).state);
  for (const { point, how } of spoils) {
    const revision = (point + 1) * interval - 1;
    const info = { key, format: GRAPH_SNAPSHOT_FORMAT, revision, position: 1, recorded_at: '1970-01-01T00:00:00.000Z' };
    // A well-formed snapshot of the right revision whose content is wrong: only its format may keep it out.
    const wrong = await encodeSnapshot({ ...first, revision, name: 'WRONG' });
    if (how === 0) await store.snapshots.remove(key, GRAPH_SNAPSHOT_FORMAT, revision);
    if (how === 1) {
      await store.snapshots.remove(key, GRAPH_SNAPSHOT_FORMAT, revision);
      await store.snapshots.put(info, new Uint8Array([31, 139, 8, 0, 1, 2, 3]));
    }
    if (how === 2) {
      await store.snapshots.remove(key, GRAPH_SNAPSHOT_FORMAT, revision);
      await store.snapshots.put({ ...info, format: 'graph-0;stale' }, wrong);
    }
  }
}

const resolve = (spec: PointSpec, times: string[]): AsOf => {
  if ('revision' in spec) return spec;
  const base =
    spec.timeIndex < 0
      ? Date.parse(times[0]!) - 5
      : spec.timeIndex >= times.length
        ? Date.parse(times.at(-1)!) + 5
        : Date.parse(times[spec.timeIndex]!);
  return { time: new Date(base + spec.offset).toISOString() };
};

describe('graph snapshots: as_of and diff equal the fold from the start', async () => {
  const backends = await snapshotBackends();
  for (const backend of backends) {
    describe(backend.name, { skip: backend.skip }, () => {
      const clock = { time: Date.parse('2026-01-01T00:00:00.000Z') };
      let opened: Awaited<ReturnType<typeof backend.open>>;
      before(async () => {
        opened = await backend.open(() => new Date(clock.time));
      });
      after(async () => opened?.cleanup());

      it(`on random histories (${RUNS[backend.name]} runs)`, async () => {
        const { store } = opened;
        await fc.assert(
          fc.asyncProperty(
            fc.uuid().chain((graphId) => scenarioArb(graphId).map((scenario) => ({ graphId, scenario }))),
            async ({ graphId, scenario }) => {
              const times = await record(store, graphId, scenario.appends, clock);
              const options = { interval: scenario.interval };
              if (scenario.backfill) await writeGraphSnapshots(store, graphId, options);
              await spoil(store, graphId, scenario.interval, scenario.spoil);
              for (const spec of scenario.asOf) {
                const asOf = resolve(spec, times);
                const expected = await fromStart(store, graphId, asOf);
                const actual = await readGraphAsOf(store, graphId, asOf, options).then(
                  (folded) => folded.state,
                  (error: unknown) => {
                    if (error instanceof NotFoundError) return 'not found' as const;
                    throw error;
                  },
                );
                assert.equal(
                  typeof actual === 'string' ? actual : shown(actual),
                  typeof expected === 'string' ? expected : shown(expected),
                  `as_of ${JSON.stringify(asOf)}`,
                );
              }
              for (const [fromSpec, toSpec] of scenario.diffs) {
                const [from, to] = [resolve(fromSpec, times), resolve(toSpec, times)];
                const [before, after] = [await fromStart(store, graphId, from), await fromStart(store, graphId, to)];
                const empty = initialGraphState(graphId);
                const b = before === 'not found' ? empty : before;
                const a = after === 'not found' ? empty : after;
                const expected = {
                  from: { revision: b.revision, time: b.updatedAt },
                  to: { revision: a.revision, time: a.updatedAt },
                  ...wholeChanges(b, a),
                };
                const actual = await diffGraphAsOf(store, graphId, from, to, options);
                assert.deepEqual(actual, expected, `diff ${JSON.stringify(from)} → ${JSON.stringify(to)}`);
              }
              await snapshotWritesSettled();
            },
          ),
          { numRuns: RUNS[backend.name] ?? 10 },
        );
      });
    });
  }
});
