/**
 * Graph endpoints under `/api/v1/graphs` (specification "Endpoints / Graphs"; contract section 4
 * "Graphs" and "History"). Each route is a schema plus one call into `services/graphs.ts`.
 *
 * Writes (create, import, add node, add edge, delete) append events; reads come from the projection,
 * or with `as_of` from the graph's stream folded up to that point. Whole graphs and traversals come
 * back from the service as values; the route asks them for their JSON (`serialize`) and sends it.
 */
import { validatorCompiler, type FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MAX_TRAVERSAL_HOPS } from '../../../projections/traversal/index.js';
import { graphDrawing } from '../../../services/graphDrawing.js';
import { graphGroups } from '../../../services/graphGroups.js';
import {
  createEmptyGraph,
  diffGraphHistory,
  exportGraph,
  getNode,
  graphHistory,
  graphWithContent,
  importValidatedGraph,
  listEdges,
  listGraphs,
  listNodes,
  putEdge,
  putNode,
  readGraph,
  removeGraph,
  traverseGraph,
  type GraphRuntime,
  resolveGraphId,
} from '../../../services/graphs.js';
import { lineageView, type OpenLineageRuntime } from '../../../services/openLineage.js';
import { registerImportBodyParser, validateGraphImportBody } from '../graphImport.js';
import { ProblemSchema, problemResponses } from '../problem.js';
import {
  AsOf,
  ChangeCountsResource,
  count,
  MAX_COUNT,
  position,
  EdgeInput,
  EdgeResource,
  EdgeTypeQuery,
  GraphIdParams,
  LineageGraphInput,
  LineageGraphResource,
  NodeInput,
  NodeParams,
  NodeResource,
  NodeTypeQuery,
  SystemQuery,
  paging,
  rawJsonSerializer,
  sendSerializedJson,
  noUnsafeCharacters,
  UNSAFE_CHARACTERS_MESSAGE,
} from './schemas.js';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifySchemaCompiler } from 'fastify';
import { EXPORT_FORMATS } from '../../../src/export/index.js';
import { exportGraphAs, exportTraversalAs, type GraphExport } from '../../../services/graphExport.js';

/** `?format=`: how a graph or a traversal is exported (default `json`, the API's own answer). */
const ExportFormatQuery = z
  .enum(EXPORT_FORMATS)
  .default('json')
  .describe(`One of ${EXPORT_FORMATS.join(', ')}; default json (the API's own answer)`);

/**
 * The parts, with a turn of the event loop after each (`setImmediate`), so that the requests and
 * answers waiting meanwhile (the UI's grouped overview, its proxy's relaying) are not held up by
 * the serialization of a whole graph.
 */
async function* afterEachPart(parts: Iterable<string>): AsyncGenerator<string, void, undefined> {
  for (const part of parts) {
    yield part;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Sends JSON part by part, other requests running in between (a 100,000-node graph is 55 MB of JSON). */
function sendJsonParts(reply: FastifyReply, parts: Iterable<string>): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(Readable.from(afterEachPart(parts)));
}

/** Options of the graph routes. */
export interface GraphRoutesOptions {
  /** The graph runtime, plus the OpenLineage projection that the views and lineage queries read. */
  runtime: GraphRuntime & OpenLineageRuntime;
}

/**
 * Largest body `POST /graphs/{id}/import` accepts, in bytes (128 MiB): a 100,000-node graph file is
 * about 100 MB (specification, "Limits"). Every other route has the app's limit (10 MiB).
 */
export const IMPORT_BODY_LIMIT = 128 * 1024 * 1024;

/** The zod validator compiler, except that the body passes as given (the import validates its own). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const bodyAsGiven: FastifySchemaCompiler<any> = (route) =>
  route.httpPart === 'body' ? (data: unknown) => ({ value: data }) : validatorCompiler(route);

/** Default number of hops of a traversal. */
export const DEFAULT_HOPS = 3;
/** Largest number of hops a traversal may ask for (the traversal's own limit). */
export const MAX_HOPS = MAX_TRAVERSAL_HOPS;

const GraphSummarySchema = z
  .object({
    graph_id: z.string(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    node_count: count('Nodes in the graph'),
    edge_count: count('Edges in the graph'),
    revision: position('Revision of the graph stream'),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
  })
  .meta({ id: 'GraphSummary' });

const GraphSchema = GraphSummarySchema.extend({ nodes: z.array(NodeResource), edges: z.array(EdgeResource) });

/** Indexes of a column: a non-negative integer, where `what` says into which list. */
const indexInto = (what: string) => count(`Index in ${what}`);

/** `GET /graphs/{id}/drawing` (`services/graphDrawing.ts`): the graph's summary, then its nodes and edges in columns. */
const GraphDrawingSchema = GraphSummarySchema.extend({
  node_types: z.array(z.string()).describe('Distinct node types, indexed by nodes.node_type'),
  systems: z.array(z.string()).describe('Distinct systems, indexed by nodes.system'),
  edge_types: z.array(z.string()).describe('Distinct edge types, indexed by edges.edge_type'),
  environments: z.array(z.string()).describe('Distinct environment ids, indexed by nodes.environment'),
  clusters: z.array(z.string()).describe('Distinct cluster ids, indexed by nodes.cluster'),
  nodes: z
    .object({
      id: z.array(z.string()),
      node_type: z.array(indexInto('node_types')),
      system: z.array(indexInto('systems')),
      display_name: z.array(z.string()),
      qualified_name: z.array(z.string().nullable()).describe('Null where it equals the display name'),
      environment: z.array(indexInto('environments').nullable()).describe('Null: outside any environment'),
      cluster: z.array(indexInto('clusters').nullable()).describe('Null: outside any cluster'),
    })
    .describe('One entry per node in every column, in the graph’s order; a node’s index is its position'),
  edges: z
    .object({
      source: z.array(indexInto('nodes')),
      target: z.array(indexInto('nodes')),
      edge_type: z.array(indexInto('edge_types')),
    })
    .describe('One entry per edge in every column, in the graph’s order'),
  internal: z.array(indexInto('nodes')).describe('Nodes whose attributes mark them internal (internal: true)'),
  throughput: z
    .object({
      node: z.array(indexInto('nodes')),
      received_bytes: z.array(z.number().nullable()).describe('metrics_received_bytes of the latest sample'),
      sent_bytes: z.array(z.number().nullable()).describe('metrics_sent_bytes of the latest sample'),
    })
    .describe('The latest metric sample of each node that has one, one entry per such node'),
});

const TraversalSchema = z.object({
  origin: NodeResource,
  direction: z.enum(['upstream', 'downstream']),
  hops: z.number().int().min(1).max(MAX_HOPS).describe('Hops asked for'),
  nodes: z.array(
    NodeResource.extend({
      hop: z.number().int().min(1).max(MAX_HOPS).describe('Distance from the origin, 1 for a neighbor'),
    }),
  ),
  edges: z.array(EdgeResource),
  node_count: count('Length of nodes'),
  edge_count: count('Length of edges'),
});

const DiffPointSchema = z.object({
  as_of: z.string().nullable(),
  revision: position('Revision of the graph stream at that point'),
  time: z.string().nullable(),
});
const changed = <T extends z.ZodType>(item: T) => z.array(z.object({ id: z.string(), before: item, after: item }));

const tags = ['graphs'];
const withProblems = <T extends object>(responses: T) => ({ ...responses, ...problemResponses });

/** The fastify instance the graph routes are registered on. */
type RouteApp = Parameters<FastifyPluginAsyncZod<GraphRoutesOptions>>[0];

/** Registers the graph routes (register with `{ prefix: '/api/v1' }`). */
export const graphRoutes: FastifyPluginAsyncZod<GraphRoutesOptions> = async (app, { runtime }) => {
  // Every `/graphs/:graph_id` route accepts a graph's unique name as well as its id: the name is
  // turned into the id before validation, so handlers and answers only ever see ids.
  app.addHook('preValidation', async (request) => {
    const params = request.params as { graph_id?: string } | undefined;
    if (params?.graph_id !== undefined) params.graph_id = resolveGraphId(runtime, params.graph_id);
  });
  graphListRoutes(app, runtime);
  viewRoutes(app, runtime);
  wholeGraphRoutes(app, runtime);
  nodeRoutes(app, runtime);
  edgeRoutes(app, runtime);
  traversalRoutes(app, runtime);
  historyRoutes(app, runtime);
};

/** `GET /graphs` and `POST /graphs`. */
function graphListRoutes(app: RouteApp, runtime: GraphRoutesOptions['runtime']): void {
  app.get(
    '/graphs',
    {
      schema: {
        tags,
        summary: 'List graphs, most recently changed first',
        response: withProblems({ 200: z.object({ graphs: z.array(GraphSummarySchema) }) }),
      },
    },
    async () => ({ graphs: listGraphs(runtime) }),
  );

  app.post(
    '/graphs',
    {
      schema: {
        tags,
        summary: 'Create an empty graph',
        body: z
          .object({
            name: z.string().max(200).refine(noUnsafeCharacters, UNSAFE_CHARACTERS_MESSAGE).nullish(),
            description: z.string().max(2000).nullish(),
          })
          .strict()
          .nullish(),
        response: withProblems({ 201: GraphSummarySchema }),
      },
    },
    async (request, reply) => reply.code(201).send(await createEmptyGraph(runtime, request.body ?? {})),
  );
}

/** The OpenLineage views of a graph: `GET /graphs/confluent/view` and `/graphs/enriched/view`. */
function viewRoutes(app: RouteApp, runtime: GraphRoutesOptions['runtime']): void {
  // The views come before `/graphs/:graph_id` so that the literal segments read as the interface
  // (find-my-way prefers static segments anyway). They only read: the `/lineage/...` queries join the
  // graphs' jobs by themselves (`projections/openLineage/extracted.ts`).
  const ViewAnswerSchema = z.object({
    view: z.enum(['confluent', 'enriched']),
    graph_id: z.string(),
    systems: z.array(z.string()).nullable().describe('Systems kept, upper-case; null for all'),
    events: z.array(z.record(z.string(), z.unknown())).describe('OpenLineage 2-0-2 COMPLETE RunEvents, one per job'),
    count: count('Length of events'),
  });
  const ViewGraphQuery = z
    .string()
    .min(1)
    .max(256)
    .optional()
    .describe('Graph id; default the most recently changed graph');

  app.get(
    '/graphs/confluent/view',
    {
      schema: {
        tags,
        summary: 'OpenLineage view of the stream platform only (one COMPLETE RunEvent per job)',
        querystring: z.object({ graph_id: ViewGraphQuery }),
        response: withProblems({ 200: ViewAnswerSchema }),
      },
      serializerCompiler: rawJsonSerializer,
    },
    async (request) => lineageView(runtime, 'confluent', request.query),
  );

  app.get(
    '/graphs/enriched/view',
    {
      schema: {
        tags,
        summary: 'OpenLineage view across systems (one COMPLETE RunEvent per job)',
        querystring: z.object({
          graph_id: ViewGraphQuery,
          systems: z
            .string()
            .max(256)
            .optional()
            .describe(
              'Comma-separated systems to keep: stream, lakehouse, datalake, warehouse, external (case-insensitive); all when absent',
            ),
        }),
        response: withProblems({ 200: ViewAnswerSchema }),
      },
      serializerCompiler: rawJsonSerializer,
    },
    async (request) => lineageView(runtime, 'enriched', request.query),
  );
}

/** One whole graph: read (`GET`), delete, import and export. */
function wholeGraphRoutes(app: RouteApp, runtime: GraphRoutesOptions['runtime']): void {
  app.get(
    '/graphs/:graph_id',
    {
      schema: {
        tags,
        summary: 'A graph with all its nodes and edges',
        params: GraphIdParams,
        querystring: z.object({ as_of: AsOf }),
        response: withProblems({ 200: GraphSchema }),
      },
      serializerCompiler: rawJsonSerializer,
    },
    async (request, reply) => {
      const graph = await graphWithContent(runtime, request.params.graph_id, request.query.as_of);
      return sendJsonParts(reply, graph.jsonParts());
    },
  );

  app.get(
    '/graphs/:graph_id/drawing',
    {
      schema: {
        tags,
        summary: 'What drawing a whole graph needs: its nodes and edges in columns, types and ids as indexes',
        params: GraphIdParams,
        querystring: z.object({ as_of: AsOf }),
        response: withProblems({ 200: GraphDrawingSchema }),
      },
      serializerCompiler: rawJsonSerializer,
    },
    async (request, reply) => {
      const answer = await graphDrawing(runtime, request.params.graph_id, request.query.as_of);
      return sendJsonParts(reply, answer.jsonParts());
    },
  );

  app.delete(
    '/graphs/:graph_id',
    {
      schema: {
        tags,
        summary: 'Delete a graph (its history stays readable)',
        params: GraphIdParams,
        response: withProblems({
          200: z.object({
            graph_id: z.string(),
            status: z.literal('deleted'),
            revision: position('Revision of the graph stream after the deletion'),
          }),
          409: ProblemSchema,
        }),
      },
    },
    async (request) => removeGraph(runtime, request.params.graph_id),
  );

  // The import lives in a fastify context of its own, whose JSON body parser (`readImportBody`) hands
  // the route the body's chunks as received, and it skips the body schema's validation (the schema
  // still documents the body): `validateGraphImportBody` joins, parses and validates them, a large
  // body in a worker thread, so that no import holds the event loop (issue 23).
  void app.register(async (importContext) => importRoute(importContext, runtime));
}

/** `POST /graphs/{graph_id}/import`, registered in a context of its own (`registerImportBodyParser`). */
function importRoute(app: RouteApp, runtime: GraphRoutesOptions['runtime']): void {
  registerImportBodyParser(app);
  app.post(
    '/graphs/:graph_id/import',
    {
      bodyLimit: IMPORT_BODY_LIMIT,
      validatorCompiler: bodyAsGiven,
      schema: {
        tags,
        summary: 'Import nodes and edges (merge: upsert; replace: make the graph equal to the body)',
        description:
          'Bodies up to 128 MiB. A body that is not a valid graph is answered 400 with its first 1,000 problems ' +
          '(`errors`) and, when there were more, their count (`error_count`).',
        params: GraphIdParams,
        querystring: z.object({ mode: z.enum(['merge', 'replace']).default('merge') }),
        body: LineageGraphInput,
        response: withProblems({
          200: z.object({
            graph_id: z.string(),
            mode: z.enum(['merge', 'replace']),
            revision: position('Revision of the graph stream after the import'),
            changes: ChangeCountsResource,
            node_count: count('Nodes in the graph after the import'),
            edge_count: count('Edges in the graph after the import'),
          }),
          409: ProblemSchema,
        }),
      },
    },
    async (request) => {
      const { graph_id: graphId } = request.params;
      const { mode } = request.query;
      await readGraph(runtime, graphId); // 404 before the body is read through
      const body = request.body as unknown as Buffer[];
      const validated = await validateGraphImportBody(body, { deferUnknownEndpoints: mode === 'merge' });
      return importValidatedGraph(runtime, graphId, validated, mode);
    },
  );

  app.get(
    '/graphs/:graph_id/export',
    {
      schema: {
        tags,
        summary: 'The graph as LineageGraph JSON (default), GraphML, GEXF, DOT or Mermaid',
        description:
          'With `format` other than `json`, the answer is that format as text (GraphML and GEXF for Gephi, yEd and ' +
          'Cytoscape; DOT for Graphviz; Mermaid for GitHub and wikis), streamed, with a file name to save it under.',
        params: GraphIdParams,
        querystring: z.object({ as_of: AsOf, format: ExportFormatQuery }),
        response: withProblems({ 200: LineageGraphResource }),
      },
      serializerCompiler: rawJsonSerializer,
    },
    async (request, reply) => {
      const { as_of: asOf, format } = request.query;
      if (format !== 'json')
        return sendExport(reply, await exportGraphAs(runtime, request.params.graph_id, format, asOf));
      const graph = await exportGraph(runtime, request.params.graph_id, asOf);
      return sendSerializedJson(reply, graph.serialize());
    },
  );
}

/** Sends an export as a streamed attachment. */
function sendExport(reply: FastifyReply, answer: GraphExport): FastifyReply {
  return reply
    .type(answer.contentType)
    .header('content-disposition', `attachment; filename="${answer.filename}"`)
    .send(Readable.from(answer.chunks));
}

/** The nodes of a graph: list, read one, add or replace one. */
function nodeRoutes(app: RouteApp, runtime: GraphRoutesOptions['runtime']): void {
  app.get(
    '/graphs/:graph_id/nodes',
    {
      schema: {
        tags,
        summary: 'List nodes, with filters',
        params: GraphIdParams,
        querystring: z.object({
          node_type: NodeTypeQuery.optional(),
          system: SystemQuery.optional(),
          environment_id: z.string().max(256).optional(),
          cluster_id: z.string().max(256).optional(),
          search: z
            .string()
            .max(256)
            .optional()
            .describe('Case-insensitive substring of display_name or qualified_name'),
          ...paging(1000, 10_000),
          as_of: AsOf,
        }),
        response: withProblems({
          200: z.object({
            nodes: z.array(NodeResource),
            total: count('Items matching the filters'),
            limit: count('Page size used'),
            offset: count('Items skipped'),
          }),
        }),
      },
      serializerCompiler: rawJsonSerializer,
    },
    async (request) => listNodes(runtime, request.params.graph_id, request.query),
  );

  app.get(
    '/graphs/:graph_id/nodes/:node_id',
    {
      schema: {
        tags,
        summary: 'One node',
        params: NodeParams,
        querystring: z.object({ as_of: AsOf }),
        response: withProblems({ 200: NodeResource }),
      },
    },
    async (request) => getNode(runtime, request.params.graph_id, request.params.node_id, request.query.as_of),
  );

  app.post(
    '/graphs/:graph_id/nodes',
    {
      schema: {
        tags,
        summary: 'Add a node (201), or replace the node with the same id (200)',
        params: GraphIdParams,
        body: NodeInput,
        response: withProblems({ 200: NodeResource, 201: NodeResource, 409: ProblemSchema }),
      },
    },
    async (request, reply) => {
      const { created, node } = await putNode(runtime, request.params.graph_id, request.body);
      return reply.code(created ? 201 : 200).send(node);
    },
  );
}

/** The edges of a graph: list, add or replace one. */
function edgeRoutes(app: RouteApp, runtime: GraphRoutesOptions['runtime']): void {
  app.get(
    '/graphs/:graph_id/edges',
    {
      schema: {
        tags,
        summary: 'List edges, with filters',
        params: GraphIdParams,
        querystring: z.object({
          edge_type: EdgeTypeQuery.optional(),
          node_id: z.string().max(4096).optional().describe('Only edges with this node at either end'),
          ...paging(1000, 10_000),
          as_of: AsOf,
        }),
        response: withProblems({
          200: z.object({
            edges: z.array(EdgeResource),
            total: count('Items matching the filters'),
            limit: count('Page size used'),
            offset: count('Items skipped'),
          }),
        }),
      },
      serializerCompiler: rawJsonSerializer,
    },
    async (request) => listEdges(runtime, request.params.graph_id, request.query),
  );

  app.post(
    '/graphs/:graph_id/edges',
    {
      schema: {
        tags,
        summary: 'Add an edge (201), or replace the attributes of the same edge (200); both ends must exist (404)',
        params: GraphIdParams,
        body: EdgeInput,
        response: withProblems({ 200: EdgeResource, 201: EdgeResource, 409: ProblemSchema }),
      },
    },
    async (request, reply) => {
      const { created, edge } = await putEdge(runtime, request.params.graph_id, request.body);
      return reply.code(created ? 201 : 200).send(edge);
    },
  );
}

/** Upstream and downstream traversals from a node. */
function traversalRoutes(app: RouteApp, runtime: GraphRoutesOptions['runtime']): void {
  for (const direction of ['upstream', 'downstream'] as const) {
    app.get(
      `/graphs/:graph_id/query/${direction}/:node_id`,
      {
        schema: {
          tags,
          summary: `Nodes and edges ${direction} of a node, within hops`,
          params: NodeParams,
          querystring: z.object({
            hops: z.coerce
              .number()
              .int()
              .min(1)
              .max(MAX_HOPS)
              .default(DEFAULT_HOPS)
              .describe(`1 to ${MAX_HOPS} (default ${DEFAULT_HOPS})`),
            as_of: AsOf,
            format: ExportFormatQuery,
          }),
          response: withProblems({ 200: TraversalSchema }),
        },
        serializerCompiler: rawJsonSerializer,
      },
      async (request, reply) => {
        const { graph_id: graphId, node_id: nodeId } = request.params;
        const { hops, as_of: asOf, format } = request.query;
        if (format !== 'json') {
          return sendExport(
            reply,
            await exportTraversalAs(runtime, { graphId, nodeId, direction, hops, format, asOf }),
          );
        }
        const traversal = await traverseGraph(
          runtime,
          graphId,
          nodeId,
          direction,
          request.query.hops,
          request.query.as_of,
        );
        return sendSerializedJson(reply, traversal.serialize());
      },
    );
  }
}

/** The history of a graph and the difference between two points of it. */
function historyRoutes(app: RouteApp, runtime: GraphRoutesOptions['runtime']): void {
  app.get(
    '/graphs/:graph_id/groups',
    {
      schema: {
        tags,
        summary: 'The grouped overview: nodes counted per environment, cluster and type, edges per pair of groups',
        params: GraphIdParams,
        querystring: z.object({
          as_of: AsOf,
          max_groups: z.coerce
            .number()
            .int()
            .min(1)
            .max(MAX_COUNT)
            .optional()
            .describe(
              'At most this many groups: clusters are merged into their environment, then environments, until they fit (default: none merged)',
            ),
        }),
        response: withProblems({
          200: z.object({
            graph_id: z.string(),
            revision: position('Revision of the graph stream answered'),
            node_count: count('Nodes of the graph'),
            edge_count: count('Edges of the graph'),
            merged: z
              .enum(['none', 'clusters', 'environments'])
              .describe(
                'What max_groups merged: none; clusters (a group is an environment and a type); environments (a group is a type)',
              ),
            groups: z.array(
              z.object({
                environment_id: z.string().nullable().describe('Null: nodes outside any environment'),
                cluster_id: z.string().nullable().describe('Null: nodes outside any cluster'),
                node_type: z.string(),
                node_count: count('Nodes of this environment, cluster and type'),
              }),
            ),
            links: z.array(
              z.object({
                source: count('Index in groups of the edges’ sources'),
                target: count('Index in groups of the edges’ targets'),
                edge_count: count('Edges from the source group to the target group'),
              }),
            ),
          }),
        }),
      },
    },
    async (request) =>
      graphGroups(runtime, request.params.graph_id, request.query.as_of, { maxGroups: request.query.max_groups }),
  );

  app.get(
    '/graphs/:graph_id/history',
    {
      schema: {
        tags,
        summary: 'The changes of a graph, oldest first',
        params: GraphIdParams,
        response: withProblems({
          200: z.object({
            graph_id: z.string(),
            changes: z.array(
              z.object({
                revision: position('Revision of the graph stream after the change'),
                time: z.string(),
                cause: z.string(),
                actor: z.string().nullable(),
                correlation_id: z.string().nullable(),
                kind: z.enum(['created', 'changed', 'deleted']),
                counts: ChangeCountsResource,
              }),
            ),
          }),
        }),
      },
    },
    async (request) => graphHistory(runtime, request.params.graph_id),
  );

  app.get(
    '/graphs/:graph_id/diff',
    {
      schema: {
        tags,
        summary: 'What changed between two points of a graph (each an ISO 8601 time or a revision)',
        params: GraphIdParams,
        querystring: z.object({
          from: z.string().min(1).max(64).describe('Start point: an ISO 8601 time or a revision'),
          to: z.string().min(1).max(64).optional().describe('End point (default: now)'),
        }),
        response: withProblems({
          200: z.object({
            graph_id: z.string(),
            from: DiffPointSchema,
            to: DiffPointSchema,
            nodes: z.object({
              added: z.array(NodeResource),
              removed: z.array(NodeResource),
              changed: changed(NodeResource),
            }),
            edges: z.object({
              added: z.array(EdgeResource),
              removed: z.array(EdgeResource),
              changed: changed(EdgeResource),
            }),
          }),
        }),
      },
      serializerCompiler: rawJsonSerializer,
    },
    async (request) => diffGraphHistory(runtime, request.params.graph_id, request.query.from, request.query.to),
  );
}
