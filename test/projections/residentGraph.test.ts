/**
 * `ResidentGraph` (projections/residentGraph.ts) against the graph it replaces: a graphology
 * `MultiDirectedGraph({ allowSelfLoops: true })` whose edges are keyed by `edgeKey`. Seeded random
 * sequences of a few thousand operations (setNode, addNode, removeNode, setEdge, addEdge,
 * removeEdge, clear; self loops, parallel edges of several types, nodes re-added after removal) go
 * to both, on a small id space so that they collide; run with the default options and with
 * compaction after 8 free slots, so that slots are renumbered many times. Every answer must be
 * graphology's, and every 50 operations the whole of both graphs is compared: order, size, nodes
 * and edges in order, values, degrees, each node's edges (in the order they were added: the one
 * documented difference) and neighbours, lookups by key (present, absent and malformed), the
 * iterations' arguments and `edgeEntries`' positions. Calls that throw must throw the documented
 * error and change nothing. A hub of thousands of edges checks that lookups, replacements and
 * removals find the right edge whichever adjacency list they scan.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MultiDirectedGraph } from 'graphology';
import { NotFoundError } from '../../src/errors.js';
import {
  EDGE_TYPES,
  NODE_TYPES,
  SYSTEMS,
  edgeKey,
  type Edge,
  type EdgeType,
  type Node,
} from '../../src/graph/model.js';
import { ResidentGraph, type EdgeVisitor, type ResidentGraphOptions } from '../../projections/residentGraph.js';
import { seededRandom } from '../../bench/syntheticGraph.js';

type Model = MultiDirectedGraph<Node, Edge>;

/** Node ids of the random runs: few, so that edges collide and nodes come back. */
const NODE_IDS = 60;
const OPERATIONS = 3_000;
const CHECK_EVERY = 50;

/** The id of node `index`: shaped like the service's ids (type, environment, cluster, name). */
function idOf(index: number): string {
  return `${NODE_TYPES[index % NODE_TYPES.length]!.toLowerCase()}:env-${index % 3}:lkc-1:node-${index}`;
}

/** Node `index`; `version` makes each value distinct, so that a stale value is told from a fresh one. */
function makeNode(index: number, version: number): Node {
  const name = `node-${index}`;
  return {
    id: idOf(index),
    node_type: NODE_TYPES[index % NODE_TYPES.length]!,
    system: SYSTEMS[index % SYSTEMS.length]!,
    qualified_name: `lkc-1/${name}`,
    display_name: name,
    environment_id: `env-${index % 3}`,
    cluster_id: 'lkc-1',
    attributes: { version },
  };
}

function makeEdge(source: string, type: EdgeType, target: string, version: number): Edge {
  return { src_id: source, dst_id: target, edge_type: type, attributes: { version } };
}

function isNotFound(error: unknown): boolean {
  return error instanceof NotFoundError;
}

function isAlreadyThere(error: unknown): boolean {
  return error instanceof Error && !(error instanceof NotFoundError) && /already in the graph/.test(error.message);
}

/** `actual` holds the very objects of `expected`, in the same order. */
function assertSameObjects<T>(actual: readonly T[], expected: readonly T[], message: string): void {
  assert.equal(actual.length, expected.length, `${message}: length`);
  const differing = actual.findIndex((item, index) => item !== expected[index]);
  assert.equal(differing, -1, `${message}: item ${differing} differs`);
}

const sorted = (items: readonly string[]): string[] => [...items].sort();

/** The arguments of one edge callback. */
interface Visit {
  key: string;
  edge: Edge;
  source: string;
  target: string;
  sourceNode: Node;
  targetNode: Node;
}

/** Collects an edge iteration's calls, checking that each call's arguments agree with one another and with `graph`. */
function visits(graph: ResidentGraph, iterate: (callback: EdgeVisitor) => void, where: string): Visit[] {
  const seen: Visit[] = [];
  iterate((edge, sourceNode, targetNode) => {
    const key = edgeKey(edge);
    assert.equal(sourceNode.id, edge.src_id, `${where}: ${key} source`);
    assert.equal(targetNode.id, edge.dst_id, `${where}: ${key} target`);
    assert.equal(sourceNode, graph.node(edge.src_id), `${where}: ${key} source node`);
    assert.equal(targetNode, graph.node(edge.dst_id), `${where}: ${key} target node`);
    seen.push({ key, edge, source: sourceNode.id, target: targetNode.id, sourceNode, targetNode });
  });
  return seen;
}

/** The ids of `graph`'s nodes, in order. */
const idsOf = (graph: ResidentGraph) => graph.nodeValues().map((node) => node.id);

/** The keys of `graph`'s edges, in order. */
const keysOf = (graph: ResidentGraph) => graph.edgeValues().map(edgeKey);

/**
 * Cheap comparison with the model: order, size, ids in order, edge values, degrees. After a call that
 * threw or answered that it changed nothing (the model left as it was), it checks that nothing changed.
 */
function assertMatches(graph: ResidentGraph, model: Model, where: string): void {
  assert.equal(graph.order, model.order, `${where}: order`);
  assert.equal(graph.size, model.size, `${where}: size`);
  assert.deepEqual(idsOf(graph), model.nodes(), `${where}: nodes`);
  assert.deepEqual(keysOf(graph), model.edges(), `${where}: edges`);
  assertSameObjects(
    graph.edgeValues(),
    model.mapEdges((_key, edge) => edge),
    `${where}: edge values`,
  );
  model.forEachNode((id) => {
    assert.equal(graph.outDegree(id), model.outDegree(id), `${where}: out degree of ${id}`);
    assert.equal(graph.inDegree(id), model.inDegree(id), `${where}: in degree of ${id}`);
  });
}

/** Keys that are not edges of `model`: absent edges of existing and missing nodes, and malformed keys. */
function absentKeys(model: Model, next: () => number): string[] {
  const pick = (count: number) => Math.floor(next() * count);
  const keys = [
    '',
    'no-tabs',
    '\t',
    '\t\t',
    `${idOf(0)}\tCONSUMES`,
    `${idOf(0)}\tUNKNOWN\t${idOf(1)}`,
    `${idOf(2)}\t\t${idOf(3)}`,
  ];
  for (let index = 0; index < 20; index += 1) {
    keys.push(`${idOf(pick(NODE_IDS))}\t${EDGE_TYPES[pick(EDGE_TYPES.length)]!}\t${idOf(pick(NODE_IDS))}`);
  }
  for (const [index, key] of model.edges().slice(0, 10).entries()) {
    const [source, type, target] = key.split('\t') as [string, string, string];
    keys.push(
      `${key}\t`,
      `\t${key}`,
      `${key}x`,
      `${source}\t${type.toLowerCase()}\t${target}`,
      `${target}\t${type}\t${source}`,
    );
    keys.push(
      `${source}\t${EDGE_TYPES[(EDGE_TYPES.indexOf(type as EdgeType) + 1 + index) % EDGE_TYPES.length]!}\t${target}`,
    );
    keys.push(`${source}\t${type}\t${target}\t${target}`, `${source}\t${type}`, `${source}\t${target}`);
  }
  return keys.filter((key) => !model.hasEdge(key));
}

/** The whole comparison of `graph` with `model`. */
function assertSame(graph: ResidentGraph, model: Model, where: string, next: () => number): void {
  assert.equal(graph.order, model.order, `${where}: order`);
  assert.equal(graph.size, model.size, `${where}: size`);

  const nodes = model.nodes();
  assert.deepEqual(idsOf(graph), nodes, `${where}: nodes, in order`);
  const nodeValues = model.mapNodes((_id, node) => node);
  assertSameObjects(graph.nodeValues(), nodeValues, `${where}: node values`);
  const visitedNodes: Node[] = [];
  graph.forEachNode((node) => visitedNodes.push(node));
  assertSameObjects(visitedNodes, nodeValues, `${where}: forEachNode`);

  const edges = model.edges();
  const edgeValues = model.mapEdges((_key, edge) => edge);
  assert.deepEqual(keysOf(graph), edges, `${where}: edges, in order`);
  assertSameObjects(graph.edgeValues(), edgeValues, `${where}: edge values`);
  const everyEdge = visits(graph, (callback) => graph.forEachEdge(callback), `${where}: forEachEdge`);
  assertSameObjects(
    everyEdge.map((visit) => visit.edge),
    edgeValues,
    `${where}: forEachEdge values`,
  );

  const position = new Map(nodes.map((id, index) => [id, index]));
  const edgeEntries = [...graph.edgeEntries()];
  assertSameObjects(
    edgeEntries.map((entry) => entry.edge),
    edgeValues,
    `${where}: edgeEntries values`,
  );
  for (const entry of edgeEntries) {
    const key = edgeKey(entry.edge);
    assert.equal(entry.sourceIndex, position.get(entry.edge.src_id), `${where}: edgeEntries sourceIndex of ${key}`);
    assert.equal(entry.targetIndex, position.get(entry.edge.dst_id), `${where}: edgeEntries targetIndex of ${key}`);
  }

  // Each node's edges in the order they were added: the global order, filtered.
  const outOf = new Map<string, string[]>(nodes.map((id) => [id, []]));
  const into = new Map<string, string[]>(nodes.map((id) => [id, []]));
  model.forEachEdge((key, _edge, source, target) => {
    outOf.get(source)!.push(key);
    into.get(target)!.push(key);
  });
  for (const id of nodes) {
    const at = `${where}: node ${id}`;
    const node = model.getNodeAttributes(id);
    assert.ok(graph.hasNode(id), `${at}: hasNode`);
    assert.equal(graph.node(id), node, `${at}: node`);
    assert.equal(graph.getNodeAttributes(id), node, `${at}: getNodeAttributes`);
    assert.equal(graph.outDegree(id), model.outDegree(id), `${at}: outDegree`);
    assert.equal(graph.inDegree(id), model.inDegree(id), `${at}: inDegree`);

    const outgoing = visits(graph, (callback) => graph.forEachOutgoing(id, callback), `${at}: forEachOutgoing`);
    const outKeys = outgoing.map((visit) => visit.key);
    assert.deepEqual(outKeys, outOf.get(id), `${at}: out edges in the order they were added`);
    assert.deepEqual(sorted(outKeys), sorted(model.outEdges(id)), `${at}: graphology's out edges`);
    for (const visit of outgoing)
      assert.equal(visit.edge, model.getEdgeAttributes(visit.key), `${at}: out edge ${visit.key}`);
    assert.ok(
      outgoing.every((visit) => visit.source === id),
      `${at}: out edges leave the node`,
    );
    const incoming = visits(graph, (callback) => graph.forEachIncoming(id, callback), `${at}: forEachIncoming`);
    const inKeys = incoming.map((visit) => visit.key);
    assert.deepEqual(inKeys, into.get(id), `${at}: in edges in the order they were added`);
    assert.deepEqual(sorted(inKeys), sorted(model.inEdges(id)), `${at}: graphology's in edges`);
    for (const visit of incoming)
      assert.equal(visit.edge, model.getEdgeAttributes(visit.key), `${at}: in edge ${visit.key}`);
    assert.ok(
      incoming.every((visit) => visit.target === id),
      `${at}: in edges enter the node`,
    );
    assert.deepEqual(sorted(graph.outNeighbors(id)), sorted(model.outNeighbors(id)), `${at}: outNeighbors`);
    assert.deepEqual(sorted(graph.inNeighbors(id)), sorted(model.inNeighbors(id)), `${at}: inNeighbors`);
  }

  // `edgeOf` finds an edge by its parts: the key's three, split at its first and last tab.
  const partsOf = (key: string) => {
    const [first, last] = [key.indexOf('\t'), key.lastIndexOf('\t')];
    return { src_id: key.slice(0, first), edge_type: key.slice(first + 1, last), dst_id: key.slice(last + 1) } as Edge;
  };
  for (const key of edges) {
    const edge = model.getEdgeAttributes(key);
    assert.ok(graph.hasEdge(key), `${where}: hasEdge ${key}`);
    assert.equal(graph.edge(key), edge, `${where}: edge ${key}`);
    assert.equal(graph.edgeOf(partsOf(key)), edge, `${where}: edgeOf ${key}`);
    assert.equal(graph.edgeOf(edge), edge, `${where}: edgeOf the edge itself ${key}`);
  }
  for (const key of absentKeys(model, next)) {
    const shown = JSON.stringify(key);
    assert.equal(graph.hasEdge(key), false, `${where}: hasEdge ${shown}`);
    assert.equal(graph.edge(key), undefined, `${where}: edge ${shown}`);
    if (key.split('\t').length === 3) assert.equal(graph.edgeOf(partsOf(key)), undefined, `${where}: edgeOf ${shown}`);
  }

  const missing = ['', 'missing', ...Array.from({ length: NODE_IDS }, (_, index) => idOf(index))].filter(
    (id) => !model.hasNode(id),
  );
  for (const [index, id] of missing.entries()) {
    const at = `${where}: missing node ${JSON.stringify(id)}`;
    assert.equal(graph.hasNode(id), false, `${at}: hasNode`);
    assert.equal(graph.node(id), undefined, `${at}: node`);
    if (index % 4 === 0) assert.throws(() => graph.getNodeAttributes(id), isNotFound, `${at}: getNodeAttributes`);
    assert.equal(graph.outDegree(id), 0, `${at}: outDegree`);
    assert.equal(graph.inDegree(id), 0, `${at}: inDegree`);
    let calls = 0;
    const count = () => void (calls += 1);
    graph.forEachOutgoing(id, count);
    graph.forEachIncoming(id, count);
    assert.equal(calls, 0, `${at}: has no edges`);
    assert.deepEqual([...graph.outNeighbors(id), ...graph.inNeighbors(id)], [], `${at}: has no neighbours`);
  }
}

/** What a random run did, to check that it exercised what it is meant to. */
interface RunStats {
  operations: Record<string, number>;
  maxOrder: number;
  maxSize: number;
  selfLoops: number;
  parallel: number;
  readded: number;
  /** Compactions that the documented policy calls for (free slots >= the threshold and > half the live ones). */
  compactions: number;
}

const WEIGHTS: ReadonlyArray<readonly [string, number]> = [
  ['setNode', 16],
  ['addNode', 6],
  ['removeNode', 3],
  ['setEdge', 27],
  ['selfLoop', 3],
  ['parallel', 6],
  ['addEdge', 10],
  ['removeEdge', 10],
];
const TOTAL_WEIGHT = WEIGHTS.reduce((total, [, weight]) => total + weight, 0);

/** Applies `OPERATIONS` random operations to a `ResidentGraph` and to graphology, comparing them as it goes. */
function randomRun(seed: number, options: ResidentGraphOptions | undefined, threshold: number): RunStats {
  const next = seededRandom(seed);
  const pick = (count: number) => Math.floor(next() * count);
  const graph = new ResidentGraph(options);
  const model: Model = new MultiDirectedGraph<Node, Edge>({ allowSelfLoops: true });
  const stats: RunStats = {
    operations: {},
    maxOrder: 0,
    maxSize: 0,
    selfLoops: 0,
    parallel: 0,
    readded: 0,
    compactions: 0,
  };
  const removedOnce = new Set<string>();
  let version = 0;
  let [nodeSlots, edgeSlots] = [0, 0];

  const addedNode = (id: string) => {
    nodeSlots += 1;
    if (removedOnce.has(id)) stats.readded += 1;
  };
  const addedEdge = (edge: Edge) => {
    edgeSlots += 1;
    if (edge.src_id === edge.dst_id) stats.selfLoops += 1;
    if (model.edges(edge.src_id, edge.dst_id).length > 1) stats.parallel += 1;
  };
  const removed = () => {
    const sparse = (free: number, live: number) => free >= threshold && free * 2 > live;
    if (sparse(nodeSlots - model.order, model.order) || sparse(edgeSlots - model.size, model.size)) {
      [nodeSlots, edgeSlots] = [model.order, model.size];
      stats.compactions += 1;
    }
  };
  /** An id: often one in the graph, otherwise any of the id space. */
  const nodeId = (): string => {
    if (model.order > 0 && next() < 0.8) return model.nodes()[pick(model.order)]!;
    return idOf(pick(NODE_IDS));
  };
  /** An edge: often one in the graph (to replace or remove it), otherwise between any two ids. */
  const randomEdge = (): Edge => {
    if (model.size > 0 && next() < 0.4) {
      const existing = model.getEdgeAttributes(model.edges()[pick(model.size)]!);
      return makeEdge(existing.src_id, existing.edge_type, existing.dst_id, (version += 1));
    }
    return makeEdge(nodeId(), EDGE_TYPES[pick(EDGE_TYPES.length)]!, nodeId(), (version += 1));
  };
  const setEdge = (edge: Edge, where: string) => {
    const key = edgeKey(edge);
    const joins = model.hasNode(edge.src_id) && model.hasNode(edge.dst_id);
    const copy = structuredClone(edge);
    assert.equal(graph.setEdge(edge), joins, `${where}: setEdge ${key} answers whether both endpoints are there`);
    assert.deepEqual(edge, copy, `${where}: setEdge ${key} keeps the edge's values`);
    if (model.hasEdge(key)) model.replaceEdgeAttributes(key, edge);
    else if (joins) {
      model.addEdgeWithKey(key, edge.src_id, edge.dst_id, edge);
      addedEdge(edge);
    } else assertMatches(graph, model, `${where}: setEdge ${key} of a missing endpoint`);
  };

  for (let step = 0; step < OPERATIONS; step += 1) {
    const where = `seed ${seed}, operation ${step}`;
    let roll = pick(TOTAL_WEIGHT);
    let operation = next() < 0.001 ? 'clear' : WEIGHTS[0]![0];
    if (operation !== 'clear') {
      for (const [name, weight] of WEIGHTS) {
        if (roll < weight) {
          operation = name;
          break;
        }
        roll -= weight;
      }
    }
    stats.operations[operation] = (stats.operations[operation] ?? 0) + 1;

    switch (operation) {
      case 'setNode': {
        const index = pick(NODE_IDS);
        const node = makeNode(index, (version += 1));
        const previous = model.hasNode(node.id) ? model.getNodeAttributes(node.id) : undefined;
        assert.equal(graph.setNode(node.id, node), previous, `${where}: setNode answers the node it replaced`);
        if (previous === undefined) {
          model.addNode(node.id, node);
          addedNode(node.id);
        } else model.replaceNodeAttributes(node.id, node);
        break;
      }
      case 'addNode': {
        const node = makeNode(pick(NODE_IDS), (version += 1));
        if (model.hasNode(node.id)) {
          assert.throws(
            () => graph.addNode(node.id, node),
            isAlreadyThere,
            `${where}: addNode of ${node.id}, there already`,
          );
          assertMatches(graph, model, `${where}: after addNode threw`);
          assert.notEqual(graph.node(node.id), node, `${where}: addNode that threw kept the old node`);
        } else {
          graph.addNode(node.id, node);
          model.addNode(node.id, node);
          addedNode(node.id);
        }
        break;
      }
      case 'removeNode': {
        const id = nodeId();
        const present = model.hasNode(id);
        assert.equal(graph.removeNode(id), present, `${where}: removeNode ${id}`);
        if (present) {
          model.dropNode(id);
          removedOnce.add(id);
          removed();
        } else assertMatches(graph, model, `${where}: after ${operation} of a missing node`);
        break;
      }
      case 'setEdge':
        setEdge(randomEdge(), where);
        break;
      case 'selfLoop': {
        const id = nodeId();
        setEdge(makeEdge(id, EDGE_TYPES[pick(EDGE_TYPES.length)]!, id, (version += 1)), `${where} (self loop)`);
        break;
      }
      case 'parallel': {
        // Another type between the endpoints of an edge in the graph, either way round.
        const base = randomEdge();
        const type =
          EDGE_TYPES[(EDGE_TYPES.indexOf(base.edge_type) + 1 + pick(EDGE_TYPES.length - 1)) % EDGE_TYPES.length]!;
        const [source, target] = next() < 0.7 ? [base.src_id, base.dst_id] : [base.dst_id, base.src_id];
        setEdge(makeEdge(source, type, target, (version += 1)), `${where} (parallel)`);
        break;
      }
      case 'addEdge': {
        const edge = randomEdge();
        const key = edgeKey(edge);
        if (!model.hasNode(edge.src_id) || !model.hasNode(edge.dst_id)) {
          assert.throws(() => graph.addEdge(edge), isNotFound, `${where}: addEdge ${key} of a missing endpoint`);
          assertMatches(graph, model, `${where}: after addEdge threw`);
        } else if (model.hasEdge(key)) {
          assert.throws(() => graph.addEdge(edge), isAlreadyThere, `${where}: addEdge ${key}, there already`);
          assertMatches(graph, model, `${where}: after addEdge threw`);
          assert.equal(graph.edge(key), model.getEdgeAttributes(key), `${where}: addEdge that threw kept the old edge`);
        } else {
          const copy = structuredClone(edge);
          graph.addEdge(edge);
          assert.deepEqual(edge, copy, `${where}: addEdge ${key} keeps the edge's values`);
          model.addEdgeWithKey(key, edge.src_id, edge.dst_id, edge);
          addedEdge(edge);
        }
        break;
      }
      case 'removeEdge': {
        const { src_id, dst_id, edge_type } = randomEdge();
        const key = edgeKey({ src_id, dst_id, edge_type });
        const present = model.hasEdge(key);
        assert.equal(graph.removeEdge({ src_id, dst_id, edge_type }), present, `${where}: removeEdge ${key}`);
        if (present) {
          model.dropEdge(key);
          removed();
        } else assertMatches(graph, model, `${where}: after ${operation} of a missing edge`);
        break;
      }
      case 'clear':
        graph.clear();
        model.clear();
        [nodeSlots, edgeSlots] = [0, 0];
        assert.equal(graph.order + graph.size, 0, `${where}: clear empties the graph`);
        break;
      default:
        assert.fail(`unknown operation ${operation}`);
    }
    stats.maxOrder = Math.max(stats.maxOrder, model.order);
    stats.maxSize = Math.max(stats.maxSize, model.size);
    if ((step + 1) % CHECK_EVERY === 0) assertSame(graph, model, where, next);
  }
  assertSame(graph, model, `seed ${seed}, at the end`, next);
  return stats;
}

/** The exercise a run must have had for its comparisons to mean something. */
function assertExercised(stats: RunStats): void {
  for (const [name] of WEIGHTS)
    assert.ok((stats.operations[name] ?? 0) > 20, `${name} ran (${JSON.stringify(stats.operations)})`);
  assert.ok(stats.maxOrder >= 30, `the graph grew to ${stats.maxOrder} nodes`);
  assert.ok(stats.maxSize >= 100, `the graph grew to ${stats.maxSize} edges`);
  assert.ok(stats.selfLoops >= 10, `${stats.selfLoops} self loops were added`);
  assert.ok(stats.parallel >= 50, `${stats.parallel} parallel edges were added`);
  assert.ok(stats.readded >= 50, `${stats.readded} nodes were added again after their removal`);
}

describe('ResidentGraph against graphology', () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`answers as graphology on a random sequence of operations, compacting often (seed ${seed})`, () => {
      const stats = randomRun(seed, { compactAfterFreeSlots: 8 }, 8);
      assertExercised(stats);
      assert.ok(stats.compactions >= 5, `the removals call for compaction (${stats.compactions} times)`);
    });
    it(`answers as graphology on a random sequence of operations, default options (seed ${seed})`, () => {
      assertExercised(randomRun(seed * 7919, undefined, 4_096));
    });
  }

  for (const [label, options] of [
    ['default options', undefined],
    ['compacting often', { compactAfterFreeSlots: 8 }],
  ] as const) {
    it(`finds, replaces and removes the edges of a hub of thousands of edges (${label})`, () => {
      const LEAVES = 3_000;
      const next = seededRandom(99);
      const graph = new ResidentGraph(options);
      const model: Model = new MultiDirectedGraph<Node, Edge>({ allowSelfLoops: true });
      let version = 0;
      const add = (node: Node) => {
        graph.addNode(node.id, node);
        model.addNode(node.id, node);
      };
      const addEdge = (source: string, type: EdgeType, target: string) => {
        const edge = makeEdge(source, type, target, (version += 1));
        graph.addEdge(edge);
        model.addEdgeWithKey(edgeKey(edge), source, target, edge);
      };
      const [hub, other] = [makeNode(100_000, 0), makeNode(100_001, 0)];
      add(hub);
      add(other);
      const leafNodes = Array.from({ length: LEAVES }, (_, index) => makeNode(index, 0));
      for (const leaf of leafNodes) add(leaf);
      const leaves = leafNodes.map((leaf) => leaf.id);
      // Both hubs have thousands of edges each way; edges between them are found in one of two long lists.
      for (const [index, leaf] of leaves.entries()) {
        addEdge(hub.id, 'PRODUCES', leaf);
        addEdge(leaf, 'CONSUMES', hub.id);
        if (index % 2 === 0) addEdge(other.id, 'TRANSFORMS', leaf);
        if (index % 3 === 0) addEdge(leaf, 'TRANSFORMS', other.id);
        if (index % 10 === 0) addEdge(hub.id, 'MATERIALIZES', leaf);
        if (index === LEAVES / 2) {
          for (const type of ['PRODUCES', 'CONSUMES', 'TRANSFORMS'] as const) {
            addEdge(hub.id, type, other.id);
            addEdge(other.id, type, hub.id);
          }
          addEdge(hub.id, 'MEMBER_OF', hub.id);
        }
      }
      assert.equal(graph.outDegree(hub.id), LEAVES + LEAVES / 10 + 4);
      assert.equal(graph.inDegree(hub.id), LEAVES + 4);
      assertSame(graph, model, 'built', next);

      const absent = [
        ...leaves
          .slice(0, 50)
          .flatMap((leaf) => [
            `${hub.id}\tCONSUMES\t${leaf}`,
            `${leaf}\tPRODUCES\t${hub.id}`,
            `${other.id}\tCONSUMES\t${leaf}`,
            `${leaf}\tTRANSFORMS\t${hub.id}`,
          ]),
        `${hub.id}\tMEMBER_OF\t${other.id}`,
        `${other.id}\tHAS_SCHEMA\t${hub.id}`,
        `${other.id}\tMEMBER_OF\t${other.id}`,
        `${hub.id}\tPRODUCES\t${hub.id}`,
      ];
      for (const key of absent) {
        assert.equal(model.hasEdge(key), false, `${key} is not an edge of the hub graph`);
        assert.equal(graph.hasEdge(key), false, `hasEdge ${key}`);
        assert.equal(graph.edge(key), undefined, `edge ${key}`);
      }

      // Replace a third of the edges in place: same order, new values, found again by key.
      const before = keysOf(graph);
      for (const [index, key] of before.entries()) {
        if (index % 3 !== 0) continue;
        const [source, type, target] = key.split('\t') as [string, EdgeType, string];
        const edge = makeEdge(source, type, target, (version += 1));
        assert.equal(graph.setEdge(edge), true);
        model.replaceEdgeAttributes(key, edge);
        assert.equal(graph.edge(key), edge, `replaced ${key}`);
      }
      assert.deepEqual(keysOf(graph), before, 'replacing keeps the order');
      assertSame(graph, model, 'replaced', next);

      // Remove three quarters of the edges: from long and short lists, hub to hub and hub to leaf.
      for (const [index, key] of before.entries()) {
        if (index % 4 === 1) continue;
        const [src_id, edge_type, dst_id] = key.split('\t') as [string, EdgeType, string];
        assert.equal(graph.removeEdge({ src_id, dst_id, edge_type }), true, `removeEdge ${key}`);
        model.dropEdge(key);
        assert.equal(graph.hasEdge(key), false, `removed ${key}`);
        if (index % 97 === 0) assertMatches(graph, model, `after removing ${key}`);
      }
      assertSame(graph, model, 'removed', next);
      assert.ok(graph.size > 1_000, 'a quarter of the edges remain');

      // Removing the hub removes its edges and keeps the rest.
      assert.equal(graph.removeNode(hub.id), true);
      model.dropNode(hub.id);
      assertSame(graph, model, 'hub dropped', next);
      for (const key of before)
        assert.equal(graph.hasEdge(key), model.hasEdge(key), `after the hub is dropped, ${key}`);
      assert.ok(graph.size > 0 && graph.order === LEAVES + 1);
    });
  }

  it('refuses a node given under another id', () => {
    const graph = new ResidentGraph();
    const [a, b] = [makeNode(0, 0), makeNode(1, 0)];
    graph.setNode(a.id, a);
    graph.setNode(b.id, b);
    assert.throws(() => graph.setNode(a.id, makeNode(2, 0)), /given as node/);
    assert.equal(graph.order, 2);
    assert.equal(graph.hasNode(idOf(2)), false);
  });
});
