/**
 * The state of the OpenLineage projection (docs/openlineage.md, "Queries" and "Identity"): plain
 * data that `evolveOpenLineage` folds `OpenLineageEventIngested` events into, and that the query
 * functions (`events.ts`, `datasets.ts`, `jobs.ts`, `datasetLineage.ts`) read. Nothing here does I/O.
 *
 * Indexes kept so that no query scans the stored events:
 * - every folded event (`events`), and the events by runId (as received, lower-cased, and the
 *   derived UUID of a non-UUID runId), by job (`datasetKey(namespace, name)`), by job namespace and
 *   by job name;
 * - datasets by `datasetKey`, and their keys by namespace;
 * - jobs by `datasetKey`, with their latest run;
 * - a graphology bipartite graph, dataset -> job (input) and job -> dataset (output), accumulated
 *   over every run, and the dataset identities (`src/openlineage/identity.ts`);
 * - where the extracted graphs hold each dataset and job (`graphDatasets`, `graphJobs`), which the
 *   queries join with the graph projection (`extracted.ts`).
 */
import { DirectedGraph } from 'graphology';
import { DatasetIdentities } from '../../src/openlineage/identity.js';
import { GraphNodeIndex } from './graphNodeIndex.js';
import type { IngestedEvent, OpenLineageEventKind } from '../../src/openlineage/model.js';

/** One folded OpenLineage event (RunEvent, JobEvent or DatasetEvent) with what the indexes need of it. */
export interface EventRecord {
  /** Arrival order among the folded events, from 0: breaks eventTime ties. */
  seq: number;
  kind: OpenLineageEventKind;
  /** The event as stored (lenient fixes applied at ingestion). */
  event: IngestedEvent;
  /** eventTime in milliseconds since the epoch (0 when the stored event has none that parses). */
  timeMs: number;
  /** `datasetKey(job.namespace, job.name)`, null for a DatasetEvent. */
  jobKey: string | null;
  /** `run.runId` as received, null without a run. */
  runId: string | null;
  /** A RunEvent's eventType (`OTHER` when absent), null for JobEvents and DatasetEvents. */
  eventType: string | null;
}

/** What is known of one dataset `(namespace, name)`. */
export interface DatasetState {
  namespace: string;
  name: string;
  /** Facets merged key by key: the latest eventTime wins, `{_deleted: true}` removes a key. */
  facets: Record<string, unknown>;
  /** eventTime (milliseconds since the epoch) of the first and the last event that mentioned it. */
  firstMs: number;
  lastMs: number;
}

/** What is known of one job `(namespace, name)`. */
export interface JobState {
  namespace: string;
  name: string;
  /** Facets merged key by key from the events with the latest eventTime. */
  facets: Record<string, unknown>;
  /** runId of the RunEvent with the latest eventTime (null while only JobEvents were seen). */
  latestRunId: string | null;
  /** eventTime of that RunEvent (milliseconds; -Infinity before any). */
  latestRunMs: number;
  /** The latest run-less event (JobEvent), the job's events when it has no run. */
  latestJobEvent: EventRecord | null;
  /** Latest eventTime of any of its events (milliseconds). */
  lastMs: number;
  /**
   * The inputs and outputs whose edges the fold linked last for this job, as `namespace` and `name`
   * (null for an entry without both), or null before any: an event naming the same ones, in the same
   * order, has its edges in `graph` already (edges are never removed) and skips linking them.
   */
  linked: { inputs: ReadonlyArray<DatasetName | null>; outputs: ReadonlyArray<DatasetName | null> } | null;
}

/** An OpenLineage dataset's `namespace` and `name`. */
export interface DatasetName {
  namespace: string;
  name: string;
}

/** The whole state of the OpenLineage projection. */
export interface OpenLineageState {
  /** Global store position of the last event folded, of any type (0 before any). */
  position: number;
  /**
   * Global store position of the last event folded that can change what the lineage reads (a graph,
   * an OpenLineage or a Marquez event, `LINEAGE_EVENT_TYPES`; 0 before any). A process's lease
   * renewal, a task's progress or a watcher's state advance `position` only, not this.
   */
  lineagePosition: number;
  /** `dedupe_key`s folded: each is folded once. */
  dedupeKeys: Set<string>;
  /** Every folded event, in arrival order until a query sorts it by eventTime (see `eventsSorted`). */
  events: EventRecord[];
  /** True while `events` is ordered by `byTime`. */
  eventsSorted: boolean;
  /** Events by runId as received, its lower-case form, and the UUID of a non-UUID runId. */
  byRun: Map<string, EventRecord[]>;
  /** Events by job key (`datasetKey(namespace, name)`). */
  byJob: Map<string, EventRecord[]>;
  /** Events by job namespace. */
  byJobNamespace: Map<string, EventRecord[]>;
  /** Events by job name. */
  byJobName: Map<string, EventRecord[]>;
  /** Datasets by `datasetKey`. */
  datasets: Map<string, DatasetState>;
  /** Dataset keys by namespace. */
  datasetsByNamespace: Map<string, Set<string>>;
  /** Jobs by `datasetKey(namespace, name)`. */
  jobs: Map<string, JobState>;
  /** Dataset identities joined by symlinks and `kafka://` <-> `stream://` aliases. */
  identities: DatasetIdentities;
  /** Nodes `datasetNode(key)` and `jobNode(key)`; edges dataset -> job (input) and job -> dataset (output). */
  graph: DirectedGraph;
  /** Dataset nodes of the live extracted graphs by OpenLineage identity (`datasetKey(namespace, name)`). */
  graphDatasets: GraphNodeIndex;
  /**
   * Job nodes of the live extracted graphs by OpenLineage job name (a job's namespace may depend on
   * its neighbours, see `openLineageIdentity`).
   */
  graphJobs: GraphNodeIndex;
  /** What the Marquez API's writes left (`MarquezTag*`, `MarquezElementDeleted`). */
  marquez: MarquezAnnotations;
}

/** One write of the Marquez API on a dataset or job, as its history shows it. */
export interface MarquezWrite {
  type: 'MarquezTagAdded' | 'MarquezTagRemoved' | 'MarquezElementDeleted';
  /** The field a tag was put on or taken off (null: the dataset or job itself). */
  field: string | null;
  tag: string | null;
  position: number;
  recorded_at: string;
  cause: string | null;
  actor: string | null;
  correlation_id: string | null;
}

/**
 * The Marquez API's writes, folded: tags of datasets, fields and jobs, tags defined with a description,
 * the datasets and jobs deleted (hidden from the Marquez reads), and each element's writes in order.
 * Elements are keyed by `marquezKey`.
 */
export interface MarquezAnnotations {
  tags: Map<string, Set<string>>;
  /** Tags of a dataset's fields: element key -> field -> tags. */
  fieldTags: Map<string, Map<string, Set<string>>>;
  /** Tags defined through `PUT /tags/{tag}`, with their descriptions. */
  definitions: Map<string, string | null>;
  deleted: Set<string>;
  history: Map<string, MarquezWrite[]>;
}

/** The key of a Marquez dataset or job in `MarquezAnnotations`. */
export const marquezKey = (element: 'dataset' | 'job', key: string): string => `${element}\u0000${key}`;

/** A fresh, empty state: what the projection starts from and what `reset()` goes back to. */
export function initialOpenLineageState(): OpenLineageState {
  return {
    position: 0,
    lineagePosition: 0,
    dedupeKeys: new Set(),
    events: [],
    eventsSorted: true,
    byRun: new Map(),
    byJob: new Map(),
    byJobNamespace: new Map(),
    byJobName: new Map(),
    datasets: new Map(),
    datasetsByNamespace: new Map(),
    jobs: new Map(),
    identities: new DatasetIdentities(),
    graph: new DirectedGraph(),
    graphDatasets: new GraphNodeIndex(),
    graphJobs: new GraphNodeIndex(),
    marquez: { tags: new Map(), fieldTags: new Map(), definitions: new Map(), deleted: new Set(), history: new Map() },
  };
}

/** The lineage graph's node of a dataset key. */
export const datasetNode = (key: string): string => `d\u0000${key}`;
/** The lineage graph's node of a job key. */
export const jobNode = (key: string): string => `j\u0000${key}`;
/** The dataset or job key of a lineage graph node. */
export const keyOfNode = (node: string): string => node.slice(2);

/** Orders records by eventTime, then arrival. */
export const byTime = (a: EventRecord, b: EventRecord): number => a.timeMs - b.timeMs || a.seq - b.seq;

/** Milliseconds since the epoch as an ISO 8601 UTC time. */
export const iso = (ms: number): string => new Date(ms).toISOString();

/** True for a JSON object (not null, not an array). */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Orders datasets or jobs by namespace, then name. */
export const byNamespaceThenName = (
  a: { namespace: string; name: string },
  b: { namespace: string; name: string },
): number => (a.namespace === b.namespace ? (a.name < b.name ? -1 : 1) : a.namespace < b.namespace ? -1 : 1);
