/**
 * The work behind the API's tasks, over the use cases of `./extraction.ts`:
 *
 * - `extract`: `runExtraction` of the requested environments into the graph named `default`
 *   (scoped to them, so other environments stay), enriched from every available catalog, as
 *   `lineage-svc-extract` does; each phase is reported as the task's phase.
 * - `enrich`: `enrichStoredGraph` of a graph (by default the most recently changed one) with
 *   throughput metrics and, with `enable_catalog`, every available catalog; when none is, the
 *   result's warnings say which variables to set.
 *
 * Both fail (and so the task ends `failed`) with a one-line error naming the cause when the
 * platform credentials are missing.
 */
import { countChanges } from '../src/graph/changes.js';
import type { ServiceContext } from './context.js';
import { enrichStoredGraph, runExtraction } from './extraction.js';
import type { TaskRunners } from './tasks.js';

/** Builds the runners over a service context. */
export function createTaskRunners(context: ServiceContext): TaskRunners {
  return {
    async extract(params, progress) {
      progress('Discovery', `extracting ${params.environment_ids.length} environment(s)`);
      const outcome = await runExtraction(context, {
        environmentIds: params.environment_ids,
        clusterIds: params.cluster_ids,
        enableMetrics: params.enable_metrics,
        metricsLookbackHours: params.metrics_lookback_hours,
        actor: 'api',
        enrichCatalogs: true,
        onProgress: (step) => progress(step.label, step.message),
      });
      return {
        graph_id: outcome.graphId,
        node_count: outcome.counts.nodes,
        edge_count: outcome.counts.edges,
        extraction_id: outcome.extractionId,
        changes: countChanges(outcome.changes),
        warnings: outcome.warnings,
        incomplete_scopes: outcome.incompleteScopes,
      };
    },
    async enrich(params, progress) {
      return {
        ...(await enrichStoredGraph(context, {
          graphId: params.graph_id,
          catalogs: params.enable_catalog,
          metrics: params.enable_metrics,
          metricsLookbackHours: params.metrics_lookback_hours,
          actor: 'api',
          onProgress: (step) => progress(step.label, step.message),
        })),
      };
    },
  };
}
