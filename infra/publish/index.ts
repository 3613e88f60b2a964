/**
 * Composition of the change publisher (`services/publisher.ts`) from the configuration
 * (`config.publish`, docs/configuration.md): a webhook sink when `LINEAGE_SVC_PUBLISH_WEBHOOK_URL`
 * is set, a Kafka sink when `LINEAGE_SVC_PUBLISH_KAFKA_BROKERS` is, both when both are (a batch is
 * acknowledged once both took it). Nothing runs when neither is set, and nothing of it is loaded
 * then: the publisher, the sinks, the CloudEvents SDK and kafkajs are imported when a sink is
 * configured (a process without publication starts faster and smaller).
 */
import type { Config } from '../../src/config.js';
import { errorMessage } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import type { ProcessLease } from '../../services/ownership.js';
import type { ChangePublisher, ChangeSink } from '../../services/publisher.js';
import type { LineageRuntime } from '../runtime.js';

/** The sinks the configuration asks for, or undefined when publication is off (the Kafka sink connects at its first send). */
export async function configuredSink(publish: Config['publish'], logger: Logger): Promise<ChangeSink | undefined> {
  const sinks: ChangeSink[] = [];
  if (publish.webhookUrl) {
    const { createWebhookSink } = await import('./webhookSink.js');
    sinks.push(
      createWebhookSink({
        url: publish.webhookUrl,
        secret: publish.webhookSecret,
        onRetry: (error, attempt) => logger.warn({ err: error.message, attempt }, 'Publisher:WebhookRetry'),
      }),
    );
  }
  if (publish.kafkaBrokers.length > 0) {
    const { createKafkaSink } = await import('./kafkaSink.js');
    sinks.push(
      await createKafkaSink({
        brokers: publish.kafkaBrokers,
        topic: publish.kafkaTopic,
        ssl: publish.kafkaSsl,
        sasl: publish.kafkaSasl,
        logger,
      }),
    );
  }
  if (sinks.length === 0) return undefined;
  if (sinks.length === 1) return sinks[0];
  const { fanOut } = await import('../../services/publisher.js');
  return fanOut(sinks);
}

/** A publisher being started in the background. */
export interface PublisherHandle {
  /** The publisher once its sinks are connected (undefined before, or when publication is off). */
  readonly publisher: ChangePublisher | undefined;
  /** Stops it (and waits for a start in progress). */
  stop(): Promise<void>;
}

/**
 * Starts publishing in the background when a sink is configured (or `sink` is given): connecting to
 * Kafka never holds up the API; a failure is logged and publication stays off in this process.
 */
export function startConfiguredPublisher(options: {
  config: Pick<Config, 'publish'>;
  runtime: Pick<LineageRuntime, 'store'>;
  lease: ProcessLease;
  logger: Logger;
  sink?: ChangeSink | undefined;
}): PublisherHandle {
  const { config, runtime, lease, logger } = options;
  let publisher: ChangePublisher | undefined;
  let stopped = false;
  const starting = (async () => {
    const sink = options.sink ?? (await configuredSink(config.publish, logger));
    if (!sink) return;
    const { startChangePublisher } = await import('../../services/publisher.js');
    if (stopped) return sink.close();
    publisher = startChangePublisher({ store: runtime.store, lease, sink, logger });
    logger.info({ sink: sink.name }, 'Publisher:Started');
  })().catch((error: unknown) => logger.error({ err: errorMessage(error) }, 'Publisher:NotStarted'));
  return {
    get publisher() {
      return publisher;
    },
    async stop() {
      stopped = true;
      await starting;
      await publisher?.stop();
    },
  };
}
