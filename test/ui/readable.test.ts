/**
 * The pure parts of the readable lineage view, in Node: names elided in the middle, consumer
 * groups and schemas folded into their topics, swimlanes, throughput of edges, dagre's card layout
 * (cards never overlap, lanes never overlap) and the runs read from OpenLineage events.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadUiModule, type LineageEdge, type LineageNode } from '../helpers/uiModules.js';

const { elideMiddle } = (await loadUiModule('cards')) as {
  elideMiddle(text: string, width: number, measure: (text: string) => number): string;
};
const { collapseIntoTopics, describeCollapsed, groupPath, edgeThroughputBetween, collapseGroups } = (await loadUiModule(
  'graphData',
)) as {
  collapseGroups(
    nodes: LineageNode[],
    edges: LineageEdge[],
    collapsed: string[],
  ): { nodes: LineageNode[]; edges: LineageEdge[]; counts: Map<string, number> };
  collapseIntoTopics(
    nodes: LineageNode[],
    edges: LineageEdge[],
  ): {
    nodes: LineageNode[];
    edges: LineageEdge[];
    collapsed: Map<string, { consumerGroups: number; schemas: number }>;
  };
  describeCollapsed(entry: { consumerGroups: number; schemas: number } | undefined): string;
  groupPath(node: LineageNode): string[];
  edgeThroughputBetween(
    edge: Pick<LineageEdge, 'edge_type'>,
    source: LineageNode | undefined,
    target: LineageNode | undefined,
  ): number | null;
};
/** An edge's throughput with its ends found by id (the page finds them by index). */
const edgeThroughput = (edge: LineageEdge, byId: Map<string, LineageNode>): number | null =>
  edgeThroughputBetween(edge, byId.get(edge.src_id), byId.get(edge.dst_id));
const { dagreLayout, layoutGraph, CARD_LAYOUT_LIMIT } = (await loadUiModule('layout')) as {
  dagreLayout(input: { nodeCount: number; sources: Int32Array; targets: Int32Array; groups?: string[][] }): {
    x: Float32Array;
    y: Float32Array;
    cardWidth: number;
    cardHeight: number;
    groups: { label: string; depth: number; x: number; y: number; width: number; height: number }[];
    algorithm: string;
  };
  layoutGraph(input: { nodeCount: number; sources: Int32Array; targets: Int32Array }): { algorithm: string };
  CARD_LAYOUT_LIMIT: number;
};
const { summarizeRuns } = (await loadUiModule('pages')) as {
  summarizeRuns(events: unknown[]): { runId: string; started: string | null; ended: string | null; state: string }[];
};

const node = (id: string, type: string, environment: string | null = 'env-1', cluster: string | null = 'lkc-1') =>
  ({
    id,
    node_type: type,
    system: environment ? 'STREAM' : 'LAKEHOUSE',
    qualified_name: id,
    display_name: id,
    environment_id: environment,
    cluster_id: cluster,
    attributes: null,
  }) satisfies LineageNode;
const edge = (src: string, dst: string, type: string): LineageEdge => ({
  src_id: src,
  dst_id: dst,
  edge_type: type,
  attributes: null,
});

describe('readable lineage view', () => {
  it('elides long names in the middle, keeping both ends, within the width', () => {
    const measure = (text: string) => text.length * 7;
    assert.equal(elideMiddle('orders', 100, measure), 'orders');
    const long = 'pg.retail.public.customer_order_items_enriched';
    const elided = elideMiddle(long, 140, measure);
    assert.ok(measure(elided) <= 140, elided);
    assert.match(elided, /^pg\.retail.*….*enriched$/);
    assert.equal(elideMiddle(long, 5, measure), '…');
  });

  it('folds consumer groups and schemas into their topic, and keeps the flow through a group to its job', () => {
    const nodes = [
      node('topic', 'TOPIC'),
      node('group', 'CONSUMER_GROUP'),
      node('lonely-group', 'CONSUMER_GROUP'),
      node('schema', 'SCHEMA'),
      node('job', 'STREAM_JOB'),
    ];
    const edges = [
      edge('topic', 'group', 'CONSUMES'),
      edge('group', 'job', 'MEMBER_OF'),
      edge('topic', 'schema', 'HAS_SCHEMA'),
    ];
    const folded = collapseIntoTopics(nodes, edges);
    assert.deepEqual(
      folded.nodes.map((item) => item.id),
      ['topic', 'lonely-group', 'job'],
    );
    assert.deepEqual(
      folded.edges.map((item) => `${item.src_id} ${item.edge_type} ${item.dst_id}`),
      ['topic CONSUMES job'],
    );
    assert.equal(describeCollapsed(folded.collapsed.get('topic')), '1 consumer group, 1 schema');
  });

  it('collapses an environment or a cluster into one node, leading its edges to it', () => {
    const nodes = [
      node('a', 'TOPIC', 'env-1', 'lkc-1'),
      node('b', 'STREAM_JOB', 'env-1', 'lkc-1'),
      node('c', 'TOPIC', 'env-1', 'lkc-2'),
      node('d', 'TOPIC', 'env-2', 'lkc-3'),
    ];
    const edges = [edge('a', 'b', 'CONSUMES'), edge('b', 'c', 'PRODUCES'), edge('b', 'd', 'PRODUCES')];
    const cluster = collapseGroups(nodes, edges, ['env-1/lkc-1']);
    assert.deepEqual(
      cluster.nodes.map((item) => item.id),
      ['c', 'd', 'group:env-1/lkc-1'],
    );
    assert.deepEqual(
      cluster.edges.map((item) => `${item.src_id} ${item.dst_id}`),
      ['group:env-1/lkc-1 c', 'group:env-1/lkc-1 d'],
    );
    assert.equal(cluster.counts.get('group:env-1/lkc-1'), 2);
    const environment = collapseGroups(nodes, edges, ['env-1', 'env-1/lkc-1']);
    assert.deepEqual(
      environment.nodes.map((item) => item.id),
      ['d', 'group:env-1'],
    );
    assert.equal(environment.counts.get('group:env-1'), 3, 'the outermost collapsed group holds its clusters');
    assert.deepEqual(collapseGroups(nodes, edges, []).nodes, nodes);
  });

  it('groups stream nodes by environment and cluster, others by system', () => {
    assert.deepEqual(groupPath(node('a', 'TOPIC')), ['env-1', 'lkc-1']);
    assert.deepEqual(groupPath(node('b', 'CATALOG_TABLE', null, null)), ['LAKEHOUSE']);
  });

  it("takes an edge's throughput from its topic's metrics, and none without them", () => {
    const topic: LineageNode = {
      ...node('t', 'TOPIC'),
      attributes: { metrics_received_bytes: 5000, metrics_sent_bytes: 9000 },
    };
    const byId = new Map<string, LineageNode>([
      ['t', topic],
      ['job', node('job', 'STREAM_JOB')],
    ]);
    assert.equal(edgeThroughput(edge('job', 't', 'PRODUCES'), byId), 5000);
    assert.equal(edgeThroughput(edge('t', 'job', 'CONSUMES'), byId), 9000);
    assert.equal(edgeThroughput(edge('job', 'job', 'PRODUCES'), byId), null);
  });

  it("takes an edge's throughput from its two ends given directly (the view finds them by index)", () => {
    const topic: LineageNode = {
      ...node('t', 'TOPIC'),
      attributes: { metrics_received_bytes: 5000, metrics_sent_bytes: Number.NaN },
    };
    const job = node('job', 'STREAM_JOB');
    assert.equal(edgeThroughputBetween(edge('job', 't', 'PRODUCES'), job, topic), 5000);
    assert.equal(edgeThroughputBetween(edge('t', 'job', 'CONSUMES'), topic, job), null, 'not a finite number');
    assert.equal(edgeThroughputBetween(edge('t', 'job', 'TRANSFORMS'), topic, job), null);
    assert.equal(edgeThroughputBetween(edge('job', 't', 'PRODUCES'), job, undefined), null);
  });

  it('lays out cards left to right in swimlanes, no two cards nor two lanes overlapping', () => {
    // Two environments, one with two clusters; a pipeline crossing them.
    const groups = [
      ['env-1', 'lkc-1'],
      ['env-1', 'lkc-1'],
      ['env-1', 'lkc-2'],
      ['env-2', 'lkc-3'],
      ['env-2', 'lkc-3'],
      ['LAKEHOUSE'],
    ];
    const sources = Int32Array.from([0, 1, 2, 3, 4, 0]);
    const targets = Int32Array.from([1, 2, 3, 4, 5, 2]);
    const result = dagreLayout({ nodeCount: 6, sources, targets, groups });
    assert.equal(result.algorithm, 'dagre');
    for (let i = 0; i < sources.length; i++)
      assert.ok(result.x[targets[i]!]! > result.x[sources[i]!]!, `edge ${i} points right`);
    for (let a = 0; a < 6; a++)
      for (let b = a + 1; b < 6; b++)
        assert.ok(
          Math.abs(result.x[a]! - result.x[b]!) >= result.cardWidth ||
            Math.abs(result.y[a]! - result.y[b]!) >= result.cardHeight,
          `cards ${a} and ${b} overlap`,
        );
    const labels = result.groups.map((group) => group.label).sort();
    assert.deepEqual(labels, ['LAKEHOUSE', 'env-1', 'env-1 / lkc-1', 'env-1 / lkc-2', 'env-2', 'env-2 / lkc-3']);
    // Each node lies inside its lane's box; lanes of the same depth do not overlap.
    const box = (label: string) => result.groups.find((group) => group.label === label)!;
    groups.forEach((path, v) => {
      const lane = box(path.join(' / '));
      assert.ok(Math.abs(result.y[v]! - lane.y) <= lane.height / 2, `node ${v} in ${lane.label}`);
    });
    const depthZero = result.groups.filter((group) => group.depth === 0).sort((a, b) => b.y - a.y);
    for (let i = 1; i < depthZero.length; i++)
      assert.ok(depthZero[i - 1]!.y - depthZero[i - 1]!.height / 2 >= depthZero[i]!.y + depthZero[i]!.height / 2);
  });

  it('uses dagre up to its limit and the linear layered layout above it', () => {
    const chain = (count: number) => ({
      nodeCount: count,
      sources: Int32Array.from({ length: count - 1 }, (_, i) => i),
      targets: Int32Array.from({ length: count - 1 }, (_, i) => i + 1),
    });
    assert.equal(layoutGraph(chain(10)).algorithm, 'dagre');
    assert.equal(layoutGraph(chain(CARD_LAYOUT_LIMIT + 1)).algorithm, 'layered');
  });

  it('reads runs from OpenLineage events: first and last event times, the latest state, newest run first', () => {
    const runs = summarizeRuns([
      { eventType: 'START', eventTime: '2026-11-20T10:00:00Z', run: { runId: 'a' } },
      { eventType: 'COMPLETE', eventTime: '2026-11-20T10:04:00Z', run: { runId: 'a' } },
      { eventType: 'START', eventTime: '2026-11-21T10:00:00Z', run: { runId: 'b' } },
      { eventType: 'FAIL', eventTime: '2026-11-21T10:01:00Z', run: { runId: 'b' } },
    ]);
    assert.deepEqual(runs, [
      { runId: 'b', started: '2026-11-21T10:00:00Z', ended: '2026-11-21T10:01:00Z', state: 'FAIL' },
      { runId: 'a', started: '2026-11-20T10:00:00Z', ended: '2026-11-20T10:04:00Z', state: 'COMPLETE' },
    ]);
  });
});
