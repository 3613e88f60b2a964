/**
 * The append transaction of the SQLite event store (`sqliteEventStore.ts`), shared by the store's own
 * connection and its append worker (`sqliteAppendWorker.ts`): `BEGIN IMMEDIATE` (the write lock
 * first), the expected-revision check, positions `MAX(position)+1...`, the rows, the stream's new
 * revision, `COMMIT`. Positions are therefore gap-free and committed in order, whichever connection
 * or process appends.
 */
import type Database from 'better-sqlite3';
import { assertExpectedRevision, type AppendResult, type ExpectedRevision } from '../../src/eventStore.js';

/**
 * An event ready for its row: `data` and `metadata` as JSON text (`serializeEvent`); `data` may be that
 * text's UTF-8 bytes (on its way to the append worker, which transfers rather than copies them).
 */
export interface SerializedEvent {
  type: string;
  version: number;
  data: string | Uint8Array;
  metadata: string;
}

/** One append, as the store hands it to a connection. `recordedAt` is ISO 8601. */
export interface SqliteAppend {
  stream: string;
  events: SerializedEvent[];
  expectedRevision: ExpectedRevision;
  recordedAt: string;
}

const utf8 = new TextDecoder();

/**
 * The append transaction on `db`: runs one append and answers its result.
 * @throws ExpectedRevisionConflictError when the stream is not at the expected revision; the driver's
 *   errors (SQLITE_BUSY past the busy timeout, SQLITE_FULL, ...) as they are.
 */
export function sqliteAppendTransaction(db: Database.Database): (append: SqliteAppend) => AppendResult {
  const streamRevision = db.prepare<[string], number>('SELECT revision FROM streams WHERE stream = ?').pluck();
  const head = db.prepare<[], number>('SELECT COALESCE(MAX(position), 0) FROM events').pluck();
  const insert = db.prepare<[number, string, number, string, number, string, string, string]>(
    'INSERT INTO events (position, stream, revision, type, version, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const upsertStream = db.prepare<[string, number]>(
    'INSERT INTO streams (stream, revision) VALUES (?, ?) ON CONFLICT (stream) DO UPDATE SET revision = excluded.revision',
  );
  const transaction = db.transaction((append: SqliteAppend): AppendResult => {
    const current = streamRevision.get(append.stream) ?? -1;
    assertExpectedRevision(append.stream, append.expectedRevision, current);
    let position = head.get() ?? 0;
    let revision = current;
    for (const event of append.events) {
      position += 1;
      revision += 1;
      const data = typeof event.data === 'string' ? event.data : utf8.decode(event.data);
      insert.run(position, append.stream, revision, event.type, event.version, data, event.metadata, append.recordedAt);
    }
    upsertStream.run(append.stream, revision);
    return { next_expected_revision: revision, position };
  });
  return (append) => transaction.immediate(append);
}
