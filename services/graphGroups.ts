/**
 * The grouped overview of a graph (issue 27, "grouped overview first"): its nodes counted per
 * environment, cluster and node type, and its edges counted per pair of such groups, so that the web
 * UI draws a picture of a graph of 100,000 nodes from an answer of a few kilobytes while the whole
 * graph is fetched. Read from the projections (`readGraphView`: now, or as of a revision or time);
 * nothing is appended.
 *
 * The counts are made once per graph revision (a pass over every node and edge) and kept: a graph's
 * content at a revision never changes, so every caller of that revision, concurrent ones included,
 * is answered from the same counts, and a new revision (a write) is counted afresh on its first call.
 * Answers with `maxGroups` merge the kept counts (clusters into their environment, then environments).
 */
import { readGraphView, type GraphRuntime } from './graphs.js';

/** Nodes of one environment, cluster and type (null ids: nodes outside any environment or cluster, or merged). */
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

/**
 * How far groups were merged to stay within `maxGroups`: `none` (a group is an environment, a
 * cluster and a type), `clusters` (an environment and a type: cluster ids are null), `environments`
 * (a type: environment and cluster ids are null).
 */
export type GroupMerge = 'none' | 'clusters' | 'environments';

/** The grouped overview: groups sorted by environment, cluster, then type; links by source then target. */
export interface GraphGroups {
  graph_id: string;
  revision: number;
  node_count: number;
  edge_count: number;
  merged: GroupMerge;
  groups: NodeGroup[];
  links: GroupLink[];
}

/** Counts of one graph revision, and the answers made from them, by `maxGroups` (`all` without). */
interface RevisionGroups {
  counts: GraphGroups;
  answers: Map<number | 'all', GraphGroups>;
}

/**
 * Most graph revisions whose counts are kept per runtime (the least recently asked is dropped). The
 * counts of a 100,000-node graph of 600 groups and 56,000 links weigh a few megabytes.
 */
export const KEPT_REVISIONS = 8;

/** Most answers (distinct `maxGroups`) kept per revision; the oldest made is dropped first. */
const KEPT_ANSWERS = 4;

/** Counts kept per runtime (its graph projection), by `{graphId}@{revision}`, least recently asked first. */
const countsByRuntime = new WeakMap<GraphRuntime['graphs'], Map<string, RevisionGroups>>();

/**
 * A graph's nodes counted per environment, cluster and node type, and its edges per pair of groups,
 * now or as of `asOf`. With `maxGroups`, groups are merged until at most that many are left:
 * clusters into their environment first, then environments (fewer groups than there are node types
 * cannot be reached: the answer then has one group per type). Answers are kept per graph revision:
 * the same question about the same revision answers the same object (callers must not change it).
 * @throws NotFoundError for an unknown or deleted graph (or one that did not exist at `asOf`);
 *   ValidationError for a malformed `asOf`.
 */
export async function graphGroups(
  runtime: GraphRuntime,
  idOrName: string,
  asOf?: string,
  options: { maxGroups?: number | undefined } = {},
): Promise<GraphGroups> {
  const view = await readGraphView(runtime, idOrName, asOf);
  let kept = countsByRuntime.get(runtime.graphs);
  if (!kept) countsByRuntime.set(runtime.graphs, (kept = new Map()));
  const key = `${view.graphId}@${view.revision}`;
  let revision = kept.get(key);
  if (revision) kept.delete(key);
  else revision = { counts: countGroups(view), answers: new Map() };
  kept.set(key, revision);
  for (const oldest of kept.keys()) {
    if (kept.size <= KEPT_REVISIONS) break;
    kept.delete(oldest);
  }
  const answerKey = options.maxGroups ?? 'all';
  let answer = revision.answers.get(answerKey);
  if (!answer) {
    // A few answers per revision (the UI asks for one): a caller naming a new max_groups each time
    // must not grow the memory kept.
    if (revision.answers.size >= KEPT_ANSWERS) revision.answers.delete(revision.answers.keys().next().value!);
    revision.answers.set(answerKey, (answer = mergeGroups(revision.counts, options.maxGroups)));
  }
  return answer;
}

/** The key of a group: its environment, cluster and node type (null ids as empty text). */
const groupKey = (environmentId: string | null | undefined, clusterId: string | null | undefined, nodeType: string) =>
  `${environmentId ?? ''}\u0000${clusterId ?? ''}\u0000${nodeType}`;

/** One pass over the view's nodes, then its edges. */
function countGroups(view: Awaited<ReturnType<typeof readGraphView>>): GraphGroups {
  const byKey = new Map<string, NodeGroup>();
  const groupOfNode = new Map<string, NodeGroup>();
  view.forEachNode((node) => {
    const key = groupKey(node.environment_id, node.cluster_id, node.node_type);
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
  const groups = sortGroups([...byKey.values()]);
  const indexOf = new Map(groups.map((group, index) => [group, index]));
  const linkCounts = new Map<number, number>();
  view.forEachEdge((edge) => {
    const source = groupOfNode.get(edge.src_id);
    const target = groupOfNode.get(edge.dst_id);
    if (!source || !target) return;
    const key = indexOf.get(source)! * groups.length + indexOf.get(target)!;
    linkCounts.set(key, (linkCounts.get(key) ?? 0) + 1);
  });
  return {
    graph_id: view.graphId,
    revision: view.revision,
    node_count: view.nodeCount,
    edge_count: view.edgeCount,
    merged: 'none',
    groups,
    links: linksOf(linkCounts, groups.length),
  };
}

/** Groups by environment, cluster, then type (null ids first). */
function sortGroups(groups: NodeGroup[]): NodeGroup[] {
  const text = (value: string | null) => value ?? '';
  return groups.sort(
    (a, b) =>
      text(a.environment_id).localeCompare(text(b.environment_id)) ||
      text(a.cluster_id).localeCompare(text(b.cluster_id)) ||
      a.node_type.localeCompare(b.node_type),
  );
}

/** Links from counts keyed `source * groupCount + target`, by source then target. */
function linksOf(linkCounts: Map<number, number>, groupCount: number): GroupLink[] {
  return [...linkCounts.entries()]
    .map(([key, edgeCount]) => ({
      source: Math.floor(key / groupCount),
      target: key % groupCount,
      edge_count: edgeCount,
    }))
    .sort((a, b) => a.source - b.source || a.target - b.target);
}

/** The ways of merging, finest first: each maps a group to the group it is counted in. */
const MERGES: { merged: GroupMerge; groupOf: (group: NodeGroup) => NodeGroup }[] = [
  { merged: 'none', groupOf: (group) => group },
  { merged: 'clusters', groupOf: (group) => ({ ...group, cluster_id: null }) },
  { merged: 'environments', groupOf: (group) => ({ ...group, environment_id: null, cluster_id: null }) },
];

/** `counts` with groups merged (clusters, then environments) until at most `maxGroups` are left; `counts` itself when they fit. */
function mergeGroups(counts: GraphGroups, maxGroups: number | undefined): GraphGroups {
  if (maxGroups === undefined || counts.groups.length <= maxGroups) return counts;
  let merged: { groups: NodeGroup[]; mergedOf: Int32Array } | undefined;
  let way = MERGES[0]!;
  for (way of MERGES.slice(1)) {
    const byKey = new Map<string, NodeGroup>();
    // The merged group each group is counted in, in the order of `counts.groups`.
    const into = counts.groups.map((group) => {
      const target = way.groupOf(group);
      const key = groupKey(target.environment_id, target.cluster_id, target.node_type);
      let known = byKey.get(key);
      if (known) known.node_count += group.node_count;
      else byKey.set(key, (known = { ...target }));
      return known;
    });
    const groups = sortGroups([...byKey.values()]);
    const indexOf = new Map(groups.map((group, index) => [group, index]));
    merged = { groups, mergedOf: Int32Array.from(into, (group) => indexOf.get(group)!) };
    if (groups.length <= maxGroups) break;
  }
  const { groups, mergedOf } = merged!;
  const linkCounts = new Map<number, number>();
  for (const link of counts.links) {
    const key = mergedOf[link.source]! * groups.length + mergedOf[link.target]!;
    linkCounts.set(key, (linkCounts.get(key) ?? 0) + link.edge_count);
  }
  return { ...counts, merged: way.merged, groups, links: linksOf(linkCounts, groups.length) };
}
