/**
 * Enrichment of an existing graph (rather than a fresh extraction).
 */
import type { LineageGraph } from '../graph/model.js';
import { GraphBuilder } from './graphBuilder.js';
import {
  derivedMetricEnrichments,
  metricEnrichments,
  metricRequests,
  metricsInterval,
  type MetricRequest,
} from './metrics.js';
import type { MetricsPointBody } from './platformTypes.js';
import type { PlatformPort } from './port.js';

/**
 * Phase 5 (metrics) on an existing graph: `--enrich-only --metrics` and the API's enrichment tasks. Clusters, connectors and compute
 * pools are read from the graph's nodes. Failed metric queries become warnings.
 */
export async function enrichWithMetrics(
  graph: LineageGraph,
  platform: Pick<PlatformPort, 'queryMetrics'>,
  lookbackHours: number,
  now = new Date(),
): Promise<{ graph: LineageGraph; warnings: string[] }> {
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
  const requests = metricRequests({
    clusters: [...clusters.values()],
    computePools: [...pools.values()],
    interval: metricsInterval(now, lookbackHours),
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
  const builder = new GraphBuilder();
  builder.add({ nodes: graph.nodes, edges: graph.edges });
  for (const enrichment of [
    ...metricEnrichments(answers, connectors, lookbackHours),
    ...derivedMetricEnrichments(graph.nodes, now, lookbackHours),
  ]) {
    builder.enrich(enrichment.nodeId, enrichment.attributes);
  }
  const built = builder.build();
  return {
    graph: graph.metadata ? { ...built.graph, metadata: graph.metadata } : built.graph,
    warnings: [...warnings, ...built.warnings],
  };
}
