/**
 * The per-record work of the OpenLineage Kafka transport (`openLineageConsumer.ts`) that needs nothing
 * but the record's value: UTF-8 decoding, JSON parsing, OpenLineage normalization, the dedupe key and
 * the JSON text the event will be stored as (`prepareOpenLineageEvent`). It is two thirds of a record's
 * time on the event loop (issue 24), so the consumer runs it on a pool of worker threads
 * (`createOpenLineagePreparePool`, `openLineagePrepareWorker.ts`), and the event loop keeps only the
 * dedupe check, the append and the projection's fold.
 */
import { availableParallelism } from 'node:os';
import nodePath from 'node:path';
import { Worker } from 'node:worker_threads';
import { errorMessage } from '../../src/errors.js';
import { MAX_EVENT_BYTES } from '../../src/openlineage/ingest.js';
import { prepareOpenLineageEvent, type PreparedOpenLineageEvent } from '../../src/openlineage/ingestion.js';
import { workerEntry } from '../workerEntry.js';

/** What `decideMessage` decided: ingest the parsed body, or send the message to the dead-letter topic, saying why. */
export type MessageDecision = { action: 'ingest'; body: unknown } | { action: 'dead-letter'; reason: string };

/** UTF-8 decoding that throws on invalid bytes (one decoder: it keeps no state between whole calls). */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decides what to do with a Kafka message: parse its value as UTF-8 JSON; an empty value, a value
 * over 1 MiB, invalid UTF-8 or JSON, or a JSON value that is not an object goes to the dead-letter
 * topic. (Objects that fail OpenLineage normalization are dead-lettered after ingestion.)
 */
export function decideMessage(message: { value: Uint8Array | null }): MessageDecision {
  const value = message.value;
  if (value === null || value.length === 0) return { action: 'dead-letter', reason: 'empty message value' };
  if (value.length > MAX_EVENT_BYTES)
    return {
      action: 'dead-letter',
      reason: `message value is ${value.length} bytes, over the ${MAX_EVENT_BYTES}-byte limit`,
    };
  let text: string;
  try {
    text = strictUtf8.decode(value);
  } catch {
    return { action: 'dead-letter', reason: 'message value is not valid UTF-8' };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return { action: 'dead-letter', reason: `message value is not JSON: ${errorMessage(error)}` };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { action: 'dead-letter', reason: 'message value is not a JSON object (one OpenLineage event per message)' };
  }
  return { action: 'ingest', body };
}

/**
 * A record ready for the ingestor: its event prepared (`prepareOpenLineageEvent`: normalized, or
 * rejected with its errors), or the reason it goes to the dead-letter topic without being ingested.
 */
export type PreparedRecord =
  { action: 'ingest'; prepared: PreparedOpenLineageEvent } | { action: 'dead-letter'; reason: string };

/**
 * `decideMessage`, then `prepareOpenLineageEvent` on what it parsed (the value's length is the event's
 * size: the 1 MiB limit needs no second serialization). Pure but for the receive time of events
 * without `eventTime` (now).
 */
export function prepareRecord(value: Uint8Array | null): PreparedRecord {
  const decision = decideMessage({ value });
  if (decision.action === 'dead-letter') return decision;
  return { action: 'ingest', prepared: prepareOpenLineageEvent(decision.body, { sizeBytes: value!.length }) };
}

/** A prepared record without the value of its data (`PreparedOpenLineageEvent.data`), as a prepare worker answers it. */
export function withoutData(record: PreparedRecord): PreparedRecord {
  if (record.action !== 'ingest' || !record.prepared.ok || record.prepared.data === undefined) return record;
  const { data: _data, ...prepared } = record.prepared;
  return { action: 'ingest', prepared };
}

/** Prepares the values of a batch's records, in order (`prepareRecord` on each, here or on worker threads). */
export type PrepareRecords = (values: ReadonlyArray<Uint8Array | null>) => Promise<PreparedRecord[]>;

/** `prepareRecord` on each value, on the calling thread (tests; a consumer without a pool). */
export const prepareRecordsHere: PrepareRecords = async (values) => values.map((value) => prepareRecord(value));

/**
 * The values of some records packed for a worker: their bytes one after the other, and where each
 * ends (`-1` for a null value). Transferred, not copied.
 */
export interface PackedValues {
  bytes: Uint8Array;
  ends: Int32Array;
}

/** Packs `values` into one buffer (`PackedValues`). */
export function packValues(values: ReadonlyArray<Uint8Array | null>): PackedValues {
  let total = 0;
  for (const value of values) total += value?.length ?? 0;
  const bytes = new Uint8Array(total);
  const ends = new Int32Array(values.length);
  let at = 0;
  values.forEach((value, index) => {
    if (value === null) {
      ends[index] = -1;
      return;
    }
    bytes.set(value, at);
    at += value.length;
    ends[index] = at;
  });
  return { bytes, ends };
}

/** The values `packValues` packed, as views of its buffer (no copy). */
export function unpackValues({ bytes, ends }: PackedValues): Array<Uint8Array | null> {
  const values: Array<Uint8Array | null> = [];
  let start = 0;
  for (const end of ends) {
    if (end === -1) {
      values.push(null);
      continue;
    }
    values.push(bytes.subarray(start, end));
    start = end;
  }
  return values;
}

/** A request to a prepare worker: values of consecutive records, numbered by the pool. */
export interface PrepareRequest {
  id: number;
  values: PackedValues;
}

/** A prepare worker's answer: one prepared record per value, in order, or why it could not. */
export type PrepareReply = { id: number; records: PreparedRecord[] } | { id: number; error: string };

/** The fewest records a pool hands one worker (smaller batches go to fewer workers). */
export const PREPARE_MIN_RECORDS_PER_WORKER = 256;

/**
 * Worker threads a pool runs by default: one per core but two (the event loop's and the sqlite append
 * worker's), at most four (the event loop, which appends and folds, is the limit past that); none on
 * one or two cores, where a worker only adds the copies between threads and its own warm-up to the
 * CPU time (docs/benchmarks.md, "Prepare workers, no read-back").
 */
export function defaultPrepareWorkers(): number {
  return Math.max(0, Math.min(4, availableParallelism() - 2));
}

/** A pool of prepare workers. */
export interface OpenLineagePreparePool {
  /** `prepareRecord` on each value, on the pool's workers, answered in order. @throws when a worker died. */
  prepare: PrepareRecords;
  /** Stops the workers (requests in flight fail). Idempotent. */
  close(): Promise<void>;
}

/** The worker file beside this one: `.ts` from source, `.js` compiled. */
const PREPARE_WORKER_URL = new URL(
  `./openLineagePrepareWorker${nodePath.extname(import.meta.filename)}`,
  import.meta.url,
);

/**
 * A pool of `size` worker threads (`openLineagePrepareWorker.ts`), started at the first request and
 * again after one died. A batch is cut into consecutive parts of at least
 * `PREPARE_MIN_RECORDS_PER_WORKER` records, one per worker, and answered in its order. Idle workers do
 * not keep the process alive.
 */
export function createOpenLineagePreparePool(size: number = defaultPrepareWorkers()): OpenLineagePreparePool {
  const workers: Array<Worker | undefined> = Array.from({ length: Math.max(1, size) }, () => undefined);
  const waiting = new Map<number, { resolve: (records: PreparedRecord[]) => void; reject: (error: Error) => void }>();
  const owner = new Map<number, Worker>();
  let nextId = 0;
  let closed = false;

  const start = (slot: number): Worker => {
    const { entry, eval: evaluated } = workerEntry(PREPARE_WORKER_URL);
    const started = new Worker(entry, { eval: evaluated });
    started.unref();
    started.on('message', (reply: PrepareReply) => {
      const entry = waiting.get(reply.id);
      if (!entry) return;
      waiting.delete(reply.id);
      owner.delete(reply.id);
      if (![...owner.values()].includes(started)) started.unref();
      if ('records' in reply) entry.resolve(reply.records);
      else entry.reject(new Error(`an OpenLineage prepare worker failed: ${reply.error}`));
    });
    const fail = (error: Error) => {
      if (workers[slot] === started) workers[slot] = undefined;
      for (const [id, worker] of owner) {
        if (worker !== started) continue;
        waiting.get(id)?.reject(error);
        waiting.delete(id);
        owner.delete(id);
      }
    };
    started.on('error', fail);
    started.on('exit', (code) => fail(new Error(`an OpenLineage prepare worker stopped (exit code ${code})`)));
    return started;
  };

  const send = (slot: number, values: ReadonlyArray<Uint8Array | null>): Promise<PreparedRecord[]> => {
    const worker = (workers[slot] ??= start(slot));
    const id = (nextId += 1);
    const packed = packValues(values);
    worker.ref();
    return new Promise<PreparedRecord[]>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      owner.set(id, worker);
      const request: PrepareRequest = { id, values: packed };
      worker.postMessage(request, [packed.bytes.buffer as ArrayBuffer, packed.ends.buffer as ArrayBuffer]);
    });
  };

  return {
    async prepare(values) {
      if (closed) throw new Error('the OpenLineage prepare pool is closed');
      if (values.length === 0) return [];
      const parts = Math.max(1, Math.min(workers.length, Math.floor(values.length / PREPARE_MIN_RECORDS_PER_WORKER)));
      const perPart = Math.ceil(values.length / parts);
      const answers = await Promise.all(
        Array.from({ length: parts }, (_, slot) => send(slot, values.slice(slot * perPart, (slot + 1) * perPart))),
      );
      return answers.flat();
    },
    async close() {
      closed = true;
      const running = workers.filter((worker): worker is Worker => worker !== undefined);
      workers.fill(undefined);
      await Promise.all(running.map((worker) => worker.terminate()));
    },
  };
}
