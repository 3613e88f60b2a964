/**
 * Shared setup of the tests that run against a real Apache Kafka broker (`infra/kafka/broker.ts`):
 * one broker per test file, started in `before` (C1 compiler only, for a quicker start) and stopped in `after`; the reason to skip when no
 * broker can run here (no `java` or `mvn`), printed once; a kafkajs client for either listener; a
 * logger whose lines the test reads.
 */
import { after, before } from 'node:test';
import { Writable } from 'node:stream';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import {
  kafkaBrokerSkipReason,
  QUICK_START_FLAGS,
  SASL_USER,
  startKafkaBroker,
  type KafkaBroker,
  type KafkaBrokerOptions,
} from '../../infra/kafka/broker.js';
import { createLogger, type Logger } from '../../src/logger.js';

/** Why the broker tests of this file are skipped (printed once), or false. */
export async function kafkaSkip(): Promise<string | false> {
  const reason = await kafkaBrokerSkipReason();
  if (reason) console.log(`# Kafka tests skipped: ${reason}`);
  return reason;
}

/**
 * Starts one broker for the calling test file (in `before`; stopped in `after`) unless `skip`.
 * @returns a getter of the running broker
 */
export function useKafkaBroker(skip: string | false, options: KafkaBrokerOptions = {}): () => KafkaBroker {
  let broker: KafkaBroker | undefined;
  before(async () => {
    if (!skip) broker = await startKafkaBroker({ jvmFlags: QUICK_START_FLAGS, ...options });
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
