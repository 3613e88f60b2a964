/**
 * Throughput metrics (Metrics API v2 `POST /v2/metrics/cloud/query`; `confluent-apis.md` section 10),
 * phase 5, only with `--metrics`. Over the lookback window (default 1 hour), summed
 * (`granularity: ALL`):
 *
 * | nodes | metrics (`io.confluent...`) | filter | group by | attributes |
 * |---|---|---|---|---|
 * | TOPIC | `kafka.server/{received,sent}_{bytes,records}` | `resource.kafka.id` | `metric.topic` | `metrics_received_bytes`, `metrics_sent_bytes`, `metrics_received_records`, `metrics_sent_records` |
 * | CONNECTOR | `kafka.connect/{received,sent}_records` | `resource.kafka.id` | `resource.connector.id` | `metrics_received_records`, `metrics_sent_records` |
 * | STREAM_JOB | `flink/num_records_{in,out}` | `resource.compute_pool.id` | `resource.flink_statement.name` | `metrics_records_in`, `metrics_records_out` |
 *
 * Every node that got a data point also gets `metrics_active` (any value > 0) and
 * `metrics_window_hours`. Derived from the graph without a request: consumer groups get
 * `metrics_total_lag` (their `total_lag`) and `metrics_active` (lag > 0 or state STABLE); SQL
 * queries `metrics_active` (state RUNNING); catalog tables `metrics_active` when their newest
 * modification time (`updated_at`, `last_sync_at`, ...) falls inside the window.
 */
import { topicId, streamJobId } from '../graph/ids.js';
import type { Node } from '../graph/model.js';
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

/** `start/end` ISO interval ending at `now`, `hours` long. */
export function metricsInterval(now: Date, hours: number): string {
  const end = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const start = new Date(end.getTime() - hours * 3_600_000);
  return `${start.toISOString().replace('.000Z', 'Z')}/${end.toISOString().replace('.000Z', 'Z')}`;
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
