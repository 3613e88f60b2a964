/**
 * The real work behind the API's tasks.
 *
 * - `extract`: reads the requested environments from the streaming platform (`src/extraction/extract.ts`
 *   through `infra/confluent/platformApi.ts`) and records the result in the graph named `default`
 *   (`src/extraction/record.ts`: `replace` scoped to the extracted environments, so other
 *   environments stay). Each extraction phase is reported as the task's phase.
 * - `enrich`: enriches a graph (by default the most recently changed one) with throughput metrics
 *   through the injected `enrichMetrics`, and records the difference (mode `merge`, cause
 *   `enrichment`), and with `enable_catalog` with every configured catalog provider
 *   (`../catalogs/catalogService.ts`: the lakehouse today); catalog warnings join the result's
 *   warnings, and when no provider is configured a warning says which variables to set.
 *
 * Both fail (and so the task ends `failed`) with a one-line error naming the cause when the
 * platform credentials are missing.
 */
import { ConfigurationError } from '../src/errors.js';
import type { Config } from '../src/config.js';
import { extract } from '../src/extraction/extract.js';
import { recordExtraction } from '../src/extraction/record.js';
import { countChanges } from '../src/graph/changes.js';
import type { LineageGraph } from '../src/graph/model.js';
import { recordGraph } from '../src/graphCommands.js';
import type { Logger } from '../src/logger.js';
import { toLineageGraph } from '../projections/graphProjection.js';
import { createPlatformApi, type ConfluentPlatformApi } from '../infra/confluent/platformApi.js';
import type { HttpClientOptions } from '../infra/confluent/httpClient.js';
import type { LineageRuntime } from '../infra/runtime.js';
import { defaultGraph, readGraph } from './graphs.js';
import type { TaskRunners } from './tasks.js';
import { enrichWithMetrics } from '../src/extraction/enrich.js';
import { enrichCatalogs, type CatalogClientOptions } from '../infra/catalogs/catalogService.js';

/** What the runners need. */
export interface TaskRunnerDeps {
  config: Config;
  runtime: Pick<LineageRuntime, 'store' | 'graphs' | 'commands'>;
  logger: Logger;
  /** Passed to the platform client (tests shorten retries and timeouts). */
  httpOptions?: HttpClientOptions;
  /** Passed to the catalog clients (tests shorten retries and timeouts). */
  catalogClientOptions?: CatalogClientOptions;
}

/** The warning of an enrichment that asks for catalog enrichment when no catalog provider is configured. */
export const CATALOG_ENRICHMENT_UNAVAILABLE =
  'catalog enrichment is not available: no catalog provider is configured (set LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL and LINEAGE_SVC_LAKEHOUSE_TOKEN); catalog attributes are left as they are';

function requireCloudCredentials(config: Config, purpose: string): void {
  if (!config.stream.credentials.cloud) {
    throw new ConfigurationError(
      `${purpose} needs LINEAGE_SVC_STREAM_CLOUD_API_KEY and LINEAGE_SVC_STREAM_CLOUD_API_SECRET, which are not set`,
    );
  }
}

/** Builds the runners from the configuration and the runtime. */
export function createTaskRunners(deps: TaskRunnerDeps): TaskRunners {
  const { config, runtime, logger } = deps;
  const platform = () => createPlatformApi(config.stream, { logger, ...deps.httpOptions });
  return {
    async extract(params, progress) {
      requireCloudCredentials(config, 'extraction');
      progress('Discovery', `extracting ${params.environment_ids.length} environment(s)`);
      const recorded = await recordExtraction(
        runtime,
        {
          environmentIds: params.environment_ids,
          clusterIds: params.cluster_ids,
          enableMetrics: params.enable_metrics,
          actor: 'api',
        },
        () =>
          extract(
            { platform: platform(), logger },
            {
              environmentIds: params.environment_ids,
              clusterIds: params.cluster_ids,
              enableMetrics: params.enable_metrics,
              metricsLookbackHours: params.metrics_lookback_hours,
              onProgress: (step) => progress(step.label, step.message),
              schemaRegistryUrl: config.stream.schemaRegistryUrl,
              flinkApiUrl: config.stream.flinkApiUrl,
              datalakeRegion: config.datalake.region,
            },
          ),
      );
      return {
        graph_id: recorded.graphId,
        node_count: recorded.result.counts.nodes,
        edge_count: recorded.result.counts.edges,
        extraction_id: recorded.extractionId,
        changes: countChanges(recorded.record.changes),
        warnings: recorded.result.warnings,
      };
    },
    async enrich(params, progress) {
      const state = params.graph_id === null ? defaultGraph(runtime) : await readGraph(runtime, params.graph_id);
      const graphId = state.graphId;
      const warnings: string[] = [];
      let graph = toLineageGraph(state);
      if (params.enable_catalog) {
        progress('Catalogs', 'enriching catalog tables (lakehouse)');
        const catalogs = await enrichCatalogs(graph, config, { logger, ...deps.catalogClientOptions });
        if (catalogs.ran.length === 0) warnings.push(CATALOG_ENRICHMENT_UNAVAILABLE);
        graph = catalogs.graph;
        warnings.push(...catalogs.warnings);
      }
      if (params.enable_metrics) {
        requireCloudCredentials(config, 'metrics enrichment');
        progress('Metrics', `throughput metrics over the last ${params.metrics_lookback_hours} h`);
        const enriched = await enrichWithMetrics(graph, platform(), params.metrics_lookback_hours);
        graph = enriched.graph;
        warnings.push(...enriched.warnings);
      }
      progress('Recording', `recording the enrichment of graph ${graphId}`);
      const record = await recordGraph(
        runtime.commands,
        graphId,
        graph,
        { mode: 'merge' },
        { cause: 'enrichment', actor: 'api' },
      );
      const after = await readGraph(runtime, graphId);
      return {
        graph_id: graphId,
        node_count: after.graph.order,
        edge_count: after.graph.size,
        changes: countChanges(record.changes),
        warnings,
      };
    },
  };
}
