/**
 * Upstream and downstream traversal of a lineage graph by hops, over every edge type.
 * Built on graphology-traversal's breadth-first search.
 */
import { bfsFromNode } from 'graphology-traversal';
import { NotFoundError, ValidationError } from '../src/errors.js';
import type { Edge, Node } from '../src/graph/model.js';
import type { LineageGraphology } from './graphProjection.js';

export type TraversalDirection = 'upstream' | 'downstream';

/** A node reached by a traversal, with its distance from the origin in hops (1 for a neighbour). */
export type ReachedNode = Node & { hop: number };

/** The result of a traversal (contract section 4: `origin`, `nodes` with `hop`, `edges`, counts). */
export interface TraversalResult {
  origin: Node;
  direction: TraversalDirection;
  hops: number;
  /** Nodes reached, nearest first; the origin is not among them. */
  nodes: ReachedNode[];
  /** Edges followed, i.e. every edge from a node within `hops - 1` towards a reached node. */
  edges: Edge[];
  node_count: number;
  edge_count: number;
}

/** Largest number of hops a traversal may ask for. */
export const MAX_TRAVERSAL_HOPS = 100;

/**
 * Walks from `originId` against (upstream) or along (downstream) edge directions, at most `hops` hops.
 * @throws NotFoundError when the origin is not in the graph; ValidationError for hops outside 1..100.
 */
export function traverse(graph: LineageGraphology, originId: string, direction: TraversalDirection, hops: number): TraversalResult {
  if (!Number.isInteger(hops) || hops < 1 || hops > MAX_TRAVERSAL_HOPS) {
    throw new ValidationError(`hops must be an integer from 1 to ${MAX_TRAVERSAL_HOPS}, got ${hops}`);
  }
  if (!graph.hasNode(originId)) throw new NotFoundError(`node "${originId}" is not in the graph`);
  const mode = direction === 'upstream' ? 'inbound' : 'outbound';
  const nodes: ReachedNode[] = [];
  const edges: Edge[] = [];
  bfsFromNode(
    graph,
    originId,
    (id, node, depth) => {
      if (depth > 0) nodes.push({ ...node, hop: depth });
      if (depth >= hops) return true;
      const collect = (_key: string, edge: Edge) => {
        edges.push(edge);
      };
      if (mode === 'inbound') graph.forEachInEdge(id, collect);
      else graph.forEachOutEdge(id, collect);
      return false;
    },
    { mode },
  );
  return { origin: graph.getNodeAttributes(originId), direction, hops, nodes, edges, node_count: nodes.length, edge_count: edges.length };
}
