/**
 * Public shapes of the SQL lineage layer (`docs/sql-lineage.md` sections 3-5).
 */

/** SQL dialect: Flink SQL (Confluent Cloud and Apache Flink) or ksqlDB. */
export type SqlDialect = 'flink' | 'ksql';

/**
 * A table, stream or view named by a statement, as written: 1-3 identifier parts with quotes
 * removed (Flink keeps case; ksqlDB upper-cases unquoted parts). A part may contain dots
 * (`` `fd.SAMPLE.AUTH_USER` `` is one part: a topic name).
 */
export interface TableRef {
  parts: string[];
}

/**
 * How an output column derives from an input column: `identity` (copied), `transformation`
 * (computed by an expression), `aggregation` (computed by an aggregate function), `filter` (the
 * input decides which rows reach the output: WHERE, HAVING, MATCH_RECOGNIZE DEFINE), `join_key`
 * (the input is a join condition), `group_by` (the input groups the rows: GROUP BY, ksqlDB
 * PARTITION BY), `window` (the output is windowed on the input: the time attribute of a window TVF's
 * DESCRIPTOR, of a group window `TUMBLE(ts, ...)` or of a ksqlDB `WINDOW`, SESSION's PARTITION BY
 * keys, an OVER window's PARTITION BY and ORDER BY). The last four are indirect, as in OpenLineage
 * (FILTER, JOIN, GROUP_BY, WINDOW).
 */
export type DerivationKind =
  'identity' | 'transformation' | 'aggregation' | 'filter' | 'join_key' | 'group_by' | 'window';

/** One input column of an output column. `column` may be a nested path (`after.order_id`) or `*`. */
export interface ColumnInput {
  table: TableRef;
  column: string;
}

/** Input columns of one output column, for one derivation kind. */
export interface ColumnLineageEntry {
  output: string;
  kind: DerivationKind;
  inputs: ColumnInput[];
  /**
   * Set on a Flink INSERT without a column list whose sink's columns the statement does not show:
   * the 0-based position of the output in the query (a `*` of unknown columns counts as one). Flink
   * writes the query's columns to the sink's columns by position, so `output` (the query's name) is
   * provisional: extraction names it after the sink's schema (`src/extraction/starColumns.ts`).
   */
  position?: number;
  /** With `position`: the number of columns of the query (a `*` of unknown columns counts as one). */
  queryColumns?: number;
}

/** Column lineage of one sink: entries in output-column order (an output may have several kinds). */
export interface ColumnLineage {
  sink: TableRef;
  columns: ColumnLineageEntry[];
}

/** Context of a statement: dialect and, for Flink, the statement's `sql.current-catalog` / `sql.current-database`. */
export interface StatementContext {
  dialect: SqlDialect;
  currentCatalog?: string | undefined;
  currentDatabase?: string | undefined;
  /** Known columns of tables (by the last name part), used to expand `*` and place unqualified columns. */
  columnsOf?: ((table: TableRef) => readonly string[] | undefined) | undefined;
}

/** What a statement (or a script of statements) reads and writes. */
export interface StatementLineageResult {
  sources: TableRef[];
  sinks: TableRef[];
  columnLineage: ColumnLineage[];
  /**
   * Non-fatal problems: fallback extraction used, ambiguous columns, statements not parsed, statements
   * not classified (`statement N not classified (starts "DELETE FROM t WHERE …"); ...`) and
   * `EXECUTE PLAN '<file>'` (its SQL is not in the text). Flink extraction prefixes each with the
   * statement name and reports it (`parsedStatementLineage`).
   */
  warnings: string[];
  /**
   * Statement kinds seen, one per statement: `insert` (also COMPILE AND EXECUTE PLAN ... FOR INSERT),
   * `ctas`, `csas`, `rtas` (REPLACE TABLE AS), `statement_set`, `select`, `ddl`, `view`, `set`,
   * `execute_plan`, `compile_plan`, `other` (moves no data: SHOW, DESCRIBE, EXPLAIN, ...),
   * `unclassified` (not known; warned), `fallback` and `unparsed`.
   */
  kinds: string[];
}

/** A statement that could not be read at all; nothing is invented. */
export interface StatementLineageError {
  error: string;
}

/** Display form of a table reference: parts joined with `.`, each back-quoted when it contains a dot. */
export function formatTableRef(ref: TableRef): string {
  return ref.parts.map((part) => (part.includes('.') ? `\`${part}\`` : part)).join('.');
}
