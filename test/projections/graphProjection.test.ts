import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { createMemoryEventStore } from '../../infra/eventStore/memoryEventStore.js';
import { NotFoundError, ValidationError } from '../../src/errors.js';
import type { EventStore } from '../../src/eventStore.js';
import {
  createGraph,
  deleteGraph,
  graphIdForName,
  recordGraph,
  type GraphCommandDeps,
} from '../../src/graphCommands.js';
import { edgeKey, type LineageGraph } from '../../src/graph/model.js';
import {
  createGraphProjection,
  foldGraphAsOf,
  graphStateSource,
  parseAsOf,
  toLineageGraph,
  type GraphProjection,
  type GraphState,
} from '../../projections/graphProjection.js';
import { createProjector, type Projector } from '../../projections/projector.js';
import { traverse } from '../../projections/traversal/index.js';
import { ids, sampleGraph } from '../helpers/sampleGraph.js';
import { syntheticGraph } from '../../bench/syntheticGraph.js';

/** A memory store with a clock the test moves, a live projection and the command dependencies. */
async function setup(t: TestContext): Promise<{
  store: EventStore;
  projection: GraphProjection;
  projector: Projector;
  deps: GraphCommandDeps;
  clock: { now: Date };
}> {
  const clock = { now: new Date('2026-11-01T00:00:00.000Z') };
  const store = createMemoryEventStore({ now: () => clock.now });
  const projection = createGraphProjection();
  const projector = createProjector({ store, projections: [projection] });
  await projector.start();
  t.after(() => projector.stop());
  return {
    store,
    projection,
    projector,
    deps: { store, state: graphStateSource(projection, projector, store) },
    clock,
  };
}

/** Comparable form of a graph state: sorted nodes and edges. */
function canonical(state: GraphState): unknown {
  const graph = toLineageGraph(state);
  return {
    nodes: graph.nodes.sort((a, b) => a.id.localeCompare(b.id)),
    edges: graph.edges.sort((a, b) => edgeKey(a).localeCompare(edgeKey(b))),
    revision: state.revision,
    name: state.name,
    history: state.history,
  };
}

function withoutSink(graph: LineageGraph): LineageGraph {
  return {
    nodes: graph.nodes.filter((node) => node.id !== ids.s3),
    edges: graph.edges.filter((edge) => edge.dst_id !== ids.s3),
  };
}

const context = (correlation_id: string, cause = 'extraction') => ({ correlation_id, cause, actor: 'test' });

describe('graph projection', () => {
  it('folds recorded graphs, and a rebuilt projection equals the live one', async (t) => {
    const { store, projection, projector, deps, clock } = await setup(t);
    const graphId = graphIdForName('default');
    const first = await recordGraph(
      deps,
      graphId,
      sampleGraph(),
      { mode: 'replace', createIfMissing: true, name: 'default' },
      context('x1'),
    );
    assert.equal(first.created, true);
    clock.now = new Date('2026-11-02T00:00:00.000Z');
    const second = await recordGraph(deps, graphId, withoutSink(sampleGraph()), { mode: 'replace' }, context('x2'));
    assert.equal(second.changes.nodesRemoved.length, 1);
    await createGraph(deps, { name: 'scratch' }, context('api-1', 'api'));

    const live = projection.get(graphId)!;
    assert.equal(live.graph.order, 10);
    assert.equal(live.graph.size, 10);
    assert.equal(live.name, 'default');
    assert.deepEqual(
      live.history.map((entry) => [entry.kind, entry.cause, entry.counts.nodes_added, entry.counts.nodes_removed]),
      [
        ['created', 'extraction', 11, 0],
        ['changed', 'extraction', 0, 1],
      ],
    );
    assert.deepEqual(
      projection.list().map((state) => state.name),
      ['scratch', 'default'],
      'most recently changed first',
    );

    const rebuilt = createGraphProjection();
    const replay = createProjector({ store, projections: [rebuilt] });
    await replay.start();
    assert.deepEqual(canonical(rebuilt.get(graphId)!), canonical(live));
    await projector.rebuild();
    assert.deepEqual(canonical(projection.get(graphId)!), canonical(rebuilt.get(graphId)!));
    await replay.stop();
  });

  it('appends no event when a re-extraction finds nothing new', async (t) => {
    const { store, deps, projector } = await setup(t);
    const graphId = graphIdForName('default');
    await recordGraph(deps, graphId, sampleGraph(), { mode: 'replace', createIfMissing: true }, context('x1'));
    const head = await store.headPosition();
    const again = await recordGraph(
      deps,
      graphId,
      sampleGraph(),
      { mode: 'replace', createIfMissing: true },
      context('x2'),
    );
    assert.equal(again.appended, 0);
    assert.equal(await store.headPosition(), head);
  });

  it('answers as of a revision and as of a time', async (t) => {
    const { store, deps, projector, clock } = await setup(t);
    const graphId = graphIdForName('default');
    const first = await recordGraph(
      deps,
      graphId,
      sampleGraph(),
      { mode: 'replace', createIfMissing: true },
      context('x1'),
    );
    clock.now = new Date('2026-11-05T00:00:00.000Z');
    await recordGraph(deps, graphId, withoutSink(sampleGraph()), { mode: 'replace' }, context('x2'));

    const byRevision = await foldGraphAsOf(store, graphId, { revision: first.revision });
    assert.equal(byRevision.graph.order, 11);
    const byTime = await foldGraphAsOf(store, graphId, parseAsOf('2026-11-03T00:00:00Z'));
    assert.equal(byTime.graph.order, 11);
    const latest = await foldGraphAsOf(store, graphId, parseAsOf('2026-11-06T00:00:00Z'));
    assert.equal(latest.graph.order, 10);
    await assert.rejects(foldGraphAsOf(store, graphId, parseAsOf('2026-10-01T00:00:00Z')), NotFoundError);
    assert.throws(() => parseAsOf('yesterday'), ValidationError);
    assert.deepEqual(parseAsOf('7'), { revision: 7 });
  });

  it('keeps deleted graphs out of listings but their history readable', async (t) => {
    const { store, deps, projection, projector } = await setup(t);
    const created = await createGraph(deps, { name: 'temp' }, context('a', 'api'));
    await recordGraph(deps, created.graphId, sampleGraph(), { mode: 'merge' }, context('b', 'import'));
    await deleteGraph(deps, created.graphId, context('c', 'api'));
    assert.equal(projection.get(created.graphId), undefined);
    assert.deepEqual(
      projection.getIncludingDeleted(created.graphId)!.history.map((entry) => entry.kind),
      ['created', 'changed', 'deleted'],
    );
    await assert.rejects(deleteGraph(deps, created.graphId, context('d', 'api')), NotFoundError);
    await assert.rejects(
      recordGraph(deps, created.graphId, sampleGraph(), { mode: 'merge' }, context('e')),
      NotFoundError,
    );
    const beforeDelete = await foldGraphAsOf(store, created.graphId, { revision: 1 });
    assert.equal(beforeDelete.graph.order, 11);
  });

  it('decides again when another writer appended first', async (t) => {
    const { deps, projection, projector } = await setup(t);
    const graphId = graphIdForName('contended');
    await recordGraph(
      deps,
      graphId,
      { nodes: [], edges: [] },
      { mode: 'merge', createIfMissing: true },
      context('seed'),
    );
    // Two writers decide against the same revision; the store lets one through, the other retries.
    const results = await Promise.all([
      recordGraph(deps, graphId, sampleGraph(), { mode: 'merge' }, context('w1')),
      recordGraph(deps, graphId, withoutSink(sampleGraph()), { mode: 'merge' }, context('w2')),
    ]);
    assert.equal(results.reduce((sum, result) => sum + result.appended, 0) > 0, true);
    assert.equal(projection.get(graphId)!.graph.order, 11, 'merge of both versions keeps every node');
  });

  it('rejects creating a graph that exists', async (t) => {
    const { deps, projector } = await setup(t);
    const created = await createGraph(deps, { name: 'one' }, context('a', 'api'));
    await assert.rejects(createGraph(deps, { graphId: created.graphId }, context('b', 'api')), /exists already/);
  });
});

describe('traversal', () => {
  it('walks upstream and downstream by hops, with distances and counts', async (t) => {
    const { projection, deps } = await setup(t);
    const graphId = graphIdForName('default');
    await recordGraph(deps, graphId, sampleGraph(), { mode: 'replace', createIfMissing: true }, context('x1'));
    const { graph } = projection.get(graphId)!;

    const upstream = traverse(graph, ids.enriched, 'upstream', 2);
    assert.deepEqual(
      upstream.nodes.map((node) => [node.id, node.hop]),
      [
        [ids.enrich, 1],
        [ids.orders, 2],
      ],
    );
    assert.equal(upstream.node_count, 2);
    assert.equal(upstream.edge_count, 2);
    assert.equal(upstream.origin.id, ids.enriched);

    const all = traverse(graph, ids.postgres, 'downstream', 10);
    assert.equal(all.node_count, 10, 'everything but the origin is downstream of the Postgres table');
    assert.equal(all.nodes.find((node) => node.id === ids.lakehouse)!.hop, 6);
    assert.equal(all.edge_count, 11);

    assert.throws(() => traverse(graph, 'stream:topic:env:nope', 'upstream', 1), NotFoundError);
    assert.throws(() => traverse(graph, ids.orders, 'upstream', 0), ValidationError);
  });
});

describe('traversal indexes', () => {
  /** Runs `prepareTraversalIndexes` until it has nothing left to do; answers the builds completed. */
  const prepareAll = (projection: GraphProjection): number => {
    let built = 0;
    for (;;) {
      const result = projection.prepareTraversalIndexes(1_000);
      built += result.built;
      if (result.done) return built;
    }
  };

  /** A projection with traversal indexes after 1,000 ms of quiet, on a clock the test moves. */
  async function indexedSetup(t: TestContext) {
    const clock = { now: 0 };
    const store = createMemoryEventStore();
    const projection = createGraphProjection({ traversalIndexQuietMilliseconds: 1_000, now: () => clock.now });
    const projector = createProjector({ store, projections: [projection] });
    await projector.start();
    t.after(() => projector.stop());
    return { clock, projection, deps: { store, state: graphStateSource(projection, projector, store) } };
  }

  it('indexes a graph once it has been quiet, keeps the index until the next change, and agrees with the graph walk', async (t) => {
    const { clock, projection, deps } = await indexedSetup(t);
    const graphId = graphIdForName('default');
    await recordGraph(deps, graphId, sampleGraph(), { mode: 'replace', createIfMissing: true }, context('x1'));
    clock.now = 999;
    assert.equal(projection.traversalIndex(graphId), undefined, 'changed 999 ms ago: walk the graph');
    clock.now = 1_000;
    const index = projection.traversalIndex(graphId);
    assert.ok(index, 'quiet for 1,000 ms: indexed');
    assert.equal(index.revision, projection.get(graphId)!.revision);
    assert.equal(projection.traversalIndex(graphId), index, 'the same index while nothing changes');
    assert.equal(prepareAll(projection), 0, 'nothing left to build');
    const { graph } = projection.get(graphId)!;
    const walked = traverse(graph, ids.postgres, 'downstream', 10);
    const indexed = JSON.parse(
      index.traverseJson(ids.postgres, 'downstream', 10).bytes.toString('utf8'),
    ) as typeof walked;
    const byHopThenId = (nodes: typeof walked.nodes) => nodes.map((node) => `${node.hop} ${node.id}`).sort();
    assert.deepEqual(byHopThenId(indexed.nodes), byHopThenId(walked.nodes));
    assert.deepEqual(indexed.edges.map(edgeKey).sort(), walked.edges.map(edgeKey).sort());
    assert.equal(indexed.node_count, 10);

    // A change makes the index stale at once; a new one comes after the next quiet period.
    clock.now = 5_000;
    await recordGraph(
      deps,
      graphId,
      { nodes: [{ ...sampleGraph().nodes[0]!, display_name: 'renamed' }], edges: [] },
      { mode: 'merge' },
      context('x2'),
    );
    clock.now = 5_500;
    assert.equal(projection.traversalIndex(graphId), undefined);
    assert.equal(prepareAll(projection), 0, 'the background build waits for quiet too');
    clock.now = 6_000;
    assert.equal(prepareAll(projection), 1);
    const rebuilt = projection.traversalIndex(graphId, { build: false });
    assert.ok(rebuilt && rebuilt !== index);
    assert.equal(rebuilt.revision, projection.get(graphId)!.revision);
  });

  it('builds in the background only the graphs asked for', async (t) => {
    const { clock, projection, deps } = await indexedSetup(t);
    const [asked, ignored] = [graphIdForName('asked'), graphIdForName('ignored')];
    for (const graphId of [asked, ignored])
      await recordGraph(deps, graphId, sampleGraph(), { mode: 'replace', createIfMissing: true }, context(graphId));
    assert.equal(projection.traversalIndex(asked, { build: false }), undefined, 'a request never builds');
    clock.now = 2_000;
    assert.equal(prepareAll(projection), 1, 'only the graph that was asked for');
    assert.ok(projection.traversalIndex(asked, { build: false }));
    assert.equal(prepareAll(projection), 0, 'the other graph, never asked for, is never built');
    assert.ok(projection.traversalIndex(ignored), 'asking with build (the default) builds at once');
    assert.equal(prepareAll(projection), 0, 'nothing left to build');
    // A change makes the asked-for graph's index stale; the sweep rebuilds it.
    await recordGraph(
      deps,
      asked,
      { nodes: [{ ...sampleGraph().nodes[0]!, display_name: 'changed' }], edges: [] },
      { mode: 'merge' },
      context('x3'),
    );
    clock.now = 6_000;
    assert.equal(prepareAll(projection), 1, 'the asked-for graph is rebuilt after its change');
  });

  it('builds a large graph in steps between which it can change: a build of a stale revision is dropped', async (t) => {
    const { clock, projection, deps } = await indexedSetup(t);
    const graphId = graphIdForName('large');
    const large = syntheticGraph({ nodes: 40_000, edges: 120_000, seed: 3 });
    await recordGraph(deps, graphId, large, { mode: 'replace', createIfMissing: true }, context('l1'));
    assert.equal(projection.traversalIndex(graphId, { build: false }), undefined);
    clock.now = 10_000;
    const first = projection.prepareTraversalIndexes(0);
    assert.deepEqual(first, { built: 0, done: false }, 'one step of 16,384 items: the build has begun, not ended');
    // The graph changes mid-build: the build in progress is dropped, and the next ones index the new revision.
    await recordGraph(
      deps,
      graphId,
      { nodes: [{ ...large.nodes[0]!, display_name: 'mid-build' }], edges: [] },
      { mode: 'merge' },
      context('l2'),
    );
    clock.now = 20_000;
    let slices = 0;
    let built = 0;
    for (let result = { built: 0, done: false }; !result.done; slices += 1) {
      result = projection.prepareTraversalIndexes(0);
      built += result.built;
    }
    assert.equal(built, 1);
    assert.ok(slices > 3, `built in ${slices} slices`);
    const index = projection.traversalIndex(graphId, { build: false });
    assert.ok(index);
    assert.equal(index.revision, projection.get(graphId)!.revision);
    assert.equal(index.order, 40_000);
    const origin = large.nodes[5]!.id;
    const answer = index.traverseJson(origin, 'downstream', 3);
    const parsed = JSON.parse(answer.bytes.toString('utf8')) as { origin: { id: string }; node_count: number };
    answer.release();
    assert.equal(parsed.node_count, traverse(projection.get(graphId)!.graph, origin, 'downstream', 3).node_count);
    assert.equal(index.traverse(large.nodes[0]!.id, 'downstream', 1).origin.display_name, 'mid-build');
  });

  it('answers no index when indexes are off, for unknown and deleted graphs, and after a reset', async (t) => {
    const { projection: plain, deps: plainDeps } = await setup(t);
    const graphId = graphIdForName('default');
    await recordGraph(plainDeps, graphId, sampleGraph(), { mode: 'replace', createIfMissing: true }, context('x1'));
    assert.equal(plain.traversalIndex(graphId), undefined, 'no quiet period configured: no indexes');
    assert.deepEqual(plain.prepareTraversalIndexes(1_000), { built: 0, done: true });

    const { clock, projection, deps } = await indexedSetup(t);
    await recordGraph(deps, graphId, sampleGraph(), { mode: 'replace', createIfMissing: true }, context('x1'));
    clock.now = 10_000;
    assert.equal(projection.traversalIndex('00000000-0000-4000-8000-000000000000'), undefined);
    assert.ok(projection.traversalIndex(graphId));
    await deleteGraph(deps, graphId, context('x2'));
    clock.now = 20_000;
    assert.equal(projection.traversalIndex(graphId), undefined, 'deleted graphs have no index');
    projection.reset();
    assert.equal(projection.traversalIndex(graphId), undefined);
  });
});
