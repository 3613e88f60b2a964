/**
 * Specifications of the task fold (`evolveTasks`, `projections/taskProjection.ts`): given the events
 * of `task-{task_id}` streams, the tasks the API lists. Status is `pending` until the task completes
 * or fails; the phase says where a pending task is, `done` once completed, and stays where a failed
 * task stopped.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventOf } from '../../src/events.js';
import { evolveTasks, type TaskState } from '../../projections/taskProjection.js';
import { recorded, recordedAt, type EventToRecord } from '../helpers/recordedEvents.js';
import { specification } from '../helpers/specification.js';

const { given } = specification({
  initialState: () => new Map<string, TaskState>(),
  evolve: evolveTasks,
  view: (tasks) => [...tasks.values()],
});

const EXTRACT_PARAMETERS = { environment_ids: ['env-q7m2k9'], cluster_ids: [], enable_metrics: false };

function created(taskId: string, taskType: 'extract' | 'enrich' = 'extract'): EventOf<'TaskCreated'> {
  const parameters = taskType === 'extract' ? EXTRACT_PARAMETERS : { graph_id: 'g-1' };
  return { type: 'TaskCreated', data: { task_id: taskId, task_type: taskType, parameters } };
}
function progressed(taskId: string, phase: string, message: string | null): EventOf<'TaskProgressed'> {
  return { type: 'TaskProgressed', data: { task_id: taskId, phase, message } };
}
function completed(taskId: string, result: Record<string, unknown>): EventOf<'TaskCompleted'> {
  return { type: 'TaskCompleted', data: { task_id: taskId, result } };
}
function failed(taskId: string, error: string): EventOf<'TaskFailed'> {
  return { type: 'TaskFailed', data: { task_id: taskId, error } };
}

/** A task as TaskCreated at `index` (its position is `index + 1`) leaves it. */
function queued(taskId: string, index: number, taskType: 'extract' | 'enrich' = 'extract'): TaskState {
  return {
    task_id: taskId,
    task_type: taskType,
    status: 'pending',
    phase: 'queued',
    message: null,
    parameters: created(taskId, taskType).data.parameters,
    result: null,
    error: null,
    created_at: recordedAt(index),
    updated_at: recordedAt(index),
    completed_at: null,
    position: index + 1,
    owner_process_id: null,
  };
}

const RESULT = { graph_id: 'g-1', node_count: 11, edge_count: 9 };

describe('task fold', () => {
  it('knows no task before any event', () => given([]).then([]));

  it('a created task is pending in the phase queued, with what it was asked to do', () =>
    given(recorded([created('t-1')])).then([queued('t-1', 0)]));

  it('progress moves a pending task to the phase and message of its last TaskProgressed', () =>
    given(
      recorded([created('t-1'), progressed('t-1', 'Phase 1/4', 'environments'), progressed('t-1', 'Phase 2/4', null)]),
    ).then([{ ...queued('t-1', 0), phase: 'Phase 2/4', message: null, updated_at: recordedAt(2) }]));

  it('a completed task is done, with its result and the time it completed', () =>
    given(recorded([created('t-1'), progressed('t-1', 'Phase 4/4', 'lineage'), completed('t-1', RESULT)])).then([
      {
        ...queued('t-1', 0),
        status: 'completed',
        phase: 'done',
        message: 'lineage',
        result: RESULT,
        updated_at: recordedAt(2),
        completed_at: recordedAt(2),
      },
    ]));

  it('a failed task keeps the phase it reached and names the cause', () =>
    given(recorded([created('t-1'), progressed('t-1', 'Phase 3/4', 'connectors'), failed('t-1', 'HTTP 401')])).then([
      {
        ...queued('t-1', 0),
        status: 'failed',
        phase: 'Phase 3/4',
        message: 'connectors',
        error: 'HTTP 401',
        updated_at: recordedAt(2),
        completed_at: recordedAt(2),
      },
    ]));

  it('a task that ended stays as it ended: later progress, completion or failure change nothing', () =>
    given(
      recorded([
        created('t-1'),
        completed('t-1', RESULT),
        progressed('t-1', 'Phase 1/4', 'again'),
        failed('t-1', 'late'),
        completed('t-1', { graph_id: 'other' }),
      ]),
    ).then([
      {
        ...queued('t-1', 0),
        status: 'completed',
        phase: 'done',
        result: RESULT,
        updated_at: recordedAt(1),
        completed_at: recordedAt(1),
      },
    ]));

  it('a second TaskCreated of the same task (a replayed event) changes nothing', () =>
    given(recorded([created('t-1'), progressed('t-1', 'Phase 1/4', 'environments'), created('t-1', 'enrich')])).then([
      { ...queued('t-1', 0), phase: 'Phase 1/4', message: 'environments', updated_at: recordedAt(1) },
    ]));

  it('events of a task never created (a damaged stream) are ignored', () =>
    given(
      recorded([progressed('t-9', 'Phase 1/4', 'environments'), completed('t-9', RESULT), failed('t-9', 'boom')]),
    ).then([]));

  it('keeps tasks apart, each at the position of its TaskCreated', () =>
    given(recorded([created('t-1'), created('t-2', 'enrich'), completed('t-2', { graph_id: 'g-1' })])).then([
      queued('t-1', 0),
      {
        ...queued('t-2', 1, 'enrich'),
        status: 'completed',
        phase: 'done',
        result: { graph_id: 'g-1' },
        updated_at: recordedAt(2),
        completed_at: recordedAt(2),
      },
    ]));

  it('ignores task events outside task streams, and events of other streams', () => {
    const elsewhere: EventToRecord = { ...created('t-1'), stream: 'graph-g-1' };
    given(
      recorded([
        elsewhere,
        { type: 'GraphCreated', data: { graph_id: 'g-1', name: 'default', description: null } },
        { type: 'WatcherDeregistered', data: { watcher_id: 'w-1' } },
      ]),
    ).then([]);
  });

  it('reads the time of each change from the store, never from a clock', () =>
    given(recorded([created('t-1'), failed('t-1', 'boom')], { start: '2020-02-29T23:59:59.000Z' })).then((tasks) => {
      const task = tasks.get('t-1');
      assert.equal(task?.created_at, '2020-02-29T23:59:59.000Z');
      assert.equal(task?.completed_at, '2020-03-01T00:00:00.000Z');
    }));
});
