/**
 * Graphs by name (issue "History you can trust", item 7): every `/graphs/{graph_id}` route accepts
 * a graph's unique name as well as its id, answers carry the id, and a second graph cannot take a
 * name in use.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sampleGraph, ids } from '../helpers/sampleGraph.js';
import { call, startApi, type TestApi } from './helpers.js';

describe('graphs addressed by name', () => {
  let api: TestApi;
  let graphId: string;
  before(async () => {
    api = await startApi();
    const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'sales lineage' } });
    assert.equal(created.status, 201, created.text);
    graphId = created.body.graph_id;
    const imported = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import`, { json: sampleGraph() });
    assert.equal(imported.status, 200, imported.text);
  });
  after(async () => api.dispose());

  it('reads, traverses and writes a graph by its name', async () => {
    const name = encodeURIComponent('sales lineage');
    const graph = await call(api.base, 'GET', `/api/v1/graphs/${name}`);
    assert.equal(graph.status, 200, graph.text);
    assert.equal(graph.body.graph_id, graphId);
    assert.equal(graph.body.node_count, sampleGraph().nodes.length);

    const node = await call(api.base, 'GET', `/api/v1/graphs/${name}/nodes/${encodeURIComponent(ids.orders)}`);
    assert.equal(node.status, 200, node.text);
    const downstream = await call(
      api.base,
      'GET',
      `/api/v1/graphs/${name}/query/downstream/${encodeURIComponent(ids.orders)}?depth=2`,
    );
    assert.equal(downstream.status, 200, downstream.text);
    assert.ok(JSON.stringify(downstream.body).includes(ids.enriched));

    const history = await call(api.base, 'GET', `/api/v1/graphs/${name}/history`);
    assert.equal(history.status, 200);
    assert.equal(history.body.graph_id, graphId);

    const deleted = await call(api.base, 'DELETE', `/api/v1/graphs/${name}`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.body.graph_id, graphId);
    assert.equal((await call(api.base, 'GET', `/api/v1/graphs/${name}`)).status, 404);
    // History stays readable by id after the graph is deleted.
    assert.equal((await call(api.base, 'GET', `/api/v1/graphs/${graphId}/history`)).status, 200);
  });

  it('refuses a second graph with a name in use (409 problem+json) and answers 404 for an unknown name', async () => {
    const first = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'orders' } });
    assert.equal(first.status, 201);
    const second = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'orders' } });
    assert.equal(second.status, 409, second.text);
    assert.match(second.headers.get('content-type') ?? '', /application\/problem\+json/);
    assert.match(second.body.detail, /a graph named "orders" exists already/);
    const unknown = await call(api.base, 'GET', '/api/v1/graphs/no-such-graph');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.detail, /no-such-graph/);
  });
});
