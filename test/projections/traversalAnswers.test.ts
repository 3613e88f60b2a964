/**
 * The answers of `projections/traversal/answers.ts`: AnswerBufferPool (size limits, reuse of
 * released buffers, no double hand-out, idempotent release, maximumFree, power-of-two sizes),
 * serializeJson (the bytes of JSON.stringify, UTF-8 included, pooled when large), and the
 * Traversal and WholeGraph values the services answer.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AnswerBufferPool,
  answerBuffers,
  plainWholeGraph,
  WHOLE_GRAPH_PART_ITEMS,
  serializeJson,
  walkedTraversal,
  type TraversalResult,
} from '../../projections/traversal/index.js';
import type { Edge, Node } from '../../src/graph/model.js';

const KiB = 2 ** 10;
const MiB = 2 ** 20;

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

describe('serializeJson', () => {
  it('answers the UTF-8 bytes of JSON.stringify, non-ASCII text included', () => {
    const value = { name: 'Käse → 東京 😀', list: [1, 'two', null], nested: { empty: {} } };
    const answer = serializeJson(value);
    assert.ok(answer.bytes.equals(Buffer.from(JSON.stringify(value), 'utf8')));
    assert.deepEqual(JSON.parse(answer.bytes.toString('utf8')), value);
    answer.release();
  });

  it('takes large answers from the pool and gets them back on release', () => {
    const pool = new AnswerBufferPool({ minimumBytes: 1 * KiB, maximumFree: 1 });
    const value = { text: 'ü'.repeat(10 * KiB) };
    const first = serializeJson(value, pool);
    assert.equal(first.bytes.length, Buffer.byteLength(JSON.stringify(value)));
    assert.equal(first.bytes.buffer.byteLength, 32 * KiB, 'a pooled power-of-two buffer');
    first.release();
    assert.equal(pool.freeCount, 1);
    const second = serializeJson({ text: 'x'.repeat(5 * KiB) }, pool);
    assert.equal(pool.freeCount, 0, 'the released buffer is reused');
    assert.equal(JSON.parse(second.bytes.toString('utf8')).text.length, 5 * KiB);
    second.release();
  });

  it('uses the shared answerBuffers pool by default', () => {
    const answer = serializeJson({ text: 'y'.repeat(100 * KiB) });
    const memory = answer.bytes.buffer;
    answer.release();
    const next = answerBuffers.take(answer.bytes.length);
    assert.equal(next.buffer.buffer, memory, 'the released buffer is the next one handed out');
    next.release();
  });
});

describe('Traversal and WholeGraph values', () => {
  const node: Node = {
    id: 'stream:topic:env-1:lkc-1/orders',
    node_type: 'TOPIC',
    system: 'STREAM',
    qualified_name: 'lkc-1/orders',
    display_name: 'orders',
    environment_id: 'env-1',
    cluster_id: 'lkc-1',
    attributes: null,
  };
  const other: Node = { ...node, id: 'stream:topic:env-1:lkc-1/payments', display_name: 'payments' };
  const edge: Edge = { src_id: node.id, dst_id: other.id, edge_type: 'TRANSFORMS', attributes: { note: 'é' } };

  it('a walked traversal answers its result and serializes it as JSON.stringify does', () => {
    const result: TraversalResult = {
      origin: node,
      direction: 'downstream',
      hops: 2,
      nodes: [{ ...other, hop: 1 }],
      edges: [edge],
      node_count: 1,
      edge_count: 1,
    };
    const traversal = walkedTraversal(result);
    assert.deepEqual(
      [traversal.direction, traversal.hops, traversal.nodeCount, traversal.edgeCount],
      ['downstream', 2, 1, 1],
    );
    assert.equal(traversal.toResult(), result);
    const bytes = traversal.serialize();
    assert.equal(bytes.bytes.toString('utf8'), JSON.stringify(result));
    bytes.release();
  });

  it('a whole graph serializes its fields first, then nodes and edges', () => {
    const fields = { graph_id: 'g-1', revision: 3 };
    const whole = plainWholeGraph({ nodes: [node, other], edges: [edge] }, fields);
    assert.deepEqual(whole.fields, fields);
    const bytes = whole.serialize();
    assert.equal(bytes.bytes.toString('utf8'), JSON.stringify({ ...fields, nodes: [node, other], edges: [edge] }));
    bytes.release();
    const bare = plainWholeGraph({ nodes: [], edges: [] }).serialize();
    assert.equal(bare.bytes.toString('utf8'), '{"nodes":[],"edges":[]}');
    bare.release();
  });

  it('a whole graph answers its JSON in parts of WHOLE_GRAPH_PART_ITEMS items, whose concatenation is the whole', () => {
    const many = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ ...node, id: `${node.id}-${index}` }));
    const edges = (count: number) => Array.from({ length: count }, (_, index) => ({ ...edge, src_id: `${index}` }));
    const fields = { graph_id: 'g-1', revision: 3 };
    for (const [nodeCount, edgeCount, withFields] of [
      [0, 0, false],
      [0, 0, true],
      [1, 0, true],
      [0, 1, false],
      [WHOLE_GRAPH_PART_ITEMS * 2 + 1, WHOLE_GRAPH_PART_ITEMS, true],
    ] as const) {
      const graph = { nodes: many(nodeCount), edges: edges(edgeCount) };
      const whole = plainWholeGraph(graph, withFields ? fields : {});
      const parts = [...whole.jsonParts()];
      assert.equal(parts.join(''), JSON.stringify({ ...(withFields ? fields : {}), ...graph }));
      const itemParts = Math.ceil(nodeCount / WHOLE_GRAPH_PART_ITEMS) + Math.ceil(edgeCount / WHOLE_GRAPH_PART_ITEMS);
      assert.equal(
        parts.length,
        itemParts + 1,
        `${nodeCount} nodes and ${edgeCount} edges: a part per batch, and the end`,
      );
    }
  });
});
