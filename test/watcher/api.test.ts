/**
 * Watchers through the REST API against the platform simulator, with real sockets: start, the
 * initial extraction, a topic created and a connector updated at run time, COOLDOWN then
 * EXTRACTING, a new graph revision holding the new topic, the events and history endpoints, stop,
 * deregister, 404s, and the restart rule (watchers left running are shown STOPPED).
 * No timing assertions: every wait is for a condition, with a bounded deadline.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { streams, toAppend } from '../../src/events.js';
import {
  loadScenario,
  simulatorClientEnvironment,
  startPlatformSimulator,
  type PlatformSimulator,
} from '../../simulators/confluent/index.js';
import { RESTART_REASON } from '../../services/watchers.js';
import { assertProblem, call, startApi, type TestApi } from '../http/helpers.js';
import { eventually } from '../helpers/wait.js';

const ENV = 'env-q7m2k9';
const CLUSTER = 'lkc-7x9m2p';

describe('watchers over the API against the simulator', () => {
  let sim: PlatformSimulator;
  let api: TestApi;
  before(async () => {
    sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
    api = await startApi({ env: simulatorClientEnvironment(sim.url, sim.scenario) });
  });
  after(async () => {
    await api.dispose();
    await sim.close();
  });

  it('extracts at start, then re-extracts once after changes and shows them', async () => {
    const started = await call(api.base, 'POST', '/api/v1/watchers', {
      json: { environment_ids: [ENV], cooldown_seconds: 0.2, poll_interval_seconds: 0.1 },
    });
    assert.equal(started.status, 201, started.text);
    const id = started.body.watcher_id as string;
    assert.equal(started.body.state, 'WATCHING');

    const first = await eventually('the initial extraction', async () => {
      const history = await call(api.base, 'GET', `/api/v1/watchers/${id}/history`);
      const done = history.body.extractions.find((x: { status: string }) => x.status !== 'running');
      return done;
    });
    assert.equal(first.status, 'completed', JSON.stringify(first));
    assert.ok(first.node_count > 0);
    await eventually('WATCHING after the initial extraction', async () =>
      (await call(api.base, 'GET', `/api/v1/watchers/${id}`)).body.state === 'WATCHING' ? true : undefined,
    );

    const connector = sim.scenario.environments
      .find((env) => env.id === ENV)!
      .kafka_clusters.find((c) => c.id === CLUSTER)!.connectors[0]!;
    sim.mutate([
      {
        op: 'add_topic',
        environment_id: ENV,
        cluster_id: CLUSTER,
        topic: { name: 'watcher.new_topic', partitions: 1 },
      },
      {
        op: 'put_connector',
        environment_id: ENV,
        cluster_id: CLUSTER,
        connector: { ...connector, config: { ...connector.config, 'poll.interval.ms': '999' } },
      },
    ]);

    const events = await eventually('the detected changes', async () => {
      const answer = await call(api.base, 'GET', `/api/v1/watchers/${id}/events`);
      return answer.body.total >= 2 ? answer.body : undefined;
    });
    const seen = events.events.map(
      (e: { kind: string; resource_type: string; resource_id: string }) =>
        `${e.kind} ${e.resource_type} ${e.resource_id}`,
    );
    assert.ok(seen.includes(`created topic ${CLUSTER}/watcher.new_topic`), seen.join(', '));
    assert.ok(seen.includes(`updated connector ${CLUSTER}/${connector.name}`), seen.join(', '));
    assert.ok(
      events.events.every(
        (e: { environment_id: string; detected_at: string }) => e.environment_id === ENV && e.detected_at.length > 0,
      ),
    );

    const second = await eventually('the extraction after the changes', async () => {
      const history = await call(api.base, 'GET', `/api/v1/watchers/${id}/history`);
      const completed = history.body.extractions.filter((x: { status: string }) => x.status === 'completed');
      return completed.length >= 2 ? completed[0] : undefined;
    });
    assert.ok(
      second.graph_revision > first.graph_revision,
      `revision ${second.graph_revision} after ${first.graph_revision}`,
    );
    assert.ok(second.changes.nodes_added >= 1);
    const nodes = await call(api.base, 'GET', `/api/v1/graphs/${second.graph_id}/nodes?search=watcher.new_topic`);
    assert.equal(nodes.status, 200);
    assert.ok(JSON.stringify(nodes.body).includes('watcher.new_topic'));

    const recorded = await api.runtime.store.readStream(streams.watcher(id));
    const transitions = recorded
      .filter((e) => e.type === 'WatcherStateChanged')
      .map((e) => `${(e.data as { from: string }).from}->${(e.data as { to: string }).to}`);
    const cooldownAt = transitions.indexOf('WATCHING->COOLDOWN');
    assert.ok(cooldownAt > 0, transitions.join(', '));
    assert.equal(transitions[cooldownAt + 1], 'COOLDOWN->EXTRACTING', transitions.join(', '));

    const status = await call(api.base, 'GET', `/api/v1/watchers/${id}`);
    assert.equal(status.body.running_here, true);
    assert.ok(status.body.change_count >= 2);
    assert.equal(status.body.cooldown_seconds, 0.2);
    const list = await call(api.base, 'GET', '/api/v1/watchers');
    assert.ok(list.body.watchers.some((w: { watcher_id: string }) => w.watcher_id === id));

    const stopped = await call(api.base, 'POST', `/api/v1/watchers/${id}/stop`);
    assert.equal(stopped.status, 200);
    assert.equal(stopped.body.state, 'STOPPED');
    assert.equal(stopped.body.reason, 'stopped through the API');
    assert.equal(
      (await call(api.base, 'POST', `/api/v1/watchers/${id}/stop`)).body.state,
      'STOPPED',
      'stop is idempotent',
    );
    assert.equal((await call(api.base, 'GET', '/api/v1/watchers?state=STOPPED')).body.total, 1);

    const removed = await call(api.base, 'DELETE', `/api/v1/watchers/${id}`);
    assert.equal(removed.status, 204);
    assertProblem(await call(api.base, 'GET', `/api/v1/watchers/${id}`), 404, /not found/);
    assertProblem(await call(api.base, 'GET', `/api/v1/watchers/${id}/history`), 404);
  });

  it('answers problem+json for unknown watchers and bad bodies', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/watchers/nope'],
      ['POST', '/api/v1/watchers/nope/stop'],
      ['GET', '/api/v1/watchers/nope/events'],
      ['GET', '/api/v1/watchers/nope/history'],
      ['DELETE', '/api/v1/watchers/nope'],
    ] as const) {
      assertProblem(await call(api.base, method, path), 404);
    }
    assertProblem(await call(api.base, 'POST', '/api/v1/watchers', { json: {} }), 400);
    assertProblem(
      await call(api.base, 'POST', '/api/v1/watchers', { json: { environment_ids: [ENV], poll_interval_seconds: 0 } }),
      400,
    );
    assertProblem(
      await call(api.base, 'POST', '/api/v1/watchers', { json: { environment_ids: [ENV], api_key: 'x' } }),
      400,
    );
    assertProblem(
      await call(api.base, 'POST', '/api/v1/watchers', {
        json: { environment_ids: [ENV], push: ['LAKEHOUSE_CATALOG'] },
      }),
      400,
      /not available/,
    );
    assertProblem(await call(api.base, 'GET', '/api/v1/watchers?state=SLEEPING'), 400);
  });
});

describe('watchers across an API restart', () => {
  it('shows watchers a previous process left running as STOPPED (process restarted)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'lineage-watchers-'));
    try {
      const first = await startApi({ backend: 'sqlite', folder });
      const watcherId = 'left-running';
      await first.runtime.store.append(
        streams.watcher(watcherId),
        toAppend(
          [
            {
              type: 'WatcherStarted',
              data: {
                watcher_id: watcherId,
                environment_ids: [ENV],
                cluster_ids: [],
                cooldown_seconds: 30,
                poll_interval_seconds: 10,
                push: [],
              },
            },
            {
              type: 'WatcherStateChanged',
              data: { watcher_id: watcherId, from: 'WATCHING', to: 'COOLDOWN', reason: '1 change(s) detected' },
            },
          ],
          { actor: `watcher:${watcherId}`, cause: 'watcher' },
        ),
      );
      await first.close();
      const second = await startApi({ backend: 'sqlite', folder });
      try {
        const status = await call(second.base, 'GET', `/api/v1/watchers/${watcherId}`);
        assert.equal(status.status, 200);
        assert.equal(status.body.state, 'STOPPED');
        assert.equal(status.body.reason, RESTART_REASON);
        assert.equal(status.body.running_here, false);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('stops running watchers when the API shuts down', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'lineage-watchers-'));
    try {
      // No platform credentials: the watcher still starts; its extractions fail with a named cause.
      const first = await startApi({ backend: 'sqlite', folder });
      const started = await call(first.base, 'POST', '/api/v1/watchers', {
        json: { environment_ids: [ENV], poll_interval_seconds: 0.1, cooldown_seconds: 0 },
      });
      assert.equal(started.status, 201);
      const id = started.body.watcher_id as string;
      const failed = await eventually('the failed initial extraction', async () => {
        const watcher = first.runtime.watchers.get(id);
        return watcher?.reason?.startsWith('extraction failed') ? watcher.reason : undefined;
      });
      assert.match(failed, /LINEAGE_SVC_STREAM_CLOUD_API_KEY/);
      await first.close();
      const second = await startApi({ backend: 'sqlite', folder });
      try {
        const status = await call(second.base, 'GET', `/api/v1/watchers/${id}`);
        assert.equal(status.body.state, 'STOPPED');
        assert.equal(status.body.reason, 'API process shutting down');
      } finally {
        await second.close();
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
