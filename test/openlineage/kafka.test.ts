import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config.js';
import { describe, it } from 'node:test';
import { Kafka } from 'kafkajs';
import { createMemoryEventStore } from '../../infra/eventStore/memoryEventStore.js';
import {
  decideMessage,
  kafkaTransportConfig,
  nextCommitOffset,
  processBatch,
  startOpenLineageConsumer,
} from '../../infra/kafka/openLineageConsumer.js';
import { StorageError } from '../../src/errors.js';
import type { EventStore } from '../../src/eventStore.js';
import { createOpenLineageIngestor } from '../../src/openlineage/ingestion.js';
import { runEvent } from './helpers.js';

const message = (offset: number, value: string | Buffer | null) => ({
  offset: String(offset),
  key: Buffer.from('run:ns/job'),
  value: typeof value === 'string' ? Buffer.from(value) : value,
});

describe('Kafka transport decisions (no broker)', () => {
  it('ingests JSON objects and dead-letters everything unparseable', () => {
    assert.equal(decideMessage({ value: Buffer.from(JSON.stringify(runEvent({ job: 'a' }))) }).action, 'ingest');
    for (const [value, reason] of [
      [null, /empty/],
      [Buffer.from('{not json'), /not JSON/],
      [Buffer.from('[1,2]'), /not a JSON object/],
      [Buffer.from([0xff, 0xfe, 0x00]), /UTF-8/],
      [Buffer.alloc(1024 * 1024 + 1, 0x20), /over the/],
    ] as const) {
      const decision = decideMessage({ value });
      assert.equal(decision.action, 'dead-letter');
      assert.match((decision as { reason: string }).reason, reason);
    }
  });

  it('commits only the finished prefix of a batch', () => {
    assert.equal(nextCommitOffset([]), null);
    assert.equal(
      nextCommitOffset([
        { offset: '10', outcome: 'stored' },
        { offset: '11', outcome: 'dead-lettered' },
        { offset: '12', outcome: 'duplicate' },
      ]),
      '13',
    );
    assert.equal(
      nextCommitOffset([
        { offset: '10', outcome: 'stored' },
        { offset: '11', outcome: 'pending' },
        { offset: '12', outcome: 'stored' },
      ]),
      '11',
    );
    assert.equal(nextCommitOffset([{ offset: '7', outcome: 'pending' }]), null);
  });

  it('processes a batch: one append, dead-letters with reasons, commit after both', async () => {
    const store = createMemoryEventStore();
    const sent: Array<{ headers: Record<string, string> }> = [];
    const batch = {
      topic: 'openlineage.events',
      partition: 0,
      messages: [
        message(5, JSON.stringify(runEvent({ job: 'a' }))),
        message(6, '{oops'),
        message(7, JSON.stringify({ ...runEvent({ job: 'b' }), job: { namespace: 'n' } })),
        message(8, JSON.stringify(runEvent({ job: 'a' }))),
      ],
    };
    const ingestor = createOpenLineageIngestor({ store });
    const { outcomes, commit } = await processBatch(ingestor, batch, async (records) => {
      sent.push(...records);
    });
    assert.deepEqual(
      outcomes.map((entry) => entry.outcome),
      ['stored', 'dead-lettered', 'dead-lettered', 'duplicate'],
    );
    assert.equal(commit, '9');
    assert.equal(await store.headPosition(), 1);
    assert.equal(sent.length, 2);
    assert.match(
      sent.map((record) => record.headers['lineage-svc.error']).join('|'),
      /not JSON.*\|rejected: job\.name/,
    );
    assert.equal(sent[0]!.headers['lineage-svc.source'], 'openlineage.events/0@6');
    // Redelivery of the same batch stores nothing new.
    const redelivered = await processBatch(ingestor, batch, async () => undefined);
    assert.deepEqual(
      redelivered.outcomes.map((entry) => entry.outcome),
      ['duplicate', 'dead-lettered', 'dead-lettered', 'duplicate'],
    );
    assert.equal(await store.headPosition(), 1);
    // Redelivered to another process (an ingestor that remembers nothing): the store still refuses it.
    const elsewhere = await processBatch(createOpenLineageIngestor({ store }), batch, async () => undefined);
    assert.deepEqual(
      elsewhere.outcomes.map((entry) => entry.outcome),
      ['duplicate', 'dead-lettered', 'dead-lettered', 'duplicate'],
    );
    assert.equal(await store.headPosition(), 1);
  });

  it('commits nothing when the append fails', async () => {
    const failing = {
      ...createMemoryEventStore(),
      append: async () => Promise.reject(new StorageError('disk full')),
    } as unknown as EventStore;
    let sent = 0;
    await assert.rejects(
      processBatch(
        createOpenLineageIngestor({ store: failing }),
        { topic: 't', partition: 0, messages: [message(1, JSON.stringify(runEvent({ job: 'a' })))] },
        async () => {
          sent += 1;
        },
      ),
      StorageError,
    );
    assert.equal(sent, 0);
  });

  it('takes its settings from the parsed configuration, off without brokers', () => {
    assert.equal(kafkaTransportConfig(loadConfig({}).openLineageKafka), null);
    assert.deepEqual(
      kafkaTransportConfig(loadConfig({ LINEAGE_SVC_OPENLINEAGE_KAFKA_BROKERS: 'b1:9092, b2:9092' }).openLineageKafka),
      {
        brokers: ['b1:9092', 'b2:9092'],
        topic: 'openlineage.events',
        groupId: 'lineage-svc-openlineage',
        sasl: null,
        ssl: false,
        deadLetterTopic: 'openlineage.events.dlq',
      },
    );
    const sasl = kafkaTransportConfig(
      loadConfig({
        LINEAGE_SVC_OPENLINEAGE_KAFKA_BROKERS: 'b:9092',
        LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
        LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_USERNAME: 'u',
        LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_PASSWORD: 'p',
      }).openLineageKafka,
    );
    assert.equal(sasl?.sasl?.mechanism, 'scram-sha-512');
    assert.equal(sasl?.ssl, true, 'SASL credentials only travel over TLS');
  });
});

describe('Kafka transport against a broker', () => {
  it('consumes, stores and dead-letters', async (t) => {
    const brokers = process.env.LINEAGE_SVC_TEST_KAFKA_BROKERS;
    if (!brokers) {
      t.skip('LINEAGE_SVC_TEST_KAFKA_BROKERS not set: Kafka transport not tested against a broker');
      return;
    }
    const suffix = randomUUID().slice(0, 8);
    const config = {
      brokers: brokers.split(','),
      topic: `ol-test-${suffix}`,
      groupId: `ol-test-${suffix}`,
      sasl: null,
      ssl: false,
      deadLetterTopic: `ol-test-${suffix}.dlq`,
    };
    const kafka = new Kafka({ clientId: 'lineage-svc-test', brokers: config.brokers });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [{ topic: config.topic }, { topic: config.deadLetterTopic }],
      waitForLeaders: true,
    });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: config.topic,
      messages: [
        { key: 'run:n/a', value: JSON.stringify(runEvent({ job: 'a' })) },
        { key: 'x', value: 'not json' },
      ],
    });
    const store = createMemoryEventStore();
    const consumer = await startOpenLineageConsumer(config, { ingestor: createOpenLineageIngestor({ store }) });
    const deadline = Date.now() + 30_000;
    while ((await store.headPosition()) < 1 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    await consumer.stop();
    assert.equal(await store.headPosition(), 1);
    const offsets = await admin.fetchTopicOffsets(config.deadLetterTopic);
    assert.equal(offsets[0]?.high, '1', 'one message dead-lettered');
    await producer.disconnect();
    await admin.deleteTopics({ topics: [config.topic, config.deadLetterTopic] });
    await admin.disconnect();
  });
});
