/**
 * Scopes that own exactly what they read (issue 14, item 3; `docs/extraction.md`, "Recording"). An
 * extraction of some environments (and, with `--cluster`, some clusters) is recorded in `replace`
 * mode, and these rules decide what it may remove and how its references to nodes of other scopes
 * are resolved against the stored graph, so that re-extracting any subset of environments, in any
 * order, converges to the same graph:
 *
 * - **Nodes** belong to the scope of their `environment_id` (and `cluster_id` under a cluster filter):
 *   `extractionScope`. An extraction removes only its own nodes that it no longer finds.
 * - **Edges** belong to the scope of the node that reports them (`reportingEnd`): the consumer of a
 *   CONSUMES edge (the job or group that reads), the mirror topic of a Cluster Linking TRANSFORMS
 *   edge (the destination cluster lists its mirrors, `src/extraction/clusterLinks.ts`), the source
 *   of every other edge (the job of PRODUCES, the group of MEMBER_OF, the topic of HAS_SCHEMA and
 *   MATERIALIZES). An extraction removes only its own edges, plus any edge that loses an end.
 * - **References across scopes** are resolved at record time against the stored graph
 *   (`resolveAgainstStored`):
 *   1. a Kafka stand-in (the EXTERNAL_DATASET `kafka://{cluster}/{topic}` of a mirror whose source
 *      cluster was not extracted) whose topic is stored, from another scope, links to that topic;
 *   2. a stored stand-in of another scope whose topic this extraction brings is replaced by it: the
 *      stand-in is removed and its edges move to the topic, attributes unchanged;
 *   3. a placeholder node of another scope (a topic named by a job, not listed by this extraction)
 *      that is stored already is left as stored;
 *   4. a topic this extraction removes, while a Cluster Linking edge of another scope still mirrors
 *      it, gives that edge back its stand-in (what the destination's own extraction would record).
 *
 * The resolved graph includes the stored nodes its edges reach, so that it is a whole graph (the
 * graph file and the catalog enrichment see it). Pure: no I/O.
 */
import type { GraphReader, Resolution } from '../graph/changes.js';
import { edgeKey, type Edge, type LineageGraph, type Node } from '../graph/model.js';
import { kafkaTopicUri } from './clusterLinks.js';
import { externalDatasetNode } from './connectors.js';

/** Which nodes an extraction owns: a predicate on nodes. */
export type ScopePredicate = (node: Node) => boolean;

/**
 * The scope of an extraction: nodes of the extracted environments and, when `clusterIds` is not
 * empty, of those clusters only (nodes without a cluster, such as schemas, are then out of scope).
 */
export function extractionScope(environmentIds: readonly string[], clusterIds: readonly string[] = []): ScopePredicate {
  const environments = new Set(environmentIds);
  const clusters = new Set(clusterIds);
  return (node) =>
    node.environment_id !== null &&
    environments.has(node.environment_id) &&
    (clusters.size === 0 || (node.cluster_id !== null && clusters.has(node.cluster_id)));
}

/** True for a Cluster Linking edge (`mirror source -TRANSFORMS-> mirror topic`, attribute `cluster_link`). */
export function isClusterLinkEdge(edge: Pick<Edge, 'edge_type' | 'attributes'>): boolean {
  return edge.edge_type === 'TRANSFORMS' && typeof edge.attributes?.cluster_link === 'string';
}

/**
 * The end of an edge whose scope owns it: `dst` for CONSUMES (the reader reports what it reads) and
 * for Cluster Linking TRANSFORMS edges (the destination cluster reports its mirrors), `src` otherwise.
 */
export function reportingEnd(edge: Pick<Edge, 'edge_type' | 'attributes'>): 'src' | 'dst' {
  return edge.edge_type === 'CONSUMES' || isClusterLinkEdge(edge) ? 'dst' : 'src';
}

/**
 * Whether a scope owns a stored edge: the node at its reporting end is stored and in the scope.
 * @returns a predicate for `DiffOptions.ownsEdge`.
 */
export function ownsEdge(scope: ScopePredicate): (edge: Edge, current: GraphReader) => boolean {
  return (edge, current) => {
    const node = current.getNode(reportingEnd(edge) === 'src' ? edge.src_id : edge.dst_id);
    return node !== undefined && scope(node);
  };
}

/** The source topic a Kafka stand-in stands for (`{cluster}/{topic}`), or undefined for any other node. */
export function standInTopicKey(node: Node): string | undefined {
  const attributes = node.attributes;
  if (node.node_type !== 'EXTERNAL_DATASET' || attributes?.scheme !== 'kafka') return undefined;
  const cluster = attributes.source_cluster_id;
  const topic = attributes.source_topic_name;
  return typeof cluster === 'string' && typeof topic === 'string' ? `${cluster}/${topic}` : undefined;
}

/** `{cluster}/{topic}` of a topic node, or undefined for other nodes and topics without a cluster. */
function topicKey(node: Node): string | undefined {
  return node.node_type === 'TOPIC' && node.cluster_id !== null ? `${node.cluster_id}/${node.display_name}` : undefined;
}

function isPlaceholder(node: Node): boolean {
  return node.attributes?.placeholder === true;
}

/** The working state of one resolution. */
interface Work {
  current: GraphReader;
  scope: ScopePredicate;
  nodes: Map<string, Node>;
  edges: Map<string, Edge>;
  replaced: string[];
}

/**
 * Resolves an extracted graph against the stored one by rules 1-4 above.
 * @param scope the extraction's scope (`extractionScope`).
 * @returns a `DiffOptions.resolve` function: given the stored state and the extracted graph, the
 *   graph to record (sorted by id) and the stand-ins of other scopes it replaces.
 */
export function resolveAgainstStored(scope: ScopePredicate): (current: GraphReader, next: LineageGraph) => Resolution {
  return (current, next) => {
    const work: Work = { current, scope, nodes: new Map(), edges: new Map(), replaced: [] };
    for (const node of next.nodes) work.nodes.set(node.id, node);
    const storedTopics = new Map<string, string>();
    const storedStandIns: Node[] = [];
    for (const node of current.nodes()) {
      if (scope(node)) continue;
      const key = topicKey(node);
      if (key !== undefined) storedTopics.set(key, node.id);
      else if (standInTopicKey(node) !== undefined) storedStandIns.push(node);
    }
    const moved = linkStandInsToStoredTopics(work, storedTopics);
    for (const edge of next.edges) addEdge(work, moveEnds(edge, moved));
    replaceStoredStandIns(work, storedStandIns);
    keepStoredPlaceholders(work);
    restoreStandIns(work);
    includeStoredEnds(work);
    return { graph: sortedGraph(work), replaced: work.replaced };
  };
}

/** Rule 1: drops the stand-ins whose topic is stored (another scope's); returns stand-in id -> topic id. */
function linkStandInsToStoredTopics(work: Work, storedTopics: ReadonlyMap<string, string>): Map<string, string> {
  const moved = new Map<string, string>();
  for (const node of [...work.nodes.values()]) {
    const key = standInTopicKey(node);
    const topic = key === undefined ? undefined : storedTopics.get(key);
    if (topic === undefined) continue;
    moved.set(node.id, topic);
    work.nodes.delete(node.id);
  }
  return moved;
}

/** Rule 2: stored stand-ins of other scopes whose topic the extraction brings are replaced by the topic. */
function replaceStoredStandIns(work: Work, storedStandIns: readonly Node[]): void {
  if (storedStandIns.length === 0) return;
  const extractedTopics = new Map<string, string>();
  for (const node of work.nodes.values()) {
    const key = topicKey(node);
    if (key !== undefined) extractedTopics.set(key, node.id);
  }
  const moved = new Map<string, string>();
  for (const standIn of storedStandIns) {
    const topic = extractedTopics.get(standInTopicKey(standIn)!);
    if (topic === undefined || work.nodes.has(standIn.id)) continue;
    work.replaced.push(standIn.id);
    moved.set(standIn.id, topic);
  }
  if (moved.size === 0) return;
  for (const edge of work.current.edges()) {
    if (moved.has(edge.src_id) || moved.has(edge.dst_id)) addEdge(work, moveEnds(edge, moved), false);
  }
}

/** Rule 3: a placeholder of another scope that is stored already stays as stored. */
function keepStoredPlaceholders(work: Work): void {
  for (const node of [...work.nodes.values()]) {
    if (work.scope(node) || !isPlaceholder(node)) continue;
    const stored = work.current.getNode(node.id);
    if (stored) work.nodes.set(node.id, stored);
  }
}

/** Rule 4: a topic this extraction removes gives back their stand-in to the Cluster Linking edges of other scopes. */
function restoreStandIns(work: Work): void {
  for (const edge of work.current.edges()) {
    if (!isClusterLinkEdge(edge) || work.edges.has(edgeKey(edge))) continue;
    const source = work.current.getNode(edge.src_id);
    const mirror = work.current.getNode(edge.dst_id);
    if (!source || !mirror || mirror.cluster_id === null || mirror.environment_id === null) continue;
    // Only a source this extraction owns and no longer has, mirrored into a scope it does not own.
    if (!work.scope(source) || work.nodes.has(source.id) || work.scope(mirror) || source.cluster_id === null) continue;
    const standIn = externalDatasetNode(
      mirror.environment_id,
      mirror.cluster_id,
      kafkaTopicUri(source.cluster_id, source.display_name),
      { source_cluster_id: source.cluster_id, source_topic_name: source.display_name },
    );
    if (!work.nodes.has(standIn.id)) work.nodes.set(standIn.id, standIn);
    addEdge(work, { ...edge, src_id: standIn.id });
  }
}

/** Adds the stored node of every edge end the graph lacks (nodes of other scopes its edges reach). */
function includeStoredEnds(work: Work): void {
  for (const edge of work.edges.values()) {
    for (const id of [edge.src_id, edge.dst_id]) {
      if (work.nodes.has(id)) continue;
      const stored = work.current.getNode(id);
      if (stored) work.nodes.set(id, stored);
    }
  }
}

/** The edge with its ends moved by `moved` (id -> id); the same edge when neither end moves. */
function moveEnds(edge: Edge, moved: ReadonlyMap<string, string>): Edge {
  const src = moved.get(edge.src_id) ?? edge.src_id;
  const dst = moved.get(edge.dst_id) ?? edge.dst_id;
  return src === edge.src_id && dst === edge.dst_id ? edge : { ...edge, src_id: src, dst_id: dst };
}

/** Adds an edge; an edge already there keeps its attributes, merged with these unless `merge` is false. */
function addEdge(work: Work, edge: Edge, merge = true): void {
  const key = edgeKey(edge);
  const existing = work.edges.get(key);
  if (!existing) work.edges.set(key, edge);
  else if (merge && edge.attributes !== null)
    work.edges.set(key, { ...existing, attributes: { ...(existing.attributes ?? {}), ...edge.attributes } });
}

function sortedGraph(work: Work): LineageGraph {
  const nodes = [...work.nodes.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const keyed = [...work.edges.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { nodes, edges: keyed.map(([, edge]) => edge) };
}
