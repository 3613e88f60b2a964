/**
 * Exports people can paste, as the API sends them (issue 17, item 4): `GET /graphs/{id}/export` and
 * the traversal routes (`/query/upstream|downstream/{node_id}`) in every `format`, on a graph whose
 * name and node names hold everything the formats have syntax for (`./hostileGraph.ts`), each answer
 * read back by a parser of its format (`./readBack.ts`) with every node and edge, its media type and
 * file name; and a large export streamed, not sent as one body. A real API on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { syntheticGraph } from '../../bench/syntheticGraph.js';
import { EXPORT_FORMATS, EXPORT_MEDIA, type ExportFormat } from '../../src/export/index.js';
import { streamJobId, topicId } from '../../src/graph/ids.js';
import type { Edge, LineageGraph, Node } from '../../src/graph/model.js';
import { UNSAFE_ID_CHARACTERS } from '../../src/graph/validation.js';
import { call, startApi, type TestApi } from '../http/helpers.js';
import { HOSTILE_NAMES } from './hostileGraph.js';
import {
  dotDecoded,
  dotLayout,
  expectedReadBack,
  HAS_DOT,
  NO_DOT_NOTICE,
  openMermaidParser,
  readBack,
  type ExportedGraph,
  type MermaidParser,
} from './readBack.js';

/** A graph name with quotes, markup, entities, arrows, comments and a backslash (no control characters: names refuse them). */
const GRAPH_NAME = `he said "hi" <b>&amp;</b> --> %% {x} [y] \\ end`;

/** What an id may hold of a hostile name: the API refuses control and invisible characters in ids. */
const idPart = (name: string) => name.replace(new RegExp(UNSAFE_ID_CHARACTERS.source, 'gu'), '_');

/**
 * A graph the API accepts whose display names are the hostile names as they are (line breaks, bidi
 * controls and all) and whose ids hold them too, less what ids may not hold: topics and Flink jobs
 * in turn, chained topic -CONSUMES-> job -PRODUCES-> topic, and a TRANSFORMS edge beside the chain.
 */
function hostileApiGraph(): LineageGraph {
  const nodes: Node[] = HOSTILE_NAMES.map((name, index) => {
    const topic = index % 2 === 0;
    const id = topic ? topicId('env-1', 'lkc-1', idPart(name)) : streamJobId('env-1', idPart(name));
    return {
      id,
      node_type: topic ? 'TOPIC' : 'STREAM_JOB',
      system: 'STREAM',
      qualified_name: id.split(':').slice(3).join(':'),
      display_name: name,
      environment_id: 'env-1',
      cluster_id: topic ? 'lkc-1' : null,
      attributes: { note: name, index },
    };
  });
  const edges: Edge[] = nodes.slice(1).map((node, index) => ({
    src_id: nodes[index]!.id,
    dst_id: node.id,
    edge_type: index % 2 === 0 ? 'CONSUMES' : 'PRODUCES',
    attributes: { note: HOSTILE_NAMES[index]! },
  }));
  edges.push({ src_id: nodes[0]!.id, dst_id: nodes[2]!.id, edge_type: 'TRANSFORMS', attributes: null });
  return { nodes, edges };
}

describe('exports over HTTP, read back by a parser of each format', () => {
  const graph = hostileApiGraph();
  let api: TestApi;
  let graphPath: string;
  let mermaid: MermaidParser;
  before(async () => {
    if (!HAS_DOT) console.log(NO_DOT_NOTICE);
    mermaid = await openMermaidParser();
    api = await startApi({ backend: 'sqlite' });
    const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: GRAPH_NAME } });
    assert.equal(created.status, 201, created.text);
    graphPath = `/api/v1/graphs/${encodeURIComponent(created.body.graph_id as string)}`;
    const imported = await call(api.base, 'POST', `${graphPath}/import`, { json: graph });
    assert.equal(imported.status, 200, imported.text);
    assert.deepEqual([imported.body.node_count, imported.body.edge_count], [graph.nodes.length, graph.edges.length]);
  });
  after(async () => {
    mermaid?.close();
    await api?.dispose();
  });

  /** Fetches an export, checks its media type and file name, and answers its text. */
  async function fetchExport(path: string, format: ExportFormat, fileName: RegExp): Promise<string> {
    const answer = await call(api.base, 'GET', path);
    assert.equal(answer.status, 200, `${format}: ${answer.text}`);
    if (format === 'json') return answer.text;
    assert.equal(answer.type, EXPORT_MEDIA[format].contentType, format);
    const disposition = answer.headers.get('content-disposition') ?? '';
    const match = /^attachment; filename="([A-Za-z0-9._-]+)"$/.exec(disposition);
    assert.ok(match, `${format}: content-disposition ${disposition}`);
    assert.match(match[1]!, fileName, format);
    assert.ok(match[1]!.endsWith(`.${EXPORT_MEDIA[format].extension}`), `${format}: ${match[1]}`);
    return answer.text;
  }

  for (const format of EXPORT_FORMATS) {
    const skip = format === 'dot' && !HAS_DOT ? 'Graphviz dot is not installed' : false;

    it(`exports the whole graph as ${format}: every node and edge, the names escaped`, { skip }, async () => {
      const text = await fetchExport(`${graphPath}/export?format=${format}`, format, /^he-said-hi-b-amp-b-+x-y-end\./);
      assert.deepEqual(await readBack(format, text, { mermaid }), expectedReadBack(graph, format));
      if (format === 'dot') assert.equal(dotDecoded(dotLayout(text).name), GRAPH_NAME);
    });

    it(
      `exports a traversal (downstream and upstream) as ${format}: the origin and what it reaches`,
      { skip },
      async () => {
        for (const [direction, origin, hops] of [
          ['downstream', graph.nodes[0]!, 3],
          ['upstream', graph.nodes.at(-1)!, 4],
        ] as const) {
          const route = `${graphPath}/query/${direction}/${encodeURIComponent(origin.id)}?hops=${hops}`;
          const traversal = (await call(api.base, 'GET', route)).body as ExportedGraph;
          assert.equal(traversal.origin?.id, origin.id);
          assert.ok(traversal.nodes.length >= hops && traversal.nodes.length < graph.nodes.length - 1, direction);
          const text = await fetchExport(`${route}&format=${format}`, format, new RegExp(`-${direction}\\.`));
          assert.deepEqual(
            await readBack(format, text, { mermaid }),
            expectedReadBack(traversal, format),
            `${direction} of ${JSON.stringify(origin.display_name)}`,
          );
          if (format === 'dot') assert.equal(dotDecoded(dotLayout(text).name), `${origin.display_name} ${direction}`);
        }
      },
    );
  }

  it('answers 400 problem+json for an unknown format on either route, before any export', async () => {
    for (const path of [
      `${graphPath}/export?format=svg`,
      `${graphPath}/query/downstream/${encodeURIComponent(graph.nodes[0]!.id)}?format=png`,
    ]) {
      const answer = await call(api.base, 'GET', path);
      assert.equal(answer.status, 400, answer.text);
      assert.match(answer.type, /^application\/problem\+json/);
      assert.match(String(answer.body.detail), /format/);
    }
  });
});

describe('a large export over HTTP', () => {
  let api: TestApi;
  before(async () => {
    api = await startApi({ backend: 'memory' });
  });
  after(async () => api?.dispose());

  it('is streamed in chunks (no content-length) and reads back whole', async () => {
    const graph = syntheticGraph({ nodes: 3_000, edges: 9_000 });
    const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'large' } });
    const path = `/api/v1/graphs/${created.body.graph_id as string}`;
    const imported = await call(api.base, 'POST', `${path}/import`, { json: graph });
    assert.equal(imported.status, 200, imported.text);
    for (const format of ['graphml', 'gexf'] as const) {
      const response = await fetch(`${api.base}${path}/export?format=${format}`);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('transfer-encoding'), 'chunked', format);
      assert.equal(response.headers.get('content-length'), null, format);
      const parts: number[] = [];
      let text = '';
      const decoder = new TextDecoder();
      const reader = response.body!.getReader();
      for (let part = await reader.read(); !part.done; part = await reader.read()) {
        parts.push(part.value.length);
        text += decoder.decode(part.value, { stream: true });
      }
      assert.ok(parts.length > 1, `${format}: one part of ${parts[0]} bytes`);
      const read = await readBack(format, text + decoder.decode());
      assert.deepEqual([read.nodes.length, read.edges.length], [graph.nodes.length, graph.edges.length], format);
    }
  });
});
