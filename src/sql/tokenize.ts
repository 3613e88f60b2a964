/**
 * SQL tokenizer shared by the Flink SQL and ksqlDB lineage parsers (`docs/sql-lineage.md` section 2).
 *
 * It respects single-quoted strings (`''` escapes), backtick and double-quoted identifiers,
 * `--` line comments, `/* ... *\/` block comments and optimizer hints (`/*+ ... *\/`, dropped like
 * comments), and ksqlDB CLI line continuations (`\` + newline). It never throws: an unterminated
 * string or quote runs to the end of the text.
 */

/** Token kinds: bare word, quoted identifier, string literal, number, operator/punctuation. */
export type TokenKind = 'word' | 'quoted' | 'string' | 'number' | 'op';

/** One token. `value` is the text without quotes for `quoted` and `string`; `upper` is the upper-cased value of a `word`. */
export interface Token {
  kind: TokenKind;
  value: string;
  upper: string;
  /** Offset of the token in the source text. */
  start: number;
  /** True when a newline separates this token from the previous one. */
  lineStart: boolean;
}

const WORD_START = /[A-Za-z_$\u00C0-\uFFFF]/;
const WORD_PART = /[A-Za-z0-9_$\u00C0-\uFFFF]/;
const MULTI_OPS = ['=>', '->', '<=', '>=', '<>', '!=', '||', '::'];

/** Splits `sql` into tokens, dropping whitespace and comments. */
export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let sawNewline = true;
  const n = sql.length;
  const push = (kind: TokenKind, value: string, start: number) => {
    tokens.push({ kind, value, upper: kind === 'word' ? value.toUpperCase() : value, start, lineStart: sawNewline });
    sawNewline = false;
  };
  while (i < n) {
    const c = sql[i]!;
    if (c === '\n') {
      sawNewline = true;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f') {
      i++;
      continue;
    }
    if (c === '\\' && (sql[i + 1] === '\n' || (sql[i + 1] === '\r' && sql[i + 2] === '\n'))) {
      i += sql[i + 1] === '\n' ? 2 : 3;
      continue;
    }
    if (c === '-' && sql[i + 1] === '-') {
      while (i < n && sql[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      continue;
    }
    const start = i;
    if (c === "'") {
      let value = '';
      i++;
      while (i < n) {
        if (sql[i] === "'") {
          if (sql[i + 1] === "'") {
            value += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += sql[i];
        i++;
      }
      push('string', value, start);
      continue;
    }
    if (c === '`' || c === '"') {
      let value = '';
      i++;
      while (i < n) {
        if (sql[i] === c) {
          if (sql[i + 1] === c) {
            value += c;
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += sql[i];
        i++;
      }
      push('quoted', value, start);
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
      while (i < n && /[0-9.eE]/.test(sql[i]!)) {
        if ((sql[i] === 'e' || sql[i] === 'E') && (sql[i + 1] === '-' || sql[i + 1] === '+')) i++;
        i++;
      }
      while (i < n && /[A-Za-z]/.test(sql[i]!)) i++; // 10L, 1.5D suffixes
      push('number', sql.slice(start, i), start);
      continue;
    }
    if (c === '$' && sql[i + 1] === '{') {
      // Template placeholder (${...}) outside quotes: one word.
      const end = sql.indexOf('}', i);
      i = end < 0 ? n : end + 1;
      while (i < n && WORD_PART.test(sql[i]!)) i++;
      push('word', sql.slice(start, i), start);
      continue;
    }
    if (WORD_START.test(c)) {
      while (i < n && (WORD_PART.test(sql[i]!) || (sql[i] === '$' && sql[i + 1] === '{'))) {
        if (sql[i] === '$' && sql[i + 1] === '{') {
          const end = sql.indexOf('}', i);
          i = end < 0 ? n : end + 1;
          continue;
        }
        i++;
      }
      push('word', sql.slice(start, i), start);
      continue;
    }
    const two = sql.slice(i, i + 2);
    if (MULTI_OPS.includes(two)) {
      push('op', two, start);
      i += 2;
      continue;
    }
    push('op', c, start);
    i++;
  }
  return tokens;
}

/** True when the token is the bare word `word` (case-insensitive). */
export function isWord(token: Token | undefined, ...words: string[]): boolean {
  return token !== undefined && token.kind === 'word' && words.includes(token.upper);
}

/** True when the token is the operator or punctuation `op`. */
export function isOp(token: Token | undefined, op: string): boolean {
  return token !== undefined && token.kind === 'op' && token.value === op;
}
