/**
 * Field-level impact analysis (issue 26): `GET /api/v1/graphs/{graph_id}/impact` and the
 * column-level diff `GET /api/v1/graphs/{graph_id}/diff/columns`, each a schema and one call into
 * `services/impact.ts` (`fieldImpact`, `columnDiff`). JSON by default; `format=csv` streams one
 * `node_id,field,hops,via` row per column (csv-stringify; `via` `;`-separated), with no row cap.
 *
 * Errors (problem+json): 400 for a bad direction, depth, include or format, a node that is not a
 * dataset, or a malformed `as_of`; 404 for an unknown graph or node, or a field the node is not known
 * to have (the detail lists the known fields).
 */
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  columnDiff,
  DEFAULT_IMPACT_DEPTH,
  fieldImpact,
  IMPACT_DIRECTIONS,
  impactCsvHeader,
  impactCsvRows,
  MAX_IMPACT_DEPTH,
  MIN_IMPACT_DEPTH,
  type ImpactAnswer,
} from '../../../services/impact.js';
import type { ServiceContext } from '../../../services/context.js';
import { ProblemSchema, problemResponses } from '../problem.js';
import { AsOf, count, GraphIdParams, rawJsonSerializer } from './schemas.js';

/** Options of `impactRoutes`. */
export interface ImpactRoutesOptions {
  /** The service context (its runtime is read). */
  context: Pick<ServiceContext, 'runtime'>;
}

/**
 * The depth of a field-level impact, in jobs between the origin and a column: a whole number from
 * `MIN_IMPACT_DEPTH` to `MAX_IMPACT_DEPTH`, `DEFAULT_IMPACT_DEPTH` when not given, on `number`:
 * `z.coerce.number()` for a query string, `z.number()` for a JSON argument (the MCP tool `impact`).
 * The caller describes it for its readers.
 */
export function impactDepth<T extends z.ZodNumber | z.ZodCoercedNumber>(number: T) {
  return number.int().min(MIN_IMPACT_DEPTH).max(MAX_IMPACT_DEPTH).default(DEFAULT_IMPACT_DEPTH);
}

const ImpactColumnSchema = z.object({
  node_id: z.string().describe('The dataset node'),
  field: z.string().describe('Its field; `*` for a dataset reached through a hop of unknown transformation'),
  hops: z.number().int().min(0).max(MAX_IMPACT_DEPTH).describe('Jobs between the origin and this column'),
  via: z.array(z.string()).describe("Those jobs' node ids, in order from the origin"),
  type: z
    .enum(['DIRECT', 'INDIRECT'])
    .describe('INDIRECT: reached only through join keys, filters, group-by or window columns'),
  subtype: z
    .string()
    .describe(
      'OpenLineage subtype of the last edge (IDENTITY, TRANSFORMATION, AGGREGATION, JOIN, FILTER, GROUP_BY, WINDOW), or UNKNOWN',
    ),
});

const ImpactSchema = z
  .object({
    origin: z.object({ node_id: z.string(), field: z.string().describe('As the node spells it') }),
    direction: z.enum(IMPACT_DIRECTIONS),
    columns: z.array(ImpactColumnSchema).describe('Every column reached, by hops, then node id, then field'),
    jobs: z.array(z.string()).describe('Jobs on the columns’ paths and jobs that read a reached column, nearest first'),
    node_count: count('Distinct nodes in the answer: the columns’ datasets and the jobs'),
  })
  .meta({ id: 'FieldImpact' });

const ColumnRef = z.object({ node_id: z.string(), field: z.string() });
const FieldChangeSchema = z.object({
  node_id: z.string().describe('The SCHEMA node or catalog table'),
  field: z.string(),
});
const ColumnEdgeChangeSchema = z.object({
  input: ColumnRef,
  output: ColumnRef,
  job: z.string().nullable().describe('The job of a PRODUCES edge; null for a TRANSFORMS edge'),
  type: z.enum(['DIRECT', 'INDIRECT']),
  subtype: z.string(),
});
const DiffRevision = z
  .number()
  .int()
  .min(-1)
  .max(Number.MAX_SAFE_INTEGER)
  .describe('Revision of the graph stream at that point (-1 before the graph existed; at most 2^53 - 1)');
const ColumnDiffSchema = z
  .object({
    graph_id: z.string(),
    from: z.object({ as_of: z.string(), revision: DiffRevision }),
    to: z.object({ as_of: z.string().nullable(), revision: DiffRevision }),
    fields: z
      .object({ added: z.array(FieldChangeSchema), removed: z.array(FieldChangeSchema) })
      .describe('Fields added to or removed from schemas and catalog tables'),
    column_edges: z
      .object({ added: z.array(ColumnEdgeChangeSchema), removed: z.array(ColumnEdgeChangeSchema) })
      .describe('Column lineage that appeared or went (a statement that stopped reading a column)'),
  })
  .meta({ id: 'ColumnDiff' });

const NotFound = ProblemSchema.describe(
  'Unknown graph or node, or a field the node is not known to have (the detail lists the known fields)',
);

/** Streams an answer as CSV: the header, then one row per column. */
function sendCsv(reply: FastifyReply, answer: ImpactAnswer, indirect: boolean): FastifyReply {
  const csv = stringify({ header: true, columns: impactCsvHeader(indirect) });
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', 'attachment; filename="impact.csv"')
    .send(Readable.from(impactCsvRows(answer, indirect)).pipe(csv));
}

/** Registers `GET /graphs/{graph_id}/impact` (with `{ prefix: '/api/v1' }`). */
export const impactRoutes: FastifyPluginAsyncZod<ImpactRoutesOptions> = async (app, { context }) => {
  app.get(
    '/graphs/:graph_id/impact',
    {
      schema: {
        tags: ['graphs'],
        summary: 'Field-level impact: every column, job and table downstream (or upstream) of one field',
        params: GraphIdParams,
        querystring: z.object({
          node_id: z.string().min(1).max(4096).describe('The dataset node (topic, table, external dataset)'),
          field: z
            .string()
            .min(1)
            .max(1024)
            .describe('The field: a schema field, a catalog column, or nested (after.order_id)'),
          direction: z.enum(IMPACT_DIRECTIONS).default('downstream').describe('downstream (default) or upstream'),
          depth: impactDepth(z.coerce.number()).describe(
            `At most this many jobs between the origin and a column (${MIN_IMPACT_DEPTH}-${MAX_IMPACT_DEPTH}, default ${DEFAULT_IMPACT_DEPTH})`,
          ),
          as_of: AsOf,
          include: z
            .enum(['indirect'])
            .optional()
            .describe('indirect: add columns reached only through INDIRECT lineage'),
          format: z
            .enum(['json', 'csv'])
            .default('json')
            .describe('json (default) or csv (node_id,field,hops,via rows, streamed)'),
        }),
        response: { 200: ImpactSchema, ...problemResponses, 404: NotFound },
      },
      serializerCompiler: rawJsonSerializer,
    },
    async (request, reply) => {
      const { format, ...query } = request.query;
      const answer = await fieldImpact(context, request.params.graph_id, query);
      if (format === 'json') return answer;
      return sendCsv(reply, answer, query.include === 'indirect');
    },
  );
  app.get(
    '/graphs/:graph_id/diff/columns',
    {
      schema: {
        tags: ['graphs'],
        summary: 'Column-level changes between two points: fields of schemas, and column lineage',
        params: GraphIdParams,
        querystring: z.object({
          from: z.string().min(1).max(64).describe('An ISO 8601 time or a revision'),
          to: z.string().min(1).max(64).optional().describe('An ISO 8601 time or a revision; default now'),
        }),
        response: { 200: ColumnDiffSchema, ...problemResponses },
      },
      serializerCompiler: rawJsonSerializer,
    },
    async (request) => columnDiff(context, request.params.graph_id, request.query.from, request.query.to),
  );
};
