/**
 * The worker thread of large graph imports (issue 23, item 4; started by `infra/http/graphImport.ts`):
 * for each job its parent posts (`GraphImportJob`: the raw request body, transferred), it checks and
 * parses the body as the API's JSON parser does (`parseJsonBody`: UTF-8, JSON, no `__proto__`, depth),
 * validates it as a lineage graph (`validateLineageGraph` with `inPlace`, deferring the edges that join
 * nodes absent from the body when `deferUnknownEndpoints`), and posts the result to its parent in
 * messages of at most `GRAPH_IMPORT_CHUNK_ITEMS` items (`GraphImportMessage`), so that the parent's
 * event loop receives the graph in short slices instead of parsing 30 MB in one go. Jobs are handled
 * one after the other; the worker stays up between them.
 *
 * The messages are, in order: `items` (nodes, then edges, in body order), then one `done` (the edges
 * deferred and the graph's metadata); or a single `invalid` (the problems, capped at
 * `MAX_LISTED_ISSUES`, and their count) with no `items` before it.
 */
import { parentPort } from 'node:worker_threads';
import { ValidationError, errorMessage, type ValidationIssue } from '../../src/errors.js';
import type { Edge, Node } from '../../src/graph/model.js';
import { validateLineageGraph } from '../../src/graph/validation.js';
import { parseJsonBody } from './hardening.js';

/** Items (nodes or edges) per `items` message. */
export const GRAPH_IMPORT_CHUNK_ITEMS = 2000;

/** One body to validate, as the parent posts it. */
export interface GraphImportJob {
  /** The request body as received (transferred, so not copied). */
  body: Uint8Array;
  /** Whether edges may join nodes absent from the body (a merge): they are deferred to the parent. */
  deferUnknownEndpoints: boolean;
}

/** One message from the worker. */
export type GraphImportMessage =
  | { kind: 'items'; type: 'nodes'; items: Node[] }
  | { kind: 'items'; type: 'edges'; items: Edge[] }
  | { kind: 'done'; deferredEdges: number[]; metadata?: Record<string, unknown> }
  | { kind: 'invalid'; message: string; issues: ValidationIssue[]; issueCount: number };

/** Validates the body and posts the outcome (see the module comment). */
function run(data: GraphImportJob, post: (message: GraphImportMessage) => void): void {
  let validated;
  try {
    const body = Buffer.from(data.body.buffer, data.body.byteOffset, data.body.byteLength);
    const value = parseJsonBody(body);
    validated = validateLineageGraph(value, { inPlace: true, deferUnknownEndpoints: data.deferUnknownEndpoints });
  } catch (error) {
    if (error instanceof ValidationError) {
      post({ kind: 'invalid', message: error.message, issues: error.issues, issueCount: error.issueCount });
      return;
    }
    post({ kind: 'invalid', message: `body could not be read: ${errorMessage(error)}`, issues: [], issueCount: 1 });
    return;
  }
  const { graph, deferredEdges } = validated;
  for (const [type, items] of [
    ['nodes', graph.nodes],
    ['edges', graph.edges],
  ] as const) {
    for (let start = 0; start < items.length; start += GRAPH_IMPORT_CHUNK_ITEMS) {
      post({ kind: 'items', type, items: items.slice(start, start + GRAPH_IMPORT_CHUNK_ITEMS) } as GraphImportMessage);
    }
  }
  post({ kind: 'done', deferredEdges, ...(graph.metadata === undefined ? {} : { metadata: graph.metadata }) });
}

if (parentPort) {
  const port = parentPort;
  port.on('message', (job: GraphImportJob) => run(job, (message) => port.postMessage(message)));
}
