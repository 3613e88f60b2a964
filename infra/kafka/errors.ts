/**
 * What a Kafka failure means to the person running lineage-svc: kafkajs errors (wrapped in retries,
 * with protocol error types such as `TOPIC_AUTHORIZATION_FAILED`) turned into one line that names the
 * cause and the setting to check. Used by the OpenLineage consumer (`openLineageConsumer.ts`) and the
 * Kafka sink of the change publisher (`infra/publish/kafkaSink.ts`), whose log lines carry it.
 *
 * Error names and codes: the Kafka protocol's error codes (https://kafka.apache.org/protocol#protocol_error_codes)
 * as kafkajs reports them (`KafkaJSProtocolError.type`), and kafkajs's own error classes.
 */
import type { LogEntry, logLevel as LogLevels } from 'kafkajs';
import type { Logger } from '../../src/logger.js';

/** Where the settings of a Kafka client come from, to name them in hints. */
export interface KafkaErrorContext {
  /** The topics the client reads or writes. */
  topics: string[];
  /** The consumer group, when the client consumes. */
  groupId?: string;
  /** The prefix of the client's variables, e.g. `LINEAGE_SVC_OPENLINEAGE_KAFKA_`. */
  variablePrefix: string;
}

/** The innermost cause of a kafkajs error (`KafkaJSNumberOfRetriesExceeded` and others wrap `originalError` or `cause`). */
function innermost(error: unknown): { name: string; message: string; type?: string } {
  let current = error as { name?: string; message?: string; type?: string; originalError?: unknown; cause?: unknown };
  for (let depth = 0; depth < 5; depth += 1) {
    const inner = current?.originalError ?? current?.cause;
    if (!inner || typeof inner !== 'object') break;
    current = inner as typeof current;
  }
  return {
    name: String(current?.name ?? 'Error'),
    message: String(current?.message ?? current),
    ...(typeof current?.type === 'string' ? { type: current.type } : {}),
  };
}

/**
 * One line for a Kafka failure: what happened (the innermost kafkajs message) and what to check.
 * Never throws; unknown errors keep their message.
 */
export function describeKafkaError(error: unknown, context: KafkaErrorContext): string {
  const cause = innermost(error);
  const topics = context.topics.join(', ');
  const prefix = context.variablePrefix;
  const text = `${cause.message}${cause.type ? ` (${cause.type})` : ''}`;
  if (cause.name === 'KafkaJSSASLAuthenticationError' || cause.type === 'SASL_AUTHENTICATION_FAILED')
    return `Kafka authentication failed: ${text}; check ${prefix}SASL_MECHANISM, ${prefix}SASL_USERNAME and ${prefix}SASL_PASSWORD`;
  if (cause.type === 'TOPIC_AUTHORIZATION_FAILED')
    return (
      `Kafka refused access to topic ${topics}: ${text}; grant the principal the ACLs it needs ` +
      '(READ on the topic consumed, WRITE on the topics produced to)'
    );
  if (cause.type === 'GROUP_AUTHORIZATION_FAILED')
    return `Kafka refused access to consumer group ${context.groupId ?? '?'}: ${text}; grant the principal READ on the group`;
  if (cause.type === 'CLUSTER_AUTHORIZATION_FAILED' || cause.type === 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED')
    return `Kafka refused a cluster operation: ${text}; the idempotent producer needs IDEMPOTENT_WRITE on the cluster (or WRITE on the topic, Kafka 2.8+)`;
  if (cause.type === 'UNKNOWN_TOPIC_OR_PARTITION')
    return `Kafka topic ${topics} does not exist: ${text}; create it, or set ${prefix}TOPIC to an existing topic`;
  if (
    cause.name === 'KafkaJSConnectionError' ||
    cause.name === 'KafkaJSBrokerNotFound' ||
    cause.name === 'KafkaJSConnectionClosedError' ||
    cause.name === 'KafkaJSRequestTimeoutError' ||
    /ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EHOSTUNREACH|Connection timeout|Closed connection/.test(cause.message)
  )
    return `Kafka brokers unreachable: ${text}; check ${prefix}BROKERS (and ${prefix}SSL)`;
  return `Kafka error: ${text}`;
}

/**
 * A kafkajs `logCreator` that writes kafkajs's own log lines (WARN and ERROR only) through our pino
 * logger as `Kafka:Client` entries, instead of kafkajs's JSON lines on the console.
 * @param logger where to write; undefined: kafkajs logs nothing
 */
export function kafkaLogCreator(logger: Logger | undefined) {
  return (level: LogLevels) =>
    ({ namespace, log }: LogEntry) => {
      if (!logger) return;
      const { message, error, broker } = log as { message: string; error?: string; broker?: string };
      const entry = { namespace, ...(broker ? { broker } : {}), ...(error ? { err: error } : {}) };
      // kafkajs levels: ERROR 1, WARN 2, INFO 4, DEBUG 5.
      if (level === 1) logger.error(entry, `Kafka:Client ${message}`);
      else if (level === 2) logger.warn(entry, `Kafka:Client ${message}`);
    };
}
