/**
 * The compact answers of the MCP tools (`infra/mcp/answers.ts`): the node budget and its "more"
 * hint, edges by name, long attribute values cut, the fields a diff names as changed, and an
 * impact's columns and jobs by name.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  diffAnswer,
  EDGE_BUDGET,
  impactAnswer,
  MAX_ATTRIBUTE_CHARACTERS,
  NODE_BUDGET,
  nodeAnswer,
  traversalAnswer,
} from '../../infra/mcp/answers.js';
import type { Edge } from '../../src/graph/model.js';
import type { TraversalResult } from '../../projections/traversal/index.js';
import { testTopic } from '../helpers/sampleGraph.js';

/** A downstream walk from `origin` over `count` topics, each fed by the origin (one hop). */
function fanOut(count: number): TraversalResult {
  const origin = testTopic('origin');
  const nodes = Array.from({ length: count }, (_, index) => ({ ...testTopic(`topic-${index}`), hop: 1 }));
  const edges: Edge[] = nodes.map((node) => ({
    src_id: origin.id,
    dst_id: node.id,
    edge_type: 'PRODUCES',
    attributes: null,
  }));
  return { origin, direction: 'downstream', hops: 1, nodes, edges, node_count: count, edge_count: count };
}

describe('MCP answers', () => {
  it('lists every node within the budget, with edges by name and no "more"', () => {
    const answer = traversalAnswer('g', fanOut(3));
    assert.equal(answer.nodes.length, 3);
    assert.equal(answer.more, undefined);
    assert.deepEqual(
      answer.edges.map((edge) => edge.line),
      ['origin -[PRODUCES]-> topic-0', 'origin -[PRODUCES]-> topic-1', 'origin -[PRODUCES]-> topic-2'],
    );
    assert.deepEqual(answer.nodes[0], {
      id: 'stream:topic:env-1:lkc-1/topic-0',
      name: 'topic-0',
      type: 'TOPIC',
      system: 'STREAM',
      hop: 1,
    });
  });

  it('keeps a walk over the budget to the budget, says how many were left out, and lists only edges between nodes shown', () => {
    const answer = traversalAnswer('g', fanOut(NODE_BUDGET + 70));
    assert.equal(answer.nodes.length, NODE_BUDGET);
    assert.equal(answer.total_nodes, NODE_BUDGET + 70);
    assert.match(answer.more ?? '', /^70 more not shown: ask with fewer hops \(1 asked\)/);
    assert.equal(answer.edges.length, NODE_BUDGET);
    assert.ok(answer.edges.length <= EDGE_BUDGET);
  });

  it('cuts long strings and long lists of a node and bounds its neighbors', () => {
    const node = testTopic('wide', {
      sql: 'x'.repeat(MAX_ATTRIBUTE_CHARACTERS + 5),
      fields: Array.from({ length: 80 }, (_, i) => `f${i}`),
    });
    const answer = nodeAnswer('g', node, { ...fanOut(0), direction: 'upstream' }, fanOut(NODE_BUDGET + 1));
    const attributes = answer.attributes as { sql: string; fields: string[] };
    assert.equal(attributes.sql, `${'x'.repeat(MAX_ATTRIBUTE_CHARACTERS)}... (5 more characters)`);
    assert.equal(attributes.fields.length, NODE_BUDGET + 1);
    assert.equal(attributes.fields.at(-1), '... (30 more items)');
    assert.equal(answer.downstream.nodes.length, NODE_BUDGET);
    assert.equal(answer.downstream.total, NODE_BUDGET + 1);
    assert.match(answer.downstream.more ?? '', /^1 more not shown: use the downstream tool/);
    assert.equal(answer.upstream.total, 0);
  });

  it('names the fields a change touched, attributes one level down', () => {
    const before = testTopic('orders', { partitions: 3, retention_ms: 1 });
    const after = { ...testTopic('orders', { partitions: 6, retention_ms: 1 }), display_name: 'orders-v2' };
    const point = { as_of: null, revision: 1, time: null };
    const answer = diffAnswer({
      graph_id: 'g',
      from: point,
      to: point,
      nodes: { added: [], removed: [], changed: [{ id: before.id, before, after }] },
      edges: { added: [], removed: [], changed: [] },
    });
    assert.deepEqual(answer.nodes.changed.items[0]?.fields, ['attributes.partitions', 'display_name']);
    assert.equal(answer.nodes.changed.items[0]?.name, 'orders-v2');
    assert.equal(answer.nodes.added.total, 0);
  });

  it("names an impact's datasets and jobs, and bounds its columns", () => {
    const names: Record<string, string> = { t: 'orders', j: 'enrich-orders' };
    const columns = Array.from({ length: NODE_BUDGET + 2 }, (_, index) => ({
      node_id: `c${index}`,
      field: `f${index}`,
      hops: 1,
      via: ['j'],
      type: 'DIRECT' as const,
      subtype: 'IDENTITY' as const,
    }));
    const answer = impactAnswer(
      'g',
      {
        origin: { node_id: 't', field: 'id' },
        direction: 'downstream',
        columns,
        jobs: ['j'],
        node_count: NODE_BUDGET + 3,
      },
      (id) => names[id] ?? id,
    );
    assert.deepEqual(answer.origin, { node_id: 't', field: 'id', name: 'orders' });
    assert.equal(answer.columns.length, NODE_BUDGET);
    assert.equal(answer.total_columns, NODE_BUDGET + 2);
    assert.match(answer.more ?? '', /^2 more not shown: ask with a smaller depth/);
    assert.deepEqual(answer.columns[0]?.via, ['enrich-orders']);
    assert.deepEqual(answer.jobs, [{ id: 'j', name: 'enrich-orders' }]);
    assert.equal(answer.jobs_more, undefined);
  });
});
