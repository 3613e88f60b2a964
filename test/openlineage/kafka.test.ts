import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config.js';
import { describe, it } from 'node:test';
import type { Kafka } from 'kafkajs';
import { freePort, SASL_USER } from '../../infra/kafka/broker.js';
import { createMemoryEventStore } from '../../infra/eventStore/memoryEventStore.js';
import {
  decideMessage,
  kafkaTransportConfig,
  nextCommitOffset,
  processBatch,
  startOpenLineageConsumer,
  type KafkaTransportConfig,
} from '../../infra/kafka/openLineageConsumer.js';
import { StorageError } from '../../src/errors.js';
import type { EventStore } from '../../src/eventStore.js';
import { createOpenLineageIngestor } from '../../src/openlineage/ingestion.js';
import { eventually } from '../helpers/wait.js';
import { startApi } from '../http/helpers.js';
import {
  createTopicWith,
  freshKafkaTransport,
  kafkaClient,
  kafkaSkip,
  logged,
  numberedEvent,
  produceJson,
  QUICK_GROUP,
  recordingLogger,
  storedOpenLineage,
  useKafkaBroker,
} from '../kafka/helpers.js';
import { startApiProcess, storeTarget, type ApiProcess } from '../scaling/helpers.js';
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

const skip = await kafkaSkip();
const broker = useKafkaBroker(skip);
const freshTransport = (overrides: Partial<KafkaTransportConfig> = {}) => freshKafkaTransport(broker(), overrides);

describe('Kafka transport against a real broker', { skip }, () => {
  it('stores, dead-letters with reasons, commits after the append; a new consumer resumes from the committed offset', async () => {
    const config = freshTransport();
    const kafka = kafkaClient(broker());
    const admin = kafka.admin();
    const producer = kafka.producer();
    await Promise.all([admin.connect(), producer.connect()]);
    const store = createMemoryEventStore();
    try {
      await admin.createTopics({ topics: [{ topic: config.topic }], waitForLeaders: true });
      await producer.send({
        topic: config.topic,
        messages: [
          { key: 'run:jobs/a', value: JSON.stringify(numberedEvent(1)) },
          { key: 'x', value: 'not json' },
          { key: 'run:jobs/b', value: JSON.stringify({ ...numberedEvent(2), job: { namespace: 'n' } }) },
          { key: 'run:jobs/c', value: JSON.stringify(numberedEvent(3)) },
          { key: 'run:jobs/a', value: JSON.stringify(numberedEvent(1)) },
        ],
      });
      const first = await startOpenLineageConsumer(config, {
        ingestor: createOpenLineageIngestor({ store }),
        groupTimeouts: QUICK_GROUP,
      });
      await eventually('two events stored', async () =>
        (await storedOpenLineage(store)).keys.size === 2 ? true : undefined,
      );
      // Committed: the offset after the last message, read back from the broker.
      await eventually('offset 5 committed', async () => {
        const [partition] = (await admin.fetchOffsets({ groupId: config.groupId, topics: [config.topic] }))[0]!
          .partitions;
        return partition?.offset === '5' ? true : undefined;
      });
      await first.stop();
      const deadLetters = await readAll(kafka, config.deadLetterTopic, 2);
      assert.deepEqual(
        deadLetters.map((record) => record.headers['lineage-svc.source']),
        [`${config.topic}/0@1`, `${config.topic}/0@2`],
      );
      assert.match(deadLetters[0]!.headers['lineage-svc.error']!, /not JSON/);
      assert.match(deadLetters[1]!.headers['lineage-svc.error']!, /rejected: job\.name/);
      assert.equal(deadLetters[0]!.value, 'not json', 'the original value is kept');

      // Three more while no one consumes; a new consumer (another process: an ingestor that remembers nothing) reads only those.
      await produceJson(producer, config.topic, [numberedEvent(4), numberedEvent(5), numberedEvent(6)]);
      const second = await startOpenLineageConsumer(config, {
        ingestor: createOpenLineageIngestor({ store }),
        groupTimeouts: QUICK_GROUP,
      });
      await eventually('five events stored', async () =>
        (await storedOpenLineage(store)).keys.size === 5 ? true : undefined,
      );
      await eventually('offset 8 committed', async () => {
        const [partition] = (await admin.fetchOffsets({ groupId: config.groupId, topics: [config.topic] }))[0]!
          .partitions;
        return partition?.offset === '8' ? true : undefined;
      });
      await second.stop();
      assert.equal((await storedOpenLineage(store)).events, 5, 'nothing before the committed offset was read again');
    } finally {
      await producer.disconnect();
      await admin.deleteTopics({ topics: [config.topic, config.deadLetterTopic] }).catch(() => undefined);
      await admin.disconnect();
    }
  });

  it('a consumer killed (SIGKILL) mid-batch loses nothing; the next stores what the first left once', async () => {
    const config = freshTransport();
    const kafka = kafkaClient(broker());
    const producer = kafka.producer();
    await producer.connect();
    const target = await storeTarget('sqlite');
    const store = await target.open();
    const children: ApiProcess[] = [];
    const total = 8_000;
    const env = {
      ...target.env,
      LINEAGE_SVC_OPENLINEAGE_KAFKA_BROKERS: broker().bootstrap,
      LINEAGE_SVC_OPENLINEAGE_KAFKA_TOPIC: config.topic,
      LINEAGE_SVC_OPENLINEAGE_KAFKA_GROUP_ID: config.groupId,
      LINEAGE_SVC_OPENLINEAGE_KAFKA_DEAD_LETTER_TOPIC: config.deadLetterTopic,
    };
    try {
      await produceJson(
        producer,
        config.topic,
        Array.from({ length: total }, (_, index) => numberedEvent(index)),
      );
      const first = await startApiProcess(env);
      children.push(first);
      const before = await eventually(
        'the first consumer to store some events',
        async () => {
          const stored = (await storedOpenLineage(store)).keys.size;
          return stored > 0 ? stored : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 5 },
      );
      await first.kill();
      const atKill = (await storedOpenLineage(store)).keys.size;
      const second = await startApiProcess(env);
      children.push(second);
      await eventually(
        'every event stored',
        async () => ((await storedOpenLineage(store)).keys.size === total ? true : undefined),
        { timeoutMs: 90_000, intervalMs: 200 },
      );
      const { events, keys } = await storedOpenLineage(store);
      console.log(
        `# SIGKILL mid-stream: ${atKill} of ${total} stored at the kill (first seen ${before}), ${events} stored in all`,
      );
      assert.ok(atKill < total, 'the consumer was killed before the end');
      assert.equal(keys.size, total, 'nothing lost');
      assert.equal(events, total, 'each event stored once');
    } finally {
      await Promise.all(children.map((child) => child.kill()));
      await producer.disconnect();
      await store.close();
      await target.remove();
    }
  });

  it('says what is wrong, and keeps retrying, when the broker is down at start, a topic is missing or credentials are refused', async () => {
    const port = await freePort();
    const cases: Array<{ config: KafkaTransportConfig; error: RegExp }> = [
      {
        config: freshTransport({ brokers: [`127.0.0.1:${port}`] }),
        error: /^Kafka brokers unreachable: .*ECONNREFUSED.*; check LINEAGE_SVC_OPENLINEAGE_KAFKA_BROKERS/,
      },
      {
        config: freshTransport(),
        error: /^Kafka topic openlineage-\w+ does not exist.*; create it, or set LINEAGE_SVC_OPENLINEAGE_KAFKA_TOPIC/,
      },
      {
        config: freshTransport({
          brokers: [broker().saslBootstrap],
          ssl: true,
          tls: { ca: [broker().certificatePem] },
          sasl: { mechanism: 'plain', username: SASL_USER.username, password: 'wrong-password' },
        }),
        error: /^Kafka authentication failed: .*; check LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_MECHANISM/,
      },
    ];
    for (const { config, error } of cases) {
      const lines: Array<Record<string, unknown>> = [];
      const consumer = await startOpenLineageConsumer(config, {
        ingestor: createOpenLineageIngestor({ store: createMemoryEventStore() }),
        logger: recordingLogger(lines),
        backoff: { minimum: 50, maximum: 200 },
      });
      try {
        assert.equal(consumer.consuming, false);
        const line = await logged(lines, 'OpenLineageKafka:Unavailable', error);
        assert.equal(typeof line.retry_in_ms, 'number');
        // It tries again.
        await eventually('a second attempt', () =>
          lines.some((entry) => entry.msg === 'OpenLineageKafka:Unavailable' && entry.attempt === 2) ? true : undefined,
        );
        assert.ok(!JSON.stringify(lines).includes('wrong-password'), 'the password is never logged');
      } finally {
        await consumer.stop();
      }
    }
  });

  it('consumes over SASL_SSL with the right credentials, and starts once a missing topic is created', async () => {
    const config = freshTransport({
      brokers: [broker().saslBootstrap],
      ssl: true,
      tls: { ca: [broker().certificatePem] },
      sasl: { mechanism: 'plain', ...SASL_USER },
    });
    const lines: Array<Record<string, unknown>> = [];
    const store = createMemoryEventStore();
    const consumer = await startOpenLineageConsumer(config, {
      ingestor: createOpenLineageIngestor({ store }),
      logger: recordingLogger(lines),
      backoff: { minimum: 50, maximum: 200 },
    });
    const kafka = kafkaClient(broker(), 'sasl');
    try {
      await logged(lines, 'OpenLineageKafka:Unavailable', /does not exist/);
      await createTopicWith(kafka, config.topic, [numberedEvent(1)]);
      await eventually(
        'the event stored',
        async () => ((await storedOpenLineage(store)).keys.size === 1 ? true : undefined),
        {
          timeoutMs: 30_000,
        },
      );
      await logged(lines, 'OpenLineageKafka:Connected');
      assert.equal(consumer.consuming, true);
    } finally {
      await consumer.stop();
    }
  });

  it('exports its lag and committed offset on /metrics', async () => {
    const api = await startApi();
    const config = freshTransport();
    const kafka = kafkaClient(broker());
    await createTopicWith(kafka, config.topic, [numberedEvent(1), numberedEvent(2), numberedEvent(3)]);
    const consumer = await startOpenLineageConsumer(config, { ingestor: api.runtime.openLineageIngestor });
    try {
      const line = (text: string, name: string) =>
        new RegExp(`^${name}\\{topic="${config.topic}",partition="0"\\} (\\d+)$`, 'm').exec(text)?.[1];
      const text = await eventually('the committed offset on /metrics', async () => {
        const body = await (await fetch(`${api.base}/metrics`)).text();
        return line(body, 'lineage_svc_openlineage_kafka_committed_offset') === '3' ? body : undefined;
      });
      assert.equal(line(text, 'lineage_svc_openlineage_kafka_consumer_lag'), '0');
    } finally {
      await consumer.stop();
      await api.dispose();
    }
  });
});

/** Reads `count` records of `topic` from its start (a throwaway consumer group). */
async function readAll(kafka: Kafka, topic: string, count: number) {
  const consumer = kafka.consumer({ groupId: `reader-${randomUUID()}`, maxWaitTimeInMs: 500 });
  const records: Array<{ value: string; headers: Record<string, string> }> = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(message.headers ?? {})) headers[name] = String(value);
        records.push({ value: message.value?.toString('utf8') ?? '', headers });
      },
    });
    await eventually(`${count} records of ${topic}`, () => (records.length >= count ? true : undefined), {
      timeoutMs: 30_000,
    });
  } finally {
    await consumer.disconnect();
  }
  return records;
}
