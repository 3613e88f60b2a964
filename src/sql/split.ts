/**
 * Statement splitting over tokens (`docs/sql-lineage.md` section 2): splits at top-level `;`,
 * never inside parentheses, strings, comments or `EXECUTE STATEMENT SET BEGIN ... END`, and also
 * where a statement keyword starts a new line at depth 0 (scripts written without semicolons, such
 * as Confluent Cloud workspace cells pasted together). `... STATEMENT SET BEGIN ... END` is one
 * statement after EXECUTE, COMPILE [AND EXECUTE] PLAN and EXPLAIN alike. Stray semicolons give no empty statement, and a
 * `;` followed by a join or clause keyword (`LEFT JOIN`, `WHERE`, ...) does not end the query.
 */
import { isOp, isWord, tokenize, type Token } from './tokenize.js';

const STATEMENT_START = [
  'CREATE',
  'INSERT',
  'SET',
  'DROP',
  'ALTER',
  'EXECUTE',
  'USE',
  'TERMINATE',
  'DESCRIBE',
  'SHOW',
  'RESET',
  'LIST',
  'PRINT',
  'EXPLAIN',
  'UNSET',
  'COMPILE',
  'REPLACE',
];

/** Words that never start a statement but continue a query (join or clause keywords). */
const QUERY_CONTINUATION = [
  'LEFT',
  'RIGHT',
  'INNER',
  'FULL',
  'CROSS',
  'NATURAL',
  'JOIN',
  'WHERE',
  'GROUP',
  'HAVING',
  'UNION',
  'EXCEPT',
  'INTERSECT',
  'EMIT',
];

/** Splits a script into statements, each a non-empty token list. */
export function splitStatements(sql: string): Token[][] {
  return splitTokens(tokenize(sql));
}

/** Splits an already tokenized script (see `splitStatements`). */
export function splitTokens(tokens: readonly Token[]): Token[][] {
  const statements: Token[][] = [];
  let current: Token[] = [];
  let depth = 0;
  let caseDepth = 0;
  let inSet = false;
  const flush = () => {
    if (current.length > 0) statements.push(current);
    current = [];
    depth = 0;
    caseDepth = 0;
    inSet = false;
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (isOp(token, ';') && depth === 0 && !inSet) {
      flush();
      continue;
    }
    // A stray `;` inside a query: the next "statement" starts with a clause that only continues a
    // query (`...ON a = b; LEFT JOIN ...`), so it is glued back onto the query before the `;`.
    if (
      current.length === 0 &&
      statements.length > 0 &&
      isWord(token, ...QUERY_CONTINUATION) &&
      statements[statements.length - 1]!.some((t) => isWord(t, 'SELECT'))
    ) {
      current = statements.pop()!;
    }
    if (
      depth === 0 &&
      !inSet &&
      caseDepth === 0 &&
      token.lineStart &&
      current.length > 0 &&
      isWord(token, ...STATEMENT_START) &&
      !continuesStatement(current, token, tokens[i + 1])
    )
      flush();
    // A query on a new line after a statement that never holds one (ALTER, DROP, SET, ...).
    else if (
      depth === 0 &&
      !inSet &&
      token.lineStart &&
      current.length > 0 &&
      isWord(token, 'SELECT', 'WITH') &&
      isWord(current[0], 'ALTER', 'DROP', 'SET', 'RESET', 'USE', 'TERMINATE')
    )
      flush();
    current.push(token);
    if (isOp(token, '(')) depth++;
    else if (isOp(token, ')')) depth = Math.max(0, depth - 1);
    else if (isWord(token, 'CASE')) caseDepth++;
    else if (isWord(token, 'END')) {
      if (caseDepth > 0) caseDepth--;
      else if (inSet && depth === 0) {
        inSet = false;
        flush();
      }
    } else if (
      isWord(token, 'BEGIN') &&
      depth === 0 &&
      current.length >= 4 &&
      isWord(current[current.length - 3], 'STATEMENT') &&
      isWord(current[current.length - 2], 'SET')
    )
      inSet = true; // EXECUTE STATEMENT SET BEGIN, COMPILE [AND EXECUTE] PLAN '...' FOR STATEMENT SET BEGIN
  }
  flush();
  return statements;
}

/**
 * True when a statement keyword at the start of a line continues the statement: any keyword after
 * `FOR` or `AND` (`COMPILE AND⏎EXECUTE PLAN '...' FOR⏎INSERT ...`), `REPLACE` unless it starts
 * `REPLACE TABLE` (it is also a function), `COMPILE` unless it starts `COMPILE PLAN|AND`, and `SET`
 * after `UPDATE ...` or in `ALTER TABLE ... SET (...)`.
 */
function continuesStatement(current: readonly Token[], token: Token, next: Token | undefined): boolean {
  if (isWord(current[current.length - 1], 'FOR', 'AND')) return true;
  if (isWord(token, 'REPLACE')) return !isWord(next, 'TABLE') || isWord(current[current.length - 1], 'OR');
  if (isWord(token, 'COMPILE')) return !isWord(next, 'PLAN', 'AND');
  if (!isWord(token, 'SET')) return false;
  const first = current[0];
  if (isWord(first, 'ALTER', 'UPDATE')) return true;
  return isOp(next, '(');
}
