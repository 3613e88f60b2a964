/**
 * Warehouse tables of BigQuery sink connectors (`docs/specification.md`, "Warehouse (table nodes)";
 * `docs/contract.md` section 2, CATALOG_TABLE; `docs/extraction.md`, "Connectors").
 *
 * A sink connector whose class names BigQuery (the classic `BigQuerySink`, the storage-write
 * `BigQueryStorageSink`, the self-managed `com.wepay.kafka.connect.bigquery.BigQuerySinkConnector`)
 * writes one BigQuery table per topic it reads. Each becomes a CATALOG_TABLE with `catalog_type`
 * WAREHOUSE_LINEAGE, system WAREHOUSE, id `warehouse:catalog_table:{environment}:{project}.{dataset}.{table}`
 * and qualified name `{project}.{dataset}.{table}`:
 *
 * - project: the connector's `project` (else `gcp.project.id`), else the warehouse project setting
 *   (`LINEAGE_SVC_WAREHOUSE_PROJECT_ID`); with neither, the connector gets no table;
 * - dataset: `defaultDataset`, else `datasets` (a plain name, or the older `regex=dataset` pairs, the
 *   first whose regular expression matches the whole topic), else `dataset`, else the cluster id;
 * - table: the topic's entry in `topic2table.map` (`topic2TableMap` on the self-managed connector;
 *   `topic:table` pairs, comma-separated), else the topic with `.` and `-` replaced by `_`
 *   (`warehouseTableName`), or the topic unchanged when `sanitize.topics` (`sanitizeTopics`) is
 *   `false`.
 *
 * The connector PRODUCES each table. Attributes: `project_id`, `dataset_id`, `table_name`,
 * `source_topic`.
 */
import { warehouseTableId, warehouseTableName } from '../graph/ids.js';
import type { Node } from '../graph/model.js';
import { makeNode } from './graphBuilder.js';

/** A connector config (string values, some absent). */
type ConnectorConfig = Record<string, string | null | undefined>;

/** Where one topic of a BigQuery sink lands. */
export interface WarehouseTableRef {
  project: string;
  dataset: string;
  table: string;
  topic: string;
}

/** True for a BigQuery sink connector class (`BigQuerySink`, `BigQueryStorageSink`, the self-managed one). */
export function isBigQuerySink(config: ConnectorConfig): boolean {
  return /bigquery/i.test(config['connector.class'] ?? '');
}

/** The first non-empty value of `keys` in the config. */
function firstOf(config: ConnectorConfig, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = config[key]?.trim();
    if (value) return value;
  }
  return undefined;
}

/** `a:b,c:d` -> `{a: b, c: d}` (pairs without a colon or with an empty side are ignored; the last colon splits). */
export function parseTopicToTableMap(value: string | undefined): Map<string, string> {
  const map = new Map<string, string>();
  for (const pair of (value ?? '').split(',')) {
    const colon = pair.lastIndexOf(':');
    if (colon <= 0) continue;
    const topic = pair.slice(0, colon).trim();
    const table = pair.slice(colon + 1).trim();
    if (topic !== '' && table !== '') map.set(topic, table);
  }
  return map;
}

/** The dataset of one topic from `datasets`: a plain name, or the first `regex=dataset` pair whose pattern matches the whole topic. */
function datasetFromList(list: string, topic: string): string | undefined {
  for (const entry of list.split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    const equals = entry.lastIndexOf('=');
    if (equals < 0) return entry;
    try {
      if (new RegExp(`^(?:${entry.slice(0, equals)})$`).test(topic)) return entry.slice(equals + 1).trim() || undefined;
    } catch {
      // an invalid pattern matches nothing
    }
  }
  return undefined;
}

/**
 * Where each topic of a BigQuery sink lands (see the module comment). Pure.
 * @param topics the topics the connector reads.
 * @param clusterId the connector's cluster (the dataset when the config names none).
 * @param projectSetting `LINEAGE_SVC_WAREHOUSE_PROJECT_ID` (the project when the config names none).
 * @returns one entry per topic, in the order given; empty when no project is known.
 */
export function bigQueryTables(
  config: ConnectorConfig,
  topics: readonly string[],
  clusterId: string,
  projectSetting: string | undefined,
): WarehouseTableRef[] {
  const project = firstOf(config, 'project', 'gcp.project.id') ?? (projectSetting?.trim() || undefined);
  if (!project) return [];
  const mapped = parseTopicToTableMap(firstOf(config, 'topic2table.map', 'topic2TableMap'));
  const sanitize = firstOf(config, 'sanitize.topics', 'sanitizeTopics')?.toLowerCase() !== 'false';
  const defaultDataset = firstOf(config, 'defaultDataset');
  const datasets = firstOf(config, 'datasets');
  const single = firstOf(config, 'dataset');
  return topics.map((topic) => ({
    project,
    dataset: defaultDataset ?? (datasets ? datasetFromList(datasets, topic) : undefined) ?? single ?? clusterId,
    table: mapped.get(topic) ?? (sanitize ? warehouseTableName(topic) : topic),
    topic,
  }));
}

/** The warehouse CATALOG_TABLE node of one table a BigQuery sink writes. */
export function warehouseTableNode(environmentId: string, clusterId: string, ref: WarehouseTableRef): Node {
  return makeNode({
    id: warehouseTableId(environmentId, ref.project, ref.dataset, ref.table),
    nodeType: 'CATALOG_TABLE',
    system: 'WAREHOUSE',
    qualifiedName: `${ref.project}.${ref.dataset}.${ref.table}`,
    displayName: ref.table,
    environmentId,
    clusterId,
    catalogType: 'WAREHOUSE_LINEAGE',
    attributes: { project_id: ref.project, dataset_id: ref.dataset, table_name: ref.table, source_topic: ref.topic },
  });
}
