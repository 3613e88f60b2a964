/**
 * The Kafka transport's record preparation (infra/kafka/openLineagePrepare.ts): the worker pool answers
 * what the calling thread would (dead-letter reasons, rejections, prepared events), in record order
 * across its workers; and events ingested prepared (`ingestPrepared`) are stored, deduped and answered
 * exactly as `ingest` stores, dedupes and answers them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createMemoryEventStore } from '../../infra/eventStore/memoryEventStore.js';
import { createSqliteEventStore } from '../../infra/eventStore/sqliteEventStore.js';
import {
  PREPARE_MIN_RECORDS_PER_WORKER,
  createOpenLineagePreparePool,
  packValues,
  prepareRecordsHere,
  unpackValues,
  withoutData,
} from '../../infra/kafka/openLineagePrepare.js';
import { MAX_EVENT_BYTES } from '../../src/openlineage/ingest.js';
import { createOpenLineageIngestor, prepareOpenLineageEvent } from '../../src/openlineage/ingestion.js';
import { runEvent } from './helpers.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const runId = (n: number) => `0190a1b2-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;

/** Record values of every kind: good events, duplicates, bad JSON, bad UTF-8, empty, null, too big, not an object, rejected. */
function values(count: number): Array<Uint8Array | null> {
  const odd: Array<Uint8Array | null> = [
    bytes('{oops'),
    Uint8Array.from([0x7b, 0xff, 0x7d]),
    new Uint8Array(0),
    null,
    new Uint8Array(MAX_EVENT_BYTES + 1).fill(0x20),
    bytes('[1,2]'),
    bytes(JSON.stringify({ ...runEvent({ job: 'bad' }), job: { namespace: 'n' } })),
    bytes(JSON.stringify({ ...runEvent({ job: 'no-time', runId: 'not-a-uuid' }), eventTime: '2026-01-01T00:00:00' })),
  ];
  return Array.from({ length: count }, (_, index) =>
    index % 50 < odd.length
      ? odd[index % 50]!
      : bytes(JSON.stringify(runEvent({ job: `j${index % 7}`, runId: runId(index % 900) }))),
  );
}

describe('OpenLineage Kafka record preparation', () => {
  const pool = createOpenLineagePreparePool(2);
  after(() => pool.close());

  it('packs and unpacks values, null and empty ones included', () => {
    const input = [bytes('ab'), null, new Uint8Array(0), bytes('cde')];
    assert.deepEqual(
      unpackValues(packValues(input)).map((value) => (value === null ? null : Buffer.from(value).toString())),
      ['ab', null, '', 'cde'],
    );
  });

  it('answers on its workers what the calling thread answers, in record order', async () => {
    for (const count of [0, 1, 9, PREPARE_MIN_RECORDS_PER_WORKER * 2 + 77]) {
      const input = values(count);
      const here = await prepareRecordsHere(input);
      // Here, each prepared event carries its data's value too (the text parsed); a worker leaves it out.
      for (const record of here)
        if (record.action === 'ingest' && record.prepared.ok)
          assert.deepEqual(record.prepared.data, JSON.parse(record.prepared.dataJson));
      assert.deepEqual(await pool.prepare(input), here.map(withoutData), `${count} records`);
    }
    const answered = await pool.prepare(values(60));
    assert.deepEqual(
      answered
        .slice(0, 8)
        .map((record) =>
          record.action === 'ingest'
            ? record.prepared.ok
              ? 'ok'
              : 'rejected'
            : record.reason.replace(/^(message value is not JSON):.*$/, '$1'),
        ),
      [
        'message value is not JSON',
        'message value is not valid UTF-8',
        'empty message value',
        'empty message value',
        `message value is ${MAX_EVENT_BYTES + 1} bytes, over the ${MAX_EVENT_BYTES}-byte limit`,
        'message value is not a JSON object (one OpenLineage event per message)',
        'rejected',
        'ok',
      ],
    );
  });

  it('stores prepared events as ingest stores the same bodies: same results, same data, same dedupe', async () => {
    const bodies = [
      runEvent({ job: 'a', runId: runId(1) }),
      runEvent({ job: 'a', runId: runId(1) }),
      { ...runEvent({ job: 'b' }), job: { namespace: 'n' } },
      { ...runEvent({ job: 'c', runId: 'not-a-uuid' }), eventTime: '2026-01-01T00:00:00' },
    ];
    const plain = createMemoryEventStore();
    const prepared = createMemoryEventStore();
    const viaIngest = await createOpenLineageIngestor({ store: plain }).ingest(bodies, { actor: 'test' });
    const ingestor = createOpenLineageIngestor({ store: prepared });
    const viaPrepared = await ingestor.ingestPrepared(
      bodies.map((body) => prepareOpenLineageEvent(body)),
      { actor: 'test' },
    );
    assert.deepEqual(viaPrepared, viaIngest);
    assert.deepEqual(
      viaPrepared.map((result) => result.status),
      ['accepted', 'duplicate', 'rejected', 'accepted'],
    );
    const stored = async (store: ReturnType<typeof createMemoryEventStore>) =>
      (await store.readAll()).map((event) => ({ stream: event.stream, type: event.type, data: event.data }));
    assert.deepEqual(await stored(prepared), await stored(plain));
    const again = await ingestor.ingestPrepared([prepareOpenLineageEvent(bodies[0])]);
    assert.equal(again[0]!.status, 'duplicate');
    assert.equal((await prepared.readAll()).length, 2);
  });

  it('hands the sqlite store the data of events prepared here: its reads answer that value, frozen, equal to the text stored', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'lineage-svc-kafka-prepare-'));
    const store = createSqliteEventStore({ path: folder });
    const reader = createSqliteEventStore({ path: folder });
    try {
      const records = await prepareRecordsHere([
        bytes(JSON.stringify(runEvent({ job: 'a', runId: runId(1), inputs: [{ namespace: 'n', name: 'in' }] }))),
        bytes(JSON.stringify(runEvent({ job: 'b', runId: runId(2) }))),
      ]);
      const prepared = records.map((record) => (record.action === 'ingest' ? record.prepared : assert.fail()));
      await createOpenLineageIngestor({ store }).ingestPrepared(prepared, { actor: 'test' });
      const read = await store.readAll();
      assert.deepEqual(
        read.map((event) => event.data === (prepared[read.indexOf(event)] as { data?: unknown }).data),
        [true, true],
      );
      const data = read[0]!.data as { event: { inputs: Array<{ name: string }> } };
      assert.ok(Object.isFrozen(data) && Object.isFrozen(data.event.inputs[0]));
      assert.throws(() => {
        data.event.inputs[0]!.name = 'changed';
      }, TypeError);
      // What another process reads from the database is the same.
      assert.deepEqual(await reader.readAll(), read);
    } finally {
      await Promise.all([store.close(), reader.close()]);
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
