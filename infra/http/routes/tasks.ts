/**
 * Task endpoints under `/api/v1` (`docs/specification.md`, "Endpoints" -> "Tasks and push", and
 * "States and transitions" -> "Async task status"; `docs/contract.md` section 4, "Tasks"):
 * `POST /tasks/extract` (and the short `POST /extract`), `POST /tasks/enrich`, `GET /tasks`,
 * `GET /tasks/{task_id}`. Starting a task answers 202 `{task_id, status}` at once; the work runs
 * in-process (`services/tasks.ts`).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { count, limitParameter, noUnsafeCharacters, SafeId, UNSAFE_CHARACTERS_MESSAGE } from './schemas.js';
import type { Config } from '../../../src/config.js';
import { NotFoundError, ValidationError } from '../../../src/errors.js';
import { TASK_TYPES } from '../../../src/events.js';
import { TASK_STATUSES, type TaskProjection, type TaskState } from '../../../projections/taskProjection.js';
import { problemResponses } from '../problem.js';
import type { ExtractTaskParams, TaskService } from '../../../services/tasks.js';

/** Options of the task routes. */
export interface TaskRoutesOptions {
  config: Config;
  tasks: TaskProjection;
  service: TaskService;
}

const idList = z.array(SafeId).max(1000);
const lookbackHours = z
  .number()
  .positive()
  .max(24 * 30);

/** Body of `POST /tasks/extract`; unknown fields (credentials in particular) are rejected. */
export const ExtractRequestSchema = z
  .object({
    environment_ids: idList.optional().describe('Environments to extract (or query environment_ids)'),
    cluster_ids: idList.optional().describe('Cluster filter; default every cluster'),
    enable_metrics: z.boolean().optional().describe('Default LINEAGE_SVC_ENABLE_METRICS'),
    metrics_lookback_hours: lookbackHours.optional().describe('Metrics window in hours; default 1'),
  })
  .strict();

/** Body of `POST /tasks/enrich`. */
export const EnrichRequestSchema = z
  .object({
    graph_id: z.string().min(1).max(256).nullish().describe('Graph to enrich; default the most recently changed graph'),
    enable_catalog: z.boolean().default(true),
    enable_metrics: z.boolean().default(false),
    metrics_lookback_hours: lookbackHours.default(1),
  })
  .strict();

/** A task as the API shows it. */
export const TaskSchema = z
  .object({
    task_id: z.string(),
    task_type: z.enum(TASK_TYPES),
    status: z.enum(TASK_STATUSES),
    phase: z.string().describe('queued, a runner phase such as "Phase 2/4", done, or the phase reached when it failed'),
    message: z.string().nullable(),
    parameters: z.record(z.string(), z.unknown()),
    result: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe('When completed: graph_id, node_count, edge_count, ...'),
    error: z.string().nullable().describe('When failed: the cause (never a secret)'),
    created_at: z.string(),
    updated_at: z.string(),
    completed_at: z.string().nullable(),
  })
  .meta({ id: 'Task' });

const AcceptedSchema = z.object({ task_id: z.string(), status: z.enum(TASK_STATUSES) });

/** A task without its internal ordering key. */
export function taskView(task: TaskState): z.infer<typeof TaskSchema> {
  const { position: _position, ...view } = task;
  return view;
}

/**
 * Extraction parameters from the query (`environment_ids`, comma-separated) and the body; the body's
 * lists win when both are given.
 * @throws ValidationError when no environment is named.
 */
export function extractParams(
  query: string | undefined,
  body: z.infer<typeof ExtractRequestSchema> | undefined,
  config: Config,
): ExtractTaskParams {
  const fromQuery = (query ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  const environmentIds = body?.environment_ids ?? fromQuery;
  if (environmentIds.length === 0) {
    throw new ValidationError(
      'environment_ids is required: give it as a query parameter (comma-separated) or in the JSON body',
      [{ path: 'body.environment_ids', message: 'at least one environment id is required' }],
    );
  }
  return {
    environment_ids: [...new Set(environmentIds)],
    cluster_ids: [...new Set(body?.cluster_ids ?? [])],
    enable_metrics: body?.enable_metrics ?? config.enableMetrics,
    metrics_lookback_hours: body?.metrics_lookback_hours ?? 1,
  };
}

const tags = ['tasks'];

/** Registers the task routes (register with `{ prefix: '/api/v1' }`). */
export const taskRoutes: FastifyPluginAsyncZod<TaskRoutesOptions> = async (app, { config, tasks, service }) => {
  const extractSchema = {
    tags,
    summary: 'Start an extraction; poll GET /tasks/{task_id}',
    querystring: z.object({
      environment_ids: z
        .string()
        .max(10_000)
        .refine(noUnsafeCharacters, UNSAFE_CHARACTERS_MESSAGE)
        .optional()
        .describe('Comma-separated environment ids'),
    }),
    body: ExtractRequestSchema.nullish(),
    response: { 202: AcceptedSchema, ...problemResponses },
  };
  for (const path of ['/tasks/extract', '/extract']) {
    app.post(path, { schema: extractSchema }, async (request, reply) => {
      const task = await service.start(
        'extract',
        extractParams(request.query.environment_ids, request.body ?? undefined, config),
      );
      return reply.code(202).send({ task_id: task.task_id, status: task.status });
    });
  }

  app.post(
    '/tasks/enrich',
    {
      schema: {
        tags,
        summary: 'Start an enrichment; poll GET /tasks/{task_id}',
        body: EnrichRequestSchema.nullish(),
        response: { 202: AcceptedSchema, ...problemResponses },
      },
    },
    async (request, reply) => {
      const body = EnrichRequestSchema.parse(request.body ?? {});
      const task = await service.start('enrich', { ...body, graph_id: body.graph_id ?? null });
      return reply.code(202).send({ task_id: task.task_id, status: task.status });
    },
  );

  app.get(
    '/tasks',
    {
      schema: {
        tags,
        summary: 'Tasks, newest first',
        querystring: z.object({
          type: z.enum(TASK_TYPES).optional(),
          status: z.enum(TASK_STATUSES).optional(),
          limit: limitParameter(100, 1000, 'Most tasks to list'),
        }),
        response: {
          200: z.object({ tasks: z.array(TaskSchema), total: count('Tasks matching the filters') }),
          ...problemResponses,
        },
      },
    },
    async (request) => {
      const matching = tasks.list({ type: request.query.type, status: request.query.status });
      return { tasks: matching.slice(0, request.query.limit).map(taskView), total: matching.length };
    },
  );

  app.get(
    '/tasks/:task_id',
    {
      schema: {
        tags,
        summary: 'One task',
        params: z.object({ task_id: z.string().min(1).max(256) }),
        response: { 200: TaskSchema, ...problemResponses },
      },
    },
    async (request) => {
      const task = tasks.get(request.params.task_id);
      if (!task) throw new NotFoundError(`task "${request.params.task_id}" not found`);
      return taskView(task);
    },
  );
};
