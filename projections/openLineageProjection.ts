/**
 * The OpenLineage projection: folds `OpenLineageEventIngested` events (ingested through the API, the
 * Kafka transport, or stored by the graph views) into indexes that answer the `/lineage/...` queries
 * without scanning stored events per request:
 *
 * - events by run id (the runId as received, its lower-case form, and the derived UUID of a non-UUID
 *   runId), by job (namespace + name), by job namespace, by job name, and all events ordered by
 *   `eventTime`;
 * - datasets (merged facets, last writer wins per facet key, `_deleted` honoured) by namespace;
 * - jobs, with their latest run (the run of the event with the latest `eventTime`);
 * - a graphology bipartite graph dataset -> job (input) and job -> dataset (output), accumulated over
 *   every run, plus dataset identities (`src/openlineage/identity.ts`: symlinks and `kafka://` <->
 *   `stream://` aliases learned from graph nodes carrying a bootstrap endpoint).
 *
 * Each `dedupe_key` is folded once, so a duplicate that reached the store (two processes storing
 * the same event in different batches) never shows twice. Graph events (`NodesAdded`,
 * `NodesChanged`) are read only for the bootstrap endpoints of stream nodes.
 *
 * Dataset lineage (contract section 4): `depth` counts dataset hops. From the origin, one hop goes
 * through every job that writes the dataset (upstream) or reads it (downstream) to that job's
 * inputs (upstream) or outputs (downstream); `both` is the union of the upstream and downstream walks
 * (no siblings). `events` holds the whole events of every job reached: all events of the job's latest
 * run (or its latest JobEvent for a run-less job), ordered by eventTime.
 */
import { DirectedGraph } from 'graphology';
import { v5 as uuidv5 } from 'uuid';
import { NotFoundError, ValidationError } from '../src/errors.js';
import type { StoredLineageEvent } from '../src/events.js';
import type { Node } from '../src/graph/model.js';
import {
  DatasetIdentities,
  datasetKey,
  kafkaNamespace,
  nodeBootstrap,
  splitDatasetKey,
  streamNamespace,
  symlinkIdentifiers,
} from '../src/openlineage/identity.js';
import { NON_UUID_RUN_NAMESPACE, parseEventTime } from '../src/openlineage/ingest.js';
import {
  EVENT_TYPES,
  isUuid,
  type DatasetRef,
  type IngestedEvent,
  type OpenLineageEventKind,
} from '../src/openlineage/model.js';
import type { Projection } from './projector.js';

/** Lineage directions of `datasetLineage`. */
export const LINEAGE_DIRECTIONS = ['upstream', 'downstream', 'both'] as const;
export type LineageDirection = (typeof LINEAGE_DIRECTIONS)[number];

/** Result of `datasetLineage` (specification "Dataset lineage result"). */
export interface DatasetLineageResult {
  origin: { namespace: string; name: string };
  direction: LineageDirection;
  /** Dataset hops walked (1 to 50). */
  depth: number;
  /** Whole events of the jobs reached (see the module comment). */
  events: IngestedEvent[];
  /** Distinct datasets reached, the origin included (datasets joined by identity count once). */
  datasets_visited: number;
  /** Distinct jobs reached. */
  jobs_visited: number;
}

/** Filters of `queryEvents` (`GET /lineage/events`). */
export interface EventQuery {
  /** Job namespace (exact). */
  namespace?: string | undefined;
  /** Job name (exact). */
  job?: string | undefined;
  /** A runId as received, or the derived UUID of a non-UUID runId. */
  run_id?: string | undefined;
  /** START, RUNNING, COMPLETE, ABORT, FAIL or OTHER. */
  event_type?: string | undefined;
  /** Inclusive lower bound of eventTime (ISO 8601). */
  since?: string | undefined;
  /** Inclusive upper bound of eventTime (ISO 8601). */
  until?: string | undefined;
  /** Page size, 1 to 1,000, default 100. */
  limit?: number | undefined;
  /** Events skipped, default 0. */
  offset?: number | undefined;
}

/** A dataset as listed. */
export interface DatasetSummary {
  namespace: string;
  name: string;
  facets: Record<string, unknown>;
  /** ISO eventTime of the first and the last event that mentioned it. */
  first_seen: string;
  last_seen: string;
}

/** A dataset with its identities and the jobs around it. */
export interface DatasetDetail extends DatasetSummary {
  /** Every `(namespace, name)` joined with this dataset (symlinks, Kafka aliases), itself included. */
  identities: Array<{ namespace: string; name: string }>;
  produced_by: Array<{ namespace: string; name: string }>;
  consumed_by: Array<{ namespace: string; name: string }>;
}

/** A job as listed. */
export interface JobSummary {
  namespace: string;
  name: string;
  facets: Record<string, unknown>;
  latest_run_id: string | null;
  latest_event_type: string | null;
  latest_event_time: string;
}

/** A job with the inputs and outputs of its latest run (union over that run's events). */
export interface JobDetail {
  job: { namespace: string; name: string; facets: Record<string, unknown> };
  latest_run: { run_id: string; event_type: string | null; event_time: string } | null;
  latest_inputs: DatasetRef[];
  latest_outputs: DatasetRef[];
}

interface EventRecord {
  seq: number;
  kind: OpenLineageEventKind;
  event: IngestedEvent;
  timeMs: number;
  jobKey: string | null;
  runId: string | null;
  eventType: string | null;
}

interface DatasetState {
  namespace: string;
  name: string;
  facets: Record<string, unknown>;
  firstMs: number;
  lastMs: number;
}

interface JobState {
  namespace: string;
  name: string;
  facets: Record<string, unknown>;
  latestRunId: string | null;
  latestRunMs: number;
  latestJobEvent: EventRecord | null;
  lastMs: number;
}

/** The OpenLineage projection: a `Projection` plus the queries of `/lineage/...`. */
export interface OpenLineageProjection extends Projection {
  /** True when an event with this dedupe key was folded (ingestion's `dedupeIndex`). */
  hasDedupeKey(dedupeKey: string): boolean;
  /** Number of distinct events folded. */
  readonly eventCount: number;
  /** Declares two dataset namespaces the same (e.g. a configured `kafka://b2:9092` -> `kafka://b1:9092`). */
  addNamespaceAlias(namespaceA: string, namespaceB: string): void;
  /**
   * Walks dataset lineage (`GET /lineage/datasets/lineage`).
   * @throws ValidationError for a direction other than upstream/downstream/both or a depth outside 1..50.
   * @throws NotFoundError when no event mentions the dataset (under any of its identities).
   */
  datasetLineage(query: {
    namespace: string;
    name: string;
    direction?: string | undefined;
    depth?: number | string | undefined;
  }): DatasetLineageResult;
  /**
   * Events matching the filters, ordered by eventTime (then arrival), paged (`GET /lineage/events`).
   * @throws ValidationError for a bad event_type, since, until, limit or offset.
   */
  queryEvents(query?: EventQuery): { events: IngestedEvent[]; total: number };
  /** Events of one run, ordered by eventTime (`GET /lineage/events/{run_id}`). @throws NotFoundError for an unknown run. */
  eventsOfRun(runId: string): IngestedEvent[];
  /** Datasets, optionally of one namespace, sorted by namespace then name (`GET /lineage/datasets`). */
  listDatasets(query?: { namespace?: string | undefined }): DatasetSummary[];
  /** One dataset (`GET /lineage/datasets/detail`). @throws NotFoundError when unknown. */
  datasetDetail(query: { namespace: string; name: string }): DatasetDetail;
  /** Jobs, optionally of one namespace, sorted by namespace then name (`GET /lineage/jobs`). */
  listJobs(query?: { namespace?: string | undefined }): JobSummary[];
  /** One job with its latest run's inputs and outputs (`GET /lineage/jobs/detail`). @throws NotFoundError when unknown. */
  jobDetail(query: { namespace: string; name: string }): JobDetail;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const iso = (ms: number) => new Date(ms).toISOString();
const byTime = (a: EventRecord, b: EventRecord) => a.timeMs - b.timeMs || a.seq - b.seq;

/** Merges facets key by key (later wins); a facet `{_deleted: true}` removes the key. */
function mergeFacets(into: Record<string, unknown>, facets: unknown): void {
  if (!isObject(facets)) return;
  for (const [key, value] of Object.entries(facets)) {
    if (isObject(value) && value._deleted === true) delete into[key];
    else into[key] = value;
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * Validates the depth of `datasetLineage`: an integer from 1 to 50, default 5.
 * @throws ValidationError otherwise.
 */
export function parseLineageDepth(depth: number | string | undefined): number {
  if (depth === undefined || depth === '') return 5;
  const value = typeof depth === 'number' ? depth : /^-?\d+$/.test(depth.trim()) ? Number(depth) : Number.NaN;
  if (!Number.isInteger(value) || value < 1 || value > 50) {
    throw new ValidationError('depth must be an integer from 1 to 50', [
      { path: 'depth', message: `got ${JSON.stringify(depth)}; expected 1 to 50` },
    ]);
  }
  return value;
}

/**
 * Validates the direction of `datasetLineage`: upstream (default), downstream or both.
 * @throws ValidationError otherwise.
 */
export function parseLineageDirection(direction: string | undefined): LineageDirection {
  if (direction === undefined || direction === '') return 'upstream';
  if (!(LINEAGE_DIRECTIONS as readonly string[]).includes(direction)) {
    throw new ValidationError('direction must be upstream, downstream or both', [
      { path: 'direction', message: `got "${direction}"` },
    ]);
  }
  return direction as LineageDirection;
}

function parseBound(name: string, value: string | undefined): number | null {
  if (value === undefined || value === '') return null;
  const time = parseEventTime(value);
  if (time === null)
    throw new ValidationError(`${name} must be an ISO 8601 date-time`, [{ path: name, message: `got "${value}"` }]);
  return time.ms;
}

/** Creates an empty OpenLineage projection. */
export function createOpenLineageProjection(): OpenLineageProjection {
  let position = 0;
  let seq = 0;
  const dedupeKeys = new Set<string>();
  const all: EventRecord[] = [];
  let allSorted = true;
  const byRun = new Map<string, EventRecord[]>();
  const byJob = new Map<string, EventRecord[]>();
  const byJobNamespace = new Map<string, EventRecord[]>();
  const byJobName = new Map<string, EventRecord[]>();
  const datasets = new Map<string, DatasetState>();
  const datasetsByNamespace = new Map<string, Set<string>>();
  const jobs = new Map<string, JobState>();
  const identities = new DatasetIdentities();
  const graph = new DirectedGraph();

  const dNode = (key: string) => `d\u0000${key}`;
  const jNode = (key: string) => `j\u0000${key}`;

  function registerDataset(ref: unknown, timeMs: number): string | null {
    if (!isObject(ref) || typeof ref.namespace !== 'string' || typeof ref.name !== 'string') return null;
    const key = identities.add(ref.namespace, ref.name);
    let state = datasets.get(key);
    if (!state) {
      state = { namespace: ref.namespace, name: ref.name, facets: {}, firstMs: timeMs, lastMs: timeMs };
      datasets.set(key, state);
      let keys = datasetsByNamespace.get(ref.namespace);
      if (!keys) datasetsByNamespace.set(ref.namespace, (keys = new Set()));
      keys.add(key);
      graph.addNode(dNode(key));
    }
    if (timeMs < state.firstMs) state.firstMs = timeMs;
    if (timeMs >= state.lastMs) {
      state.lastMs = timeMs;
      mergeFacets(state.facets, ref.facets);
    } else {
      // An older event: it only fills facets not known yet.
      if (isObject(ref.facets))
        for (const [name, value] of Object.entries(ref.facets)) if (!(name in state.facets)) state.facets[name] = value;
    }
    for (const link of symlinkIdentifiers(ref.facets)) identities.union(key, identities.add(link.namespace, link.name));
    return key;
  }

  function linkJob(jobKey: string, event: IngestedEvent, timeMs: number): void {
    const job = jNode(jobKey);
    if (!graph.hasNode(job)) graph.addNode(job);
    for (const input of Array.isArray(event.inputs) ? event.inputs : []) {
      const key = registerDataset(input, timeMs);
      if (key !== null) graph.mergeEdge(dNode(key), job);
    }
    for (const output of Array.isArray(event.outputs) ? event.outputs : []) {
      const key = registerDataset(output, timeMs);
      if (key !== null) graph.mergeEdge(job, dNode(key));
    }
  }

  function foldGraphNodes(nodes: readonly Node[]): void {
    for (const node of nodes) {
      if (node.system !== 'STREAM' || !node.cluster_id) continue;
      const bootstrap = nodeBootstrap(node);
      const kafka = bootstrap === null ? null : kafkaNamespace(bootstrap);
      if (kafka !== null) identities.alias(kafka, streamNamespace(node.environment_id, node.cluster_id));
    }
  }

  function fold(kind: OpenLineageEventKind, event: IngestedEvent): void {
    const time = typeof event.eventTime === 'string' ? parseEventTime(event.eventTime) : null;
    const timeMs = time?.ms ?? 0;
    const job = isObject(event.job) ? event.job : null;
    const jobNamespace = job && typeof job.namespace === 'string' ? job.namespace : null;
    const jobName = job && typeof job.name === 'string' ? job.name : null;
    const jobKey = jobNamespace !== null && jobName !== null ? datasetKey(jobNamespace, jobName) : null;
    const run = isObject(event.run) ? event.run : null;
    const runId = run && typeof run.runId === 'string' ? run.runId : null;
    const eventType = kind === 'RunEvent' ? (typeof event.eventType === 'string' ? event.eventType : 'OTHER') : null;
    const record: EventRecord = { seq: seq++, kind, event, timeMs, jobKey, runId, eventType };

    const last = all[all.length - 1];
    if (last && byTime(last, record) > 0) allSorted = false;
    all.push(record);

    if (kind === 'DatasetEvent') {
      registerDataset(event.dataset, timeMs);
      return;
    }
    if (jobKey === null || jobNamespace === null || jobName === null) return;
    push(byJob, jobKey, record);
    push(byJobNamespace, jobNamespace, record);
    push(byJobName, jobName, record);
    let state = jobs.get(jobKey);
    if (!state) {
      state = {
        namespace: jobNamespace,
        name: jobName,
        facets: {},
        latestRunId: null,
        latestRunMs: Number.NEGATIVE_INFINITY,
        latestJobEvent: null,
        lastMs: timeMs,
      };
      jobs.set(jobKey, state);
    }
    if (timeMs >= state.lastMs) {
      state.lastMs = timeMs;
      mergeFacets(state.facets, job?.facets);
    }
    if (runId !== null) {
      const keys = new Set([runId, runId.toLowerCase()]);
      if (!isUuid(runId)) keys.add(uuidv5(`${jobNamespace}\n${jobName}\n${runId}`, NON_UUID_RUN_NAMESPACE));
      for (const key of keys) push(byRun, key, record);
      if (timeMs >= state.latestRunMs) {
        state.latestRunMs = timeMs;
        state.latestRunId = runId;
      }
    } else if (!state.latestJobEvent || timeMs >= state.latestJobEvent.timeMs) {
      state.latestJobEvent = record;
    }
    linkJob(jobKey, event, timeMs);
  }

  function sortedAll(): EventRecord[] {
    if (!allSorted) {
      all.sort(byTime);
      allSorted = true;
    }
    return all;
  }

  function eventsOfJob(jobKey: string): EventRecord[] {
    const state = jobs.get(jobKey);
    if (!state) return [];
    if (state.latestRunId !== null) {
      const records = (byRun.get(state.latestRunId) ?? []).filter((record) => record.jobKey === jobKey);
      return records.sort(byTime);
    }
    return state.latestJobEvent ? [state.latestJobEvent] : [];
  }

  function walk(
    originKey: string,
    upstream: boolean,
    depth: number,
    datasetsSeen: Set<string>,
    jobsSeen: string[],
    jobSet: Set<string>,
  ): void {
    const visited = new Set<string>([identities.find(originKey)]);
    let frontier = [originKey];
    for (let hop = 0; hop < depth && frontier.length > 0; hop += 1) {
      const next: string[] = [];
      for (const dataset of frontier) {
        for (const member of identities.members(dataset)) {
          const node = dNode(member);
          if (!graph.hasNode(node)) continue;
          const jobsAround = upstream ? graph.inNeighbors(node) : graph.outNeighbors(node);
          for (const job of jobsAround) {
            const jobKey = job.slice(2);
            if (!jobSet.has(jobKey)) {
              jobSet.add(jobKey);
              jobsSeen.push(jobKey);
            }
            const around = upstream ? graph.inNeighbors(job) : graph.outNeighbors(job);
            for (const datasetNode of around) {
              const key = datasetNode.slice(2);
              const root = identities.find(key);
              if (visited.has(root)) continue;
              visited.add(root);
              next.push(key);
            }
          }
        }
      }
      frontier = next;
    }
    for (const root of visited) datasetsSeen.add(root);
  }

  function findDataset(namespace: string, name: string): { key: string; state: DatasetState } {
    const key = datasetKey(namespace, name);
    if (!identities.has(key)) throw new NotFoundError(`dataset "${name}" in namespace "${namespace}" is not known`);
    const own = datasets.get(key);
    if (own) return { key, state: own };
    for (const member of identities.members(key)) {
      const state = datasets.get(member);
      if (state) return { key: member, state };
    }
    throw new NotFoundError(`dataset "${name}" in namespace "${namespace}" is not known`);
  }

  const summary = (state: DatasetState): DatasetSummary => ({
    namespace: state.namespace,
    name: state.name,
    facets: state.facets,
    first_seen: iso(state.firstMs),
    last_seen: iso(state.lastMs),
  });

  const jobRef = (nodeKey: string) => {
    const { namespace, name } = splitDatasetKey(nodeKey.slice(2));
    return { namespace, name };
  };

  return {
    get position() {
      return position;
    },
    get eventCount() {
      return dedupeKeys.size;
    },
    apply(event: StoredLineageEvent) {
      position = event.position;
      if (event.type === 'NodesAdded' || event.type === 'NodesChanged') {
        foldGraphNodes(event.data.nodes);
        return;
      }
      if (event.type !== 'OpenLineageEventIngested') return;
      if (dedupeKeys.has(event.data.dedupe_key)) return;
      dedupeKeys.add(event.data.dedupe_key);
      fold(event.data.kind, event.data.event);
    },
    reset() {
      position = 0;
      seq = 0;
      dedupeKeys.clear();
      all.length = 0;
      allSorted = true;
      byRun.clear();
      byJob.clear();
      byJobNamespace.clear();
      byJobName.clear();
      datasets.clear();
      datasetsByNamespace.clear();
      jobs.clear();
      identities.clear();
      graph.clear();
    },
    hasDedupeKey: (dedupeKey) => dedupeKeys.has(dedupeKey),
    addNamespaceAlias: (a, b) => identities.alias(a, b),

    datasetLineage(query) {
      const direction = parseLineageDirection(query.direction);
      const depth = parseLineageDepth(query.depth);
      const { key } = findDataset(query.namespace, query.name);
      const datasetsSeen = new Set<string>();
      const jobOrder: string[] = [];
      const jobSet = new Set<string>();
      if (direction !== 'downstream') walk(key, true, depth, datasetsSeen, jobOrder, jobSet);
      if (direction !== 'upstream') walk(key, false, depth, datasetsSeen, jobOrder, jobSet);
      const events = jobOrder.flatMap((jobKey) => eventsOfJob(jobKey).map((record) => record.event));
      return {
        origin: { namespace: query.namespace, name: query.name },
        direction,
        depth,
        events,
        datasets_visited: datasetsSeen.size,
        jobs_visited: jobOrder.length,
      };
    },

    queryEvents(query = {}) {
      const limit = query.limit ?? 100;
      const offset = query.offset ?? 0;
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
        throw new ValidationError('limit must be an integer from 1 to 1,000', [
          { path: 'limit', message: `got ${String(limit)}` },
        ]);
      }
      if (!Number.isInteger(offset) || offset < 0)
        throw new ValidationError('offset must be an integer of 0 or more', [
          { path: 'offset', message: `got ${String(offset)}` },
        ]);
      if (query.event_type !== undefined && !(EVENT_TYPES as readonly string[]).includes(query.event_type)) {
        throw new ValidationError(`event_type must be one of ${EVENT_TYPES.join(', ')}`, [
          { path: 'event_type', message: `got "${query.event_type}"` },
        ]);
      }
      const since = parseBound('since', query.since);
      const until = parseBound('until', query.until);
      let candidates: EventRecord[];
      let sorted = false;
      if (query.run_id !== undefined)
        candidates = byRun.get(query.run_id) ?? byRun.get(query.run_id.toLowerCase()) ?? [];
      else if (query.namespace !== undefined && query.job !== undefined)
        candidates = byJob.get(datasetKey(query.namespace, query.job)) ?? [];
      else if (query.namespace !== undefined) candidates = byJobNamespace.get(query.namespace) ?? [];
      else if (query.job !== undefined) candidates = byJobName.get(query.job) ?? [];
      else {
        candidates = sortedAll();
        sorted = true;
      }
      const matches = (record: EventRecord) =>
        (query.namespace === undefined ||
          (record.jobKey !== null && splitDatasetKey(record.jobKey).namespace === query.namespace)) &&
        (query.job === undefined || (record.jobKey !== null && splitDatasetKey(record.jobKey).name === query.job)) &&
        (query.event_type === undefined || record.eventType === query.event_type) &&
        (since === null || record.timeMs >= since) &&
        (until === null || record.timeMs <= until);
      if (sorted && query.event_type === undefined) {
        // All events, sorted: binary-search the time window instead of filtering.
        const lower = since === null ? 0 : lowerBound(candidates, since);
        const upper = until === null ? candidates.length : lowerBound(candidates, until + 1);
        const total = Math.max(0, upper - lower);
        return {
          events: candidates
            .slice(lower + offset, Math.min(upper, lower + offset + limit))
            .map((record) => record.event),
          total,
        };
      }
      const selected = candidates.filter(matches);
      if (!sorted) selected.sort(byTime);
      return { events: selected.slice(offset, offset + limit).map((record) => record.event), total: selected.length };
    },

    eventsOfRun(runId) {
      const records = byRun.get(runId) ?? byRun.get(runId.toLowerCase());
      if (!records || records.length === 0) throw new NotFoundError(`run "${runId}" is not known`);
      return [...records].sort(byTime).map((record) => record.event);
    },

    listDatasets(query = {}) {
      const keys =
        query.namespace !== undefined ? [...(datasetsByNamespace.get(query.namespace) ?? [])] : [...datasets.keys()];
      return keys
        .map((key) => datasets.get(key)!)
        .sort((a, b) => (a.namespace === b.namespace ? (a.name < b.name ? -1 : 1) : a.namespace < b.namespace ? -1 : 1))
        .map(summary);
    },

    datasetDetail(query) {
      const { key, state } = findDataset(query.namespace, query.name);
      const produced = new Map<string, { namespace: string; name: string }>();
      const consumed = new Map<string, { namespace: string; name: string }>();
      for (const member of identities.members(key)) {
        const node = dNode(member);
        if (!graph.hasNode(node)) continue;
        for (const job of graph.inNeighbors(node)) produced.set(job, jobRef(job));
        for (const job of graph.outNeighbors(node)) consumed.set(job, jobRef(job));
      }
      return {
        ...summary(state),
        identities: identities.members(key).map(splitDatasetKey),
        produced_by: [...produced.values()],
        consumed_by: [...consumed.values()],
      };
    },

    listJobs(query = {}) {
      return [...jobs.values()]
        .filter((state) => query.namespace === undefined || state.namespace === query.namespace)
        .sort((a, b) => (a.namespace === b.namespace ? (a.name < b.name ? -1 : 1) : a.namespace < b.namespace ? -1 : 1))
        .map((state) => {
          const latest = eventsOfJob(datasetKey(state.namespace, state.name)).at(-1);
          return {
            namespace: state.namespace,
            name: state.name,
            facets: state.facets,
            latest_run_id: state.latestRunId,
            latest_event_type: latest?.eventType ?? null,
            latest_event_time: iso(state.lastMs),
          };
        });
    },

    jobDetail(query) {
      const jobKey = datasetKey(query.namespace, query.name);
      const state = jobs.get(jobKey);
      if (!state) throw new NotFoundError(`job "${query.name}" in namespace "${query.namespace}" is not known`);
      const records = eventsOfJob(jobKey);
      const inputs = new Map<string, DatasetRef>();
      const outputs = new Map<string, DatasetRef>();
      for (const record of records) {
        for (const [side, into] of [
          ['inputs', inputs],
          ['outputs', outputs],
        ] as const) {
          const list = record.event[side];
          if (!Array.isArray(list)) continue;
          for (const ref of list)
            if (isObject(ref)) into.set(datasetKey(String(ref.namespace), String(ref.name)), ref as DatasetRef);
        }
      }
      const latest = records.at(-1);
      return {
        job: { namespace: state.namespace, name: state.name, facets: state.facets },
        latest_run:
          state.latestRunId === null || !latest
            ? null
            : { run_id: state.latestRunId, event_type: latest.eventType, event_time: iso(latest.timeMs) },
        latest_inputs: [...inputs.values()],
        latest_outputs: [...outputs.values()],
      };
    },
  };
}

/** First index whose record's time is >= `timeMs` (records sorted by time). */
function lowerBound(records: readonly EventRecord[], timeMs: number): number {
  let low = 0;
  let high = records.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (records[mid]!.timeMs < timeMs) low = mid + 1;
    else high = mid;
  }
  return low;
}
