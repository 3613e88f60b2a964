/**
 * Watcher endpoints under `/api/v1` (`docs/specification.md`, "Endpoints" -> "Watcher service";
 * `docs/contract.md` section 4, "Watchers"):
 *
 * | route | answer |
 * |---|---|
 * | `POST /watchers` body `{environment_ids, cluster_ids?, cooldown_seconds?, poll_interval_seconds?, push?}` | 201 `{watcher_id, state}` |
 * | `GET /watchers?state=` | 200 `{watchers: [Watcher], total}`, newest first |
 * | `GET /watchers/{watcher_id}` | 200 Watcher (status) |
 * | `POST /watchers/{watcher_id}/stop` | 200 Watcher, STOPPED (idempotent) |
 * | `GET /watchers/{watcher_id}/events?limit=` | 200 `{events: [change + detected_at], total}`, newest first |
 * | `GET /watchers/{watcher_id}/history?limit=` | 200 `{extractions: [...], total}`, newest first |
 * | `DELETE /watchers/{watcher_id}` | 204 (stops it if running, then forgets it) |
 *
 * Unknown (or deregistered) watcher: 404. Bad body: 400. Too many running watchers: 409. Every
 * error is problem+json. Durations are in seconds (`cooldown_seconds`, `poll_interval_seconds`)
 * except `duration_ms`.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { count, limitParameter, position, SafeId } from './schemas.js';
import { NotFoundError, ValidationError } from '../../../src/errors.js';
import { WATCHER_STATES } from '../../../src/events.js';
import { CATALOG_TYPES } from '../../../src/graph/model.js';
import type { WatcherProjection, WatcherState } from '../../../projections/watcherProjection.js';
import { ProblemSchema, problemResponses } from '../problem.js';
import type { WatcherService } from '../../../services/watchers.js';

/** Options of the watcher routes. */
export interface WatcherRoutesOptions {
  watchers: WatcherProjection;
  service: WatcherService;
  /** Smallest `poll_interval_seconds` accepted, in seconds (`LINEAGE_SVC_MIN_POLL_INTERVAL_SECONDS`); default 0.1. */
  minPollIntervalSeconds?: number;
}

const idList = z.array(SafeId).max(1000);
const upperCase = (value: unknown) => (typeof value === 'string' ? value.toUpperCase() : value);

/** Body of `POST /watchers`; unknown fields are rejected. */
export const StartWatcherSchema = z
  .object({
    environment_ids: idList.min(1).describe('Environments to watch (env-...); at least one'),
    cluster_ids: idList.default([]).describe('Cluster filter (lkc-...); default every cluster'),
    cooldown_seconds: z
      .number()
      .min(0)
      .max(86_400)
      .default(30)
      .describe('Quiet time after the last change before extracting, in seconds; default 30.0'),
    poll_interval_seconds: z
      .number()
      .min(0.1)
      .max(86_400)
      .default(10)
      .describe('Time between two polls, in seconds; default 10.0'),
    push: z
      .array(z.preprocess(upperCase, z.enum(CATALOG_TYPES)))
      .max(CATALOG_TYPES.length)
      .default([])
      .describe('Catalog types to push to after each extraction'),
  })
  .strict();

const WATCHER_STATE = z.enum(WATCHER_STATES);

/** A watcher as the API shows it. */
export const WatcherSchema = z
  .object({
    watcher_id: z.string(),
    state: WATCHER_STATE,
    reason: z.string().nullable().describe('Why the last state change happened'),
    environment_ids: z.array(z.string()),
    cluster_ids: z.array(z.string()),
    cooldown_seconds: z.number().min(0).max(86_400).describe('Quiet time after the last change, in seconds'),
    poll_interval_seconds: z.number().min(0).max(86_400).describe('Time between two polls, in seconds'),
    push: z.array(z.string()),
    running_here: z.boolean().describe('True when this API process runs the watcher'),
    started_at: z.string(),
    updated_at: z.string(),
    stopped_at: z.string().nullable(),
    last_change_at: z.string().nullable(),
    last_extraction_at: z.string().nullable(),
    change_count: count('Changes detected so far'),
    extraction_count: count('Extractions started so far'),
  })
  .meta({ id: 'Watcher' });

const ChangeSchema = z
  .object({
    kind: z.enum(['created', 'updated', 'deleted']),
    resource_type: z.string().describe('topic, connector, sql_cluster, stream_job or schema'),
    resource_id: z.string(),
    environment_id: z.string().nullable(),
    detected_at: z.string(),
  })
  .meta({ id: 'WatcherChange' });

const ExtractionSchema = z
  .object({
    extraction_id: z.string(),
    graph_id: z.string(),
    status: z.enum(['running', 'completed', 'failed']),
    started_at: z.string(),
    completed_at: z.string().nullable(),
    node_count: count('Nodes in the graph after the extraction').nullable(),
    edge_count: count('Edges in the graph after the extraction').nullable(),
    graph_revision: position('Revision of the graph stream after the extraction').nullable(),
    changes: z.record(z.string(), count()).nullable().describe('Nodes and edges added, changed and removed'),
    error: z.string().nullable(),
    duration_ms: z.number().min(0).nullable().describe('How long it took, in milliseconds (no upper bound)'),
  })
  .meta({ id: 'WatcherExtraction' });

const params = z.object({ watcher_id: z.string().min(1).max(256) });
const limitQuery = (max: number, fallback: number) =>
  z.object({ limit: limitParameter(fallback, max, 'Most items to list') });
const responses = { ...problemResponses, 409: ProblemSchema.describe('Too many running watchers') };
const tags = ['watchers'];

/** The Fastify instance the watcher routes are registered on. */
type WatcherApp = Parameters<FastifyPluginAsyncZod<WatcherRoutesOptions>>[0];

/** A watcher as the API shows it; `running_here` when this process runs it. */
function view(watcher: WatcherState, service: WatcherService): z.infer<typeof WatcherSchema> {
  return {
    watcher_id: watcher.watcher_id,
    state: watcher.state,
    reason: watcher.reason,
    environment_ids: watcher.environment_ids,
    cluster_ids: watcher.cluster_ids,
    cooldown_seconds: watcher.cooldown_seconds,
    poll_interval_seconds: watcher.poll_interval_seconds,
    push: watcher.push,
    running_here: service.running().includes(watcher.watcher_id),
    started_at: watcher.started_at,
    updated_at: watcher.updated_at,
    stopped_at: watcher.stopped_at,
    last_change_at: watcher.last_change_at,
    last_extraction_at: watcher.last_extraction_at,
    change_count: watcher.change_count,
    extraction_count: watcher.extraction_count,
  };
}

/** The watcher `watcherId`. @throws NotFoundError when there is none. */
function find(watchers: WatcherProjection, watcherId: string): WatcherState {
  const watcher = watchers.get(watcherId);
  if (!watcher) throw new NotFoundError(`watcher "${watcherId}" not found`);
  return watcher;
}

/** `POST /watchers` (start one, at least `minPollIntervalSeconds` between polls) and `GET /watchers` (list them). */
function registerWatcherCollectionRoutes(
  app: WatcherApp,
  { watchers, service, minPollIntervalSeconds }: Required<WatcherRoutesOptions>,
): void {
  app.post(
    '/watchers',
    {
      schema: {
        tags,
        summary: 'Start a watcher: it extracts once, then polls and re-extracts after each quiet period',
        body: StartWatcherSchema,
        response: { 201: z.object({ watcher_id: z.string(), state: WATCHER_STATE }), ...responses },
      },
    },
    async (request, reply) => {
      const body = request.body;
      if (body.poll_interval_seconds < minPollIntervalSeconds)
        throw new ValidationError(
          `poll_interval_seconds must be at least ${minPollIntervalSeconds} (LINEAGE_SVC_MIN_POLL_INTERVAL_SECONDS)`,
          [{ path: 'body.poll_interval_seconds', message: `must be at least ${minPollIntervalSeconds} seconds` }],
        );
      const watcher = await service.start({
        environmentIds: [...new Set(body.environment_ids)],
        clusterIds: [...new Set(body.cluster_ids)],
        cooldownSeconds: body.cooldown_seconds,
        pollIntervalSeconds: body.poll_interval_seconds,
        push: [...new Set(body.push)],
      });
      return reply.code(201).send({ watcher_id: watcher.watcher_id, state: watcher.state });
    },
  );

  app.get(
    '/watchers',
    {
      schema: {
        tags,
        summary: 'Watchers, newest first (deregistered ones are not listed)',
        querystring: z.object({
          state: WATCHER_STATE.optional(),
          limit: limitParameter(100, 1000, 'Most watchers to list'),
        }),
        response: {
          200: z.object({ watchers: z.array(WatcherSchema), total: count('Watchers matching the filter') }),
          ...problemResponses,
        },
      },
    },
    async (request) => {
      const matching = watchers.list({ state: request.query.state });
      return {
        watchers: matching.slice(0, request.query.limit).map((watcher) => view(watcher, service)),
        total: matching.length,
      };
    },
  );
}

/** `GET /watchers/{id}` (its status) and `POST /watchers/{id}/stop`. */
function registerWatcherStatusRoutes(app: WatcherApp, watchers: WatcherProjection, service: WatcherService): void {
  app.get(
    '/watchers/:watcher_id',
    {
      schema: { tags, summary: 'Status of one watcher', params, response: { 200: WatcherSchema, ...problemResponses } },
    },
    async (request) => view(find(watchers, request.params.watcher_id), service),
  );

  app.post(
    '/watchers/:watcher_id/stop',
    {
      schema: {
        tags,
        summary: 'Stop a watcher (idempotent)',
        params,
        response: { 200: WatcherSchema, ...problemResponses },
      },
    },
    async (request) => view(await service.stop(request.params.watcher_id), service),
  );
}

/** `GET /watchers/{id}/events` (changes detected) and `GET /watchers/{id}/history` (extractions run), newest first. */
function registerWatcherActivityRoutes(app: WatcherApp, watchers: WatcherProjection): void {
  app.get(
    '/watchers/:watcher_id/events',
    {
      schema: {
        tags,
        summary: 'Changes the watcher detected, newest first',
        params,
        querystring: limitQuery(1000, 100),
        response: {
          200: z.object({ events: z.array(ChangeSchema), total: count('Changes detected in all') }),
          ...problemResponses,
        },
      },
    },
    async (request) => {
      const watcher = find(watchers, request.params.watcher_id);
      const events = watcher.changes
        .slice(-request.query.limit)
        .reverse()
        .map(({ position: _position, ...change }) => change);
      return { events, total: watcher.change_count };
    },
  );

  app.get(
    '/watchers/:watcher_id/history',
    {
      schema: {
        tags,
        summary: 'Extractions the watcher ran, newest first',
        params,
        querystring: limitQuery(500, 50),
        response: {
          200: z.object({
            extractions: z.array(ExtractionSchema),
            total: count('Extractions started in all'),
          }),
          ...problemResponses,
        },
      },
    },
    async (request) => {
      const watcher = find(watchers, request.params.watcher_id);
      const extractions = watcher.extractions
        .slice(-request.query.limit)
        .reverse()
        .map(({ position: _position, ...extraction }) => extraction);
      return { extractions, total: watcher.extraction_count };
    },
  );
}

/** `DELETE /watchers/{id}`: stops the watcher if running and forgets it. */
function registerWatcherDeregisterRoute(app: WatcherApp, service: WatcherService): void {
  app.delete(
    '/watchers/:watcher_id',
    {
      schema: {
        tags,
        summary: 'Deregister a watcher: stop it if running and forget it',
        params,
        response: { 204: z.null().describe('Deregistered'), ...problemResponses },
      },
    },
    async (request, reply) => {
      await service.deregister(request.params.watcher_id);
      return reply.code(204).send(null);
    },
  );
}

/** Registers the watcher routes (register with `{ prefix: '/api/v1' }`). */
export const watcherRoutes: FastifyPluginAsyncZod<WatcherRoutesOptions> = async (
  app,
  { watchers, service, minPollIntervalSeconds = 0.1 },
) => {
  registerWatcherCollectionRoutes(app, { watchers, service, minPollIntervalSeconds });
  registerWatcherStatusRoutes(app, watchers, service);
  registerWatcherActivityRoutes(app, watchers);
  registerWatcherDeregisterRoute(app, service);
};
