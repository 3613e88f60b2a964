/**
 * The memory event store: process-local, gone when the process ends (the default backend is sqlite,
 * `docs/contract.md` section 3). It is the simplest implementation of the port in
 * `src/eventStore.ts`; it passes the contract suite of every adapter (`test/eventStore/contract.ts`).
 */
import { StorageError, ValidationError } from '../../src/errors.js';
import {
  appendNotifier,
  assertExpectedRevision,
  pollingSubscription,
  memorySnapshotStore,
  subscriptionRegistry,
  type AppendOptions,
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from '../../src/eventStore.js';

export interface MemoryEventStoreOptions {
  /** Clock used for `recorded_at`; injected by tests. */
  now?: () => Date;
}

/** Creates an empty in-memory store. */
export function createMemoryEventStore(options: MemoryEventStoreOptions = {}): EventStore {
  const now = options.now ?? (() => new Date());
  const all: RecordedEvent[] = [];
  const streams = new Map<string, RecordedEvent[]>();
  const notifier = appendNotifier(1000);
  const subscriptions = subscriptionRegistry();
  let closed = false;

  function ensureOpen(): void {
    if (closed) throw new StorageError('the memory event store is closed');
  }

  return {
    backend: 'memory',
    snapshots: memorySnapshotStore(),

    async append(
      stream: string,
      events: readonly EventToAppend[],
      appendOptions: AppendOptions = {},
    ): Promise<AppendResult> {
      ensureOpen();
      if (events.length === 0) throw new ValidationError(`append to "${stream}" needs at least one event`);
      const existing = streams.get(stream) ?? [];
      assertExpectedRevision(stream, appendOptions.expectedRevision ?? 'any', existing.length - 1);
      const recordedAt = now().toISOString();
      for (const event of events) {
        const recorded: RecordedEvent = {
          type: event.type,
          version: event.version,
          data: event.dataJson === undefined ? structuredClone(event.data) : JSON.parse(event.dataJson),
          metadata: structuredClone(event.metadata),
          stream,
          revision: existing.length,
          position: all.length + 1,
          recorded_at: recordedAt,
        };
        existing.push(recorded);
        all.push(recorded);
      }
      streams.set(stream, existing);
      notifier.notify();
      return { next_expected_revision: existing.length - 1, position: all.length };
    },

    async readStream(stream: string, readOptions: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
      ensureOpen();
      const events = streams.get(stream) ?? [];
      const from = Math.max(0, readOptions.fromRevision ?? 0);
      const to = Math.min(events.length - 1, readOptions.toRevision ?? Number.MAX_SAFE_INTEGER);
      const end = Math.min(to + 1, from + (readOptions.maxCount ?? Number.MAX_SAFE_INTEGER));
      return events.slice(from, Math.max(from, end));
    },

    async streamRevision(stream: string): Promise<number> {
      ensureOpen();
      return (streams.get(stream)?.length ?? 0) - 1;
    },

    async readAll(readOptions: ReadAllOptions = {}): Promise<RecordedEvent[]> {
      ensureOpen();
      const after = Math.max(0, readOptions.after ?? 0);
      return all.slice(after, after + (readOptions.maxCount ?? 1000));
    },

    async headPosition(): Promise<number> {
      ensureOpen();
      return all.length;
    },

    subscribe(subscribeOptions: SubscribeOptions = {}): Subscription {
      ensureOpen();
      return subscriptions.track(pollingSubscription((o) => this.readAll(o), notifier.wait, subscribeOptions));
    },

    /** Ends every open subscription (their iteration finishes without an error), then closes. */
    async close(): Promise<void> {
      closed = true;
      // Each close() aborts its subscription synchronously, before any awaiting, so no subscription
      // can call readAll on the closed store.
      await subscriptions.closeAll();
    },
  };
}
