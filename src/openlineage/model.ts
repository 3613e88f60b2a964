/**
 * OpenLineage model: zod schemas of the three event kinds (RunEvent, JobEvent, DatasetEvent) in two
 * tiers, and of the facets lineage-svc emits.
 *
 * - The *strict* schemas (`RunEventSchema`, `FacetSchemas`) describe exactly what we emit: they follow
 *   the official OpenLineage 2-0-2 core schema (`https://openlineage.io/spec/2-0-2/OpenLineage.json`)
 *   and the standard facet schemas at OpenLineage 1.52.0 (`spec/facets/*.json`). Every facet carries
 *   `_producer` and `_schemaURL`.
 * - The *lenient* input schemas (`LenientDatasetSchema`, ...) describe the structural minimum an
 *   ingested event must have so that storing it cannot corrupt the store; everything else real
 *   producers get wrong is handled with warnings by `src/openlineage/ingest.ts`.
 *
 * Sources: specification "OpenLineage mapping" / "OpenLineage RunEvent"; OpenLineage object model
 * (https://openlineage.io/docs/spec/object-model) and facet docs (https://openlineage.io/docs/spec/facets/).
 */
import { z } from 'zod';

/** Version of lineage-svc stamped into `producer` URIs. */
export const LINEAGE_SVC_VERSION = '0.1.0';

/** The `producer` (and facet `_producer`) URI of every event lineage-svc emits. */
export const LINEAGE_SVC_PRODUCER = `https://github.com/lineage-svc/lineage-svc/tree/v${LINEAGE_SVC_VERSION}`;

/** `$id` of the OpenLineage core schema we follow. */
export const OPENLINEAGE_SCHEMA = 'https://openlineage.io/spec/2-0-2/OpenLineage.json';

/** `schemaURL` of each event kind (JSON pointer into the core schema). */
export const EVENT_SCHEMA_URLS = {
  RunEvent: `${OPENLINEAGE_SCHEMA}#/$defs/RunEvent`,
  JobEvent: `${OPENLINEAGE_SCHEMA}#/$defs/JobEvent`,
  DatasetEvent: `${OPENLINEAGE_SCHEMA}#/$defs/DatasetEvent`,
} as const;

/** The three OpenLineage event kinds. */
export const EVENT_KINDS = ['RunEvent', 'JobEvent', 'DatasetEvent'] as const;
export type OpenLineageEventKind = (typeof EVENT_KINDS)[number];

/** RunEvent `eventType` values of the 2-0-2 core schema (`OTHER` included). */
export const EVENT_TYPES = ['START', 'RUNNING', 'COMPLETE', 'ABORT', 'FAIL', 'OTHER'] as const;
export type RunEventType = (typeof EVENT_TYPES)[number];

/** Where lineage-svc's own (custom) facet schemas are documented; used in their `_schemaURL`. */
export const CUSTOM_FACET_DOC = `${LINEAGE_SVC_PRODUCER}/docs/openlineage.md`;

/**
 * `_schemaURL` of every facet we emit. Standard facets point at the official schema file and
 * `$defs` entry (versions as at OpenLineage 1.52.0); custom facets point at docs/openlineage.md.
 */
export const FACET_SCHEMA_URLS = {
  schema: 'https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet',
  dataSource: 'https://openlineage.io/spec/facets/1-0-1/DatasourceDatasetFacet.json#/$defs/DatasourceDatasetFacet',
  datasetDocumentation: 'https://openlineage.io/spec/facets/1-1-0/DocumentationDatasetFacet.json#/$defs/DocumentationDatasetFacet',
  jobDocumentation: 'https://openlineage.io/spec/facets/1-1-0/DocumentationJobFacet.json#/$defs/DocumentationJobFacet',
  sql: 'https://openlineage.io/spec/facets/1-1-0/SQLJobFacet.json#/$defs/SQLJobFacet',
  columnLineage: 'https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet',
  symlinks: 'https://openlineage.io/spec/facets/1-0-1/SymlinksDatasetFacet.json#/$defs/SymlinksDatasetFacet',
  jobType: 'https://openlineage.io/spec/facets/2-0-4/JobTypeJobFacet.json#/$defs/JobTypeJobFacet',
  stream_topic: `${CUSTOM_FACET_DOC}#/$defs/StreamTopicDatasetFacet`,
  stream_connector: `${CUSTOM_FACET_DOC}#/$defs/StreamConnectorJobFacet`,
} as const;

// ---------------------------------------------------------------------------------------------
// Strict facets (what we emit)

const uri = z.string().min(1).regex(/^[A-Za-z][A-Za-z0-9+.-]*:/, 'must be an absolute URI');

/** BaseFacet: `_producer` and `_schemaURL` (both URIs, both required), extra keys allowed. */
export const BaseFacetSchema = z.looseObject({ _producer: uri, _schemaURL: uri });
export type BaseFacet = z.infer<typeof BaseFacetSchema>;

/** One field of the `schema` facet (SchemaDatasetFacet 1-2-0): name, type, description, nested fields. */
export interface SchemaField {
  name: string;
  type?: string | undefined;
  description?: string | undefined;
  fields?: SchemaField[] | undefined;
}
export const SchemaFieldSchema: z.ZodType<SchemaField> = z.lazy(() =>
  z.object({
    name: z.string(),
    type: z.string().optional(),
    description: z.string().optional(),
    fields: z.array(SchemaFieldSchema).optional(),
  }),
);

/** `schema` dataset facet: the fields of the dataset (from HAS_SCHEMA). */
export const SchemaDatasetFacetSchema = BaseFacetSchema.extend({ fields: z.array(SchemaFieldSchema) });
/** `dataSource` dataset facet: `name` and `uri` of the data source. */
export const DatasourceDatasetFacetSchema = BaseFacetSchema.extend({ name: z.string().optional(), uri: uri.optional() });
/** `documentation` facet (dataset or job): a `description`. */
export const DocumentationFacetSchema = BaseFacetSchema.extend({ description: z.string() });
/** `sql` job facet: the `query` text. */
export const SqlJobFacetSchema = BaseFacetSchema.extend({ query: z.string() });
/** `jobType` job facet (2-0-4): `processingType`, `integration`, `jobType`. */
export const JobTypeJobFacetSchema = BaseFacetSchema.extend({
  processingType: z.enum(['BATCH', 'STREAMING', 'SERVICE']),
  integration: z.string(),
  jobType: z.string().optional(),
});
const InputFieldSchema = z.object({
  namespace: z.string(),
  name: z.string(),
  field: z.string(),
  transformations: z
    .array(z.object({ type: z.string(), subtype: z.string().optional(), description: z.string().optional(), masking: z.boolean().optional() }))
    .optional(),
});
/** `columnLineage` dataset facet (1-2-0): per output field, the input fields it derives from. */
export const ColumnLineageDatasetFacetSchema = BaseFacetSchema.extend({
  fields: z.record(z.string(), z.object({ inputFields: z.array(InputFieldSchema) })),
  dataset: z.array(InputFieldSchema).optional(),
});
/** `symlinks` dataset facet: alternative identities `{namespace, name, type}` of the same dataset. */
export const SymlinksDatasetFacetSchema = BaseFacetSchema.extend({
  identifiers: z.array(z.object({ namespace: z.string(), name: z.string(), type: z.string() })),
});
/** Custom `stream_topic` dataset facet: where a topic lives and how it is laid out. */
export const StreamTopicDatasetFacetSchema = BaseFacetSchema.extend({
  cluster_id: z.string().nullable(),
  environment_id: z.string().nullable(),
  partitions: z.number().int().nullable(),
  replication_factor: z.number().int().nullable(),
  tags: z.array(z.string()),
});
/** Custom `stream_connector` job facet: the connector's class and direction. */
export const StreamConnectorJobFacetSchema = BaseFacetSchema.extend({
  connector_class: z.string().nullable(),
  connector_type: z.string().nullable(),
  cluster_id: z.string().nullable(),
  environment_id: z.string().nullable(),
});

/** Strict schemas of every facet we emit, by facet key. */
export const FacetSchemas = {
  schema: SchemaDatasetFacetSchema,
  dataSource: DatasourceDatasetFacetSchema,
  documentation: DocumentationFacetSchema,
  sql: SqlJobFacetSchema,
  jobType: JobTypeJobFacetSchema,
  columnLineage: ColumnLineageDatasetFacetSchema,
  symlinks: SymlinksDatasetFacetSchema,
  stream_topic: StreamTopicDatasetFacetSchema,
  stream_connector: StreamConnectorJobFacetSchema,
} as const;

export type SchemaDatasetFacet = z.infer<typeof SchemaDatasetFacetSchema>;
export type DatasourceDatasetFacet = z.infer<typeof DatasourceDatasetFacetSchema>;
export type DocumentationFacet = z.infer<typeof DocumentationFacetSchema>;
export type SqlJobFacet = z.infer<typeof SqlJobFacetSchema>;
export type JobTypeJobFacet = z.infer<typeof JobTypeJobFacetSchema>;
export type ColumnLineageDatasetFacet = z.infer<typeof ColumnLineageDatasetFacetSchema>;
export type SymlinksDatasetFacet = z.infer<typeof SymlinksDatasetFacetSchema>;
export type StreamTopicDatasetFacet = z.infer<typeof StreamTopicDatasetFacetSchema>;
export type StreamConnectorJobFacet = z.infer<typeof StreamConnectorJobFacetSchema>;

/**
 * Builds a facet of ours: the body plus `_producer` (lineage-svc) and `_schemaURL`.
 * @param schemaKey key of `FACET_SCHEMA_URLS` naming the facet's schema.
 */
export function facet<T extends object>(schemaKey: keyof typeof FACET_SCHEMA_URLS, body: T): T & BaseFacet {
  return { _producer: LINEAGE_SVC_PRODUCER, _schemaURL: FACET_SCHEMA_URLS[schemaKey], ...body };
}

// ---------------------------------------------------------------------------------------------
// Strict events (what we emit)

/** RFC 3339 date-time with a timezone (`Z` or `±hh:mm`), any number of fraction digits. */
export const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** True when `value` is a UUID in its canonical 8-4-4-4-12 hex form (any version). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

const facets = z.record(z.string(), BaseFacetSchema);

/** A dataset as emitted: `namespace`, `name`, facets. */
export const DatasetSchema = z.object({ namespace: z.string().min(1), name: z.string().min(1), facets: facets.optional() });
export type Dataset = z.infer<typeof DatasetSchema>;

/** A job as emitted: `namespace`, `name`, facets. */
export const JobSchema = z.object({ namespace: z.string().min(1), name: z.string().min(1), facets: facets.optional() });
export type Job = z.infer<typeof JobSchema>;

/** A RunEvent exactly as lineage-svc emits it (OpenLineage 2-0-2 `RunEvent`). */
export const RunEventSchema = z.object({
  eventTime: z.string().regex(RFC3339, 'must be an RFC 3339 date-time with a timezone'),
  producer: uri,
  schemaURL: uri,
  eventType: z.enum(EVENT_TYPES),
  run: z.object({ runId: z.string().regex(UUID, 'must be a UUID'), facets: facets.optional() }),
  job: JobSchema,
  inputs: z.array(DatasetSchema),
  outputs: z.array(DatasetSchema),
});
export type RunEvent = z.infer<typeof RunEventSchema>;

/** A JobEvent (static lineage: a job's declared inputs and outputs, no run). */
export const JobEventSchema = z.object({
  eventTime: z.string().regex(RFC3339),
  producer: uri,
  schemaURL: uri,
  job: JobSchema,
  inputs: z.array(DatasetSchema).optional(),
  outputs: z.array(DatasetSchema).optional(),
});
export type JobEvent = z.infer<typeof JobEventSchema>;

/** A DatasetEvent (static metadata of one dataset). */
export const DatasetEventSchema = z.object({
  eventTime: z.string().regex(RFC3339),
  producer: uri,
  schemaURL: uri,
  dataset: DatasetSchema,
});
export type DatasetEvent = z.infer<typeof DatasetEventSchema>;

// ---------------------------------------------------------------------------------------------
// Lenient input (what we accept): the structural minimum; extra keys are kept as received.

const name = z.string().min(1, 'must be a non-empty string');
const lenientFacets = z.record(z.string(), z.unknown());

/** A dataset as accepted on ingestion: non-empty `namespace` and `name`; facets an object when present. */
export const LenientDatasetSchema = z.looseObject({
  namespace: name,
  name,
  facets: lenientFacets.nullish(),
  inputFacets: lenientFacets.nullish(),
  outputFacets: lenientFacets.nullish(),
});
/** A job as accepted on ingestion. */
export const LenientJobSchema = z.looseObject({ namespace: name, name, facets: lenientFacets.nullish() });
/** A run as accepted on ingestion: any non-empty `runId` string (non-UUIDs are kept with a warning). */
export const LenientRunSchema = z.looseObject({ runId: name, facets: lenientFacets.nullish() });

/** A RunEvent as accepted on ingestion (eventTime, producer and schemaURL are checked with warnings). */
export const LenientRunEventSchema = z.looseObject({
  eventType: z.enum(EVENT_TYPES).nullish(),
  run: LenientRunSchema,
  job: LenientJobSchema,
  inputs: z.array(LenientDatasetSchema).nullish(),
  outputs: z.array(LenientDatasetSchema).nullish(),
});
/** A JobEvent as accepted on ingestion. */
export const LenientJobEventSchema = z.looseObject({
  job: LenientJobSchema,
  inputs: z.array(LenientDatasetSchema).nullish(),
  outputs: z.array(LenientDatasetSchema).nullish(),
});
/** A DatasetEvent as accepted on ingestion. */
export const LenientDatasetEventSchema = z.looseObject({ dataset: LenientDatasetSchema });

/** Any accepted event, as stored (lenient shapes, original keys kept). */
export type IngestedEvent = Record<string, unknown>;

/** A dataset reference inside an ingested event. */
export interface DatasetRef {
  namespace: string;
  name: string;
  facets?: Record<string, unknown> | null | undefined;
  [key: string]: unknown;
}
