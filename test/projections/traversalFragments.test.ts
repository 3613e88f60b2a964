/**
 * The fragment path of traversal answers (`TraversalIndex.traversal(...).serialize()` assembling
 * cached JSON fragments, `JsonFragments` in `projections/traversal/answers.ts`): its bytes equal
 * `JSON.stringify` of the plain answer (`toResult()`) on random graphs whose nodes have non-ASCII
 * names, `catalog_type`, attributes holding `"hop"` keys and keys in any order, at every number of hops
 * from 1 to 12 (two-digit hops); again once fragments are cached, after they are released, and
 * with the graphology walk (`traverse`) as the reference for the values.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { topicId } from '../../src/graph/ids.js';
import { CATALOG_TYPES, EDGE_TYPES, edgeKey, type Edge, type Node } from '../../src/graph/model.js';
import { ResidentGraph } from '../../projections/residentGraph.js';
import { JsonFragments, traversalFragmentBytes } from '../../projections/traversal/answers.js';
import { traverse, TraversalIndex, type TraversalDirection } from '../../projections/traversal/index.js';

const DIRECTIONS: TraversalDirection[] = ['upstream', 'downstream'];

/** Attributes that try to confuse the splice of the hop: nested `hop` keys, quotes, non-ASCII text. */
const attributesArbitrary = fc.oneof(
  fc.constant(null),
  fc.record({ hop: fc.integer(), note: fc.string({ unit: 'grapheme' }) }),
  fc.dictionary(
    fc.constantFrom('hop', ',"hop":0', 'a', 'é', '}'),
    fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
  ),
);

/** A random node; `catalog_type` and the key order vary. */
function nodeArbitrary(index: number): fc.Arbitrary<Node> {
  return fc
    .record({
      name: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
      attributes: attributesArbitrary,
      catalogType: fc.option(fc.constantFrom(...CATALOG_TYPES, null), { nil: undefined }),
      reversed: fc.boolean(),
    })
    .map(({ name, attributes, catalogType, reversed }) => {
      const node: Node = {
        id: topicId('env-é', 'lkc-1', `${index}-${name}`),
        node_type: 'TOPIC',
        system: 'STREAM',
        qualified_name: `lkc-1/${name}`,
        display_name: name,
        environment_id: 'env-é',
        cluster_id: index % 3 === 0 ? null : 'lkc-1',
        attributes: attributes as Node['attributes'],
      };
      if (catalogType !== undefined) node.catalog_type = catalogType as Node['catalog_type'];
      // Stored nodes may hold their keys in another order; the origin is written as stored.
      return reversed ? (Object.fromEntries(Object.entries(node).reverse()) as Node) : node;
    });
}

/** A random graph of 1 to 30 nodes and up to 80 edges (self-loops and parallel edges of different types). */
const graphArbitrary = fc.integer({ min: 1, max: 30 }).chain((order) =>
  fc.record({
    nodes: fc.tuple(...Array.from({ length: order }, (_, index) => nodeArbitrary(index))),
    edges: fc.array(
      fc.record({
        from: fc.nat(order - 1),
        to: fc.nat(order - 1),
        type: fc.constantFrom(...EDGE_TYPES),
        attributes: attributesArbitrary,
      }),
      { maxLength: 80 },
    ),
  }),
);

function toResidentGraph(
  nodes: Node[],
  edges: Array<{ from: number; to: number; type: Edge['edge_type']; attributes: unknown }>,
) {
  const graph = new ResidentGraph();
  for (const node of nodes) graph.addNode(node.id, node);
  for (const { from, to, type, attributes } of edges) {
    const edge: Edge = {
      src_id: nodes[from]!.id,
      dst_id: nodes[to]!.id,
      edge_type: type,
      attributes: attributes as Edge['attributes'],
    };
    if (!graph.hasEdge(edgeKey(edge))) graph.addEdge(edge);
  }
  return graph;
}

/** Asserts that the serialized bytes of every traversal of `index` equal `JSON.stringify` of its objects. */
function assertSameBytes(index: TraversalIndex, graph: ResidentGraph, hopsList: number[]) {
  for (const { id: origin } of graph.nodeValues()) {
    for (const direction of DIRECTIONS) {
      for (const hops of hopsList) {
        const traversal = index.traversal(origin, direction, hops);
        const answer = traversal.serialize();
        const text = answer.bytes.toString('utf8');
        answer.release();
        assert.equal(text, JSON.stringify(traversal.toResult()));
        const walked = traverse(graph, origin, direction, hops);
        assert.equal(traversal.nodeCount, walked.node_count);
        assert.equal(traversal.edgeCount, walked.edge_count);
      }
    }
  }
}

describe('traversal answers from cached JSON fragments', () => {
  it('are byte for byte JSON.stringify of the plain answer on random graphs, cached or not, released or not', () => {
    fc.assert(
      fc.property(graphArbitrary, ({ nodes, edges }) => {
        const graph = toResidentGraph(nodes, edges);
        const index = TraversalIndex.build(graph, 1);
        assertSameBytes(index, graph, [1, 2, 9, 10, 12]);
        // Every edge is followed downstream from its source: fragments are cached once there is one.
        assert.equal(index.fragmentBytes > 0, graph.size > 0, 'the fragments were cached');
        // Again, from the fragments cached by the first pass.
        assertSameBytes(index, graph, [12, 3, 1]);
        const before = traversalFragmentBytes();
        const held = index.fragmentBytes;
        index.releaseFragments();
        assert.equal(traversalFragmentBytes(), before - held);
        assert.equal(index.fragmentBytes, 0);
        // Released: answers are serialized from their objects, still the same bytes.
        assertSameBytes(index, graph, [1, 10]);
        assert.equal(index.fragmentBytes, 0);
      }),
      { numRuns: 150 },
    );
  });

  it('a chain of 120 nodes at 100 hops: three-digit hops', () => {
    const nodes = Array.from({ length: 120 }, (_, index) => ({
      id: topicId('env-1', 'lkc-1', `t${index}`),
      node_type: 'TOPIC' as const,
      system: 'STREAM' as const,
      qualified_name: `lkc-1/t${index}`,
      display_name: `t${index}`,
      environment_id: 'env-1',
      cluster_id: 'lkc-1',
      attributes: null,
    }));
    const edges = nodes
      .slice(1)
      .map((_, index) => ({ from: index, to: index + 1, type: 'PRODUCES' as const, attributes: null }));
    const graph = toResidentGraph(nodes, edges);
    const index = TraversalIndex.build(graph, 1);
    const traversal = index.traversal(nodes[0]!.id, 'downstream', 100);
    const answer = traversal.serialize();
    assert.equal(answer.bytes.toString('utf8'), JSON.stringify(traversal.toResult()));
    assert.match(answer.bytes.toString('utf8'), /"hop":100[,}]/);
    answer.release();
    index.releaseFragments();
  });

  it('JsonFragments copies byte ranges around a mark and refuses after release', () => {
    const fragments = new JsonFragments(2);
    assert.equal(fragments.add(0, '{"a":"é","hop":0}', '0}'.length), true);
    assert.equal(fragments.add(1, '[1]'), true);
    assert.equal(fragments.length(0), Buffer.byteLength('{"a":"é","hop":0}'));
    assert.equal(fragments.mark(0), Buffer.byteLength('{"a":"é","hop":'));
    const target = Buffer.alloc(64);
    let at = fragments.copy(0, target, 0, 0, fragments.mark(0));
    at = fragments.copy(1, target, at);
    assert.equal(target.subarray(0, at).toString('utf8'), '{"a":"é","hop":[1]');
    fragments.release();
    assert.equal(fragments.has(0), false);
    assert.equal(fragments.add(0, '{}'), false);
    assert.equal(fragments.bytes, 0);
  });
});
