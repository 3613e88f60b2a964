/**
 * Picks and opens the event store named by the configuration. The one place that knows every
 * adapter; the composition root (`commands/`) calls it once and passes the store down.
 *
 * Each adapter's module (and its driver: better-sqlite3, pg, the EventStoreDB gRPC client) is loaded
 * only when its backend is asked for, so that a process pays the start-up time and memory of its own
 * store only (loading pg and the EventStoreDB client took about 150 ms).
 *
 * Never falls back: an unknown backend, a missing path or URL, or a location that cannot be used is
 * an error whose one-line message names the environment variable to fix.
 */
import { ConfigurationError, StorageError, errorMessage, isLineageError } from '../../src/errors.js';
import type { EventStore } from '../../src/eventStore.js';
import type { WarningLogger } from './fileEventStore.js';
import { redactUrl } from './redactUrl.js';

/** The backends `LINEAGE_SVC_STORAGE__BACKEND` may name. */
export const EVENT_STORE_BACKENDS = ['memory', 'file', 'sqlite', 'postgres', 'eventstoredb'] as const;
export type EventStoreBackend = (typeof EVENT_STORE_BACKENDS)[number];

/** The `storage` section of the configuration. */
export interface StorageConfig {
  /** `LINEAGE_SVC_STORAGE__BACKEND`. */
  backend: EventStoreBackend;
  /** `LINEAGE_SVC_STORAGE__PATH`: the folder of the file and sqlite stores (`:memory:` for a private sqlite database). */
  path: string;
  /** `LINEAGE_SVC_STORAGE__URL`: the connection string of the postgres and eventstoredb stores. */
  url?: string | undefined;
}

/**
 * The store in words, for the first line a command prints: `sqlite in ./.lineage-svc`,
 * `postgres at postgres://user:***@host/db` (secrets redacted), `memory (nothing is kept after exit)`.
 */
export function describeEventStore(storage: StorageConfig): string {
  switch (storage.backend) {
    case 'memory':
      return 'memory (nothing is kept after exit)';
    case 'file':
    case 'sqlite':
      return `${storage.backend} in ${storage.path}`;
    default:
      return `${storage.backend} at ${storage.url === undefined ? '(no URL)' : redactUrl(storage.url)}`;
  }
}

/** What adapters may be given besides their location. */
export interface EventStoreDeps {
  /** Clock for `recorded_at` (memory, file, sqlite, postgres; EventStoreDB stamps its own). */
  now?: () => Date;
  /** Receives the file store's recovery warning. */
  logger?: WarningLogger;
}

/**
 * Opens the configured store.
 * @throws ConfigurationError when the backend is unknown, or its path or URL is missing or invalid.
 * @throws StorageError when the location cannot be used (a file where a folder is expected, no
 *   permission, locked by another process, corrupt, database unreachable).
 */
export async function createEventStore(storage: StorageConfig, deps: EventStoreDeps = {}): Promise<EventStore> {
  const backend: string = storage.backend;
  const now = deps.now === undefined ? {} : { now: deps.now };
  switch (backend) {
    case 'memory':
      return (await import('./memoryEventStore.js')).createMemoryEventStore(now);
    case 'file': {
      const path = requirePath(storage, 'file');
      const { createFileEventStore } = await import('./fileEventStore.js');
      return wrap('LINEAGE_SVC_STORAGE__PATH', path, () =>
        createFileEventStore({ path, ...now, ...(deps.logger === undefined ? {} : { logger: deps.logger }) }),
      );
    }
    case 'sqlite': {
      const path = requirePath(storage, 'sqlite');
      const { createSqliteEventStore } = await import('./sqliteEventStore.js');
      return wrap('LINEAGE_SVC_STORAGE__PATH', path, () => createSqliteEventStore({ path, ...now }));
    }
    case 'postgres': {
      const url = requireUrl(storage, 'postgres');
      const { createPostgresEventStore } = await import('./postgresEventStore.js');
      return wrap('LINEAGE_SVC_STORAGE__URL', redactUrl(url), () => createPostgresEventStore({ url, ...now }));
    }
    case 'eventstoredb': {
      const url = requireUrl(storage, 'eventstoredb');
      const { createEventStoreDbEventStore } = await import('./eventStoreDbEventStore.js');
      return wrap('LINEAGE_SVC_STORAGE__URL', redactUrl(url), () => createEventStoreDbEventStore({ url }));
    }
    default:
      throw new ConfigurationError(
        `LINEAGE_SVC_STORAGE__BACKEND=${JSON.stringify(backend)} is not a storage backend; use one of ${EVENT_STORE_BACKENDS.join(', ')}`,
      );
  }
}

function requirePath(storage: StorageConfig, backend: string): string {
  if (typeof storage.path !== 'string' || storage.path.trim() === '') {
    throw new ConfigurationError(
      `LINEAGE_SVC_STORAGE__PATH is empty; the ${backend} backend needs a folder to keep its events in`,
    );
  }
  return storage.path;
}

function requireUrl(storage: StorageConfig, backend: string): string {
  if (typeof storage.url !== 'string' || storage.url.trim() === '') {
    throw new ConfigurationError(
      `LINEAGE_SVC_STORAGE__URL is not set; the ${backend} backend needs a connection string`,
    );
  }
  return storage.url;
}

/** Opens a store, prefixing any failure with the variable (and value) that points at the location. */
async function wrap(
  variable: string,
  value: string,
  open: () => EventStore | Promise<EventStore>,
): Promise<EventStore> {
  try {
    return await open();
  } catch (error) {
    const message = `${variable}=${JSON.stringify(value)}: ${errorMessage(error).replace(/\s*\n\s*/g, ' ')}`;
    if (error instanceof ConfigurationError) throw new ConfigurationError(message, { cause: error });
    if (error instanceof StorageError || !isLineageError(error)) throw new StorageError(message, { cause: error });
    throw error;
  }
}
