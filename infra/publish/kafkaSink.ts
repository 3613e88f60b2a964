/**
 * The Kafka sink of the change publisher (`services/publisher.ts`): each CloudEvent is one record in
 * structured mode (the CloudEvents Kafka protocol binding, through the SDK's `Kafka.structured`:
 * value = the event as JSON, header `content-type: application/cloudevents+json`), keyed by its
 * `subject` (the graph id), so that each graph's changes land in one partition, in order. The producer
 * is idempotent with one request in flight and waits for every in-sync replica, so a batch
 * acknowledged is stored once and in order (kafkajs retries transient failures itself).
 */
import { Kafka as CloudEventsKafka } from 'cloudevents';
import { Kafka, logLevel, type Producer, type SASLOptions } from 'kafkajs';
import type { ChangeEvent, ChangeSink } from '../../services/publisher.js';

/** Where and how to produce. */
export interface KafkaSinkOptions {
  brokers: string[];
  /** Default `lineage-svc.changes`. */
  topic: string;
  ssl?: boolean;
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

/** Connects the producer. @throws the kafkajs error when the brokers cannot be reached. */
export async function createKafkaSink(options: KafkaSinkOptions): Promise<ChangeSink> {
  const kafka = new Kafka({
    clientId: options.clientId ?? 'lineage-svc-publisher',
    brokers: options.brokers,
    ssl: options.ssl ?? false,
    ...(options.sasl ? { sasl: options.sasl as SASLOptions } : {}),
    logLevel: logLevel.WARN,
  });
  const producer: Producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: true });
  await producer.connect();
  return {
    name: `kafka ${options.topic}`,
    async send(batch) {
      if (batch.length === 0) return;
      await producer.send({ topic: options.topic, acks: -1, messages: batch.map(toKafkaRecord) });
    },
    async close() {
      await producer.disconnect();
    },
  };
}
