/**
 * The Kafka paths across a real broker restart (issue 24): the OpenLineage consumer retries with
 * backoff while the broker is down and catches up from its committed offset; the change publisher's
 * Kafka sink says why it cannot send, then goes on in order per graph once the broker is back.
 *
 * The one test file with a broker of its own (it halts and starts it); the other Kafka tests share the
 * run's broker (test/kafka/sharedBroker.ts). Skipped with a message without `java` and `mvn`.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createMemoryEventStore } from '../../infra/eventStore/memoryEventStore.js';
import { startOpenLineageConsumer } from '../../infra/kafka/openLineageConsumer.js';
import { createKafkaSink } from '../../infra/publish/kafkaSink.js';
import { openRuntime } from '../../infra/runtime.js';
import { startChangePublisher } from '../../services/publisher.js';
import { loadConfig } from '../../src/config.js';
import { streams } from '../../src/events.js';
import { createGraph } from '../../src/graphCommands.js';
import { silentLogger } from '../../src/logger.js';
import { createOpenLineageIngestor } from '../../src/openlineage/ingestion.js';
import { eventually } from '../helpers/wait.js';
import { addNode, everyChangeInOrder, leaseOf, recordTopic } from '../scaling/publicationHelpers.js';
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
} from './helpers.js';

const skip = await kafkaSkip();
const broker = useKafkaBroker(skip, { usePrivate: true });
const freshTransport = () => freshKafkaTransport(broker());

describe('the OpenLineage consumer across a broker restart', { skip }, () => {
  it('retries with backoff while the broker is down, then catches up from its committed offset', async () => {
    const config = freshTransport();
    const lines: Array<Record<string, unknown>> = [];
    const store = createMemoryEventStore();
    const kafka = kafkaClient(broker());
    await createTopicWith(kafka, config.topic, [numberedEvent(1), numberedEvent(2)]);
    const consumer = await startOpenLineageConsumer(config, {
      ingestor: createOpenLineageIngestor({ store }),
      logger: recordingLogger(lines),
      backoff: { minimum: 100, maximum: 1_000 },
      groupTimeouts: QUICK_GROUP,
    });
    try {
      await eventually('two events stored', async () =>
        (await storedOpenLineage(store)).keys.size === 2 ? true : undefined,
      );
      await broker().halt();
      // kafkajs notices at its next fetch; then it restarts the consumer, or we reconnect with backoff.
      await logged(lines, 'OpenLineageKafka:Crashed', /Kafka brokers unreachable|Kafka error/);
      await broker().start();
      const producer = kafkaClient(broker()).producer();
      await producer.connect();
      await produceJson(producer, config.topic, [numberedEvent(3), numberedEvent(4)]);
      await producer.disconnect();
      await eventually(
        'four events stored',
        async () => ((await storedOpenLineage(store)).keys.size === 4 ? true : undefined),
        {
          timeoutMs: 90_000,
        },
      );
      assert.equal((await storedOpenLineage(store)).events, 4);
      assert.ok(
        lines.every((line) => !/\n\s+at /.test(String(line.err))),
        'log lines carry messages, not stack traces',
      );
    } finally {
      await consumer.stop();
    }
  });
});

describe('the Kafka sink of the change publisher across a broker restart', { skip }, () => {
  it('creates its topic, produces CloudEvents keyed by graph id in order, and goes on across a broker restart', async () => {
    const topicName = `lineage-svc-changes-${randomUUID()}`;
    const runtime = await openRuntime(loadConfig({ LINEAGE_SVC_STORAGE__BACKEND: 'memory' }), silentLogger());
    const lines: Array<Record<string, unknown>> = [];
    const sink = await createKafkaSink({ brokers: [broker().bootstrap], topic: topicName });
    const lease = await leaseOf(runtime);
    const publisher = startChangePublisher({
      store: runtime.store,
      lease,
      sink,
      logger: recordingLogger(lines),
      idleMilliseconds: 10,
      failurePauseMilliseconds: 500,
    });
    let reader: Awaited<ReturnType<typeof recordTopic>> | undefined;
    try {
      const graphs: string[] = [];
      for (const name of ['a', 'b', 'c'])
        graphs.push((await createGraph(runtime.commands, { name }, { actor: 'test' })).graphId);
      for (let index = 0; index < 30; index += 1) await addNode(runtime, graphs[index % 3]!, `n${index}`);
      await eventually('a checkpoint past the first changes', async () =>
        (await runtime.store.readStream(streams.publisherCheckpoint)).some(
          (event) => event.type === 'PublisherCheckpointed',
        )
          ? true
          : undefined,
      );
      await broker().halt();
      // Changes while the broker is down: the sends fail, the publisher says why and retries.
      for (let index = 30; index < 60; index += 1) await addNode(runtime, graphs[index % 3]!, `n${index}`);
      const failed = await eventually('a Publisher:Failed line', () =>
        lines.find((line) => line.msg === 'Publisher:Failed'),
      );
      assert.match(String(failed.err), /^Kafka brokers unreachable: .*; check LINEAGE_SVC_PUBLISH_KAFKA_BROKERS/);
      await broker().start();
      for (let index = 60; index < 90; index += 1) await addNode(runtime, graphs[index % 3]!, `n${index}`);
      const kafka = kafkaClient(broker());
      const admin = kafka.admin();
      await admin.connect();
      assert.ok((await admin.listTopics()).includes(topicName), 'the sink created its topic');
      await admin.disconnect();
      reader = await recordTopic(kafka, topicName);
      const { total, duplicates } = await everyChangeInOrder(runtime, reader.received);
      for (const record of reader.received) assert.equal(record.key, record.subject);
      console.log(`# Kafka sink across a broker restart: ${total} changes, ${duplicates} sent twice`);
    } finally {
      await reader?.stop();
      await publisher.stop();
      await lease.stop();
      await sink.close();
      await runtime.close();
    }
  });
});
