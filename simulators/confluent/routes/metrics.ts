/**
 * Metrics API v2 (`https://api.telemetry.confluent.cloud`, cloud API key), at the simulator root.
 *
 * | API name | route |
 * |---|---|
 * | `metrics.query` | `POST /v2/metrics/cloud/query[?page_token=]` |
 * | `metrics.attributes` | `POST /v2/metrics/cloud/attributes[?page_token=]` |
 * | `metrics.descriptors` | `GET /v2/metrics/cloud/descriptors/metrics` |
 *
 * Query body: `{aggregations: [{metric, agg?}] (exactly one), filter, group_by, granularity
 * (PT1M..P1D or ALL), intervals ["<iso>/<iso|duration>", "now-1h|m/now"...], limit (groups,
 * default 100, max 1000), format: FLAT|GROUPED}`. A `resource.*` filter is required (as the real
 * API requires one for authorization). FLAT answers `{data: [{timestamp, value, <group_by labels>}]}`,
 * GROUPED `{data: [{<labels>, points: [{timestamp, value}]}]}`; with `group_by` the answer also has
 * `meta.pagination {page_size, next_page_token?}` and the next page is fetched with `?page_token=`.
 * Groups are ordered by value (descending) for granularity `ALL`, else by label values; groups with
 * no data are absent (an idle topic has no row).
 *
 * Metrics served (per-hour figures from the scenario; counters scale with the bucket, gauges do not):
 *
 * - `io.confluent.kafka.server/received_bytes`, `sent_bytes`, `received_records`, `sent_records`: resource
 *   filter `resource.kafka.id`; `group_by` labels `metric.topic`
 * - `io.confluent.kafka.server/consumer_lag_offsets` (gauge): resource filter `resource.kafka.id`; `group_by`
 *   labels `metric.consumer_group_id`, `metric.topic`
 * - `io.confluent.kafka.connect/sent_records`, `received_records`, `sent_bytes`, `received_bytes`,
 *   `dead_letter_queue_records`: resource filter `resource.connector.id` (also `resource.kafka.id`); `group_by`
 *   labels `resource.connector.id`
 * - `io.confluent.flink/num_records_in`, `num_records_out`, `pending_records` (gauge): resource filter
 *   `resource.compute_pool.id` or `resource.flink_statement.name`; `group_by` labels
 *   `resource.flink_statement.name`, `resource.flink_statement.uid`, `resource.compute_pool.id`
 *
 * Not modelled: `metric.partition`, `metric.principal_id`, `order_by` other than the default.
 */
import { HttpError } from '../errors.js';
import { defaultRate, type ClusterModel, type EnvModel, type World } from '../model.js';
import type { Registrar, RouteMeta } from '../server.js';
import { decodePageToken, encodePageToken, hash32, isoSeconds, pick, q1, type Query } from '../util.js';

const meta = (api: string): RouteMeta => ({ api, family: 'metrics', auth: 'cloud' });

interface MetricInfo {
  resource: 'kafka' | 'connector' | 'flink';
  /** labels usable in group_by and filters */
  labels: string[];
  gauge: boolean;
  unit: string;
  description: string;
}

const KAFKA_TOPIC_LABELS = ['resource.kafka.id', 'metric.topic'];
const CONNECT_LABELS = ['resource.connector.id', 'resource.kafka.id'];
const FLINK_LABELS = ['resource.compute_pool.id', 'resource.flink_statement.name', 'resource.flink_statement.uid'];

/** The metrics the simulator answers. */
export const METRICS: Record<string, MetricInfo> = {
  'io.confluent.kafka.server/received_bytes': {
    resource: 'kafka',
    labels: KAFKA_TOPIC_LABELS,
    gauge: false,
    unit: 'By',
    description: "The delta count of bytes of the customer's data received from the network.",
  },
  'io.confluent.kafka.server/sent_bytes': {
    resource: 'kafka',
    labels: KAFKA_TOPIC_LABELS,
    gauge: false,
    unit: 'By',
    description: "The delta count of bytes of the customer's data sent over the network.",
  },
  'io.confluent.kafka.server/received_records': {
    resource: 'kafka',
    labels: KAFKA_TOPIC_LABELS,
    gauge: false,
    unit: '1',
    description: 'The delta count of records received.',
  },
  'io.confluent.kafka.server/sent_records': {
    resource: 'kafka',
    labels: KAFKA_TOPIC_LABELS,
    gauge: false,
    unit: '1',
    description: 'The delta count of records sent.',
  },
  'io.confluent.kafka.server/consumer_lag_offsets': {
    resource: 'kafka',
    labels: ['resource.kafka.id', 'metric.consumer_group_id', 'metric.topic'],
    gauge: true,
    unit: '1',
    description: "The lag between a group member's committed offset and the partition's high watermark.",
  },
  'io.confluent.kafka.connect/sent_records': {
    resource: 'connector',
    labels: CONNECT_LABELS,
    gauge: false,
    unit: '1',
    description:
      'The delta count of records sent from the transformations and written to Kafka for the source connector.',
  },
  'io.confluent.kafka.connect/received_records': {
    resource: 'connector',
    labels: CONNECT_LABELS,
    gauge: false,
    unit: '1',
    description: 'The delta count of records received by the sink connector.',
  },
  'io.confluent.kafka.connect/sent_bytes': {
    resource: 'connector',
    labels: CONNECT_LABELS,
    gauge: false,
    unit: 'By',
    description:
      'The delta count of bytes sent from the transformations and written to Kafka for the source connector.',
  },
  'io.confluent.kafka.connect/received_bytes': {
    resource: 'connector',
    labels: CONNECT_LABELS,
    gauge: false,
    unit: 'By',
    description: 'The delta count of bytes received by the sink connector.',
  },
  'io.confluent.kafka.connect/dead_letter_queue_records': {
    resource: 'connector',
    labels: CONNECT_LABELS,
    gauge: false,
    unit: '1',
    description: 'The delta count of dead letter queue records written to Kafka for the sink connector.',
  },
  'io.confluent.flink/num_records_in': {
    resource: 'flink',
    labels: FLINK_LABELS,
    gauge: false,
    unit: '1',
    description: 'Total number of records all Flink SQL statements leveraging a Flink compute pool have received.',
  },
  'io.confluent.flink/num_records_out': {
    resource: 'flink',
    labels: FLINK_LABELS,
    gauge: false,
    unit: '1',
    description: 'Total number of records all Flink SQL statements leveraging a Flink compute pool have emitted.',
  },
  'io.confluent.flink/pending_records': {
    resource: 'flink',
    labels: FLINK_LABELS,
    gauge: true,
    unit: '1',
    description:
      'Total amount of available records after the consumer offset in a Kafka partition across all operators.',
  },
};

interface Series {
  labels: Record<string, string>;
  perHour: number;
}

interface SeriesIndex {
  all: Map<string, Series[]>;
  /** metric -> `field=value` of a resource label -> series */
  byResource: Map<string, Map<string, Series[]>>;
}

/** Records one series of `metric` with its hourly rate; rates of zero or less are left out. */
type AddSeries = (metric: string, labels: Record<string, string>, perHour: number) => void;

/** Kafka topic throughput series of one cluster: bytes and records received, and sent to each reading group. */
function addTopicSeries(c: ClusterModel, add: AddSeries): void {
  const readers = new Map<string, number>();
  for (const g of c.groups) for (const gt of g.def.topics) readers.set(gt.topic, (readers.get(gt.topic) ?? 0) + 1);
  for (const t of c.topics) {
    const m = t.def.metrics;
    if (m === false) continue;
    const key = `${c.id}/${t.name}`;
    const receivedBytes = m?.received_bytes ?? defaultRate(`${key}/rb`, 200_000, 80_000_000);
    const recordSize = pick(`${key}/size`, 180, 2400);
    const receivedRecords = m?.received_records ?? Math.max(1, Math.round(receivedBytes / recordSize));
    const fanOut = Math.max(1, readers.get(t.name) ?? 0);
    const labels = { 'resource.kafka.id': c.id, 'metric.topic': t.name };
    add('io.confluent.kafka.server/received_bytes', labels, receivedBytes);
    add('io.confluent.kafka.server/received_records', labels, receivedRecords);
    add('io.confluent.kafka.server/sent_bytes', labels, m?.sent_bytes ?? receivedBytes * fanOut);
    add('io.confluent.kafka.server/sent_records', labels, m?.sent_records ?? receivedRecords * fanOut);
  }
}

/** Consumer lag series of one cluster, one per group and topic (kept even when the lag is zero). */
function addConsumerLagSeries(c: ClusterModel, all: Map<string, Series[]>): void {
  for (const g of c.groups) {
    const lagByTopic = new Map<string, number>();
    for (const row of g.lags) lagByTopic.set(row.topic, (lagByTopic.get(row.topic) ?? 0) + row.lag);
    for (const gt of g.def.topics) {
      all.get('io.confluent.kafka.server/consumer_lag_offsets')?.push({
        labels: { 'resource.kafka.id': c.id, 'metric.consumer_group_id': g.id, 'metric.topic': gt.topic },
        perHour: lagByTopic.get(gt.topic) ?? gt.lag,
      });
    }
  }
}

/** Connect series of one cluster's running connectors: records and bytes sent and received, dead-lettered records. */
function addConnectorSeries(c: ClusterModel, add: AddSeries): void {
  for (const k of c.connectors) {
    if (k.metrics === false || k.state !== 'RUNNING') continue;
    const m = k.metrics;
    const labels = { 'resource.connector.id': k.id, 'resource.kafka.id': c.id };
    const rate = defaultRate(`${k.id}/records`, 5_000, 2_000_000);
    const size = pick(`${k.id}/size`, 200, 1800);
    const source = k.type === 'source';
    const sent = m?.sent_records ?? (source ? rate : 0);
    const received = m?.received_records ?? (source ? 0 : rate);
    add('io.confluent.kafka.connect/sent_records', labels, sent);
    add('io.confluent.kafka.connect/received_records', labels, received);
    add('io.confluent.kafka.connect/sent_bytes', labels, m?.sent_bytes ?? sent * size);
    add('io.confluent.kafka.connect/received_bytes', labels, m?.received_bytes ?? received * size);
    add(
      'io.confluent.kafka.connect/dead_letter_queue_records',
      labels,
      m?.dead_letter_queue_records ?? (source ? 0 : Math.floor(received / 5000)),
    );
  }
}

/** Flink series of one environment's running statements: records in, out and pending. */
function addStatementSeries(env: EnvModel, add: AddSeries): void {
  for (const st of env.statements) {
    if (st.def.metrics === false || st.def.phase !== 'RUNNING') continue;
    const m = st.def.metrics;
    const labels = {
      'resource.compute_pool.id': st.pool.id,
      'resource.flink_statement.name': st.name,
      'resource.flink_statement.uid': st.uid,
    };
    const rate = defaultRate(`${env.id}/${st.name}/in`, 10_000, 3_000_000);
    add('io.confluent.flink/num_records_in', labels, m?.num_records_in ?? rate);
    add(
      'io.confluent.flink/num_records_out',
      labels,
      m?.num_records_out ?? Math.round(rate * (pick(`${st.name}/ratio`, 5, 100) / 100)),
    );
    add('io.confluent.flink/pending_records', labels, m?.pending_records ?? pick(`${st.name}/pending`, 0, 5000));
  }
}

/** Each metric's series indexed by `field=value` of their resource labels. */
function indexByResource(all: Map<string, Series[]>): Map<string, Map<string, Series[]>> {
  const byResource = new Map<string, Map<string, Series[]>>();
  for (const [metric, list] of all) {
    const index = new Map<string, Series[]>();
    for (const s of list) {
      for (const [field, value] of Object.entries(s.labels)) {
        if (!field.startsWith('resource.')) continue;
        const key = `${field}=${value}`;
        const bucket = index.get(key);
        if (bucket === undefined) index.set(key, [s]);
        else bucket.push(s);
      }
    }
    byResource.set(metric, index);
  }
  return byResource;
}

/** Every metric's series over the whole estate, with their resource index. */
function buildSeries(world: World): SeriesIndex {
  const all = new Map<string, Series[]>(Object.keys(METRICS).map((m) => [m, []]));
  const add: AddSeries = (metric, labels, perHour) => {
    if (perHour <= 0) return;
    all.get(metric)?.push({ labels, perHour });
  };
  for (const env of world.environments) {
    for (const c of env.clusters) {
      addTopicSeries(c, add);
      addConsumerLagSeries(c, all);
      addConnectorSeries(c, add);
    }
    addStatementSeries(env, add);
  }
  return { all, byResource: indexByResource(all) };
}

// ---------- filters ----------

type Filter =
  | { field: string; op: string; value: unknown }
  | { op: 'AND' | 'OR'; filters: Filter[] }
  | { op: 'NOT'; filter: Filter };

function bad(detail: string): HttpError {
  return new HttpError(400, 'metrics', detail);
}

function checkFilter(f: unknown, labels: readonly string[], where: string): Filter {
  if (typeof f !== 'object' || f === null) throw bad(`${where} must be an object`);
  const o = f as Record<string, unknown>;
  const op = typeof o.op === 'string' ? o.op.toUpperCase() : undefined;
  if (op === 'AND' || op === 'OR') {
    if (!Array.isArray(o.filters) || o.filters.length === 0) throw bad(`${where}.filters must be a non-empty array`);
    return { op, filters: o.filters.map((x, i) => checkFilter(x, labels, `${where}.filters[${i}]`)) };
  }
  if (op === 'NOT') return { op, filter: checkFilter(o.filter, labels, `${where}.filter`) };
  if (op === undefined || !['EQ', 'GT', 'GTE', 'LT', 'LTE'].includes(op))
    throw bad(`${where}.op must be one of EQ, GT, GTE, LT, LTE, AND, OR, NOT`);
  if (typeof o.field !== 'string') throw bad(`${where}.field must be a string`);
  if (!labels.includes(o.field)) throw bad(`${where}.field '${o.field}' is not a valid label for this metric`);
  return { field: o.field, op, value: o.value };
}

function matches(f: Filter, labels: Record<string, string>): boolean {
  if ('filters' in f)
    return f.op === 'AND' ? f.filters.every((x) => matches(x, labels)) : f.filters.some((x) => matches(x, labels));
  if ('filter' in f) return !matches(f.filter, labels);
  const actual = labels[f.field];
  if (actual === undefined) return false;
  const expected = String(f.value);
  switch (f.op) {
    case 'EQ':
      return actual === expected;
    case 'GT':
      return actual > expected;
    case 'GTE':
      return actual >= expected;
    case 'LT':
      return actual < expected;
    default:
      return actual <= expected;
  }
}

function hasResourceFilter(f: Filter): boolean {
  if ('filters' in f) return f.op === 'AND' ? f.filters.some(hasResourceFilter) : f.filters.every(hasResourceFilter);
  if ('filter' in f) return false;
  return f.field.startsWith('resource.');
}

/** A `resource.x = v` conjunct usable with the index. */
function indexKey(f: Filter): string | undefined {
  if ('filters' in f) {
    if (f.op !== 'AND') return undefined;
    for (const x of f.filters) {
      const k = indexKey(x);
      if (k !== undefined) return k;
    }
    return undefined;
  }
  if ('filter' in f) return undefined;
  return f.op === 'EQ' && f.field.startsWith('resource.') ? `${f.field}=${String(f.value)}` : undefined;
}

// ---------- time ----------

const GRANULARITY_MS: Record<string, number> = {
  PT1M: 60_000,
  PT5M: 300_000,
  PT15M: 900_000,
  PT30M: 1_800_000,
  PT1H: 3_600_000,
  PT4H: 14_400_000,
  PT6H: 21_600_000,
  PT12H: 43_200_000,
  P1D: 86_400_000,
};
const MAX_INTERVAL_MS: Record<string, number> = {
  PT1M: 6 * 3_600_000,
  PT5M: 86_400_000,
  PT15M: 4 * 86_400_000,
  PT30M: 7 * 86_400_000,
};

function parseDuration(text: string): number | undefined {
  const m = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(text);
  if (m === null || text === 'P' || text.endsWith('T')) return undefined;
  const [, w, d, h, min, s] = m;
  return (
    ((Number(w ?? 0) * 7 + Number(d ?? 0)) * 24 * 3600 +
      Number(h ?? 0) * 3600 +
      Number(min ?? 0) * 60 +
      Number(s ?? 0)) *
    1000
  );
}

function parseInstant(text: string, now: number): number | undefined {
  const m = /^now(?:([+-])(\d+)([mhd]))?(?:\|([mhd]))?$/.exec(text);
  if (m !== null) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
    let t = now;
    if (m[1] !== undefined) t += (m[1] === '-' ? -1 : 1) * Number(m[2]) * unit[m[3] as 'm'];
    if (m[4] !== undefined) t = Math.floor(t / unit[m[4] as 'm']) * unit[m[4] as 'm'];
    return t;
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text)) return undefined;
  const t = Date.parse(text);
  return Number.isNaN(t) ? undefined : t;
}

function parseInterval(text: unknown, now: number): [number, number] {
  if (typeof text !== 'string') throw bad('intervals must be strings');
  const [a, b, extra] = text.split('/');
  if (a === undefined || b === undefined || extra !== undefined)
    throw bad(`Invalid interval '${text}': expected <start>/<end> or <start>/<duration>`);
  const durA = a.startsWith('P') ? parseDuration(a) : undefined;
  const durB = b.startsWith('P') ? parseDuration(b) : undefined;
  let start = durA === undefined ? parseInstant(a, now) : undefined;
  let end = durB === undefined ? parseInstant(b, now) : undefined;
  if (start === undefined && durA !== undefined && end !== undefined) start = end - durA;
  if (end === undefined && durB !== undefined && start !== undefined) end = start + durB;
  if (start === undefined || end === undefined || !(end > start)) throw bad(`Invalid interval '${text}'`);
  return [start, end];
}

// ---------- query ----------

interface Bucket {
  start: number;
  hours: number;
}

function buckets(intervals: [number, number][], granularity: string): Bucket[] {
  const out: Bucket[] = [];
  for (const [start, end] of intervals) {
    if (granularity === 'ALL') {
      out.push({ start, hours: (end - start) / 3_600_000 });
      continue;
    }
    const step = GRANULARITY_MS[granularity] ?? 3_600_000;
    for (let t = Math.floor(start / step) * step; t < end; t += step) {
      const overlap = Math.min(end, t + step) - Math.max(start, t);
      if (overlap > 0) out.push({ start: t, hours: overlap / 3_600_000 });
    }
  }
  return out.sort((x, y) => x.start - y.start);
}

interface Group {
  labels: Record<string, string>;
  series: Series[];
  total: number;
  points: { timestamp: string; value: number }[];
}

interface QueryPlan {
  metric: string;
  info: MetricInfo;
  groupBy: string[];
  filter: Filter | undefined;
  limit: number;
}

function planCommon(
  body: Record<string, unknown>,
  metric: unknown,
  groupByRaw: unknown,
  requireFilter: boolean,
): QueryPlan {
  if (typeof metric !== 'string' || metric === '') throw bad('metric must be a non-empty string');
  const info = METRICS[metric];
  if (info === undefined) throw bad(`Metric '${metric}' is not known or not supported by this dataset`);
  const groupBy = groupByRaw === undefined ? [] : groupByRaw;
  if (!Array.isArray(groupBy) || !groupBy.every((g): g is string => typeof g === 'string'))
    throw bad('group_by must be an array of strings');
  for (const g of groupBy)
    if (!info.labels.includes(g)) throw bad(`group_by label '${g}' is not valid for metric '${metric}'`);
  const filter = body.filter === undefined ? undefined : checkFilter(body.filter, info.labels, 'filter');
  if (requireFilter && (filter === undefined || !hasResourceFilter(filter))) {
    throw bad('filter must include a resource filter (e.g. resource.kafka.id) for authorization');
  }
  const limit = body.limit === undefined ? 100 : body.limit;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw bad('limit must be an integer between 1 and 1000');
  return { metric, info, groupBy, filter, limit };
}

function selectGroups(index: SeriesIndex, plan: QueryPlan): Map<string, Group> {
  const key = plan.filter === undefined ? undefined : indexKey(plan.filter);
  const candidates =
    key !== undefined ? (index.byResource.get(plan.metric)?.get(key) ?? []) : (index.all.get(plan.metric) ?? []);
  const groups = new Map<string, Group>();
  for (const s of candidates) {
    if (plan.filter !== undefined && !matches(plan.filter, s.labels)) continue;
    const labels: Record<string, string> = {};
    for (const g of plan.groupBy) labels[g] = s.labels[g] ?? '';
    const k = plan.groupBy.map((g) => labels[g]).join('\u0000');
    const group = groups.get(k);
    if (group === undefined) groups.set(k, { labels, series: [s], total: 0, points: [] });
    else group.series.push(s);
  }
  return groups;
}

function pageOf<T>(
  items: T[],
  limit: number,
  query: Query,
  fingerprint: string,
): { page: T[]; next: string | undefined } {
  let offset = 0;
  const tokenText = q1(query, 'page_token');
  if (tokenText !== undefined && tokenText !== '') {
    const state = decodePageToken(tokenText);
    if (state === undefined || state.f !== fingerprint) throw bad('Invalid page_token');
    offset = state.o;
  }
  const page = items.slice(offset, offset + limit);
  const next =
    offset + limit < items.length ? encodePageToken({ o: offset + limit, s: limit, f: fingerprint }) : undefined;
  return { page, next };
}

/** Registers the Metrics API routes. */
export function registerMetrics(r: Registrar): void {
  // Built once per estate: a mutation (`simulator.mutate`) refreshes the world in place with a new scenario.
  let index: { scenario: World['scenario']; series: SeriesIndex } | undefined;
  const series = (): SeriesIndex => {
    if (index?.scenario !== r.world.scenario) index = { scenario: r.world.scenario, series: buildSeries(r.world) };
    return index.series;
  };

  r.post('/v2/metrics/:dataset/query', meta('metrics.query'), (req) => {
    if ((req.params as { dataset: string }).dataset !== 'cloud')
      throw new HttpError(404, 'metrics', 'Dataset not found');
    const body = req.body;
    if (typeof body !== 'object' || body === null) throw bad('Request body must be a JSON object');
    const b = body as Record<string, unknown>;
    if (!Array.isArray(b.aggregations) || b.aggregations.length !== 1)
      throw bad('aggregations must contain exactly one aggregation');
    const aggregation = b.aggregations[0] as { metric?: unknown; agg?: unknown };
    const plan = planCommon(b, aggregation.metric, b.group_by, true);
    const agg = aggregation.agg === undefined ? 'SUM' : String(aggregation.agg).toUpperCase();
    if (!['SUM', 'MIN', 'MAX'].includes(agg)) throw bad(`agg must be one of SUM, MIN, MAX`);
    const granularity = typeof b.granularity === 'string' ? b.granularity : '';
    if (granularity !== 'ALL' && GRANULARITY_MS[granularity] === undefined)
      throw bad(`granularity must be one of ${[...Object.keys(GRANULARITY_MS), 'ALL'].join(', ')}`);
    if (!Array.isArray(b.intervals) || b.intervals.length === 0) throw bad('intervals must be a non-empty array');
    const now = r.now();
    const intervals = b.intervals.map((i) => parseInterval(i, now));
    const maxLength = MAX_INTERVAL_MS[granularity];
    if (maxLength !== undefined && intervals.some(([s, e]) => e - s > maxLength))
      throw bad(`The interval is too long for granularity ${granularity}`);
    const format = b.format === undefined ? 'FLAT' : String(b.format);
    if (format !== 'FLAT' && format !== 'GROUPED') throw bad('format must be FLAT or GROUPED');

    const bks = buckets(intervals, granularity);
    const groups = [...selectGroups(series(), plan).values()];
    for (const g of groups) {
      for (const bk of bks) {
        const values = g.series.map((s) => (plan.info.gauge ? s.perHour : Math.round(s.perHour * bk.hours)));
        const value =
          agg === 'MIN' ? Math.min(...values) : agg === 'MAX' ? Math.max(...values) : values.reduce((x, y) => x + y, 0);
        g.points.push({ timestamp: isoSeconds(bk.start), value });
        g.total += value;
      }
    }
    const labelKey = (g: Group): string => plan.groupBy.map((l) => g.labels[l]).join('\u0000');
    groups.sort((x, y) =>
      granularity === 'ALL' && y.total !== x.total
        ? y.total - x.total
        : labelKey(x) < labelKey(y)
          ? -1
          : labelKey(x) > labelKey(y)
            ? 1
            : 0,
    );
    const fingerprint = String(
      hash32(JSON.stringify([plan.metric, plan.groupBy, b.filter ?? null, granularity, b.intervals, agg])),
    );
    const { page, next } =
      plan.groupBy.length > 0
        ? pageOf(groups, plan.limit, req.query as Query, fingerprint)
        : { page: groups.slice(0, 1), next: undefined };
    const data =
      format === 'GROUPED'
        ? page.map((g) => ({ ...g.labels, points: g.points }))
        : page.flatMap((g) => g.points.map((p) => ({ timestamp: p.timestamp, value: p.value, ...g.labels })));
    const out: Record<string, unknown> = { data };
    if (plan.groupBy.length > 0)
      out.meta = { pagination: { page_size: plan.limit, ...(next !== undefined ? { next_page_token: next } : {}) } };
    return out;
  });

  r.post('/v2/metrics/:dataset/attributes', meta('metrics.attributes'), (req) => {
    if ((req.params as { dataset: string }).dataset !== 'cloud')
      throw new HttpError(404, 'metrics', 'Dataset not found');
    const body = req.body;
    if (typeof body !== 'object' || body === null) throw bad('Request body must be a JSON object');
    const b = body as Record<string, unknown>;
    const plan = planCommon(b, b.metric, b.group_by, true);
    if (plan.groupBy.length === 0) throw bad('group_by must name at least one label');
    const groups = [...selectGroups(series(), plan).values()].map((g) => g.labels);
    groups.sort((x, y) => {
      const kx = plan.groupBy.map((l) => x[l]).join('\u0000');
      const ky = plan.groupBy.map((l) => y[l]).join('\u0000');
      return kx < ky ? -1 : kx > ky ? 1 : 0;
    });
    const fingerprint = String(hash32(JSON.stringify(['attributes', plan.metric, plan.groupBy, b.filter ?? null])));
    const { page, next } = pageOf(groups, plan.limit, req.query as Query, fingerprint);
    return {
      data: page,
      meta: { pagination: { page_size: plan.limit, ...(next !== undefined ? { next_page_token: next } : {}) } },
    };
  });

  r.get('/v2/metrics/:dataset/descriptors/metrics', meta('metrics.descriptors'), () => {
    const data = Object.entries(METRICS).map(([name, m]) => ({
      description: m.description,
      labels: m.labels
        .filter((l) => l.startsWith('metric.'))
        .map((l) => ({ description: `The ${l.slice(7).replace(/_/g, ' ')}.`, key: l.slice(7), exportable: true })),
      name,
      type: m.gauge ? 'GAUGE_INT64' : 'COUNTER_INT64',
      exportable: true,
      unit: m.unit,
      lifecycle_stage: 'GENERAL_AVAILABILITY',
      resources: [m.resource === 'flink' ? 'compute_pool' : m.resource],
    }));
    return { data, links: null, meta: { pagination: { page_size: data.length, total_size: data.length } } };
  });
}
