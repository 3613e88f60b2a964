/**
 * Provenance of nodes and edges (issue 22, item 4): when an element was first and last seen, every
 * change to it with the write that made it, and why it was removed. Schemas plus one call each into
 * `services/provenance.ts`:
 *
 * - `GET /api/v1/graphs/{graph_id}/nodes/{node_id}/history?limit=` (`nodeProvenance`);
 * - `GET /api/v1/graphs/{graph_id}/edges/history?src_id=&dst_id=&edge_type=&limit=` (`edgeProvenance`).
 *
 * Errors (problem+json): 400 for a missing or malformed parameter or a `limit` outside 1-500; 404
 * for an unknown graph, or a node or edge the graph never held.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  edgeProvenance,
  MAX_PROVENANCE_CHANGES,
  nodeProvenance,
  type ProvenanceRuntime,
} from '../../../services/provenance.js';
import { problemResponses } from '../problem.js';
import {
  count,
  EdgeResource,
  EdgeTypeQuery,
  GraphIdParams,
  NodeParams,
  NodeResource,
  position,
  SafeId,
} from './schemas.js';

/** Options of the provenance routes. */
export interface ProvenanceRoutesOptions {
  runtime: ProvenanceRuntime;
}

const Limit = z.coerce
  .number()
  .int()
  .min(1)
  .max(MAX_PROVENANCE_CHANGES)
  .optional()
  .describe(`How many of the newest changes to answer (1-${MAX_PROVENANCE_CHANGES}, default 100)`);

const ProvenanceChangeSchema = z.object({
  revision: position('Revision of the graph stream: the history entry of the write'),
  recorded_at: z.string().describe('ISO 8601 time of the write'),
  change: z.enum(['added', 'changed', 'removed']),
  cause: z.string().nullable().describe('Why the write was made: extraction, enrichment, import, api, ingestion'),
  actor: z.string().nullable().describe('Who asked: cli (lineage-svc-extract), api, watcher:{id}, kafka'),
  correlation_id: z.string().nullable().describe('The write; for an extraction, its extraction id'),
  reason: z.string().describe('In words: the write and, for a removal, why the element went'),
  state: z.union([NodeResource, EdgeResource]).nullable().describe('The element after the change; null for a removal'),
});

const ProvenanceSchema = z
  .object({
    graph_id: z.string(),
    element: z.union([
      z.object({ node_id: z.string() }),
      z.object({ src_id: z.string(), dst_id: z.string(), edge_type: z.string() }),
    ]),
    present: z.boolean().describe('Whether the element is in the graph now'),
    first_seen: z.string().describe('ISO 8601 time it was first added'),
    last_seen: z
      .string()
      .describe("ISO 8601: the graph's latest write while the element is present, else the time of its removal"),
    total: count('Changes in all'),
    changes: z.array(ProvenanceChangeSchema).describe('Oldest first: every change, or the newest `limit`'),
  })
  .meta({ id: 'Provenance' });

/** Registers the routes (register with `{ prefix: '/api/v1' }`). */
export const provenanceRoutes: FastifyPluginAsyncZod<ProvenanceRoutesOptions> = async (app, { runtime }) => {
  app.get(
    '/graphs/:graph_id/nodes/:node_id/history',
    {
      schema: {
        tags: ['graphs'],
        summary: "A node's provenance: when it was first and last seen, each change with its write, why it was removed",
        params: NodeParams,
        querystring: z.object({ limit: Limit }),
        response: { 200: ProvenanceSchema, ...problemResponses },
      },
    },
    async (request) => nodeProvenance(runtime, request.params.graph_id, request.params.node_id, request.query.limit),
  );
  app.get(
    '/graphs/:graph_id/edges/history',
    {
      schema: {
        tags: ['graphs'],
        summary:
          "An edge's provenance: when it was first and last seen, each change with its write, why it was removed",
        params: GraphIdParams,
        querystring: z.object({ src_id: SafeId, dst_id: SafeId, edge_type: EdgeTypeQuery, limit: Limit }),
        response: { 200: ProvenanceSchema, ...problemResponses },
      },
    },
    async (request) => {
      const { src_id, dst_id, edge_type, limit } = request.query;
      return edgeProvenance(runtime, request.params.graph_id, { src_id, dst_id, edge_type }, limit);
    },
  );
};
