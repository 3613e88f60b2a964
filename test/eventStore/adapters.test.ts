/**
 * Runs the event store contract on every adapter (memory, file, sqlite, postgres, eventstoredb),
 * then what is particular to each: the file store's recovery and lock, SQLite and PostgreSQL seen
 * from two stores at once, and createEventStore's errors.
 *
 * PostgreSQL: `LINEAGE_SVC_TEST_POSTGRES_URL`, else `postgres://postgres@127.0.0.1:5432/test`; each
 * case gets its own schema, dropped afterwards. When the variable is unset and the default server
 * cannot be reached, the postgres tests are skipped with the reason; when it is set, they must pass.
 * EventStoreDB: only when `LINEAGE_SVC_TEST_EVENTSTOREDB_URL` is set.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { ConfigurationError, ExpectedRevisionConflictError, StorageError } from '../../src/errors.js';
import type { EventStore, RecordedEvent } from '../../src/eventStore.js';
import { createEventStore } from '../../infra/eventStore/createEventStore.js';
import { ANY, NO_STREAM, STREAM_EXISTS } from '@eventstore/db-client';
import { createEventStoreDbEventStore, toEsdbExpectedRevision } from '../../infra/eventStore/eventStoreDbEventStore.js';
import {
  FILE_EVENT_STORE_LOCK,
  FILE_EVENT_STORE_LOG,
  createFileEventStore,
} from '../../infra/eventStore/fileEventStore.js';
import { createMemoryEventStore } from '../../infra/eventStore/memoryEventStore.js';
import { createPostgresEventStore } from '../../infra/eventStore/postgresEventStore.js';
import { SQLITE_EVENT_STORE_FILE, createSqliteEventStore } from '../../infra/eventStore/sqliteEventStore.js';
import { anEvent, describeEventStoreContract, type OpenedStore } from './contract.js';

function tempDir(label: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `lineage-svc-${label}-`));
}

/** Opens a store in a fresh temp dir; `reopen` opens the same dir again; `cleanup` closes all and removes it. */
function openInTempDir(label: string, create: (dir: string) => EventStore): () => Promise<OpenedStore> {
  return async () => {
    const dir = tempDir(label);
    const stores = [create(dir)];
    return {
      store: stores[0]!,
      async reopen() {
        const store = create(dir);
        stores.push(store);
        return store;
      },
      async cleanup() {
        for (const store of stores) await store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  };
}

// ---------------------------------------------------------------------------------------------- memory, file, sqlite

describeEventStoreContract('memory', async () => {
  const store = createMemoryEventStore();
  return { store, cleanup: () => store.close() };
});

describeEventStoreContract(
  'file',
  openInTempDir('file', (dir) => createFileEventStore({ path: dir })),
);

describeEventStoreContract(
  'sqlite',
  openInTempDir('sqlite', (dir) => createSqliteEventStore({ path: dir })),
);

describeEventStoreContract('sqlite :memory:', async () => {
  const store = createSqliteEventStore({ path: ':memory:' });
  return { store, cleanup: () => store.close() };
});

// ---------------------------------------------------------------------------------------------- postgres

const postgresUrlFromEnv = process.env.LINEAGE_SVC_TEST_POSTGRES_URL;
const postgresUrl = postgresUrlFromEnv ?? 'postgres://postgres@127.0.0.1:5432/test';
const postgresAdmin = new pg.Pool({ connectionString: postgresUrl, max: 2, connectionTimeoutMillis: 3000 });
postgresAdmin.on('error', () => undefined);
after(() => postgresAdmin.end());

/** Why the postgres tests are skipped, or false to run them. */
async function postgresSkipReason(): Promise<string | false> {
  try {
    await postgresAdmin.query('SELECT 1');
    return false;
  } catch (error) {
    if (postgresUrlFromEnv !== undefined) return false; // asked for explicitly: let the tests fail loudly
    return `no PostgreSQL at ${postgresUrl} (${error instanceof Error ? error.message : String(error)}); set LINEAGE_SVC_TEST_POSTGRES_URL to run these tests`;
  }
}
const postgresSkip = await postgresSkipReason();
if (postgresSkip) console.log(`# postgres event store tests skipped: ${postgresSkip}`);

/** A fresh schema, and the URL whose connections use it. */
async function postgresSchema(): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `lineage_test_${randomUUID().replaceAll('-', '')}`;
  await postgresAdmin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(postgresUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: async () => {
      await postgresAdmin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    },
  };
}

describeEventStoreContract(
  'postgres',
  async () => {
    const schema = await postgresSchema();
    const stores = [await createPostgresEventStore({ url: schema.url })];
    return {
      store: stores[0]!,
      async reopen() {
        const store = await createPostgresEventStore({ url: schema.url });
        stores.push(store);
        return store;
      },
      async cleanup() {
        for (const store of stores) await store.close();
        await schema.drop();
      },
    };
  },
  { skip: postgresSkip },
);

// ---------------------------------------------------------------------------------------------- eventstoredb

const eventStoreDbUrl = process.env.LINEAGE_SVC_TEST_EVENTSTOREDB_URL;
const eventStoreDbSkip =
  eventStoreDbUrl === undefined
    ? 'LINEAGE_SVC_TEST_EVENTSTOREDB_URL is not set (e.g. esdb://localhost:2113?tls=false): no EventStoreDB server to test against'
    : false;
if (eventStoreDbSkip) console.log(`# eventstoredb event store tests skipped: ${eventStoreDbSkip}`);

describeEventStoreContract(
  'eventstoredb',
  async () => {
    const stores = [createEventStoreDbEventStore({ url: eventStoreDbUrl! })];
    return {
      store: stores[0]!,
      async reopen() {
        const store = createEventStoreDbEventStore({ url: eventStoreDbUrl! });
        stores.push(store);
        return store;
      },
      async cleanup() {
        for (const store of stores) await store.close();
      },
    };
  },
  { skip: eventStoreDbSkip },
);

// ---------------------------------------------------------------------------------------------- file specifics

describe('file event store', () => {
  /** A store in a temp dir with `count` events appended in batches of 3, closed; returns what was read. */
  async function seeded(count: number): Promise<{ dir: string; file: string; events: RecordedEvent[]; bytes: number }> {
    const dir = tempDir('file-recovery');
    const store = createFileEventStore({ path: dir });
    for (let i = 0; i < count; i += 3) {
      await store.append(
        'graph-g1',
        Array.from({ length: Math.min(3, count - i) }, (_, j) => anEvent(`e${i + j}`)),
      );
    }
    const events = await store.readAll();
    await store.close();
    const file = path.join(dir, FILE_EVENT_STORE_LOG);
    return { dir, file, events, bytes: fs.statSync(file).size };
  }

  function captureWarnings(): {
    logger: { warn(obj: object, msg: string): void };
    warnings: Array<{ obj: object; msg: string }>;
  } {
    const warnings: Array<{ obj: object; msg: string }> = [];
    return { warnings, logger: { warn: (obj, msg) => warnings.push({ obj, msg }) } };
  }

  it('reports a clean log as nothing recovered', async () => {
    const { dir, events } = await seeded(4);
    const { logger, warnings } = captureWarnings();
    const store = createFileEventStore({ path: dir, logger });
    try {
      assert.deepEqual(store.recovery, { truncated_bytes: 0, dropped_partial_line: false, dropped_events: 0 });
      assert.deepEqual(await store.readAll(), events);
      assert.equal(warnings.length, 0);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('cuts off a torn last line, reports it, and keeps every complete event', async () => {
    const { dir, file, events, bytes } = await seeded(6);
    const torn = '{"position":7,"stream":"graph-g1","revision":6,"type":"NodesAd';
    fs.appendFileSync(file, torn);
    const { logger, warnings } = captureWarnings();
    const store = createFileEventStore({ path: dir, logger });
    try {
      assert.deepEqual(store.recovery, {
        truncated_bytes: Buffer.byteLength(torn),
        dropped_partial_line: true,
        dropped_events: 0,
      });
      assert.equal(warnings.length, 1);
      assert.equal(warnings[0]!.msg, 'EventStore:Recovered');
      assert.deepEqual({ ...warnings[0]!.obj, reason: undefined }, { file, ...store.recovery, reason: undefined });
      assert.equal(fs.statSync(file).size, bytes, 'the file is truncated back to the last complete line');
      assert.deepEqual(await store.readAll(), events);
      const next = await store.append('graph-g1', [anEvent('after-recovery')], { expectedRevision: 5 });
      assert.deepEqual(next, { next_expected_revision: 6, position: 7 });
    } finally {
      await store.close();
    }
    const reopened = createFileEventStore({ path: dir });
    try {
      assert.equal(reopened.recovery.truncated_bytes, 0, 'the repair was written to disk');
      assert.equal((await reopened.readAll()).length, 7);
    } finally {
      await reopened.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('drops an unparseable last line and the complete lines of an unfinished batch', async () => {
    const { dir, file, events, bytes } = await seeded(3);
    // Two complete lines of a 3-event batch whose last (commit) line was torn into garbage.
    const lines = [0, 1].map((i) =>
      JSON.stringify({
        position: 4 + i,
        stream: 'graph-g1',
        revision: 3 + i,
        type: 'NodesAdded',
        version: 1,
        recorded_at: new Date().toISOString(),
        data: {},
        metadata: { event_id: randomUUID() },
      }),
    );
    const tail = `${lines.join('\n')}\n{"position":6,"str\u0000\u0000\n`;
    fs.appendFileSync(file, tail);
    const store = createFileEventStore({ path: dir });
    try {
      assert.deepEqual(store.recovery, {
        truncated_bytes: Buffer.byteLength(tail),
        dropped_partial_line: true,
        dropped_events: 2,
      });
      assert.equal(fs.statSync(file).size, bytes);
      assert.deepEqual(await store.readAll(), events);
      assert.equal(await store.streamRevision('graph-g1'), 2);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a log with a corrupt line in the middle, naming the line, and leaves it untouched', async () => {
    const { dir, file } = await seeded(3);
    const original = fs.readFileSync(file, 'utf8').split('\n');
    original[1] = '{"position":2, this is not json';
    fs.writeFileSync(file, original.join('\n'));
    const before = fs.readFileSync(file);
    try {
      assert.throws(
        () => createFileEventStore({ path: dir }),
        (error: unknown) =>
          error instanceof StorageError && /line 2\b/.test(error.message) && error.message.includes(file),
      );
      assert.deepEqual(fs.readFileSync(file), before);
      assert.equal(fs.existsSync(path.join(dir, FILE_EVENT_STORE_LOCK)), false, 'a failed open releases the lock');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a log whose positions are out of sequence', async () => {
    const { dir, file } = await seeded(3);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines[1] = lines[1]!.replace('"position":2', '"position":5');
    fs.writeFileSync(file, lines.join('\n'));
    try {
      assert.throws(() => createFileEventStore({ path: dir }), /line 2 has position 5, expected 2/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is locked by its live owner and taken over once that owner is dead', async () => {
    const dir = tempDir('file-lock');
    try {
      const first = createFileEventStore({ path: dir });
      assert.throws(
        () => createFileEventStore({ path: dir }),
        (error: unknown) =>
          error instanceof StorageError && error.message.includes(`process ${process.pid} (this process)`),
      );
      await first.close();

      // Another live process holds the lock.
      const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      const otherPid = other.pid!;
      fs.writeFileSync(path.join(dir, FILE_EVENT_STORE_LOCK), `${otherPid}\n`);
      assert.throws(
        () => createFileEventStore({ path: dir }),
        (error: unknown) => error instanceof StorageError && error.message.includes(`in use by process ${otherPid}`),
      );
      const exited = new Promise((resolve) => other.once('exit', resolve));
      other.kill('SIGKILL');
      await exited;

      // Its owner is dead: the lock is stale and taken over.
      const second = createFileEventStore({ path: dir });
      assert.equal(fs.readFileSync(path.join(dir, FILE_EVENT_STORE_LOCK), 'utf8').trim(), String(process.pid));
      await second.close();
      assert.equal(fs.existsSync(path.join(dir, FILE_EVENT_STORE_LOCK)), false, 'close releases the lock');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails with a StorageError naming the path when a regular file is where the folder should be', () => {
    const dir = tempDir('file-not-folder');
    const notAFolder = path.join(dir, 'plain-file');
    fs.writeFileSync(notAFolder, 'hello');
    try {
      assert.throws(
        () => createFileEventStore({ path: notAFolder }),
        (error: unknown) => error instanceof StorageError && error.message.includes(notAFolder),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects data that cannot be stored as JSON and writes nothing', async () => {
    const dir = tempDir('file-json');
    const store = createFileEventStore({ path: dir });
    try {
      await assert.rejects(store.append('graph-g1', [anEvent('bigint', { size: 10n })]), /cannot be stored as JSON/);
      assert.equal(await store.headPosition(), 0);
      assert.equal(fs.statSync(store.file).size, 0);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ---------------------------------------------------------------------------------------------- two stores, one database

/**
 * What SQLite and PostgreSQL must do when two stores (standing for two processes) share a database:
 * a subscriber of one sees the appends of the other, and positions stay gap-free.
 */
function describeSharedDatabase(
  name: string,
  openPair: () => Promise<{ a: EventStore; b: EventStore; cleanup(): Promise<void> }>,
  skip: string | false,
): void {
  describe(`${name}: two stores on one database`, { skip }, () => {
    it("wakes one store's subscriber for the other's appends", { timeout: 30_000 }, async () => {
      const { a, b, cleanup } = await openPair();
      try {
        const subscription = b.subscribe();
        const received: RecordedEvent[] = [];
        const receiving = (async () => {
          for await (const event of subscription) {
            received.push(event);
            if (received.length === 5) break;
          }
        })();
        await a.append('graph-shared', [anEvent('one'), anEvent('two')]);
        await a.append('graph-shared', [anEvent('three'), anEvent('four'), anEvent('five')], { expectedRevision: 1 });
        await receiving;
        await subscription.close();
        assert.deepEqual(
          received.map((e) => e.position),
          [1, 2, 3, 4, 5],
        );
      } finally {
        await cleanup();
      }
    });

    it('keeps positions gap-free and lets exactly one of two racing appends win', { timeout: 30_000 }, async () => {
      const { a, b, cleanup } = await openPair();
      try {
        await a.append('graph-race', [anEvent('seed')]);
        const outcomes = await Promise.allSettled([
          a.append('graph-race', [anEvent('from-a')], { expectedRevision: 0 }),
          b.append('graph-race', [anEvent('from-b')], { expectedRevision: 0 }),
        ]);
        assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
        const loser = outcomes.find((o) => o.status === 'rejected');
        assert.ok(loser?.status === 'rejected' && loser.reason instanceof ExpectedRevisionConflictError);
        await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            (i % 2 === 0 ? a : b).append(`graph-many-${i}`, [anEvent(`m${i}a`), anEvent(`m${i}b`)]),
          ),
        );
        const all = await b.readAll();
        assert.deepEqual(
          all.map((e) => e.position),
          Array.from({ length: 22 }, (_, i) => i + 1),
        );
      } finally {
        await cleanup();
      }
    });
  });
}

describeSharedDatabase(
  'sqlite',
  async () => {
    const dir = tempDir('sqlite-shared');
    const a = createSqliteEventStore({ path: dir });
    const b = createSqliteEventStore({ path: dir });
    return {
      a,
      b,
      async cleanup() {
        await a.close();
        await b.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  false,
);

describeSharedDatabase(
  'postgres',
  async () => {
    const schema = await postgresSchema();
    const a = await createPostgresEventStore({ url: schema.url });
    const b = await createPostgresEventStore({ url: schema.url });
    return {
      a,
      b,
      async cleanup() {
        await a.close();
        await b.close();
        await schema.drop();
      },
    };
  },
  postgresSkip,
);

describe('sqlite event store', () => {
  it('refuses a database whose schema is newer than this code', async () => {
    const dir = tempDir('sqlite-schema');
    try {
      const db = new Database(path.join(dir, SQLITE_EVENT_STORE_FILE));
      db.pragma('user_version = 99');
      db.close();
      assert.throws(
        () => createSqliteEventStore({ path: dir }),
        (error: unknown) => error instanceof StorageError && /schema version 99/.test(error.message),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a file that is not a SQLite database', () => {
    const dir = tempDir('sqlite-garbage');
    try {
      fs.writeFileSync(
        path.join(dir, SQLITE_EVENT_STORE_FILE),
        'this is not a database, just some text that is long enough'.repeat(20),
      );
      assert.throws(
        () => createSqliteEventStore({ path: dir }),
        (error: unknown) => error instanceof StorageError && error.message.includes(dir),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('postgres event store', { skip: postgresSkip }, () => {
  it('fails with a StorageError that does not leak the password when the server is unreachable', async () => {
    await assert.rejects(
      createPostgresEventStore({
        url: 'postgres://lineage:s3cret-pw@127.0.0.1:1/nowhere',
        connectionTimeoutMilliseconds: 2000,
      }),
      (error: unknown) =>
        error instanceof StorageError && error.message.includes('127.0.0.1:1') && !error.message.includes('s3cret-pw'),
    );
  });
});

describe('eventstoredb event store (no server needed)', () => {
  it("maps every expected revision to the client's", () => {
    assert.equal(toEsdbExpectedRevision('any'), ANY);
    assert.equal(toEsdbExpectedRevision('no_stream'), NO_STREAM);
    assert.equal(toEsdbExpectedRevision('stream_exists'), STREAM_EXISTS);
    assert.equal(toEsdbExpectedRevision(-1), NO_STREAM);
    assert.equal(toEsdbExpectedRevision(0), 0n);
    assert.equal(toEsdbExpectedRevision(41), 41n);
  });

  it('turns an unreachable server into StorageError on every call', { timeout: 30_000 }, async () => {
    const store = createEventStoreDbEventStore({ url: 'esdb://127.0.0.1:1?tls=false' });
    try {
      await assert.rejects(store.append('graph-g1', [anEvent('x')]), StorageError);
      await assert.rejects(store.readStream('graph-g1'), StorageError);
      await assert.rejects(store.readAll(), StorageError);
      await assert.rejects(store.headPosition(), StorageError);
    } finally {
      await store.close();
    }
    await assert.rejects(store.readAll(), /closed/);
  });
});

// ---------------------------------------------------------------------------------------------- createEventStore

describe('createEventStore', () => {
  it('opens the memory store', async () => {
    const store = await createEventStore({ backend: 'memory', path: '' });
    assert.equal(store.backend, 'memory');
    await store.close();
  });

  it('opens the file and sqlite stores in the configured folder', async () => {
    const dir = tempDir('create');
    try {
      for (const backend of ['file', 'sqlite'] as const) {
        const store = await createEventStore(
          { backend, path: path.join(dir, backend) },
          { now: () => new Date('2030-01-02T03:04:05.678Z') },
        );
        assert.equal(store.backend, backend);
        await store.append('graph-g1', [anEvent('created')]);
        assert.equal((await store.readAll())[0]?.recorded_at, '2030-01-02T03:04:05.678Z', 'the clock is passed down');
        await store.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects an unknown backend with a ConfigurationError naming the variable', async () => {
    await assert.rejects(
      createEventStore({ backend: 'mongo' as never, path: '/tmp' }),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        error.message.includes('LINEAGE_SVC_STORAGE__BACKEND="mongo"') &&
        error.message.includes('memory, file, sqlite, postgres, eventstoredb') &&
        !error.message.includes('\n'),
    );
  });

  it('rejects a missing path or URL with a ConfigurationError naming the variable', async () => {
    await assert.rejects(
      createEventStore({ backend: 'file', path: ' ' }),
      (error: unknown) => error instanceof ConfigurationError && /LINEAGE_SVC_STORAGE__PATH/.test(error.message),
    );
    await assert.rejects(
      createEventStore({ backend: 'postgres', path: '' }),
      (error: unknown) => error instanceof ConfigurationError && /LINEAGE_SVC_STORAGE__URL/.test(error.message),
    );
    await assert.rejects(
      createEventStore({ backend: 'eventstoredb', path: '' }),
      (error: unknown) => error instanceof ConfigurationError && /LINEAGE_SVC_STORAGE__URL/.test(error.message),
    );
    await assert.rejects(
      createEventStore({ backend: 'eventstoredb', path: '', url: 'not a connection string' }),
      (error: unknown) => error instanceof ConfigurationError && /LINEAGE_SVC_STORAGE__URL/.test(error.message),
    );
  });

  it('fails with a one-line StorageError naming the variable and the path when the path is a regular file', async () => {
    const dir = tempDir('create-file');
    const notAFolder = path.join(dir, 'plain-file');
    fs.writeFileSync(notAFolder, 'hello');
    try {
      for (const backend of ['file', 'sqlite'] as const) {
        await assert.rejects(
          createEventStore({ backend, path: notAFolder }),
          (error: unknown) =>
            error instanceof StorageError &&
            error.message.startsWith(`LINEAGE_SVC_STORAGE__PATH=${JSON.stringify(notAFolder)}: `) &&
            !error.message.includes('\n'),
        );
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails with a StorageError naming the variable when the postgres server is unreachable', async () => {
    await assert.rejects(
      createEventStore({ backend: 'postgres', path: '', url: 'postgres://lineage:pw@127.0.0.1:1/nowhere' }),
      (error: unknown) =>
        error instanceof StorageError &&
        error.message.startsWith('LINEAGE_SVC_STORAGE__URL="postgres://lineage:***@127.0.0.1:1/nowhere"'),
    );
  });
});
