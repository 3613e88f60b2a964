/**
 * The Marquez-compatible read API's use cases (issue 25; docs/marquez.md): namespaces, tags, jobs,
 * runs, run facets, datasets, dataset and job versions, search, the received events and the
 * statistics of Marquez 0.51, answered in its shapes (`marquezShapes.ts`) from the OpenLineage
 * projection. The extracted graphs take part as they do in our OpenLineage queries
 * (`projections/openLineage/extracted.ts`): a topic, connector, query, statement or catalog table is a
 * Marquez dataset or job under its OpenLineage identity, beside the ingested jobs and runs, so
 * Marquez's clients see one graph. Lineage and column lineage are in `marquezLineage.ts`; versions
 * in `marquezVersions.ts`.
 *
 * Every function only reads: nothing here appends. Parameters arrive checked by the route schemas
 * (`infra/http/routes/marquez.ts`); an unknown dataset, job or run throws `NotFoundError` (404).
 */
import { NotFoundError, ValidationError } from '../src/errors.js';
import { datasetKey } from '../src/openlineage/identity.js';
import type { IngestedEvent } from '../src/openlineage/model.js';
import type { EventRecord, ExtractedJob, OpenLineageState } from '../projections/openLineage/index.js';
import { marquezKey } from '../projections/openLineage/state.js';
import type { LineageRuntime } from './runtime.js';
import {
  datasetIdsOf,
  facetTags,
  isoTime,
  marquezNodeId,
  toMarquezDataset,
  toMarquezJob,
  toMarquezRun,
  type DatasetSource,
  type JobSource,
  type MarquezDataset,
  type MarquezJob,
  type MarquezRun,
  type MarquezRunState,
  type TimedEvent,
} from './marquezShapes.js';

/** The part of the runtime the Marquez API reads. */
export type MarquezRuntime = Pick<LineageRuntime, 'openLineage' | 'graphs' | 'store' | 'provenance' | 'commands'>;

/** A page: `limit` items from `offset`. */
export type Page = {
  limit: number;
  offset: number;
};

/** One page of `items`. */
const pageOf = <T>(items: readonly T[], page: Page): T[] => items.slice(page.offset, page.offset + page.limit);

/**
 * Every dataset Marquez shows: the ingested ones and those the extracted graphs' jobs read or write
 * (once per identity). A dataset both name takes the graph's facets where the events gave none (an
 * event that only names a topic as an input still shows the topic's schema).
 */
export function catalogDatasets(runtime: MarquezRuntime, namespace?: string): DatasetSource[] {
  const extracted = runtime.openLineage.graphJoin().datasets();
  const visible = runtime.openLineage
    .listDatasets({ namespace })
    .filter((summary) => !isDeleted(runtime, 'dataset', summary.namespace, summary.name));
  return visible.map((summary) => ({
    namespace: summary.namespace,
    name: summary.name,
    facets: withGraphFacets(summary.facets, extracted.get(datasetKey(summary.namespace, summary.name))?.dataset.facets),
    firstMs: Date.parse(summary.first_seen),
    lastMs: Date.parse(summary.last_seen),
  }));
}

/** The facets of an ingested dataset, with the facets of its graph node under the ones the events gave. */
function withGraphFacets(facets: Record<string, unknown>, graphFacets: unknown): Record<string, unknown> {
  if (typeof graphFacets !== 'object' || graphFacets === null) return facets;
  return { ...(graphFacets as Record<string, unknown>), ...facets };
}

/** Whether a dataset or job was deleted through the Marquez API (and no later lineage named it). */
export function isDeleted(
  runtime: MarquezRuntime,
  element: 'dataset' | 'job',
  namespace: string,
  name: string,
): boolean {
  const { deleted } = runtime.openLineage.state.marquez;
  return deleted.size > 0 && deleted.has(marquezKey(element, datasetKey(namespace, name)));
}

/** The tags of a dataset or job recorded through the Marquez API, and those of a dataset's fields. */
function marquezTagsOf(
  runtime: MarquezRuntime,
  element: 'dataset' | 'job',
  namespace: string,
  name: string,
): { tags: string[]; fieldTags: Map<string, string[]> } {
  return tagsInState(runtime.openLineage.state, element, datasetKey(namespace, name));
}

/** `marquezTagsOf` on a projection state, for a dataset or job key (`datasetKey(namespace, name)`). */
export function tagsInState(
  state: OpenLineageState,
  element: 'dataset' | 'job',
  elementKey: string,
): { tags: string[]; fieldTags: Map<string, string[]> } {
  const { marquez } = state;
  const key = marquezKey(element, elementKey);
  const fieldTags = new Map<string, string[]>();
  for (const [field, tags] of marquez.fieldTags.get(key) ?? []) fieldTags.set(field, [...tags].sort());
  return { tags: [...(marquez.tags.get(key) ?? [])].sort(), fieldTags };
}

/** A dataset in Marquez's shape with the tags recorded through the Marquez API. */
function shownDataset(runtime: MarquezRuntime, source: DatasetSource): MarquezDataset {
  return toMarquezDataset(source, marquezTagsOf(runtime, 'dataset', source.namespace, source.name));
}

/** One dataset by its identity (or an identity joined with it). @throws NotFoundError (also for a deleted one). */
export function findCatalogDataset(runtime: MarquezRuntime, namespace: string, name: string): DatasetSource {
  if (isDeleted(runtime, 'dataset', namespace, name))
    throw new NotFoundError(`dataset "${name}" in namespace "${namespace}" was deleted`);
  const detail = runtime.openLineage.datasetDetail({ namespace, name });
  const join = runtime.openLineage.graphJoin();
  const graphFacets = detail.identities
    .map((id) => join.dataset(datasetKey(id.namespace, id.name)))
    .find((found) => found !== null);
  return {
    namespace,
    name,
    facets: withGraphFacets(detail.facets, graphFacets?.dataset.facets),
    firstMs: Date.parse(detail.first_seen),
    lastMs: Date.parse(detail.last_seen),
  };
}

/** A job known to the projection: ingested (`records`) or of an extracted graph (`extracted`). */
interface CatalogJob {
  namespace: string;
  name: string;
  facets: Record<string, unknown>;
  lastMs: number;
}

/** Every job Marquez shows, sorted by namespace then name (ingested ones, then the extracted graphs' jobs no event names). */
function catalogJobs(runtime: MarquezRuntime, namespace?: string): CatalogJob[] {
  const visible = runtime.openLineage
    .listJobs({ namespace })
    .filter((job) => !isDeleted(runtime, 'job', job.namespace, job.name));
  return visible.map((job) => ({
    namespace: job.namespace,
    name: job.name,
    facets: job.facets,
    lastMs: Date.parse(job.latest_event_time),
  }));
}

/** The runs of an ingested job, newest first: its RunEvents grouped by runId. */
function ingestedRuns(records: readonly EventRecord[], job: { namespace: string; name: string }): MarquezRun[] {
  const byRun = new Map<string, EventRecord[]>();
  for (const record of records) {
    if (record.runId === null) continue;
    const list = byRun.get(record.runId);
    if (list) list.push(record);
    else byRun.set(record.runId, [record]);
  }
  const runs = [...byRun].map(([runId, list]) => {
    const sorted = [...list].sort((a, b) => a.timeMs - b.timeMs || a.seq - b.seq);
    return { lastMs: sorted.at(-1)!.timeMs, run: toMarquezRun(runId, job, sorted) };
  });
  return runs.sort((a, b) => b.lastMs - a.lastMs).map((entry) => entry.run);
}

/** The one COMPLETE run an extracted job's RunEvent stands for. */
function extractedRun(extracted: ExtractedJob): { run: MarquezRun; events: TimedEvent[] } {
  const event = extracted.event as unknown as IngestedEvent;
  const events = [{ event, timeMs: Date.parse(extracted.event.eventTime), eventType: 'COMPLETE' }];
  const job = { namespace: extracted.event.job.namespace, name: extracted.event.job.name };
  return { run: toMarquezRun(extracted.event.run.runId, job, events), events };
}

/** What Marquez's `Job` is built from, for one job. @throws NotFoundError for an unknown job. */
export function jobSource(runtime: MarquezRuntime, namespace: string, name: string): JobSource {
  const { state } = runtime.openLineage;
  const key = datasetKey(namespace, name);
  if (isDeleted(runtime, 'job', namespace, name))
    throw new NotFoundError(`job "${name}" in namespace "${namespace}" was deleted`);
  const { tags } = marquezTagsOf(runtime, 'job', namespace, name);
  const job = state.jobs.get(key);
  if (job) {
    const records = state.byJob.get(key) ?? [];
    const runs = ingestedRuns(records, job);
    const latestRunEvents = records.filter((record) => record.runId !== null && record.runId === job.latestRunId);
    const events = latestRunEvents.length > 0 ? latestRunEvents : job.latestJobEvent ? [job.latestJobEvent] : [];
    return {
      namespace,
      name,
      facets: job.facets,
      firstMs: records.reduce((first, record) => Math.min(first, record.timeMs), job.lastMs),
      lastMs: job.lastMs,
      inputs: datasetIdsOf(events, 'inputs'),
      outputs: datasetIdsOf(events, 'outputs'),
      runs,
      tags,
    };
  }
  const extracted = runtime.openLineage.graphJoin().jobsNamed(namespace, name)[0];
  if (!extracted) throw new NotFoundError(`job "${name}" in namespace "${namespace}" is not known`);
  const { run, events } = extractedRun(extracted);
  const timeMs = events[0]!.timeMs;
  return {
    namespace,
    name,
    facets: (extracted.event.job.facets ?? {}) as Record<string, unknown>,
    firstMs: timeMs,
    lastMs: timeMs,
    inputs: datasetIdsOf(events, 'inputs'),
    outputs: datasetIdsOf(events, 'outputs'),
    runs: [run],
    tags,
  };
}

/** `GET /namespaces`: every namespace of a dataset or a job, sorted, with the times of its first and last element. */
export function marquezNamespaces(runtime: MarquezRuntime): {
  namespaces: Array<{ name: string; createdAt: string; updatedAt: string; ownerName: string; description: string }>;
} {
  const times = new Map<string, { first: number; last: number }>();
  const note = (namespace: string, first: number, last: number) => {
    const known = times.get(namespace);
    if (!known) times.set(namespace, { first, last });
    else {
      known.first = Math.min(known.first, first);
      known.last = Math.max(known.last, last);
    }
  };
  for (const dataset of catalogDatasets(runtime)) note(dataset.namespace, dataset.firstMs, dataset.lastMs);
  for (const job of catalogJobs(runtime)) note(job.namespace, job.lastMs, job.lastMs);
  const namespaces = [...times]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, { first, last }]) => ({
      name,
      createdAt: isoTime(first),
      updatedAt: isoTime(last),
      ownerName: 'lineage-svc',
      description: `OpenLineage namespace ${name}`,
    }));
  return { namespaces };
}

/** `GET /namespaces/{namespace}`. @throws NotFoundError when no dataset or job is in it. */
export function marquezNamespace(runtime: MarquezRuntime, namespace: string) {
  const found = marquezNamespaces(runtime).namespaces.find((entry) => entry.name === namespace);
  if (!found) throw new NotFoundError(`namespace "${namespace}" holds no dataset or job`);
  return found;
}

/**
 * `GET /tags`: the tags defined through `PUT /tags/{tag}` (with their descriptions), those put on
 * datasets, fields and jobs through the Marquez API, and the datasets' catalog tags, sorted by name.
 */
export function marquezTags(
  runtime: MarquezRuntime,
  page: Page,
): { tags: Array<{ name: string; description: string }> } {
  const { marquez } = runtime.openLineage.state;
  const descriptions = new Map<string, string>();
  for (const dataset of catalogDatasets(runtime))
    for (const tag of facetTags(dataset.facets)) descriptions.set(tag, `Catalog tag ${tag}`);
  const used = [...marquez.tags.values(), ...[...marquez.fieldTags.values()].flatMap((fields) => [...fields.values()])];
  for (const tags of used) for (const tag of tags) if (!descriptions.has(tag)) descriptions.set(tag, `Tag ${tag}`);
  for (const [tag, description] of marquez.definitions) descriptions.set(tag, description ?? `Tag ${tag}`);
  const tags = [...descriptions]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, description]) => ({ name, description }));
  return { tags: pageOf(tags, page) };
}

/** `GET /namespaces/{namespace}/datasets`: one page of its datasets, sorted by name, with `totalCount`. */
export function marquezDatasets(
  runtime: MarquezRuntime,
  namespace: string,
  page: Page,
): { datasets: MarquezDataset[]; totalCount: number } {
  const all = catalogDatasets(runtime, namespace);
  return { datasets: pageOf(all, page).map((source) => shownDataset(runtime, source)), totalCount: all.length };
}

/** `GET /namespaces/{namespace}/datasets/{dataset}`. @throws NotFoundError. */
export function marquezDataset(runtime: MarquezRuntime, namespace: string, name: string): MarquezDataset {
  return shownDataset(runtime, findCatalogDataset(runtime, namespace, name));
}

/** The Marquez run states `lastRunStates` may name. */
export const RUN_STATES: readonly MarquezRunState[] = ['NEW', 'RUNNING', 'COMPLETED', 'FAILED', 'ABORTED'];

/**
 * `GET /jobs` and `GET /namespaces/{namespace}/jobs`: one page of jobs (of one namespace, or all),
 * sorted by namespace then name, optionally only those whose latest run is in `lastRunStates`, with `totalCount`.
 */
export function marquezJobs(
  runtime: MarquezRuntime,
  query: Page & { namespace?: string | undefined; lastRunStates?: readonly MarquezRunState[] | undefined },
): { jobs: MarquezJob[]; totalCount: number } {
  const jobs = catalogJobs(runtime, query.namespace);
  const states = query.lastRunStates && query.lastRunStates.length > 0 ? new Set(query.lastRunStates) : null;
  if (states === null) {
    const page = pageOf(jobs, query).map((job) => toMarquezJob(jobSource(runtime, job.namespace, job.name)));
    return { jobs: page, totalCount: jobs.length };
  }
  const built = jobs.map((job) => toMarquezJob(jobSource(runtime, job.namespace, job.name)));
  const kept = built.filter((job) => job.latestRun !== undefined && states.has(job.latestRun.state));
  return { jobs: pageOf(kept, query), totalCount: kept.length };
}

/** `GET /namespaces/{namespace}/jobs/{job}`. @throws NotFoundError. */
export function marquezJob(runtime: MarquezRuntime, namespace: string, name: string): MarquezJob {
  return toMarquezJob(jobSource(runtime, namespace, name));
}

/** `GET /namespaces/{namespace}/jobs/{job}/runs`: one page of its runs, newest first, with `totalCount`. @throws NotFoundError. */
export function marquezRuns(
  runtime: MarquezRuntime,
  namespace: string,
  name: string,
  page: Page,
): { runs: MarquezRun[]; totalCount: number } {
  const { runs } = jobSource(runtime, namespace, name);
  return { runs: pageOf(runs, page), totalCount: runs.length };
}

/** A run found by its runId: its job and its events (ingested, or an extracted job's one run). */
function findRun(runtime: MarquezRuntime, runId: string): { run: MarquezRun; events: TimedEvent[] } {
  const { state } = runtime.openLineage;
  const records = state.byRun.get(runId) ?? state.byRun.get(runId.toLowerCase());
  const first = records?.find((record) => record.jobKey !== null);
  if (records && first) {
    const job = state.jobs.get(first.jobKey!)!;
    const sorted = records.filter((record) => record.jobKey === first.jobKey).sort((a, b) => a.timeMs - b.timeMs);
    return { run: toMarquezRun(first.runId ?? runId, job, sorted), events: sorted };
  }
  for (const extracted of runtime.openLineage.graphJoin().jobs()) {
    if (extracted.event.run.runId === runId) return extractedRun(extracted);
  }
  throw new NotFoundError(`run "${runId}" is not known`);
}

/** `GET /jobs/runs/{id}`. @throws NotFoundError. */
export function marquezRun(runtime: MarquezRuntime, runId: string): MarquezRun {
  return findRun(runtime, runId).run;
}

/**
 * `GET /jobs/runs/{id}/facets?type=run|job`: the run's run facets (merged over its events, later
 * wins) or its job's facets as its events gave them. @throws NotFoundError.
 */
export function marquezRunFacets(
  runtime: MarquezRuntime,
  runId: string,
  type: 'run' | 'job',
): { runId: string; facets: Record<string, unknown> } {
  const { run, events } = findRun(runtime, runId);
  if (type === 'run') return { runId: run.id, facets: run.facets };
  const facets: Record<string, unknown> = {};
  for (const { event } of events) {
    const job = event.job as { facets?: unknown } | undefined;
    if (job && typeof job.facets === 'object' && job.facets !== null) Object.assign(facets, job.facets);
  }
  return { runId: run.id, facets };
}

/** Kinds and orders of `GET /search`. */
export const SEARCH_FILTERS = ['DATASET', 'JOB'] as const;
export const SEARCH_SORTS = ['NAME', 'UPDATE_AT'] as const;

/** One search result. */
export type MarquezSearchResult = {
  type: 'DATASET' | 'JOB';
  name: string;
  updatedAt: string;
  namespace: string;
  nodeId: string;
};

/**
 * `GET /search`: datasets and jobs whose name contains `q` (case-insensitive), of one kind
 * (`filter`) or both, of one namespace or all, sorted by name or by last update (newest first), the
 * first `limit`; `totalCount` counts every match.
 */
export function marquezSearch(
  runtime: MarquezRuntime,
  query: {
    q: string;
    filter?: (typeof SEARCH_FILTERS)[number] | undefined;
    sort?: (typeof SEARCH_SORTS)[number] | undefined;
    limit: number;
    namespace?: string | undefined;
  },
): { totalCount: number; results: MarquezSearchResult[] } {
  const needle = query.q.toLowerCase();
  const results: Array<MarquezSearchResult & { ms: number }> = [];
  const matches = (namespace: string, name: string) =>
    name.toLowerCase().includes(needle) && (query.namespace === undefined || namespace === query.namespace);
  if (query.filter !== 'JOB') {
    for (const dataset of catalogDatasets(runtime)) {
      if (!matches(dataset.namespace, dataset.name)) continue;
      const nodeId = marquezNodeId('dataset', dataset.namespace, dataset.name);
      results.push({
        type: 'DATASET',
        name: dataset.name,
        namespace: dataset.namespace,
        nodeId,
        ...times(dataset.lastMs),
      });
    }
  }
  if (query.filter !== 'DATASET') {
    for (const job of catalogJobs(runtime)) {
      if (!matches(job.namespace, job.name)) continue;
      const nodeId = marquezNodeId('job', job.namespace, job.name);
      results.push({ type: 'JOB', name: job.name, namespace: job.namespace, nodeId, ...times(job.lastMs) });
    }
  }
  results.sort(
    (a, b) => (query.sort === 'UPDATE_AT' ? b.ms - a.ms : 0) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  return { totalCount: results.length, results: results.slice(0, query.limit).map(({ ms: _ms, ...result }) => result) };
}

const times = (ms: number) => ({ updatedAt: isoTime(ms), ms });

/**
 * `GET /events/lineage`: the received events (not the graphs') with eventTime within `after` and
 * `before` (milliseconds, inclusive), newest first (`desc`, Marquez's default) or oldest first, one
 * page, with `totalCount`.
 */
export function marquezLineageEvents(
  runtime: MarquezRuntime,
  query: Page & { before?: number | undefined; after?: number | undefined; sortDirection: 'asc' | 'desc' },
): { events: IngestedEvent[]; totalCount: number } {
  const window = { since: query.after, until: query.before };
  if (query.sortDirection === 'asc') {
    const { events, total } = runtime.openLineage.queryEvents({ ...window, limit: query.limit, offset: query.offset });
    return { events, totalCount: total };
  }
  const { total } = runtime.openLineage.queryEvents({ ...window, limit: 1, offset: 0 });
  const end = total - query.offset;
  if (end <= 0) return { events: [], totalCount: total };
  const start = Math.max(0, end - query.limit);
  const { events } = runtime.openLineage.queryEvents({ ...window, limit: end - start, offset: start });
  return { events: events.reverse(), totalCount: total };
}

/** Periods of `GET /stats/...`: the last 24 hours by hour, or the last 7 days by day. */
export const STATS_PERIODS = ['DAY', 'WEEK'] as const;
/** What `GET /stats/{asset}` counts. */
export const STATS_ASSETS = ['lineage-events', 'jobs', 'datasets', 'sources'] as const;

/** One interval of a statistic. */
export type Interval = {
  startInterval: string;
  endInterval: string;
};

/** Offset of `timeZone` from UTC at `ms`, in milliseconds. @throws ValidationError for an unknown time zone. */
function zoneOffset(timeZone: string, ms: number): number {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }).formatToParts(ms);
  } catch {
    throw new ValidationError(`timezone "${timeZone}" is not an IANA time zone (e.g. UTC, Europe/Paris)`, [
      { path: 'querystring.timezone', message: 'unknown time zone' },
    ]);
  }
  const value = (type: string) => Number(parts.find((part) => part.type === type)?.value ?? 0);
  const local = Date.UTC(
    value('year'),
    value('month') - 1,
    value('day'),
    value('hour'),
    value('minute'),
    value('second'),
  );
  return local - Math.floor(ms / 1000) * 1000;
}

/** The intervals of a period ending now: 24 hours (`DAY`) or 7 local days (`WEEK`), oldest first. */
export function intervalsOf(
  period: (typeof STATS_PERIODS)[number],
  timeZone: string,
  nowMs: number,
): Array<{ start: number; end: number }> {
  const offset = zoneOffset(timeZone, nowMs);
  const hour = 3_600_000;
  const day = 24 * hour;
  const [size, count] = period === 'DAY' ? [hour, 24] : [day, 7];
  const localNow = nowMs + offset;
  const lastStart = Math.floor(localNow / size) * size - offset;
  return Array.from({ length: count }, (_, index) => {
    const start = lastStart - (count - 1 - index) * size;
    return { start, end: start + size };
  });
}

/** Run counts of one interval of `GET /stats/lineage-events`. */
export type LineageEventsInterval = Interval & {
  fail: number;
  start: number;
  complete: number;
  abort: number;
};

/**
 * `GET /stats/lineage-events`: per interval, the received RunEvents by eventType (START, COMPLETE,
 * FAIL, ABORT); `GET /stats/jobs|datasets|sources`: per interval, how many jobs, datasets or sources
 * (dataset namespaces) existed by its end (first seen before it).
 */
export function marquezStats(
  runtime: MarquezRuntime,
  asset: (typeof STATS_ASSETS)[number],
  query: { period: (typeof STATS_PERIODS)[number]; timezone: string; nowMs: number },
): Array<Interval & Record<string, number | string>> {
  const intervals = intervalsOf(query.period, query.timezone, query.nowMs);
  const label = ({ start, end }: { start: number; end: number }) => ({
    startInterval: isoTime(start),
    endInterval: isoTime(end),
  });
  if (asset === 'lineage-events') {
    const from = intervals[0]!.start;
    const { events } = runtime.openLineage.queryEvents({
      since: from,
      until: intervals.at(-1)!.end - 1,
      limit: Number.MAX_SAFE_INTEGER,
    });
    const counts = intervals.map((interval) => ({ ...label(interval), fail: 0, start: 0, complete: 0, abort: 0 }));
    for (const event of events) {
      const ms = Date.parse(String(event.eventTime));
      const at = intervals.findIndex((interval) => ms >= interval.start && ms < interval.end);
      const kind = String(event.eventType ?? '').toLowerCase();
      if (at >= 0 && (kind === 'fail' || kind === 'start' || kind === 'complete' || kind === 'abort'))
        counts[at]![kind] += 1;
    }
    return counts;
  }
  const firsts = firstSeen(runtime, asset);
  return intervals.map((interval) => ({ ...label(interval), count: firsts.filter((ms) => ms < interval.end).length }));
}

/** When each job, dataset or source (dataset namespace) was first seen, in milliseconds. */
function firstSeen(runtime: MarquezRuntime, asset: 'jobs' | 'datasets' | 'sources'): number[] {
  if (asset === 'jobs') return catalogJobs(runtime).map((job) => jobSource(runtime, job.namespace, job.name).firstMs);
  const datasets = catalogDatasets(runtime);
  if (asset === 'datasets') return datasets.map((dataset) => dataset.firstMs);
  const sources = new Map<string, number>();
  for (const dataset of datasets)
    sources.set(dataset.namespace, Math.min(sources.get(dataset.namespace) ?? Infinity, dataset.firstMs));
  return [...sources.values()];
}
