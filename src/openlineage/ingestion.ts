/**
 * OpenLineage ingestion (no HTTP; docs/openlineage.md, "Ingestion"): an `OpenLineageIngestor`
 * normalizes each body, appends every accepted event to the store as `OpenLineageEventIngested`
 * (docs/events.md), and answers with one result per body. The runtime (`infra/runtime.ts`) creates
 * one per store and the API, the Kafka transport and the bench use it; what it remembers lives in
 * the ingestor, not in the module.
 *
 * Durability and idempotency (docs/openlineage.md, "Dedupe"):
 * - The accepted, not-yet-seen events of one call are appended in ONE append (one durable
 *   transaction) to the stream `openlineage-{key}` with `expectedRevision: 'no_stream'`, where `key`
 *   is the event's `dedupe_key` when the call holds one new event, and the SHA-256 of the sorted
 *   dedupe keys otherwise. A redelivered single event (HTTP retry, Kafka redelivery) or a redelivered
 *   batch therefore hits an existing stream and is reported `duplicate`; the store enforces it even
 *   under concurrent writers. One append per call (not per event) is what makes 100-event batches
 *   reach thousands of events per second on sqlite with `synchronous=FULL`.
 * - Events already stored by an earlier, different call are found by the `dedupeIndex` (the
 *   OpenLineage projection) and by the ingestor's memory of recently appended keys; the ingestor's
 *   calls run one at a time, so that check-then-append cannot interleave.
 * - If two processes still store the same event in two different batches, the OpenLineage projection
 *   folds each `dedupe_key` once, so reads never see the duplicate.
 *
 * Prepared events (issue 24, Kafka ingest at scale): `prepareOpenLineageEvent` normalizes one body and
 * serializes the `OpenLineageEventIngested` data it will be stored as; it is pure, so the Kafka
 * transport runs it on worker threads (`infra/kafka/openLineagePrepare.ts`) and hands the results to
 * `ingestPrepared`, which dedupes and appends them exactly as `ingest` does, with the JSON text as it is.
 */
import { ExpectedRevisionConflictError, errorMessage, type ValidationIssue } from '../errors.js';
import type { EventStore } from '../eventStore.js';
import { streams, toAppendTrusted, type EventContext } from '../events.js';
import type { Logger } from '../logger.js';
import {
  dedupeKeyOf,
  normalizeOpenLineage,
  type NormalizedEvent,
  type NormalizeOptions,
  type RejectedEvent,
} from './ingest.js';

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

/** Dedupe keys already folded, e.g. the OpenLineage projection (`projection.hasDedupeKey`). */
export interface DedupeIndex {
  hasDedupeKey(dedupeKey: string): boolean;
}

/** How many recently appended dedupe keys an ingestor remembers by default. */
export const RECENT_DEDUPE_KEYS = 200_000;

/** What an ingestor is made of. */
export interface OpenLineageIngestorOptions {
  /** The store appended to. */
  store: EventStore;
  /** Dedupe keys already folded (the OpenLineage projection). Without it, only the recent keys and the store dedupe. */
  dedupeIndex?: DedupeIndex;
  /** Logs append failures (error) and each call's counts (debug). */
  logger?: Logger;
  /** Receive time (for events without `eventTime`). Default: now. */
  now?: () => Date;
  /**
   * Recently appended dedupe keys remembered (default `RECENT_DEDUPE_KEYS`, 200,000); past it, the
   * oldest half is forgotten.
   */
  recentKeys?: number;
}

/** Ingests OpenLineage events into one store; its calls run one at a time, in call order. */
export interface OpenLineageIngestor {
  /**
   * Ingests OpenLineage events (RunEvent, JobEvent, DatasetEvent), e.g. the items of
   * `POST /api/v1/lineage/events`, the body of `POST /api/v1/lineage`, or Kafka messages.
   *
   * @param bodies parsed JSON values, one per event.
   * @param context metadata recorded with the events (`actor`: `api`, `kafka`...; `cause` defaults to `ingestion`).
   * @param sizesBytes the size in bytes of each body's JSON text as received, when the caller knows it
   *   (a Kafka message's value): the 1 MiB limit is then checked without serializing the body again.
   * @returns one result per body, in order. Rejected bodies are not stored.
   * @throws StorageError when the append fails: nothing of this call was stored, and a retry is safe.
   */
  ingest(
    bodies: readonly unknown[],
    context?: IngestionContext,
    sizesBytes?: readonly number[],
  ): Promise<IngestionResult[]>;
  /**
   * `ingest` for events `prepareOpenLineageEvent` has normalized and serialized already (elsewhere,
   * e.g. on a worker thread): same dedupe, same single append, same results; the prepared JSON text is
   * stored as it is.
   * @param prepared one per event, in order.
   * @returns one result per prepared event, in order. Rejected ones are not stored.
   * @throws StorageError when the append fails: nothing of this call was stored, and a retry is safe.
   */
  ingestPrepared(prepared: readonly PreparedOpenLineageEvent[], context?: IngestionContext): Promise<IngestionResult[]>;
}

/**
 * One event normalized and serialized (`prepareOpenLineageEvent`): what `ingestPrepared` needs of it,
 * the `OpenLineageEventIngested` data as JSON text (`dataJson`) included; or its rejection.
 * Structured-cloneable (it crosses threads).
 *
 * `data` is that data as a value (what `JSON.parse(dataJson)` gives), when the event was prepared on
 * the thread that ingests it: the store keeps it with the text it writes and hands it, frozen, to the
 * readers of its recent appends (the projector), which then do not parse the text again
 * (`EventToAppend.data`). A prepare worker leaves it out: copying it across threads costs what the
 * parse it saves does.
 */
export type PreparedOpenLineageEvent =
  | (Pick<NormalizedEvent, 'ok' | 'kind' | 'dedupe_key' | 'run_id' | 'run_uuid' | 'warnings'> & {
      dataJson: string;
      data?: OpenLineageIngestedData;
    })
  | RejectedEvent;

/** The data of the `OpenLineageEventIngested` event an accepted event is stored as (docs/events.md). */
export type OpenLineageIngestedData = ReturnType<typeof ingestedData>;

/** The data of the `OpenLineageEventIngested` event an accepted event is stored as (docs/events.md). */
function ingestedData(normalized: NormalizedEvent) {
  return {
    kind: normalized.kind,
    dedupe_key: normalized.dedupe_key,
    event: normalized.event,
    warnings: normalized.warnings,
  };
}

/**
 * Normalizes one body (`normalizeSafely`) and serializes the data it will be stored as (`dataJson`,
 * and `data`, the value it is the text of). Pure (the receive time aside, for events without
 * `eventTime`): the Kafka transport runs it on worker threads. `body` must be a JSON value (parsed
 * JSON text, as a Kafka record's value is), so that `data` is exactly what its text parses to.
 * @param options `sizeBytes`: the body's size as received, for the 1 MiB limit; `now`: the receive time.
 */
export function prepareOpenLineageEvent(body: unknown, options: NormalizeOptions = {}): PreparedOpenLineageEvent {
  const normalized = normalizeSafely(body, options);
  if (!normalized.ok) return normalized;
  const data = ingestedData(normalized);
  const prepared: PreparedOpenLineageEvent = {
    ok: true,
    kind: normalized.kind,
    dedupe_key: normalized.dedupe_key,
    warnings: normalized.warnings,
    dataJson: JSON.stringify(data),
    data,
  };
  if (normalized.run_id !== undefined) prepared.run_id = normalized.run_id;
  if (normalized.run_uuid !== undefined) prepared.run_uuid = normalized.run_uuid;
  return prepared;
}

/** Creates an ingestor over `options.store`, with an empty memory of recent keys and an idle queue. */
export function createOpenLineageIngestor(options: OpenLineageIngestorOptions): OpenLineageIngestor {
  const recent = createRecentKeys(options.recentKeys ?? RECENT_DEDUPE_KEYS);
  const normalizeOptions = options.now ? { now: options.now } : {};
  let queue: Promise<unknown> = Promise.resolve();

  /** Runs `work` after every earlier call has settled (a failed call does not stop the queue). */
  function serialized<T>(work: () => Promise<T>): Promise<T> {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  }

  /** Dedupes and appends normalized (or prepared) events, after every earlier call. */
  function run(
    normalize: () => Promise<ReadonlyArray<NormalizedEvent | PreparedOpenLineageEvent | RejectedEvent>>,
    context: IngestionContext,
  ): Promise<IngestionResult[]> {
    return serialized(async () => {
      const normalized = await normalize();
      const isKnown = (key: string) => recent.has(key) || options.dedupeIndex?.hasDedupeKey(key) === true;
      const { results, fresh } = classify(normalized, isKnown);
      if (fresh.length === 0) return results;
      const keys = await appendFresh(options, fresh, context);
      recent.remember(keys);
      options.logger?.debug(countByStatus(results), 'OpenLineage:Ingested');
      return results;
    });
  }

  return {
    ingest: (bodies, context = {}, sizesBytes) =>
      run(() => normalizeInSlices(bodies, normalizeOptions, sizesBytes), context),
    ingestPrepared: (prepared, context = {}) => run(async () => prepared, context),
  };
}

/**
 * `normalizeOpenLineage`, but an item it cannot handle (an unforeseen shape that throws) is rejected
 * on its own with a message, so that the valid items of the same batch are still stored.
 */
export function normalizeSafely(
  body: unknown,
  options: Parameters<typeof normalizeOpenLineage>[1],
): ReturnType<typeof normalizeOpenLineage> {
  try {
    return normalizeOpenLineage(body, options);
  } catch (error) {
    return { ok: false, errors: [{ path: '', message: `event could not be read: ${errorMessage(error)}` }] };
  }
}

/** Milliseconds of normalizing after which a batch lets the event loop run (issue 23). */
export const NORMALIZE_SLICE_MILLISECONDS = 10;

/**
 * `normalizeSafely` on every body (with its size when `sizesBytes` has it), letting the event loop
 * run every `NORMALIZE_SLICE_MILLISECONDS` (a batch of 10,000 events held it for seconds otherwise).
 */
async function normalizeInSlices(
  bodies: readonly unknown[],
  options: NormalizeOptions,
  sizesBytes: readonly number[] | undefined,
): Promise<Array<ReturnType<typeof normalizeOpenLineage>>> {
  const normalized: Array<ReturnType<typeof normalizeOpenLineage>> = [];
  let slice = performance.now();
  for (const [index, body] of bodies.entries()) {
    const sizeBytes = sizesBytes?.[index];
    normalized.push(normalizeSafely(body, sizeBytes === undefined ? options : { ...options, sizeBytes }));
    if (performance.now() - slice >= NORMALIZE_SLICE_MILLISECONDS) {
      await new Promise((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
  }
  return normalized;
}

/** An accepted event not seen before, and the result it will be reported in. */
interface FreshEvent {
  result: IngestionResult;
  normalized: NormalizedEvent | Extract<PreparedOpenLineageEvent, { ok: true }>;
}

/**
 * One result per body: rejected, duplicate (seen earlier in the call, or `isKnown`) or accepted; the
 * accepted ones are also returned as `fresh`, in body order.
 */
function classify(
  normalizedAll: ReadonlyArray<NormalizedEvent | PreparedOpenLineageEvent | RejectedEvent>,
  isKnown: (key: string) => boolean,
): { results: IngestionResult[]; fresh: FreshEvent[] } {
  const results: IngestionResult[] = [];
  const fresh: FreshEvent[] = [];
  const inCall = new Set<string>();
  normalizedAll.forEach((normalized, index) => {
    if (!normalized.ok) {
      results.push({ index, status: 'rejected', warnings: [], errors: normalized.errors });
      return;
    }
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
    if (inCall.has(key) || isKnown(key)) {
      result.status = 'duplicate';
      return;
    }
    inCall.add(key);
    fresh.push({ result, normalized });
  });
  return { results, fresh };
}

/**
 * Appends the fresh events in one append to a stream that must not exist yet; when it exists (a
 * redelivery), marks them `duplicate`.
 * @returns their dedupe keys.
 * @throws StorageError (or whatever the store throws besides a revision conflict).
 */
async function appendFresh(
  options: Pick<OpenLineageIngestorOptions, 'store' | 'logger'>,
  fresh: readonly FreshEvent[],
  context: IngestionContext,
): Promise<string[]> {
  const keys = fresh.map((entry) => entry.normalized.dedupe_key);
  const streamKey = keys.length === 1 ? keys[0]! : dedupeKeyOf([...keys].sort());
  // Trusted: `data` is built here from values the lenient schemas have parsed (normalizeOpenLineage),
  // and the second parse of every event cost 4% of the Kafka ingest's time.
  // Prepared events carry their data as JSON text already (`dataJson`): stored as it is, with the
  // value it is the text of when they were prepared here (`data`), which the store hands to the
  // projector instead of parsing the text again.
  const events = toAppendTrusted(
    fresh.map(({ normalized }) => ({
      type: 'OpenLineageEventIngested' as const,
      data: 'dataJson' in normalized ? (normalized.data as never) : ingestedData(normalized),
    })),
    { cause: 'ingestion', ...context },
  );
  fresh.forEach(({ normalized }, at) => {
    if ('dataJson' in normalized) events[at]!.dataJson = normalized.dataJson;
  });
  try {
    await options.store.append(streams.openLineage(streamKey), events, { expectedRevision: 'no_stream' });
  } catch (error) {
    if (!(error instanceof ExpectedRevisionConflictError)) {
      options.logger?.error({ err: errorMessage(error), events: fresh.length }, 'OpenLineage:AppendFailed');
      throw error;
    }
    for (const entry of fresh) entry.result.status = 'duplicate';
  }
  return keys;
}

/** Counts of results by status, for the log. */
function countByStatus(results: readonly IngestionResult[]): { accepted: number; duplicate: number; rejected: number } {
  const count = (status: IngestionResult['status']) => results.filter((entry) => entry.status === status).length;
  return { accepted: count('accepted'), duplicate: count('duplicate'), rejected: count('rejected') };
}

/** A bounded memory of dedupe keys: past `limit`, the oldest half is forgotten. */
function createRecentKeys(limit: number): { has(key: string): boolean; remember(keys: readonly string[]): void } {
  const keys = new Set<string>();
  return {
    has: (key) => keys.has(key),
    remember(added) {
      for (const key of added) keys.add(key);
      if (keys.size <= limit) return;
      // Sets iterate in insertion order: forget the oldest keys, down to half the limit.
      let drop = keys.size - limit / 2;
      for (const key of keys) {
        if (drop-- <= 0) break;
        keys.delete(key);
      }
    },
  };
}
