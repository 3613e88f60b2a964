/**
 * Job queries of the OpenLineage projection (docs/openlineage.md, "Queries"; docs/api.md,
 * "OpenLineage"): `GET /lineage/jobs` (`listJobs`) and `GET /lineage/jobs/detail` (`jobDetail`).
 * A job's latest run is the run of its RunEvent with the latest eventTime. Pure reads of the state
 * and of the extracted graphs (`extracted.ts`): a job that ingested events name is answered from them;
 * a job that only an extracted graph holds is answered from the RunEvent the graph gives for it (its
 * one COMPLETE run, at the graph's last change).
 */
import { NotFoundError } from '../../src/errors.js';
import { datasetKey } from '../../src/openlineage/identity.js';
import type { DatasetRef } from '../../src/openlineage/model.js';
import { graphJoin, type ExtractedJob, type GraphJoin } from './extracted.js';
import { byNamespaceThenName, byTime, iso, isObject, type EventRecord, type OpenLineageState } from './state.js';

/** A job as listed. */
export interface JobSummary {
  namespace: string;
  name: string;
  /** Facets merged over its events (the latest eventTime wins per facet). */
  facets: Record<string, unknown>;
  latest_run_id: string | null;
  /** eventType of the last event of the latest run (null for a run-less job). */
  latest_event_type: string | null;
  /** ISO time of its latest event. */
  latest_event_time: string;
}

/** A job with the inputs and outputs of its latest run (union over that run's events). */
export interface JobDetail {
  job: { namespace: string; name: string; facets: Record<string, unknown> };
  latest_run: { run_id: string; event_type: string | null; event_time: string } | null;
  latest_inputs: DatasetRef[];
  latest_outputs: DatasetRef[];
}

/**
 * The events that stand for a job now, ordered by eventTime: every event of its latest run, or its
 * latest JobEvent when it has no run; `[]` for an unknown job key.
 */
export function latestEventsOfJob(state: OpenLineageState, jobKey: string): EventRecord[] {
  const job = state.jobs.get(jobKey);
  if (!job) return [];
  if (job.latestRunId !== null) {
    const records = (state.byRun.get(job.latestRunId) ?? []).filter((record) => record.jobKey === jobKey);
    return records.sort(byTime);
  }
  return job.latestJobEvent ? [job.latestJobEvent] : [];
}

/**
 * Jobs, optionally of one namespace (exact), sorted by namespace then name: those ingested events
 * name, then (through `join`) those of the extracted graphs that no ingested event names (once per identity).
 */
export function listJobs(
  state: OpenLineageState,
  query: { namespace?: string | undefined } = {},
  join: GraphJoin = graphJoin(state),
): JobSummary[] {
  const jobs: JobSummary[] = [...state.jobs.values()]
    .filter((job) => query.namespace === undefined || job.namespace === query.namespace)
    .map((job) => {
      const latest = latestEventsOfJob(state, datasetKey(job.namespace, job.name)).at(-1);
      return {
        namespace: job.namespace,
        name: job.name,
        facets: job.facets,
        latest_run_id: job.latestRunId,
        latest_event_type: latest?.eventType ?? null,
        latest_event_time: iso(job.lastMs),
      };
    });
  const listed = new Set<string>();
  for (const extracted of join.jobs()) {
    const { job } = extracted.event;
    if (state.jobs.has(extracted.jobKey) || listed.has(extracted.jobKey)) continue;
    if (query.namespace !== undefined && job.namespace !== query.namespace) continue;
    listed.add(extracted.jobKey);
    jobs.push({
      namespace: job.namespace,
      name: job.name,
      facets: job.facets ?? {},
      latest_run_id: extracted.event.run.runId,
      latest_event_type: extracted.event.eventType,
      latest_event_time: extracted.event.eventTime,
    });
  }
  return jobs.sort(byNamespaceThenName);
}

/**
 * One job, with the inputs and outputs of its latest run: the union, by `(namespace, name)`, of the
 * datasets of that run's events (a later event's entry replaces an earlier one's). A job only an
 * extracted graph holds (`join`) answers its graph RunEvent (the first graph holding it).
 * @throws NotFoundError when neither an event nor an extracted graph names the job.
 */
export function jobDetail(
  state: OpenLineageState,
  query: { namespace: string; name: string },
  join: GraphJoin = graphJoin(state),
): JobDetail {
  const jobKey = datasetKey(query.namespace, query.name);
  const job = state.jobs.get(jobKey);
  if (!job) {
    const extracted = join.jobsNamed(query.namespace, query.name)[0];
    if (extracted) return extractedDetail(extracted);
    throw new NotFoundError(`job "${query.name}" in namespace "${query.namespace}" is not known`);
  }
  const records = latestEventsOfJob(state, jobKey);
  const latest = records.at(-1);
  return {
    job: { namespace: job.namespace, name: job.name, facets: job.facets },
    latest_run:
      job.latestRunId === null || !latest
        ? null
        : { run_id: job.latestRunId, event_type: latest.eventType, event_time: iso(latest.timeMs) },
    latest_inputs: datasetsOf(records, 'inputs'),
    latest_outputs: datasetsOf(records, 'outputs'),
  };
}

/** The detail of a job of an extracted graph: its one COMPLETE RunEvent. */
function extractedDetail({ event }: ExtractedJob): JobDetail {
  return {
    job: { namespace: event.job.namespace, name: event.job.name, facets: event.job.facets ?? {} },
    latest_run: { run_id: event.run.runId, event_type: event.eventType, event_time: event.eventTime },
    latest_inputs: event.inputs ?? [],
    latest_outputs: event.outputs ?? [],
  };
}

/** The distinct datasets of one side (`inputs` or `outputs`) of some events. */
function datasetsOf(records: readonly EventRecord[], side: 'inputs' | 'outputs'): DatasetRef[] {
  const datasets = new Map<string, DatasetRef>();
  for (const record of records) {
    const list = record.event[side];
    if (!Array.isArray(list)) continue;
    for (const ref of list)
      if (isObject(ref)) datasets.set(datasetKey(String(ref.namespace), String(ref.name)), ref as DatasetRef);
  }
  return [...datasets.values()];
}
