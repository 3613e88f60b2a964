/**
 * Tasks: long-running work (extraction, enrichment) started through the API and run in-process.
 * A task is the stream `task-{task_id}`: `TaskCreated` when accepted, `TaskProgressed` for each phase
 * the runner reports, then `TaskCompleted` with a result or `TaskFailed` with an error. The API reads
 * tasks from the task projection (`projections/taskProjection.ts`), so a restarted server still lists
 * them. Each task records the process that runs it (`owner_process_id`); `failInterrupted`, run at
 * start and by every sweep (`services/ownership.ts`), marks pending tasks whose owner is no longer
 * live as failed, exactly once (its append expects the revision it decided on), and never touches the
 * work of a live process.
 *
 * Specification "States and transitions" (Async task status) and contract section 4 ("Tasks"): a
 * task that cannot run is still accepted and ends `failed` with an error that names the cause;
 * configured secret values are masked out of every error message before it is recorded.
 */
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { ExpectedRevisionConflictError, errorMessage } from '../src/errors.js';
import type { EventStore } from '../src/eventStore.js';
import { streams, toAppend, type EventContext, type LineageEvent } from '../src/events.js';
import type { Logger } from '../src/logger.js';
import type { Projector } from '../projections/projector.js';
import type { TaskProjection, TaskState, TaskType } from '../projections/taskProjection.js';
import type { OwnerLiveness } from './ownership.js';

/** Reports progress: a phase label (e.g. `Phase 2/4`) and an optional message. */
export type TaskProgress = (phase: string, message?: string | null) => void;

/** Parameters of an extraction task (recorded in TaskCreated; no credentials). */
export interface ExtractTaskParams {
  environment_ids: string[];
  /** Cluster filter; empty: every cluster. */
  cluster_ids: string[];
  enable_metrics: boolean;
  /** Metrics window, in hours. */
  metrics_lookback_hours: number;
}

/** Parameters of an enrichment task. */
export interface EnrichTaskParams {
  /** Graph to enrich; null: the most recently changed graph. */
  graph_id: string | null;
  enable_catalog: boolean;
  enable_metrics: boolean;
  /** Metrics window, in hours. */
  metrics_lookback_hours: number;
}

/** The work behind each task type: resolves with the task's result, or throws to fail it. */
export interface TaskRunners {
  extract(params: ExtractTaskParams, progress: TaskProgress): Promise<Record<string, unknown>>;
  enrich(params: EnrichTaskParams, progress: TaskProgress): Promise<Record<string, unknown>>;
}

/** Parameters by task type. */
export interface TaskParams {
  extract: ExtractTaskParams;
  enrich: EnrichTaskParams;
}

/** Starts, runs and recovers tasks. */
export interface TaskService {
  /** Records a new pending task and runs it in the background; resolves with its state once accepted. */
  start<T extends TaskType>(type: T, params: TaskParams[T]): Promise<TaskState>;
  /**
   * Marks every pending task whose owner is not live (and that this process does not run) as failed
   * (interrupted); resolves with how many this call recorded. A task another process failed first is skipped.
   */
  failInterrupted(): Promise<number>;
  /** Waits for running tasks to finish, at most `timeoutMs` (default: no limit). */
  drain(timeoutMs?: number): Promise<void>;
}

/** What the task service needs. */
export interface TaskServiceDeps {
  store: EventStore;
  tasks: TaskProjection;
  projector: Pick<Projector, 'waitFor'>;
  logger: Logger;
  runners: TaskRunners;
  /** Secret values (keys, secrets, tokens) to mask out of error messages. */
  secrets?: readonly string[];
  /** Tasks run at the same time; more wait in phase `queued`. Default 2. */
  concurrency?: number;
  /** This process's id, recorded as the owner of the tasks it starts (`ProcessLease.identity.processId`). */
  processId?: string;
  /** Whether a task's owner is alive (`ProcessLease.isOwnerLive`). Default: only this process is. */
  isOwnerLive?: OwnerLiveness;
}

/** The error recorded for a task that was pending when its process stopped. */
export function interruptedMessage(task: TaskState): string {
  const owner = task.owner_process_id === null ? '' : ` (process ${task.owner_process_id} stopped renewing its lease)`;
  return `interrupted: the API process stopped while the task was pending (phase "${task.phase}")${owner}; start it again`;
}

/** Replaces every occurrence of a secret value with `[redacted]`. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let masked = text;
  for (const secret of secrets) if (secret.length >= 4) masked = masked.split(secret).join('[redacted]');
  return masked;
}

/** Creates the task service. */
export function createTaskService(deps: TaskServiceDeps): TaskService {
  const { store, tasks, projector, logger, runners } = deps;
  const secrets = deps.secrets ?? [];
  const limit = pLimit(deps.concurrency ?? 2);
  const running = new Map<string, Promise<void>>();
  const processId = deps.processId ?? null;
  const isOwnerLive: OwnerLiveness = deps.isOwnerLive ?? ((owner) => owner !== null && owner === processId);

  const append = async (
    taskId: string,
    events: LineageEvent[],
    context: EventContext,
    expectedRevision: 'no_stream' | 'any' = 'any',
  ) => store.append(streams.task(taskId), toAppend(events, context), { expectedRevision });

  async function run<T extends TaskType>(
    taskId: string,
    type: T,
    params: TaskParams[T],
    context: EventContext,
  ): Promise<void> {
    // Progress events are appended one after the other, so that they keep their order.
    let progressChain: Promise<unknown> = Promise.resolve();
    const progress: TaskProgress = (phase, message = null) => {
      progressChain = progressChain
        .then(() =>
          append(
            taskId,
            [
              {
                type: 'TaskProgressed',
                data: { task_id: taskId, phase, message: message === null ? null : maskSecrets(message, secrets) },
              },
            ],
            context,
          ),
        )
        .catch((error: unknown) =>
          logger.warn({ task_id: taskId, err: errorMessage(error) }, 'Task:ProgressNotRecorded'),
        );
    };
    let outcome: LineageEvent;
    try {
      const result =
        type === 'extract'
          ? await runners.extract(params as ExtractTaskParams, progress)
          : await runners.enrich(params as EnrichTaskParams, progress);
      outcome = { type: 'TaskCompleted', data: { task_id: taskId, result } };
    } catch (error) {
      outcome = { type: 'TaskFailed', data: { task_id: taskId, error: maskSecrets(errorMessage(error), secrets) } };
    }
    await progressChain;
    try {
      const appended = await append(taskId, [outcome], context);
      await projector.waitFor(appended.position);
      logger.info({ task_id: taskId, task_type: type, outcome: outcome.type }, 'Task:Finished');
    } catch (error) {
      logger.error({ task_id: taskId, err: errorMessage(error) }, 'Task:OutcomeNotRecorded');
    }
  }

  return {
    async start(type, params) {
      const taskId = randomUUID();
      const context: EventContext = { correlation_id: taskId, cause: 'api', actor: 'api' };
      const created = await append(
        taskId,
        [
          {
            type: 'TaskCreated',
            data: {
              task_id: taskId,
              task_type: type,
              parameters: { ...params } as Record<string, unknown>,
              owner_process_id: processId,
            },
          },
        ],
        context,
        'no_stream',
      );
      await projector.waitFor(created.position);
      const task = tasks.get(taskId)!;
      const done = limit(() => run(taskId, type, params, context)).finally(() => running.delete(taskId));
      running.set(taskId, done);
      return task;
    },
    async failInterrupted() {
      let count = 0;
      for (const task of tasks.list({ status: 'pending' })) {
        if (running.has(task.task_id) || isOwnerLive(task.owner_process_id)) continue;
        try {
          const appended = await store.append(
            streams.task(task.task_id),
            toAppend([{ type: 'TaskFailed', data: { task_id: task.task_id, error: interruptedMessage(task) } }], {
              correlation_id: task.task_id,
              cause: 'system',
              actor: processId === null ? 'api' : `process:${processId}`,
            }),
            { expectedRevision: tasks.revision(task.task_id) },
          );
          await projector.waitFor(appended.position);
          count += 1;
        } catch (error) {
          // Another process recorded the interruption first, or the task moved on: decided again at the next sweep.
          if (!(error instanceof ExpectedRevisionConflictError)) throw error;
        }
      }
      return count;
    },
    async drain(timeoutMs) {
      const all = Promise.allSettled([...running.values()]).then(() => undefined);
      if (timeoutMs === undefined) return all;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      await Promise.race([all, timeout]);
      clearTimeout(timer);
    },
  };
}
