/**
 * The worker thread of large graph imports (issue 23, item 4; started by `infra/http/graphImport.ts`):
 * for each job its parent posts (`GraphImportJob`: the raw request body as the chunks it was received
 * in, transferred), it joins the chunks, checks and parses the body as the API's JSON parser does
 * (`parseJsonBody`: UTF-8, JSON, no `__proto__`, depth), validates it as a lineage graph
 * (`validateLineageGraph` with `inPlace`, deferring the edges that join nodes absent from the body when
 * `deferUnknownEndpoints`), and posts the result to its parent in messages of at most
 * `GRAPH_IMPORT_CHUNK_ITEMS` items (`GraphImportMessage`), so that the parent's event loop receives
 * the graph in short slices instead of parsing 30 MB in one go. Jobs are handled one after the other;
 * the worker stays up between them.
 *
 * The messages are, in order: `items` (nodes, then edges, in body order), then one `done` (the edges
 * deferred and the graph's metadata); or a single `invalid` (the problems, capped at
 * `MAX_LISTED_ISSUES`, and their count) with no `items` before it. The worker posts the first message
 * at once and each next one only when its parent asks for it (`GraphImportRequest` `next`): a
 * `MessagePort` hands every message already queued to one task of the receiving event loop, so posting
 * all of them at once made the parent deserialize the whole graph (148,000 items) in one task of
 * about a second.
 */
import { parentPort } from 'node:worker_threads';
import { ValidationError, errorMessage, type ValidationIssue } from '../../src/errors.js';
import type { Edge, Node } from '../../src/graph/model.js';
import { validateLineageGraph } from '../../src/graph/validation.js';
import { parseJsonBody } from './hardening.js';
import { lowerThreadPriority } from '../threadPriority.js';

/** Items (nodes or edges) per `items` message. */
export const GRAPH_IMPORT_CHUNK_ITEMS = 2000;

/** One body to validate, as the parent posts it. */
export interface GraphImportJob {
  kind: 'job';
  /** The request body as the chunks it was received in, in order (transferred, so not copied). */
  chunks: Uint8Array[];
  /** Whether edges may join nodes absent from the body (a merge): they are deferred to the parent. */
  deferUnknownEndpoints: boolean;
}

/** What the parent posts: a job, or a request for the next message of the current job. */
export type GraphImportRequest = GraphImportJob | { kind: 'next' };

/** One message from the worker. */
export type GraphImportMessage =
  | { kind: 'items'; type: 'nodes'; items: Node[] }
  | { kind: 'items'; type: 'edges'; items: Edge[] }
  | { kind: 'done'; deferredEdges: number[]; metadata?: Record<string, unknown> }
  | { kind: 'invalid'; message: string; issues: ValidationIssue[]; issueCount: number };

/** The body's chunks as one buffer (a single chunk is used as it is). */
function joined(chunks: readonly Uint8Array[]): Buffer {
  const buffers = chunks.map((chunk) => Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  return buffers.length === 1 ? buffers[0]! : Buffer.concat(buffers);
}

/** Validates the body; yields the messages of the outcome in order (see the module comment). */
function* outcome(job: GraphImportJob): Generator<GraphImportMessage> {
  let validated;
  try {
    const value = parseJsonBody(joined(job.chunks));
    job.chunks.length = 0;
    validated = validateLineageGraph(value, { inPlace: true, deferUnknownEndpoints: job.deferUnknownEndpoints });
  } catch (error) {
    if (error instanceof ValidationError) {
      yield { kind: 'invalid', message: error.message, issues: error.issues, issueCount: error.issueCount };
      return;
    }
    yield { kind: 'invalid', message: `body could not be read: ${errorMessage(error)}`, issues: [], issueCount: 1 };
    return;
  }
  const { graph, deferredEdges } = validated;
  for (const [type, items] of [
    ['nodes', graph.nodes],
    ['edges', graph.edges],
  ] as const) {
    for (let start = 0; start < items.length; start += GRAPH_IMPORT_CHUNK_ITEMS) {
      yield { kind: 'items', type, items: items.slice(start, start + GRAPH_IMPORT_CHUNK_ITEMS) } as GraphImportMessage;
    }
  }
  yield { kind: 'done', deferredEdges, ...(graph.metadata === undefined ? {} : { metadata: graph.metadata }) };
}

if (parentPort) {
  const port = parentPort;
  // The event loop first: the validation takes the cores' time left over (see threadPriority.ts).
  lowerThreadPriority();
  /** The messages of the current job not posted yet. */
  let pending: Iterator<GraphImportMessage> | undefined;
  const postNext = () => {
    const next = pending?.next();
    if (!next || next.done) {
      pending = undefined;
      return;
    }
    // The last message of a job: its graph is no longer needed here.
    if (next.value.kind !== 'items') pending = undefined;
    port.postMessage(next.value);
  };
  port.on('message', (request: GraphImportRequest) => {
    if (request.kind === 'job') pending = outcome(request);
    postNext();
  });
}
