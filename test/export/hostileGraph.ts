/**
 * A small graph whose ids, names and attributes hold everything the export formats have syntax
 * for: quotes, backslashes, markup, entities, arrows, comments, separators, brackets, keywords,
 * scripts, emoji, bidi controls, line breaks. Every attribute key keeps one type across nodes
 * (numbers, booleans, strings, arrays, objects), so that each column has that type.
 */
import { EDGE_TYPES, NODE_TYPES, SYSTEMS, type Edge, type LineageGraph, type Node } from '../../src/graph/model.js';

/** Names that trip DOT, XML, Mermaid or Markdown when not escaped. */
export const HOSTILE_NAMES = [
  `he said "hi" and 'bye'`,
  'back\\slash and \\\\double',
  'trailing backslash\\',
  'odd run before a quote \\" and \\\\\\" too',
  '<b>bold</b> & &amp; &lt; &#35; ]]> <!-- comment -->',
  'line one\nline two',
  'a --> b -.-> c ==> d --- e',
  '%% not a comment %%{init: {"theme": "dark"}}%%',
  'semi;colon; #hash #35; #quot; #lt;',
  '{braces} [brackets] (parens) |pipes| /slashes/ ((double)) [[sub]]',
  'Zürich 東京 مرحبا Ελλάδα',
  'emoji 😀 👨‍👩‍👧 🏳️‍🌈',
  'bidi abc\u202Edef\u202C \u2066isolated\u2069 \u200Fmark\u200B',
  'style x:#fff; classDef y fill:#f00;',
  '`**markdown**` _underscored_ *starred*',
  'end',
  'subgraph',
  'digraph strict node edge graph',
  '  padded  ',
  'ends with a line feed\n',
  'x\\\ny',
] as const;

/** The graph: one node per hostile name, a chain of edges of every type, and a parallel edge. */
export function hostileGraph(): LineageGraph & { metadata: Record<string, unknown> } {
  const nodes: Node[] = HOSTILE_NAMES.map((name, index) => {
    const nodeType = NODE_TYPES[index % NODE_TYPES.length]!;
    return {
      // The model forbids control characters in ids; the exporters do not rely on it.
      id: `stream:${nodeType.toLowerCase()}:env-1:lkc-1/${name}`,
      node_type: nodeType,
      system: SYSTEMS[index % SYSTEMS.length]!,
      qualified_name: `lkc-1/${name}`,
      display_name: name,
      environment_id: index % 2 === 0 ? 'env-1' : null,
      cluster_id: index % 3 === 0 ? 'lkc-1' : null,
      attributes:
        index % 4 === 3
          ? null
          : {
              note: name,
              count: index,
              ratio: index + 0.25,
              enabled: index % 2 === 0,
              tags: [name, index, null],
              nested: { name, list: [1, { deep: true }] },
              missing: null,
            },
      ...(nodeType === 'CATALOG_TABLE' ? { catalog_type: 'DATA_GOVERNANCE' as const } : {}),
    };
  });
  const edges: Edge[] = nodes.slice(1).map((node, index) => ({
    src_id: nodes[index]!.id,
    dst_id: node.id,
    edge_type: EDGE_TYPES[index % EDGE_TYPES.length]!,
    attributes: index % 3 === 2 ? null : { note: HOSTILE_NAMES[index]!, weight: index, score: 0.5 },
  }));
  edges.push({ src_id: nodes[0]!.id, dst_id: nodes[1]!.id, edge_type: 'TRANSFORMS', attributes: null });
  return { nodes, edges, metadata: { source: HOSTILE_NAMES[4], extracted: { at: '2025-01-31T12:00:00Z' } } };
}

/**
 * Every C0 control character (NUL to U+001F, tab and line breaks included), DEL, every C1 control
 * character (U+0080 to U+009F), and two unpaired surrogates: a low one, then a high one (a pair in
 * the wrong order).
 */
export const CONTROL_CHARACTERS = [
  ...Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)),
  '\u007F',
  ...Array.from({ length: 32 }, (_, offset) => String.fromCharCode(0x80 + offset)),
  '\uDC00\uD800',
].join('');

/**
 * Two topics and an edge whose display names, attribute names, attribute values and the graph's
 * metadata hold `CONTROL_CHARACTERS` (the model refuses them in ids, not in these; the ids are plain).
 */
export function controlGraph(): LineageGraph & { metadata: Record<string, unknown> } {
  const node = (name: string): Node => ({
    id: `stream:topic:env-1:lkc-1/${name}`,
    node_type: 'TOPIC',
    system: 'STREAM',
    qualified_name: `lkc-1/${name}`,
    display_name: `${name} ${CONTROL_CHARACTERS} end`,
    environment_id: 'env-1',
    cluster_id: 'lkc-1',
    attributes: { [`key ${CONTROL_CHARACTERS}`]: `value ${CONTROL_CHARACTERS}`, list: [CONTROL_CHARACTERS] },
  });
  const nodes = [node('a'), node('b')];
  const edges: Edge[] = [
    { src_id: nodes[0]!.id, dst_id: nodes[1]!.id, edge_type: 'TRANSFORMS', attributes: { note: CONTROL_CHARACTERS } },
  ];
  return { nodes, edges, metadata: { note: CONTROL_CHARACTERS } };
}
