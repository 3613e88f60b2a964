/**
 * The lakehouse simulator's SQL: a tokenizer and a parser for the statements a lineage push sends
 * (Databricks SQL syntax), so that the simulator can apply them to its tables and tests can assert
 * what was written, escaping included:
 *
 * - `ALTER TABLE t SET TBLPROPERTIES ('k' = 'v', ...)`
 * - `COMMENT ON TABLE t IS 'text'`
 * - `CREATE TABLE [IF NOT EXISTS] t (col TYPE, ...)`
 * - `DELETE FROM t WHERE col = 'value'`
 * - `INSERT INTO t [(cols)] VALUES (...), (...)` with string, integer, `NULL` and `TIMESTAMP '...'` values
 * - `SELECT ...` (accepted, answers no rows)
 *
 * Names are backticked or bare identifiers; string literals use single quotes with backslash
 * escapes (`\\`, `\'`, `\n`, `\r`, `\t`) or doubled quotes. Anything else is a `SqlSyntaxError`
 * (the simulator answers FAILED with `PARSE_SYNTAX_ERROR`, like a warehouse).
 */

/** A statement the simulator did not understand. */
export class SqlSyntaxError extends Error {}

type Token =
  | { kind: 'ident'; value: string; quoted: boolean }
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: number }
  | { kind: 'punct'; value: string };

/** Splits a statement into tokens. */
export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const char = sql[i]!;
    if (/\s/.test(char)) {
      i += 1;
    } else if (char === '`') {
      let value = '';
      i += 1;
      for (;;) {
        if (i >= sql.length) throw new SqlSyntaxError('unterminated quoted identifier');
        if (sql[i] === '`') {
          if (sql[i + 1] === '`') {
            value += '`';
            i += 2;
            continue;
          }
          i += 1;
          break;
        }
        value += sql[i];
        i += 1;
      }
      tokens.push({ kind: 'ident', value, quoted: true });
    } else if (char === "'") {
      let value = '';
      i += 1;
      for (;;) {
        if (i >= sql.length) throw new SqlSyntaxError('unterminated string literal');
        const c = sql[i]!;
        if (c === '\\') {
          const next = sql[i + 1];
          if (next === undefined) throw new SqlSyntaxError('unterminated string literal');
          value += next === 'n' ? '\n' : next === 'r' ? '\r' : next === 't' ? '\t' : next;
          i += 2;
        } else if (c === "'") {
          if (sql[i + 1] === "'") {
            value += "'";
            i += 2;
            continue;
          }
          i += 1;
          break;
        } else {
          value += c;
          i += 1;
        }
      }
      tokens.push({ kind: 'string', value });
    } else if (/[0-9-]/.test(char) && /[0-9]/.test(char === '-' ? (sql[i + 1] ?? '') : char)) {
      const match = /^-?\d+/.exec(sql.slice(i))!;
      tokens.push({ kind: 'number', value: Number(match[0]) });
      i += match[0].length;
    } else if (/[A-Za-z_]/.test(char)) {
      const match = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(sql.slice(i))!;
      tokens.push({ kind: 'ident', value: match[0], quoted: false });
      i += match[0].length;
    } else if ('(),.=;*'.includes(char)) {
      tokens.push({ kind: 'punct', value: char });
      i += 1;
    } else {
      throw new SqlSyntaxError(`unexpected character ${JSON.stringify(char)} at ${i}`);
    }
  }
  return tokens;
}

/** A value of an INSERT row. */
export type SqlValue = string | number | null;

/** The statements understood. Names are arrays of parts. */
export type ParsedStatement =
  | { kind: 'set_properties'; table: string[]; properties: Record<string, string> }
  | { kind: 'comment'; table: string[]; comment: string }
  | { kind: 'create_table'; table: string[]; ifNotExists: boolean; columns: Array<{ name: string; type: string }> }
  | { kind: 'delete'; table: string[]; column: string; value: string }
  | { kind: 'insert'; table: string[]; columns: string[] | undefined; rows: SqlValue[][] }
  | { kind: 'select' };

class Parser {
  private at = 0;
  constructor(private readonly tokens: Token[]) {}

  peek(): Token | undefined {
    return this.tokens[this.at];
  }
  keyword(word: string): boolean {
    const token = this.peek();
    if (token?.kind === 'ident' && !token.quoted && token.value.toUpperCase() === word) {
      this.at += 1;
      return true;
    }
    return false;
  }
  expectKeyword(word: string): void {
    if (!this.keyword(word)) throw new SqlSyntaxError(`expected ${word}`);
  }
  punct(value: string): boolean {
    const token = this.peek();
    if (token?.kind === 'punct' && token.value === value) {
      this.at += 1;
      return true;
    }
    return false;
  }
  expectPunct(value: string): void {
    if (!this.punct(value)) throw new SqlSyntaxError(`expected "${value}"`);
  }
  identifier(): string {
    const token = this.peek();
    if (token?.kind !== 'ident') throw new SqlSyntaxError('expected a name');
    this.at += 1;
    return token.value;
  }
  name(): string[] {
    const parts = [this.identifier()];
    while (this.punct('.')) parts.push(this.identifier());
    return parts;
  }
  string(): string {
    const token = this.peek();
    if (token?.kind !== 'string') throw new SqlSyntaxError('expected a string literal');
    this.at += 1;
    return token.value;
  }
  value(): SqlValue {
    if (this.keyword('NULL')) return null;
    if (this.keyword('TIMESTAMP')) return this.string();
    const token = this.peek();
    if (token?.kind === 'number') {
      this.at += 1;
      return token.value;
    }
    return this.string();
  }
  end(): void {
    this.punct(';');
    if (this.at !== this.tokens.length) throw new SqlSyntaxError('unexpected text after the statement');
  }
}

/** Parses one statement. @throws SqlSyntaxError */
export function parseStatement(sql: string): ParsedStatement {
  const p = new Parser(tokenize(sql));
  if (p.keyword('SELECT')) return { kind: 'select' };
  if (p.keyword('ALTER')) {
    p.expectKeyword('TABLE');
    const table = p.name();
    p.expectKeyword('SET');
    p.expectKeyword('TBLPROPERTIES');
    p.expectPunct('(');
    const properties: Record<string, string> = {};
    do {
      const key = p.string();
      p.expectPunct('=');
      properties[key] = p.string();
    } while (p.punct(','));
    p.expectPunct(')');
    p.end();
    return { kind: 'set_properties', table, properties };
  }
  if (p.keyword('COMMENT')) {
    p.expectKeyword('ON');
    p.expectKeyword('TABLE');
    const table = p.name();
    p.expectKeyword('IS');
    const comment = p.string();
    p.end();
    return { kind: 'comment', table, comment };
  }
  if (p.keyword('CREATE')) {
    p.expectKeyword('TABLE');
    let ifNotExists = false;
    if (p.keyword('IF')) {
      p.expectKeyword('NOT');
      p.expectKeyword('EXISTS');
      ifNotExists = true;
    }
    const table = p.name();
    p.expectPunct('(');
    const columns: Array<{ name: string; type: string }> = [];
    do columns.push({ name: p.identifier(), type: p.identifier().toUpperCase() });
    while (p.punct(','));
    p.expectPunct(')');
    p.end();
    return { kind: 'create_table', table, ifNotExists, columns };
  }
  if (p.keyword('DELETE')) {
    p.expectKeyword('FROM');
    const table = p.name();
    p.expectKeyword('WHERE');
    const column = p.identifier();
    p.expectPunct('=');
    const value = p.string();
    p.end();
    return { kind: 'delete', table, column, value };
  }
  if (p.keyword('INSERT')) {
    p.expectKeyword('INTO');
    const table = p.name();
    let columns: string[] | undefined;
    if (p.punct('(')) {
      columns = [];
      do columns.push(p.identifier());
      while (p.punct(','));
      p.expectPunct(')');
    }
    p.expectKeyword('VALUES');
    const rows: SqlValue[][] = [];
    do {
      p.expectPunct('(');
      const row: SqlValue[] = [];
      do row.push(p.value());
      while (p.punct(','));
      p.expectPunct(')');
      rows.push(row);
    } while (p.punct(','));
    p.end();
    return { kind: 'insert', table, columns, rows };
  }
  throw new SqlSyntaxError('statement not supported by the simulator');
}
