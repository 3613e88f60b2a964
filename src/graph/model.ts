/**
 * The lineage graph model: node and edge types, systems, catalog types, and the zod schemas of Node,
 * Edge and LineageGraph. The wire form (files and API) is snake_case with upper-case enum values.
 *
 * Source: `docs/specification.md`, "Resources and their fields", and `docs/contract.md`
 * section 2 (node types, id formats, edge directions).
 */
import { z } from 'zod';

/** Every node type (upper-case on the wire, lower-case inside node ids). `docs/contract.md` section 2. */
export const NODE_TYPES = [
  'TOPIC',
  'CONSUMER_GROUP',
  'CONNECTOR',
  'SQL_QUERY',
  'STREAM_JOB',
  'SCHEMA',
  'MATERIALIZED_TABLE',
  'EXTERNAL_DATASET',
  'CATALOG_TABLE',
  'CATALOG_JOB',
] as const;
export type NodeType = (typeof NODE_TYPES)[number];

/** Node types that are jobs in OpenLineage terms (they read and write datasets). */
export const JOB_NODE_TYPES: ReadonlySet<NodeType> = new Set([
  'CONNECTOR',
  'SQL_QUERY',
  'STREAM_JOB',
  'CONSUMER_GROUP',
  'CATALOG_JOB',
]);

/** Node types that are datasets: every type that is neither a job nor a schema. */
export const DATASET_NODE_TYPES: ReadonlySet<NodeType> = new Set(
  NODE_TYPES.filter((type) => !JOB_NODE_TYPES.has(type) && type !== 'SCHEMA'),
);

/** Every edge type. Directions are in `EDGE_RULES`. */
export const EDGE_TYPES = ['CONSUMES', 'PRODUCES', 'TRANSFORMS', 'MATERIALIZES', 'HAS_SCHEMA', 'MEMBER_OF'] as const;
export type EdgeType = (typeof EDGE_TYPES)[number];

/** Platforms a node belongs to (upper-case in files and the API, lower-case in ids). */
export const SYSTEMS = ['STREAM', 'LAKEHOUSE', 'DATALAKE', 'WAREHOUSE', 'EXTERNAL'] as const;
export type System = (typeof SYSTEMS)[number];

/** The discriminator of CATALOG_TABLE nodes. */
export const CATALOG_TYPES = ['LAKEHOUSE_CATALOG', 'DATALAKE_CATALOG', 'WAREHOUSE_LINEAGE', 'DATA_GOVERNANCE'] as const;
export type CatalogType = (typeof CATALOG_TYPES)[number];

/**
 * Node types of graph files written before 0.5.0, which had one table type per catalog. Files that
 * use them are rejected; there is no migration (`docs/specification.md`, "Versioning").
 */
export const PRE_0_5_0_NODE_TYPES: ReadonlySet<string> = new Set([
  'UC_TABLE',
  'GLUE_TABLE',
  'GOOGLE_TABLE',
  'BIGQUERY_TABLE',
  'LAKEHOUSE_TABLE',
  'DATALAKE_TABLE',
  'WAREHOUSE_TABLE',
]);

/** What each edge type may connect, from -> to. `docs/contract.md` section 2 (edge types and direction). */
export const EDGE_RULES: Readonly<
  Record<EdgeType, { from: ReadonlySet<NodeType>; to: ReadonlySet<NodeType>; meaning: string }>
> = {
  CONSUMES: { from: DATASET_NODE_TYPES, to: JOB_NODE_TYPES, meaning: 'a job reads a dataset (dataset -> job)' },
  PRODUCES: { from: JOB_NODE_TYPES, to: DATASET_NODE_TYPES, meaning: 'a job writes a dataset (job -> dataset)' },
  TRANSFORMS: {
    from: DATASET_NODE_TYPES,
    to: DATASET_NODE_TYPES,
    meaning: 'a dataset derived from another with no job known',
  },
  MATERIALIZES: {
    from: new Set(['TOPIC', 'MATERIALIZED_TABLE']),
    to: new Set(['MATERIALIZED_TABLE', 'CATALOG_TABLE']),
    meaning: 'topic -> materialized table -> catalog table',
  },
  HAS_SCHEMA: { from: new Set(['TOPIC']), to: new Set(['SCHEMA']), meaning: 'topic -> schema' },
  MEMBER_OF: {
    from: new Set(['CONSUMER_GROUP']),
    to: new Set(['CONNECTOR', 'SQL_QUERY', 'STREAM_JOB']),
    meaning: 'consumer group -> the job that owns it',
  },
};

/** Upper-cases strings so that `stream` and `STREAM` are accepted alike on input. */
const upperCase = (value: unknown) => (typeof value === 'string' ? value.toUpperCase() : value);

// Ids are printable: no control characters (they are used as keys and in logs).
const idString = z
  .string()
  .min(1, 'must not be empty')
  .max(2048, 'must be at most 2,048 characters')
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters');

/** Free-form attributes: JSON values keyed by name, or null where unknown. */
export const AttributesSchema = z.record(z.string(), z.unknown()).nullable();
export type Attributes = z.infer<typeof AttributesSchema>;

/** A node of the lineage graph. Every field is always present (null where unknown). */
export const NodeSchema = z.object({
  id: idString,
  node_type: z.preprocess(upperCase, z.enum(NODE_TYPES)),
  system: z.preprocess(upperCase, z.enum(SYSTEMS)),
  qualified_name: z.string().min(1, 'must not be empty'),
  display_name: z.string(),
  environment_id: z.string().nullable().default(null),
  cluster_id: z.string().nullable().default(null),
  attributes: AttributesSchema.default(null),
  catalog_type: z.preprocess(upperCase, z.enum(CATALOG_TYPES)).nullable().optional(),
});
export type Node = z.infer<typeof NodeSchema>;

/** A directed edge; at most one edge of each type between the same two nodes. */
export const EdgeSchema = z.object({
  src_id: idString,
  dst_id: idString,
  edge_type: z.preprocess(upperCase, z.enum(EDGE_TYPES)),
  attributes: AttributesSchema.default(null),
});
export type Edge = z.infer<typeof EdgeSchema>;

/** What identifies an edge: its endpoints and its type. */
export type EdgeKey = Pick<Edge, 'src_id' | 'dst_id' | 'edge_type'>;

export const EdgeKeySchema = z.object({
  src_id: idString,
  dst_id: idString,
  edge_type: z.preprocess(upperCase, z.enum(EDGE_TYPES)),
});

/** A whole graph: the graph file and the API form. `metadata` is free-form and optional. */
export const LineageGraphSchema = z.object({
  nodes: z.array(NodeSchema).default([]),
  edges: z.array(EdgeSchema).default([]),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type LineageGraph = z.infer<typeof LineageGraphSchema>;

/**
 * The key of an edge, unique within a graph. Node ids contain no control characters, so a tab
 * separates the parts unambiguously.
 */
export function edgeKey(edge: EdgeKey): string {
  return `${edge.src_id}\t${edge.edge_type}\t${edge.dst_id}`;
}
