/**
 * A read-optimised adjacency index of one revision of a graph, for traversals on large graphs.
 *
 * The graphology walk (`walk.ts`) pays for graphology's adjacency: every node's neighbours are
 * an object keyed by neighbour id, enumerated with `for...in`, and each reached node becomes a new
 * object that `JSON.stringify` then walks again. On the 100,000-node benchmark graph that is 2.2 µs
 * per reached node for the walk and 3.9 µs per KB of answer for the serialisation.
 *
 * This index numbers the nodes 0..n-1 and stores each direction's adjacency in compressed sparse
 * row form: `offsets[v]..offsets[v + 1]` are the positions, in `neighbours` and `edges`, of node `v`'s
 * edges. A walk is then integer arithmetic over typed arrays, with a generation-stamped visited
 * array instead of a `Set`. Answers are assembled from the UTF-8 JSON of each node and edge,
 * serialised once (on first use, or ahead by `warm`) and kept outside the JavaScript heap for the
 * life of the index (`jsonFragments.ts`), into a reused buffer (`answers.ts`). The index is immutable, like the
 * revision it was built from.
 *
 * The index reaches the same nodes, hops and edges as the graphology walk. Within one hop the order
 * may differ: the index keeps each node's edges in the order they were added, graphology groups
 * them by neighbour. `scheduler.ts` decides when an index is built and when it is
 * stale; graphs "as of" a past point are always walked with graphology.
 *
 * Measured (bench/api.ts, 100k nodes / 300k edges): building takes 0.2 to 0.4 s (`buildInSteps`
 * cuts it into steps) and about 10 MB of heap; warming every fragment takes 1 to 1.4 s and about
 * 80 MB outside the heap. A 10-hop answer
 * of 2,000 nodes and 5,500 edges (1.6 MB) is assembled in under 4 ms.
 */
import type { Edge, Node } from '../../src/graph/model.js';
import type { LineageGraphology } from '../graphProjection.js';
import type { PooledBytes, Traversal, WholeGraph } from './answers.js';
import { FragmentArena, FragmentCache, JsonAnswer, type FragmentBudget } from './jsonFragments.js';
import { checkTraversal, MAX_TRAVERSAL_HOPS, reached, type TraversalDirection, type TraversalResult } from './walk.js';

/**
 * Default bytes of JSON fragments that the indexes of one projection may cache together, outside
 * the JavaScript heap (256 MiB). The 100k-node / 300k-edge benchmark graph needs about 80 MiB to
 * cache every node and edge.
 */
export const TRAVERSAL_FRAGMENT_BUDGET = 256 * 2 ** 20;

const ORIGIN_START = Buffer.from('{"origin":');
const EDGES_START = Buffer.from('],"edges":[');
const CLOSE = Buffer.from('}');
const CLOSE_AND_COMMA = Buffer.from('},');
const CLOSE_LIST_AND_OBJECT = Buffer.from(']}');
/** `,"hop":N},` and `,"hop":N}` for every hop a traversal may reach, made once. */
const HOP_ENDINGS = Array.from(
  { length: MAX_TRAVERSAL_HOPS + 1 },
  (_, hop) => [Buffer.from(`,"hop":${hop}}`), Buffer.from(`,"hop":${hop}},`)] as const,
);

/** The bytes that close a reached node's fragment: its hop, then a comma unless it is the last. */
function hopEnding(hop: number, comma: boolean): Buffer {
  return HOP_ENDINGS[hop]![comma ? 1 : 0];
}

/** One direction's adjacency in compressed sparse row form. */
interface Adjacency {
  /** `offsets[v]` is where node `v`'s edges start in `neighbours` and `edges`; length n + 1. */
  offsets: Int32Array;
  /** The node at the other end of each edge (the target downstream, the source upstream). */
  neighbours: Int32Array;
  /** Index into `TraversalIndex.edges` of each edge. */
  edges: Int32Array;
}

/**
 * The adjacency of `from[e] -> to[e]` for every edge `e`, grouped by `from` (a counting sort, stable:
 * a node's edges stay in edge order).
 */
function compressedRows(nodeCount: number, from: Int32Array, to: Int32Array): Adjacency {
  const offsets = new Int32Array(nodeCount + 1);
  for (const node of from) offsets[node + 1]! += 1;
  for (let node = 0; node < nodeCount; node += 1) offsets[node + 1]! += offsets[node]!;
  const next = offsets.slice(0, nodeCount);
  const neighbours = new Int32Array(from.length);
  const edges = new Int32Array(from.length);
  for (let edge = 0; edge < from.length; edge += 1) {
    const position = next[from[edge]!]!++;
    neighbours[position] = to[edge]!;
    edges[position] = edge;
  }
  return { offsets, neighbours, edges };
}

/** What a walk reached, as indexes: nodes in the order reached, each with its hop, and the edges followed. */
interface Walk {
  origin: number;
  nodes: number[];
  hops: number[];
  edges: number[];
}

/** An immutable traversal index of one revision of one graph. */
export class TraversalIndex {
  /** Stream revision of the graph the index was built from. */
  readonly revision: number;
  readonly #indexOf: Map<string, number>;
  readonly #nodes: Node[];
  readonly #edges: Edge[];
  readonly #downstream: Adjacency;
  readonly #upstream: Adjacency;
  /** Where the fragments' bytes are. */
  readonly #arena: FragmentArena;
  /** `JSON.stringify(node)` without its closing brace, cached on first use. */
  readonly #nodeFragments: FragmentCache;
  /** `JSON.stringify(edge)` followed by a comma, cached on first use. */
  readonly #edgeFragments: FragmentCache;
  /** Visited marks: `visited[v] === generation` when `v` was reached by the current walk. */
  readonly #visited: Uint32Array;
  #generation = 0;
  /** Items `warm` has gone through: nodes first, then edges. */
  #warmed = 0;

  private constructor(
    revision: number,
    indexOf: Map<string, number>,
    nodes: Node[],
    edges: Edge[],
    downstream: Adjacency,
    upstream: Adjacency,
    fragmentBudget: FragmentBudget | number,
  ) {
    this.revision = revision;
    this.#indexOf = indexOf;
    this.#nodes = nodes;
    this.#edges = edges;
    this.#downstream = downstream;
    this.#upstream = upstream;
    const arena = new FragmentArena(fragmentBudget);
    this.#arena = arena;
    this.#nodeFragments = new FragmentCache(nodes.length, arena, (node) => JSON.stringify(nodes[node]).slice(0, -1));
    this.#edgeFragments = new FragmentCache(edges.length, arena, (edge) => `${JSON.stringify(edges[edge])},`);
    this.#visited = new Uint32Array(nodes.length);
  }

  /**
   * Builds the index of `graph` as it is now; `revision` is the graph's stream revision, recorded
   * so that the owner can tell when the index is stale. O(nodes + edges).
   * @param fragmentBudget where the index's JSON fragments take their bytes: a budget shared with
   *   other indexes, or bytes of its own (default `TRAVERSAL_FRAGMENT_BUDGET`); past it, fragments
   *   are serialised afresh for each answer.
   */
  static build(
    graph: LineageGraphology,
    revision: number,
    fragmentBudget: FragmentBudget | number = TRAVERSAL_FRAGMENT_BUDGET,
  ): TraversalIndex {
    const steps = TraversalIndex.buildInSteps(graph, revision, fragmentBudget);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /**
   * `build` in steps of about `itemsPerStep` nodes or edges, so that a large graph can be indexed
   * between requests (the generator returns the index). The graph must not change between two
   * steps: the caller checks the graph's revision before each one and drops the build when it
   * changed (`GraphProjection.prepareTraversalIndexes` does).
   */
  static *buildInSteps(
    graph: LineageGraphology,
    revision: number,
    fragmentBudget: FragmentBudget | number = TRAVERSAL_FRAGMENT_BUDGET,
    itemsPerStep = 16_384,
  ): Generator<undefined, TraversalIndex, void> {
    const indexOf = new Map<string, number>();
    const nodes: Node[] = [];
    for (const { node: id, attributes: node } of graph.nodeEntries()) {
      indexOf.set(id, nodes.length);
      nodes.push(node);
      if (nodes.length % itemsPerStep === 0) yield;
    }
    // One pass over graphology's edge map (far cheaper than each node's adjacency object), then a
    // counting sort per direction: each node's edges keep the order in which they were added.
    const edges: Edge[] = [];
    const sources = new Int32Array(graph.size);
    const targets = new Int32Array(graph.size);
    for (const { attributes: edge, source, target } of graph.edgeEntries()) {
      sources[edges.length] = indexOf.get(source)!;
      targets[edges.length] = indexOf.get(target)!;
      edges.push(edge);
      if (edges.length % itemsPerStep === 0) yield;
    }
    const downstream = compressedRows(nodes.length, sources, targets);
    yield;
    const upstream = compressedRows(nodes.length, targets, sources);
    return new TraversalIndex(revision, indexOf, nodes, edges, downstream, upstream, fragmentBudget);
  }

  /** Number of nodes indexed. */
  get order(): number {
    return this.#nodes.length;
  }

  /**
   * Gives the fragments' bytes back to the budget; the index caches nothing more (it still answers,
   * serialising what is not cached). Called when the index is replaced or its graph deleted.
   */
  dispose(): void {
    this.#arena.dispose();
  }

  /** True once `warm` has gone through every node and edge. */
  get warmed(): boolean {
    return this.#warmed >= this.#nodes.length + this.#edges.length;
  }

  /**
   * Serialises the fragments of nodes and edges not served yet, for about `milliseconds` at most
   * (checked every 256 items), so that first answers cost no more than later ones. Call it again
   * until it answers true. A fragment too large to cache is skipped; once the fragment budget is
   * spent, the rest is left to serialise per answer.
   * About 0.3 s in all for the 100k-node / 300k-edge benchmark graph.
   */
  warm(milliseconds: number): boolean {
    const deadline = performance.now() + milliseconds;
    const nodeCount = this.#nodes.length;
    const total = nodeCount + this.#edges.length;
    while (this.#warmed < total) {
      const item = this.#warmed;
      const cached = item < nodeCount ? this.#nodeFragments.warm(item) : this.#edgeFragments.warm(item - nodeCount);
      this.#warmed = !cached && this.#arena.spent ? total : item + 1;
      if ((this.#warmed & 255) === 0 && performance.now() >= deadline) break;
    }
    return this.warmed;
  }

  /**
   * Walks from `originId` now and answers the traversal as a value: the same answer as
   * `traverse(graph, originId, direction, hops)` (`walk.ts`) on the graph the index was built from.
   * Its `serialise` assembles the JSON from cached fragments without building the objects.
   * @throws NotFoundError when the origin is not in the graph; ValidationError for hops outside 1..100.
   */
  traversal(originId: string, direction: TraversalDirection, hops: number): Traversal {
    const walk = this.#walk(originId, direction, hops);
    return {
      direction,
      hops,
      nodeCount: walk.nodes.length,
      edgeCount: walk.edges.length,
      toResult: () => this.#result(walk, direction, hops),
      serialise: () => this.#json(walk, direction, hops),
    };
  }

  /**
   * `traversal(originId, direction, hops).toResult()`.
   * @throws NotFoundError when the origin is not in the graph; ValidationError for hops outside 1..100.
   */
  traverse(originId: string, direction: TraversalDirection, hops: number): TraversalResult {
    return this.traversal(originId, direction, hops).toResult();
  }

  /**
   * `traversal(originId, direction, hops).serialise()`: the JSON of `traverse` as UTF-8 bytes (the
   * same values; only the order of keys may differ). Call `release` once they have been sent.
   * @throws NotFoundError when the origin is not in the graph; ValidationError for hops outside 1..100.
   */
  traverseJson(originId: string, direction: TraversalDirection, hops: number): PooledBytes {
    return this.traversal(originId, direction, hops).serialise();
  }

  /**
   * The whole graph as a value, with `fields` (e.g. a graph summary) before its nodes and edges;
   * its `serialise` is `graphJson(fields)`.
   */
  wholeGraph(fields: Record<string, unknown> = {}): WholeGraph {
    return { fields, serialise: () => this.graphJson(fields) };
  }

  /** The objects of a walk's answer. */
  #result(walk: Walk, direction: TraversalDirection, hops: number): TraversalResult {
    const nodes = walk.nodes.map((node, position) => reached(this.#nodes[node]!, walk.hops[position]!));
    const edges = walk.edges.map((edge) => this.#edges[edge]!);
    return {
      origin: this.#nodes[walk.origin]!,
      direction,
      hops,
      nodes,
      edges,
      node_count: nodes.length,
      edge_count: edges.length,
    };
  }

  /** The JSON of a walk's answer, assembled from the fragments into a pooled buffer. */
  #json(walk: Walk, direction: TraversalDirection, hops: number): PooledBytes {
    const answer = new JsonAnswer();
    answer.literal(ORIGIN_START);
    this.#nodeFragments.appendTo(answer, walk.origin);
    answer.text(`},"direction":"${direction}","hops":${hops},"nodes":[`);
    const last = walk.nodes.length - 1;
    for (let position = 0; position <= last; position += 1) {
      this.#nodeFragments.appendTo(answer, walk.nodes[position]!);
      answer.literal(hopEnding(walk.hops[position]!, position < last));
    }
    answer.literal(EDGES_START);
    // Edge fragments end with a comma, which the last one drops.
    for (let position = 0; position < walk.edges.length; position += 1) {
      this.#edgeFragments.appendTo(answer, walk.edges[position]!, position === walk.edges.length - 1 ? 1 : 0);
    }
    answer.text(`],"node_count":${walk.nodes.length},"edge_count":${walk.edges.length}}`);
    return answer.toBytes();
  }

  /**
   * The JSON of the whole graph: `{...fields, "nodes": [...], "edges": [...]}`, with the nodes and
   * edges in graphology's order (that of `toLineageGraph`), assembled from the cached fragments.
   * `fields` (e.g. a graph summary) come first; without them the answer is a `LineageGraph`.
   * The bytes come from a pool: call `release` once they have been sent.
   */
  graphJson(fields?: Record<string, unknown>): PooledBytes {
    const answer = new JsonAnswer();
    answer.text(
      fields === undefined || Object.keys(fields).length === 0
        ? '{"nodes":['
        : `${JSON.stringify(fields).slice(0, -1)},"nodes":[`,
    );
    const lastNode = this.#nodes.length - 1;
    for (let node = 0; node <= lastNode; node += 1) {
      this.#nodeFragments.appendTo(answer, node);
      answer.literal(node < lastNode ? CLOSE_AND_COMMA : CLOSE);
    }
    answer.literal(EDGES_START);
    const lastEdge = this.#edges.length - 1;
    for (let edge = 0; edge <= lastEdge; edge += 1)
      this.#edgeFragments.appendTo(answer, edge, edge === lastEdge ? 1 : 0);
    answer.literal(CLOSE_LIST_AND_OBJECT);
    return answer.toBytes();
  }

  /** Breadth-first walk, one hop at a time, over every edge type (the semantics of `traverse`). */
  #walk(originId: string, direction: TraversalDirection, hops: number): Walk {
    checkTraversal(direction, hops, this.#indexOf.has(originId), originId);
    const origin = this.#indexOf.get(originId)!;
    const { offsets, neighbours, edges: edgeIndexes } = direction === 'downstream' ? this.#downstream : this.#upstream;
    const visited = this.#visited;
    // A new generation makes every earlier mark stale; on wrap-around, clear the marks once.
    this.#generation = (this.#generation + 1) >>> 0;
    if (this.#generation === 0) {
      visited.fill(0);
      this.#generation = 1;
    }
    const generation = this.#generation;
    visited[origin] = generation;
    const walk: Walk = { origin, nodes: [], hops: [], edges: [] };
    let frontierStart = 0;
    let frontier: number[] = [origin];
    for (let hop = 1; hop <= hops && frontier.length > 0; hop += 1) {
      frontierStart = walk.nodes.length;
      for (const node of frontier) {
        for (let position = offsets[node]!, end = offsets[node + 1]!; position < end; position += 1) {
          walk.edges.push(edgeIndexes[position]!);
          const neighbour = neighbours[position]!;
          if (visited[neighbour] === generation) continue;
          visited[neighbour] = generation;
          walk.nodes.push(neighbour);
          walk.hops.push(hop);
        }
      }
      frontier = walk.nodes.slice(frontierStart);
    }
    return walk;
  }
}
