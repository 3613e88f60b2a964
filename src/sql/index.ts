/**
 * SQL lineage: `statementLineage(sql, context)` (`docs/sql-lineage.md`). Reads Flink SQL or ksqlDB
 * text (one statement or a script), returns the tables it reads (`sources`) and writes (`sinks`),
 * column lineage per sink, and warnings; `{ error }` only when no statement could be read at all.
 * Tables are returned as written; `resolve.ts` maps them to topics.
 */
import { fallbackLineage } from './fallback.js';
import { SqlParseError, StatementParser, tableKey, type ScriptState } from './parser.js';
import { splitTokens } from './split.js';
import { tokenize, type Token } from './tokenize.js';
import type {
  ColumnLineage,
  StatementContext,
  StatementLineageError,
  StatementLineageResult,
  TableRef,
} from './types.js';

export type * from './types.js';
export { formatTableRef } from './types.js';
export { splitStatements } from './split.js';

/**
 * Lineage of `sql` under `context`. Each statement is parsed; a statement the parser cannot read
 * falls back to a tokenizer reading (flagged in `warnings`); a statement it reads but cannot
 * classify gives no lineage and a warning with its first words. Views defined earlier in a script are
 * expanded into their sources. Returns `{ error }` when the text has data-flow statements and none
 * of them could be read (parser and fallback both failed), never throws.
 */
export function statementLineage(
  sql: string,
  context: StatementContext,
): StatementLineageResult | StatementLineageError {
  let statements;
  try {
    statements = splitTokens(tokenize(sql));
  } catch (error) {
    return { error: `could not tokenize: ${(error as Error).message}` };
  }
  const script: ScriptState = { views: new Map(), declaredColumns: new Map() };
  const sources: TableRef[] = [];
  const sinks: TableRef[] = [];
  const columnLineage: ColumnLineage[] = [];
  const warnings: string[] = [];
  const kinds: string[] = [];
  const errors: string[] = [];
  const add = (list: TableRef[], refs: readonly TableRef[]) => {
    for (const ref of refs) if (!list.some((r) => tableKey(r) === tableKey(ref))) list.push(ref);
  };
  statements.forEach((tokens, index) => {
    try {
      const parsed = new StatementParser(tokens, context.dialect, script, context.columnsOf).parse();
      kinds.push(parsed.kind);
      if (parsed.kind === 'unclassified')
        warnings.push(`statement ${index + 1} not classified (${firstWords(tokens)}); no lineage taken from it`);
      if (parsed.kind !== 'view' && parsed.kind !== 'ddl') add(sources, parsed.sources);
      add(sinks, parsed.sinks);
      columnLineage.push(...parsed.columnLineage);
      warnings.push(...parsed.warnings);
    } catch (error) {
      const message = error instanceof SqlParseError ? error.message : `parser failure: ${(error as Error).message}`;
      const fallback = fallbackLineage(tokens, context.dialect);
      if (fallback.sources.length === 0 && fallback.sinks.length === 0) {
        errors.push(`statement ${index + 1}: ${message}`);
        warnings.push(`statement ${index + 1} not parsed (${message}); no lineage taken from it`);
        kinds.push('unparsed');
        return;
      }
      kinds.push('fallback');
      warnings.push(`statement ${index + 1} read by the token fallback (${message}); no column lineage`);
      add(sources, fallback.sources);
      add(sinks, fallback.sinks);
    }
  });
  if (errors.length > 0 && errors.length === statements.length) return { error: errors.join('; ') };
  return { sources, sinks, columnLineage, warnings, kinds };
}

/** The first words of a statement as written (quotes kept), for warnings: `DELETE FROM orders WHERE …`. */
export function firstWords(tokens: readonly Token[], count = 4): string {
  const shown = tokens.slice(0, count).map((token) => {
    if (token.kind === 'string') return `'${token.value}'`;
    if (token.kind === 'quoted') return `\`${token.value}\``;
    return token.value;
  });
  return `starts "${shown.join(' ')}${tokens.length > count ? ' …' : ''}"`;
}

/** True when the result is an error. */
export function isLineageError(
  result: StatementLineageResult | StatementLineageError,
): result is StatementLineageError {
  return 'error' in result;
}
