/**
 * The lakehouse catalog provider (Databricks Unity Catalog + SQL warehouses): enrichment of
 * lakehouse CATALOG_TABLE nodes, downstream discovery, and lineage push. `docs/specification.md`,
 * "Catalog integrations" -> "Lakehouse catalog (table nodes)"; `docs/contract.md` sections 1-3. All I/O goes through
 * `LakehouseCatalogPort` (implemented over HTTP by `infra/catalogs/databricksClient.ts`).
 *
 * Tables: nodes with `node_type` CATALOG_TABLE and `catalog_type` LAKEHOUSE_CATALOG; id
 * `lakehouse:catalog_table:{env}:{catalog}.{schema}.{table}`, qualified name
 * `{catalog}.{schema}.{table}` (built from Tableflow by `src/extraction/tableflow.ts`, catalog from
 * the integration's `catalog_name`, else the default literal `confluent_tableflow`).
 *
 * Enrichment (`enrich`): per table, the table-metadata endpoint gives `owner`, `table_type`,
 * `columns` (`{name, type, comment}`), `storage_location`, `updated_at` (ISO 8601, from epoch ms),
 * plus `data_source_format` and the deep link `url`
 * (`{workspace}/explore/data/{catalog}/{schema}/{table}`). Then the table-lineage endpoint is read;
 * every downstream table becomes a CATALOG_TABLE with `derived` = true (environment and cluster of
 * the table it comes from) and a `TRANSFORMS` edge from it, is enriched in turn, and the walk
 * recurses (breadth-first, `ENRICH_CONCURRENCY` calls in flight, at most `MAX_DISCOVERED_TABLES`
 * new tables). 404/401/403 skip the table with a warning; other failures (retries exhausted,
 * timeouts) are warnings too. Enrichment never throws for a catalog failure.
 *
 * Push (`push`): for every lakehouse table with something upstream, through SQL statements on a
 * SQL warehouse (the configured id, else auto-discovered: running first, then serverless, then
 * starting, then any, ties by name):
 * - `set_properties`: `ALTER TABLE ... SET TBLPROPERTIES (...)` with the `lineage_svc.*` keys;
 * - `set_comments`: `COMMENT ON TABLE ... IS '...'` with the comment tree;
 * - `create_bridge_table`: per catalog `CREATE TABLE IF NOT EXISTS {catalog}.default.stream_lineage`,
 *   then per table `DELETE` of its previous rows and one `INSERT` of one row per upstream node (so
 *   rows do not pile up across pushes). When creation is refused, that catalog's rows are skipped
 *   with an error while properties and comments still apply.
 * Every identifier is backtick-quoted (backticks doubled) and every string literal escaped by
 * `sqlString`; no name reaches SQL unescaped.
 */
import pLimit from 'p-limit';
import type { Config } from '../config.js';
import { lakehouseTableId } from '../graph/ids.js';
import type { Edge, LineageGraph, Node } from '../graph/model.js';
import {
  CatalogApiError,
  emptyPushResult,
  missingOf,
  type CatalogProvider,
  type EnrichmentResult,
  type NodeEnrichment,
  type ProviderDeps,
  type PushOptions,
  type PushResult,
} from './provider.js';
import {
  BRIDGE_COLUMNS,
  bridgeRows,
  commentTree,
  indexGraph,
  lineageProperties,
  upstreamChain,
  type BridgeRow,
} from './upstreamChain.js';

// ---------------------------------------------------------------------------------------------
// The port: what the provider needs from the catalog's API (shapes of `docs/catalog-apis.md` A1, A4, A6, A7).

/** A column of `TableInfo` (Unity Catalog `ColumnInfo`, the fields read). */
export interface LakehouseColumnInfo {
  name: string;
  type_text?: string | null;
  type_name?: string | null;
  comment?: string | null;
  nullable?: boolean | null;
  position?: number | null;
}

/** `TableInfo` of `GET /api/2.1/unity-catalog/tables/{full_name}` (the fields read). */
export interface LakehouseTableInfo {
  name?: string | null;
  catalog_name?: string | null;
  schema_name?: string | null;
  full_name?: string | null;
  table_type?: string | null;
  data_source_format?: string | null;
  columns?: LakehouseColumnInfo[] | null;
  storage_location?: string | null;
  owner?: string | null;
  /** Epoch milliseconds. */
  updated_at?: number | null;
  created_at?: number | null;
}

/** One entry of the table-lineage answer (`tableInfo` may be absent for entity-only entries). */
export interface LakehouseLineageEntry {
  tableInfo?: {
    name?: string | null;
    catalog_name?: string | null;
    schema_name?: string | null;
    table_type?: string | null;
    lineage_timestamp?: string | null;
  } | null;
}

/** `GET /api/2.0/lineage-tracking/table-lineage` (either list may be absent when empty). */
export interface LakehouseTableLineage {
  upstreams?: LakehouseLineageEntry[] | null;
  downstreams?: LakehouseLineageEntry[] | null;
}

/** A SQL warehouse of `GET /api/2.0/sql/warehouses`. */
export interface LakehouseWarehouse {
  id: string;
  name?: string | null;
  state?: string | null;
  enable_serverless_compute?: boolean | null;
}

/** The end state of a statement (after polling). */
export interface StatementOutcome {
  statement_id: string;
  /** `SUCCEEDED`, `FAILED`, `CANCELED` or `CLOSED`. */
  state: string;
  error?: { error_code?: string | null; message?: string | null } | null;
}

/** The lakehouse API as the provider uses it. Every method throws `CatalogApiError` on failure. */
export interface LakehouseCatalogPort {
  /** Workspace base URL, no trailing slash (for deep links). */
  readonly workspaceUrl: string;
  getTable(fullName: string): Promise<LakehouseTableInfo>;
  getTableLineage(fullName: string): Promise<LakehouseTableLineage>;
  listWarehouses(): Promise<LakehouseWarehouse[]>;
  /** Runs a statement and waits (polling) until it ends. Execution failures resolve with state FAILED. */
  executeStatement(warehouseId: string, statement: string): Promise<StatementOutcome>;
}

/** What `enrich` and `push` get: the port, and the configured warehouse id (auto-discovered when undefined). */
export interface LakehouseDeps extends ProviderDeps<LakehouseCatalogPort> {
  warehouseId?: string | undefined;
}

// ---------------------------------------------------------------------------------------------
// SQL text.

/** A backtick-quoted identifier part: backticks inside are doubled. */
export function sqlIdentifier(part: string): string {
  return `\`${part.replaceAll('`', '``')}\``;
}

/** A quoted dotted name, each part quoted on its own: `` `a`.`b`.`c` ``. */
export function sqlQualifiedName(parts: readonly string[]): string {
  return parts.map(sqlIdentifier).join('.');
}

/**
 * A SQL string literal in single quotes (Databricks SQL reads backslash escapes): `\` -> `\\`,
 * `'` -> `\'`, newline -> `\n`, carriage return -> `\r`, tab -> `\t`; other control characters
 * are dropped. The result is always one line.
 */
export function sqlString(value: string): string {
  // eslint-disable-next-line no-control-regex
  const escaped = value.replace(/[\\'\n\r\t]|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, (char) => {
    switch (char) {
      case '\\':
        return '\\\\';
      case "'":
        return "\\'";
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      default:
        return '';
    }
  });
  return `'${escaped}'`;
}

/** The `{catalog, schema, table}` of a lakehouse table node (from its qualified name). */
export function tableParts(node: Pick<Node, 'qualified_name' | 'attributes'>): [string, string, string] {
  const attributes = node.attributes ?? {};
  const named = [attributes.catalog_name, attributes.schema_name, attributes.table_name];
  if (named.every((part) => typeof part === 'string' && part !== '')) return named as [string, string, string];
  const name = node.qualified_name;
  const first = name.indexOf('.');
  const last = name.lastIndexOf('.');
  if (first < 0 || last === first) return ['', '', name];
  return [name.slice(0, first), name.slice(first + 1, last), name.slice(last + 1)];
}

/** `ALTER TABLE t SET TBLPROPERTIES ('k' = 'v', ...)`. */
export function setPropertiesStatement(parts: readonly string[], properties: Record<string, string>): string {
  const pairs = Object.entries(properties).map(([key, value]) => `${sqlString(key)} = ${sqlString(value)}`);
  return `ALTER TABLE ${sqlQualifiedName(parts)} SET TBLPROPERTIES (${pairs.join(', ')})`;
}

/** `COMMENT ON TABLE t IS '...'`. */
export function commentStatement(parts: readonly string[], comment: string): string {
  return `COMMENT ON TABLE ${sqlQualifiedName(parts)} IS ${sqlString(comment)}`;
}

/** The bridge table of a catalog: `{catalog}.default.stream_lineage`. */
export function bridgeTableParts(catalog: string): [string, string, string] {
  return [catalog, 'default', 'stream_lineage'];
}

/** `CREATE TABLE IF NOT EXISTS {catalog}.default.stream_lineage (...)` with the columns of `docs/specification.md`, "Lakehouse catalog (table nodes)". */
export function createBridgeTableStatement(catalog: string): string {
  const columns = BRIDGE_COLUMNS.map(([name, type]) => `${sqlIdentifier(name)} ${type}`).join(', ');
  return `CREATE TABLE IF NOT EXISTS ${sqlQualifiedName(bridgeTableParts(catalog))} (${columns})`;
}

/** `DELETE FROM bridge WHERE uc_table = '...'`: forgets a table's rows of earlier pushes. */
export function deleteBridgeRowsStatement(catalog: string, ucTable: string): string {
  return `DELETE FROM ${sqlQualifiedName(bridgeTableParts(catalog))} WHERE ${sqlIdentifier('uc_table')} = ${sqlString(ucTable)}`;
}

function sqlValue(value: string | number | null, type: string): string {
  if (value === null) return 'NULL';
  if (type === 'INT') return Number.isSafeInteger(value) ? String(value) : 'NULL';
  if (type === 'TIMESTAMP') return `TIMESTAMP ${sqlString(String(value))}`;
  return sqlString(String(value));
}

/** `INSERT INTO bridge (columns) VALUES (...), (...)`. */
export function insertBridgeRowsStatement(catalog: string, rows: readonly BridgeRow[]): string {
  const columns = BRIDGE_COLUMNS.map(([name]) => sqlIdentifier(name)).join(', ');
  const values = rows.map((row) => `(${BRIDGE_COLUMNS.map(([name, type]) => sqlValue(row[name], type)).join(', ')})`);
  return `INSERT INTO ${sqlQualifiedName(bridgeTableParts(catalog))} (${columns}) VALUES ${values.join(', ')}`;
}

// ---------------------------------------------------------------------------------------------
// Enrichment.

/** Calls in flight during enrichment. */
export const ENRICH_CONCURRENCY = 4;
/** Most tables downstream discovery adds in one enrichment (a warning says when it stopped). */
export const MAX_DISCOVERED_TABLES = 500;

/** True for lakehouse catalog tables. */
export function isLakehouseTable(node: Node): boolean {
  return node.node_type === 'CATALOG_TABLE' && node.catalog_type === 'LAKEHOUSE_CATALOG';
}

/** `{workspace}/explore/data/{catalog}/{schema}/{table}` (each part percent-encoded). */
export function lakehouseDeepLink(workspaceUrl: string, parts: readonly string[]): string {
  return `${workspaceUrl.replace(/\/+$/, '')}/explore/data/${parts.map(encodeURIComponent).join('/')}`;
}

/** The attributes enrichment sets from a `TableInfo`. */
export function tableAttributes(
  info: LakehouseTableInfo,
  workspaceUrl: string,
  parts: readonly string[],
): Record<string, unknown> {
  const attributes: Record<string, unknown> = {
    owner: info.owner ?? null,
    table_type: info.table_type ?? null,
    columns: (info.columns ?? []).map((column) => ({
      name: column.name,
      type: column.type_text ?? column.type_name ?? null,
      comment: column.comment ?? null,
    })),
    storage_location: info.storage_location ?? null,
    updated_at:
      typeof info.updated_at === 'number' && Number.isFinite(info.updated_at)
        ? new Date(info.updated_at).toISOString()
        : null,
    data_source_format: info.data_source_format ?? null,
    url: lakehouseDeepLink(workspaceUrl, parts),
  };
  return attributes;
}

function describeFailure(error: unknown): string {
  if (error instanceof CatalogApiError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** Enrichment of lakehouse tables with downstream discovery (see the module comment). */
export async function enrichLakehouse(graph: LineageGraph, deps: LakehouseDeps): Promise<EnrichmentResult> {
  const { port } = deps;
  const result: EnrichmentResult = {
    catalog_type: 'LAKEHOUSE_CATALOG',
    enrichments: [],
    newNodes: [],
    newEdges: [],
    warnings: [],
  };
  const known = new Map(graph.nodes.map((node) => [node.id, node]));
  const edgeKeys = new Set(graph.edges.map((edge) => `${edge.src_id}\t${edge.edge_type}\t${edge.dst_id}`));
  const visited = new Set<string>();
  const limit = pLimit(ENRICH_CONCURRENCY);
  let lineageUnavailable = false;
  let capWarned = false;

  /** Reads one table's metadata; true when it answered (so its lineage is worth reading). */
  const enrichOne = async (node: Node): Promise<boolean> => {
    const parts = tableParts(node);
    try {
      const info = await port.getTable(parts.join('.'));
      const enrichment: NodeEnrichment = {
        node_id: node.id,
        attributes: tableAttributes(info, port.workspaceUrl, parts),
      };
      const fresh = result.newNodes.find((candidate) => candidate.id === node.id);
      if (fresh) fresh.attributes = { ...fresh.attributes, ...enrichment.attributes };
      else result.enrichments.push(enrichment);
      return true;
    } catch (error) {
      const why = error instanceof CatalogApiError && error.skippable ? 'skipped' : 'not enriched';
      result.warnings.push(`lakehouse: table ${parts.join('.')} ${why}: ${describeFailure(error)}`);
      return false;
    }
  };

  /** Reads one table's downstream lineage; returns the tables to visit next. */
  const discover = async (node: Node): Promise<Node[]> => {
    if (lineageUnavailable) return [];
    const parts = tableParts(node);
    let lineage: LakehouseTableLineage;
    try {
      lineage = await port.getTableLineage(parts.join('.'));
    } catch (error) {
      if (error instanceof CatalogApiError && error.status === 404 && error.errorCode === 'ENDPOINT_NOT_FOUND') {
        if (!lineageUnavailable)
          result.warnings.push(
            `lakehouse: downstream discovery unavailable (table lineage endpoint not found): ${error.message}`,
          );
        lineageUnavailable = true;
      } else {
        result.warnings.push(`lakehouse: downstream lineage of ${parts.join('.')} not read: ${describeFailure(error)}`);
      }
      return [];
    }
    const next: Node[] = [];
    for (const entry of lineage.downstreams ?? []) {
      const info = entry?.tableInfo;
      if (!info?.name || !info.catalog_name || !info.schema_name) continue;
      const id = lakehouseTableId(node.environment_id ?? 'unknown', info.catalog_name, info.schema_name, info.name);
      if (id === node.id) continue;
      let target = known.get(id);
      if (!target) {
        if (result.newNodes.length >= MAX_DISCOVERED_TABLES) {
          if (!capWarned)
            result.warnings.push(`lakehouse: downstream discovery stopped after ${MAX_DISCOVERED_TABLES} new tables`);
          capWarned = true;
          break;
        }
        target = {
          id,
          node_type: 'CATALOG_TABLE',
          system: 'LAKEHOUSE',
          qualified_name: `${info.catalog_name}.${info.schema_name}.${info.name}`,
          display_name: info.name,
          environment_id: node.environment_id,
          cluster_id: node.cluster_id,
          attributes: {
            derived: true,
            catalog_name: info.catalog_name,
            schema_name: info.schema_name,
            table_name: info.name,
            discovered_from: node.id,
          },
          catalog_type: 'LAKEHOUSE_CATALOG',
        };
        known.set(id, target);
        result.newNodes.push(target);
      }
      const edge: Edge = {
        src_id: node.id,
        dst_id: id,
        edge_type: 'TRANSFORMS',
        attributes: {
          source: 'lakehouse_table_lineage',
          ...(info.lineage_timestamp ? { lineage_timestamp: info.lineage_timestamp } : {}),
        },
      };
      const key = `${edge.src_id}\tTRANSFORMS\t${edge.dst_id}`;
      if (!edgeKeys.has(key)) {
        edgeKeys.add(key);
        result.newEdges.push(edge);
      }
      if (!visited.has(id)) {
        visited.add(id);
        next.push(target);
      }
    }
    return next;
  };

  let frontier = graph.nodes.filter(isLakehouseTable).sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const node of frontier) visited.add(node.id);
  while (frontier.length > 0) {
    const levels = await Promise.all(
      frontier.map((node) =>
        limit(async () => {
          const answered = await enrichOne(node);
          return answered ? discover(node) : [];
        }),
      ),
    );
    frontier = levels.flat();
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Push.

/** Statement errors that mean "no access / not there" (listed in `skipped`, not `errors`). */
const BENIGN_STATEMENT_ERRORS =
  /PERMISSION_DENIED|does not have (MODIFY|CREATE|USE|OWNERSHIP|MANAGE)|TABLE_OR_VIEW_NOT_FOUND|SCHEMA_NOT_FOUND|CATALOG_NOT_FOUND/;

/**
 * Picks a warehouse: `RUNNING` first, then serverless, then `STARTING`, then the rest (`DELETED` and
 * `DELETING` never), ties by name then id. Undefined when none is usable.
 */
export function chooseWarehouse(warehouses: readonly LakehouseWarehouse[]): LakehouseWarehouse | undefined {
  const rank = (w: LakehouseWarehouse) =>
    w.state === 'RUNNING' ? 0 : w.enable_serverless_compute ? 1 : w.state === 'STARTING' ? 2 : 3;
  return warehouses
    .filter((w) => typeof w.id === 'string' && w.id !== '' && w.state !== 'DELETED' && w.state !== 'DELETING')
    .sort((a, b) => rank(a) - rank(b) || (a.name ?? '').localeCompare(b.name ?? '') || a.id.localeCompare(b.id))[0];
}

type StepOutcome = { ok: true } | { ok: false; benign: boolean; message: string };

async function run(port: LakehouseCatalogPort, warehouseId: string, statement: string): Promise<StepOutcome> {
  try {
    const outcome = await port.executeStatement(warehouseId, statement);
    if (outcome.state === 'SUCCEEDED') return { ok: true };
    const message = `${outcome.state}${outcome.error?.error_code ? ` ${outcome.error.error_code}` : ''}: ${outcome.error?.message ?? 'no message'}`;
    return { ok: false, benign: BENIGN_STATEMENT_ERRORS.test(message), message };
  } catch (error) {
    return { ok: false, benign: error instanceof CatalogApiError && error.skippable, message: describeFailure(error) };
  }
}

/** Push of lineage into lakehouse tables (see the module comment). Never throws for a catalog failure. */
export async function pushLakehouse(
  graph: LineageGraph,
  options: PushOptions,
  deps: LakehouseDeps,
): Promise<PushResult> {
  const { port } = deps;
  const result = emptyPushResult();
  const syncedAt = (deps.now ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const index = indexGraph(graph);
  const tables = graph.nodes.filter(isLakehouseTable).sort((a, b) => (a.qualified_name < b.qualified_name ? -1 : 1));
  const work: Array<{ table: Node; parts: [string, string, string]; chain: ReturnType<typeof upstreamChain> }> = [];
  for (const table of tables) {
    const chain = upstreamChain(index, table.id);
    if (chain.length === 0) result.skipped.push(`${table.qualified_name}: no upstream lineage in the graph`);
    else work.push({ table, parts: tableParts(table), chain });
  }
  if (work.length === 0 || (!options.set_properties && !options.set_comments && !options.create_bridge_table))
    return result;

  let warehouseId = deps.warehouseId;
  if (!warehouseId) {
    try {
      warehouseId = chooseWarehouse(await port.listWarehouses())?.id;
    } catch (error) {
      result.errors.push(`no SQL warehouse: listing warehouses failed: ${describeFailure(error)}`);
      return result;
    }
    if (!warehouseId) {
      result.errors.push(
        'no SQL warehouse found in the workspace; create one or set LINEAGE_SVC_LAKEHOUSE_WAREHOUSE_ID',
      );
      return result;
    }
  }
  const note = (name: string, step: string, outcome: Exclude<StepOutcome, { ok: true }>) =>
    (outcome.benign ? result.skipped : result.errors).push(`${name}: ${step}: ${outcome.message}`);

  const pushed: typeof work = [];
  for (const item of work) {
    const name = item.table.qualified_name;
    const { properties, capped } = lineageProperties({ table: item.table, chain: item.chain, syncedAt });
    let updated = false;
    if (options.set_properties) {
      const outcome = await run(port, warehouseId, setPropertiesStatement(item.parts, properties));
      if (outcome.ok) {
        result.properties_set += Object.keys(properties).length;
        updated = true;
      } else note(name, 'properties not set', outcome);
    }
    if (options.set_comments) {
      const outcome = await run(
        port,
        warehouseId,
        commentStatement(item.parts, commentTree(item.table, capped, syncedAt)),
      );
      if (outcome.ok) {
        result.comments_set += 1;
        updated = true;
      } else note(name, 'comment not set', outcome);
    }
    if (updated) result.tables_updated += 1;
    pushed.push(item);
  }

  if (options.create_bridge_table) {
    const byCatalog = new Map<string, typeof work>();
    for (const item of pushed)
      (byCatalog.get(item.parts[0]) ?? byCatalog.set(item.parts[0], []).get(item.parts[0])!).push(item);
    for (const [catalog, items] of [...byCatalog].sort(([a], [b]) => a.localeCompare(b))) {
      const bridge = bridgeTableParts(catalog).join('.');
      const created = await run(port, warehouseId, createBridgeTableStatement(catalog));
      if (!created.ok) {
        result.errors.push(`bridge table ${bridge}: not created: ${created.message}`);
        continue;
      }
      for (const item of items) {
        const rows = bridgeRows({ table: item.table, chain: item.chain, syncedAt });
        const cleared = await run(port, warehouseId, deleteBridgeRowsStatement(catalog, item.table.qualified_name));
        if (!cleared.ok) {
          note(item.table.qualified_name, `bridge rows of earlier pushes not removed from ${bridge}`, cleared);
          continue;
        }
        const inserted = await run(port, warehouseId, insertBridgeRowsStatement(catalog, rows));
        if (inserted.ok) result.bridge_rows_inserted += rows.length;
        else note(item.table.qualified_name, `bridge rows not inserted into ${bridge}`, inserted);
      }
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// The provider.

/** Variables the lakehouse provider reads (`docs/contract.md` section 3). */
export const LAKEHOUSE_SETTINGS = [
  'LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL',
  'LINEAGE_SVC_LAKEHOUSE_TOKEN',
  'LINEAGE_SVC_LAKEHOUSE_WAREHOUSE_ID',
] as const;

/** The lakehouse provider (`LAKEHOUSE_CATALOG`, short name `lakehouse`). */
export const lakehouseProvider: CatalogProvider<LakehouseCatalogPort> & {
  enrich(graph: LineageGraph, deps: LakehouseDeps): Promise<EnrichmentResult>;
  push(graph: LineageGraph, options: PushOptions, deps: LakehouseDeps): Promise<PushResult>;
} = {
  catalogType: 'LAKEHOUSE_CATALOG',
  system: 'LAKEHOUSE',
  shortName: 'lakehouse',
  settings: LAKEHOUSE_SETTINGS,
  requiredSettings: ['LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL', 'LINEAGE_SVC_LAKEHOUSE_TOKEN'],
  missingSettings: (config: Config) =>
    missingOf({
      LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL: config.lakehouse.workspaceUrl,
      LINEAGE_SVC_LAKEHOUSE_TOKEN: config.lakehouse.token,
    }),
  isConfigured: (config: Config) => Boolean(config.lakehouse.workspaceUrl && config.lakehouse.token),
  enrich: enrichLakehouse,
  push: pushLakehouse,
};
