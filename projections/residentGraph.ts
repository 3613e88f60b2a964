/**
 * The resident form of a lineage graph (issue 16, item 2): what the graph projection keeps in memory
 * for every live graph, and what the traversal walk, paths, exports and history views read.
 *
 * Nodes are kept in slots, numbered in the order they were added; edges too. Each edge is six
 * numbers in typed arrays (its endpoints' slots, and its links forward and back in its source's list
 * of outgoing edges and in its target's list of incoming edges) beside its `Edge` value; each node
 * six more (its lists' first and last edges, its degrees). A graph of 100,000 nodes and 300,000 edges
 * holds about 10 MB in those arrays (up to half as much again while they grow), where a graphology
 * `MultiDirectedGraph` held about 90 MB more: an edge record, an edge key string and a map entry per
 * edge, and per node two adjacency objects keyed by neighbour ids (one hidden class each).
 *
 * An edge is found by its endpoints and type (the parts of its `edgeKey`): the shorter of its source's
 * outgoing and its target's incoming list is scanned, so that lookups cost the smaller degree. The
 * graph builds no key: the iterations hand over edges with their endpoints' nodes (a key built per
 * edge halved the walks' speed), and a reader that needs a key builds it (`edgeKey`).
 *
 * Where graphology has a method of the same purpose, the name is graphology's (`order`, `hasNode`,
 * `getNodeAttributes`, `addNode`, `inDegree`, `outNeighbors`, ...). The order is graphology's too:
 * nodes and edges in the order they were last added; within a node, edges come in the order they
 * were added (graphology grouped them by neighbour).
 *
 * Removing leaves a free slot; once free slots outnumber half the live ones (and at least
 * `COMPACT_AFTER_FREE_SLOTS`), the slots are renumbered in order. Iterations must not change the
 * graph.
 */
import { NotFoundError } from '../src/errors.js';
import { edgeKey, type Edge, type EdgeKey, type Node } from '../src/graph/model.js';

/** Free slots (nodes or edges) below which a graph is never compacted, by default. */
export const COMPACT_AFTER_FREE_SLOTS = 4_096;

/** How a resident graph is kept. */
export interface ResidentGraphOptions {
  /** Free slots below which it is never compacted (default `COMPACT_AFTER_FREE_SLOTS`; tests set it low). */
  compactAfterFreeSlots?: number;
}

/** An `Int32Array` of at least `length` slots (half as many again as `array`) holding `array`'s values, the new ones -1. */
function grown(array: Int32Array, length: number): Int32Array {
  if (length <= array.length) return array;
  const next = new Int32Array(Math.max(length, Math.ceil(array.length * 1.5), 64)).fill(-1);
  next.set(array);
  return next;
}

/** What the edge iterations call: the edge, and its source's and its target's nodes. */
export type EdgeVisitor = (edge: Edge, sourceNode: Node, targetNode: Node) => void;

/** A directed multigraph of lineage nodes and edges (one edge per source, type and target); see the module. */
export class ResidentGraph {
  readonly #compactAfterFreeSlots: number;
  /** Slot of each node, by id. */
  #slotOf = new Map<string, number>();
  /** Node by slot; undefined once removed. */
  #nodes: Array<Node | undefined> = [];
  #firstOut = new Int32Array(0) as Int32Array;
  #lastOut = new Int32Array(0) as Int32Array;
  #firstIn = new Int32Array(0) as Int32Array;
  #lastIn = new Int32Array(0) as Int32Array;
  #outDegree = new Int32Array(0) as Int32Array;
  #inDegree = new Int32Array(0) as Int32Array;
  /** Edge by slot; undefined once removed. */
  #edges: Array<Edge | undefined> = [];
  #source = new Int32Array(0) as Int32Array;
  #target = new Int32Array(0) as Int32Array;
  #nextOut = new Int32Array(0) as Int32Array;
  #previousOut = new Int32Array(0) as Int32Array;
  #nextIn = new Int32Array(0) as Int32Array;
  #previousIn = new Int32Array(0) as Int32Array;
  #order = 0;
  #size = 0;

  constructor(options: ResidentGraphOptions = {}) {
    this.#compactAfterFreeSlots = options.compactAfterFreeSlots ?? COMPACT_AFTER_FREE_SLOTS;
  }

  /** Number of nodes. */
  get order(): number {
    return this.#order;
  }

  /** Number of edges. */
  get size(): number {
    return this.#size;
  }

  hasNode(id: string): boolean {
    return this.#slotOf.has(id);
  }

  /** The node `id`, or undefined. */
  node(id: string): Node | undefined {
    const slot = this.#slotOf.get(id);
    return slot === undefined ? undefined : this.#nodes[slot];
  }

  /**
   * The node `id`.
   * @throws NotFoundError when the graph has no such node.
   */
  getNodeAttributes(id: string): Node {
    const node = this.node(id);
    if (node === undefined) throw new NotFoundError(`node "${id}" is not in the graph`);
    return node;
  }

  hasEdge(key: string): boolean {
    return this.#slotOfKey(key) !== -1;
  }

  /** The edge of `edgeKey` `key`, or undefined. */
  edge(key: string): Edge | undefined {
    const slot = this.#slotOfKey(key);
    return slot === -1 ? undefined : this.#edges[slot];
  }

  /**
   * The edge from `edge.src_id` to `edge.dst_id` of `edge.edge_type`, or undefined: `edge` by its
   * parts, without building or taking apart its `edgeKey`.
   */
  edgeOf(edge: EdgeKey): Edge | undefined {
    const source = this.#slotOf.get(edge.src_id);
    if (source === undefined) return undefined;
    const target = this.#slotOf.get(edge.dst_id);
    if (target === undefined) return undefined;
    const slot = this.#find(source, edge.edge_type, target);
    return slot === -1 ? undefined : this.#edges[slot];
  }

  /**
   * Adds node `id`, or replaces it (in place: it keeps its position). The node's edges stay. A
   * replacing node is kept with its id set to the string the node was first added with (an equal
   * value; `node` is changed), which the edges share. Answers the node it replaced, or undefined
   * when it is new.
   * @throws Error when `id` is not `node.id`.
   */
  setNode(id: string, node: Node): Node | undefined {
    if (node.id !== id) throw new Error(`node "${node.id}" given as node "${id}"`);
    const slot = this.#slotOf.get(id);
    if (slot !== undefined) {
      const previous = this.#nodes[slot]!;
      node.id = previous.id;
      this.#nodes[slot] = node;
      return previous;
    }
    const added = this.#nodes.length;
    if (added >= this.#firstOut.length) this.#growNodes(added + 1);
    this.#slotOf.set(id, added);
    this.#nodes.push(node);
    this.#order += 1;
    return undefined;
  }

  /**
   * Adds node `id`.
   * @throws Error when the graph has it already.
   */
  addNode(id: string, node: Node): void {
    if (this.#slotOf.has(id)) throw new Error(`node "${id}" is already in the graph`);
    this.setNode(id, node);
  }

  /**
   * Adds `edge` (from node `edge.src_id` to node `edge.dst_id`), or replaces the edge of the same
   * `edgeKey` in place. The edge is kept with its endpoints set to the very id strings of its nodes
   * (equal values; `edge` is changed): the copies decoded with an event, 2 x 70 bytes per edge on
   * long ids, become garbage. Answers false, changing nothing, when either endpoint is not in the graph.
   */
  setEdge(edge: Edge): boolean {
    const source = this.#slotOf.get(edge.src_id);
    const target = this.#slotOf.get(edge.dst_id);
    if (source === undefined || target === undefined) return false;
    edge.src_id = this.#nodes[source]!.id;
    edge.dst_id = this.#nodes[target]!.id;
    const existing = this.#find(source, edge.edge_type, target);
    if (existing !== -1) {
      this.#edges[existing] = edge;
      return true;
    }
    const slot = this.#edges.length;
    if (slot >= this.#source.length) this.#growEdges(slot + 1);
    this.#edges.push(edge);
    this.#source[slot] = source;
    this.#target[slot] = target;
    this.#link(slot, source, target);
    this.#size += 1;
    return true;
  }

  /**
   * Adds `edge`.
   * @throws NotFoundError when an endpoint is missing; Error when the graph has that edge already.
   */
  addEdge(edge: Edge): void {
    const source = this.#slotOf.get(edge.src_id);
    const target = this.#slotOf.get(edge.dst_id);
    if (source === undefined || target === undefined) {
      throw new NotFoundError(`edge "${edgeKey(edge)}" joins a node not in the graph`);
    }
    if (this.#find(source, edge.edge_type, target) !== -1) {
      throw new Error(`edge "${edgeKey(edge)}" is already in the graph`);
    }
    this.setEdge(edge);
  }

  /** Removes node `id` and its edges; answers false when there is no such node. */
  removeNode(id: string): boolean {
    const slot = this.#slotOf.get(id);
    if (slot === undefined) return false;
    while (this.#firstOut[slot] !== -1) this.#dropEdgeSlot(this.#firstOut[slot]!);
    while (this.#firstIn[slot] !== -1) this.#dropEdgeSlot(this.#firstIn[slot]!);
    this.#nodes[slot] = undefined;
    this.#slotOf.delete(id);
    this.#order -= 1;
    this.#compactWhenSparse();
    return true;
  }

  /** Removes the edge from `edge.src_id` to `edge.dst_id` of `edge.edge_type`; answers false when there is none. */
  removeEdge(edge: EdgeKey): boolean {
    const source = this.#slotOf.get(edge.src_id);
    const target = this.#slotOf.get(edge.dst_id);
    const slot = source === undefined || target === undefined ? -1 : this.#find(source, edge.edge_type, target);
    if (slot === -1) return false;
    this.#dropEdgeSlot(slot);
    this.#compactWhenSparse();
    return true;
  }

  /** Removes every node and edge. */
  clear(): void {
    this.#slotOf = new Map();
    this.#nodes = [];
    this.#edges = [];
    this.#order = 0;
    this.#size = 0;
    this.#firstOut =
      this.#lastOut =
      this.#firstIn =
      this.#lastIn =
      this.#outDegree =
      this.#inDegree =
        new Int32Array(0) as Int32Array;
    this.#source =
      this.#target =
      this.#nextOut =
      this.#previousOut =
      this.#nextIn =
      this.#previousIn =
        new Int32Array(0) as Int32Array;
  }

  /** Number of edges into node `id` (0 when there is no such node). */
  inDegree(id: string): number {
    const slot = this.#slotOf.get(id);
    return slot === undefined ? 0 : this.#inDegree[slot]!;
  }

  /** Number of edges out of node `id` (0 when there is no such node). */
  outDegree(id: string): number {
    const slot = this.#slotOf.get(id);
    return slot === undefined ? 0 : this.#outDegree[slot]!;
  }

  /** Calls `callback(node)` for every node, in order. */
  forEachNode(callback: (node: Node) => void): void {
    const nodes = this.#nodes;
    for (let slot = 0; slot < nodes.length; slot += 1) {
      const node = nodes[slot];
      if (node !== undefined) callback(node);
    }
  }

  /** Calls `callback` for every edge, in order. */
  forEachEdge(callback: EdgeVisitor): void {
    const [edges, nodes, sources, targets] = [this.#edges, this.#nodes, this.#source, this.#target];
    for (let slot = 0; slot < edges.length; slot += 1) {
      const edge = edges[slot];
      if (edge !== undefined) callback(edge, nodes[sources[slot]!]!, nodes[targets[slot]!]!);
    }
  }

  /** Calls `callback` for every edge out of node `id` (none when there is no such node), in the order they were added. */
  forEachOutgoing(id: string, callback: EdgeVisitor): void {
    const slot = this.#slotOf.get(id);
    if (slot !== undefined) this.#forEachLinked(this.#firstOut[slot]!, this.#nextOut, callback);
  }

  /** Calls `callback` for every edge into node `id` (none when there is no such node), in the order they were added. */
  forEachIncoming(id: string, callback: EdgeVisitor): void {
    const slot = this.#slotOf.get(id);
    if (slot !== undefined) this.#forEachLinked(this.#firstIn[slot]!, this.#nextIn, callback);
  }

  /** The ids of the targets of node `id`'s outgoing edges, each once, in the order first reached. */
  outNeighbors(id: string): string[] {
    const neighbours = new Set<string>();
    this.forEachOutgoing(id, (_edge, _source, target) => neighbours.add(target.id));
    return [...neighbours];
  }

  /** The ids of the sources of node `id`'s incoming edges, each once, in the order first reached. */
  inNeighbors(id: string): string[] {
    const neighbours = new Set<string>();
    this.forEachIncoming(id, (_edge, source) => neighbours.add(source.id));
    return [...neighbours];
  }

  /** Every node, in order. */
  nodeValues(): Node[] {
    return this.#nodes.filter((node): node is Node => node !== undefined);
  }

  /** Every edge, in order. */
  edgeValues(): Edge[] {
    return this.#edges.filter((edge): edge is Edge => edge !== undefined);
  }

  /**
   * Every edge with the positions of its endpoints among the nodes as `nodeValues` lists them (0 for
   * the first), in order: what an index of the graph over typed arrays is built from, with no id
   * lookups (`projections/traversal/traversalIndex.ts`).
   */
  *edgeEntries(): Generator<{ edge: Edge; sourceIndex: number; targetIndex: number }> {
    const position = this.#nodePositions();
    const edges = this.#edges;
    for (let slot = 0; slot < edges.length; slot += 1) {
      const edge = edges[slot];
      if (edge === undefined) continue;
      yield { edge, sourceIndex: position[this.#source[slot]!]!, targetIndex: position[this.#target[slot]!]! };
    }
  }

  /** Each slot's position among the live nodes (the slot itself when none is free). */
  #nodePositions(): Int32Array {
    const positions = new Int32Array(this.#nodes.length);
    let position = 0;
    for (let slot = 0; slot < this.#nodes.length; slot += 1)
      if (this.#nodes[slot] !== undefined) positions[slot] = position++;
    return positions;
  }

  /** The slot of the edge of `edgeKey` `key`, or -1. Ids hold no control characters, so a key has exactly two tabs. */
  #slotOfKey(key: string): number {
    const first = key.indexOf('\t');
    const second = first === -1 ? -1 : key.indexOf('\t', first + 1);
    if (second === -1) return -1;
    const source = this.#slotOf.get(key.slice(0, first));
    if (source === undefined) return -1;
    const target = this.#slotOf.get(key.slice(second + 1));
    if (target === undefined) return -1;
    return this.#find(source, key.slice(first + 1, second), target);
  }

  /**
   * The slot of the edge of `type` from slot `source` to slot `target`, or -1: the shorter adjacency
   * list is scanned, newest edge first (an edge is most often looked up just after it was added: the
   * history index reads each edge an event added, `projections/historyIndex.ts`).
   */
  #find(source: number, type: string, target: number): number {
    const edges = this.#edges;
    if (this.#outDegree[source]! <= this.#inDegree[target]!) {
      const [previous, targets] = [this.#previousOut, this.#target];
      for (let slot = this.#lastOut[source]!; slot !== -1; slot = previous[slot]!) {
        if (targets[slot] === target && edges[slot]!.edge_type === type) return slot;
      }
    } else {
      const [previous, sources] = [this.#previousIn, this.#source];
      for (let slot = this.#lastIn[target]!; slot !== -1; slot = previous[slot]!) {
        if (sources[slot] === source && edges[slot]!.edge_type === type) return slot;
      }
    }
    return -1;
  }

  /** Calls `callback` for the edges of a list from `first`. */
  #forEachLinked(first: number, next: Int32Array, callback: EdgeVisitor): void {
    const [edges, nodes, sources, targets] = [this.#edges, this.#nodes, this.#source, this.#target];
    for (let slot = first; slot !== -1;) {
      const following = next[slot]!;
      callback(edges[slot]!, nodes[sources[slot]!]!, nodes[targets[slot]!]!);
      slot = following;
    }
  }

  /** Appends edge `slot` to its source's outgoing and its target's incoming list. */
  #link(slot: number, source: number, target: number): void {
    const lastOut = this.#lastOut[source]!;
    this.#previousOut[slot] = lastOut;
    this.#nextOut[slot] = -1;
    if (lastOut === -1) this.#firstOut[source] = slot;
    else this.#nextOut[lastOut] = slot;
    this.#lastOut[source] = slot;
    this.#outDegree[source]! += 1;
    const lastIn = this.#lastIn[target]!;
    this.#previousIn[slot] = lastIn;
    this.#nextIn[slot] = -1;
    if (lastIn === -1) this.#firstIn[target] = slot;
    else this.#nextIn[lastIn] = slot;
    this.#lastIn[target] = slot;
    this.#inDegree[target]! += 1;
  }

  #dropEdgeSlot(slot: number): void {
    const [source, target] = [this.#source[slot]!, this.#target[slot]!];
    const [previousOut, nextOut] = [this.#previousOut[slot]!, this.#nextOut[slot]!];
    if (previousOut === -1) this.#firstOut[source] = nextOut;
    else this.#nextOut[previousOut] = nextOut;
    if (nextOut === -1) this.#lastOut[source] = previousOut;
    else this.#previousOut[nextOut] = previousOut;
    this.#outDegree[source]! -= 1;
    const [previousIn, nextIn] = [this.#previousIn[slot]!, this.#nextIn[slot]!];
    if (previousIn === -1) this.#firstIn[target] = nextIn;
    else this.#nextIn[previousIn] = nextIn;
    if (nextIn === -1) this.#lastIn[target] = previousIn;
    else this.#previousIn[nextIn] = previousIn;
    this.#inDegree[target]! -= 1;
    this.#edges[slot] = undefined;
    this.#size -= 1;
  }

  #growNodes(length: number): void {
    this.#firstOut = grown(this.#firstOut, length);
    this.#lastOut = grown(this.#lastOut, length);
    this.#firstIn = grown(this.#firstIn, length);
    this.#lastIn = grown(this.#lastIn, length);
    const degrees = this.#firstOut.length;
    const [outDegree, inDegree] = [new Int32Array(degrees), new Int32Array(degrees)];
    outDegree.set(this.#outDegree);
    inDegree.set(this.#inDegree);
    [this.#outDegree, this.#inDegree] = [outDegree, inDegree];
  }

  #growEdges(length: number): void {
    this.#source = grown(this.#source, length);
    this.#target = grown(this.#target, length);
    this.#nextOut = grown(this.#nextOut, length);
    this.#previousOut = grown(this.#previousOut, length);
    this.#nextIn = grown(this.#nextIn, length);
    this.#previousIn = grown(this.#previousIn, length);
  }

  /** Renumbers the slots in order once free ones outnumber half the live ones (see the module). */
  #compactWhenSparse(): void {
    const freeNodes = this.#nodes.length - this.#order;
    const freeEdges = this.#edges.length - this.#size;
    const sparse = (free: number, live: number) => free >= this.#compactAfterFreeSlots && free * 2 > live;
    if (sparse(freeNodes, this.#order) || sparse(freeEdges, this.#size)) this.#compact();
  }

  #compact(): void {
    const position = this.#nodePositions();
    const nodes = this.nodeValues();
    const [edges, sources, targets]: [Edge[], number[], number[]] = [[], [], []];
    for (let slot = 0; slot < this.#edges.length; slot += 1) {
      const edge = this.#edges[slot];
      if (edge === undefined) continue;
      edges.push(edge);
      sources.push(position[this.#source[slot]!]!);
      targets.push(position[this.#target[slot]!]!);
    }
    const slotOf = new Map<string, number>();
    for (const [id, slot] of this.#slotOf) slotOf.set(id, position[slot]!);
    this.clear();
    this.#slotOf = slotOf;
    this.#nodes = nodes;
    this.#order = nodes.length;
    this.#growNodes(nodes.length);
    this.#growEdges(edges.length);
    this.#edges = edges;
    this.#size = edges.length;
    for (let slot = 0; slot < edges.length; slot += 1) {
      this.#source[slot] = sources[slot]!;
      this.#target[slot] = targets[slot]!;
      this.#link(slot, sources[slot]!, targets[slot]!);
    }
  }
}
