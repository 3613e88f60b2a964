/**
 * Traversal and whole-graph answers as values, and their JSON as bytes.
 *
 * A service answers a `Traversal` (walked on the graphology graph, or on a traversal index) or a
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
}

/** The traversal a graphology walk (`traverse` in `walk.ts`) answered. */
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
  return { fields, serialize: () => serializeJson({ ...fields, nodes: graph.nodes, edges: graph.edges }) };
}

/** `JSON.stringify(value)` as UTF-8 bytes in a buffer from `pool` (default `answerBuffers`). */
export function serializeJson(value: unknown, pool: AnswerBufferPool = answerBuffers): PooledBytes {
  const text = JSON.stringify(value);
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
