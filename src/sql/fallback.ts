/**
 * Tokenizer-based fallback lineage (`docs/sql-lineage.md` section 2.3), used only when the parser
 * cannot read a statement. It works on tokens, so quotes, comments and parentheses are respected:
 * sinks are the names after `INSERT INTO|OVERWRITE [TABLE]` and after `CREATE ... TABLE|STREAM name`
 * or `REPLACE TABLE name` when the statement has a top-level `AS SELECT|WITH`; sources are the dotted
 * names after `FROM` (not the operator `IS [NOT] DISTINCT FROM`, and not the keyword inside a function's
 * parentheses such as `EXTRACT(YEAR FROM ts)` or `SUBSTRING(s FROM 2)`), `JOIN` and `TABLE` (a table
 * argument) at any depth, minus CTE names (`name AS (`) and the sinks.
 * It never yields a name that is not written in the statement.
 */
import { isOp, isWord, type Token } from './tokenize.js';
import type { SqlDialect, TableRef } from './types.js';
import { isDistinctFrom, tableKey } from './parser.js';

/** Sources and sinks read from tokens only. */
export function fallbackLineage(
  tokens: readonly Token[],
  dialect: SqlDialect,
): { sources: TableRef[]; sinks: TableRef[] } {
  const part = (token: Token) =>
    token.kind === 'quoted' || dialect !== 'ksql' ? token.value : token.value.toUpperCase();
  const ident = (token: Token | undefined): token is Token =>
    token !== undefined && (token.kind === 'word' || token.kind === 'quoted');
  const nameAt = (index: number): TableRef | undefined => {
    const first = tokens[index];
    if (
      !ident(first) ||
      (first.kind === 'word' && ['SELECT', 'LATERAL', 'UNNEST', 'TABLE', 'WITH', 'VALUES'].includes(first.upper))
    )
      return undefined;
    const parts = [part(first)];
    let i = index + 1;
    while (isOp(tokens[i], '.') && ident(tokens[i + 1])) {
      parts.push(part(tokens[i + 1]!));
      i += 2;
    }
    if (isOp(tokens[i], '(')) return undefined; // a function call, not a table
    return { parts };
  };
  const ctes = new Set<string>();
  for (let i = 0; i + 2 < tokens.length; i++) {
    if (
      ident(tokens[i]) &&
      isWord(tokens[i + 1], 'AS') &&
      isOp(tokens[i + 2], '(') &&
      (isOp(tokens[i - 1], ',') || isWord(tokens[i - 1], 'WITH'))
    )
      ctes.add(tokens[i]!.value.toLowerCase());
  }
  const inQuery = queryContexts(tokens);
  const sinks: TableRef[] = [];
  const sources: TableRef[] = [];
  const add = (list: TableRef[], ref: TableRef | undefined) => {
    if (ref && !list.some((r) => tableKey(r) === tableKey(ref))) list.push(ref);
  };
  const hasQuery = tokens.some(
    (t, i) =>
      isWord(t, 'AS') &&
      (isWord(tokens[i + 1], 'SELECT', 'WITH') ||
        (isOp(tokens[i + 1], '(') && isWord(tokens[i + 2], 'SELECT', 'WITH'))),
  );
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (isWord(token, 'INSERT') && isWord(tokens[i + 1], 'INTO', 'OVERWRITE')) {
      add(sinks, nameAt(isWord(tokens[i + 2], 'TABLE') ? i + 3 : i + 2));
    } else if ((isWord(token, 'CREATE') || (isWord(token, 'REPLACE') && isWord(tokens[i + 1], 'TABLE'))) && hasQuery) {
      let j = i + 1;
      while (j < tokens.length && !isWord(tokens[j], 'TABLE', 'STREAM', 'VIEW')) j++;
      if (isWord(tokens[j], 'VIEW')) continue;
      j++;
      if (isWord(tokens[j], 'IF')) j += 3;
      add(sinks, nameAt(j));
    } else if (
      isWord(token, 'JOIN') ||
      (isWord(token, 'FROM') && inQuery[i] && !isDistinctFrom(tokens, i)) ||
      (isWord(token, 'TABLE') &&
        (isWord(tokens[i - 1], 'DATA') ||
          isOp(tokens[i - 1], '(') ||
          isOp(tokens[i - 1], '=>') ||
          isOp(tokens[i - 1], ',')) &&
        !isOp(tokens[i + 1], '('))
    ) {
      const ref = nameAt(i + 1);
      if (ref && !(ref.parts.length === 1 && ctes.has(ref.parts[0]!.toLowerCase()))) add(sources, ref);
    }
  }
  return { sources, sinks };
}

/**
 * For each token, whether it stands in a query context: outside every parenthesis, or inside a
 * parenthesis whose contents start with `SELECT`, `WITH` or `VALUES` (a subquery). A `FROM` elsewhere
 * is a keyword of a function's arguments (`EXTRACT(YEAR FROM ts)`, `TRIM(BOTH ' ' FROM s)`,
 * `SUBSTRING(s FROM 2 FOR 3)`), not a table reference.
 */
function queryContexts(tokens: readonly Token[]): boolean[] {
  const groups: boolean[] = [];
  return tokens.map((token, index) => {
    const current = groups.length === 0 || groups[groups.length - 1]!;
    if (isOp(token, '(')) groups.push(isWord(tokens[index + 1], 'SELECT', 'WITH', 'VALUES'));
    else if (isOp(token, ')')) groups.pop();
    return current;
  });
}
