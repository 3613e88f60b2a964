/**
 * Meta endpoints, authentication on and off, problem+json shapes of fastify's own errors, and the
 * documents and doc pages, over a real socket. Liveness and readiness under faults (issue 23, item 3):
 * liveness fails once the lease is lost, readiness while the projector is not following the store and
 * while a sqlite store on a full disk cannot take writes (whose writes answer 503 with `Retry-After`),
 * and the readiness answer never names the database.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../../src/config.js';
import { streams, toAppend } from '../../src/events.js';
import { silentLogger } from '../../src/logger.js';
import { createMemoryEventStore } from '../../infra/eventStore/memoryEventStore.js';
import { buildApp } from '../../infra/http/app.js';
import { notLiveReason } from '../../infra/http/routes/meta.js';
import { checkReadiness } from '../../infra/http/routes/operations.js';
import { openRuntime } from '../../infra/runtime.js';
import { createProjector } from '../../projections/projector.js';
import { createTaskProjection } from '../../projections/taskProjection.js';
import { faultyStore } from '../helpers/faultyStore.js';
import { eventually } from '../helpers/wait.js';
import { postgresSkipReason, storeTarget } from '../scaling/helpers.js';
import { BACKENDS, assertProblem, call, capturingLogger, startApi, type TestApi } from './helpers.js';
import { testTopic } from '../helpers/sampleGraph.js';

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
      // The liveness probe is logged like the other probes: warnings only, not each request.
      assert.ok(api.logs.some((line) => line.includes('/api/v1/version')));
      assert.ok(!api.logs.some((line) => line.includes('/api/v1/health')), 'no info line per liveness probe');
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

describe('liveness (GET /api/v1/health)', () => {
  it("answers 503 not-live once this process's lease was recorded expired by another process, 200 before", async () => {
    const api = await startApi({ env: { LINEAGE_SVC_LEASE_SECONDS: '0.6' } });
    try {
      assert.deepEqual((await call(api.base, 'GET', '/api/v1/health')).body, { status: 'ok' });
      const processId = api.app.lease.identity.processId;
      // What another process's sweep records when this one's lease ran out (it was cut off too long).
      await api.runtime.store.append(
        streams.process(processId),
        toAppend(
          [
            {
              type: 'ProcessLeaseExpired',
              data: { process_id: processId, detected_by: 'another-process', expired_at: new Date().toISOString() },
            },
          ],
          { actor: 'process:another-process', cause: 'system' },
        ),
      );
      const answer = await eventually('liveness to fail', async () => {
        const health = await call(api.base, 'GET', '/api/v1/health');
        return health.status === 503 ? health : undefined;
      });
      const body = assertProblem(answer, 503, /lost its lease/);
      assert.equal(body.type, 'urn:lineage-svc:problem:not-live');
      assert.ok(api.logs.some((line) => line.includes('Health:NotLive')));
    } finally {
      await api.dispose();
    }
  });

  it('names the failed projector as a reason to restart, and nothing while the process can recover by itself', () => {
    assert.match(String(notLiveReason({ projector: { status: 'failed' } })), /projections stopped/);
    for (const status of ['live', 'retrying', 'catching-up', 'stopped'] as const)
      assert.equal(notLiveReason({ projector: { status }, lease: { lost: false } }), undefined, status);
  });
});

const postgresSkip = await postgresSkipReason();

describe('readiness under faults (GET /api/v1/ready)', () => {
  it('fails while the projector retries after a store failure, and passes again once it follows the store', async () => {
    const inner = createMemoryEventStore();
    const faulty = faultyStore(inner);
    const projector = createProjector({
      store: faulty.store,
      projections: [createTaskProjection()],
      retry: { minimumRetryMilliseconds: 10, maximumRetryMilliseconds: 50 },
    });
    await projector.start();
    const deps = { storage: loadConfig({ LINEAGE_SVC_STORAGE__BACKEND: 'memory' }).storage, store: inner, projector };
    try {
      assert.equal((await checkReadiness(deps)).ready, true);
      faulty.down = true;
      await eventually('the projector to retry', () => (projector.status === 'retrying' ? true : undefined));
      const failing = await checkReadiness(deps);
      assert.equal(failing.ready, false);
      assert.equal(failing.checks.store.status, 'ok', 'the store itself answers (another path to it)');
      assert.equal(failing.checks.projections.status, 'failing');
      assert.match(String(failing.checks.projections.message), /not following the store \(projector retrying\)/);
      faulty.down = false;
      await eventually('readiness again', async () => ((await checkReadiness(deps)).ready ? true : undefined));
    } finally {
      await projector.stop();
      await inner.close();
    }
  });

  it('names no user, host, port or database of an unreachable PostgreSQL store', { skip: postgresSkip }, async () => {
    const target = await storeTarget('postgres');
    const config = loadConfig({ ...target.env, LINEAGE_SVC_API_RATE_LIMIT_PER_MINUTE: '0' });
    const logs: string[] = [];
    const runtime = await openRuntime(config, capturingLogger(logs));
    const app = await buildApp({ config, logger: capturingLogger(logs), runtime });
    try {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const address = app.server.address();
      assert.ok(address && typeof address === 'object');
      const base = `http://127.0.0.1:${address.port}`;
      assert.equal((await call(base, 'GET', '/api/v1/ready')).status, 200);
      await runtime.store.close(); // its connections are gone: every query fails, naming the URL
      const answer = await call(base, 'GET', '/api/v1/ready');
      assertProblem(answer, 503, /the store did not answer/);
      const url = new URL(target.env.LINEAGE_SVC_STORAGE__URL!);
      const schema = /search_path=(\w+)/.exec(decodeURIComponent(url.search))?.[1];
      assert.ok(schema, 'the test schema is in the URL');
      // The user as in a URL (`postgres` alone is also the backend's name, which the answer may say).
      for (const secret of [
        url.hostname,
        `:${url.port || 5432}`,
        `${url.username}@`,
        `/${url.pathname.slice(1)}`,
        schema,
      ])
        assert.ok(!answer.text.includes(secret), `the answer names ${secret}: ${answer.text}`);
      assert.ok(
        logs.some((line) => line.includes('Ready:NotReady') && line.includes(url.hostname)),
        'the driver error, with the database, is in the log',
      );
    } finally {
      await app.close();
      await runtime.close();
      await target.remove();
    }
  });

  it('fails while a sqlite store on a full disk cannot take writes (503 with Retry-After), passes once there is room', async (context) => {
    const mountPoint = mkdtempSync(join(tmpdir(), 'lineage-full-disk-'));
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mountPoint], { stdio: 'pipe' });
    } catch (error) {
      rmSync(mountPoint, { recursive: true, force: true });
      const reason = String((error as Error).message).split('\n')[0];
      console.log(`# full-disk readiness test skipped: cannot mount a 2 MiB tmpfs here (${reason})`);
      context.skip(`cannot mount a tmpfs here (${reason})`);
      return;
    }
    const folder = join(mountPoint, 'store');
    mkdirSync(folder);
    const api = await startApi({ backend: 'sqlite', folder });
    try {
      assert.equal((await call(api.base, 'GET', '/api/v1/ready')).status, 200);
      const graphId = (await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'full' } })).body
        .graph_id as string;
      const topic = (name: string, padding: number) => testTopic(name, { padding: 'x'.repeat(padding) });
      const acknowledged: string[] = [];
      let refused;
      for (let index = 0; index < 1_000 && refused === undefined; index += 1) {
        const answer = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/nodes`, {
          json: topic(`t${index}`, 20_000),
        });
        if (answer.status === 201) acknowledged.push(`t${index}`);
        else refused = answer;
      }
      assert.ok(refused, 'the disk filled up');
      assertProblem(refused, 503, /cannot take writes/);
      assert.equal(refused.body.type, 'urn:lineage-svc:problem:storage-failed');
      assert.equal(refused.headers.get('retry-after'), '5');
      const ready = assertProblem(await call(api.base, 'GET', '/api/v1/ready'), 503);
      assert.match(
        String(ready.detail),
        /store: the store cannot take writes: an append failed \d+ s ago \(disk-full, SQLITE_FULL\)/,
      );
      assert.equal((await call(api.base, 'GET', '/api/v1/health')).status, 200, 'liveness is unaffected');

      execFileSync('mount', ['-o', 'remount,size=64m', mountPoint]);
      assert.equal(
        (await call(api.base, 'POST', `/api/v1/graphs/${graphId}/nodes`, { json: topic('after', 10) })).status,
        201,
      );
      assert.equal((await call(api.base, 'GET', '/api/v1/ready')).status, 200);
      const nodes = (await call(api.base, 'GET', `/api/v1/graphs/${graphId}/nodes?limit=2000`)).body.nodes as Array<{
        display_name: string;
      }>;
      assert.deepEqual(
        nodes.map((node) => node.display_name).sort(),
        [...acknowledged, 'after'].sort(),
        'every acknowledged write is kept, and nothing of the refused one',
      );
    } finally {
      await api.dispose();
      try {
        execFileSync('umount', ['-l', mountPoint], { stdio: 'ignore' });
      } finally {
        rmSync(mountPoint, { recursive: true, force: true });
      }
    }
  });
});
