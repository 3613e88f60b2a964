/**
 * OpenLineage Kafka transport (consumer side): reads OpenLineage events from a topic (the value is
 * the event as UTF-8 JSON, the key a string such as `run:{namespace}/{name}`; reference
 * docs/openlineage.md, "Kafka transport"), ingests them through an `OpenLineageIngestor` (the
 * runtime's, so that HTTP and Kafka calls share one queue and one memory of recent keys), sends
 * unparseable or rejected messages to a dead-letter topic, and commits offsets only once the append
 * (and the dead-letter send) is durable.
 *
 * The decisions are pure functions tested without a broker: `decideMessage` (ingest or dead-letter)
 * and `nextCommitOffset` (commit ordering). `startOpenLineageConsumer` wires them to kafkajs with
 * `autoCommit: false` and `eachBatchAutoResolve: false`: a batch's records are decoded, parsed,
 * normalized and serialized (on a pool of worker threads, `openLineagePrepare.ts`, when the batch holds
 * `PREPARE_ON_WORKERS_FROM_RECORDS` records or more), its events appended
 * in one store append (`ingestPrepared`), then dead-letters are produced, then offsets are resolved and
 * committed. When the append throws, nothing is
 * resolved or committed and kafkajs redelivers the batch; redelivered events are stored once (dedupe).
 * Kafka failures (brokers down, credentials refused, a missing topic, a crash) are logged with their
 * cause and retried with backoff (`reconnectDelay`); the lag is exported (`consumerMetrics.ts`). Tested
 * against a real Apache Kafka broker (test/openlineage/kafka.test.ts).
 *
 * Configuration (`KafkaTransportConfig`, read by `loadConfig` into `Config.openLineageKafka`; docs/configuration.md):
 * | variable | default | meaning |
 * |---|---|---|
 * | `LINEAGE_SVC_OPENLINEAGE_KAFKA_BROKERS` | none (transport off) | comma-separated `host:port` list |
 * | `LINEAGE_SVC_OPENLINEAGE_KAFKA_TOPIC` | `openlineage.events` | topic to consume |
 * | `LINEAGE_SVC_OPENLINEAGE_KAFKA_GROUP_ID` | `lineage-svc-openlineage` | consumer group id |
 * | `LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_MECHANISM` | none (no SASL) | `plain`, `scram-sha-256` or `scram-sha-512` (SASL turns TLS on) |
 * | `LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_USERNAME` / `_PASSWORD` | none | SASL credentials (never logged) |
 * | `LINEAGE_SVC_OPENLINEAGE_KAFKA_DEAD_LETTER_TOPIC` | `openlineage.events.dlq` | where bad messages go |
 */
import type { ConnectionOptions } from 'node:tls';
import type { Admin, Consumer, KafkaMessage, Producer, SASLOptions } from 'kafkajs';
import type { Config } from '../../src/config.js';
import type { Logger } from '../../src/logger.js';
import type { OpenLineageIngestor, PreparedOpenLineageEvent } from '../../src/openlineage/ingestion.js';
import { recordConsumerPosition } from './consumerMetrics.js';
import { describeKafkaError, kafkaLogCreator } from './errors.js';
import {
  createOpenLineagePreparePool,
  defaultPrepareWorkers,
  prepareRecordsHere,
  type OpenLineagePreparePool,
  type PrepareRecords,
} from './openLineagePrepare.js';

export { decideMessage, type MessageDecision } from './openLineagePrepare.js';

/** Kafka transport settings: `Config.openLineageKafka` (see docs/configuration.md) once switched on. */
export interface KafkaTransportConfig {
  brokers: string[];
  topic: string;
  groupId: string;
  sasl: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string } | null;
  /** TLS to the brokers; always on with SASL. */
  ssl: boolean;
  /** TLS options when `ssl` (e.g. `{ ca }` for a private certificate authority); default: Node's trusted CAs. */
  tls?: ConnectionOptions;
  deadLetterTopic: string;
  /** Client id reported to the brokers. */
  clientId?: string;
}

/**
 * The transport's settings from the parsed configuration (`loadConfig`, which validates the
 * `LINEAGE_SVC_OPENLINEAGE_KAFKA_*` variables).
 * @returns null when no broker is configured (transport off).
 */
export function kafkaTransportConfig(settings: Config['openLineageKafka']): KafkaTransportConfig | null {
  if (settings.brokers.length === 0) return null;
  return {
    brokers: settings.brokers,
    topic: settings.topic,
    groupId: settings.groupId,
    sasl: settings.sasl ?? null,
    ssl: settings.ssl || settings.sasl !== undefined,
    deadLetterTopic: settings.deadLetterTopic,
  };
}

/** How one message of a batch ended. */
export type MessageOutcome = 'stored' | 'duplicate' | 'dead-lettered' | 'pending';

/**
 * Commit ordering: the offset to commit (Kafka's "next offset to read") after a batch whose
 * messages, in offset order, ended as `outcomes`. Only a prefix of finished messages (stored,
 * duplicate or dead-lettered) may be committed; the first `pending` one (its append or dead-letter
 * send did not complete) stops it. Returns null when nothing can be committed.
 */
export function nextCommitOffset(outcomes: ReadonlyArray<{ offset: string; outcome: MessageOutcome }>): string | null {
  let committed: string | null = null;
  for (const entry of outcomes) {
    if (entry.outcome === 'pending') break;
    committed = (BigInt(entry.offset) + 1n).toString();
  }
  return committed;
}

/** A dead-letter record: the original value and key, and headers saying why and where from. */
export function deadLetterRecord(
  message: Pick<KafkaMessage, 'key' | 'value' | 'offset'>,
  source: { topic: string; partition: number },
  reason: string,
) {
  return {
    key: message.key,
    value: message.value,
    headers: {
      'lineage-svc.error': reason.slice(0, 1000),
      'lineage-svc.source': `${source.topic}/${source.partition}@${message.offset}`,
    },
  };
}

/**
 * Processes one batch of one partition: prepares its records (`prepare`: decode, parse, normalize,
 * serialize; on the calling thread by default), ingests the prepared events in one call of `ingestor`,
 * dead-letters the rest, and returns the outcomes and the offset to commit.
 * Broker-independent: `sendDeadLetters` is the producer's send.
 * @throws when the preparation, the append or the dead-letter send fails (nothing may then be committed).
 */
export async function processBatch(
  ingestor: Pick<OpenLineageIngestor, 'ingestPrepared'>,
  batch: { topic: string; partition: number; messages: ReadonlyArray<Pick<KafkaMessage, 'key' | 'value' | 'offset'>> },
  sendDeadLetters: (records: Array<ReturnType<typeof deadLetterRecord>>) => Promise<void>,
  prepare: PrepareRecords = prepareRecordsHere,
): Promise<{ outcomes: Array<{ offset: string; outcome: MessageOutcome }>; commit: string | null }> {
  const prepared = await prepare(batch.messages.map((message) => message.value));
  const decisions = batch.messages.map((message, at) => ({ message, decision: prepared[at]! }));
  const toIngest = decisions.filter((entry) => entry.decision.action === 'ingest');
  const results = await ingestor.ingestPrepared(
    toIngest.map((entry) => (entry.decision as { prepared: PreparedOpenLineageEvent }).prepared),
    {
      actor: 'kafka',
      cause: 'ingestion',
      correlation_id: `${batch.topic}/${batch.partition}@${batch.messages[0]?.offset ?? '0'}`,
    },
  );
  const outcomeByOffset = new Map<string, MessageOutcome>();
  const deadLetters: Array<ReturnType<typeof deadLetterRecord>> = [];
  const resultByMessage = new Map(toIngest.map((entry, at) => [entry.message, results[at]!]));
  // In offset order, so the dead-letter topic keeps the source order.
  for (const entry of decisions) {
    const result = resultByMessage.get(entry.message);
    if (entry.decision.action === 'dead-letter') {
      deadLetters.push(deadLetterRecord(entry.message, batch, entry.decision.reason));
      outcomeByOffset.set(entry.message.offset, 'dead-lettered');
    } else if (result?.status === 'rejected') {
      deadLetters.push(
        deadLetterRecord(
          entry.message,
          batch,
          `rejected: ${(result.errors ?? []).map((error) => `${error.path}: ${error.message}`).join('; ')}`,
        ),
      );
      outcomeByOffset.set(entry.message.offset, 'dead-lettered');
    } else if (result) {
      outcomeByOffset.set(entry.message.offset, result.status === 'accepted' ? 'stored' : 'duplicate');
    }
  }
  if (deadLetters.length > 0) await sendDeadLetters(deadLetters);
  const outcomes = batch.messages.map((message) => ({
    offset: message.offset,
    outcome: outcomeByOffset.get(message.offset) ?? ('pending' as const),
  }));
  return { outcomes, commit: nextCommitOffset(outcomes) };
}

/**
 * The fewest records of a batch the consumer prepares on its workers (`openLineagePrepare.ts`); smaller
 * batches are prepared on the event loop.
 */
export const PREPARE_ON_WORKERS_FROM_RECORDS = 1_000;

/** A running consumer. */
export interface OpenLineageConsumer {
  /** True while the consumer is connected and its group joined (false while it waits to retry). */
  readonly consuming: boolean;
  /** Disconnects (and stops retrying). Idempotent. */
  stop(): Promise<void>;
}

/** Backoff of the reconnection attempts, in milliseconds: from `minimum`, doubling, randomized, at most `maximum` apart. */
export interface ConsumerBackoff {
  /** First pause. Default 500 ms. */
  minimum: number;
  /** Longest pause. Default 30,000 ms. */
  maximum: number;
}

/**
 * What the consumer ingests through: the runtime's ingestor (`LineageRuntime.openLineageIngestor`),
 * the same one the HTTP routes use, so that both share one append queue and one memory of recent keys.
 */
export interface OpenLineageConsumerDeps {
  ingestor: OpenLineageIngestor;
  logger?: Logger | undefined;
  /** Reconnection backoff (default 500 ms to 30 s). */
  backoff?: Partial<ConsumerBackoff>;
  /**
   * Consumer group session and rebalance timeouts in milliseconds (default `GROUP_TIMEOUTS`). The
   * session timeout is how long a consumer that died (SIGKILL) keeps its partitions before the group
   * hands them to another; the broker accepts 6,000 to 1,800,000 by default.
   */
  groupTimeouts?: { sessionMilliseconds: number; rebalanceMilliseconds: number };
  /**
   * Worker threads that decode, parse, normalize and serialize the records of batches of
   * `PREPARE_ON_WORKERS_FROM_RECORDS` records or more (`openLineagePrepare.ts`); default
   * `defaultPrepareWorkers()` (the cores but two, at most four); 0 does it all on the event loop.
   */
  prepareWorkers?: number;
}

/**
 * Default group timeouts: a 10 s session (a dead consumer's partitions move on after 10 s; Kafka's
 * clients default to 45 s, kafkajs to 30 s) and a 20 s rebalance.
 */
export const GROUP_TIMEOUTS = { sessionMilliseconds: 10_000, rebalanceMilliseconds: 20_000 } as const;

/**
 * Longest wait of a fetch on a partition with nothing new, in milliseconds (the broker answers at once
 * when there is data): `stop()` returns after at most about this long (kafkajs's default, 5 s, made each
 * stop of a test or an API shutdown wait 5 s).
 */
export const FETCH_MAX_WAIT_MILLISECONDS = 500;

/** The pause before reconnection attempt `attempt` (1-based): exponential, full jitter in its upper half. */
export function reconnectDelay(attempt: number, backoff: ConsumerBackoff, random: () => number = Math.random): number {
  const ceiling = Math.min(backoff.maximum, backoff.minimum * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

/**
 * Starts consuming `config.topic` with group `config.groupId`, and keeps at it: when the brokers
 * cannot be reached, the credentials are refused, a topic is missing or the consumer crashes (a broker
 * failure kafkajs does not recover from by itself), it logs one `OpenLineageKafka:Unavailable` warning
 * naming the cause and the setting to check (`describeKafkaError`), waits (`reconnectDelay`) and
 * connects again, then resumes from the group's committed offset. Never throws for a Kafka failure.
 *
 * At each (re)connection it checks that `config.topic` exists (it is never created: a missing topic
 * is an error) and creates the dead-letter topic when it is missing (broker defaults for partitions and
 * replication; the principal needs CREATE, or the topic must exist).
 * @returns once the first attempt succeeded or failed (then retrying in the background).
 */
export async function startOpenLineageConsumer(
  config: KafkaTransportConfig,
  deps: OpenLineageConsumerDeps,
): Promise<OpenLineageConsumer> {
  // kafkajs is loaded here, when the transport is switched on: an API without it never pays for it.
  const { Kafka, logLevel } = await import('kafkajs');
  const kafka = new Kafka({
    clientId: config.clientId ?? 'lineage-svc',
    brokers: config.brokers,
    ssl: config.ssl ? (config.tls ?? true) : false,
    ...(config.sasl ? { sasl: config.sasl as SASLOptions } : {}),
    logLevel: logLevel.WARN,
    logCreator: kafkaLogCreator(deps.logger),
    connectionTimeout: 5_000,
    retry: { retries: 3 },
  });
  const backoff: ConsumerBackoff = { minimum: 500, maximum: 30_000, ...deps.backoff };
  const context = {
    topics: [config.topic],
    groupId: config.groupId,
    variablePrefix: 'LINEAGE_SVC_OPENLINEAGE_KAFKA_',
  };
  const workers = deps.prepareWorkers ?? defaultPrepareWorkers();
  const pool: OpenLineagePreparePool | undefined = workers > 0 ? createOpenLineagePreparePool(workers) : undefined;
  // Small batches (a topic the consumer keeps up with) stay on the event loop: the hop to a worker and
  // back would add to each event's delay and the event loop has time to spare; a backlog comes in
  // batches of thousands, which the workers take.
  const prepare: PrepareRecords = (values) =>
    pool && values.length >= PREPARE_ON_WORKERS_FROM_RECORDS ? pool.prepare(values) : prepareRecordsHere(values);
  let current: { consumer: Consumer; producer: Producer } | undefined;
  let consuming = false;
  let stopped = false;
  let attempt = 0;
  let timer: NodeJS.Timeout | undefined;

  const disconnect = async () => {
    const connection = current;
    current = undefined;
    consuming = false;
    await connection?.consumer.disconnect().catch(() => undefined);
    await connection?.producer.disconnect().catch(() => undefined);
  };

  const connect = async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      await ensureTopics(admin, config);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    const timeouts = deps.groupTimeouts ?? GROUP_TIMEOUTS;
    const consumer = kafka.consumer({
      groupId: config.groupId,
      allowAutoTopicCreation: false,
      sessionTimeout: timeouts.sessionMilliseconds,
      rebalanceTimeout: timeouts.rebalanceMilliseconds,
      heartbeatInterval: Math.floor(timeouts.sessionMilliseconds / 3),
      // How long the broker holds a fetch while the partition has nothing new (kafkajs: 5 s). A stop
      // waits for the fetch in flight, so this bounds it; data is answered at once whatever this is.
      maxWaitTimeInMs: FETCH_MAX_WAIT_MILLISECONDS,
    });
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    current = { consumer, producer };
    await Promise.all([consumer.connect(), producer.connect()]);
    await consumer.subscribe({ topic: config.topic, fromBeginning: true });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (current?.consumer !== consumer) return;
      deps.logger?.warn(
        { err: describeKafkaError(payload.error, context), restart: payload.restart },
        'OpenLineageKafka:Crashed',
      );
      // kafkajs restarts the consumer itself after a retriable failure; otherwise, reconnect.
      if (!payload.restart) void disconnect().then(() => schedule());
    });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
        const { outcomes, commit } = await processBatch(
          deps.ingestor,
          batch,
          async (records) => {
            await producer.send({ topic: config.deadLetterTopic, messages: records, acks: -1 });
          },
          prepare,
        );
        for (const entry of outcomes) if (entry.outcome !== 'pending') resolveOffset(entry.offset);
        if (commit !== null) {
          await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: commit }]);
          recordConsumerPosition(batch.topic, batch.partition, commit, batch.highWatermark);
        }
        deps.logger?.debug(
          { topic: batch.topic, partition: batch.partition, messages: outcomes.length, commit },
          'OpenLineageKafka:BatchCommitted',
        );
        await heartbeat();
      },
    });
    consuming = true;
  };

  /** One attempt; on failure, the next one after the backoff. */
  const attemptConnection = async (): Promise<void> => {
    if (stopped) return;
    try {
      await connect();
      if (stopped) return void (await disconnect()); // stopped while connecting
      if (attempt > 0) deps.logger?.info({ topic: config.topic, attempts: attempt + 1 }, 'OpenLineageKafka:Connected');
      attempt = 0;
    } catch (error) {
      await disconnect();
      if (stopped) return;
      attempt += 1;
      const delay = reconnectDelay(attempt, backoff);
      deps.logger?.warn(
        { err: describeKafkaError(error, context), attempt, retry_in_ms: delay, brokers: config.brokers },
        'OpenLineageKafka:Unavailable',
      );
      schedule(delay);
    }
  };

  function schedule(delay = reconnectDelay(Math.max(1, attempt), backoff)): void {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => void attemptConnection(), delay);
  }

  await attemptConnection();
  return {
    get consuming() {
      return consuming;
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await disconnect();
      await pool?.close();
    },
  };
}

/**
 * Checks that the consumed topic exists, and creates the dead-letter topic when it does not.
 * @throws the kafkajs error (`UNKNOWN_TOPIC_OR_PARTITION` for a missing consumed topic), for `describeKafkaError`
 */
async function ensureTopics(admin: Admin, config: KafkaTransportConfig): Promise<void> {
  const existing = new Set(await admin.listTopics());
  if (!existing.has(config.topic)) {
    const error = new Error(`topic ${config.topic} does not exist`) as Error & { type: string };
    error.type = 'UNKNOWN_TOPIC_OR_PARTITION';
    throw error;
  }
  if (!existing.has(config.deadLetterTopic))
    await admin.createTopics({ topics: [{ topic: config.deadLetterTopic }], waitForLeaders: true });
}
