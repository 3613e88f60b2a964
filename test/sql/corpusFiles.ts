/**
 * Shared helpers of the corpus tests: where `../shared/fixtures/sql` is, how its files are listed,
 * the dialect of a corpus file, and the per-file source/sink sets as display names.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTableRef, isLineageError, statementLineage } from '../../src/sql/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const corpus = path.resolve(repoRoot, '../shared/fixtures/sql');

export function sqlFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? sqlFiles(full) : name.endsWith('.sql') ? [full] : [];
    });
}

export const dialectOf = (relative: string) => (relative.startsWith('ksqldb') ? 'ksql' : 'flink') as 'ksql' | 'flink';

/** Sorted display names of the sources and sinks of one corpus file (path relative to `corpus`). */
export function fileSourcesAndSinks(relative: string): { sources: string[]; sinks: string[] } {
  const result = statementLineage(readFileSync(path.join(corpus, relative), 'utf8'), { dialect: dialectOf(relative) });
  return {
    sources: isLineageError(result) ? [] : result.sources.map(formatTableRef).sort(),
    sinks: isLineageError(result) ? [] : result.sinks.map(formatTableRef).sort(),
  };
}
