/**
 * The graph endpoints over a real socket, on the memory and sqlite stores: create, list, get,
 * import (merge and replace), export, nodes (filters, percent-encoded ids), edges, traversals,
 * history, diff and `as_of`, delete, and every 4xx they answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordGraph } from '../../src/graphCommands.js';
import type { LineageGraph } from '../../src/graph/model.js';
import { CLUSTER, ENV, ids, sampleGraph } from '../helpers/sampleGraph.js';
import { BACKENDS, assertProblem, call, enc, startApi, type TestApi } from './helpers.js';
import { ManualClock } from '../helpers/clock.js';

for (const backend of BACKENDS) {
  describe(`graph endpoints (${backend} store)`, () => {
    let api: TestApi;
    let graphId: string;
    /** The store's clock: time stands still until a test moves it (as_of by time). */
    const clock = new ManualClock();
    const get = (path: string) => call(api.base, 'GET', `/api/v1${path}`);
    const post = (path: string, json?: unknown) =>
      call(api.base, 'POST', `/api/v1${path}`, json === undefined ? {} : { json });

    before(async () => {
      api = await startApi({ backend, now: clock.now });
      const created = await post('/graphs', { name: 'shop', description: 'orders pipeline' });
      assert.equal(created.status, 201);
      graphId = created.body.graph_id;
      const imported = await post(`/graphs/${graphId}/import`, sampleGraph());
      assert.equal(imported.status, 200);
    });
    after(async () => api.dispose());

    it('creates an empty graph (201) with or without a body, and lists graphs most recently changed first', async () => {
      const empty = await call(api.base, 'POST', '/api/v1/graphs');
      assert.equal(empty.status, 201);
      assert.equal(empty.body.node_count, 0);
      assert.equal(empty.body.name, null);
      const list = await get('/graphs');
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.graphs.map((graph: { graph_id: string }) => graph.graph_id).slice(0, 2), [
        empty.body.graph_id,
        graphId,
      ]);
      const shop = list.body.graphs.find((graph: { graph_id: string }) => graph.graph_id === graphId);
      assert.equal(shop.name, 'shop');
      assert.equal(shop.node_count, 11);
      assert.equal(shop.edge_count, 11);
      assert.ok(shop.revision >= 1);
      assert.equal(typeof shop.updated_at, 'string');
    });

    it('rejects a create body with unknown fields (400)', async () => {
      const answer = await post('/graphs', { name: 'x', owner: 'me' });
      assertProblem(answer, 400);
    });

    it('answers a whole graph and its export; 404 for an unknown graph', async () => {
      const whole = await get(`/graphs/${graphId}`);
      assert.equal(whole.status, 200);
      assert.equal(whole.body.nodes.length, 11);
      assert.equal(whole.body.edges.length, 11);
      assert.equal(whole.body.description, 'orders pipeline');
      const exported = await get(`/graphs/${graphId}/export`);
      assert.equal(exported.status, 200);
      assert.deepEqual(Object.keys(exported.body).sort(), ['edges', 'nodes']);
      assert.deepEqual(
        new Set(exported.body.nodes.map((node: { id: string }) => node.id)),
        new Set(sampleGraph().nodes.map((node) => node.id)),
      );
      assertProblem(await get('/graphs/no-such-graph'), 404, 'graph "no-such-graph" not found');
      assertProblem(await get('/graphs/no-such-graph/export'), 404);
    });

    it('filters nodes by type, system, environment, cluster and search, with paging', async () => {
      const topics = await get(`/graphs/${graphId}/nodes?node_type=topic`);
      assert.equal(topics.status, 200);
      assert.deepEqual(
        topics.body.nodes.map((node: { id: string }) => node.id).sort(),
        [ids.enriched, ids.orders].sort(),
      );
      assert.equal(topics.body.total, 2);
      const external = await get(`/graphs/${graphId}/nodes?system=external`);
      assert.equal(external.body.total, 2);
      const inCluster = await get(`/graphs/${graphId}/nodes?environment_id=${ENV}&cluster_id=${CLUSTER}`);
      assert.ok(inCluster.body.nodes.every((node: { cluster_id: string }) => node.cluster_id === CLUSTER));
      const search = await get(`/graphs/${graphId}/nodes?search=ENRICHED`);
      assert.ok(search.body.total >= 2);
      assert.ok(
        search.body.nodes.every((node: { display_name: string; qualified_name: string }) =>
          `${node.display_name} ${node.qualified_name}`.toLowerCase().includes('enriched'),
        ),
      );
      const page = await get(`/graphs/${graphId}/nodes?limit=3&offset=9`);
      assert.deepEqual([page.body.nodes.length, page.body.total, page.body.limit, page.body.offset], [2, 11, 3, 9]);
      assertProblem(await get(`/graphs/${graphId}/nodes?node_type=TABLE`), 400);
      assertProblem(await get(`/graphs/${graphId}/nodes?limit=0`), 400);
      assertProblem(await get('/graphs/nope/nodes'), 404);
    });

    it('answers one node by its percent-encoded id (colons and slashes); 404 for an unknown node', async () => {
      const answer = await get(`/graphs/${graphId}/nodes/${enc(ids.orders)}`);
      assert.equal(answer.status, 200);
      assert.equal(answer.body.id, ids.orders);
      assert.equal(answer.body.qualified_name, `${CLUSTER}/shop.public.orders`);
      const postgres = await get(`/graphs/${graphId}/nodes/${enc(ids.postgres)}`);
      assert.equal(postgres.body.id, ids.postgres);
      assertProblem(
        await get(`/graphs/${graphId}/nodes/${enc('stream:topic:env-abc123:lkc-xyz789/missing')}`),
        404,
        /not found/,
      );
    });

    it('adds a node (201), replaces it (200), and rejects an invalid one (400) or an unknown graph (404)', async () => {
      const node = {
        id: `stream:topic:${ENV}:${CLUSTER}/payments`,
        node_type: 'TOPIC',
        system: 'STREAM',
        qualified_name: `${CLUSTER}/payments`,
        display_name: 'payments',
        environment_id: ENV,
        cluster_id: CLUSTER,
        attributes: { partitions: 3 },
      };
      const created = await post(`/graphs/${graphId}/nodes`, node);
      assert.equal(created.status, 201);
      assert.equal(created.body.id, node.id);
      const replaced = await post(`/graphs/${graphId}/nodes`, { ...node, attributes: { partitions: 6 } });
      assert.equal(replaced.status, 200);
      const read = await get(`/graphs/${graphId}/nodes/${enc(node.id)}`);
      assert.deepEqual(read.body.attributes, { partitions: 6 });
      const mismatch = assertProblem(await post(`/graphs/${graphId}/nodes`, { ...node, qualified_name: 'other' }), 400);
      assert.ok(Array.isArray(mismatch.errors) && mismatch.errors.length > 0);
      const missing = assertProblem(await post(`/graphs/${graphId}/nodes`, { id: 'x' }), 400);
      assert.ok((missing.errors as Array<{ path: string }>).some((error) => error.path.startsWith('body.')));
      assertProblem(await post('/graphs/nope/nodes', node), 404);
    });

    it('adds an edge (201); 404 when an end is missing; 400 against the edge direction', async () => {
      const edge = { src_id: ids.orders, dst_id: ids.sink, edge_type: 'consumes' };
      const created = await post(`/graphs/${graphId}/edges`, edge);
      assert.equal(created.status, 201);
      assert.equal(created.body.edge_type, 'CONSUMES');
      const again = await post(`/graphs/${graphId}/edges`, edge);
      assert.equal(again.status, 200);
      assertProblem(
        await post(`/graphs/${graphId}/edges`, { ...edge, dst_id: 'stream:connector:env-abc123:lkc-xyz789/nope' }),
        404,
        /not found/,
      );
      const wrong = assertProblem(
        await post(`/graphs/${graphId}/edges`, { src_id: ids.sink, dst_id: ids.orders, edge_type: 'CONSUMES' }),
        400,
      );
      assert.ok(Array.isArray(wrong.errors));
      assertProblem(await post(`/graphs/${graphId}/edges`, { src_id: ids.sink }), 400);
      const listed = await get(`/graphs/${graphId}/edges?edge_type=CONSUMES&node_id=${enc(ids.sink)}`);
      assert.equal(listed.status, 200);
      assert.ok(listed.body.edges.some((item: { src_id: string }) => item.src_id === ids.orders));
      assert.ok(listed.body.edges.every((item: { edge_type: string }) => item.edge_type === 'CONSUMES'));
    });

    it('traverses upstream and downstream with hop distances, edges and counts', async () => {
      const up = await get(`/graphs/${graphId}/query/upstream/${enc(ids.enriched)}?hops=2`);
      assert.equal(up.status, 200);
      assert.equal(up.body.origin.id, ids.enriched);
      assert.equal(up.body.direction, 'upstream');
      const hops = Object.fromEntries(up.body.nodes.map((node: { id: string; hop: number }) => [node.id, node.hop]));
      assert.deepEqual(hops, { [ids.enrich]: 1, [ids.orders]: 2 });
      assert.equal(up.body.node_count, up.body.nodes.length);
      assert.equal(up.body.edge_count, up.body.edges.length);
      assert.ok(
        up.body.edges.some(
          (edge: { src_id: string; dst_id: string }) => edge.src_id === ids.orders && edge.dst_id === ids.enrich,
        ),
      );
      const down = await get(`/graphs/${graphId}/query/downstream/${enc(ids.orders)}`);
      assert.equal(down.status, 200);
      assert.equal(down.body.hops, 3);
      assert.ok(
        down.body.nodes.some((node: { id: string; hop: number }) => node.id === ids.enriched && node.hop === 2),
      );
      assertProblem(await get(`/graphs/${graphId}/query/upstream/${enc(ids.orders)}?hops=0`), 400);
      assertProblem(await get(`/graphs/${graphId}/query/upstream/${enc(ids.orders)}?hops=1000`), 400);
      assertProblem(await get(`/graphs/${graphId}/query/upstream/${enc(ids.orders)}?hops=two`), 400);
      assertProblem(await get(`/graphs/${graphId}/query/downstream/${enc('stream:topic:x:y/z')}`), 404);
      assertProblem(await get(`/graphs/nope/query/downstream/${enc(ids.orders)}`), 404);
    });

    it('imports in merge mode (upsert, records only the difference) and replace mode (graph equals the payload)', async () => {
      const target = (await post('/graphs', { name: 'imports' })).body.graph_id as string;
      const full = sampleGraph();
      const first = await post(`/graphs/${target}/import`, full);
      assert.equal(first.body.changes.nodes_added, 11);
      const same = await post(`/graphs/${target}/import?mode=merge`, full);
      assert.deepEqual(Object.values(same.body.changes), [0, 0, 0, 0, 0, 0]);
      assert.equal(same.body.revision, first.body.revision);
      // merge: an edge may point at a node already in the graph; nothing is removed
      const partial: LineageGraph = { nodes: full.nodes.slice(0, 3), edges: [full.edges[0]!] };
      const merged = await post(`/graphs/${target}/import?mode=merge`, {
        nodes: [],
        edges: [{ src_id: ids.orders, dst_id: ids.sink, edge_type: 'CONSUMES' }],
      });
      assert.equal(merged.body.changes.edges_added, 1);
      assert.equal(merged.body.node_count, 11);
      const replaced = await post(`/graphs/${target}/import?mode=replace`, partial);
      assert.equal(replaced.status, 200);
      assert.equal(replaced.body.node_count, 3);
      assert.equal(replaced.body.edge_count, 1);
      assert.equal(replaced.body.changes.nodes_removed, 8);
      const dangling = assertProblem(
        await post(`/graphs/${target}/import?mode=replace`, { nodes: [], edges: [full.edges[0]] }),
        400,
      );
      assert.ok(Array.isArray(dangling.errors));
      assertProblem(await post(`/graphs/${target}/import?mode=upsert`, full), 400);
      assertProblem(await post(`/graphs/${target}/import`, { nodes: [{ id: 'x', node_type: 'UC_TABLE' }] }), 400);
      assertProblem(await post('/graphs/nope/import', full), 404);
    });

    it('serves history, diff and as_of after two recorded extractions that differ', async () => {
      const target = (await post('/graphs', { name: 'versions' })).body.graph_id as string;
      const v1 = sampleGraph();
      const v2 = sampleGraph();
      v2.nodes = v2.nodes.filter((node) => node.id !== ids.s3);
      v2.edges = v2.edges.filter((edge) => edge.dst_id !== ids.s3);
      v2.nodes.find((node) => node.id === ids.orders)!.attributes = { partitions: 12, replication_factor: 3 };
      v2.nodes.push({
        ...v2.nodes.find((node) => node.id === ids.orders)!,
        id: `stream:topic:${ENV}:${CLUSTER}/refunds`,
        qualified_name: `${CLUSTER}/refunds`,
        display_name: 'refunds',
      });
      const context = { cause: 'extraction', actor: 'test' };
      const first = await recordGraph(
        api.runtime.commands,
        target,
        v1,
        { mode: 'replace' },
        { ...context, correlation_id: 'x1' },
      );
      const firstTime = new Date(clock.now()).toISOString();
      await clock.advance(60_000);
      await recordGraph(api.runtime.commands, target, v2, { mode: 'replace' }, { ...context, correlation_id: 'x2' });

      const history = await get(`/graphs/${target}/history`);
      assert.equal(history.status, 200);
      const changes = history.body.changes as Array<{
        revision: number;
        cause: string;
        kind: string;
        counts: Record<string, number>;
      }>;
      assert.deepEqual(
        changes.map((change) => change.kind),
        ['created', 'changed', 'changed'],
      );
      assert.deepEqual(
        changes.slice(1).map((change) => change.cause),
        ['extraction', 'extraction'],
      );
      assert.equal(changes[1]!.counts.nodes_added, 11);
      assert.deepEqual(
        [changes[2]!.counts.nodes_added, changes[2]!.counts.nodes_changed, changes[2]!.counts.nodes_removed],
        [1, 1, 1],
      );
      assert.equal(typeof changes[2]!.revision, 'number');

      const byRevision = await get(`/graphs/${target}/diff?from=${first.revision}&to=${changes[2]!.revision}`);
      assert.equal(byRevision.status, 200);
      assert.deepEqual(
        byRevision.body.nodes.added.map((node: { display_name: string }) => node.display_name),
        ['refunds'],
      );
      assert.deepEqual(
        byRevision.body.nodes.removed.map((node: { id: string }) => node.id),
        [ids.s3],
      );
      assert.equal(byRevision.body.nodes.changed.length, 1);
      assert.equal(byRevision.body.nodes.changed[0].id, ids.orders);
      assert.equal(byRevision.body.nodes.changed[0].before.attributes.partitions, 6);
      assert.equal(byRevision.body.nodes.changed[0].after.attributes.partitions, 12);
      assert.equal(byRevision.body.edges.removed.length, 1);
      assert.equal(byRevision.body.from.revision, first.revision);
      const byTime = await get(`/graphs/${target}/diff?from=${encodeURIComponent(firstTime)}`);
      assert.deepEqual(
        byTime.body.nodes.removed.map((node: { id: string }) => node.id),
        [ids.s3],
      );
      assert.equal(byTime.body.to.as_of, null);

      const old = await get(`/graphs/${target}/nodes/${enc(ids.s3)}?as_of=${first.revision}`);
      assert.equal(old.status, 200);
      assertProblem(await get(`/graphs/${target}/nodes/${enc(ids.s3)}`), 404);
      const oldGraph = await get(`/graphs/${target}?as_of=${encodeURIComponent(firstTime)}`);
      assert.equal(oldGraph.body.nodes.length, 11);
      const oldExport = await get(`/graphs/${target}/export?as_of=${first.revision}`);
      assert.equal(oldExport.body.nodes.length, 11);
      const oldUp = await get(`/graphs/${target}/query/upstream/${enc(ids.s3)}?hops=1&as_of=${first.revision}`);
      assert.deepEqual(
        oldUp.body.nodes.map((node: { id: string }) => node.id),
        [ids.sink],
      );
      const oldNodes = await get(`/graphs/${target}/nodes?as_of=${first.revision}&node_type=TOPIC`);
      assert.equal(oldNodes.body.total, 2);
      const oldEdges = await get(`/graphs/${target}/edges?as_of=${first.revision}`);
      assert.equal(oldEdges.body.total, 11);

      assertProblem(await get(`/graphs/${target}?as_of=yesterday`), 400, /as_of/);
      assertProblem(await get(`/graphs/${target}?as_of=1999-01-01T00:00:00Z`), 404);
      assertProblem(await get(`/graphs/${target}/diff`), 400);
      assertProblem(await get(`/graphs/${target}/diff?from=soon`), 400);
      assertProblem(await get('/graphs/nope/diff?from=0'), 404);
      assertProblem(await get('/graphs/nope/history'), 404);
    });

    it('deletes a graph (then 404), keeps its history readable, and 404s a second delete', async () => {
      const target = (await post('/graphs', { name: 'doomed' })).body.graph_id as string;
      const deleted = await call(api.base, 'DELETE', `/api/v1/graphs/${target}`);
      assert.equal(deleted.status, 200);
      assert.equal(deleted.body.status, 'deleted');
      assertProblem(await get(`/graphs/${target}`), 404);
      const history = await get(`/graphs/${target}/history`);
      assert.deepEqual(
        history.body.changes.map((change: { kind: string }) => change.kind),
        ['created', 'deleted'],
      );
      assertProblem(await call(api.base, 'DELETE', `/api/v1/graphs/${target}`), 404);
      assert.ok(!(await get('/graphs')).body.graphs.some((graph: { graph_id: string }) => graph.graph_id === target));
    });
  });
}
