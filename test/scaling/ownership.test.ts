/**
 * Ownership across real processes (issue 12, item 1), on sqlite and on PostgreSQL: `lineage-svc-api`
 * processes sharing one store, each with its lease (`services/ownership.ts`).
 *
 * - A second and a third process started beside a running one leave its pending task and running
 *   watcher untouched, while they renew their own leases;
 * - after SIGKILL of the owner, its task is marked interrupted and its watcher STOPPED once its lease
 *   has expired, exactly once (one TaskFailed, one STOPPED transition, one ProcessLeaseExpired),
 *   although two processes sweep;
 * - with `LINEAGE_SVC_WATCHER_RESUME=true`, the watcher is taken over (one WatcherClaimed) and runs
 *   in the survivor.
 *
 * The platform never answers (`silentPlatform`), so that the task stays pending and the watcher keeps
 * polling. Leases are 3 s here (30 s by default).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EventStore, RecordedEvent } from '../../src/eventStore.js';
import { eventually } from '../helpers/wait.js';
import {
  allEvents,
  platformEnv,
  postgresSkipReason,
  processIdOf,
  request,
  silentPlatform,
  startApiProcess,
  storeTarget,
  type ApiProcess,
  type StoreTarget,
} from './helpers.js';

const LEASE = { LINEAGE_SVC_LEASE_SECONDS: '3' };
const postgresSkip = await postgresSkipReason();

const ofStream = (events: RecordedEvent[], stream: string, type: string) =>
  events.filter((event) => event.stream === stream && event.type === type);

/** Waits until the process `processId` has renewed its lease `times` more times than now. */
async function renewals(store: EventStore, processId: string, times: number): Promise<void> {
  const count = async () => ofStream(await allEvents(store), `process-${processId}`, 'ProcessLeaseRenewed').length;
  const target = (await count()) + times;
  await eventually(`${times} lease renewals of ${processId}`, async () =>
    (await count()) >= target ? true : undefined,
  );
}

function scenario(backend: 'sqlite' | 'postgres', skip: string | false) {
  describe(`several lineage-svc-api processes on ${backend}`, { skip }, () => {
    let platform: Awaited<ReturnType<typeof silentPlatform>>;
    before(async () => {
      platform = await silentPlatform();
    });
    after(async () => platform?.close());

    it('leaves live work alone, and interrupts a killed owner’s work once, after its lease expired', async () => {
      const target: StoreTarget = await storeTarget(backend);
      const env = { ...target.env, ...platformEnv(platform.url), ...LEASE };
      const children: ApiProcess[] = [];
      const store = await target.open();
      try {
        const first = await startApiProcess(env);
        children.push(first);
        const firstId = await processIdOf(store, first.pid);
        const task = await request(first.base, 'POST', '/api/v1/tasks/extract?environment_ids=env-1');
        assert.equal(task.status, 202);
        const watcher = await request(first.base, 'POST', '/api/v1/watchers', {
          environment_ids: ['env-1'],
          poll_interval_seconds: 0.5,
        });
        assert.equal(watcher.status, 201);
        const taskId: string = task.body.task_id;
        const watcherId: string = watcher.body.watcher_id;

        const [second, third] = await Promise.all([startApiProcess(env), startApiProcess(env)]);
        children.push(second, third);
        const secondId = await processIdOf(store, second.pid);
        const thirdId = await processIdOf(store, third.pid);
        // Both newcomers have swept several times (they sweep as often as they renew).
        await Promise.all([renewals(store, secondId, 3), renewals(store, thirdId, 3)]);
        for (const api of [first, second, third]) {
          const seenTask = await request(api.base, 'GET', `/api/v1/tasks/${taskId}`);
          assert.equal(seenTask.body.status, 'pending', `task as seen by ${api.pid}`);
          const seenWatcher = await request(api.base, 'GET', `/api/v1/watchers/${watcherId}`);
          assert.notEqual(seenWatcher.body.state, 'STOPPED', `watcher as seen by ${api.pid}`);
          assert.equal(seenWatcher.body.running_here, api === first);
        }
        let events = await allEvents(store);
        assert.equal(ofStream(events, `task-${taskId}`, 'TaskFailed').length, 0);
        assert.equal(ofStream(events, `process-${firstId}`, 'ProcessLeaseExpired').length, 0);
        assert.equal((ofStream(events, `task-${taskId}`, 'TaskCreated')[0]!.data as any).owner_process_id, firstId);

        await first.kill();
        const failed = await eventually('the killed owner’s task to be interrupted', async () => {
          const answer = await request(second.base, 'GET', `/api/v1/tasks/${taskId}`);
          return answer.body.status === 'failed' ? answer.body : undefined;
        });
        assert.match(failed.error, /^interrupted: /);
        assert.match(failed.error, new RegExp(firstId));
        await eventually('the killed owner’s watcher to be stopped', async () => {
          const answer = await request(third.base, 'GET', `/api/v1/watchers/${watcherId}`);
          return answer.body.state === 'STOPPED' ? true : undefined;
        });
        // Both survivors keep sweeping; nothing more is recorded for the dead process's work.
        await Promise.all([renewals(store, secondId, 3), renewals(store, thirdId, 3)]);
        events = await allEvents(store);
        assert.equal(ofStream(events, `task-${taskId}`, 'TaskFailed').length, 1);
        const expiries = ofStream(events, `process-${firstId}`, 'ProcessLeaseExpired');
        assert.equal(expiries.length, 1);
        assert.ok([secondId, thirdId].includes((expiries[0]!.data as any).detected_by));
        const stops = ofStream(events, `watcher-${watcherId}`, 'WatcherStateChanged').filter(
          (event) => (event.data as any).to === 'STOPPED',
        );
        assert.equal(stops.length, 1);
        assert.equal(ofStream(events, `watcher-${watcherId}`, 'WatcherClaimed').length, 0);
        // The survivors' own leases were never touched.
        assert.equal(ofStream(events, `process-${secondId}`, 'ProcessLeaseExpired').length, 0);
        assert.equal(ofStream(events, `process-${thirdId}`, 'ProcessLeaseExpired').length, 0);
      } finally {
        await Promise.all(children.map((child) => child.kill()));
        await store.close();
        await target.remove();
      }
    });

    it('resumes a killed owner’s watcher in another process when configured', async () => {
      const target: StoreTarget = await storeTarget(backend);
      const env = { ...target.env, ...platformEnv(platform.url), ...LEASE };
      const children: ApiProcess[] = [];
      const store = await target.open();
      try {
        const first = await startApiProcess(env);
        children.push(first);
        const watcher = await request(first.base, 'POST', '/api/v1/watchers', {
          environment_ids: ['env-1'],
          poll_interval_seconds: 0.5,
        });
        const watcherId: string = watcher.body.watcher_id;
        const second = await startApiProcess({ ...env, LINEAGE_SVC_WATCHER_RESUME: 'true' });
        children.push(second);
        const secondId = await processIdOf(store, second.pid);
        await renewals(store, secondId, 3);
        assert.equal((await request(second.base, 'GET', `/api/v1/watchers/${watcherId}`)).body.running_here, false);

        await first.kill();
        const resumed = await eventually('the watcher to run in the second process', async () => {
          const answer = await request(second.base, 'GET', `/api/v1/watchers/${watcherId}`);
          return answer.body.running_here ? answer.body : undefined;
        });
        assert.notEqual(resumed.state, 'STOPPED');
        assert.match(resumed.reason ?? '', new RegExp(`resumed by process ${secondId}`));
        await renewals(store, secondId, 3);
        const events = await allEvents(store);
        const claims = ofStream(events, `watcher-${watcherId}`, 'WatcherClaimed');
        assert.equal(claims.length, 1);
        assert.equal((claims[0]!.data as any).process_id, secondId);
        assert.equal(ofStream(events, `watcher-${watcherId}`, 'WatcherStarted').length, 1);
      } finally {
        await Promise.all(children.map((child) => child.kill()));
        await store.close();
        await target.remove();
      }
    });
  });
}

scenario('sqlite', false);
scenario('postgres', postgresSkip);
