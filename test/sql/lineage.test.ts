/**
 * Unit tests of `statementLineage` (`docs/sql-lineage.md`): each construct of issue 4, column
 * lineage for every derivation kind, the token fallback, statement splitting and name resolution.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  formatTableRef,
  isLineageError,
  splitStatements,
  statementLineage,
  type StatementLineageResult,
} from '../../src/sql/index.js';
import { resolveTableRef } from '../../src/sql/resolve.js';

function lineage(sql: string, dialect: 'flink' | 'ksql' = 'flink'): StatementLineageResult {
  const result = statementLineage(sql, { dialect });
  assert.ok(!isLineageError(result), isLineageError(result) ? result.error : '');
  return result;
}
function io(sql: string, dialect: 'flink' | 'ksql' = 'flink') {
  const result = lineage(sql, dialect);
  return { sources: result.sources.map(formatTableRef).sort(), sinks: result.sinks.map(formatTableRef).sort() };
}
function column(result: StatementLineageResult, output: string, kind: string): string[] {
  const entry = result.columnLineage.flatMap((c) => c.columns).find((c) => c.output === output && c.kind === kind);
  return entry ? entry.inputs.map((i) => `${formatTableRef(i.table)}.${i.column}`).sort() : [];
}

describe('statementLineage: constructs', () => {
  it('INSERT INTO with a column list maps outputs by position', () => {
    const r = lineage('INSERT INTO t (x, y) SELECT a, b + 1 FROM s;');
    assert.deepEqual(io('INSERT INTO t (x, y) SELECT a, b + 1 FROM s;'), { sources: ['s'], sinks: ['t'] });
    assert.deepEqual(column(r, 'x', 'identity'), ['s.a']);
    assert.deepEqual(column(r, 'y', 'transformation'), ['s.b']);
  });
  it('INSERT OVERWRITE with PARTITION and a parenthesised CTE query', () => {
    assert.deepEqual(io("INSERT OVERWRITE t PARTITION (d='1') SELECT a FROM s"), { sources: ['s'], sinks: ['t'] });
    assert.deepEqual(io('INSERT INTO t ( WITH c AS (SELECT a FROM s) SELECT a FROM c )'), {
      sources: ['s'],
      sinks: ['t'],
    });
  });
  it('CREATE TABLE AS (Confluent: no WITH, PRIMARY KEY, DISTRIBUTED BY)', () => {
    assert.deepEqual(
      io(
        'CREATE TABLE t (PRIMARY KEY (id) NOT ENFORCED) DISTRIBUTED BY HASH(id) INTO 4 BUCKETS AS SELECT id, name FROM s;',
      ),
      { sources: ['s'], sinks: ['t'] },
    );
    assert.deepEqual(io("CREATE TABLE t WITH ('kafka.retention.time' = '1 d') AS SELECT * FROM s"), {
      sources: ['s'],
      sinks: ['t'],
    });
  });
  it('EXECUTE STATEMENT SET BEGIN ... END and the SQL-client BEGIN STATEMENT SET', () => {
    assert.deepEqual(
      io('EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM s; INSERT INTO b SELECT * FROM r; END;'),
      { sources: ['r', 's'], sinks: ['a', 'b'] },
    );
    assert.deepEqual(io('BEGIN STATEMENT SET;\nINSERT INTO a SELECT * FROM s;\nINSERT INTO b SELECT * FROM s;\nEND;'), {
      sources: ['s'],
      sinks: ['a', 'b'],
    });
  });
  it('CTEs are scoped: not sources, even when one shadows a table or is a keyword', () => {
    assert.deepEqual(
      io(
        'INSERT INTO t WITH orders AS (SELECT * FROM raw_orders), final AS (SELECT * FROM orders) SELECT * FROM final',
      ),
      { sources: ['raw_orders'], sinks: ['t'] },
    );
  });
  it('every join kind, with FOR SYSTEM_TIME AS OF before or after the alias', () => {
    const sql =
      'SELECT * FROM a JOIN b ON a.k = b.k LEFT JOIN c FOR SYSTEM_TIME AS OF a.ts AS c1 ON a.k = c1.k ' +
      'RIGHT OUTER JOIN d ON a.k = d.k FULL OUTER JOIN e ON a.k = e.k CROSS JOIN f ' +
      'INNER JOIN g g1 FOR SYSTEM_TIME AS OF a.`$rowtime` ON a.k = g1.k, h WHERE a.k = h.k';
    assert.deepEqual(io(sql).sources, ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
  });
  it('window TVFs TUMBLE, HOP, CUMULATE, SESSION (TABLE, DESCRIPTOR, named arguments, PARTITION BY)', () => {
    assert.deepEqual(io("SELECT * FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(ts), INTERVAL '1' MINUTE))").sources, ['a']);
    assert.deepEqual(
      io(
        "SELECT * FROM TABLE(HOP(DATA => TABLE b, TIMECOL => DESCRIPTOR(ts), SLIDE => INTERVAL '1' MINUTE, SIZE => INTERVAL '5' MINUTE))",
      ).sources,
      ['b'],
    );
    assert.deepEqual(
      io("SELECT * FROM TABLE(CUMULATE(TABLE `c`.`d`.`e`, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '1' HOUR))")
        .sources,
      ['c.d.e'],
    );
    assert.deepEqual(
      io("SELECT * FROM TABLE(SESSION(TABLE f PARTITION BY k, DESCRIPTOR(ts), INTERVAL '2' MINUTES))").sources,
      ['f'],
    );
  });
  it('UNNEST and LATERAL TABLE are not tables; VECTOR_SEARCH_AGG names one', () => {
    assert.deepEqual(io('SELECT o.id, x FROM o CROSS JOIN UNNEST(o.items) AS t (x)').sources, ['o']);
    assert.deepEqual(io('SELECT * FROM o, LATERAL TABLE(split(o.s)) AS t(w)').sources, ['o']);
    assert.deepEqual(io("SELECT * FROM q, LATERAL TABLE(ML_PREDICT('model', q.text))").sources, ['q']);
    assert.deepEqual(io('SELECT * FROM q, LATERAL TABLE(VECTOR_SEARCH_AGG(docs, DESCRIPTOR(v), q.v, 3))').sources, [
      'docs',
      'q',
    ]);
  });
  it('UNION ALL, subqueries in FROM, IN and EXISTS', () => {
    assert.deepEqual(
      io(
        'INSERT INTO t SELECT a FROM x UNION ALL SELECT a FROM (SELECT a FROM y) z WHERE a IN (SELECT a FROM w) AND EXISTS (SELECT 1 FROM v)',
      ),
      { sources: ['v', 'w', 'x', 'y'], sinks: ['t'] },
    );
  });
  it('MATCH_RECOGNIZE with comments inside', () => {
    const sql = `SELECT * FROM ticks MATCH_RECOGNIZE (
      PARTITION BY symbol ORDER BY ts -- order
      MEASURES A.price AS start_price, LAST(B.price) AS low_price
      ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
      PATTERN (A B+) /* pattern */ DEFINE B AS B.price < A.price
    ) AS T`;
    const r = lineage(sql);
    assert.deepEqual(r.sources.map(formatTableRef), ['ticks']);
  });
  it('comments, hints and quoted three-part names; a dotted quoted part is one name', () => {
    assert.deepEqual(
      io(
        "-- c\nINSERT INTO `env-1`.`lkc-1`.`out` /*+ OPTIONS('a'='b') */ SELECT * FROM `env-1`.`lkc-1`.`fd.SAMPLE.in` /* FROM fake */ ;",
      ),
      { sources: ['env-1.lkc-1.`fd.SAMPLE.in`'], sinks: ['env-1.lkc-1.out'] },
    );
  });
  it('views of a script expand to their sources', () => {
    assert.deepEqual(io('CREATE TEMPORARY VIEW v AS SELECT a FROM s; INSERT INTO t SELECT a FROM v;'), {
      sources: ['s'],
      sinks: ['t'],
    });
  });
  it('ksqlDB CSAS, CTAS, INSERT INTO ... VALUES, joins with WITHIN, windows; unquoted names upper-cased', () => {
    assert.deepEqual(
      io(
        "CREATE STREAM out WITH (KAFKA_TOPIC='o') AS SELECT * FROM a JOIN b WITHIN 1 HOUR ON a.id = b.id EMIT CHANGES;",
        'ksql',
      ),
      { sources: ['A', 'B'], sinks: ['OUT'] },
    );
    assert.deepEqual(
      io(
        'CREATE TABLE agg AS SELECT k, COUNT(*) AS n FROM "src" WINDOW TUMBLING (SIZE 1 HOUR, GRACE PERIOD 1 MINUTE) GROUP BY k EMIT FINAL;',
        'ksql',
      ),
      { sources: ['src'], sinks: ['AGG'] },
    );
    assert.deepEqual(io("INSERT INTO s (a) VALUES ('x');", 'ksql'), { sources: [], sinks: ['S'] });
  });
  it('DDL and SET give no lineage', () => {
    assert.deepEqual(io("SET 'sql.current-catalog' = 'e'; CREATE TABLE x (a INT) WITH ('connector' = 'kafka');"), {
      sources: [],
      sinks: [],
    });
  });
});

describe('statementLineage: column lineage kinds', () => {
  const r = () =>
    lineage(`INSERT INTO out
    SELECT o.id, UPPER(c.name) AS name, SUM(o.amount) AS total
    FROM orders o JOIN customers c ON o.cid = c.id
    WHERE o.status = 'ok' GROUP BY o.id, c.name HAVING COUNT(*) > 1`);
  it('identity, transformation and aggregation', () => {
    assert.deepEqual(column(r(), 'id', 'identity'), ['orders.id']);
    assert.deepEqual(column(r(), 'name', 'transformation'), ['customers.name']);
    assert.deepEqual(column(r(), 'total', 'aggregation'), ['orders.amount']);
  });
  it('filter and join_key are indirect inputs of every output column', () => {
    assert.deepEqual(column(r(), 'total', 'filter'), ['orders.status']);
    assert.deepEqual(column(r(), 'id', 'join_key'), ['customers.id', 'orders.cid']);
  });
  it('kinds compose through CTEs and subqueries; window columns derive from the time attribute', () => {
    const res = lineage(
      'INSERT INTO t WITH c AS (SELECT k, v * 2 AS v2 FROM s) SELECT window_start, k, MAX(v2) AS m ' +
        "FROM TABLE(TUMBLE(TABLE c, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, k",
    );
    assert.deepEqual(column(res, 'k', 'identity'), ['s.k']);
    assert.deepEqual(column(res, 'm', 'aggregation'), ['s.v']);
  });
  it('star expands to columns of a declared table, and to `*` otherwise', () => {
    assert.deepEqual(
      column(lineage('CREATE TABLE s (a INT, b INT); INSERT INTO t SELECT * FROM s;'), 'b', 'identity'),
      ['s.b'],
    );
    assert.deepEqual(column(lineage('INSERT INTO t SELECT * FROM s'), '*', 'identity'), ['s.*']);
  });
  it('ksqlDB struct dereference keeps the column', () => {
    assert.deepEqual(column(lineage('CREATE STREAM o AS SELECT v->a AS x FROM i;', 'ksql'), 'X', 'transformation'), [
      'I.V',
    ]);
  });
});

describe('statementLineage: robustness', () => {
  it('falls back to tokens (flagged) when the grammar is not followed, and invents nothing', () => {
    const result = lineage('INSERT INTO t SELECT a FROM s WHERE ((b = 1)');
    assert.ok(result.warnings.some((w) => w.includes('fallback')) || result.kinds.includes('insert'));
    assert.deepEqual(result.sinks.map(formatTableRef), ['t']);
    assert.deepEqual(result.sources.map(formatTableRef), ['s']);
  });
  it('returns an error for unreadable text and never throws', () => {
    const result = statementLineage('INSERT INTO', { dialect: 'flink' });
    assert.ok(isLineageError(result));
  });
  it('splits scripts on top-level semicolons and statement keywords on new lines, never inside strings or comments', () => {
    assert.equal(splitStatements("SET 'a' = ';';\n-- x; y\nINSERT INTO t SELECT 1\nCREATE TABLE u (a INT)").length, 3);
    assert.equal(
      splitStatements('EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT 1; INSERT INTO b SELECT 2; END;;').length,
      1,
    );
  });
  it('a stray `;` before a join or clause keyword does not end the query', () => {
    const sql =
      'SELECT * FROM t\nLEFT JOIN a FOR SYSTEM_TIME AS OF t.ts ON t.k = a.k;\nLEFT JOIN b ON t.j = b.j;\nCREATE TABLE c (x INT);';
    assert.equal(splitStatements(sql).length, 2);
    assert.deepEqual(io(sql), { sources: ['a', 'b', 't'], sinks: [] });
    assert.equal(splitStatements('CREATE TABLE c (x INT);\nWHERE x = 1;').length, 2);
  });
});

describe('resolveTableRef', () => {
  const envs = [
    {
      id: 'env-1',
      name: 'prod',
      clusters: [
        { id: 'lkc-1', name: 'orders' },
        { id: 'lkc-2', name: 'bi' },
      ],
    },
  ];
  it('resolves three-part names by id or display name', () => {
    assert.deepEqual(resolveTableRef({ parts: ['prod', 'bi', 'x.y'] }, {}, envs), {
      resolved: true,
      environmentId: 'env-1',
      clusterId: 'lkc-2',
      topic: 'x.y',
    });
    assert.deepEqual(resolveTableRef({ parts: ['env-1', 'lkc-1', 't'] }, {}, envs), {
      resolved: true,
      environmentId: 'env-1',
      clusterId: 'lkc-1',
      topic: 't',
    });
  });
  it('completes one- and two-part names with the current catalog and database', () => {
    assert.deepEqual(resolveTableRef({ parts: ['t'] }, { currentCatalog: 'prod', currentDatabase: 'orders' }, envs), {
      resolved: true,
      environmentId: 'env-1',
      clusterId: 'lkc-1',
      topic: 't',
    });
    assert.deepEqual(
      resolveTableRef({ parts: ['bi', 't'] }, { currentCatalog: 'prod', currentDatabase: 'orders' }, envs),
      { resolved: true, environmentId: 'env-1', clusterId: 'lkc-2', topic: 't' },
    );
  });
  it('leaves unknown catalogs and databases unresolved with a reason', () => {
    const unknownDb = resolveTableRef({ parts: ['prod', 'nope', 't'] }, {}, envs);
    assert.equal(unknownDb.resolved, false);
    assert.match(unknownDb.resolved ? '' : unknownDb.reason, /no known Kafka cluster/);
    assert.equal(resolveTableRef({ parts: ['other', 'orders', 't'] }, {}, envs).resolved, false);
    assert.equal(resolveTableRef({ parts: ['t'] }, { currentCatalog: 'prod' }, envs).resolved, false);
  });
});
