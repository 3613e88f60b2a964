/**
 * The task projection: folds the events of every `task-{task_id}` stream (TaskCreated,
 * TaskProgressed, TaskCompleted, TaskFailed; `src/events.ts`) into one record per task, so that the
 * API lists tasks from events and a restarted server still knows them.
 *
 * Status follows the specification's task table: `pending` until the task completes or fails. The
 * `phase` field says where a pending task is (`queued`, then the runner's phase labels such as
 * `Phase 2/4`), `done` once completed, and keeps the last phase reached when the task failed.
 */
import type { StoredLineageEvent } from '../src/events.js';
import type { TASK_TYPES } from '../src/events.js';

/** `extract` or `enrich`. */
export type TaskType = (typeof TASK_TYPES)[number];

/** The statuses of the specification ("Async task status"). */
export const TASK_STATUSES = ['pending', 'completed', 'failed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Everything known about one task (snake_case: this is also the API's Task shape). */
export interface TaskState {
  task_id: string;
  task_type: TaskType;
  status: TaskStatus;
  /** `queued`, a runner phase label, `done`, or the phase reached when it failed. */
  phase: string;
  /** The last progress message (null before any). */
  message: string | null;
  /** What the task was asked to do (never credentials). */
  parameters: Record<string, unknown>;
  /** Set when completed, e.g. `{graph_id, node_count, edge_count}`. */
  result: Record<string, unknown> | null;
  /** Set when failed: names the cause, contains no secret. */
  error: string | null;
  /** ISO 8601 times. */
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  /** Global store position of TaskCreated: orders tasks newest first. */
  position: number;
  /** The process that runs the task (null: recorded before tasks had owners). */
  owner_process_id: string | null;
}

/** Filters of `list`. */
export interface TaskFilter {
  type?: TaskType | undefined;
  status?: TaskStatus | undefined;
}

/** The projection of all tasks, with its checkpoint (the projector's `Projection`). */
export interface TaskProjection {
  /** Global position of the last event applied (0 before any). */
  readonly position: number;
  apply(event: StoredLineageEvent): void;
  /** One task, or undefined. */
  get(taskId: string): TaskState | undefined;
  /** Tasks matching the filter, newest first. */
  list(filter?: TaskFilter): TaskState[];
  /** Revision of the task's stream as far as applied (-1 for an unknown task): an append deciding on `get` expects it. */
  revision(taskId: string): number;
  reset(): void;
}

/**
 * Applies one task event to the map of tasks, in place. Events for a task never created (a damaged
 * stream) are ignored; events of other types are ignored. Applying an event twice changes nothing.
 */
export function evolveTasks(tasks: Map<string, TaskState>, event: StoredLineageEvent): void {
  if (!event.stream.startsWith('task-')) return;
  switch (event.type) {
    case 'TaskCreated':
      if (tasks.has(event.data.task_id)) return;
      tasks.set(event.data.task_id, {
        task_id: event.data.task_id,
        task_type: event.data.task_type,
        status: 'pending',
        phase: 'queued',
        message: null,
        parameters: event.data.parameters,
        result: null,
        error: null,
        created_at: event.recorded_at,
        updated_at: event.recorded_at,
        completed_at: null,
        position: event.position,
        owner_process_id: event.data.owner_process_id ?? null,
      });
      return;
    case 'TaskProgressed': {
      const task = tasks.get(event.data.task_id);
      if (!task || task.status !== 'pending') return;
      task.phase = event.data.phase;
      task.message = event.data.message;
      task.updated_at = event.recorded_at;
      return;
    }
    case 'TaskCompleted': {
      const task = tasks.get(event.data.task_id);
      if (!task || task.status !== 'pending') return;
      task.status = 'completed';
      task.phase = 'done';
      task.result = event.data.result;
      task.updated_at = event.recorded_at;
      task.completed_at = event.recorded_at;
      return;
    }
    case 'TaskFailed': {
      const task = tasks.get(event.data.task_id);
      if (!task || task.status !== 'pending') return;
      task.status = 'failed';
      task.error = event.data.error;
      task.updated_at = event.recorded_at;
      task.completed_at = event.recorded_at;
      return;
    }
    default:
      return;
  }
}

/** Creates an empty task projection. */
export function createTaskProjection(): TaskProjection {
  const tasks = new Map<string, TaskState>();
  const revisions = new Map<string, number>();
  let position = 0;
  return {
    get position() {
      return position;
    },
    apply(event) {
      evolveTasks(tasks, event);
      if (event.stream.startsWith('task-')) revisions.set(event.stream, event.revision);
      position = event.position;
    },
    get: (taskId) => tasks.get(taskId),
    revision: (taskId) => revisions.get(`task-${taskId}`) ?? -1,
    list(filter = {}) {
      return [...tasks.values()]
        .filter(
          (task) =>
            (filter.type === undefined || task.task_type === filter.type) &&
            (filter.status === undefined || task.status === filter.status),
        )
        .sort((a, b) => b.position - a.position);
    },
    reset() {
      tasks.clear();
      revisions.clear();
      position = 0;
    },
  };
}
