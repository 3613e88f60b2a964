/**
 * Scope-aware lineage parser for Flink SQL and ksqlDB (`docs/sql-lineage.md` sections 2-4).
 *
 * A recursive-descent reader over `tokenize()` tokens that understands the parts of a query that
 * decide lineage (statements, CTEs, FROM items, joins, set operations, subqueries, window TVFs,
 * UNNEST / LATERAL TABLE, MATCH_RECOGNIZE) and treats expressions as token ranges from which it
 * reads column references. `parseStatement` throws `SqlParseError` on text it cannot read; the
 * caller (`statementLineage`) then uses `fallbackLineage`, a tokenizer-based reading of the INSERT
 * target and FROM/JOIN tables, and flags it.
 */
import { isOp, isWord, type Token } from './tokenize.js';
import type { ColumnInput, ColumnLineage, ColumnLineageEntry, DerivationKind, SqlDialect, TableRef } from './types.js';

/** Raised when a statement does not follow the grammar this parser reads. */
export class SqlParseError extends Error {
  constructor(
    message: string,
    readonly token?: Token,
  ) {
    super(token ? `${message} near '${token.value}' (offset ${token.start})` : `${message} at end of statement`);
    this.name = 'SqlParseError';
  }
}

type DirectKind = 'identity' | 'transformation' | 'aggregation';
/**
 * The kind of one origin of an output column: a direct kind, or `window` (the column is computed over
 * a window whose PARTITION BY / ORDER BY names the origin: an OVER clause; indirect, OpenLineage
 * WINDOW). A `window` origin stays `window` through every expression and derived table.
 */
type OriginKind = DirectKind | 'window';
const RANK: Record<DirectKind, number> = { identity: 0, transformation: 1, aggregation: 2 };
/** The stronger of two kinds (identity < transformation < aggregation); a `window` origin stays `window`. */
const maxKind = (a: OriginKind, b: DirectKind): OriginKind => (a === 'window' ? a : RANK[a] >= RANK[b] ? a : b);
/** Window table-valued functions (Flink) and group window functions (`GROUP BY TUMBLE(ts, ...)`). */
const WINDOW_FUNCTIONS = ['TUMBLE', 'HOP', 'CUMULATE', 'SESSION'];
/** The columns a window TVF adds, in order: its bounds and time attribute (`windowRel`). */
const WINDOW_BOUNDS = new Set(['window_start', 'window_end', 'window_time']);
/** ksqlDB window types after `WINDOW`. */
const KSQL_WINDOWS = ['TUMBLING', 'HOPPING', 'SESSION'];
/** The pseudo columns every source has: ksqlDB's record timestamp, partition and offset; Confluent Flink's `$rowtime`. */
const PSEUDO_COLUMNS = new Set(['rowtime', 'rowpartition', 'rowoffset', '$rowtime']);

interface Origin {
  table: TableRef;
  column: string;
  kind: OriginKind;
}
interface Indirect {
  table: TableRef;
  column: string;
  kind: IndirectKind;
}
/** The indirect derivation kinds, in the order each output lists them. */
type IndirectKind = 'filter' | 'join_key' | 'group_by' | 'window';
const INDIRECT_ORDER: readonly IndirectKind[] = ['filter', 'join_key', 'group_by', 'window'];
interface OutCol {
  name: string;
  origins: Origin[];
}

/** A relation in scope: a table, a derived table, a function result. */
interface Rel {
  names: string[];
  /** Known output columns, or undefined (a table whose columns are not known). */
  columns(): OutCol[] | undefined;
  /** Origins of column `path[0]` (and nested path), or undefined when the relation is known not to have it. */
  lookup(path: string[]): Origin[] | undefined;
  /** Columns of `*`. */
  star(): OutCol[];
  /** Indirect inputs inherited from inside the relation (filters, join keys of a subquery, window time attributes). */
  indirect: Indirect[];
  /**
   * Origins of the relation's record timestamp, the time attribute of a ksqlDB `WINDOW`: `ROWTIME`,
   * or the `TIMESTAMP` column the script's CREATE declares. Absent: `lookup(['ROWTIME'])`.
   */
  time?: () => Origin[];
}

/** Result of one query: its output columns and the indirect inputs that apply to all of them. */
export interface QueryShape {
  columns: OutCol[];
  indirect: Indirect[];
}

/** Script-level state: views and declared table columns, shared by the statements of one script. */
export interface ScriptState {
  views: Map<string, { shape: QueryShape; sources: TableRef[] }>;
  declaredColumns: Map<string, string[]>;
  /** ksqlDB streams and tables whose CREATE names a `TIMESTAMP` column (`WITH (TIMESTAMP='ts')`), by `tableKey`. */
  timestampColumns?: Map<string, string>;
}

/**
 * What one statement does. `other` is a statement known to move no data (SHOW, DESCRIBE, EXPLAIN,
 * TERMINATE, ...); `unclassified` is one the parser does not know, which `statementLineage` reports
 * in a warning.
 */
export interface ParsedStatement {
  kind:
    | 'insert'
    | 'ctas'
    | 'csas'
    | 'rtas'
    | 'statement_set'
    | 'select'
    | 'ddl'
    | 'view'
    | 'set'
    | 'execute_plan'
    | 'compile_plan'
    | 'other'
    | 'unclassified';
  sources: TableRef[];
  sinks: TableRef[];
  columnLineage: ColumnLineage[];
  warnings: string[];
}

const AGGREGATES = new Set([
  'COUNT',
  'SUM',
  'AVG',
  'MIN',
  'MAX',
  'COLLECT',
  'LISTAGG',
  'FIRST_VALUE',
  'LAST_VALUE',
  'ARRAY_AGG',
  'JSON_ARRAYAGG',
  'JSON_OBJECTAGG',
  'STDDEV',
  'STDDEV_POP',
  'STDDEV_SAMP',
  'VAR_POP',
  'VAR_SAMP',
  'VARIANCE',
  'LATEST_BY_OFFSET',
  'EARLIEST_BY_OFFSET',
  'COLLECT_LIST',
  'COLLECT_SET',
  'TOPK',
  'TOPKDISTINCT',
  'HISTOGRAM',
  'COUNT_DISTINCT',
  'CORRELATION',
  'ROW_NUMBER',
  'RANK',
  'DENSE_RANK',
  'LAG',
  'LEAD',
  'PERCENT_RANK',
  'CUME_DIST',
  'NTILE',
  'BIT_AND',
  'BIT_OR',
  'BIT_XOR',
  'BOOL_AND',
  'BOOL_OR',
  'EVERY',
  'SINGLE_VALUE',
  'VECTOR_SEARCH_AGG',
  'AI_RUN_AGENT_AGG',
]);
const EXPR_KEYWORDS = new Set([
  'SELECT',
  'CASE',
  'WHEN',
  'THEN',
  'ELSE',
  'END',
  'AND',
  'OR',
  'NOT',
  'IS',
  'NULL',
  'TRUE',
  'FALSE',
  'UNKNOWN',
  'AS',
  'IN',
  'BETWEEN',
  'SYMMETRIC',
  'ASYMMETRIC',
  'LIKE',
  'SIMILAR',
  'ESCAPE',
  'RLIKE',
  'REGEXP',
  'DISTINCT',
  'ALL',
  'ANY',
  'SOME',
  'EXISTS',
  'OVER',
  'PARTITION',
  'BY',
  'ORDER',
  'ASC',
  'DESC',
  'NULLS',
  'FIRST',
  'LAST',
  'ROWS',
  'RANGE',
  'PRECEDING',
  'FOLLOWING',
  'UNBOUNDED',
  'CURRENT',
  'ROW',
  'FILTER',
  'WITHIN',
  'GROUP',
  'INTERVAL',
  'TIMESTAMP',
  'TIMESTAMP_LTZ',
  'DATE',
  'TIME',
  'FROM',
  'FOR',
  'LEADING',
  'TRAILING',
  'BOTH',
  'USING',
  'CURRENT_TIMESTAMP',
  'CURRENT_DATE',
  'CURRENT_TIME',
  'LOCALTIMESTAMP',
  'LOCALTIME',
  'CURRENT_ROW_TIMESTAMP',
  'ARRAY',
  'MAP',
  'MULTISET',
  'STRUCT',
  'YEAR',
  'MONTH',
  'WEEK',
  'DAY',
  'HOUR',
  'MINUTE',
  'SECOND',
  'MILLISECOND',
  'MICROSECOND',
  'NANOSECOND',
  'YEARS',
  'MONTHS',
  'WEEKS',
  'DAYS',
  'HOURS',
  'MINUTES',
  'SECONDS',
  'MILLISECONDS',
  'TO',
  'WHERE',
  'UNION',
  'MATCH',
  'ON',
  'JOIN',
  'SEPARATOR',
  'RESPECT',
  'IGNORE',
  'PRECISION',
  'WITH',
  'ORDINALITY',
  'DEFAULT',
  'EMPTY',
  'ERROR',
  'RETURNING',
  'WITHOUT',
  'ARRAY_AGG',
  'ZONE',
  'LOCAL',
  'FINAL',
  'RUNNING',
  'PREV',
  'NEXT',
  'CLASSIFIER',
  'MATCH_NUMBER',
]);
const CLAUSE_END = new Set([
  'FROM',
  'WHERE',
  'GROUP',
  'HAVING',
  'WINDOW',
  'ORDER',
  'LIMIT',
  'EMIT',
  'UNION',
  'EXCEPT',
  'INTERSECT',
  'MINUS',
  'QUALIFY',
  'PARTITION',
  'OFFSET',
  'FETCH',
]);
/** First words of statements that move no data and read no table into a sink (kind `other`, no warning). */
const NO_DATA_FLOW = [
  'SHOW',
  'DESCRIBE',
  'DESC',
  'EXPLAIN',
  'LIST',
  'PRINT',
  'TERMINATE',
  'PAUSE',
  'RESUME',
  'ANALYZE',
  'LOAD',
  'UNLOAD',
  'ADD',
  'REMOVE',
  'STOP',
  'DEFINE',
  'UNDEFINE',
  'ASSERT',
];
/** Keywords that take an operand after them, so an identifier after one is an operand, never an alias. */
const OPERATOR_WORDS = [
  'FROM',
  'AND',
  'OR',
  'NOT',
  'IS',
  'LIKE',
  'RLIKE',
  'REGEXP',
  'BETWEEN',
  'WHEN',
  'THEN',
  'ELSE',
  'ESCAPE',
];
const JOIN_WORDS = new Set(['JOIN', 'LEFT', 'RIGHT', 'FULL', 'INNER', 'CROSS', 'NATURAL', 'OUTER', 'ANTI', 'SEMI']);
const NOT_ALIAS = new Set([
  ...CLAUSE_END,
  ...JOIN_WORDS,
  'ON',
  'USING',
  'WITHIN',
  'MATCH_RECOGNIZE',
  'FOR',
  'SELECT',
  'END',
  'AS',
  'WITH',
  'VALUES',
  'TABLESAMPLE',
  'GRACE',
  'RETENTION',
  'LATERAL',
  'SET',
]);

const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
/** Key of a table reference in script-local maps: the last part, case-insensitive. */
export const tableKey = (ref: TableRef) => ref.parts.map((part) => part.toLowerCase()).join('\u0000');

/** Reads one statement's tokens. See the module docstring; throws `SqlParseError`. */
export class StatementParser {
  private pos = 0;
  private readonly sources: TableRef[] = [];
  private readonly warnings: string[] = [];
  private exprCounter = 0;
  /** Named windows of the SELECT being read (`WINDOW w AS (...)`): their PARTITION BY / ORDER BY origins, kind `window`. */
  private namedWindows = new Map<string, Origin[]>();
  /** ksqlDB: the time attribute of the SELECT being read when it has a `WINDOW` clause; WINDOWSTART/WINDOWEND derive from it. */
  private windowTime: Origin[] | undefined;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly dialect: SqlDialect,
    private readonly script: ScriptState,
    private readonly columnsOf?: (table: TableRef) => readonly string[] | undefined,
  ) {}

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.pos + offset];
  }
  private next(): Token {
    const token = this.tokens[this.pos];
    if (!token) throw new SqlParseError('unexpected end');
    this.pos++;
    return token;
  }
  private accept(...words: string[]): boolean {
    if (isWord(this.peek(), ...words)) {
      this.pos++;
      return true;
    }
    return false;
  }
  private expectWord(...words: string[]): void {
    if (!this.accept(...words)) throw new SqlParseError(`expected ${words.join('/')}`, this.peek());
  }
  private acceptOp(op: string): boolean {
    if (isOp(this.peek(), op)) {
      this.pos++;
      return true;
    }
    return false;
  }
  private expectOp(op: string): void {
    if (!this.acceptOp(op)) throw new SqlParseError(`expected '${op}'`, this.peek());
  }
  /** Index just after the parenthesis matching the one at `start`. */
  private matching(start: number): number {
    let depth = 0;
    for (let i = start; i < this.tokens.length; i++) {
      if (isOp(this.tokens[i], '(') || isOp(this.tokens[i], '[')) depth++;
      else if (isOp(this.tokens[i], ')') || isOp(this.tokens[i], ']')) {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    throw new SqlParseError('unbalanced parenthesis', this.tokens[start]);
  }
  private skipParens(): void {
    if (isOp(this.peek(), '(')) this.pos = this.matching(this.pos);
  }
  private identPart(token: Token): string {
    if (token.kind === 'quoted') return token.value;
    return this.dialect === 'ksql' ? token.value.toUpperCase() : token.value;
  }
  private isIdent(token: Token | undefined): token is Token {
    return token !== undefined && (token.kind === 'quoted' || token.kind === 'word');
  }
  /** A dotted name: `a`, `a.b`, `` `a`.`b`.`c` ``. */
  private parseName(): TableRef {
    const first = this.next();
    if (!this.isIdent(first)) throw new SqlParseError('expected a name', first);
    const parts = [this.identPart(first)];
    while (isOp(this.peek(), '.') && this.isIdent(this.peek(1))) {
      this.pos++;
      parts.push(this.identPart(this.next()));
    }
    return { parts };
  }
  private addSource(ref: TableRef): void {
    if (!this.sources.some((source) => tableKey(source) === tableKey(ref))) this.sources.push(ref);
  }

  /** Reads the whole statement. */
  parse(): ParsedStatement {
    const result = this.parseStatementBody();
    if (this.pos < this.tokens.length) throw new SqlParseError('unexpected text after the statement', this.peek());
    return result;
  }

  private done(
    kind: ParsedStatement['kind'],
    sinks: TableRef[] = [],
    columnLineage: ColumnLineage[] = [],
  ): ParsedStatement {
    return { kind, sources: [...this.sources], sinks, columnLineage, warnings: [...this.warnings] };
  }

  private parseStatementBody(): ParsedStatement {
    const first = this.peek();
    if (!first) return this.done('other');
    if (isWord(first, 'EXECUTE') && isWord(this.peek(1), 'STATEMENT')) {
      this.pos++;
      return this.parseStatementSet();
    }
    if (isWord(first, 'EXECUTE') && isWord(this.peek(1), 'PLAN')) return this.parseExecutePlan();
    if (isWord(first, 'COMPILE')) return this.parseCompilePlan();
    if (isWord(first, 'EXECUTE')) {
      this.pos++;
      return this.parseStatementBody();
    }
    if (isWord(first, 'INSERT')) {
      const inner = this.parseInsert();
      return this.done('insert', inner.sinks, inner.lineage);
    }
    if (isWord(first, 'CREATE') || (isWord(first, 'REPLACE') && isWord(this.peek(1), 'TABLE')))
      return this.parseCreate();
    if (isWord(first, 'SELECT', 'WITH', 'VALUES') || isOp(first, '(')) {
      this.parseQuery([]);
      this.pos = this.tokens.length;
      return this.done('select');
    }
    this.pos = this.tokens.length;
    if (isWord(first, 'SET', 'RESET', 'USE', 'UNSET')) return this.done('set');
    if (isWord(first, 'DROP', 'ALTER', 'TRUNCATE')) return this.done('ddl');
    if (isWord(first, 'BEGIN', 'END') && this.tokens.length <= 3) return this.done('other');
    if (isWord(first, ...NO_DATA_FLOW)) return this.done('other');
    return this.done('unclassified');
  }

  /** `STATEMENT SET BEGIN INSERT ...; ... END` (after `EXECUTE` or `COMPILE [AND EXECUTE] PLAN '...' FOR`). */
  private parseStatementSet(): ParsedStatement {
    this.expectWord('STATEMENT');
    this.expectWord('SET');
    this.expectWord('BEGIN');
    const sinks: TableRef[] = [];
    const lineage: ColumnLineage[] = [];
    while (!isWord(this.peek(), 'END')) {
      if (this.acceptOp(';')) continue;
      if (!this.peek()) throw new SqlParseError('STATEMENT SET without END');
      const inner = this.parseInsert();
      sinks.push(...inner.sinks);
      lineage.push(...inner.lineage);
    }
    this.pos++;
    this.acceptOp(';');
    return this.done('statement_set', dedupe(sinks), lineage);
  }

  /** `EXECUTE PLAN 'file'`: the plan's statement is not in the text, so no lineage; a warning names the file. */
  private parseExecutePlan(): ParsedStatement {
    this.pos += 2;
    const file = this.next();
    if (file.kind !== 'string') throw new SqlParseError('expected the plan file', file);
    this.acceptOp(';');
    this.warnings.push(
      `EXECUTE PLAN '${file.value}' runs a compiled plan whose SQL is not in the statement; no lineage taken from it`,
    );
    return this.done('execute_plan');
  }

  /**
   * `COMPILE [AND EXECUTE] PLAN 'file' [IF NOT EXISTS] FOR {INSERT ... | STATEMENT SET BEGIN ... END}`.
   * COMPILE AND EXECUTE runs the statement after FOR: its lineage is that statement's. COMPILE PLAN
   * only writes the plan file, so it moves no data and yields no lineage.
   */
  private parseCompilePlan(): ParsedStatement {
    this.expectWord('COMPILE');
    const execute = this.accept('AND');
    if (execute) this.expectWord('EXECUTE');
    this.expectWord('PLAN');
    if (this.next().kind !== 'string') throw new SqlParseError('expected the plan file', this.tokens[this.pos - 1]);
    if (this.accept('IF')) {
      this.expectWord('NOT');
      this.expectWord('EXISTS');
    }
    this.expectWord('FOR');
    if (!execute) {
      this.pos = this.tokens.length;
      return this.done('compile_plan');
    }
    if (isWord(this.peek(), 'STATEMENT')) return this.parseStatementSet();
    const inner = this.parseInsert();
    return this.done('insert', inner.sinks, inner.lineage);
  }

  /** `INSERT {INTO|OVERWRITE} [TABLE] name [PARTITION (...)] [(cols)] [WITH (...)] query|VALUES`. */
  private parseInsert(): { sinks: TableRef[]; lineage: ColumnLineage[] } {
    this.expectWord('INSERT');
    this.expectWord('INTO', 'OVERWRITE');
    this.accept('TABLE');
    const target = this.parseName();
    if (this.accept('PARTITION')) this.skipParens();
    let columns: string[] | undefined;
    if (isOp(this.peek(), '(') && !isWord(this.peek(1), 'SELECT', 'WITH', 'VALUES') && !isOp(this.peek(1), '(')) {
      const end = this.matching(this.pos);
      columns = [];
      this.pos++;
      while (this.pos < end - 1) {
        const token = this.next();
        if (this.isIdent(token)) columns.push(this.identPart(token));
      }
      this.pos = end;
    }
    if (isWord(this.peek(), 'WITH') && isOp(this.peek(1), '(')) {
      this.pos++;
      this.skipParens();
    }
    const shape = this.parseQuery([]);
    if (isWord(this.peek(), 'ON') && isWord(this.peek(1), 'CONFLICT')) this.skipConflictClause();
    this.acceptOp(';');
    // Flink writes a query without a column list to the sink's columns by position: named after the
    // sink's columns when the script declares them (or `columnsOf` knows them) and the counts agree,
    // else marked with positions for extraction to name after the sink's schema.
    let positions = false;
    if (columns === undefined && this.dialect === 'flink') {
      const sinkColumns = this.script.declaredColumns.get(tableKey(target)) ?? this.columnsOf?.(target);
      const widthKnown = !shape.columns.some((col) => col.name === '*');
      if (sinkColumns && widthKnown && sinkColumns.length === shape.columns.length) columns = [...sinkColumns];
      else positions = true;
    }
    return { sinks: [target], lineage: [this.lineageFor(target, shape, columns, positions)] };
  }

  /**
   * Flink's upsert clause after an INSERT's query: `ON CONFLICT [(cols) | ON CONSTRAINT name] DO
   * {NOTHING | ERROR | DEDUPLICATE | UPDATE SET ...}`. It decides what happens to rows whose key is
   * already in the sink; the sink and the sources stay those of the INSERT. Skipped up to the end of
   * the INSERT (a `;`, or the `END` of a statement set).
   */
  private skipConflictClause(): void {
    this.pos += 2;
    if (isOp(this.peek(), '(')) this.skipParens();
    else if (this.accept('ON')) {
      this.expectWord('CONSTRAINT');
      this.parseName();
    }
    this.expectWord('DO');
    if (!this.peek()) throw new SqlParseError('expected a conflict action');
    let depth = 0;
    let caseDepth = 0;
    for (; this.pos < this.tokens.length; this.pos++) {
      const token = this.tokens[this.pos]!;
      if (isOp(token, '(')) depth++;
      else if (isOp(token, ')')) depth--;
      else if (isWord(token, 'CASE')) caseDepth++;
      else if (depth === 0 && isOp(token, ';')) return;
      else if (isWord(token, 'END')) {
        if (caseDepth === 0 && depth === 0) return;
        caseDepth--;
      }
    }
  }

  /** CREATE TABLE/STREAM [AS query], Flink REPLACE TABLE ... AS query, CREATE VIEW, other CREATE (no lineage). */
  private parseCreate(): ParsedStatement {
    const replace = this.accept('REPLACE');
    if (!replace) this.expectWord('CREATE');
    if (!replace && this.accept('OR')) this.expectWord('REPLACE', 'ALTER');
    this.accept('TEMPORARY', 'TEMP');
    this.accept('SYSTEM');
    this.accept('SOURCE', 'SINK');
    const objectType = this.peek();
    if (!isWord(objectType, 'TABLE', 'STREAM', 'VIEW')) {
      this.pos = this.tokens.length;
      return this.done('ddl');
    }
    this.pos++;
    if (this.accept('IF')) {
      this.accept('NOT');
      this.expectWord('EXISTS');
    }
    if (isWord(objectType, 'STREAM') && isWord(this.peek(), 'CONNECTOR')) {
      this.pos = this.tokens.length;
      return this.done('ddl');
    }
    const target = this.parseName();
    const declared: string[] = [];
    let viewColumns: string[] | undefined;
    while (this.pos < this.tokens.length) {
      const token = this.peek()!;
      if (isOp(token, '(')) {
        const end = this.matching(this.pos);
        if (isWord(this.tokens[this.pos - 1], 'WITH')) this.readTimestampProperty(target, this.pos + 1, end - 1);
        else if (declared.length === 0) declared.push(...this.columnDefinitions(this.pos + 1, end - 1));
        if (isWord(objectType, 'VIEW')) viewColumns = declared.slice();
        this.pos = end;
        continue;
      }
      if (isWord(token, 'AS') && (isWord(this.peek(1), 'SELECT', 'WITH', 'VALUES') || isOp(this.peek(1), '('))) {
        this.pos++;
        const shape = this.parseQuery([]);
        this.acceptOp(';');
        if (isWord(objectType, 'VIEW')) {
          const renamed =
            viewColumns && viewColumns.length > 0
              ? {
                  columns: shape.columns.map((col, i) => ({ name: viewColumns![i] ?? col.name, origins: col.origins })),
                  indirect: shape.indirect,
                }
              : shape;
          this.script.views.set(tableKey(target), { shape: renamed, sources: [...this.sources] });
          return this.done('view');
        }
        return this.done(
          replace ? 'rtas' : this.dialect === 'ksql' && isWord(objectType, 'STREAM') ? 'csas' : 'ctas',
          [target],
          [this.lineageFor(target, shape, undefined)],
        );
      }
      if (isOp(token, ';')) break;
      this.pos++;
    }
    this.pos = this.tokens.length;
    if (declared.length > 0) this.script.declaredColumns.set(tableKey(target), declared);
    return this.done('ddl');
  }

  /**
   * ksqlDB `WITH (..., TIMESTAMP = 'col', ...)` of a CREATE between `start` and `end`: the column
   * whose value is the record timestamp (the time attribute of a `WINDOW` over it), kept in the script.
   */
  private readTimestampProperty(target: TableRef, start: number, end: number): void {
    if (this.dialect !== 'ksql') return;
    for (let i = start; i + 2 < end + 1; i++) {
      const value = this.tokens[i + 2];
      if (isWord(this.tokens[i], 'TIMESTAMP') && isOp(this.tokens[i + 1], '=') && value?.kind === 'string') {
        (this.script.timestampColumns ??= new Map()).set(tableKey(target), value.value.toUpperCase());
        return;
      }
    }
  }

  private columnDefinitions(start: number, end: number): string[] {
    const names: string[] = [];
    let depth = 0;
    let atItemStart = true;
    for (let i = start; i < end; i++) {
      const token = this.tokens[i]!;
      if (
        atItemStart &&
        depth === 0 &&
        this.isIdent(token) &&
        !(
          token.kind === 'word' &&
          ['PRIMARY', 'WATERMARK', 'CONSTRAINT', 'PERIOD', 'UNIQUE', 'KEY', 'FOREIGN'].includes(token.upper)
        )
      )
        names.push(this.identPart(token));
      atItemStart = false;
      if (isOp(token, '(') || isOp(token, '<')) depth++;
      else if (isOp(token, ')') || isOp(token, '>')) depth--;
      else if (isOp(token, ',') && depth === 0) atItemStart = true;
    }
    return names;
  }

  /**
   * The column lineage of `shape` written to `sink`: outputs renamed by position after
   * `targetColumns` when given; with `positions`, each entry carries its output's `position`.
   */
  private lineageFor(
    sink: TableRef,
    shape: QueryShape,
    targetColumns: string[] | undefined,
    positions = false,
  ): ColumnLineage {
    const columns: ColumnLineageEntry[] = [];
    const indirectByKind = new Map<IndirectKind, ColumnInput[]>();
    for (const ind of shape.indirect) {
      const list = indirectByKind.get(ind.kind) ?? [];
      if (!list.some((input) => input.column === ind.column && tableKey(input.table) === tableKey(ind.table)))
        list.push({ table: ind.table, column: ind.column });
      indirectByKind.set(ind.kind, list);
    }
    // The query's `window` inputs (time attributes, window keys) window every column, beside its own OVER ones.
    const windowing = shape.indirect.filter((ind): ind is Indirect & { kind: 'window' } => ind.kind === 'window');
    shape.columns.forEach((col, index) => {
      const output = targetColumns?.[index] ?? col.name;
      const byKind = new Map<OriginKind, ColumnInput[]>();
      for (const origin of [...col.origins, ...windowing]) {
        const list = byKind.get(origin.kind) ?? [];
        if (!list.some((input) => input.column === origin.column && tableKey(input.table) === tableKey(origin.table)))
          list.push({ table: origin.table, column: origin.column });
        byKind.set(origin.kind, list);
      }
      const position = positions ? { position: index, queryColumns: shape.columns.length } : {};
      for (const kind of ['identity', 'transformation', 'aggregation'] as const) {
        const inputs = byKind.get(kind);
        if (inputs) columns.push({ output, kind, inputs, ...position });
      }
      for (const kind of INDIRECT_ORDER) {
        const inputs = kind === 'window' ? byKind.get(kind) : indirectByKind.get(kind);
        if (inputs && inputs.length > 0) columns.push({ output, kind, inputs, ...position });
      }
    });
    return { sink, columns };
  }

  // ---- queries -------------------------------------------------------------------------------

  /** `[WITH ctes] setExpr [ORDER BY ...] [LIMIT ...]`; `ctes` are the CTEs visible from outside. */
  parseQuery(ctes: ReadonlyArray<[string, QueryShape]>, outer: Rel[] = []): QueryShape {
    let visible = [...ctes];
    if (this.accept('WITH')) {
      this.accept('RECURSIVE');
      do {
        const nameToken = this.next();
        if (!this.isIdent(nameToken)) throw new SqlParseError('expected a CTE name', nameToken);
        const name = this.identPart(nameToken);
        let renamed: string[] | undefined;
        if (isOp(this.peek(), '(')) {
          const end = this.matching(this.pos);
          renamed = this.tokens
            .slice(this.pos + 1, end - 1)
            .filter((t) => this.isIdent(t))
            .map((t) => this.identPart(t));
          this.pos = end;
        }
        this.expectWord('AS');
        this.expectOp('(');
        let shape = this.parseQuery(visible, outer);
        this.expectOp(')');
        if (renamed)
          shape = {
            columns: shape.columns.map((col, i) => ({ name: renamed![i] ?? col.name, origins: col.origins })),
            indirect: shape.indirect,
          };
        visible = [[name, shape], ...visible];
      } while (this.acceptOp(','));
    }
    let shape = this.parseSetTerm(visible, outer);
    while (isWord(this.peek(), 'UNION', 'EXCEPT', 'INTERSECT', 'MINUS')) {
      this.pos++;
      this.accept('ALL', 'DISTINCT');
      const right = this.parseSetTerm(visible, outer);
      shape = {
        columns: shape.columns.map((col, i) => ({
          name: col.name,
          origins: [...col.origins, ...(right.columns[i]?.origins ?? [])],
        })),
        indirect: [...shape.indirect, ...right.indirect],
      };
    }
    if (this.accept('ORDER')) {
      this.expectWord('BY');
      this.skipExpressionList();
    }
    if (this.accept('LIMIT')) this.skipExpressionList();
    if (this.accept('OFFSET')) this.skipExpressionList();
    return shape;
  }

  private parseSetTerm(ctes: ReadonlyArray<[string, QueryShape]>, outer: Rel[]): QueryShape {
    if (this.acceptOp('(')) {
      const shape = this.parseQuery(ctes, outer);
      this.expectOp(')');
      return shape;
    }
    if (this.accept('VALUES')) {
      let width = 0;
      do {
        if (isOp(this.peek(), '(')) {
          const end = this.matching(this.pos);
          width = Math.max(width, this.splitTopLevel(this.pos + 1, end - 1).length);
          this.pos = end;
        } else this.skipExpression();
      } while (this.acceptOp(','));
      return {
        columns: Array.from({ length: Math.max(width, 1) }, (_, i) => ({ name: `EXPR$${i}`, origins: [] })),
        indirect: [],
      };
    }
    if (isWord(this.peek(), 'WITH')) return this.parseQuery(ctes, outer);
    return this.parseSelect(ctes, outer);
  }

  /** Index ranges of the comma-separated items between `start` and `end` (exclusive). */
  private splitTopLevel(start: number, end: number): Array<[number, number]> {
    const items: Array<[number, number]> = [];
    let depth = 0;
    let itemStart = start;
    for (let i = start; i < end; i++) {
      const token = this.tokens[i]!;
      if (isOp(token, '(') || isOp(token, '[')) depth++;
      else if (isOp(token, ')') || isOp(token, ']')) depth--;
      else if (isOp(token, ',') && depth === 0) {
        items.push([itemStart, i]);
        itemStart = i + 1;
      }
    }
    if (end > itemStart) items.push([itemStart, end]);
    return items;
  }

  /** Index of the end of the expression starting at `this.pos` (a depth-0 `,`, `)`, clause keyword, `;`). */
  private expressionEnd(stopWords: ReadonlySet<string>, stopAtComma = true): number {
    let depth = 0;
    let caseDepth = 0;
    for (let i = this.pos; i < this.tokens.length; i++) {
      const token = this.tokens[i]!;
      if (isOp(token, '(') || isOp(token, '[')) depth++;
      else if (isOp(token, ')') || isOp(token, ']')) {
        if (depth === 0) return i;
        depth--;
      } else if (depth === 0 && caseDepth === 0 && ((stopAtComma && isOp(token, ',')) || isOp(token, ';'))) return i;
      else if (isWord(token, 'CASE')) caseDepth++;
      else if (isWord(token, 'END')) {
        if (caseDepth === 0 && depth === 0) return i;
        caseDepth--;
      } else if (depth === 0 && caseDepth === 0 && isWord(token, 'ON') && isWord(this.tokens[i + 1], 'CONFLICT')) {
        return i; // the upsert clause after an INSERT's query
      } else if (
        depth === 0 &&
        caseDepth === 0 &&
        token.kind === 'word' &&
        stopWords.has(token.upper) &&
        !isDistinctFrom(this.tokens, i)
      ) {
        // `BETWEEN x AND y` and ksqlDB `WITHIN` inside expressions are not clause boundaries.
        return i;
      }
    }
    return this.tokens.length;
  }
  private skipExpression(stop: ReadonlySet<string> = CLAUSE_END): void {
    this.pos = this.expressionEnd(stop);
  }
  private skipExpressionList(stop: ReadonlySet<string> = CLAUSE_END): void {
    do this.skipExpression(stop);
    while (this.acceptOp(','));
  }

  private parseSelect(ctes: ReadonlyArray<[string, QueryShape]>, outer: Rel[]): QueryShape {
    const enclosing = { namedWindows: this.namedWindows, windowTime: this.windowTime };
    this.namedWindows = new Map();
    this.windowTime = undefined;
    this.expectWord('SELECT');
    this.accept('ALL', 'DISTINCT');
    const items: Array<[number, number]> = [];
    while (true) {
      const start = this.pos;
      const end = this.expressionEnd(CLAUSE_END);
      if (end === start) throw new SqlParseError('empty select item', this.peek());
      items.push([start, end]);
      this.pos = end;
      if (!this.acceptOp(',')) break;
      if (isWord(this.peek(), 'FROM')) break; // trailing comma before FROM (published doc bug)
    }
    const rels: Rel[] = [];
    const indirect: Indirect[] = [];
    if (this.accept('FROM')) this.parseFromList(ctes, outer, rels, indirect);
    const scope = [...rels];
    const scopes = [scope, outer];
    while (true) {
      if (this.accept('WHERE')) {
        for (const origin of this.expressionOrigins(this.pos, this.expressionEnd(CLAUSE_END, false), scopes, ctes)
          .origins)
          indirect.push({ table: origin.table, column: origin.column, kind: 'filter' });
        this.pos = this.expressionEnd(CLAUSE_END, false);
      } else if (this.accept('WINDOW')) {
        this.readWindowClause(rels, scopes, ctes, indirect);
      } else if (isWord(this.peek(), 'GROUP', 'PARTITION') && isWord(this.peek(1), 'BY')) {
        this.pos += 2;
        const start = this.pos;
        this.skipExpressionList();
        // A group window (`TUMBLE(ts, INTERVAL ...)`) and a window TVF's bounds (`GROUP BY window_start,
        // window_end`: a windowed aggregation) window by their time attribute; any other key groups.
        for (const [itemStart, itemEnd] of this.splitTopLevel(start, this.pos)) {
          const last = this.tokens[itemEnd - 1];
          const windowed =
            (isWord(this.tokens[itemStart], ...WINDOW_FUNCTIONS) && isOp(this.tokens[itemStart + 1], '(')) ||
            (this.isIdent(last) &&
              WINDOW_BOUNDS.has(last.value.toLowerCase()) &&
              this.tokens.slice(itemStart, itemEnd - 1).every((token) => this.isIdent(token) || isOp(token, '.')));
          for (const origin of this.expressionOrigins(itemStart, itemEnd, scopes, ctes).origins)
            indirect.push({ table: origin.table, column: origin.column, kind: windowed ? 'window' : 'group_by' });
        }
      } else if (this.accept('HAVING')) {
        for (const origin of this.expressionOrigins(this.pos, this.expressionEnd(CLAUSE_END, false), scopes, ctes)
          .origins)
          indirect.push({ table: origin.table, column: origin.column, kind: 'filter' });
        this.pos = this.expressionEnd(CLAUSE_END, false);
      } else if (this.accept('EMIT')) {
        this.accept('CHANGES', 'FINAL');
      } else if (this.accept('QUALIFY')) {
        this.skipExpression();
      } else break;
    }
    const columns: OutCol[] = [];
    for (const [start, end] of items) columns.push(...this.selectItem(start, end, scopes, ctes));
    for (const rel of rels) indirect.push(...rel.indirect);
    this.namedWindows = enclosing.namedWindows;
    this.windowTime = enclosing.windowTime;
    return { columns, indirect };
  }

  /**
   * The WINDOW clause after FROM. ksqlDB `WINDOW TUMBLING|HOPPING|SESSION (...)`: the window's time
   * attribute is the record timestamp of the relations in FROM (`ROWTIME`, or the `TIMESTAMP`
   * column their CREATE declares): an indirect `window` input of every output column, and what
   * WINDOWSTART / WINDOWEND derive from. Flink `WINDOW w AS (PARTITION BY .. ORDER BY ..), ...`:
   * named windows for `OVER w`.
   */
  private readWindowClause(
    rels: readonly Rel[],
    scopes: Rel[][],
    ctes: ReadonlyArray<[string, QueryShape]>,
    indirect: Indirect[],
  ): void {
    if (isWord(this.peek(), ...KSQL_WINDOWS) && isOp(this.peek(1), '(')) {
      this.pos++;
      this.skipParens();
      const time = rels.flatMap(timeOf);
      this.windowTime = time.map((origin) => ({ ...origin, kind: maxKind(origin.kind, 'transformation') }));
      for (const origin of time) indirect.push({ table: origin.table, column: origin.column, kind: 'window' });
      return;
    }
    do {
      const name = this.peek();
      if (!this.isIdent(name) || !isWord(this.peek(1), 'AS') || !isOp(this.peek(2), '(')) {
        // Not a named window: skipped up to its parenthesis.
        while (this.pos < this.tokens.length && !isOp(this.peek(), '(')) {
          if (isWord(this.peek(), 'WHERE', 'GROUP', 'HAVING', 'EMIT', 'PARTITION', 'ORDER', 'LIMIT')) return;
          this.pos++;
        }
        this.skipParens();
        continue;
      }
      this.pos += 2;
      const end = this.matching(this.pos);
      const origins = this.expressionOrigins(this.pos + 1, end - 1, scopes, ctes).origins;
      this.namedWindows.set(
        this.identPart(name).toLowerCase(),
        origins.map((origin) => ({ ...origin, kind: 'window' as const })),
      );
      this.pos = end;
    } while (this.acceptOp(','));
  }

  private selectItem(start: number, end: number, scopes: Rel[][], ctes: ReadonlyArray<[string, QueryShape]>): OutCol[] {
    const first = this.tokens[start]!;
    if (end - start === 1 && isOp(first, '*')) return scopes[0]!.flatMap((rel) => rel.star());
    if (end - start >= 3 && isOp(this.tokens[end - 1], '*') && isOp(this.tokens[end - 2], '.')) {
      const qualifier = this.identPart(this.tokens[end - 3]!);
      const rel = scopes[0]!.find((r) => r.names.some((name) => sameName(name, qualifier)));
      if (rel) return rel.star();
      this.warnings.push(`unknown qualifier ${qualifier}.*`);
      return [];
    }
    let exprEnd = end;
    let alias: string | undefined;
    const last = this.tokens[end - 1]!;
    const beforeLast = this.tokens[end - 2];
    if (end - start >= 3 && isWord(beforeLast, 'AS') && this.isIdent(last)) {
      alias = this.identPart(last);
      exprEnd = end - 2;
    } else if (
      end - start >= 2 &&
      this.isIdent(last) &&
      !(last.kind === 'word' && (EXPR_KEYWORDS.has(last.upper) || NOT_ALIAS.has(last.upper))) &&
      beforeLast &&
      !isOp(beforeLast, '.') &&
      !isOp(beforeLast, '->') &&
      (beforeLast.kind !== 'op' || isOp(beforeLast, ')') || isOp(beforeLast, ']')) &&
      !isWord(beforeLast, 'AS', ...OPERATOR_WORDS)
    ) {
      alias = this.identPart(last);
      exprEnd = end - 1;
    }
    const analysis = this.expressionOrigins(start, exprEnd, scopes, ctes);
    const name =
      alias ??
      analysis.simpleName ??
      (this.dialect === 'ksql' ? `KSQL_COL_${this.exprCounter++}` : `EXPR$${this.exprCounter++}`);
    return [{ name, origins: analysis.origins }];
  }

  /**
   * Column references of the expression in [start, end): origins with the expression's derivation
   * kind (identity for a bare column, aggregation when an aggregate is called, else transformation),
   * composed with the kinds inside derived relations. Scalar subqueries are read too.
   */
  private expressionOrigins(
    start: number,
    end: number,
    scopes: Rel[][],
    ctes: ReadonlyArray<[string, QueryShape]>,
  ): { origins: Origin[]; simpleName?: string } {
    const refs: Origin[][] = [];
    let aggregate = false;
    let simpleName: string | undefined;
    let refCount = 0;
    let otherTokens = 0;
    const windowed: Origin[] = [];
    const saved = this.pos;
    for (let i = start; i < end; i++) {
      const token = this.tokens[i]!;
      const nextToken = this.tokens[i + 1];
      if (isWord(token, 'OVER')) {
        // An OVER window: its PARTITION BY and ORDER BY are indirect (`window`) inputs of this column.
        otherTokens++;
        if (isOp(nextToken, '(')) {
          const close = this.matching(i + 1);
          windowed.push(...this.expressionOrigins(i + 2, close - 1, scopes, ctes).origins);
          i = close - 1;
        } else if (this.isIdent(nextToken)) {
          windowed.push(...(this.namedWindows.get(this.identPart(nextToken).toLowerCase()) ?? []));
          i++;
        }
        continue;
      }
      if (isOp(token, '(') && isWord(nextToken, 'SELECT', 'WITH')) {
        this.pos = i + 1;
        const sub = this.parseQuery(ctes, scopes.flat());
        for (const col of sub.columns)
          refs.push(col.origins.map((o) => ({ ...o, kind: maxKind(o.kind, 'transformation') })));
        i = this.pos; // at ')'
        otherTokens++;
        continue;
      }
      if (isWord(token, 'AS') && i > start) {
        // CAST(x AS type): skip the type up to the call's closing parenthesis.
        let depth = 0;
        let j = i + 1;
        for (; j < end; j++) {
          if (isOp(this.tokens[j], '(') || isOp(this.tokens[j], '<')) depth++;
          else if (isOp(this.tokens[j], ')') || isOp(this.tokens[j], '>')) {
            if (depth === 0) break;
            depth--;
          }
        }
        i = j - 1;
        continue;
      }
      if (!this.isIdent(token)) {
        const t = token as Token;
        if (t.kind !== 'op' || !['(', ')'].includes(t.value)) otherTokens++;
        continue;
      }
      if (isOp(nextToken, '(')) {
        if (token.kind === 'word' && AGGREGATES.has(token.upper)) aggregate = true;
        otherTokens++;
        continue;
      }
      const previous = this.tokens[i - 1];
      if (i > start && (isOp(previous, '.') || isOp(previous, '->'))) continue;
      if (
        token.kind === 'word' &&
        EXPR_KEYWORDS.has(token.upper) &&
        !(this.tokens[i + 1] && isOp(this.tokens[i + 1], '.'))
      ) {
        otherTokens++;
        continue;
      }
      if (token.kind === 'word' && nextToken?.kind === 'string') {
        otherTokens++;
        continue;
      } // typed literal: DATE '...'
      if (isOp(nextToken, '=>')) {
        i++;
        continue;
      } // named argument
      const path = [this.identPart(token)];
      let j = i + 1;
      while (isOp(this.tokens[j], '.') && this.isIdent(this.tokens[j + 1]) && j + 1 < end) {
        path.push(this.identPart(this.tokens[j + 1]!));
        j += 2;
      }
      if (isOp(this.tokens[j], '.') && isOp(this.tokens[j + 1], '*')) {
        j += 2;
      }
      i = j - 1;
      refCount++;
      const bound = path.length === 1 && ['WINDOWSTART', 'WINDOWEND'].includes(path[0]!.toUpperCase());
      const origins = bound && this.windowTime ? this.windowTime : this.resolveColumn(path, scopes);
      refs.push(origins);
      simpleName = path[path.length - 1];
    }
    this.pos = saved;
    const isSimple = refCount === 1 && otherTokens === 0;
    const level: DirectKind = aggregate ? 'aggregation' : isSimple ? 'identity' : 'transformation';
    const origins = [
      ...refs.flat().map((origin) => ({ ...origin, kind: maxKind(origin.kind, level) })),
      ...windowed.map((origin) => ({ ...origin, kind: 'window' as const })),
    ];
    return isSimple && simpleName !== undefined ? { origins, simpleName } : { origins };
  }

  private resolveColumn(path: string[], scopes: Rel[][]): Origin[] {
    for (const scope of scopes) {
      if (path.length > 1) {
        const rel = scope.find((r) => r.names.some((name) => sameName(name, path[0]!)));
        if (rel) return rel.lookup(path.slice(1)) ?? [];
        if (path.length > 2) {
          const rel2 = scope.find((r) => r.names.some((name) => sameName(name, path[1]!)));
          if (rel2) return rel2.lookup(path.slice(2)) ?? [];
        }
      }
      const known = scope.filter((rel) => rel.columns() !== undefined && rel.lookup(path) !== undefined);
      if (known.length === 1) return known[0]!.lookup(path)!;
      const unknown = scope.filter((rel) => rel.columns() === undefined);
      if (known.length === 0 && unknown.length === 1) return unknown[0]!.lookup(path) ?? [];
      if (known.length > 1 || unknown.length > 1) {
        this.warnings.push(`column ${path.join('.')} is ambiguous; no column lineage recorded for it`);
        return [];
      }
    }
    return [];
  }

  // ---- FROM ----------------------------------------------------------------------------------

  private parseFromList(
    ctes: ReadonlyArray<[string, QueryShape]>,
    outer: Rel[],
    rels: Rel[],
    indirect: Indirect[],
  ): void {
    rels.push(this.parseFromItem(ctes, outer, rels));
    while (true) {
      if (this.acceptOp(',')) {
        rels.push(this.parseFromItem(ctes, outer, rels));
        continue;
      }
      const save = this.pos;
      let sawJoin = false;
      while (isWord(this.peek(), ...JOIN_WORDS, 'APPLY')) {
        if (isWord(this.peek(), 'JOIN', 'APPLY')) sawJoin = true;
        this.pos++;
        if (sawJoin) break;
      }
      if (!sawJoin) {
        this.pos = save;
        break;
      }
      rels.push(this.parseFromItem(ctes, outer, rels));
      if (this.accept('WITHIN')) {
        if (isOp(this.peek(), '(')) this.skipParens();
        else {
          this.pos++;
          this.accept(...EXPR_KEYWORDS);
        }
        if (this.accept('GRACE')) {
          this.accept('PERIOD');
          this.pos++;
          this.pos++;
        }
      }
      if (isWord(this.peek(), 'ON') && !isWord(this.peek(1), 'CONFLICT')) {
        this.pos++;
        const end = this.expressionEnd(new Set([...CLAUSE_END, ...JOIN_WORDS]), true);
        for (const origin of this.expressionOrigins(this.pos, end, [rels, outer], ctes).origins)
          indirect.push({ table: origin.table, column: origin.column, kind: 'join_key' });
        this.pos = end;
      } else if (this.accept('USING')) {
        const end = this.matching(this.pos);
        for (let i = this.pos; i < end; i++) {
          const token = this.tokens[i]!;
          if (!this.isIdent(token)) continue;
          for (const rel of rels.slice(-2))
            for (const origin of rel.lookup([this.identPart(token)]) ?? [])
              indirect.push({ table: origin.table, column: origin.column, kind: 'join_key' });
        }
        this.pos = end;
      }
    }
  }

  private parseAlias(): { alias?: string; columns?: string[] } {
    this.accept('AS');
    const token = this.peek();
    if (!this.isIdent(token) || (token.kind === 'word' && NOT_ALIAS.has(token.upper))) return {};
    this.pos++;
    const alias = this.identPart(token);
    if (isOp(this.peek(), '(')) {
      const end = this.matching(this.pos);
      const columns = this.tokens
        .slice(this.pos + 1, end - 1)
        .filter((t) => this.isIdent(t))
        .map((t) => this.identPart(t));
      this.pos = end;
      return { alias, columns };
    }
    return { alias };
  }

  private parseFromItem(ctes: ReadonlyArray<[string, QueryShape]>, outer: Rel[], left: Rel[]): Rel {
    let rel = this.parseFromPrimary(ctes, outer, left);
    if (isWord(this.peek(), 'MATCH_RECOGNIZE')) rel = this.parseMatchRecognize(rel, ctes);
    const { alias, columns } = this.parseAlias();
    this.skipSystemTime();
    if (isWord(this.peek(), 'MATCH_RECOGNIZE')) {
      rel = this.parseMatchRecognize(alias ? renameRel(rel, alias, undefined) : rel, ctes);
      const after = this.parseAlias();
      return after.alias ? renameRel(rel, after.alias, after.columns) : rel;
    }
    return alias ? renameRel(rel, alias, columns) : rel;
  }

  private parseFromPrimary(ctes: ReadonlyArray<[string, QueryShape]>, outer: Rel[], left: Rel[]): Rel {
    const lateral = this.accept('LATERAL');
    const token = this.peek();
    if (isWord(token, 'TABLE') && isOp(this.peek(1), '(')) {
      this.pos++;
      return this.parseTableFunction(ctes, [...left, ...outer], lateral);
    }
    if (isWord(token, 'UNNEST') && isOp(this.peek(1), '(')) {
      this.pos++;
      const end = this.matching(this.pos);
      const origins = this.expressionOrigins(this.pos + 1, end - 1, [left, outer], ctes).origins.map((o) => ({
        ...o,
        kind: maxKind(o.kind, 'transformation'),
      }));
      this.pos = end;
      if (this.accept('WITH')) this.expectWord('ORDINALITY');
      return functionRel(origins);
    }
    if (isOp(token, '(')) {
      const inner = this.peek(1);
      if (isWord(inner, 'SELECT', 'WITH', 'VALUES') || isOp(inner, '(')) {
        this.pos++;
        const shape = this.parseQuery(ctes, lateral ? [...left, ...outer] : outer);
        this.expectOp(')');
        return derivedRel([], shape);
      }
      this.pos++;
      const rels: Rel[] = [];
      const indirect: Indirect[] = [];
      this.parseFromList(ctes, outer, rels, indirect);
      this.expectOp(')');
      return groupRel(rels, indirect);
    }
    if (this.functionCallAhead()) return this.parseTableFunctionCall(ctes, [...left, ...outer], lateral);
    const ref = this.parseName();
    this.skipSystemTime();
    return this.tableRel(ref, ctes);
  }

  /** `FOR SYSTEM_TIME AS OF expr` (temporal join), before or after the alias. */
  private skipSystemTime(): void {
    if (!isWord(this.peek(), 'FOR') || !isWord(this.peek(1), 'SYSTEM_TIME')) return;
    this.pos += 2;
    this.expectWord('AS');
    this.expectWord('OF');
    this.pos = this.expressionEnd(new Set(['AS', 'ON', ...JOIN_WORDS, ...CLAUSE_END]));
  }

  /** A named relation: a CTE in scope, a view of the script, or a table (a source). */
  private tableRel(ref: TableRef, ctes: ReadonlyArray<[string, QueryShape]>): Rel {
    const last = ref.parts[ref.parts.length - 1]!;
    if (ref.parts.length === 1) {
      const cte = ctes.find(([name]) => (this.dialect === 'ksql' ? name === last : sameName(name, last)));
      if (cte) return derivedRel([last], cte[1]);
    }
    const view = this.script.views.get(tableKey(ref));
    if (view) {
      for (const source of view.sources) this.addSource(source);
      return derivedRel([last], view.shape);
    }
    this.addSource(ref);
    const known = this.script.declaredColumns.get(tableKey(ref)) ?? this.columnsOf?.(ref);
    return baseRel(ref, known ? [...known] : undefined, this.script.timestampColumns?.get(tableKey(ref)));
  }

  /** `TABLE(fn(args))`: the call inside `TABLE(...)` (see `parseTableFunctionCall`). */
  private parseTableFunction(ctes: ReadonlyArray<[string, QueryShape]>, correlated: Rel[], lateral: boolean): Rel {
    const outerEnd = this.matching(this.pos);
    this.pos++;
    const rel = this.parseTableFunctionCall(ctes, correlated, lateral);
    this.pos = outerEnd;
    return rel;
  }

  /** True when a (dotted) name followed by `(` starts at `this.pos`: a function call in FROM. */
  private functionCallAhead(): boolean {
    let i = this.pos;
    if (!this.isIdent(this.tokens[i])) return false;
    while (isOp(this.tokens[i + 1], '.') && this.isIdent(this.tokens[i + 2])) i += 2;
    return isOp(this.tokens[i + 1], '(');
  }

  /**
   * `fn(args)` in FROM, inside `TABLE(...)` or bare (`FROM my_ptf(input => TABLE t PARTITION BY k)`):
   * window TVFs (TABLE t / DESCRIPTOR), VECTOR_SEARCH*, ML_PREDICT, process table functions (PTFs)
   * and other user functions. Every `TABLE t` argument (table argument) is read as a relation, so a
   * table is a source, a view of the script its sources and a CTE nothing.
   */
  private parseTableFunctionCall(ctes: ReadonlyArray<[string, QueryShape]>, correlated: Rel[], lateral: boolean): Rel {
    const fn = this.next().upper;
    while (isOp(this.peek(), '.')) {
      this.pos++;
      this.next();
    }
    if (!isOp(this.peek(), '(')) throw new SqlParseError('expected a table function call', this.peek());
    const callEnd = this.matching(this.pos);
    const args = this.splitTopLevel(this.pos + 1, callEnd - 1);
    let inner: Rel | undefined;
    const tableArgs: TableArgument[] = [];
    const argOrigins: Origin[] = [];
    const descriptorCols: string[] = [];
    args.forEach(([start, end], index) => {
      let s = start;
      if (this.isIdent(this.tokens[s]) && isOp(this.tokens[s + 1], '=>')) s += 2;
      const t = this.tokens[s];
      if (isWord(t, 'TABLE')) {
        this.pos = s + 1;
        tableArgs.push(this.parseTableArgument(ctes, correlated, end));
        return;
      }
      if (isOp(t, '(') && isWord(this.tokens[s + 1], 'SELECT', 'WITH')) {
        this.pos = s + 1;
        const shape = this.parseQuery(ctes, correlated);
        inner = derivedRel([], shape);
        return;
      }
      if (isWord(t, 'DESCRIPTOR')) {
        for (let i = s + 1; i < end; i++)
          if (this.isIdent(this.tokens[i])) descriptorCols.push(this.identPart(this.tokens[i]!));
        return;
      }
      if (index === 0 && fn.startsWith('VECTOR_SEARCH') && this.isIdent(t) && !isOp(this.tokens[s + 1], '(')) {
        this.pos = s;
        inner = this.tableRel(this.parseName(), ctes);
        return;
      }
      argOrigins.push(...this.expressionOrigins(s, end, [correlated], ctes).origins);
    });
    this.pos = callEnd;
    inner = tableArgs[0]?.rel ?? inner;
    if (inner && WINDOW_FUNCTIONS.includes(fn)) {
      // The DESCRIPTOR column is the time attribute: window_start/end/time are computed from it, and it
      // (with SESSION's PARTITION BY keys) windows every output column.
      const base = inner;
      const time = descriptorCols.flatMap((col) => base.lookup([col]) ?? []);
      const keys = (tableArgs[0]?.keys ?? []).flatMap((key) => base.lookup([key]) ?? []);
      return windowRel(
        base,
        time.map((o) => ({ ...o, kind: maxKind(o.kind, 'transformation') })),
        [...time, ...keys],
      );
    }
    if (tableArgs.length > 0 && !lateral) return processTableRel(tableArgs, argOrigins);
    if (inner && !lateral) {
      const base = inner;
      const extra = argOrigins.map((o) => ({ ...o, kind: maxKind(o.kind, 'transformation') }));
      return { ...windowRel(base, extra, []), lookup: (path) => [...(base.lookup(path) ?? []), ...extra] };
    }
    const tableOrigins = tableArgs.flatMap((arg) => arg.rel.star().flatMap((c) => c.origins));
    const all = [
      ...argOrigins,
      ...tableOrigins,
      ...(inner && tableArgs.length === 0 ? inner.star().flatMap((c) => c.origins) : []),
    ];
    return functionRel(all.map((o) => ({ ...o, kind: maxKind(o.kind, 'transformation') })));
  }

  /**
   * A table argument after `TABLE`: a name (table, view or CTE) or a parenthesized query, then the
   * optional `PARTITION BY k | (k1, k2)` (set semantics) and `ORDER BY ...`, up to `end`.
   */
  private parseTableArgument(ctes: ReadonlyArray<[string, QueryShape]>, correlated: Rel[], end: number): TableArgument {
    let rel: Rel;
    if (isOp(this.peek(), '(')) {
      this.pos++;
      rel = derivedRel([], this.parseQuery(ctes, correlated));
      this.expectOp(')');
    } else rel = this.tableRel(this.parseName(), ctes);
    const keys: string[] = [];
    if (isWord(this.peek(), 'PARTITION') && isWord(this.peek(1), 'BY')) {
      this.pos += 2;
      const stop = isOp(this.peek(), '(') ? this.matching(this.pos) : end;
      for (let i = this.pos; i < stop && !isWord(this.tokens[i], 'ORDER'); i++) {
        const token = this.tokens[i]!;
        if (this.isIdent(token) && !isOp(this.tokens[i + 1], '.')) keys.push(this.identPart(token));
      }
    }
    return { rel, keys };
  }

  /** `MATCH_RECOGNIZE (PARTITION BY .. ORDER BY .. MEASURES e AS n, .. PATTERN (..) DEFINE v AS cond, ..)`. */
  private parseMatchRecognize(input: Rel, ctes: ReadonlyArray<[string, QueryShape]>): Rel {
    this.expectWord('MATCH_RECOGNIZE');
    const end = this.matching(this.pos);
    const anyQualifier: Rel = { ...input, names: [] };
    const scope = [anyQualifier];
    const lookupAny = (path: string[]) => input.lookup(path.length > 1 ? path.slice(1) : path) ?? input.lookup(path);
    const patternScope: Rel = { ...input, names: [], lookup: lookupAny };
    const columns: OutCol[] = [];
    const indirect: Indirect[] = [...input.indirect];
    this.pos++;
    const sectionWords = new Set([
      'PARTITION',
      'ORDER',
      'MEASURES',
      'ONE',
      'ALL',
      'AFTER',
      'PATTERN',
      'DEFINE',
      'WITHIN',
      'SUBSET',
    ]);
    while (this.pos < end - 1) {
      const token = this.next();
      if (isWord(token, 'PARTITION')) {
        this.expectWord('BY');
        for (const [s, e] of this.sectionItems(end - 1, sectionWords)) {
          const a = this.expressionOrigins(s, e, [scope], ctes);
          columns.push({ name: a.simpleName ?? `EXPR$${this.exprCounter++}`, origins: a.origins });
        }
      } else if (isWord(token, 'MEASURES')) {
        for (const [s, e] of this.sectionItems(end - 1, sectionWords)) {
          let exprEnd = e;
          let name: string | undefined;
          if (e - s >= 3 && isWord(this.tokens[e - 2], 'AS')) {
            name = this.identPart(this.tokens[e - 1]!);
            exprEnd = e - 2;
          }
          const a = this.expressionOrigins(s, exprEnd, [[patternScope]], ctes);
          columns.push({
            name: name ?? a.simpleName ?? `EXPR$${this.exprCounter++}`,
            origins: a.origins.map((o) => ({ ...o, kind: maxKind(o.kind, 'transformation') })),
          });
        }
      } else if (isWord(token, 'DEFINE')) {
        for (const [s, e] of this.sectionItems(end - 1, sectionWords)) {
          const asIndex = this.tokens.slice(s, e).findIndex((t) => isWord(t, 'AS'));
          const a = this.expressionOrigins(s + asIndex + 1, e, [[patternScope]], ctes);
          for (const o of a.origins) indirect.push({ table: o.table, column: o.column, kind: 'filter' });
        }
      } else if (isOp(token, '(')) {
        this.pos = this.matching(this.pos - 1);
      }
    }
    this.pos = end;
    return {
      names: [],
      columns: () => columns,
      lookup: (path) => columns.find((c) => sameName(c.name, path[0]!))?.origins,
      star: () => columns,
      indirect,
    };
  }

  /** Comma-separated items from `this.pos` up to the next section keyword at depth 0 (or `end`). */
  private sectionItems(end: number, sectionWords: ReadonlySet<string>): Array<[number, number]> {
    let stop = this.pos;
    let depth = 0;
    for (; stop < end; stop++) {
      const token = this.tokens[stop]!;
      if (isOp(token, '(')) depth++;
      else if (isOp(token, ')')) depth--;
      else if (
        depth === 0 &&
        token.kind === 'word' &&
        sectionWords.has(token.upper) &&
        !(isWord(token, 'ORDER') && stop === this.pos)
      ) {
        if (isWord(token, 'ALL') && !isWord(this.tokens[stop + 1], 'ROWS')) continue;
        break;
      }
    }
    const items = this.splitTopLevel(this.pos, stop);
    this.pos = stop;
    return items;
  }
}

/** True when the word at `index` is the `FROM` of `IS [NOT] DISTINCT FROM`: an operator, not a clause. */
export function isDistinctFrom(tokens: readonly Token[], index: number): boolean {
  return (
    isWord(tokens[index], 'FROM') && isWord(tokens[index - 1], 'DISTINCT') && isWord(tokens[index - 2], 'IS', 'NOT')
  );
}

/** A table argument of a table function: its relation and its PARTITION BY keys (empty: row semantics). */
interface TableArgument {
  rel: Rel;
  keys: string[];
}

/**
 * The result of a process table function (PTF) with table arguments. The function declares its own
 * output columns, which the statement does not show, so only the PARTITION BY keys are known: Flink
 * puts them in the output as they are (identity). Any other column, and `*` after the keys, is a
 * transformation of every column of the table arguments and of the columns passed as scalar arguments.
 */
function processTableRel(tables: readonly TableArgument[], scalarOrigins: readonly Origin[]): Rel {
  const keys: OutCol[] = [];
  for (const { rel, keys: names } of tables)
    for (const name of names) {
      const origins = rel.lookup([name]) ?? [];
      const known = keys.find((col) => sameName(col.name, name));
      if (known) known.origins.push(...origins);
      else keys.push({ name, origins: [...origins] });
    }
  const computed = [...tables.flatMap(({ rel }) => rel.star().flatMap((col) => col.origins)), ...scalarOrigins].map(
    (o) => ({ ...o, kind: maxKind(o.kind, 'transformation') }),
  );
  return {
    names: [],
    columns: () => undefined,
    lookup: (path) => keys.find((col) => sameName(col.name, path[0]!))?.origins ?? computed,
    star: () => [...keys, { name: '*', origins: computed }],
    indirect: tables.flatMap(({ rel }) => rel.indirect),
  };
}

function dedupe(refs: TableRef[]): TableRef[] {
  const seen = new Set<string>();
  return refs.filter((ref) => (seen.has(tableKey(ref)) ? false : (seen.add(tableKey(ref)), true)));
}

/**
 * A table (a topic): `known` columns when declared or given, else unknown (any column is looked up
 * as written). Pseudo columns (`ROWTIME`, `$rowtime`, ...) are found even when the columns are known.
 * `timestampColumn` is the ksqlDB `TIMESTAMP` column of its CREATE (else its time is `ROWTIME`).
 */
function baseRel(ref: TableRef, known: string[] | undefined, timestampColumn?: string): Rel {
  const last = ref.parts[ref.parts.length - 1]!;
  const col = (name: string): OutCol => ({ name, origins: [{ table: ref, column: name, kind: 'identity' }] });
  return {
    names: [last],
    columns: () => known?.map(col),
    lookup: (path) =>
      known && !known.some((k) => sameName(k, path[0]!)) && !PSEUDO_COLUMNS.has(path[0]!.toLowerCase())
        ? undefined
        : [{ table: ref, column: path.join('.'), kind: 'identity' }],
    star: () => (known ? known.map(col) : [{ name: '*', origins: [{ table: ref, column: '*', kind: 'identity' }] }]),
    indirect: [],
    time: () => [{ table: ref, column: timestampColumn ?? 'ROWTIME', kind: 'identity' }],
  };
}

/** The origins of a relation's record timestamp (`Rel.time`, else its `ROWTIME` column). */
function timeOf(rel: Rel): Origin[] {
  return rel.time ? rel.time() : (rel.lookup(['ROWTIME']) ?? []);
}

function derivedRel(names: string[], shape: QueryShape): Rel {
  return {
    names,
    columns: () => shape.columns,
    lookup: (path) => {
      const found = shape.columns.find((c) => sameName(c.name, path[0]!));
      if (found) return found.origins;
      const star = shape.columns.filter((c) => c.name === '*');
      if (star.length > 0)
        return star.flatMap((c) =>
          c.origins.map((o) => ({ ...o, column: o.column === '*' ? path.join('.') : o.column })),
        );
      return undefined;
    },
    star: () => shape.columns,
    indirect: shape.indirect,
  };
}

function functionRel(origins: Origin[]): Rel {
  return {
    names: [],
    columns: () => undefined,
    lookup: () => origins,
    star: () => [{ name: '*', origins }],
    indirect: [],
  };
}

/**
 * The result of a window TVF over `base`: its columns, then `window_start`, `window_end` and
 * `window_time`, computed from `timeOrigins`; `windowing` (the time attribute, SESSION's keys) are
 * indirect `window` inputs of every column read from it.
 */
function windowRel(base: Rel, timeOrigins: Origin[], windowing: readonly Origin[]): Rel {
  const windowCols = () => [...WINDOW_BOUNDS].map((name) => ({ name, origins: timeOrigins }));
  return {
    names: base.names,
    columns: () => {
      const cols = base.columns();
      return cols ? [...cols, ...windowCols()] : undefined;
    },
    lookup: (path) => (WINDOW_BOUNDS.has(path[0]!.toLowerCase()) ? timeOrigins : base.lookup(path)),
    star: () => [...base.star(), ...windowCols()],
    indirect: [
      ...base.indirect,
      ...windowing.map((origin): Indirect => ({ table: origin.table, column: origin.column, kind: 'window' })),
    ],
  };
}

function groupRel(rels: Rel[], indirect: Indirect[]): Rel {
  return {
    names: [],
    columns: () => undefined,
    lookup: (path) => {
      for (const rel of rels) {
        if (path.length > 1 && rel.names.some((n) => sameName(n, path[0]!))) return rel.lookup(path.slice(1));
      }
      const hits = rels.map((rel) => rel.lookup(path)).filter((o): o is Origin[] => o !== undefined);
      return hits.length === 1 ? hits[0] : undefined;
    },
    star: () => rels.flatMap((rel) => rel.star()),
    indirect: [...indirect, ...rels.flatMap((rel) => rel.indirect)],
    time: () => rels.flatMap(timeOf),
  };
}

function renameRel(rel: Rel, alias: string, columns: string[] | undefined): Rel {
  if (!columns || columns.length === 0) return { ...rel, names: [alias] };
  const inner = rel.star();
  const renamed: OutCol[] = columns.map((name, i) => ({
    name,
    origins: inner.length === columns.length ? inner[i]!.origins : inner.flatMap((c) => c.origins),
  }));
  return {
    names: [alias],
    columns: () => renamed,
    lookup: (path) => renamed.find((c) => sameName(c.name, path[0]!))?.origins,
    star: () => renamed,
    indirect: rel.indirect,
    ...(rel.time ? { time: rel.time } : {}),
  };
}
