/**
 * Lineage push to the Data Lineage API (`docs/catalogs.md`, "Warehouse" -> "Push";
 * `docs/catalog-apis.md` B2): first Dataplex
 * asset registration (`registerTopicAssets`, `dataplex.ts`; failures go to `errors` and the push
 * goes on), then `graphToRunEvents` over the graph restricted to the job nodes pushed (connectors,
 * stream jobs, SQL queries: `PUSHED_JOB_TYPES`; consumer groups, catalog jobs and the synthetic
 * TRANSFORMS jobs are left out), then `normalizeRunEvent` per event (see
 * `warehouseDatasetIdentity`); events left with no inputs and no outputs are listed in `skipped`,
 * the others are sent one by one (`ENRICH_CONCURRENCY` in flight) to
 * `projects/{project}/locations/{location}:processOpenLineageRunEvent` with a `requestId` derived
 * from the runId and the event time (a retried request is idempotent). `tables_updated` counts the
 * events accepted; failures, 401/403/404 included, go to `errors` (they concern the project, not a
 * table). The lakehouse switches do not apply: `create_bridge_table` is reported in `skipped`.
 * Indexing on Google's side is asynchronous (5 to 15 minutes).
 */
import { v5 as uuidv5 } from 'uuid';
import { JOB_NODE_TYPES, type LineageGraph, type NodeType } from '../../graph/model.js';
import { graphToRunEvents } from '../../openlineage/fromGraph.js';
import type { Dataset, RunEvent } from '../../openlineage/model.js';
import { emptyPushResult, type ProviderDeps, type PushOptions, type PushResult } from '../provider.js';
import { sendRunEvents } from '../lineageEvents.js';
import { registerTopicAssets } from './dataplex.js';
import { describeFailure, ENRICH_CONCURRENCY, type WarehouseCatalogPort } from './port.js';

/** Job node types whose events are pushed (`docs/catalogs.md`, "Push": connectors, stream jobs, SQL queries). */
export const PUSHED_JOB_TYPES: ReadonlySet<NodeType> = new Set<NodeType>(['CONNECTOR', 'STREAM_JOB', 'SQL_QUERY']);
/** The namespace Google's lineage service maps to `bigquery:{project}.{dataset}.{table}`. */
export const BIGQUERY_NAMESPACE = 'bigquery';
/** UUIDv5 namespace of the `requestId`s sent with lineage events (a fixed random UUID). */
export const REQUEST_ID_NAMESPACE = '2b8e6c1f-94d3-4a7e-b5c2-7f0d3e9a1c64';

/** An OpenLineage dataset identity. */
export interface DatasetIdentity {
  namespace: string;
  name: string;
}

/** Maps a dataset identity to the one a catalog understands, or null to drop the dataset. */
export type DatasetIdentityMap = (namespace: string, name: string) => DatasetIdentity | null;

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
function normalizeColumnLineage(facet: ColumnLineage, identityOf: DatasetIdentityMap): ColumnLineage | undefined {
  const mapInputs = (inputs: unknown[] | undefined) =>
    (inputs ?? []).flatMap((input) => {
      const entry = input as { namespace?: unknown; name?: unknown };
      if (typeof entry.namespace !== 'string' || typeof entry.name !== 'string') return [];
      const identity = identityOf(entry.namespace, entry.name);
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
function normalizeDataset(dataset: Dataset, identityOf: DatasetIdentityMap): Dataset | null {
  const identity = identityOf(dataset.namespace, dataset.name);
  if (!identity) return null;
  const out: Dataset = { ...dataset, ...identity };
  const columnLineage = dataset.facets?.columnLineage as ColumnLineage | undefined;
  if (columnLineage && typeof columnLineage === 'object') {
    const facets = { ...dataset.facets };
    const rewritten = normalizeColumnLineage(columnLineage, identityOf);
    if (rewritten) facets.columnLineage = rewritten as NonNullable<Dataset['facets']>[string];
    else delete facets.columnLineage;
    out.facets = facets;
  }
  return out;
}

/**
 * Normalizes the dataset namespaces of one RunEvent for Google's lineage service (pure; returns a
 * new event): every input and output goes through `identityOf` (default `warehouseDatasetIdentity`; dropped when it maps
 * to nothing; two datasets that map to the same identity are listed once), column lineage inputs
 * likewise. Returns null when no input and no output is left (the event is skipped). The job's
 * namespace is kept: Google uses it only for the process display name.
 */
export function normalizeRunEvent(
  event: RunEvent,
  identityOf: DatasetIdentityMap = warehouseDatasetIdentity,
): RunEvent | null {
  const map = (datasets: readonly Dataset[]) => {
    const seen = new Set<string>();
    return datasets.flatMap((dataset) => {
      const normalized = normalizeDataset(dataset, identityOf);
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
  /** Normalized events to send. */
  events: RunEvent[];
  /** Display names (`{job namespace}:{job name}`) of the events left without inputs and outputs. */
  skipped: string[];
}

/** The events of a push (pure): one per pushed job node, normalized; the empty ones listed in `skipped`. */
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

/**
 * Pushes the graph's lineage to the Data Lineage API (see the module comment), after registering its
 * topics in Dataplex Catalog. The event time is `deps.now`, else the current time.
 * @returns a PushResult: `tables_updated` = events accepted; `errors` = registration failures and
 *   events not sent (`{job namespace}:{job name} (run {runId}): not sent: ...`), or one error when
 *   `authenticate()` fails; `skipped` = events left empty by normalization and, when asked,
 *   `create_bridge_table`. Never throws for a catalog failure.
 */
export async function pushWarehouse(
  graph: LineageGraph,
  options: PushOptions,
  deps: ProviderDeps<WarehouseCatalogPort>,
): Promise<PushResult> {
  const { port } = deps;
  const result = emptyPushResult();
  const plan = warehouseEvents(graph, deps.now ?? new Date());
  for (const name of plan.skipped) {
    const reason = 'no Kafka or BigQuery input or output after namespace normalization';
    result.skipped.push(`${name}: ${reason}`);
    result.results.push({ kind: 'job', name, status: 'skipped', reason });
  }
  if (options.create_bridge_table)
    result.skipped.push('bridge table: not supported by the warehouse provider; lineage goes to the Data Lineage API');
  const hasTopics = graph.nodes.some((node) => node.node_type === 'TOPIC' && node.cluster_id);
  if (plan.events.length === 0 && !hasTopics) return result;
  try {
    await port.authenticate();
  } catch (error) {
    const message = `nothing pushed: ${describeFailure(error)}`;
    result.errors.push(`warehouse: ${message}`);
    for (const event of plan.events)
      result.results.push({ kind: 'job', name: processName(event), status: 'failed', error: message });
    return result;
  }
  const registration = await registerTopicAssets(graph, port);
  result.errors.push(...registration.errors);
  await sendRunEvents(plan.events, result, {
    send: async (event) => {
      await port.processOpenLineageRunEvent(event, requestIdOf(event));
    },
    ledger: deps.ledger,
    target: `${port.projectId}/${port.location}`,
    concurrency: ENRICH_CONCURRENCY,
  });
  return result;
}
