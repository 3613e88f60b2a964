/**
 * Pure functions over the loaded graph: filters, internal topics and the scene of a diff (the path
 * between two nodes comes from the API, `GET /graphs/{id}/path`). No DOM here (the node tests import this module).
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
