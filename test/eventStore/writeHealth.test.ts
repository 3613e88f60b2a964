/**
 * `infra/eventStore/writeHealth.ts`: which append failures mean the store cannot take writes (a full
 * disk, a read-only store, an I/O error, by the driver's code on the error or its causes), and the
 * monitor that remembers the last one until an append succeeds, over a real sqlite store. The full
 * disk itself (a 2 MiB tmpfs) is in `test/http/meta.test.ts`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ExpectedRevisionConflictError, StorageError } from '../../src/errors.js';
import { streams, toAppend } from '../../src/events.js';
import { createSqliteEventStore } from '../../infra/eventStore/sqliteEventStore.js';
import { monitorWrites, writeFailureKind } from '../../infra/eventStore/writeHealth.js';

/** An error as a driver throws it: a message and a `code`. */
function driverError(code: string): Error {
  return Object.assign(new Error(`driver failed: ${code}`), { code });
}

const created = (taskId: string) =>
  toAppend([{ type: 'TaskCreated', data: { task_id: taskId, task_type: 'extract', parameters: {} } }], {
    actor: 'test',
  });

describe('writeFailureKind', () => {
  it('tells a full disk, a read-only store and an I/O error from the code on the error or its causes', () => {
    const cases: Array<[string, string]> = [
      ['SQLITE_FULL', 'disk-full'],
      ['53100', 'disk-full'],
      ['ENOSPC', 'disk-full'],
      ['EDQUOT', 'disk-full'],
      ['SQLITE_READONLY', 'read-only'],
      ['SQLITE_READONLY_DBMOVED', 'read-only'],
      ['25006', 'read-only'],
      ['EROFS', 'read-only'],
      ['SQLITE_IOERR_WRITE', 'io-error'],
      ['58030', 'io-error'],
      ['EIO', 'io-error'],
    ];
    for (const [code, kind] of cases) {
      const wrapped = new StorageError('cannot append', { cause: new Error('outer', { cause: driverError(code) }) });
      assert.deepEqual(writeFailureKind(wrapped), { kind, code }, code);
    }
  });

  it('leaves alone what says nothing about the store taking writes', () => {
    for (const error of [
      new ExpectedRevisionConflictError('graph-1', 'revision 3', 4),
      new StorageError('locked', { cause: driverError('SQLITE_BUSY') }),
      new StorageError('down', { cause: driverError('ECONNREFUSED') }),
      new StorageError('shutting down', { cause: driverError('57P01') }),
      new StorageError('pool', { cause: new Error('timeout exceeded when trying to connect') }),
      new Error('no code at all'),
      'a string',
      undefined,
    ])
      assert.equal(writeFailureKind(error), undefined, String(error));
  });
});

describe('monitorWrites over a sqlite store', () => {
  it('remembers the failure that means the store cannot write until an append succeeds; keeps reads and the store itself', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'lineage-write-health-'));
    const sqlite = createSqliteEventStore({ path: folder });
    let failNext: Error | undefined;
    const appendForReal = sqlite.append.bind(sqlite);
    // The driver's error as the store translates it, for the next append only.
    sqlite.append = async (stream, events, options) => {
      const failure = failNext;
      failNext = undefined;
      if (failure) throw new StorageError(`sqlite event store: cannot append to "${stream}"`, { cause: failure });
      return appendForReal(stream, events, options);
    };
    let clock = 1_000;
    const { store, health } = monitorWrites(sqlite, () => clock);
    try {
      assert.equal(store.file, sqlite.file, "the backend's own properties stay");
      assert.equal(health.failure, undefined);
      await store.append(streams.task('a'), created('a'));

      failNext = driverError('SQLITE_FULL');
      await assert.rejects(store.append(streams.task('b'), created('b')), StorageError);
      assert.deepEqual(health.failure, { kind: 'disk-full', code: 'SQLITE_FULL', at: 1_000 });

      clock = 2_000;
      await assert.rejects(
        store.append(streams.task('a'), created('a'), { expectedRevision: 'no_stream' }),
        ExpectedRevisionConflictError,
      );
      assert.equal((health.failure as { at: number } | undefined)?.at, 1_000, 'a conflict neither sets nor clears it');

      await store.append(streams.task('c'), created('c'));
      assert.equal(health.failure, undefined, 'a successful append clears it');
      assert.deepEqual(
        (await store.readAll()).map((event) => event.stream),
        ['task-a', 'task-c'],
        'reads go to the store; the failed append wrote nothing',
      );
    } finally {
      await store.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
