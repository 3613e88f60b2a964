/**
 * Imports that validate each item once (issue 16, item 2): `parseLineageGraph` with `inPlace`
 * replaces each given item by its parsed form in the input's own arrays, reports every schema issue
 * with the same paths as a whole-graph parse, and leaves the input alone without `inPlace`; a graph
 * file with a malformed item in the middle stores nothing, through the start-up import and through
 * `POST /graphs/{id}/import` (400 problem+json); and a 400,000-item graph file imports on sqlite.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readGraphFile } from '../../infra/graphFile.js';
import { importGraphFileIfEmpty, openRuntime } from '../../infra/runtime.js';
import { loadConfig } from '../../src/config.js';
import { ValidationError } from '../../src/errors.js';
import { consumerGroupId, topicId } from '../../src/graph/ids.js';
import type { LineageGraph } from '../../src/graph/model.js';
import { parseLineageGraph } from '../../src/graph/validation.js';
import { DEFAULT_GRAPH_NAME, graphIdForName } from '../../src/graphCommands.js';
import { silentLogger } from '../../src/logger.js';
import { sampleGraph } from '../helpers/sampleGraph.js';
import { assertProblem, call, startApi } from '../http/helpers.js';

const ENVIRONMENT = 'env-import';
const CLUSTER = 'lkc-import';

/**
 * `topics` topics and as many consumer groups, each group reading its topic and the next five
 * (6 edges per group): `topics * 2` nodes and `topics * 6` edges, in the wire form (lower-case enums,
 * no `attributes` on edges) so that parsing has something to normalize.
 */
function wideGraph(topics: number): LineageGraph {
  const nodes: Record<string, unknown>[] = [];
  const edges: Record<string, unknown>[] = [];
  for (let index = 0; index < topics; index += 1) {
    nodes.push({
      id: topicId(ENVIRONMENT, CLUSTER, `topic-${index}`),
      node_type: 'topic',
      system: 'stream',
      qualified_name: `${CLUSTER}/topic-${index}`,
      display_name: `topic-${index}`,
      environment_id: ENVIRONMENT,
      cluster_id: CLUSTER,
      attributes: { partitions: (index % 12) + 1 },
    });
  }
  for (let index = 0; index < topics; index += 1) {
    const group = consumerGroupId(ENVIRONMENT, CLUSTER, `group-${index}`);
    nodes.push({
      id: group,
      node_type: 'CONSUMER_GROUP',
      system: 'STREAM',
      qualified_name: `${CLUSTER}/group-${index}`,
      display_name: `group-${index}`,
      environment_id: ENVIRONMENT,
      cluster_id: CLUSTER,
    });
    for (const offset of [0, 1, 2, 3, 4, 5]) {
      edges.push({ src_id: nodes[(index + offset) % topics]!.id, dst_id: group, edge_type: 'consumes' });
    }
  }
  return { nodes, edges } as unknown as LineageGraph;
}

/** A copy of `graph` with node `index` made invalid (an unknown node type). */
function withMalformedNode(graph: LineageGraph, index: number): LineageGraph {
  const nodes = graph.nodes.map((node, at) => (at === index ? { ...node, node_type: 'QUEUE' } : node));
  return { ...graph, nodes } as unknown as LineageGraph;
}

describe('parseLineageGraph validates each item once', () => {
  it('puts the parsed items in the input arrays with inPlace, and leaves the input alone without', () => {
    const given = wideGraph(10);
    const kept = structuredClone(given);
    const copy = parseLineageGraph(given);
    assert.deepEqual(given, kept, 'without inPlace the input is unchanged');
    assert.equal(copy.nodes[0]!.node_type, 'TOPIC');
    assert.equal(copy.edges[0]!.attributes, null);

    const parsed = parseLineageGraph(given, undefined, { inPlace: true });
    assert.equal(parsed.nodes, given.nodes, 'the same arrays');
    assert.equal(parsed.edges, given.edges);
    assert.deepEqual(parsed, copy, 'the same graph either way');
    assert.equal(given.nodes[0]!.node_type, 'TOPIC', 'the given item was replaced by its parsed form');
  });

  it('lists every schema issue with its path, as a whole-graph parse does', () => {
    const given = wideGraph(20);
    (given.nodes[7] as Record<string, unknown>).system = 42;
    (given.edges[31] as Record<string, unknown>).edge_type = 'FEEDS';
    assert.throws(
      () => parseLineageGraph(given, undefined, { inPlace: true }),
      (thrown: unknown) => {
        assert.ok(thrown instanceof ValidationError);
        assert.match(thrown.message, /^invalid lineage graph: nodes\.7\.system: .* \(and 1 more\)$/);
        assert.deepEqual(
          thrown.issues.map((issue) => issue.path),
          ['nodes.7.system', 'edges.31.edge_type'],
        );
        return true;
      },
    );
  });

  it('refuses a top level that is not a graph with the schema messages', () => {
    assert.throws(() => parseLineageGraph([], undefined, { inPlace: true }), /invalid lineage graph: \(root\)/);
    assert.throws(() => parseLineageGraph({ nodes: 3 }, undefined, { inPlace: true }), /nodes/);
  });
});

describe('graph file imports', () => {
  const folder = mkdtempSync(join(tmpdir(), 'lineage-svc-import-once-'));
  after(() => rmSync(folder, { recursive: true, force: true }));

  it('a malformed node in the middle of the file: a clear error, and nothing stored', async () => {
    const path = join(folder, 'malformed.json');
    writeFileSync(path, JSON.stringify(withMalformedNode(wideGraph(500), 500)));
    await assert.rejects(readGraphFile(path), (error: unknown) => {
      assert.ok(error instanceof ValidationError);
      assert.match(error.message, /malformed\.json: invalid lineage graph: nodes\.500\.node_type/);
      assert.deepEqual(
        error.issues.map((issue) => issue.path),
        ['nodes.500.node_type'],
      );
      return true;
    });
    const runtime = await openRuntime(
      loadConfig({ LINEAGE_SVC_STORAGE__BACKEND: 'sqlite', LINEAGE_SVC_STORAGE__PATH: join(folder, 'store-bad') }),
      silentLogger(),
    );
    try {
      assert.equal(await importGraphFileIfEmpty(runtime, path, silentLogger()), 'invalid-file');
      assert.equal(await runtime.store.headPosition(), 0, 'nothing was appended');
      assert.equal(runtime.graphs.list().length, 0);
    } finally {
      await runtime.close();
    }
  });

  it('a 400,000-item file (100,000 nodes, 300,000 edges) imports on sqlite', async () => {
    const path = join(folder, 'wide.json');
    writeFileSync(path, JSON.stringify(wideGraph(50_000)));
    const runtime = await openRuntime(
      loadConfig({ LINEAGE_SVC_STORAGE__BACKEND: 'sqlite', LINEAGE_SVC_STORAGE__PATH: join(folder, 'store') }),
      silentLogger(),
    );
    try {
      assert.equal(await importGraphFileIfEmpty(runtime, path, silentLogger()), 'imported');
      const state = runtime.graphs.get(graphIdForName(DEFAULT_GRAPH_NAME));
      assert.ok(state);
      assert.equal(state.graph.order, 100_000);
      assert.equal(state.graph.size, 300_000);
      const group = consumerGroupId(ENVIRONMENT, CLUSTER, 'group-49999');
      assert.deepEqual(state.graph.getNodeAttributes(group).node_type, 'CONSUMER_GROUP');
      assert.equal(state.graph.inDegree(group), 6);
      assert.equal(state.history.length, 1, 'one history entry for the whole import');
    } finally {
      await runtime.close();
    }
  });
});

describe('POST /graphs/{id}/import with a malformed item in the middle', () => {
  it('answers 400 problem+json naming the item, and stores nothing', async () => {
    const api = await startApi({ backend: 'sqlite' });
    try {
      const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'import-once' } });
      assert.equal(created.status, 201);
      const graphId = created.body.graph_id as string;
      const head = await api.runtime.store.headPosition();
      const body = withMalformedNode(wideGraph(300), 300);
      const answer = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import?mode=replace`, { json: body });
      assertProblem(answer, 400, /nodes\.300\.node_type/);
      assert.equal(await api.runtime.store.headPosition(), head, 'nothing was appended');
      assert.equal(api.runtime.graphs.get(graphId)?.graph.order, 0);
      const good = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import`, { json: sampleGraph() });
      assert.equal(good.status, 200, 'the same graph takes a valid import afterwards');
    } finally {
      await api.dispose();
    }
  });
});
