/**
 * Two reads about nodes under `/api/v1/graphs` that the web UI uses (`docs/api.md`, "Graphs";
 * `docs/ui.md`): the shortest path between two nodes, and one node in its OpenLineage form. Each
 * route is a schema (with its OpenAPI description and example inline) plus one call into
 * `services/paths.ts`.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { graphPath, nodeOpenLineage, type NodeOpenLineageRuntime } from '../../../services/paths.js';
import { ProblemSchema, problemResponses } from '../problem.js';
import { AsOf, EdgeResource, GraphIdParams, NodeParams, NodeResource, rawJsonSerializer } from './schemas.js';

/** Options of `pathRoutes`. */
export interface PathRoutesOptions {
  /** The graphs, and the OpenLineage projection for the runs of ingested events. */
  runtime: NodeOpenLineageRuntime;
}

const tags = ['graphs'];
const withProblems = <T extends object>(responses: T) => ({ ...responses, ...problemResponses });
const NodeId = z.string().min(1).max(4096);

const EXAMPLE_TOPIC = {
  id: 'stream:topic:env-1:lkc-1/orders',
  node_type: 'TOPIC',
  system: 'STREAM',
  qualified_name: 'lkc-1/orders',
  display_name: 'orders',
  environment_id: 'env-1',
  cluster_id: 'lkc-1',
  attributes: {},
};
const EXAMPLE_CONNECTOR = {
  id: 'stream:connector:env-1:lkc-1/orders-sink',
  node_type: 'CONNECTOR',
  system: 'STREAM',
  qualified_name: 'lkc-1/orders-sink',
  display_name: 'orders-sink',
  environment_id: 'env-1',
  cluster_id: 'lkc-1',
  attributes: { connector_class: 'S3_SINK' },
};

const PathSchema = z
  .object({
    graph_id: z.string(),
    from: z.string().describe('The `from` node id, as asked'),
    to: z.string().describe('The `to` node id, as asked'),
    direction: z
      .enum(['downstream', 'upstream'])
      .nullable()
      .describe('downstream: the edges run from `from` to `to`; upstream: from `to` to `from`; null: not connected'),
    nodes: z.array(NodeResource).describe('The path from `from` to `to`, both included; empty when not connected'),
    edges: z.array(EdgeResource).describe('One edge per hop, in the order of `nodes`, each as stored'),
  })
  .describe('The shortest path, or empty lists and a null direction when the two nodes are not connected')
  .meta({
    examples: [
      {
        graph_id: '0b6f3f5e-6a55-4d1c-9f55-3a1d2c0e7a10',
        from: EXAMPLE_TOPIC.id,
        to: EXAMPLE_CONNECTOR.id,
        direction: 'downstream',
        nodes: [EXAMPLE_TOPIC, EXAMPLE_CONNECTOR],
        edges: [{ src_id: EXAMPLE_TOPIC.id, dst_id: EXAMPLE_CONNECTOR.id, edge_type: 'CONSUMES', attributes: {} }],
      },
    ],
  });

const RunReferenceSchema = z.object({
  namespace: z.string(),
  name: z.string(),
  run_id: z.string().nullable().describe("runId of the job's latest run; null when unknown"),
  event_type: z.string().nullable(),
  event_time: z.string().nullable().describe('ISO 8601'),
  source: z
    .enum(['graph', 'ingested'])
    .describe('graph: a job of this graph; ingested: from OpenLineage events received'),
});

const NodeOpenLineageSchema = z
  .object({
    graph_id: z.string(),
    node_id: z.string(),
    kind: z.enum(['job', 'dataset']).nullable().describe('null for a node that is neither (a schema)'),
    event: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe('A job: its COMPLETE RunEvent, as GET /graphs/enriched/view lists it'),
    dataset: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe('A dataset: namespace, name and facets, as the RunEvents list it'),
    runs: z
      .object({ written_by: z.array(RunReferenceSchema), read_by: z.array(RunReferenceSchema) })
      .describe('A dataset: the runs that wrote and read it (ingested ones as known now, whatever as_of)'),
  })
  .describe('The node in its OpenLineage form')
  .meta({
    examples: [
      {
        graph_id: '0b6f3f5e-6a55-4d1c-9f55-3a1d2c0e7a10',
        node_id: EXAMPLE_TOPIC.id,
        kind: 'dataset',
        event: null,
        dataset: { namespace: 'stream://env-1/lkc-1', name: 'orders', facets: {} },
        runs: {
          written_by: [],
          read_by: [
            {
              namespace: 'stream://env-1/lkc-1',
              name: 'orders-sink',
              run_id: '1f0c9a52-7d3e-5b8e-9c1a-2b3c4d5e6f70',
              event_type: 'COMPLETE',
              event_time: '2025-01-31T12:00:00.000Z',
              source: 'graph',
            },
          ],
        },
      },
    ],
  });

const NotFound = ProblemSchema.describe('Unknown graph, or the node named in `detail` is not in it');

/** Registers `GET /graphs/{graph_id}/path` and `GET /graphs/{graph_id}/nodes/{node_id}/openlineage` (with `{ prefix: '/api/v1' }`). */
export const pathRoutes: FastifyPluginAsyncZod<PathRoutesOptions> = async (app, { runtime }) => {
  app.get(
    '/graphs/:graph_id/path',
    {
      schema: {
        tags,
        operationId: 'getGraphPath',
        summary: 'The shortest path between two nodes',
        description:
          'The shortest directed path from `from` to `to` following edge directions (direction `downstream`); ' +
          'when there is none, the shortest from `to` to `from` (direction `upstream`), still listed from `from`. ' +
          'Every edge type counts as one hop. Two nodes that are not connected either way answer 200 with empty ' +
          '`nodes` and `edges` and a null `direction`. Node ids are percent-encoded in the query.',
        params: GraphIdParams,
        querystring: z.object({
          from: NodeId.describe('Node id where the path starts'),
          to: NodeId.describe('Node id where the path ends'),
          as_of: AsOf,
        }),
        response: withProblems({ 200: PathSchema, 404: NotFound }),
      },
      serializerCompiler: rawJsonSerializer,
    },
    async (request) => {
      const { from, to, as_of: asOf } = request.query;
      return graphPath(runtime, request.params.graph_id, from, to, asOf);
    },
  );

  app.get(
    '/graphs/:graph_id/nodes/:node_id/openlineage',
    {
      schema: {
        tags,
        operationId: 'getNodeOpenLineage',
        summary: 'A node in its OpenLineage form, with the runs that wrote and read a dataset',
        description:
          'A job (connector, query, stream job, consumer group, catalog job) answers its COMPLETE RunEvent as ' +
          '`GET /graphs/enriched/view` lists it. A dataset answers its namespace, name and facets, and the runs ' +
          'that wrote it and read it: the jobs of this graph (their RunEvent runId) and the jobs of ingested ' +
          'OpenLineage events (their latest run, as known now). A schema answers `kind: null`.',
        params: NodeParams,
        querystring: z.object({ as_of: AsOf }),
        response: withProblems({ 200: NodeOpenLineageSchema, 404: NotFound }),
      },
      serializerCompiler: rawJsonSerializer,
    },
    async (request) => nodeOpenLineage(runtime, request.params.graph_id, request.params.node_id, request.query.as_of),
  );
};
