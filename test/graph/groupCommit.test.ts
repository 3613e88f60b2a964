/**
 * Group commit of graph commands (issue 23, item 4: a hot graph on PostgreSQL took 43 upserts/s from
 * two API processes, one append per upsert). Commands queued on one graph while an append is in
 * flight share the next append, each with its own correlation id: 50 upserts of distinct nodes sent
 * at once take one append and still show as 50 history entries; upserts of the same node, and a
 * replacing import, are decided after the commands before them (two appends, the second a change, not
 * a second addition); a refused command fails alone. On PostgreSQL, `withStreamLock` makes a second
 * holder of the same stream wait, from another connection pool (as from another process), while
 * another stream's holder does not wait.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it, type TestContext } from 'node:test';
import pg from 'pg';
import { createMemoryEventStore } from '../../infra/eventStore/memoryEventStore.js';
import { createPostgresEventStore } from '../../infra/eventStore/postgresEventStore.js';
import { NotFoundError } from '../../src/errors.js';
import type { EventStore } from '../../src/eventStore.js';
import { createGraph, recordGraph, type GraphCommandDeps } from '../../src/graphCommands.js';
import type { Node } from '../../src/graph/model.js';
import { createGraphProjection, graphStateSource, type GraphProjection } from '../../projections/graphProjection.js';
import { createProjector } from '../../projections/projector.js';
import { testTopic } from '../helpers/sampleGraph.js';

/** A memory store counting its appends, a live graph projection and the command dependencies. */
async function setup(
  t: TestContext,
): Promise<{ deps: GraphCommandDeps; projection: GraphProjection; appends: string[][] }> {
  const inner = createMemoryEventStore();
  const appends: string[][] = [];
  const store: EventStore = Object.create(inner) as EventStore;
  store.append = (stream, events, options) => {
    appends.push(events.map((event) => event.type));
    return inner.append(stream, events, options);
  };
  const projection = createGraphProjection();
  const projector = createProjector({ store, projections: [projection] });
  await projector.start();
  t.after(() => projector.stop());
  return { deps: { store, state: graphStateSource(projection, projector, store) }, projection, appends };
}

const context = (actor: string) => ({ cause: 'api', actor });

function nodeIds(projection: GraphProjection, graphId: string): string[] {
  const ids: string[] = [];
  projection.get(graphId)!.graph.forEachNode((node) => ids.push(node.id));
  return ids;
}

describe('group commit of the commands queued on one graph', () => {
  it('takes 50 upserts of distinct nodes sent at once in one append, one history entry each', async (t) => {
    const { deps, projection, appends } = await setup(t);
    const { graphId } = await createGraph(deps, {}, context('setup'));
    appends.length = 0;
    const nodes = Array.from({ length: 50 }, (_, index) => testTopic(`hot-${index}`));
    const results = await Promise.all(
      nodes.map((node, index) =>
        recordGraph(deps, graphId, { nodes: [node], edges: [] }, { mode: 'merge' }, context(`writer-${index}`)),
      ),
    );
    assert.deepEqual(
      appends.map((types) => types.length),
      [50],
    );
    const state = projection.get(graphId)!;
    assert.equal(state.graph.order, 50);
    for (const result of results) {
      assert.equal(result.appended, 1);
      assert.deepEqual(
        result.changes.nodesAdded.map((node) => node.id),
        [result.changes.nodesAdded[0]!.id],
      );
      assert.equal(result.revision, 50);
    }
    const entries = state.history.slice(1);
    assert.equal(entries.length, 50);
    assert.deepEqual(
      entries.map((entry) => entry.actor),
      nodes.map((_, index) => `writer-${index}`),
    );
    assert.equal(new Set(entries.map((entry) => entry.correlation_id)).size, 50);
  });

  it('decides an upsert of a node already in the batch after it: an addition, then a change', async (t) => {
    const { deps, projection, appends } = await setup(t);
    const { graphId } = await createGraph(deps, {}, context('setup'));
    appends.length = 0;
    const first = testTopic('same');
    const second: Node = { ...first, display_name: 'same, renamed' };
    const [a, b, c] = await Promise.all([
      recordGraph(deps, graphId, { nodes: [first], edges: [] }, { mode: 'merge' }, context('a')),
      recordGraph(deps, graphId, { nodes: [testTopic('other')], edges: [] }, { mode: 'merge' }, context('b')),
      recordGraph(deps, graphId, { nodes: [second], edges: [] }, { mode: 'merge' }, context('c')),
    ]);
    assert.deepEqual(appends, [['NodesAdded', 'NodesAdded'], ['NodesChanged']]);
    assert.equal(a.changes.nodesAdded.length, 1);
    assert.equal(b.changes.nodesAdded.length, 1);
    assert.deepEqual(c.changes.nodesChanged, [second]);
    assert.equal(projection.get(graphId)!.graph.node(first.id)?.display_name, 'same, renamed');
  });

  it('decides a replacing version queued behind upserts against a state that holds them', async (t) => {
    const { deps, projection, appends } = await setup(t);
    const { graphId } = await createGraph(deps, {}, context('setup'));
    appends.length = 0;
    const kept = testTopic('kept');
    const [, , replaced] = await Promise.all([
      recordGraph(deps, graphId, { nodes: [testTopic('one')], edges: [] }, { mode: 'merge' }, context('a')),
      recordGraph(deps, graphId, { nodes: [testTopic('two')], edges: [] }, { mode: 'merge' }, context('b')),
      recordGraph(deps, graphId, { nodes: [kept], edges: [] }, { mode: 'replace' }, context('c')),
    ]);
    assert.deepEqual(appends, [
      ['NodesAdded', 'NodesAdded'],
      ['NodesRemoved', 'NodesAdded'],
    ]);
    assert.equal(replaced.changes.nodesRemoved.length, 2);
    assert.deepEqual(nodeIds(projection, graphId), [kept.id]);
  });

  it('fails a refused command alone: the commands beside it are recorded', async (t) => {
    const { deps, projection } = await setup(t);
    const { graphId } = await createGraph(deps, {}, context('setup'));
    const missing = randomUUID();
    const outcomes = await Promise.allSettled([
      recordGraph(deps, graphId, { nodes: [testTopic('one')], edges: [] }, { mode: 'merge' }, context('a')),
      recordGraph(deps, missing, { nodes: [testTopic('x')], edges: [] }, { mode: 'merge' }, context('b')),
      recordGraph(deps, graphId, { nodes: [testTopic('two')], edges: [] }, { mode: 'merge' }, context('c')),
    ]);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.ok((outcomes[1] as PromiseRejectedResult).reason instanceof NotFoundError);
    assert.equal(projection.get(graphId)!.graph.order, 2);
  });
});

const postgresUrl = process.env.LINEAGE_SVC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const admin = new pg.Pool({ connectionString: postgresUrl, max: 2, connectionTimeoutMillis: 3000 });
admin.on('error', () => undefined);
const postgresSkip = await admin.query('SELECT 1').then(
  () => false as const,
  (error: unknown) =>
    process.env.LINEAGE_SVC_TEST_POSTGRES_URL === undefined
      ? `no PostgreSQL at ${postgresUrl}: ${error instanceof Error ? error.message : String(error)}`
      : false,
);
if (postgresSkip) await admin.end();

describe('PostgreSQL stream locks', { skip: postgresSkip }, () => {
  after(() => admin.end());
  it('make a second holder of the stream wait, from another pool, and leave other streams free', async (t) => {
    const schema = `lineage_lock_${randomUUID().replaceAll('-', '')}`;
    await admin.query(`CREATE SCHEMA ${schema}`);
    t.after(() => admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    const url = new URL(postgresUrl);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const [one, two] = [
      await createPostgresEventStore({ url: url.toString() }),
      await createPostgresEventStore({ url: url.toString() }),
    ];
    t.after(() => Promise.all([one.close(), two.close()]));
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const holding = new Promise<void>((resolve) => (entered = resolve));
    const first = one.withStreamLock!('graph-hot', async (head) => {
      order.push(`first in at ${head}`);
      entered();
      await held;
      await one.append('graph-hot', [{ type: 'Noted', version: 1, data: {}, metadata: { event_id: randomUUID() } }]);
      order.push('first out');
    });
    await holding;
    const second = two.withStreamLock!('graph-hot', async (head) => {
      order.push(`second in at ${head}`);
    });
    // The other stream's holder runs while the first still holds its stream.
    await two.withStreamLock!('graph-cold', async () => {
      order.push('cold');
    });
    // Wait until the second holder is queued behind the first in PostgreSQL itself.
    for (;;) {
      const waiting = await admin.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
      if (waiting.rowCount! > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.deepEqual(order, ['first in at 0', 'cold']);
    release();
    await Promise.all([first, second]);
    // The second holder saw the first holder's append in its head position.
    assert.deepEqual(order, ['first in at 0', 'cold', 'first out', 'second in at 1']);
  });
});
