/**
 * Traversal and whole-graph answers as values, and their JSON as bytes.
 *
 * A service answers a `Traversal` (walked on the resident graph, or on a traversal index) or a
 * `WholeGraph`; only the HTTP route turns it into bytes, with `serialize`. The bytes are UTF-8 JSON
 * in a reused buffer from `answerBuffers`, given back with `release` once they have been sent.
 */
import type { LineageGraph } from '../../src/graph/model.js';
import type { TraversalDirection, TraversalResult } from './walk.js';

/** Bytes that belong to a pool until `release` is called. */
export interface PooledBytes {
  bytes: Buffer;
  /** Gives the memory back to its pool; the bytes must not be used afterwards. Idempotent. */
  release(): void;
}

/**
 * A traversal's answer (contract section 4), computed already: its counts, its objects on demand,
 * and its JSON.
 */
export interface Traversal {
  readonly direction: TraversalDirection;
  readonly hops: number;
  /** Nodes reached (the origin is not counted). */
  readonly nodeCount: number;
  /** Edges followed. */
  readonly edgeCount: number;
  /** The answer as objects, built on each call. */
  toResult(): TraversalResult;
  /**
   * The JSON of `toResult()` as UTF-8 bytes in a pooled buffer (the same values; only the order of
   * nodes and edges within one hop may differ between a walk and an index). Call `release` once the
   * bytes have been sent.
   */
  serialize(): PooledBytes;
}

/** A whole graph as an answer: `{...fields, "nodes": [...], "edges": [...]}`. */
export interface WholeGraph {
  /** The fields before `nodes` and `edges` (e.g. a graph summary); empty for a bare `LineageGraph`. */
  readonly fields: Readonly<Record<string, unknown>>;
  /** Its JSON as UTF-8 bytes in a pooled buffer. Call `release` once the bytes have been sent. */
  serialize(): PooledBytes;
  /**
   * Its JSON in parts, whose concatenation is `serialize()`'s text: the fields, then the nodes and
   * the edges `WHOLE_GRAPH_PART_ITEMS` at a time (about 1 MB of a 100,000-node graph's 55 MB), so
   * that a route can send a large graph part by part and let other requests run in between (one
   * `JSON.stringify` of the whole holds the event loop for a second or more). The nodes and edges
   * are the values of the answer's point: later writes do not change them.
   */
  jsonParts(): Generator<string, void, undefined>;
}

/** Nodes or edges per part of `WholeGraph.jsonParts`. */
export const WHOLE_GRAPH_PART_ITEMS = 4_000;

/**
 * `prefix` and `JSON.stringify(items)`'s text in parts of `itemsPerPart` items: yields each part
 * but the end, and answers the text still to write (the closing `]`, the whole `prefix[]` for no
 * items), which the caller leads its next part with. The parts and the answer, concatenated, are
 * `prefix + JSON.stringify(items)`.
 */
export function* jsonArrayParts(
  items: readonly unknown[],
  itemsPerPart: number,
  prefix: string,
): Generator<string, string, undefined> {
  let head = `${prefix}[`;
  for (let start = 0; start < items.length; start += itemsPerPart) {
    const part = JSON.stringify(items.slice(start, start + itemsPerPart));
    yield `${head}${start > 0 ? ',' : ''}${part.slice(1, -1)}`;
    head = '';
  }
  return `${head}]`;
}

/** `{...fields, "nodes": [...], "edges": [...]}` as `JSON.stringify` writes it, in parts of `WHOLE_GRAPH_PART_ITEMS` items. */
function* wholeGraphJsonParts(
  graph: LineageGraph,
  fields: Record<string, unknown>,
): Generator<string, void, undefined> {
  const head = JSON.stringify(fields);
  const opening = head === '{}' ? '{' : `${head.slice(0, -1)},`;
  const afterNodes = yield* jsonArrayParts(graph.nodes, WHOLE_GRAPH_PART_ITEMS, `${opening}"nodes":`);
  const afterEdges = yield* jsonArrayParts(graph.edges, WHOLE_GRAPH_PART_ITEMS, `${afterNodes},"edges":`);
  yield `${afterEdges}}`;
}

/** The traversal a walk over a resident graph (`traverse` in `walk.ts`) answered. */
export function walkedTraversal(result: TraversalResult): Traversal {
  return {
    direction: result.direction,
    hops: result.hops,
    nodeCount: result.node_count,
    edgeCount: result.edge_count,
    toResult: () => result,
    serialize: () => serializeJson(result),
  };
}

/**
 * A whole graph from its nodes and edges (e.g. `toLineageGraph` of a projection's state), with
 * `fields` first (default none).
 */
export function plainWholeGraph(graph: LineageGraph, fields: Record<string, unknown> = {}): WholeGraph {
  return {
    fields,
    serialize: () => serializeJson({ ...fields, nodes: graph.nodes, edges: graph.edges }),
    jsonParts: () => wholeGraphJsonParts(graph, fields),
  };
}

/** `JSON.stringify(value)` as UTF-8 bytes in a buffer from `pool` (default `answerBuffers`). */
export function serializeJson(value: unknown, pool: AnswerBufferPool = answerBuffers): PooledBytes {
  return pooledText(JSON.stringify(value), pool);
}

/** `text` (e.g. JSON serialized already) as UTF-8 bytes in a buffer from `pool` (default `answerBuffers`). */
export function pooledText(text: string, pool: AnswerBufferPool = answerBuffers): PooledBytes {
  const length = Buffer.byteLength(text, 'utf8');
  const { buffer, release } = pool.take(length);
  buffer.write(text, 0, length, 'utf8');
  return { bytes: buffer.subarray(0, length), release };
}

/**
 * Reusable buffers for large answers. A fresh multi-megabyte `Buffer` for every answer costs more
 * than building the answer: each is new memory outside the JavaScript heap, which V8 only frees
 * after a garbage collection, and whose growth makes V8 collect. On the 100k-node benchmark, 10-hop
 * traversals answered in fresh buffers had a p99 of 40 to 140 ms; in reused ones, 6 to 15 ms.
 *
 * Answers below `minimumBytes` are allocated as usual (Node pools small buffers itself); answers
 * above `maximumBytes` get a buffer of their own that is not kept.
 */
export class AnswerBufferPool {
  readonly #free: Buffer[] = [];
  readonly #minimumBytes: number;
  readonly #maximumBytes: number;
  readonly #maximumFree: number;

  /**
   * @param options.minimumBytes smallest answer served from the pool (default 64 KiB).
   * @param options.maximumBytes largest buffer the pool keeps (default 16 MiB: at most 64 MiB kept).
   * @param options.maximumFree buffers kept when unused (default 4).
   */
  constructor(options: { minimumBytes?: number; maximumBytes?: number; maximumFree?: number } = {}) {
    this.#minimumBytes = options.minimumBytes ?? 64 * 2 ** 10;
    this.#maximumBytes = options.maximumBytes ?? 16 * 2 ** 20;
    this.#maximumFree = options.maximumFree ?? 4;
  }

  /** Buffers kept for reuse now. */
  get freeCount(): number {
    return this.#free.length;
  }

  /** A buffer of at least `bytes` bytes (contents undefined), and the function that gives it back. */
  take(bytes: number): { buffer: Buffer; release: () => void } {
    if (bytes < this.#minimumBytes || bytes > this.#maximumBytes)
      return { buffer: Buffer.allocUnsafe(bytes), release: () => {} };
    const index = this.#free.findIndex((buffer) => buffer.length >= bytes);
    // Sizes are rounded up to a power of two, so that a few buffers fit most answers.
    const buffer =
      index >= 0 ? this.#free.splice(index, 1)[0]! : Buffer.allocUnsafeSlow(2 ** Math.ceil(Math.log2(bytes)));
    let released = false;
    return {
      buffer,
      release: () => {
        if (released) return;
        released = true;
        if (this.#free.length < this.#maximumFree) this.#free.push(buffer);
      },
    };
  }
}

/** The pool traversal answers use. */
export const answerBuffers = new AnswerBufferPool();

/**
 * Bytes that all `JsonFragments` may hold together (32 MiB). Fragments are cached as traversals reach
 * them, so a server holds only the fragments of the nodes and edges its traversals answered; once the
 * budget is spent, answers that need a fragment not yet cached are serialized as a whole
 * (`serializeJson`), as before fragments existed. The chunks are memory outside the JavaScript heap,
 * which V8 counts: with 64 MiB, their growth set off a full collection of the API server's heap
 * (about 0.5 s with the 100k-node benchmark graph); with 32 MiB it did not (docs/benchmarks.md,
 * "Traversal answers on the layered DAG").
 */
export const TRAVERSAL_FRAGMENT_BUDGET_BYTES = 32 * 2 ** 20;

/** Bytes of the fragment chunks, and of the buffers their bookkeeping takes, held now by every `JsonFragments`. */
let fragmentBytesInUse = 0;

/** Bytes held now by every `JsonFragments` together (chunks and bookkeeping). */
export function traversalFragmentBytes(): number {
  return fragmentBytesInUse;
}

/** Size of a chunk of fragments, in bytes (1 MiB); a larger fragment gets a chunk of its own size. */
const FRAGMENT_CHUNK_BYTES = 2 ** 20;

/** Gives back the bytes of fragments whose owner was collected without `release` being called. */
const unreleasedFragments = new FinalizationRegistry<{ bytes: number }>((held) => {
  fragmentBytesInUse -= held.bytes;
});

/**
 * The UTF-8 JSON of items (the nodes or the edges of one traversal index), each serialized once,
 * when first asked for, into chunks outside the JavaScript heap, within the shared budget
 * `TRAVERSAL_FRAGMENT_BUDGET_BYTES`. An answer is then assembled by copying bytes
 * (`TraversalIndex.traversal(...).serialize()`): no object per reached node, no `JSON.stringify` of
 * the whole answer, no answer-sized string on the heap, so little garbage per request.
 *
 * Each item also records a mark: a position within its fragment (for reached nodes, where the value
 * of `"hop"` goes). Immutable items only: a fragment is never recomputed.
 */
export class JsonFragments {
  readonly #count: number;
  #chunks: Buffer[] = [];
  /** Per item: its chunk plus one (0: not cached yet). */
  #chunkOf: Uint16Array | undefined;
  #offsetOf: Int32Array | undefined;
  #lengthOf: Int32Array | undefined;
  #markOf: Int32Array | undefined;
  /** Bytes of the last chunk in use. */
  #used = 0;
  readonly #held = { bytes: 0 };
  #released = false;

  /** @param count number of items (they are numbered 0..count-1). */
  constructor(count: number) {
    this.#count = count;
    unreleasedFragments.register(this, this.#held, this);
  }

  /** Bytes held (chunks and bookkeeping). */
  get bytes(): number {
    return this.#held.bytes;
  }

  /** Whether item `item`'s fragment is cached. */
  has(item: number): boolean {
    return this.#chunkOf !== undefined && this.#chunkOf[item]! !== 0;
  }

  /**
   * Caches item `item`'s fragment: `json` as UTF-8, with its mark `fromEnd` characters before its
   * end (the characters after the mark must be ASCII, so that the mark's byte position follows
   * without encoding twice). Answers false, caching nothing, when the shared budget is spent or the
   * fragments were released.
   */
  add(item: number, json: string, fromEnd = json.length): boolean {
    if (this.#released) return false;
    // Room for the longest UTF-8 form (3 bytes per UTF-16 unit), so that the string is encoded once.
    const length = json.length * 3;
    let chunk = this.#chunks[this.#chunks.length - 1];
    const fits = chunk !== undefined && chunk.length - this.#used >= length;
    const bookkeeping = this.#chunkOf === undefined ? this.#count * 14 : 0;
    const grow = fits ? 0 : Math.max(FRAGMENT_CHUNK_BYTES, length);
    if (grow + bookkeeping > 0 && fragmentBytesInUse + grow + bookkeeping > TRAVERSAL_FRAGMENT_BUDGET_BYTES)
      return false;
    if (bookkeeping > 0) {
      this.#chunkOf = new Uint16Array(this.#count);
      this.#offsetOf = new Int32Array(this.#count);
      this.#lengthOf = new Int32Array(this.#count);
      this.#markOf = new Int32Array(this.#count);
    }
    // Past 65,535 chunks (64 GiB) nothing more is cached.
    if (!fits && this.#chunks.length >= 0xffff) return false;
    if (!fits) {
      chunk = Buffer.allocUnsafeSlow(grow);
      this.#chunks.push(chunk);
      this.#used = 0;
    }
    this.#hold(grow + bookkeeping);
    const offset = this.#used;
    const written = chunk!.write(json, offset, 'utf8');
    this.#used += written;
    this.#chunkOf![item] = this.#chunks.length;
    this.#offsetOf![item] = offset;
    this.#lengthOf![item] = written;
    this.#markOf![item] = written - fromEnd;
    return true;
  }

  /** Byte length of item `item`'s cached fragment. */
  length(item: number): number {
    return this.#lengthOf![item]!;
  }

  /** Byte position of item `item`'s mark within its fragment. */
  mark(item: number): number {
    return this.#markOf![item]!;
  }

  /**
   * Copies bytes `from`..`to` of item `item`'s cached fragment into `target` at `position`; answers
   * the position after them. A loop over the bytes, not `Buffer.copy`: that allocates a view of the
   * source on the heap for every call (hundreds per answer), and their garbage set off a young
   * collection every few dozen answers, the p99 of the layered DAG benchmark.
   */
  copy(item: number, target: Buffer, position: number, from = 0, to = this.#lengthOf![item]!): number {
    const chunk = this.#chunks[this.#chunkOf![item]! - 1]!;
    const offset = this.#offsetOf![item]!;
    let at = position;
    for (let index = offset + from, end = offset + to; index < end; index += 1) target[at++] = chunk[index]!;
    return at;
  }

  /** Drops every fragment and gives their bytes back to the shared budget. Idempotent. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    unreleasedFragments.unregister(this);
    fragmentBytesInUse -= this.#held.bytes;
    this.#held.bytes = 0;
    this.#chunks = [];
    this.#chunkOf = this.#offsetOf = this.#lengthOf = this.#markOf = undefined;
  }

  #hold(bytes: number): void {
    this.#held.bytes += bytes;
    fragmentBytesInUse += bytes;
  }
}
