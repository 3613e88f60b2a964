/**
 * The snapshot tables of the adapters that keep snapshots on their backend (the port is
 * `SnapshotStore` in `src/eventStore.ts`): a table in the sqlite database, a folder beside the file
 * store's log, a table in the PostgreSQL schema. The memory and EventStoreDB adapters use
 * `memorySnapshotStore` (process memory). Snapshots are derived data: none of these tables is part
 * of the event schema's version, and deleting them (or the folder) only costs time.
 *
 * Contract suite: `test/projections/snapshotsStore.test.ts`.
 */
import fs from 'node:fs';
import nodePath from 'node:path';
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { StorageError, errorMessage } from '../../src/errors.js';
import { compareSnapshotInfo, type SnapshotInfo, type SnapshotStore } from '../../src/eventStore.js';

/** A row of `snapshots`, in the order of `SNAPSHOT_COLUMNS`. */
type SnapshotRow = [string, string, number, number, string, number];
const SNAPSHOT_COLUMNS = 'key, format, revision, position, recorded_at';

const toInfo = (row: SnapshotRow): SnapshotInfo => ({
  key: row[0],
  format: row[1],
  revision: Number(row[2]),
  position: Number(row[3]),
  recorded_at: row[4],
  bytes: Number(row[5]),
});

/** Runs a backend call, turning a driver error into a StorageError naming `what`. */
async function storage<T>(what: string, call: () => T | Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new StorageError(`${what}: ${errorMessage(error)}`, { cause: error });
  }
}

/**
 * The table `snapshots(key, format, revision, position, recorded_at, payload BLOB)` in a sqlite
 * store's database, created on first use (it is outside the events' schema version).
 */
export function sqliteSnapshotStore(db: Database.Database, file: string): SnapshotStore {
  let statements:
    | {
        insert: Database.Statement<[string, string, number, number, string, Buffer]>;
        list: Database.Statement<[string], SnapshotRow>;
        read: Database.Statement<[string, string, number], Buffer>;
        remove: Database.Statement<[string, string, number]>;
      }
    | undefined;
  const prepared = () => {
    if (statements) return statements;
    db.exec(`CREATE TABLE IF NOT EXISTS snapshots (
      key TEXT NOT NULL, format TEXT NOT NULL, revision INTEGER NOT NULL, position INTEGER NOT NULL,
      recorded_at TEXT NOT NULL, payload BLOB NOT NULL, PRIMARY KEY (key, format, revision))`);
    statements = {
      insert: db.prepare(`INSERT OR IGNORE INTO snapshots (${SNAPSHOT_COLUMNS}, payload) VALUES (?, ?, ?, ?, ?, ?)`),
      list: db
        .prepare<[string], SnapshotRow>(
          `SELECT ${SNAPSHOT_COLUMNS}, length(payload) FROM snapshots WHERE key = ? ORDER BY revision, format`,
        )
        .raw(),
      read: db
        .prepare<[string, string, number], Buffer>(
          'SELECT payload FROM snapshots WHERE key = ? AND format = ? AND revision = ?',
        )
        .pluck(),
      remove: db.prepare('DELETE FROM snapshots WHERE key = ? AND format = ? AND revision = ?'),
    };
    return statements;
  };
  const what = `sqlite snapshot table in "${file}"`;
  return {
    put: (info, payload) =>
      storage(
        what,
        () =>
          prepared().insert.run(
            info.key,
            info.format,
            info.revision,
            info.position,
            info.recorded_at,
            Buffer.from(payload),
          ).changes === 1,
      ),
    list: (key) => storage(what, () => prepared().list.all(key).map(toInfo)),
    read: (key, format, revision) => storage(what, () => prepared().read.get(key, format, revision) ?? undefined),
    remove: (key, format, revision) =>
      storage(what, () => {
        prepared().remove.run(key, format, revision);
      }),
  };
}

/**
 * The table `lineage_snapshots` in a PostgreSQL store's schema, created on first use (it is outside
 * the events' schema version). `put` is `INSERT ... ON CONFLICT DO NOTHING`.
 */
export function postgresSnapshotStore(pool: pg.Pool, where: string): SnapshotStore {
  let created: Promise<unknown> | undefined;
  const ready = () => {
    created ??= pool
      .query(
        `CREATE TABLE IF NOT EXISTS lineage_snapshots (
          key TEXT NOT NULL, format TEXT NOT NULL, revision BIGINT NOT NULL, position BIGINT NOT NULL,
          recorded_at TEXT NOT NULL, payload BYTEA NOT NULL, PRIMARY KEY (key, format, revision))`,
      )
      .catch((error: unknown) => {
        created = undefined;
        throw error;
      });
    return created;
  };
  const what = `postgres snapshot table at ${where}`;
  return {
    put: (info, payload) =>
      storage(what, async () => {
        await ready();
        const result = await pool.query(
          `INSERT INTO lineage_snapshots (${SNAPSHOT_COLUMNS}, payload) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
          [info.key, info.format, info.revision, info.position, info.recorded_at, Buffer.from(payload)],
        );
        return result.rowCount === 1;
      }),
    list: (key) =>
      storage(what, async () => {
        await ready();
        const result = await pool.query<SnapshotRow>({
          text: `SELECT ${SNAPSHOT_COLUMNS}, octet_length(payload) FROM lineage_snapshots WHERE key = $1 ORDER BY revision, format`,
          values: [key],
          rowMode: 'array',
        });
        return result.rows.map(toInfo);
      }),
    read: (key, format, revision) =>
      storage(what, async () => {
        await ready();
        const result = await pool.query<[Buffer]>({
          text: 'SELECT payload FROM lineage_snapshots WHERE key = $1 AND format = $2 AND revision = $3',
          values: [key, format, revision],
          rowMode: 'array',
        });
        return result.rows[0]?.[0];
      }),
    remove: (key, format, revision) =>
      storage(what, async () => {
        await ready();
        await pool.query('DELETE FROM lineage_snapshots WHERE key = $1 AND format = $2 AND revision = $3', [
          key,
          format,
          revision,
        ]);
      }),
  };
}

/**
 * Snapshots as files in `{folder}/snapshots/`, one per snapshot, named
 * `{key}@{format}@{revision}.snap` (key and format URI-encoded). A file is one JSON line of
 * `{position, recorded_at}` followed by the payload; it is written to a temporary name and renamed,
 * so a reader never sees half of one.
 */
export function fileSnapshotStore(storeFolder: string): SnapshotStore {
  const folder = nodePath.join(storeFolder, 'snapshots');
  const name = (key: string, format: string, revision: number) =>
    `${encodeURIComponent(key)}@${encodeURIComponent(format)}@${revision}.snap`;
  const what = `file snapshot folder "${folder}"`;
  const readHeader = (file: string): { position: number; recorded_at: string; headerBytes: number } => {
    const descriptor = fs.openSync(nodePath.join(folder, file), 'r');
    const content = Buffer.alloc(512);
    try {
      fs.readSync(descriptor, content, 0, content.length, 0);
    } finally {
      fs.closeSync(descriptor);
    }
    const end = content.indexOf(10);
    const header = JSON.parse(content.subarray(0, end).toString('utf8')) as { position: number; recorded_at: string };
    return { ...header, headerBytes: end + 1 };
  };
  return {
    put: (info, payload) =>
      storage(what, async () => {
        fs.mkdirSync(folder, { recursive: true });
        const target = nodePath.join(folder, name(info.key, info.format, info.revision));
        if (fs.existsSync(target)) return false;
        const temporary = `${target}.${process.pid}.${Date.now()}.tmp`;
        const header = Buffer.from(`${JSON.stringify({ position: info.position, recorded_at: info.recorded_at })}\n`);
        fs.writeFileSync(temporary, Buffer.concat([header, payload]));
        fs.renameSync(temporary, target);
        return true;
      }),
    list: (key) =>
      storage(what, async () => {
        if (!fs.existsSync(folder)) return [];
        const prefix = `${encodeURIComponent(key)}@`;
        const infos: SnapshotInfo[] = [];
        for (const file of fs.readdirSync(folder)) {
          const match = /^([^@]+)@([^@]+)@(\d+)\.snap$/.exec(file);
          if (!match || !file.startsWith(prefix)) continue;
          const header = readHeader(file);
          const bytes = fs.statSync(nodePath.join(folder, file)).size - header.headerBytes;
          infos.push({
            key,
            format: decodeURIComponent(match[2]!),
            revision: Number(match[3]),
            position: header.position,
            recorded_at: header.recorded_at,
            bytes,
          });
        }
        return infos.sort(compareSnapshotInfo);
      }),
    read: (key, format, revision) =>
      storage(what, async () => {
        const file = name(key, format, revision);
        if (!fs.existsSync(nodePath.join(folder, file))) return undefined;
        const content = fs.readFileSync(nodePath.join(folder, file));
        return content.subarray(content.indexOf(10) + 1);
      }),
    remove: (key, format, revision) =>
      storage(what, async () => {
        fs.rmSync(nodePath.join(folder, name(key, format, revision)), { force: true });
      }),
  };
}
