/** Column lineage of one statement, flattened for exact comparisons in the SQL tests. */
import assert from 'node:assert/strict';
import { statementLineage } from '../../src/sql/index.js';

/**
 * `[output, kind, inputs]` for every column of every sink of `sql`, in the parser's order; each input
 * is `table.column` with the table's parts joined by dots.
 *
 * @throws AssertionError when the statement does not parse.
 */
export function columnEntries(sql: string, dialect: 'flink' | 'ksql' = 'flink'): Array<[string, string, string[]]> {
  const result = statementLineage(sql, { dialect });
  assert.ok(!('error' in result), JSON.stringify(result));
  return result.columnLineage.flatMap((sink) =>
    sink.columns.map((entry): [string, string, string[]] => [
      entry.output,
      entry.kind,
      entry.inputs.map((input) => `${input.table.parts.join('.')}.${input.column}`),
    ]),
  );
}
