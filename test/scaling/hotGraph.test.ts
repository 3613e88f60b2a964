/**
 * One hot graph on PostgreSQL from two API processes (`bench/hotGraph.ts`, run for a few seconds):
 * every upsert is answered 2xx and every acknowledged node is in the graph afterwards, as read from
 * either process. Skipped with a note when no PostgreSQL answers. Timings are printed, never asserted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { benchHotGraph } from '../../bench/hotGraph.js';

describe('a hot graph on PostgreSQL, two API processes', () => {
  it('loses no acknowledged upsert', async (context) => {
    const result = await benchHotGraph({ seconds: 3, clients: 8 });
    console.log(`# ${JSON.stringify({ ...result, error_samples: undefined })}`);
    if (result.skipped !== null) {
      context.skip(result.skipped);
      return;
    }
    assert.ok(result.upserts > 0);
    assert.equal(result.errors, 0, result.error_samples.join('; '));
    assert.equal(result.lost, 0);
  });
});
