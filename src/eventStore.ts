/**
 * The event store port: the only way lineage-svc writes state.
 *
 * A store holds named streams of events (`graph-{graph_id}`, `task-{task_id}`, ...). Each stream has
 * a revision (0 for its first event, -1 while it does not exist), and every event in the store has a
 * global position, strictly increasing in the order events become visible, so that projections can
 * read "everything after position P" in one order. The port promises no more than that: positions
 * are greater than 0, but not necessarily consecutive. Gap-free numbering from 1 is a property of
 * the memory, file, sqlite and postgres adapters (each documents it, and `test/eventStore/contract.ts`
 * checks it there); EventStoreDB's commit positions have gaps.
 *
 * Adapters live in `infra/eventStore/` (memory, file, sqlite, postgres, eventstoredb); every one passes
 * the same contract suite (`test/eventStore/contract.ts`). This module has no I/O.
 *
 * Model: EventStoreDB's streams, revisions and expected-revision sentinels; emmett's EventStore port.
 */
import { ExpectedRevisionConflictError } from './errors.js';

/**
 * What an append expects of the stream's current revision:
 * - `'any'`: no check;
 * - `'no_stream'`: the stream must not exist yet;
 * - `'stream_exists'`: the stream must hold at least one event;
 * - a number: the revision of the stream's last event must be exactly that (-1 means "no stream").
 */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number;

/** Metadata every event carries. snake_case, like everything lineage-svc serializes. */
export interface EventMetadata {
  /** Unique id of this event (a UUID); appending the same id twice is the caller's bug, not deduplicated. */
  event_id: string;
  /** Groups the events of one operation (an extraction, an API request, an ingested batch). */
  correlation_id?: string | undefined;
  /** Id of the event or command that caused this one. */
  causation_id?: string | undefined;
  /** Who asked: `cli`, `api`, `watcher:{id}`, `kafka`, ... */
  actor?: string | undefined;
  /** Why the change was made: `extraction`, `import`, `api`, `watcher`, `ingestion`, `system`. */
  cause?: string | undefined;
}

/** An event as handed to `append`: a type, its schema version, its data and its metadata. */
export interface EventToAppend {
  type: string;
  /** Version of the event's data schema; old versions are upcast on read (`src/events.ts`). */
  version: number;
  /**
   * The event's data (a JSON value). With `dataJson`, undefined, or the value `dataJson` is the text
   * of (`JSON.parse(dataJson)` would equal it): the sqlite store then freezes it (deeply) and answers
   * it to the reads of its recent appends instead of parsing the text (the projector following an
   * OpenLineage ingest, issue 24); the caller must not change it afterwards. The other adapters
   * ignore it when `dataJson` is given.
   */
  data: unknown;
  metadata: EventMetadata;
  /**
   * `data` as JSON text, when the caller has it already (an OpenLineage event serialized on a worker
   * thread, `infra/kafka/openLineagePrepare.ts`): the durable adapters store this text as it is instead
   * of serializing `data`, the others parse it. The caller vouches that it is the JSON of a valid
   * event of `type` (as with `toAppendTrusted`).
   */
  dataJson?: string;
}

/** An event as read back: what was appended, plus where and when the store put it. */
export interface RecordedEvent extends Omit<EventToAppend, 'dataJson'> {
  stream: string;
  /** Position within its stream, from 0. */
  revision: number;
  /** Position within the whole store: above 0 and strictly increasing (gap-free on some adapters only). */
  position: number;
  /** ISO 8601 UTC time at which the store recorded the event (millisecond precision). */
  recorded_at: string;
}

/** The outcome of an append. */
export interface AppendResult {
  /** Revision of the last event appended: pass it as `expectedRevision` to append again. */
  next_expected_revision: number;
  /** Global position of the last event appended. */
  position: number;
}

export interface AppendOptions {
  /** Defaults to `'any'`. A mismatch throws `ExpectedRevisionConflictError` and appends nothing. */
  expectedRevision?: ExpectedRevision;
}

export interface ReadStreamOptions {
  /** First revision to return (inclusive). Default 0. */
  fromRevision?: number;
  /** Last revision to return (inclusive). Default: the end of the stream. */
  toRevision?: number;
  /** At most this many events. Default: all. */
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Return events whose position is strictly greater than this. Default 0 (from the start). */
  after?: number;
  /** At most this many events. Default 1,000. */
  maxCount?: number;
}

export interface SubscribeOptions {
  /** Deliver events whose position is strictly greater than this. Default 0 (from the start). */
  after?: number;
  /** Events read per batch while catching up. Default 1,000. */
  batchSize?: number;
}

/**
 * A subscription delivers every event after its starting position exactly once and in position
 * order: first the ones already stored (catch-up), then each new one as it is appended (live).
 * Iterate it with `for await`; `close()` ends the iteration.
 */
export interface Subscription extends AsyncIterable<RecordedEvent> {
  close(): Promise<void>;
}

/** The port. Every method rejects with `StorageError` when the backend itself fails. */
export interface EventStore {
  /** `memory`, `file`, `sqlite`, `postgres` or `eventstoredb`. */
  readonly backend: string;

  /**
   * Appends `events` to `stream` atomically: all of them or none. Events are stamped with
   * `recorded_at`, consecutive revisions, and increasing positions.
   * @throws ExpectedRevisionConflictError when `expectedRevision` does not hold; nothing is written.
   * @throws ValidationError when `events` is empty.
   */
  append(stream: string, events: readonly EventToAppend[], options?: AppendOptions): Promise<AppendResult>;

  /** Events of one stream in revision order; `[]` for a stream that does not exist. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;

  /** Revision of the stream's last event, or -1 when the stream does not exist. */
  streamRevision(stream: string): Promise<number>;

  /** Events of every stream in global position order. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;

  /** Position of the last event in the store, 0 when it is empty. */
  headPosition(): Promise<number>;

  /** Catch-up-then-live subscription to every stream. */
  subscribe(options?: SubscribeOptions): Subscription;

  /**
   * Runs `work` while holding `stream`'s lock, which the same call waits for in every process that
   * shares the store, and answers what `work` answers. `work` is given the store's head position read
   * once the lock was held: every append of the stream by a previous holder is at or before it.
   * Writers catch up to it, decide and append under the lock, so that a hot stream written from
   * several processes takes turns instead of losing expected-revision races (issue 23). Only stores
   * that several processes share offer it (PostgreSQL); elsewhere writers rely on the expected
   * revision alone. `work` must not call it again.
   * @throws StorageError when the lock cannot be had; whatever `work` throws.
   */
  withStreamLock?<T>(stream: string, work: (head: number) => Promise<T>): Promise<T>;

  /**
   * The store's snapshot table: derived data kept beside the events (never events themselves, never
   * read by the projector or the publication), which a reader may use to skip folding a stream from
   * its start. See `SnapshotStore`.
   */
  readonly snapshots: SnapshotStore;

  /** Flushes and releases the backend. Further calls reject. */
  close(): Promise<void>;
}

/**
 * What is known of a stored snapshot without reading its payload. A snapshot is identified by its
 * `key` (what it is a snapshot of, e.g. `graph-{graph_id}`), its `format` (the version of the code
 * that wrote it: a reader ignores the formats it does not know) and the stream `revision` it was
 * taken at.
 */
export interface SnapshotInfo {
  key: string;
  format: string;
  /** Revision of the last event folded into the snapshot. */
  revision: number;
  /** Global position of that event. */
  position: number;
  /** ISO 8601 time: the latest `recorded_at` of the events folded into the snapshot. */
  recorded_at: string;
  /** Size of the payload in bytes. */
  bytes: number;
}

/**
 * The snapshot table of a store (`EventStore.snapshots`). Snapshots are derived data: the events
 * stay the only source of truth, a snapshot may vanish or be unreadable at any time, and readers
 * must then fold from the start. Writes are idempotent: a snapshot already stored under the same
 * key, format and revision is kept, so that several processes taking the same snapshot do not fight.
 * Every adapter provides one; `test/projections/snapshotsStore.test.ts` is its contract suite.
 * Methods reject with `StorageError` when the backend fails.
 */
export interface SnapshotStore {
  /** Stores a snapshot; answers false (and keeps the stored one) when that key, format and revision exist already. */
  put(info: Omit<SnapshotInfo, 'bytes'>, payload: Uint8Array): Promise<boolean>;
  /** Every snapshot of `key` (any format), by revision ascending, then format. */
  list(key: string): Promise<SnapshotInfo[]>;
  /** The payload of one snapshot, or undefined when it is not (or no longer) stored. */
  read(key: string, format: string, revision: number): Promise<Uint8Array | undefined>;
  /** Deletes one snapshot (nothing when absent). */
  remove(key: string, format: string, revision: number): Promise<void>;
}

/**
 * A snapshot table in process memory: the memory store's, and the fallback of adapters that keep
 * none on their backend (the snapshots are lost when the process ends, which only costs time).
 */
export function memorySnapshotStore(): SnapshotStore {
  const rows = new Map<string, Map<string, { info: SnapshotInfo; payload: Uint8Array }>>();
  const id = (format: string, revision: number) => `${format}@${revision}`;
  return {
    async put(info, payload) {
      const byKey = rows.get(info.key) ?? new Map();
      rows.set(info.key, byKey);
      if (byKey.has(id(info.format, info.revision))) return false;
      byKey.set(id(info.format, info.revision), {
        info: { ...info, bytes: payload.byteLength },
        payload: payload.slice(),
      });
      return true;
    },
    async list(key) {
      return [...(rows.get(key)?.values() ?? [])].map((row) => ({ ...row.info })).sort(compareSnapshotInfo);
    },
    async read(key, format, revision) {
      return rows.get(key)?.get(id(format, revision))?.payload.slice();
    },
    async remove(key, format, revision) {
      rows.get(key)?.delete(id(format, revision));
    },
  };
}

/** Orders snapshot infos by revision, then format (the order `SnapshotStore.list` answers in). */
export function compareSnapshotInfo(a: SnapshotInfo, b: SnapshotInfo): number {
  return a.revision - b.revision || (a.format < b.format ? -1 : a.format > b.format ? 1 : 0);
}

/** Human-readable form of an expected revision, for error messages. */
export function describeExpectedRevision(expected: ExpectedRevision): string {
  return typeof expected === 'number' ? `revision ${expected}` : expected;
}

/**
 * Checks an expected revision against the stream's current one (-1 when absent).
 * Shared by every adapter so that the rules are written once.
 * @throws ExpectedRevisionConflictError when it does not hold.
 */
export function assertExpectedRevision(stream: string, expected: ExpectedRevision, current: number): void {
  const holds =
    expected === 'any' ||
    (expected === 'no_stream' && current === -1) ||
    (expected === 'stream_exists' && current >= 0) ||
    (typeof expected === 'number' && expected === current);
  if (!holds) throw new ExpectedRevisionConflictError(stream, describeExpectedRevision(expected), current);
}

/**
 * Builds a subscription out of `readAll` and a way to wait for the next append. Every adapter uses
 * it, so "once and in order" is implemented in one place: the subscription keeps its own position
 * and only ever asks for events after it.
 *
 * @param readAll the adapter's readAll.
 * @param waitForAppend resolves when something may have been appended, or after `pollMilliseconds`
 *   at the latest (so that appends by other processes are seen too); it must resolve when `signal`
 *   aborts.
 */
export function pollingSubscription(
  readAll: (options: ReadAllOptions) => Promise<RecordedEvent[]>,
  waitForAppend: (signal: AbortSignal) => Promise<void>,
  options: SubscribeOptions = {},
): Subscription {
  const controller = new AbortController();
  let position = options.after ?? 0;
  const batchSize = options.batchSize ?? 1000;

  async function* iterate(): AsyncGenerator<RecordedEvent> {
    while (!controller.signal.aborted) {
      const batch = await readAll({ after: position, maxCount: batchSize });
      for (const event of batch) {
        if (controller.signal.aborted) return;
        position = event.position;
        yield event;
      }
      if (batch.length < batchSize) await waitForAppend(controller.signal);
    }
  }

  const iterator = iterate();
  return {
    [Symbol.asyncIterator]: () => iterator,
    async close() {
      controller.abort();
      await iterator.return(undefined);
    },
  };
}

/**
 * A wake-up signal for in-process subscribers: adapters call `notify()` after each append and pass
 * `wait` to `pollingSubscription`. Waiters also wake after `pollMilliseconds` so that appends made
 * by another process to the same file or database are picked up.
 *
 * A waiter is known by its `signal` (pass the same one on each call): a `notify()` that happens
 * while it is not waiting makes its next `wait` resolve at once, and its first `wait` resolves at
 * once, so no append between a read and the next wait is missed.
 */
export function appendNotifier(pollMilliseconds = 250): {
  notify(): void;
  wait(signal: AbortSignal): Promise<void>;
} {
  let waiters: Array<() => void> = [];
  // Appends counted so far, and the count each waiter (keyed by its signal) last saw: a notify()
  // that lands while a subscriber is busy between two waits is not lost, its next wait returns at once.
  let appends = 0;
  const seen = new WeakMap<AbortSignal, number>();
  return {
    notify() {
      appends += 1;
      const woken = waiters;
      waiters = [];
      for (const wake of woken) wake();
    },
    wait(signal: AbortSignal) {
      return new Promise<void>((resolve) => {
        const last = seen.get(signal);
        seen.set(signal, appends);
        if (signal.aborted || last !== appends) return resolve();
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          waiters = waiters.filter((waiter) => waiter !== done);
          resolve();
        };
        // A waiting subscription alone does not keep the process alive.
        const timer = setTimeout(done, pollMilliseconds).unref();
        signal.addEventListener('abort', done, { once: true });
        waiters.push(done);
      });
    },
  };
}

/**
 * The open subscriptions of one store, so that closing the store ends them (their iteration finishes
 * without an error). Every adapter uses it.
 */
export function subscriptionRegistry(): {
  /** Registers a subscription; its `close()` also unregisters it. */
  track(inner: Subscription): Subscription;
  /** Closes every open subscription. */
  closeAll(): Promise<void>;
} {
  const open = new Set<Subscription>();
  return {
    track(inner) {
      const subscription: Subscription = {
        [Symbol.asyncIterator]: () => inner[Symbol.asyncIterator](),
        async close() {
          open.delete(subscription);
          await inner.close();
        },
      };
      open.add(subscription);
      return subscription;
    },
    async closeAll() {
      await Promise.all([...open].map((subscription) => subscription.close()));
    },
  };
}

/** Reads a whole stream page by page, without holding it all in memory. */
export async function* iterateStream(
  store: EventStore,
  stream: string,
  options: { fromRevision?: number; toRevision?: number; pageSize?: number } = {},
): AsyncGenerator<RecordedEvent> {
  const pageSize = options.pageSize ?? 1000;
  let from = options.fromRevision ?? 0;
  for (;;) {
    const page = await store.readStream(stream, {
      fromRevision: from,
      maxCount: pageSize,
      ...(options.toRevision === undefined ? {} : { toRevision: options.toRevision }),
    });
    yield* page;
    if (page.length < pageSize) return;
    from = page[page.length - 1]!.revision + 1;
  }
}

/**
 * Reads the whole store from a position, page by page. The default page of 500 events is the fastest
 * measured on sqlite (218k events/s against 134k with pages of 5,000): a small page's parsed events
 * are garbage before the next young-generation collection, instead of being copied by it.
 */
export async function* iterateAll(
  store: EventStore,
  options: { after?: number; pageSize?: number } = {},
): AsyncGenerator<RecordedEvent> {
  const pageSize = options.pageSize ?? 500;
  let after = options.after ?? 0;
  for (;;) {
    const page = await store.readAll({ after, maxCount: pageSize });
    yield* page;
    if (page.length < pageSize) return;
    after = page[page.length - 1]!.position;
  }
}
