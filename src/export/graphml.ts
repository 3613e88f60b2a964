/**
 * GraphML (http://graphml.graphdrawing.org/, with the GraphML-Attributes extension: `attr.name`,
 * `attr.type`), for yEd, Gephi, Cytoscape, NetworkX and graphology (`graphology-graphml` reads it
 * back). graphology has no GraphML writer, so the XML is written by `@xmldom/xmldom` (see `xml.ts`),
 * one element at a time.
 *
 * Layout: one `<graph edgedefault="directed">` whose id is the graph's name; a node is
 * `<node id="{node id}">` and an edge `<edge id="{src}\t{type}\t{dst}" source target>` (its key,
 * tabs written as `&#9;`), each with one `<data>` per column that has a value (`columns.ts`: every
 * field, then `attributes.<key>`, typed `boolean`, `long`, `double` or `string`; objects and arrays
 * as JSON text). Nodes also have a `label` (their `display_name`) and edges a `label` (their
 * `edge_type`), which Gephi and yEd show. The graph's `metadata`, when it has one, is a graph
 * `<data>` named `metadata`, as JSON text.
 *
 * Escaping is the serializer's and `xml.ts`'s: everything reads back exactly except characters XML
 * cannot carry (replaced by U+FFFD) and carriage returns in values (read back as line feeds).
 */
import { assertWritableIds, chunked, numberNodes, type ExportableGraph } from './chunks.js';
import { columnText, edgeColumns, nodeColumns, type Column } from './columns.js';
import { XmlWriter } from './xml.js';
import { edgeKey } from '../graph/model.js';

/** The GraphML namespace. */
export const GRAPHML_NAMESPACE = 'http://graphml.graphdrawing.org/xmlns';
const SCHEMA_LOCATION = `${GRAPHML_NAMESPACE} http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd`;
const XSI_NAMESPACE = 'http://www.w3.org/2001/XMLSchema-instance';

/** Options of the GraphML exporter. */
export interface GraphMLOptions {
  /** The `<graph>` element's id (default `lineage`). */
  graphName?: string;
}

/**
 * The graph as GraphML, in chunks of about 64 Ki characters (`chunks.ts`), UTF-8 when written.
 * @throws ValidationError (at once, before any chunk) when node ids repeat, an edge names an unknown node,
 *   or a node id holds a character GraphML cannot write (`assertWritableIds`).
 */
export function exportGraphML(graph: ExportableGraph, options: GraphMLOptions = {}): Iterable<string> {
  numberNodes(graph);
  assertWritableIds(graph, 'GraphML');
  return chunked(graphMLPieces(graph, options));
}

interface KeyedColumn {
  key: string;
  column: Column;
}

function* graphMLPieces(graph: ExportableGraph, options: GraphMLOptions): Generator<string> {
  const xml = new XmlWriter(GRAPHML_NAMESPACE, 'graphml');
  const root = xml.root;
  root.setAttributeNS('http://www.w3.org/2000/xmlns/', 'xmlns:xsi', XSI_NAMESPACE);
  root.setAttributeNS(XSI_NAMESPACE, 'xsi:schemaLocation', SCHEMA_LOCATION);

  const keyed = (prefix: string, columns: Column[]): KeyedColumn[] =>
    columns.map((column, index) => ({ key: `${prefix}${index}`, column }));
  const nodeKeys = keyed('n', withLabel(nodeColumns(graph.nodes), 'display_name'));
  const edgeKeys = keyed('e', withLabel(edgeColumns(graph.edges), 'edge_type'));
  const declare = (scope: string, { key, column }: KeyedColumn) => {
    root.appendChild(xml.text('\n  '));
    root.appendChild(
      xml.frameElement('key', { id: key, for: scope, 'attr.name': column.name, 'attr.type': column.type }),
    );
  };
  nodeKeys.forEach((keyedColumn) => declare('node', keyedColumn));
  edgeKeys.forEach((keyedColumn) => declare('edge', keyedColumn));
  if (graph.metadata) declare('graph', { key: 'g0', column: metadataColumn });

  const graphElement = xml.frameElement('graph', { id: options.graphName ?? 'lineage', edgedefault: 'directed' });
  if (graph.metadata) {
    graphElement.appendChild(xml.text('\n    '));
    graphElement.appendChild(xml.frameElement('data', { key: 'g0' }, JSON.stringify(graph.metadata)));
  }
  root.appendChild(xml.text('\n  '));
  root.appendChild(graphElement);
  root.appendChild(xml.text('\n'));
  const [head, tail] = xml.frame(graphElement) as [string, string];

  yield head;
  const data = (element: object, keys: KeyedColumn[]) =>
    keys.flatMap(({ key, column }) => {
      const value = column.value(element);
      return value === undefined ? [] : [xml.element('data', { key }, columnText(value))];
    });
  for (const node of graph.nodes) {
    yield '\n    ';
    yield xml.serialize(xml.element('node', { id: node.id }, data(node, nodeKeys)));
  }
  for (const edge of graph.edges) {
    yield '\n    ';
    yield xml.serialize(
      xml.element('edge', { id: edgeKey(edge), source: edge.src_id, target: edge.dst_id }, data(edge, edgeKeys)),
    );
  }
  yield '\n  ';
  yield tail;
  yield '\n';
}

const metadataColumn: Column = { name: 'metadata', type: 'string', value: () => undefined };

/** The columns with a `label` first, copied from `field` (unless a column is already named `label`). */
function withLabel(columns: Column[], field: string): Column[] {
  if (columns.some((column) => column.name === 'label')) return columns;
  const source = columns.find((column) => column.name === field);
  return source ? [{ name: 'label', type: source.type, value: source.value }, ...columns] : columns;
}
