/**
 * Every export format, read back by a parser of that format: graphology's GraphML and GEXF parsers,
 * Graphviz's `dot -Tjson` (skipped, with a notice, where Graphviz is not installed), Mermaid's own
 * flowchart parser (the `mermaid` package, in a jsdom window), and JSON.parse. Each must give back
 * every node and edge with every field and attribute, in the documented form where a format cannot
 * say something exactly (`src/export/*.ts`).
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { text as streamText } from 'node:stream/consumers';
import { after, before, describe, it } from 'node:test';
import { DOMParser } from '@xmldom/xmldom';
import { MultiDirectedGraph } from 'graphology';
import type { AbstractGraph } from 'graphology-types';
import * as gexf from 'graphology-gexf';
import * as graphml from 'graphology-graphml';
import { syntheticGraph } from '../../bench/syntheticGraph.js';
import { serializeLineageGraph } from '../../infra/graphFile.js';
import { ValidationError } from '../../src/errors.js';
import { dotLabel, dotString } from '../../src/export/dot.js';
import {
  CHUNK_LENGTH,
  EXPORT_FORMATS,
  EXPORT_MEDIA,
  exportGraph,
  isExportFormat,
  traversalGraph,
  type ExportableGraph,
  type ExportFormat,
} from '../../src/export/index.js';
import { mermaidLabel } from '../../src/export/mermaid.js';
import { edgeKey, type Edge, type LineageGraph, type Node } from '../../src/graph/model.js';
import { CONTROL_CHARACTERS, controlGraph, hostileGraph, HOSTILE_NAMES } from './hostileGraph.js';
import {
  dotDecoded,
  dotDrawn,
  dotLayout,
  expectedReadBack,
  HAS_DOT,
  NO_DOT_NOTICE,
  openMermaidParser,
  readBack,
  type MermaidParser,
} from './readBack.js';

const text = (graph: ExportableGraph, format: ExportFormat) => [...exportGraph(graph, format)].join('');

/** What a format with columns holds for a node or an edge (`src/export/columns.ts`). */
function expectedColumns(
  element: object,
  excluded: string[],
  scalar = (value: unknown) => value,
): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  const add = (name: string, value: unknown) => {
    if (value === null || value === undefined) return;
    columns[name] = typeof value === 'object' ? JSON.stringify(value) : scalar(value);
  };
  for (const [name, value] of Object.entries(element))
    if (!excluded.includes(name) && name !== 'attributes') add(name, value);
  const attributes = (element as { attributes?: Record<string, unknown> | null }).attributes ?? {};
  for (const [name, value] of Object.entries(attributes)) add(`attributes.${name}`, value);
  return columns;
}
const NODE_EXCLUDED = ['id'];
const EDGE_EXCLUDED = ['src_id', 'dst_id'];

/** Attributes read back without the ones a format adds for drawing. */
function without(attributes: Record<string, unknown>, names: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(attributes).filter(([name]) => !names.includes(name)));
}

/** A strict XML parse: xmldom reports every error (warnings, such as about U+FFFD, are not errors). */
function assertWellFormed(xml: string): void {
  const problems: string[] = [];
  new DOMParser({
    onError: (level, message) => (level === 'warning' ? undefined : problems.push(`${level}: ${message}`)),
  }).parseFromString(xml, 'application/xml');
  assert.deepEqual(problems, []);
}

/** Checks a graphology graph read back from GraphML or GEXF against the graph exported. */
function assertSameGraph(parsed: AbstractGraph, graph: LineageGraph, drawingAttributes: string[]): void {
  assert.equal(parsed.order, graph.nodes.length);
  assert.equal(parsed.size, graph.edges.length);
  for (const node of graph.nodes) {
    assert.ok(parsed.hasNode(node.id), `node ${JSON.stringify(node.id)} is missing`);
    assert.deepEqual(
      without(parsed.getNodeAttributes(node.id), drawingAttributes),
      expectedColumns(node, NODE_EXCLUDED),
    );
  }
  for (const edge of graph.edges) {
    const key = edgeKey(edge);
    assert.ok(parsed.hasEdge(key), `edge ${JSON.stringify(key)} is missing`);
    assert.equal(parsed.source(key), edge.src_id);
    assert.equal(parsed.target(key), edge.dst_id);
    assert.deepEqual(without(parsed.getEdgeAttributes(key), drawingAttributes), expectedColumns(edge, EDGE_EXCLUDED));
  }
}

/** A traversal of `graph`: its first node as the origin, the next three reached at hops 1 to 3, its first three edges. */
function traversalOf(graph: LineageGraph) {
  const [origin, ...reached] = graph.nodes.slice(0, 4);
  return {
    origin: origin!,
    nodes: reached.map((node, index) => ({ ...node, hop: index + 1 })),
    edges: graph.edges.slice(0, 3),
  };
}

describe('export formats', () => {
  // Mermaid's parser, in a jsdom window, for the whole file (Mermaid keeps the window it first loaded with).
  let parser: MermaidParser;
  before(async () => {
    parser = await openMermaidParser();
  });
  after(() => parser.close());

  describe('json', () => {
    it('writes the export route bytes (the graph, in order) and reads back equal', () => {
      const graph = hostileGraph();
      const plain = { nodes: graph.nodes, edges: graph.edges };
      assert.equal(text(plain, 'json'), JSON.stringify(plain));
      assert.equal(text(graph, 'json'), JSON.stringify(graph));
      assert.deepEqual(JSON.parse(text(graph, 'json')), JSON.parse(JSON.stringify(graph)));
    });

    it('writes the graph file bytes with the file layout (sorted, indented, metadata, final newline)', () => {
      const graph = hostileGraph();
      const written = [...exportGraph(graph, 'json', { jsonLayout: 'file' })].join('');
      assert.equal(written, serializeLineageGraph(graph));
      assert.equal(written, serializeLineageGraph(JSON.parse(written)));
      assert.equal(
        [...exportGraph({ nodes: [], edges: [] }, 'json', { jsonLayout: 'file' })].join(''),
        '{\n  "nodes": [],\n  "edges": []\n}\n',
      );
    });
  });

  describe('graphml', () => {
    it('is well-formed and reads back with graphology-graphml: every node, edge, field and attribute', () => {
      const graph = hostileGraph();
      const xml = text(graph, 'graphml');
      assertWellFormed(xml);
      const parsed = graphml.parse(MultiDirectedGraph, xml);
      assert.equal(parsed.type, 'directed');
      assertSameGraph(parsed, graph, ['label']);
      assert.equal(parsed.getNodeAttribute(graph.nodes[5]!.id, 'label'), 'line one\nline two');
      assert.equal(parsed.getNodeAttribute(graph.nodes[0]!.id, 'attributes.count'), 0);
      assert.equal(parsed.getNodeAttribute(graph.nodes[0]!.id, 'attributes.enabled'), true);
      assert.deepEqual(JSON.parse(parsed.getAttribute('metadata')), graph.metadata);
      assert.equal(parsed.getAttribute('id'), 'lineage');
    });

    it('types columns from their values and writes mixed ones as text', () => {
      const xml = text(mixedGraph(), 'graphml');
      assert.match(xml, /attr\.name="attributes\.port" attr\.type="string"/);
      assert.match(xml, /attr\.name="attributes\.size" attr\.type="double"/);
      assert.match(xml, /attr\.name="hop" attr\.type="long"/);
      const parsed = graphml.parse(MultiDirectedGraph, xml);
      assert.deepEqual(
        ['a', 'b', 'c'].map((id) => parsed.getNodeAttribute(id, 'attributes.port')),
        ['8080', '8080/tcp', 'true'],
      );
      assert.deepEqual(
        ['a', 'b', 'c'].map((id) => parsed.getNodeAttribute(id, 'attributes.size')),
        [1, 2.5, undefined],
      );
      assert.deepEqual(
        ['a', 'b', 'c'].map((id) => parsed.getNodeAttribute(id, 'hop')),
        [0, 1, 2],
      );
    });

    it('replaces what XML cannot carry with U+FFFD, and reads carriage returns back as line feeds', () => {
      const xml = text(awkwardGraph(), 'graphml');
      assertWellFormed(xml);
      const parsed = graphml.parse(MultiDirectedGraph, xml);
      assert.equal(parsed.getNodeAttribute('n', 'display_name'), 'a\uFFFDb\uFFFDc\nd\ne\uFFFD');
    });
  });

  describe('gexf', () => {
    it('is well-formed and reads back with graphology-gexf: every node, edge, field and attribute', () => {
      const graph = hostileGraph();
      const xml = text(graph, 'gexf');
      assertWellFormed(xml);
      const parsed = gexf.parse(MultiDirectedGraph, xml, { respectInputGraphType: true });
      assertSameGraph(parsed, graph, ['label', 'color']);
      for (const node of graph.nodes) assert.equal(parsed.getNodeAttribute(node.id, 'label'), node.display_name);
      for (const edge of graph.edges) assert.equal(parsed.getEdgeAttribute(edgeKey(edge), 'label'), edge.edge_type);
      assert.equal(parsed.getNodeAttribute(graph.nodes[0]!.id, 'color'), 'rgb(219,234,254)');
      assert.deepEqual(JSON.parse(parsed.getAttribute('description')), graph.metadata);
    });

    it('keeps carriage returns (values are attributes) and replaces what XML cannot carry with U+FFFD', () => {
      const xml = text(awkwardGraph(), 'gexf');
      assertWellFormed(xml);
      const parsed = gexf.parse(MultiDirectedGraph, xml, { respectInputGraphType: true });
      assert.equal(parsed.getNodeAttribute('n', 'display_name'), 'a\uFFFDb\uFFFDc\r\nd\re\uFFFD');
    });
  });

  describe('dot', () => {
    if (!HAS_DOT) console.log(NO_DOT_NOTICE);
    const skip = HAS_DOT ? false : 'Graphviz dot is not installed';
    it('reads back with Graphviz: every node and edge, every column, labels drawn as the names', { skip }, () => {
      const graph = hostileGraph();
      const json = dotLayout(text(graph, 'dot'));
      assert.equal(json.name, 'lineage');
      assert.deepEqual(JSON.parse(dotDecoded(json.metadata!)), graph.metadata);
      assert.equal(json.objects.length, graph.nodes.length);
      const byId = new Map(json.objects.map((object) => [dotDecoded(object.name), object]));
      const columns = (object: Record<string, string>, expected: Record<string, unknown>) =>
        Object.fromEntries(
          Object.keys(expected).map((name) => [
            name,
            object[name] === undefined ? undefined : dotDecoded(object[name]),
          ]),
        );
      const asText = (expected: Record<string, unknown>) =>
        Object.fromEntries(Object.entries(expected).map(([name, value]) => [name, String(value)]));
      for (const node of graph.nodes) {
        const object = byId.get(node.id);
        assert.ok(object, `node ${JSON.stringify(node.id)} is missing`);
        const expected = expectedColumns(node, NODE_EXCLUDED);
        assert.deepEqual(columns(object, expected), asText(expected));
        assert.equal(dotDrawn(object.label!), node.display_name);
      }
      // Graphviz lists edges in its own order: each is found by its ends and its type.
      const byKey = new Map(
        json.edges!.map((edge) => [
          edgeKey({
            src_id: dotDecoded(json.objects[edge.tail]!.name),
            dst_id: dotDecoded(json.objects[edge.head]!.name),
            edge_type: dotDecoded(edge.edge_type!) as Edge['edge_type'],
          }),
          edge,
        ]),
      );
      assert.equal(json.edges!.length, graph.edges.length);
      for (const original of graph.edges) {
        const edge = byKey.get(edgeKey(original));
        assert.ok(edge, `edge ${JSON.stringify(edgeKey(original))} is missing`);
        assert.equal(dotDrawn(edge.label!), original.edge_type);
        const expected = expectedColumns(original, EDGE_EXCLUDED);
        assert.deepEqual(columns(edge, expected), asText(expected));
      }
    });

    it('keeps ids apart that differ only in backslashes, quotes and line breaks', { skip }, () => {
      const names = [
        'end\\',
        'end\\\\',
        'odd\\"quote',
        'odd\\\\"quote',
        'line\\\nfeed',
        'line\nfeed',
        'cr\r',
        'a&amp;b',
      ];
      const nodes = names.map((id) => ({ ...mixedGraph().nodes[0]!, id, display_name: id }));
      const json = dotLayout(text({ nodes, edges: [] }, 'dot'));
      assert.deepEqual(
        json.objects.map((object) => dotDecoded(object.name)),
        names,
      );
      assert.deepEqual(
        json.objects.map((object) => dotDrawn(object.label!)),
        names,
      );
    });

    it('quotes and escapes strings and labels', () => {
      assert.equal(dotString('a"b'), String.raw`"a\"b"`);
      assert.equal(dotString('p\\q'), String.raw`"p\\q"`);
      assert.equal(dotString('x\\'), String.raw`"x\\"`);
      assert.equal(dotString('\\"'), String.raw`"\\\""`);
      assert.equal(dotString('line\nfeed\r'), String.raw`"line\nfeed\r"`);
      assert.equal(dotString('a&amp;b'), '"a&amp;b"');
      assert.equal(dotLabel('a\\b "c" &amp; d\r\ne'), String.raw`"a\\b \"c\" &amp;amp; d\r\ne"`);
    });
  });

  describe('mermaid', () => {
    it('parses with Mermaid: every node (label, shape, class) and every edge (ends, type)', async () => {
      const graph = hostileGraph();
      const { vertices, edges } = await parser.flowchart(text(graph, 'mermaid'));
      const shapes: Record<string, string> = {
        TOPIC: 'cylinder',
        STREAM_JOB: 'round',
        CONSUMER_GROUP: 'hexagon',
        SCHEMA: 'lean_right',
      };
      assert.deepEqual(
        vertices.map((vertex) => vertex.id),
        graph.nodes.map((_, index) => `n${index}`),
      );
      graph.nodes.forEach((node, index) => {
        const vertex = vertices[index]!;
        assert.equal(
          parser.drawnLabel(vertex.text),
          node.display_name,
          `label of ${JSON.stringify(node.display_name)}`,
        );
        assert.deepEqual(vertex.classes, [node.system.toLowerCase()]);
        if (shapes[node.node_type]) assert.equal(vertex.type, shapes[node.node_type]);
      });
      const number = new Map(graph.nodes.map((node, index) => [node.id, `n${index}`]));
      assert.deepEqual(
        edges.map((edge) => [edge.start, edge.end, edge.text]),
        graph.edges.map((edge) => [number.get(edge.src_id), number.get(edge.dst_id), edge.edge_type]),
      );
    });

    it('draws line breaks, control characters and an empty display name as documented', async () => {
      const { vertices } = await parser.flowchart(text(awkwardGraph(), 'mermaid'));
      assert.equal(parser.drawnLabel(vertices[0]!.text), 'a\uFFFDb\uFFFDc\nd\ne\uFFFE');
      assert.equal(parser.drawnLabel(vertices[1]!.text), 'empty display name');
    });

    it('escapes labels with entity codes', () => {
      assert.equal(
        mermaidLabel('a "b" #c; <d> & e:f %g `h` \u202E i\r\nj [k] {l} 😀'),
        'a #34;b#34; #35;c#59; #60;d#62; #38; e#58;f #37;g #96;h#96; #8238; i<br>j [k] {l} 😀',
      );
      assert.equal(mermaidLabel('\u0001\u0085\uD800'), '\uFFFD\uFFFD\uFFFD');
      assert.equal(mermaidLabel('  two  spaces\tand a tab '), '#32;#32;two  spaces#9;and a tab#32;');
    });
  });

  describe('every format', () => {
    it('refuses, before the first chunk, a graph whose node ids repeat or whose edges name unknown nodes', () => {
      const graph = hostileGraph();
      const repeated = { nodes: [...graph.nodes, graph.nodes[0]!], edges: [] };
      const dangling = { nodes: graph.nodes.slice(1), edges: graph.edges };
      for (const format of EXPORT_FORMATS.filter((name) => name !== 'json')) {
        assert.throws(() => exportGraph(repeated, format), ValidationError, format);
        assert.throws(() => exportGraph(dangling, format), /names "stream:topic:env-1:lkc-1\/he said/, format);
      }
      assert.throws(() => exportGraph(graph, 'svg' as ExportFormat), /unknown export format "svg"/);
    });

    it('writes no control character but tabs and line breaks, and no unpaired surrogate, from names, attributes or metadata', () => {
      const graph = controlGraph();
      const raw = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|\p{Cs}/u;
      for (const format of ['dot', 'mermaid', 'graphml', 'gexf'] as const) {
        const written = text(graph, format);
        const found = raw.exec(written);
        assert.equal(found, null, `${format}: U+${found?.[0].charCodeAt(0).toString(16)} at ${found?.index}`);
        assert.ok(Buffer.from(written, 'utf8').toString('utf8') === written, `${format}: not valid UTF-16`);
      }
      // DOT: one statement a line (the line breaks of values are escaped), every value's other controls U+FFFD.
      const dot = text(graph, 'dot');
      assert.equal(dot.split('\n').length, 4 + graph.nodes.length + graph.edges.length + 2);
      const replaced = (count: number) => '\uFFFD'.repeat(count);
      assert.equal(dotString(`a${CONTROL_CHARACTERS}b`), `"a${replaced(9)}\t\\n${replaced(2)}\\r${replaced(53)}b"`);
      assert.equal(dotLabel(`a${CONTROL_CHARACTERS}b`), dotString(`a${CONTROL_CHARACTERS}b`));
    });

    it('reads control characters back from GraphML and GEXF: DEL and C1 exactly, the others XML cannot carry as U+FFFD', () => {
      const graph = controlGraph();
      const carried = (value: string) => value.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]|\p{Cs}/gu, '\uFFFD');
      const node = graph.nodes[0]!;
      const parsedGraphML = graphml.parse(MultiDirectedGraph, text(graph, 'graphml'));
      assert.equal(
        parsedGraphML.getNodeAttribute(node.id, 'display_name'),
        carried(node.display_name).replace(/\r\n?/g, '\n'),
      );
      const parsedGexf = gexf.parse(MultiDirectedGraph, text(graph, 'gexf'), { respectInputGraphType: true });
      assert.equal(parsedGexf.getNodeAttribute(node.id, 'display_name'), carried(node.display_name));
      const [key, value] = Object.entries(node.attributes!)[0]!;
      assert.equal(parsedGexf.getNodeAttribute(node.id, carried(`attributes.${key}`)), carried(value as string));
    });

    it('refuses, before the first chunk, node ids that DOT, GraphML or GEXF could not write as they are', () => {
      for (const character of ['\u0000', '\u001B', '\u007F', '\u0085', '\uD800', '\uFFFE']) {
        const graph = controlGraph();
        const nodes = [{ ...graph.nodes[0]!, id: `stream:topic:env-1:lkc-1/a${character}` }, graph.nodes[1]!];
        const edges = [{ ...graph.edges[0]!, src_id: nodes[0]!.id }];
        const code = character.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
        for (const format of ['dot', 'graphml', 'gexf'] as const) {
          assert.throws(
            () => exportGraph({ nodes, edges }, format),
            new RegExp(`node id .* holds U\\+${code}`),
            format,
          );
        }
        // Mermaid numbers its nodes and JSON escapes: both write the graph.
        for (const format of ['mermaid', 'json'] as const) assert.ok(text({ nodes, edges }, format).length > 0);
      }
    });

    it('yields chunks of about 64 Ki characters that join into the whole export', () => {
      const graph = syntheticGraph({ nodes: 1_500, edges: 4_500 });
      for (const format of EXPORT_FORMATS) {
        const chunks = [...exportGraph(graph, format)];
        assert.ok(chunks.length > 1, `${format}: ${chunks.length} chunks`);
        for (const chunk of chunks.slice(0, -1)) {
          assert.ok(
            chunk.length >= CHUNK_LENGTH && chunk.length < CHUNK_LENGTH + 4096,
            `${format}: a chunk of ${chunk.length}`,
          );
        }
        assert.ok(chunks.at(-1)!.length > 0);
      }
      const parsed = graphml.parse(MultiDirectedGraph, text(graph, 'graphml'));
      assert.deepEqual([parsed.order, parsed.size], [graph.nodes.length, graph.edges.length]);
      const parsedGexf = gexf.parse(MultiDirectedGraph, text(graph, 'gexf'), { respectInputGraphType: true });
      assert.deepEqual([parsedGexf.order, parsedGexf.size], [graph.nodes.length, graph.edges.length]);
    });

    it('exports a traversal: its origin first with hop 0, the nodes reached with their hop, the edges followed', () => {
      const graph = hostileGraph();
      const traversal = traversalOf(graph);
      const parsed = graphml.parse(MultiDirectedGraph, text(traversalGraph(traversal), 'graphml'));
      assert.deepEqual(
        parsed.mapNodes((id, attributes) => [id, attributes.hop]),
        graph.nodes.slice(0, 4).map((node, index) => [node.id, index]),
      );
      assert.equal(parsed.size, 3);
      assert.match(
        text(traversalGraph(traversal), 'mermaid'),
        /^ {2}n0\[\("he said #34;hi#34; and 'bye'"\)\]:::stream$/m,
      );
    });

    it('exports the hostile graph and a traversal of it, each read back whole by the parser of its format', async () => {
      const graph = hostileGraph();
      const traversal = traversalOf(graph);
      for (const format of EXPORT_FORMATS.filter((name) => name !== 'dot' || HAS_DOT)) {
        const tools = { mermaid: parser };
        assert.deepEqual(await readBack(format, text(graph, format), tools), expectedReadBack(graph, format), format);
        assert.deepEqual(
          await readBack(format, text(traversalGraph(traversal), format), tools),
          expectedReadBack(traversal, format),
          `${format}: the traversal`,
        );
      }
    });

    it('names its formats, with a media type and a file extension each', () => {
      assert.deepEqual(Object.keys(EXPORT_MEDIA), [...EXPORT_FORMATS]);
      assert.ok(EXPORT_FORMATS.every(isExportFormat));
      assert.ok(!isExportFormat('svg') && !isExportFormat('toString'));
      assert.equal(EXPORT_MEDIA.dot.contentType, 'text/vnd.graphviz; charset=utf-8');
    });

    it('streams through a Node Readable, as a route would send it', async () => {
      const graph = hostileGraph();
      for (const format of EXPORT_FORMATS) {
        assert.equal(await streamText(Readable.from(exportGraph(graph, format))), text(graph, format), format);
      }
    });

    it('exports a graph with no nodes', () => {
      for (const format of EXPORT_FORMATS) assert.ok(text({ nodes: [], edges: [] }, format).length > 0, format);
      assert.equal(graphml.parse(MultiDirectedGraph, text({ nodes: [], edges: [] }, 'graphml')).order, 0);
      assert.equal(
        gexf.parse(MultiDirectedGraph, text({ nodes: [], edges: [] }, 'gexf'), { respectInputGraphType: true }).order,
        0,
      );
    });
  });
});

/** Nodes whose columns mix types, and a traversal's `hop` field. */
function mixedGraph(): { nodes: Array<Node & { hop: number }>; edges: Edge[] } {
  const node = (id: string, hop: number, attributes: Node['attributes']): Node & { hop: number } => ({
    id,
    node_type: 'TOPIC',
    system: 'STREAM',
    qualified_name: id,
    display_name: id,
    environment_id: null,
    cluster_id: null,
    attributes,
    hop,
  });
  return {
    nodes: [
      node('a', 0, { port: 8080, size: 1 }),
      node('b', 1, { port: '8080/tcp', size: 2.5 }),
      node('c', 2, { port: true }),
    ],
    edges: [],
  };
}

/** A node with characters XML and HTML cannot carry, carriage returns, and one with an empty display name. */
function awkwardGraph(): LineageGraph {
  const base = mixedGraph().nodes[0]!;
  return {
    nodes: [
      { ...base, id: 'n', display_name: 'a\u0001b\uD800c\r\nd\re\uFFFE' },
      { ...base, id: 'm', qualified_name: 'empty display name', display_name: '' },
    ],
    edges: [],
  };
}

// Keeps the fixture's list in use where only the graph is: the names are the point of the fixture.
assert.ok(HOSTILE_NAMES.length > 20);
