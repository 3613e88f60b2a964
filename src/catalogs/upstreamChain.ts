/**
 * The upstream chain of a catalog table, and everything a push derives from it (pure, no I/O).
 *
 * `docs/specification.md`, "Catalog integrations" -> "Lakehouse catalog (table nodes)", push:
 * - `upstreamChain(index, tableId)`: the nodes upstream of the table (a breadth-first walk against
 *   every edge's direction, at most `MAX_CHAIN_HOPS` hops), ordered by distance (`hop`, 1 = a direct
 *   neighbour) then qualified name. Only the kinds `topic`, `stream_job`, `sql_query`, `connector`,
 *   `external_dataset` and `materialized_table` become hops; other nodes (consumer groups, catalog
 *   tables a derived table comes from, catalog jobs) are walked through but not listed, so hop
 *   numbers stay true graph distances. Topics carry `schema_fields` from the SCHEMA nodes linked by
 *   `HAS_SCHEMA` (value schema first, then key).
 * - `capChain(chain, maxBytes)`: the chain as compact JSON of at most `CHAIN_MAX_BYTES` (UTF-8
 *   bytes). Farthest hops are dropped first; if the nearest hop alone is still too large its
 *   `schema_fields` and then its `sql` are dropped. `truncated` says whether anything was cut.
 * - `lineageProperties(...)`: the `lineage_svc.*` table properties, each value at most
 *   `PROPERTY_MAX_BYTES`.
 * - `commentTree(...)`: the table comment (an indented text tree, farthest upstream first).
 * - `bridgeRows(...)`: the rows of the bridge table, one per upstream node.
 *
 * The walk is written over a plain `LineageGraph` (an adjacency index built once per push by
 * `indexGraph`), not over `projections/traversal.ts`, because the core must not import projections
 * (the dependency rule of `test/architecture.test.ts`); it follows the same rules (every edge type,
 * nearest first).
 */
import type { Edge, EdgeType, LineageGraph, Node, NodeType } from '../graph/model.js';
import { schemaEdgesValueFirst, storedSchemaFields } from '../graph/schemas.js';

/** The kinds a chain hop can have (`docs/specification.md`, "Lakehouse catalog (table nodes)"). */
export const CHAIN_KINDS = [
  'topic',
  'stream_job',
  'sql_query',
  'connector',
  'external_dataset',
  'materialized_table',
] as const;
export type ChainKind = (typeof CHAIN_KINDS)[number];

const KIND_OF: Partial<Record<NodeType, ChainKind>> = {
  TOPIC: 'topic',
  STREAM_JOB: 'stream_job',
  SQL_QUERY: 'sql_query',
  CONNECTOR: 'connector',
  EXTERNAL_DATASET: 'external_dataset',
  MATERIALIZED_TABLE: 'materialized_table',
};

/** How far upstream the chain looks, in hops. */
export const MAX_CHAIN_HOPS = 10;
/** Cap of the `upstream_chain` property value, in UTF-8 bytes ("about 3 KB"). */
export const CHAIN_MAX_BYTES = 3000;
/** Cap of any other property value, in UTF-8 bytes (the catalog's limit is "about 4 KB"). */
export const PROPERTY_MAX_BYTES = 4000;
/** Longest SQL text kept in a hop, in characters (the whole statement stays in the graph). */
export const CHAIN_SQL_MAX_CHARS = 1000;

/** A schema field as listed in a hop. */
export interface ChainSchemaField {
  name: string;
  type: string;
}

/** One hop of the chain (the JSON form of `lineage_svc.upstream_chain`). */
export interface ChainHop {
  hop: number;
  kind: ChainKind;
  qualified_name: string;
  display_name: string;
  sql?: string;
  connector_class?: string;
  schema_fields?: ChainSchemaField[];
}

/** A hop with what the bridge table also needs (not part of the JSON). */
export interface ChainEntry extends ChainHop {
  node_id: string;
  /** `stream`, `external`, ... (lower-case node system). */
  system: string;
  /** Type of the edge leaving this node towards the table. */
  edge_type: EdgeType;
  /** Qualified names from this node down to the table, joined by ` -> `. */
  full_path: string;
}

/** The adjacency of a graph, built once and shared by every table of a push. */
export interface GraphIndex {
  nodes: ReadonlyMap<string, Node>;
  /** Edges by destination node id. */
  incoming: ReadonlyMap<string, readonly Edge[]>;
  /** Edges by source node id. */
  outgoing: ReadonlyMap<string, readonly Edge[]>;
}

/** Builds the adjacency index of a graph. Edges whose endpoints are missing are ignored. */
export function indexGraph(graph: LineageGraph): GraphIndex {
  const nodes = new Map(graph.nodes.map((node) => [node.id, node]));
  const incoming = new Map<string, Edge[]>();
  const outgoing = new Map<string, Edge[]>();
  for (const edge of graph.edges) {
    if (!nodes.has(edge.src_id) || !nodes.has(edge.dst_id)) continue;
    (incoming.get(edge.dst_id) ?? incoming.set(edge.dst_id, []).get(edge.dst_id)!).push(edge);
    (outgoing.get(edge.src_id) ?? outgoing.set(edge.src_id, []).get(edge.src_id)!).push(edge);
  }
  return { nodes, incoming, outgoing };
}

function stringAttribute(node: Node, key: string): string | undefined {
  const value = node.attributes?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Top-level fields of the schemas of a topic (value schema first), as `{name, type}`. */
export function schemaFieldsOf(index: GraphIndex, topicId: string): ChainSchemaField[] {
  const fields: ChainSchemaField[] = [];
  const seen = new Set<string>();
  for (const edge of schemaEdgesValueFirst(index.outgoing.get(topicId) ?? [])) {
    for (const field of storedSchemaFields(index.nodes.get(edge.dst_id))) {
      if (seen.has(field.name)) continue;
      seen.add(field.name);
      fields.push({
        name: field.name,
        type: typeof field.type === 'string' ? field.type : JSON.stringify(field.type ?? null),
      });
    }
  }
  return fields;
}

function truncateText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 3)}...`;
}

/**
 * The upstream chain of `tableId`, nearest first (ties by qualified name). Empty when the table is
 * unknown or has nothing upstream of a listed kind.
 */
export function upstreamChain(index: GraphIndex, tableId: string, maxHops = MAX_CHAIN_HOPS): ChainEntry[] {
  const table = index.nodes.get(tableId);
  if (!table) return [];
  // Breadth-first against edge directions; `via` remembers how each node reaches the table.
  const via = new Map<string, { edgeType: EdgeType; next: string }>();
  const hopOf = new Map<string, number>([[tableId, 0]]);
  let frontier = [tableId];
  for (let hop = 1; hop <= maxHops && frontier.length > 0; hop += 1) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const edge of index.incoming.get(id) ?? []) {
        if (hopOf.has(edge.src_id)) continue;
        hopOf.set(edge.src_id, hop);
        via.set(edge.src_id, { edgeType: edge.edge_type, next: id });
        next.push(edge.src_id);
      }
    }
    frontier = next.sort();
  }
  const entries: ChainEntry[] = [];
  for (const [id, hop] of hopOf) {
    if (hop === 0) continue;
    const node = index.nodes.get(id)!;
    const kind = KIND_OF[node.node_type];
    if (!kind) continue;
    const path: string[] = [];
    for (let at: string | undefined = id; at !== undefined; at = via.get(at)?.next)
      path.push(index.nodes.get(at)!.qualified_name);
    const entry: ChainEntry = {
      hop,
      kind,
      qualified_name: node.qualified_name,
      display_name: node.display_name,
      node_id: id,
      system: node.system.toLowerCase(),
      edge_type: via.get(id)!.edgeType,
      full_path: path.join(' -> '),
    };
    const sql = stringAttribute(node, 'sql');
    if (sql && (kind === 'stream_job' || kind === 'sql_query')) entry.sql = truncateText(sql, CHAIN_SQL_MAX_CHARS);
    const connectorClass = stringAttribute(node, 'connector_class');
    if (connectorClass && kind === 'connector') entry.connector_class = connectorClass;
    if (kind === 'topic') {
      const fields = schemaFieldsOf(index, id);
      if (fields.length > 0) entry.schema_fields = fields;
    }
    entries.push(entry);
  }
  return entries.sort(
    (a, b) => a.hop - b.hop || (a.qualified_name < b.qualified_name ? -1 : a.qualified_name > b.qualified_name ? 1 : 0),
  );
}

/** The JSON form of a hop (fields in the specification's order, bridge-only fields dropped). */
export function toHop(entry: ChainHop): ChainHop {
  const hop: ChainHop = {
    hop: entry.hop,
    kind: entry.kind,
    qualified_name: entry.qualified_name,
    display_name: entry.display_name,
  };
  if (entry.sql !== undefined) hop.sql = entry.sql;
  if (entry.connector_class !== undefined) hop.connector_class = entry.connector_class;
  if (entry.schema_fields !== undefined) hop.schema_fields = entry.schema_fields;
  return hop;
}

/** UTF-8 length of a string, in bytes. */
export function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** A chain cut to a byte budget. */
export interface CappedChain {
  /** The hops kept (nearest first). */
  hops: ChainHop[];
  /** Compact JSON of `hops`, at most the budget in UTF-8 bytes. */
  json: string;
  /** True when a hop or a hop's field was dropped. */
  truncated: boolean;
}

/**
 * Caps a chain's compact JSON at `maxBytes` (default `CHAIN_MAX_BYTES`): drops the farthest hops
 * first; when one hop is left and still too large, drops its `schema_fields`, then its `sql`; when
 * even that does not fit, the chain is `[]`.
 */
export function capChain(chain: readonly ChainHop[], maxBytes = CHAIN_MAX_BYTES): CappedChain {
  const hops = chain.map(toHop);
  let truncated = false;
  while (hops.length > 0) {
    const json = JSON.stringify(hops);
    if (byteLength(json) <= maxBytes) return { hops, json, truncated };
    truncated = true;
    if (hops.length > 1) {
      hops.pop();
      continue;
    }
    const only = hops[0]!;
    if (only.schema_fields !== undefined) delete only.schema_fields;
    else if (only.sql !== undefined) delete only.sql;
    else hops.pop();
  }
  return { hops, json: '[]', truncated };
}

/** Joins values with `, ` keeping at most `maxBytes`; says whether any value was left out. */
export function joinCapped(
  values: readonly string[],
  maxBytes = PROPERTY_MAX_BYTES,
): { text: string; truncated: boolean } {
  let text = '';
  for (const [i, value] of values.entries()) {
    const candidate = i === 0 ? value : `${text},${value}`;
    if (byteLength(candidate) > maxBytes) return { text, truncated: true };
    text = candidate;
  }
  return { text, truncated: false };
}

/** What the properties of one table are made from. */
export interface TablePushInput {
  table: Node;
  chain: readonly ChainEntry[];
  /** ISO 8601 UTC time of this push. */
  syncedAt: string;
}

/** The `lineage_svc.*` properties of one table, key -> value (only non-empty values). */
export type LineageProperties = Record<string, string>;

/** How the table is fed: `tableflow` when materialized from a topic, `catalog_derived` for tables found by downstream discovery. */
export function pipelineType(table: Node, chain: readonly ChainEntry[]): string {
  if (table.attributes?.derived === true) return 'catalog_derived';
  if (chain.some((entry) => entry.kind === 'materialized_table')) return 'tableflow';
  return chain.length > 0 ? 'stream' : 'none';
}

/**
 * The table properties of the specification: `lineage_svc.source_topics` (comma-separated
 * qualified names of the upstream topics), `lineage_svc.source_connectors` (display names of the
 * upstream connectors), `lineage_svc.upstream_chain` (capped JSON), `lineage_svc.pipeline_type`,
 * `lineage_svc.last_synced`, `lineage_svc.environment_id`, `lineage_svc.cluster_id`, and
 * `lineage_svc.upstream_truncated` = `true` only when the chain (or a list) was cut. Empty values
 * are left out. Every value is at most `PROPERTY_MAX_BYTES`.
 */
export function lineageProperties(input: TablePushInput): { properties: LineageProperties; capped: CappedChain } {
  const { table, chain, syncedAt } = input;
  const capped = capChain(chain);
  const topics = joinCapped([
    ...new Set(chain.filter((entry) => entry.kind === 'topic').map((entry) => entry.qualified_name)),
  ]);
  const connectors = joinCapped([
    ...new Set(chain.filter((entry) => entry.kind === 'connector').map((entry) => entry.display_name)),
  ]);
  const properties: LineageProperties = {
    'lineage_svc.source_topics': topics.text,
    'lineage_svc.source_connectors': connectors.text,
    'lineage_svc.upstream_chain': capped.json,
    'lineage_svc.pipeline_type': pipelineType(table, chain),
    'lineage_svc.last_synced': syncedAt,
    'lineage_svc.environment_id': table.environment_id ?? '',
    'lineage_svc.cluster_id': table.cluster_id ?? '',
  };
  if (capped.truncated || topics.truncated || connectors.truncated)
    properties['lineage_svc.upstream_truncated'] = 'true';
  for (const [key, value] of Object.entries(properties)) {
    if (value === '') delete properties[key];
    else if (byteLength(value) > PROPERTY_MAX_BYTES) properties[key] = truncateBytes(value, PROPERTY_MAX_BYTES);
  }
  return { properties, capped };
}

/** Cuts a string to at most `maxBytes` UTF-8 bytes without splitting a character. */
export function truncateBytes(text: string, maxBytes: number): string {
  let out = '';
  let bytes = 0;
  for (const char of text) {
    const size = byteLength(char);
    if (bytes + size > maxBytes) break;
    out += char;
    bytes += size;
  }
  return out;
}

function hopSuffix(hop: ChainHop): string {
  if (hop.sql !== undefined) return ` [SQL: ${truncateText(hop.sql.replace(/\s+/g, ' ').trim(), 80)}]`;
  if (hop.connector_class !== undefined) return ` [${hop.connector_class}]`;
  if (hop.schema_fields !== undefined) return ` [${hop.schema_fields.length} columns]`;
  return '';
}

/**
 * The table comment: `Upstream lineage (lineage-svc):`, then the capped chain as a tree from the
 * farthest hop to the nearest (2 spaces of indentation per level, hops of the same distance side by
 * side, `- {kind}: {display_name}` plus a suffix `[SQL: ...]`, `[connector class]` or
 * `[n columns]`), then `-> {table}` one level deeper, a note when hops were omitted, and the lines
 * `Environment: {env}` and `Last synced: {time}`. Lines are joined with real newlines (the SQL
 * string literal escaping in `lakehouse.ts` keeps them).
 */
export function commentTree(table: Node, capped: CappedChain, syncedAt: string): string {
  const lines = ['Upstream lineage (lineage-svc):'];
  const hops = [...capped.hops].sort((a, b) => b.hop - a.hop || (a.qualified_name < b.qualified_name ? -1 : 1));
  const levels = [...new Set(hops.map((hop) => hop.hop))];
  for (const hop of hops) {
    const depth = levels.indexOf(hop.hop);
    lines.push(`${'  '.repeat(depth)}- ${hop.kind}: ${hop.display_name}${hopSuffix(hop)}`);
  }
  if (hops.length === 0) lines.push('  (no upstream nodes known)');
  lines.push(`${'  '.repeat(levels.length)}-> ${table.qualified_name}`);
  if (capped.truncated) lines.push('(farther upstream hops omitted to fit the catalog size limit)');
  lines.push(`Environment: ${table.environment_id ?? 'unknown'}`);
  lines.push(`Last synced: ${syncedAt}`);
  return lines.join('\n');
}

/**
 * The columns of the bridge table, in order, with their SQL types (`docs/specification.md`,
 * "Lakehouse catalog (table nodes)").
 */
export const BRIDGE_COLUMNS = [
  ['uc_table', 'STRING'],
  ['source_type', 'STRING'],
  ['source_name', 'STRING'],
  ['source_system', 'STRING'],
  ['edge_type', 'STRING'],
  ['environment_id', 'STRING'],
  ['cluster_id', 'STRING'],
  ['hop_distance', 'INT'],
  ['full_path', 'STRING'],
  ['chain_json', 'STRING'],
  ['synced_at', 'TIMESTAMP'],
] as const;

/** One row of the bridge table. */
export interface BridgeRow {
  uc_table: string;
  source_type: ChainKind;
  source_name: string;
  source_system: string;
  edge_type: EdgeType;
  environment_id: string | null;
  cluster_id: string | null;
  hop_distance: number;
  full_path: string;
  chain_json: string;
  /** ISO 8601 UTC. */
  synced_at: string;
}

/**
 * The bridge rows of one table: one per upstream node (the whole chain, not the capped one: a
 * STRING column has no 4 KB limit), each repeating the whole chain as JSON in `chain_json`.
 */
export function bridgeRows(input: TablePushInput): BridgeRow[] {
  const chainJson = JSON.stringify(input.chain.map(toHop));
  return input.chain.map((entry) => ({
    uc_table: input.table.qualified_name,
    source_type: entry.kind,
    source_name: entry.qualified_name,
    source_system: entry.system,
    edge_type: entry.edge_type,
    environment_id: input.table.environment_id,
    cluster_id: input.table.cluster_id,
    hop_distance: entry.hop,
    full_path: entry.full_path,
    chain_json: chainJson,
    synced_at: input.syncedAt,
  }));
}
