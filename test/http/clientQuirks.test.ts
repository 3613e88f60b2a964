/**
 * Requests that generated clients and old graph files send (issue 28, item 4), against a real API on
 * an ephemeral port:
 *
 * - `POST /graphs/{id}/import` of a graph written before 0.5.0 (a per-catalog table type such as
 *   `UC_TABLE`) answers 400 with the message that names the offending node, as the graph-file paths
 *   do, not the list of the node types the schema allows;
 * - a `DELETE` with `Content-Type: application/json` and no body (what generated clients send) is
 *   served like one without that header, not refused as an empty JSON body.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, startApi, type TestApi } from './helpers.js';

describe('requests of generated clients and old graph files', () => {
  let api: TestApi;
  before(async () => {
    api = await startApi();
  });
  after(async () => api.dispose());

  it('answers a pre-0.5 graph import with the message that names the offending node (400)', async () => {
    const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'old-file' } });
    assert.equal(created.status, 201);
    const graphId = created.body.graph_id as string;
    const answer = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import`, {
      json: {
        nodes: [
          {
            id: 'uc:main.sales.orders',
            node_type: 'UC_TABLE',
            system: 'LAKEHOUSE',
            qualified_name: 'main.sales.orders',
            display_name: 'orders',
          },
        ],
        edges: [],
      },
    });
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.match(
      String(answer.body.detail),
      /predates 0\.5\.0: node "uc:main\.sales\.orders" has node type "UC_TABLE"/,
    );
    assert.doesNotMatch(JSON.stringify(answer.body), /CATALOG_TABLE.*STREAM_JOB|Invalid (enum|option)/);
  });

  it('serves a DELETE with Content-Type: application/json and no body like one without that header', async () => {
    for (const headers of [
      { 'content-type': 'application/json' },
      { 'content-type': 'application/json; charset=utf-8' },
    ]) {
      const created = await call(api.base, 'POST', '/api/v1/graphs', { json: {} });
      assert.equal(created.status, 201);
      const answer = await call(api.base, 'DELETE', `/api/v1/graphs/${created.body.graph_id}`, { headers });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const gone = await call(api.base, 'GET', `/api/v1/graphs/${created.body.graph_id}`);
      assert.equal(gone.status, 404);
    }
  });

  it('still refuses an empty JSON body where a body is required (400 problem+json)', async () => {
    const created = await call(api.base, 'POST', '/api/v1/graphs', { json: {} });
    const answer = await call(api.base, 'POST', `/api/v1/graphs/${created.body.graph_id}/nodes`, {
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/);
  });
});
