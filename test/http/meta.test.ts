/**
 * Meta endpoints, authentication on and off, problem+json shapes of fastify's own errors, and the
 * documents and doc pages, over a real socket.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { BACKENDS, assertProblem, call, startApi, type TestApi } from './helpers.js';

const KEY = 'test-api-key-4c1d9e0f7a';

for (const backend of BACKENDS) {
  describe(`meta, errors and docs (${backend} store, authentication off)`, () => {
    let api: TestApi;
    before(async () => {
      api = await startApi({
        backend,
        env: {
          LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL: 'https://lakehouse.example',
          LINEAGE_SVC_LAKEHOUSE_TOKEN: 'tok-secret',
        },
      });
    });
    after(async () => api.dispose());

    it('answers health, version and catalogs', async () => {
      assert.deepEqual((await call(api.base, 'GET', '/api/v1/health')).body, { status: 'ok' });
      assert.deepEqual((await call(api.base, 'GET', '/api/v1/version')).body, {
        name: 'lineage-svc',
        version: '0.1.0',
      });
      const catalogs = (await call(api.base, 'GET', '/api/v1/catalogs')).body.catalogs as Array<{
        catalog_type: string;
        configured: boolean;
      }>;
      assert.deepEqual(
        catalogs.map((catalog) => catalog.catalog_type),
        ['LAKEHOUSE_CATALOG', 'DATALAKE_CATALOG', 'WAREHOUSE_LINEAGE', 'DATA_GOVERNANCE'],
      );
      assert.deepEqual(
        catalogs.map((catalog) => catalog.configured),
        [true, false, false, false],
      );
      assert.ok(!JSON.stringify(catalogs).includes('tok-secret'));
    });

    it('answers fastify errors as problem+json: unknown route 404, bad JSON 400, media type 415, empty JSON body 400, body too large 413', async () => {
      assertProblem(await call(api.base, 'GET', '/api/v1/nothing-here'), 404, 'no route GET /api/v1/nothing-here');
      assertProblem(
        await call(api.base, 'POST', '/api/v1/graphs', {
          body: '{"name":',
          headers: { 'content-type': 'application/json' },
        }),
        400,
      );
      assertProblem(
        await call(api.base, 'POST', '/api/v1/graphs', {
          body: '<graph/>',
          headers: { 'content-type': 'application/xml' },
        }),
        415,
      );
      assertProblem(
        await call(api.base, 'POST', '/api/v1/graphs', { body: '', headers: { 'content-type': 'application/json' } }),
        400,
      );
      const big = JSON.stringify({ name: 'x'.repeat(11 * 1024 * 1024) });
      assertProblem(
        await call(api.base, 'POST', '/api/v1/graphs', { body: big, headers: { 'content-type': 'application/json' } }),
        413,
      );
      assertProblem(await call(api.base, 'PATCH', '/api/v1/graphs'), 404);
    });

    it('lists every validation problem with its path', async () => {
      const body = assertProblem(await call(api.base, 'GET', '/api/v1/tasks?type=sleep&status=done&limit=-1'), 400);
      const paths = (body.errors as Array<{ path: string; message: string }>).map((error) => error.path).sort();
      assert.deepEqual(paths, ['querystring.limit', 'querystring.status', 'querystring.type']);
      assert.equal(body.type, 'urn:lineage-svc:problem:validation-failed');
    });

    it('serves /openapi.json (3.1, every graph path), /api/v1/openapi.yaml, Swagger UI at /docs and ReDoc at /redoc from the packages', async () => {
      const json = await call(api.base, 'GET', '/openapi.json');
      assert.equal(json.status, 200);
      assert.equal(json.body.openapi, '3.1.0');
      for (const path of [
        '/api/v1/health',
        '/api/v1/graphs',
        '/api/v1/graphs/{graph_id}',
        '/api/v1/graphs/{graph_id}/import',
        '/api/v1/graphs/{graph_id}/nodes/{node_id}',
        '/api/v1/graphs/{graph_id}/query/upstream/{node_id}',
        '/api/v1/graphs/{graph_id}/history',
        '/api/v1/graphs/{graph_id}/diff',
        '/api/v1/tasks/extract',
        '/api/v1/tasks/{task_id}',
      ]) {
        assert.ok(json.body.paths[path], `missing ${path}`);
      }
      assert.ok(json.body.components.schemas.Problem);
      assert.ok(json.body.components.schemas.Node);
      const yaml = await call(api.base, 'GET', '/api/v1/openapi.yaml');
      assert.equal(yaml.status, 200);
      assert.match(yaml.type, /yaml/);
      assert.deepEqual(Object.keys(parseYaml(yaml.text).paths).sort(), Object.keys(json.body.paths).sort());
      const docs = await call(api.base, 'GET', '/docs');
      assert.equal(docs.status, 200);
      assert.match(docs.text, /swagger-ui/i);
      assert.doesNotMatch(docs.text, /https?:\/\/(cdn|unpkg|cdnjs)/);
      const redoc = await call(api.base, 'GET', '/redoc');
      assert.match(redoc.text, /<redoc spec-url="\/openapi.json">/);
      assert.doesNotMatch(redoc.text, /https?:\/\//);
      const bundle = await fetch(`${api.base}/redoc/redoc.standalone.js`);
      assert.equal(bundle.status, 200);
      assert.ok((await bundle.text()).length > 100_000);
    });
  });
}

describe('authentication on (LINEAGE_SVC_API_KEY set)', () => {
  let api: TestApi;
  before(async () => {
    api = await startApi({ env: { LINEAGE_SVC_API_KEY: KEY } });
  });
  after(async () => api.dispose());

  it('keeps GET /api/v1/health and the doc pages open', async () => {
    assert.equal((await call(api.base, 'GET', '/api/v1/health')).status, 200);
    for (const path of ['/openapi.json', '/docs', '/redoc'])
      assert.equal((await call(api.base, 'GET', path)).status, 200, path);
  });

  it('answers 403 "API key is missing" without the header, on known and unknown routes', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/graphs'],
      ['GET', '/api/v1/version'],
      ['GET', '/api/v1/openapi.yaml'],
      ['POST', '/api/v1/tasks/extract?environment_ids=env-1'],
      ['GET', '/api/v1/no-such-route'],
    ] as const) {
      assertProblem(await call(api.base, method, path), 403, 'API key is missing');
    }
    assertProblem(await call(api.base, 'POST', '/api/v1/health'), 403, 'API key is missing');
  });

  it('answers 403 "API key is invalid" with a wrong key (shorter, longer, same length)', async () => {
    for (const wrong of ['x', `${KEY}x`, KEY.replace(/.$/, 'Z')]) {
      assertProblem(
        await call(api.base, 'GET', '/api/v1/graphs', { headers: { 'x-api-key': wrong } }),
        403,
        'API key is invalid',
      );
    }
  });

  it('lets the right key through, and never logs it', async () => {
    const answer = await call(api.base, 'GET', '/api/v1/graphs', { headers: { 'x-api-key': KEY } });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { graphs: [] });
    api.app.log.info({ req: { headers: { 'x-api-key': KEY } } }, 'Test:HeadersLogged');
    assert.ok(api.logs.length > 0);
    assert.ok(api.logs.every((line) => !line.includes(KEY)));
  });
});
