/**
 * The Marquez lineage index (`services/marquezLineageIndex.ts`; issue 25 item 4): one index per store
 * position, reused while the store does not move and replaced once it does; a walk refused with
 * ValidationError (a 400 on the route) as soon as it passes `maxNodes`; the answer's JSON parses to
 * the graph the route answers; each edge written as the ids it joins, whether copied from the edges
 * the index keeps or written from the ids (the origin asked by another key of its class, an index
 * past its edge cap), with the answer's plan reused from answer to answer. Real sockets, memory store.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ValidationError } from '../../src/errors.js';
import { streams, toAppend } from '../../src/events.js';
import { datasetKey } from '../../src/openlineage/identity.js';
import { MarquezLineageIndex, marquezLineageIndex } from '../../services/marquezLineageIndex.js';
import { call, startApi, type TestApi } from '../http/helpers.js';

const NS = 'file://lineage-index';
const runEvent = (index: number) => ({
  eventType: 'COMPLETE',
  eventTime: new Date().toISOString(),
  producer: 'https://example.com/lineage-index-test',
  schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
  run: { runId: `01940000-0000-7000-8000-0000000d000${index}` },
  job: { namespace: NS, name: `step_${index}` },
  inputs: [{ namespace: NS, name: `table_${index}` }],
  outputs: [{ namespace: NS, name: `table_${index + 1}` }],
});

/** A node of a Marquez lineage answer, as the tests read it. */
interface AnswerNode {
  id: string;
  type: string;
  data: { inputs?: Array<{ namespace: string; name: string }>; outputs?: Array<{ namespace: string; name: string }> };
  inEdges: Array<{ origin: string; destination: string }>;
  outEdges: Array<{ origin: string; destination: string }>;
}

describe('Marquez lineage index', () => {
  let api: TestApi;
  before(async () => {
    api = await startApi();
    for (const index of [0, 1, 2])
      assert.equal((await call(api.base, 'POST', '/api/v1/lineage', { json: runEvent(index) })).status, 200);
  });
  after(async () => api?.dispose());

  it('is reused while the store stays, replaced once it moves', async () => {
    const runtime = api.runtime;
    const first = marquezLineageIndex(runtime);
    assert.equal(marquezLineageIndex(runtime), first);
    assert.equal((await call(api.base, 'POST', '/api/v1/lineage', { json: runEvent(3) })).status, 200);
    const second = marquezLineageIndex(runtime);
    assert.notEqual(second, first);
    assert.ok(second.position > first.position);
  });

  it('is kept when the store moves by an event the lineage does not read (a process lease renewal)', async () => {
    const runtime = api.runtime;
    const before = marquezLineageIndex(runtime);
    const context = {
      correlation_id: 'lineage-index-test',
      cause: 'system' as const,
      actor: 'process:lineage-index-test',
    };
    const appended = await runtime.store.append(
      streams.process('lineage-index-test'),
      toAppend(
        [
          {
            type: 'ProcessLeaseRenewed',
            data: { process_id: 'lineage-index-test', expires_at: new Date(Date.now() + 30_000).toISOString() },
          },
        ],
        context,
      ),
    );
    await runtime.projector.waitFor(appended.position);
    assert.equal(runtime.openLineage.state.position, appended.position, 'the store moved');
    assert.equal(marquezLineageIndex(runtime), before);
  });

  it('refuses a walk over maxNodes, and answers the JSON the route sends', async () => {
    const index = marquezLineageIndex(api.runtime);
    const key = datasetKey(NS, 'table_2');
    const origin = { dataset: index.datasetNumber(key), key };
    assert.throws(() => index.walk(origin, 20, 3), ValidationError);
    // 9 nodes: refused at 8 as soon as the ninth is reached (the last hop's dataset), answered at 9.
    assert.throws(() => index.walk(origin, 20, 8), ValidationError);
    const { bytes, nodeCount } = index.answer(index.walk(origin, 20, 9));
    const json = bytes.bytes.toString('utf8');
    bytes.release();
    const ids = (JSON.parse(json) as { graph: Array<{ id: string }> }).graph.map((node) => node.id).sort();
    assert.equal(nodeCount, ids.length);
    assert.deepEqual(ids, [
      ...[0, 1, 2, 3, 4].map((at) => `dataset:${NS}:table_${at}`),
      ...[0, 1, 2, 3].map((at) => `job:${NS}:step_${at}`),
    ]);
    const answer = await call(api.base, 'GET', `/api/v1/lineage?nodeId=dataset:${encodeURIComponent(NS)}:table_2`);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.text, json, 'the route sends the index answer as it is');
  });

  it('writes each edge as the ids it joins, cached or not, and reuses its plan across answers', async () => {
    // load: source -> table_a (also known as alias:table_a_alias, a symlink); use: alias -> report.
    const edgesNs = 'file://lineage-edges';
    const aliasNs = 'file://lineage-edges-alias';
    const edgeEvent = (job: string, runId: string, inputs: object[], outputs: object[]) => ({
      ...runEvent(0),
      run: { runId },
      job: { namespace: edgesNs, name: job },
      inputs,
      outputs,
    });
    const symlinked = {
      namespace: edgesNs,
      name: 'table_a',
      facets: {
        symlinks: {
          _producer: 'https://example.com/lineage-index-test',
          _schemaURL: 'https://openlineage.io/spec/facets/1-0-1/SymlinksDatasetFacet.json',
          identifiers: [{ namespace: aliasNs, name: 'table_a_alias', type: 'TABLE' }],
        },
      },
    };
    for (const event of [
      edgeEvent('load', '01940000-0000-7000-8000-0000000e0001', [{ namespace: edgesNs, name: 'source' }], [symlinked]),
      edgeEvent(
        'use',
        '01940000-0000-7000-8000-0000000e0002',
        [{ namespace: aliasNs, name: 'table_a_alias' }],
        [{ namespace: edgesNs, name: 'report' }],
      ),
    ])
      assert.equal((await call(api.base, 'POST', '/api/v1/lineage', { json: event })).status, 200);
    const runtime = api.runtime;
    const cached = marquezLineageIndex(runtime);
    const uncached = new MarquezLineageIndex(runtime, { maxCachedEdgeBytes: 0 });
    const answerOf = (index: MarquezLineageIndex, key: string, depth: number) => {
      const origin = { dataset: index.datasetNumber(key), key };
      const { bytes } = index.answer(index.walk(origin, depth, 100));
      const text = bytes.bytes.toString('utf8');
      bytes.release();
      return text;
    };
    const keys = [datasetKey(edgesNs, 'table_a'), datasetKey(aliasNs, 'table_a_alias')];
    for (const key of keys) {
      const asked = `dataset:${key.replace('\u0000', ':')}`;
      const text = answerOf(cached, key, 20);
      assert.equal(answerOf(uncached, key, 20), text, `${key}: edges copied or written from the ids, the same bytes`);
      assert.equal(JSON.stringify(JSON.parse(text)), text, 'JSON as JSON.stringify writes it');
      const graph = (JSON.parse(text) as { graph: AnswerNode[] }).graph;
      const ids = graph.map((node) => node.id);
      assert.ok(ids.includes(asked), `the origin is shown under the key it was asked by: ${ids.join(', ')}`);
      assert.equal(graph.length, 5, ids.join(', '));
      const inEdges: string[] = [];
      const outEdges: string[] = [];
      for (const node of graph) {
        for (const edge of node.inEdges) {
          assert.equal(edge.destination, node.id);
          inEdges.push(`${edge.origin} ${edge.destination}`);
        }
        for (const edge of node.outEdges) {
          assert.equal(edge.origin, node.id);
          outEdges.push(`${edge.origin} ${edge.destination}`);
        }
        if (node.type !== 'JOB') continue;
        // A job's edges join it to the datasets its data lists, under the ids shown.
        const refs = (list: Array<{ namespace: string; name: string }> | undefined) =>
          (list ?? []).map((ref) => `dataset:${ref.namespace}:${ref.name}`);
        assert.deepEqual(
          node.inEdges.map((edge) => edge.origin),
          refs(node.data.inputs),
        );
        assert.deepEqual(
          node.outEdges.map((edge) => edge.destination),
          refs(node.data.outputs),
        );
      }
      assert.deepEqual(inEdges.sort(), outEdges.sort(), 'each edge on both of its nodes');
      assert.ok(
        inEdges.every((edge) => edge.split(' ').every((id) => ids.includes(id))),
        'edges join nodes answered',
      );
    }
    // A smaller answer after a larger one, from the same plan: the bytes of a fresh index.
    const small = answerOf(cached, keys[0]!, 0);
    assert.equal(small, answerOf(new MarquezLineageIndex(runtime), keys[0]!, 0));
    assert.equal(JSON.parse(small).graph.length, 1);
  });
});
