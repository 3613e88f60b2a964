/**
 * zod schemas shared by the route plugins: graph shapes reused from the model (`src/graph/model.ts`)
 * with OpenAPI component names, the raw serializer used by routes whose answers can hold a whole
 * graph, and the sending of JSON serialized already.
 */
import type { FastifyReply, FastifySerializerCompiler } from 'fastify';
import { z } from 'zod';
import {
  AttributesSchema,
  CATALOG_TYPES,
  EDGE_TYPES,
  EdgeSchema,
  LineageGraphSchema,
  NODE_TYPES,
  NodeSchema,
  SYSTEMS,
} from '../../../src/graph/model.js';
import type { PooledBytes } from '../../../projections/traversal/index.js';
import { unsafeCharacterMessage } from '../../../src/graph/validation.js';
import { EXAMPLE_GRAPH_ID, EXAMPLE_NODE_ID } from '../openApiExamples.js';

/** A node in a request body: the model's schema (accepts lower-case enums, fills defaults). */
export const NodeInput = NodeSchema;
/** An edge in a request body: the model's schema. */
export const EdgeInput = EdgeSchema;
/** A whole graph in a request body, the graph file form: the model's schema. */
export const LineageGraphInput = LineageGraphSchema;

/**
 * A node as answered (OpenAPI component `Node`). The model's schema upper-cases enums on input with
 * a one-way transform, which the response serializer cannot encode, so answers use this plain
 * form of the same fields.
 */
export const NodeResource = z
  .object({
    id: z.string(),
    node_type: z.enum(NODE_TYPES),
    system: z.enum(SYSTEMS),
    qualified_name: z.string(),
    display_name: z.string(),
    environment_id: z.string().nullable(),
    cluster_id: z.string().nullable(),
    attributes: AttributesSchema,
    catalog_type: z.enum(CATALOG_TYPES).nullable().optional(),
  })
  .meta({ id: 'Node' });
/** An edge as answered (OpenAPI component `Edge`). */
export const EdgeResource = z
  .object({ src_id: z.string(), dst_id: z.string(), edge_type: z.enum(EDGE_TYPES), attributes: AttributesSchema })
  .meta({ id: 'Edge' });
/** A whole graph as answered (OpenAPI component `LineageGraph`). */
export const LineageGraphResource = z
  .object({
    nodes: z.array(NodeResource),
    edges: z.array(EdgeResource),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'LineageGraph' });

/** Upper-cases query values so that `topic` and `TOPIC` are accepted alike. */
const upperCase = (value: unknown) => (typeof value === 'string' ? value.toUpperCase() : value);
export const NodeTypeQuery = z.preprocess(upperCase, z.enum(NODE_TYPES));
export const SystemQuery = z.preprocess(upperCase, z.enum(SYSTEMS));
export const EdgeTypeQuery = z.preprocess(upperCase, z.enum(EDGE_TYPES));

/** `as_of`: an ISO 8601 time or a graph stream revision (contract section 4, "History"). */
export const AsOf = z
  .string()
  .min(1)
  .max(64)
  .optional()
  .describe(
    'Read the graph as it was at this point: an ISO 8601 time (e.g. 2025-01-31T12:00:00Z) or a stream revision (an integer)',
  );

/** Path parameter `graph_id`. */
export const GraphIdParams = z.object({
  graph_id: z
    .string()
    .min(1)
    .max(256)
    .describe('Graph id (a UUID) or unique name')
    .meta({ examples: [EXAMPLE_GRAPH_ID] }),
});

/** Path parameters of one node: `node_id` percent-encoded (it holds colons and slashes). */
export const NodeParams = GraphIdParams.extend({
  node_id: z
    .string()
    .min(1)
    .max(4096)
    .describe('Node id, percent-encoded in the path (e.g. stream%3Atopic%3Aenv-1%3Alkc-1%2Forders)')
    .meta({ examples: [EXAMPLE_NODE_ID] }),
});

/**
 * Largest count the API answers (items in a list, nodes or edges of a graph, changes in a write):
 * 2^32 - 1, the most elements a JavaScript array can hold; every count is of things held in memory.
 */
export const MAX_COUNT = 4_294_967_295;

/**
 * Largest `offset` a paged list accepts: 2^31 - 1, past any list the API holds (a signed 32-bit
 * integer, so that clients in any language can hold it); an offset past the end answers an empty page.
 */
export const MAX_OFFSET = 2_147_483_647;

/** A count in an answer: an integer from 0 to `MAX_COUNT`. */
export function count(description?: string) {
  const schema = z.number().int().min(0).max(MAX_COUNT);
  return description === undefined ? schema : schema.describe(description);
}

/**
 * A graph stream revision or a global store position in an answer: an integer from 0 to 2^53 - 1.
 * The bound is that of JSON numbers read exactly by JavaScript: EventStoreDB's commit positions are
 * byte offsets in its log, so positions are not bounded by a count of events.
 */
export function position(description: string) {
  return z
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .describe(`${description} (0 to 2^53 - 1, the largest integer JSON numbers hold exactly)`);
}

/** The counts of one write (`ChangeCountsSchema` of `src/events.ts`), each from 0 to `MAX_COUNT`. */
export const ChangeCountsResource = z.object({
  nodes_added: count(),
  nodes_changed: count(),
  nodes_removed: count(),
  edges_added: count(),
  edges_changed: count(),
  edges_removed: count(),
});

/**
 * A `limit` query parameter: an integer from 1 to `maxLimit`, `defaultLimit` when absent, described
 * as `{description}, 1 to {max} (default {default})`.
 */
export function limitParameter(defaultLimit: number, maxLimit: number, description = 'Page size') {
  return z.coerce
    .number()
    .int()
    .min(1)
    .max(maxLimit)
    .default(defaultLimit)
    .describe(`${description}, 1 to ${maxLimit} (default ${defaultLimit})`);
}

/** `limit` / `offset` paging, with the largest page allowed. */
export function paging(defaultLimit: number, maxLimit: number) {
  return {
    limit: limitParameter(defaultLimit, maxLimit),
    offset: z.coerce
      .number()
      .int()
      .min(0)
      .max(MAX_OFFSET)
      .default(0)
      .describe(`Items to skip, 0 to ${MAX_OFFSET} (default 0)`),
  };
}

/**
 * Sends JSON that is serialized already (`Traversal.serialize` or `WholeGraph.serialize` from
 * `projections/traversal/`) as `application/json`, as it is, and gives its pooled bytes back once the
 * response is over (sent or abandoned).
 */
export function sendSerializedJson(reply: FastifyReply, answer: PooledBytes): FastifyReply {
  // 'close' follows 'finish' (the bytes are with the operating system) or an aborted connection.
  reply.raw.once('close', answer.release);
  return reply.type('application/json; charset=utf-8').send(answer.bytes);
}

/**
 * Serializes with `JSON.stringify` and no schema check. Used by routes whose answer can hold a
 * whole graph (100,000 nodes): their response schemas still document the shape in OpenAPI, but
 * re-validating every node on the way out would cost more than producing the answer. Their data
 * comes from the projection, which only ever holds validated nodes and edges.
 */
export const rawJsonSerializer: FastifySerializerCompiler<unknown> = () => (data) => JSON.stringify(data);

/** No control or invisible formatting characters (`UNSAFE_ID_CHARACTERS` of `src/graph/validation.ts`). */
export const noUnsafeCharacters = (value: string) => unsafeCharacterMessage(value) === undefined;
/** The message of `noUnsafeCharacters`. */
export const UNSAFE_CHARACTERS_MESSAGE = 'must not contain control or invisible formatting characters';

/** An environment, cluster or graph id: 1 to 256 characters, none of them control or invisible formatting characters. */
export const SafeId = z.string().min(1).max(256).refine(noUnsafeCharacters, UNSAFE_CHARACTERS_MESSAGE);
