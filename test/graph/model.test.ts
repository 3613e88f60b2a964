import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { readGraphFile, serializeLineageGraph, writeGraphFile } from '../../infra/graphFile.js';
import { StorageError, ValidationError } from '../../src/errors.js';
import { datalakeTableId, externalDatasetId, nodeId, parseNodeId, topicId } from '../../src/graph/ids.js';
import { parseEdge, parseLineageGraph, parseNode } from '../../src/graph/validation.js';
import { CLUSTER, ENV, ids, sampleGraph } from '../helpers/sampleGraph.js';

describe('node ids', () => {
  it('builds the contract forms and parses them back whole', () => {
    assert.equal(topicId('env-1', 'lkc-1', 'fd.SAMPLE.AUTH_USER'), 'stream:topic:env-1:lkc-1/fd.SAMPLE.AUTH_USER');
    assert.equal(datalakeTableId('eu-west-1', 'sales', 'orders'), 'datalake:catalog_table:eu-west-1:sales/orders');
    const id = externalDatasetId('env-1', 'postgres://db:5432/app.public.orders');
    assert.deepEqual(parseNodeId(id), {
      system: 'EXTERNAL',
      nodeType: 'EXTERNAL_DATASET',
      scope: 'env-1',
      qualifiedName: 'postgres://db:5432/app.public.orders',
    });
    assert.equal(
      nodeId('STREAM', 'SQL_QUERY', 'env-1', 'lksqlc-1/CSAS_X_1'),
      'stream:sql_query:env-1:lksqlc-1/CSAS_X_1',
    );
  });

  it('rejects ids that are not four parts or name unknown systems and types', () => {
    assert.throws(() => parseNodeId('stream:topic:env-1'), /not of the form/);
    assert.throws(() => parseNodeId('confluent:kafka_topic:env:orders'), /unknown system "confluent"/);
    assert.throws(() => parseNodeId('stream:kafka_topic:env:orders'), /unknown node type "kafka_topic"/);
  });
});

describe('graph validation', () => {
  it('accepts the sample graph and normalizes lower-case enums', () => {
    const input = sampleGraph();
    const raw = JSON.parse(JSON.stringify(input)) as { nodes: Array<Record<string, unknown>> };
    raw.nodes[0]!.system = 'external';
    const graph = parseLineageGraph(raw);
    assert.equal(graph.nodes.length, 11);
    assert.equal(graph.edges.length, 11);
    assert.equal(graph.nodes[0]!.system, 'EXTERNAL');
  });

  it('rejects a pre-0.5.0 graph, naming the first offending node and saying there is no migration', () => {
    const old = {
      nodes: [
        {
          id: ids.orders,
          node_type: 'TOPIC',
          system: 'STREAM',
          qualified_name: `${CLUSTER}/shop.public.orders`,
          display_name: 'o',
        },
        { node_id: 'databricks:uc_table:env:cat.lkc.orders', node_type: 'uc_table', system: 'databricks' },
        { node_id: 'aws:glue_table:env:glue://db/t', node_type: 'glue_table', system: 'aws' },
      ],
      edges: [],
    };
    assert.throws(
      () => parseLineageGraph(old),
      (error: unknown) =>
        error instanceof ValidationError &&
        error.message.includes('"databricks:uc_table:env:cat.lkc.orders"') &&
        error.message.includes('no migration') &&
        error.issues[0]!.path === 'nodes.1.node_type',
    );
  });

  it('lists dangling edges, wrong directions, id mismatches and duplicates with their paths', () => {
    const graph = sampleGraph();
    graph.edges.push({
      src_id: ids.orders,
      dst_id: 'stream:topic:env:nowhere',
      edge_type: 'PRODUCES',
      attributes: null,
    });
    graph.edges.push({ src_id: ids.orders, dst_id: ids.enriched, edge_type: 'PRODUCES', attributes: null });
    graph.nodes.push({ ...graph.nodes[2]!, qualified_name: 'other' });
    try {
      parseLineageGraph(graph);
      assert.fail('expected a ValidationError');
    } catch (error) {
      assert.ok(error instanceof ValidationError);
      const messages = error.issues.map((issue) => `${issue.path}: ${issue.message}`);
      assert.ok(
        messages.some((m) => m.startsWith('edges.11.dst_id: no node "stream:topic:env:nowhere"')),
        messages.join('\n'),
      );
      assert.ok(
        messages.some((m) => m.startsWith('edges.12.edge_type: PRODUCES cannot go from a TOPIC to a TOPIC')),
        messages.join('\n'),
      );
      assert.ok(
        messages.some((m) => m.startsWith('nodes.11.id: id ends in qualified name')),
        messages.join('\n'),
      );
      assert.ok(
        messages.some((m) => m.startsWith('nodes.11.id: duplicate node id')),
        messages.join('\n'),
      );
    }
  });

  it('requires a catalog_type on catalog tables', () => {
    const graph = sampleGraph();
    delete graph.nodes[10]!.catalog_type;
    assert.throws(() => parseLineageGraph(graph), /a CATALOG_TABLE needs a catalog_type/);
  });

  it('parses single nodes and edges for the API', () => {
    const graph = sampleGraph();
    const node = parseNode({ ...graph.nodes[2], attributes: undefined });
    assert.equal(node.attributes, null);
    assert.throws(() => parseNode({ id: 'x' }), ValidationError);
    const lookup = (id: string) => graph.nodes.find((n) => n.id === id);
    assert.equal(
      parseEdge({ src_id: ids.orders, dst_id: ids.enrich, edge_type: 'consumes' }, lookup).edge_type,
      'CONSUMES',
    );
    assert.throws(
      () => parseEdge({ src_id: ids.enrich, dst_id: ids.orders, edge_type: 'CONSUMES' }, lookup),
      /CONSUMES cannot go from a STREAM_JOB/,
    );
  });
});

describe('graph file', () => {
  const folder = mkdtempSync(join(tmpdir(), 'lineage-svc-graph-'));
  after(() => rmSync(folder, { recursive: true, force: true }));

  it('writes canonical, sorted JSON and reads it back equal', async () => {
    const path = join(folder, 'graph.json');
    const graph = sampleGraph();
    await writeGraphFile(path, graph);
    const read = await readGraphFile(path);
    assert.deepEqual(new Set(read.nodes.map((n) => n.id)), new Set(graph.nodes.map((n) => n.id)));
    assert.equal(read.edges.length, graph.edges.length);
    const reversed = { nodes: [...graph.nodes].reverse(), edges: [...graph.edges].reverse() };
    assert.equal(
      serializeLineageGraph(reversed),
      readFileSync(path, 'utf8'),
      'order of input does not change the file',
    );
    const text = readFileSync(path, 'utf8');
    assert.match(text, /"system": "STREAM"/);
    assert.match(text, /"node_type": "TOPIC"/);
  });

  it('names the file in errors for missing, non-JSON and invalid files', async () => {
    await assert.rejects(
      readGraphFile(join(folder, 'absent.json')),
      (error: unknown) => error instanceof StorageError && /no such file/.test(error.message),
    );
    const broken = join(folder, 'broken.json');
    writeFileSync(broken, '{"nodes": [');
    await assert.rejects(
      readGraphFile(broken),
      (error: unknown) => error instanceof ValidationError && error.message.includes('broken.json is not JSON'),
    );
    const invalid = join(folder, 'invalid.json');
    writeFileSync(invalid, JSON.stringify({ nodes: [{ id: 'stream:topic:e:c/t' }] }));
    await assert.rejects(
      readGraphFile(invalid),
      (error: unknown) =>
        error instanceof ValidationError && error.message.includes('invalid.json: invalid lineage graph: nodes.0.'),
    );
  });

  it('fails clearly when the folder does not exist', async () => {
    await assert.rejects(writeGraphFile(join(folder, 'no', 'such', 'graph.json'), sampleGraph()), StorageError);
  });

  it('keeps ENV in every sample node that has one', () => {
    assert.ok(sampleGraph().nodes.every((n) => n.environment_id === ENV));
  });
});
