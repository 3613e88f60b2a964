/**
 * The mixed-load bench (`bench/mixedLoad.ts`, `make bench`) run for a few seconds with a few clients:
 * two API processes on PostgreSQL (skipped with a note when none answers) and one on sqlite answer
 * every request of the mix (traversals, reads, node upserts, OpenLineage ingest) without an error, and
 * the sqlite one every read of the reads-only baseline.
 * Timings are printed, never asserted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { benchMixedLoad } from '../../bench/mixedLoad.js';

describe('mixed load on several processes', () => {
  it('answers every request without an error', async () => {
    const rows = await benchMixedLoad({ seconds: 3, clients: 10 });
    for (const row of rows) {
      console.log(`# ${row.setup}: ${JSON.stringify({ ...row, error_samples: undefined })}`);
      if (row.skipped !== null) continue;
      assert.ok(row.requests > 0, row.setup);
      if (row.setup.endsWith('reads only')) {
        assert.ok(row.reads > 0 && row.traversals + row.upserts + row.ingests === 0, row.setup);
        assert.equal(row.reads, row.requests, row.setup);
      } else assert.ok(row.traversals > 0 && row.reads > 0 && row.upserts > 0 && row.ingests > 0, row.setup);
      assert.equal(row.errors, 0, `${row.setup}: ${row.error_samples.join('; ')}`);
    }
    assert.ok(rows.some((row) => row.setup.startsWith('sqlite') && row.skipped === null));
    assert.ok(rows.some((row) => row.setup.endsWith('reads only') && row.skipped === null));
  });
});
