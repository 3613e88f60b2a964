/**
 * Corpus test (`docs/sql-lineage.md` section 6): every statement file of `../shared/fixtures/sql`
 * goes through `statementLineage` without a crash (reported by diagnostic), and the hand-labelled
 * subset (`labels.ts`) has exactly the expected source and sink sets for at least 95% of files.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { isLineageError, statementLineage } from '../../src/sql/index.js';
import { corpus, dialectOf, fileSourcesAndSinks, sqlFiles } from './corpusFiles.js';
import { LABELS } from './labels.js';

describe('SQL corpus', () => {
  it('handles every corpus file without a crash', (t) => {
    if (!existsSync(corpus)) {
      t.skip('../shared/fixtures/sql not found: corpus not checked');
      return;
    }
    const files = sqlFiles(corpus);
    let parsed = 0;
    let fallback = 0;
    let failed = 0;
    const counts = { flink: 0, ksql: 0 };
    for (const file of files) {
      const relative = path.relative(corpus, file);
      counts[dialectOf(relative)]++;
      const result = statementLineage(readFileSync(file, 'utf8'), { dialect: dialectOf(relative) });
      if (isLineageError(result)) {
        failed++;
        t.diagnostic(`error: ${relative}: ${result.error}`);
        continue;
      }
      if (result.kinds.some((k) => k === 'fallback' || k === 'unparsed')) {
        fallback++;
        t.diagnostic(
          `partly read: ${relative}: ${result.warnings.filter((w) => w.startsWith('statement')).join('; ')}`,
        );
      } else parsed++;
    }
    t.diagnostic(
      `corpus: ${files.length} files (${counts.flink} Flink, ${counts.ksql} ksqlDB): ${parsed} fully parsed, ` +
        `${fallback} partly (fallback or one statement unread), ${failed} errors`,
    );
    assert.ok(files.length > 0);
    assert.equal(parsed + fallback + failed, files.length);
  });

  it('finds exactly the labelled sources and sinks for at least 95% of the labelled files', (t) => {
    if (!existsSync(corpus)) {
      t.skip('../shared/fixtures/sql not found: corpus not checked');
      return;
    }
    assert.ok(LABELS.length >= 40);
    const misses: string[] = [];
    for (const label of LABELS) {
      const file = path.join(corpus, label.file);
      assert.ok(existsSync(file), `labelled file exists: ${label.file}`);
      const { sources, sinks } = fileSourcesAndSinks(label.file);
      const ok =
        JSON.stringify(sources) === JSON.stringify([...label.sources].sort()) &&
        JSON.stringify(sinks) === JSON.stringify([...label.sinks].sort());
      if (!ok)
        misses.push(
          `${label.file}: got sources ${JSON.stringify(sources)} sinks ${JSON.stringify(sinks)}; ` +
            `expected ${JSON.stringify(label.sources)} / ${JSON.stringify(label.sinks)}`,
        );
    }
    for (const miss of misses) t.diagnostic(`miss: ${miss}`);
    const accuracy = (LABELS.length - misses.length) / LABELS.length;
    t.diagnostic(
      `labelled: ${LABELS.length - misses.length}/${LABELS.length} exactly right (${(accuracy * 100).toFixed(1)}%)`,
    );
    assert.ok(accuracy >= 0.95, `accuracy ${accuracy}`);
  });
});
