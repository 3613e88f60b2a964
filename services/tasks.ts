/**
 * Tasks: long-running work (extraction, enrichment) started through the API and run in-process.
 * A task is the stream `task-{task_id}`: `TaskCreated` when accepted, `TaskProgressed` for each phase
 * the runner reports, then `TaskCompleted` with a result or `TaskFailed` with an error. The API reads
 * tasks from the task projection (`projections/taskProjection.ts`), so a restarted server still lists
 * them; at start `failInterrupted` marks tasks left pending by a previous process as failed.
 *
 * Specification "States and transitions" (Async task status) and contract section 4 ("Tasks"): a
 * task that cannot run is still accepted and ends `failed` with an error that names the cause;
 * configured secret values are masked out of every error message before it is recorded.
 */
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { errorMessage } from '../src/errors.js';
import type { EventStore } from '../src/eventStore.js';
import { streams, toAppend, type EventContext, type LineageEvent } from '../src/events.js';
import type { Logger } from '../src/logger.js';
import type { Projector } from '../projections/projector.js';
import type { TaskProjection, TaskState, TaskType } from '../projections/taskProjection.js';

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
  /** Marks every pending task not run by this process as failed (interrupted); resolves with how many. */
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
}

/** The error recorded for a task that was pending when its process stopped. */
export function interruptedMessage(task: TaskState): string {
  return `interrupted: the API process stopped while the task was pending (phase "${task.phase}"); start it again`;
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
            data: { task_id: taskId, task_type: type, parameters: { ...params } as Record<string, unknown> },
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
        if (running.has(task.task_id)) continue;
        const appended = await append(
          task.task_id,
          [{ type: 'TaskFailed', data: { task_id: task.task_id, error: interruptedMessage(task) } }],
          {
            correlation_id: task.task_id,
            cause: 'system',
            actor: 'api',
          },
        );
        await projector.waitFor(appended.position);
        count += 1;
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
