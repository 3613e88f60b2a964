/**
 * Event queries of the OpenLineage projection (docs/openlineage.md, "Queries"; docs/api.md,
 * "OpenLineage"): `GET /lineage/events` (`queryEvents`) and `GET /lineage/events/{run_id}`
 * (`eventsOfRun`). Their parameters arrive checked by the route schemas
 * (`infra/http/routes/openLineage.ts`); these functions only read the state.
 */
import { NotFoundError } from '../../src/errors.js';
import { datasetKey, splitDatasetKey } from '../../src/openlineage/identity.js';
import type { IngestedEvent, RunEventType } from '../../src/openlineage/model.js';
import { byTime, type EventRecord, type OpenLineageState } from './state.js';

/** Filters and page of `queryEvents`. */
export interface EventQuery {
  /** Job namespace (exact). */
  namespace?: string | undefined;
  /** Job name (exact). */
  job?: string | undefined;
  /** A runId as received (or lower-cased), or the derived UUID of a non-UUID runId. */
  run_id?: string | undefined;
  /** Only RunEvents of this eventType. */
  event_type?: RunEventType | undefined;
  /** Inclusive lower bound of eventTime, in milliseconds since the epoch. */
  since?: number | undefined;
  /** Inclusive upper bound of eventTime, in milliseconds since the epoch. */
  until?: number | undefined;
  /** Page size (default 100; the route allows 1 to 1,000). */
  limit?: number | undefined;
  /** Events skipped (default 0). */
  offset?: number | undefined;
}

/** The state's events ordered by eventTime then arrival (sorts the array in place on first need). */
export function eventsByTime(state: OpenLineageState): readonly EventRecord[] {
  if (!state.eventsSorted) {
    state.events.sort(byTime);
    state.eventsSorted = true;
  }
  return state.events;
}

/**
 * Events matching the filters, ordered by eventTime (then arrival), one page of them, and how many
 * match in all. `namespace` and `job` are the job's namespace and name; `since` and `until` are inclusive.
 */
export function queryEvents(
  state: OpenLineageState,
  query: EventQuery = {},
): { events: IngestedEvent[]; total: number } {
  const limit = query.limit ?? 100;
  const offset = query.offset ?? 0;
  const since = query.since ?? null;
  const until = query.until ?? null;
  const candidates = candidatesOf(state, query);
  if (candidates === null) {
    const sorted = eventsByTime(state);
    if (query.event_type === undefined) {
      // All events, sorted: binary-search the time window instead of filtering.
      const lower = since === null ? 0 : lowerBound(sorted, since);
      const upper = until === null ? sorted.length : lowerBound(sorted, until + 1);
      const page = sorted.slice(lower + offset, Math.min(upper, lower + offset + limit));
      return { events: page.map((record) => record.event), total: Math.max(0, upper - lower) };
    }
    const selected = sorted.filter((record) => matches(record, query, since, until));
    return { events: selected.slice(offset, offset + limit).map((record) => record.event), total: selected.length };
  }
  const selected = candidates.filter((record) => matches(record, query, since, until)).sort(byTime);
  return { events: selected.slice(offset, offset + limit).map((record) => record.event), total: selected.length };
}

/** The narrowest index for the query (run, job, job namespace, job name), or null for all events. */
function candidatesOf(state: OpenLineageState, query: EventQuery): readonly EventRecord[] | null {
  if (query.run_id !== undefined)
    return state.byRun.get(query.run_id) ?? state.byRun.get(query.run_id.toLowerCase()) ?? [];
  if (query.namespace !== undefined && query.job !== undefined)
    return state.byJob.get(datasetKey(query.namespace, query.job)) ?? [];
  if (query.namespace !== undefined) return state.byJobNamespace.get(query.namespace) ?? [];
  if (query.job !== undefined) return state.byJobName.get(query.job) ?? [];
  return null;
}

function matches(record: EventRecord, query: EventQuery, since: number | null, until: number | null): boolean {
  if (query.namespace !== undefined || query.job !== undefined) {
    if (record.jobKey === null) return false;
    const job = splitDatasetKey(record.jobKey);
    if (query.namespace !== undefined && job.namespace !== query.namespace) return false;
    if (query.job !== undefined && job.name !== query.job) return false;
  }
  return (
    (query.event_type === undefined || record.eventType === query.event_type) &&
    (since === null || record.timeMs >= since) &&
    (until === null || record.timeMs <= until)
  );
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

/**
 * The events of one run, ordered by eventTime (then arrival). `runId` is matched as received, then
 * lower-cased; the derived UUID of a non-UUID runId matches too.
 * @throws NotFoundError when no event has that runId.
 */
export function eventsOfRun(state: OpenLineageState, runId: string): IngestedEvent[] {
  const records = state.byRun.get(runId) ?? state.byRun.get(runId.toLowerCase());
  if (!records || records.length === 0) throw new NotFoundError(`run "${runId}" is not known`);
  return [...records].sort(byTime).map((record) => record.event);
}
