/**
 * The pieces traversal answers are assembled from: AnswerBufferPool (size limits, reuse of released
 * buffers, no double hand-out, idempotent release, maximumFree, power-of-two sizes) and
 * JsonAnswer + FragmentCache + FragmentArena (each fragment serialised once, trim, fragments over a
 * quarter chunk never cached, budgets below one chunk, chunk rollover, toBytes = concatenation).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AnswerBufferPool,
  FragmentArena,
  FragmentBudget,
  FragmentCache,
  JsonAnswer,
  answerBuffers,
} from '../../projections/traversal/index.js';

const KiB = 2 ** 10;
const MiB = 2 ** 20;
const CHUNK = 8 * MiB;

describe('AnswerBufferPool', () => {
  it('does not pool buffers below minimumBytes or above maximumBytes', () => {
    const pool = new AnswerBufferPool({ minimumBytes: 1 * KiB, maximumBytes: 64 * KiB });
    const small = pool.take(1 * KiB - 1);
    const large = pool.take(64 * KiB + 1);
    assert.equal(small.buffer.length, 1 * KiB - 1);
    assert.equal(large.buffer.length, 64 * KiB + 1);
    small.release();
    large.release();
    assert.equal(pool.freeCount, 0);
    assert.notEqual(pool.take(64 * KiB + 1).buffer.buffer, large.buffer.buffer);
    const edge = pool.take(1 * KiB);
    edge.release();
    assert.equal(pool.freeCount, 1, 'exactly minimumBytes is pooled');
  });

  it('rounds sizes up to a power of two', () => {
    const pool = new AnswerBufferPool({ minimumBytes: 1, maximumBytes: 32 * MiB });
    for (const [asked, size] of [
      [1, 1],
      [3, 4],
      [64 * KiB, 64 * KiB],
      [100_000, 131_072],
      [5 * MiB + 1, 8 * MiB],
      [32 * MiB, 32 * MiB],
    ]) {
      assert.equal(pool.take(asked!).buffer.length, size, `take(${asked})`);
    }
  });

  it('reuses a released buffer for the next take it fits, and never hands out a held one twice', () => {
    const pool = new AnswerBufferPool({ minimumBytes: 1 * KiB });
    const first = pool.take(100 * KiB);
    const second = pool.take(100 * KiB);
    assert.notEqual(first.buffer.buffer, second.buffer.buffer);
    first.release();
    assert.equal(pool.freeCount, 1);
    const tooLarge = pool.take(200 * KiB);
    assert.notEqual(tooLarge.buffer.buffer, first.buffer.buffer, 'a 128 KiB buffer does not fit 200 KiB');
    assert.equal(pool.freeCount, 1);
    const reused = pool.take(70 * KiB);
    assert.equal(reused.buffer.buffer, first.buffer.buffer);
    assert.equal(pool.freeCount, 0);
    // The first holder releasing again must not put the buffer back while `reused` holds it.
    first.release();
    assert.equal(pool.freeCount, 0);
    const third = pool.take(70 * KiB);
    assert.notEqual(third.buffer.buffer, reused.buffer.buffer);
    assert.notEqual(third.buffer.buffer, second.buffer.buffer);
  });

  it('release is idempotent and maximumFree is respected', () => {
    const pool = new AnswerBufferPool({ minimumBytes: 1 * KiB, maximumFree: 2 });
    const taken = [pool.take(4 * KiB), pool.take(4 * KiB), pool.take(4 * KiB)];
    taken[0]!.release();
    taken[0]!.release();
    assert.equal(pool.freeCount, 1);
    taken[1]!.release();
    taken[2]!.release();
    assert.equal(pool.freeCount, 2);
    const buffers = new Set([pool.take(4 * KiB).buffer.buffer, pool.take(4 * KiB).buffer.buffer]);
    assert.equal(buffers.size, 2);
    assert.ok(buffers.has(taken[0]!.buffer.buffer) && buffers.has(taken[1]!.buffer.buffer));
    assert.equal(pool.freeCount, 0);
  });
});

describe('JsonAnswer, FragmentCache and FragmentArena', () => {
  /** A cache of `items` whose serialiser counts its calls per item. */
  function countingCache(items: string[], arena: FragmentArena) {
    const calls = items.map(() => 0);
    const cache = new FragmentCache(items.length, arena, (item) => {
      calls[item]! += 1;
      return items[item]!;
    });
    return { cache, calls };
  }

  it('serialises each fragment once across appends, and toBytes is the concatenation of the pieces', () => {
    const items = ['{"a":1,', '{"b":"Käse → 東京 😀",', '{"c":[]},'];
    const arena = new FragmentArena(CHUNK);
    const { cache, calls } = countingCache(items, arena);
    const pool = new AnswerBufferPool({ minimumBytes: 1 });
    const expected: string[] = [];
    for (let round = 0; round < 3; round += 1) {
      const answer = new JsonAnswer();
      const pieces: string[] = [];
      answer.literal(Buffer.from('['));
      pieces.push('[');
      for (const item of [2, 0, 1, 0]) {
        cache.appendTo(answer, item);
        pieces.push(items[item]!);
      }
      answer.text('"😀"').bytes(Buffer.from('xyz]'), 1, 4);
      pieces.push('"😀"', 'yz]');
      const joined = Buffer.from(pieces.join(''), 'utf8');
      assert.equal(answer.length, joined.length);
      const { bytes, release } = answer.toBytes(pool);
      assert.ok(bytes.equals(joined), bytes.toString('utf8'));
      expected.push(bytes.toString('utf8'));
      release();
    }
    assert.deepEqual(calls, [1, 1, 1]);
    assert.equal(arena.allocatedBytes, CHUNK);
    assert.equal(new Set(expected).size, 1);
  });

  it('serialises an uncached fragment once per append, and stores an empty text in a fresh arena', () => {
    const { cache, calls } = countingCache(['{"x":1},'], new FragmentArena(0));
    const answer = new JsonAnswer();
    cache.appendTo(answer, 0);
    cache.appendTo(answer, 0, 1);
    assert.deepEqual(calls, [2], 'nothing can be cached: once per append, not twice');
    const { bytes, release } = answer.toBytes(new AnswerBufferPool());
    assert.equal(bytes.toString('utf8'), '{"x":1},{"x":1}');
    release();
    const arena = new FragmentArena(CHUNK);
    assert.deepEqual(arena.store(''), [0, 0, 0]);
    assert.equal(arena.spent, false);
    assert.ok(new FragmentArena(0).spent, 'no budget: spent at once');
  });

  it('shares one FragmentBudget among arenas, and a disposed arena gives its chunks back and stores nothing more', () => {
    const budget = new FragmentBudget(2 * CHUNK);
    const [first, second, third] = [new FragmentArena(budget), new FragmentArena(budget), new FragmentArena(budget)];
    assert.ok(first.store('{"a":1}'));
    assert.ok(second.store('{"b":2}'));
    assert.equal(budget.remaining, 0);
    assert.equal(third.store('{"c":3}'), undefined, 'the shared budget is spent');
    const kept = first.store('{"a":2}')!;
    first.dispose();
    assert.equal(budget.remaining, CHUNK);
    assert.equal(first.store('{"a":3}'), undefined, 'a disposed arena stores nothing');
    assert.ok(first.spent);
    assert.equal(
      first
        .chunk(kept[0])
        .subarray(kept[1], kept[1] + kept[2])
        .toString('utf8'),
      '{"a":2}',
      'what it stored stays readable',
    );
    assert.ok(third.store('{"c":3}'), 'the bytes given back serve another arena');
    first.dispose();
    assert.equal(budget.remaining, 0, 'dispose is idempotent');
  });

  it('trim drops the last bytes of a fragment, cached or not', () => {
    for (const budget of [CHUNK, 0]) {
      const { cache } = countingCache(['{"x":"東京"},', '[1,2],'], new FragmentArena(budget));
      for (let round = 0; round < 2; round += 1) {
        const answer = new JsonAnswer();
        cache.appendTo(answer, 0);
        cache.appendTo(answer, 1, 1);
        const { bytes, release } = answer.toBytes();
        assert.equal(bytes.toString('utf8'), '{"x":"東京"},[1,2]', `budget ${budget}`);
        release();
      }
      const answer = new JsonAnswer();
      cache.appendTo(answer, 0, 2);
      assert.equal(answer.toBytes().bytes.toString('utf8'), '{"x":"東京"');
    }
  });

  it('never caches text larger than a quarter of a chunk, but still appends it', () => {
    const quarter = CHUNK / 4;
    const large = `"${'é'.repeat(quarter / 2)}",`; // 2 MiB + 3 bytes of UTF-8
    const fits = `"${'a'.repeat(quarter - 3)}",`; // exactly a quarter: cached
    const arena = new FragmentArena(4 * CHUNK);
    const { cache, calls } = countingCache([large, fits], arena);
    assert.equal(arena.store(large), undefined);
    assert.equal(cache.warm(0), false);
    assert.equal(arena.allocatedBytes, 0);
    for (let round = 1; round <= 3; round += 1) {
      const answer = new JsonAnswer();
      cache.appendTo(answer, 0, 1);
      cache.appendTo(answer, 1, 1);
      const { bytes, release } = answer.toBytes();
      assert.equal(bytes.length, Buffer.byteLength(large) - 1 + quarter - 1);
      assert.ok(bytes.equals(Buffer.from(large.slice(0, -1) + fits.slice(0, -1), 'utf8')));
      release();
      assert.ok(calls[0]! >= round + 1, 'the large fragment is serialised on every append');
    }
    assert.equal(calls[1], 1);
    assert.equal(arena.allocatedBytes, CHUNK);
  });

  it('caches nothing with a budget smaller than one chunk', () => {
    for (const budget of [0, 300, CHUNK - 1]) {
      const arena = new FragmentArena(budget);
      const { cache, calls } = countingCache(['{"a":1}', '{"b":2}'], arena);
      assert.equal(cache.warm(0), false);
      assert.equal(arena.store('x'), undefined);
      const answer = new JsonAnswer();
      cache.appendTo(answer, 0);
      cache.appendTo(answer, 1);
      cache.appendTo(answer, 0);
      assert.equal(answer.toBytes().bytes.toString(), '{"a":1}{"b":2}{"a":1}');
      assert.equal(arena.allocatedBytes, 0, `budget ${budget}`);
      assert.ok(calls[0]! >= 2 && calls[1]! >= 1);
    }
  });

  it('fills a chunk, rolls over to the next while the budget lasts, and keeps earlier bytes intact', () => {
    const arena = new FragmentArena(2 * CHUNK);
    const quarter = CHUNK / 4;
    const stored: Array<[number, number, number]> = [];
    for (let i = 0; i < 8; i += 1) {
      const location = arena.store(String(i).repeat(quarter));
      assert.ok(location, `store ${i}`);
      stored.push(location);
    }
    assert.deepEqual(
      stored.map(([chunk, start]) => [chunk, start]),
      [
        [0, 0],
        [0, quarter],
        [0, 2 * quarter],
        [0, 3 * quarter],
        [1, 0],
        [1, quarter],
        [1, 2 * quarter],
        [1, 3 * quarter],
      ],
    );
    assert.equal(arena.allocatedBytes, 2 * CHUNK);
    assert.equal(arena.store('z'), undefined, 'both chunks are full and the budget is spent');
    for (const [i, [chunk, start, length]] of stored.entries()) {
      assert.equal(length, quarter);
      const bytes = arena.chunk(chunk).subarray(start, start + length);
      assert.equal(bytes[0], 48 + i);
      assert.equal(bytes[length - 1], 48 + i);
    }
  });

  it('answerBuffers is a shared pool used by toBytes by default', () => {
    const answer = new JsonAnswer().text('x'.repeat(100 * KiB));
    const { bytes, release } = answer.toBytes();
    assert.equal(bytes.toString(), 'x'.repeat(100 * KiB));
    release();
    release();
    const next = answerBuffers.take(100 * KiB);
    assert.equal(next.buffer.buffer, bytes.buffer, 'the released answer buffer is reused');
    next.release();
  });
});
