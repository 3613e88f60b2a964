/**
 * Pure functions over the loaded graph: filters, internal topics and the scene of a diff (the path
 * between two nodes comes from the API, `GET /graphs/{id}/path`). No DOM here (the node tests import this module).
 */
import type { GraphDiff, GraphDocument, GraphDrawing, LineageEdge, LineageNode } from './api';
import type { DiffMark } from './graphView';

/**
 * The nodes and edges a drawing (`GET /graphs/{id}/drawing`) stands for, as the whole graph's wire
 * form has them, with only the attributes drawing reads: `internal` (`isInternalTopic`) and the
 * metric bytes (`edgeThroughputBetween`); other nodes and every edge have null attributes. A node's
 * full record, its edges' attributes and its schemas are read on demand (`withDetails`).
 */
export function documentOfDrawing(drawing: GraphDrawing): GraphDocument {
  const { nodes: columns, edges: edgeColumns } = drawing;
  const attributes: (Record<string, unknown> | null)[] = new Array(columns.id.length).fill(null);
  for (const index of drawing.internal) attributes[index] = { internal: true };
  drawing.throughput.node.forEach((index, entry) => {
    attributes[index] = {
      ...attributes[index],
      metrics_received_bytes: drawing.throughput.received_bytes[entry],
      metrics_sent_bytes: drawing.throughput.sent_bytes[entry],
    };
  });
  const nodes: LineageNode[] = new Array(columns.id.length);
  for (let index = 0; index < nodes.length; index++) {
    const environment = columns.environment[index];
    const cluster = columns.cluster[index];
    nodes[index] = {
      id: columns.id[index]!,
      node_type: drawing.node_types[columns.node_type[index]!]!,
      system: drawing.systems[columns.system[index]!]!,
      qualified_name: columns.qualified_name[index] ?? columns.display_name[index]!,
      display_name: columns.display_name[index]!,
      environment_id: environment === null || environment === undefined ? null : drawing.environments[environment]!,
      cluster_id: cluster === null || cluster === undefined ? null : drawing.clusters[cluster]!,
      attributes: attributes[index]!,
    };
  }
  const edges: LineageEdge[] = new Array(edgeColumns.source.length);
  for (let index = 0; index < edges.length; index++) {
    edges[index] = {
      src_id: columns.id[edgeColumns.source[index]!]!,
      dst_id: columns.id[edgeColumns.target[index]!]!,
      edge_type: drawing.edge_types[edgeColumns.edge_type[index]!]!,
      attributes: null,
    };
  }
  const { graph_id, name, description, node_count, edge_count, revision, created_at, updated_at } = drawing;
  return { graph_id, name, description, node_count, edge_count, revision, created_at, updated_at, nodes, edges };
}

/**
 * Lays full records over the light ones of a document read from a drawing: `nodes` replace the
 * nodes of the same id in `nodesById`, `edges` the edges of the same source, type and target in
 * `edges` (in place; `edgeIndex`, the position of each edge by `diffEdgeKey`, is built on the first
 * call and kept by the caller); an edge not there yet is added. Answers the edge index.
 */
export function withDetails(
  nodesById: Map<string, LineageNode>,
  edges: LineageEdge[],
  details: { nodes: LineageNode[]; edges: LineageEdge[] },
  edgeIndex: Map<string, number> | null,
): Map<string, number> {
  for (const node of details.nodes) nodesById.set(node.id, node);
  const index = edgeIndex ?? new Map(edges.map((edge, position) => [diffEdgeKey(edge), position]));
  for (const edge of details.edges) {
    const key = diffEdgeKey(edge);
    const position = index.get(key);
    if (position !== undefined) edges[position] = edge;
    else {
      index.set(key, edges.length);
      edges.push(edge);
    }
  }
  return index;
}

/** Filters of the view (empty lists mean every value). */
export interface NodeFilters {
  systems: string[];
  types: string[];
  environments: string[];
  clusters: string[];
  showSchemas: boolean;
  showInternal: boolean;
}

/**
 * Internal topics: Kafka's and Confluent's own (`__consumer_offsets`, `_confluent-...`, `_schemas`:
 * a leading underscore) and the changelog and repartition topics of ksqlDB and Kafka Streams.
 */
export function isInternalTopic(node: LineageNode): boolean {
  if (node.node_type !== 'TOPIC') return false;
  const name = node.display_name;
  return name.startsWith('_') || /-(changelog|repartition)$/.test(name) || node.attributes?.internal === true;
}

/** Whether a node passes the filters. */
export function passesFilters(node: LineageNode, filters: NodeFilters): boolean {
  if (!filters.showSchemas && node.node_type === 'SCHEMA') return false;
  if (!filters.showInternal && isInternalTopic(node)) return false;
  if (filters.systems.length > 0 && !filters.systems.includes(node.system)) return false;
  if (filters.types.length > 0 && !filters.types.includes(node.node_type)) return false;
  if (filters.environments.length > 0 && !filters.environments.includes(node.environment_id ?? '')) return false;
  if (filters.clusters.length > 0 && !filters.clusters.includes(node.cluster_id ?? '')) return false;
  return true;
}

/** The key of an edge: its source, type and target (the same as the graph view's). */
export const diffEdgeKey = (edge: Pick<LineageEdge, 'src_id' | 'dst_id' | 'edge_type'>) =>
  `${edge.src_id} -[${edge.edge_type}]-> ${edge.dst_id}`;

/**
 * Nodes and edges to draw for a diff: the graph at `to` plus what was removed, with a mark on each
 * added, removed and changed node and edge.
 */
export function diffScene(
  nodesAtTo: LineageNode[],
  edgesAtTo: LineageEdge[],
  diff: GraphDiff,
): { nodes: LineageNode[]; edges: LineageEdge[]; marks: Map<string, DiffMark> } {
  const marks = new Map<string, DiffMark>();
  for (const node of diff.nodes.added) marks.set(node.id, 'added');
  for (const node of diff.nodes.removed) marks.set(node.id, 'removed');
  for (const change of diff.nodes.changed) marks.set(change.id, 'changed');
  for (const edge of diff.edges.added) marks.set(diffEdgeKey(edge), 'added');
  for (const edge of diff.edges.removed) marks.set(diffEdgeKey(edge), 'removed');
  for (const change of diff.edges.changed) marks.set(diffEdgeKey(change.after), 'changed');
  const present = new Set(nodesAtTo.map((node) => node.id));
  const nodes = [...nodesAtTo, ...diff.nodes.removed.filter((node) => !present.has(node.id))];
  return { nodes, edges: [...edgesAtTo, ...diff.edges.removed], marks };
}

/** What is folded into a topic card: its consumer groups and its schemas. */
export interface Collapsed {
  consumerGroups: number;
  schemas: number;
}

/**
 * Folds consumer groups and schemas into their topics (the default view): a group consuming a
 * topic and a schema of a topic (`HAS_SCHEMA`) are left out and counted on the topic; a group that
 * is a member of a job (`MEMBER_OF`) becomes a `CONSUMES` edge from each topic it reads to that
 * job (unless one is there). Groups read by nothing and schemas of no topic are kept.
 */
export function collapseIntoTopics(
  nodes: LineageNode[],
  edges: LineageEdge[],
  fold: { consumerGroups: boolean; schemas: boolean } = { consumerGroups: true, schemas: true },
): { nodes: LineageNode[]; edges: LineageEdge[]; collapsed: Map<string, Collapsed> } {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const folded = new Set<string>();
  const collapsed = new Map<string, Collapsed>();
  const count = (topic: string, key: keyof Collapsed) => {
    const entry = collapsed.get(topic) ?? { consumerGroups: 0, schemas: 0 };
    entry[key]++;
    collapsed.set(topic, entry);
  };
  const topicsOfGroup = new Map<string, string[]>();
  for (const edge of edges) {
    const source = byId.get(edge.src_id);
    const target = byId.get(edge.dst_id);
    if (!source || !target || source.node_type !== 'TOPIC') continue;
    if (fold.schemas && edge.edge_type === 'HAS_SCHEMA' && target.node_type === 'SCHEMA') {
      if (!folded.has(target.id)) count(source.id, 'schemas');
      folded.add(target.id);
    } else if (fold.consumerGroups && edge.edge_type === 'CONSUMES' && target.node_type === 'CONSUMER_GROUP') {
      count(source.id, 'consumerGroups');
      folded.add(target.id);
      topicsOfGroup.set(target.id, [...(topicsOfGroup.get(target.id) ?? []), source.id]);
    }
  }
  const kept = edges.filter((edge) => !folded.has(edge.src_id) && !folded.has(edge.dst_id));
  const present = new Set(kept.map(diffEdgeKey));
  for (const edge of edges) {
    if (edge.edge_type !== 'MEMBER_OF' || !topicsOfGroup.has(edge.src_id)) continue;
    for (const topic of topicsOfGroup.get(edge.src_id)!) {
      const replacement: LineageEdge = {
        src_id: topic,
        dst_id: edge.dst_id,
        edge_type: 'CONSUMES',
        attributes: { through_consumer_group: edge.src_id },
      };
      if (!present.has(diffEdgeKey(replacement))) {
        present.add(diffEdgeKey(replacement));
        kept.push(replacement);
      }
    }
  }
  return { nodes: nodes.filter((node) => !folded.has(node.id)), edges: kept, collapsed };
}

/** The words on a topic card for what is folded into it, e.g. `2 consumer groups, 1 schema`. */
export function describeCollapsed(entry: Collapsed | undefined): string {
  if (!entry) return '';
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return [
    entry.consumerGroups > 0 ? plural(entry.consumerGroups, 'consumer group') : '',
    entry.schemas > 0 ? plural(entry.schemas, 'schema') : '',
  ]
    .filter(Boolean)
    .join(', ');
}

/**
 * A node's group path for the swimlanes: a stream node's environment then cluster; any other its
 * system (e.g. `LAKEHOUSE`).
 */
export function groupPath(node: LineageNode): string[] {
  if (node.environment_id) return node.cluster_id ? [node.environment_id, node.cluster_id] : [node.environment_id];
  return [node.system];
}

/**
 * Bytes per window carried by an edge, from the latest metric sample of the topic at one end: into
 * a topic, what it received; out of a topic, what it sent. The caller finds the edge's source and
 * target nodes (the page, by index). Null without metrics.
 */
export function edgeThroughputBetween(
  edge: Pick<LineageEdge, 'edge_type'>,
  source: LineageNode | undefined,
  target: LineageNode | undefined,
): number | null {
  const metric = (node: LineageNode, name: string) => {
    const value = node.attributes?.[name];
    return typeof value === 'number' && Number.isFinite(value) ? value : null;
  };
  if (edge.edge_type === 'PRODUCES' && target?.node_type === 'TOPIC') return metric(target, 'metrics_received_bytes');
  if (edge.edge_type === 'CONSUMES' && source?.node_type === 'TOPIC') return metric(source, 'metrics_sent_bytes');
  return null;
}

/** The id of the node standing for a collapsed group (`group:env-1/lkc-1`). */
export const groupNodeId = (path: string) => `group:${path}`;

/**
 * Collapses groups (environments, clusters, other systems: `groupPath` joined with `/`) into one
 * node each, counting what it holds; edges are led to and from that node (one per type and pair),
 * and edges within a group dropped. A node belongs to the outermost collapsed group of its path.
 */
export function collapseGroups(
  nodes: LineageNode[],
  edges: LineageEdge[],
  collapsed: string[],
): { nodes: LineageNode[]; edges: LineageEdge[]; counts: Map<string, number> } {
  if (collapsed.length === 0) return { nodes, edges, counts: new Map() };
  const wanted = new Set(collapsed);
  const owner = new Map<string, string>();
  const counts = new Map<string, number>();
  const groups = new Map<string, LineageNode>();
  const kept: LineageNode[] = [];
  for (const node of nodes) {
    const path = groupPath(node);
    const depth = path.findIndex((_, index) => wanted.has(path.slice(0, index + 1).join('/')));
    if (depth < 0) {
      kept.push(node);
      continue;
    }
    const key = path.slice(0, depth + 1).join('/');
    const id = groupNodeId(key);
    owner.set(node.id, id);
    counts.set(id, (counts.get(id) ?? 0) + 1);
    if (!groups.has(id)) {
      const stream = node.environment_id !== null;
      groups.set(id, {
        id,
        node_type: 'GROUP',
        system: node.system,
        qualified_name: key,
        display_name: path[depth]!,
        environment_id: stream ? path[0]! : null,
        cluster_id: stream && depth === 1 ? path[1]! : null,
        attributes: null,
      });
    }
  }
  const seen = new Set<string>();
  const led: LineageEdge[] = [];
  for (const edge of edges) {
    const src = owner.get(edge.src_id) ?? edge.src_id;
    const dst = owner.get(edge.dst_id) ?? edge.dst_id;
    if (src === dst && (owner.has(edge.src_id) || owner.has(edge.dst_id))) continue;
    const moved = src !== edge.src_id || dst !== edge.dst_id ? { ...edge, src_id: src, dst_id: dst } : edge;
    const key = diffEdgeKey(moved);
    if (seen.has(key)) continue;
    seen.add(key);
    led.push(moved);
  }
  return { nodes: [...kept, ...groups.values()], edges: led, counts };
}
