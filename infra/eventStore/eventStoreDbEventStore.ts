/**
 * The EventStoreDB event store (`@eventstore/db-client` 6.2.1). This is the only file that imports
 * the driver, so that its rename to `@kurrent/kurrentdb-client` (where `expectedRevision` became
 * `streamState`) costs one file.
 *
 * Mapping:
 * - an event is a JSON event whose id is `metadata.event_id` when that is a UUID (EventStoreDB
 *   requires one; a fresh UUID otherwise), whose data is `data`, and whose metadata is our
 *   `metadata` plus `schema_version` (our `version`);
 * - expected revisions map to the client's `ANY`, `NO_STREAM` (also for -1), `STREAM_EXISTS` and
 *   `bigint`; `WrongExpectedVersionError` becomes `ExpectedRevisionConflictError`;
 *   `StreamNotFoundError` means "no stream": `[]` and revision -1;
 * - `recorded_at` is the server's `created` time.
 *
 * DEVIATION FROM THE PORT: on this backend `position` is EventStoreDB's commit position in its
 * transaction log: strictly increasing, but NOT gap-free and not starting at 1 (the gaps are the
 * bytes of the events and of the server's own system events). Everything that only compares
 * positions or passes them back as `after` works unchanged; nothing may assume `position + 1` is the
 * next event or that `headPosition()` counts events. `after` must be 0 or a position this store
 * returned. Positions are read from `$all` (on servers older than 22.6, events read with
 * `readStream` carry no position and report -1).
 *
 * `readAll` and `headPosition` read the `$all` stream and skip system events: the same rule as the
 * client's `excludeSystemEvents()` (event type starting with `$`), plus streams whose name starts
 * with `$`. Client 6.2.1 only accepts that filter on subscriptions, so it is applied here, while
 * paging.
 *
 * Subscriptions are the port's polling subscriptions over `readAll`: appends through this store wake
 * them at once; appends by other clients are seen within `pollMilliseconds`.
 */
import { randomUUID } from 'node:crypto';
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  jsonEvent,
  type AllStreamRecordedEvent,
  type AppendExpectedRevision,
  type JSONType,
  type ReadPosition,
  type RecordedEvent as EsdbRecordedEvent,
} from '@eventstore/db-client';
import {
  ConfigurationError,
  ExpectedRevisionConflictError,
  StorageError,
  ValidationError,
  errorMessage,
} from '../../src/errors.js';
import {
  appendNotifier,
  describeExpectedRevision,
  memorySnapshotStore,
  pollingSubscription,
  subscriptionRegistry,
  type AppendOptions,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from '../../src/eventStore.js';

/** Events read from `$all` per request while filtering out system events. */
const ALL_PAGE_SIZE = 500;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface EventStoreDbEventStoreOptions {
  /** Connection string, e.g. `esdb://localhost:2113?tls=false`. */
  url: string;
  /** How often subscribers look for appends made by other clients. Default 500 ms. */
  pollMilliseconds?: number;
}

/** The EventStoreDB store: the port, with commit positions (see the module's docstring). */
export interface EventStoreDbEventStore extends EventStore {
  readonly backend: 'eventstoredb';
}

/**
 * Creates the store. The client connects lazily: an unreachable server shows up as a `StorageError`
 * on the first call, not here.
 * @throws ConfigurationError when `url` is not a valid EventStoreDB connection string.
 */
export function createEventStoreDbEventStore(options: EventStoreDbEventStoreOptions): EventStoreDbEventStore {
  let client: EventStoreDBClient;
  try {
    client = EventStoreDBClient.connectionString(options.url);
  } catch (error) {
    throw new ConfigurationError(`eventstoredb event store: invalid connection string: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  const notifier = appendNotifier(options.pollMilliseconds ?? 500);
  const subscriptions = subscriptionRegistry();
  let closed = false;

  function ensureOpen(): void {
    if (closed) throw new StorageError('eventstoredb event store is closed');
  }

  /** Reads one stream forwards; `[]` when it does not exist. */
  async function readStreamPage(stream: string, from: number, count: number): Promise<RecordedEvent[]> {
    const result: RecordedEvent[] = [];
    try {
      for await (const resolved of client.readStream(stream, {
        fromRevision: BigInt(from),
        maxCount: BigInt(count),
        direction: FORWARDS,
      })) {
        if (resolved.event !== undefined) result.push(toRecorded(resolved.event, resolved.commitPosition));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return result;
  }

  /** One page of `$all` from `from` (inclusive): the events read and where the page ended. */
  async function readAllPage(
    from: ReadPosition,
    direction: typeof FORWARDS | typeof BACKWARDS,
  ): Promise<AllStreamRecordedEvent[]> {
    const events: AllStreamRecordedEvent[] = [];
    for await (const resolved of client.readAll({ fromPosition: from, maxCount: ALL_PAGE_SIZE, direction })) {
      if (resolved.event !== undefined) events.push(resolved.event);
    }
    return events;
  }

  async function guard<T>(what: string, operation: () => Promise<T>): Promise<T> {
    ensureOpen();
    try {
      return await operation();
    } catch (error) {
      if (
        error instanceof ExpectedRevisionConflictError ||
        error instanceof ValidationError ||
        error instanceof StorageError
      )
        throw error;
      throw new StorageError(`eventstoredb event store: cannot ${what}: ${errorMessage(error)}`, { cause: error });
    }
  }

  const store: EventStoreDbEventStore = {
    backend: 'eventstoredb',
    // Snapshots are kept in process memory on EventStoreDB (see `memorySnapshotStore`): they are lost at exit.
    snapshots: memorySnapshotStore(),

    async append(
      stream: string,
      events: readonly EventToAppend[],
      appendOptions: AppendOptions = {},
    ): Promise<AppendResult> {
      ensureOpen();
      if (events.length === 0) throw new ValidationError(`append to "${stream}" needs at least one event`);
      const expected = appendOptions.expectedRevision ?? 'any';
      const result = await guard(`append to "${stream}"`, async () => {
        try {
          return await client.appendToStream(
            stream,
            events.map((event) =>
              jsonEvent({
                id: UUID.test(event.metadata.event_id) ? event.metadata.event_id : randomUUID(),
                type: event.type,
                data: (event.dataJson === undefined ? event.data : JSON.parse(event.dataJson)) as JSONType,
                metadata: { ...event.metadata, schema_version: event.version },
              }),
            ),
            { expectedRevision: toEsdbExpectedRevision(expected) },
          );
        } catch (error) {
          if (error instanceof WrongExpectedVersionError) {
            const actual = error.actualVersion === NO_STREAM ? -1 : Number(error.actualVersion);
            throw new ExpectedRevisionConflictError(stream, describeExpectedRevision(expected), actual);
          }
          throw error;
        }
      });
      notifier.notify();
      return {
        next_expected_revision: Number(result.nextExpectedRevision),
        position: result.position === undefined ? await store.headPosition() : Number(result.position.commit),
      };
    },

    async readStream(stream: string, readOptions: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
      return guard(`read stream "${stream}"`, async () => {
        const from = Math.max(0, readOptions.fromRevision ?? 0);
        const to = readOptions.toRevision ?? Number.MAX_SAFE_INTEGER;
        const count = Math.min(readOptions.maxCount ?? Number.MAX_SAFE_INTEGER, to - from + 1);
        if (count <= 0) return [];
        return readStreamPage(stream, from, count);
      });
    },

    async streamRevision(stream: string): Promise<number> {
      return guard(`read the revision of "${stream}"`, async () => {
        try {
          for await (const resolved of client.readStream(stream, {
            fromRevision: END,
            maxCount: 1n,
            direction: BACKWARDS,
          })) {
            if (resolved.event !== undefined) return Number(resolved.event.revision);
          }
        } catch (error) {
          if (error instanceof StreamNotFoundError) return -1;
          throw error;
        }
        return -1;
      });
    },

    async readAll(readOptions: ReadAllOptions = {}): Promise<RecordedEvent[]> {
      return guard('read $all', async () => {
        const after = Math.max(0, readOptions.after ?? 0);
        const maxCount = Math.max(0, readOptions.maxCount ?? 1000);
        const result: RecordedEvent[] = [];
        let from: ReadPosition = after === 0 ? START : { commit: BigInt(after), prepare: BigInt(after) };
        let seen = after;
        while (result.length < maxCount) {
          const page = await readAllPage(from, FORWARDS);
          for (const event of page) {
            const position = Number(event.position.commit);
            if (position <= seen) continue;
            seen = position;
            if (!isSystemEvent(event)) result.push(toRecorded(event, event.position.commit));
            if (result.length === maxCount) break;
          }
          const last = page[page.length - 1];
          if (page.length < ALL_PAGE_SIZE || last === undefined) break;
          from = last.position;
        }
        return result;
      });
    },

    async headPosition(): Promise<number> {
      return guard('read the head position', async () => {
        let from: ReadPosition = END;
        let below: bigint | undefined;
        for (;;) {
          const page = await readAllPage(from, BACKWARDS);
          // Whether a backwards read includes its starting event is not relied upon: seen ones are skipped.
          const head = page.find(
            (event) => (below === undefined || event.position.commit < below) && !isSystemEvent(event),
          );
          if (head !== undefined) return Number(head.position.commit);
          const last = page[page.length - 1];
          if (page.length < ALL_PAGE_SIZE || last === undefined) return 0;
          from = last.position;
          below = last.position.commit;
        }
      });
    },

    subscribe(subscribeOptions: SubscribeOptions = {}): Subscription {
      ensureOpen();
      return subscriptions.track(pollingSubscription((o) => store.readAll(o), notifier.wait, subscribeOptions));
    },

    /** Ends open subscriptions, then disposes of the client. Idempotent. */
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await subscriptions.closeAll();
      await client.dispose();
    },
  };
  return store;
}

/** The client's expected revision for ours. */
export function toEsdbExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      return expected === -1 ? NO_STREAM : BigInt(expected);
  }
}

/** System events, as `excludeSystemEvents()` defines them, and events of system streams. */
function isSystemEvent(event: AllStreamRecordedEvent): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}

function toRecorded(event: EsdbRecordedEvent, commitPosition: bigint | undefined): RecordedEvent {
  const stored = (event.metadata ?? {}) as Partial<EventMetadata> & { schema_version?: unknown };
  const { schema_version: version, ...metadata } = stored;
  // Servers before 22.6 send no position with stream reads, some send 2^64-1: both mean "unknown".
  const position = event.position?.commit ?? commitPosition;
  return {
    type: event.type,
    version: typeof version === 'number' ? version : 1,
    data: event.data,
    metadata: { ...metadata, event_id: metadata.event_id ?? event.id },
    stream: event.streamId,
    revision: Number(event.revision),
    position: position === undefined || position > BigInt(Number.MAX_SAFE_INTEGER) ? -1 : Number(position),
    recorded_at: event.created.toISOString(),
  };
}
