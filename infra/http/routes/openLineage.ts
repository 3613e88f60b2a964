/**
 * OpenLineage endpoints under `/api/v1/lineage` (issue 6 items 2-3; `docs/contract.md` section 4;
 * `docs/specification.md`, "Endpoints" -> "Lineage events, datasets, jobs"). Each route is a schema
 * plus one call into `services/openLineage.ts`.
 *
 * Ingestion (`POST /lineage`, the OpenLineage HTTP transport's default path, and `POST /lineage/events`)
 * accepts one event or an array of events, plain or compressed (`Content-Encoding: gzip`, `x-gzip` or
 * `deflate`, see `decompressRequestBody`). Status codes:
 * - 200 `{results, accepted, duplicates, rejected}` when at least one item was accepted or was a
 *   duplicate; rejected items carry their `errors` in `results`;
 * - 400 problem+json when every item was rejected (or the batch is empty), with each item's errors
 *   in `errors` (`[index].path`);
 * - 413 when the body, compressed or decompressed, exceeds the 10 MiB limit; 415 for another
 *   content encoding or a body that is not JSON.
 *
 * The query parameters of the `/lineage/...` reads are checked here, by their zod schemas (400
 * problem+json naming the parameter): the projection (`projections/openLineage/`) never validates
 * HTTP input.
 */
import { createUnzip, type Unzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  DEFAULT_LINEAGE_DEPTH,
  LINEAGE_DIRECTIONS,
  MAX_LINEAGE_DEPTH,
} from '../../../projections/openLineage/index.js';
import { LineageError } from '../../../src/errors.js';
import { parseEventTime } from '../../../src/openlineage/ingest.js';
import { EVENT_TYPES } from '../../../src/openlineage/model.js';
import {
  ingestLineage,
  lineageDatasetDetail,
  lineageDatasets,
  lineageJobDetail,
  lineageJobs,
  lineageOfDataset,
  lineageRunEvents,
  queryLineageEvents,
  type OpenLineageRuntime,
} from '../../../services/openLineage.js';
import { ProblemSchema, problemResponses } from '../problem.js';
import { count, paging, rawJsonSerializer } from './schemas.js';

/** Options of the OpenLineage routes. */
export interface OpenLineageRoutesOptions {
  runtime: OpenLineageRuntime;
}

/** Content encodings of request bodies the ingestion routes decompress. */
export const REQUEST_ENCODINGS = ['gzip', 'x-gzip', 'deflate'] as const;

/** A decompressing stream that reports the compressed bytes read, as fastify's body limit check expects. */
type CountingUnzip = Unzip & { receivedEncodedLength: number };

/**
 * `preParsing` hook: decompresses a `Content-Encoding: gzip`, `x-gzip` or `deflate` (zlib) body.
 * fastify applies the route's body limit to the compressed length (Content-Length) and to the
 * decompressed bytes as they are read, so a zip bomb is cut off at the limit with 413. A corrupt
 * body is a 400; another encoding is a 415. `identity` (or no header) passes the body through.
 */
export async function decompressRequestBody(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: NodeJS.ReadableStream,
): Promise<NodeJS.ReadableStream> {
  const header = request.headers['content-encoding'];
  const encoding = (Array.isArray(header) ? header.join(',') : (header ?? '')).trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return payload;
  if (!(REQUEST_ENCODINGS as readonly string[]).includes(encoding)) {
    throw new LineageError(
      `Content-Encoding "${encoding.slice(0, 40)}" is not supported; send gzip, deflate or an uncompressed body`,
      'UNSUPPORTED_CONTENT_ENCODING',
      415,
    );
  }
  const unzip = createUnzip() as CountingUnzip;
  unzip.receivedEncodedLength = 0;
  // Registered before fastify's own listener: the error it sees is already a 400 with a clear message.
  unzip.on('error', (error: Error & { statusCode?: number }) => {
    error.statusCode = 400;
    error.message = `the ${encoding} request body could not be decompressed: ${error.message}`;
    payload.unpipe(unzip);
    payload.resume();
  });
  payload.on('data', (chunk: Buffer | string) => {
    unzip.receivedEncodedLength += chunk.length;
  });
  payload.pipe(unzip);
  // Frees the decompressor when the answer is sent early (413, 400) while input is still buffered.
  reply.raw.once('close', () => unzip.destroy());
  return unzip;
}

const Name = z.string().min(1).max(4096);
const EventSchema = z
  .record(z.string(), z.unknown())
  .describe('An OpenLineage event as stored (lenient fixes applied)');
const DatasetRefSchema = z.object({ namespace: z.string(), name: z.string() });
const DatasetSummarySchema = z
  .object({
    namespace: z.string(),
    name: z.string(),
    facets: z.record(z.string(), z.unknown()),
    first_seen: z.string(),
    last_seen: z.string(),
  })
  .meta({ id: 'OpenLineageDataset' });
const JobSummarySchema = z
  .object({
    namespace: z.string(),
    name: z.string(),
    facets: z.record(z.string(), z.unknown()),
    latest_run_id: z.string().nullable(),
    latest_event_type: z.string().nullable(),
    latest_event_time: z.string(),
  })
  .meta({ id: 'OpenLineageJob' });
const IngestionResultSchema = z.object({
  index: count('Position of the item in the request, from 0'),
  status: z
    .enum(['accepted', 'duplicate', 'rejected'])
    .describe('accepted: stored now; duplicate: stored before; rejected: not stored'),
  run_id: z.string().optional().describe('runId as received (RunEvents)'),
  run_uuid: z.string().optional().describe('UUID the run is also findable under (differs for a non-UUID runId)'),
  dedupe_key: z.string().optional(),
  warnings: z.array(z.string()).describe('What lenient ingestion fixed or assumed'),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
const IngestionAnswerSchema = z
  .object({
    results: z.array(IngestionResultSchema),
    accepted: count('Items stored now'),
    duplicates: count('Items stored before'),
    rejected: count('Items not stored'),
  })
  .meta({ id: 'OpenLineageIngestion' });
const IngestionBody = z
  .union([z.array(z.unknown()), z.record(z.string(), z.unknown())])
  .describe('One OpenLineage event (RunEvent, JobEvent or DatasetEvent) or an array of them');
const upperCase = (value: unknown) => (typeof value === 'string' ? value.toUpperCase() : value);
const NameQuery = z.object({ namespace: Name.describe('Namespace'), name: Name.describe('Name') });

/**
 * An inclusive eventTime bound (`since`, `until`): an ISO 8601 date-time, with or without a timezone
 * (UTC assumed, as at ingestion: `parseEventTime`), turned into milliseconds since the epoch.
 */
export const EventTimeBound = z
  .string()
  .min(1)
  .max(64)
  .transform((value, context) => {
    const time = parseEventTime(value);
    if (time === null) {
      context.addIssue({ code: 'custom', message: `must be an ISO 8601 date-time, got "${value}"` });
      return z.NEVER;
    }
    return time.ms;
  });

/** The query of `GET /lineage/events`: filters on the job, run, eventType and eventTime, and the page. */
export const EventsQuery = z.object({
  namespace: Name.optional().describe('Job namespace (exact)'),
  job: Name.optional().describe('Job name (exact)'),
  run_id: Name.optional().describe('runId as received, or the UUID of a non-UUID runId'),
  event_type: z.preprocess(upperCase, z.enum(EVENT_TYPES)).optional(),
  since: EventTimeBound.optional().describe('Inclusive lower bound of eventTime (ISO 8601)'),
  until: EventTimeBound.optional().describe('Inclusive upper bound of eventTime (ISO 8601)'),
  ...paging(100, 1000),
});

/**
 * The depth of a dataset lineage read in dataset hops, 1 to `MAX_LINEAGE_DEPTH` (default
 * `DEFAULT_LINEAGE_DEPTH`), on `number`: `z.coerce.number()` for a query string, `z.number()` for a
 * JSON argument (the MCP tool `dataset_lineage`).
 */
export function datasetLineageDepth<T extends z.ZodNumber | z.ZodCoercedNumber>(number: T) {
  return number
    .int()
    .min(1)
    .max(MAX_LINEAGE_DEPTH)
    .default(DEFAULT_LINEAGE_DEPTH)
    .describe(`Dataset hops, 1 to ${MAX_LINEAGE_DEPTH} (default ${DEFAULT_LINEAGE_DEPTH})`);
}

/** The query of `GET /lineage/datasets/lineage`: the origin dataset, the direction and the depth in dataset hops. */
export const DatasetLineageQuerySchema = NameQuery.extend({
  direction: z.enum(LINEAGE_DIRECTIONS).default('upstream'),
  depth: datasetLineageDepth(z.coerce.number()),
});

const tags = ['lineage'];
const withProblems = <T extends object>(responses: T) => ({ ...responses, ...problemResponses });

/** The fastify instance the route plugins get (zod type provider). */
type App = Parameters<FastifyPluginAsyncZod>[0];

/** `POST /lineage` and `POST /lineage/events`: ingestion, through `ingestLineage`. */
function ingestionRoutes(app: App, runtime: OpenLineageRuntime): void {
  const ingestion = {
    preParsing: decompressRequestBody,
    schema: {
      tags,
      body: IngestionBody,
      response: withProblems({
        200: IngestionAnswerSchema,
        413: ProblemSchema.describe('Body over 10 MiB, compressed or not'),
        415: ProblemSchema,
      }),
    },
  };
  const ingestionDescription =
    'Ingests one event or an array. 200 with a result per item when at least one was accepted or a duplicate; ' +
    '400 when all were rejected. Accepts Content-Encoding gzip and deflate.';

  app.post(
    '/lineage',
    {
      ...ingestion,
      schema: {
        ...ingestion.schema,
        summary: 'Ingest OpenLineage events (the OpenLineage HTTP transport path)',
        description: ingestionDescription,
      },
    },
    async (request) => ingestLineage(runtime, request.body),
  );

  app.post(
    '/lineage/events',
    {
      ...ingestion,
      schema: {
        ...ingestion.schema,
        summary: 'Ingest an array of OpenLineage events (or one event)',
        description: ingestionDescription,
      },
    },
    async (request) => ingestLineage(runtime, request.body),
  );
}

/** `GET /lineage/events` and `GET /lineage/events/{run_id}`. */
function eventRoutes(app: App, runtime: OpenLineageRuntime): void {
  app.get(
    '/lineage/events',
    {
      schema: {
        tags,
        summary: 'Stored events, ordered by eventTime, with filters and paging',
        querystring: EventsQuery,
        response: withProblems({
          200: z.object({
            events: z.array(EventSchema),
            total: count('Events matching the filters'),
            limit: count('Page size used'),
            offset: count('Events skipped'),
          }),
        }),
      },
      serializerCompiler: rawJsonSerializer,
    },
    async (request) => queryLineageEvents(runtime, request.query),
  );

  app.get(
    '/lineage/events/:run_id',
    {
      schema: {
        tags,
        summary: 'The events of one run, ordered by eventTime',
        params: z.object({ run_id: Name.describe('runId as received, or the UUID of a non-UUID runId') }),
        response: withProblems({ 200: z.object({ run_id: z.string(), events: z.array(EventSchema) }) }),
      },
      serializerCompiler: rawJsonSerializer,
    },
    async (request) => lineageRunEvents(runtime, request.params.run_id),
  );
}

/** `GET /lineage/datasets`, `/lineage/datasets/detail` and `/lineage/datasets/lineage`. */
function datasetRoutes(app: App, runtime: OpenLineageRuntime): void {
  app.get(
    '/lineage/datasets',
    {
      schema: {
        tags,
        summary: 'Datasets, sorted by namespace then name',
        querystring: z.object({ namespace: Name.optional().describe('Only datasets of this namespace (exact)') }),
        response: withProblems({
          200: z.object({ datasets: z.array(DatasetSummarySchema), total: count('Length of datasets') }),
        }),
      },
      serializerCompiler: rawJsonSerializer,
    },
    async (request) => lineageDatasets(runtime, request.query.namespace),
  );

  app.get(
    '/lineage/datasets/detail',
    {
      schema: {
        tags,
        summary: 'One dataset, with its identities and the jobs that write and read it',
        querystring: NameQuery,
        response: withProblems({
          200: DatasetSummarySchema.extend({
            identities: z.array(DatasetRefSchema),
            produced_by: z.array(DatasetRefSchema),
            consumed_by: z.array(DatasetRefSchema),
          }),
        }),
      },
      serializerCompiler: rawJsonSerializer,
    },
    async (request) => lineageDatasetDetail(runtime, request.query.namespace, request.query.name),
  );

  app.get(
    '/lineage/datasets/lineage',
    {
      schema: {
        tags,
        summary: 'Dataset lineage: the whole events of the jobs within depth dataset hops',
        description:
          'depth counts dataset hops: one upstream hop goes from a dataset through every job that wrote it to ' +
          'that job\u2019s inputs; downstream is the mirror; both is the union.',
        querystring: DatasetLineageQuerySchema,
        response: withProblems({
          200: z.object({
            origin: DatasetRefSchema,
            direction: z.enum(LINEAGE_DIRECTIONS),
            depth: z.number().int().min(1).max(MAX_LINEAGE_DEPTH).describe('Dataset hops asked for'),
            events: z.array(EventSchema),
            datasets_visited: count('Datasets reached'),
            jobs_visited: count('Jobs reached'),
          }),
        }),
      },
      serializerCompiler: rawJsonSerializer,
    },
    async (request) => lineageOfDataset(runtime, request.query),
  );
}

/** `GET /lineage/jobs` and `/lineage/jobs/detail`. */
function jobRoutes(app: App, runtime: OpenLineageRuntime): void {
  app.get(
    '/lineage/jobs',
    {
      schema: {
        tags,
        summary: 'Jobs, sorted by namespace then name',
        querystring: z.object({ namespace: Name.optional().describe('Only jobs of this namespace (exact)') }),
        response: withProblems({ 200: z.object({ jobs: z.array(JobSummarySchema), total: count('Length of jobs') }) }),
      },
      serializerCompiler: rawJsonSerializer,
    },
    async (request) => lineageJobs(runtime, request.query.namespace),
  );

  app.get(
    '/lineage/jobs/detail',
    {
      schema: {
        tags,
        summary: 'One job with the inputs and outputs of its latest run',
        querystring: NameQuery,
        response: withProblems({
          200: z.object({
            job: z.object({ namespace: z.string(), name: z.string(), facets: z.record(z.string(), z.unknown()) }),
            latest_run: z
              .object({ run_id: z.string(), event_type: z.string().nullable(), event_time: z.string() })
              .nullable(),
            latest_inputs: z.array(EventSchema),
            latest_outputs: z.array(EventSchema),
          }),
        }),
      },
      serializerCompiler: rawJsonSerializer,
    },
    async (request) => lineageJobDetail(runtime, request.query.namespace, request.query.name),
  );
}

/** Registers the `/lineage/...` routes (register with `{ prefix: '/api/v1' }`). */
export const openLineageRoutes: FastifyPluginAsyncZod<OpenLineageRoutesOptions> = async (app, { runtime }) => {
  ingestionRoutes(app, runtime);
  eventRoutes(app, runtime);
  datasetRoutes(app, runtime);
  jobRoutes(app, runtime);
};
