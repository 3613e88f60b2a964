/**
 * TraversalIndex against the graphology walk (`traverse`): a fast-check property over random small
 * multigraphs (self-loops, parallel edges of different types), the synthetic benchmark graph, UTF-8
 * round trips of traverseJson, the Traversal value (counts, objects, bytes), errors, repeated
 * answers from reused buffers, reuse of visited marks across many walks, and an origin with no edges. Order within a hop may
 * differ between the two walks, so answers are compared after sorting nodes and edges.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { syntheticGraph } from '../../bench/syntheticGraph.js';
import { NotFoundError, ValidationError } from '../../src/errors.js';
import { topicId } from '../../src/graph/ids.js';
import { EDGE_TYPES, NODE_TYPES, edgeKey, type Edge, type LineageGraph, type Node } from '../../src/graph/model.js';
import { ResidentGraph } from '../../projections/residentGraph.js';
import {
  traverse,
  TraversalIndex,
  type TraversalDirection,
  type TraversalResult,
} from '../../projections/traversal/index.js';

const ENV = 'env-test';
const CLUSTER = 'lkc-test';
const DIRECTIONS: TraversalDirection[] = ['upstream', 'downstream'];

/** A node with its keys in the order `reached` writes them (so JSON of both is byte-comparable). */
function makeNode(name: string, fields: Partial<Node> = {}): Node {
  const id = topicId(ENV, CLUSTER, name);
  return {
    id,
    node_type: 'TOPIC',
    system: 'STREAM',
    qualified_name: `${CLUSTER}/${name}`,
    display_name: name,
    environment_id: ENV,
    cluster_id: CLUSTER,
    attributes: null,
    ...fields,
  };
}

function toResidentGraph(graph: LineageGraph): ResidentGraph {
  const result = new ResidentGraph();
  for (const node of graph.nodes) result.addNode(node.id, node);
  for (const edge of graph.edges) result.addEdge(edge);
  return result;
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** The answer with nodes sorted by hop then id, and edges by edge key. */
function normalize(result: TraversalResult): TraversalResult {
  return {
    ...result,
    nodes: [...result.nodes].sort((a, b) => a.hop - b.hop || byString(a.id, b.id)),
    edges: [...result.edges].sort((a, b) => byString(edgeKey(a), edgeKey(b))),
  };
}

/** The parsed traverseJson answer; the pooled bytes are released. Also returns the raw text. */
function jsonAnswer(
  index: TraversalIndex,
  origin: string,
  direction: TraversalDirection,
  hops: number,
): { parsed: TraversalResult; text: string } {
  const answer = index.traverseJson(origin, direction, hops);
  try {
    const text = answer.bytes.toString('utf8');
    return { parsed: JSON.parse(text) as TraversalResult, text };
  } finally {
    answer.release();
  }
}

/** Asserts that the index (objects and JSON) answers what the graphology walk answers. */
function assertAgrees(
  graph: ResidentGraph,
  index: TraversalIndex,
  origin: string,
  direction: TraversalDirection,
  hops: number,
): TraversalResult {
  const expected = normalize(traverse(graph, origin, direction, hops));
  assert.equal(expected.node_count, expected.nodes.length);
  assert.equal(expected.edge_count, expected.edges.length);
  assert.deepEqual(normalize(index.traverse(origin, direction, hops)), expected);
  assert.deepEqual(normalize(jsonAnswer(index, origin, direction, hops).parsed), expected);
  return expected;
}

const randomGraph = fc.integer({ min: 1, max: 40 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    edges: fc.array(
      fc.record({
        src: fc.nat(n - 1),
        dst: fc.nat(n - 1),
        selfLoop: fc.integer({ min: 0, max: 7 }).map((value) => value === 0),
        types: fc.subarray([...EDGE_TYPES], { minLength: 1, maxLength: 3 }),
        attributes: fc.option(
          fc
            .dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.integer(), fc.string({ maxLength: 6 })), {
              maxKeys: 2,
            })
            .map((value) => ({ ...value })),
          { nil: null },
        ),
      }),
      { maxLength: 100 },
    ),
    catalog: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    origin: fc.nat(n - 1),
    direction: fc.constantFrom<TraversalDirection>('upstream', 'downstream'),
    hops: fc.integer({ min: 1, max: 6 }),
  }),
);

describe('TraversalIndex', () => {
  it('answers what traverse answers on random multigraphs with self-loops and parallel edges', () => {
    let parallel = 0;
    let loops = 0;
    fc.assert(
      fc.property(randomGraph, ({ n, edges, catalog, origin, direction, hops }) => {
        const nodes = Array.from({ length: n }, (_, i) =>
          catalog[i]
            ? makeNode(`n${i}`, {
                node_type: 'CATALOG_TABLE',
                system: 'LAKEHOUSE',
                catalog_type: 'LAKEHOUSE_CATALOG',
                attributes: { i },
              })
            : makeNode(`n${i}`, { node_type: NODE_TYPES[i % NODE_TYPES.length]! }),
        );
        const graph = new ResidentGraph();
        for (const node of nodes) graph.addNode(node.id, node);
        for (const { src, dst, selfLoop, types, attributes } of edges) {
          const target = selfLoop ? src : dst;
          for (const edge_type of types) {
            const edge: Edge = { src_id: nodes[src]!.id, dst_id: nodes[target]!.id, edge_type, attributes };
            if (graph.hasEdge(edgeKey(edge))) continue;
            graph.addEdge(edge);
            if (src === target) loops += 1;
          }
          if (types.length > 1) parallel += 1;
        }
        const index = TraversalIndex.build(graph, 7);
        assert.equal(index.order, n);
        assert.equal(index.revision, 7);
        assertAgrees(graph, index, nodes[origin]!.id, direction, hops);
      }),
      { seed: 20261101, numRuns: 200 },
    );
    // The generator did produce the cases the property is about.
    assert.ok(parallel > 0 && loops > 0, `parallel ${parallel}, self-loops ${loops}`);
  });

  it('agrees on the synthetic 2,000-node graph for several origins, both directions, 1, 3 and 10 hops', () => {
    const lineage = syntheticGraph({ nodes: 2000, edges: 6000 });
    const graph = toResidentGraph(lineage);
    const index = TraversalIndex.build(graph, 1);
    assert.equal(index.order, 2000);
    let reachedSome = false;
    for (const position of [0, 5, 401, 999, 1500, 1999]) {
      for (const direction of DIRECTIONS) {
        for (const hops of [1, 3, 10]) {
          const expected = assertAgrees(graph, index, lineage.nodes[position]!.id, direction, hops);
          if (hops === 10 && expected.node_count > 3) reachedSome = true;
        }
      }
    }
    assert.ok(reachedSome, 'some 10-hop walk reaches more than three nodes');
  });

  describe('traverseJson with non-ASCII text', () => {
    const text = 'Käse → 東京 😀';
    const nodes = [
      makeNode('a', { display_name: text, attributes: { note: text } }),
      makeNode('b', { display_name: `${text}b` }),
      makeNode('c', { attributes: { [text]: [text] } }),
    ];
    const edges: Edge[] = [
      { src_id: nodes[0]!.id, dst_id: nodes[1]!.id, edge_type: 'TRANSFORMS', attributes: { note: text } },
      { src_id: nodes[1]!.id, dst_id: nodes[2]!.id, edge_type: 'TRANSFORMS', attributes: { note: `${text}😀` } },
    ];
    const graph = toResidentGraph({ nodes, edges });

    it('round-trips UTF-8 byte-exactly', () => {
      const index = TraversalIndex.build(graph, 1);
      for (let round = 0; round < 2; round += 1) {
        for (const [origin, direction] of [
          [nodes[0]!.id, 'downstream'],
          [nodes[2]!.id, 'upstream'],
        ] as const) {
          const answer = index.traverseJson(origin, direction, 3);
          const expected = Buffer.from(JSON.stringify(index.traverse(origin, direction, 3)), 'utf8');
          assert.ok(
            answer.bytes.equals(expected),
            `${answer.bytes.toString('utf8')}\n!==\n${expected.toString('utf8')}`,
          );
          answer.release();
          const { parsed } = jsonAnswer(index, origin, direction, 3);
          assert.deepEqual([parsed.node_count, parsed.edge_count], [2, 2]);
          assert.ok(parsed.nodes.some((node) => node.display_name.startsWith(text)));
          assert.ok(parsed.edges.some((edge) => edge.attributes?.note === `${text}😀`));
          assertAgrees(graph, index, origin, direction, 3);
        }
      }
    });
  });

  it('rejects an unknown origin and hops outside 1..100 exactly as traverse does', () => {
    const graph = toResidentGraph(syntheticGraph({ nodes: 50, edges: 100 }));
    const index = TraversalIndex.build(graph, 1);
    const origin = graph.nodeValues()[0]!.id;
    const missing = 'stream:topic:env:nope';
    const cases = [
      [missing, 3, NotFoundError],
      [origin, 0, ValidationError],
      [origin, 101, ValidationError],
      [origin, 1.5, ValidationError],
      [missing, 0, ValidationError],
    ] as const;
    for (const [id, hops, type] of cases) {
      for (const direction of DIRECTIONS) {
        assert.throws(() => traverse(graph, id, direction, hops), type);
        assert.throws(() => index.traverse(id, direction, hops), type);
        assert.throws(() => index.traverseJson(id, direction, hops), type);
      }
    }
    assert.doesNotThrow(() => index.traverseJson(origin, 'upstream', 100).release());
    const sideways = 'sideways' as TraversalDirection;
    assert.throws(() => traverse(graph, origin, sideways, 1), ValidationError);
    assert.throws(() => index.traverseJson(origin, sideways, 1), ValidationError);
  });

  it('answers a Traversal value whose counts, objects and bytes agree; repeated answers are byte-identical', () => {
    const lineage = syntheticGraph({ nodes: 600, edges: 1800 });
    const graph = toResidentGraph(lineage);
    const index = TraversalIndex.build(graph, 1);
    const origins = [0, 100, 300].map((position) => lineage.nodes[position]!.id);
    const first = origins.map((origin) => jsonAnswer(index, origin, 'downstream', 5).text);
    for (const [position, origin] of origins.entries()) {
      const traversal = index.traversal(origin, 'downstream', 5);
      const result = traversal.toResult();
      assert.deepEqual(
        [traversal.direction, traversal.hops, traversal.nodeCount, traversal.edgeCount],
        ['downstream', 5, result.node_count, result.edge_count],
      );
      const bytes = traversal.serialize();
      assert.equal(bytes.bytes.toString('utf8'), JSON.stringify(result));
      assert.equal(bytes.bytes.toString('utf8'), first[position], 'the same bytes as the first answer');
      bytes.release();
      assertAgrees(graph, index, origin, 'upstream', 5);
    }
    assert.ok(
      first.some((text) => text.length > 1_000),
      'some answers reach more than a few nodes',
    );

    const empty = TraversalIndex.build(new ResidentGraph(), 0);
    assert.equal(empty.order, 0);
    assert.throws(() => empty.traversal('stream:topic:env:nope', 'downstream', 1), NotFoundError);
  });

  it('does not leak visited marks between walks from different origins', () => {
    const lineage = syntheticGraph({ nodes: 400, edges: 1200, domainSize: 400 });
    const graph = toResidentGraph(lineage);
    const index = TraversalIndex.build(graph, 1);
    for (let walk = 0; walk < 300; walk += 1) {
      const origin = lineage.nodes[(walk * 37) % lineage.nodes.length]!.id;
      const direction = DIRECTIONS[walk % 2]!;
      const hops = 1 + (walk % 7);
      const expected = normalize(traverse(graph, origin, direction, hops));
      if (walk % 3 === 0) assert.deepEqual(normalize(jsonAnswer(index, origin, direction, hops).parsed), expected);
      else assert.deepEqual(normalize(index.traverse(origin, direction, hops)), expected);
    }
  });

  it('answers no nodes and no edges for an origin without edges', () => {
    const lonely = makeNode('lonely', { display_name: 'Käse' });
    const other = makeNode('other');
    const graph = toResidentGraph({
      nodes: [lonely, other],
      edges: [{ src_id: other.id, dst_id: other.id, edge_type: 'TRANSFORMS', attributes: null }],
    });
    const index = TraversalIndex.build(graph, 1);
    for (const direction of DIRECTIONS) {
      const expected = { origin: lonely, direction, hops: 4, nodes: [], edges: [], node_count: 0, edge_count: 0 };
      assert.deepEqual(index.traverse(lonely.id, direction, 4), expected);
      assert.deepEqual(traverse(graph, lonely.id, direction, 4), expected);
      const { parsed, text } = jsonAnswer(index, lonely.id, direction, 4);
      assert.deepEqual(parsed, expected);
      assert.equal(text, JSON.stringify(expected));
    }
  });
});
