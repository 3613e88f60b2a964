/**
 * Phase 5 (`Phase 5/5`), only with `enableMetrics` (`--metrics`): throughput metrics over
 * the lookback window, once for every environment (`docs/extraction.md`, "Phases", item 5;
 * `src/extraction/metrics.ts` for the queries and metric names). Requests: `metrics.query` per
 * cluster and per compute pool and metric group, all in parallel, as one guarded extractor `Metrics`.
 * The phase changes no node: it answers samples (`MetricSamples`), which the extraction's result
 * carries (`ExtractionResult.metrics`) and recording appends as `MetricsSampled`.
 */
import {
  derivedMetricEnrichments,
  metricEnrichments,
  metricRequests,
  metricSamples,
  metricsWindow,
  type MetricRequest,
  type MetricSamples,
} from '../metrics.js';
import { failureWarning } from '../failures.js';
import type { MetricsPointBody } from '../platformTypes.js';
import type { DiscoveredEnvironment, ExtractionRun, StreamProcessingInventory } from '../runContext.js';

/**
 * Runs phase 5: the metric queries of every environment's clusters and compute pools, their points
 * as samples of topics, connectors and stream jobs, then the samples derived from the graph itself
 * (consumer group lag, SQL query and catalog table activity). Failed queries give one warning with
 * their count; the others still count. Reads the clock twice (`run.now`): for the window, then for
 * the activity of catalog tables. Never rejects for a platform failure.
 * @param environments every environment extracted in this run.
 * @returns the samples of the nodes `run.builder` holds (each once, sorted by id) and their window.
 */
export async function extractMetrics(
  run: ExtractionRun,
  environments: readonly (DiscoveredEnvironment &
    Pick<StreamProcessingInventory, 'computePools' | 'connectorsByLccId'>)[],
): Promise<MetricSamples> {
  const lookbackHours = run.settings.metricsLookbackHours;
  run.progress(5, 'Phase 5/5', `throughput metrics over the last ${lookbackHours} h`);
  const window = metricsWindow(run.now(), lookbackHours);
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
    interval: `${window.start}/${window.end}`,
  });
  const answers = await queryAll(run, requests);
  const connectors = new Map<string, string>();
  for (const environment of environments)
    for (const [lcc, id] of environment.connectorsByLccId) connectors.set(lcc, id);
  const enrichments = [
    ...metricEnrichments(answers, connectors, lookbackHours),
    ...derivedMetricEnrichments([...run.builder.allNodes()], run.now(), lookbackHours),
  ];
  return metricSamples(enrichments, window, (nodeId) => run.builder.has(nodeId));
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
