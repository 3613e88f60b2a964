/**
 * Statement forms of issue 14 item 8 (`docs/sql-lineage.md` section 2, "Statement forms"): Flink
 * REPLACE TABLE AS, EXECUTE PLAN, COMPILE [AND EXECUTE] PLAN (with a statement set), process table
 * functions with table arguments, INSERT ... ON CONFLICT, `IS [NOT] DISTINCT FROM` (parser and
 * token fallback), and the warning for a statement the parser cannot classify, also as it reaches
 * extraction through `parsedStatementLineage`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flinkFragment, parsedStatementLineage } from '../../src/extraction/streamProcessing.js';
import { fallbackLineage } from '../../src/sql/fallback.js';
import {
  formatTableRef,
  isLineageError,
  splitStatements,
  statementLineage,
  type StatementLineageResult,
} from '../../src/sql/index.js';
import { tokenize } from '../../src/sql/tokenize.js';

function lineage(sql: string, dialect: 'flink' | 'ksql' = 'flink'): StatementLineageResult {
  const result = statementLineage(sql, { dialect });
  assert.ok(!isLineageError(result), isLineageError(result) ? result.error : '');
  return result;
}
function io(result: StatementLineageResult) {
  return { sources: result.sources.map(formatTableRef).sort(), sinks: result.sinks.map(formatTableRef).sort() };
}
/** Inputs (`table.column`, sorted) of the entry of `output` and `kind`, optionally for one sink. */
function column(result: StatementLineageResult, output: string, kind: string, sink?: string): string[] {
  const entry = result.columnLineage
    .filter((c) => sink === undefined || formatTableRef(c.sink) === sink)
    .flatMap((c) => c.columns)
    .find((c) => c.output === output && c.kind === kind);
  return entry ? entry.inputs.map((i) => `${formatTableRef(i.table)}.${i.column}`).sort() : [];
}
/** Output names of one sink's column lineage, in order, each once. */
function outputs(result: StatementLineageResult, sink: string): string[] {
  const names = result.columnLineage.filter((c) => formatTableRef(c.sink) === sink).flatMap((c) => c.columns);
  return [...new Set(names.map((c) => c.output))];
}

describe('REPLACE TABLE ... AS SELECT (Flink RTAS)', () => {
  it('the table is the sink, the tables of its query the sources, with column lineage', () => {
    const r = lineage(
      "REPLACE TABLE order_totals WITH ('changelog.mode' = 'upsert') AS\n" +
        "SELECT customer_id, SUM(amount) AS total FROM orders WHERE status = 'paid' GROUP BY customer_id;",
    );
    assert.deepEqual(io(r), { sources: ['orders'], sinks: ['order_totals'] });
    assert.deepEqual(r.kinds, ['rtas']);
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(column(r, 'customer_id', 'identity'), ['orders.customer_id']);
    assert.deepEqual(column(r, 'total', 'aggregation'), ['orders.amount']);
    assert.deepEqual(column(r, 'total', 'filter'), ['orders.status']);
  });
  it('with a column and key list, a three-part name and a join', () => {
    const r = lineage(
      'REPLACE TABLE `prod`.`sales`.`enriched` (PRIMARY KEY (id) NOT ENFORCED) AS SELECT o.id, c.name FROM orders o JOIN customers c ON o.cid = c.id',
    );
    assert.deepEqual(io(r), { sources: ['customers', 'orders'], sinks: ['prod.sales.enriched'] });
    assert.deepEqual(column(r, 'name', 'identity'), ['customers.name']);
    assert.deepEqual(column(r, 'id', 'join_key'), ['customers.id', 'orders.cid']);
  });
  it('REPLACE TABLE starts a statement on a new line, the REPLACE function does not', () => {
    const script = "CREATE TABLE a (x STRING)\nREPLACE TABLE b AS SELECT\nREPLACE(x, '-', '') AS y\nFROM a";
    assert.equal(splitStatements(script).length, 2);
    const r = lineage(script);
    assert.deepEqual(io(r), { sources: ['a'], sinks: ['b'] });
    assert.deepEqual(column(r, 'y', 'transformation'), ['a.x']);
    assert.equal(splitStatements('CREATE OR\nREPLACE TABLE b AS SELECT * FROM a').length, 1);
  });
  it('the token fallback reads the REPLACE TABLE sink', () => {
    const read = fallbackLineage(tokenize('REPLACE TABLE b AS SELECT x FROM a WHERE ((('), 'flink');
    assert.deepEqual(read.sinks.map(formatTableRef), ['b']);
    assert.deepEqual(read.sources.map(formatTableRef), ['a']);
  });
});

describe('EXECUTE PLAN and COMPILE [AND EXECUTE] PLAN', () => {
  it("EXECUTE PLAN '...' yields no lineage and a warning naming the plan file", () => {
    const r = lineage("EXECUTE PLAN 'file:///opt/flink/plans/orders.json';");
    assert.deepEqual(io(r), { sources: [], sinks: [] });
    assert.deepEqual(r.kinds, ['execute_plan']);
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0]!, /EXECUTE PLAN 'file:\/\/\/opt\/flink\/plans\/orders\.json'/);
    assert.match(r.warnings[0]!, /no lineage/);
  });
  it('COMPILE AND EXECUTE PLAN ... FOR INSERT has the lineage of the INSERT', () => {
    const r = lineage(
      "COMPILE AND EXECUTE PLAN '/tmp/plan.json' FOR\nINSERT INTO big_orders SELECT id, amount * 100 AS cents FROM orders WHERE amount > 10",
    );
    assert.equal(
      splitStatements("SET 'a' = 'b';\nCOMPILE AND\nEXECUTE PLAN '/p' FOR\nINSERT INTO t SELECT 1").length,
      2,
    );
    assert.deepEqual(io(r), { sources: ['orders'], sinks: ['big_orders'] });
    assert.deepEqual(r.kinds, ['insert']);
    assert.deepEqual(column(r, 'id', 'identity'), ['orders.id']);
    assert.deepEqual(column(r, 'cents', 'transformation'), ['orders.amount']);
    assert.deepEqual(column(r, 'cents', 'filter'), ['orders.amount']);
  });
  it('COMPILE AND EXECUTE PLAN ... FOR STATEMENT SET keeps every INSERT, the first one included', () => {
    const sql = `COMPILE AND EXECUTE PLAN 'file:///plans/fanout.json' FOR STATEMENT SET
BEGIN
  INSERT INTO eu_orders SELECT id, region FROM orders WHERE region = 'eu';
  INSERT INTO us_orders SELECT id, UPPER(region) AS region FROM orders_us;
END;
INSERT INTO audit SELECT id FROM payments;`;
    assert.equal(splitStatements(sql).length, 2);
    const r = lineage(sql);
    assert.deepEqual(r.kinds, ['statement_set', 'insert']);
    assert.deepEqual(io(r), {
      sources: ['orders', 'orders_us', 'payments'],
      sinks: ['audit', 'eu_orders', 'us_orders'],
    });
    assert.deepEqual(column(r, 'region', 'identity', 'eu_orders'), ['orders.region']);
    assert.deepEqual(column(r, 'region', 'filter', 'eu_orders'), ['orders.region']);
    assert.deepEqual(column(r, 'region', 'transformation', 'us_orders'), ['orders_us.region']);
    assert.deepEqual(r.warnings, []);
  });
  it('COMPILE PLAN without EXECUTE only writes the plan file: no lineage, no warning', () => {
    const r = lineage("COMPILE PLAN 'file:///plans/p.json' IF NOT EXISTS FOR INSERT INTO t SELECT * FROM s");
    assert.deepEqual(io(r), { sources: [], sinks: [] });
    assert.deepEqual(r.kinds, ['compile_plan']);
    assert.deepEqual(r.warnings, []);
  });
});

describe('process table functions with TABLE arguments', () => {
  it('a bare call in FROM: the table argument is a source, its PARTITION BY key an identity column', () => {
    const r = lineage(
      "INSERT INTO scored SELECT customer_id, score FROM fraud_score(input => TABLE payments PARTITION BY customer_id ORDER BY ts, uid => 'fraud-v1')",
    );
    assert.deepEqual(io(r), { sources: ['payments'], sinks: ['scored'] });
    assert.deepEqual(r.kinds, ['insert']);
    assert.deepEqual(column(r, 'customer_id', 'identity'), ['payments.customer_id']);
    // The function declares `score`; the statement does not say which input columns feed it.
    assert.deepEqual(column(r, 'score', 'transformation'), ['payments.*']);
    assert.deepEqual(column(r, 'score', 'identity'), []);
  });
  it('inside TABLE(...), positional, with a qualified function name', () => {
    const r = lineage('INSERT INTO out_t SELECT * FROM TABLE(`cat`.`db`.my_ptf(TABLE orders))');
    assert.deepEqual(io(r), { sources: ['orders'], sinks: ['out_t'] });
    assert.deepEqual(outputs(r, 'out_t'), ['*']);
    assert.deepEqual(column(r, '*', 'transformation'), ['orders.*']);
  });
  it('`*` is the PARTITION BY keys, then the columns the function computes from the declared columns; no window columns', () => {
    const r = lineage(
      'CREATE TABLE clicks (user_id STRING, url STRING, ts TIMESTAMP(3));\n' +
        "INSERT INTO sessions SELECT * FROM sessionize(TABLE clicks PARTITION BY user_id, gap => INTERVAL '5' MINUTE);",
    );
    assert.deepEqual(io(r), { sources: ['clicks'], sinks: ['sessions'] });
    assert.deepEqual(outputs(r, 'sessions'), ['user_id', '*']);
    assert.deepEqual(column(r, 'user_id', 'identity'), ['clicks.user_id']);
    assert.deepEqual(column(r, '*', 'transformation'), ['clicks.ts', 'clicks.url', 'clicks.user_id']);
  });
  it('a view of the script resolves to its own sources and lineage, a CTE to its tables', () => {
    const r =
      lineage(`CREATE TEMPORARY VIEW paid_orders AS SELECT order_id, customer_id, amount FROM raw_orders WHERE status = 'paid';
INSERT INTO customer_stats SELECT customer_id, total FROM running_total(input => TABLE paid_orders PARTITION BY customer_id);`);
    assert.deepEqual(io(r), { sources: ['raw_orders'], sinks: ['customer_stats'] });
    assert.deepEqual(column(r, 'customer_id', 'identity'), ['raw_orders.customer_id']);
    assert.deepEqual(column(r, 'total', 'transformation'), [
      'raw_orders.amount',
      'raw_orders.customer_id',
      'raw_orders.order_id',
    ]);
    assert.deepEqual(column(r, 'total', 'filter'), ['raw_orders.status']);
    const cte = lineage(
      'WITH recent AS (SELECT * FROM events) SELECT * FROM TABLE(dedupe(TABLE recent PARTITION BY (id, kind)))',
    );
    assert.deepEqual(io(cte), { sources: ['events'], sinks: [] });
  });
  it('several table arguments are all sources; a shared key derives from both', () => {
    const r = lineage(
      'INSERT INTO matched SELECT k, v FROM co_join(l => TABLE left_events PARTITION BY k, r => TABLE right_events PARTITION BY k)',
    );
    assert.deepEqual(io(r), { sources: ['left_events', 'right_events'], sinks: ['matched'] });
    assert.deepEqual(column(r, 'k', 'identity'), ['left_events.k', 'right_events.k']);
    assert.deepEqual(column(r, 'v', 'transformation'), ['left_events.*', 'right_events.*']);
  });
  it('window TVFs keep their window columns in the bare form', () => {
    const r = lineage(
      "INSERT INTO per_minute SELECT window_start, COUNT(*) AS n FROM TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE) GROUP BY window_start",
    );
    assert.deepEqual(io(r), { sources: ['clicks'], sinks: ['per_minute'] });
    assert.deepEqual(column(r, 'window_start', 'transformation'), ['clicks.ts']);
  });
});

describe('INSERT ... ON CONFLICT', () => {
  it('sink and sources as for INSERT, with column lineage and no fallback', () => {
    for (const action of ['DO NOTHING', 'DO ERROR', 'DO DEDUPLICATE']) {
      const r = lineage(
        `INSERT INTO customers_latest SELECT id, name FROM customers WHERE id > 0 ON CONFLICT ${action};`,
      );
      assert.deepEqual(io(r), { sources: ['customers'], sinks: ['customers_latest'] }, action);
      assert.deepEqual(r.kinds, ['insert'], action);
      assert.deepEqual(r.warnings, [], action);
      assert.deepEqual(column(r, 'name', 'identity'), ['customers.name'], action);
      assert.deepEqual(column(r, 'name', 'filter'), ['customers.id'], action);
    }
  });
  it('after a join condition, a column list and a VALUES row; DO UPDATE SET with CASE in a statement set', () => {
    const joined = lineage(
      'INSERT INTO t (oid, cname) SELECT o.id, c.name FROM orders o JOIN customers c ON o.cid = c.id ON CONFLICT (oid) DO NOTHING',
    );
    assert.deepEqual(io(joined), { sources: ['customers', 'orders'], sinks: ['t'] });
    assert.deepEqual(column(joined, 'cname', 'identity'), ['customers.name']);
    assert.deepEqual(column(joined, 'cname', 'join_key'), ['customers.id', 'orders.cid']);
    assert.deepEqual(joined.warnings, []);
    assert.deepEqual(io(lineage("INSERT INTO t VALUES (1, 'a') ON CONFLICT DO NOTHING")), {
      sources: [],
      sinks: ['t'],
    });
    const set = lineage(`EXECUTE STATEMENT SET BEGIN
INSERT INTO a SELECT k, v FROM s ON CONFLICT (k) DO UPDATE SET v = CASE WHEN excluded.v > a.v THEN excluded.v ELSE a.v END;
INSERT INTO b SELECT k FROM r ON CONFLICT DO NOTHING
END;`);
    assert.deepEqual(set.kinds, ['statement_set']);
    assert.deepEqual(io(set), { sources: ['r', 's'], sinks: ['a', 'b'] });
    assert.deepEqual(column(set, 'v', 'identity', 'a'), ['s.v']);
  });
});

describe('IS [NOT] DISTINCT FROM', () => {
  it('ksqlDB: the operand after FROM is a column, never a source', () => {
    const r = lineage(
      'CREATE STREAM changed AS SELECT id, new_status FROM status_changes WHERE old_status IS DISTINCT FROM new_status EMIT CHANGES;',
      'ksql',
    );
    assert.deepEqual(io(r), { sources: ['STATUS_CHANGES'], sinks: ['CHANGED'] });
    assert.deepEqual(r.kinds, ['csas']);
    assert.deepEqual(column(r, 'ID', 'filter'), ['STATUS_CHANGES.NEW_STATUS', 'STATUS_CHANGES.OLD_STATUS']);
    const selected = lineage('CREATE STREAM same AS SELECT a IS NOT DISTINCT FROM b AS unchanged FROM pairs;', 'ksql');
    assert.deepEqual(io(selected), { sources: ['PAIRS'], sinks: ['SAME'] });
    assert.deepEqual(column(selected, 'UNCHANGED', 'transformation'), ['PAIRS.A', 'PAIRS.B']);
  });
  it('in a join condition and unaliased in a select list (Flink)', () => {
    const r = lineage(
      'INSERT INTO t SELECT l.id, l.v IS DISTINCT FROM r.v FROM l JOIN r ON l.id IS NOT DISTINCT FROM r.id',
    );
    assert.deepEqual(io(r), { sources: ['l', 'r'], sinks: ['t'] });
    assert.deepEqual(outputs(r, 't'), ['id', 'EXPR$0']);
    assert.deepEqual(column(r, 'EXPR$0', 'transformation'), ['l.v', 'r.v']);
    assert.deepEqual(column(r, 'id', 'join_key'), ['l.id', 'r.id']);
  });
  it('the token fallback does not read the operand as a source', () => {
    const read = fallbackLineage(
      tokenize('CREATE STREAM o AS SELECT * FROM s WHERE a IS NOT DISTINCT FROM b AND c IS DISTINCT FROM d ((('),
      'ksql',
    );
    assert.deepEqual(read.sources.map(formatTableRef), ['S']);
    assert.deepEqual(read.sinks.map(formatTableRef), ['O']);
  });
  it('the token fallback does not read the FROM of a function argument as a source', () => {
    const read = fallbackLineage(
      tokenize(
        "INSERT INTO t SELECT EXTRACT(YEAR FROM ts), TRIM(BOTH ' ' FROM name), SUBSTRING(code FROM 2 FOR 3) " +
          'FROM orders JOIN (SELECT id FROM customers WHERE EXTRACT(DAY FROM joined) > 1) c ON 1 = 1 (((',
      ),
      'flink',
    );
    assert.deepEqual(read.sources.map(formatTableRef), ['orders', 'customers']);
    assert.deepEqual(read.sinks.map(formatTableRef), ['t']);
  });
});

describe('statements the parser cannot classify', () => {
  it('give a warning with their first words and no lineage; the other statements keep theirs', () => {
    const r = lineage("INSERT INTO t SELECT * FROM s;\nDELETE FROM `orders` WHERE id = 'x';\nCALL cleanup('t');");
    assert.deepEqual(io(r), { sources: ['s'], sinks: ['t'] });
    assert.deepEqual(r.kinds, ['insert', 'unclassified', 'unclassified']);
    assert.deepEqual(r.warnings, [
      'statement 2 not classified (starts "DELETE FROM `orders` WHERE …"); no lineage taken from it',
      'statement 3 not classified (starts "CALL cleanup ( \'t\' …"); no lineage taken from it',
    ]);
    const ksql = lineage("RUN SCRIPT '/etc/ksql/queries.sql';", 'ksql');
    assert.deepEqual(ksql.warnings, [
      'statement 1 not classified (starts "RUN SCRIPT \'/etc/ksql/queries.sql\'"); no lineage taken from it',
    ]);
  });
  it('statements known to move no data stay silent', () => {
    const r = lineage(
      "SHOW TABLES;\nDESCRIBE orders;\nDROP TABLE old_orders;\nALTER TABLE orders SET ('changelog.mode' = 'append');\n" +
        'EXPLAIN INSERT INTO t SELECT * FROM s;\nUSE CATALOG prod;',
    );
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(r.kinds, ['other', 'other', 'ddl', 'ddl', 'other', 'set']);
    assert.deepEqual(io(r), { sources: [], sinks: [] });
    const ksql = lineage('TERMINATE CSAS_OUT_1;\nDROP STREAM out DELETE TOPIC;\nLIST STREAMS;', 'ksql');
    assert.deepEqual(ksql.warnings, []);
  });
  it('a stray `;` before EMIT CHANGES is glued back to its query, not an unclassified statement', () => {
    const r = lineage('CREATE TABLE agg AS SELECT k, COUNT(*) AS n FROM src GROUP BY k;\n  EMIT CHANGES;', 'ksql');
    assert.deepEqual(r.kinds, ['ctas']);
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(io(r), { sources: ['SRC'], sinks: ['AGG'] });
  });
  it('reach extraction: parsedStatementLineage prefixes them with the statement name and flinkFragment passes them on', () => {
    const warnings: string[] = [];
    const directory = {
      byName: new Map([['orders', 'lkc-1']]),
      ids: new Set(['lkc-1']),
      environmentId: 'env-1',
      environmentName: 'prod',
    };
    const properties = { 'sql.current-catalog': 'prod', 'sql.current-database': 'orders' };
    const fragment = flinkFragment(
      'env-1',
      [
        { name: 'purge', spec: { statement: 'DELETE FROM old_orders WHERE ts < NOW()', properties } },
        { name: 'replay', spec: { statement: "EXECUTE PLAN 's3://plans/replay.json'", properties } },
      ],
      directory,
      parsedStatementLineage,
      (w) => warnings.push(w),
    );
    assert.deepEqual(warnings, [
      'statement purge: statement 1 not classified (starts "DELETE FROM old_orders WHERE …"); no lineage taken from it',
      "statement replay: EXECUTE PLAN 's3://plans/replay.json' runs a compiled plan whose SQL is not in the statement; no lineage taken from it",
    ]);
    assert.deepEqual(fragment.edges, []);
    assert.equal(fragment.nodes.filter((n) => n.node_type === 'STREAM_JOB').length, 2);
  });
});
