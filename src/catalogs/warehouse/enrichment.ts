/**
 * Enrichment of warehouse tables (`docs/catalogs.md`, "Warehouse" -> "Enrichment";
 * `docs/catalog-apis.md` B1): one BigQuery
 * `tables.get` per CATALOG_TABLE node with `catalog_type` WAREHOUSE_LINEAGE (`ENRICH_CONCURRENCY` in
 * flight) sets `table_type` (TABLE, VIEW, EXTERNAL, MATERIALIZED_VIEW, SNAPSHOT), `columns`
 * (`[{name, type, description}]`, nested RECORD fields under `fields`), `num_rows` (null for views),
 * `num_bytes`, `creation_time` and `last_modified_time` (milliseconds since epoch, numbers: BigQuery
 * sends int64s as JSON strings), `description`, `labels`, `location` and `url` (the console deep
 * link). 404/401/403 skip the table with a warning; other failures (retries exhausted, timeouts) are
 * warnings too. Then the table's downstream lineage is read from the Data Lineage API (`discovery.ts`:
 * `searchLinks`, `batchSearchLinkProcesses`, `processes.get`): downstream tables become derived
 * CATALOG_TABLE nodes, enriched in turn, and processes CATALOG_JOB nodes between the tables.
 *
 * Tables: qualified name `{project}.{dataset}.{table}`; the table name is the topic name with `.`
 * and `-` replaced by `_` (`warehouseTableName` in `src/graph/ids.ts`). BigQuery dataset and table ids
 * cannot contain `.`, but domain-scoped project ids can (`example.com:project`), so the name is split
 * from the right.
 */
import type { LineageGraph, Node } from '../../graph/model.js';
import { walkDownstream } from '../downstream.js';
import type { EnrichmentResult, ProviderDeps } from '../provider.js';
import { createWarehouseDiscovery } from './discovery.js';
import {
  describeFailure,
  ENRICH_CONCURRENCY,
  isSkippableWarehouseError,
  nonEmpty,
  type BigQueryField,
  type BigQueryTable,
  type BigQueryTableRef,
  type WarehouseCatalogPort,
} from './port.js';

/** True for warehouse catalog tables. */
export function isWarehouseTable(node: Node): boolean {
  return node.node_type === 'CATALOG_TABLE' && node.catalog_type === 'WAREHOUSE_LINEAGE';
}

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

/**
 * Enriches the graph's warehouse tables and walks downstream from them (see the module comment):
 * one `tables.get` per table, then its Data Lineage links (`discovery.ts`), through the shared walk
 * (`walkDownstream`, `src/catalogs/downstream.ts`: sorted by node id, `ENRICH_CONCURRENCY` in
 * flight, cycle-safe, bounded in tables and depth).
 * @returns `catalog_type` WAREHOUSE_LINEAGE, one enrichment `{node_id, attributes}` per table of the
 *   graph read (`tableAttributes`), the derived tables (enriched) and catalog jobs discovered with their
 *   edges, and one warning per table not read (`... skipped: ...` for 404/401/403, `... not enriched: ...`
 *   otherwise) or lineage not read, or a single warning when `authenticate()` fails. Never throws for a
 *   catalog failure.
 */
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
  const tables = graph.nodes.filter(isWarehouseTable);
  if (tables.length === 0) return result;
  try {
    await port.authenticate();
  } catch (error) {
    result.warnings.push(`warehouse: no table enriched: ${describeFailure(error)}`);
    return result;
  }
  const discovery = createWarehouseDiscovery(port, result.warnings);
  await walkDownstream(graph, result, {
    catalog: 'warehouse',
    roots: tables,
    concurrency: ENRICH_CONCURRENCY,
    async readTable(node) {
      const ref = warehouseTableParts(node, port.projectId);
      try {
        return tableAttributes(await port.getTable(ref), ref);
      } catch (error) {
        const why = isSkippableWarehouseError(error) ? 'skipped' : 'not enriched';
        result.warnings.push(
          `warehouse: table ${ref.project}.${ref.dataset}.${ref.table} ${why}: ${describeFailure(error)}`,
        );
        return null;
      }
    },
    readDownstream: (node) => discovery.readDownstream(node, warehouseTableParts(node, port.projectId)),
  });
  return result;
}
