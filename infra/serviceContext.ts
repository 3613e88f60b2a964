/**
 * The composition root of the use cases: binds `services/context.ts`'s ports to their adapters (the
 * Confluent Cloud HTTP client, the catalog clients) for a command, the API or a watcher.
 */
import type { Config } from '../src/config.js';
import type { Logger } from '../src/logger.js';
import type { ServiceContext } from '../services/context.js';
import { createCatalogGateway, type CatalogClientOptions } from './catalogs/catalogService.js';
import { createPlatformBudgets, type HttpClientOptions } from './confluent/httpClient.js';
import { createPlatformApi } from './confluent/platformApi.js';
import type { LineageRuntime } from './runtime.js';
import { graphFileWriter } from './graphFile.js';
import { DEFAULT_GRAPH_NAME } from '../src/graphCommands.js';

/** What `createServiceContext` needs; the client options let tests shorten retries and timeouts. */
export interface ServiceContextOptions {
  config: Config;
  runtime: LineageRuntime;
  logger: Logger;
  /** Passed to every platform client. */
  httpOptions?: HttpClientOptions | undefined;
  /** Passed to every catalog client. */
  catalogClientOptions?: CatalogClientOptions | undefined;
}

/**
 * The use cases' dependencies over the real adapters. Every platform client it creates (one per task
 * or watcher extraction) shares one request budget per credential + base URL (`createPlatformBudgets`),
 * so the configured rate (about 1,000 requests an hour per key) holds for the process as a whole.
 */
export function createServiceContext(options: ServiceContextOptions): ServiceContext {
  const { config, runtime, logger } = options;
  const budgets = options.httpOptions?.budgets ?? createPlatformBudgets();
  return {
    config,
    runtime,
    logger,
    platform: () => createPlatformApi(config.stream, { logger, ...options.httpOptions, budgets }),
    catalogs: createCatalogGateway(config, { ...options.catalogClientOptions, logger }),
    graphFiles: graphFileWriter(DEFAULT_GRAPH_NAME),
  };
}
