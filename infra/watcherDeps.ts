/**
 * The production dependencies of a watcher engine (`src/watcher/watcher.ts`), shared by
 * `lineage-svc-watch` and the API's in-process watchers:
 *
 * - `poll`: `pollEstate` over the platform HTTP client (list calls only);
 * - `extract`: `extract` recorded with `recordExtraction` under the actor `watcher:{watcher_id}`
 *   (metrics off, as the watcher's extraction parameters have always been), then, when an output
 *   path is given, the graph written there as JSON;
 * - `push`: the catalog pushes the caller provides, by catalog type (`catalogPushers` builds the
 *   ones this process can run: every implemented and configured catalog provider, pushing the
 *   extracted graph with the default switches).
 */
import { DEFAULT_PUSH_OPTIONS } from '../src/catalogs/provider.js';
import { CATALOG_REGISTRY } from '../src/catalogs/registry.js';
import type { Config } from '../src/config.js';
import { ConfigurationError } from '../src/errors.js';
import { extract } from '../src/extraction/extract.js';
import { recordExtraction } from '../src/extraction/record.js';
import type { Logger } from '../src/logger.js';
import { pollEstate } from '../src/watcher/poll.js';
import type { ExtractionSummary, WatcherDeps, WatcherSettings } from '../src/watcher/watcher.js';
import { unavailableReason } from './catalogs/catalogService.js';
import { createPlatformApi } from './confluent/platformApi.js';
import { pushGraph } from '../services/push.js';
import type { HttpClientOptions } from './confluent/httpClient.js';
import { writeGraphFile } from './graphFile.js';
import type { LineageRuntime } from './runtime.js';

/** A push to one catalog after an extraction. */
export type CatalogPush = (extraction: ExtractionSummary) => Promise<void>;

/** What `watcherDeps` needs. */
export interface WatcherDepsOptions {
  config: Config;
  runtime: Pick<LineageRuntime, 'store' | 'commands'>;
  logger: Logger;
  watcherId: string;
  settings: WatcherSettings;
  /** Where to write each extracted graph (the command: `./lineage_graph.json`); none: not written. */
  outputPath?: string;
  /** Pushes by catalog type (e.g. `LAKEHOUSE_CATALOG`). */
  pushers?: Readonly<Record<string, CatalogPush>>;
  /** Passed to the platform client (tests shorten retries and timeouts). */
  httpOptions?: HttpClientOptions;
}

/**
 * The catalog pushes this process can run, by catalog type: one per implemented and configured
 * provider (`infra/catalogs/catalogService.ts`). Each pushes the graph the extraction wrote to
 * (`DEFAULT_PUSH_OPTIONS`) and throws when the catalog reported errors, so that the watcher logs them.
 */
export function catalogPushers(
  config: Config,
  runtime: Pick<LineageRuntime, 'store' | 'graphs' | 'commands'>,
  logger: Logger,
): Record<string, CatalogPush> {
  const pushers: Record<string, CatalogPush> = {};
  for (const entry of CATALOG_REGISTRY) {
    if (unavailableReason(entry, config) !== undefined) continue;
    pushers[entry.catalogType] = async (extraction) => {
      const result = await pushGraph(
        { runtime, config, logger },
        { catalogType: entry.catalogType, graphId: extraction.graphId, options: DEFAULT_PUSH_OPTIONS },
      );
      if (result.errors.length > 0) throw new Error(`${result.errors.length} error(s), the first: ${result.errors[0]}`);
    };
  }
  return pushers;
}

/** The error of a watcher started without platform credentials. */
export function missingCredentialsError(): ConfigurationError {
  return new ConfigurationError(
    'watching needs LINEAGE_SVC_STREAM_CLOUD_API_KEY and LINEAGE_SVC_STREAM_CLOUD_API_SECRET, which are not set',
  );
}

/** The engine dependencies except `record`, `timers` and `onLog`. */
export function watcherDeps(options: WatcherDepsOptions): Pick<WatcherDeps, 'poll' | 'extract' | 'push'> {
  const { config, runtime, logger, watcherId, settings } = options;
  const platform = createPlatformApi(config.stream, { logger, ...options.httpOptions });
  const hasCredentials = Boolean(config.stream.credentials.cloud);
  return {
    async poll() {
      if (!hasCredentials) throw missingCredentialsError();
      return pollEstate(platform, {
        environmentIds: settings.environmentIds,
        clusterIds: settings.clusterIds,
        schemaRegistryUrl: config.stream.schemaRegistryUrl,
        flinkApiUrl: config.stream.flinkApiUrl,
      });
    },
    async extract() {
      if (!hasCredentials) throw missingCredentialsError();
      const recorded = await recordExtraction(
        runtime,
        {
          environmentIds: settings.environmentIds,
          clusterIds: settings.clusterIds,
          enableMetrics: false,
          actor: `watcher:${watcherId}`,
        },
        () =>
          extract(
            { platform, logger },
            {
              environmentIds: settings.environmentIds,
              clusterIds: settings.clusterIds,
              enableMetrics: false,
              schemaRegistryUrl: config.stream.schemaRegistryUrl,
              flinkApiUrl: config.stream.flinkApiUrl,
              datalakeRegion: config.datalake.region,
            },
          ),
      );
      if (options.outputPath !== undefined) await writeGraphFile(options.outputPath, recorded.result.graph);
      return {
        extractionId: recorded.extractionId,
        graphId: recorded.graphId,
        nodeCount: recorded.result.counts.nodes,
        edgeCount: recorded.result.counts.edges,
        graphRevision: recorded.record.revision,
      };
    },
    async push(catalogType, extraction) {
      const push = options.pushers?.[catalogType];
      if (!push) throw new Error(`pushing to ${catalogType} is not available`);
      await push(extraction);
    },
  };
}
