/**
 * The OpenLineage ingestor (`createOpenLineageIngestor`, `src/openlineage/ingestion.ts`;
 * docs/openlineage.md, "Dedupe"): its calls run one at a time, it remembers the keys it appended (up
 * to a bound), a failed append leaves it usable, and what it remembers belongs to it, not to the
 * module: two ingestors over one store share only what the store enforces.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMemoryEventStore } from '../../infra/eventStore/memoryEventStore.js';
import { StorageError } from '../../src/errors.js';
import type { EventStore } from '../../src/eventStore.js';
import { createOpenLineageIngestor, type IngestionResult } from '../../src/openlineage/ingestion.js';
import { runEvent } from './helpers.js';

const statuses = (results: readonly IngestionResult[]) => results.map((result) => result.status);
const event = (job: string) => runEvent({ job });

/** A memory store whose next `failures` appends throw a StorageError. */
function flakyStore(failures: number): EventStore {
  const store = createMemoryEventStore();
  let left = failures;
  const append = store.append.bind(store);
  return {
    ...store,
    append: (...args: Parameters<EventStore['append']>) =>
      left-- > 0 ? Promise.reject(new StorageError('disk full')) : append(...args),
  } as EventStore;
}

describe('OpenLineage ingestor', () => {
  it('runs concurrent calls one at a time: overlapping batches store their shared event once', async () => {
    const store = createMemoryEventStore();
    const ingestor = createOpenLineageIngestor({ store });
    const [first, second] = await Promise.all([
      ingestor.ingest([event('a'), event('b')]),
      ingestor.ingest([event('b'), event('c')]),
    ]);
    assert.deepEqual(statuses(first!), ['accepted', 'accepted']);
    assert.deepEqual(statuses(second!), ['duplicate', 'accepted'], 'b was appended by the first call');
    assert.equal(await store.headPosition(), 3);
  });

  it('remembers the keys it appended without a dedupe index, and forgets the oldest half past its bound', async () => {
    const store = createMemoryEventStore();
    const ingestor = createOpenLineageIngestor({ store, recentKeys: 4 });
    for (const job of ['k1', 'k2', 'k3', 'k4'])
      assert.deepEqual(statuses(await ingestor.ingest([event(job)])), ['accepted']);
    assert.deepEqual(statuses(await ingestor.ingest([event('k1'), event('new-1')])), ['duplicate', 'accepted']);
    // Five keys are over the bound of 4: the three oldest (k1, k2, k3) were forgotten, down to 2.
    assert.deepEqual(
      statuses(await ingestor.ingest([event('k2'), event('k3'), event('k4'), event('new-1')])),
      ['accepted', 'accepted', 'duplicate', 'duplicate'],
      'k2 and k3 are no longer remembered: stored again in a new batch stream (the projection folds them once)',
    );
  });

  it('asks the dedupe index about keys stored by earlier calls', async () => {
    const store = createMemoryEventStore();
    const folded = new Set<string>();
    const fresh = () => createOpenLineageIngestor({ store, dedupeIndex: { hasDedupeKey: (key) => folded.has(key) } });
    const [stored] = await fresh().ingest([event('a')]);
    assert.deepEqual(
      statuses(await fresh().ingest([event('a'), event('b')])),
      ['accepted', 'accepted'],
      'not folded yet',
    );
    folded.add(stored!.dedupe_key!);
    assert.deepEqual(statuses(await fresh().ingest([event('a'), event('c')])), ['duplicate', 'accepted']);
  });

  it('keeps its memory to itself: another ingestor over the same store relies on the store alone', async () => {
    const store = createMemoryEventStore();
    const one = createOpenLineageIngestor({ store });
    const two = createOpenLineageIngestor({ store });
    assert.deepEqual(statuses(await one.ingest([event('a')])), ['accepted']);
    assert.deepEqual(
      statuses(await two.ingest([event('a')])),
      ['duplicate'],
      'the same single event: the store refuses its stream',
    );
    assert.deepEqual(statuses(await one.ingest([event('a'), event('b')])), ['duplicate', 'accepted']);
    assert.deepEqual(
      statuses(await two.ingest([event('b'), event('c')])),
      ['accepted', 'accepted'],
      'b is in the memory of the ingestor that stored it, not in this one',
    );
  });

  it('a failed append stores nothing, remembers nothing and does not stop the calls after it', async () => {
    const store = flakyStore(1);
    const ingestor = createOpenLineageIngestor({ store });
    const [failed, next] = await Promise.allSettled([ingestor.ingest([event('a')]), ingestor.ingest([event('a')])]);
    assert.equal(failed.status, 'rejected');
    assert.ok(failed.status === 'rejected' && failed.reason instanceof StorageError);
    assert.deepEqual(next.status === 'fulfilled' ? statuses(next.value) : next, ['accepted'], 'the retry is stored');
    assert.equal(await store.headPosition(), 1);
  });
});
