/**
 * Throughput metrics (Metrics API v2 `POST /v2/metrics/cloud/query`; `docs/platform-apis.md`),
 * phase 5, only with `--metrics`. Over the lookback window (default 1 hour), summed
 * (`granularity: ALL`):
 *
 * - TOPIC: `io.confluent.kafka.server/{received,sent}_{bytes,records}`, filtered on `resource.kafka.id`,
 *   grouped by `metric.topic`: `metrics_received_bytes`, `metrics_sent_bytes` (bytes),
 *   `metrics_received_records`, `metrics_sent_records` (records);
 * - CONNECTOR: `io.confluent.kafka.connect/{received,sent}_records`, filtered on `resource.kafka.id`,
 *   grouped by `resource.connector.id`: `metrics_received_records`, `metrics_sent_records`;
 * - STREAM_JOB: `io.confluent.flink/num_records_{in,out}`, filtered on `resource.compute_pool.id`,
 *   grouped by `resource.flink_statement.name`: `metrics_records_in`, `metrics_records_out`.
 *
 * Every node that got a data point also gets `metrics_active` (any value > 0) and
 * `metrics_window_hours`. Derived from the graph without a request: consumer groups get
 * `metrics_total_lag` (their `total_lag`) and `metrics_active` (lag > 0 or state STABLE); SQL
 * queries `metrics_active` (state RUNNING); catalog tables `metrics_active` when their newest
 * modification time (`updated_at`, `last_sync_at`, ...) falls inside the window.
 *
 * These values are **samples, not lineage**: the metrics phase answers them as `MetricSamples`
 * (`metricSamples`), recorded as `MetricsSampled` events in the graph's `metrics-{graph_id}` stream
 * (`src/events.ts`), never as node changes. `withMetricAttributes` puts them back onto nodes, under the
 * attribute names above, for the graph file and graph reads; `withoutMetricAttributes` takes them off
 * a graph before it is recorded. Units: bytes and records summed over the window, consumer lag in
 * records (offsets), the window in hours.
 */
import type { NodeMetricSample } from '../events.js';
import { topicId, streamJobId } from '../graph/ids.js';
import type { LineageGraph, Node } from '../graph/model.js';
import type { Enrichment } from './catalog.js';
import type { MetricsPointBody, MetricsQuery } from './platformTypes.js';

/** One Metrics API query and how its points map onto node attributes. */
export interface MetricRequest {
  target: 'topic' | 'connector' | 'stream_job';
  environmentId: string;
  /** The Kafka cluster (topics, connectors) or compute pool (statements) queried. */
  resourceId: string;
  attribute: string;
  /** The label of a point that names the node. */
  label: string;
  query: MetricsQuery;
}

/** A metrics window: ISO 8601 UTC times, whole seconds (`2025-01-31T11:00:00Z`). */
export interface MetricsWindow {
  start: string;
  end: string;
}

/** The window ending at `now` (rounded down to the second), `hours` long. */
export function metricsWindow(now: Date, hours: number): MetricsWindow {
  const end = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const start = new Date(end.getTime() - hours * 3_600_000);
  return { start: start.toISOString().replace('.000Z', 'Z'), end: end.toISOString().replace('.000Z', 'Z') };
}

/** `start/end` ISO interval ending at `now`, `hours` long (the Metrics API's `intervals` item). */
export function metricsInterval(now: Date, hours: number): string {
  const window = metricsWindow(now, hours);
  return `${window.start}/${window.end}`;
}

const TOPIC_METRICS: [string, string][] = [
  ['io.confluent.kafka.server/received_bytes', 'metrics_received_bytes'],
  ['io.confluent.kafka.server/sent_bytes', 'metrics_sent_bytes'],
  ['io.confluent.kafka.server/received_records', 'metrics_received_records'],
  ['io.confluent.kafka.server/sent_records', 'metrics_sent_records'],
];
const CONNECTOR_METRICS: [string, string][] = [
  ['io.confluent.kafka.connect/received_records', 'metrics_received_records'],
  ['io.confluent.kafka.connect/sent_records', 'metrics_sent_records'],
];
const FLINK_METRICS: [string, string][] = [
  ['io.confluent.flink/num_records_in', 'metrics_records_in'],
  ['io.confluent.flink/num_records_out', 'metrics_records_out'],
];

function query(metric: string, field: string, value: string, groupBy: string, interval: string): MetricsQuery {
  return {
    aggregations: [{ metric }],
    filter: { field, op: 'EQ', value },
    group_by: [groupBy],
    granularity: 'ALL',
    intervals: [interval],
  };
}

/** The queries of phase 5 for the given clusters and compute pools. */
export function metricRequests(input: {
  clusters: readonly { environmentId: string; clusterId: string }[];
  computePools: readonly { environmentId: string; computePoolId: string }[];
  interval: string;
}): MetricRequest[] {
  const requests: MetricRequest[] = [];
  for (const { environmentId, clusterId } of input.clusters) {
    for (const [metric, attribute] of TOPIC_METRICS) {
      requests.push({
        target: 'topic',
        environmentId,
        resourceId: clusterId,
        attribute,
        label: 'metric.topic',
        query: query(metric, 'resource.kafka.id', clusterId, 'metric.topic', input.interval),
      });
    }
    for (const [metric, attribute] of CONNECTOR_METRICS) {
      requests.push({
        target: 'connector',
        environmentId,
        resourceId: clusterId,
        attribute,
        label: 'resource.connector.id',
        query: query(metric, 'resource.kafka.id', clusterId, 'resource.connector.id', input.interval),
      });
    }
  }
  for (const { environmentId, computePoolId } of input.computePools) {
    for (const [metric, attribute] of FLINK_METRICS) {
      requests.push({
        target: 'stream_job',
        environmentId,
        resourceId: computePoolId,
        attribute,
        label: 'resource.flink_statement.name',
        query: query(
          metric,
          'resource.compute_pool.id',
          computePoolId,
          'resource.flink_statement.name',
          input.interval,
        ),
      });
    }
  }
  return requests;
}

/**
 * Folds the answers of `metricRequests` into per-node attributes.
 * @param answers each request with its points (failed requests are simply absent).
 * @param connectorsByLccId `lcc-...` -> connector node id.
 */
export function metricEnrichments(
  answers: readonly { request: MetricRequest; points: readonly MetricsPointBody[] }[],
  connectorsByLccId: ReadonlyMap<string, string>,
  windowHours: number,
): Enrichment[] {
  const values = new Map<string, Record<string, number>>();
  for (const { request, points } of answers) {
    for (const point of points) {
      const label = (point as Record<string, unknown>)[request.label];
      if (typeof label !== 'string') continue;
      const nodeId =
        request.target === 'topic'
          ? topicId(request.environmentId, request.resourceId, label)
          : request.target === 'connector'
            ? connectorsByLccId.get(label)
            : streamJobId(request.environmentId, label);
      if (!nodeId) continue;
      let entry = values.get(nodeId);
      if (!entry) values.set(nodeId, (entry = {}));
      entry[request.attribute] = (entry[request.attribute] ?? 0) + point.value;
    }
  }
  return [...values.entries()].map(([nodeId, attributes]) => ({
    nodeId,
    attributes: {
      ...attributes,
      metrics_active: Object.values(attributes).some((value) => value > 0),
      metrics_window_hours: windowHours,
    },
  }));
}

/** The newest of a node's modification timestamps (ISO strings or epoch ms), in ms; undefined when none. */
export function newestModification(attributes: Record<string, unknown> | null): number | undefined {
  if (!attributes) return undefined;
  let newest: number | undefined;
  for (const key of [
    'last_modified_time',
    'updated_at',
    'update_time',
    'last_sync_at',
    'create_time',
    'creation_time',
  ]) {
    const value = attributes[key];
    const ms = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : Number.NaN;
    if (!Number.isNaN(ms) && (newest === undefined || ms > newest)) newest = ms;
  }
  return newest;
}

/** Metrics derived from the graph itself: consumer group lag and activity, SQL query and catalog table activity. */
export function derivedMetricEnrichments(nodes: Iterable<Node>, now: Date, windowHours: number): Enrichment[] {
  const result: Enrichment[] = [];
  const since = now.getTime() - windowHours * 3_600_000;
  for (const node of nodes) {
    const attributes = node.attributes ?? {};
    if (node.node_type === 'CONSUMER_GROUP') {
      const lag = typeof attributes.total_lag === 'number' ? attributes.total_lag : null;
      const state = typeof attributes.state === 'string' ? attributes.state.toUpperCase() : '';
      result.push({
        nodeId: node.id,
        attributes: {
          metrics_total_lag: lag,
          metrics_active: (lag ?? 0) > 0 || state === 'STABLE',
          metrics_window_hours: windowHours,
        },
      });
    } else if (node.node_type === 'SQL_QUERY') {
      const state = typeof attributes.state === 'string' ? attributes.state.toUpperCase() : '';
      result.push({
        nodeId: node.id,
        attributes: { metrics_active: state === 'RUNNING' || state === 'ACTIVE', metrics_window_hours: windowHours },
      });
    } else if (node.node_type === 'CATALOG_TABLE') {
      const newest = newestModification(node.attributes);
      if (newest !== undefined)
        result.push({
          nodeId: node.id,
          attributes: { metrics_active: newest >= since, metrics_window_hours: windowHours },
        });
    }
  }
  return result;
}

/** The metric samples of one metrics phase: one window, the nodes that have metrics in it (each once, sorted by id). */
export interface MetricSamples {
  /** ISO 8601 start of the window. */
  window_start: string;
  /** ISO 8601 end of the window. */
  window_end: string;
  samples: NodeMetricSample[];
}

/** The window's length in hours (`metrics_window_hours`), from its ISO 8601 ends. */
export function windowHours(window: { window_start: string; window_end: string }): number {
  return (Date.parse(window.window_end) - Date.parse(window.window_start)) / 3_600_000;
}

/**
 * Turns enrichments (`metricEnrichments`, `derivedMetricEnrichments`) into samples: one per node
 * (the attributes of several enrichments of a node merged, later ones winning), only the `metrics_*`
 * values that are numbers, booleans or null, without `metrics_window_hours` (the window says it).
 * @param keep which nodes may have a sample (e.g. the nodes of the graph); default every node.
 */
export function metricSamples(
  enrichments: readonly Enrichment[],
  window: MetricsWindow,
  keep: (nodeId: string) => boolean = () => true,
): MetricSamples {
  const byNode = new Map<string, NodeMetricSample['metrics']>();
  for (const { nodeId, attributes } of enrichments) {
    if (!keep(nodeId)) continue;
    let metrics = byNode.get(nodeId);
    if (!metrics) byNode.set(nodeId, (metrics = {}));
    for (const [name, value] of Object.entries(attributes)) {
      if (!name.startsWith('metrics_') || name === 'metrics_window_hours') continue;
      if (value === null || typeof value === 'number' || typeof value === 'boolean') metrics[name] = value;
    }
  }
  const samples = [...byNode.entries()]
    .filter(([, metrics]) => Object.keys(metrics).length > 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([node_id, metrics]) => ({ node_id, metrics }));
  return { window_start: window.start, window_end: window.end, samples };
}

/** A node's metric attributes from its sample: the sample's values plus `metrics_window_hours`. */
export function metricAttributes(
  metrics: NodeMetricSample['metrics'],
  window: { window_start: string; window_end: string },
): Record<string, unknown> {
  return { ...metrics, metrics_window_hours: windowHours(window) };
}

/**
 * The graph with each sampled node's metrics as attributes (`metricAttributes`, replacing the node's
 * `metrics_*` attributes of the same names): what the graph file shows. Nodes without a sample, and
 * edges, are kept as they are (the same objects).
 */
export function withMetricAttributes(graph: LineageGraph, samples: MetricSamples | null): LineageGraph {
  if (!samples || samples.samples.length === 0) return graph;
  const byNode = new Map(samples.samples.map((sample) => [sample.node_id, sample.metrics]));
  const nodes = graph.nodes.map((node) => {
    const metrics = byNode.get(node.id);
    return metrics ? { ...node, attributes: { ...node.attributes, ...metricAttributes(metrics, samples) } } : node;
  });
  return { ...graph, nodes };
}

/**
 * The graph without any `metrics_*` node attribute (what is recorded as lineage: metrics are recorded
 * as samples). Nodes without one are kept as they are (the same objects).
 */
export function withoutMetricAttributes(graph: LineageGraph): LineageGraph {
  const nodes = graph.nodes.map((node) => {
    const attributes = node.attributes;
    if (!attributes || !Object.keys(attributes).some((name) => name.startsWith('metrics_'))) return node;
    return {
      ...node,
      attributes: Object.fromEntries(Object.entries(attributes).filter(([name]) => !name.startsWith('metrics_'))),
    };
  });
  return { ...graph, nodes };
}
