/**
 * A read-optimized adjacency index of one revision of a graph, for traversals on large graphs.
 *
 * The walk over a resident graph (`walk.ts`) follows linked lists of edges and looks up each
 * neighbour's id (and on graphology, which the projection held until issue 16, each node's
 * neighbours were an object keyed by neighbour id: 2.2 µs per reached node on the 100,000-node
 * benchmark graph).
 *
 * This index numbers the nodes 0..n-1 and stores each direction's adjacency in compressed sparse
 * row form: `offsets[v]..offsets[v + 1]` are the positions, in `neighbours` and `edges`, of node `v`'s
 * edges. A walk is then integer arithmetic over typed arrays (scratch arrays reused by every walk),
 * with a generation-stamped visited array instead of a `Set`. An answer is assembled from the UTF-8
 * JSON of its nodes (as reached, with the hop's value spliced in) and edges, each serialized once,
 * when a traversal first reaches it, into `JsonFragments` (`answers.ts`) within a budget shared by
 * every index; the bytes are copied into a reused buffer, byte for byte `JSON.stringify` of the
 * answer's objects. No object per reached node, no answer-sized string: little garbage per request.
 * Past the budget, or once the index was dropped, the answer's objects are `JSON.stringify`ed
 * (`serializeJson`). The index is immutable, like the revision it was built from. (Until November
 * 2026 every fragment was serialized ahead, by a background warm-up, into an arena: about 90 MB more
 * resident memory on the benchmark graphs and 1 to 11 s of CPU after each change; fragments are now
 * cached only as they are asked for; docs/benchmarks.md, "Traversal answers".)
 *
 * The index reaches the same nodes, hops and edges as the walk over the resident graph: both keep
 * each node's edges in the order they were added. `scheduler.ts` decides when an index is built
 * and when it is stale; graphs "as of" a past point are always walked on a resident graph.
 *
 * Measured (bench/api.ts, 100k nodes / 300k edges): building takes 0.2 to 0.4 s on an idle machine
 * (`buildInSteps` cuts it into steps) and about 10 MB of heap.
 */
import type { Edge, Node } from '../../src/graph/model.js';
import type { ResidentGraph } from '../residentGraph.js';
import { answerBuffers, JsonFragments, serializeJson, type PooledBytes, type Traversal } from './answers.js';
import { checkTraversal, reached, type TraversalDirection, type TraversalResult } from './walk.js';

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
  nodes: Int32Array;
  hops: Uint8Array;
  edges: Int32Array;
}

/** The scratch arrays of walks (one walk at a time: walks are synchronous), allocated at the first walk. */
interface WalkScratch {
  /** The origin, then the nodes reached, in order. */
  nodes: Int32Array;
  hops: Uint8Array;
  edges: Int32Array;
}

/** `,"hop":0` as it ends a reached node's JSON before its optional `catalog_type`. */
const HOP_MARK = ',"hop":0';

/** An immutable traversal index of one revision of one graph. */
export class TraversalIndex {
  /** Stream revision of the graph the index was built from. */
  readonly revision: number;
  readonly #indexOf: Map<string, number>;
  readonly #nodes: Node[];
  readonly #edges: Edge[];
  readonly #downstream: Adjacency;
  readonly #upstream: Adjacency;
  /** Visited marks: `visited[v] === generation` when `v` was reached by the current walk. */
  readonly #visited: Uint32Array;
  #generation = 0;
  #scratch: WalkScratch | undefined;
  /** The JSON of each node as reached (`reached(node, 0)`), its mark on the hop's value. */
  readonly #nodeFragments: JsonFragments;
  /** The JSON of each edge. */
  readonly #edgeFragments: JsonFragments;

  private constructor(
    revision: number,
    indexOf: Map<string, number>,
    nodes: Node[],
    edges: Edge[],
    downstream: Adjacency,
    upstream: Adjacency,
  ) {
    this.revision = revision;
    this.#indexOf = indexOf;
    this.#nodes = nodes;
    this.#edges = edges;
    this.#downstream = downstream;
    this.#upstream = upstream;
    this.#visited = new Uint32Array(nodes.length);
    this.#nodeFragments = new JsonFragments(nodes.length);
    this.#edgeFragments = new JsonFragments(edges.length);
  }

  /**
   * Builds the index of `graph` as it is now; `revision` is the graph's stream revision, recorded
   * so that the owner can tell when the index is stale. O(nodes + edges).
   */
  static build(graph: ResidentGraph, revision: number): TraversalIndex {
    const steps = TraversalIndex.buildInSteps(graph, revision);
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
    graph: ResidentGraph,
    revision: number,
    itemsPerStep = 16_384,
  ): Generator<undefined, TraversalIndex, void> {
    const indexOf = new Map<string, number>();
    const nodes: Node[] = [];
    for (const node of graph.nodeValues()) {
      indexOf.set(node.id, nodes.length);
      nodes.push(node);
      if (nodes.length % itemsPerStep === 0) yield;
    }
    // One pass over the graph's edges (their endpoints given as positions among its nodes), then a
    // counting sort per direction: each node's edges keep the order in which they were added.
    const edges: Edge[] = [];
    const sources = new Int32Array(graph.size);
    const targets = new Int32Array(graph.size);
    for (const { edge, sourceIndex, targetIndex } of graph.edgeEntries()) {
      sources[edges.length] = sourceIndex;
      targets[edges.length] = targetIndex;
      edges.push(edge);
      if (edges.length % itemsPerStep === 0) yield;
    }
    const downstream = compressedRows(nodes.length, sources, targets);
    yield;
    const upstream = compressedRows(nodes.length, targets, sources);
    return new TraversalIndex(revision, indexOf, nodes, edges, downstream, upstream);
  }

  /** Number of nodes indexed. */
  get order(): number {
    return this.#nodes.length;
  }

  /**
   * Walks from `originId` now and answers the traversal as a value: the same answer as
   * `traverse(graph, originId, direction, hops)` (`walk.ts`) on the graph the index was built from.
   * @throws NotFoundError when the origin is not in the graph; ValidationError for hops outside 1..100.
   */
  traversal(originId: string, direction: TraversalDirection, hops: number): Traversal {
    const walk = this.#walk(originId, direction, hops);
    const toResult = () => this.#result(walk, direction, hops);
    return {
      direction,
      hops,
      nodeCount: walk.nodes.length,
      edgeCount: walk.edges.length,
      toResult,
      serialize: () => this.#serialize(walk, direction, hops) ?? serializeJson(toResult()),
    };
  }

  /** Bytes held by the cached JSON fragments of this index's nodes and edges. */
  get fragmentBytes(): number {
    return this.#nodeFragments.bytes + this.#edgeFragments.bytes;
  }

  /** Gives the cached JSON fragments' bytes back to the shared budget (the index stays usable). */
  releaseFragments(): void {
    this.#nodeFragments.release();
    this.#edgeFragments.release();
  }

  /**
   * `traversal(originId, direction, hops).toResult()`.
   * @throws NotFoundError when the origin is not in the graph; ValidationError for hops outside 1..100.
   */
  traverse(originId: string, direction: TraversalDirection, hops: number): TraversalResult {
    return this.traversal(originId, direction, hops).toResult();
  }

  /**
   * `traversal(originId, direction, hops).serialize()`: the JSON of `traverse` as UTF-8 bytes in a
   * pooled buffer. Call `release` once they have been sent.
   * @throws NotFoundError when the origin is not in the graph; ValidationError for hops outside 1..100.
   */
  traverseJson(originId: string, direction: TraversalDirection, hops: number): PooledBytes {
    return this.traversal(originId, direction, hops).serialize();
  }

  /** The objects of a walk's answer. */
  #result(walk: Walk, direction: TraversalDirection, hops: number): TraversalResult {
    const nodes = Array.from(walk.nodes, (node, position) => reached(this.#nodes[node]!, walk.hops[position]!));
    const edges = Array.from(walk.edges, (edge) => this.#edges[edge]!);
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

  /**
   * The JSON of `#result(walk, direction, hops)`, byte for byte what `JSON.stringify` gives, copied
   * from the cached fragments of its nodes and edges into a pooled buffer. Undefined when a fragment
   * could not be cached (the shared budget is spent): the caller serializes the objects instead.
   */
  #serialize(walk: Walk, direction: TraversalDirection, hops: number): PooledBytes | undefined {
    if (!this.#cacheFragments(walk)) return undefined;
    const nodeFragments = this.#nodeFragments;
    const edgeFragments = this.#edgeFragments;
    const head = `{"origin":${JSON.stringify(this.#nodes[walk.origin])},"direction":"${direction}","hops":${hops},"nodes":[`;
    const tail = `],"node_count":${walk.nodes.length},"edge_count":${walk.edges.length}}`;
    let length = Buffer.byteLength(head, 'utf8') + '],"edges":['.length + tail.length;
    for (let position = 0; position < walk.nodes.length; position += 1) {
      // The cached fragment holds hop 0: one digit, replaced by the hop's digits.
      length += nodeFragments.length(walk.nodes[position]!) + digits(walk.hops[position]!);
    }
    for (let position = 0; position < walk.edges.length; position += 1)
      length += edgeFragments.length(walk.edges[position]!) + 1;
    const { buffer, release } = answerBuffers.take(length);
    let at = buffer.write(head, 0, 'utf8');
    for (let position = 0; position < walk.nodes.length; position += 1) {
      const node = walk.nodes[position]!;
      if (position > 0) buffer[at++] = COMMA;
      const mark = nodeFragments.mark(node);
      at = nodeFragments.copy(node, buffer, at, 0, mark);
      at = writeHop(buffer, at, walk.hops[position]!);
      at = nodeFragments.copy(node, buffer, at, mark + 1);
    }
    at += buffer.write('],"edges":[', at, 'latin1');
    for (let position = 0; position < walk.edges.length; position += 1) {
      if (position > 0) buffer[at++] = COMMA;
      at = edgeFragments.copy(walk.edges[position]!, buffer, at);
    }
    at += buffer.write(tail, at, 'latin1');
    return { bytes: buffer.subarray(0, at), release };
  }

  /**
   * Caches the fragments of a walk's nodes and edges that are not cached yet, when they are at most
   * `FRAGMENTS_CACHED_PER_ANSWER`; false when there are more (nothing is cached then) or the budget is
   * spent: the answer is then serialized from its objects.
   */
  #cacheFragments(walk: Walk): boolean {
    const nodeFragments = this.#nodeFragments;
    const edgeFragments = this.#edgeFragments;
    let missing = 0;
    for (const node of walk.nodes) if (!nodeFragments.has(node)) missing += 1;
    for (const edge of walk.edges) if (!edgeFragments.has(edge)) missing += 1;
    if (missing > FRAGMENTS_CACHED_PER_ANSWER) return false;
    for (const node of walk.nodes) {
      if (nodeFragments.has(node)) continue;
      const json = JSON.stringify(reached(this.#nodes[node]!, 0));
      // After `attributes`, only `hop` and `catalog_type` (an enum value or null) follow: the last
      // match is the hop's own.
      const mark = json.lastIndexOf(HOP_MARK) + HOP_MARK.length - 1;
      if (!nodeFragments.add(node, json, json.length - mark)) return false;
    }
    for (const edge of walk.edges) {
      if (!edgeFragments.has(edge) && !edgeFragments.add(edge, JSON.stringify(this.#edges[edge]))) return false;
    }
    return true;
  }

  /** The scratch arrays of walks, allocated at the first walk. */
  #walkScratch(): WalkScratch {
    this.#scratch ??= {
      nodes: new Int32Array(this.#nodes.length),
      hops: new Uint8Array(this.#nodes.length),
      edges: new Int32Array(this.#edges.length),
    };
    return this.#scratch;
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
    // Each hop's frontier is the run of `reached` filled by the hop before (the origin first).
    const { nodes: reachedNodes, hops: reachedHops, edges: followed } = this.#walkScratch();
    reachedNodes[0] = origin;
    let reachedCount = 1;
    let followedCount = 0;
    let frontierStart = 0;
    let frontierEnd = 1;
    for (let hop = 1; hop <= hops && frontierStart < frontierEnd; hop += 1) {
      for (let index = frontierStart; index < frontierEnd; index += 1) {
        const node = reachedNodes[index]!;
        for (let position = offsets[node]!, end = offsets[node + 1]!; position < end; position += 1) {
          followed[followedCount++] = edgeIndexes[position]!;
          const neighbour = neighbours[position]!;
          if (visited[neighbour] === generation) continue;
          visited[neighbour] = generation;
          reachedNodes[reachedCount] = neighbour;
          reachedHops[reachedCount] = hop;
          reachedCount += 1;
        }
      }
      frontierStart = frontierEnd;
      frontierEnd = reachedCount;
    }
    return {
      origin,
      nodes: reachedNodes.slice(1, reachedCount),
      hops: reachedHops.slice(1, reachedCount),
      edges: followed.slice(0, followedCount),
    };
  }
}

/**
 * Most fragments one answer caches (1,024). An answer with more fragments not cached yet is
 * serialized from its objects and caches none: the first answer of a large walk costs what it did
 * before fragments (caching each fragment on its own costs more than one `JSON.stringify`), and
 * large answers, whose cost is mostly their size anyway, do not fill the budget. (Caching some and
 * then serializing the objects too was slower than either, in process on both benchmark graphs.)
 */
const FRAGMENTS_CACHED_PER_ANSWER = 1_024;

/** The byte `,`. */
const COMMA = 0x2c;

/** ASCII `0`. */
const DIGIT_ZERO = 0x30;

/** Writes a hop (0 to 100) as ASCII digits into `buffer` at `at`, with no string; answers the position after it. */
function writeHop(buffer: Buffer, at: number, hop: number): number {
  if (hop >= 100) buffer[at++] = DIGIT_ZERO + Math.floor(hop / 100);
  if (hop >= 10) buffer[at++] = DIGIT_ZERO + (Math.floor(hop / 10) % 10);
  buffer[at++] = DIGIT_ZERO + (hop % 10);
  return at;
}

/** Number of decimal digits of a hop (1 to 100). */
function digits(hop: number): number {
  return hop < 10 ? 1 : hop < 100 ? 2 : 3;
}
