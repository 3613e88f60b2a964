/**
 * Enrichment of an existing graph (rather than a fresh extraction).
 */
import type { LineageGraph } from '../graph/model.js';
import {
  derivedMetricEnrichments,
  metricEnrichments,
  metricRequests,
  metricSamples,
  metricsWindow,
  withMetricAttributes,
  type MetricRequest,
  type MetricSamples,
} from './metrics.js';
import type { MetricsPointBody } from './platformTypes.js';
import type { PlatformPort } from './port.js';

/**
 * Phase 5 (metrics) on an existing graph: `--enrich-only --metrics` and the API's enrichment tasks.
 * Clusters, connectors and compute pools are read from the graph's nodes. Failed metric queries
 * become warnings (`Metrics: {message}`).
 * @returns the samples of the graph's nodes (`MetricSamples`: each node once, sorted by id; what is
 *   recorded as `MetricsSampled`), the graph with them as attributes (`withMetricAttributes`: what a
 *   graph file shows; other nodes and the edges unchanged), and the warnings.
 */
export async function enrichWithMetrics(
  graph: LineageGraph,
  platform: Pick<PlatformPort, 'queryMetrics'>,
  lookbackHours: number,
  now = new Date(),
): Promise<{ graph: LineageGraph; samples: MetricSamples; warnings: string[] }> {
  const clusters = new Map<string, { environmentId: string; clusterId: string }>();
  const pools = new Map<string, { environmentId: string; computePoolId: string }>();
  const connectors = new Map<string, string>();
  for (const node of graph.nodes) {
    if (node.system !== 'STREAM' || !node.environment_id) continue;
    if (node.node_type === 'TOPIC' && node.cluster_id)
      clusters.set(`${node.environment_id}/${node.cluster_id}`, {
        environmentId: node.environment_id,
        clusterId: node.cluster_id,
      });
    const pool = node.attributes?.compute_pool_id;
    if (node.node_type === 'STREAM_JOB' && typeof pool === 'string')
      pools.set(`${node.environment_id}/${pool}`, { environmentId: node.environment_id, computePoolId: pool });
    const lcc = node.attributes?.connector_id;
    if (node.node_type === 'CONNECTOR' && typeof lcc === 'string') connectors.set(lcc, node.id);
  }
  const window = metricsWindow(now, lookbackHours);
  const requests = metricRequests({
    clusters: [...clusters.values()],
    computePools: [...pools.values()],
    interval: `${window.start}/${window.end}`,
  });
  const answers: { request: MetricRequest; points: MetricsPointBody[] }[] = [];
  const warnings: string[] = [];
  await Promise.all(
    requests.map((request) =>
      platform.queryMetrics(request.query).then(
        (points) => answers.push({ request, points }),
        (error: unknown) => warnings.push(`Metrics: ${(error as Error).message}`),
      ),
    ),
  );
  const nodeIds = new Set(graph.nodes.map((node) => node.id));
  const samples = metricSamples(
    [
      ...metricEnrichments(answers, connectors, lookbackHours),
      ...derivedMetricEnrichments(graph.nodes, now, lookbackHours),
    ],
    window,
    (nodeId) => nodeIds.has(nodeId),
  );
  return { graph: withMetricAttributes(graph, samples), samples, warnings };
}
