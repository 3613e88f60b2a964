/**
 * The warehouse catalog provider (Google BigQuery + Data Lineage API): enrichment of warehouse
 * CATALOG_TABLE nodes from BigQuery `tables.get` and lineage push as OpenLineage RunEvents through
 * the Data Lineage API's `processOpenLineageRunEvent`, with topics registered in Dataplex Catalog. Specification, "Catalog integrations" ->
 * "Warehouse (table nodes)"; contract sections 1-3 (`warehouse:catalog_table:{env}:{project}.{dataset}.{table}`,
 * `catalog_type` WAREHOUSE_LINEAGE, `LINEAGE_SVC_WAREHOUSE_*`); `catalog-apis.md` B1, B2, B4. All I/O
 * goes through `WarehouseCatalogPort` (implemented over HTTP by `infra/catalogs/googleClient.ts`).
 *
 * Tables: nodes with `node_type` CATALOG_TABLE and `catalog_type` WAREHOUSE_LINEAGE. Qualified name
 * `{project}.{dataset}.{table}`; the table name is the topic name with `.` and `-` replaced by `_`
 * (`warehouseTableName` in `src/graph/ids.ts`). BigQuery dataset and table ids cannot contain `.`,
 * but domain-scoped project ids can (`example.com:project`), so the name is split from the right.
 *
 * Enrichment (`enrich`): one `tables.get` per table (`ENRICH_CONCURRENCY` in flight) sets
 * `table_type` (TABLE, VIEW, EXTERNAL, MATERIALIZED_VIEW, SNAPSHOT), `columns`
 * (`[{name, type, description}]`, nested RECORD fields under `fields`), `num_rows` (null for views),
 * `num_bytes`, `creation_time` and `last_modified_time` (ms since epoch, numbers: BigQuery sends
 * int64s as JSON strings), `description`, `labels`, `location` and `url` (the console deep link).
 * 404/401/403 skip the table with a warning; other failures (retries exhausted, timeouts) are
 * warnings too. There is no downstream discovery in this release.
 *
 * Push (`push`): first Dataplex asset registration (`registerTopicAssets`: entry group
 * `lineage-svc`, aspect type `lineage-svc-schema`, entry type `lineage-svc-topic`, created when
 * missing; one entry `{cluster}-{topic}` per topic with the FQN `kafka:{cluster}.{topic}` the
 * lineage events resolve to, and the topic's schema fields as an aspect; an existing entry gets its
 * aspect by PATCH; failures go to `errors` and the push goes on), then `graphToRunEvents` over the graph restricted to the job nodes the specification
 * names (connectors, stream jobs, SQL queries: `PUSHED_JOB_TYPES`; consumer groups, catalog jobs
 * and the synthetic TRANSFORMS jobs are left out), then `normalizeRunEvent` per event (see
 * `warehouseDatasetIdentity`), events left with no inputs and no outputs are listed in `skipped`,
 * the others are sent one by one (`ENRICH_CONCURRENCY` in flight) to
 * `projects/{project}/locations/{location}:processOpenLineageRunEvent` with a `requestId` derived
 * from the runId and the event time (a retried request is idempotent). `tables_updated` counts
 * the events accepted (the peer's meaning); failures, 401/403/404 included, go to `errors` (they
 * concern the project, not a table). The lakehouse switches do not apply: `create_bridge_table` is
 * reported in `skipped`. Indexing on Google's side is asynchronous (5 to 15 minutes).
 *
 * Credentials: the port's `authenticate()` runs once before any call; when it fails (no
 * `LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN` and no application-default credentials) enrichment returns
 * one warning and push one error, naming what to set.
 */
import pLimit from 'p-limit';
import { v5 as uuidv5 } from 'uuid';
import type { Config } from '../config.js';
import { JOB_NODE_TYPES, type LineageGraph, type Node, type NodeType } from '../graph/model.js';
import { graphToRunEvents } from '../openlineage/fromGraph.js';
import type { Dataset, RunEvent } from '../openlineage/model.js';
import {
  CatalogApiError,
  emptyPushResult,
  missingOf,
  type CatalogProvider,
  type EnrichmentResult,
  type ProviderDeps,
  type PushOptions,
  type PushResult,
} from './provider.js';

// ---------------------------------------------------------------------------------------------
// The port: the BigQuery and Data Lineage shapes the provider reads (catalog-apis.md B1, B2).

/** A BigQuery `TableFieldSchema` (the fields read). */
export interface BigQueryField {
  name?: string | undefined;
  type?: string | undefined;
  mode?: string | undefined;
  description?: string | undefined;
  fields?: BigQueryField[] | undefined;
}

/** A BigQuery `Table` of `tables.get` (the fields read; int64 and times are JSON strings on the wire). */
export interface BigQueryTable {
  kind?: string | undefined;
  id?: string | undefined;
  tableReference?: { projectId?: string; datasetId?: string; tableId?: string } | undefined;
  type?: string | undefined;
  schema?: { fields?: BigQueryField[] | undefined } | undefined;
  description?: string | undefined;
  friendlyName?: string | undefined;
  labels?: Record<string, string> | undefined;
  location?: string | undefined;
  numRows?: string | number | undefined;
  numBytes?: string | number | undefined;
  creationTime?: string | number | undefined;
  lastModifiedTime?: string | number | undefined;
}

/** Where a table is in BigQuery. */
export interface BigQueryTableRef {
  project: string;
  dataset: string;
  table: string;
}

/** The answer of `processOpenLineageRunEvent`: resource names of the process, run and lineage events. */
export interface ProcessOpenLineageResponse {
  process?: string | undefined;
  run?: string | undefined;
  lineageEvents?: string[] | undefined;
}

/** Credentials could not be obtained: neither an access token nor application-default credentials. */
export class WarehouseCredentialsError extends Error {
  override readonly name = 'WarehouseCredentialsError';
}

/**
 * The Google APIs as the provider uses them. Calls throw `CatalogApiError` on failure (`status` =
 * the HTTP status, `errorCode` = Google's `status` or BigQuery's `reason`, e.g. `notFound`).
 */
export interface WarehouseCatalogPort {
  /** The configured project (`LINEAGE_SVC_WAREHOUSE_PROJECT_ID`): lineage events go there; tables without a project use it. */
  readonly projectId: string;
  /** The Data Lineage location (`LINEAGE_SVC_WAREHOUSE_LOCATION`), e.g. `us`, `eu`, `europe-west1`. */
  readonly location: string;
  /** Obtains (and caches) an access token. @throws WarehouseCredentialsError with a one-line message */
  authenticate(): Promise<void>;
  getTable(ref: BigQueryTableRef): Promise<BigQueryTable>;
  /** Sends one RunEvent under the configured project and location. */
  processOpenLineageRunEvent(event: RunEvent, requestId: string): Promise<ProcessOpenLineageResponse>;
  /**
   * Dataplex: makes sure `projects/{p}/locations/{l}/{collection}/{id}` exists: `GET`, and when it
   * answers 404, `POST ...?{entryGroupId|entryTypeId|aspectTypeId}=` then the long-running
   * operation is awaited (a 409 counts as existing).
   */
  ensureDataplexResource(
    collection: DataplexCollection,
    id: string,
    body: Record<string, unknown>,
  ): Promise<'exists' | 'created'>;
  /** Dataplex: `POST .../entryGroups/{group}/entries?entryId=`; `exists` when it answers 409. */
  createDataplexEntry(entryGroup: string, entryId: string, entry: DataplexEntry): Promise<'created' | 'exists'>;
  /** Dataplex: `PATCH .../entryGroups/{group}/entries/{id}?updateMask=aspects&aspectKeys=...` (the given aspects replace theirs). */
  updateDataplexEntryAspects(entryGroup: string, entryId: string, aspects: DataplexEntry['aspects']): Promise<void>;
}

/** Dataplex Catalog collections the provider creates resources in. */
export type DataplexCollection = 'entryGroups' | 'entryTypes' | 'aspectTypes';

/** A Dataplex `Entry` as created by the provider. */
export interface DataplexEntry {
  entryType: string;
  fullyQualifiedName: string;
  entrySource: { system: string; platform: string; displayName: string; description?: string };
  aspects: Record<string, { data: Record<string, unknown> }>;
}

// ---------------------------------------------------------------------------------------------
// Pure parts.

/** Calls in flight during enrichment and push. */
export const ENRICH_CONCURRENCY = 4;
/** Job node types whose events are pushed (specification: connectors, stream jobs, SQL queries). */
export const PUSHED_JOB_TYPES: ReadonlySet<NodeType> = new Set<NodeType>(['CONNECTOR', 'STREAM_JOB', 'SQL_QUERY']);
/** The namespace Google's lineage service maps to `bigquery:{project}.{dataset}.{table}`. */
export const BIGQUERY_NAMESPACE = 'bigquery';
/** UUIDv5 namespace of the `requestId`s sent with lineage events (a fixed random UUID). */
export const REQUEST_ID_NAMESPACE = '2b8e6c1f-94d3-4a7e-b5c2-7f0d3e9a1c64';

/** True for warehouse catalog tables. */
export function isWarehouseTable(node: Node): boolean {
  return node.node_type === 'CATALOG_TABLE' && node.catalog_type === 'WAREHOUSE_LINEAGE';
}

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '';

/**
 * The `{project, dataset, table}` of a warehouse table node: the `project_id`, `dataset_id` and
 * `table_name` attributes when all are set, else the qualified name split at its last two dots
 * (dataset and table ids cannot contain dots; the project is what is left, `defaultProject`
 * when nothing is).
 */
export function warehouseTableParts(
  node: Pick<Node, 'qualified_name' | 'attributes'>,
  defaultProject = '',
): BigQueryTableRef {
  const { project_id: project, dataset_id: dataset, table_name: table } = node.attributes ?? {};
  if (nonEmpty(project) && nonEmpty(dataset) && nonEmpty(table)) return { project, dataset, table };
  const parts = node.qualified_name.split('.');
  const tableName = parts.pop() ?? '';
  const datasetName = parts.pop() ?? '';
  const projectName = parts.join('.');
  return { project: projectName === '' ? defaultProject : projectName, dataset: datasetName, table: tableName };
}

/**
 * The BigQuery console deep link of a table:
 * `https://console.cloud.google.com/bigquery?project={p}&p={p}&d={d}&t={t}&page=table` (values
 * percent-encoded).
 */
export function warehouseDeepLink(project: string, dataset: string, table: string): string {
  const p = encodeURIComponent(project);
  return `https://console.cloud.google.com/bigquery?project=${p}&p=${p}&d=${encodeURIComponent(dataset)}&t=${encodeURIComponent(table)}&page=table`;
}

/** An int64 of the BigQuery wire format (a JSON string, sometimes a number) as a number, else null. */
export function int64(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  return null;
}

/** A column of the `columns` attribute. */
export interface WarehouseColumn {
  name: string;
  type: string | null;
  description: string | null;
  fields?: WarehouseColumn[];
}

function columnsOf(fields: readonly BigQueryField[] | undefined): WarehouseColumn[] {
  return (fields ?? [])
    .filter((field) => nonEmpty(field?.name))
    .map((field) => {
      const column: WarehouseColumn = {
        name: field.name!,
        type: field.type ?? null,
        description: nonEmpty(field.description) ? field.description : null,
      };
      if (Array.isArray(field.fields) && field.fields.length > 0) column.fields = columnsOf(field.fields);
      return column;
    });
}

/** True for table types without stored rows: logical views (`VIEW`). */
const isView = (type: string | undefined) => type === 'VIEW';

/**
 * The attributes enrichment sets from a BigQuery `Table`: `table_type`, `columns`, `num_rows`
 * (null for views and when absent), `num_bytes`, `creation_time`, `last_modified_time` (ms since
 * epoch), `description` (null when empty), `labels` (`{}` when none), `location`, `url`.
 */
export function tableAttributes(table: BigQueryTable, ref: BigQueryTableRef): Record<string, unknown> {
  return {
    table_type: table.type ?? null,
    columns: columnsOf(table.schema?.fields),
    num_rows: isView(table.type) ? null : int64(table.numRows),
    num_bytes: int64(table.numBytes),
    creation_time: int64(table.creationTime),
    last_modified_time: int64(table.lastModifiedTime),
    description: nonEmpty(table.description) ? table.description : null,
    labels: table.labels && typeof table.labels === 'object' ? { ...table.labels } : {},
    location: table.location ?? null,
    url: warehouseDeepLink(ref.project, ref.dataset, ref.table),
  };
}

/** An OpenLineage dataset identity. */
export interface DatasetIdentity {
  namespace: string;
  name: string;
}

/**
 * Maps one dataset identity to the form Google's lineage service understands, or null to drop it:
 * - stream `stream://{env}/{cluster}` + topic -> `kafka://{cluster}` + topic (the topic-bus form
 *   keyed by cluster; Google derives the FQN `kafka:{cluster}.{topic}`, the topic backtick-quoted
 *   when it holds a dot); a stream namespace without a cluster is dropped (nothing to key by);
 * - `kafka://...` is kept;
 * - warehouse `warehouse://{project}/{dataset}` + table -> `bigquery` + `{project}.{dataset}.{table}`;
 *   `warehouse://{project}` + a name of three or more dot-separated parts -> `bigquery` + that name;
 * - `bigquery` is kept; a BigQuery URI of an external dataset (`bigquery://{project}` + `{dataset}`
 *   or `{dataset}/{table}`, what BigQuery sink connectors write) -> `bigquery` + the dotted path;
 * - anything else (lakehouse, datalake, other external systems) is dropped.
 */
export function warehouseDatasetIdentity(namespace: string, name: string): DatasetIdentity | null {
  const stream = /^stream:\/\/[^/]*\/([^/]+)$/.exec(namespace);
  if (stream) return { namespace: `kafka://${stream[1]}`, name };
  if (namespace.startsWith('stream://')) return null;
  if (namespace.startsWith('kafka://') && namespace.length > 'kafka://'.length) return { namespace, name };
  const warehouse = /^warehouse:\/\/([^/]+)(?:\/([^/]+))?$/.exec(namespace);
  if (warehouse) {
    if (warehouse[2] !== undefined)
      return { namespace: BIGQUERY_NAMESPACE, name: `${warehouse[1]}.${warehouse[2]}.${name}` };
    return name.split('.').length >= 3 ? { namespace: BIGQUERY_NAMESPACE, name } : null;
  }
  if (namespace === BIGQUERY_NAMESPACE) return { namespace, name };
  const uri = /^bigquery:\/\/([^/]+)\/?$/.exec(namespace);
  if (uri && name !== '' && name !== '/')
    return { namespace: BIGQUERY_NAMESPACE, name: `${uri[1]}.${name.replace(/^\/+|\/+$/g, '').replaceAll('/', '.')}` };
  return null;
}

type ColumnLineage = {
  fields?: Record<
    string,
    { inputFields?: Array<{ namespace: string; name: string; field: string } & Record<string, unknown>> }
  >;
  dataset?: unknown[];
} & Record<string, unknown>;

/** Rewrites the input identities of a `columnLineage` facet; drops inputs that map to nothing and fields left empty. */
function normalizeColumnLineage(facet: ColumnLineage): ColumnLineage | undefined {
  const mapInputs = (inputs: unknown[] | undefined) =>
    (inputs ?? []).flatMap((input) => {
      const entry = input as { namespace?: unknown; name?: unknown };
      if (typeof entry.namespace !== 'string' || typeof entry.name !== 'string') return [];
      const identity = warehouseDatasetIdentity(entry.namespace, entry.name);
      return identity ? [{ ...(input as object), ...identity }] : [];
    });
  const fields: Record<string, { inputFields: unknown[] }> = {};
  for (const [field, value] of Object.entries(facet.fields ?? {})) {
    const inputFields = mapInputs(value?.inputFields);
    if (inputFields.length > 0) fields[field] = { ...value, inputFields };
  }
  if (Object.keys(fields).length === 0) return undefined;
  const out: ColumnLineage = { ...facet, fields: fields as ColumnLineage['fields'] };
  if (Array.isArray(facet.dataset)) out.dataset = mapInputs(facet.dataset);
  return out;
}

/** A dataset with its identity rewritten (and its column lineage inputs), or null when dropped. */
function normalizeDataset(dataset: Dataset): Dataset | null {
  const identity = warehouseDatasetIdentity(dataset.namespace, dataset.name);
  if (!identity) return null;
  const out: Dataset = { ...dataset, ...identity };
  const columnLineage = dataset.facets?.columnLineage as ColumnLineage | undefined;
  if (columnLineage && typeof columnLineage === 'object') {
    const facets = { ...dataset.facets };
    const rewritten = normalizeColumnLineage(columnLineage);
    if (rewritten) facets.columnLineage = rewritten as NonNullable<Dataset['facets']>[string];
    else delete facets.columnLineage;
    out.facets = facets;
  }
  return out;
}

/**
 * Normalises the dataset namespaces of one RunEvent for Google's lineage service (pure; returns a
 * new event): every input and output goes through `warehouseDatasetIdentity` (dropped when it maps
 * to nothing; two datasets that map to the same identity are listed once), column lineage inputs
 * likewise. Returns null when no input and no output is left (the event is skipped). The job's
 * namespace is kept: Google uses it only for the process display name.
 */
export function normalizeRunEvent(event: RunEvent): RunEvent | null {
  const map = (datasets: readonly Dataset[]) => {
    const seen = new Set<string>();
    return datasets.flatMap((dataset) => {
      const normalized = normalizeDataset(dataset);
      if (!normalized) return [];
      const key = `${normalized.namespace}\u0000${normalized.name}`;
      if (seen.has(key)) return [];
      seen.add(key);
      return [normalized];
    });
  };
  const inputs = map(event.inputs);
  const outputs = map(event.outputs);
  if (inputs.length === 0 && outputs.length === 0) return null;
  return { ...event, inputs, outputs };
}

/** The graph restricted to the job nodes whose events are pushed, without TRANSFORMS edges. */
export function pushableGraph(graph: LineageGraph): LineageGraph {
  return {
    ...graph,
    nodes: graph.nodes.filter((node) => !JOB_NODE_TYPES.has(node.node_type) || PUSHED_JOB_TYPES.has(node.node_type)),
    edges: graph.edges.filter((edge) => edge.edge_type !== 'TRANSFORMS'),
  };
}

/** What the push sends and leaves out. */
export interface WarehouseEventPlan {
  /** Normalised events to send. */
  events: RunEvent[];
  /** Display names (`{job namespace}:{job name}`) of the events left without inputs and outputs. */
  skipped: string[];
}

/** The events of a push (pure): one per pushed job node, normalised; the empty ones listed in `skipped`. */
export function warehouseEvents(graph: LineageGraph, eventTime: Date | string): WarehouseEventPlan {
  const plan: WarehouseEventPlan = { events: [], skipped: [] };
  for (const event of graphToRunEvents(pushableGraph(graph), { eventTime })) {
    const normalized = normalizeRunEvent(event);
    if (normalized) plan.events.push(normalized);
    else plan.skipped.push(processName(event));
  }
  return plan;
}

/** The process display name Google gives an event's job: `{namespace}:{name}`. */
export function processName(event: Pick<RunEvent, 'job'>): string {
  return `${event.job.namespace}:${event.job.name}`;
}

/** The `requestId` of an event (a UUID, 36 characters: Google's limit): the same for retries of one push. */
export function requestIdOf(event: Pick<RunEvent, 'run' | 'eventTime'>): string {
  return uuidv5(`${event.run.runId}\n${event.eventTime}`, REQUEST_ID_NAMESPACE);
}

function describeFailure(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** True when a failure means the table is missing or forbidden (404, 401, 403). */
export function isSkippableWarehouseError(error: unknown): boolean {
  return error instanceof CatalogApiError && error.skippable;
}

// ---------------------------------------------------------------------------------------------
// Dataplex asset registration (pure parts).

/** The entry group of the topic entries. */
export const ENTRY_GROUP_ID = 'lineage-svc';
/** The entry type of a topic entry. */
export const TOPIC_ENTRY_TYPE_ID = 'lineage-svc-topic';
/** The aspect type carrying a topic's schema fields. */
export const SCHEMA_ASPECT_TYPE_ID = 'lineage-svc-schema';
/** `entrySource.system` of the entries. */
export const ENTRY_SYSTEM = 'Confluent Cloud';

/** One segment of a Dataplex FQN: backtick-quoted when it holds `.`, `:`, a backtick or whitespace (backticks doubled). */
export function fqnSegment(segment: string): string {
  return /[.:`\s]/.test(segment) ? `\`${segment.replaceAll('`', '``')}\`` : segment;
}

/** The FQN of a Kafka topic, `kafka:{cluster}.{topic}`: what Google derives for namespace `kafka://{cluster}` + the topic. */
export function kafkaTopicFqn(clusterId: string, topic: string): string {
  return `kafka:${fqnSegment(clusterId)}.${fqnSegment(topic)}`;
}

/** The entry id of a topic, `{cluster}-{topic}` (characters other than letters, digits, `.`, `_`, `-` become `_`). */
export function topicEntryId(clusterId: string, topic: string): string {
  return `${clusterId}-${topic}`.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** The key of the schema aspect in an entry's `aspects`: `{project}.{location}.lineage-svc-schema`. */
export function schemaAspectKey(project: string, location: string): string {
  return `${project}.${location}.${SCHEMA_ASPECT_TYPE_ID}`;
}

/** The bodies of the entry group, entry type and aspect type (created once, in this order). */
export function dataplexBootstrap(
  project: string,
  location: string,
): Array<{ collection: DataplexCollection; id: string; body: Record<string, unknown> }> {
  const text = (name: string, index: number, description: string) => ({
    name,
    type: 'string',
    index,
    annotations: { description },
  });
  return [
    {
      collection: 'entryGroups',
      id: ENTRY_GROUP_ID,
      body: {
        displayName: 'lineage-svc',
        description: 'Kafka topics registered by lineage-svc so that lineage events resolve to catalog entries',
      },
    },
    {
      collection: 'aspectTypes',
      id: SCHEMA_ASPECT_TYPE_ID,
      body: {
        displayName: 'lineage-svc schema',
        description: 'Schema fields of a Kafka topic (from its Schema Registry subject)',
        metadataTemplate: {
          name: 'lineage-svc-schema',
          type: 'record',
          recordFields: [
            {
              name: 'fields',
              type: 'array',
              index: 1,
              annotations: { description: 'Top-level fields of the value schema' },
              arrayItems: {
                name: 'field',
                type: 'record',
                recordFields: [
                  text('name', 1, 'Field name'),
                  text('type', 2, 'Field type'),
                  text('description', 3, 'Field documentation'),
                ],
              },
            },
          ],
        },
      },
    },
    {
      collection: 'entryTypes',
      id: TOPIC_ENTRY_TYPE_ID,
      body: {
        displayName: 'Kafka topic (lineage-svc)',
        description: 'A Kafka topic of Confluent Cloud',
        platform: 'kafka',
        system: ENTRY_SYSTEM,
        typeAliases: ['TABLE'],
        requiredAspects: [{ type: `projects/${project}/locations/${location}/aspectTypes/${SCHEMA_ASPECT_TYPE_ID}` }],
      },
    },
  ];
}

/** Schema fields `{name, type, description}` of a SCHEMA node's `fields` attribute (top level). */
function schemaFieldsOf(schema: Node | undefined): Array<{ name: string; type: string; description: string }> {
  const fields = schema?.attributes?.fields;
  if (!Array.isArray(fields)) return [];
  return fields.flatMap((field) => {
    if (typeof field !== 'object' || field === null || !nonEmpty((field as { name?: unknown }).name)) return [];
    const { name, type, doc, description } = field as Record<string, unknown>;
    return [
      {
        name: name as string,
        type: typeof type === 'string' ? type : type === undefined || type === null ? '' : JSON.stringify(type),
        description: nonEmpty(doc) ? doc : nonEmpty(description) ? description : '',
      },
    ];
  });
}

/** One topic entry to register. */
export interface TopicEntry {
  entryId: string;
  entry: DataplexEntry;
}

/**
 * The entries of the graph's topics (pure): one per TOPIC node with a cluster id (placeholders
 * without one are left out), sorted by entry id, with the schema aspect from the node's HAS_SCHEMA
 * schema (the `value` role first; no fields when it has none).
 */
export function topicEntries(graph: LineageGraph, project: string, location: string): TopicEntry[] {
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
  const entries = new Map<string, TopicEntry>();
  for (const topic of graph.nodes) {
    if (topic.node_type !== 'TOPIC' || !topic.cluster_id) continue;
    const name = topic.qualified_name.startsWith(`${topic.cluster_id}/`)
      ? topic.qualified_name.slice(topic.cluster_id.length + 1)
      : topic.qualified_name;
    const schemaEdges = graph.edges.filter((e) => e.src_id === topic.id && e.edge_type === 'HAS_SCHEMA');
    schemaEdges.sort((a, b) => (a.attributes?.role === 'value' ? -1 : 0) - (b.attributes?.role === 'value' ? -1 : 0));
    const fields = schemaEdges.map((e) => schemaFieldsOf(nodes.get(e.dst_id))).find((list) => list.length > 0) ?? [];
    const entryId = topicEntryId(topic.cluster_id, name);
    const description = nonEmpty(topic.attributes?.description) ? topic.attributes.description : undefined;
    entries.set(entryId, {
      entryId,
      entry: {
        entryType: `projects/${project}/locations/${location}/entryTypes/${TOPIC_ENTRY_TYPE_ID}`,
        fullyQualifiedName: kafkaTopicFqn(topic.cluster_id, name),
        entrySource: {
          system: ENTRY_SYSTEM,
          platform: 'kafka',
          displayName: name,
          ...(description ? { description } : {}),
        },
        aspects: { [schemaAspectKey(project, location)]: { data: { fields } } },
      },
    });
  }
  return [...entries.values()].sort((a, b) => (a.entryId < b.entryId ? -1 : 1));
}

/** What asset registration did. */
export interface RegistrationOutcome {
  created: number;
  updated: number;
  errors: string[];
}

/**
 * Registers the graph's topics in Dataplex Catalog (idempotent): the entry group, aspect type and
 * entry type when missing, then per topic a create (`created`), or on 409 a PATCH of the schema
 * aspect (`updated`). Failures are collected, never thrown; a failed bootstrap stops registration.
 */
export async function registerTopicAssets(
  graph: LineageGraph,
  port: WarehouseCatalogPort,
): Promise<RegistrationOutcome> {
  const outcome: RegistrationOutcome = { created: 0, updated: 0, errors: [] };
  const entries = topicEntries(graph, port.projectId, port.location);
  if (entries.length === 0) return outcome;
  for (const { collection, id, body } of dataplexBootstrap(port.projectId, port.location)) {
    try {
      await port.ensureDataplexResource(collection, id, body);
    } catch (error) {
      outcome.errors.push(`dataplex: ${collection}/${id} not created, no topic registered: ${describeFailure(error)}`);
      return outcome;
    }
  }
  const limit = pLimit(ENRICH_CONCURRENCY);
  await Promise.all(
    entries.map(({ entryId, entry }) =>
      limit(async () => {
        try {
          if ((await port.createDataplexEntry(ENTRY_GROUP_ID, entryId, entry)) === 'created') outcome.created += 1;
          else {
            await port.updateDataplexEntryAspects(ENTRY_GROUP_ID, entryId, entry.aspects);
            outcome.updated += 1;
          }
        } catch (error) {
          outcome.errors.push(`dataplex: entry ${entryId} not registered: ${describeFailure(error)}`);
        }
      }),
    ),
  );
  outcome.errors.sort();
  return outcome;
}

// ---------------------------------------------------------------------------------------------
// Enrichment and push.

/** Enrichment of warehouse tables (see the module comment). Never throws for a catalog failure. */
export async function enrichWarehouse(
  graph: LineageGraph,
  deps: ProviderDeps<WarehouseCatalogPort>,
): Promise<EnrichmentResult> {
  const { port } = deps;
  const result: EnrichmentResult = {
    catalog_type: 'WAREHOUSE_LINEAGE',
    enrichments: [],
    newNodes: [],
    newEdges: [],
    warnings: [],
  };
  const tables = graph.nodes.filter(isWarehouseTable).sort((a, b) => (a.id < b.id ? -1 : 1));
  if (tables.length === 0) return result;
  try {
    await port.authenticate();
  } catch (error) {
    result.warnings.push(`warehouse: no table enriched: ${describeFailure(error)}`);
    return result;
  }
  const limit = pLimit(ENRICH_CONCURRENCY);
  const outcomes = await Promise.all(
    tables.map((node) =>
      limit(async () => {
        const ref = warehouseTableParts(node, port.projectId);
        try {
          const table = await port.getTable(ref);
          return { node_id: node.id, attributes: tableAttributes(table, ref) };
        } catch (error) {
          const why = isSkippableWarehouseError(error) ? 'skipped' : 'not enriched';
          return `warehouse: table ${ref.project}.${ref.dataset}.${ref.table} ${why}: ${describeFailure(error)}`;
        }
      }),
    ),
  );
  for (const outcome of outcomes) {
    if (typeof outcome === 'string') result.warnings.push(outcome);
    else result.enrichments.push(outcome);
  }
  return result;
}

/** Lineage push to the Data Lineage API (see the module comment). Never throws for a catalog failure. */
export async function pushWarehouse(
  graph: LineageGraph,
  options: PushOptions,
  deps: ProviderDeps<WarehouseCatalogPort>,
): Promise<PushResult> {
  const { port } = deps;
  const result = emptyPushResult();
  const plan = warehouseEvents(graph, deps.now ?? new Date());
  for (const name of plan.skipped)
    result.skipped.push(`${name}: no Kafka or BigQuery input or output after namespace normalisation`);
  if (options.create_bridge_table)
    result.skipped.push('bridge table: not supported by the warehouse provider; lineage goes to the Data Lineage API');
  const hasTopics = graph.nodes.some((node) => node.node_type === 'TOPIC' && node.cluster_id);
  if (plan.events.length === 0 && !hasTopics) return result;
  try {
    await port.authenticate();
  } catch (error) {
    result.errors.push(`warehouse: nothing pushed: ${describeFailure(error)}`);
    return result;
  }
  const registration = await registerTopicAssets(graph, port);
  result.errors.push(...registration.errors);
  const limit = pLimit(ENRICH_CONCURRENCY);
  const outcomes = await Promise.all(
    plan.events.map((event) =>
      limit(async () => {
        try {
          await port.processOpenLineageRunEvent(event, requestIdOf(event));
          return undefined;
        } catch (error) {
          return `${processName(event)} (run ${event.run.runId}): not sent: ${describeFailure(error)}`;
        }
      }),
    ),
  );
  for (const outcome of outcomes) {
    if (outcome === undefined) result.tables_updated += 1;
    else result.errors.push(outcome);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// The provider.

/** Variables the warehouse provider reads (contract section 3). */
export const WAREHOUSE_SETTINGS = [
  'LINEAGE_SVC_WAREHOUSE_PROJECT_ID',
  'LINEAGE_SVC_WAREHOUSE_LOCATION',
  'LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN',
  'LINEAGE_SVC_WAREHOUSE_BIGQUERY_API_URL',
  'LINEAGE_SVC_WAREHOUSE_LINEAGE_API_URL',
  'LINEAGE_SVC_WAREHOUSE_DATAPLEX_API_URL',
] as const;

const required = (config: Config) => ({
  LINEAGE_SVC_WAREHOUSE_PROJECT_ID: config.warehouse.projectId,
  LINEAGE_SVC_WAREHOUSE_LOCATION: config.warehouse.location,
});

/** The warehouse provider (`WAREHOUSE_LINEAGE`, short name `warehouse`). */
export const warehouseProvider: CatalogProvider<WarehouseCatalogPort> = {
  catalogType: 'WAREHOUSE_LINEAGE',
  system: 'WAREHOUSE',
  shortName: 'warehouse',
  settings: WAREHOUSE_SETTINGS,
  requiredSettings: ['LINEAGE_SVC_WAREHOUSE_PROJECT_ID', 'LINEAGE_SVC_WAREHOUSE_LOCATION'],
  missingSettings: (config: Config) => missingOf(required(config)),
  isConfigured: (config: Config) => missingOf(required(config)).length === 0,
  enrich: enrichWarehouse,
  push: pushWarehouse,
};
