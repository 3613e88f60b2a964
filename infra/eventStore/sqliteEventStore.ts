/**
 * The SQLite event store (better-sqlite3): one database file, `events.sqlite`, inside a folder, or a
 * private in-memory database when the path is `:memory:`.
 *
 * Schema (version 1, kept in `PRAGMA user_version`):
 * - `events(position INTEGER PRIMARY KEY, stream, revision, type, version, data, metadata,
 *   recorded_at, UNIQUE(stream, revision))`: `data` and `metadata` are JSON text, `recorded_at`
 *   ISO 8601 text;
 * - `streams(stream TEXT PRIMARY KEY, revision INTEGER NOT NULL)`: each stream's last revision, read
 *   for the expected-revision check.
 * Beside the schema, the snapshot table `snapshots` (derived data, `infra/eventStore/snapshotTables.ts`).
 *
 * The database runs with `journal_mode=WAL` and `synchronous=FULL`: an append is durable when it
 * resolves. Each append is one `BEGIN IMMEDIATE` transaction that takes the write lock first, then
 * checks the expected revision and assigns positions `MAX(position)+1...`, so positions are gap-free
 * and committed in order even when several processes append to the same file (SQLite serializes
 * writers; one that waits more than `busyTimeoutMilliseconds` gets a `StorageError`).
 *
 * Subscribers are woken at once by appends made through this store, and poll every 250 ms for
 * appends made by other processes. The rows this store appended last (`RECENT_ROWS_CHARACTERS` of
 * JSON text) are kept as the text it wrote, and `readAll` answers from them without querying the
 * database, so that the projector following the API's own writes (an OpenLineage ingest) does not
 * read back what it has just written (that read was a tenth of the Kafka ingest's time, issue 24).
 * When the appender gave an event's data both as text and as a value (`EventToAppend.data` with
 * `dataJson`), the store answers the value, frozen, instead of parsing the text again.
 */
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import nodePath from 'node:path';
import Database from 'better-sqlite3';
import { ExpectedRevisionConflictError, StorageError, ValidationError, errorMessage } from '../../src/errors.js';
import {
  appendNotifier,
  assertExpectedRevision,
  describeExpectedRevision,
  pollingSubscription,
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
import { serializeEvent } from './serialization.js';
import { sqliteAppendTransaction, type SerializedEvent, type SqliteAppend } from './sqliteAppend.js';
import type { SqliteAppendReply, SqliteAppendRequest, SqliteAppendWorkerData } from './sqliteAppendWorker.js';
import { workerEntry } from '../workerEntry.js';
import { sqliteSnapshotStore } from './snapshotTables.js';

/** Name of the database file inside the store's folder. */
export const SQLITE_EVENT_STORE_FILE = 'events.sqlite';
/** The schema version this code writes and reads (`PRAGMA user_version`). */
export const SQLITE_EVENT_STORE_SCHEMA_VERSION = 1;

const SCHEMA_V1 = `
  CREATE TABLE IF NOT EXISTS events (
    position INTEGER PRIMARY KEY,
    stream TEXT NOT NULL,
    revision INTEGER NOT NULL,
    type TEXT NOT NULL,
    version INTEGER NOT NULL,
    data TEXT NOT NULL,
    metadata TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    UNIQUE (stream, revision)
  );
  CREATE TABLE IF NOT EXISTS streams (
    stream TEXT PRIMARY KEY,
    revision INTEGER NOT NULL
  );
`;

const COLUMNS = 'position, stream, revision, type, version, data, metadata, recorded_at';

/**
 * A row as the database answers it (position, stream, revision, type, version, data, metadata,
 * recorded_at); a row the store remembers (`recentRows`) may carry a ninth entry, the data as a frozen
 * value (`EventToAppend.data` given with `dataJson`), answered instead of parsing `data`.
 */
export type EventRow = [number, string, number, string, number, string, string, string, unknown?];

export interface SqliteEventStoreOptions {
  /** Folder holding `events.sqlite` (created with its parents if absent), or `:memory:`. */
  path: string;
  /** Clock used for `recorded_at`; injected by tests. */
  now?: () => Date;
  /** How long an append waits for another process's write lock before failing. Default 5,000 ms. */
  busyTimeoutMilliseconds?: number;
  /**
   * Appends run on a worker thread with its own connection (`sqliteAppendWorker.ts`), so that waiting
   * for the disk never holds the event loop. Default true; always false for `:memory:`.
   */
  appendInWorker?: boolean;
}

/** The SQLite store: the port, plus where its database is. */
export interface SqliteEventStore extends EventStore {
  readonly backend: 'sqlite';
  /** Absolute path of `events.sqlite`, or `:memory:`. */
  readonly file: string;
}

/**
 * Opens (or creates) the SQLite store and brings its schema to the current version.
 * @throws StorageError when the folder or database cannot be created or opened (a regular file is in
 *   the way, no permission, not a SQLite database) or the schema is newer than this code.
 */
export function createSqliteEventStore(options: SqliteEventStoreOptions): SqliteEventStore {
  const now = options.now ?? (() => new Date());
  const file =
    options.path === ':memory:' ? ':memory:' : nodePath.join(nodePath.resolve(options.path), SQLITE_EVENT_STORE_FILE);
  const db = openDatabase(options.path, file, options.busyTimeoutMilliseconds ?? 5000);

  const statements = {
    streamRevision: db.prepare<[string], number>('SELECT revision FROM streams WHERE stream = ?').pluck(),
    head: db.prepare<[], number>('SELECT COALESCE(MAX(position), 0) FROM events').pluck(),
    readStream: db
      .prepare<[string, number, number, number], EventRow>(
        `SELECT ${COLUMNS} FROM events WHERE stream = ? AND revision >= ? AND revision <= ? ORDER BY revision LIMIT ?`,
      )
      .raw(),
    readAll: db
      .prepare<[number, number], EventRow>(`SELECT ${COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`)
      .raw(),
  };

  // Appends run on a worker thread's connection (a file) or on this one (`:memory:`, or when asked).
  const inWorker = file !== ':memory:' && (options.appendInWorker ?? true);
  const appender = inWorker
    ? sqliteAppendWorker(file, options.busyTimeoutMilliseconds ?? 5000)
    : { append: async (request: SqliteAppend) => appendHere(request), close: async () => undefined };
  const appendHere = sqliteAppendTransaction(db);

  const notifier = appendNotifier(250);
  const subscriptions = subscriptionRegistry();
  const recent = recentRows(RECENT_ROWS_CHARACTERS);
  let closed = false;

  function ensureOpen(): void {
    if (closed) throw new StorageError(`sqlite event store "${file}" is closed`);
  }

  const store: SqliteEventStore = {
    backend: 'sqlite',
    file,
    snapshots: sqliteSnapshotStore(db, file),

    async append(
      stream: string,
      events: readonly EventToAppend[],
      appendOptions: AppendOptions = {},
    ): Promise<AppendResult> {
      ensureOpen();
      if (events.length === 0) throw new ValidationError(`append to "${stream}" needs at least one event`);
      const serialized = await serializeInSlices(events, inWorker);
      let result: AppendResult;
      const request: SqliteAppend = {
        stream,
        events: serialized,
        expectedRevision: appendOptions.expectedRevision ?? 'any',
        recordedAt: now().toISOString(),
      };
      try {
        ensureOpen();
        result = await appender.append(request);
      } catch (error) {
        throw translateAppendError(
          error,
          stream,
          appendOptions,
          () => statements.streamRevision.get(stream) ?? -1,
          file,
        );
      }
      recent.remember(request, result, events);
      notifier.notify();
      return result;
    },

    async readStream(stream: string, readOptions: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
      ensureOpen();
      const rows = query(file, () =>
        statements.readStream.all(
          stream,
          Math.max(0, readOptions.fromRevision ?? 0),
          readOptions.toRevision ?? Number.MAX_SAFE_INTEGER,
          Math.max(0, readOptions.maxCount ?? Number.MAX_SAFE_INTEGER),
        ),
      );
      return rows.map(toRecorded);
    },

    async streamRevision(stream: string): Promise<number> {
      ensureOpen();
      return query(file, () => statements.streamRevision.get(stream) ?? -1);
    },

    async readAll(readOptions: ReadAllOptions = {}): Promise<RecordedEvent[]> {
      ensureOpen();
      const maxCount = Math.max(0, readOptions.maxCount ?? 1000);
      const after = Math.max(0, readOptions.after ?? 0);
      // Rows this store has just appended come from memory; the database answers for the rest.
      const remembered = recent.from(after, maxCount);
      const rows =
        remembered.length === maxCount
          ? remembered
          : remembered.concat(
              await readRowsInSlices(
                (from, limit) => statements.readAll.iterate(from, limit),
                after + remembered.length,
                maxCount - remembered.length,
                { guard: (run) => query(file, run) },
              ),
            );
      // A full page means the caller reads on at once (the projector after an import): let the event
      // loop run between pages, which a synchronous driver would not do.
      if (rows.length > 0 && rows.length === maxCount) await yieldToEventLoop();
      return decodeInSlices(rows);
    },

    async headPosition(): Promise<number> {
      ensureOpen();
      return query(file, () => statements.head.get() ?? 0);
    },

    subscribe(subscribeOptions: SubscribeOptions = {}): Subscription {
      ensureOpen();
      return subscriptions.track(pollingSubscription((o) => store.readAll(o), notifier.wait, subscribeOptions));
    },

    /** Ends open subscriptions, then closes the database (checkpointing the WAL). Idempotent. */
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await subscriptions.closeAll();
      await appender.close();
      db.close();
    },
  };
  return store;
}

function openDatabase(path: string, file: string, busyTimeoutMilliseconds: number): Database.Database {
  if (file !== ':memory:') {
    const folder = nodePath.dirname(file);
    try {
      fs.mkdirSync(folder, { recursive: true });
    } catch (error) {
      throw new StorageError(`sqlite event store: cannot create the folder "${folder}": ${errorMessage(error)}`, {
        cause: error,
      });
    }
    if (!fs.statSync(folder).isDirectory()) throw new StorageError(`sqlite event store: "${folder}" is not a folder`);
    assertWritableFolder(folder);
  }
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { timeout: busyTimeoutMilliseconds });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    migrate(db, file);
    return db;
  } catch (error) {
    db?.close();
    if (error instanceof StorageError) throw error;
    throw new StorageError(`sqlite event store: cannot open "${file}" (from "${path}"): ${errorMessage(error)}`, {
      cause: error,
    });
  }
}

/**
 * Throws a one-line StorageError when this process may not create files in `folder` (SQLite needs
 * to, for its write-ahead log): the usual cause is a bind mount owned by another user, such as a
 * host folder owned by root mounted into the image, which runs as user 1000. The message names the
 * folder's owner, this process's user and the fix.
 */
export function assertWritableFolder(folder: string): void {
  try {
    fs.accessSync(folder, fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    const owner = fs.statSync(folder);
    const user = typeof process.getuid === 'function' ? `${process.getuid()}:${process.getgid?.()}` : 'this user';
    throw new StorageError(
      `sqlite event store: the folder "${folder}" (owned by ${owner.uid}:${owner.gid}, mode ` +
        `${(owner.mode & 0o777).toString(8)}) is not writable by this process (user ${user}): ` +
        `give it to that user (chown ${user} on the host folder), or mount a named volume instead`,
    );
  }
}

/** Creates the schema, or checks that the existing one is a version this code knows. */
function migrate(db: Database.Database, file: string): void {
  const check = (): number => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SQLITE_EVENT_STORE_SCHEMA_VERSION) {
      throw new StorageError(
        `sqlite event store: "${file}" has schema version ${version}, ` +
          `newer than the ${SQLITE_EVENT_STORE_SCHEMA_VERSION} this lineage-svc knows; upgrade lineage-svc`,
      );
    }
    return version;
  };
  if (check() === SQLITE_EVENT_STORE_SCHEMA_VERSION) return;
  // Re-checked inside the write transaction: another process may be creating the schema too.
  db.transaction(() => {
    if (check() === SQLITE_EVENT_STORE_SCHEMA_VERSION) return;
    db.exec(SCHEMA_V1);
    db.pragma(`user_version = ${SQLITE_EVENT_STORE_SCHEMA_VERSION}`);
  }).immediate();
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    type: row[3],
    version: row[4],
    data: row.length > 8 ? row[8] : (JSON.parse(row[5]) as unknown),
    metadata: JSON.parse(row[6]) as RecordedEvent['metadata'],
    stream: row[1],
    revision: row[2],
    position: row[0],
    recorded_at: row[7],
  };
}

/** Runs a read, turning a driver error into a StorageError. */
function query<T>(file: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new StorageError(`sqlite event store: cannot read "${file}": ${errorMessage(error)}`, { cause: error });
  }
}

function sqliteCode(error: unknown): string {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
    ? (error as { code: string }).code
    : '';
}

/** The port's error for a failed append transaction. */
function translateAppendError(
  error: unknown,
  stream: string,
  options: AppendOptions,
  currentRevision: () => number,
  file: string,
): Error {
  if (error instanceof ExpectedRevisionConflictError || error instanceof ValidationError) return error;
  const code = sqliteCode(error);
  if (code === 'SQLITE_CONSTRAINT_UNIQUE') {
    // Another writer took the same revision: cannot happen under BEGIN IMMEDIATE, but if it does it is a conflict.
    let actual = -1;
    try {
      actual = currentRevision();
    } catch {
      // keep -1: the conflict is what matters
    }
    return new ExpectedRevisionConflictError(
      stream,
      describeExpectedRevision(options.expectedRevision ?? 'any'),
      actual,
    );
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new StorageError(
      `sqlite event store: "${file}" stayed locked by another writer past the busy timeout; append to "${stream}" not written`,
      { cause: error },
    );
  }
  return new StorageError(`sqlite event store: cannot append to "${stream}" in "${file}": ${errorMessage(error)}`, {
    cause: error,
  });
}

/** Characters of JSON text (data and metadata) of the rows a store keeps after appending them (`recentRows`): about 8 MB. */
export const RECENT_ROWS_CHARACTERS = 4_000_000;

/**
 * The rows a store appended last, as the text it wrote, by position, oldest forgotten first past
 * `limitCharacters`. Positions are gap-free and committed in order (`sqliteAppend.ts`), so the rows
 * remembered from `after + 1` on are exactly what the database holds there. Events whose data went
 * to the worker as bytes (large ones) are not remembered.
 */
function recentRows(limitCharacters: number): {
  remember(append: SqliteAppend, result: AppendResult, appended: readonly EventToAppend[]): void;
  from(after: number, maxCount: number): EventRow[];
} {
  const rows = new Map<number, EventRow>();
  let characters = 0;
  return {
    remember(append, result, appended) {
      const count = append.events.length;
      const firstPosition = result.position - count + 1;
      const firstRevision = result.next_expected_revision - count + 1;
      for (let index = 0; index < count; index += 1) {
        const event = append.events[index]!;
        if (typeof event.data !== 'string') continue;
        const position = firstPosition + index;
        const row: EventRow = [
          position,
          append.stream,
          firstRevision + index,
          event.type,
          event.version,
          event.data,
          event.metadata,
          append.recordedAt,
        ];
        // The data's value, when the caller gave it with its text: readers get it (frozen: they share
        // it) instead of a parse of the text.
        const { data, dataJson } = appended[index]!;
        if (dataJson !== undefined && data !== undefined) row.push(deepFreeze(data));
        rows.set(position, row);
        characters += event.data.length + event.metadata.length;
      }
      for (const [position, row] of rows) {
        if (characters <= limitCharacters) break;
        rows.delete(position);
        characters -= row[5].length + row[6].length;
      }
    },
    from(after, maxCount) {
      const found: EventRow[] = [];
      for (let position = after + 1; found.length < maxCount; position += 1) {
        const row = rows.get(position);
        if (row === undefined) break;
        found.push(row);
      }
      return found;
    },
  };
}

/** Freezes `value` and every object and array it holds; returns it. */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) for (const entry of value) deepFreeze(entry);
  else for (const key in value) deepFreeze(value[key]);
  return Object.freeze(value);
}

/** JSON text of serialized events per slice of `serializeInSlices` (about 250 KB: a few milliseconds of `JSON.stringify`). */
const SERIALIZE_SLICE_CHARACTERS = 250_000;

const utf8 = new TextEncoder();

/**
 * Data of at least this many characters goes to the append worker as UTF-8 bytes, transferred; shorter
 * data as a string, copied. For small events the copy is what costs less: 2,000 OpenLineage events of
 * about 450 bytes took 1.2-1.6 us each on the event loop encoded and transferred, 0.1 us as strings.
 * Strings are copied by the one `postMessage` of the whole append, where the encoding is done in
 * `serializeInSlices`' slices: an event of `RECORDED_ITEMS_PER_EVENT` (250) edges is about 45 KB, and
 * a 30 MB import of them copied as strings held the event loop 27 to 34 ms at once (64 KiB before).
 */
const TRANSFER_MIN_CHARACTERS = 16 * 1024;

/**
 * `serializeEvent` on every event, letting the event loop run between slices of about
 * `SERIALIZE_SLICE_CHARACTERS` (an import appends 30 MB of JSON at once). With `encode`, the data of
 * each large event (`TRANSFER_MIN_CHARACTERS`) is UTF-8 bytes of its own, to be transferred to the
 * append worker rather than copied.
 */
async function serializeInSlices(events: readonly EventToAppend[], encode: boolean): Promise<SerializedEvent[]> {
  const serialized: SerializedEvent[] = [];
  let characters = 0;
  for (const [index, event] of events.entries()) {
    const one = serializeEvent(event, index);
    characters += one.data.length;
    serialized.push(
      encode && one.data.length >= TRANSFER_MIN_CHARACTERS ? { ...one, data: utf8.encode(one.data) } : one,
    );
    if (characters >= SERIALIZE_SLICE_CHARACTERS) {
      characters = 0;
      await yieldToEventLoop();
    }
  }
  return serialized;
}

/**
 * Characters of stored JSON decoded (`toRecorded`) between two pauses of a read: a page of 32 import
 * events is about 6 MB, decoded in one task of 30 to 100 ms before (issue 23).
 */
const DECODE_SLICE_CHARACTERS = 1_000_000;

/**
 * Characters of stored JSON (data and metadata) read from the database in one synchronous statement
 * run: a page of 32 import events is about 6 MB, read in one task of 40 to 80 ms of the event loop
 * before (issue 23; import events are not among the rows a store remembers, `recentRows`).
 */
export const READ_SLICE_CHARACTERS = 1_000_000;

/**
 * Reads up to `maxCount` rows from position `after + 1` on with `read` (a statement's `iterate`: rows
 * in position order, from after the position given, at most `limit`), letting the event loop run
 * after each `sliceCharacters` of JSON text (data and metadata): the iteration is stopped there
 * (which resets the statement, so none is left open while other requests use the connection) and a
 * new one starts after the last row read. Positions are gap-free and committed in order, so the rows
 * are those one statement would have read.
 * @param options.guard runs each slice's iteration (the store's, to translate its errors); errors thrown there reject.
 */
export async function readRowsInSlices(
  read: (after: number, limit: number) => Iterable<EventRow>,
  after: number,
  maxCount: number,
  options: { sliceCharacters?: number; guard?: <T>(run: () => T) => T } = {},
): Promise<EventRow[]> {
  const sliceCharacters = options.sliceCharacters ?? READ_SLICE_CHARACTERS;
  const guard = options.guard ?? ((run) => run());
  const rows: EventRow[] = [];
  for (let from = after; rows.length < maxCount; from = rows[rows.length - 1]![0]) {
    const sliceFull = guard(() => {
      let characters = 0;
      for (const row of read(from, maxCount - rows.length)) {
        rows.push(row);
        characters += row[5].length + row[6].length;
        if (characters >= sliceCharacters) return true;
      }
      return false;
    });
    // The statement ran out of rows, or reached `maxCount`, before the slice was full: done.
    if (!sliceFull || rows.length === maxCount) break;
    await yieldToEventLoop();
  }
  return rows;
}

/** `toRecorded` on each row, letting the event loop run after every `DECODE_SLICE_CHARACTERS` decoded. */
async function decodeInSlices(rows: readonly EventRow[]): Promise<RecordedEvent[]> {
  const recorded: RecordedEvent[] = [];
  let characters = 0;
  for (const row of rows) {
    recorded.push(toRecorded(row));
    characters += row[5].length + row[6].length;
    if (characters >= DECODE_SLICE_CHARACTERS) {
      characters = 0;
      await yieldToEventLoop();
    }
  }
  return recorded;
}

/** Resolves after the event loop has run what was waiting (a macrotask, not a microtask). */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The worker file beside this one: `.ts` from source, `.js` compiled. */
const APPEND_WORKER_URL = new URL(`./sqliteAppendWorker${nodePath.extname(import.meta.filename)}`, import.meta.url);

/**
 * Appends through a worker thread (`sqliteAppendWorker.ts`) with its own connection to `file`, started
 * at the first append and again after it died. The worker keeps the process alive only while an append
 * is waiting for it. A conflict comes back as `ExpectedRevisionConflictError`; a driver error as an
 * error with its code, for `translateAppendError`; a worker that died with appends waiting fails them
 * (each committed whole or not at all).
 */
function sqliteAppendWorker(
  file: string,
  busyTimeoutMilliseconds: number,
): { append(request: SqliteAppend): Promise<AppendResult>; close(): Promise<void> } {
  let worker: Worker | undefined;
  let nextId = 0;
  const waiting = new Map<number, { resolve: (result: AppendResult) => void; reject: (error: Error) => void }>();

  const start = (): Worker => {
    const { entry, eval: evaluated } = workerEntry(APPEND_WORKER_URL);
    const data: SqliteAppendWorkerData = { file, busyTimeoutMilliseconds };
    const started = new Worker(entry, { eval: evaluated, workerData: data });
    started.unref();
    started.on('message', (reply: SqliteAppendReply) => {
      const entry = waiting.get(reply.id);
      if (!entry) return;
      waiting.delete(reply.id);
      if (waiting.size === 0) started.unref();
      if ('result' in reply) entry.resolve(reply.result);
      else if ('conflict' in reply)
        entry.reject(
          new ExpectedRevisionConflictError(reply.conflict.stream, reply.conflict.expected, reply.conflict.actual),
        );
      else entry.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
    });
    const fail = (error: Error) => {
      if (worker === started) worker = undefined;
      for (const entry of waiting.values()) entry.reject(error);
      waiting.clear();
    };
    started.on('error', fail);
    started.on('exit', (code) => fail(new Error(`the sqlite append worker stopped (exit code ${code})`)));
    return started;
  };

  return {
    append(request) {
      worker ??= start();
      const current = worker;
      const id = (nextId += 1);
      current.ref();
      const message: SqliteAppendRequest = { id, append: request };
      const transfer = request.events.flatMap((event) => (typeof event.data === 'string' ? [] : [event.data.buffer]));
      return new Promise<AppendResult>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        current.postMessage(message, transfer as ArrayBuffer[]);
      });
    },
    async close() {
      const stopping = worker;
      worker = undefined;
      if (!stopping) return;
      // Appends already posted are answered first: the worker handles its messages in order.
      await Promise.allSettled(
        [...waiting.keys()].map(
          (id) =>
            new Promise<void>((resolve) => {
              const entry = waiting.get(id)!;
              waiting.set(id, {
                resolve: (result) => (entry.resolve(result), resolve()),
                reject: (error) => (entry.reject(error), resolve()),
              });
            }),
        ),
      );
      await stopping.terminate();
    },
  };
}
