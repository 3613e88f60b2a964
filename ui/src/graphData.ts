/**
 * Pure functions over the loaded graph: filters, internal topics, the path between two nodes, and
 * the scene of a diff. No DOM here (the node tests import this module).
 */
import type { GraphDiff, LineageEdge, LineageNode } from './api';
import type { DiffMark } from './graphView';

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

/**
 * The shortest path from `from` to `to`: along edge direction when one exists (either way round),
 * else ignoring direction. Returns the node ids and the edges in order, or null when the two are
 * not connected.
 */
export function findPath(
  edges: LineageEdge[],
  from: string,
  to: string,
): { nodes: string[]; edges: LineageEdge[]; directed: boolean } | null {
  const search = (start: string, goal: string, directed: boolean) => {
    const next = new Map<string, LineageEdge[]>();
    const link = (key: string, edge: LineageEdge) => {
      const list = next.get(key);
      if (list) list.push(edge);
      else next.set(key, [edge]);
    };
    for (const edge of edges) {
      link(edge.src_id, edge);
      if (!directed) link(edge.dst_id, edge);
    }
    const came = new Map<string, { node: string; edge: LineageEdge } | null>([[start, null]]);
    const queue = [start];
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head]!;
      if (node === goal) break;
      for (const edge of next.get(node) ?? []) {
        const other = edge.src_id === node ? edge.dst_id : edge.src_id;
        if (came.has(other)) continue;
        came.set(other, { node, edge });
        queue.push(other);
      }
    }
    if (!came.has(goal)) return null;
    const nodes = [goal];
    const pathEdges: LineageEdge[] = [];
    for (let step = came.get(goal); step; step = came.get(step.node)) {
      nodes.unshift(step.node);
      pathEdges.unshift(step.edge);
    }
    return { nodes, edges: pathEdges, directed };
  };
  return search(from, to, true) ?? search(to, from, true) ?? search(from, to, false);
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
