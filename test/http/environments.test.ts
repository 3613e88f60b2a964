/**
 * `GET /api/v1/environments` (issue 27): the platform's environments from the Confluent Cloud
 * simulator (every page of `GET /org/v2/environments`), each with the graphs holding it; the platform
 * asked once per cache period whoever calls; problem+json 503 without credentials or without an
 * answer, 502 when the platform refuses the key. The service's cache is driven by a moved clock.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createPlatformApi } from '../../infra/confluent/platformApi.js';
import {
  createEnvironmentCatalog,
  ENVIRONMENTS_CACHE_MILLISECONDS,
  ENVIRONMENTS_FAILURE_CACHE_MILLISECONDS,
  type EnvironmentCatalogContext,
} from '../../services/environments.js';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import { loadConfig } from '../../src/config.js';
import { PlatformUnavailableError } from '../../src/errors.js';
import { PlatformApiError } from '../../src/extraction/port.js';
import { cliEnv, PROD } from '../extraction/helpers.js';
import { fakePlatform } from '../extraction/fakePlatform.js';
import { ENV, sampleGraph } from '../helpers/sampleGraph.js';
import { assertProblem, call, startApi, type TestApi } from './helpers.js';

/** The `LINEAGE_SVC_*` variables that point the API at `sim`. */
const clientEnv = (sim: PlatformSimulator) =>
  Object.fromEntries(Object.entries(cliEnv(sim)).filter(([name]) => name.startsWith('LINEAGE_SVC_')));

/** Imports the sample graph (environment `ENV`) into a new graph named `name`; answers its id. */
async function importSample(api: TestApi, name: string): Promise<string> {
  const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name } });
  assert.equal(created.status, 201, created.text);
  const imported = await call(api.base, 'POST', `/api/v1/graphs/${created.body.graph_id}/import`, {
    json: sampleGraph(),
  });
  assert.equal(imported.status, 200, imported.text);
  return created.body.graph_id;
}

describe('GET /api/v1/environments against the platform simulator', () => {
  let sim: PlatformSimulator;
  let api: TestApi;
  before(async () => {
    sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
    // More environments than a page (100): the listing follows the platform's pages.
    sim.mutate((draft) => {
      const bare = (id: string, display_name: string) =>
        ({
          id,
          display_name,
          kafka_clusters: [],
          ksqldb_clusters: [],
        }) as unknown as (typeof draft.environments)[number];
      draft.environments.push(bare(ENV, 'sample'));
      for (let index = 0; index < 120; index++)
        draft.environments.push(
          bare(`env-page${String(index).padStart(3, '0')}`, `paged ${String(index).padStart(3, '0')}`),
        );
    });
    api = await startApi({ env: clientEnv(sim) });
  });
  after(async () => {
    await api?.dispose();
    await sim?.close();
  });

  it('lists every environment of every page with its display name and graphs, asking the platform once', async () => {
    const firstGraph = await importSample(api, 'first');
    sim.resetRequestLog();
    const answer = await call(api.base, 'GET', '/api/v1/environments');
    assert.equal(answer.status, 200, answer.text);
    const environments = answer.body.environments as { id: string; display_name: string; graph_ids: string[] }[];
    assert.equal(answer.body.total, environments.length);
    assert.equal(environments.length, sim.scenario.environments.length);
    assert.ok(environments.length > 100, 'more than one page');
    const byId = new Map(environments.map((environment) => [environment.id, environment]));
    assert.deepEqual(byId.get(ENV), { id: ENV, display_name: 'sample', graph_ids: [firstGraph] });
    assert.deepEqual(byId.get(PROD)?.graph_ids, [], 'never extracted: no graph');
    assert.equal(byId.get(PROD)?.display_name, 'retail-prod');
    assert.ok(!Number.isNaN(Date.parse(answer.body.listed_at)));
    const names = environments.map((environment) => environment.display_name);
    assert.deepEqual(
      names,
      [...names].sort((a, b) => a.localeCompare(b)),
      'sorted by display name',
    );
    const pages = sim.requestCounts()['org.environments'];
    assert.equal(pages, 2, 'two pages of 100');

    // Asked again: the platform is not (the cache), the graphs are (a new graph of ENV shows at once).
    const secondGraph = await importSample(api, 'second');
    const again = await call(api.base, 'GET', '/api/v1/environments');
    assert.equal(again.status, 200, again.text);
    assert.equal(sim.requestCounts()['org.environments'], pages, 'answered from the cache');
    const sample = (again.body.environments as { id: string; graph_ids: string[] }[]).find((item) => item.id === ENV);
    assert.deepEqual(new Set(sample?.graph_ids), new Set([firstGraph, secondGraph]));
  });
});

describe('GET /api/v1/environments when the platform cannot be asked', () => {
  it('answers 503 problem+json naming the variables when no cloud credentials are set', async () => {
    const api = await startApi();
    try {
      const body = assertProblem(
        await call(api.base, 'GET', '/api/v1/environments'),
        503,
        /LINEAGE_SVC_STREAM_CLOUD_API_KEY and LINEAGE_SVC_STREAM_CLOUD_API_SECRET/,
      );
      assert.equal(body.type, 'urn:lineage-svc:problem:platform-not-configured');
    } finally {
      await api.dispose();
    }
  });

  it('answers 502 problem+json, without the secret, when the platform refuses the cloud key', async () => {
    const sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
    const secret = 'not-the-secret-of-the-scenario';
    const api = await startApi({ env: { ...clientEnv(sim), LINEAGE_SVC_STREAM_CLOUD_API_SECRET: secret } });
    try {
      const answer = await call(api.base, 'GET', '/api/v1/environments');
      const body = assertProblem(answer, 502, /org\.environments/);
      assert.equal(body.type, 'urn:lineage-svc:problem:platform-failed');
      assert.ok(!answer.text.includes(secret));
      assert.ok(!answer.text.includes(sim.scenario.credentials.cloud.secret));
    } finally {
      await api.dispose();
      await sim.close();
    }
  });
});

describe('the environment catalog (services/environments.ts)', () => {
  const config = loadConfig({
    LINEAGE_SVC_STREAM_CLOUD_API_KEY: 'KEY',
    LINEAGE_SVC_STREAM_CLOUD_API_SECRET: 'SECRET',
  });
  const runtime = { graphs: { list: () => [] } } as unknown as EnvironmentCatalogContext['runtime'];

  it('answers 503 PLATFORM_UNREACHABLE when nothing listens at the cloud API URL', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const closed = loadConfig({
      LINEAGE_SVC_STREAM_CLOUD_API_URL: `http://127.0.0.1:${port}`,
      LINEAGE_SVC_STREAM_CLOUD_API_KEY: 'KEY',
      LINEAGE_SVC_STREAM_CLOUD_API_SECRET: 'SECRET',
    });
    const catalog = createEnvironmentCatalog({
      config: closed,
      runtime,
      platform: () => createPlatformApi(closed.stream, { retryBaseDelayMs: 1, rateLimit: false }),
    });
    await assert.rejects(catalog.list(), (error: unknown) => {
      assert.ok(error instanceof PlatformUnavailableError);
      assert.equal(error.status, 503);
      assert.equal(error.code, 'PLATFORM_UNREACHABLE');
      assert.ok(!error.message.includes('SECRET'));
      return true;
    });
  });

  it('reuses a listing for the cache period and a failure for the shorter one, sharing a listing under way', async () => {
    let clock = 1_000_000;
    let failing = true;
    const platform = fakePlatform({
      listEnvironments: () => {
        if (failing) throw new PlatformApiError('org.environments', 'retries_exhausted', 503, 'org.environments: down');
        return [{ id: 'env-b', display_name: 'beta' }, { id: 'env-a', display_name: 'alpha' }, { id: 'env-c' }];
      },
    });
    const catalog = createEnvironmentCatalog({ config, runtime, platform: () => platform }, { now: () => clock });
    await assert.rejects(catalog.list(), { code: 'PLATFORM_UNREACHABLE' });
    failing = false;
    await assert.rejects(catalog.list(), { code: 'PLATFORM_UNREACHABLE' }, 'the failure is reused');
    assert.equal(platform.callsOf('org.environments').length, 1);
    clock += ENVIRONMENTS_FAILURE_CACHE_MILLISECONDS;
    const [first, second] = await Promise.all([catalog.list(), catalog.list()]);
    assert.equal(platform.callsOf('org.environments').length, 2, 'two callers, one listing');
    assert.deepEqual(first, second);
    assert.deepEqual(
      first.environments.map((environment) => [environment.id, environment.display_name]),
      [
        ['env-a', 'alpha'],
        ['env-b', 'beta'],
        ['env-c', null],
      ],
    );
    clock += ENVIRONMENTS_CACHE_MILLISECONDS - 1;
    await catalog.list();
    assert.equal(platform.callsOf('org.environments').length, 2, 'still cached');
    clock += 1;
    await catalog.list();
    assert.equal(platform.callsOf('org.environments').length, 3, 'asked again once the cache expired');
  });
});
