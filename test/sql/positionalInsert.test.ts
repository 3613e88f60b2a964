/**
 * A Flink INSERT without a column list writes the query's columns to the sink's columns by position
 * (issue 26, item 6: the outputs were named after the query's expressions). The parser names them
 * after the sink's columns when the script declares them, else marks each entry with its position;
 * `namePositionalOutputs` names them after the sink's schema where the graph is read.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { statementLineage, type ColumnLineageEntry } from '../../src/sql/index.js';
import { expandStarColumns, namePositionalOutputs, sinkColumnCandidates } from '../../src/extraction/starColumns.js';
import type { EdgeColumnLineage } from '../../src/extraction/streamProcessing.js';

function columns(sql: string, dialect: 'flink' | 'ksql' = 'flink'): ColumnLineageEntry[] {
  const result = statementLineage(sql, { dialect });
  assert.ok(!('error' in result), JSON.stringify(result));
  return result.columnLineage.flatMap((sink) => sink.columns);
}
const brief = (entries: readonly { output: string; kind: string; position?: number }[]) =>
  entries.map((entry) => [entry.output, entry.kind, entry.position]);

describe('positional INSERT', () => {
  it("names the outputs after the sink's columns the script declares", () => {
    const entries = columns(
      'CREATE TABLE shipments_clean (shipment_id BIGINT, weight_kg DOUBLE, shipped_at TIMESTAMP(3));\n' +
        'INSERT INTO shipments_clean SELECT id, grams / 1000.0, `$rowtime` FROM shipments_raw;',
    );
    assert.deepEqual(brief(entries), [
      ['shipment_id', 'identity', undefined],
      ['weight_kg', 'transformation', undefined],
      ['shipped_at', 'identity', undefined],
    ]);
  });

  it('marks each entry with its position and the query width when the sink is not declared', () => {
    const entries = columns(
      "INSERT INTO shipments_clean SELECT id, CAST(NULL AS STRING), grams / 1000.0 FROM shipments_raw WHERE state = 'ok'",
    );
    assert.deepEqual(
      entries.map((entry) => [entry.output, entry.kind, entry.position, entry.queryColumns]),
      [
        ['id', 'identity', 0, 3],
        ['id', 'filter', 0, 3],
        ['EXPR$0', 'filter', 1, 3],
        ['EXPR$1', 'transformation', 2, 3],
        ['EXPR$1', 'filter', 2, 3],
      ],
    );
  });

  it('keeps the names of a column list, a CTAS and a ksqlDB INSERT (no positions)', () => {
    assert.deepEqual(brief(columns('INSERT INTO t (a, b) SELECT x, y FROM s')), [
      ['a', 'identity', undefined],
      ['b', 'identity', undefined],
    ]);
    assert.deepEqual(brief(columns('CREATE TABLE t AS SELECT x FROM s')), [['x', 'identity', undefined]]);
    assert.deepEqual(brief(columns('INSERT INTO T SELECT X FROM S EMIT CHANGES;', 'ksql')), [
      ['X', 'identity', undefined],
    ]);
  });

  it("names positioned entries after the sink's value fields, or its key then value fields, when the widths agree", () => {
    const attribute: EdgeColumnLineage[] = [
      { output: 'id', kind: 'identity', inputs: [{ dataset: 'raw', column: 'id' }], position: 0, query_columns: 2 },
      {
        output: 'EXPR$0',
        kind: 'transformation',
        inputs: [{ dataset: 'raw', column: 'grams' }],
        position: 1,
        query_columns: 2,
      },
      {
        output: 'EXPR$0',
        kind: 'filter',
        inputs: [{ dataset: 'raw', column: 'state' }],
        position: 1,
        query_columns: 2,
      },
    ];
    const named = (candidates: Array<readonly string[]>) =>
      namePositionalOutputs(attribute, candidates).map((entry) => [entry.output, entry.kind, entry.position]);
    assert.deepEqual(named(sinkColumnCandidates(['shipment_id', 'weight_kg'], [])), [
      ['shipment_id', 'identity', undefined],
      ['weight_kg', 'transformation', undefined],
      ['weight_kg', 'filter', undefined],
    ]);
    assert.deepEqual(named(sinkColumnCandidates(['weight_kg'], ['shipment_id'])), [
      ['shipment_id', 'identity', undefined],
      ['weight_kg', 'transformation', undefined],
      ['weight_kg', 'filter', undefined],
    ]);
    // Three sink columns for a two-column query: not the sink's columns; the query's names stay.
    assert.deepEqual(named(sinkColumnCandidates(['a', 'b', 'c'], [])), [
      ['id', 'identity', undefined],
      ['EXPR$0', 'transformation', undefined],
      ['EXPR$0', 'filter', undefined],
    ]);
  });

  it('moves the positions after a star by the width it expanded to', () => {
    const attribute: EdgeColumnLineage[] = [
      { output: '*', kind: 'identity', inputs: [{ dataset: 'raw', column: '*' }], position: 0, query_columns: 2 },
      {
        output: 'kg',
        kind: 'transformation',
        inputs: [{ dataset: 'raw', column: 'grams' }],
        position: 1,
        query_columns: 2,
      },
    ];
    const expanded = expandStarColumns(attribute, () => ['id', 'grams']);
    assert.deepEqual(
      expanded.map((entry) => [entry.output, entry.position, entry.query_columns]),
      [
        ['id', 0, 3],
        ['grams', 1, 3],
        ['kg', 2, 3],
      ],
    );
    assert.deepEqual(
      namePositionalOutputs(expanded, [['shipment_id', 'grams_raw', 'weight_kg']]).map((entry) => entry.output),
      ['shipment_id', 'grams_raw', 'weight_kg'],
    );
    // A star whose fields are unknown has no known width: the names stay.
    assert.deepEqual(
      namePositionalOutputs(attribute, [['a', 'b']]).map((entry) => entry.output),
      ['*', 'kg'],
    );
  });
});
