/**
 * Observations are not lineage (issue 22, item 3; `docs/extraction.md`, "Lineage and observations").
 * Some values an extraction reads move on their own, with no change to the estate: consumer lag and
 * mirror lag. Recorded as graph attributes, every run would write a history entry. They are taken off
 * the graph before it is recorded and kept as metric samples instead (`MetricsSampled` in
 * `metrics-{graph_id}`), which graph reads lay over the nodes as their latest values and
 * `GET /graphs/{id}/nodes/{node_id}/metrics` answers as a series:
 *
 * | read as | recorded as a sample of | metric |
 * |---|---|---|
 * | CONSUMER_GROUP `total_lag` (records behind, all topics) | the group | `metrics_total_lag` |
 * | CONSUMES topic -> group `lag` (records behind on that topic) | the group | `metrics_lag.{topic name}` |
 * | Cluster Linking TRANSFORMS `mirror_lag` (records behind the source) | the mirror topic | `metrics_mirror_lag` |
 *
 * Everything else an extraction reads is lineage: a change to it is a change to the estate. Pure.
 */
import type { NodeMetricSample } from '../events.js';
import type { Edge, LineageGraph, Node } from '../graph/model.js';
import type { MetricSamples } from './metrics.js';
import { isClusterLinkEdge } from './scopes.js';

/** The window of the consumer lag query (`consumerLagQuery`): the last 5 minutes. */
const LAG_WINDOW_MILLISECONDS = 5 * 60_000;

/** A node or edge without some attribute keys; the same object when it has none of them. */
function without<T extends Node | Edge>(item: T, keys: readonly string[]): T {
  const attributes = item.attributes;
  if (!attributes || !keys.some((key) => key in attributes)) return item;
  return { ...item, attributes: Object.fromEntries(Object.entries(attributes).filter(([key]) => !keys.includes(key))) };
}

/** The topic name of a topic node id (`stream:topic:{env}:{cluster}/{topic}`), or the id itself. */
function topicName(topicId: string): string {
  const slash = topicId.indexOf('/', topicId.lastIndexOf(':'));
  return slash === -1 ? topicId : topicId.slice(slash + 1);
}

/** A number or null as a sample value; undefined for anything else (not sampled). */
function sampleValue(value: unknown): number | null | undefined {
  return value === null || (typeof value === 'number' && Number.isFinite(value)) ? value : undefined;
}

/**
 * Takes the observations (the table above) off a graph.
 * @param now the time of the reading (the end of the samples' window).
 * @returns the graph without them, and their samples (null when there is none), one per node, sorted by node id.
 */
export function splitObservations(
  graph: LineageGraph,
  now: Date,
): { graph: LineageGraph; observations: MetricSamples | null } {
  const byNode = new Map<string, NodeMetricSample['metrics']>();
  const sample = (nodeId: string, name: string, value: unknown) => {
    const number = sampleValue(value);
    if (number === undefined) return;
    let metrics = byNode.get(nodeId);
    if (!metrics) byNode.set(nodeId, (metrics = {}));
    metrics[name] = number;
  };
  const nodes = graph.nodes.map((node) => {
    if (node.node_type !== 'CONSUMER_GROUP' || !node.attributes || !('total_lag' in node.attributes)) return node;
    sample(node.id, 'metrics_total_lag', node.attributes.total_lag);
    return without(node, ['total_lag']);
  });
  const groups = new Set(graph.nodes.filter((node) => node.node_type === 'CONSUMER_GROUP').map((node) => node.id));
  const edges = graph.edges.map((edge) => {
    if (edge.edge_type === 'CONSUMES' && groups.has(edge.dst_id) && edge.attributes && 'lag' in edge.attributes) {
      sample(edge.dst_id, `metrics_lag.${topicName(edge.src_id)}`, edge.attributes.lag);
      return without(edge, ['lag']);
    }
    if (isClusterLinkEdge(edge) && edge.attributes && 'mirror_lag' in edge.attributes) {
      sample(edge.dst_id, 'metrics_mirror_lag', edge.attributes.mirror_lag);
      return without(edge, ['mirror_lag']);
    }
    return edge;
  });
  if (byNode.size === 0) return { graph: { ...graph, nodes, edges }, observations: null };
  const end = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const iso = (date: Date) => date.toISOString().replace('.000Z', 'Z');
  const samples = [...byNode.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([node_id, metrics]) => ({ node_id, metrics }));
  return {
    graph: { ...graph, nodes, edges },
    observations: {
      window_start: iso(new Date(end.getTime() - LAG_WINDOW_MILLISECONDS)),
      window_end: iso(end),
      samples,
    },
  };
}

/**
 * The samples of a metrics phase with the observations added: one sample per node (the values of
 * both merged), in the metrics phase's window; the observations alone when there was no metrics phase.
 */
export function withObservations(
  metrics: MetricSamples | null,
  observations: MetricSamples | null,
): MetricSamples | null {
  if (!observations) return metrics;
  if (!metrics) return observations;
  const byNode = new Map(metrics.samples.map((entry) => [entry.node_id, { ...entry.metrics }]));
  for (const { node_id, metrics: values } of observations.samples)
    byNode.set(node_id, { ...(byNode.get(node_id) ?? {}), ...values });
  const samples = [...byNode.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([node_id, values]) => ({ node_id, metrics: values }));
  return { ...metrics, samples };
}
