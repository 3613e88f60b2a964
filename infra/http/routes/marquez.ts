/**
 * The Marquez-compatible read API under `/api/v1` (issue 25; docs/marquez.md): Marquez 0.51's
 * paths, parameters and shapes, so that Marquez Web and Marquez's clients work against lineage-svc
 * unchanged. Each route is a schema plus one call into `services/marquez.ts` or
 * `services/marquezLineage.ts`.
 *
 * `GET /api/v1/lineage` is Marquez's lineage query (it needs `nodeId`); `POST /api/v1/lineage` stays
 * the OpenLineage ingestion both servers share, and our own OpenLineage queries keep their
 * `/api/v1/lineage/...` paths, which Marquez does not use. No other path collides.
 *
 * The writes Marquez Web makes (tags, `PUT /tags/{tag}`, deleting a dataset or job) need the `write`
 * role (`WRITE_ROUTE_ROLES`) and are events (`services/marquezWrites.ts`).
 *
 * Bad parameters are 400 problem+json naming the parameter; an unknown dataset, job, run or node is 404.
 * Every error of these routes (validation, handlers, the key check, the write rate limit) is answered
 * by this plugin's own error handler: the API's problem document with Marquez's error members added
 * (`withMarquezMembers` of `problem.ts`: `code`, `message`, `details`), which Marquez Web's fetch
 * wrapper reads. The API's other routes, and `POST /api/v1/lineage`, are not in this plugin.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  RUN_STATES,
  SEARCH_FILTERS,
  SEARCH_SORTS,
  STATS_ASSETS,
  STATS_PERIODS,
  marquezDataset,
  marquezDatasets,
  marquezJob,
  marquezJobs,
  marquezLineageEvents,
  marquezNamespace,
  marquezNamespaces,
  marquezRun,
  marquezRunFacets,
  marquezRuns,
  marquezSearch,
  marquezStats,
  marquezTags,
  type MarquezRuntime,
} from '../../../services/marquez.js';
import {
  DEFAULT_MARQUEZ_DEPTH,
  DEFAULT_MARQUEZ_MAX_LINEAGE_NODES,
  MAX_MARQUEZ_DEPTH,
  marquezColumnLineage,
  marquezLineage,
  nodeExists,
  parseNodeId,
} from '../../../services/marquezLineage.js';
import { marquezRuntimeAsOf } from '../../../services/marquezAsOf.js';
import { marquezDatasetVersions, marquezJobVersions } from '../../../services/marquezVersions.js';
import {
  marquezDefineTag,
  marquezDeleteDataset,
  marquezDeleteJob,
  marquezTagDataset,
  marquezTagJob,
  type MarquezWriteRuntime,
} from '../../../services/marquezWrites.js';
import { marquezProblemResponses, problemErrorHandler, withMarquezMembers } from '../problem.js';
import { count, paging, rawJsonSerializer, sendSerializedJson } from './schemas.js';
import { EventTimeBound } from './openLineage.js';

/** Options of the Marquez routes. */
export interface MarquezRoutesOptions {
  runtime: MarquezWriteRuntime;
  /**
   * The most datasets and jobs one `GET /lineage` answer holds (`LINEAGE_SVC_MARQUEZ_MAX_LINEAGE_NODES`;
   * default `DEFAULT_MARQUEZ_MAX_LINEAGE_NODES`; 0: no limit).
   */
  maxLineageNodes?: number;
}

const tags = ['marquez'];
const Name = z.string().min(1).max(4096);
const Loose = z.object({}).passthrough();
const withProblems = <T extends object>(responses: T) => ({ ...responses, ...marquezProblemResponses });
const upperCase = (value: unknown) => (typeof value === 'string' ? value.toUpperCase() : value);
/** Marquez's paging: `limit` (default 100) and `offset`. */
const Paging = z.object(paging(100, 1000));
const NamespaceParams = z.object({ namespace: Name.describe('The namespace (percent-encoded in the path)') });
const JobParams = NamespaceParams.extend({ job: Name.describe('The job name') });
const DatasetParams = NamespaceParams.extend({ dataset: Name.describe('The dataset name') });
const RunParams = z.object({ id: Name.describe('The runId') });
const NodeIdQuery = Name.describe(
  'dataset:{namespace}:{name}, job:{namespace}:{name} or datasetField:{namespace}:{name}:{field}',
);
const Depth = z.coerce
  .number()
  .int()
  .min(0)
  .max(MAX_MARQUEZ_DEPTH)
  .default(DEFAULT_MARQUEZ_DEPTH)
  .describe(`Job hops (field hops for column lineage), 0 to ${MAX_MARQUEZ_DEPTH} (default ${DEFAULT_MARQUEZ_DEPTH})`);
const Bool = z.preprocess((value) => (value === 'true' ? true : value === 'false' ? false : value), z.boolean());
/** `lastRunStates`: comma-separated or repeated run states. */
const RunStates = z.preprocess(
  (value) =>
    typeof value === 'string'
      ? value.split(',')
      : Array.isArray(value)
        ? value.flatMap((entry) => String(entry).split(','))
        : value,
  z.array(z.preprocess(upperCase, z.enum(RUN_STATES as unknown as ['NEW']))),
);

/** `as_of` (our extension): a global store position or an ISO 8601 time. */
const MarquezAsOf = z
  .string()
  .min(1)
  .max(64)
  .optional()
  .describe(
    'lineage-svc extension: the lineage as it was at this point: an ISO 8601 time (events recorded at or before it) ' +
      'or a global store position (an integer, as head_position of GET /api/v1/ready)',
  );
const Graph = z.object({ graph: z.array(Loose) }).describe("Marquez's LineageGraph");

/** The raw (not percent-decoded) value of `nodeId` in a request's query string. */
function rawNodeId(url: string): string | undefined {
  const query = url.slice(url.indexOf('?') + 1);
  for (const pair of query.split('&')) if (pair.startsWith('nodeId=')) return pair.slice('nodeId='.length);
  return undefined;
}

/** The fastify instance the route plugins get (zod type provider). */
type App = Parameters<FastifyPluginAsyncZod>[0];

function catalogRoutes(app: App, runtime: MarquezRuntime): void {
  const options = { serializerCompiler: rawJsonSerializer };
  app.get(
    '/namespaces',
    {
      ...options,
      schema: {
        tags,
        summary: 'Marquez: namespaces',
        response: withProblems({ 200: z.object({ namespaces: z.array(Loose) }) }),
      },
    },
    async () => marquezNamespaces(runtime),
  );
  app.get(
    '/namespaces/:namespace',
    {
      ...options,
      schema: {
        tags,
        summary: 'Marquez: one namespace',
        params: NamespaceParams,
        response: withProblems({ 200: Loose }),
      },
    },
    async (request) => marquezNamespace(runtime, request.params.namespace),
  );
  app.get(
    '/tags',
    {
      ...options,
      schema: {
        tags,
        summary: 'Marquez: tags',
        querystring: Paging,
        response: withProblems({ 200: z.object({ tags: z.array(Loose) }) }),
      },
    },
    async (request) => marquezTags(runtime, request.query),
  );
  const JobList = z.object({ jobs: z.array(Loose), totalCount: count('Items in all') });
  app.get(
    '/jobs',
    {
      ...options,
      schema: {
        tags,
        summary: 'Marquez: jobs of every namespace',
        querystring: Paging.extend({ lastRunStates: RunStates.optional() }),
        response: withProblems({ 200: JobList }),
      },
    },
    async (request) => marquezJobs(runtime, request.query),
  );
  app.get(
    '/namespaces/:namespace/jobs',
    {
      ...options,
      schema: {
        tags,
        summary: 'Marquez: jobs of a namespace',
        params: NamespaceParams,
        querystring: Paging.extend({ lastRunStates: RunStates.optional() }),
        response: withProblems({ 200: JobList }),
      },
    },
    async (request) => marquezJobs(runtime, { ...request.query, namespace: request.params.namespace }),
  );
  app.get(
    '/namespaces/:namespace/jobs/:job',
    {
      ...options,
      schema: { tags, summary: 'Marquez: one job', params: JobParams, response: withProblems({ 200: Loose }) },
    },
    async (request) => marquezJob(runtime, request.params.namespace, request.params.job),
  );
  app.get(
    '/namespaces/:namespace/jobs/:job/runs',
    {
      ...options,
      schema: {
        tags,
        summary: 'Marquez: the runs of a job, newest first',
        params: JobParams,
        querystring: Paging,
        response: withProblems({ 200: z.object({ runs: z.array(Loose), totalCount: count('Items in all') }) }),
      },
    },
    async (request) => marquezRuns(runtime, request.params.namespace, request.params.job, request.query),
  );
  app.get(
    '/namespaces/:namespace/jobs/:job/versions',
    {
      ...options,
      schema: {
        tags,
        summary: 'Marquez: the versions of a job (its history entries)',
        params: JobParams,
        querystring: Paging,
        response: withProblems({ 200: z.object({ versions: z.array(Loose), totalCount: count('Items in all') }) }),
      },
    },
    async (request) => marquezJobVersions(runtime, request.params.namespace, request.params.job, request.query),
  );
  app.get(
    '/jobs/runs/:id',
    {
      ...options,
      schema: { tags, summary: 'Marquez: one run', params: RunParams, response: withProblems({ 200: Loose }) },
    },
    async (request) => marquezRun(runtime, request.params.id),
  );
  app.get(
    '/jobs/runs/:id/facets',
    {
      ...options,
      schema: {
        tags,
        summary: "Marquez: a run's run facets or job facets",
        params: RunParams,
        querystring: z.object({ type: z.enum(['run', 'job']).default('run').describe('run (default) or job') }),
        response: withProblems({ 200: z.object({ runId: z.string(), facets: z.record(z.string(), z.unknown()) }) }),
      },
    },
    async (request) => marquezRunFacets(runtime, request.params.id, request.query.type),
  );
}

function datasetRoutes(app: App, runtime: MarquezRuntime): void {
  const options = { serializerCompiler: rawJsonSerializer };
  app.get(
    '/namespaces/:namespace/datasets',
    {
      ...options,
      schema: {
        tags,
        summary: 'Marquez: datasets of a namespace',
        params: NamespaceParams,
        querystring: Paging,
        response: withProblems({ 200: z.object({ datasets: z.array(Loose), totalCount: count('Items in all') }) }),
      },
    },
    async (request) => marquezDatasets(runtime, request.params.namespace, request.query),
  );
  app.get(
    '/namespaces/:namespace/datasets/:dataset',
    {
      ...options,
      schema: { tags, summary: 'Marquez: one dataset', params: DatasetParams, response: withProblems({ 200: Loose }) },
    },
    async (request) => marquezDataset(runtime, request.params.namespace, request.params.dataset),
  );
  app.get(
    '/namespaces/:namespace/datasets/:dataset/versions',
    {
      ...options,
      schema: {
        tags,
        summary: 'Marquez: the versions of a dataset (its history entries)',
        params: DatasetParams,
        querystring: Paging,
        response: withProblems({ 200: z.object({ versions: z.array(Loose), totalCount: count('Items in all') }) }),
      },
    },
    async (request) => marquezDatasetVersions(runtime, request.params.namespace, request.params.dataset, request.query),
  );
}

function lineageRoutes(app: App, runtime: MarquezRuntime, maxLineageNodes: number): void {
  const options = { serializerCompiler: rawJsonSerializer };
  const exists = (at: MarquezRuntime) => (type: 'dataset' | 'job', namespace: string, name: string) =>
    nodeExists(at, type, namespace, name);
  const runtimeAt = async (asOf: string | undefined) =>
    asOf === undefined ? runtime : marquezRuntimeAsOf(runtime, asOf);
  app.get(
    '/lineage',
    {
      ...options,
      schema: {
        tags,
        summary: 'Marquez: the lineage graph around a dataset or a job',
        querystring: z.object({ nodeId: NodeIdQuery, depth: Depth, as_of: MarquezAsOf }),
        response: withProblems({ 200: Graph }),
      },
    },
    async (request, reply) => {
      const at = await runtimeAt(request.query.as_of);
      const node = parseNodeId(request.query.nodeId, rawNodeId(request.url), exists(at));
      if (node.type === 'datasetField') return marquezColumnLineage(at, node, request.query.depth, true);
      return sendSerializedJson(reply, marquezLineage(at, node, request.query.depth, maxLineageNodes).serialize());
    },
  );
  app.get(
    '/column-lineage',
    {
      ...options,
      schema: {
        tags,
        summary: 'Marquez: the column lineage around a dataset or a dataset field',
        querystring: z.object({
          nodeId: NodeIdQuery,
          depth: Depth,
          withDownstream: Bool.default(false),
          as_of: MarquezAsOf,
        }),
        response: withProblems({ 200: Graph }),
      },
    },
    async (request) => {
      const at = await runtimeAt(request.query.as_of);
      const node = parseNodeId(request.query.nodeId, rawNodeId(request.url), exists(at));
      return marquezColumnLineage(at, node, request.query.depth, request.query.withDownstream);
    },
  );
}

function searchAndEventRoutes(app: App, runtime: MarquezRuntime): void {
  const options = { serializerCompiler: rawJsonSerializer };
  app.get(
    '/search',
    {
      ...options,
      schema: {
        tags,
        summary: 'Marquez: search datasets and jobs by name',
        querystring: z.object({
          q: z.string().max(1024).describe('Text the name contains (case-insensitive)'),
          filter: z.preprocess(upperCase, z.enum(SEARCH_FILTERS)).optional(),
          sort: z.preprocess(upperCase, z.enum(SEARCH_SORTS)).optional(),
          limit: z.coerce.number().int().min(1).max(1000).default(10),
          namespace: Name.optional(),
        }),
        response: withProblems({ 200: z.object({ totalCount: count('Items in all'), results: z.array(Loose) }) }),
      },
    },
    async (request) => marquezSearch(runtime, request.query),
  );
  app.get(
    '/events/lineage',
    {
      ...options,
      schema: {
        tags,
        summary: 'Marquez: received OpenLineage events, newest first',
        querystring: Paging.extend({
          before: EventTimeBound.optional().describe('Latest eventTime (ISO 8601, inclusive)'),
          after: EventTimeBound.optional().describe('Earliest eventTime (ISO 8601, inclusive)'),
          sortDirection: z
            .preprocess((value) => (typeof value === 'string' ? value.toLowerCase() : value), z.enum(['asc', 'desc']))
            .default('desc'),
        }),
        response: withProblems({ 200: z.object({ events: z.array(Loose), totalCount: count('Items in all') }) }),
      },
    },
    async (request) => marquezLineageEvents(runtime, request.query),
  );
  app.get(
    '/stats/:asset',
    {
      ...options,
      schema: {
        tags,
        summary: 'Marquez: lineage events, jobs, datasets or sources per interval',
        params: z.object({ asset: z.enum(STATS_ASSETS) }),
        querystring: z.object({
          period: z.preprocess(upperCase, z.enum(STATS_PERIODS)).default('DAY'),
          timezone: z.string().min(1).max(64).default('UTC').describe('IANA time zone of the intervals'),
        }),
        response: withProblems({ 200: z.array(Loose) }),
      },
    },
    async (request) => marquezStats(runtime, request.params.asset, { ...request.query, nowMs: Date.now() }),
  );
}

/** A tag name: 1 to 255 characters, not blank, no control characters (400 otherwise). */
const TagName = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters')
  .regex(/\S/, 'must not be blank')
  .describe('The tag name');
const FieldName = Name.describe("The field name (of the dataset's schema)");

/**
 * The writes Marquez Web makes (role `write`; `services/marquezWrites.ts`): tags on datasets, fields
 * and jobs, `PUT /tags/{tag}`, deleting a dataset or a job. Each answers what Marquez answers.
 */
function writeRoutes(app: App, runtime: MarquezWriteRuntime): void {
  const options = { serializerCompiler: rawJsonSerializer };
  const DatasetTagParams = DatasetParams.extend({ tag: TagName });
  const FieldTagParams = DatasetParams.extend({ field: FieldName, tag: TagName });
  const JobTagParams = JobParams.extend({ tag: TagName });
  for (const [method, add] of [
    ['POST', true],
    ['DELETE', false],
  ] as const) {
    const verb = add ? 'tag' : 'untag';
    app.route({
      method,
      url: '/namespaces/:namespace/datasets/:dataset/tags/:tag',
      ...options,
      schema: {
        tags,
        summary: `Marquez: ${verb} a dataset`,
        params: DatasetTagParams,
        response: withProblems({ 200: Loose }),
      },
      handler: async (request) => {
        const { namespace, dataset, tag } = request.params as z.infer<typeof DatasetTagParams>;
        return marquezTagDataset(runtime, { namespace, name: dataset, field: null, tag, add });
      },
    });
    app.route({
      method,
      url: '/namespaces/:namespace/datasets/:dataset/fields/:field/tags/:tag',
      ...options,
      schema: {
        tags,
        summary: `Marquez: ${verb} a dataset field`,
        params: FieldTagParams,
        response: withProblems({ 200: Loose }),
      },
      handler: async (request) => {
        const { namespace, dataset, field, tag } = request.params as z.infer<typeof FieldTagParams>;
        return marquezTagDataset(runtime, { namespace, name: dataset, field, tag, add });
      },
    });
    app.route({
      method,
      url: '/namespaces/:namespace/jobs/:job/tags/:tag',
      ...options,
      schema: { tags, summary: `Marquez: ${verb} a job`, params: JobTagParams, response: withProblems({ 200: Loose }) },
      handler: async (request) => {
        const { namespace, job, tag } = request.params as z.infer<typeof JobTagParams>;
        return marquezTagJob(runtime, { namespace, name: job, tag, add });
      },
    });
  }
  app.put(
    '/tags/:tag',
    {
      ...options,
      schema: {
        tags,
        summary: 'Marquez: create a tag, or change its description',
        params: z.object({ tag: TagName }),
        body: z
          .object({ description: z.string().max(4096).nullable().optional().describe('What the tag means') })
          .passthrough()
          .nullish(),
        response: withProblems({ 200: z.object({ tags: z.array(Loose) }) }),
      },
    },
    async (request) => marquezDefineTag(runtime, request.params.tag, request.body?.description ?? null),
  );
  app.delete(
    '/namespaces/:namespace/datasets/:dataset',
    {
      ...options,
      schema: {
        tags,
        summary: 'Marquez: delete a dataset',
        params: DatasetParams,
        response: withProblems({ 200: Loose }),
      },
    },
    async (request) => marquezDeleteDataset(runtime, request.params.namespace, request.params.dataset),
  );
  app.delete(
    '/namespaces/:namespace/jobs/:job',
    {
      ...options,
      schema: { tags, summary: 'Marquez: delete a job', params: JobParams, response: withProblems({ 200: Loose }) },
    },
    async (request) => marquezDeleteJob(runtime, request.params.namespace, request.params.job),
  );
}

/**
 * Registers the Marquez routes (register with `{ prefix: '/api/v1' }`, without `fastify-plugin`, so
 * that the error handler set here stays with these routes).
 */
export const marquezRoutes: FastifyPluginAsyncZod<MarquezRoutesOptions> = async (app, { runtime, maxLineageNodes }) => {
  // Encapsulated: answers the errors of the routes below only, with Marquez's members.
  app.setErrorHandler(problemErrorHandler(withMarquezMembers));
  catalogRoutes(app, runtime);
  datasetRoutes(app, runtime);
  lineageRoutes(app, runtime, maxLineageNodes ?? DEFAULT_MARQUEZ_MAX_LINEAGE_NODES);
  searchAndEventRoutes(app, runtime);
  writeRoutes(app, runtime);
};
