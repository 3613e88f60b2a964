/**
 * Operational endpoints over real sockets (127.0.0.1, ephemeral ports): readiness (`GET
 * /api/v1/ready`) answering 200, then 503 problem+json when the store cannot take writes or the
 * projections stop following it; Prometheus metrics (`GET /metrics`) read by a strict parser of the
 * text format, counting requests and the events the projector applies; CORS headers only when
 * `LINEAGE_SVC_API_CORS_ORIGINS` is set; and `.env` loading by the commands.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadEnvFile } from '../../commands/environment.js';
import { streams, toAppend, type LineageEvent } from '../../src/events.js';
import { parsePrometheusText, samples, valueOf } from './prometheus.js';
import { assertProblem, call, startApi, type TestApi } from './helpers.js';

const KEY = 'ops-test-key-5e6f7a8b';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Appends `events` to `stream` and waits until the API's projections have applied them. */
async function record(api: TestApi, stream: string, events: LineageEvent[]): Promise<void> {
  const result = await api.runtime.store.append(stream, toAppend(events, { actor: 'cli', cause: 'extraction' }));
  await api.runtime.projector.waitFor(result.position);
}

async function scrape(api: TestApi, headers: Record<string, string> = {}) {
  const answer = await call(api.base, 'GET', '/metrics', { headers });
  assert.equal(answer.status, 200, answer.text);
  assert.match(answer.type, /^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(answer.text);
}

describe('GET /api/v1/ready', () => {
  it('answers 200 with the checks on a sqlite store, then 503 problem+json once the store is closed', async () => {
    const api = await startApi({ backend: 'sqlite' });
    try {
      await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'ready' } });
      const head = await api.runtime.store.headPosition();
      await api.runtime.projector.waitFor(head);
      assert.ok(head >= 1);
      const ready = await call(api.base, 'GET', '/api/v1/ready');
      assert.equal(ready.status, 200, ready.text);
      assert.deepEqual(ready.body, {
        status: 'ready',
        checks: {
          store: { status: 'ok', backend: 'sqlite', head_position: head, folder: api.folder },
          projections: { status: 'ok', position: head, head_position: head, lag: 0 },
        },
      });

      await api.runtime.store.close(); // a store that can no longer be reached
      const body = assertProblem(
        await call(api.base, 'GET', '/api/v1/ready'),
        503,
        /^store: the store's head position/,
      );
      assert.equal(body.type, 'urn:lineage-svc:problem:not-ready');
      assert.equal(body.title, 'Service Unavailable');
      const checks = body.checks as Record<string, Record<string, unknown>>;
      assert.equal(checks.store!.status, 'failing');
      assert.match(String(checks.store!.message), /the store did not answer/);
      assert.doesNotMatch(String(checks.store!.message), /sqlite|events\.sqlite/, "the driver's error is only logged");
      assert.equal(checks.store!.head_position, null);
      assert.equal(checks.projections!.status, 'skipped');
      assert.deepEqual(
        (await call(api.base, 'GET', '/api/v1/health')).body,
        { status: 'ok' },
        'liveness is unaffected',
      );
    } finally {
      await api.dispose();
    }
  });

  it('answers 503 naming the folder when the storage folder of a sqlite store is gone', async () => {
    const api = await startApi({ backend: 'sqlite' });
    try {
      assert.equal((await call(api.base, 'GET', '/api/v1/ready')).status, 200);
      rmSync(api.folder, { recursive: true, force: true }); // e.g. the volume was unmounted under the process
      const body = assertProblem(await call(api.base, 'GET', '/api/v1/ready'), 503);
      assert.match(String(body.detail), new RegExp(`storage folder "${api.folder}" is not writable \\(ENOENT\\)`));
    } finally {
      await api.dispose();
    }
  });

  it(
    'answers 503 when the sqlite folder is made read-only',
    { skip: process.getuid?.() === 0 ? 'running as root, which may write to read-only folders' : false },
    async () => {
      const api = await startApi({ backend: 'sqlite' });
      try {
        assert.equal((await call(api.base, 'GET', '/api/v1/ready')).status, 200);
        chmodSync(api.folder, 0o555);
        const body = assertProblem(await call(api.base, 'GET', '/api/v1/ready'), 503);
        assert.match(String(body.detail), /is not writable \(EACCES\)/);
      } finally {
        chmodSync(api.folder, 0o755);
        await api.dispose();
      }
    },
  );

  it('answers 503 with the lag when the projections stop following the store', async () => {
    const api = await startApi({ backend: 'sqlite' });
    try {
      await api.runtime.projector.stop(); // as after a failed subscription
      const stoppedAt = api.runtime.projector.position;
      await api.runtime.store.append(
        streams.graph('g-lag'),
        toAppend([{ type: 'GraphCreated', data: { graph_id: 'g-lag', name: 'lag', description: null } }], {
          actor: 'cli',
        }),
      );
      const body = assertProblem(
        await call(api.base, 'GET', '/api/v1/ready'),
        503,
        /^projections: the projections are \d+ positions behind the store head .* did not catch up within 2000 ms$/,
      );
      const checks = body.checks as Record<string, Record<string, number | string>>;
      assert.equal(checks.store!.status, 'ok');
      const projections = checks.projections!;
      assert.equal(projections.status, 'failing');
      assert.equal(projections.position, stoppedAt);
      assert.equal(projections.head_position, checks.store!.head_position);
      assert.ok(Number(projections.lag) >= 1 && projections.lag === Number(projections.head_position) - stoppedAt);
    } finally {
      await api.dispose();
    }
  });

  it('stays open, like /health and /metrics, when API-key authentication is on', async () => {
    const api = await startApi({ env: { LINEAGE_SVC_API_KEY: KEY } });
    try {
      assert.equal((await call(api.base, 'GET', '/api/v1/ready')).status, 200);
      assert.equal((await call(api.base, 'GET', '/metrics')).status, 200);
      assertProblem(await call(api.base, 'GET', '/api/v1/version'), 403, 'API key is missing');
    } finally {
      await api.dispose();
    }
  });

  it('is described in the OpenAPI document beside /health, as is /metrics', async () => {
    const api = await startApi();
    try {
      const paths = (await call(api.base, 'GET', '/openapi.json')).body.paths as Record<
        string,
        Record<string, unknown>
      >;
      for (const path of ['/api/v1/health', '/api/v1/ready', '/metrics']) assert.ok(paths[path]?.get, path);
      const responses = (paths['/api/v1/ready']!.get as { responses: Record<string, unknown> }).responses;
      assert.deepEqual(Object.keys(responses).sort(), ['200', '503']);
    } finally {
      await api.dispose();
    }
  });
});

describe('GET /metrics', () => {
  let api: TestApi;
  before(async () => {
    api = await startApi({ backend: 'sqlite' });
  });
  after(async () => api.dispose());

  it('parses as Prometheus text and counts requests by method, route pattern and status', async () => {
    await call(api.base, 'GET', '/api/v1/graphs');
    await call(api.base, 'GET', '/api/v1/graphs');
    await call(api.base, 'GET', '/api/v1/graphs/00000000-0000-4000-8000-000000000000');
    await call(api.base, 'GET', '/no/such/path');
    const families = await scrape(api);
    const name = 'lineage_svc_http_request_duration_seconds_count';
    assert.equal(valueOf(families, name, { method: 'GET', route: '/api/v1/graphs', status_code: '200' }), 2);
    assert.equal(valueOf(families, name, { method: 'GET', route: '/api/v1/graphs/:graph_id', status_code: '404' }), 1);
    assert.equal(valueOf(families, name, { method: 'GET', route: 'unmatched', status_code: '404' }), 1);
    assert.equal(families.get('lineage_svc_http_request_duration_seconds')?.type, 'histogram');
    assert.ok(families.get('process_cpu_user_seconds_total'), 'process metrics are exposed too');
  });

  it('counts appended events, extractions, platform requests, OpenLineage ingests and watchers from the projector', async () => {
    const before = await scrape(api);
    const appendedBefore = samples(before, 'lineage_svc_store_appended_events_total').reduce(
      (sum, s) => sum + s.value,
      0,
    );
    const extraction = (id: string) => ({ extraction_id: id, graph_id: 'g-metrics' });
    await record(api, streams.extraction('x1'), [
      {
        type: 'ExtractionStarted',
        data: { ...extraction('x1'), environment_ids: ['env-1'], cluster_ids: [], enable_metrics: false },
      },
      {
        type: 'ExtractionCompleted',
        data: {
          ...extraction('x1'),
          node_count: 3,
          edge_count: 2,
          changes: {
            nodes_added: 3,
            nodes_changed: 0,
            nodes_removed: 0,
            edges_added: 2,
            edges_changed: 0,
            edges_removed: 0,
          },
          graph_revision: 4,
          warnings: [],
          requests: { 'kafka-rest.topics': 3, 'connect.connectors': 2 },
          duration_ms: 1_500,
        },
      },
    ]);
    await record(api, streams.extraction('x2'), [
      { type: 'ExtractionFailed', data: { ...extraction('x2'), error: 'boom', warnings: [], duration_ms: 250 } },
    ]);
    await record(api, streams.watcher('w1'), [
      {
        type: 'WatcherStarted',
        data: {
          watcher_id: 'w1',
          environment_ids: ['env-1'],
          cluster_ids: [],
          cooldown_seconds: 30,
          poll_interval_seconds: 10,
          push: [],
        },
      },
    ]);
    const ingested = await call(api.base, 'POST', '/api/v1/lineage', {
      json: {
        eventType: 'COMPLETE',
        eventTime: '2026-02-01T10:00:00.000Z',
        producer: 'https://example.com/producer',
        schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
        run: { runId: '01940000-0000-7000-8000-000000000001' },
        job: { namespace: 'spark', name: 'metrics-job' },
        inputs: [],
        outputs: [],
      },
    });
    assert.equal(ingested.status, 200, ingested.text);

    const families = await scrape(api);
    assert.equal(valueOf(families, 'lineage_svc_extraction_duration_seconds_count', { outcome: 'completed' }), 1);
    assert.equal(valueOf(families, 'lineage_svc_extraction_duration_seconds_sum', { outcome: 'completed' }), 1.5);
    assert.equal(valueOf(families, 'lineage_svc_extraction_duration_seconds_sum', { outcome: 'failed' }), 0.25);
    assert.equal(valueOf(families, 'lineage_svc_extraction_platform_requests_total', { api: 'kafka-rest.topics' }), 3);
    assert.equal(valueOf(families, 'lineage_svc_extraction_platform_requests_total', { api: 'connect.connectors' }), 2);
    assert.equal(valueOf(families, 'lineage_svc_openlineage_events_ingested_total', { kind: 'RunEvent' }), 1);
    assert.equal(valueOf(families, 'lineage_svc_openlineage_events_ingested_total', { kind: 'JobEvent' }), 0);
    assert.equal(valueOf(families, 'lineage_svc_watchers', { state: 'WATCHING' }), 1);
    assert.equal(valueOf(families, 'lineage_svc_watchers', { state: 'STOPPED' }), 0);
    assert.equal(valueOf(families, 'lineage_svc_store_appended_events_total', { type: 'ExtractionCompleted' }), 1);
    const appended = samples(families, 'lineage_svc_store_appended_events_total').reduce((sum, s) => sum + s.value, 0);
    const head = await api.runtime.store.headPosition();
    assert.equal(appended - appendedBefore, head - valueOf(before, 'lineage_svc_store_head_position'));
    assert.equal(valueOf(families, 'lineage_svc_store_head_position'), head);
    assert.equal(valueOf(families, 'lineage_svc_projection_position'), head);
    assert.equal(valueOf(families, 'lineage_svc_projection_lag'), 0);
  });

  it('counts the events replayed at start after a restart on the same store, and only the later ones as appended', async () => {
    const head = await api.runtime.store.headPosition();
    assert.ok(head > 0);
    await api.close();
    const restarted = await startApi({ backend: 'sqlite', folder: api.folder });
    try {
      await restarted.runtime.projector.waitFor(await restarted.runtime.store.headPosition());
      const families = await scrape(restarted);
      const replayed = valueOf(families, 'lineage_svc_projection_replayed_events_total');
      assert.ok(replayed >= head, `replayed ${replayed} of the ${head} events stored before the restart`);
      // Whatever the restarted API appended itself after catching up (e.g. recording the watcher left
      // running as stopped) is counted as appended; nothing is counted twice.
      const appended = samples(families, 'lineage_svc_store_appended_events_total').reduce(
        (sum, s) => sum + s.value,
        0,
      );
      assert.equal(replayed + appended, valueOf(families, 'lineage_svc_projection_position'));
    } finally {
      await restarted.close();
    }
  });
});

describe('CORS', () => {
  const ORIGIN = 'https://lineage-ui.example.com';

  it('sends no CORS header when LINEAGE_SVC_API_CORS_ORIGINS is unset', async () => {
    const api = await startApi();
    try {
      const answer = await call(api.base, 'GET', '/api/v1/graphs', { headers: { origin: ORIGIN } });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('access-control-allow-origin'), null);
      const preflight = await call(api.base, 'OPTIONS', '/api/v1/graphs', {
        headers: { origin: ORIGIN, 'access-control-request-method': 'POST' },
      });
      assert.equal(preflight.headers.get('access-control-allow-origin'), null);
      assertProblem(preflight, 404);
    } finally {
      await api.dispose();
    }
  });

  it('allows the configured origins only, and answers preflights without the API key', async () => {
    const api = await startApi({
      env: { LINEAGE_SVC_API_CORS_ORIGINS: `${ORIGIN}/, http://localhost:5173`, LINEAGE_SVC_API_KEY: KEY },
    });
    try {
      assert.deepEqual(api.config.api.corsOrigins, [ORIGIN, 'http://localhost:5173']);
      const allowed = await call(api.base, 'GET', '/api/v1/graphs', { headers: { origin: ORIGIN, 'x-api-key': KEY } });
      assert.equal(allowed.status, 200);
      assert.equal(allowed.headers.get('access-control-allow-origin'), ORIGIN);
      const other = await call(api.base, 'GET', '/api/v1/graphs', {
        headers: { origin: 'https://elsewhere.example.com', 'x-api-key': KEY },
      });
      assert.equal(other.headers.get('access-control-allow-origin'), null);
      const preflight = await call(api.base, 'OPTIONS', '/api/v1/graphs/abc', {
        headers: {
          origin: ORIGIN,
          'access-control-request-method': 'DELETE',
          'access-control-request-headers': 'x-api-key',
        },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), ORIGIN);
      assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /\bDELETE\b/);
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /x-api-key/i);
      const refused = await call(api.base, 'GET', '/api/v1/graphs', { headers: { origin: ORIGIN } });
      assertProblem(refused, 403, 'API key is missing');
      assert.equal(refused.headers.get('access-control-allow-origin'), ORIGIN, 'the browser may read the error');
    } finally {
      await api.dispose();
    }
  });

  it('rejects origins that are not scheme://host[:port]', async () => {
    await assert.rejects(
      startApi({ env: { LINEAGE_SVC_API_CORS_ORIGINS: 'lineage-ui.example.com/path' } }),
      /LINEAGE_SVC_API_CORS_ORIGINS must be \*/,
    );
  });
});

describe('.env files', () => {
  let folder: string;
  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'lineage-env-'));
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  it('sets the variables of the file that the environment does not have, and keeps the real ones', () => {
    const path = join(folder, 'settings.env');
    writeFileSync(
      path,
      '# settings\nLINEAGE_SVC_API_PORT=9100\nexport LINEAGE_SVC_LOG_LEVEL="DEBUG"\nLINEAGE_SVC_API_KEY=from-file\n',
    );
    const env: Record<string, string | undefined> = {
      LINEAGE_SVC_API_KEY: 'from-environment',
      LINEAGE_SVC_API_HOST: '',
    };
    const result = loadEnvFile(path, env);
    assert.deepEqual(result, { path, found: true, applied: ['LINEAGE_SVC_API_PORT', 'LINEAGE_SVC_LOG_LEVEL'] });
    assert.deepEqual(env, {
      LINEAGE_SVC_API_KEY: 'from-environment',
      LINEAGE_SVC_API_HOST: '',
      LINEAGE_SVC_API_PORT: '9100',
      LINEAGE_SVC_LOG_LEVEL: 'DEBUG',
    });
  });

  it('accepts an absent file and refuses one that cannot be read', () => {
    assert.deepEqual(loadEnvFile(join(folder, 'absent.env'), {}), {
      path: join(folder, 'absent.env'),
      found: false,
      applied: [],
    });
    mkdirSync(join(folder, 'a-folder.env'));
    assert.throws(() => loadEnvFile(join(folder, 'a-folder.env'), {}), /cannot read .*a-folder\.env: EISDIR/);
  });

  it('is read by a command from its working directory, after the real environment', () => {
    const cwd = mkdtempSync(join(folder, 'command-'));
    writeFileSync(join(cwd, '.env'), 'LINEAGE_SVC_LOG_LEVEL=LOUD\nLINEAGE_SVC_STORAGE__BACKEND=bogus\n');
    const run = (env: Record<string, string>) =>
      spawnSync(
        process.execPath,
        ['--import', import.meta.resolve('tsx'), join(ROOT, 'commands/extract.ts'), '--env', 'env-1'],
        { cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      );
    const fromFile = run({});
    assert.equal(fromFile.status, 2, fromFile.stderr);
    assert.match(fromFile.stderr, /LINEAGE_SVC_LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR \(got "LOUD"\)/);
    assert.match(fromFile.stderr, /LINEAGE_SVC_STORAGE__BACKEND must be one of/);
    const overridden = run({ LINEAGE_SVC_LOG_LEVEL: 'ERROR' });
    assert.equal(overridden.status, 2, overridden.stderr);
    assert.doesNotMatch(overridden.stderr, /LINEAGE_SVC_LOG_LEVEL/);
    assert.match(overridden.stderr, /LINEAGE_SVC_STORAGE__BACKEND must be one of/);
  });
});
