/**
 * The event store contract: ONE suite that every adapter of `src/eventStore.ts` must pass. Adapter
 * tests call `describeEventStoreContract(name, open)`; each case opens a fresh store, so cases never
 * see each other's events.
 *
 * Cases read relative to the head position at their start and use unique stream names, so that the
 * suite can also run against a shared server (EventStoreDB), where the store is never empty. On the
 * `eventstoredb` backend positions are commit positions (increasing, with gaps): the gap-free
 * assertions are made on every other backend only.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { ExpectedRevisionConflictError, StorageError, ValidationError } from '../../src/errors.js';
import type { EventStore, EventToAppend, ExpectedRevision, RecordedEvent, Subscription } from '../../src/eventStore.js';

/** A store opened for one case. */
export interface OpenedStore {
  store: EventStore;
  /**
   * Durable adapters only: opens the same location again (call it after `store.close()`); the
   * stores it returns are closed by `cleanup`.
   */
  reopen?(): Promise<EventStore>;
  /** Closes every store opened for the case (closing twice must be harmless) and removes its data. */
  cleanup(): Promise<void>;
}

export interface EventStoreContractOptions {
  /** A reason to skip the whole suite (printed by the reporter), or false to run it. */
  skip?: string | false;
}

/** Guard against a hung subscription: a case fails instead of blocking the run (not a timing assertion). */
const CASE = { timeout: 30_000 };

/** A `NodesAdded`-like event with a unique event id. */
export function anEvent(label: string, extra: Record<string, unknown> = {}): EventToAppend {
  return {
    type: 'NodesAdded',
    version: 1,
    data: {
      graph_id: 'g-contract',
      nodes: [
        { id: `node-${label}`, node_type: 'TOPIC', qualified_name: `orders.${label}`, attributes: { partitions: 6 } },
      ],
      ...extra,
    },
    metadata: { event_id: randomUUID(), correlation_id: `corr-${label}`, actor: 'test', cause: 'extraction' },
  };
}

function someEvents(count: number, label: string): EventToAppend[] {
  return Array.from({ length: count }, (_, index) => anEvent(`${label}-${index}`));
}

function aStream(prefix = 'graph'): string {
  return `${prefix}-${randomUUID()}`;
}

const ids = (events: ReadonlyArray<{ metadata: { event_id: string } }>): string[] =>
  events.map((e) => e.metadata.event_id);

/** Reads `count` events from a subscription, then ends it. */
async function take(subscription: Subscription, count: number): Promise<RecordedEvent[]> {
  const received: RecordedEvent[] = [];
  try {
    for await (const event of subscription) {
      received.push(event);
      if (received.length >= count) break;
    }
  } finally {
    await subscription.close();
  }
  return received;
}

function assertIncreasing(positions: number[], gapFree: boolean, first?: number): void {
  for (let i = 1; i < positions.length; i += 1)
    assert.ok(positions[i]! > positions[i - 1]!, `positions increase: ${positions.join(',')}`);
  if (gapFree) {
    const start = first ?? positions[0] ?? 1;
    assert.deepEqual(
      positions,
      positions.map((_, i) => start + i),
      'positions are gap-free',
    );
  }
}

/**
 * Registers the contract suite for one adapter.
 * @param name shown in the report, e.g. `sqlite`.
 * @param open opens a fresh, empty store (or, on a shared server, a store in any state).
 * @param options `skip` with a reason to skip the suite.
 */
export function describeEventStoreContract(
  name: string,
  open: () => Promise<OpenedStore>,
  options: EventStoreContractOptions = {},
): void {
  async function withStore(run: (store: EventStore, opened: OpenedStore) => Promise<void>): Promise<void> {
    const opened = await open();
    try {
      await run(opened.store, opened);
    } finally {
      await opened.cleanup();
    }
  }
  /** Positions are gap-free 1..N and stores start empty, except on EventStoreDB (see the module docstring). */
  const exact = (store: EventStore): boolean => store.backend !== 'eventstoredb';

  async function assertConflict(
    store: EventStore,
    stream: string,
    expectedRevision: ExpectedRevision,
    actual: number,
  ): Promise<void> {
    const before = await store.readStream(stream);
    const head = await store.headPosition();
    await assert.rejects(store.append(stream, someEvents(2, 'conflict'), { expectedRevision }), (error: unknown) => {
      assert.ok(error instanceof ExpectedRevisionConflictError, `expected a conflict, got ${String(error)}`);
      assert.equal(error.stream, stream);
      assert.equal(error.actual, actual);
      return true;
    });
    assert.deepEqual(await store.readStream(stream), before, 'a conflicting append writes nothing');
    assert.equal(await store.streamRevision(stream), actual);
    if (exact(store)) assert.equal(await store.headPosition(), head, 'a conflicting append takes no position');
  }

  describe(`event store contract: ${name}`, { skip: options.skip || false }, () => {
    it('appends events and reads them back in revision order', CASE, () =>
      withStore(async (store) => {
        const stream = aStream();
        const first = someEvents(2, 'first');
        const second = [anEvent('second', { note: 'x' })];
        const one = await store.append(stream, first, { expectedRevision: 'no_stream' });
        const two = await store.append(stream, second, { expectedRevision: one.next_expected_revision });
        assert.equal(one.next_expected_revision, 1);
        assert.equal(two.next_expected_revision, 2);

        const read = await store.readStream(stream);
        const appended = [...first, ...second];
        assert.deepEqual(
          read.map((e) => e.revision),
          [0, 1, 2],
        );
        assert.deepEqual(ids(read), ids(appended));
        assert.deepEqual(
          read.map((e) => [e.stream, e.type, e.version, e.data, e.metadata]),
          appended.map((e) => [stream, e.type, e.version, e.data, e.metadata]),
        );
        assert.equal(one.position, read[1]!.position, 'the result names the position of the last event appended');
        assert.equal(two.position, read[2]!.position);
        assert.equal(await store.streamRevision(stream), 2);
      }),
    );

    it('gives every event a strictly increasing position, gap-free across streams', CASE, () =>
      withStore(async (store) => {
        const base = await store.headPosition();
        const [a, b, c] = [aStream('a'), aStream('b'), aStream('c')];
        await store.append(a, someEvents(2, 'a1'));
        await store.append(b, someEvents(3, 'b1'));
        await store.append(a, someEvents(1, 'a2'));
        const last = await store.append(c, someEvents(2, 'c1'));

        const all = await store.readAll({ after: base });
        assert.equal(all.length, 8);
        assertIncreasing(
          all.map((e) => e.position),
          exact(store),
          base + 1,
        );
        assert.deepEqual(
          all.map((e) => `${e.stream}@${e.revision}`),
          [`${a}@0`, `${a}@1`, `${b}@0`, `${b}@1`, `${b}@2`, `${a}@2`, `${c}@0`, `${c}@1`],
        );
        const byStream = [
          ...(await store.readStream(a)),
          ...(await store.readStream(b)),
          ...(await store.readStream(c)),
        ];
        for (const event of byStream) {
          assert.equal(all.find((e) => e.metadata.event_id === event.metadata.event_id)?.position, event.position);
        }
        assert.equal(last.position, all[7]!.position);
        assert.equal(await store.headPosition(), all[7]!.position);
      }),
    );

    it('stamps recorded_at as an ISO 8601 UTC time with milliseconds', CASE, () =>
      withStore(async (store) => {
        const before = Date.now();
        const stream = aStream();
        await store.append(stream, someEvents(2, 'clock'));
        const after = Date.now();
        for (const event of await store.readStream(stream)) {
          assert.match(event.recorded_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
          assert.equal(new Date(event.recorded_at).toISOString(), event.recorded_at);
          if (exact(store)) {
            const at = Date.parse(event.recorded_at);
            assert.ok(at >= before - 1 && at <= after + 1, `${event.recorded_at} is the time of the append`);
          }
        }
      }),
    );

    describe('expected revisions', () => {
      it("'any' appends whether or not the stream exists", CASE, () =>
        withStore(async (store) => {
          const stream = aStream();
          assert.equal(
            (await store.append(stream, someEvents(1, 'a'), { expectedRevision: 'any' })).next_expected_revision,
            0,
          );
          assert.equal(
            (await store.append(stream, someEvents(2, 'b'), { expectedRevision: 'any' })).next_expected_revision,
            2,
          );
          assert.equal(
            (await store.append(stream, someEvents(1, 'c'))).next_expected_revision,
            3,
            "'any' is the default",
          );
        }),
      );

      it("'no_stream' succeeds on a new stream and conflicts on an existing one", CASE, () =>
        withStore(async (store) => {
          const stream = aStream();
          assert.equal(
            (await store.append(stream, someEvents(2, 'a'), { expectedRevision: 'no_stream' })).next_expected_revision,
            1,
          );
          await assertConflict(store, stream, 'no_stream', 1);
        }),
      );

      it("'stream_exists' conflicts on a new stream and succeeds on an existing one", CASE, () =>
        withStore(async (store) => {
          const stream = aStream();
          await assertConflict(store, stream, 'stream_exists', -1);
          await store.append(stream, someEvents(1, 'a'));
          assert.equal(
            (await store.append(stream, someEvents(1, 'b'), { expectedRevision: 'stream_exists' }))
              .next_expected_revision,
            1,
          );
        }),
      );

      it('a number must equal the current revision, -1 meaning no stream', CASE, () =>
        withStore(async (store) => {
          const stream = aStream();
          await assertConflict(store, stream, 0, -1);
          assert.equal(
            (await store.append(stream, someEvents(2, 'a'), { expectedRevision: -1 })).next_expected_revision,
            1,
          );
          await assertConflict(store, stream, -1, 1);
          await assertConflict(store, stream, 0, 1);
          await assertConflict(store, stream, 2, 1);
          assert.equal(
            (await store.append(stream, someEvents(1, 'b'), { expectedRevision: 1 })).next_expected_revision,
            2,
          );
        }),
      );

      it('concurrent appends with the same expected revision: exactly one wins', CASE, () =>
        withStore(async (store) => {
          const stream = aStream();
          await store.append(stream, someEvents(1, 'seed'));
          const batches = Array.from({ length: 6 }, (_, i) => someEvents(2, `racer-${i}`));
          const outcomes = await Promise.allSettled(
            batches.map((batch) => store.append(stream, batch, { expectedRevision: 0 })),
          );
          const winners = outcomes.flatMap((outcome, i) => (outcome.status === 'fulfilled' ? [i] : []));
          assert.equal(winners.length, 1, 'exactly one append wins');
          for (const outcome of outcomes) {
            if (outcome.status === 'rejected')
              assert.ok(outcome.reason instanceof ExpectedRevisionConflictError, String(outcome.reason));
          }
          const read = await store.readStream(stream);
          assert.equal(read.length, 3);
          assert.deepEqual(ids(read.slice(1)), ids(batches[winners[0]!]!));

          const fresh = aStream();
          const creators = await Promise.allSettled(
            Array.from({ length: 4 }, (_, i) =>
              store.append(fresh, someEvents(1, `creator-${i}`), { expectedRevision: 'no_stream' }),
            ),
          );
          assert.equal(
            creators.filter((outcome) => outcome.status === 'fulfilled').length,
            1,
            "exactly one 'no_stream' append wins",
          );
          assert.equal(await store.streamRevision(fresh), 0);
        }),
      );
    });

    it('rejects an empty append with ValidationError and writes nothing', CASE, () =>
      withStore(async (store) => {
        const stream = aStream();
        const head = await store.headPosition();
        await assert.rejects(store.append(stream, []), ValidationError);
        assert.equal(await store.streamRevision(stream), -1);
        if (exact(store)) assert.equal(await store.headPosition(), head);
      }),
    );

    it('reads a slice of a stream with fromRevision, toRevision and maxCount', CASE, () =>
      withStore(async (store) => {
        const stream = aStream();
        await store.append(stream, someEvents(6, 'x'));
        await store.append(stream, someEvents(4, 'y'));
        const revisions = async (options: Parameters<EventStore['readStream']>[1]): Promise<number[]> =>
          (await store.readStream(stream, options)).map((e) => e.revision);
        assert.deepEqual(await revisions({}), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert.deepEqual(await revisions({ fromRevision: 7 }), [7, 8, 9]);
        assert.deepEqual(await revisions({ toRevision: 2 }), [0, 1, 2]);
        assert.deepEqual(await revisions({ fromRevision: 2, toRevision: 5 }), [2, 3, 4, 5]);
        assert.deepEqual(await revisions({ maxCount: 3 }), [0, 1, 2]);
        assert.deepEqual(await revisions({ fromRevision: 5, maxCount: 2 }), [5, 6]);
        assert.deepEqual(await revisions({ fromRevision: 2, toRevision: 4, maxCount: 10 }), [2, 3, 4]);
        assert.deepEqual(await revisions({ fromRevision: 4, toRevision: 8, maxCount: 2 }), [4, 5]);
        assert.deepEqual(await revisions({ fromRevision: 9 }), [9]);
        assert.deepEqual(await revisions({ fromRevision: 10 }), []);
        assert.deepEqual(await revisions({ fromRevision: 6, toRevision: 3 }), []);
        assert.deepEqual(await revisions({ maxCount: 0 }), []);
      }),
    );

    it('reads an unknown stream as [] with revision -1', CASE, () =>
      withStore(async (store) => {
        const stream = aStream('unknown');
        assert.deepEqual(await store.readStream(stream), []);
        assert.deepEqual(await store.readStream(stream, { fromRevision: 3, maxCount: 2 }), []);
        assert.equal(await store.streamRevision(stream), -1);
      }),
    );

    it('pages through readAll with after and maxCount', CASE, () =>
      withStore(async (store) => {
        const base = await store.headPosition();
        for (let i = 0; i < 5; i += 1) await store.append(aStream(`s${i % 3}`), someEvents(5, `p${i}`));
        const everything = await store.readAll({ after: base, maxCount: 100 });
        assert.equal(everything.length, 25);
        const pages: RecordedEvent[][] = [];
        let after = base;
        for (;;) {
          const page = await store.readAll({ after, maxCount: 10 });
          if (page.length === 0) break;
          pages.push(page);
          after = page[page.length - 1]!.position;
        }
        assert.deepEqual(
          pages.map((page) => page.length),
          [10, 10, 5],
        );
        assert.deepEqual(pages.flat(), everything);
        assert.deepEqual(await store.readAll({ after: everything[24]!.position }), []);
        assert.deepEqual(
          await store.readAll({ after: everything[9]!.position, maxCount: 3 }),
          everything.slice(10, 13),
        );
      }),
    );

    it('returns at most 1,000 events from readAll by default', CASE, () =>
      withStore(async (store) => {
        const base = await store.headPosition();
        await store.append(aStream(), someEvents(1001, 'many'));
        const page = await store.readAll({ after: base });
        assert.equal(page.length, 1000);
        assert.deepEqual(
          page.map((e) => e.revision),
          page.map((_, i) => i),
        );
      }),
    );

    it('reports the head position: 0 when empty, then the last position', CASE, () =>
      withStore(async (store) => {
        if (exact(store)) assert.equal(await store.headPosition(), 0);
        const one = await store.append(aStream(), someEvents(3, 'h1'));
        assert.equal(await store.headPosition(), one.position);
        const two = await store.append(aStream(), someEvents(2, 'h2'));
        assert.equal(await store.headPosition(), two.position);
        if (exact(store)) assert.equal(two.position, 5);
      }),
    );

    describe('subscriptions', () => {
      it('catch up on stored events, then deliver live appends once and in order', CASE, () =>
        withStore(async (store) => {
          const base = await store.headPosition();
          const stream = aStream();
          const stored = someEvents(3, 'stored');
          await store.append(stream, stored);
          const receiving = take(store.subscribe({ after: base, batchSize: 2 }), 8);
          const live = [someEvents(2, 'live1'), someEvents(3, 'live2')];
          await store.append(stream, live[0]!, { expectedRevision: 2 });
          await store.append(stream, live[1]!, { expectedRevision: 4 });
          const received = await receiving;
          assert.deepEqual(ids(received), ids([...stored, ...live.flat()]));
          assert.deepEqual(
            received.map((e) => e.revision),
            [0, 1, 2, 3, 4, 5, 6, 7],
          );
          assertIncreasing(
            received.map((e) => e.position),
            exact(store),
            base + 1,
          );
        }),
      );

      it('deliver every event once and in position order with two concurrent appenders', CASE, () =>
        withStore(async (store) => {
          const base = await store.headPosition();
          const [a, b] = [aStream('writer-a'), aStream('writer-b')];
          const receiving = take(store.subscribe({ after: base, batchSize: 7 }), 60);
          const write = async (stream: string): Promise<EventToAppend[]> => {
            const written: EventToAppend[] = [];
            let expectedRevision: ExpectedRevision = 'no_stream';
            for (let i = 0; i < 10; i += 1) {
              const batch = someEvents(3, `${stream}-${i}`);
              expectedRevision = (await store.append(stream, batch, { expectedRevision })).next_expected_revision;
              written.push(...batch);
            }
            return written;
          };
          const [fromA, fromB] = await Promise.all([write(a), write(b)]);
          const received = await receiving;

          assert.equal(new Set(ids(received)).size, 60, 'no event twice');
          assert.deepEqual(new Set(ids(received)), new Set(ids([...fromA!, ...fromB!])), 'no event missing');
          assertIncreasing(
            received.map((e) => e.position),
            exact(store),
            base + 1,
          );
          for (const [stream, written] of [
            [a, fromA!],
            [b, fromB!],
          ] as const) {
            const ofStream = received.filter((e) => e.stream === stream);
            assert.deepEqual(ids(ofStream), ids(written), `${stream} in append order`);
            assert.deepEqual(
              ofStream.map((e) => e.revision),
              written.map((_, i) => i),
            );
          }
          assert.deepEqual(received, await store.readAll({ after: base, maxCount: 60 }));
        }),
      );

      it('start after a given position', CASE, () =>
        withStore(async (store) => {
          const stream = aStream();
          await store.append(stream, someEvents(6, 'middle'));
          const all = await store.readStream(stream);
          const received = await take(store.subscribe({ after: all[2]!.position }), 3);
          assert.deepEqual(received, all.slice(3));
        }),
      );

      it('end without an error when the store closes, and the store then rejects calls', CASE, () =>
        withStore(async (store) => {
          const base = await store.headPosition();
          await store.append(aStream(), someEvents(1, 'before-close'));
          const subscription = store.subscribe({ after: base });
          const received: RecordedEvent[] = [];
          let first!: () => void;
          const gotFirst = new Promise<void>((resolve) => {
            first = resolve;
          });
          const consuming = (async () => {
            for await (const event of subscription) {
              received.push(event);
              first();
            }
          })();
          await gotFirst;
          await store.close();
          await consuming;
          assert.equal(received.length, 1);
          await assert.rejects(store.readAll(), StorageError);
          await assert.rejects(store.append(aStream(), someEvents(1, 'after-close')), StorageError);
        }),
      );
    });

    it('round-trips data and metadata exactly: nesting, unicode, numbers', CASE, () =>
      withStore(async (store) => {
        const stream = aStream('unicode');
        const data = {
          nested: { deeper: { deepest: [1, [2, [3, { four: 4 }]]] } },
          unicode: 'Zürich ✓ 東京 🚀 \u{1F468}\u200D\u{1F469}\u200D\u{1F467} עברית e\u0301',
          escapes: 'quote " backslash \\ newline \n tab \t line-sep \u2028 nul \u0000',
          numbers: [0, -1, 3.14159, 1e-7, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER],
          flags: [true, false, null],
          empty: { object: {}, array: [], string: '' },
          'key with spaces/and.dots': 'ok',
        };
        const event: EventToAppend = {
          type: 'GraphRenamed',
          version: 3,
          data,
          metadata: {
            event_id: randomUUID(),
            correlation_id: randomUUID(),
            causation_id: randomUUID(),
            actor: 'watcher:ü-1',
            cause: 'watcher',
          },
        };
        await store.append(stream, [event]);
        const [read] = await store.readStream(stream);
        assert.deepEqual(read?.data, data);
        assert.deepEqual(read?.metadata, event.metadata);
        assert.equal(read?.type, 'GraphRenamed');
        assert.equal(read?.version, 3);
      }),
    );

    it('round-trips a large payload (about 1 MB)', CASE, () =>
      withStore(async (store) => {
        const stream = aStream('large');
        const nodes = Array.from({ length: 4400 }, (_, i) => ({
          id: `node-${i}`,
          qualified_name: `cluster.topic.${i}.${'x'.repeat(120)}`,
          attributes: { partitions: i % 12, owner: `team-${i % 7}` },
        }));
        const event = anEvent('large', { nodes });
        const size = Buffer.byteLength(JSON.stringify(event.data));
        assert.ok(size > 900_000 && size < 1_040_000, `payload is about 1 MB (${size} bytes)`);
        await store.append(stream, [event]);
        const [read] = await store.readStream(stream);
        assert.deepEqual(read?.data, event.data);
        const [fromAll] = await store.readAll({ after: read!.position - 1, maxCount: 1 });
        if (exact(store)) assert.deepEqual(fromAll, read);
      }),
    );

    it('keeps every event across close and reopen (durable adapters)', CASE, (t) =>
      withStore(async (store, opened) => {
        if (opened.reopen === undefined) {
          t.skip(`the ${name} store is not durable: nothing survives close`);
          return;
        }
        const base = await store.headPosition();
        const [a, b] = [aStream('durable-a'), aStream('durable-b')];
        await store.append(a, someEvents(3, 'a'));
        await store.append(b, someEvents(2, 'b'));
        await store.append(a, someEvents(1, 'a2'), { expectedRevision: 2 });
        const before = await store.readAll({ after: base });
        await store.close();

        const reopened = await opened.reopen();
        assert.deepEqual(await reopened.readAll({ after: base }), before);
        assert.equal(await reopened.streamRevision(a), 3);
        assert.equal(await reopened.streamRevision(b), 1);
        assert.equal(await reopened.headPosition(), before[before.length - 1]!.position);
        await assert.rejects(
          reopened.append(a, someEvents(1, 'stale'), { expectedRevision: 2 }),
          ExpectedRevisionConflictError,
        );
        const next = await reopened.append(a, someEvents(1, 'a3'), { expectedRevision: 3 });
        assert.equal(next.next_expected_revision, 4);
        if (exact(reopened)) assert.equal(next.position, before.length + base + 1, 'positions continue without a gap');
      }),
    );
  });
}
