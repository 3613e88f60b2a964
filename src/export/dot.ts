/**
 * DOT, Graphviz's language (https://graphviz.org/doc/info/lang.html): `dot -Tsvg` draws it, and
 * Gephi, NetworkX (pydot) and others read it.
 *
 * Layout: `digraph "{name}" {` with `rankdir=LR`; one statement per node,
 * `"{node id}" [label=..., shape=..., fillcolor=..., "node_type"=..., ...]`, then one per edge,
 * `"{src}" -> "{dst}" [label="{edge_type}", "edge_type"=..., ...]`. Every column (`columns.ts`:
 * every field, then `attributes.<key>`) that has a value is an attribute of the statement; DOT has
 * only strings, so numbers and booleans are their text and objects and arrays their JSON text. Nodes
 * are shaped by node type and filled by system (`styles.ts`). The graph's `metadata`, when it has
 * one, is the graph attribute `metadata`, as JSON text.
 *
 * Escaping. Every id, attribute name and value is a double-quoted Graphviz escape string: `\` is
 * written `\\`, `"` is `\"`, a line feed `\n` and a carriage return `\r`; in labels (the node's
 * `display_name`, the edge's `edge_type`), `&` is also written `&amp;`, because Graphviz decodes
 * HTML entities in labels. Graphviz draws labels exactly as the names (line breaks as line breaks),
 * and a reader that decodes these escapes, as Graphviz does for labels, gets every id and value back
 * exactly. A reader that follows only DOT's grammar, where `\"` is the only escape, reads quotes
 * right but sees backslashes doubled and line breaks as `\n`/`\r`. (Writing backslashes as they are
 * would not do: DOT cannot write a backslash right before a `"`, a line feed or the closing quote,
 * so some ids, such as `a\` and `a\\`, would become the same node.)
 *
 * Control characters. DOT has no escape for the other control characters, and Graphviz, written in
 * C, ends a string at NUL: in attribute names and values and in labels, every C0 control character
 * but tab, line feed and carriage return, DEL, every C1 control character and every unpaired
 * surrogate is written as U+FFFD (tabs are written as they are). A node id holding one of them
 * (`UNWRITABLE_CHARACTER` of `chunks.ts`) is refused before the first chunk, as changing it could
 * make two nodes one.
 */
import { assertWritableIds, chunked, numberNodes, type ExportableGraph } from './chunks.js';
import { columnText, edgeColumns, nodeColumns, type Column } from './columns.js';
import { shapeKind, systemColors, type ShapeKind } from './styles.js';

/** Options of the DOT exporter. */
export interface DotOptions {
  /** The digraph's id (default `lineage`). */
  graphName?: string;
}

/** The Graphviz shape and style of each kind of node. */
const DOT_SHAPES: Readonly<Record<ShapeKind, { shape: string; style: string }>> = {
  dataset: { shape: 'cylinder', style: 'filled' },
  job: { shape: 'box', style: 'rounded,filled' },
  group: { shape: 'hexagon', style: 'filled' },
  schema: { shape: 'note', style: 'filled' },
};

// Characters DOT cannot carry: C0 controls but tab, line feed and carriage return; DEL; C1 controls; unpaired surrogates.
const REPLACED = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|\p{Cs}/u;
const REPLACED_ALL = new RegExp(REPLACED.source, 'gu');

/** `text` with each character DOT cannot carry as U+FFFD. */
function dotSafe(text: string): string {
  return REPLACED.test(text) ? text.replace(REPLACED_ALL, '\uFFFD') : text;
}

/**
 * A DOT double-quoted Graphviz escape string holding `value` (ids, attribute names and values other
 * than labels): `\` as `\\`, `"` as `\"`, line feed as `\n`, carriage return as `\r`, and what DOT
 * cannot carry (control characters but tab and line breaks, unpaired surrogates) as U+FFFD.
 */
export function dotString(value: string): string {
  const text = dotSafe(value);
  if (!/[\\"\n\r]/.test(text)) return `"${text}"`;
  return `"${text.replace(/[\\"\n\r]/g, (character) => ESCAPES[character]!)}"`;
}

/**
 * A DOT double-quoted label that Graphviz draws as `text`: a `dotString` with `&` as `&amp;` too
 * (Graphviz decodes HTML entities in labels).
 */
export function dotLabel(text: string): string {
  return `"${dotSafe(text).replace(/[\\"\n\r&]/g, (character) => ESCAPES[character]!)}"`;
}

const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '&': '&amp;' };

/**
 * The graph as DOT, in chunks of about 64 Ki characters (`chunks.ts`), UTF-8 when written.
 * @throws ValidationError (at once, before any chunk) when node ids repeat, an edge names an unknown node,
 *   or a node id holds a character DOT cannot write (`assertWritableIds`).
 */
export function exportDot(graph: ExportableGraph, options: DotOptions = {}): Iterable<string> {
  numberNodes(graph);
  assertWritableIds(graph, 'DOT');
  return chunked(dotPieces(graph, options));
}

function* dotPieces(graph: ExportableGraph, options: DotOptions): Generator<string> {
  const nodeColumnList = nodeColumns(graph.nodes);
  const edgeColumnList = edgeColumns(graph.edges);
  const columns = (element: object, list: Column[]) =>
    list.flatMap((column) => {
      const value = column.value(element);
      return value === undefined ? [] : [`${dotString(column.name)}=${dotString(columnText(value))}`];
    });

  yield `digraph ${dotString(options.graphName ?? 'lineage')} {\n`;
  const graphAttributes = ['rankdir="LR"'];
  if (graph.metadata) graphAttributes.push(`"metadata"=${dotString(JSON.stringify(graph.metadata))}`);
  yield `  graph [${graphAttributes.join(', ')}];\n`;
  yield '  node [fontname="Helvetica", fontsize="10"];\n';
  yield '  edge [fontname="Helvetica", fontsize="8", color="#6b7280"];\n';
  for (const node of graph.nodes) {
    const { shape, style } = DOT_SHAPES[shapeKind(node.node_type)];
    const colors = systemColors(node.system);
    const drawing = [`label=${dotLabel(node.display_name)}`, `shape="${shape}"`, `style="${style}"`];
    if (colors) drawing.push(`fillcolor="${colors.fill}"`, `color="${colors.stroke}"`);
    yield `  ${dotString(node.id)} [${[...drawing, ...columns(node, nodeColumnList)].join(', ')}];\n`;
  }
  for (const edge of graph.edges) {
    const attributes = [`label=${dotLabel(edge.edge_type)}`, ...columns(edge, edgeColumnList)];
    yield `  ${dotString(edge.src_id)} -> ${dotString(edge.dst_id)} [${attributes.join(', ')}];\n`;
  }
  yield '}\n';
}
