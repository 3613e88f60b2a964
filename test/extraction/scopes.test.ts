/**
 * Scopes that own exactly what they read (issue 14, item 3; `src/extraction/scopes.ts`): the two
 * linked demo environments (retail-prod mirrors `pg.retail.public.order_items` into retail-dev
 * through the cluster link `retail-prod-to-dev`) are extracted in every order and subset, each
 * sequence into a fresh store. Whatever the order, the final graph depends only on which
 * environments were extracted, and no write removes a node or edge that a later write adds back.
 * Likewise for retail-prod's two clusters extracted one at a time (`--cluster`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openRuntime, type LineageRuntime } from '../../infra/runtime.js';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import { diffGraph, type GraphReader } from '../../src/graph/changes.js';
import { externalDatasetId, topicId } from '../../src/graph/ids.js';
import { edgeKey, type Edge, type LineageGraph, type Node } from '../../src/graph/model.js';
import { extract } from '../../src/extraction/extract.js';
import { recordExtraction } from '../../src/extraction/record.js';
import { extractionScope, ownsEdge, reportingEnd, resolveAgainstStored } from '../../src/extraction/scopes.js';
import { DEFAULT_GRAPH_NAME, graphIdForName } from '../../src/graphCommands.js';
import { silentLogger } from '../../src/logger.js';
import { DEDICATED, DEV, PROD, STANDARD, fastApi } from './helpers.js';

const Q = PROD;
const X = DEV;
const DEV_CLUSTER = 'lkc-9d2f4g';
const MIRRORED = 'pg.retail.public.order_items';
const PROD_TOPIC = topicId(Q, DEDICATED, MIRRORED);
const DEV_MIRROR = topicId(X, DEV_CLUSTER, MIRRORED);
const STAND_IN = externalDatasetId(X, `kafka://${DEDICATED}/${MIRRORED}`);
const GRAPH_ID = graphIdForName(DEFAULT_GRAPH_NAME);

/** Every sequence of extractions tried: each step is the environments of one extraction. */
const SEQUENCES: string[][][] = [
  [[Q]],
  [[X]],
  [[Q, X]],
  [[X, Q]],
  [[Q], [Q]],
  [[X], [X]],
  [[Q], [X]],
  [[X], [Q]],
  [[Q, X], [Q]],
  [[Q, X], [X]],
  [[Q], [Q, X]],
  [[X], [Q, X]],
  [[Q], [X], [Q]],
  [[X], [Q], [X]],
  [[Q, X], [Q], [X]],
  [[Q, X], [X], [Q]],
  [[X], [X], [Q], [Q]],
  [[Q], [X], [Q, X], [X]],
  [[X], [Q, X], [X], [Q], [Q, X]],
];

interface SequenceOutcome {
  nodes: Map<string, Node>;
  edges: Map<string, Edge>;
  /** `node {id}` / `edge {key}` removed by one write and added back by a later one. */
  readded: string[];
}

let sim: PlatformSimulator;
before(async () => {
  sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
});
after(async () => {
  await sim.close();
});

/**
 * Extracts and records each step of `sequence`, one after the other, into a fresh memory store; a
 * step is the environments of one extraction, with `clusterIds` as its cluster filter when given.
 */
async function runSequence(
  sequence: readonly string[][],
  clusterIds: readonly (string[] | undefined)[] = [],
): Promise<SequenceOutcome> {
  const runtime = await openRuntime({ storage: { backend: 'memory', path: '', url: undefined } }, silentLogger());
  try {
    const api = fastApi(sim);
    for (const [index, environmentIds] of sequence.entries()) {
      const clusters = clusterIds[index];
      await recordExtraction(runtime, { environmentIds, clusterIds: clusters, enableMetrics: false }, () =>
        extract({ platform: api, logger: silentLogger() }, { environmentIds, clusterIds: clusters }),
      );
    }
    const reader = runtime.commands.state.snapshot(GRAPH_ID)!.reader;
    return {
      nodes: new Map([...reader.nodes()].map((node) => [node.id, node])),
      edges: new Map([...reader.edges()].map((edge) => [edgeKey(edge), edge])),
      readded: await readdedItems(runtime),
    };
  } finally {
    await runtime.close();
  }
}

/** The nodes and edges of the graph's history that one write removed and a later write added back. */
async function readdedItems(runtime: LineageRuntime): Promise<string[]> {
  const removed = new Set<string>();
  const readded: string[] = [];
  const added = (key: string) => {
    if (removed.has(key)) readded.push(key);
  };
  for (const event of await runtime.store.readStream(`graph-${GRAPH_ID}`)) {
    const data = event.data as { nodes?: Node[]; node_ids?: string[]; edges?: Edge[] };
    if (event.type === 'NodesAdded') for (const node of data.nodes ?? []) added(`node ${node.id}`);
    if (event.type === 'NodesRemoved') for (const id of data.node_ids ?? []) removed.add(`node ${id}`);
    if (event.type === 'EdgesAdded') for (const edge of data.edges ?? []) added(`edge ${edgeKey(edge)}`);
    if (event.type === 'EdgesRemoved') for (const edge of data.edges ?? []) removed.add(`edge ${edgeKey(edge)}`);
  }
  return readded;
}

/** The environments a sequence extracted at least once, sorted: `env-q7m2k9,env-x2n4c6`. */
function union(sequence: readonly string[][]): string {
  return [...new Set(sequence.flat())].sort().join(',');
}

function describeSequence(sequence: readonly string[][]): string {
  return sequence.map((step) => `{${step.map((env) => (env === Q ? 'Q' : 'X')).join(',')}}`).join(' then ');
}

describe('extraction scopes: the linked demo environments in every order and subset', () => {
  it('converge to one graph per set of extracted environments, with no remove-then-add in the history', async () => {
    const finals = new Map<string, { sequence: string; outcome: SequenceOutcome }>();
    for (const sequence of SEQUENCES) {
      const name = describeSequence(sequence);
      const outcome = await runSequence(sequence);
      assert.deepEqual(outcome.readded, [], `${name}: removed then added back`);
      const first = finals.get(union(sequence));
      if (!first) {
        finals.set(union(sequence), { sequence: name, outcome });
        continue;
      }
      assert.deepEqual(
        [...outcome.nodes.keys()].sort(),
        [...first.outcome.nodes.keys()].sort(),
        `${name} and ${first.sequence}: node ids`,
      );
      assert.deepEqual(
        [...outcome.edges.keys()].sort(),
        [...first.outcome.edges.keys()].sort(),
        `${name} and ${first.sequence}: edge keys`,
      );
      for (const [id, node] of outcome.nodes)
        assert.deepEqual(node, first.outcome.nodes.get(id), `${name}: node ${id}`);
      for (const [key, edge] of outcome.edges)
        assert.deepEqual(edge, first.outcome.edges.get(key), `${name}: edge ${key}`);
    }
    assert.deepEqual([...finals.keys()].sort(), [Q, [Q, X].sort().join(','), X].sort());

    const both = finals.get([Q, X].sort().join(','))!.outcome;
    const link = both.edges.get(edgeKey({ src_id: PROD_TOPIC, dst_id: DEV_MIRROR, edge_type: 'TRANSFORMS' }));
    assert.equal(link?.attributes?.cluster_link, 'retail-prod-to-dev', 'the mirror links the retail-prod topic');
    assert.ok(!both.nodes.has(STAND_IN), 'no kafka:// stand-in once retail-prod is in the graph');

    const devOnly = finals.get(X)!.outcome;
    assert.ok(devOnly.nodes.has(STAND_IN), 'retail-dev alone: the source is a kafka:// stand-in');
    assert.ok(devOnly.edges.has(edgeKey({ src_id: STAND_IN, dst_id: DEV_MIRROR, edge_type: 'TRANSFORMS' })));

    const prodOnly = finals.get(Q)!.outcome;
    assert.ok(prodOnly.nodes.has(PROD_TOPIC));
    assert.ok(![...prodOnly.nodes.values()].some((node) => node.environment_id === X), 'nothing of retail-dev');
  });
});

/** Node ids and edge keys of an outcome, for comparisons. */
function shape(outcome: SequenceOutcome): { nodes: string[]; edges: string[] } {
  return { nodes: [...outcome.nodes.keys()].sort(), edges: [...outcome.edges.keys()].sort() };
}

describe('extraction scopes: one cluster at a time', () => {
  it('extracting the two clusters of retail-prod one after the other, in either order, gives retail-prod whole', async () => {
    const whole = await runSequence([[Q]]);
    for (const order of [
      [STANDARD, DEDICATED],
      [DEDICATED, STANDARD],
    ]) {
      const outcome = await runSequence(
        order.map(() => [Q]),
        order.map((cluster) => [cluster]),
      );
      assert.deepEqual(outcome.readded, [], `${order.join(' then ')}: removed then added back`);
      const [got, want] = [shape(outcome), shape(whole)];
      const missing = [
        ...want.nodes.filter((id) => !got.nodes.includes(id)),
        ...want.edges.filter((key) => !got.edges.includes(key)),
      ];
      const extra = [
        ...got.nodes.filter((id) => !want.nodes.includes(id)),
        ...got.edges.filter((key) => !want.edges.includes(key)),
      ];
      assert.deepEqual({ missing, extra }, { missing: [], extra: [] }, order.join(' then '));
    }
  });
});

/** A reader over a graph value. */
function reader(graph: LineageGraph): GraphReader {
  const nodes = new Map(graph.nodes.map((node) => [node.id, node]));
  const edges = new Map(graph.edges.map((edge) => [edgeKey(edge), edge]));
  return {
    getNode: (id) => nodes.get(id),
    getEdge: (key) => edges.get(key),
    nodes: () => nodes.values(),
    edges: () => edges.values(),
  };
}

function topic(env: string, cluster: string, name: string, attributes: Record<string, unknown> = {}): Node {
  return {
    id: topicId(env, cluster, name),
    node_type: 'TOPIC',
    system: 'STREAM',
    qualified_name: `${cluster}/${name}`,
    display_name: name,
    environment_id: env,
    cluster_id: cluster,
    attributes,
  };
}

describe('extraction scopes: ownership and resolution rules', () => {
  const linkAttributes = { cluster_link: 'retail-prod-to-dev', source_cluster_id: DEDICATED, mirror_status: 'ACTIVE' };
  const prodTopic = topic(Q, DEDICATED, MIRRORED, { partitions: 12 });
  const devMirror = topic(X, DEV_CLUSTER, MIRRORED, { partitions: 12 });
  const mirrorEdge: Edge = {
    src_id: PROD_TOPIC,
    dst_id: DEV_MIRROR,
    edge_type: 'TRANSFORMS',
    attributes: linkAttributes,
  };

  it('gives each edge to the node that reports it', () => {
    assert.equal(reportingEnd(mirrorEdge), 'dst');
    assert.equal(reportingEnd({ edge_type: 'TRANSFORMS', attributes: null }), 'src');
    assert.equal(reportingEnd({ edge_type: 'CONSUMES', attributes: { lag: 3 } }), 'dst');
    for (const type of ['PRODUCES', 'HAS_SCHEMA', 'MATERIALIZES', 'MEMBER_OF'] as const)
      assert.equal(reportingEnd({ edge_type: type, attributes: null }), 'src', type);
  });

  it('keeps the mirror edge of retail-dev when retail-prod is extracted alone', () => {
    const stored = reader({ nodes: [prodTopic, devMirror], edges: [mirrorEdge] });
    const scope = extractionScope([Q]);
    const changes = diffGraph(
      stored,
      { nodes: [prodTopic], edges: [] },
      { mode: 'replace', scope, ownsEdge: ownsEdge(scope), resolve: resolveAgainstStored(scope) },
    );
    assert.deepEqual(changes.edgesRemoved, []);
    assert.deepEqual(changes.nodesRemoved, []);
  });

  it('gives the mirror edge back its stand-in when retail-prod no longer has the topic', () => {
    const stored = reader({ nodes: [prodTopic, devMirror], edges: [mirrorEdge] });
    const scope = extractionScope([Q]);
    const changes = diffGraph(
      stored,
      { nodes: [], edges: [] },
      { mode: 'replace', scope, ownsEdge: ownsEdge(scope), resolve: resolveAgainstStored(scope) },
    );
    assert.deepEqual(changes.nodesRemoved, [PROD_TOPIC]);
    assert.deepEqual(
      changes.nodesAdded.map((node) => [node.id, node.environment_id, node.cluster_id]),
      [[STAND_IN, X, DEV_CLUSTER]],
    );
    assert.deepEqual(changes.edgesAdded, [{ ...mirrorEdge, src_id: STAND_IN }]);
  });

  it('leaves a stored node of another scope alone when the extraction names it only as a placeholder', () => {
    const stored = reader({ nodes: [devMirror], edges: [] });
    const scope = extractionScope([Q]);
    const placeholder = topic(X, DEV_CLUSTER, MIRRORED, { placeholder: true });
    const changes = diffGraph(
      stored,
      { nodes: [placeholder], edges: [] },
      { mode: 'replace', scope, ownsEdge: ownsEdge(scope), resolve: resolveAgainstStored(scope) },
    );
    assert.deepEqual(changes.nodesChanged, []);
  });
});
