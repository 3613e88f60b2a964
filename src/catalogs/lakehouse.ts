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
 * the table it comes from) and a `TRANSFORMS` edge from it (or CATALOG_JOB nodes between them), is
 * enriched in turn, and the walk recurses (`walkDownstream`, `src/catalogs/downstream.ts`:
 * breadth-first, cycle-safe, `ENRICH_CONCURRENCY` calls in flight, at most `MAX_DISCOVERED_TABLES`
 * new tables and `MAX_DOWNSTREAM_DEPTH` levels). 404/401/403 skip the table with a warning; other failures (retries exhausted,
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
import { MAX_DISCOVERED_TABLES, walkDownstream, type DownstreamEntry } from './downstream.js';
import type { Config } from '../config.js';
import { catalogJobId, lakehouseTableId } from '../graph/ids.js';
import type { Edge, LineageGraph, Node } from '../graph/model.js';
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
  /** Table properties (string map; `lineage_svc.*` keys are the push's). */
  properties?: Record<string, string> | null;
  comment?: string | null;
}

/** An entity of a lineage entry: the notebook, job, pipeline or query that read or wrote the table (A4). */
export interface LakehouseLineageEntity {
  workspace_id?: number | string | null;
  notebook_id?: number | string | null;
  job_id?: number | string | null;
  pipeline_id?: string | null;
  query_id?: string | null;
  lineage_timestamp?: string | null;
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
  notebookInfos?: LakehouseLineageEntity[] | null;
  jobInfos?: LakehouseLineageEntity[] | null;
  pipelineInfos?: LakehouseLineageEntity[] | null;
  queryInfos?: LakehouseLineageEntity[] | null;
}

/** The entity kinds of a lineage entry, with the field holding each one's id. */
const LINEAGE_ENTITY_KINDS = [
  ['notebookInfos', 'notebook', 'notebook_id'],
  ['jobInfos', 'job', 'job_id'],
  ['pipelineInfos', 'pipeline', 'pipeline_id'],
  ['queryInfos', 'query', 'query_id'],
] as const;

/** The deep link of a catalog job in the workspace. */
function lakehouseJobLink(workspaceUrl: string, kind: string, id: string): string {
  const paths: Record<string, string> = {
    notebook: `#notebook/${id}`,
    job: `jobs/${id}`,
    pipeline: `pipelines/${id}`,
    query: `sql/editor/${id}`,
  };
  return `${workspaceUrl}/${paths[kind] ?? ''}`;
}

/**
 * The CATALOG_JOB nodes of one downstream lineage entry (`docs/catalog-apis.md` A4: its
 * `notebookInfos`, `jobInfos`, `pipelineInfos`, `queryInfos`), between the table read (`upstream`)
 * and the table written (`downstreamId`): id `lakehouse:catalog_job:{env}:{kind}/{entity id}`
 * (`catalogJobId`), edges CONSUMES upstream -> job and PRODUCES job -> downstream (`docs/contract.md`
 * section 2). Empty when the entry names no entity (the caller then links the tables by TRANSFORMS).
 */
export function lakehouseCatalogJobs(
  entry: LakehouseLineageEntry,
  upstream: Pick<Node, 'id' | 'environment_id' | 'cluster_id'> & Partial<Pick<Node, 'attributes'>>,
  downstreamId: string,
  workspaceUrl: string,
): { nodes: Node[]; edges: Edge[] } {
  const nodes: Node[] = [];
  const edges: Edge[] = [];
  for (const [field, kind, idField] of LINEAGE_ENTITY_KINDS) {
    for (const entity of entry[field] ?? []) {
      const raw = entity?.[idField];
      if (raw === undefined || raw === null || String(raw) === '') continue;
      const entityId = String(raw);
      const id = catalogJobId('LAKEHOUSE', upstream.environment_id ?? 'unknown', `${kind}/${entityId}`);
      if (!nodes.some((node) => node.id === id))
        nodes.push({
          id,
          node_type: 'CATALOG_JOB',
          system: 'LAKEHOUSE',
          qualified_name: `${kind}/${entityId}`,
          display_name: `${kind} ${entityId}`,
          environment_id: upstream.environment_id,
          cluster_id: upstream.cluster_id,
          attributes: {
            derived: true,
            job_kind: kind,
            entity_id: entityId,
            workspace_id:
              entity.workspace_id === undefined || entity.workspace_id === null ? null : String(entity.workspace_id),
            url: lakehouseJobLink(workspaceUrl, kind, entityId),
            workspace_url: workspaceOf(upstream, workspaceUrl),
            discovered_from: upstream.id,
          },
        });
      const source = { source: 'lakehouse_table_lineage' };
      edges.push({ src_id: upstream.id, dst_id: id, edge_type: 'CONSUMES', attributes: source });
      edges.push({ src_id: id, dst_id: downstreamId, edge_type: 'PRODUCES', attributes: source });
    }
  }
  return { nodes, edges };
}

/**
 * The workspace a table found downstream of `upstream` lives in: the upstream table's own
 * (`workspace_url`, e.g. the one its Tableflow catalog integration names), else the configured one.
 * It is the OpenLineage namespace of the table and its catalog jobs (`lakehouse://{workspace host}`),
 * so that one catalog has one namespace.
 */
function workspaceOf(upstream: Partial<Pick<Node, 'attributes'>>, workspaceUrl: string): string {
  const own = upstream.attributes?.workspace_url;
  return typeof own === 'string' && own !== '' ? own : workspaceUrl;
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
/** Most tables downstream discovery adds in one enrichment (a warning says when it stopped); see `src/catalogs/downstream.ts`. */
export { MAX_DISCOVERED_TABLES };

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

/** The downstream entries of one table-lineage answer (`docs/catalog-apis.md` A4), for the shared walk. */
function lakehouseDownstreamEntries(
  node: Node,
  lineage: LakehouseTableLineage,
  workspaceUrl: string,
): DownstreamEntry[] {
  const entries: DownstreamEntry[] = [];
  for (const entry of lineage.downstreams ?? []) {
    const info = entry?.tableInfo;
    if (!info?.name || !info.catalog_name || !info.schema_name) continue;
    const id = lakehouseTableId(node.environment_id ?? 'unknown', info.catalog_name, info.schema_name, info.name);
    const table: Node = {
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
        workspace_url: workspaceOf(node, workspaceUrl),
        discovered_from: node.id,
      },
      catalog_type: 'LAKEHOUSE_CATALOG',
    };
    const transforms: Edge = {
      src_id: node.id,
      dst_id: id,
      edge_type: 'TRANSFORMS',
      attributes: {
        source: 'lakehouse_table_lineage',
        ...(info.lineage_timestamp ? { lineage_timestamp: info.lineage_timestamp } : {}),
      },
    };
    entries.push({ table, jobs: lakehouseCatalogJobs(entry, node, id, workspaceUrl), transforms });
  }
  return entries;
}

/** Enrichment of lakehouse tables with downstream discovery (see the module comment), through `walkDownstream`. */
export async function enrichLakehouse(graph: LineageGraph, deps: LakehouseDeps): Promise<EnrichmentResult> {
  const { port } = deps;
  const result: EnrichmentResult = {
    catalog_type: 'LAKEHOUSE_CATALOG',
    enrichments: [],
    newNodes: [],
    newEdges: [],
    warnings: [],
  };
  let lineageUnavailable = false;

  const readTable = async (node: Node): Promise<Record<string, unknown> | null> => {
    const parts = tableParts(node);
    try {
      return tableAttributes(await port.getTable(parts.join('.')), port.workspaceUrl, parts);
    } catch (error) {
      const why = error instanceof CatalogApiError && error.skippable ? 'skipped' : 'not enriched';
      result.warnings.push(`lakehouse: table ${parts.join('.')} ${why}: ${describeFailure(error)}`);
      return null;
    }
  };

  const readDownstream = async (node: Node): Promise<DownstreamEntry[]> => {
    if (lineageUnavailable) return [];
    const parts = tableParts(node);
    try {
      return lakehouseDownstreamEntries(node, await port.getTableLineage(parts.join('.')), port.workspaceUrl);
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
  };

  await walkDownstream(graph, result, {
    catalog: 'lakehouse',
    roots: graph.nodes.filter(isLakehouseTable),
    concurrency: ENRICH_CONCURRENCY,
    maxNewTables: MAX_DISCOVERED_TABLES,
    readTable,
    readDownstream,
  });
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

/** One table to push: the node, its name parts and its upstream chain. */
type PushItem = { table: Node; parts: [string, string, string]; chain: ReturnType<typeof upstreamChain> };

/** The comment without its `Last synced:` line (which changes on every push). */
const commentBody = (comment: string | null | undefined): string =>
  (comment ?? '')
    .split('\n')
    .filter((line) => !line.startsWith('Last synced: '))
    .join('\n');

/**
 * True when the table as read (`docs/catalog-apis.md` A1: `properties`, `comment`) already holds
 * what a push would write, `lineage_svc.last_synced` and the comment's `Last synced:` line aside.
 */
export function lakehouseTableUnchanged(
  info: Pick<LakehouseTableInfo, 'properties' | 'comment'>,
  wanted: { properties?: Record<string, string> | undefined; comment?: string | undefined },
): boolean {
  if (wanted.properties) {
    for (const [key, value] of Object.entries(wanted.properties))
      if (key !== 'lineage_svc.last_synced' && info.properties?.[key] !== value) return false;
    for (const key of Object.keys(info.properties ?? {}))
      if (key.startsWith('lineage_svc.') && key !== 'lineage_svc.last_synced' && !(key in wanted.properties))
        return false;
  }
  return wanted.comment === undefined || commentBody(info.comment) === commentBody(wanted.comment);
}

/** Resolves the warehouse to run statements on, or the error line. */
async function resolveWarehouse(deps: LakehouseDeps): Promise<{ id: string } | { error: string }> {
  if (deps.warehouseId) return { id: deps.warehouseId };
  try {
    const id = chooseWarehouse(await deps.port.listWarehouses())?.id;
    if (id) return { id };
    return { error: 'no SQL warehouse found in the workspace; create one or set LINEAGE_SVC_LAKEHOUSE_WAREHOUSE_ID' };
  } catch (error) {
    return { error: `no SQL warehouse: listing warehouses failed: ${describeFailure(error)}` };
  }
}

/**
 * Pushes properties and comment of one table: reads it first (A1) and writes nothing when it already
 * holds the same lineage (`unchanged`); a table that cannot be read for lack of access or existence
 * is `skipped`. Returns whether its bridge rows should be written.
 */
async function pushLakehouseTable(
  item: PushItem,
  options: PushOptions,
  context: { port: LakehouseCatalogPort; warehouseId: string; syncedAt: string; result: PushResult },
): Promise<boolean> {
  const { port, warehouseId, syncedAt, result } = context;
  const name = item.table.qualified_name;
  const { properties, capped } = lineageProperties({ table: item.table, chain: item.chain, syncedAt });
  const comment = commentTree(item.table, capped, syncedAt);
  const wanted = {
    ...(options.set_properties ? { properties } : {}),
    ...(options.set_comments ? { comment } : {}),
  };
  const base = { kind: 'table' as const, name, node_id: item.table.id };
  if (options.set_properties || options.set_comments) {
    try {
      const info = await port.getTable(item.parts.join('.'));
      if (!options.create_bridge_table && lakehouseTableUnchanged(info, wanted)) {
        result.results.push({ ...base, status: 'unchanged' });
        return false;
      }
    } catch (error) {
      if (error instanceof CatalogApiError && error.skippable) {
        const reason = `not readable: ${describeFailure(error)}`;
        result.skipped.push(`${name}: ${reason}`);
        result.results.push({ ...base, status: 'skipped', reason });
        return false;
      }
    }
  }
  const failures: Array<Exclude<StepOutcome, { ok: true }> & { step: string }> = [];
  let updated = false;
  const step = async (label: string, statement: string, onSuccess: () => void) => {
    const outcome = await run(port, warehouseId, statement);
    if (outcome.ok) {
      onSuccess();
      updated = true;
    } else failures.push({ ...outcome, step: label });
  };
  if (options.set_properties)
    await step('properties not set', setPropertiesStatement(item.parts, properties), () => {
      result.properties_set += Object.keys(properties).length;
    });
  if (options.set_comments)
    await step('comment not set', commentStatement(item.parts, comment), () => {
      result.comments_set += 1;
    });
  for (const failure of failures)
    (failure.benign ? result.skipped : result.errors).push(`${name}: ${failure.step}: ${failure.message}`);
  if (updated) result.tables_updated += 1;
  const message = failures.map((failure) => `${failure.step}: ${failure.message}`).join('; ');
  if (updated || (!options.set_properties && !options.set_comments))
    result.results.push({ ...base, status: 'updated', ...(message ? { error: message } : {}) });
  else if (failures.every((failure) => failure.benign))
    result.results.push({ ...base, status: 'skipped', reason: message });
  else result.results.push({ ...base, status: 'failed', error: message });
  return true;
}

/** The bridge table rows of the pushed tables, per catalog (see the module comment). */
async function pushBridgeRows(
  items: readonly PushItem[],
  context: { port: LakehouseCatalogPort; warehouseId: string; syncedAt: string; result: PushResult },
): Promise<void> {
  const { port, warehouseId, syncedAt, result } = context;
  const note = (name: string, step: string, outcome: Exclude<StepOutcome, { ok: true }>) =>
    (outcome.benign ? result.skipped : result.errors).push(`${name}: ${step}: ${outcome.message}`);
  const byCatalog = new Map<string, PushItem[]>();
  for (const item of items)
    (byCatalog.get(item.parts[0]) ?? byCatalog.set(item.parts[0], []).get(item.parts[0])!).push(item);
  for (const [catalog, catalogItems] of [...byCatalog].sort(([a], [b]) => a.localeCompare(b))) {
    const bridge = bridgeTableParts(catalog).join('.');
    const created = await run(port, warehouseId, createBridgeTableStatement(catalog));
    if (!created.ok) {
      result.errors.push(`bridge table ${bridge}: not created: ${created.message}`);
      continue;
    }
    for (const item of catalogItems) {
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

/**
 * Push of lineage into lakehouse tables (see the module comment). Per table, `results` says
 * `updated`, `unchanged` (the table already held the same properties and comment: nothing is
 * written, so a second push of the same graph changes nothing), `skipped` (no upstream lineage,
 * missing or forbidden) or `failed`. Never throws for a catalog failure.
 */
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
  const work: PushItem[] = [];
  for (const table of tables) {
    const chain = upstreamChain(index, table.id);
    if (chain.length > 0) work.push({ table, parts: tableParts(table), chain });
    else {
      result.skipped.push(`${table.qualified_name}: no upstream lineage in the graph`);
      const reason = 'no upstream lineage in the graph';
      result.results.push({ kind: 'table', name: table.qualified_name, node_id: table.id, status: 'skipped', reason });
    }
  }
  if (work.length === 0 || (!options.set_properties && !options.set_comments && !options.create_bridge_table))
    return result;
  const warehouse = await resolveWarehouse(deps);
  if ('error' in warehouse) {
    result.errors.push(warehouse.error);
    for (const item of work)
      result.results.push({
        kind: 'table',
        name: item.table.qualified_name,
        node_id: item.table.id,
        status: 'failed',
        error: warehouse.error,
      });
    return result;
  }
  const context = { port, warehouseId: warehouse.id, syncedAt, result };
  const pushed: PushItem[] = [];
  for (const item of work) if (await pushLakehouseTable(item, options, context)) pushed.push(item);
  if (options.create_bridge_table) await pushBridgeRows(pushed, context);
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
