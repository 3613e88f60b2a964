/**
 * Cached UTF-8 JSON fragments of numbered items, and the assembly of answers from them.
 *
 * A traversal answer is mostly the JSON of nodes and edges that other answers also hold. Serialising
 * them once and copying bytes afterwards turns the cost of an answer from `JSON.stringify` over
 * every object (3.9 µs per KB on the benchmark graph) into one memory copy per item, and keeps the
 * answer off the JavaScript heap: it is built in one `Buffer` and handed to the socket as it is.
 *
 * Fragments live in large shared chunks (`FragmentArena`), located by three typed arrays per kind of
 * item (`FragmentCache`), so that a cached fragment costs its bytes plus 12 bytes, and no object.
 * The arena has a byte budget; past it, fragments are serialised afresh for each answer. Answers are
 * assembled into reused buffers (`AnswerBufferPool` in `answers.ts`), given back once sent.
 */
import { answerBuffers, type AnswerBufferPool, type PooledBytes } from './answers.js';

/** Bytes of one arena chunk (8 MiB). Fragments larger than a quarter of it are never cached. */
const CHUNK_BYTES = 8 * 2 ** 20;

/** Where a fragment's bytes are. */
interface Location {
  chunk: Buffer;
  start: number;
  end: number;
}

/**
 * Bytes that arenas may take, shared: one budget can serve every index of a projection, so that the
 * fragments of all graphs together stay under one bound. Arenas take whole chunks and give them
 * back when disposed.
 */
export class FragmentBudget {
  #remaining: number;

  /** @param bytes the bound, in bytes. */
  constructor(bytes: number) {
    this.#remaining = bytes;
  }

  /** Bytes not taken. */
  get remaining(): number {
    return this.#remaining;
  }

  /** Takes `bytes` if that many remain. */
  take(bytes: number): boolean {
    if (this.#remaining < bytes) return false;
    this.#remaining -= bytes;
    return true;
  }

  /** Gives back bytes taken earlier. */
  give(bytes: number): void {
    this.#remaining += bytes;
  }
}

/** Append-only storage for fragment bytes, shared by the caches of one index, within a budget. */
export class FragmentArena {
  readonly #chunks: Buffer[] = [];
  #used = CHUNK_BYTES;
  readonly #budget: FragmentBudget;
  #disposed = false;

  /**
   * @param budget where the arena takes its bytes: a shared `FragmentBudget`, or a number of bytes
   *   of its own. It takes whole chunks of 8 MiB: a budget below 8 MiB caches nothing.
   */
  constructor(budget: FragmentBudget | number) {
    this.#budget = typeof budget === 'number' ? new FragmentBudget(budget) : budget;
  }

  /**
   * Gives the arena's chunks back to its budget and stores nothing more. What is stored stays
   * readable (answers being assembled may still copy it); the memory goes with the last reference.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#budget.give(this.#chunks.length * CHUNK_BYTES);
  }

  /** Bytes allocated so far (whole chunks). */
  get allocatedBytes(): number {
    return this.#chunks.length * CHUNK_BYTES;
  }

  /**
   * True when no more than a few KiB can be stored any more: the arena is disposed, or no budget is
   * left for another chunk and the last one (if any) is almost full.
   */
  get spent(): boolean {
    return this.#disposed || (this.#budget.remaining < CHUNK_BYTES && CHUNK_BYTES - this.#used < 4 * 2 ** 10);
  }

  /** The chunk with number `chunk` (numbers are handed out by `store`). */
  chunk(chunk: number): Buffer {
    return this.#chunks[chunk]!;
  }

  /**
   * Stores the UTF-8 bytes of `text`; answers `[chunk number, start, byte length]`, or undefined when
   * the text is too large or the budget is spent.
   */
  store(text: string): [number, number, number] | undefined {
    if (this.#disposed) return undefined;
    // A UTF-16 code unit takes at most 3 bytes in UTF-8: when that much fits (in the chunk, and under
    // the size cap), write at once and take the length `write` answers; otherwise measure first.
    const room = this.#chunks.length === 0 ? -1 : Math.min(CHUNK_BYTES - this.#used, CHUNK_BYTES / 4);
    if (text.length * 3 <= room) {
      const chunk = this.#chunks.length - 1;
      const start = this.#used;
      const length = this.#chunks[chunk]!.write(text, start, 'utf8');
      this.#used += length;
      return [chunk, start, length];
    }
    const length = Buffer.byteLength(text, 'utf8');
    if (length > CHUNK_BYTES / 4) return undefined;
    if (length > room) {
      if (!this.#budget.take(CHUNK_BYTES)) return undefined;
      this.#chunks.push(Buffer.allocUnsafeSlow(CHUNK_BYTES));
      this.#used = 0;
    }
    const chunk = this.#chunks.length - 1;
    const start = this.#used;
    this.#chunks[chunk]!.write(text, start, 'utf8');
    this.#used += length;
    return [chunk, start, length];
  }
}

/** The fragments of `count` items numbered 0..count-1, serialised on first use by `serialise`. */
export class FragmentCache {
  readonly #arena: FragmentArena;
  readonly #serialise: (item: number) => string;
  /** Chunk number + 1 of each cached item; 0 when not cached. */
  readonly #chunkOf: Int32Array;
  readonly #startOf: Int32Array;
  readonly #lengthOf: Int32Array;

  constructor(count: number, arena: FragmentArena, serialise: (item: number) => string) {
    this.#arena = arena;
    this.#serialise = serialise;
    this.#chunkOf = new Int32Array(count);
    this.#startOf = new Int32Array(count);
    this.#lengthOf = new Int32Array(count);
  }

  /**
   * Serialises and caches item `item` unless it is cached already; false when it cannot be cached
   * (too large, or the arena's budget is spent).
   */
  warm(item: number): boolean {
    return this.#chunkOf[item] !== 0 || this.#keep(item, this.#serialise(item));
  }

  /**
   * Adds the bytes of item `item` to `answer` (serialising and caching them the first time), without
   * its last `trim` bytes (fragments that end with a separator drop it after the last item; the
   * trimmed bytes must be ASCII).
   */
  appendTo(answer: JsonAnswer, item: number, trim = 0): void {
    if (this.#chunkOf[item] === 0) {
      const text = this.#serialise(item);
      if (!this.#keep(item, text)) {
        answer.text(trim === 0 ? text : text.slice(0, -trim));
        return;
      }
    }
    const start = this.#startOf[item]!;
    answer.bytes(this.#arena.chunk(this.#chunkOf[item]! - 1), start, start + this.#lengthOf[item]! - trim);
  }

  /** Stores `text` as item `item`'s fragment; false when the arena cannot take it. */
  #keep(item: number, text: string): boolean {
    const stored = this.#arena.store(text);
    if (!stored) return false;
    this.#chunkOf[item] = stored[0] + 1;
    this.#startOf[item] = stored[1];
    this.#lengthOf[item] = stored[2];
    return true;
  }
}

/**
 * A JSON answer as a list of byte ranges, copied into one `Buffer` at the end. Literal text (brackets,
 * commas, numbers) is encoded as it is added; cached fragments are referenced, not copied, until
 * `toBuffer`.
 */
export class JsonAnswer {
  readonly #sources: Buffer[] = [];
  readonly #starts: number[] = [];
  readonly #ends: number[] = [];
  #length = 0;

  /** Adds `source[start..end)`. */
  bytes(source: Buffer, start: number, end: number): this {
    this.#sources.push(source);
    this.#starts.push(start);
    this.#ends.push(end);
    this.#length += end - start;
    return this;
  }

  /** Adds the UTF-8 bytes of `text` (for text used once; keep repeated literals as buffers). */
  text(text: string): this {
    const bytes = Buffer.from(text, 'utf8');
    return this.bytes(bytes, 0, bytes.length);
  }

  /** Adds all of `literal`. */
  literal(literal: Buffer): this {
    return this.bytes(literal, 0, literal.length);
  }

  /** Bytes added so far. */
  get length(): number {
    return this.#length;
  }

  /**
   * The whole answer in one buffer, taken from `pool`. Call `release` once the bytes have been sent
   * (not before: the buffer is then reused for another answer).
   */
  toBytes(pool: AnswerBufferPool = answerBuffers): PooledBytes {
    const { buffer, release } = pool.take(this.#length);
    const bytes = buffer.subarray(0, this.#length);
    let position = 0;
    for (let piece = 0; piece < this.#sources.length; piece += 1) {
      position += this.#sources[piece]!.copy(bytes, position, this.#starts[piece], this.#ends[piece]);
    }
    return { bytes, release };
  }
}
