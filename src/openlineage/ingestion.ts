/**
 * OpenLineage ingestion use case (no HTTP): normalises each body, appends every accepted event to the
 * store as `OpenLineageEventIngested`, and answers with one result per body.
 *
 * Durability and idempotency (contract section 4; reference openlineage-marquez.md section 8):
 * - The accepted, not-yet-seen events of one call are appended in ONE append (one durable
 *   transaction) to the stream `openlineage-{key}` with `expectedRevision: 'no_stream'`, where `key`
 *   is the event's `dedupe_key` when the call holds one new event, and the SHA-256 of the sorted
 *   dedupe keys otherwise. A redelivered single event (HTTP retry, Kafka redelivery) or a redelivered
 *   batch therefore hits an existing stream and is reported `duplicate`; the store enforces it even
 *   under concurrent writers. One append per call (not per event) is what makes 100-event batches
 *   reach thousands of events per second on sqlite with `synchronous=FULL`.
 * - Events already stored by an earlier, different call are found by `deps.dedupeIndex` (the
 *   OpenLineage projection) and by the per-store memory of recently appended keys; calls on one store
 *   are serialised in-process so that check-then-append cannot interleave.
 * - If two processes still store the same event in two different batches, the OpenLineage projection
 *   folds each `dedupe_key` once, so reads never see the duplicate.
 */
import { ExpectedRevisionConflictError, errorMessage, type ValidationIssue } from '../errors.js';
import type { EventStore } from '../eventStore.js';
import { streams, toAppend, type EventContext } from '../events.js';
import type { Logger } from '../logger.js';
import { dedupeKeyOf, normalizeOpenLineage, type NormalizedEvent } from './ingest.js';
import type { RunEvent } from './model.js';

/** Dependencies of the ingestion use case. */
export interface IngestionDeps {
  store: EventStore;
  logger?: Logger;
  /** Receive time (for events without `eventTime`). Default: now. */
  now?: () => Date;
  /** Dedupe keys already folded by the OpenLineage projection (`projection.hasDedupeKey`). */
  dedupeIndex?: { hasDedupeKey(dedupeKey: string): boolean };
}

/** The outcome of one body. */
export interface IngestionResult {
  /** Position of the body in the request. */
  index: number;
  /** `accepted`: stored now; `duplicate`: stored before; `rejected`: not stored (see `errors`). */
  status: 'accepted' | 'duplicate' | 'rejected';
  /** The event's runId as received (RunEvents). */
  run_id?: string;
  /** The UUID the run is findable under besides `run_id` (differs only for non-UUID runIds). */
  run_uuid?: string;
  /** Content key of the event (accepted and duplicate). */
  dedupe_key?: string;
  warnings: string[];
  errors?: ValidationIssue[];
}

/** What one ingestion call records with its events (correlation id, actor such as `api` or `kafka`, cause). */
export type IngestionContext = EventContext;

interface Options {
  /** Overrides the dedupe key of an accepted event (views: the runId). */
  keyOf?: (normalized: NormalizedEvent) => string;
}

// Per-store serialisation and memory of recently appended keys.
const queues = new WeakMap<EventStore, Promise<unknown>>();
const recentKeys = new WeakMap<EventStore, Set<string>>();
const RECENT_LIMIT = 200_000;

function remember(store: EventStore, keys: readonly string[]): void {
  let recent = recentKeys.get(store);
  if (!recent) recentKeys.set(store, (recent = new Set()));
  for (const key of keys) recent.add(key);
  if (recent.size > RECENT_LIMIT) {
    // Sets iterate in insertion order: forget the oldest half.
    let drop = recent.size - RECENT_LIMIT / 2;
    for (const key of recent) {
      if (drop-- <= 0) break;
      recent.delete(key);
    }
  }
}

function serialised<T>(store: EventStore, work: () => Promise<T>): Promise<T> {
  const previous = queues.get(store) ?? Promise.resolve();
  const next = previous.then(work, work);
  queues.set(
    store,
    next.catch(() => undefined),
  );
  return next;
}

/**
 * Ingests OpenLineage events (RunEvent, JobEvent, DatasetEvent), e.g. the items of
 * `POST /api/v1/lineage/events`, the body of `POST /api/v1/lineage`, or Kafka messages.
 *
 * @param bodies parsed JSON values, one per event.
 * @param context metadata recorded with the events (`actor`: `api`, `kafka`...; `cause`: `ingestion`).
 * @returns one result per body, in order. Rejected bodies are not stored.
 * @throws StorageError when the append fails: nothing of this call was stored, and a retry is safe.
 */
export async function ingestOpenLineageEvents(
  deps: IngestionDeps,
  bodies: readonly unknown[],
  context: IngestionContext = {},
  options: Options = {},
): Promise<IngestionResult[]> {
  const normalizeOptions = deps.now ? { now: deps.now } : {};
  const results: IngestionResult[] = [];
  const fresh: Array<{ result: IngestionResult; normalized: NormalizedEvent }> = [];
  const normalizedAll = bodies.map((body) => normalizeOpenLineage(body, normalizeOptions));

  return serialised(deps.store, async () => {
    const inCall = new Set<string>();
    const recent = recentKeys.get(deps.store);
    normalizedAll.forEach((normalized, index) => {
      if (!normalized.ok) {
        results.push({ index, status: 'rejected', warnings: [], errors: normalized.errors });
        return;
      }
      if (options.keyOf) normalized.dedupe_key = options.keyOf(normalized);
      const result: IngestionResult = {
        index,
        status: 'accepted',
        ...(normalized.run_id === undefined ? {} : { run_id: normalized.run_id }),
        ...(normalized.run_uuid === undefined ? {} : { run_uuid: normalized.run_uuid }),
        dedupe_key: normalized.dedupe_key,
        warnings: normalized.warnings,
      };
      results.push(result);
      const key = normalized.dedupe_key;
      if (inCall.has(key) || recent?.has(key) || deps.dedupeIndex?.hasDedupeKey(key)) {
        result.status = 'duplicate';
        return;
      }
      inCall.add(key);
      fresh.push({ result, normalized });
    });
    if (fresh.length === 0) return results;

    const keys = fresh.map((entry) => entry.normalized.dedupe_key);
    const streamKey = keys.length === 1 ? keys[0]! : dedupeKeyOf([...keys].sort());
    const events = toAppend(
      fresh.map(({ normalized }) => ({
        type: 'OpenLineageEventIngested' as const,
        data: {
          kind: normalized.kind,
          dedupe_key: normalized.dedupe_key,
          event: normalized.event,
          warnings: normalized.warnings,
        },
      })),
      { cause: 'ingestion', ...context },
    );
    try {
      await deps.store.append(streams.openLineage(streamKey), events, { expectedRevision: 'no_stream' });
    } catch (error) {
      if (!(error instanceof ExpectedRevisionConflictError)) {
        deps.logger?.error({ err: errorMessage(error), events: fresh.length }, 'OpenLineage:AppendFailed');
        throw error;
      }
      for (const entry of fresh) entry.result.status = 'duplicate';
    }
    remember(deps.store, keys);
    deps.logger?.debug(
      {
        accepted: results.filter((entry) => entry.status === 'accepted').length,
        duplicate: results.filter((entry) => entry.status === 'duplicate').length,
        rejected: results.filter((entry) => entry.status === 'rejected').length,
      },
      'OpenLineage:Ingested',
    );
    return results;
  });
}

/**
 * Stores the RunEvents a view (`GET /graphs/confluent/view`, `/graphs/enriched/view`) returned, so
 * that `/lineage/datasets/lineage` finds them (specification "Endpoints": the store is filled by
 * ingestion or by calling either view).
 *
 * A view event's dedupe key is its `runId` and `eventType` (not its content): the runId is a hash of
 * the job's definition and its inputs and outputs (`graphToRunEvents`), so calling a view again while
 * a job is unchanged stores nothing new, whatever the `eventTime`; a changed job gets a new runId and
 * its new event is stored.
 *
 * @returns one result per event (`accepted` or `duplicate`).
 */
export function recordViewEvents(
  deps: IngestionDeps,
  runEvents: readonly RunEvent[],
  context: IngestionContext = {},
): Promise<IngestionResult[]> {
  return ingestOpenLineageEvents(
    deps,
    runEvents,
    { cause: 'view', ...context },
    {
      keyOf: (normalized) =>
        dedupeKeyOf({
          view: true,
          runId: normalized.run_id,
          eventType: (normalized.event as { eventType?: unknown }).eventType,
        }),
    },
  );
}
