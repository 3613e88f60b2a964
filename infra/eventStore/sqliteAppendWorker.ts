/**
 * The append worker of a SQLite event store (`sqliteEventStore.ts`, issue 23): a worker thread with its
 * own connection to the store's file that runs the appends the store posts (`SqliteAppendRequest`), one
 * after the other, and answers each (`SqliteAppendReply`). An append with `synchronous=FULL` waits for
 * the disk; here it waits off the event loop, so that reads go on meanwhile (WAL: readers never wait for
 * the writer).
 *
 * `workerData`: `{ file, busyTimeoutMilliseconds }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { ExpectedRevisionConflictError, errorMessage } from '../../src/errors.js';
import type { AppendResult } from '../../src/eventStore.js';
import { sqliteAppendTransaction, type SqliteAppend } from './sqliteAppend.js';

/** One append, numbered by the store. */
export interface SqliteAppendRequest {
  id: number;
  append: SqliteAppend;
}

/** The outcome of one append: its result, a revision conflict, or the driver's error (its code and message). */
export type SqliteAppendReply =
  | { id: number; result: AppendResult }
  | { id: number; conflict: { stream: string; expected: string; actual: number } }
  | { id: number; error: { code: string; message: string } };

/** What the store passes as `workerData`. */
export interface SqliteAppendWorkerData {
  file: string;
  busyTimeoutMilliseconds: number;
}

if (parentPort) {
  const port = parentPort;
  const data = workerData as SqliteAppendWorkerData;
  const db = new Database(data.file, { timeout: data.busyTimeoutMilliseconds });
  db.pragma('synchronous = FULL');
  const append = sqliteAppendTransaction(db);
  port.on('message', ({ id, append: request }: SqliteAppendRequest) => {
    let reply: SqliteAppendReply;
    try {
      reply = { id, result: append(request) };
    } catch (error) {
      if (error instanceof ExpectedRevisionConflictError) {
        reply = { id, conflict: { stream: error.stream, expected: error.expected, actual: error.actual } };
      } else {
        const code = (error as { code?: unknown }).code;
        reply = { id, error: { code: typeof code === 'string' ? code : '', message: errorMessage(error) } };
      }
    }
    port.postMessage(reply);
  });
  port.once('close', () => db.close());
}
