/**
 * The event store backends the snapshot tests run on: memory, file and sqlite always; PostgreSQL
 * (`LINEAGE_SVC_TEST_POSTGRES_URL`, else `postgres://postgres@127.0.0.1:5432/test`, each store in a
 * schema of its own, dropped afterwards) when a server answers, and must when the variable is set;
 * EventStoreDB only when `LINEAGE_SVC_TEST_EVENTSTOREDB_URL` is set. Every store is opened with the
 * given clock (`recorded_at`).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createEventStoreDbEventStore } from '../../infra/eventStore/eventStoreDbEventStore.js';
import { createFileEventStore } from '../../infra/eventStore/fileEventStore.js';
import { createMemoryEventStore } from '../../infra/eventStore/memoryEventStore.js';
import { createPostgresEventStore } from '../../infra/eventStore/postgresEventStore.js';
import { createSqliteEventStore } from '../../infra/eventStore/sqliteEventStore.js';
import type { EventStore } from '../../src/eventStore.js';

/** A backend: how to open a store on it (and open it again, where it keeps anything), or why it is skipped. */
export interface SnapshotBackend {
  name: string;
  /** Why the backend is skipped, or false. */
  skip: string | false;
  /** Opens a fresh store; `reopen` opens the same location again (undefined when nothing is kept). */
  open(now: () => Date): Promise<{ store: EventStore; reopen?: () => Promise<EventStore>; cleanup(): Promise<void> }>;
}

const postgresUrlFromEnv = process.env.LINEAGE_SVC_TEST_POSTGRES_URL;
const postgresUrl = postgresUrlFromEnv ?? 'postgres://postgres@127.0.0.1:5432/test';

async function postgresSkipReason(): Promise<string | false> {
  const admin = new pg.Pool({ connectionString: postgresUrl, max: 1, connectionTimeoutMillis: 3000 });
  admin.on('error', () => undefined);
  try {
    await admin.query('SELECT 1');
    return false;
  } catch (error) {
    if (postgresUrlFromEnv !== undefined) return false; // asked for explicitly: let the tests fail loudly
    return `no PostgreSQL at ${postgresUrl} (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    await admin.end();
  }
}

/** Opens a store in a folder of its own, removed by `cleanup`. */
function folderBackend(name: 'file' | 'sqlite'): SnapshotBackend {
  return {
    name,
    skip: false,
    async open(now) {
      const folder = mkdtempSync(join(tmpdir(), `lineage-svc-snapshots-${name}-`));
      const create = () =>
        name === 'file' ? createFileEventStore({ path: folder, now }) : createSqliteEventStore({ path: folder, now });
      const stores = [create()];
      return {
        store: stores[0]!,
        async reopen() {
          await stores[stores.length - 1]!.close();
          stores.push(create());
          return stores[stores.length - 1]!;
        },
        async cleanup() {
          for (const store of stores) await store.close();
          rmSync(folder, { recursive: true, force: true });
        },
      };
    },
  };
}

function postgresBackend(skip: string | false): SnapshotBackend {
  return {
    name: 'postgres',
    skip,
    async open(now) {
      const admin = new pg.Pool({ connectionString: postgresUrl, max: 1 });
      admin.on('error', () => undefined);
      const schema = `lineage_test_${randomUUID().replaceAll('-', '')}`;
      await admin.query(`CREATE SCHEMA ${schema}`);
      const url = new URL(postgresUrl);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const stores = [await createPostgresEventStore({ url: url.toString(), now })];
      return {
        store: stores[0]!,
        async reopen() {
          stores.push(await createPostgresEventStore({ url: url.toString(), now }));
          return stores[stores.length - 1]!;
        },
        async cleanup() {
          for (const store of stores) await store.close();
          await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          await admin.end();
        },
      };
    },
  };
}

/** Every backend, with the reason each skipped one is skipped (printed once). */
export async function snapshotBackends(): Promise<SnapshotBackend[]> {
  const postgresSkip = await postgresSkipReason();
  const eventStoreDbUrl = process.env.LINEAGE_SVC_TEST_EVENTSTOREDB_URL;
  const backends: SnapshotBackend[] = [
    {
      name: 'memory',
      skip: false,
      open: async (now) => ({ store: createMemoryEventStore({ now }), cleanup: async () => {} }),
    },
    folderBackend('file'),
    folderBackend('sqlite'),
    postgresBackend(postgresSkip),
    {
      name: 'eventstoredb',
      skip: eventStoreDbUrl === undefined ? 'LINEAGE_SVC_TEST_EVENTSTOREDB_URL is not set' : false,
      async open() {
        const store = createEventStoreDbEventStore({ url: eventStoreDbUrl! });
        return { store, cleanup: () => store.close() };
      },
    },
  ];
  for (const backend of backends)
    if (backend.skip) console.log(`# snapshot tests on ${backend.name} skipped: ${backend.skip}`);
  return backends;
}
