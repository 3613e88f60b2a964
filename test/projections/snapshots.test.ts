/**
 * Snapshot-based `as_of` reads and diffs (`projections/snapshots.ts`) give the same answers as folding
 * the graph's stream from its start, on random histories, on every store backend
 * (`test/projections/snapshotsBackends.ts`).
 *
 * The random histories are those of `test/projections/randomHistories.ts`. Snapshots are taken every
 * 2 to 5 events; some are then removed, replaced by garbage, or replaced by a snapshot of another
 * format whose content is wrong: none of that may change an answer. Queries: `as_of` at random
 * revisions and times (recorded times, one millisecond either side, before the first and after the
 * last), and diffs between random pairs of such points in either order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { EventStore } from '../../src/eventStore.js';
import { NotFoundError } from '../../src/errors.js';
import {
  GRAPH_SNAPSHOT_FORMAT,
  diffGraphAsOf,
  encodeSnapshot,
  graphSnapshotKey,
  readGraphAsOf,
  snapshotPayload,
  snapshotWritesSettled,
  writeGraphSnapshots,
} from '../../projections/snapshots.js';
import { snapshotBackends } from './snapshotsBackends.js';
import { eventArb, expectedDiff, fromStart, pointArb, record, resolve, shown } from './randomHistories.js';

const RUNS: Record<string, number> = { memory: 60, file: 25, sqlite: 25, postgres: 15, eventstoredb: 10 };

const scenarioArb = (graphId: string) =>
  fc.record({
    appends: fc.array(
      fc.record({
        events: fc.array(eventArb(graphId), { minLength: 1, maxLength: 3 }),
        step: fc.integer({ min: -2, max: 3 }),
      }),
      { minLength: 1, maxLength: 15 },
    ),
    interval: fc.integer({ min: 2, max: 5 }),
    /** Take every snapshot first (else only those the queries' folds pass). */
    backfill: fc.boolean(),
    /** Snapshot points to spoil: 0 removes it, 1 replaces it with garbage, 2 adds a wrong one of another format. */
    spoil: fc.array(fc.record({ point: fc.nat(20), how: fc.constantFrom(0, 1, 2) }), { maxLength: 3 }),
    asOf: fc.array(pointArb, { minLength: 1, maxLength: 4 }),
    diffs: fc.array(fc.tuple(pointArb, pointArb), { minLength: 1, maxLength: 3 }),
  });

/** Removes, corrupts or shadows some snapshot points (each must leave every answer as it was). */
async function spoil(
  store: EventStore,
  graphId: string,
  interval: number,
  spoils: Array<{ point: number; how: number }>,
) {
  const key = graphSnapshotKey(graphId);
  const first = snapshotPayload((await readGraphAsOf(store, graphId, { revision: 0 }, { write: false })).state);
  for (const { point, how } of spoils) {
    const revision = (point + 1) * interval - 1;
    const info = { key, format: GRAPH_SNAPSHOT_FORMAT, revision, position: 1, recorded_at: '1970-01-01T00:00:00.000Z' };
    // A well-formed snapshot of the right revision whose content is wrong: only its format may keep it out.
    const wrong = await encodeSnapshot({ ...first, revision, name: 'WRONG' });
    if (how === 0) await store.snapshots.remove(key, GRAPH_SNAPSHOT_FORMAT, revision);
    if (how === 1) {
      await store.snapshots.remove(key, GRAPH_SNAPSHOT_FORMAT, revision);
      await store.snapshots.put(info, new Uint8Array([31, 139, 8, 0, 1, 2, 3]));
    }
    if (how === 2) {
      await store.snapshots.remove(key, GRAPH_SNAPSHOT_FORMAT, revision);
      await store.snapshots.put({ ...info, format: 'graph-0;stale' }, wrong);
    }
  }
}

describe('graph snapshots: as_of and diff equal the fold from the start', async () => {
  const backends = await snapshotBackends();
  for (const backend of backends) {
    describe(backend.name, { skip: backend.skip }, () => {
      const clock = { time: Date.parse('2026-01-01T00:00:00.000Z') };
      let opened: Awaited<ReturnType<typeof backend.open>>;
      before(async () => {
        opened = await backend.open(() => new Date(clock.time));
      });
      after(async () => opened?.cleanup());

      it(`on random histories (${RUNS[backend.name]} runs)`, async () => {
        const { store } = opened;
        await fc.assert(
          fc.asyncProperty(
            fc.uuid().chain((graphId) => scenarioArb(graphId).map((scenario) => ({ graphId, scenario }))),
            async ({ graphId, scenario }) => {
              const times = await record(store, graphId, scenario.appends, clock);
              const options = { interval: scenario.interval };
              if (scenario.backfill) await writeGraphSnapshots(store, graphId, options);
              await spoil(store, graphId, scenario.interval, scenario.spoil);
              for (const spec of scenario.asOf) {
                const asOf = resolve(spec, times);
                const expected = await fromStart(store, graphId, asOf);
                const actual = await readGraphAsOf(store, graphId, asOf, options).then(
                  (folded) => folded.state,
                  (error: unknown) => {
                    if (error instanceof NotFoundError) return 'not found' as const;
                    throw error;
                  },
                );
                assert.equal(
                  typeof actual === 'string' ? actual : shown(actual),
                  typeof expected === 'string' ? expected : shown(expected),
                  `as_of ${JSON.stringify(asOf)}`,
                );
              }
              for (const [fromSpec, toSpec] of scenario.diffs) {
                const [from, to] = [resolve(fromSpec, times), resolve(toSpec, times)];
                const expected = await expectedDiff(store, graphId, from, to);
                const actual = await diffGraphAsOf(store, graphId, from, to, options);
                assert.deepEqual(actual, expected, `diff ${JSON.stringify(from)} → ${JSON.stringify(to)}`);
              }
              await snapshotWritesSettled();
            },
          ),
          { numRuns: RUNS[backend.name] ?? 10 },
        );
      });
    });
  }
});
