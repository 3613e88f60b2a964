/**
 * The Kafka sink of the change publisher (`services/publisher.ts`): each CloudEvent is one record in
 * structured mode (the CloudEvents Kafka protocol binding, through the SDK's `Kafka.structured`:
 * value = the event as JSON, header `content-type: application/cloudevents+json`), keyed by its
 * `subject` (the graph id), so that each graph's changes land in one partition, in order. The producer
 * is idempotent with one request in flight and waits for every in-sync replica, so a batch
 * acknowledged is stored once and in order (kafkajs retries transient failures itself). Tested against
 * a real Apache Kafka broker (test/scaling/publication.test.ts, test/kafka/).
 */
import { Kafka as CloudEventsKafka } from 'cloudevents';
import type { ConnectionOptions } from 'node:tls';
import { Kafka, logLevel, type Producer, type SASLOptions } from 'kafkajs';
import type { Logger } from '../../src/logger.js';
import type { ChangeEvent, ChangeSink } from '../../services/publisher.js';
import { describeKafkaError, kafkaLogCreator } from '../kafka/errors.js';

/** Where and how to produce. */
export interface KafkaSinkOptions {
  brokers: string[];
  /** Default `lineage-svc.changes`. */
  topic: string;
  ssl?: boolean;
  /** TLS options when `ssl` (e.g. `{ ca }` for a private certificate authority); default: Node's trusted CAs. */
  tls?: ConnectionOptions;
  /** Where kafkajs's own warnings and errors go (default: nowhere). */
  logger?: Logger;
  sasl?: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string } | undefined;
  clientId?: string;
}

/** The Kafka record of a change: key, value and headers (the CloudEvents structured mode). */
export function toKafkaRecord(event: ChangeEvent): { key: string; value: string; headers: Record<string, string> } {
  const message = CloudEventsKafka.structured(event);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers)) if (value !== undefined) headers[name] = String(value);
  return { key: String(event.subject), value: String(message.value), headers };
}

/**
 * Creates the sink. It connects at its first send, not here, so that brokers down at start hold up
 * nothing: a send that fails (brokers unreachable, credentials refused, no right on the topic) throws
 * one line naming the cause and the setting to check (`describeKafkaError`), which the publisher logs
 * (`Publisher:Failed`) before it retries from its checkpoint. After a failure the producer is dropped
 * and the next send connects a new one (a new producer id, so no sequence state survives a broker that
 * lost it); the records sent again are duplicates, which at-least-once delivery allows, and each
 * graph's records still arrive in order the first time.
 */
export async function createKafkaSink(options: KafkaSinkOptions): Promise<ChangeSink> {
  const kafka = new Kafka({
    clientId: options.clientId ?? 'lineage-svc-publisher',
    brokers: options.brokers,
    ssl: options.ssl ? (options.tls ?? true) : false,
    ...(options.sasl ? { sasl: options.sasl as SASLOptions } : {}),
    logLevel: logLevel.WARN,
    logCreator: kafkaLogCreator(options.logger),
    connectionTimeout: 5_000,
    retry: { retries: 3 },
  });
  const context = { topics: [options.topic], variablePrefix: 'LINEAGE_SVC_PUBLISH_KAFKA_' };
  let producer: Producer | undefined;
  const drop = async () => {
    const dropped = producer;
    producer = undefined;
    await dropped?.disconnect().catch(() => undefined);
  };
  return {
    name: `kafka ${options.topic}`,
    async send(batch) {
      if (batch.length === 0) return;
      try {
        if (!producer) {
          producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: true });
          await producer.connect();
        }
        await producer.send({ topic: options.topic, acks: -1, messages: batch.map(toKafkaRecord) });
      } catch (error) {
        await drop();
        throw new Error(describeKafkaError(error, context), { cause: error });
      }
    },
    async close() {
      await drop();
    },
  };
}
