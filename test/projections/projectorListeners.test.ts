/**
 * The projector's listeners and replay count (`Projector.onApplied`, `Projector.replayedEvents`):
 * what the metrics of `infra/http/metrics.ts` are built on.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { createMemoryEventStore } from '../../infra/eventStore/memoryEventStore.js';
import { streams, toAppend, type StoredLineageEvent } from '../../src/events.js';
import { createTaskProjection } from '../../projections/taskProjection.js';
import { createProjector } from '../../projections/projector.js';

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
