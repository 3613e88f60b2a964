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
 * SIGINT/SIGTERM: stops accepting connections, lets in-flight requests finish (up to 10 s), waits
 * for running tasks (up to 5 s), then closes the store; exit code 0. Bad configuration, or a store
 * that cannot be opened, prints one line on stderr and exits 2.
 */
import './environment.js'; // first: .env settings before anything reads the environment
import { existsSync } from 'node:fs';
import closeWithGrace from 'close-with-grace';
import { loadConfig } from '../src/config.js';
import { DEFAULT_GRAPH_NAME, graphIdForName, recordGraph } from '../src/graphCommands.js';
import { createLogger, type Logger } from '../src/logger.js';
import { readGraphFile } from '../infra/graphFile.js';
import { buildApp } from '../infra/http/app.js';
import { describeEventStore } from '../infra/eventStore/createEventStore.js';
import { openRuntime, TRAVERSAL_INDEX_QUIET_MILLISECONDS, type LineageRuntime } from '../infra/runtime.js';
import { reportError } from './shared.js';
import { printVersionIfAsked } from './arguments.js';
import {
  kafkaTransportConfig,
  startOpenLineageConsumer,
  type OpenLineageConsumer,
} from '../infra/kafka/openLineageConsumer.js';

const NAME = 'lineage-svc-api';

/** How long shutdown waits for in-flight requests before closing anyway, in ms. */
const GRACE_MS = 10_000;

const HELP = `${NAME}: start the lineage-svc REST API (no arguments; settings from the environment)

Usage: ${NAME} [--help | --version]

Settings (environment variables):
  LINEAGE_SVC_API_HOST          bind address (default 0.0.0.0)
  LINEAGE_SVC_API_PORT          port (default 8000)
  LINEAGE_SVC_API_KEY           when set, every /api/v1 route but GET /api/v1/health needs X-API-Key
  LINEAGE_SVC_STORAGE__BACKEND  sqlite (default), memory, file, postgres, eventstoredb
  LINEAGE_SVC_STORAGE__PATH     folder of the file and sqlite stores (default ./.lineage-svc)
  LINEAGE_SVC_STORAGE__URL      connection URL of the postgres and eventstoredb stores
  LINEAGE_SVC_GRAPH_FILE        graph file imported as graph "default" when the store holds no graph
                                (default ./lineage_graph.json)
  LINEAGE_SVC_LOG_LEVEL         DEBUG, INFO (default), WARNING, ERROR
  LINEAGE_SVC_STREAM_CLOUD_API_KEY / _SECRET, LINEAGE_SVC_CLUSTER_API_KEY / _SECRET, ...
                                platform credentials used by extraction tasks (see docs/configuration)
  LINEAGE_SVC_ENABLE_METRICS    default of enable_metrics for extraction tasks

Docs: http://HOST:PORT/docs (Swagger UI), /redoc, /openapi.json

Exit codes: 0 stopped by SIGINT/SIGTERM; 2 bad configuration or the store cannot be opened.
`;

/**
 * Imports the graph file into the graph named `default` when the store holds no graph and the file
 * exists. A file that cannot be read or is invalid is logged and skipped (the API still starts).
 * Resolves with what happened.
 */
export async function importGraphFileIfEmpty(
  runtime: LineageRuntime,
  path: string,
  logger: Logger,
): Promise<'imported' | 'store-not-empty' | 'no-file' | 'invalid-file'> {
  if (runtime.graphs.list().length > 0) return 'store-not-empty';
  if (!existsSync(path)) return 'no-file';
  try {
    const graph = await readGraphFile(path);
    const result = await recordGraph(
      runtime.commands,
      graphIdForName(DEFAULT_GRAPH_NAME),
      graph,
      { mode: 'replace', createIfMissing: true, name: DEFAULT_GRAPH_NAME },
      { cause: 'import', actor: 'api' },
    );
    logger.info(
      { path, graph_id: result.graphId, nodes: graph.nodes.length, edges: graph.edges.length },
      'GraphFile:Imported',
    );
    return 'imported';
  } catch (error) {
    logger.error({ path, err: error instanceof Error ? error.message : String(error) }, 'GraphFile:ImportFailed');
    return 'invalid-file';
  }
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
  const logger = createLogger({ level: config.logLevel });
  logger.info({ store: describeEventStore(config.storage) }, 'Api:Store');
  let runtime: LineageRuntime;
  try {
    runtime = await openRuntime(config, logger, {
      traversalIndexQuietMilliseconds: TRAVERSAL_INDEX_QUIET_MILLISECONDS,
    });
  } catch (error) {
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
    await app.listen({ host: config.api.host, port: config.api.port });
  } catch (error) {
    await runtime.close();
    return reportError(process, NAME, error);
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
