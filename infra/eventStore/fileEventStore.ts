/**
 * The file event store: one append-only JSON-lines log, `events.jsonl`, inside a folder.
 *
 * Layout of the folder (created if absent):
 * - `events.jsonl`: one `RecordedEvent` per line, in position order. The last line of each append
 *   also carries `"commit":true`; it is what makes the batch count on reopen (see Recovery).
 * - `lock`: the pid of the process that has the store open.
 * - `snapshots/`: the snapshot table, one file per snapshot (derived data, `infra/eventStore/snapshotTables.ts`).
 *
 * **Single process only.** The store keeps its index in memory and assumes it is the only writer,
 * so opening takes an exclusive lock: the `lock` file is created atomically (written aside, then
 * hard-linked into place) and holds the owner's pid. Opening fails with `StorageError` while that pid
 * is alive, including when it is this very process (open the store once and share it). A lock whose
 * pid is dead (the owner crashed) is taken over. Should the pid have been reused by an unrelated
 * process, the store stays locked: delete the `lock` file once sure no lineage-svc uses the folder.
 *
 * Appends: all lines of a batch are written with one `write` and `fsync`ed before `append`
 * resolves, so an acknowledged append survives a crash of the process or of the machine. Appends are
 * queued and applied one at a time; the in-memory index only learns of a batch once it is durable.
 *
 * Reads come from memory: the raw line of every event is kept, with per-stream lists of positions,
 * and parsed on each read (so callers get fresh objects they may mutate). Opening reads the whole
 * log, and memory grows with it: this store suits up to a few million events (a log of about
 * 1 GB); beyond that, use the sqlite or postgres store.
 *
 * Recovery, on open: a crash during an append can leave an incomplete tail, that is a last line with
 * no trailing newline or that does not parse, and complete lines of a batch whose `commit` line never
 * made it. Such a tail was never acknowledged: it is cut off (the file is truncated back to the end
 * of the last committed batch), reported in `recovery`, and logged as a warning. Anything else that
 * is wrong (a line in the middle that does not parse, positions or revisions out of sequence) is
 * corruption and opening fails with a `StorageError` naming the line, without touching the file.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import nodePath from 'node:path';
import { promisify } from 'node:util';
import { StorageError, ValidationError, errorMessage } from '../../src/errors.js';
import {
  appendNotifier,
  assertExpectedRevision,
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
import { fileSnapshotStore } from './snapshotTables.js';

const write = promisify(fs.write);
const fsync = promisify(fs.fsync);
const ftruncate = promisify(fs.ftruncate);

/** Name of the log inside the store's folder. */
export const FILE_EVENT_STORE_LOG = 'events.jsonl';
/** Name of the lock file inside the store's folder. */
export const FILE_EVENT_STORE_LOCK = 'lock';

/** The part of a pino logger the file store uses. */
export interface WarningLogger {
  warn(obj: object, msg: string): void;
}

export interface FileEventStoreOptions {
  /** Folder holding `events.jsonl` and `lock`; created (with its parents) if absent. */
  path: string;
  /** Clock used for `recorded_at`; injected by tests. */
  now?: () => Date;
  /**
   * Receives one `warn({ file, truncated_bytes, dropped_partial_line, dropped_events, reason }, 'EventStore:Recovered')`
   * when opening had to cut off an incomplete tail.
   */
  logger?: WarningLogger;
}

/** What opening had to repair. All zero / false when the log was clean. */
export interface FileEventStoreRecovery {
  /** Bytes cut off the end of `events.jsonl` (0 when nothing was cut). */
  truncated_bytes: number;
  /** True when the last line was incomplete (no trailing newline) or did not parse. */
  dropped_partial_line: boolean;
  /** Complete event lines dropped because their batch's `commit` line was missing. */
  dropped_events: number;
}

/** The file store: the port, plus what it repaired on open and where its log is. */
export interface FileEventStore extends EventStore {
  readonly backend: 'file';
  readonly recovery: FileEventStoreRecovery;
  /** Absolute path of `events.jsonl`. */
  readonly file: string;
}

/**
 * Opens (or creates) the file store in `options.path`, taking its lock and rebuilding the index.
 * @throws StorageError when the folder cannot be created or used (a regular file is in the way, no
 *   permission), when another live process holds the lock, or when the log is corrupt (the message
 *   names the line).
 */
export function createFileEventStore(options: FileEventStoreOptions): FileEventStore {
  const now = options.now ?? (() => new Date());
  const folder = nodePath.resolve(options.path);
  const file = nodePath.join(folder, FILE_EVENT_STORE_LOG);
  const lockFile = nodePath.join(folder, FILE_EVENT_STORE_LOCK);

  ensureFolder(folder);
  acquireLock(folder, lockFile);
  let fd: number;
  let loaded: LoadedLog;
  try {
    const existed = fs.existsSync(file);
    fd = fs.openSync(file, 'a+');
    if (!existed) fsyncFolder(folder);
    loaded = loadLog(file, fd);
  } catch (error) {
    releaseLock(lockFile);
    if (error instanceof StorageError) throw error;
    throw new StorageError(`file event store: cannot open "${file}": ${errorMessage(error)}`, { cause: error });
  }
  const { lines, streams, recovery } = loaded;
  let size = loaded.size;
  if (recovery.truncated_bytes > 0) {
    options.logger?.warn(
      {
        file,
        ...recovery,
        reason: 'cut off the incomplete tail of an append interrupted by a crash (never acknowledged)',
      },
      'EventStore:Recovered',
    );
  }

  const notifier = appendNotifier(250);
  const subscriptions = subscriptionRegistry();
  let closed = false;
  /** Set when a failed append could not be undone: the file may end in garbage, so stop writing. */
  let broken: StorageError | undefined;
  /** Appends run one after the other, in call order. */
  let queue: Promise<unknown> = Promise.resolve();

  function ensureOpen(): void {
    if (closed) throw new StorageError(`file event store "${folder}" is closed`);
  }

  function enqueue<T>(task: () => Promise<T>): Promise<T> {
    const result = queue.then(task);
    queue = result.catch(() => undefined);
    return result;
  }

  function event(position: number): RecordedEvent {
    return parseRecorded(lines[position - 1]!);
  }

  async function writeDurably(buffer: Buffer): Promise<void> {
    let offset = 0;
    while (offset < buffer.length) {
      const { bytesWritten } = await write(fd, buffer, offset, buffer.length - offset, null);
      offset += bytesWritten;
    }
    await fsync(fd);
  }

  const store: FileEventStore = {
    backend: 'file',
    snapshots: fileSnapshotStore(folder),
    recovery,
    file,

    async append(
      stream: string,
      events: readonly EventToAppend[],
      appendOptions: AppendOptions = {},
    ): Promise<AppendResult> {
      ensureOpen();
      if (events.length === 0) throw new ValidationError(`append to "${stream}" needs at least one event`);
      const serialized = events.map(serializeEvent);
      const streamJson = JSON.stringify(stream);
      return enqueue(async () => {
        ensureOpen();
        if (broken) throw broken;
        const existing = streams.get(stream);
        const current = existing === undefined ? -1 : existing.length - 1;
        assertExpectedRevision(stream, appendOptions.expectedRevision ?? 'any', current);
        const recordedAt = JSON.stringify(now().toISOString());
        const batch: string[] = [];
        for (let i = 0; i < serialized.length; i += 1) {
          const e = serialized[i]!;
          batch.push(
            `{"position":${lines.length + i + 1},"stream":${streamJson},"revision":${current + i + 1},` +
              `"type":${JSON.stringify(e.type)},"version":${e.version},"recorded_at":${recordedAt},` +
              `"data":${e.data},"metadata":${e.metadata}${i === serialized.length - 1 ? ',"commit":true' : ''}}`,
          );
        }
        const buffer = Buffer.from(`${batch.join('\n')}\n`, 'utf8');
        try {
          await writeDurably(buffer);
        } catch (error) {
          try {
            await ftruncate(fd, size);
            await fsync(fd);
          } catch (undoError) {
            broken = new StorageError(
              `file event store "${file}" could not undo a failed append (${errorMessage(undoError)}); reopen it to recover`,
              { cause: undoError },
            );
          }
          throw new StorageError(`file event store: cannot append to "${file}": ${errorMessage(error)}`, {
            cause: error,
          });
        }
        size += buffer.length;
        const positions = existing ?? [];
        for (const line of batch) {
          lines.push(line);
          positions.push(lines.length);
        }
        streams.set(stream, positions);
        notifier.notify();
        return { next_expected_revision: positions.length - 1, position: lines.length };
      });
    },

    async readStream(stream: string, readOptions: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
      ensureOpen();
      const positions = streams.get(stream) ?? [];
      const from = Math.max(0, Math.ceil(readOptions.fromRevision ?? 0));
      const to = Math.min(positions.length - 1, readOptions.toRevision ?? Number.MAX_SAFE_INTEGER);
      const end = Math.min(to + 1, from + (readOptions.maxCount ?? Number.MAX_SAFE_INTEGER));
      const result: RecordedEvent[] = [];
      for (let revision = from; revision < end; revision += 1) result.push(event(positions[revision]!));
      return result;
    },

    async streamRevision(stream: string): Promise<number> {
      ensureOpen();
      return (streams.get(stream)?.length ?? 0) - 1;
    },

    async readAll(readOptions: ReadAllOptions = {}): Promise<RecordedEvent[]> {
      ensureOpen();
      const after = Math.max(0, Math.floor(readOptions.after ?? 0));
      const end = Math.min(lines.length, after + (readOptions.maxCount ?? 1000));
      const result: RecordedEvent[] = [];
      for (let position = after + 1; position <= end; position += 1) result.push(event(position));
      return result;
    },

    async headPosition(): Promise<number> {
      ensureOpen();
      return lines.length;
    },

    subscribe(subscribeOptions: SubscribeOptions = {}): Subscription {
      ensureOpen();
      return subscriptions.track(pollingSubscription((o) => store.readAll(o), notifier.wait, subscribeOptions));
    },

    /** Ends open subscriptions, waits for the append in progress, closes the log and releases the lock. Idempotent. */
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await subscriptions.closeAll();
      await queue;
      try {
        fs.closeSync(fd);
      } finally {
        releaseLock(lockFile);
      }
    },
  };
  return store;
}

interface LoadedLog {
  lines: string[];
  streams: Map<string, number[]>;
  size: number;
  recovery: FileEventStoreRecovery;
}

/** Reads the whole log, checks it, and cuts off an incomplete tail. */
function loadLog(file: string, fd: number): LoadedLog {
  const buffer = fs.readFileSync(file);
  const lines: string[] = [];
  const streams = new Map<string, number[]>();
  let committedLines = 0;
  let committedEnd = 0;
  let droppedPartialLine = false;
  let start = 0;
  let lineNumber = 0;
  while (start < buffer.length) {
    const newline = buffer.indexOf(10, start);
    if (newline === -1) {
      droppedPartialLine = true;
      break;
    }
    lineNumber += 1;
    const text = buffer.toString('utf8', start, newline);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      if (newline + 1 === buffer.length) {
        droppedPartialLine = true;
        break;
      }
      throw new StorageError(
        `file event store: "${file}" is corrupt: line ${lineNumber} is not valid JSON (${errorMessage(error)}); ` +
          'the lines after it are intact, so this is not a crash during an append: restore the file from a backup',
        { cause: error },
      );
    }
    const problem = checkLine(value, lines.length + 1, streams);
    if (problem !== undefined) {
      throw new StorageError(`file event store: "${file}" is corrupt: line ${lineNumber} ${problem}`);
    }
    const line = value as { stream: string; commit?: unknown };
    lines.push(text);
    const positions = streams.get(line.stream) ?? [];
    positions.push(lines.length);
    streams.set(line.stream, positions);
    start = newline + 1;
    if (line.commit === true) {
      committedLines = lines.length;
      committedEnd = start;
    }
  }
  const droppedEvents = lines.length - committedLines;
  while (lines.length > committedLines) {
    const dropped = JSON.parse(lines.pop()!) as { stream: string };
    const positions = streams.get(dropped.stream)!;
    positions.pop();
    if (positions.length === 0) streams.delete(dropped.stream);
  }
  const truncatedBytes = buffer.length - committedEnd;
  if (truncatedBytes > 0) {
    fs.ftruncateSync(fd, committedEnd);
    fs.fsyncSync(fd);
  }
  return {
    lines,
    streams,
    size: committedEnd,
    recovery: {
      truncated_bytes: truncatedBytes,
      dropped_partial_line: droppedPartialLine,
      dropped_events: droppedEvents,
    },
  };
}

/** What is wrong with a parsed line, or undefined when it is the event expected at `position`. */
function checkLine(value: unknown, position: number, streams: Map<string, number[]>): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'is not a JSON object';
  const line = value as Record<string, unknown>;
  if (typeof line.stream !== 'string') return 'has no "stream"';
  if (typeof line.type !== 'string') return 'has no "type"';
  if (typeof line.version !== 'number') return 'has no "version"';
  if (typeof line.recorded_at !== 'string') return 'has no "recorded_at"';
  if (typeof line.metadata !== 'object' || line.metadata === null) return 'has no "metadata"';
  if (!('data' in line)) return 'has no "data"';
  if (line.position !== position) return `has position ${String(line.position)}, expected ${position}`;
  const revision = streams.get(line.stream)?.length ?? 0;
  if (line.revision !== revision) {
    return `has revision ${String(line.revision)} in stream "${line.stream}", expected ${revision}`;
  }
  return undefined;
}

/** Turns a stored line back into a RecordedEvent (dropping the `commit` marker). */
function parseRecorded(line: string): RecordedEvent {
  const value = JSON.parse(line) as RecordedEvent;
  return {
    type: value.type,
    version: value.version,
    data: value.data,
    metadata: value.metadata,
    stream: value.stream,
    revision: value.revision,
    position: value.position,
    recorded_at: value.recorded_at,
  };
}

function ensureFolder(folder: string): void {
  try {
    fs.mkdirSync(folder, { recursive: true });
  } catch (error) {
    throw new StorageError(`file event store: cannot create the folder "${folder}": ${errorMessage(error)}`, {
      cause: error,
    });
  }
  if (!fs.statSync(folder).isDirectory()) {
    throw new StorageError(`file event store: "${folder}" is not a folder`);
  }
  try {
    fs.accessSync(folder, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK);
  } catch (error) {
    throw new StorageError(`file event store: no permission to read and write in "${folder}"`, { cause: error });
  }
}

function fsyncFolder(folder: string): void {
  const fd = fs.openSync(folder, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** True when a process with this pid exists (EPERM means it exists but is not ours). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLockPid(lockFile: string): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(lockFile, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Creates `lock` holding our pid, atomically: written to a unique file first, then hard-linked to
 * `lock` (link fails if `lock` exists), so a lock file is never seen empty.
 */
function acquireLock(folder: string, lockFile: string): void {
  const aside = `${lockFile}.${process.pid}.${randomUUID()}`;
  try {
    fs.writeFileSync(aside, `${process.pid}\n`);
  } catch (error) {
    throw new StorageError(`file event store: cannot write in "${folder}": ${errorMessage(error)}`, { cause: error });
  }
  try {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        fs.linkSync(aside, lockFile);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new StorageError(`file event store: cannot create the lock "${lockFile}": ${errorMessage(error)}`, {
            cause: error,
          });
        }
      }
      const holder = readLockPid(lockFile);
      if (holder !== undefined && isAlive(holder)) {
        throw new StorageError(
          `file event store: "${folder}" is in use by process ${holder}${holder === process.pid ? ' (this process)' : ''}; ` +
            `the file store allows one process at a time (lock file "${lockFile}")`,
        );
      }
      // The owner is dead: the lock is stale, take it over.
      try {
        fs.unlinkSync(lockFile);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
          throw new StorageError(
            `file event store: cannot remove the stale lock "${lockFile}": ${errorMessage(error)}`,
            {
              cause: error,
            },
          );
        }
      }
    }
    throw new StorageError(`file event store: could not take the lock "${lockFile}" (another process keeps taking it)`);
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

/** Removes `lock` if it is still ours. */
function releaseLock(lockFile: string): void {
  if (readLockPid(lockFile) === process.pid) fs.rmSync(lockFile, { force: true });
}
