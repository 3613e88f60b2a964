/**
 * Exports of a lineage graph (or of a traversal, as a graph) to formats people paste into design
 * documents, wikis and other graph tools. Pure: text in, text out, no I/O.
 *
 * | format | for | keeps | file |
 * |---|---|---|---|
 * | `json` | lineage-svc, scripts | everything, byte for byte today's JSON | `json.ts` |
 * | `graphml` | yEd, Gephi, Cytoscape, NetworkX | every node and edge, every field and attribute | `graphml.ts` |
 * | `gexf` | Gephi | every node and edge, every field and attribute | `gexf.ts` |
 * | `dot` | Graphviz | every node and edge, every field and attribute | `dot.ts` |
 * | `mermaid` | GitHub, GitLab, wikis | every node (label: display name) and edge (label: type) | `mermaid.ts` |
 *
 * Every exporter is a function from a graph to an `Iterable<string>` of chunks of about 64 Ki
 * characters, made as they are read: a 100k-node graph is never one string. Send it with
 * `Readable.from(exportGraph(graph, format))`, or write it chunk by chunk. The checks (unique node
 * ids, edges between known nodes) run when the function is called, before the first chunk.
 */
import type { ExportableGraph } from './chunks.js';
import { exportDot } from './dot.js';
import { exportGEXF } from './gexf.js';
import { exportGraphML } from './graphml.js';
import { exportJson, type JsonLayout } from './json.js';
import { exportMermaid } from './mermaid.js';
import { ValidationError } from '../errors.js';
import type { Edge, Node } from '../graph/model.js';

export type { ExportableGraph } from './chunks.js';
export { CHUNK_LENGTH } from './chunks.js';
export { JSON_LAYOUTS, type JsonLayout } from './json.js';

/** Every export format, as named in `?format=` and `--format`. */
export const EXPORT_FORMATS = ['json', 'graphml', 'gexf', 'dot', 'mermaid'] as const;
/** One of `EXPORT_FORMATS`. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** How to send or save an export: its media type (with charset) and the usual file extension. */
export interface ExportMedia {
  readonly contentType: string;
  readonly extension: string;
}

/**
 * The media type and file extension of each format. GraphML's is the one its authors use, GEXF's
 * Gephi's; DOT's is IANA's `text/vnd.graphviz`; Mermaid has none registered.
 */
export const EXPORT_MEDIA: Readonly<Record<ExportFormat, ExportMedia>> = {
  json: { contentType: 'application/json; charset=utf-8', extension: 'json' },
  graphml: { contentType: 'application/graphml+xml; charset=utf-8', extension: 'graphml' },
  gexf: { contentType: 'application/gexf+xml; charset=utf-8', extension: 'gexf' },
  dot: { contentType: 'text/vnd.graphviz; charset=utf-8', extension: 'gv' },
  mermaid: { contentType: 'text/plain; charset=utf-8', extension: 'mmd' },
};

/** Options of `exportGraph`; each applies to some formats and is ignored by the others. */
export interface ExportOptions {
  /** The graph's name in the file: DOT's digraph id and GraphML's graph id (default `lineage`). */
  graphName?: string;
  /** JSON's layout: `api` (default, the export route's bytes) or `file` (the graph file's bytes). */
  jsonLayout?: JsonLayout;
}

/** Whether `value` names an export format (for `?format=` and `--format`). */
export function isExportFormat(value: string): value is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(value);
}

/**
 * A traversal's answer (`GET /graphs/{id}/query/{direction}/{node_id}`, `TraversalResult`) as a
 * graph to export: its origin first, with `hop: 0`, then the nodes reached, with their `hop`, and the
 * edges followed. Every edge of a traversal joins two of these nodes. The formats with columns
 * (GraphML, GEXF, DOT) export `hop` as a column; Mermaid draws the origin as node `n0`.
 */
export function traversalGraph(traversal: {
  readonly origin: Node;
  readonly nodes: readonly Node[];
  readonly edges: readonly Edge[];
}): ExportableGraph {
  return { nodes: [{ ...traversal.origin, hop: 0 } as Node, ...traversal.nodes], edges: traversal.edges };
}

/**
 * The graph in `format`, as chunks of text (about 64 Ki characters each; UTF-8 when written), made
 * as they are read. Each format's module documents its layout and its escaping.
 * @throws ValidationError at once, before any chunk: for an unknown format; and, for every format but
 *   `json`, when two nodes share an id or an edge names a node that is not in the graph.
 */
export function exportGraph(
  graph: ExportableGraph,
  format: ExportFormat,
  options: ExportOptions = {},
): Iterable<string> {
  switch (format) {
    case 'json':
      return exportJson(graph, { layout: options.jsonLayout });
    case 'graphml':
      return exportGraphML(graph, { graphName: options.graphName });
    case 'gexf':
      return exportGEXF(graph);
    case 'dot':
      return exportDot(graph, { graphName: options.graphName });
    case 'mermaid':
      return exportMermaid(graph);
    default:
      throw new ValidationError(`unknown export format "${String(format)}": use one of ${EXPORT_FORMATS.join(', ')}`);
  }
}

export { exportDot, type DotOptions } from './dot.js';
export { exportGEXF } from './gexf.js';
export { exportGraphML, type GraphMLOptions } from './graphml.js';
export { exportJson, type JsonOptions } from './json.js';
export { exportMermaid } from './mermaid.js';
