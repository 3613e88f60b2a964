/**
 * The shortest path between two nodes of a lineage graph (`GET /graphs/{graph_id}/path`,
 * `docs/api.md`): a breadth-first search that follows edge directions from `from` to `to`
 * (`downstream`), and when there is no such path, from `to` to `from` (`upstream`: `from` is then
 * downstream of `to`). Edge types are all alike; one hop is one edge. The search runs over
 * the resident graph's edge iterators, like the traversal walk (`walk.ts`), so it answers for any revision
 * (`as_of` included); it stops as soon as the target is reached and visits each node at most once.
 */
import { NotFoundError } from '../../src/errors.js';
import type { Edge, Node } from '../../src/graph/model.js';
import type { ResidentGraph } from '../residentGraph.js';

/** Which way a path runs: along edge directions from `from` (`downstream`) or against them (`upstream`). */
export type PathDirection = 'downstream' | 'upstream';

/** The shortest path between two nodes, or none. */
export interface PathResult {
  /** The nodes of the path in order from `from` to `to`, both included; empty when they are not connected. */
  nodes: Node[];
  /** One edge per hop, in the order of `nodes`, each as stored (its own `src_id` and `dst_id`). */
  edges: Edge[];
  /** `downstream` when the edges run from `from` to `to`, `upstream` when they run from `to` to `from`; null when not connected. */
  direction: PathDirection | null;
}

/**
 * The shortest directed path from `fromId` to `toId`, else from `toId` to `fromId` (listed from
 * `fromId` all the same); from a node to itself, the node alone (`downstream`). Among paths of
 * equal length, the one whose edges were added first.
 * @throws NotFoundError naming the node when `fromId` or `toId` is not in the graph (`from` checked first).
 */
export function shortestPath(graph: ResidentGraph, fromId: string, toId: string): PathResult {
  if (!graph.hasNode(fromId)) throw new NotFoundError(`node "${fromId}" (from) is not in the graph`);
  if (!graph.hasNode(toId)) throw new NotFoundError(`node "${toId}" (to) is not in the graph`);
  const downstream = search(graph, fromId, toId);
  if (downstream) return { ...downstream, direction: 'downstream' };
  const upstream = search(graph, toId, fromId);
  if (upstream) return { nodes: upstream.nodes.reverse(), edges: upstream.edges.reverse(), direction: 'upstream' };
  return { nodes: [], edges: [], direction: null };
}

/** Breadth-first search along edge directions; the path from `sourceId` to `targetId`, or null. */
function search(graph: ResidentGraph, sourceId: string, targetId: string): { nodes: Node[]; edges: Edge[] } | null {
  // The edge by which each reached node was first reached, and the node it came from (the source has none).
  const reachedBy = new Map<string, { edge: Edge; from: string } | null>([[sourceId, null]]);
  let frontier = [sourceId];
  while (frontier.length > 0 && !reachedBy.has(targetId)) {
    const next: string[] = [];
    for (const id of frontier) {
      graph.forEachOutgoing(id, (edge, source, target) => {
        if (reachedBy.has(target.id)) return;
        reachedBy.set(target.id, { edge, from: source.id });
        next.push(target.id);
      });
      if (reachedBy.has(targetId)) break;
    }
    frontier = next;
  }
  if (!reachedBy.has(targetId)) return null;
  const nodes: Node[] = [];
  const edges: Edge[] = [];
  for (let at: string | undefined = targetId; at !== undefined;) {
    nodes.push(graph.getNodeAttributes(at));
    const step = reachedBy.get(at);
    if (step) edges.push(step.edge);
    at = step?.from;
  }
  return { nodes: nodes.reverse(), edges: edges.reverse() };
}
