/**
 * Parser comparison on the SQL corpus (`docs/sql-lineage.md` section 1): for each candidate, how
 * many corpus files it reads without a syntax error, and the time taken. Candidates: our
 * `statementLineage` (src/sql), dt-sql-parser 4.5 (FlinkSQL grammar, ANTLR4) and node-sql-parser 5
 * (`database: 'flinksql'`), the last two as dev dependencies. Flink files only for the libraries
 * (neither has a ksqlDB dialect). Run: `node --import tsx bench/sqlParsers.ts`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isLineageError, statementLineage } from '../src/sql/index.js';

const corpus = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/fixtures/sql');
const walk = (dir: string): string[] =>
  readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = path.join(dir, n);
      return statSync(p).isDirectory() ? walk(p) : n.endsWith('.sql') ? [p] : [];
    });
const files = walk(corpus).map((file) => ({ file: path.relative(corpus, file), sql: readFileSync(file, 'utf8') }));
const flink = files.filter((f) => f.file.startsWith('flink'));
const ksql = files.filter((f) => f.file.startsWith('ksqldb'));

function measure(name: string, set: typeof files, ok: (sql: string, file: string) => boolean): void {
  const start = performance.now();
  let passed = 0;
  for (const { sql, file } of set) {
    try {
      if (ok(sql, file)) passed++;
    } catch {
      /* counted as a failure */
    }
  }
  console.log(
    `${name.padEnd(40)} ${String(passed).padStart(4)} / ${set.length}  ${(performance.now() - start).toFixed(0)} ms`,
  );
}

const ours = (dialect: 'flink' | 'ksql') => (sql: string) => {
  const r = statementLineage(sql, { dialect });
  return !isLineageError(r) && !r.kinds.some((k) => k === 'fallback' || k === 'unparsed');
};
measure('src/sql (Flink)', flink, ours('flink'));
measure('src/sql (ksqlDB)', ksql, ours('ksql'));

try {
  const { FlinkSQL } = await import('dt-sql-parser');
  const parser = new FlinkSQL();
  measure('dt-sql-parser FlinkSQL validate()', flink, (sql) => parser.validate(sql).length === 0);
} catch (error) {
  console.log(`dt-sql-parser not available: ${(error as Error).message}`);
}
try {
  const mod = await import('node-sql-parser');
  const Parser =
    (mod as unknown as { Parser?: new () => { astify(sql: string, opt: object): unknown } }).Parser ??
    (mod as unknown as { default: { Parser: new () => { astify(sql: string, opt: object): unknown } } }).default.Parser;
  const parser = new Parser();
  measure('node-sql-parser flinksql astify()', flink, (sql) => {
    parser.astify(sql, { database: 'flinksql' });
    return true;
  });
} catch (error) {
  console.log(`node-sql-parser not available: ${(error as Error).message}`);
}
