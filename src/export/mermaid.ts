/**
 * Mermaid flowcharts (https://mermaid.js.org/syntax/flowchart.html), which GitHub, GitLab,
 * Confluence, Notion and most wikis draw from a fenced `mermaid` block.
 *
 * Layout: `flowchart LR`; a `classDef` per system (`stream`, `lakehouse`, `datalake`, `warehouse`,
 * `external`: fill and stroke from `styles.ts`); one line per node, `n{i}{shape}:::{system}`, where
 * `n{i}` is the node's position in the graph's `nodes` (Mermaid ids must be plain identifiers; ours
 * have colons, slashes and anything else) and the shape is that of its node type (datasets
 * `[("…")]` cylinders, jobs `("…")` rounded boxes, consumer groups `{{"…"}}` hexagons, schemas
 * `[/"…"/]` parallelograms); then one line per edge, `n{i} -->|"{edge_type}"| n{j}`. The label is
 * the node's `display_name` (its `qualified_name` when the display name is empty). Nothing else of
 * a node or edge is kept: Mermaid is for reading, use GraphML, GEXF or JSON to carry data.
 *
 * Size: Mermaid refuses, by default, diagrams over 50,000 characters (`maxTextSize`) or 500 edges
 * (`maxEdges`), about 400 nodes; export a traversal rather than a large graph.
 *
 * Label escaping (`mermaidLabel`): labels are double-quoted and written with Mermaid's entity codes,
 * `#{decimal code point};`, which Mermaid turns into HTML character references. Encoded: `"` `#`
 * `&` `<` `>` `;` `:` `%` and the backtick (which would otherwise end the string, start a comment
 * or a markdown string, be read as HTML, or trip Mermaid's `style`/`classDef` pre-pass), and every
 * invisible formatting character (Unicode category Cf: bidi controls such as U+202E, zero-width
 * joiners, the BOM, soft hyphens), so that they are visible in the source and still drawn the same;
 * also tabs, and spaces at either end of the label (Mermaid trims labels). A line break (`\r\n`,
 * `\r`, `\n`) becomes `<br>`. Other control characters (C0 and C1, DEL) and unpaired surrogates,
 * which HTML cannot carry, become U+FFFD. Everything else, brackets, braces, `-->`,
 * backslashes, letters of any script and emoji, is written as it is.
 */
import { chunked, numberNodes, type ExportableGraph } from './chunks.js';
import { shapeKind, SYSTEM_COLORS, systemColors, type ShapeKind } from './styles.js';

/** Opening and closing of each kind of node's Mermaid shape, around the quoted label. */
const MERMAID_SHAPES: Readonly<Record<ShapeKind, readonly [string, string]>> = {
  dataset: ['[(', ')]'],
  job: ['(', ')'],
  group: ['{{', '}}'],
  schema: ['[/', '/]'],
};

// Characters written as entity codes: Mermaid syntax and HTML, tabs, and invisible formatting (Cf).
const ENCODED = /["#&<>;:%`\t]|\p{Cf}/u;
// Characters HTML cannot carry: controls other than tabs and line breaks (handled first), unpaired surrogates.
const REPLACED = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|\p{Cs}/u;

// Whether a label needs any of the above, or has spaces at either end, or line breaks.
const NEEDS_WORK = /["#&<>;:%`\t\n\r\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|\p{Cf}|\p{Cs}|^ | $/u;

/**
 * `text` as the inside of a double-quoted Mermaid label that draws as `text` (see the module's
 * documentation): entity codes for syntax, HTML, tabs and invisible characters, and for spaces at
 * either end (which Mermaid would trim), `<br>` for line breaks, U+FFFD for what HTML cannot carry.
 */
export function mermaidLabel(text: string): string {
  if (!NEEDS_WORK.test(text)) return text;
  const characters = [...text.replace(/\r\n?/g, '\n')];
  const first = characters.findIndex((character) => character !== ' ');
  const last = characters.findLastIndex((character) => character !== ' ');
  let label = '';
  characters.forEach((character, index) => {
    if (character === '\n') label += '<br>';
    else if (REPLACED.test(character)) label += '\uFFFD';
    else if (ENCODED.test(character) || (character === ' ' && (index < first || index > last))) {
      label += `#${character.codePointAt(0)};`;
    } else label += character;
  });
  return label;
}

/** The Mermaid class of a system: its name in lower case (`STREAM` is `stream`). */
export function mermaidClass(system: string): string {
  return system.toLowerCase();
}

/**
 * The graph as a Mermaid flowchart, in chunks of about 64 Ki characters (`chunks.ts`), UTF-8 when
 * written. Node `n{i}` is `graph.nodes[i]`.
 * @throws ValidationError (at once, before any chunk) when node ids repeat or an edge names an unknown node.
 */
export function exportMermaid(graph: ExportableGraph): Iterable<string> {
  const numbers = numberNodes(graph);
  return chunked(mermaidPieces(graph, numbers));
}

function* mermaidPieces(graph: ExportableGraph, numbers: ReadonlyMap<string, number>): Generator<string> {
  yield "%% lineage-svc: node n{i} is the graph's node i, labeled with its display name\n";
  yield 'flowchart LR\n';
  for (const [system, colors] of Object.entries(SYSTEM_COLORS)) {
    yield `  classDef ${mermaidClass(system)} fill:${colors.fill},stroke:${colors.stroke}\n`;
  }
  let index = 0;
  for (const node of graph.nodes) {
    const [open, close] = MERMAID_SHAPES[shapeKind(node.node_type)];
    const label = mermaidLabel(node.display_name === '' ? node.qualified_name : node.display_name);
    const style = systemColors(node.system) ? `:::${mermaidClass(node.system)}` : '';
    yield `  n${index}${open}"${label}"${close}${style}\n`;
    index += 1;
  }
  for (const edge of graph.edges) {
    yield `  n${numbers.get(edge.src_id)} -->|"${mermaidLabel(edge.edge_type)}"| n${numbers.get(edge.dst_id)}\n`;
  }
}
