/**
 * The warehouse catalog provider (Google BigQuery + Data Lineage API + Dataplex Catalog), by concern
 * (`docs/catalogs.md`, "Warehouse"):
 *
 * | file | holds |
 * |---|---|
 * | `port.ts` | `WarehouseCatalogPort` (implemented over HTTP by `infra/catalogs/googleClient.ts`), the BigQuery and Dataplex shapes, failures |
 * | `enrichment.ts` | table nodes -> `tables.get` -> attributes, and the downstream walk (`enrichWarehouse`) |
 * | `discovery.ts` | Data Lineage links -> derived tables and catalog jobs (`createWarehouseDiscovery`) |
 * | `lineagePush.ts` | graph -> normalized OpenLineage RunEvents -> `processOpenLineageRunEvent` (`pushWarehouse`) |
 * | `dataplex.ts` | topic entries in Dataplex Catalog, registered before the push (`registerTopicAssets`) |
 * | `provider.ts` | the registry entry: settings, `warehouseProvider` |
 *
 * Tables are CATALOG_TABLE nodes with `catalog_type` WAREHOUSE_LINEAGE, qualified name
 * `{project}.{dataset}.{table}`. Credentials: the port's `authenticate()` runs once before any call;
 * when it fails (no `LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN` and no application-default credentials)
 * enrichment returns one warning and push one error, naming what to set.
 *
 * This module is the public surface; import from it rather than from the files above.
 */
export {
  ENRICH_CONCURRENCY,
  isSkippableWarehouseError,
  WarehouseCredentialsError,
  type BigQueryField,
  type BigQueryTable,
  type BatchSearchLinkProcessesPage,
  type BigQueryTableRef,
  type DataplexCollection,
  type DataplexEntry,
  type LineageEntityReference,
  type LineageLink,
  type LineageProcess,
  type LineageProcessLinks,
  type ProcessOpenLineageResponse,
  type SearchLinksPage,
  type WarehouseCatalogPort,
} from './port.js';
export {
  bigQueryTableFqn,
  createWarehouseDiscovery,
  LINKS_PER_PROCESS_SEARCH,
  MAX_LINK_PAGES,
  parseBigQueryFqn,
  warehouseCatalogJob,
  type WarehouseDiscovery,
} from './discovery.js';
export {
  enrichWarehouse,
  int64,
  isWarehouseTable,
  tableAttributes,
  warehouseDeepLink,
  warehouseTableParts,
  type WarehouseColumn,
} from './enrichment.js';
export {
  BIGQUERY_NAMESPACE,
  normalizeRunEvent,
  processName,
  pushableGraph,
  pushWarehouse,
  PUSHED_JOB_TYPES,
  REQUEST_ID_NAMESPACE,
  requestIdOf,
  warehouseDatasetIdentity,
  warehouseEvents,
  type DatasetIdentity,
  type DatasetIdentityMap,
  type WarehouseEventPlan,
} from './lineagePush.js';
export {
  dataplexBootstrap,
  ENTRY_GROUP_ID,
  ENTRY_SYSTEM,
  fqnSegment,
  kafkaTopicFqn,
  registerTopicAssets,
  SCHEMA_ASPECT_TYPE_ID,
  schemaAspectKey,
  TOPIC_ENTRY_TYPE_ID,
  topicEntries,
  topicEntryId,
  type RegistrationOutcome,
  type TopicEntry,
} from './dataplex.js';
export { WAREHOUSE_SETTINGS, warehouseProvider } from './provider.js';
