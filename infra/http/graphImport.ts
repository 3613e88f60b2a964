/**
 * Parsing and validation of graph import bodies off the event loop (issue 23, item 4).
 *
 * `POST /graphs/{id}/import` takes bodies up to 128 MiB. Parsing one of 30 MB alone is a few hundred
 * milliseconds of `JSON.parse`, which cannot be cut into slices, and validating it several seconds;
 * on the event loop, every other request (`/health` included) would wait that long. So a body of
 * `WORKER_THRESHOLD_BYTES` or more is parsed and validated in a worker thread
 * (`graphImportWorker.ts`, started at the first such body and kept), one body at a time (the others
 * queue: two cores gain nothing from two validations at once, and memory stays bounded by one
 * body's), and comes back in slices of
 * `GRAPH_IMPORT_CHUNK_ITEMS` items, each a short task of the event loop. A smaller body is parsed and
 * validated in place, as before: starting a worker costs more than it saves there.
 *
 * Either way the checks and the answer are the same: those of the API's JSON parser (`parseJsonBody`)
 * and of `validateLineageGraph`, the problems capped at `MAX_LISTED_ISSUES` with their count. A worker
 * that runs out of its heap (`WORKER_HEAP_MEGABYTES`) ends only itself: the import is answered 413, and
 * the next large body starts a new worker.
 */
import { extname } from 'node:path';
import { Worker } from 'node:worker_threads';
import pLimit from 'p-limit';
import { LineageError, ValidationError } from '../../src/errors.js';
import type { Edge, Node } from '../../src/graph/model.js';
import { validateLineageGraph, type ValidatedGraph } from '../../src/graph/validation.js';
import type { GraphImportJob, GraphImportMessage } from './graphImportWorker.js';
import { parseJsonBody } from './hardening.js';
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
 * Parses and validates a graph import body (the raw bytes of the request), in a worker thread when it
 * is large. The body's memory is handed to the worker: do not read `body` afterwards.
 * @throws ValidationError (400) for a body that is not a JSON lineage graph, listing the first
 *   `MAX_LISTED_ISSUES` problems with the count of all; LineageError 413 when validating it needs
 *   more than `WORKER_HEAP_MEGABYTES`.
 */
export async function validateGraphImportBody(body: Buffer, options: GraphImportBodyOptions): Promise<ValidatedGraph> {
  if (body.length < (options.workerThresholdBytes ?? WORKER_THRESHOLD_BYTES)) {
    return validateLineageGraph(parseJsonBody(body), {
      inPlace: true,
      deferUnknownEndpoints: options.deferUnknownEndpoints,
    });
  }
  return inWorkers(() => validateInWorker(body, options.deferUnknownEndpoints));
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

/** Runs one body through `graphImportWorker.ts` and gathers its messages (one job at a time: `inWorkers`). */
function validateInWorker(body: Buffer, deferUnknownEndpoints: boolean): Promise<ValidatedGraph> {
  // A body that owns its whole memory is transferred; one that shares it (a pooled slice) is copied first.
  const owned = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? body : Buffer.from(body);
  const bytes = new Uint8Array(owned.buffer, owned.byteOffset, owned.byteLength);
  const job: GraphImportJob = { body: bytes, deferUnknownEndpoints };
  const worker = importWorker();
  const nodes: Node[] = [];
  const edges: Edge[] = [];
  return new Promise<ValidatedGraph>((resolve, reject) => {
    const onMessage = (message: GraphImportMessage) => {
      if (message.kind === 'items') {
        const target: Array<Node | Edge> = message.type === 'nodes' ? nodes : edges;
        for (const item of message.items) target.push(item);
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
    worker.postMessage(job, [bytes.buffer as ArrayBuffer]);
  });
}
