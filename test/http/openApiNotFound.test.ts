/**
 * Unknown routes (`infra/http/problem.ts`): a node id sent with its `/` unencoded answers 404
 * problem+json whose detail says to percent-encode ids and shows the path as it should be; other
 * unknown routes keep the plain "no route" detail. Over a real socket, and `percentEncodingHint` on
 * its own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { percentEncodingHint, routePattern, type RoutePattern } from '../../infra/http/problem.js';
import { assertProblem, call, startApi, type TestApi } from './helpers.js';

const NODE_ID = 'stream:topic:env-1:lkc-1/orders';

describe('route not found', () => {
  let api: TestApi;
  before(async () => {
    api = await startApi({ backend: 'memory' });
  });
  after(async () => api.dispose());

  it('says to percent-encode a node id that holds a slash', async () => {
    const body = assertProblem(await call(api.base, 'GET', `/api/v1/graphs/g1/nodes/${NODE_ID}`), 404);
    assert.equal(body.type, 'urn:lineage-svc:problem:route-not-found');
    assert.match(String(body.detail), /^no route GET \/api\/v1\/graphs\/g1\/nodes\/stream:topic:env-1:lkc-1\/orders: /);
    assert.match(String(body.detail), /the node_id "stream:topic:env-1:lkc-1\/orders" holds a "\/"/);
    assert.match(String(body.detail), /encodeURIComponent/);
    assert.ok(String(body.detail).endsWith(`GET /api/v1/graphs/g1/nodes/${encodeURIComponent(NODE_ID)}`));
  });

  it('names the right parameter on deeper routes (traversals, metrics) and other methods', async () => {
    const traversal = assertProblem(
      await call(api.base, 'GET', `/api/v1/graphs/g1/query/upstream/${NODE_ID}?hops=2`),
      404,
    );
    assert.match(
      String(traversal.detail),
      /the node_id ".*" holds a "\/".*query\/upstream\/stream%3Atopic%3Aenv-1%3Alkc-1%2Forders$/,
    );
    const metrics = assertProblem(await call(api.base, 'GET', `/api/v1/graphs/g1/nodes/${NODE_ID}/metrics`), 404);
    assert.match(String(metrics.detail), /nodes\/stream%3Atopic%3Aenv-1%3Alkc-1%2Forders\/metrics$/);
  });

  it('keeps the plain answer for other unknown routes', async () => {
    assertProblem(await call(api.base, 'GET', '/api/v1/nothing-here'), 404, 'no route GET /api/v1/nothing-here');
    assertProblem(
      await call(api.base, 'GET', '/api/v1/graphs/g1/nodes/a/b'),
      404,
      'no route GET /api/v1/graphs/g1/nodes/a/b',
    );
    assertProblem(await call(api.base, 'PATCH', `/api/v1/graphs/g1/nodes/${NODE_ID}`), 404);
  });
});

describe('percentEncodingHint', () => {
  const routes = [
    ['GET', '/api/v1/graphs/:graph_id'],
    ['GET', '/api/v1/graphs/:graph_id/nodes/:node_id'],
    ['GET', '/static/*'],
  ]
    .map(([method, url]) => routePattern(method!, url!))
    .filter((route): route is RoutePattern => route !== undefined);

  it('prefers the route matched with the fewest extra segments, and decodes what was encoded', () => {
    const hint = percentEncodingHint('GET', '/api/v1/graphs/g1/nodes/stream%3Atopic%3Ax/y', routes);
    assert.match(String(hint), /^the node_id "stream:topic:x\/y" holds a "\/"/);
    assert.equal(percentEncodingHint('HEAD', '/api/v1/graphs/g1/nodes/a:b/c', routes)?.includes('node_id'), true);
  });

  it('gives no hint without a colon, for another method, or for a path that matches no route', () => {
    assert.equal(percentEncodingHint('GET', '/api/v1/graphs/g1/nodes/a/b', routes), undefined);
    assert.equal(percentEncodingHint('POST', '/api/v1/graphs/g1/nodes/a:b/c', routes), undefined);
    assert.equal(percentEncodingHint('GET', '/api/v2/graphs/g1/nodes/a:b/c', routes), undefined);
  });

  it('handles a path of thousands of segments', () => {
    const path = `/api/v1/graphs/g1/nodes/${'a:b/'.repeat(4000)}c`;
    assert.match(String(percentEncodingHint('GET', path, routes)), /node_id/);
  });
});
