/**
 * The contract of the snapshot table (`SnapshotStore` in `src/eventStore.ts`) on every adapter
 * (`test/projections/snapshotsBackends.ts`): payloads read back byte for byte, `put` keeps the first
 * snapshot of a key, format and revision, `list` orders by revision then format and reports sizes,
 * `remove` deletes one, keys do not see each other, snapshots survive reopening the store where the
 * backend keeps them, and a snapshot never shows up among the events.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { EventStore } from '../../src/eventStore.js';
import { snapshotBackends } from './snapshotsBackends.js';

const bytes = (...values: number[]) => new Uint8Array(values);
const info = (key: string, format: string, revision: number) => ({
  key,
  format,
  revision,
  position: revision + 10,
  recorded_at: `2026-01-01T00:00:0${revision % 10}.000Z`,
});

describe('snapshot table contract', async () => {
  for (const backend of await snapshotBackends()) {
    describe(backend.name, { skip: backend.skip }, () => {
      let opened: Awaited<ReturnType<typeof backend.open>>;
      let store: EventStore;
      before(async () => {
        opened = await backend.open(() => new Date());
        store = opened.store;
      });
      after(async () => opened?.cleanup());

      it('stores, lists, reads and removes snapshots; put keeps the first of a key, format and revision', async () => {
        const key = `graph-${randomUUID()}`;
        assert.deepEqual(await store.snapshots.list(key), []);
        assert.equal(await store.snapshots.read(key, 'f1', 0), undefined);
        assert.equal(await store.snapshots.put(info(key, 'f1', 7), bytes(1, 2, 3)), true);
        assert.equal(await store.snapshots.put(info(key, 'f1', 3), bytes(0, 255, 10, 13)), true);
        assert.equal(await store.snapshots.put(info(key, 'f0', 7), bytes(9)), true);
        assert.equal(await store.snapshots.put(info(key, 'f1', 7), bytes(4, 5, 6, 7)), false);
        assert.deepEqual(await store.snapshots.list(key), [
          { ...info(key, 'f1', 3), bytes: 4 },
          { ...info(key, 'f0', 7), bytes: 1 },
          { ...info(key, 'f1', 7), bytes: 3 },
        ]);
        assert.deepEqual([...((await store.snapshots.read(key, 'f1', 7)) ?? [])], [1, 2, 3]);
        assert.deepEqual([...((await store.snapshots.read(key, 'f1', 3)) ?? [])], [0, 255, 10, 13]);
        await store.snapshots.remove(key, 'f1', 7);
        await store.snapshots.remove(key, 'f1', 99);
        assert.equal(await store.snapshots.read(key, 'f1', 7), undefined);
        assert.deepEqual(
          (await store.snapshots.list(key)).map((row) => `${row.format}@${row.revision}`),
          ['f1@3', 'f0@7'],
        );
      });

      it('keeps keys apart (also keys with @, / and spaces) and large payloads whole', async () => {
        const [a, b] = [`graph-${randomUUID()}`, `graph-${randomUUID()}/x y@z`];
        const large = new Uint8Array(3_000_000).map((_, index) => (index * 31) % 256);
        await store.snapshots.put(info(a, 'graph-1;1.1', 0), large);
        await store.snapshots.put(info(b, 'graph-1;1.1', 0), bytes(42));
        assert.deepEqual(
          (await store.snapshots.list(b)).map((row) => row.bytes),
          [1],
        );
        assert.equal((await store.snapshots.list(a))[0]?.bytes, large.byteLength);
        assert.deepEqual(Buffer.from((await store.snapshots.read(a, 'graph-1;1.1', 0))!), Buffer.from(large));
      });

      it('never shows a snapshot among the events', async () => {
        const head = await store.headPosition();
        await store.snapshots.put(info(`graph-${randomUUID()}`, 'f1', 1), bytes(1));
        assert.equal(await store.headPosition(), head);
        assert.deepEqual(await store.readAll({ after: head }), []);
      });

      it(
        'keeps snapshots when the store is opened again (where the backend keeps anything)',
        {
          skip: backend.name === 'memory' || backend.name === 'eventstoredb' ? 'kept in process memory' : false,
        },
        async () => {
          const key = `graph-${randomUUID()}`;
          await store.snapshots.put(info(key, 'f1', 5), bytes(5, 6));
          store = await opened.reopen!();
          assert.deepEqual(await store.snapshots.list(key), [{ ...info(key, 'f1', 5), bytes: 2 }]);
          assert.deepEqual([...((await store.snapshots.read(key, 'f1', 5)) ?? [])], [5, 6]);
        },
      );
    });
  }
});
