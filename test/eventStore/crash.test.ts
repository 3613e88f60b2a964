/**
 * Crash test of the durable single-node stores (file, sqlite): a child process
 * (`crashWriter.ts`) appends batches of 7 events and prints each acknowledged revision; it is
 * killed with SIGKILL, usually in the middle of an append, after at least 30 acknowledgements. The
 * store is then reopened here and must hold every acknowledged event, whole batches only, with
 * revisions 0..n-1 and intact payloads. Two rounds per backend, so that the second child also
 * appends to a store recovered from the first crash.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import type { EventStore } from '../../src/eventStore.js';
import { createFileEventStore } from '../../infra/eventStore/fileEventStore.js';
import { createSqliteEventStore } from '../../infra/eventStore/sqliteEventStore.js';
import { CRASH_BATCH, CRASH_STREAM, crashEventData } from './crashWriter.js';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ACKNOWLEDGEMENTS_BEFORE_KILL = 30;

/** Runs the writer until it has acknowledged enough appends, SIGKILLs it, and returns the acknowledged revisions. */
function runAndKill(backend: 'file' | 'sqlite', folder: string): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/eventStore/crashWriter.ts', backend, folder], {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acknowledged: number[] = [];
    let pending = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) acknowledged.push(Number(line));
      if (acknowledged.length >= ACKNOWLEDGEMENTS_BEFORE_KILL && child.exitCode === null && !child.killed)
        child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(acknowledged);
      else reject(new Error(`the crash writer exited by itself (code ${code}, signal ${signal}): ${stderr}`));
    });
  });
}

function open(backend: 'file' | 'sqlite', folder: string): EventStore {
  return backend === 'file' ? createFileEventStore({ path: folder }) : createSqliteEventStore({ path: folder });
}

describe('crash during appends', () => {
  for (const backend of ['file', 'sqlite'] as const) {
    it(
      `${backend}: every acknowledged batch survives SIGKILL and no batch is partial`,
      { timeout: 60_000 },
      async () => {
        const folder = fs.mkdtempSync(path.join(os.tmpdir(), `lineage-svc-crash-${backend}-`));
        try {
          let lastAcknowledged = -1;
          for (let round = 1; round <= 2; round += 1) {
            const acknowledged = await runAndKill(backend, folder);
            assert.ok(acknowledged.length >= ACKNOWLEDGEMENTS_BEFORE_KILL);
            // The writer starts from the stream's revision after recovery: whole batches, past what was acknowledged.
            assert.equal((acknowledged[0]! + 1) % CRASH_BATCH, 0);
            assert.ok(acknowledged[0]! > lastAcknowledged);
            for (let i = 1; i < acknowledged.length; i += 1)
              assert.equal(acknowledged[i], acknowledged[i - 1]! + CRASH_BATCH);
            lastAcknowledged = acknowledged[acknowledged.length - 1]!;

            const store = open(backend, folder);
            try {
              const events = await store.readStream(CRASH_STREAM);
              assert.ok(
                events.length - 1 >= lastAcknowledged,
                `round ${round}: revision ${lastAcknowledged} was acknowledged, the stream ends at ${events.length - 1}`,
              );
              assert.equal(
                events.length % CRASH_BATCH,
                0,
                `round ${round}: ${events.length} events is not a whole number of batches`,
              );
              assert.deepEqual(
                events.map((e) => e.revision),
                events.map((_, i) => i),
              );
              for (const event of events) {
                assert.deepEqual(event.data, crashEventData(event.revision));
                assert.equal(event.metadata.event_id, `crash-${event.revision}`);
              }
              const all = await store.readAll({ maxCount: events.length + 1 });
              assert.deepEqual(
                all.map((e) => e.position),
                events.map((_, i) => i + 1),
              );
            } finally {
              await store.close();
            }
          }
        } finally {
          fs.rmSync(folder, { recursive: true, force: true });
        }
      },
    );
  }
});
