/**
 * The shapes of Marquez 0.51's read API (its OpenAPI document: `Dataset`, `Job`, `Run`,
 * `DatasetVersion`, `GraphNode`, ...; docs/marquez.md) and the pure functions that turn what the
 * OpenLineage projection knows (datasets, jobs, the events of a run) into them. Field names are
 * Marquez's (camelCase); times are ISO 8601 strings in UTC. A field Marquez documents as a string
 * is left out rather than sent as null when we have no value for it.
 */
import { v5 as uuidv5 } from 'uuid';
import { datasetKey } from '../src/openlineage/identity.js';
import type { IngestedEvent } from '../src/openlineage/model.js';

/** UUIDv5 namespace of the Marquez version ids lineage-svc derives (a fixed random UUID). */
export const MARQUEZ_VERSION_NAMESPACE = '3b8f6a52-0c1d-4f7e-9a26-5d4e8c1b7f90';

/** `{namespace, name}` of a dataset or a job. */
export type MarquezId = {
  namespace: string;
  name: string;
};

/** A field of a dataset (from its `schema` facet). */
export type MarquezField = {
  name: string;
  type: string;
  tags: string[];
  description?: string;
};

/** Marquez's `Dataset`. */
export type MarquezDataset = {
  id: MarquezId;
  /** `STREAM` for Kafka topics (`stream://`, `kafka://` namespaces), `DB_TABLE` otherwise. */
  type: 'DB_TABLE' | 'STREAM';
  name: string;
  physicalName: string;
  createdAt: string;
  updatedAt: string;
  namespace: string;
  sourceName: string;
  fields: MarquezField[];
  tags: string[];
  lastModifiedAt: string;
  description?: string;
  facets: Record<string, unknown>;
  currentVersion: string;
  deleted: boolean;
};

/** Marquez's `Run` states. */
export type MarquezRunState = 'NEW' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'ABORTED';

/** A dataset version a run read or wrote. */
export type MarquezDatasetVersionRef = {
  datasetVersionId: MarquezId & { version: string };
  facets: Record<string, unknown>;
};

/** Marquez's `Run`. */
export type MarquezRun = {
  id: string;
  createdAt: string;
  updatedAt: string;
  nominalStartTime?: string;
  nominalEndTime?: string;
  state: MarquezRunState;
  startedAt?: string;
  endedAt?: string;
  durationMs?: number;
  args: Record<string, string>;
  jobVersion: MarquezId & { version: string };
  inputDatasetVersions: MarquezDatasetVersionRef[];
  outputDatasetVersions: MarquezDatasetVersionRef[];
  context: Record<string, string>;
  facets: Record<string, unknown>;
};

/** Marquez's `Job`. */
export type MarquezJob = {
  id: MarquezId;
  /** `STREAM` when its `jobType` facet says `STREAMING`, else `BATCH`. */
  type: 'BATCH' | 'STREAM';
  name: string;
  simpleName: string;
  createdAt: string;
  updatedAt: string;
  namespace: string;
  inputs: MarquezId[];
  outputs: MarquezId[];
  location?: string;
  description?: string;
  latestRun?: MarquezRun;
  latestRuns: MarquezRun[];
  facets: Record<string, unknown>;
  currentVersion: string;
  tags: string[];
};

/** A stored event with its eventTime in milliseconds (the projection's `EventRecord`, narrowed). */
export type TimedEvent = {
  event: IngestedEvent;
  timeMs: number;
  eventType: string | null;
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** Milliseconds since the epoch as ISO 8601. */
export const isoTime = (ms: number): string => new Date(Number.isFinite(ms) ? ms : 0).toISOString();

/** The Marquez node id of a dataset or a job: `dataset:{namespace}:{name}`, `job:{namespace}:{name}` (raw, as Marquez answers). */
export const marquezNodeId = (type: 'dataset' | 'job', namespace: string, name: string): string =>
  `${type}:${namespace}:${name}`;

/** A derived version id (UUIDv5) of `parts`. */
export const versionId = (...parts: Array<string | number>): string =>
  uuidv5(parts.join('\n'), MARQUEZ_VERSION_NAMESPACE);

/** The fields of a dataset from its `schema` facet (nested fields are not flattened; a field without type is `UNKNOWN`). */
export function fieldsOf(facets: Record<string, unknown>, tagsByField?: ReadonlyMap<string, string[]>): MarquezField[] {
  const schema = facets.schema;
  if (!isObject(schema) || !Array.isArray(schema.fields)) return [];
  const fields: MarquezField[] = [];
  for (const field of schema.fields) {
    if (!isObject(field) || typeof field.name !== 'string') continue;
    const description = text(field.description);
    fields.push({
      name: field.name,
      type: text(field.type) ?? 'UNKNOWN',
      tags: tagsByField?.get(field.name) ?? [],
      ...(description ? { description } : {}),
    });
  }
  return fields;
}

/** Tags a dataset's own facets carry (the `stream_topic` facet's catalog tags of an extracted topic). */
export function facetTags(facets: Record<string, unknown>): string[] {
  const topic = facets.stream_topic;
  if (!isObject(topic) || !Array.isArray(topic.tags)) return [];
  return topic.tags.filter((tag): tag is string => typeof tag === 'string');
}

/** The dataset type Marquez shows: `STREAM` for Kafka namespaces. */
export const datasetType = (namespace: string): 'DB_TABLE' | 'STREAM' =>
  namespace.startsWith('stream://') || namespace.startsWith('kafka://') ? 'STREAM' : 'DB_TABLE';

/** What a Marquez dataset is made from. */
export type DatasetSource = {
  namespace: string;
  name: string;
  facets: Record<string, unknown>;
  firstMs: number;
  lastMs: number;
};

/**
 * A dataset in Marquez's shape. `tags` are the tags recorded through the Marquez API joined with
 * those of its facets; `fieldTags` the tags of its fields; `currentVersion` the id of its latest version.
 */
export function toMarquezDataset(
  source: DatasetSource,
  options: { tags?: readonly string[]; fieldTags?: ReadonlyMap<string, string[]>; currentVersion?: string } = {},
): MarquezDataset {
  const { namespace, name, facets } = source;
  const dataSource = facets.dataSource;
  const documentation = facets.documentation;
  const description = isObject(documentation) ? text(documentation.description) : undefined;
  return {
    id: { namespace, name },
    type: datasetType(namespace),
    name,
    physicalName: name,
    createdAt: isoTime(source.firstMs),
    updatedAt: isoTime(source.lastMs),
    namespace,
    sourceName: (isObject(dataSource) ? text(dataSource.name) : undefined) ?? namespace,
    fields: fieldsOf(facets, options.fieldTags),
    tags: [...new Set([...facetTags(facets), ...(options.tags ?? [])])].sort(),
    lastModifiedAt: isoTime(source.lastMs),
    ...(description ? { description } : {}),
    facets,
    currentVersion: options.currentVersion ?? versionId('dataset', datasetKey(namespace, name), source.lastMs),
    deleted: false,
  };
}

/** Marquez's run state after an OpenLineage eventType (`OTHER` keeps the state before it). */
const RUN_STATES: Readonly<Record<string, MarquezRunState>> = {
  START: 'RUNNING',
  RUNNING: 'RUNNING',
  COMPLETE: 'COMPLETED',
  FAIL: 'FAILED',
  ABORT: 'ABORTED',
};

/** The `{namespace, name}` entries of an event's `inputs` or `outputs`. */
function datasetsOf(event: IngestedEvent, side: 'inputs' | 'outputs'): Array<MarquezId & { facets: unknown }> {
  const list = event[side];
  if (!Array.isArray(list)) return [];
  return list
    .filter((entry): entry is Record<string, unknown> => isObject(entry))
    .filter((entry) => typeof entry.namespace === 'string' && typeof entry.name === 'string')
    .map((entry) => ({
      namespace: entry.namespace as string,
      name: entry.name as string,
      facets: side === 'inputs' ? entry.inputFacets : entry.outputFacets,
    }));
}

/** The distinct inputs or outputs of some events, in order of appearance. */
export function datasetIdsOf(events: readonly TimedEvent[], side: 'inputs' | 'outputs'): MarquezId[] {
  const seen = new Map<string, MarquezId>();
  for (const { event } of events)
    for (const { namespace, name } of datasetsOf(event, side))
      seen.set(datasetKey(namespace, name), { namespace, name });
  return [...seen.values()];
}

/** The version of a dataset a run wrote or read: derived from the run and the dataset. */
export const runDatasetVersion = (runId: string, namespace: string, name: string): string =>
  versionId('run-dataset', runId, datasetKey(namespace, name));

/**
 * A run in Marquez's shape from the events of one run (ordered by eventTime): `state` from the last
 * eventType that names one, `startedAt` the START event's time (else the first event's), `endedAt`
 * the terminal event's, run facets merged (later wins), `nominalStartTime`/`nominalEndTime` from the
 * `nominalTime` facet.
 */
export function toMarquezRun(runId: string, job: MarquezId, events: readonly TimedEvent[]): MarquezRun {
  let state: MarquezRunState = 'NEW';
  let startedMs: number | undefined;
  let endedMs: number | undefined;
  const facets: Record<string, unknown> = {};
  for (const { event, timeMs, eventType } of events) {
    const next = eventType === null ? undefined : RUN_STATES[eventType];
    if (next) state = next;
    if (eventType === 'START' && startedMs === undefined) startedMs = timeMs;
    if (eventType === 'COMPLETE' || eventType === 'FAIL' || eventType === 'ABORT') endedMs = timeMs;
    const run = isObject(event.run) ? event.run : {};
    if (isObject(run.facets)) Object.assign(facets, run.facets);
  }
  const first = events[0]?.timeMs ?? 0;
  const last = events.at(-1)?.timeMs ?? 0;
  startedMs ??= first;
  const nominal = isObject(facets.nominalTime) ? facets.nominalTime : {};
  const version = (side: 'inputs' | 'outputs'): MarquezDatasetVersionRef[] =>
    datasetIdsOf(events, side).map(({ namespace, name }) => ({
      datasetVersionId: { namespace, name, version: runDatasetVersion(runId, namespace, name) },
      facets: {},
    }));
  return {
    id: runId,
    createdAt: isoTime(first),
    updatedAt: isoTime(last),
    ...(text(nominal.nominalStartTime) ? { nominalStartTime: text(nominal.nominalStartTime)! } : {}),
    ...(text(nominal.nominalEndTime) ? { nominalEndTime: text(nominal.nominalEndTime)! } : {}),
    state,
    startedAt: isoTime(startedMs),
    ...(endedMs !== undefined ? { endedAt: isoTime(endedMs), durationMs: Math.max(0, endedMs - startedMs) } : {}),
    args: {},
    jobVersion: { namespace: job.namespace, name: job.name, version: jobVersionOf(job, events) },
    inputDatasetVersions: version('inputs'),
    outputDatasetVersions: version('outputs'),
    context: {},
    facets,
  };
}

/** A job's version as of some events: derived from its identity, facets, inputs and outputs. */
export function jobVersionOf(job: MarquezId, events: readonly TimedEvent[]): string {
  const last = events.at(-1)?.event;
  const facets = last && isObject(last.job) && isObject(last.job.facets) ? Object.keys(last.job.facets).sort() : [];
  const io = (side: 'inputs' | 'outputs') =>
    datasetIdsOf(events, side)
      .map((id) => datasetKey(id.namespace, id.name))
      .sort()
      .join(',');
  return versionId('job', datasetKey(job.namespace, job.name), facets.join(','), io('inputs'), io('outputs'));
}

/** What a Marquez job is made from. */
export type JobSource = {
  namespace: string;
  name: string;
  facets: Record<string, unknown>;
  firstMs: number;
  lastMs: number;
  inputs: MarquezId[];
  outputs: MarquezId[];
  /** Its runs, newest first (the first is `latestRun`). */
  runs: MarquezRun[];
  tags?: readonly string[];
};

/** A job in Marquez's shape. */
export function toMarquezJob(source: JobSource): MarquezJob {
  const { namespace, name, facets } = source;
  const jobType = facets.jobType;
  const documentation = facets.documentation;
  const sourceCode = facets.sourceCodeLocation;
  const description = isObject(documentation) ? text(documentation.description) : undefined;
  const location = isObject(sourceCode) ? text(sourceCode.url) : undefined;
  const latest = source.runs[0];
  return {
    id: { namespace, name },
    type: isObject(jobType) && jobType.processingType === 'STREAMING' ? 'STREAM' : 'BATCH',
    name,
    simpleName: name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : name,
    createdAt: isoTime(source.firstMs),
    updatedAt: isoTime(source.lastMs),
    namespace,
    inputs: source.inputs,
    outputs: source.outputs,
    ...(location ? { location } : {}),
    ...(description ? { description } : {}),
    ...(latest ? { latestRun: latest } : {}),
    latestRuns: source.runs.slice(0, 10),
    facets,
    currentVersion: latest?.jobVersion.version ?? versionId('job', datasetKey(namespace, name)),
    tags: [...(source.tags ?? [])].sort(),
  };
}
