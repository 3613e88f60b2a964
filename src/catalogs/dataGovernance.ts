/**
 * The data governance catalog provider (AWS DataZone): pushes the graph's lineage as OpenLineage
 * RunEvents with `PostLineageEvent` (`docs/catalog-apis.md` C2; `docs/catalogs.md`, "Data
 * governance"). Push only: DataZone holds no table the graph enriches, so `enrich` finds nothing.
 *
 * Push, pure over `DataGovernanceCatalogPort` (implemented with `@aws-sdk/client-datazone` by
 * `infra/catalogs/dataZoneClient.ts`):
 * 1. `graphToRunEvents` over the graph restricted to connectors, stream jobs, SQL queries and
 *    catalog jobs (`GOVERNED_JOB_TYPES`; consumer groups and the synthetic TRANSFORMS jobs are left
 *    out): one COMPLETE RunEvent per job.
 * 2. Namespaces normalized as for the warehouse push (`normalizeRunEvent` with
 *    `dataGovernanceDatasetIdentity`): `stream://{env}/{cluster}` -> `kafka://{cluster}`, warehouse
 *    tables -> `bigquery` + `{project}.{dataset}.{table}`; unlike the warehouse, other namespaces
 *    (lakehouse, datalake, external systems) are kept, since DataZone draws any dataset. Events left
 *    with no input and no output, and events over `MAX_EVENT_BYTES`, are `skipped`.
 * 3. Each event is posted to the configured domain (`ENRICH_CONCURRENCY` in flight) with a
 *    `Client-Token` derived from the domain and the event's bytes (`clientTokenOf`): DataZone
 *    treats a repeated token with the same body as the same request, so a retried call records one
 *    event. DataZone does **not** deduplicate by event content (each accepted call is a new lineage
 *    event with its own id), so a second push of unchanged lineage is avoided by the `PushLedger`
 *    of `deps.ledger` (`src/catalogs/lineageEvents.ts`): jobs whose event fingerprint was already
 *    sent are `unchanged` and nothing is posted for them.
 *
 * Results per job: `updated`, `unchanged`, `skipped` (empty or oversized event; access denied,
 * unauthorized or domain not found: 401/403/404), `failed` (anything else: validation, conflict,
 * quota, retries exhausted). `tables_updated` counts the events accepted. Never throws for a
 * catalog failure.
 */
import { v5 as uuidv5 } from 'uuid';
import type { Config } from '../config.js';
import type { LineageGraph, NodeType } from '../graph/model.js';
import { JOB_NODE_TYPES } from '../graph/model.js';
import { graphToRunEvents } from '../openlineage/fromGraph.js';
import type { RunEvent } from '../openlineage/model.js';
import { jobDisplayName, sendRunEvents } from './lineageEvents.js';
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
import { normalizeRunEvent, warehouseDatasetIdentity, type DatasetIdentity } from './warehouse/index.js';

/** The answer of `PostLineageEvent` (`docs/catalog-apis.md` C2). */
export interface PostLineageEventResponse {
  /** The lineage event's id. */
  id?: string | undefined;
  domainId?: string | undefined;
}

/**
 * DataZone as the provider uses it. `postLineageEvent` throws `CatalogApiError` on failure
 * (`status` = the HTTP status, `errorCode` = the exception name, e.g. `AccessDeniedException`).
 */
export interface DataGovernanceCatalogPort {
  /** The domain events go to (`LINEAGE_SVC_DATA_GOVERNANCE_DOMAIN_ID`, `dzd_...`). */
  readonly domainId: string;
  /** Posts one RunEvent (its JSON bytes) with `Client-Token: clientToken`. */
  postLineageEvent(event: RunEvent, clientToken: string): Promise<PostLineageEventResponse>;
}

/** Job node types whose events are pushed. */
export const GOVERNED_JOB_TYPES: ReadonlySet<NodeType> = new Set<NodeType>([
  'CONNECTOR',
  'STREAM_JOB',
  'SQL_QUERY',
  'CATALOG_JOB',
]);
/** DataZone's limit on an event's size, in bytes (`docs/catalog-apis.md` C2). */
export const MAX_EVENT_BYTES = 300_000;
/** Events in flight. */
export const ENRICH_CONCURRENCY = 4;
/** UUIDv5 namespace of the `Client-Token`s (a fixed random UUID). */
export const CLIENT_TOKEN_NAMESPACE = '6f1d2c9e-3b7a-4e58-9a06-c4d1e8b27f35';

/**
 * The identity DataZone gets for a dataset: the warehouse's mapping (`warehouseDatasetIdentity`:
 * Kafka topics keyed by cluster, BigQuery tables) where it applies, the identity unchanged for every
 * other namespace, null for a stream namespace without a cluster.
 */
export function dataGovernanceDatasetIdentity(namespace: string, name: string): DatasetIdentity | null {
  const mapped = warehouseDatasetIdentity(namespace, name);
  if (mapped) return mapped;
  return namespace.startsWith('stream://') ? null : { namespace, name };
}

/** The `Client-Token` of an event posted to a domain: a UUIDv5 of the domain and the event's JSON. */
export function clientTokenOf(domainId: string, event: RunEvent): string {
  return uuidv5(`${domainId}\n${JSON.stringify(event)}`, CLIENT_TOKEN_NAMESPACE);
}

/** What a push sends and leaves out (pure). */
export interface DataGovernanceEventPlan {
  events: RunEvent[];
  /** Jobs left out, with the reason. */
  skipped: Array<{ name: string; reason: string }>;
}

/** The events of a push (pure): one per governed job, normalized; empty and oversized ones listed in `skipped`. */
export function dataGovernanceEvents(graph: LineageGraph, eventTime: Date | string): DataGovernanceEventPlan {
  const restricted: LineageGraph = {
    ...graph,
    nodes: graph.nodes.filter((node) => !JOB_NODE_TYPES.has(node.node_type) || GOVERNED_JOB_TYPES.has(node.node_type)),
    edges: graph.edges.filter((edge) => edge.edge_type !== 'TRANSFORMS'),
  };
  const plan: DataGovernanceEventPlan = { events: [], skipped: [] };
  for (const event of graphToRunEvents(restricted, { eventTime })) {
    const normalized = normalizeRunEvent(event, dataGovernanceDatasetIdentity);
    const bytes = normalized ? Buffer.byteLength(JSON.stringify(normalized)) : 0;
    if (!normalized) plan.skipped.push({ name: jobDisplayName(event), reason: 'no input or output dataset' });
    else if (bytes > MAX_EVENT_BYTES)
      plan.skipped.push({
        name: jobDisplayName(event),
        reason: `event of ${bytes} bytes exceeds DataZone's ${MAX_EVENT_BYTES}`,
      });
    else plan.events.push(normalized);
  }
  return plan;
}

/** Pushes the graph's lineage to the DataZone domain (see the module comment). */
export async function pushDataGovernance(
  graph: LineageGraph,
  options: PushOptions,
  deps: ProviderDeps<DataGovernanceCatalogPort>,
): Promise<PushResult> {
  const { port } = deps;
  const result = emptyPushResult();
  const plan = dataGovernanceEvents(graph, deps.now ?? new Date());
  for (const { name, reason } of plan.skipped) {
    result.skipped.push(`${name}: ${reason}`);
    result.results.push({ kind: 'job', name, status: 'skipped', reason });
  }
  if (options.create_bridge_table)
    result.skipped.push('bridge table: not supported by the data governance provider; lineage goes to DataZone');
  await sendRunEvents(plan.events, result, {
    send: async (event) => {
      await port.postLineageEvent(event, clientTokenOf(port.domainId, event));
    },
    ledger: deps.ledger,
    target: port.domainId,
    concurrency: ENRICH_CONCURRENCY,
    skippable: (error) => error instanceof CatalogApiError && error.skippable,
  });
  return result;
}

/** Enrichment finds nothing: DataZone holds none of the graph's tables. */
async function enrichDataGovernance(): Promise<EnrichmentResult> {
  return { catalog_type: 'DATA_GOVERNANCE', enrichments: [], newNodes: [], newEdges: [], warnings: [] };
}

/** Variables the data governance provider reads (`docs/catalogs.md`, "Data governance"). */
export const DATA_GOVERNANCE_SETTINGS = [
  'LINEAGE_SVC_DATA_GOVERNANCE_DOMAIN_ID',
  'LINEAGE_SVC_DATA_GOVERNANCE_PROJECT_ID',
] as const;

const required = (config: Config) => ({
  LINEAGE_SVC_DATA_GOVERNANCE_DOMAIN_ID: config.dataGovernance.domainId,
  LINEAGE_SVC_DATA_GOVERNANCE_PROJECT_ID: config.dataGovernance.projectId,
});

/** The data governance provider (`DATA_GOVERNANCE`, short name `data_governance`; push only). */
export const dataGovernanceProvider: CatalogProvider<DataGovernanceCatalogPort> = {
  catalogType: 'DATA_GOVERNANCE',
  system: null,
  shortName: 'data_governance',
  settings: DATA_GOVERNANCE_SETTINGS,
  requiredSettings: [...DATA_GOVERNANCE_SETTINGS],
  missingSettings: (config: Config) => missingOf(required(config)),
  isConfigured: (config: Config) => missingOf(required(config)).length === 0,
  enrich: enrichDataGovernance,
  push: pushDataGovernance,
};
