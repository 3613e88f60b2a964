/**
 * The datalake catalog provider (AWS Glue Data Catalog): enrichment of datalake CATALOG_TABLE nodes
 * and lineage push as Glue table parameters. `docs/specification.md`, "Catalog integrations" ->
 * "Data-lake catalog" (node id, deep link by region partition, no link without a region) and the watcher's
 * `--push-datalake`; `docs/contract.md` sections 1-3 (`datalake:catalog_table:{region}:{database}/{table}`,
 * `catalog_type` DATALAKE_CATALOG, `LINEAGE_SVC_DATALAKE_REGION`). All I/O goes through
 * `DatalakeCatalogPort` (implemented over the AWS SDK by `infra/catalogs/glueClient.ts`).
 *
 * Tables: nodes with `node_type` CATALOG_TABLE and `catalog_type` DATALAKE_CATALOG, built from
 * Tableflow `AwsGlue` integrations by `src/extraction/tableflow.ts`: qualified name
 * `{database}/{table}` (database = the integration's `custom_database`, else the cluster id; table =
 * the topic name, kept whole), attribute `region`. Glue folds database and table names to lower
 * case when it stores them (`TableInput.Name`), so the API is called with lower-cased names.
 *
 * Enrichment (`enrich`): one `GetTable` per table (`ENRICH_CONCURRENCY` in flight) sets `owner`,
 * `table_type` (Glue `TableType`: EXTERNAL_TABLE, VIRTUAL_VIEW, GOVERNED, ...), `columns`
 * (`[{name, type, comment}]` from `StorageDescriptor.Columns`), `partition_keys` (same shape),
 * `storage_location`, `updated_at` and `created_at` (ISO 8601), `parameters` (only the keys of
 * `PARAMETERS_OF_INTEREST`, e.g. Iceberg's `table_type` and `metadata_location`) and `url` (the
 * console deep link, null without a known region). `EntityNotFoundException` (404) and access
 * denials (`AccessDeniedException`, HTTP 401/403) skip the table with a warning; other failures
 * (retries exhausted, timeouts, network) are warnings too. Enrichment never throws for a catalog
 * failure. There is no downstream discovery: Glue has no lineage API.
 *
 * Push (`push`): for every datalake table with something upstream: `GetTable`, then `UpdateTable`
 * with a `TableInput` made of the table's writable fields (`toTableInput`: read-only fields such
 * as `DatabaseName`, `CreateTime`, `VersionId` dropped; `TableInput` replaces the whole
 * definition, so nothing writable may be lost), where
 * - `set_properties`: `Parameters` gets the `lineage_svc.*` keys of the lakehouse provider
 *   (`lineageProperties`, same caps: chain 3,000 bytes, other values 4,000 bytes, although Glue
 *   allows 512,000 characters per value); `lineage_svc.*` keys of an earlier push are removed
 *   first (so `lineage_svc.upstream_truncated` disappears once the chain fits), every other
 *   parameter is kept (Iceberg's `metadata_location` in particular);
 * - `set_comments`: `Description` gets the comment tree (`commentTree`) after the description
 *   text a user wrote (anything before the line `Upstream lineage (lineage-svc):` is kept), within
 *   Glue's 2,048 characters (the chain is cut further when needed).
 * The update passes the `VersionId` read (optimistic locking: Tableflow commits snapshots by
 * changing `metadata_location`, and a blind update could roll one back) and `SkipArchive` = true
 * (no archived table version per push); on `ConcurrentModificationException` the table is read
 * again and the update retried, at most `MAX_UPDATE_ATTEMPTS` times. `create_bridge_table` has no
 * Glue equivalent and is reported in `skipped`. Missing tables and access denials go to `skipped`,
 * other failures to `errors`; one `UpdateTable` carries both switches, so a table counts in
 * `tables_updated`, `properties_set` and `comments_set` only when it succeeded.
 */
import pLimit from 'p-limit';
import type { Config } from '../config.js';
import type { LineageGraph, Node } from '../graph/model.js';
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
  capChain,
  commentTree,
  indexGraph,
  lineageProperties,
  upstreamChain,
  type ChainEntry,
} from './upstreamChain.js';

// ---------------------------------------------------------------------------------------------
// The port: the Glue shapes the provider reads and writes (`docs/catalog-apis.md` C1; the SDK parses
// wire timestamps, epoch seconds, into `Date`s).

/** A Glue `Column` (the fields read). */
export interface GlueColumn {
  Name?: string | undefined;
  Type?: string | undefined;
  Comment?: string | undefined;
}

/** A Glue `StorageDescriptor` (the fields read; the whole object is sent back untouched). */
export interface GlueStorageDescriptor {
  Columns?: GlueColumn[] | undefined;
  Location?: string | undefined;
}

/** A Glue `Table` of `GetTable` (the fields read or copied into a `TableInput`). */
export interface GlueTable {
  Name?: string | undefined;
  DatabaseName?: string | undefined;
  Description?: string | undefined;
  Owner?: string | undefined;
  CreateTime?: Date | undefined;
  UpdateTime?: Date | undefined;
  LastAccessTime?: Date | undefined;
  LastAnalyzedTime?: Date | undefined;
  Retention?: number | undefined;
  StorageDescriptor?: GlueStorageDescriptor | undefined;
  PartitionKeys?: GlueColumn[] | undefined;
  ViewOriginalText?: string | undefined;
  ViewExpandedText?: string | undefined;
  TableType?: string | undefined;
  Parameters?: Record<string, string> | undefined;
  TargetTable?: unknown;
  ViewDefinition?: unknown;
  CatalogId?: string | undefined;
  VersionId?: string | undefined;
}

/** The writable part of a table, the body member of `UpdateTable` (`TableInput`). */
export interface GlueTableInput {
  Name: string;
  Description?: string;
  Owner?: string;
  LastAccessTime?: Date;
  LastAnalyzedTime?: Date;
  Retention?: number;
  StorageDescriptor?: GlueStorageDescriptor;
  PartitionKeys?: GlueColumn[];
  ViewOriginalText?: string;
  ViewExpandedText?: string;
  TableType?: string;
  Parameters?: Record<string, string>;
  TargetTable?: unknown;
  ViewDefinition?: unknown;
}

/** Where a table is: Glue region, database and table (as stored: lower case). */
export interface GlueTableRef {
  region: string;
  database: string;
  table: string;
}

/**
 * The Glue API as the provider uses it. Every method throws `CatalogApiError` on failure, with
 * `errorCode` = the Glue exception name (`EntityNotFoundException`, `AccessDeniedException`,
 * `ConcurrentModificationException`, ...) and `status` = the HTTP status (Glue answers 400 for most).
 */
export interface DatalakeCatalogPort {
  /** The configured region (`LINEAGE_SVC_DATALAKE_REGION`), used for tables whose node has no region. */
  readonly region: string;
  getTable(ref: GlueTableRef): Promise<GlueTable>;
  /** `UpdateTable` with `VersionId` (when given) and `SkipArchive`. */
  updateTable(
    ref: GlueTableRef,
    input: GlueTableInput,
    options: { versionId?: string | undefined; skipArchive: boolean },
  ): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Pure parts.

/** Calls in flight during enrichment and push. */
export const ENRICH_CONCURRENCY = 4;
/** Attempts of one table's read-modify-write when Glue reports a concurrent modification. */
export const MAX_UPDATE_ATTEMPTS = 3;
/** Glue's limit on `Description`, in characters (`DescriptionString` max 2048). */
export const GLUE_DESCRIPTION_MAX_CHARS = 2048;
/** Glue parameters copied into the node's `parameters` attribute by enrichment. */
export const PARAMETERS_OF_INTEREST = [
  'table_type',
  'metadata_location',
  'classification',
  'lineage_svc.last_synced',
] as const;
/** Prefix of the parameters the push owns. */
export const LINEAGE_PARAMETER_PREFIX = 'lineage_svc.';
/** First line of the comment tree; the description text before it belongs to the user. */
export const COMMENT_MARKER = 'Upstream lineage (lineage-svc):';

/** Glue exception names that mean "not there / no access" (skipped, not errors). */
const SKIPPED_ERROR_CODES = new Set([
  'EntityNotFoundException',
  'AccessDeniedException',
  'AccessDenied',
  'UnauthorizedException',
]);

/** True for datalake catalog tables. */
export function isDatalakeTable(node: Node): boolean {
  return node.node_type === 'CATALOG_TABLE' && node.catalog_type === 'DATALAKE_CATALOG';
}

/** True when a failure means the table is missing or forbidden (404, 401, 403, Glue's own codes). */
export function isSkippableGlueError(error: unknown): boolean {
  return (
    error instanceof CatalogApiError &&
    (error.skippable || (error.errorCode !== undefined && SKIPPED_ERROR_CODES.has(error.errorCode)))
  );
}

/** An AWS region name such as `eu-west-1`, `us-gov-west-1`, `cn-north-1` (not `unknown`, not empty). */
export function isRegionName(value: unknown): value is string {
  return typeof value === 'string' && /^[a-z]{2}(-[a-z]+)+-\d+$/.test(value);
}

/**
 * The region of a datalake table node: the `region` attribute, else the region segment of its id
 * (`datalake:catalog_table:{region}:...`); undefined when neither is a region name (the extraction
 * writes `unknown` when no region was known).
 */
export function nodeRegion(node: Pick<Node, 'id' | 'attributes'>): string | undefined {
  const attribute = node.attributes?.region;
  if (isRegionName(attribute)) return attribute;
  const segment = node.id.split(':')[2];
  return isRegionName(segment) ? segment : undefined;
}

/**
 * The `{database, table}` of a datalake table node: the `database` and `table_name` attributes
 * when both are set, else the qualified name `{database}/{table}` split at its first `/` (database
 * names cannot contain `/`; the table, a topic name, is kept whole).
 */
export function datalakeTableParts(node: Pick<Node, 'qualified_name' | 'attributes'>): {
  database: string;
  table: string;
} {
  const { database, table_name: tableName } = node.attributes ?? {};
  if (typeof database === 'string' && database !== '' && typeof tableName === 'string' && tableName !== '')
    return { database, table: tableName };
  const slash = node.qualified_name.indexOf('/');
  return slash < 0
    ? { database: '', table: node.qualified_name }
    : { database: node.qualified_name.slice(0, slash), table: node.qualified_name.slice(slash + 1) };
}

/** Where to call Glue for a node: its region (else `defaultRegion`), names lower-cased as Glue stores them. */
export function glueTableRef(node: Node, defaultRegion: string): GlueTableRef {
  const { database, table } = datalakeTableParts(node);
  return { region: nodeRegion(node) ?? defaultRegion, database: database.toLowerCase(), table: table.toLowerCase() };
}

/**
 * The AWS console host of a region, by partition: `cn-*` -> `{r}.console.amazonaws.cn`,
 * `us-gov-*` -> `{r}.console.amazonaws-us-gov.com`, isolated partitions (`*-iso*-*`) -> undefined
 * (no public console), every other region -> `{r}.console.aws.amazon.com`.
 */
export function consoleHost(region: string): string | undefined {
  if (!isRegionName(region)) return undefined;
  if (/^[a-z]{2}-iso[a-z]*-/.test(region)) return undefined;
  if (region.startsWith('cn-')) return `${region}.console.amazonaws.cn`;
  if (region.startsWith('us-gov-')) return `${region}.console.amazonaws-us-gov.com`;
  return `${region}.console.aws.amazon.com`;
}

/**
 * The Glue console deep link of a table:
 * `https://{host}/glue/home?region={r}#/v2/data-catalog/tables/view/{table}?database={db}` (table
 * and database percent-encoded); null when the region is missing or has no public console.
 */
export function datalakeDeepLink(region: string | undefined, database: string, table: string): string | null {
  const host = region === undefined ? undefined : consoleHost(region);
  if (host === undefined) return null;
  return `https://${host}/glue/home?region=${region}#/v2/data-catalog/tables/view/${encodeURIComponent(table)}?database=${encodeURIComponent(database)}`;
}

function isoTime(value: unknown): string | null {
  const date =
    value instanceof Date
      ? value
      : typeof value === 'number'
        ? new Date(value * 1000)
        : typeof value === 'string'
          ? new Date(value)
          : undefined;
  return date && Number.isFinite(date.getTime()) ? date.toISOString() : null;
}

const columnsOf = (columns: readonly GlueColumn[] | undefined) =>
  (columns ?? [])
    .filter((column) => typeof column?.Name === 'string')
    .map((column) => ({ name: column.Name!, type: column.Type ?? null, comment: column.Comment ?? null }));

/**
 * The attributes enrichment sets from a Glue `Table`: `owner`, `table_type`, `columns`,
 * `partition_keys`, `storage_location`, `updated_at`, `created_at` (ISO 8601, null when absent),
 * `parameters` (the `PARAMETERS_OF_INTEREST` present) and `url` (null without a region).
 */
export function tableAttributes(
  table: GlueTable,
  region: string | undefined,
  database: string,
  tableName: string,
): Record<string, unknown> {
  const parameters: Record<string, string> = {};
  for (const key of PARAMETERS_OF_INTEREST) {
    const value = table.Parameters?.[key];
    if (typeof value === 'string') parameters[key] = value;
  }
  return {
    owner: table.Owner ?? null,
    table_type: table.TableType ?? null,
    columns: columnsOf(table.StorageDescriptor?.Columns),
    partition_keys: columnsOf(table.PartitionKeys),
    storage_location: table.StorageDescriptor?.Location ?? null,
    updated_at: isoTime(table.UpdateTime),
    created_at: isoTime(table.CreateTime),
    parameters,
    url: datalakeDeepLink(region, database, tableName),
  };
}

/** The writable fields of a `Table`, copied into a `TableInput` (`docs/catalog-apis.md` C1). */
export const TABLE_INPUT_FIELDS = [
  'Name',
  'Description',
  'Owner',
  'LastAccessTime',
  'LastAnalyzedTime',
  'Retention',
  'StorageDescriptor',
  'PartitionKeys',
  'ViewOriginalText',
  'ViewExpandedText',
  'TableType',
  'Parameters',
  'TargetTable',
  'ViewDefinition',
] as const satisfies ReadonlyArray<keyof GlueTableInput>;

/**
 * The `TableInput` that rewrites a table as it is: every field of `TABLE_INPUT_FIELDS` that is set
 * (read-only fields such as `DatabaseName`, `CreateTime`, `UpdateTime`, `CreatedBy`, `CatalogId`,
 * `VersionId`, `IsRegisteredWithLakeFormation`, `FederatedTable`, `Status`,
 * `IcebergTableMetadata` are left out). A view definition's representations lose their read-only
 * `IsStale`. `Parameters` is copied, not shared.
 */
export function toTableInput(table: GlueTable, name: string): GlueTableInput {
  const source = table as Record<string, unknown>;
  const input: Record<string, unknown> = {};
  for (const field of TABLE_INPUT_FIELDS)
    if (source[field] !== undefined && source[field] !== null) input[field] = source[field];
  input.Name = table.Name ?? name;
  if (table.Parameters) input.Parameters = { ...table.Parameters };
  const view = table.ViewDefinition as { Representations?: Array<Record<string, unknown>> } | undefined;
  if (view && Array.isArray(view.Representations)) {
    input.ViewDefinition = {
      ...view,
      Representations: view.Representations.map(({ IsStale: _stale, ...rest }) => rest),
    };
  }
  return input as unknown as GlueTableInput;
}

/** Existing parameters without the `lineage_svc.*` keys, plus `properties`. */
export function mergeParameters(
  existing: Readonly<Record<string, string>> | undefined,
  properties: Readonly<Record<string, string>>,
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const [key, value] of Object.entries(existing ?? {}))
    if (!key.startsWith(LINEAGE_PARAMETER_PREFIX)) merged[key] = value;
  return { ...merged, ...properties };
}

/** Drops characters Glue's `DescriptionString` pattern refuses (control characters other than tab, CR, LF). */
export function descriptionText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '');
}

/**
 * The new `Description`: the user's text (whatever precedes `COMMENT_MARKER` in `existing`,
 * trimmed), a blank line, then the comment tree of the chain. Fits `maxChars` (default 2,048): the
 * chain budget is halved until the tree fits (farthest hops first, `commentTree` notes the cut);
 * when even an empty chain does not fit, the user's text is cut. Never fails.
 */
export function mergeDescription(
  existing: string | undefined,
  table: Node,
  chain: readonly ChainEntry[],
  syncedAt: string,
  maxChars = GLUE_DESCRIPTION_MAX_CHARS,
): string {
  const at = existing?.indexOf(COMMENT_MARKER) ?? -1;
  const own = descriptionText((at >= 0 ? existing!.slice(0, at) : (existing ?? '')).trim());
  const compose = (tree: string, user: string) => (user === '' ? tree : `${user}\n\n${tree}`);
  for (let budget = 3000; budget >= 2; budget = Math.floor(budget / 2)) {
    const text = compose(descriptionText(commentTree(table, capChain(chain, budget), syncedAt)), own);
    if (text.length <= maxChars) return text;
  }
  const tree = descriptionText(commentTree(table, capChain(chain, 2), syncedAt));
  if (tree.length >= maxChars - 2) return tree.slice(0, maxChars);
  return compose(tree, own.slice(0, maxChars - tree.length - 2).trimEnd());
}

function describeFailure(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// ---------------------------------------------------------------------------------------------
// Enrichment.

/** Enrichment of datalake tables (see the module comment). Never throws for a catalog failure. */
export async function enrichDatalake(
  graph: LineageGraph,
  deps: ProviderDeps<DatalakeCatalogPort>,
): Promise<EnrichmentResult> {
  const { port } = deps;
  const result: EnrichmentResult = {
    catalog_type: 'DATALAKE_CATALOG',
    enrichments: [],
    newNodes: [],
    newEdges: [],
    warnings: [],
  };
  const limit = pLimit(ENRICH_CONCURRENCY);
  const tables = graph.nodes.filter(isDatalakeTable).sort((a, b) => (a.id < b.id ? -1 : 1));
  const outcomes = await Promise.all(
    tables.map((node) =>
      limit(async () => {
        const ref = glueTableRef(node, port.region);
        const parts = datalakeTableParts(node);
        try {
          const table = await port.getTable(ref);
          return {
            node_id: node.id,
            attributes: tableAttributes(
              table,
              nodeRegion(node),
              table.DatabaseName ?? ref.database,
              table.Name ?? ref.table,
            ),
          };
        } catch (error) {
          const why = isSkippableGlueError(error) ? 'skipped' : 'not enriched';
          return `datalake: table ${parts.database}/${parts.table} (${ref.region}) ${why}: ${describeFailure(error)}`;
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

// ---------------------------------------------------------------------------------------------
// Push.

type TableOutcome =
  | { kind: 'updated'; properties: number; comment: boolean }
  | { kind: 'unchanged' }
  | { kind: 'skipped' | 'error'; message: string };

/** Parameters without `lineage_svc.last_synced`, as sorted `key=value` lines (for comparison). */
const comparableParameters = (parameters: Record<string, string> | undefined): string =>
  Object.entries(parameters ?? {})
    .filter(([key]) => key !== `${LINEAGE_PARAMETER_PREFIX}last_synced`)
    .map(([key, value]) => `${key}=${value}`)
    .sort()
    .join('\n');

/** A description without its `Last synced:` line. */
const comparableDescription = (description: string | undefined): string =>
  (description ?? '')
    .split('\n')
    .filter((line) => !line.startsWith('Last synced: '))
    .join('\n');

/**
 * True when the Glue table as read already holds the parameters and description an update would
 * write (the push time aside), so the update is not sent and the table is `unchanged`.
 */
export function glueTableUnchanged(
  current: Pick<GlueTable, 'Parameters' | 'Description'>,
  input: GlueTableInput,
): boolean {
  return (
    comparableParameters(current.Parameters) === comparableParameters(input.Parameters) &&
    comparableDescription(current.Description) === comparableDescription(input.Description)
  );
}

async function pushTable(
  port: DatalakeCatalogPort,
  table: Node,
  chain: readonly ChainEntry[],
  options: PushOptions,
  syncedAt: string,
): Promise<TableOutcome> {
  const ref = glueTableRef(table, port.region);
  const name = table.qualified_name;
  const { properties } = lineageProperties({ table, chain, syncedAt });
  for (let attempt = 1; ; attempt += 1) {
    let current: GlueTable;
    try {
      current = await port.getTable(ref);
    } catch (error) {
      return {
        kind: isSkippableGlueError(error) ? 'skipped' : 'error',
        message: `${name}: not read: ${describeFailure(error)}`,
      };
    }
    const input = toTableInput(current, ref.table);
    if (options.set_properties) input.Parameters = mergeParameters(current.Parameters, properties);
    if (options.set_comments) input.Description = mergeDescription(current.Description, table, chain, syncedAt);
    if (glueTableUnchanged(current, input)) return { kind: 'unchanged' };
    try {
      await port.updateTable(ref, input, { versionId: current.VersionId, skipArchive: true });
      return {
        kind: 'updated',
        properties: options.set_properties ? Object.keys(properties).length : 0,
        comment: options.set_comments,
      };
    } catch (error) {
      const concurrent = error instanceof CatalogApiError && error.errorCode === 'ConcurrentModificationException';
      if (concurrent && attempt < MAX_UPDATE_ATTEMPTS) continue;
      return {
        kind: isSkippableGlueError(error) ? 'skipped' : 'error',
        message: `${name}: not updated: ${describeFailure(error)}`,
      };
    }
  }
}

/** Push of lineage into Glue tables (see the module comment). Never throws for a catalog failure. */
export async function pushDatalake(
  graph: LineageGraph,
  options: PushOptions,
  deps: ProviderDeps<DatalakeCatalogPort>,
): Promise<PushResult> {
  const result = emptyPushResult();
  const syncedAt = (deps.now ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const index = indexGraph(graph);
  const work: Array<{ table: Node; chain: ChainEntry[] }> = [];
  for (const table of graph.nodes
    .filter(isDatalakeTable)
    .sort((a, b) => (a.qualified_name < b.qualified_name ? -1 : a.qualified_name > b.qualified_name ? 1 : 0))) {
    const chain = upstreamChain(index, table.id);
    if (chain.length > 0) work.push({ table, chain });
    else {
      result.skipped.push(`${table.qualified_name}: no upstream lineage in the graph`);
      const reason = 'no upstream lineage in the graph';
      result.results.push({ kind: 'table', name: table.qualified_name, node_id: table.id, status: 'skipped', reason });
    }
  }
  if (options.create_bridge_table)
    result.skipped.push(
      'bridge table: not supported by the datalake catalog (Glue has no SQL warehouse); lineage is in the table parameters',
    );
  if (work.length === 0 || (!options.set_properties && !options.set_comments)) return result;
  const limit = pLimit(ENRICH_CONCURRENCY);
  const outcomes = await Promise.all(
    work.map(({ table, chain }) => limit(() => pushTable(deps.port, table, chain, options, syncedAt))),
  );
  outcomes.forEach((outcome, i) => {
    const table = work[i]!.table;
    const base = { kind: 'table' as const, name: table.qualified_name, node_id: table.id };
    if (outcome.kind === 'updated') {
      result.tables_updated += 1;
      result.properties_set += outcome.properties;
      if (outcome.comment) result.comments_set += 1;
      result.results.push({ ...base, status: 'updated' });
    } else if (outcome.kind === 'unchanged') result.results.push({ ...base, status: 'unchanged' });
    else {
      (outcome.kind === 'skipped' ? result.skipped : result.errors).push(outcome.message);
      const detail = outcome.message.slice(table.qualified_name.length + 2);
      result.results.push(
        outcome.kind === 'skipped'
          ? { ...base, status: 'skipped', reason: detail }
          : { ...base, status: 'failed', error: detail },
      );
    }
  });
  return result;
}

// ---------------------------------------------------------------------------------------------
// The provider.

/** Variables the datalake provider reads (`docs/contract.md` section 3). */
export const DATALAKE_SETTINGS = ['LINEAGE_SVC_DATALAKE_REGION'] as const;

/** The datalake provider (`DATALAKE_CATALOG`, short name `datalake`). */
export const datalakeProvider: CatalogProvider<DatalakeCatalogPort> = {
  catalogType: 'DATALAKE_CATALOG',
  system: 'DATALAKE',
  shortName: 'datalake',
  settings: DATALAKE_SETTINGS,
  requiredSettings: ['LINEAGE_SVC_DATALAKE_REGION'],
  missingSettings: (config: Config) => missingOf({ LINEAGE_SVC_DATALAKE_REGION: config.datalake.region }),
  isConfigured: (config: Config) => Boolean(config.datalake.region),
  enrich: enrichDatalake,
  push: pushDatalake,
};
