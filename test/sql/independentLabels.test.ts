/**
 * Independent check of SQL lineage (issue 4): `independentLabels.ts` was labelled from the SQL text
 * alone, on files not in `labels.ts`. The per-file source and sink sets must be exactly right for at
 * least 95% of them.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { corpus, dialectOf, fileSourcesAndSinks } from './corpusFiles.js';
import { INDEPENDENT_LABELS } from './independentLabels.js';
import { LABELS } from './labels.js';

describe('SQL lineage, independent labels', () => {
  it('labels at least 40 files (25 Flink, 15 ksqlDB), none of them in labels.ts', () => {
    const flink = INDEPENDENT_LABELS.filter((l) => l.dialect === 'flink').length;
    const ksql = INDEPENDENT_LABELS.filter((l) => l.dialect === 'ksql').length;
    assert.ok(INDEPENDENT_LABELS.length >= 40 && flink >= 25 && ksql >= 15, `${flink} Flink, ${ksql} ksqlDB`);
    const existing = new Set(LABELS.map((l) => l.file));
    assert.deepEqual(
      INDEPENDENT_LABELS.filter((l) => existing.has(l.file)).map((l) => l.file),
      [],
    );
    assert.equal(new Set(INDEPENDENT_LABELS.map((l) => l.file)).size, INDEPENDENT_LABELS.length, 'no duplicate file');
    for (const label of INDEPENDENT_LABELS) assert.equal(label.dialect, dialectOf(label.file), label.file);
  });

  it('finds exactly the independently labelled sources and sinks for at least 95% of the files', (t) => {
    if (!existsSync(corpus)) {
      t.skip(`../shared/fixtures/sql not found: ${corpus}`);
      return;
    }
    const misses: string[] = [];
    for (const label of INDEPENDENT_LABELS) {
      assert.ok(existsSync(path.join(corpus, label.file)), `labelled file exists: ${label.file}`);
      const { sources, sinks } = fileSourcesAndSinks(label.file);
      const expectedSources = [...label.sources].sort();
      const expectedSinks = [...label.sinks].sort();
      const ok =
        JSON.stringify(sources) === JSON.stringify(expectedSources) &&
        JSON.stringify(sinks) === JSON.stringify(expectedSinks);
      if (!ok) {
        misses.push(
          `${label.file}: expected sources ${JSON.stringify(expectedSources)} sinks ${JSON.stringify(expectedSinks)}; ` +
            `got sources ${JSON.stringify(sources)} sinks ${JSON.stringify(sinks)}`,
        );
      }
    }
    for (const miss of misses) t.diagnostic(`miss: ${miss}`);
    const right = INDEPENDENT_LABELS.length - misses.length;
    const accuracy = right / INDEPENDENT_LABELS.length;
    t.diagnostic(
      `independent labels: ${right}/${INDEPENDENT_LABELS.length} exactly right (${(accuracy * 100).toFixed(1)}%)`,
    );
    assert.ok(accuracy >= 0.95, `accuracy ${accuracy}`);
  });
});
