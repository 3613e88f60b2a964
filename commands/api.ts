#!/usr/bin/env node
/**
 * `lineage-svc-api`: starts the REST API server (specification "Command-line tools"; `docs/api.md`).
 * No arguments; settings come from the environment (`src/config.ts`), `--help` lists them.
 *
 * At start it opens the configured store, and when the store holds no graph it imports
 * `LINEAGE_SVC_GRAPH_FILE` (when that file exists) into the graph named `default`, so that
 * `lineage-svc-extract` followed by `lineage-svc-api` shows the graph even on the memory store.
 * It listens on `LINEAGE_SVC_API_HOST:LINEAGE_SVC_API_PORT` (default 0.0.0.0:8000).
 *
 * Listen first (issue 17): before the store is opened, the address is taken by a placeholder
 * server (`holdAddress`), so that a port in use exits 2 with one line naming the address and the
 * variables, and the store is never touched. The placeholder is released just before the API
 * listens; the address is lost only if another process takes it in that instant, and then the API
 * releases its lease, closes the store and exits 2 the same way.
 *
 * SIGINT/SIGTERM: stops accepting connections, lets in-flight requests finish (up to 3 s), waits
 * for running tasks (up to 5 s), stops its watchers, releases its lease, then closes the store; exit
 * code 0 (1 when that takes over 10 s, or on a second signal: `HELP`). Bad configuration, or a store
 * that cannot be opened, prints one line on stderr and exits 2.
 */
import './environment.js'; // first: .env settings before anything reads the environment
import { limitHeapGrowth } from '../infra/v8Heap.js';
import { createServer, type Server } from 'node:net';
import closeWithGrace from 'close-with-grace';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { buildApp, CONNECTION_DRAIN_MS, TASK_DRAIN_MS } from '../infra/http/app.js';
import { describeEventStore } from '../infra/eventStore/createEventStore.js';
import {
  importGraphFileIfEmpty,
  openRuntime,
  TRAVERSAL_INDEX_QUIET_MILLISECONDS,
  type LineageRuntime,
} from '../infra/runtime.js';
import { printVersionIfAsked, reportError } from './arguments.js';
import { settingsHelp } from './environment.js';
import {
  kafkaTransportConfig,
  startOpenLineageConsumer,
  type OpenLineageConsumer,
} from '../infra/kafka/openLineageConsumer.js';

const NAME = 'lineage-svc-api';

/** How long shutdown waits for in-flight requests before closing anyway, in ms. */
const GRACE_MS = 10_000;

/**
 * The `--help` text: the settings come from the one table of `./environment.ts` (`settingsHelp`); the
 * shutdown paragraph says what `main` (close-with-grace) and `buildApp`'s close hooks
 * (`infra/http/app.ts`) do.
 */
const HELP = `${NAME}: start the lineage-svc REST API (no arguments; settings from the environment)

Usage: ${NAME} [--help | --version]

Settings (environment variables; a .env file in the working directory is read too, the environment wins):
${settingsHelp('api')}
  AWS and Google SDK settings (AWS_REGION, AWS_ENDPOINT_URL_GLUE, AWS_ENDPOINT_URL_DATAZONE, AWS credentials,
  application-default credentials) are read by the catalog clients. Details: docs/configuration.md.

Docs: http://HOST:PORT/docs (Swagger UI), /redoc, /openapi.json

Shutdown (SIGINT or SIGTERM): stops the OpenLineage Kafka consumer and stops accepting connections; idle
connections close at once, open requests get ${CONNECTION_DRAIN_MS / 1000} s to finish before their connections are closed. Then it
stops publishing and sweeping, waits up to ${TASK_DRAIN_MS / 1000} s for running tasks (a task still running is failed by the
next sweep of an API process on the store), records its watchers STOPPED, releases its lease and closes the
store: exit 0. When all that takes more than ${GRACE_MS / 1000} s, or on a second signal, it exits 1 at once.

Exit codes: 0 stopped by SIGINT/SIGTERM; 1 shutdown took too long or a second signal;
2 bad configuration, the address is in use, or the store cannot be opened.
`;

/** The placeholder server that holds the API's address until the API listens; `release` frees it. */
export interface HeldAddress {
  release(): Promise<void>;
}

/**
 * Takes `host:port` with a placeholder server (no connection is ever accepted on it), so that the
 * command knows it can listen before it opens the store. Port 0 (an ephemeral port) needs no hold.
 * @throws Error naming the address and `LINEAGE_SVC_API_HOST`/`LINEAGE_SVC_API_PORT` when it is
 *   in use or cannot be bound.
 */
export async function holdAddress(host: string, port: number): Promise<HeldAddress> {
  if (port === 0) return { release: async () => {} };
  const server: Server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(addressError(host, port, error)));
    server.listen({ host, port, exclusive: true }, () => resolve());
  });
  return { release: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The one-line error of an address the API cannot listen on, naming the variables that set it. */
export function addressError(host: string, port: number, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason =
    code === 'EADDRINUSE'
      ? 'the port is already in use'
      : code === 'EACCES'
        ? 'permission denied'
        : error instanceof Error
          ? error.message
          : String(error);
  return new Error(
    `cannot listen on ${host}:${port} (LINEAGE_SVC_API_HOST, LINEAGE_SVC_API_PORT): ${reason}; ` +
      'set LINEAGE_SVC_API_PORT to a free port',
  );
}

async function main(argv: string[]): Promise<number> {
  if (printVersionIfAsked(NAME, argv)) return 0;
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  if (argv.length > 0) {
    process.stderr.write(
      `${NAME}: takes no arguments (settings come from the environment; see --help), got "${argv.join(' ')}"\n`,
    );
    return 2;
  }
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    return reportError(process, NAME, error);
  }
  limitHeapGrowth(config.heapGrowthPercent);
  const logger = createLogger({ level: config.logLevel });
  let held: HeldAddress;
  try {
    held = await holdAddress(config.api.host, config.api.port);
  } catch (error) {
    return reportError(process, NAME, error);
  }
  logger.info({ store: describeEventStore(config.storage) }, 'Api:Store');
  let runtime: LineageRuntime;
  try {
    runtime = await openRuntime(config, logger, {
      traversalIndexQuietMilliseconds: TRAVERSAL_INDEX_QUIET_MILLISECONDS,
    });
  } catch (error) {
    await held.release();
    return reportError(process, NAME, error);
  }
  await importGraphFileIfEmpty(runtime, config.graphFile, logger);
  const app = await buildApp({ config, logger, runtime });
  let consumer: OpenLineageConsumer | undefined;
  closeWithGrace({ delay: GRACE_MS, logger }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'Api:Crashed');
    logger.info({ signal }, 'Api:Stopping');
    await consumer?.stop();
    await app.close();
    await runtime.close();
  });
  try {
    await held.release();
    await app.listen({ host: config.api.host, port: config.api.port });
  } catch (error) {
    // Another process took the address after it was released: give back the lease, close the store.
    await app.close().catch(() => {});
    await runtime.close();
    return reportError(process, NAME, addressError(config.api.host, config.api.port, error));
  }
  // The OpenLineage Kafka transport, when brokers are configured. Started after the API listens so
  // that unreachable brokers never keep the API down; a failure is logged and the API goes on.
  const transport = kafkaTransportConfig(config.openLineageKafka);
  if (transport) {
    startOpenLineageConsumer(transport, { ingestor: runtime.openLineageIngestor, logger }).then(
      (started) => {
        consumer = started;
        logger.info({ topic: transport.topic, brokers: transport.brokers }, 'OpenLineageKafka:Consuming');
      },
      (error: unknown) =>
        logger.error({ err: error instanceof Error ? error.message : String(error) }, 'OpenLineageKafka:NotStarted'),
    );
  }
  return 0;
}

try {
  const code = await main(process.argv.slice(2));
  if (code !== 0) process.exit(code);
} catch (error) {
  process.exit(reportError(process, NAME, error));
}
