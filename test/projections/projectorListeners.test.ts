/**
 * The projector's listeners and replay count (`Projector.onApplied`, `Projector.replayedEvents`):
 * what the metrics of `infra/http/metrics.ts` are built on. And its recovery (issue 23, item 3): after
 * the store fails it retries with backoff and catches up from its checkpoint, every event applied once
 * and in order; a projection that throws stops it (`failed`), and writers waiting on it get a 503 error.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { createMemoryEventStore } from '../../infra/eventStore/memoryEventStore.js';
import { streams, toAppend, type StoredLineageEvent } from '../../src/events.js';
import { createTaskProjection } from '../../projections/taskProjection.js';
import { ProjectionsBehindError, createProjector } from '../../projections/projector.js';
import { faultyStore } from '../helpers/faultyStore.js';
import { eventually } from '../helpers/wait.js';

const created = (taskId: string) =>
  toAppend([{ type: 'TaskCreated', data: { task_id: taskId, task_type: 'extract', parameters: {} } }], {
    actor: 'api',
  });

describe('projector listeners', () => {
  it('count replayed events and hand every applied event to listeners, replay or live, until removed', async () => {
    const store = createMemoryEventStore();
    await store.append(streams.task('t1'), created('t1'));
    await store.append(streams.task('t2'), created('t2'));
    const projector = createProjector({ store, projections: [createTaskProjection()] });
    const seen: Array<[string, boolean]> = [];
    const remove = projector.onApplied((event: StoredLineageEvent, replay) => seen.push([event.stream, replay]));
    await projector.start();
    assert.equal(projector.replayedEvents, 2);
    const { position } = await store.append(streams.task('t3'), created('t3'));
    await projector.waitFor(position);
    assert.deepEqual(seen, [
      ['task-t1', true],
      ['task-t2', true],
      ['task-t3', false],
    ]);
    assert.equal(projector.replayedEvents, 2, 'a live event is not a replayed one');

    await projector.rebuild();
    assert.equal(projector.replayedEvents, 5, 'a rebuild replays the three events again');
    remove();
    const later = await store.append(streams.task('t4'), created('t4'));
    await projector.waitFor(later.position);
    assert.equal(seen.length, 6, 'no event after the listener was removed');
    await projector.stop();
    await store.close();
  });

  it('logs a listener that throws and goes on applying events', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'error' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString('utf8'));
          done();
        },
      }),
    );
    const store = createMemoryEventStore();
    const tasks = createTaskProjection();
    const projector = createProjector({ store, projections: [tasks], logger });
    projector.onApplied(() => {
      throw new Error('listener bug');
    });
    await projector.start();
    const { position } = await store.append(streams.task('t1'), created('t1'));
    await projector.waitFor(position);
    assert.equal(projector.position, position);
    assert.ok(tasks.get('t1'), 'the projection applied the event');
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /Projector:ListenerFailed/);
    assert.match(lines[0]!, /listener bug/);
    await projector.stop();
    await store.close();
  });
});

/** A pino logger writing its lines into `lines`. */
function capturingLogger(lines: string[], level = 'warn') {
  return pino(
    { level },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    }),
  );
}

describe('projector recovery', () => {
  it('retries after the store fails, catches up from its checkpoint and follows live again, each event once and in order', async () => {
    const inner = createMemoryEventStore();
    const faulty = faultyStore(inner);
    const lines: string[] = [];
    const tasks = createTaskProjection();
    const projector = createProjector({
      store: faulty.store,
      projections: [tasks],
      logger: capturingLogger(lines),
      retry: { minimumRetryMilliseconds: 10, maximumRetryMilliseconds: 50 },
    });
    const seen: number[] = [];
    projector.onApplied((event) => seen.push(event.position));
    await faulty.store.append(streams.task('before'), created('before'));
    await projector.start();
    assert.equal(projector.status, 'live');

    faulty.down = true;
    await eventually('the projector to notice the failure', () => (projector.status === 'retrying' ? true : undefined));
    // Written meanwhile by another process that still reaches the database.
    for (const id of ['during-1', 'during-2', 'during-3']) await inner.append(streams.task(id), created(id));
    await eventually('a few failed attempts', () => (projector.failedAttempts >= 3 ? true : undefined));
    assert.equal(projector.position, 1, 'nothing applied while the store is down');
    await assert.rejects(projector.waitFor(4, 50), ProjectionsBehindError);

    faulty.down = false;
    const head = await inner.headPosition();
    await projector.waitFor(head, 10_000);
    await eventually('the projector to follow live again', () => (projector.status === 'live' ? true : undefined));
    for (const id of ['before', 'during-1', 'during-2', 'during-3']) assert.ok(tasks.get(id), id);

    const { position } = await faulty.store.append(streams.task('after'), created('after'));
    await projector.waitFor(position, 10_000);
    assert.deepEqual(seen, [1, 2, 3, 4, 5], 'every event once, in order, across the outage');
    assert.ok(lines.some((line) => line.includes('Projector:SubscriptionFailed')));
    await projector.stop();
    assert.equal(projector.status, 'stopped');
    await inner.close();
  });

  it('stops retrying when stopped while the store is down', async () => {
    const inner = createMemoryEventStore();
    const faulty = faultyStore(inner);
    const projector = createProjector({
      store: faulty.store,
      projections: [createTaskProjection()],
      retry: { minimumRetryMilliseconds: 10, maximumRetryMilliseconds: 20 },
    });
    await projector.start();
    faulty.down = true;
    await eventually('a failed attempt', () => (projector.failedAttempts >= 1 ? true : undefined));
    await projector.stop();
    assert.equal(projector.status, 'stopped');
    const attempts = projector.failedAttempts;
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(projector.failedAttempts, attempts, 'no attempt after stop');
    await inner.close();
  });

  it('fails, and rejects waiting writers with ProjectionsBehindError, when a projection throws applying an event', async () => {
    const store = createMemoryEventStore();
    const lines: string[] = [];
    const tasks = createTaskProjection();
    const broken = {
      get position() {
        return tasks.position;
      },
      apply(event: StoredLineageEvent) {
        if (event.stream === streams.task('poison')) throw new Error('projection bug');
        tasks.apply(event);
      },
      reset: () => tasks.reset(),
    };
    const projector = createProjector({ store, projections: [broken], logger: capturingLogger(lines, 'error') });
    await projector.start();
    const { position } = await store.append(streams.task('poison'), created('poison'));
    await assert.rejects(projector.waitFor(position, 10_000), (error: unknown) => {
      assert.ok(error instanceof ProjectionsBehindError);
      assert.equal(error.status, 503);
      assert.match(error.message, /projection bug/);
      return true;
    });
    assert.equal(projector.status, 'failed');
    await assert.rejects(projector.waitFor(position + 1, 10_000), ProjectionsBehindError, 'at once once failed');
    assert.ok(lines.some((line) => line.includes('Projector:Failed')));
    await projector.stop();
    assert.equal(projector.status, 'failed', 'stop keeps the failure visible');
    await store.close();
  });
});
