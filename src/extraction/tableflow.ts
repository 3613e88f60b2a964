/**
 * Table materialization (Tableflow `tableflow-topics` and `catalog-integrations`;
 * `docs/platform-apis.md` section 9, specification "Lakehouse catalog").
 *
 * - Each Tableflow topic gives a MATERIALIZED_TABLE `stream:materialized_table:{env}:{cluster}/{topic}`
 *   (attributes `table_formats`, `storage_kind`, `table_path`, `phase`, `suspended`, `write_mode`,
 *   `error_handling`) and `topic -> materialized table` MATERIALIZES.
 * - Each catalog integration the table syncs to gives a CATALOG_TABLE and
 *   `materialized table -> catalog table` MATERIALIZES:
 *   - Unity (needs DELTA): lakehouse `lakehouse:catalog_table:{env}:{catalog}.{cluster_id}.{topic with . -> _}`,
 *     catalog from `spec.config.catalog_name`, else `DEFAULT_LAKEHOUSE_CATALOG`; `catalog_type` LAKEHOUSE_CATALOG.
 *   - AwsGlue (needs ICEBERG): data lake `datalake:catalog_table:{region}:{database}/{topic}`
 *     (Tableflow publishes one Glue database per cluster: the integration's `custom_database`, else
 *     the cluster id; catalog-apis.md D); `catalog_type` DATALAKE_CATALOG.
 *   - Other kinds (Snowflake Open Catalog, ...) have no node type yet and are skipped.
 *   When the table reports `catalog_sync_statuses`, only the integrations listed there are linked.
 */
import { datalakeTableId, lakehouseTableId, lakehouseTableName, materializedTableId, topicId } from '../graph/ids.js';
import type { ClusterInfo } from './environments.js';
import { makeEdge, makeNode, type Fragment } from './graphBuilder.js';
import type { CatalogIntegrationBody, TableflowTopicBody } from './platformTypes.js';

/** The catalog name used when a Unity integration does not name one. */
export const DEFAULT_LAKEHOUSE_CATALOG = 'confluent_tableflow';

/** What one Tableflow table's catalog links need to know about it. */
interface MaterializedTable {
  env: string;
  clusterId: string;
  topic: string;
  formats: string[];
  /** The MATERIALIZED_TABLE node's id. */
  id: string;
}

/** The attributes every CATALOG_TABLE of an integration shares. */
type CatalogTableCommon = Record<string, string | null>;

/** The MATERIALIZED_TABLE node of one Tableflow topic. */
function materializedTableNode(table: TableflowTopicBody, materialized: MaterializedTable): Fragment['nodes'][number] {
  const { env, clusterId, topic, formats, id } = materialized;
  return makeNode({
    id,
    nodeType: 'MATERIALIZED_TABLE',
    system: 'STREAM',
    qualifiedName: `${clusterId}/${topic}`,
    displayName: `${topic} (tableflow)`,
    environmentId: env,
    clusterId,
    attributes: {
      table_formats: formats,
      storage_kind: table.spec.storage?.kind ?? null,
      table_path: table.spec.storage?.table_path ?? null,
      phase: table.status?.phase ?? null,
      suspended: table.spec.suspended ?? null,
      write_mode: table.status?.write_mode ?? null,
      error_handling: table.spec.config?.error_handling?.mode ?? null,
    },
  });
}

/** The lakehouse CATALOG_TABLE a Unity integration publishes the table's Delta copy as. */
function lakehouseCatalogTableNode(
  integration: CatalogIntegrationBody,
  materialized: MaterializedTable,
  common: CatalogTableCommon,
): Fragment['nodes'][number] {
  const { env, clusterId, topic } = materialized;
  const catalog = integration.spec.config?.catalog_name || DEFAULT_LAKEHOUSE_CATALOG;
  const tableName = lakehouseTableName(topic);
  return makeNode({
    id: lakehouseTableId(env, catalog, clusterId, tableName),
    nodeType: 'CATALOG_TABLE',
    system: 'LAKEHOUSE',
    qualifiedName: `${catalog}.${clusterId}.${tableName}`,
    displayName: tableName,
    environmentId: env,
    clusterId,
    catalogType: 'LAKEHOUSE_CATALOG',
    attributes: {
      ...common,
      table_format: 'DELTA',
      workspace_url: integration.spec.config?.workspace_endpoint ?? null,
    },
  });
}

/** The data lake CATALOG_TABLE an AWS Glue integration publishes the table's Iceberg copy as. */
function datalakeCatalogTableNode(
  integration: CatalogIntegrationBody,
  materialized: MaterializedTable,
  common: CatalogTableCommon,
  region: string,
): Fragment['nodes'][number] {
  const { env, clusterId, topic } = materialized;
  const database = integration.spec.config?.custom_database || clusterId;
  return makeNode({
    id: datalakeTableId(region, database, topic),
    nodeType: 'CATALOG_TABLE',
    system: 'DATALAKE',
    qualifiedName: `${database}/${topic}`,
    displayName: topic,
    environmentId: env,
    clusterId,
    catalogType: 'DATALAKE_CATALOG',
    attributes: { ...common, table_format: 'ICEBERG', region },
  });
}

/** Adds the CATALOG_TABLE nodes and MATERIALIZES edges of every integration the table syncs to (Glue tables in `datalakeRegion`). */
function addCatalogTables(
  fragment: Fragment,
  table: TableflowTopicBody,
  materialized: MaterializedTable,
  integrations: readonly CatalogIntegrationBody[],
  datalakeRegion: string,
): void {
  const { clusterId, formats, id } = materialized;
  const syncs = table.status?.catalog_sync_statuses ?? [];
  const synced = new Map(syncs.map((status) => [status.catalog_integration_id ?? '', status.sync_status ?? null]));
  for (const integration of [...integrations].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    if ((integration.spec.kafka_cluster?.id ?? clusterId) !== clusterId) continue;
    if (syncs.length > 0 && !synced.has(integration.id)) continue;
    const kind = integration.spec.config?.kind?.toLowerCase() ?? '';
    const common = {
      catalog_integration_id: integration.id,
      catalog_integration_name: integration.spec.display_name ?? null,
      sync_status: synced.get(integration.id) ?? null,
      last_sync_at: integration.status?.last_sync_at ?? null,
    };
    let node: Fragment['nodes'][number] | null = null;
    if (kind === 'unity' && formats.includes('DELTA')) {
      node = lakehouseCatalogTableNode(integration, materialized, common);
    } else if (kind === 'awsglue' && formats.includes('ICEBERG')) {
      node = datalakeCatalogTableNode(integration, materialized, common, datalakeRegion);
    }
    if (node === null) continue;
    fragment.nodes.push(node);
    fragment.edges.push(makeEdge(id, 'MATERIALIZES', node.id));
  }
}

/** MATERIALIZED_TABLE and CATALOG_TABLE nodes with MATERIALIZES edges, for one cluster. */
export function tableflowFragment(
  cluster: ClusterInfo,
  tables: readonly TableflowTopicBody[],
  integrations: readonly CatalogIntegrationBody[],
  options: { datalakeRegion?: string | undefined } = {},
): Fragment {
  const env = cluster.environmentId;
  const fragment: Fragment = { nodes: [], edges: [] };
  const datalakeRegion = options.datalakeRegion ?? cluster.region ?? 'unknown';
  for (const table of [...tables].sort((a, b) => (a.spec.display_name < b.spec.display_name ? -1 : 1))) {
    const topic = table.spec.display_name;
    const clusterId = table.spec.kafka_cluster?.id ?? cluster.clusterId;
    const formats = (table.spec.table_formats ?? []).map((format) => format.toUpperCase()).sort();
    const materialized: MaterializedTable = {
      env,
      clusterId,
      topic,
      formats,
      id: materializedTableId(env, clusterId, topic),
    };
    fragment.nodes.push(materializedTableNode(table, materialized));
    fragment.edges.push(makeEdge(topicId(env, clusterId, topic), 'MATERIALIZES', materialized.id));
    addCatalogTables(fragment, table, materialized, integrations, datalakeRegion);
  }
  return fragment;
}
