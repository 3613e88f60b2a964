/**
 * Push endpoints under `/api/v1` (`docs/specification.md`, "Endpoints" -> "Tasks and push"):
 *
 * - `POST /lineage/push`: body `catalog_type` (`LAKEHOUSE_CATALOG`, `DATALAKE_CATALOG`,
 *   `WAREHOUSE_LINEAGE`, `DATA_GOVERNANCE`; required), `set_properties` (default true),
 *   `set_comments` (default true), `create_bridge_table` (default false) — the three switches apply
 *   to the lakehouse — and `graph_id` (default the most recently changed graph).
 * - `POST /push/{provider}`: `provider` is a catalog type or a short name (`lakehouse`, `datalake`,
 *   `warehouse`, `data_governance`; any case, `-` or `_`); optional body with the same switches and
 *   `graph_id` (also accepted as query `graph_id`).
 *
 * Both run synchronously and answer 200 with `{catalog_type, graph_id, tables_updated,
 * properties_set, comments_set, bridge_rows_inserted, errors, skipped, results}` (`results`: one
 * `{kind, name, node_id?, status, reason?, error?}` per table or job, status `updated`,
 * `unchanged`, `skipped` or `failed`); catalog-side failures are in `errors` / `skipped` /
 * `results`, not in the status. 400 when the provider is not configured (the detail
 * names the variables to set) or not implemented yet, or for a malformed body; 404 for an unknown
 * provider name or graph, or when there is no graph yet. Unknown body fields are rejected (400).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findCatalogEntry, PROVIDER_NAMES } from '../../../src/catalogs/registry.js';
import { NotFoundError } from '../../../src/errors.js';
import { CATALOG_TYPES } from '../../../src/graph/model.js';
import { problemResponses } from '../problem.js';
import { count } from './schemas.js';
import { pushGraph } from '../../../services/push.js';
import type { ServiceContext } from '../../../services/context.js';

/** Options of the push routes: the use cases' context (its catalog gateway does the pushing). */
export interface PushRoutesOptions {
  context: Pick<ServiceContext, 'runtime' | 'catalogs'>;
}

const switches = {
  set_properties: z.boolean().default(true).describe('Write the lineage_svc.* table properties (lakehouse)'),
  set_comments: z.boolean().default(true).describe('Write the table comment tree (lakehouse)'),
  create_bridge_table: z
    .boolean()
    .default(false)
    .describe('Create {catalog}.default.stream_lineage and write one row per upstream node (lakehouse)'),
  graph_id: z.string().min(1).max(256).nullish().describe('Graph to push; default the most recently changed graph'),
};

/** Body of `POST /lineage/push`. */
export const LineagePushRequestSchema = z.object({ catalog_type: z.enum(CATALOG_TYPES), ...switches }).strict();
/** Body of `POST /push/{provider}`. */
export const ProviderPushRequestSchema = z.object(switches).strict();

/** One table's or job's outcome (`PushItemResult` of `src/catalogs/provider.ts`). */
export const PushItemResultSchema = z
  .object({
    kind: z.enum(['table', 'job']).describe('table: lakehouse and datalake tables; job: lineage events'),
    name: z.string().describe("The table's qualified name or the job's {namespace}:{name}"),
    node_id: z.string().optional(),
    status: z.enum(['updated', 'unchanged', 'skipped', 'failed']),
    reason: z.string().optional().describe('Why it was skipped'),
    error: z.string().optional().describe('What failed'),
  })
  .meta({ id: 'PushItemResult' });

/** The answer of both push endpoints. */
export const PushResultSchema = z
  .object({
    catalog_type: z.enum(CATALOG_TYPES),
    graph_id: z.string(),
    tables_updated: count('Tables where at least one statement succeeded'),
    properties_set: count('Table properties written'),
    comments_set: count('Table comments written'),
    bridge_rows_inserted: count('Rows written to the bridge table'),
    errors: z.array(z.string()),
    skipped: z.array(z.string()),
    results: z
      .array(PushItemResultSchema)
      .describe(
        'Per table or job: updated, unchanged (the catalog already held it), skipped with a reason, failed with an error',
      ),
  })
  .meta({ id: 'PushResult' });

const tags = ['push'];

/** Registers the push routes (register with `{ prefix: '/api/v1' }`). */
export const pushRoutes: FastifyPluginAsyncZod<PushRoutesOptions> = async (app, { context }) => {
  app.post(
    '/lineage/push',
    {
      schema: {
        tags,
        summary: 'Push lineage metadata of a graph into one catalog (synchronous)',
        body: LineagePushRequestSchema,
        response: { 200: PushResultSchema, ...problemResponses },
      },
    },
    async (request) => {
      const { catalog_type, graph_id, ...options } = request.body;
      return pushGraph(context, { catalogType: catalog_type, graphId: graph_id, options });
    },
  );

  app.post(
    '/push/:provider',
    {
      schema: {
        tags,
        summary: 'Push lineage metadata of a graph into one catalog provider (synchronous)',
        params: z.object({
          provider: z
            .string()
            .max(64)
            .describe(`One of ${PROVIDER_NAMES.join(', ')}`),
        }),
        querystring: z.object({ graph_id: z.string().min(1).max(256).optional() }),
        body: ProviderPushRequestSchema.nullish(),
        response: { 200: PushResultSchema, ...problemResponses },
      },
    },
    async (request) => {
      const entry = findCatalogEntry(request.params.provider);
      if (!entry)
        throw new NotFoundError(
          `no catalog provider "${request.params.provider}"; known: ${PROVIDER_NAMES.join(', ')}`,
        );
      const { graph_id, ...options } = ProviderPushRequestSchema.parse(request.body ?? {});
      return pushGraph(context, {
        catalogType: entry.catalogType,
        graphId: graph_id ?? request.query.graph_id,
        options,
      });
    },
  );
};
