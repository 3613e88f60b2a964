/**
 * The OpenLineage endpoints' use cases (issue 6 items 1-3; contract section 4; specification
 * "Endpoints"): ingestion (`POST /lineage`, `POST /lineage/events`), the `/lineage/...` queries
 * answered by the OpenLineage projection (`projections/openLineage/`, which joins the extracted graphs
 * by itself), and the two graph views (`GET /graphs/confluent/view`, `/graphs/enriched/view`). One
 * function per endpoint; each throws our errors (`ValidationError` 400, `NotFoundError` 404) and
 * nothing else on bad input. Query parameters arrive checked by the route schemas
 * (`infra/http/routes/openLineage.ts`).
 *
 * Only ingestion writes: it goes through the runtime's OpenLineage ingestor
 * (`src/openlineage/ingestion.ts`) and waits for the projector to fold what it appended, so a read
 * right after a write sees it. Every other function here only reads, the views included.
 */
import { randomUUID } from 'node:crypto';
import { ValidationError } from '../src/errors.js';
import { IssueList } from '../src/graph/validation.js';
import { SYSTEMS, type System } from '../src/graph/model.js';
import { graphToRunEvents } from '../src/openlineage/fromGraph.js';
import type { IngestionResult } from '../src/openlineage/ingestion.js';
import type { IngestedEvent, RunEvent } from '../src/openlineage/model.js';
import type {
  DatasetDetail,
  DatasetLineageQuery,
  DatasetLineageResult,
  DatasetSummary,
  EventQuery,
  JobDetail,
  JobSummary,
} from '../projections/openLineage/index.js';
import type { LineageRuntime } from './runtime.js';
import { defaultGraph, readGraph } from './graphs.js';

/** The part of the runtime the OpenLineage endpoints use. */
export type OpenLineageRuntime = Pick<
  LineageRuntime,
  'store' | 'graphs' | 'commands' | 'openLineage' | 'openLineageIngestor' | 'projector'
>;

/** Most events one ingestion request may hold (the 10 MiB body limit usually binds first). */
export const MAX_BATCH_EVENTS = 10_000;

/** The answer of an ingestion request: one result per item, and the counts by status. */
export interface IngestionAnswer {
  results: IngestionResult[];
  accepted: number;
  duplicates: number;
  rejected: number;
}

/** Waits until every projection has folded the store up to its current head. */
async function catchUp(runtime: OpenLineageRuntime): Promise<void> {
  await runtime.projector.waitFor(await runtime.store.headPosition());
}

/**
 * Ingests one event (an object) or a batch (an array) of OpenLineage events (RunEvent, JobEvent,
 * DatasetEvent) and waits for the projection to fold them.
 *
 * @returns one result per item when at least one item was accepted or was a duplicate (HTTP 200);
 *   rejected items are listed with their `errors` beside the others.
 * @throws ValidationError (HTTP 400) for an empty batch, a body that is neither an object nor an
 *   array, or when every item was rejected; `issues` holds each item's errors with the path
 *   prefixed by its index (`[2].job.name`).
 */
export async function ingestLineage(
  runtime: OpenLineageRuntime,
  body: unknown,
  options: { correlationId?: string | undefined } = {},
): Promise<IngestionAnswer> {
  if (body === null || typeof body !== 'object') {
    throw new ValidationError('the body must be an OpenLineage event (a JSON object) or an array of events', [
      { path: 'body', message: 'expected an object or an array' },
    ]);
  }
  const bodies = Array.isArray(body) ? body : [body];
  if (bodies.length === 0)
    throw new ValidationError('the batch holds no event', [{ path: 'body', message: 'expected at least one event' }]);
  if (bodies.length > MAX_BATCH_EVENTS) {
    throw new ValidationError(`a batch holds at most ${MAX_BATCH_EVENTS} events`, [
      { path: 'body', message: `got ${bodies.length} events` },
    ]);
  }
  const results = await runtime.openLineageIngestor.ingest(bodies, {
    correlation_id: options.correlationId ?? randomUUID(),
    actor: 'api',
  });
  const count = (status: IngestionResult['status']) => results.filter((result) => result.status === status).length;
  const answer: IngestionAnswer = {
    results,
    accepted: count('accepted'),
    duplicates: count('duplicate'),
    rejected: count('rejected'),
  };
  if (answer.rejected === results.length) {
    // The first MAX_LISTED_ISSUES problems are listed, all are counted (issue 23).
    const issues = new IssueList();
    for (const result of results) {
      for (const issue of result.errors ?? [{ path: '', message: 'rejected' }]) {
        if (issues.listed.length >= issues.limit) issues.count += 1;
        else
          issues.add({ path: `[${result.index}]${issue.path === '' ? '' : `.${issue.path}`}`, message: issue.message });
      }
    }
    const first = issues.listed[0];
    const detail = bodies.length === 1 ? 'the event was rejected' : `all ${bodies.length} events were rejected`;
    throw new ValidationError(first ? `${detail}: ${first.path}: ${first.message}` : detail, issues.listed, {
      issueCount: issues.count,
    });
  }
  if (answer.accepted > 0) await catchUp(runtime);
  return answer;
}

/**
 * `GET /lineage/events`: events matching the filters, ordered by eventTime, one page (`limit` default
 * 100, `offset` default 0, echoed in the answer), with the total.
 */
export function queryLineageEvents(
  runtime: OpenLineageRuntime,
  query: EventQuery,
): { events: IngestedEvent[]; total: number; limit: number; offset: number } {
  const limit = query.limit ?? 100;
  const offset = query.offset ?? 0;
  return { ...runtime.openLineage.queryEvents({ ...query, limit, offset }), limit, offset };
}

/** `GET /lineage/events/{run_id}`: the events of one run (runId as received, or its UUID). @throws NotFoundError. */
export function lineageRunEvents(
  runtime: OpenLineageRuntime,
  runId: string,
): { run_id: string; events: IngestedEvent[] } {
  return { run_id: runId, events: runtime.openLineage.eventsOfRun(runId) };
}

/** `GET /lineage/datasets`: datasets, optionally of one namespace, sorted by namespace then name. */
export function lineageDatasets(
  runtime: OpenLineageRuntime,
  namespace?: string,
): { datasets: DatasetSummary[]; total: number } {
  const datasets = runtime.openLineage.listDatasets({ namespace });
  return { datasets, total: datasets.length };
}

/** `GET /lineage/datasets/detail`: one dataset with its identities and jobs. @throws NotFoundError. */
export function lineageDatasetDetail(runtime: OpenLineageRuntime, namespace: string, name: string): DatasetDetail {
  return runtime.openLineage.datasetDetail({ namespace, name });
}

/**
 * `GET /lineage/datasets/lineage`: the jobs and datasets around a dataset, `depth` dataset hops away
 * (direction and depth as the route schema checked them).
 * @throws NotFoundError for an unknown dataset.
 */
export function lineageOfDataset(runtime: OpenLineageRuntime, query: DatasetLineageQuery): DatasetLineageResult {
  return runtime.openLineage.datasetLineage(query);
}

/** `GET /lineage/jobs`: jobs, optionally of one namespace, sorted by namespace then name. */
export function lineageJobs(runtime: OpenLineageRuntime, namespace?: string): { jobs: JobSummary[]; total: number } {
  const jobs = runtime.openLineage.listJobs({ namespace });
  return { jobs, total: jobs.length };
}

/** `GET /lineage/jobs/detail`: a job with the inputs and outputs of its latest run. @throws NotFoundError. */
export function lineageJobDetail(runtime: OpenLineageRuntime, namespace: string, name: string): JobDetail {
  return runtime.openLineage.jobDetail({ namespace, name });
}

/** The two graph views. */
export type ViewName = 'confluent' | 'enriched';

/** What a view answers. */
export interface ViewAnswer {
  view: ViewName;
  graph_id: string;
  /** The systems kept (upper-case), `null` for all (enriched without `systems`) or `["STREAM"]` (confluent). */
  systems: System[] | null;
  events: RunEvent[];
  count: number;
}

/**
 * Parses the `systems` query of the enriched view: a comma-separated list of system names
 * (`stream`, `lakehouse`, `datalake`, `warehouse`, `external`; case-insensitive; blanks ignored).
 * @returns the set, or undefined when the list is absent or empty (every system).
 * @throws ValidationError naming each unknown system.
 */
export function parseSystems(value: string | undefined): Set<System> | undefined {
  if (value === undefined) return undefined;
  const names = value
    .split(',')
    .map((name) => name.trim().toUpperCase())
    .filter((name) => name !== '');
  if (names.length === 0) return undefined;
  const unknown = names.filter((name) => !(SYSTEMS as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new ValidationError(
      `unknown system ${unknown.map((name) => `"${name.toLowerCase()}"`).join(', ')}; expected ${SYSTEMS.map((name) => name.toLowerCase()).join(', ')}`,
      [{ path: 'querystring.systems', message: `unknown: ${unknown.join(', ')}` }],
    );
  }
  return new Set(names as System[]);
}

/**
 * `GET /graphs/confluent/view` and `/graphs/enriched/view`: one COMPLETE RunEvent per job of the graph
 * (`graph_id`, default the most recently changed graph), stream platform only (`confluent`) or the
 * systems asked (`enriched`, all by default), `eventTime` now. It only reads: the `/lineage/...`
 * queries join the graphs' jobs by themselves (`projections/openLineage/extracted.ts`).
 * @throws NotFoundError for an unknown graph or when there is no graph; ValidationError for an unknown system.
 */
export async function lineageView(
  runtime: OpenLineageRuntime,
  view: ViewName,
  query: { graph_id?: string | undefined; systems?: string | undefined },
): Promise<ViewAnswer> {
  const systems = view === 'enriched' ? parseSystems(query.systems) : undefined;
  const state = query.graph_id === undefined ? defaultGraph(runtime) : await readGraph(runtime, query.graph_id);
  const eventTime = new Date().toISOString();
  const events = graphToRunEvents(
    state,
    view === 'confluent' ? { streamOnly: true, eventTime } : { ...(systems ? { systems } : {}), eventTime },
  );
  return {
    view,
    graph_id: state.graphId,
    systems: view === 'confluent' ? ['STREAM'] : systems ? [...systems] : null,
    events,
    count: events.length,
  };
}
