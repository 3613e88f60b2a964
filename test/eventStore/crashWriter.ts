/**
 * Child process of `crash.test.ts`: opens the file or sqlite store in a folder and appends batches
 * of 7 events to one stream, forever, each with the expected revision of the previous one. After
 * each acknowledged append it prints its `next_expected_revision` on a line of stdout. The parent
 * kills it with SIGKILL at some point, typically in the middle of an append.
 *
 * Usage: node --import tsx test/eventStore/crashWriter.ts <file|sqlite> <folder>
 *
 * Each event's data carries its own revision and a checksum of its filler, so the parent can check
 * that payloads are intact.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EventStore, EventToAppend } from '../../src/eventStore.js';
import { createFileEventStore } from '../../infra/eventStore/fileEventStore.js';
import { createSqliteEventStore } from '../../infra/eventStore/sqliteEventStore.js';

/** The stream the writer appends to. */
export const CRASH_STREAM = 'graph-crash';
/** Events per append. */
export const CRASH_BATCH = 7;

/** The data of the event at `revision`: deterministic, so the parent can recompute it. */
export function crashEventData(revision: number): { revision: number; filler: string; sha256: string } {
  const filler = `revision ${revision} `.repeat(40 + (revision % 50));
  return { revision, filler, sha256: createHash('sha256').update(filler).digest('hex') };
}

async function main(): Promise<void> {
  const [backend, folder] = process.argv.slice(2);
  if ((backend !== 'file' && backend !== 'sqlite') || folder === undefined) {
    process.stderr.write('usage: crashWriter.ts <file|sqlite> <folder>\n');
    process.exit(2);
  }
  const store: EventStore =
    backend === 'file' ? createFileEventStore({ path: folder }) : createSqliteEventStore({ path: folder });
  let revision = await store.streamRevision(CRASH_STREAM);
  for (;;) {
    const batch: EventToAppend[] = Array.from({ length: CRASH_BATCH }, (_, i) => ({
      type: 'CrashTestEvent',
      version: 1,
      data: crashEventData(revision + 1 + i),
      metadata: { event_id: `crash-${revision + 1 + i}`, actor: 'crash-writer' },
    }));
    const result = await store.append(CRASH_STREAM, batch, { expectedRevision: revision });
    revision = result.next_expected_revision;
    process.stdout.write(`${revision}\n`);
  }
}

// Only when run as a script, not when the test imports the helpers above.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await main();
}
