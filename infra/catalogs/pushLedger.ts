/**
 * The record of what was pushed to the catalogs that keep no readable copy of it (lineage events:
 * the warehouse's Data Lineage API and the data governance's DataZone; `PushLedger` of
 * `src/catalogs/provider.ts`), kept next to the event store when the store is a folder on disk:
 *
 * - `createFilePushLedger(path)`: a JSON object `{key: fingerprint}` in one file, read on first use
 *   and rewritten (to a temporary file, then renamed) after each change, so that a second
 *   `lineage-svc-extract --push-lineage` of unchanged lineage sends nothing. Several processes
 *   writing at once keep the last writer's record; a lost entry only means one event sent again
 *   (the catalogs accept a repeated event).
 * - `pushLedgerFor(config)`: the file `{LINEAGE_SVC_STORAGE__PATH}/catalog-push-ledger.json` for the
 *   `file` and `sqlite` stores, else a ledger in memory (the `memory` store, and the server stores,
 *   whose processes may not share a disk).
 *
 * Errors: an unreadable or malformed file counts as empty; a failed write is thrown to the caller
 * (the push reports the job as pushed: the catalog accepted it).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createMemoryPushLedger, type PushLedger } from '../../src/catalogs/provider.js';
import type { Config } from '../../src/config.js';

/** The ledger file's name inside the store folder. */
export const PUSH_LEDGER_FILE = 'catalog-push-ledger.json';

/** A `PushLedger` kept in a JSON file (see the module comment). */
export function createFilePushLedger(path: string): PushLedger {
  let entries: Promise<Record<string, string>> | undefined;
  let writing: Promise<void> = Promise.resolve();
  const load = () =>
    (entries ??= readFile(path, 'utf8')
      .then((text) => {
        const parsed = JSON.parse(text) as unknown;
        return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, string>) : {};
      })
      .catch((): Record<string, string> => ({})));
  return {
    async get(key) {
      return (await load())[key];
    },
    async set(key, fingerprint) {
      const current = await load();
      current[key] = fingerprint;
      writing = writing.then(async () => {
        await mkdir(dirname(path), { recursive: true });
        const temporary = `${path}.${process.pid}.tmp`;
        await writeFile(temporary, JSON.stringify(current));
        await rename(temporary, path);
      });
      await writing;
    },
  };
}

/** The ledger of a process's configuration (see the module comment). */
export function pushLedgerFor(config: Pick<Config, 'storage'>): PushLedger {
  const { backend, path } = config.storage;
  return backend === 'file' || backend === 'sqlite'
    ? createFilePushLedger(join(path, PUSH_LEDGER_FILE))
    : createMemoryPushLedger();
}

/** A ledger whose keys are prefixed (one shared ledger, one key space per catalog type). */
export function prefixedLedger(ledger: PushLedger, prefix: string): PushLedger {
  return {
    get: (key) => ledger.get(`${prefix}|${key}`),
    set: (key, fingerprint) => ledger.set(`${prefix}|${key}`, fingerprint),
  };
}
