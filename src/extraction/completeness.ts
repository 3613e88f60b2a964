/**
 * Completeness per scope (issue 22, item 1; `docs/extraction.md`, "Scopes and completeness"). An
 * extraction reads its environments through many calls; when one of them fails (a 401, retries
 * exhausted, a timeout), what that call would have listed is unknown, not gone. So every extractor
 * reports the scopes it did not read completely, and the recording keeps their stored state: nothing
 * in an incomplete scope is recorded as removed, and its stored nodes, edges and attributes stand in
 * the graph that is recorded and written (`keepIncompleteScopes`).
 *
 * A scope is a kind and the ids it covers (`IncompleteScope`); what it owns in a graph is fixed per
 * kind (`scopeOwnership`):
 *
 * | kind | nodes | edges | attributes |
 * |---|---|---|---|
 * | `environment` | every node of the environment | every edge a node of it reports | |
 * | `topics` | TOPIC of the cluster | edges touching its topics | |
 * | `topic_configs` | | | `configs` of TOPIC of the cluster |
 * | `consumer_groups` | CONSUMER_GROUP of the cluster | edges its groups report (CONSUMES into them, MEMBER_OF) | |
 * | `consumer_lag` | | CONSUMES into a CONSUMER_GROUP of the cluster (they come from the lag query) | |
 * | `cluster_links` | Kafka stand-ins (`kafka://`) of the cluster | Cluster Linking TRANSFORMS into the cluster | |
 * | `connectors` | CONNECTOR of the cluster | edges touching its connectors | dead-letter marks of TOPIC (`role`, `for_connector`) |
 * | `ksqldb` | SQL_QUERY of the environment (of one ksqlDB cluster when `resource_id` is set) | edges touching them | |
 * | `flink` | STREAM_JOB of the environment | edges touching them | |
 * | `schema_registry` | SCHEMA of the environment | HAS_SCHEMA into its schemas; PRODUCES of the environment (their column lineage reads the schemas) | |
 * | `stream_catalog` | | | TOPIC of the environment (`tags`, `business_metadata`, `owner`, `owner_email`, `description`) |
 * | `tableflow` | MATERIALIZED_TABLE and Tableflow CATALOG_TABLE of the cluster | MATERIALIZES from its topics | |
 * | `catalog` | tables and jobs the catalog derived (`derived: true`) | edges touching them | its CATALOG_TABLEs (one table when `node_id` is set) |
 *
 * Where a scope owns a node, the stored node wins over what this run saw of it (a placeholder topic
 * named by a job while its cluster's listing failed is the stored, listed topic); where it owns
 * attribute keys, the stored values of those keys win; a catalog's tables keep the stored values of
 * the keys the run lacks. Tables and jobs a catalog derived from a table kept as stored
 * (`discovered_from`) are kept too, with their edges. An edge a
 * scope owns that the run did not see is kept as stored, with the stored nodes at its ends.
 * Pure: no I/O.
 */
import type { IncompleteScope } from '../events.js';
import { sameNode, type GraphReader } from '../graph/changes.js';
import { edgeKey, type Edge, type LineageGraph, type Node } from '../graph/model.js';
import { isClusterLinkEdge, reportingEnd, standInTopicKey } from './scopes.js';

export type { IncompleteScope } from '../events.js';

/** A scope to report: the ids its kind needs; the others default to null. */
export type IncompleteScopeInput = Pick<IncompleteScope, 'kind' | 'reason'> &
  Partial<Pick<IncompleteScope, 'environment_id' | 'cluster_id' | 'resource_id' | 'node_id'>>;

/** A reported scope with every id field set (null where its kind has none). */
export function incompleteScope(input: IncompleteScopeInput): IncompleteScope {
  return {
    kind: input.kind,
    environment_id: input.environment_id ?? null,
    cluster_id: input.cluster_id ?? null,
    resource_id: input.resource_id ?? null,
    node_id: input.node_id ?? null,
    reason: input.reason,
  };
}

/** `topics of cluster lkc-1 (env-1)`: a scope in words, for messages and history. */
export function describeScope(scope: IncompleteScope): string {
  const where = scope.cluster_id ? `cluster ${scope.cluster_id}` : `environment ${scope.environment_id ?? '(none)'}`;
  switch (scope.kind) {
    case 'environment':
      return `environment ${scope.environment_id ?? '(none)'}`;
    case 'ksqldb':
      return scope.resource_id ? `ksqlDB cluster ${scope.resource_id} of ${where}` : `ksqlDB of ${where}`;
    case 'catalog':
      return scope.node_id
        ? `${scope.resource_id ?? 'catalog'} table ${scope.node_id}`
        : `${scope.resource_id ?? 'catalog'} catalog`;
    default:
      return `${scope.kind.replaceAll('_', ' ')} of ${where}`;
  }
}

/**
 * What a scope owns in a graph: predicates on nodes and edges (with their ends), and which attributes
 * of a node it owns: the keys it sets (the stored values win for them), `'missing'` for whatever the
 * run's node lacks (the stored values fill those in), or false.
 */
export interface ScopeOwnership {
  nodes(node: Node): boolean;
  edges(edge: Edge, source: Node | undefined, target: Node | undefined): boolean;
  attributes(node: Node): readonly string[] | 'missing' | false;
}

/** The topic attributes the topic configs listing sets. */
const TOPIC_CONFIG_ATTRIBUTES = ['configs'] as const;
/** The topic attributes a sink connector sets on its dead-letter topic. */
const DEAD_LETTER_ATTRIBUTES = ['role', 'for_connector'] as const;
/** The topic attributes Stream Catalog sets (`src/extraction/catalog.ts`). */
const STREAM_CATALOG_ATTRIBUTES = ['tags', 'business_metadata', 'owner', 'owner_email', 'description'] as const;

const never = (): false => false;

/** True for a node in the scope's environment (and cluster, when the scope names one). */
function inPlace(scope: IncompleteScope, node: Node | undefined): node is Node {
  return (
    node !== undefined &&
    node.environment_id === scope.environment_id &&
    (scope.cluster_id === null || node.cluster_id === scope.cluster_id)
  );
}

/** The ownership of a scope whose nodes are `owned`, and whose edges are those such a node reports. */
function ownedNodes(owned: (node: Node) => boolean, extraEdges: ScopeOwnership['edges'] = never): ScopeOwnership {
  return {
    nodes: owned,
    edges: (edge, source, target) => {
      const reporter = reportingEnd(edge) === 'src' ? source : target;
      return (reporter !== undefined && owned(reporter)) || extraEdges(edge, source, target);
    },
    attributes: never,
  };
}

/**
 * The ownership of a scope whose nodes (`owned`) own every edge touching them: jobs (what they read
 * and write, the groups they own) and topics (a sink connector's `topics.regex` and a group's lag
 * name topics only the topic listing resolves).
 */
function ownedWithEdges(owned: (node: Node) => boolean): ScopeOwnership {
  return {
    nodes: owned,
    edges: (_edge, source, target) =>
      (source !== undefined && owned(source)) || (target !== undefined && owned(target)),
    attributes: never,
  };
}

/** What a catalog derived: tables and jobs found by downstream discovery, of the catalog's system. */
function derivedBy(scope: IncompleteScope, node: Node | undefined): boolean {
  return node !== undefined && node.attributes?.derived === true && catalogOf(node) === scope.resource_id;
}

/** The catalog type a catalog node belongs to: its `catalog_type`, or its system's for catalog jobs. */
function catalogOf(node: Node): string | null {
  if (node.catalog_type) return node.catalog_type;
  const bySystem: Record<string, string> = {
    LAKEHOUSE: 'LAKEHOUSE_CATALOG',
    DATALAKE: 'DATALAKE_CATALOG',
    WAREHOUSE: 'WAREHOUSE_CATALOG',
  };
  return bySystem[node.system] ?? null;
}

/** What a scope owns (the table in this module's description). */
export function scopeOwnership(scope: IncompleteScope): ScopeOwnership {
  const ofType = (type: Node['node_type']) => (node: Node) => node.node_type === type && inPlace(scope, node);
  switch (scope.kind) {
    case 'environment':
      return ownedNodes((node) => node.environment_id === scope.environment_id);
    case 'topics':
      return ownedWithEdges(ofType('TOPIC'));
    case 'topic_configs':
    case 'stream_catalog': {
      const keys = scope.kind === 'topic_configs' ? TOPIC_CONFIG_ATTRIBUTES : STREAM_CATALOG_ATTRIBUTES;
      const topics = ofType('TOPIC');
      return { nodes: never, edges: never, attributes: (node) => topics(node) && keys };
    }
    case 'consumer_groups':
      return ownedNodes(ofType('CONSUMER_GROUP'));
    case 'consumer_lag':
      return {
        nodes: never,
        edges: (edge, _source, target) =>
          edge.edge_type === 'CONSUMES' && target?.node_type === 'CONSUMER_GROUP' && inPlace(scope, target),
        attributes: never,
      };
    case 'cluster_links':
      return {
        nodes: (node) => standInTopicKey(node) !== undefined && inPlace(scope, node),
        edges: (edge, _source, target) => isClusterLinkEdge(edge) && inPlace(scope, target),
        attributes: never,
      };
    case 'connectors': {
      // A sink connector marks its dead-letter topic (`role`, `for_connector`: src/extraction/connectors.ts).
      const topics = ofType('TOPIC');
      return { ...ownedWithEdges(ofType('CONNECTOR')), attributes: (node) => topics(node) && DEAD_LETTER_ATTRIBUTES };
    }
    case 'ksqldb':
      return ownedWithEdges(
        (node) =>
          node.node_type === 'SQL_QUERY' &&
          node.environment_id === scope.environment_id &&
          (scope.resource_id === null || node.id.includes(`:${scope.resource_id}/`)),
      );
    case 'flink':
      return ownedWithEdges(ofType('STREAM_JOB'));
    case 'schema_registry':
      return ownedNodes(ofType('SCHEMA'), (edge, source, target) =>
        edge.edge_type === 'HAS_SCHEMA'
          ? target?.node_type === 'SCHEMA' && inPlace(scope, target)
          : edge.edge_type === 'PRODUCES' && inPlace(scope, source),
      );
    case 'tableflow':
      return ownedNodes(
        (node) =>
          inPlace(scope, node) &&
          (node.node_type === 'MATERIALIZED_TABLE' ||
            (node.node_type === 'CATALOG_TABLE' &&
              node.attributes?.derived !== true &&
              (node.system === 'LAKEHOUSE' || node.system === 'DATALAKE'))),
        (edge, source) => edge.edge_type === 'MATERIALIZES' && source?.node_type === 'TOPIC' && inPlace(scope, source),
      );
    case 'catalog':
      return {
        nodes: (node) =>
          derivedBy(scope, node) && (scope.node_id === null || node.attributes?.discovered_from === scope.node_id),
        edges: (_edge, source, target) =>
          scope.node_id === null
            ? derivedBy(scope, source) || derivedBy(scope, target)
            : (derivedBy(scope, source) && source?.attributes?.discovered_from === scope.node_id) ||
              (derivedBy(scope, target) && target?.attributes?.discovered_from === scope.node_id),
        attributes: (node) =>
          node.node_type === 'CATALOG_TABLE' &&
          catalogOf(node) === scope.resource_id &&
          (scope.node_id === null || node.id === scope.node_id) &&
          'missing',
      };
  }
}

/** What `keepIncompleteScopes` kept from the stored graph, counted. */
export interface KeptFromStored {
  nodes: number;
  edges: number;
  attributes: number;
}

/**
 * The graph to record when `scopes` were not read completely: `next` with, for every scope, its
 * stored nodes (which win over this run's), its stored edges this run did not see (with the stored
 * nodes at their ends), and its stored attributes filling in the keys this run's nodes lack. Edges
 * of `next` whose end is missing stay out (as before). With no scope, `next` itself.
 * @param current the stored graph the change is decided on.
 */
export function keepIncompleteScopes(
  current: GraphReader,
  next: LineageGraph,
  scopes: readonly IncompleteScope[],
): { graph: LineageGraph; kept: KeptFromStored } {
  const kept: KeptFromStored = { nodes: 0, edges: 0, attributes: 0 };
  if (scopes.length === 0) return { graph: next, kept };
  const owners = scopes.map(scopeOwnership);
  const nodes = new Map<string, Node>();
  for (const node of next.nodes) nodes.set(node.id, node);
  /** Stored nodes this run did not see (or saw only as another scope's reference), kept as stored. */
  const keptIds = new Set<string>();
  const keepNode = (stored: Node) => {
    const fresh = nodes.get(stored.id);
    if (!fresh || !sameNode(fresh, stored)) kept.nodes += 1;
    nodes.set(stored.id, stored);
    keptIds.add(stored.id);
  };
  for (const stored of current.nodes()) {
    const fresh = nodes.get(stored.id);
    if (owners.some((owner) => owner.nodes(stored))) keepNode(stored);
    else if (fresh && stored.attributes) {
      const merged = keptAttributes(owners, stored, fresh);
      if (merged === undefined) continue;
      kept.attributes += 1;
      nodes.set(stored.id, merged);
    }
  }
  const edges = new Map<string, Edge>();
  for (const edge of next.edges) edges.set(edgeKey(edge), edge);
  const keepEdge = (stored: Edge, source: Node | undefined, target: Node | undefined) => {
    edges.set(edgeKey(stored), stored);
    kept.edges += 1;
    for (const end of [source, target]) if (end && !nodes.has(end.id)) keepNode(end);
  };
  for (const stored of current.edges()) {
    if (edges.has(edgeKey(stored))) continue;
    const source = current.getNode(stored.src_id);
    const target = current.getNode(stored.dst_id);
    if (owners.some((owner) => owner.edges(stored, source, target))) keepEdge(stored, source, target);
  }
  keepDiscoveredFromKept(current, next, { nodes, edges, keptIds, keepNode, keepEdge });
  const sortedNodes = [...nodes.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const sortedEdges = [...edges.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, edge]) => edge);
  return { graph: { nodes: sortedNodes, edges: sortedEdges }, kept };
}

/**
 * The run's node with the attributes the scopes own taken from the stored node (their keys: stored
 * values win; `missing`: stored values fill in what the run lacks), or undefined when nothing changes.
 */
function keptAttributes(owners: readonly ScopeOwnership[], stored: Node, fresh: Node): Node | undefined {
  const attributes: Record<string, unknown> = { ...(fresh.attributes ?? {}) };
  let changed = false;
  for (const owner of owners) {
    const owned = owner.attributes(stored);
    if (owned === false) continue;
    const keys =
      owned === 'missing' ? Object.keys(stored.attributes ?? {}).filter((key) => !(key in attributes)) : owned;
    for (const key of keys) {
      if (!(key in (stored.attributes ?? {}))) continue;
      attributes[key] = stored.attributes![key];
      changed = true;
    }
  }
  return changed ? { ...fresh, attributes } : undefined;
}

/**
 * A catalog's derived tables and jobs hang from the table they were discovered from
 * (`discovered_from`): when that table was kept as stored (its scope was not read, so the catalog
 * could not read it either), what was discovered from it is kept too, with its edges, transitively.
 */
function keepDiscoveredFromKept(
  current: GraphReader,
  next: LineageGraph,
  work: {
    nodes: Map<string, Node>;
    edges: Map<string, Edge>;
    keptIds: Set<string>;
    keepNode: (stored: Node) => void;
    keepEdge: (stored: Edge, source: Node | undefined, target: Node | undefined) => void;
  },
): void {
  const seen = new Set(next.nodes.map((node) => node.id));
  const derived = [...current.nodes()].filter(
    (node) => node.attributes?.derived === true && typeof node.attributes.discovered_from === 'string',
  );
  let grew = true;
  while (grew) {
    grew = false;
    for (const node of derived) {
      if (work.keptIds.has(node.id) || seen.has(node.id)) continue;
      if (!work.keptIds.has(node.attributes!.discovered_from as string)) continue;
      work.keepNode(node);
      grew = true;
    }
  }
  for (const stored of current.edges()) {
    if (work.edges.has(edgeKey(stored))) continue;
    const source = current.getNode(stored.src_id);
    const target = current.getNode(stored.dst_id);
    const keptDerived = (end: Node | undefined) =>
      end !== undefined && end.attributes?.derived === true && work.keptIds.has(end.id);
    if (keptDerived(source) || keptDerived(target)) work.keepEdge(stored, source, target);
  }
}
