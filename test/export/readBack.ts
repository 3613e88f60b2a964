/**
 * Reading an export back with a parser of its format, for the tests of every way an export leaves
 * the tool (`src/export/` itself, the API's export and traversal routes, `lineage-svc-extract
 * --format`): graphology's GraphML and GEXF parsers, Graphviz's `dot -Tjson` (where Graphviz is
 * installed), Mermaid's own flowchart parser in a jsdom window, and `JSON.parse`.
 *
 * `readBack` gives every format the same shape (`ReadBack`: the nodes with their id where the format
 * keeps it and the label drawn, the edges with their ends and type), and `expectedReadBack` what
 * that shape must be for a graph, so that a test compares the two with `assert.deepEqual`.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { MultiDirectedGraph } from 'graphology';
import * as gexf from 'graphology-gexf';
import * as graphml from 'graphology-graphml';
import { JSDOM } from 'jsdom';
import type { ExportFormat } from '../../src/export/index.js';
import type { Edge, Node } from '../../src/graph/model.js';

/** An export read back: sorted, so that two of them compare with `deepEqual` whatever their order. */
export interface ReadBack {
  /** `{id}\t{label}`: the id is empty for Mermaid, which numbers its nodes (`n0`, `n1`...). */
  nodes: string[];
  /** `{source} -[{type}]-> {target}`, the ends by id, or by label for Mermaid. */
  edges: string[];
}

/** A graph to compare an export with: a LineageGraph, or a traversal answer (its origin is a node too). */
export interface ExportedGraph {
  origin?: Node | undefined;
  nodes: readonly Node[];
  edges: readonly Pick<Edge, 'src_id' | 'dst_id' | 'edge_type'>[];
}

const nodeLine = (id: string, label: string) => `${id}\t${label}`;
const edgeLine = (source: string, type: string, target: string) => `${source} -[${type}]-> ${target}`;
const sorted = (lines: string[]) => [...lines].sort();

/** The label an exporter draws for a node: its display name; Mermaid falls back to the qualified name. */
function label(node: Node, format: ExportFormat): string {
  return format === 'mermaid' && node.display_name === '' ? node.qualified_name : node.display_name;
}

/** What `readBack` must give for `graph` exported in `format`. */
export function expectedReadBack(graph: ExportedGraph, format: ExportFormat): ReadBack {
  const nodes = [...(graph.origin ? [graph.origin] : []), ...graph.nodes];
  const labels = new Map(nodes.map((node) => [node.id, label(node, format)]));
  const end = (id: string) => (format === 'mermaid' ? labels.get(id)! : id);
  return {
    nodes: sorted(nodes.map((node) => nodeLine(format === 'mermaid' ? '' : node.id, label(node, format)))),
    edges: sorted(graph.edges.map((edge) => edgeLine(end(edge.src_id), edge.edge_type, end(edge.dst_id)))),
  };
}

/** Whether Graphviz's `dot` is installed (the DOT round trips are skipped, with a notice, where it is not). */
export const HAS_DOT = spawnSync('dot', ['-V']).status === 0;

/** The notice a test file prints once when it skips its DOT round trips. */
export const NO_DOT_NOTICE =
  '# dot (Graphviz) is not installed: the DOT round trips are skipped; apt-get install graphviz runs them';

/** What `dot -Tjson` gives back: the graph's attributes, its nodes (`objects`) and edges. */
export interface DotJson {
  name: string;
  metadata?: string;
  objects: Array<Record<string, string> & { _gvid: number; name: string }>;
  edges?: Array<Record<string, string> & { tail: number; head: number }>;
}

/** A DOT document laid out by Graphviz, as JSON. */
export function dotLayout(dot: string): DotJson {
  return JSON.parse(execFileSync('dot', ['-Tjson'], { input: dot, maxBuffer: 1 << 28 }).toString('utf8')) as DotJson;
}

/** A Graphviz escape string decoded, as Graphviz decodes labels (`\n`, `\r`, then any escaped character). */
export function dotDecoded(raw: string): string {
  return raw.replace(/\\(.)/gs, (_, next: string) => (next === 'n' ? '\n' : next === 'r' ? '\r' : next));
}

/** A label as Graphviz draws it: decoded, and `&amp;` as `&` (Graphviz reads HTML entities in labels). */
export function dotDrawn(label: string): string {
  return dotDecoded(label).replace(/&amp;/g, '&');
}

/** A vertex of Mermaid's flowchart database. */
export interface MermaidVertex {
  id: string;
  text: string;
  type: string;
  classes: string[];
}

/** An edge of Mermaid's flowchart database. */
export interface MermaidEdge {
  start: string;
  end: string;
  text: string;
}

/** Mermaid's flowchart parser, in a jsdom window that stands in for the browser while it is open. */
export interface MermaidParser {
  /** Parses `source` (it must be a flowchart) and answers its vertices and edges, in their order. */
  flowchart(source: string): Promise<{ vertices: MermaidVertex[]; edges: MermaidEdge[] }>;
  /** The text a label draws: Mermaid's entity placeholders as HTML references, decoded by the DOM. */
  drawnLabel(label: string): string;
  /** Puts back the globals it replaced and closes the window. */
  close(): void;
}

const DOM_GLOBALS = ['window', 'document', 'DOMParser', 'navigator', 'Element', 'HTMLElement', 'SVGElement'] as const;

/**
 * Loads Mermaid with a jsdom window as its DOM (DOMPurify needs one). The window's objects are set
 * as globals until `close`.
 */
export async function openMermaidParser(): Promise<MermaidParser> {
  const dom = new JSDOM('<!doctype html><html><body></body></html>', { pretendToBeVisual: true });
  const saved = new Map<string, PropertyDescriptor | undefined>();
  for (const name of DOM_GLOBALS) {
    saved.set(name, Object.getOwnPropertyDescriptor(globalThis, name));
    Object.defineProperty(globalThis, name, {
      value: (dom.window as unknown as Record<string, unknown>)[name],
      configurable: true,
      writable: true,
    });
  }
  const mermaid = (await import('mermaid')).default;
  mermaid.initialize({ startOnLoad: false });
  return {
    async flowchart(source) {
      assert.equal((await mermaid.parse(source))?.diagramType, 'flowchart-v2');
      const diagram = await mermaid.mermaidAPI.getDiagramFromText(source);
      const db = diagram.db as unknown as { getVertices(): Map<string, MermaidVertex>; getEdges(): MermaidEdge[] };
      return { vertices: [...db.getVertices().values()], edges: db.getEdges() };
    },
    drawnLabel(text) {
      const html = text.replace(/ﬂ°°/g, '&#').replace(/ﬂ°/g, '&').replace(/¶ß/g, ';').replace(/<br>/g, '\n');
      const textarea = dom.window.document.createElement('textarea');
      textarea.innerHTML = html;
      return textarea.value;
    },
    close() {
      for (const name of DOM_GLOBALS) {
        const descriptor = saved.get(name);
        if (descriptor) Object.defineProperty(globalThis, name, descriptor);
        else delete (globalThis as Record<string, unknown>)[name];
      }
      dom.window.close();
    },
  };
}

/** The readers of `readBack` that need more than the text: Mermaid's parser (for `mermaid`). */
export interface ReadBackTools {
  mermaid?: MermaidParser | undefined;
}

/**
 * `text`, an export in `format`, read back by a parser of that format. `dot` needs Graphviz
 * (`HAS_DOT`) and `mermaid` an open `MermaidParser`.
 */
export async function readBack(format: ExportFormat, text: string, tools: ReadBackTools = {}): Promise<ReadBack> {
  switch (format) {
    case 'json': {
      const graph = JSON.parse(text) as ExportedGraph;
      return expectedReadBack(graph, 'json');
    }
    case 'graphml':
    case 'gexf': {
      const parsed =
        format === 'graphml'
          ? graphml.parse(MultiDirectedGraph, text)
          : gexf.parse(MultiDirectedGraph, text, { respectInputGraphType: true });
      assert.equal(parsed.type, 'directed', `${format}: a directed graph`);
      return {
        nodes: sorted(parsed.mapNodes((id, attributes) => nodeLine(id, String(attributes.label ?? '')))),
        edges: sorted(
          parsed.mapEdges((_, attributes, source, target) => edgeLine(source, String(attributes.edge_type), target)),
        ),
      };
    }
    case 'dot': {
      const json = dotLayout(text);
      const names = json.objects.map((object) => dotDecoded(object.name));
      return {
        nodes: sorted(json.objects.map((object, index) => nodeLine(names[index]!, dotDrawn(object.label ?? '')))),
        edges: sorted(
          (json.edges ?? []).map((edge) => edgeLine(names[edge.tail]!, dotDecoded(edge.edge_type!), names[edge.head]!)),
        ),
      };
    }
    case 'mermaid': {
      assert.ok(tools.mermaid, 'readBack needs a Mermaid parser for mermaid');
      const parser = tools.mermaid;
      const { vertices, edges } = await parser.flowchart(text);
      const labels = new Map(vertices.map((vertex) => [vertex.id, parser.drawnLabel(vertex.text)]));
      return {
        nodes: sorted(vertices.map((vertex) => nodeLine('', labels.get(vertex.id)!))),
        edges: sorted(edges.map((edge) => edgeLine(labels.get(edge.start)!, edge.text, labels.get(edge.end)!))),
      };
    }
  }
}
