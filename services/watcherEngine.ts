/**
 * What a watcher engine (`src/watcher/watcher.ts`) does at each step, for `lineage-svc-watch` and the
 * API's in-process watchers alike:
 *
 * - `poll`: `pollEstate` over one platform client (list calls only), kept for the watcher's life so
 *   that its rate budget holds across polls;
 * - `extract`: `runExtraction` under the actor `watcher:{watcher_id}`, with catalog enrichment like
 *   every other entry point (so that a watcher and the CLI never undo each other's catalog nodes;
 *   metrics off), writing the graph file `output` when given (`lineage-svc-watch --output`);
 * - `push`: the catalog push of that type from `pushers` (`./push.ts` `catalogPushers`).
 *
 * Errors: `poll` and `extract` throw a ConfigurationError without cloud credentials; `push` throws
 * for a catalog type it has no pusher for. The engine logs what they throw and goes on.
 */
import { ConfigurationError } from '../src/errors.js';
import { PlatformApiError } from '../src/extraction/port.js';
import { pollEstate } from '../src/watcher/poll.js';
import type { ExtractionSummary, WatcherDeps, WatcherSettings } from '../src/watcher/watcher.js';
import type { ServiceContext } from './context.js';
import { requireCloudCredentials, runExtraction } from './extraction.js';
import type { CatalogPush } from './push.js';

/** What `watcherEngineDeps` needs beyond the context. */
export interface WatcherEngineOptions {
  watcherId: string;
  settings: WatcherSettings;
  /** Pushes by catalog type (e.g. `LAKEHOUSE_CATALOG`). */
  pushers?: Readonly<Record<string, CatalogPush>> | undefined;
  /** The graph file each extraction writes once recorded (`lineage-svc-watch --output`); none when absent. */
  output?: string | undefined;
}

/** The engine dependencies except `record`, `timers` and `onLog`. */
export function watcherEngineDeps(
  context: ServiceContext,
  options: WatcherEngineOptions,
): Pick<WatcherDeps, 'poll' | 'extract' | 'push'> {
  const { config } = context;
  const { watcherId, settings } = options;
  const platform = context.platform();
  return {
    async poll() {
      requireCloudCredentials(config, 'watching');
      return pollEstate(platform, {
        environmentIds: settings.environmentIds,
        clusterIds: settings.clusterIds,
        schemaRegistryUrl: config.stream.schemaRegistryUrl,
        flinkApiUrl: config.stream.flinkApiUrl,
      });
    },
    async extract(): Promise<ExtractionSummary> {
      const outcome = await runExtraction(context, {
        environmentIds: settings.environmentIds,
        clusterIds: settings.clusterIds,
        enableMetrics: false,
        actor: `watcher:${watcherId}`,
        enrichCatalogs: true,
        output: options.output === undefined ? undefined : { path: options.output, format: 'json' },
      });
      return {
        extractionId: outcome.extractionId,
        graphId: outcome.graphId,
        nodeCount: outcome.counts.nodes,
        edgeCount: outcome.counts.edges,
        graphRevision: outcome.graphRevision,
      };
    },
    async push(catalogType, extraction) {
      const push = options.pushers?.[catalogType];
      if (!push) throw new Error(`pushing to ${catalogType} is not available`);
      await push(extraction);
    },
  };
}

/** A watched environment that the platform does not know (or does not show to the configured key). */
export class UnknownEnvironmentError extends ConfigurationError {}

/**
 * Checks that the platform knows each of `environmentIds` (`GET /org/v2/environments/{id}`), before
 * a watcher starts polling them: a 404 or 403 throws an UnknownEnvironmentError naming the
 * environment, so that a wrong `--env` stops the watcher instead of polling nothing forever. Any
 * other failure (the platform unreachable, a timeout) is left to the watcher, which retries.
 */
export async function checkWatchedEnvironments(
  context: ServiceContext,
  environmentIds: readonly string[],
): Promise<void> {
  requireCloudCredentials(context.config, 'watching');
  const platform = context.platform();
  for (const environmentId of environmentIds) {
    try {
      await platform.getEnvironment(environmentId);
    } catch (error) {
      if (error instanceof PlatformApiError && (error.status === 404 || error.status === 403)) {
        throw new UnknownEnvironmentError(
          `the platform does not know the environment ${environmentId} (GET /org/v2/environments/${environmentId} ` +
            `answered ${error.status}): check --env and that the cloud API key can see it`,
        );
      }
    }
  }
}
