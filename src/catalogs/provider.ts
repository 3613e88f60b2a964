/**
 * The catalog provider framework (`docs/specification.md`, "Catalog integrations"; `docs/contract.md` sections 1-2).
 *
 * A provider owns the CATALOG_TABLE nodes of one `catalog_type` (lakehouse: `LAKEHOUSE_CATALOG`,
 * datalake: `DATALAKE_CATALOG`, warehouse: `WAREHOUSE_LINEAGE`, data governance: `DATA_GOVERNANCE`)
 * and does two things, both pure functions of the graph plus an injected client port (`Port`: the
 * provider's own interface to its catalog's API, implemented in `infra/catalogs/`):
 *
 * - `enrich(graph, deps)` -> `EnrichmentResult`: attributes to merge into existing nodes, new nodes
 *   and edges (downstream discovery), warnings. It never changes the graph itself: callers apply
 *   the result with `applyEnrichment` and record it (`recordGraph` mode `merge`).
 * - `push(graph, options, deps)` -> `PushResult`: writes lineage metadata into the catalog.
 *
 * Catalog-side failures never throw out of a provider: a table that is missing (404) or forbidden
 * (401/403) is skipped with a warning (enrichment) or listed in `skipped` (push); other failures
 * become warnings or `errors` (`docs/specification.md`, "Errors").
 *
 * Adding a provider (datalake, warehouse): implement `CatalogProvider<YourPort>` in
 * `src/catalogs/<word>.ts`, its port over HTTP in `infra/catalogs/`, put it in `CATALOG_REGISTRY`
 * (`./registry.ts`) and its port factory in `infra/catalogs/catalogService.ts`.
 */
import type { Config } from '../config.js';
import { edgeKey, type CatalogType, type Edge, type LineageGraph, type Node, type System } from '../graph/model.js';

/** How a catalog API call failed. */
export type CatalogFailure = 'status' | 'timeout' | 'network' | 'retries_exhausted' | 'invalid_response';

/**
 * A failed call to a catalog API. `status` is the last HTTP status seen (if any); `errorCode` the
 * catalog's own code (e.g. `TABLE_DOES_NOT_EXIST`, `PERMISSION_DENIED`). Messages never carry a token.
 */
export class CatalogApiError extends Error {
  override readonly name = 'CatalogApiError';
  constructor(
    /** API name, e.g. `lakehouse.tables.get`. */
    readonly api: string,
    readonly failure: CatalogFailure,
    readonly status: number | undefined,
    message: string,
    readonly errorCode?: string,
  ) {
    super(message);
  }

  /** True for the statuses `docs/specification.md` ("Errors") skips with a warning: 404, 401, 403. */
  get skippable(): boolean {
    return this.failure === 'status' && (this.status === 404 || this.status === 401 || this.status === 403);
  }
}

/** Attributes to merge into one existing node. */
export interface NodeEnrichment {
  node_id: string;
  attributes: Record<string, unknown>;
}

/** What an enrichment found (pure data; `applyEnrichment` merges it into a graph). */
export interface EnrichmentResult {
  catalog_type: CatalogType;
  enrichments: NodeEnrichment[];
  /** Tables found by downstream discovery (attribute `derived` = true). */
  newNodes: Node[];
  newEdges: Edge[];
  /** One line each, naming the table and the cause. */
  warnings: string[];
  /**
   * Per table of the provider's catalog type (`enrichmentItemResults`): `updated` (attributes
   * changed, or a table found by discovery), `unchanged`, `skipped` (missing or forbidden, with the
   * warning as `reason`) or `failed` (with the warning as `error`). Filled by the catalog gateway.
   */
  results?: PushItemResult[] | undefined;
}

/** True when two JSON values are equal (key order aside). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/**
 * The per-table outcome of an enrichment (pure): for every CATALOG_TABLE of `result.catalog_type`
 * in `graph` and every table it discovered, `updated` when its attributes change (or it is new),
 * `unchanged` when the catalog gave what the node already held, `skipped` / `failed` when a warning
 * names it (` {qualified name} skipped` / ` {qualified name} not enriched`; the warning is the
 * reason or error), and `skipped` with reason `not read` otherwise.
 */
export function enrichmentItemResults(graph: LineageGraph, result: EnrichmentResult): PushItemResult[] {
  const enrichments = new Map(result.enrichments.map((entry) => [entry.node_id, entry.attributes]));
  const tables = graph.nodes.filter(
    (node) => node.node_type === 'CATALOG_TABLE' && node.catalog_type === result.catalog_type,
  );
  const fromWarning = (base: Omit<PushItemResult, 'status'>, qualifiedName: string): PushItemResult | undefined => {
    const warning = result.warnings.find((line) => line.includes(` ${qualifiedName} `));
    if (warning === undefined) return undefined;
    return / not enriched: /.test(warning)
      ? { ...base, status: 'failed', error: warning }
      : { ...base, status: 'skipped', reason: warning };
  };
  const items: PushItemResult[] = tables.map((node) => {
    const base = { kind: 'table' as const, name: node.qualified_name, node_id: node.id };
    const attributes = enrichments.get(node.id);
    if (attributes) {
      const changed = Object.entries(attributes).some(([key, value]) => !sameJson(node.attributes?.[key], value));
      return { ...base, status: changed ? 'updated' : 'unchanged' };
    }
    return fromWarning(base, node.qualified_name) ?? { ...base, status: 'skipped', reason: 'not read' };
  });
  for (const node of result.newNodes) {
    if (node.node_type !== 'CATALOG_TABLE') continue;
    const base = { kind: 'table' as const, name: node.qualified_name, node_id: node.id };
    items.push(fromWarning(base, node.qualified_name) ?? { ...base, status: 'updated' });
  }
  return items;
}

/** Switches of a push (`docs/specification.md`, "Endpoints / Tasks and push"; the three apply to the lakehouse). */
export interface PushOptions {
  set_properties: boolean;
  set_comments: boolean;
  create_bridge_table: boolean;
}

/** Default switches: properties and comments on, bridge table off. */
export const DEFAULT_PUSH_OPTIONS: PushOptions = {
  set_properties: true,
  set_comments: true,
  create_bridge_table: false,
};

/**
 * What a push did to one table or one job (`docs/catalogs.md`, "Push results"):
 * - `updated`: the catalog was written and now holds the graph's lineage for it;
 * - `unchanged`: the catalog already held exactly that lineage (nothing was written);
 * - `skipped`: left out on purpose or for lack of access or existence (`reason` says why);
 * - `failed`: the write failed (`error` says how).
 */
export type PushItemStatus = 'updated' | 'unchanged' | 'skipped' | 'failed';

/** One table's or one job's outcome in a push. */
export interface PushItemResult {
  /** `table` for catalog tables (lakehouse, datalake), `job` for lineage events (warehouse, data governance). */
  kind: 'table' | 'job';
  /** The table's qualified name, or the job's `{namespace}:{name}` as the catalog shows it. */
  name: string;
  /** The graph node it stands for, when there is one. */
  node_id?: string | undefined;
  status: PushItemStatus;
  /** Why it was skipped (only with `skipped`). */
  reason?: string | undefined;
  /** What failed (only with `failed`). */
  error?: string | undefined;
}

/** What a push did (the peer's PushResult, snake_case). */
export interface PushResult {
  /** Tables for which at least one statement succeeded. */
  tables_updated: number;
  /** Properties written (one per key per table). */
  properties_set: number;
  comments_set: number;
  bridge_rows_inserted: number;
  /** Failures the caller should act on, one line each. */
  errors: string[];
  /** Tables or steps left out on purpose or for lack of access (404/401/403, no upstream lineage). */
  skipped: string[];
  /** One entry per table or job the push considered, in the order it considered them. */
  results: PushItemResult[];
}

/** An empty result. */
export function emptyPushResult(): PushResult {
  return {
    tables_updated: 0,
    properties_set: 0,
    comments_set: 0,
    bridge_rows_inserted: 0,
    errors: [],
    skipped: [],
    results: [],
  };
}

/** How many results of a push have each status (`{updated: 2, unchanged: 1, skipped: 0, failed: 0}`). */
export function countResults(result: Pick<PushResult, 'results'>): Record<PushItemStatus, number> {
  const counts: Record<PushItemStatus, number> = { updated: 0, unchanged: 0, skipped: 0, failed: 0 };
  for (const item of result.results) counts[item.status] += 1;
  return counts;
}

/**
 * A record of what was pushed to catalogs that keep no readable copy of it (lineage events: the
 * warehouse's Data Lineage API, the data governance's DataZone), so that a second push of the same
 * lineage sends nothing and reports `unchanged`. Keys name a target and a job (`{domain}|{job}`);
 * values are content fingerprints (hex). Implementations live outside the providers
 * (`createMemoryPushLedger` below; the file of `infra/catalogs/pushLedger.ts`, which the catalog gateway uses next to a store on disk).
 */
export interface PushLedger {
  /** The fingerprint last recorded for `key`, or undefined. */
  get(key: string): Promise<string | undefined>;
  /** Records that `fingerprint` was pushed for `key`. */
  set(key: string, fingerprint: string): Promise<void>;
}

/** A `PushLedger` held in memory (lost with the process). */
export function createMemoryPushLedger(): PushLedger {
  const entries = new Map<string, string>();
  return {
    get: async (key) => entries.get(key),
    set: async (key, fingerprint) => {
      entries.set(key, fingerprint);
    },
  };
}

/** What every provider's enrich and push get besides the graph. */
export interface ProviderDeps<Port> {
  port: Port;
  /** Time of the push (ISO strings in properties); default now. */
  now?: Date;
  /** What was pushed before, for providers whose catalog cannot be read back (lineage events); default none. */
  ledger?: PushLedger | undefined;
}

/** Facts about a provider that need no client: what `GET /catalogs` lists. */
export interface CatalogProviderInfo {
  catalogType: CatalogType;
  /** Node system of its tables; null for push-only providers. */
  system: System | null;
  /** Short name accepted by `POST /push/{provider}` (`lakehouse`, `datalake`, `warehouse`, `data_governance`). */
  shortName: string;
  /** Every variable it reads (names only). */
  settings: readonly string[];
  /** The variables that must be set for it to work. */
  requiredSettings: readonly string[];
  /** Which variables of `requiredSettings` are missing in `config` ([] when configured). */
  missingSettings(config: Config): string[];
}

/** A provider: its facts plus enrichment and push over its port. */
export interface CatalogProvider<Port> extends CatalogProviderInfo {
  /** True when `missingSettings(config)` is empty. */
  isConfigured(config: Config): boolean;
  enrich(graph: LineageGraph, deps: ProviderDeps<Port>): Promise<EnrichmentResult>;
  push(graph: LineageGraph, options: PushOptions, deps: ProviderDeps<Port>): Promise<PushResult>;
}

/**
 * Merges an enrichment into a graph (returns a new graph): enrichment attributes overwrite the
 * node's attributes of the same name; new nodes are added (or merged into a node of the same id);
 * new edges are added unless an edge with the same key exists.
 */
export function applyEnrichment(
  graph: LineageGraph,
  result: Pick<EnrichmentResult, 'enrichments' | 'newNodes' | 'newEdges'>,
): LineageGraph {
  const nodes = new Map(graph.nodes.map((node) => [node.id, node]));
  for (const node of result.newNodes) {
    const current = nodes.get(node.id);
    nodes.set(node.id, current ? { ...current, attributes: { ...current.attributes, ...node.attributes } } : node);
  }
  for (const { node_id, attributes } of result.enrichments) {
    const current = nodes.get(node_id);
    if (current) nodes.set(node_id, { ...current, attributes: { ...current.attributes, ...attributes } });
  }
  const edges = new Map(graph.edges.map((edge) => [edgeKey(edge), edge]));
  for (const edge of result.newEdges)
    if (!edges.has(edgeKey(edge)) && nodes.has(edge.src_id) && nodes.has(edge.dst_id)) edges.set(edgeKey(edge), edge);
  return { ...graph, nodes: [...nodes.values()], edges: [...edges.values()] };
}

/** Lists the required variables that are unset, for `missingSettings`. */
export function missingOf(required: Record<string, string | undefined>): string[] {
  return Object.entries(required)
    .filter(([, value]) => value === undefined || value === '')
    .map(([name]) => name);
}
