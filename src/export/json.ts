/**
 * LineageGraph JSON, today's format (`{"nodes": [...], "edges": [...], "metadata"?: {...}}`), in
 * either of the layouts lineage-svc already writes, byte for byte:
 *
 * - `api` (default): what `GET /graphs/{id}/export` sends, `JSON.stringify({ nodes, edges })` in
 *   the graph's order, with `metadata` last when the graph has one;
 * - `file`: what the graph file holds (`infra/graphFile.ts`, `serializeLineageGraph`): nodes sorted
 *   by id and edges by key, two-space indentation, `metadata` when present, and a final newline.
 *
 * Escaping is JSON's (`JSON.stringify`), so everything reads back exactly.
 */
import { chunked, type ExportableGraph } from './chunks.js';
import { edgeKey } from '../graph/model.js';

/** The layouts of the JSON exporter. */
export const JSON_LAYOUTS = ['api', 'file'] as const;
/** One of `JSON_LAYOUTS`. */
export type JsonLayout = (typeof JSON_LAYOUTS)[number];

/** Options of the JSON exporter. */
export interface JsonOptions {
  /** `api` (default) or `file`; see the module's documentation. */
  layout?: JsonLayout;
}

/** The graph as LineageGraph JSON, in chunks of about 64 Ki characters (`chunks.ts`), UTF-8 when written. */
export function exportJson(graph: ExportableGraph, options: JsonOptions = {}): Iterable<string> {
  return chunked(options.layout === 'file' ? fileLayout(graph) : apiLayout(graph));
}

function* apiLayout(graph: ExportableGraph): Generator<string> {
  yield '{"nodes":[';
  yield* joined(graph.nodes, (node) => JSON.stringify(node), ',');
  yield '],"edges":[';
  yield* joined(graph.edges, (edge) => JSON.stringify(edge), ',');
  yield graph.metadata ? `],"metadata":${JSON.stringify(graph.metadata)}}` : ']}';
}

function* fileLayout(graph: ExportableGraph): Generator<string> {
  const nodes = [...graph.nodes].sort((a, b) => compare(a.id, b.id));
  const edges = graph.edges
    .map((edge) => ({ key: edgeKey(edge), edge }))
    .sort((a, b) => compare(a.key, b.key))
    .map(({ edge }) => edge);
  // An element of a top-level array sits at depth 2: its lines are indented by four spaces. JSON text
  // has no raw line feeds inside strings, so every line feed is one of JSON.stringify's.
  const element = (value: unknown) => `    ${JSON.stringify(value, null, 2).replaceAll('\n', '\n    ')}`;
  const list = function* (name: string, values: readonly unknown[], last: boolean): Generator<string> {
    if (values.length === 0) {
      yield `  "${name}": []${last ? '' : ','}\n`;
      return;
    }
    yield `  "${name}": [\n`;
    yield* joined(values, element, ',\n');
    yield `\n  ]${last ? '' : ','}\n`;
  };
  yield '{\n';
  yield* list('nodes', nodes, false);
  yield* list('edges', edges, !graph.metadata);
  if (graph.metadata) yield `  "metadata": ${JSON.stringify(graph.metadata, null, 2).replaceAll('\n', '\n  ')}\n`;
  yield '}\n';
}

function* joined<T>(values: readonly T[], text: (value: T) => string, separator: string): Generator<string> {
  let first = true;
  for (const value of values) {
    if (!first) yield separator;
    yield text(value);
    first = false;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
