/**
 * The SQLite store answers `readAll` from the rows it has just appended (`recentRows` in
 * infra/eventStore/sqliteEventStore.ts): what it answers must be what the database holds, including
 * when another store (another process) appends to the same file in between, and when the rows it
 * remembers run out in the middle of a page. Rows it reads from the database are read in slices of
 * about `READ_SLICE_CHARACTERS`, the event loop running between them (issue 23).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { createSqliteEventStore, READ_SLICE_CHARACTERS } from '../../infra/eventStore/sqliteEventStore.js';
import { anEvent } from './contract.js';

describe('sqlite store: reads of its own recent appends', () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lineage-svc-recent-rows-'));
  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('answers what a store that appended nothing reads from the database, page by page', async () => {
    const writer = createSqliteEventStore({ path: folder });
    const other = createSqliteEventStore({ path: folder });
    const reader = createSqliteEventStore({ path: folder });
    try {
      await writer.append('s-a', [anEvent('a1'), anEvent('a2'), anEvent('a3')]);
      await other.append('s-b', [anEvent('b1'), anEvent('b2')]);
      await writer.append('s-a', [anEvent('a4'), anEvent('a5', { note: 'x'.repeat(70_000) })]);
      await writer.append('s-c', [anEvent('c1')], { expectedRevision: 'no_stream' });
      const fromDatabase = await reader.readAll({ maxCount: 100 });
      assert.equal(fromDatabase.length, 8);
      assert.deepEqual(await writer.readAll({ maxCount: 100 }), fromDatabase);
      for (const after of [0, 1, 2, 3, 4, 5, 6, 7, 8])
        for (const maxCount of [1, 2, 3, 5])
          assert.deepEqual(
            await writer.readAll({ after, maxCount }),
            fromDatabase.slice(after, after + maxCount),
            `readAll after ${after}, at most ${maxCount}`,
          );
      assert.deepEqual(
        fromDatabase.map((event) => [event.stream, event.revision]),
        [
          ['s-a', 0],
          ['s-a', 1],
          ['s-a', 2],
          ['s-b', 0],
          ['s-b', 1],
          ['s-a', 3],
          ['s-a', 4],
          ['s-c', 0],
        ],
      );
    } finally {
      await Promise.all([writer.close(), other.close(), reader.close()]);
    }
  });

  it('answers events it read back as copies: changing one changes no later read', async () => {
    const store = createSqliteEventStore({ path: folder });
    try {
      const { position } = await store.append('s-d', [anEvent('d1')]);
      const [first] = await store.readAll({ after: position - 1, maxCount: 1 });
      (first!.data as { graph_id: string }).graph_id = 'changed';
      const [second] = await store.readAll({ after: position - 1, maxCount: 1 });
      assert.equal((second!.data as { graph_id: string }).graph_id, 'g-contract');
    } finally {
      await store.close();
    }
  });

  it('answers the value of data appended both as text and as a value, frozen; the database answers its text parsed', async () => {
    const store = createSqliteEventStore({ path: folder });
    const reader = createSqliteEventStore({ path: folder });
    try {
      const event = anEvent('e1');
      const data = event.data as { nodes: Array<{ attributes: Record<string, unknown> }> };
      const { position } = await store.append('s-e', [{ ...event, dataJson: JSON.stringify(data) }, anEvent('e2')]);
      const [first, second] = await store.readAll({ after: position - 2, maxCount: 2 });
      assert.equal(first!.data, data);
      assert.ok(Object.isFrozen(data) && Object.isFrozen(data.nodes) && Object.isFrozen(data.nodes[0]!.attributes));
      assert.throws(() => {
        data.nodes[0]!.attributes.partitions = 7;
      }, TypeError);
      assert.ok(!Object.isFrozen(second!.data));
      assert.deepEqual(await reader.readAll({ after: position - 2, maxCount: 2 }), [first, second]);
    } finally {
      await Promise.all([store.close(), reader.close()]);
    }
  });

  it('reads large rows from the database in slices, the event loop running between them', async () => {
    const writer = createSqliteEventStore({ path: folder });
    const reader = createSqliteEventStore({ path: folder });
    // What better-sqlite3 hands over, per turn of the event loop: any statement method returning rows.
    const statementPrototype = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as Record<
      string,
      (...parameters: unknown[]) => unknown
    >;
    const { all, iterate } = statementPrototype;
    let turn = 0;
    const charactersPerTurn = new Map<number, number>();
    const count = (row: unknown) => {
      const text = Array.isArray(row) ? row.filter((value) => typeof value === 'string').join('') : '';
      charactersPerTurn.set(turn, (charactersPerTurn.get(turn) ?? 0) + text.length);
    };
    try {
      const { position } = await writer.append('s-large', [
        ...Array.from({ length: 8 }, (_, index) => anEvent(`large-${index}`, { note: 'x'.repeat(400_000) })),
      ]);
      const fromDatabase = await reader.readAll({ after: position - 8, maxCount: 8 });
      statementPrototype.all = function (this: unknown, ...parameters: unknown[]) {
        const rows = all!.apply(this, parameters) as unknown[];
        rows.forEach(count);
        return rows;
      };
      statementPrototype.iterate = function* (this: unknown, ...parameters: unknown[]) {
        for (const row of iterate!.apply(this, parameters) as Iterable<unknown>) {
          count(row);
          yield row;
        }
      };
      let reading = true;
      const spin = () => {
        turn += 1;
        if (reading) setImmediate(spin);
      };
      setImmediate(spin);
      // A store that appended nothing reads every row from the database (it remembers none of them).
      const other = createSqliteEventStore({ path: folder });
      let sliced;
      try {
        sliced = await other.readAll({ after: position - 8, maxCount: 8 });
      } finally {
        reading = false;
        await other.close();
      }
      assert.deepEqual(sliced, fromDatabase);
      const largest = Math.max(...charactersPerTurn.values());
      assert.ok(
        largest < READ_SLICE_CHARACTERS + 500_000,
        `at most one slice and one row read per turn of the event loop: ${JSON.stringify([...charactersPerTurn])}`,
      );
    } finally {
      statementPrototype.all = all!;
      statementPrototype.iterate = iterate!;
      await Promise.all([writer.close(), reader.close()]);
    }
  });
});
