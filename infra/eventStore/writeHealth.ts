/**
 * Whether the store can take writes, as its own appends tell (issue 23, item 3: readiness on a full
 * disk). `monitorWrites` wraps a store: every append that fails because the store cannot write
 * (`WriteFailureKind`: a full disk, a read-only file system or database, an I/O error) is remembered
 * until an append succeeds; readiness (`infra/http/routes/operations.ts`) reads it. It costs nothing
 * beyond the appends themselves: no probe writes, and no event appended to find out.
 *
 * Failures that say nothing about the store's ability to write are not remembered: expected-revision
 * conflicts, invalid input, a busy sqlite lock, a connection that could not be had in time (under load
 * that would take every replica out of service at once; an unreachable database fails readiness
 * through its head read anyway).
 *
 * Driver codes: SQLite result codes (https://www.sqlite.org/rescode.html: `SQLITE_FULL`,
 * `SQLITE_READONLY*`, `SQLITE_IOERR*`), PostgreSQL SQLSTATEs (appendix A of its manual: 53100
 * disk_full, 25006 read_only_sql_transaction, 58030 io_error) and POSIX errno names (`ENOSPC`,
 * `EDQUOT`, `EROFS`, `EIO`) for the file store; looked up on the error and its `cause` chain.
 */
import type { EventStore } from '../../src/eventStore.js';

/** Why the store cannot take writes. */
export type WriteFailureKind = 'disk-full' | 'read-only' | 'io-error';

/** The remembered failure of an append. */
export interface WriteFailure {
  kind: WriteFailureKind;
  /** When the append failed, in milliseconds since the epoch. */
  at: number;
  /** The driver's code that told the kind (e.g. `SQLITE_FULL`, `53100`, `ENOSPC`). */
  code: string;
}

/** What readiness reads. */
export interface StoreWriteHealth {
  /** The last append's failure that means the store cannot write, while no later append succeeded; else undefined. */
  readonly failure: WriteFailure | undefined;
}

const KINDS: ReadonlyArray<[RegExp, WriteFailureKind]> = [
  [/^(SQLITE_FULL|53100|ENOSPC|EDQUOT|EFBIG)$/, 'disk-full'],
  [/^(SQLITE_READONLY.*|25006|EROFS)$/, 'read-only'],
  [/^(SQLITE_IOERR.*|58030|EIO)$/, 'io-error'],
];

/**
 * The kind of a failed append that means the store cannot take writes, with the code that told it,
 * or undefined for any other failure. Looks at `code` on the error and on up to 5 levels of `cause`.
 */
export function writeFailureKind(error: unknown): { kind: WriteFailureKind; code: string } | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      for (const [pattern, kind] of KINDS) if (pattern.test(code)) return { kind, code };
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Wraps `store` so that its appends update the returned `health`; everything else (reads,
 * subscriptions, snapshots, `close`, and the backend's own properties such as sqlite's `file`)
 * is the store's own. `now` is the clock of `WriteFailure.at` (default `Date.now`).
 */
export function monitorWrites<Store extends EventStore>(
  store: Store,
  now: () => number = Date.now,
): { store: Store; health: StoreWriteHealth } {
  let failure: WriteFailure | undefined;
  const monitored = Object.create(store) as Store;
  monitored.append = async (stream, events, options) => {
    try {
      const result = await store.append(stream, events, options);
      failure = undefined;
      return result;
    } catch (error) {
      const found = writeFailureKind(error);
      if (found) failure = { ...found, at: now() };
      throw error;
    }
  };
  return {
    store: monitored,
    health: {
      get failure() {
        return failure;
      },
    },
  };
}
