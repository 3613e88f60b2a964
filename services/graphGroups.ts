/**
 * The grouped overview of a graph (issue 27, "grouped overview first"): its nodes counted per
 * environment, cluster and node type, and its edges counted per pair of such groups, so that the web
 * UI draws a picture of a graph of 100,000 nodes from an answer of a few kilobytes while the whole
 * graph is fetched. Read from the projections (`readGraphView`: now, or as of a revision or time);
 * nothing is appended.
 */
import { readGraphView, type GraphRuntime } from './graphs.js';

/** Nodes of one environment, cluster and type (null ids: nodes outside any environment or cluster). */
export interface NodeGroup {
  environment_id: string | null;
  cluster_id: string | null;
  node_type: string;
  node_count: number;
}

/** Edges from the nodes of one group to those of another (indexes into `groups`; the same for edges within a group). */
export interface GroupLink {
  source: number;
  target: number;
  edge_count: number;
}

/** The grouped overview: groups sorted by environment, cluster, then type; links by source then target. */
export interface GraphGroups {
  graph_id: string;
  revision: number;
  node_count: number;
  edge_count: number;
  groups: NodeGroup[];
  links: GroupLink[];
}

/**
 * Counts a graph's nodes per environment, cluster and node type, and its edges per pair of groups.
 * @throws NotFoundError for an unknown or deleted graph (or one that did not exist at `asOf`);
 *   ValidationError for a malformed `asOf`.
 */
export async function graphGroups(runtime: GraphRuntime, idOrName: string, asOf?: string): Promise<GraphGroups> {
  const view = await readGraphView(runtime, idOrName, asOf);
  const byKey = new Map<string, NodeGroup>();
  const groupOfNode = new Map<string, NodeGroup>();
  view.forEachNode((node) => {
    const key = `${node.environment_id ?? ''}\u0000${node.cluster_id ?? ''}\u0000${node.node_type}`;
    let group = byKey.get(key);
    if (!group) {
      group = {
        environment_id: node.environment_id ?? null,
        cluster_id: node.cluster_id ?? null,
        node_type: node.node_type,
        node_count: 0,
      };
      byKey.set(key, group);
    }
    group.node_count++;
    groupOfNode.set(node.id, group);
  });
  const text = (value: string | null) => value ?? '';
  const groups = [...byKey.values()].sort(
    (a, b) =>
      text(a.environment_id).localeCompare(text(b.environment_id)) ||
      text(a.cluster_id).localeCompare(text(b.cluster_id)) ||
      a.node_type.localeCompare(b.node_type),
  );
  const indexOf = new Map(groups.map((group, index) => [group, index]));
  const linkCounts = new Map<number, number>();
  view.forEachEdge((edge) => {
    const source = groupOfNode.get(edge.src_id);
    const target = groupOfNode.get(edge.dst_id);
    if (!source || !target) return;
    const key = indexOf.get(source)! * groups.length + indexOf.get(target)!;
    linkCounts.set(key, (linkCounts.get(key) ?? 0) + 1);
  });
  const links = [...linkCounts.entries()]
    .map(([key, edgeCount]) => ({
      source: Math.floor(key / groups.length),
      target: key % groups.length,
      edge_count: edgeCount,
    }))
    .sort((a, b) => a.source - b.source || a.target - b.target);
  return {
    graph_id: view.graphId,
    revision: view.revision,
    node_count: view.nodeCount,
    edge_count: view.edgeCount,
    groups,
    links,
  };
}
