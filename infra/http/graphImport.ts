/**
 * Parsing and validation of graph import bodies off the event loop (issue 23, item 4).
 *
 * `POST /graphs/{id}/import` takes bodies up to 128 MiB. Parsing one of 30 MB alone is a few hundred
 * milliseconds of `JSON.parse`, which cannot be cut into slices, and validating it several seconds;
 * on the event loop, every other request (`/health` included) would wait that long. So a body of
 * `WORKER_THRESHOLD_BYTES` or more is parsed and validated in a worker thread
 * (`graphImportWorker.ts`, started at the first such body and kept), one body at a time (the others
 * queue: two cores gain nothing from two validations at once, and memory stays bounded by one
 * body's), and comes back in slices of `GRAPH_IMPORT_CHUNK_ITEMS` items, one message per task of the
 * event loop (the worker posts the next slice when asked for it). The body goes to the worker as the
 * chunks it was received in (`readImportBody`, the import route's body parser): joining 30 MB into
 * one buffer on the event loop was a task of 100 to 400 ms. A smaller body is joined, parsed and
 * validated in place, as before: starting a worker costs more than it saves there.
 *
 * Either way the checks and the answer are the same: those of the API's JSON parser (`parseJsonBody`)
 * and of `validateLineageGraph`, the problems capped at `MAX_LISTED_ISSUES` with their count. A worker
 * that runs out of its heap (`WORKER_HEAP_MEGABYTES`) ends only itself: the import is answered 413, and
 * the next large body starts a new worker.
 */
import { extname } from 'node:path';
import type { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { errorCodes, type FastifyRequest } from 'fastify';
import pLimit from 'p-limit';
import { LineageError, ValidationError } from '../../src/errors.js';
import type { Edge, Node } from '../../src/graph/model.js';
import { validateLineageGraph, type ValidatedGraph } from '../../src/graph/validation.js';
import type { GraphImportMessage, GraphImportRequest } from './graphImportWorker.js';
import { parseJsonBody } from './hardening.js';
import type { AnyFastifyInstance } from './problem.js';
import { workerEntry } from '../workerEntry.js';

/** Bodies of at least this many bytes (1 MiB) are parsed and validated in a worker thread. */
export const WORKER_THRESHOLD_BYTES = 1024 * 1024;

/**
 * Heap of an import worker, in MiB: a 128 MiB body of small items parses to about ten times its
 * size. Past it the worker alone stops and the import is answered 413.
 */
export const WORKER_HEAP_MEGABYTES = 1536;

/** One import body validated in a worker at a time. */
const inWorkers = pLimit(1);

/** Options of `validateGraphImportBody`. */
export interface GraphImportBodyOptions {
  /** Edges may join nodes absent from the body (a merge): they are returned in `deferredEdges`. */
  deferUnknownEndpoints: boolean;
  /** Size from which the body goes to a worker thread (default `WORKER_THRESHOLD_BYTES`; tests lower it). */
  workerThresholdBytes?: number;
}

/**
 * Parses and validates a graph import body (the raw bytes of the request, as the chunks it was
 * received in: `readImportBody`), in a worker thread when it is large. The body's memory is handed to
 * the worker: do not read `chunks` afterwards.
 * @throws ValidationError (400) for a body that is not a JSON lineage graph, listing the first
 *   `MAX_LISTED_ISSUES` problems with the count of all; LineageError 413 when validating it needs
 *   more than `WORKER_HEAP_MEGABYTES`.
 */
export async function validateGraphImportBody(
  chunks: readonly Buffer[],
  options: GraphImportBodyOptions,
): Promise<ValidatedGraph> {
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  if (length < (options.workerThresholdBytes ?? WORKER_THRESHOLD_BYTES)) {
    return validateLineageGraph(parseJsonBody(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)), {
      inPlace: true,
      deferUnknownEndpoints: options.deferUnknownEndpoints,
    });
  }
  return inWorkers(() => validateInWorker(chunks, options.deferUnknownEndpoints));
}

/**
 * Reads a request body as the chunks it arrives in, without joining them: the import route's body
 * parser (its JSON content-type parser, in the route's own fastify context), so that a large body is
 * joined by the worker thread and not on the event loop. Its checks and errors are those of fastify's
 * own body reading (`parseAs: 'buffer'`), so the answers are the same: 413
 * (`FST_ERR_CTP_BODY_TOO_LARGE`) for a `Content-Length` over the route's `bodyLimit` or once more bytes
 * than that arrived (decoded, or as sent when a decompressing stream counts them in
 * `receivedEncodedLength`), 400 (`FST_ERR_CTP_INVALID_CONTENT_LENGTH`) when the bytes sent differ from
 * `Content-Length`, 400 for a stream that failed (a client that went away).
 * @param request the request, for its route's body limit (bytes) and its `Content-Length`.
 * @param payload the request's body stream as fastify hands it to a content-type parser.
 */
export function readImportBody(request: FastifyRequest, payload: Readable): Promise<Buffer[]> {
  const limit = request.routeOptions.bodyLimit ?? Number.POSITIVE_INFINITY;
  const contentLength = Number(request.headers['content-length']);
  if (contentLength > limit) return Promise.reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  return new Promise<Buffer[]>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    // Bytes as sent, counted by a decompressing `preParsing` stream (fastify's convention); 0 without one.
    const encodedLength = () => (payload as Readable & { receivedEncodedLength?: number }).receivedEncodedLength ?? 0;
    const stop = () => {
      payload.off('data', onData);
      payload.off('end', onEnd);
      payload.off('error', onEnd);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      received += bytes.length;
      if (received > limit || encodedLength() > limit) {
        stop();
        reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = (error?: Error & { statusCode?: number }) => {
      stop();
      if (error != null) {
        if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
        reject(error);
        return;
      }
      if (!Number.isNaN(contentLength) && (encodedLength() || received) !== contentLength) {
        reject(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
        return;
      }
      resolve(chunks);
    };
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onEnd);
    payload.resume();
  });
}

/**
 * Makes `readImportBody` the JSON body parser of `app`, a fastify context of the import route's own
 * (the rest of the API keeps `registerJsonBodyParser`'s): its route gets the body's chunks, as
 * `Buffer[]`, in `request.body`.
 */
export function registerImportBodyParser(app: AnyFastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request: FastifyRequest, payload: Readable) =>
    readImportBody(request, payload),
  );
}

/** The worker's file beside this one: `.ts` from source (tests, tsx), `.js` compiled. */
const WORKER_URL = new URL(`./graphImportWorker${extname(import.meta.filename)}`, import.meta.url);

/** The worker, started at the first large body and kept while it lives (`undefined` after it died). */
let current: Worker | undefined;

/** The running worker, started when there is none. It does not keep the process alive. */
function importWorker(): Worker {
  if (current) return current;
  const { entry, eval: evaluated } = workerEntry(WORKER_URL);
  const worker = new Worker(entry, {
    eval: evaluated,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MEGABYTES },
  });
  worker.unref();
  worker.once('exit', () => {
    if (current === worker) current = undefined;
  });
  current = worker;
  return worker;
}

/**
 * A chunk as bytes the worker can take: the chunk itself when it owns its whole memory (it is then
 * transferred, not copied), else a copy that does (a slice of a shared or pooled buffer).
 */
function transferable(chunk: Buffer): Uint8Array {
  if (chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength)
    return new Uint8Array(chunk.buffer, 0, chunk.byteLength);
  const copy = new Uint8Array(chunk.byteLength);
  copy.set(chunk);
  return copy;
}

/** Runs one body through `graphImportWorker.ts` and gathers its messages (one job at a time: `inWorkers`). */
function validateInWorker(body: readonly Buffer[], deferUnknownEndpoints: boolean): Promise<ValidatedGraph> {
  const chunks = body.map(transferable);
  const job: GraphImportRequest = { kind: 'job', chunks, deferUnknownEndpoints };
  const next: GraphImportRequest = { kind: 'next' };
  const worker = importWorker();
  const nodes: Node[] = [];
  const edges: Edge[] = [];
  return new Promise<ValidatedGraph>((resolve, reject) => {
    const onMessage = (message: GraphImportMessage) => {
      if (message.kind === 'items') {
        const target: Array<Node | Edge> = message.type === 'nodes' ? nodes : edges;
        for (const item of message.items) target.push(item);
        // The next slice arrives in a task of its own (see graphImportWorker.ts).
        worker.postMessage(next);
      } else if (message.kind === 'done') {
        const graph = message.metadata === undefined ? { nodes, edges } : { nodes, edges, metadata: message.metadata };
        finish(() => resolve({ graph, deferredEdges: message.deferredEdges }));
      } else {
        const error = new ValidationError(message.message, message.issues, { issueCount: message.issueCount });
        finish(() => reject(error));
      }
    };
    const onError = (error: Error & { code?: string }) => {
      finish(() =>
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new LineageError(
                `the import body needs more than ${WORKER_HEAP_MEGABYTES} MiB to validate; send the graph in parts (mode=merge)`,
                'CONTENT_TOO_LARGE',
                413,
              )
            : error,
        ),
      );
    };
    const onExit = (code: number) => {
      finish(() => reject(new Error(`the graph import worker exited with code ${code} before answering`)));
    };
    const finish = (outcome: () => void) => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      outcome();
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage(
      job,
      chunks.map((chunk) => chunk.buffer as ArrayBuffer),
    );
  });
}
