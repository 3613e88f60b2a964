/**
 * Accumulates the fragments the extractors return into one lineage graph, with the merge rules of
 * `docs/extraction.md` ("Graph", merge rules), made deterministic:
 *
 * - a node added twice keeps one entry; attributes are merged key by key (the later value wins,
 *   keys only on the earlier node stay); `environment_id`, `cluster_id` and `catalog_type` take the
 *   later value unless it is null;
 * - a *placeholder* (attribute `placeholder: true`, e.g. a sink connector's dead-letter topic
 *   `dlq-{connector id}` or a topic named by a query but not listed) never overrides a real node:
 *   merged into a real topic it contributes only its attributes (`role`, `for_connector`) and the
 *   `placeholder` flag disappears; a real node arriving after a placeholder replaces its fields;
 * - an edge added twice keeps one entry (its attributes merged);
 * - `enrich(id, attributes)` merges attributes into a node only when it exists (catalog tags,
 *   metrics), never creating one;
 * - `build()` drops edges whose endpoints never appeared, with one warning per edge type, and
 *   returns nodes and edges sorted by id so that the same estate always gives the same file.
 */
import {
  edgeKey,
  type Attributes,
  type CatalogType,
  type Edge,
  type EdgeType,
  type LineageGraph,
  type Node,
  type NodeType,
  type System,
} from '../graph/model.js';

/** What an extractor returns: nodes and edges to add. */
export interface Fragment {
  nodes: Node[];
  edges: Edge[];
}

/** An empty fragment. */
export function emptyFragment(): Fragment {
  return { nodes: [], edges: [] };
}

/** Fields of `makeNode`. */
export interface NodeFields {
  id: string;
  nodeType: NodeType;
  system: System;
  qualifiedName: string;
  displayName: string;
  environmentId: string | null;
  clusterId: string | null;
  attributes?: Record<string, unknown>;
  catalogType?: CatalogType;
}

/** Builds a node with every field present (null where unknown), attributes without undefined values. */
export function makeNode(fields: NodeFields): Node {
  const node: Node = {
    id: fields.id,
    node_type: fields.nodeType,
    system: fields.system,
    qualified_name: fields.qualifiedName,
    display_name: fields.displayName,
    environment_id: fields.environmentId,
    cluster_id: fields.clusterId,
    attributes: fields.attributes ? compact(fields.attributes) : null,
  };
  if (fields.catalogType) node.catalog_type = fields.catalogType;
  return node;
}

/** Builds an edge; `attributes` null when none are given. */
export function makeEdge(srcId: string, edgeType: EdgeType, dstId: string, attributes?: Record<string, unknown>): Edge {
  return { src_id: srcId, dst_id: dstId, edge_type: edgeType, attributes: attributes ? compact(attributes) : null };
}

/** Drops keys whose value is undefined (JSON would drop them anyway; diffs must not see them). */
export function compact(attributes: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined));
}

function isPlaceholder(node: Node): boolean {
  return node.attributes?.placeholder === true;
}

function mergeAttributes(a: Attributes, b: Attributes): Attributes {
  if (a === null) return b;
  if (b === null) return a;
  return { ...a, ...b };
}

function withoutPlaceholderFlag(attributes: Attributes): Attributes {
  if (attributes === null || !('placeholder' in attributes)) return attributes;
  const { placeholder: _dropped, ...rest } = attributes;
  return Object.keys(rest).length === 0 ? null : rest;
}

/** Merges `next` into `current` (same id) by the rules above. */
export function mergeNodes(current: Node, next: Node): Node {
  if (isPlaceholder(next) && !isPlaceholder(current)) {
    return { ...current, attributes: withoutPlaceholderFlag(mergeAttributes(next.attributes, current.attributes)) };
  }
  if (isPlaceholder(current) && !isPlaceholder(next)) {
    return { ...next, attributes: withoutPlaceholderFlag(mergeAttributes(current.attributes, next.attributes)) };
  }
  const merged: Node = {
    ...next,
    environment_id: next.environment_id ?? current.environment_id,
    cluster_id: next.cluster_id ?? current.cluster_id,
    attributes: mergeAttributes(current.attributes, next.attributes),
  };
  const catalogType = next.catalog_type ?? current.catalog_type;
  if (catalogType) merged.catalog_type = catalogType;
  return merged;
}

/** The accumulating graph of one extraction. */
export class GraphBuilder {
  private readonly nodes = new Map<string, Node>();
  private readonly edges = new Map<string, Edge>();

  /** Adds or merges a node. */
  addNode(node: Node): void {
    const current = this.nodes.get(node.id);
    this.nodes.set(node.id, current ? mergeNodes(current, node) : node);
  }

  /** Adds or merges an edge (endpoints are checked in `build`). */
  addEdge(edge: Edge): void {
    const key = edgeKey(edge);
    const current = this.edges.get(key);
    this.edges.set(
      key,
      current ? { ...current, attributes: mergeAttributes(current.attributes, edge.attributes) } : edge,
    );
  }

  /** Adds every node, then every edge, of a fragment. */
  add(fragment: Fragment): void {
    for (const node of fragment.nodes) this.addNode(node);
    for (const edge of fragment.edges) this.addEdge(edge);
  }

  /** Merges attributes into an existing node; returns false (and changes nothing) when there is none. */
  enrich(nodeId: string, attributes: Record<string, unknown>): boolean {
    const current = this.nodes.get(nodeId);
    if (!current) return false;
    this.nodes.set(nodeId, { ...current, attributes: mergeAttributes(current.attributes, compact(attributes)) });
    return true;
  }

  /** True when a node with this id was added. */
  has(nodeId: string): boolean {
    return this.nodes.has(nodeId);
  }

  /** The node with this id, if any. */
  node(nodeId: string): Node | undefined {
    return this.nodes.get(nodeId);
  }

  /** Every node added so far (insertion order). */
  allNodes(): IterableIterator<Node> {
    return this.nodes.values();
  }

  /** Every edge added so far (insertion order). */
  allEdges(): IterableIterator<Edge> {
    return this.edges.values();
  }

  /**
   * The graph: nodes and edges sorted, edges with a missing endpoint dropped. `warnings` has one
   * line per edge type that lost edges, with the count and an example.
   */
  build(): { graph: LineageGraph; warnings: string[] } {
    const dropped = new Map<string, { count: number; example: Edge }>();
    // Each edge with its key (the map's), sorted by key: a key per comparison would make hundreds of
    // thousands of short-lived strings on a large estate (the peak of an extraction's memory).
    const keyed: Array<{ key: string; edge: Edge }> = [];
    for (const [key, edge] of this.edges) {
      if (this.nodes.has(edge.src_id) && this.nodes.has(edge.dst_id)) {
        keyed.push({ key, edge });
        continue;
      }
      const entry = dropped.get(edge.edge_type);
      if (entry) entry.count += 1;
      else dropped.set(edge.edge_type, { count: 1, example: edge });
    }
    const warnings = [...dropped.entries()].map(([type, { count, example }]) => {
      const missing = this.nodes.has(example.src_id) ? example.dst_id : example.src_id;
      return `dropped ${count} ${type} edge(s) whose endpoint was not extracted, e.g. ${example.src_id} -> ${example.dst_id} (missing ${missing})`;
    });
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    const nodes = [...this.nodes.values()].sort(byId);
    keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { graph: { nodes, edges: keyed.map(({ edge }) => edge) }, warnings };
  }
}
