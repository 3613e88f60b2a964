/**
 * The PostgreSQL event store (`pg`): tables in the connection's current schema (set `search_path`,
 * e.g. with `?options=-c%20search_path%3Dlineage` in the URL, to use another one than `public`).
 *
 * Schema (version 1, kept in `lineage_schema`):
 * - `lineage_events(position BIGINT PRIMARY KEY, stream, revision, type, version, data, metadata,
 *   recorded_at, UNIQUE(stream, revision))`: `data` and `metadata` are JSON text (kept verbatim, so
 *   what is read is exactly what was written), `recorded_at` ISO 8601 text;
 * - `lineage_streams(stream TEXT PRIMARY KEY, revision INTEGER NOT NULL)`: each stream's last
 *   revision, read for the expected-revision check.
 * Beside the schema, the snapshot table `lineage_snapshots` (derived data, `infra/eventStore/snapshotTables.ts`).
 *
 * Positions are gap-free and become visible in order: each append is one transaction that first
 * takes a transaction-level advisory lock (`pg_advisory_xact_lock`, one key per schema), then checks
 * the expected revision and inserts at `MAX(position)+1...` (three round trips: the lock with the
 * state, the insert, the commit). Appends therefore commit one after the
 * other, and a reader can never see position N+1 before N. (A BIGSERIAL would leave gaps on
 * rollback and could commit N+1 before N.) Throughput is bounded by one append at a time per schema,
 * which batching events per append makes up for.
 *
 * Stream locks (`withStreamLock`): a session-level advisory lock with two int4 keys (the schema's
 * and the stream's hashes), taken on a connection of a pool of its own, which the holder's append to
 * that stream uses too: a holder needs no other connection, and reads (the projector's among them)
 * never wait for one a holder keeps. A connection that dies releases its locks.
 *
 * Subscribers are woken by `LISTEN lineage_events` (each append does `pg_notify` in its
 * transaction, delivered on commit, so appends from other processes wake them too), and poll every
 * second in case the listening connection was lost.
 */
import { redactUrl } from './redactUrl.js';
import pg from 'pg';
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
import { postgresSnapshotStore } from './snapshotTables.js';

/** The schema version this code writes and reads. */
export const POSTGRES_EVENT_STORE_SCHEMA_VERSION = 1;
/**
 * Default wait for a connection, in milliseconds: when the database is down or unreachable, a write
 * fails (503) after at most this long instead of hanging (it was 10 s, and writes queued behind each
 * other on one graph waited 30 to 64 s during an outage, issue 23).
 */
export const POSTGRES_CONNECTION_TIMEOUT_MILLISECONDS = 3_000;

/** The LISTEN/NOTIFY channel appends notify on. */
export const POSTGRES_EVENT_STORE_CHANNEL = 'lineage_events';

const SCHEMA_V1 = `
  CREATE TABLE IF NOT EXISTS lineage_events (
    position BIGINT PRIMARY KEY,
    stream TEXT NOT NULL,
    revision INTEGER NOT NULL,
    type TEXT NOT NULL,
    version INTEGER NOT NULL,
    data TEXT NOT NULL,
    metadata TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    UNIQUE (stream, revision)
  );
  CREATE TABLE IF NOT EXISTS lineage_streams (
    stream TEXT PRIMARY KEY,
    revision INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS lineage_schema (
    version INTEGER NOT NULL
  );
`;

const COLUMNS = 'position, stream, revision, type, version, data, metadata, recorded_at';

const SQL = {
  state:
    'SELECT (SELECT revision FROM lineage_streams WHERE stream = $1) AS revision, ' +
    '(SELECT COALESCE(MAX(position), 0) FROM lineage_events)::text AS head',
  // Data-modifying CTEs always run, referenced or not: one round trip writes the batch, moves the
  // stream's revision and queues the notification (sent on commit).
  insert: `
    WITH inserted AS (
      INSERT INTO lineage_events (${COLUMNS})
      SELECT p, $2, r, t, v, d, m, $8
      FROM unnest($1::bigint[], $3::int[], $4::text[], $5::int[], $6::text[], $7::text[]) AS e(p, r, t, v, d, m)
    ), moved AS (
      INSERT INTO lineage_streams (stream, revision) VALUES ($2, $9)
      ON CONFLICT (stream) DO UPDATE SET revision = EXCLUDED.revision
    )
    SELECT pg_notify('${POSTGRES_EVENT_STORE_CHANNEL}', $10)`,
  readStream:
    `SELECT ${COLUMNS} FROM lineage_events WHERE stream = $1 AND revision >= $2::bigint ` +
    'AND revision <= $3::bigint ORDER BY revision LIMIT $4::bigint',
  readAll: `SELECT ${COLUMNS} FROM lineage_events WHERE position > $1::bigint ORDER BY position LIMIT $2::bigint`,
  streamRevision: 'SELECT revision FROM lineage_streams WHERE stream = $1',

  head: 'SELECT COALESCE(MAX(position), 0)::text AS head FROM lineage_events',
} as const;

/** A row read with `rowMode: 'array'`, in COLUMNS order (BIGINT arrives as text). */
type EventRow = [string, string, number, string, number, string, string, string];

export interface PostgresEventStoreOptions {
  /** `postgres://user:password@host:port/database[?options=...]`. Never appears in error messages with its password. */
  url: string;
  /** Clock used for `recorded_at`; injected by tests. */
  now?: () => Date;
  /** Connections in the pool. Default 10. */
  poolSize?: number;
  /**
   * How long to wait for a connection (a new one, or a free one of the pool) before the operation
   * fails with a `StorageError` (HTTP 503). Default `POSTGRES_CONNECTION_TIMEOUT_MILLISECONDS`.
   */
  connectionTimeoutMilliseconds?: number;
}

/** The PostgreSQL store: the port. */
export interface PostgresEventStore extends EventStore {
  readonly backend: 'postgres';
}

/**
 * Connects, creates the tables when absent (under an advisory lock, so concurrent first starts are
 * safe) and checks the schema version.
 * @throws StorageError when the database cannot be reached or the schema cannot be created, or is
 *   newer than this code. The message names the URL without its password.
 */
export async function createPostgresEventStore(options: PostgresEventStoreOptions): Promise<PostgresEventStore> {
  const now = options.now ?? (() => new Date());
  const where = redactUrl(options.url);
  const connection = {
    connectionString: options.url,
    connectionTimeoutMillis: options.connectionTimeoutMilliseconds ?? POSTGRES_CONNECTION_TIMEOUT_MILLISECONDS,
    application_name: 'lineage-svc',
  };
  const pool = new pg.Pool({ ...connection, max: options.poolSize ?? 10 });
  const lockPool = new pg.Pool({ ...connection, max: options.poolSize ?? 10 });
  // An idle connection that dies emits 'error' on the pool; without a listener that would crash the
  // process. The next query that needs a connection reports the problem instead.
  pool.on('error', () => undefined);
  lockPool.on('error', () => undefined);
  // A connection that dies while checked out (between two queries of an append, when the server
  // shuts down: 57P01) emits 'error' on its client, which the pool no longer listens to then
  // (node-postgres issues 2499, 2509): without this listener the process crashed. The operation in
  // progress still fails with the error, and the pool drops the broken client when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined));
  lockPool.on('connect', (client) => client.on('error', () => undefined));

  let lockKey: string;
  try {
    lockKey = await migrate(pool, where);
  } catch (error) {
    await Promise.allSettled([pool.end(), lockPool.end()]);
    if (error instanceof StorageError) throw error;
    throw new StorageError(`postgres event store: cannot open ${where}: ${errorMessage(error)}`, { cause: error });
  }

  /** The connections holding a stream lock (`withStreamLock`), by stream; `busy` while an append uses one. */
  const heldLocks = new Map<string, { client: pg.PoolClient; busy: boolean }>();
  const notifier = appendNotifier(1000);
  const subscriptions = subscriptionRegistry();
  const inFlight = new Set<Promise<unknown>>();
  let listener: pg.Client | undefined;
  let listening: Promise<void> | undefined;
  let closed = false;

  function ensureOpen(): void {
    if (closed) throw new StorageError(`postgres event store ${where} is closed`);
  }

  /** Runs an operation, translating driver errors, and lets close() wait for it. */
  function track<T>(operation: () => Promise<T>, what: string): Promise<T> {
    ensureOpen();
    const running = operation().catch((error: unknown) => {
      throw translateError(error, what, where);
    });
    inFlight.add(running);
    const forget = (): void => {
      inFlight.delete(running);
    };
    running.then(forget, forget);
    return running;
  }

  async function readRows(text: string, name: string, values: unknown[]): Promise<RecordedEvent[]> {
    const result = await pool.query<EventRow>({ name, text, values, rowMode: 'array' });
    return result.rows.map(toRecorded);
  }

  /** Starts the LISTEN connection once; on failure subscribers still poll. */
  function listen(): void {
    if (listening !== undefined || closed) return;
    const client = new pg.Client(connection);
    listening = (async () => {
      client.on('error', () => {
        // The connection died: forget it, the next subscribe() listens again, polling covers the gap.
        if (listener === client) listener = undefined;
        listening = undefined;
        client.end().catch(() => undefined);
      });
      client.on('notification', () => notifier.notify());
      await client.connect();
      await client.query(`LISTEN ${POSTGRES_EVENT_STORE_CHANNEL}`);
      if (closed) {
        await client.end();
        return;
      }
      listener = client;
    })().catch(() => {
      listening = undefined;
      client.end().catch(() => undefined);
    });
  }

  const store: PostgresEventStore = {
    backend: 'postgres',
    snapshots: postgresSnapshotStore(pool, where),

    async append(
      stream: string,
      events: readonly EventToAppend[],
      appendOptions: AppendOptions = {},
    ): Promise<AppendResult> {
      ensureOpen();
      if (events.length === 0) throw new ValidationError(`append to "${stream}" needs at least one event`);
      const serialized = events.map(serializeEvent);
      const expected = appendOptions.expectedRevision ?? 'any';
      const result = await track(async () => {
        // Under this stream's lock, the lock's own connection (free while the holder appends): a holder
        // then needs no second connection, so holders can never take every connection of the pool.
        const held = heldLocks.get(stream);
        const borrowed = held !== undefined && !held.busy;
        if (borrowed) held.busy = true;
        const client = borrowed ? held.client : await pool.connect();
        let broken: unknown;
        try {
          // One round trip: the lock, then (a statement of its own, so a snapshot taken once the lock is
          // held) the stream's revision and the head.
          const results = (await client.query(
            `BEGIN; SELECT pg_advisory_xact_lock(${lockKey}); ${SQL.state.replace('$1', pg.escapeLiteral(stream))}`,
          )) as unknown as Array<pg.QueryResult<{ revision: number | null; head: string }>>;
          const row = results[2]!.rows[0]!;
          const current = row.revision ?? -1;
          const head = Number(row.head);
          assertExpectedRevision(stream, expected, current);
          const positions: number[] = [];
          const revisions: number[] = [];
          for (let i = 0; i < serialized.length; i += 1) {
            positions.push(head + i + 1);
            revisions.push(current + i + 1);
          }
          const last = current + serialized.length;
          const position = head + serialized.length;
          await client.query({
            name: 'lineage-append-insert',
            text: SQL.insert,
            values: [
              positions,
              stream,
              revisions,
              serialized.map((e) => e.type),
              serialized.map((e) => e.version),
              serialized.map((e) => e.data),
              serialized.map((e) => e.metadata),
              now().toISOString(),
              last,
              String(position),
            ],
          });
          await client.query('COMMIT');
          return { next_expected_revision: last, position };
        } catch (error) {
          try {
            await client.query('ROLLBACK');
          } catch (rollbackError) {
            broken = rollbackError;
          }
          if (error instanceof ExpectedRevisionConflictError) throw error;
          if (isUniqueViolation(error)) {
            const current = await store.streamRevision(stream).catch(() => -1);
            throw new ExpectedRevisionConflictError(stream, describeExpectedRevision(expected), current);
          }
          throw error;
        } finally {
          // A connection whose ROLLBACK failed is destroyed rather than returned to the pool (the lock's
          // connection is, once its unlock fails too).
          if (borrowed) held.busy = false;
          else (client as pg.PoolClient).release(broken instanceof Error ? broken : undefined);
        }
      }, `append to "${stream}"`);
      notifier.notify();
      return result;
    },

    async readStream(stream: string, readOptions: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
      return track(
        () =>
          readRows(SQL.readStream, 'lineage-read-stream', [
            stream,
            Math.max(0, readOptions.fromRevision ?? 0),
            readOptions.toRevision ?? Number.MAX_SAFE_INTEGER,
            Math.max(0, readOptions.maxCount ?? Number.MAX_SAFE_INTEGER),
          ]),
        `read stream "${stream}"`,
      );
    },

    async streamRevision(stream: string): Promise<number> {
      return track(async () => {
        const result = await pool.query<[number]>({
          name: 'lineage-stream-revision',
          text: SQL.streamRevision,
          values: [stream],
          rowMode: 'array',
        });
        return result.rows[0]?.[0] ?? -1;
      }, `read the revision of "${stream}"`);
    },

    async readAll(readOptions: ReadAllOptions = {}): Promise<RecordedEvent[]> {
      return track(
        () =>
          readRows(SQL.readAll, 'lineage-read-all', [
            Math.max(0, Math.floor(readOptions.after ?? 0)),
            Math.max(0, Math.floor(readOptions.maxCount ?? 1000)),
          ]),
        'read all events',
      );
    },

    async headPosition(): Promise<number> {
      return track(async () => {
        const result = await pool.query<[string]>({ name: 'lineage-head', text: SQL.head, rowMode: 'array' });
        return Number(result.rows[0]?.[0] ?? 0);
      }, 'read the head position');
    },

    async withStreamLock<T>(stream: string, work: (head: number) => Promise<T>): Promise<T> {
      const [client, head] = await track(async () => {
        const connected = await lockPool.connect();
        try {
          // One round trip: the lock, then (a statement of its own, so a snapshot taken once the lock
          // is held) the head position.
          const results = (await connected.query(
            `${lockStreamStatement('lock', stream)}; ${SQL.head}`,
          )) as unknown as Array<pg.QueryResult<{ head: string }>>;
          return [connected, Number(results[1]!.rows[0]!.head)] as const;
        } catch (error) {
          connected.release(error instanceof Error ? error : true);
          throw error;
        }
      }, `lock stream "${stream}"`);
      let result: T;
      heldLocks.set(stream, { client, busy: false });
      try {
        result = await work(head);
      } finally {
        heldLocks.delete(stream);
        // The unlock is not waited for: the next holder waits for the server, not for this process.
        client.query(lockStreamStatement('unlock', stream)).then(
          () => client.release(),
          // Closing the connection releases its locks.
          (error: unknown) => client.release(error instanceof Error ? error : true),
        );
      }
      return result;
    },

    subscribe(subscribeOptions: SubscribeOptions = {}): Subscription {
      ensureOpen();
      listen();
      return subscriptions.track(pollingSubscription((o) => store.readAll(o), notifier.wait, subscribeOptions));
    },

    /** Ends open subscriptions, waits for operations in progress, then closes every connection. Idempotent. */
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await subscriptions.closeAll();
      await Promise.allSettled([...inFlight]);
      await listening;
      await Promise.allSettled([listener?.end(), pool.end(), lockPool.end()]);
      listener = undefined;
    },
  };
  return store;
}

/** Creates the tables if needed and returns this schema's advisory lock key (a bigint literal). */
async function migrate(pool: pg.Pool, where: string): Promise<string> {
  const client = await pool.connect();
  try {
    const keyResult = await client.query<[string]>({
      text: `SELECT hashtextextended('lineage-svc:' || current_schema(), 0)::text`,
      rowMode: 'array',
    });
    const lockKey = keyResult.rows[0]?.[0];
    if (lockKey === undefined || !/^-?\d+$/.test(lockKey)) {
      throw new StorageError(`postgres event store: ${where} has no current schema (check search_path)`);
    }
    await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${lockKey})`);
    try {
      await client.query(SCHEMA_V1);
      const versions = await client.query<[number]>({ text: 'SELECT version FROM lineage_schema', rowMode: 'array' });
      const version = versions.rows[0]?.[0];
      if (version === undefined) {
        await client.query('INSERT INTO lineage_schema (version) VALUES ($1)', [POSTGRES_EVENT_STORE_SCHEMA_VERSION]);
      } else if (version > POSTGRES_EVENT_STORE_SCHEMA_VERSION) {
        throw new StorageError(
          `postgres event store: ${where} has schema version ${version}, newer than the ` +
            `${POSTGRES_EVENT_STORE_SCHEMA_VERSION} this lineage-svc knows; upgrade lineage-svc`,
        );
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    return lockKey;
  } finally {
    client.release();
  }
}

/**
 * The statement that takes or releases `stream`'s lock: a session-level advisory lock with two int4
 * keys (the schema's and the stream's hashes), a key space apart from the append lock's single
 * bigint key. The stream is a literal (escaped), so that the statement can share a simple query.
 */
function lockStreamStatement(what: 'lock' | 'unlock', stream: string): string {
  const name = what === 'lock' ? 'pg_advisory_lock' : 'pg_advisory_unlock';
  return `SELECT ${name}(hashtext('lineage-svc:' || current_schema()), hashtext(${pg.escapeLiteral(stream)}))`;
}

function toRecorded(row: EventRow): RecordedEvent {
  return {
    type: row[3],
    version: row[4],
    data: JSON.parse(row[5]) as unknown,
    metadata: JSON.parse(row[6]) as RecordedEvent['metadata'],
    stream: row[1],
    revision: row[2],
    position: Number(row[0]),
    recorded_at: row[7],
  };
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

/** The port's errors pass through; anything else from the driver becomes a StorageError. */
function translateError(error: unknown, what: string, where: string): Error {
  if (
    error instanceof ExpectedRevisionConflictError ||
    error instanceof ValidationError ||
    error instanceof StorageError
  )
    return error;
  return new StorageError(`postgres event store: cannot ${what} in ${where}: ${errorMessage(error)}`, { cause: error });
}
