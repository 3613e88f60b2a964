/**
 * The OpenLineage projection as the projector drives it (`projections/projector.ts`): one
 * `OpenLineageState`, folded by `evolveOpenLineage`, behind the `/lineage/...` queries
 * (docs/openlineage.md, "Queries"). `reset()` replaces the state with a fresh one.
 *
 * It folds `OpenLineageEventIngested` events (ingested through the API or the Kafka transport) and,
 * from graph events, where each dataset and job of the extracted graphs sits; see `evolve.ts`. The
 * dataset and job queries join the live graphs of `options.graphs` (the graph projection) at query
 * time (`extracted.ts`); without it they answer the ingested events alone. The query parameters
 * arrive checked by the route schemas (`infra/http/routes/openLineage.ts`): nothing here validates
 * HTTP input. No query changes the store.
 */
import type { StoredLineageEvent } from '../../src/events.js';
import type { IngestedEvent } from '../../src/openlineage/model.js';
import type { Projection } from '../projector.js';
import { datasetLineage, type DatasetLineageQuery, type DatasetLineageResult } from './datasetLineage.js';
import { datasetDetail, listDatasets, type DatasetDetail, type DatasetSummary } from './datasets.js';
import { eventsOfRun, queryEvents, type EventQuery } from './events.js';
import { evolveOpenLineage } from './evolve.js';
import { createGraphJoinCache, graphJoin, type ExtractedGraphs, type GraphJoin } from './extracted.js';
import { jobDetail, listJobs, type JobDetail, type JobSummary } from './jobs.js';
import { initialOpenLineageState, type OpenLineageState } from './state.js';

/** The OpenLineage projection: a `Projection` plus the queries of `/lineage/...`. */
export interface OpenLineageProjection extends Projection {
  /** The current state (replaced by `reset()`: read it again after one). */
  readonly state: OpenLineageState;
  /** True when an event with this dedupe key was folded (the ingestor's `dedupeIndex`). */
  hasDedupeKey(dedupeKey: string): boolean;
  /** Number of distinct events folded. */
  readonly eventCount: number;
  /**
   * Declares two dataset namespaces the same (e.g. a configured `kafka://b2:9092` -> `kafka://b1:9092`).
   * Not an event: a `reset()` forgets it.
   */
  addNamespaceAlias(namespaceA: string, namespaceB: string): void;
  /**
   * Walks dataset lineage over the ingested events and the extracted graphs (`GET /lineage/datasets/lineage`,
   * see `datasetLineage`). @throws NotFoundError for an unknown dataset.
   */
  datasetLineage(query: DatasetLineageQuery): DatasetLineageResult;
  /** Events matching the filters, ordered by eventTime (then arrival), paged (`GET /lineage/events`). */
  queryEvents(query?: EventQuery): { events: IngestedEvent[]; total: number };
  /** Events of one run, ordered by eventTime (`GET /lineage/events/{run_id}`). @throws NotFoundError for an unknown run. */
  eventsOfRun(runId: string): IngestedEvent[];
  /** Datasets of the ingested events and the extracted graphs, optionally of one namespace, sorted (`GET /lineage/datasets`). */
  listDatasets(query?: { namespace?: string | undefined }): DatasetSummary[];
  /** One dataset (`GET /lineage/datasets/detail`). @throws NotFoundError when unknown. */
  datasetDetail(query: { namespace: string; name: string }): DatasetDetail;
  /** Jobs of the ingested events and the extracted graphs, optionally of one namespace, sorted (`GET /lineage/jobs`). */
  listJobs(query?: { namespace?: string | undefined }): JobSummary[];
  /** One job with its latest run's inputs and outputs (`GET /lineage/jobs/detail`). @throws NotFoundError when unknown. */
  jobDetail(query: { namespace: string; name: string }): JobDetail;
  /**
   * The extracted graphs as the queries above see them, for one read (`extracted.ts`), sharing the
   * projection's cache of built RunEvents: what other read models of the same graph (the Marquez API,
   * `services/marquez*.ts`) walk beside `state`.
   */
  graphJoin(): GraphJoin;
}

/** What an OpenLineage projection joins. */
export interface OpenLineageProjectionOptions {
  /**
   * The live extracted graphs (the runtime's graph projection, driven by the same projector), joined
   * by the dataset and job queries. Absent: those queries answer the ingested events alone.
   */
  graphs?: ExtractedGraphs;
}

/** Creates an OpenLineage projection over a fresh state. */
export function createOpenLineageProjection(options: OpenLineageProjectionOptions = {}): OpenLineageProjection {
  let state = initialOpenLineageState();
  // The graphs' RunEvents built by earlier queries, each for its graph's current revision (`extracted.ts`).
  let cache = createGraphJoinCache();
  const join = () => graphJoin(state, options.graphs, cache);
  return {
    get state() {
      return state;
    },
    get position() {
      return state.position;
    },
    get eventCount() {
      return state.dedupeKeys.size;
    },
    apply(event: StoredLineageEvent) {
      evolveOpenLineage(state, event);
    },
    reset() {
      state = initialOpenLineageState();
      cache = createGraphJoinCache();
    },
    hasDedupeKey: (dedupeKey) => state.dedupeKeys.has(dedupeKey),
    addNamespaceAlias: (namespaceA, namespaceB) => state.identities.alias(namespaceA, namespaceB),
    datasetLineage: (query) => datasetLineage(state, query, join()),
    queryEvents: (query) => queryEvents(state, query),
    eventsOfRun: (runId) => eventsOfRun(state, runId),
    listDatasets: (query) => listDatasets(state, query, join()),
    datasetDetail: (query) => datasetDetail(state, query, join()),
    listJobs: (query) => listJobs(state, query, join()),
    jobDetail: (query) => jobDetail(state, query, join()),
    graphJoin: join,
  };
}
