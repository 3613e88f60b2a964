/**
 * Phase 5 (`Phase 5/4 (metrics)`), only with `enableMetrics` (`--metrics`): throughput metrics over
 * the lookback window, once for every environment (`docs/extraction.md`, "Phases", item 5;
 * `src/extraction/metrics.ts` for the queries and attributes). Requests: `metrics.query` per
 * cluster and per compute pool and metric group, all in parallel, as one guarded extractor `Metrics`.
 */
import {
  derivedMetricEnrichments,
  metricEnrichments,
  metricRequests,
  metricsInterval,
  type MetricRequest,
} from '../metrics.js';
import type { Enrichment } from '../catalog.js';
import { failureWarning } from '../failures.js';
import type { MetricsPointBody } from '../platformTypes.js';
import type { DiscoveredEnvironment, ExtractionRun, StreamProcessingInventory } from '../runContext.js';

/**
 * Runs phase 5: the metric queries of every environment's clusters and compute pools, their points
 * as enrichments of topics, connectors and stream jobs, then the enrichments derived from the graph
 * itself (consumer group lag, SQL query and catalog table activity). Failed queries give one
 * warning with their count; the others still apply. Reads the clock twice (`run.now`): for the
 * window, then for the activity of catalog tables. Never rejects for a platform failure.
 * @param environments every environment extracted in this run.
 */
export async function extractMetrics(
  run: ExtractionRun,
  environments: readonly (DiscoveredEnvironment &
    Pick<StreamProcessingInventory, 'computePools' | 'connectorsByLccId'>)[],
): Promise<void> {
  const lookbackHours = run.settings.metricsLookbackHours;
  run.progress(5, 'Phase 5/4 (metrics)', `throughput metrics over the last ${lookbackHours} h`);
  const requests = metricRequests({
    clusters: environments.flatMap((environment) =>
      environment.clusters.map((cluster) => ({
        environmentId: environment.environmentId,
        clusterId: cluster.clusterId,
      })),
    ),
    computePools: environments.flatMap((environment) =>
      environment.computePools.map((pool) => ({ environmentId: environment.environmentId, computePoolId: pool.id })),
    ),
    interval: metricsInterval(run.now(), lookbackHours),
  });
  const answers = await queryAll(run, requests);
  const connectors = new Map<string, string>();
  for (const environment of environments)
    for (const [lcc, id] of environment.connectorsByLccId) connectors.set(lcc, id);
  applyEnrichments(run, metricEnrichments(answers, connectors, lookbackHours));
  applyEnrichments(run, derivedMetricEnrichments([...run.builder.allNodes()], run.now(), lookbackHours));
}

/** Every query in parallel; the answers in the order they arrived. Failures give one warning `(n of m metric queries failed)`. */
async function queryAll(
  run: ExtractionRun,
  requests: readonly MetricRequest[],
): Promise<{ request: MetricRequest; points: MetricsPointBody[] }[]> {
  const answers: { request: MetricRequest; points: MetricsPointBody[] }[] = [];
  const failures: unknown[] = [];
  await run.guarded(
    'Metrics',
    undefined,
    async () => {
      await Promise.all(
        requests.map((request) =>
          run.platform.queryMetrics(request.query).then(
            (points) => answers.push({ request, points }),
            (error: unknown) => failures.push(error),
          ),
        ),
      );
    },
    undefined,
  );
  if (failures.length > 0)
    run.warn(
      `${failureWarning('Metrics', failures[0])} (${failures.length} of ${requests.length} metric queries failed)`,
    );
  return answers;
}

/** Merges enrichments into the nodes `run.builder` holds (never creating one). */
function applyEnrichments(run: ExtractionRun, enrichments: readonly Enrichment[]): void {
  for (const enrichment of enrichments) run.builder.enrich(enrichment.nodeId, enrichment.attributes);
}
