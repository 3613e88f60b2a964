/**
 * Exports people can paste (GraphML and GEXF for Gephi, yEd and Cytoscape; DOT for Graphviz;
 * Mermaid for GitHub and wikis; our JSON): a whole graph or the traversal of one node, now or as of a
 * point in its history, as chunks of text that the caller streams (`src/export/`).
 *
 * Errors: NotFoundError for an unknown graph or node; ValidationError for a malformed `as_of`.
 */
import { EXPORT_MEDIA, exportGraph, traversalGraph, type ExportFormat } from '../src/export/index.js';
import { toLineageGraph } from '../projections/graphProjection.js';
import type { TraversalDirection } from '../projections/traversal/index.js';
import { readGraph, traverseGraph, type GraphRuntime } from './graphs.js';

/** An export ready to send or save. */
export interface GraphExport {
  /** The text, in chunks made as they are read (never one string for a large graph). */
  chunks: Iterable<string>;
  /** Media type with charset, e.g. `text/vnd.graphviz; charset=utf-8`. */
  contentType: string;
  /** A file name for the download: `{graph name or id}[-{direction}-{node}].{extension}`, safe on every file system. */
  filename: string;
}

/** A whole graph in `format`, now or as of `asOf`. */
export async function exportGraphAs(
  runtime: GraphRuntime,
  graphId: string,
  format: ExportFormat,
  asOf?: string,
): Promise<GraphExport> {
  const state = await readGraph(runtime, graphId, asOf);
  const graphName = state.name ?? state.graphId;
  return {
    chunks: exportGraph(toLineageGraph(state), format, { graphName }),
    contentType: EXPORT_MEDIA[format].contentType,
    filename: `${safeFileName(graphName)}.${EXPORT_MEDIA[format].extension}`,
  };
}

/** The nodes and edges `direction` of one node within `hops`, in `format` (the origin has hop 0). */
export async function exportTraversalAs(
  runtime: GraphRuntime,
  request: {
    graphId: string;
    nodeId: string;
    direction: TraversalDirection;
    hops: number;
    format: ExportFormat;
    asOf?: string | undefined;
  },
): Promise<GraphExport> {
  const { graphId, nodeId, direction, hops, format, asOf } = request;
  const traversal = await traverseGraph(runtime, graphId, nodeId, direction, hops, asOf);
  const { origin, nodes, edges } = traversal.toResult();
  const name = `${origin.display_name || origin.qualified_name || origin.id} ${direction}`;
  return {
    chunks: exportGraph(traversalGraph({ origin, nodes, edges }), format, { graphName: name }),
    contentType: EXPORT_MEDIA[format].contentType,
    filename: `${safeFileName(name)}.${EXPORT_MEDIA[format].extension}`,
  };
}

/** A name reduced to letters, digits, `.`, `_` and `-` (at most 100 characters), never empty. */
function safeFileName(name: string): string {
  const safe = name
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|-+$/g, '')
    .slice(0, 100);
  return safe === '' ? 'lineage' : safe;
}
