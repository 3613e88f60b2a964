/**
 * The column graph's name rules (issue 26, item 6; `projections/columnGraph.ts`): a ksqlDB query's
 * upper-case output takes the spelling of the sink's registered schema (`user_id`), names match
 * case-insensitively through a ksqlDB query and exactly through a Flink statement, and a nested
 * field matches the struct its statement reads.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Edge, Node } from '../../src/graph/model.js';
import { walkColumns } from '../../projections/columnGraph.js';
import { ResidentGraph } from '../../projections/residentGraph.js';
import { bareNode, edge } from '../helpers/sampleGraph.js';

function graphOf(nodes: Array<[string, Node['node_type'], Node['attributes']?]>, edges: Edge[]): ResidentGraph {
  const graph = new ResidentGraph();
  for (const [id, node_type, attributes] of nodes) graph.setNode(id, bareNode(id, node_type, attributes ?? {}));
  for (const edge of edges) graph.setEdge(edge);
  return graph;
}
const lineage = (entries: Array<[string, string, string, string]>) => ({
  column_lineage: entries.map(([output, kind, dataset, column]) => ({ output, kind, inputs: [{ dataset, column }] })),
});

describe('column names through ksqlDB and Flink', () => {
  const graph = graphOf(
    [
      ['clicks', 'TOPIC'],
      ['query', 'SQL_QUERY'],
      ['per_user', 'TOPIC'],
      ['per_user-value', 'SCHEMA', { fields: [{ name: 'user_id' }, { name: 'clicks' }] }],
      ['statement', 'STREAM_JOB'],
      ['copy', 'TOPIC'],
    ],
    [
      edge('clicks', 'CONSUMES', 'query'),
      edge(
        'query',
        'PRODUCES',
        'per_user',
        lineage([
          ['USER_ID', 'identity', 'clicks', 'USER_ID'],
          ['CLICKS', 'aggregation', 'clicks', 'USER_ID'],
        ]),
      ),
      edge('per_user', 'HAS_SCHEMA', 'per_user-value', { role: 'value' }),
      edge('clicks', 'CONSUMES', 'statement'),
      edge(
        'statement',
        'PRODUCES',
        'copy',
        lineage([
          ['Id', 'identity', 'clicks', 'Id'],
          ['city', 'identity', 'clicks', 'address'],
        ]),
      ),
    ],
  );
  const rows = (walk: ReturnType<typeof walkColumns>) =>
    walk.columns.map((column) => [column.node_id, column.field, column.subtype]);

  it('spells a ksqlDB output as the sink registers it, and matches the input whatever its case', () => {
    assert.deepEqual(rows(walkColumns(graph, { node_id: 'clicks', field: 'user_id' }, 'downstream', 10, false)), [
      ['per_user', 'clicks', 'AGGREGATION'],
      ['per_user', 'user_id', 'IDENTITY'],
    ]);
    assert.deepEqual(rows(walkColumns(graph, { node_id: 'per_user', field: 'user_id' }, 'upstream', 10, false)), [
      ['clicks', 'USER_ID', 'IDENTITY'],
    ]);
  });

  it('matches Flink names exactly, and a nested field through the struct its statement reads', () => {
    assert.deepEqual(rows(walkColumns(graph, { node_id: 'clicks', field: 'id' }, 'downstream', 10, false)), []);
    assert.deepEqual(rows(walkColumns(graph, { node_id: 'clicks', field: 'Id' }, 'downstream', 10, false)), [
      ['copy', 'Id', 'IDENTITY'],
    ]);
    assert.deepEqual(rows(walkColumns(graph, { node_id: 'clicks', field: 'address.city' }, 'downstream', 10, false)), [
      ['copy', 'city', 'IDENTITY'],
    ]);
  });
});
