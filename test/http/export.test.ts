/**
 * Exports people can paste, over HTTP: `GET /graphs/{id}/export?format=` and the traversal routes'
 * `?format=` stream GraphML, GEXF, DOT and Mermaid with a file name, and parse back with each
 * format's own reader keeping every node and edge (the formats themselves are tested in
 * test/export/formats.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MultiDirectedGraph } from 'graphology';
import * as gexf from 'graphology-gexf';
import * as graphml from 'graphology-graphml';
import { ids, sampleGraph } from '../helpers/sampleGraph.js';
import { call, startApi, type TestApi } from './helpers.js';

describe('graph exports over HTTP', () => {
  let api: TestApi;
  let graphId: string;
  const graph = sampleGraph();
  before(async () => {
    api = await startApi();
    const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'retail "orders" & co' } });
    graphId = created.body.graph_id;
    const imported = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import`, { json: graph });
    assert.equal(imported.status, 200, imported.text);
  });
  after(async () => api.dispose());

  it('exports the whole graph as GraphML and GEXF that parse back with every node and edge', async () => {
    for (const [format, parse] of [
      ['graphml', (xml: string) => graphml.parse(MultiDirectedGraph, xml)],
      ['gexf', (xml: string) => gexf.parse(MultiDirectedGraph, xml, { respectInputGraphType: true })],
    ] as const) {
      const answer = await call(api.base, 'GET', `/api/v1/graphs/${graphId}/export?format=${format}`);
      assert.equal(answer.status, 200, answer.text);
      assert.match(answer.type, /xml/);
      assert.match(
        answer.headers.get('content-disposition') ?? '',
        new RegExp(`attachment; filename="retail-orders-co\\.${format}"`),
      );
      const parsed = parse(answer.text);
      assert.deepEqual(parsed.nodes().sort(), graph.nodes.map((node) => node.id).sort(), format);
      assert.equal(parsed.size, graph.edges.length, format);
    }
  });

  it('exports DOT and Mermaid text, and a traversal in any format', async () => {
    const dot = await call(api.base, 'GET', `/api/v1/graphs/${graphId}/export?format=dot`);
    assert.equal(dot.status, 200);
    assert.match(dot.type, /^text\/vnd\.graphviz/);
    for (const node of graph.nodes) assert.ok(dot.text.includes(JSON.stringify(node.id)), node.id);

    const mermaid = await call(
      api.base,
      'GET',
      `/api/v1/graphs/${graphId}/query/downstream/${encodeURIComponent(ids.orders)}?hops=1&format=mermaid`,
    );
    assert.equal(mermaid.status, 200, mermaid.text);
    assert.match(mermaid.text, /^flowchart LR$/m);
    const json = await call(
      api.base,
      'GET',
      `/api/v1/graphs/${graphId}/query/downstream/${encodeURIComponent(ids.orders)}?hops=1`,
    );
    // The origin and every node reached, each drawn once.
    assert.equal((mermaid.text.match(/^\s+n\d+[[({>]/gm) ?? []).length, json.body.nodes.length + 1, mermaid.text);
  });

  it('answers 400 problem+json for an unknown format, and the JSON export is unchanged by default', async () => {
    const bad = await call(api.base, 'GET', `/api/v1/graphs/${graphId}/export?format=svg`);
    assert.equal(bad.status, 400);
    assert.match(bad.type, /application\/problem\+json/);
    assert.match(bad.body.detail, /format/);
    const json = await call(api.base, 'GET', `/api/v1/graphs/${graphId}/export`);
    assert.equal(json.status, 200);
    assert.equal(json.body.nodes.length, graph.nodes.length);
  });
});
