/**
 * Task endpoints over a real socket: with an injected fast runner (memory and sqlite), a failing
 * runner, the real runner without credentials (accepted, then failed naming the cause), the real
 * runner against the platform simulator (demo scenario), and restart survival on sqlite (a task
 * left pending by a stopped process shows as failed after the restart).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTaskRunners } from '../../services/taskRunners.js';
import { createServiceContext } from '../../infra/serviceContext.js';
import type { TaskRunners } from '../../services/tasks.js';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import { silentLogger } from '../../src/logger.js';
import { cliEnv, PROD } from '../extraction/helpers.js';
import { BACKENDS, assertProblem, call, fastRunners, startApi, type TestApi } from './helpers.js';
import { waitForTask } from '../helpers/tasks.js';
import { eventually } from '../helpers/wait.js';

for (const backend of BACKENDS) {
  describe(`tasks with a fast runner (${backend} store)`, () => {
    let api: TestApi;
    let runners: ReturnType<typeof fastRunners>;
    before(async () => {
      runners = fastRunners();
      api = await startApi({ backend, runners });
    });
    after(async () => api.dispose());

    it('accepts an extraction from the query (202 pending), runs it, and shows it completed with its phase', async () => {
      const accepted = await call(api.base, 'POST', '/api/v1/tasks/extract?environment_ids=env-a,env-b');
      assert.equal(accepted.status, 202);
      assert.equal(accepted.body.status, 'pending');
      const done = await waitForTask(api.base, accepted.body.task_id);
      assert.equal(done.body.status, 'completed');
      assert.equal(done.body.phase, 'done');
      assert.equal(done.body.message, 'topics');
      assert.deepEqual(done.body.result, { graph_id: 'g', node_count: 3, edge_count: 2 });
      assert.deepEqual(done.body.parameters.environment_ids, ['env-a', 'env-b']);
      assert.ok(runners.calls.includes('extract env-a,env-b'));
    });

    it('accepts a JSON body on /tasks/extract and on the short /extract', async () => {
      const body = { environment_ids: ['env-c'], cluster_ids: ['lkc-1'], enable_metrics: true };
      for (const path of ['/api/v1/tasks/extract', '/api/v1/extract']) {
        const accepted = await call(api.base, 'POST', path, { json: body });
        assert.equal(accepted.status, 202);
        const done = await waitForTask(api.base, accepted.body.task_id);
        assert.equal(done.body.task_type, 'extract');
        assert.deepEqual(done.body.parameters, {
          environment_ids: ['env-c'],
          cluster_ids: ['lkc-1'],
          enable_metrics: true,
          metrics_lookback_hours: 1,
        });
      }
    });

    it('rejects an extraction without environments, with unknown fields (credentials) or bad types (400)', async () => {
      assertProblem(await call(api.base, 'POST', '/api/v1/tasks/extract'), 400, /environment_ids is required/);
      assertProblem(
        await call(api.base, 'POST', '/api/v1/tasks/extract', {
          json: { environment_ids: ['e'], sr_credentials: { key: 'k', secret: 's' } },
        }),
        400,
      );
      assertProblem(await call(api.base, 'POST', '/api/v1/tasks/extract', { json: { environment_ids: 'env-1' } }), 400);
    });

    it('accepts an enrichment, lists tasks newest first with type and status filters, and 404s an unknown task', async () => {
      const accepted = await call(api.base, 'POST', '/api/v1/tasks/enrich', {
        json: { graph_id: 'g-1', enable_metrics: false },
      });
      assert.equal(accepted.status, 202);
      await waitForTask(api.base, accepted.body.task_id);
      const all = await call(api.base, 'GET', '/api/v1/tasks');
      assert.equal(all.body.tasks[0].task_id, accepted.body.task_id);
      const times = all.body.tasks.map((task: { created_at: string }) => task.created_at);
      assert.deepEqual(times, [...times].sort().reverse());
      const enrich = await call(api.base, 'GET', '/api/v1/tasks?type=enrich&status=completed');
      assert.deepEqual(
        enrich.body.tasks.map((task: { task_id: string }) => task.task_id),
        [accepted.body.task_id],
      );
      const failed = await call(api.base, 'GET', '/api/v1/tasks?status=failed');
      assert.equal(failed.body.total, 0);
      assertProblem(await call(api.base, 'GET', '/api/v1/tasks/no-such-task'), 404, /not found/);
      assertProblem(await call(api.base, 'POST', '/api/v1/tasks/enrich', { json: { graph_id: 7 } }), 400);
    });
  });
}

describe('tasks that fail', () => {
  it('records a runner error as failed, keeping the phase reached and masking configured secrets', async () => {
    const secret = 'sup3r-s3cret-value';
    const runners: TaskRunners = {
      async extract(_params, progress) {
        progress('Phase 2/4', 'connectors');
        throw new Error(`platform refused key with secret ${secret}`);
      },
      enrich: async () => ({}),
    };
    const api = await startApi({
      runners,
      env: { LINEAGE_SVC_STREAM_CLOUD_API_KEY: 'CLOUDKEY', LINEAGE_SVC_STREAM_CLOUD_API_SECRET: secret },
    });
    try {
      const accepted = await call(api.base, 'POST', '/api/v1/tasks/extract?environment_ids=env-1');
      const done = await waitForTask(api.base, accepted.body.task_id);
      assert.equal(done.body.status, 'failed');
      assert.equal(done.body.phase, 'Phase 2/4');
      assert.equal(done.body.error, 'platform refused key with secret [redacted]');
      assert.ok(!(await call(api.base, 'GET', '/api/v1/tasks')).text.includes(secret));
    } finally {
      await api.dispose();
    }
  });

  it('accepts an extraction without platform credentials (202) and fails it naming the cause', async () => {
    const api = await startApi();
    try {
      const accepted = await call(api.base, 'POST', '/api/v1/extract', { json: { environment_ids: ['env-1'] } });
      assert.equal(accepted.status, 202);
      const done = await waitForTask(api.base, accepted.body.task_id);
      assert.equal(done.body.status, 'failed');
      assert.match(done.body.error, /LINEAGE_SVC_STREAM_CLOUD_API_KEY and LINEAGE_SVC_STREAM_CLOUD_API_SECRET/);
      const enrich = await waitForTask(api.base, (await call(api.base, 'POST', '/api/v1/tasks/enrich')).body.task_id);
      assert.equal(enrich.body.status, 'failed');
      assert.match(enrich.body.error, /no graph yet/);
    } finally {
      await api.dispose();
    }
  });
});

describe('tasks with the real runners against the platform simulator', () => {
  let sim: PlatformSimulator;
  let api: TestApi;
  before(async () => {
    sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
    const env = Object.fromEntries(Object.entries(cliEnv(sim)).filter(([name]) => name.startsWith('LINEAGE_SVC_')));
    api = await startApi({
      env,
      runners: ({ config, runtime }) =>
        createTaskRunners(
          createServiceContext({
            config,
            runtime,
            logger: silentLogger(),
            httpOptions: { retryBaseDelayMs: 1, rateLimit: false },
          }),
        ),
    });
  });
  after(async () => {
    await api.dispose();
    await sim.close();
  });

  it('extracts an environment into the default graph, reports phases, then enriches it with metrics', async () => {
    const accepted = await call(api.base, 'POST', `/api/v1/tasks/extract?environment_ids=${PROD}`);
    assert.equal(accepted.status, 202);
    const done = await waitForTask(api.base, accepted.body.task_id, {}, 60_000);
    assert.equal(done.body.status, 'completed', done.text);
    assert.ok(done.body.result.node_count > 10);
    assert.ok(!done.text.includes(sim.scenario.credentials.cloud.secret));
    const graph = await call(api.base, 'GET', `/api/v1/graphs/${done.body.result.graph_id}`);
    assert.equal(graph.body.name, 'default');
    assert.equal(graph.body.node_count, done.body.result.node_count);
    const history = await call(api.base, 'GET', `/api/v1/graphs/${done.body.result.graph_id}/history`);
    assert.ok(history.body.changes.some((change: { cause: string }) => change.cause === 'extraction'));

    const enrich = await call(api.base, 'POST', '/api/v1/tasks/enrich', { json: { enable_metrics: true } });
    const enriched = await waitForTask(api.base, enrich.body.task_id, {}, 60_000);
    assert.equal(enriched.body.status, 'completed', enriched.text);
    assert.equal(enriched.body.result.graph_id, done.body.result.graph_id);
    assert.ok(Array.isArray(enriched.body.result.warnings));
  });
});

describe('task restart survival (sqlite store)', () => {
  it('lists tasks after a restart, and shows a task left pending by the stopped process as failed once its lease expired', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'lineage-api-restart-'));
    try {
      let release: () => void = () => undefined;
      const blocked = new Promise<void>((resolve) => {
        release = resolve;
      });
      const slow: TaskRunners = {
        extract: async () => {
          await blocked;
          return { graph_id: 'g', node_count: 0, edge_count: 0 };
        },
        enrich: async () => ({ graph_id: 'g', node_count: 0, edge_count: 0 }),
      };
      // A short lease: the stopped process's work is taken over half a second after its last renewal.
      const env = { LINEAGE_SVC_LEASE_SECONDS: '0.5' };
      const first = await startApi({ backend: 'sqlite', folder, runners: slow, env });
      const finished = await call(first.base, 'POST', '/api/v1/tasks/enrich', { json: { graph_id: 'g' } });
      await waitForTask(first.base, finished.body.task_id);
      const pending = await call(first.base, 'POST', '/api/v1/tasks/extract?environment_ids=env-1');
      assert.equal((await call(first.base, 'GET', `/api/v1/tasks/${pending.body.task_id}`)).body.status, 'pending');
      // The process "dies": the runtime is closed under the running task, which can no longer record its outcome.
      await first.runtime.close();
      release();
      await first.app.close();

      const second = await startApi({ backend: 'sqlite', folder, runners: fastRunners(), env });
      try {
        const interrupted = await eventually('the pending task to be interrupted', async () => {
          const answer = await call(second.base, 'GET', `/api/v1/tasks/${pending.body.task_id}`);
          return answer.body.status === 'pending' ? undefined : answer;
        });
        assert.equal(interrupted.body.status, 'failed');
        assert.match(interrupted.body.error, /^interrupted: the API process stopped/);
        const kept = await call(second.base, 'GET', `/api/v1/tasks/${finished.body.task_id}`);
        assert.equal(kept.body.status, 'completed');
        assert.equal((await call(second.base, 'GET', '/api/v1/tasks')).body.total, 2);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
