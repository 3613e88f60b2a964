/**
 * Prometheus metrics of the OpenLineage Kafka consumer (`openLineageConsumer.ts`), in a registry of
 * their own that `GET /metrics` merges in (`infra/http/metrics.ts`); one per process, like the
 * consumer. Values are per topic partition the consumer was assigned:
 *
 * - `lineage_svc_openlineage_kafka_consumer_lag`: messages behind, i.e. the partition's high
 *   watermark at the last fetch minus the offset committed after it (Kafka's consumer lag);
 * - `lineage_svc_openlineage_kafka_committed_offset`: the last offset committed (the next to read).
 *
 * Nothing is exported before the consumer has fetched its first batch.
 */
import client, { type Registry } from 'prom-client';

/** The registry of the consumer's metrics (process-wide). */
export const kafkaConsumerRegistry: Registry = new client.Registry();

const lag = new client.Gauge({
  name: 'lineage_svc_openlineage_kafka_consumer_lag',
  help: 'OpenLineage Kafka consumer lag in messages: high watermark at the last fetch minus the committed offset, by topic and partition',
  labelNames: ['topic', 'partition'] as const,
  registers: [kafkaConsumerRegistry],
});

const committed = new client.Gauge({
  name: 'lineage_svc_openlineage_kafka_committed_offset',
  help: 'Offset last committed by the OpenLineage Kafka consumer (the next one to read), by topic and partition',
  labelNames: ['topic', 'partition'] as const,
  registers: [kafkaConsumerRegistry],
});

/**
 * Records a batch's end: the offset committed and the partition's high watermark at its fetch.
 * @param commitOffset the committed offset (Kafka's next offset to read), a decimal string
 * @param highWatermark the partition's high watermark, a decimal string
 */
export function recordConsumerPosition(
  topic: string,
  partition: number,
  commitOffset: string,
  highWatermark: string,
): void {
  const labels = { topic, partition: String(partition) };
  committed.set(labels, Number(commitOffset));
  lag.set(labels, Math.max(0, Number(highWatermark) - Number(commitOffset)));
}
