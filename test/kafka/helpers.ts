/**
 * Shared setup of the tests that run against a real Apache Kafka broker (`infra/kafka/broker.ts`):
 * the run's shared broker when `make test` started one (`./sharedBroker.ts`), else one broker per test
 * file, started in `before` (C1 compiler only, for a quicker start) and stopped in `after`; the reason
 * to skip when no broker can run here (no `java` or `mvn`), printed once; a kafkajs client for either
 * listener; a logger whose lines the test reads.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { after, before } from 'node:test';
import { Writable } from 'node:stream';
import { Kafka, logLevel, type ITopicConfig, type Producer } from 'kafkajs';
import {
  kafkaBrokerSkipReason,
  QUICK_START_FLAGS,
  SASL_USER,
  startKafkaBroker,
  type KafkaBroker,
  type KafkaBrokerOptions,
} from '../../infra/kafka/broker.js';
import type { KafkaTransportConfig } from '../../infra/kafka/openLineageConsumer.js';
import type { EventStore } from '../../src/eventStore.js';
import { createGraph, recordGraph } from '../../src/graphCommands.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { topicNode } from '../helpers/sampleGraph.js';
import { eventually } from '../helpers/wait.js';
import type { TestApi } from '../http/helpers.js';
import { runEvent } from '../openlineage/helpers.js';
import { allEvents } from '../scaling/helpers.js';
import { SHARED_BROKER_VARIABLE, type SharedBrokerFile } from './sharedBroker.js';

/** Why the broker tests of this file are skipped (printed once), or false. */
export async function kafkaSkip(): Promise<string | false> {
  const reason = await kafkaBrokerSkipReason();
  if (reason) console.log(`# Kafka tests skipped: ${reason}`);
  return reason;
}

/** How long a test file waits for the run's shared broker to start (it starts while other files run). */
const SHARED_BROKER_WAIT_MILLISECONDS = 180_000;

/**
 * The run's shared broker (`./sharedBroker.ts`), once it serves. Other files use it too: it is never
 * halted, restarted or stopped from here (`usePrivate: true` gives a file a broker of its own for that).
 * @throws when the shared broker failed to start (its error), or did not start within 180 s
 */
async function sharedBroker(file: string): Promise<KafkaBroker> {
  const deadline = Date.now() + SHARED_BROKER_WAIT_MILLISECONDS;
  while (!existsSync(file)) {
    if (Date.now() > deadline)
      throw new Error(`the shared Kafka broker did not start within ${SHARED_BROKER_WAIT_MILLISECONDS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const content = JSON.parse(readFileSync(file, 'utf8')) as SharedBrokerFile;
  if ('error' in content) throw new Error(`the shared Kafka broker could not start: ${content.error}`);
  const shared = async () => {
    throw new Error(
      'the shared Kafka broker is never halted or restarted by a test: use useKafkaBroker(skip, { usePrivate: true })',
    );
  };
  return {
    ...content.broker,
    pid: undefined,
    halt: shared,
    start: shared,
    restart: shared,
    stop: async () => undefined,
  };
}

/**
 * The broker of the calling test file (ready in `before`; a broker of its own is stopped in `after`),
 * unless `skip`: the run's shared broker when `make test` started one, else a broker started for the
 * file. `usePrivate` asks for a broker of its own all the same (tests that halt or restart it).
 * @returns a getter of the running broker
 */
export function useKafkaBroker(
  skip: string | false,
  options: KafkaBrokerOptions & { usePrivate?: boolean } = {},
): () => KafkaBroker {
  let broker: KafkaBroker | undefined;
  const { usePrivate, ...brokerOptions } = options;
  before(async () => {
    if (skip) return;
    const sharedFile = process.env[SHARED_BROKER_VARIABLE];
    broker =
      sharedFile && !usePrivate
        ? await sharedBroker(sharedFile)
        : await startKafkaBroker({ jvmFlags: QUICK_START_FLAGS, ...brokerOptions });
  });
  after(async () => {
    await broker?.stop();
  });
  return () => {
    if (!broker) throw new Error('the Kafka broker is not running');
    return broker;
  };
}

/** A kafkajs client of the PLAINTEXT listener (or the SASL_SSL one with `SASL_USER`), logging nothing. */
export function kafkaClient(broker: KafkaBroker, listener: 'plaintext' | 'sasl' = 'plaintext'): Kafka {
  if (listener === 'plaintext')
    return new Kafka({ clientId: 'lineage-svc-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  return new Kafka({
    clientId: 'lineage-svc-test',
    brokers: [broker.saslBootstrap],
    ssl: { ca: [broker.certificatePem] },
    sasl: { mechanism: 'plain', ...SASL_USER },
    logLevel: logLevel.NOTHING,
  });
}

/** Produces `values` (JSON-encoded) to `topic` in chunks of 1,000, waiting for every replica. */
export async function produceJson(
  producer: Producer,
  topic: string,
  values: readonly unknown[],
  key: (value: unknown, index: number) => string = (_value, index) => `k${index}`,
): Promise<void> {
  for (let start = 0; start < values.length; start += 1000) {
    const chunk = values.slice(start, start + 1000);
    await producer.send({
      topic,
      acks: -1,
      messages: chunk.map((value, offset) => ({ key: key(value, start + offset), value: JSON.stringify(value) })),
    });
  }
}

/** Creates `topics` on the broker of `kafka`, waiting for their leaders (an admin client of its own). */
export async function createTopics(kafka: Kafka, topics: ITopicConfig[]): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics, waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
}

/** Creates `topic` on the broker of `kafka` (`createTopics`), then produces `values` to it (`produceJson`). */
export async function createTopicWith(kafka: Kafka, topic: string, values: readonly unknown[]): Promise<void> {
  await createTopics(kafka, [{ topic }]);
  const producer = kafka.producer();
  await producer.connect();
  await produceJson(producer, topic, values);
  await producer.disconnect();
}

/** A debug-level logger whose lines (parsed JSON) are pushed to `lines`. */
export function recordingLogger(lines: Array<Record<string, unknown>>): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return createLogger({ level: 'debug', destination: sink });
}

/** The broker's shortest session: a restarted broker's group waits that long for its former member. */
export const QUICK_GROUP = { sessionMilliseconds: 6_000, rebalanceMilliseconds: 6_000 };

/** A distinct valid RunEvent per index (its own run id). */
export function numberedEvent(index: number): Record<string, unknown> {
  const hex = index.toString(16).padStart(12, '0');
  return runEvent({ job: `job-${index % 7}`, runId: `0190a1b2-0000-7000-8000-${hex}` });
}

/** OpenLineage transport settings of a fresh topic pair (and group) on `broker`'s PLAINTEXT listener. */
export function freshKafkaTransport(
  broker: KafkaBroker,
  overrides: Partial<KafkaTransportConfig> = {},
): KafkaTransportConfig {
  const suffix = randomUUID().slice(0, 8);
  return {
    brokers: [broker.bootstrap],
    topic: `openlineage-${suffix}`,
    groupId: `lineage-svc-${suffix}`,
    sasl: null,
    ssl: false,
    deadLetterTopic: `openlineage-${suffix}.dlq`,
    ...overrides,
  };
}

/** The dedupe keys of the stored OpenLineage events, and how many events hold them. */
export async function storedOpenLineage(store: EventStore): Promise<{ events: number; keys: Set<string> }> {
  const keys = new Set<string>();
  let events = 0;
  for (const event of await allEvents(store)) {
    if (event.type !== 'OpenLineageEventIngested') continue;
    events += 1;
    keys.add((event.data as { dedupe_key: string }).dedupe_key);
  }
  return { events, keys };
}

/** Waits until a log line with message `message` (and matching `err`, when given) was written. */
export function logged(lines: Array<Record<string, unknown>>, message: string, err?: RegExp) {
  return eventually(`a ${message} log line`, () =>
    lines.find((line) => line.msg === message && (err === undefined || err.test(String(line.err)))),
  );
}

/**
 * Records, in a new graph `default` of `api`, topics `topics` of environment `environment`, cluster
 * `cluster` whose bootstrap endpoint is `bootstrap` (the test broker's), as an extraction records
 * them, so that the `kafka://{bootstrap}` datasets of OpenLineage producers land on them.
 */
export async function seedExtractedGraph(
  api: TestApi,
  {
    environment,
    cluster,
    bootstrap,
    topics,
  }: { environment: string; cluster: string; bootstrap: string; topics: string[] },
): Promise<void> {
  const graph = await createGraph(api.runtime.commands, { name: 'default' }, { actor: 'test' });
  const nodes = topics.map((name) =>
    topicNode(environment, cluster, name, { partitions: 1, bootstrap_endpoint: bootstrap }),
  );
  await recordGraph(api.runtime.commands, graph.graphId, { nodes, edges: [] }, { mode: 'merge' }, { actor: 'test' });
}
