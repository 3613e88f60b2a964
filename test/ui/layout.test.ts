/**
 * The layered layout (`ui/src/layout.ts`, run by the UI in a web worker) and the pure graph
 * functions of the UI (`ui/src/graphData.ts`) and its URL state (`ui/src/viewState.ts`), in Node.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadUiModule, type LineageEdge, type LineageNode } from '../helpers/uiModules.js';

interface LayoutResult {
  x: Float32Array;
  y: Float32Array;
  layer: Int32Array;
  layerCount: number;
}
type Filters = Record<'systems' | 'types' | 'environments' | 'clusters', string[]> & {
  showSchemas: boolean;
  showInternal: boolean;
};
type Diff = {
  from: { as_of: string | null; revision: number; time: string | null };
  to: { as_of: string | null; revision: number; time: string | null };
  nodes: { added: LineageNode[]; removed: LineageNode[]; changed: unknown[] };
  edges: { added: LineageEdge[]; removed: LineageEdge[]; changed: unknown[] };
};

const { layeredLayout } = (await loadUiModule('layout')) as {
  layeredLayout(
    input: { nodeCount: number; sources: Int32Array; targets: Int32Array; order?: Float64Array },
    options?: { maxRows?: number },
  ): LayoutResult;
};
const { diffScene, isInternalTopic, passesFilters } = (await loadUiModule('graphData')) as {
  diffScene(
    nodes: LineageNode[],
    edges: LineageEdge[],
    diff: Diff,
  ): { nodes: LineageNode[]; edges: LineageEdge[]; marks: Map<string, string> };
  isInternalTopic(node: LineageNode): boolean;
  passesFilters(node: LineageNode, filters: Filters): boolean;
};
const { readViewState, writeViewState } = (await loadUiModule('viewState')) as {
  readViewState(search: string): Record<string, unknown> & { focus: string | null; hops: number; systems: string[] };
  writeViewState(state: unknown): string;
};

const edgesOf = (pairs: [number, number][]) => ({
  sources: Int32Array.from(pairs.map(([s]) => s)),
  targets: Int32Array.from(pairs.map(([, t]) => t)),
});

describe('layered layout', () => {
  it('puts sources left, every edge pointing right, and keeps a chain in order', () => {
    // 0 -> 1 -> 2 -> 3, and 4 -> 2 (a second source), 2 -> 5 (a second sink)
    const { sources, targets } = edgesOf([
      [0, 1],
      [1, 2],
      [2, 3],
      [4, 2],
      [2, 5],
    ]);
    const result = layeredLayout({ nodeCount: 6, sources, targets });
    assert.deepEqual(Array.from(result.layer), [0, 1, 2, 3, 0, 3]);
    assert.equal(result.layerCount, 4);
    for (let i = 0; i < sources.length; i++)
      assert.ok(result.x[targets[i]!]! > result.x[sources[i]!]!, `edge ${i} points right`);
    assert.equal(result.x[0], result.x[4], 'both sources in the first column');
  });

  it('breaks cycles instead of failing, and lays out every node', () => {
    const { sources, targets } = edgesOf([
      [0, 1],
      [1, 2],
      [2, 0],
      [2, 3],
    ]);
    const result = layeredLayout({ nodeCount: 5, sources, targets });
    assert.equal(result.x.length, 5);
    assert.ok(Array.from(result.x).every(Number.isFinite) && Array.from(result.y).every(Number.isFinite));
    assert.ok(result.layer[3]! > result.layer[2]!);
  });

  it('uncrosses two parallel pipelines given in a crossing order', () => {
    // a0 -> a1 and b0 -> b1, with the initial order putting a1 below b1.
    const { sources, targets } = edgesOf([
      [0, 3],
      [1, 2],
    ]);
    const result = layeredLayout({ nodeCount: 4, sources, targets, order: Float64Array.from([0, 1, 2, 3]) });
    const above = (a: number, b: number) => result.y[a]! > result.y[b]!;
    assert.equal(above(0, 1), above(3, 2), 'each target sits on the same side as its source');
  });

  it('splits a very tall layer into sub-columns', () => {
    const pairs: [number, number][] = [];
    for (let i = 1; i <= 400; i++) pairs.push([0, i]);
    const result = layeredLayout({ nodeCount: 401, ...edgesOf(pairs) }, { maxRows: 100 });
    const columns = new Set(Array.from(result.x).slice(1));
    assert.equal(columns.size, 4);
  });

  it('rejects edges naming unknown nodes', () => {
    assert.throws(() => layeredLayout({ nodeCount: 2, ...edgesOf([[0, 2]]) }), /names a node outside 0..1/);
  });
});

const node = (id: string, node_type: string, system = 'STREAM', extra: Partial<LineageNode> = {}): LineageNode => ({
  id,
  node_type,
  system,
  qualified_name: id,
  display_name: id,
  environment_id: 'env-1',
  cluster_id: 'lkc-1',
  attributes: null,
  ...extra,
});
const edge = (src_id: string, dst_id: string, edge_type = 'PRODUCES'): LineageEdge => ({
  src_id,
  dst_id,
  edge_type,
  attributes: null,
});

describe('UI graph functions', () => {
  it('hides schemas and internal topics unless asked, and filters by system and type', () => {
    const filters: Filters = {
      systems: [],
      types: [],
      environments: [],
      clusters: [],
      showSchemas: false,
      showInternal: false,
    };
    assert.equal(passesFilters(node('s', 'SCHEMA'), filters), false);
    assert.equal(passesFilters(node('s', 'SCHEMA'), { ...filters, showSchemas: true }), true);
    assert.equal(isInternalTopic(node('__consumer_offsets', 'TOPIC')), true);
    assert.equal(isInternalTopic(node('app-store-changelog', 'TOPIC')), true);
    assert.equal(isInternalTopic(node('orders', 'TOPIC')), false);
    assert.equal(passesFilters(node('orders', 'TOPIC'), { ...filters, systems: ['LAKEHOUSE'] }), false);
    assert.equal(passesFilters(node('orders', 'TOPIC'), { ...filters, types: ['TOPIC'], clusters: ['lkc-1'] }), true);
  });

  it('draws a diff as the graph at its end plus what was removed, each marked', () => {
    const scene = diffScene([node('a', 'TOPIC'), node('b', 'TOPIC')], [edge('a', 'b', 'TRANSFORMS')], {
      from: { as_of: '1', revision: 1, time: null },
      to: { as_of: null, revision: 2, time: null },
      nodes: { added: [node('b', 'TOPIC')], removed: [node('c', 'TOPIC')], changed: [] },
      edges: { added: [edge('a', 'b', 'TRANSFORMS')], removed: [edge('c', 'a', 'TRANSFORMS')], changed: [] },
    });
    assert.deepEqual(
      scene.nodes.map((n) => n.id),
      ['a', 'b', 'c'],
    );
    assert.equal(scene.marks.get('b'), 'added');
    assert.equal(scene.marks.get('c'), 'removed');
    assert.equal(scene.marks.get('c -[TRANSFORMS]-> a'), 'removed');
    assert.equal(scene.edges.length, 2);
  });

  it('keeps every view state in the URL and reads it back', () => {
    const state = readViewState(
      '?graph=g1&as_of=7&focus=stream%3Atopic%3Aenv-1%3Alkc-1%2Forders&hops=3&system=STREAM,LAKEHOUSE&schemas=1&diff_from=2&tab=changes',
    );
    assert.equal(state.focus, 'stream:topic:env-1:lkc-1/orders');
    assert.equal(state.hops, 3);
    assert.deepEqual(state.systems, ['STREAM', 'LAKEHOUSE']);
    assert.equal(state.showSchemas, true);
    assert.equal(state.tab, 'changes');
    assert.deepEqual(readViewState(writeViewState(state)), state);
    assert.equal(readViewState('?hops=0').hops, 2, 'bad hops fall back to the default');
    assert.equal(writeViewState(readViewState('')), '');
  });
});
