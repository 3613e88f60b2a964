/**
 * The Marquez lineage index (`services/marquezLineageIndex.ts`; issue 25 item 4): one index per store
 * position, reused while the store does not move and replaced once it does; a walk refused with
 * LineageTooLargeError (a 400 on the route) as soon as it passes `maxNodes`, naming the deepest depth
 * that fits; the answer's JSON parses to the graph the route answers; each edge written as the ids it
 * joins, whether copied from the edges the index keeps or written from the ids (the origin asked by
 * another key of its class, an index past its edge cap), with the answer's plan reused from answer to
 * answer; the route's limit set by `LINEAGE_SVC_MARQUEZ_MAX_LINEAGE_NODES`. Real sockets, memory store.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ValidationError } from '../../src/errors.js';
import { streams, toAppend } from '../../src/events.js';
import { datasetKey } from '../../src/openlineage/identity.js';
import { LineageTooLargeError, MarquezLineageIndex, marquezLineageIndex } from '../../services/marquezLineageIndex.js';
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
    // table_0 -> step_0 -> table_1 -> step_1 -> table_2 -> step_2 -> table_3 -> step_3 -> table_4: from
    // table_2, depth 0 holds 1 node, depth 1 holds 5, depth 2 all 9.
    const refusal = (maxNodes: number) => {
      try {
        index.walk(origin, 20, maxNodes);
      } catch (error) {
        assert.ok(error instanceof LineageTooLargeError, String(error));
        assert.ok(error instanceof ValidationError, 'a 400 on the route');
        return error;
      }
      return assert.fail(`a walk over ${maxNodes} nodes was answered`);
    };
    assert.deepEqual(refusal(3).fits, { depth: 0, nodes: 1 });
    // Refused at 8 as soon as the ninth is reached, answered at 9.
    const refused = refusal(8);
    assert.deepEqual(refused.fits, { depth: 1, nodes: 5 });
    assert.match(refused.message, /more than 8 datasets and jobs.*depth 1 holds 5: ask for depth=1 or less/);
    assert.deepEqual(refused.issues, [
      { path: 'querystring.depth', message: 'at most 1 (more than 8 nodes within 20)' },
    ]);
    // The depth it names fits, and the next does not.
    const fitting = index.walk(origin, 1, 8);
    assert.equal(fitting.datasets.length + fitting.jobs.length, 5);
    assert.deepEqual(
      (() => {
        try {
          index.walk(origin, 2, 8);
          return null;
        } catch (error) {
          return (error as LineageTooLargeError).fits;
        }
      })(),
      { depth: 1, nodes: 5 },
    );
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

  it('names the deepest depth that fits from a job too, where depths 0 and 1 are one walk', () => {
    const index = marquezLineageIndex(api.runtime);
    const origin = { job: index.jobNumber(datasetKey(NS, 'step_1')) };
    const fits = (maxNodes: number) => {
      try {
        index.walk(origin, 20, maxNodes);
        return 'answered';
      } catch (error) {
        assert.ok(error instanceof LineageTooLargeError, String(error));
        return error.fits;
      }
    };
    // step_1 with its input table_1 and output table_2 (3 nodes) is depth 0 and 1 alike.
    assert.equal(fits(2), null);
    assert.deepEqual(fits(3), { depth: 1, nodes: 3 });
    assert.deepEqual(fits(4), { depth: 1, nodes: 3 });
    assert.equal(fits(9), 'answered');
    assert.throws(
      () => index.walk(origin, 0, 2),
      /even the smallest depth does \(the job with its inputs and outputs\)/,
    );
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

describe('LINEAGE_SVC_MARQUEZ_MAX_LINEAGE_NODES', () => {
  const lineage = (api: TestApi) =>
    call(api.base, 'GET', `/api/v1/lineage?nodeId=dataset:${encodeURIComponent(NS)}:table_1&depth=20`);
  const serve = async (limit: string) => {
    const api = await startApi({ env: { LINEAGE_SVC_MARQUEZ_MAX_LINEAGE_NODES: limit } });
    for (const index of [0, 1, 2])
      assert.equal((await call(api.base, 'POST', '/api/v1/lineage', { json: runEvent(index) })).status, 200);
    return api;
  };

  it('refuses a larger walk with 400 naming the depth that fits, and answers every walk at 0', async () => {
    // table_0 -> step_0 -> table_1 -> step_1 -> table_2 -> step_2 -> table_3: 7 nodes from table_1 at
    // depth 2, 5 at depth 1.
    const limited = await serve('6');
    try {
      const refused = await lineage(limited);
      assert.equal(refused.status, 400, refused.text);
      const problem = JSON.parse(refused.text) as { detail: string; errors: Array<{ path: string }> };
      assert.match(problem.detail, /more than 6 datasets and jobs.*ask for depth=1 or less/);
      assert.equal(problem.errors[0]?.path, 'querystring.depth');
      const fitting = await call(
        limited.base,
        'GET',
        `/api/v1/lineage?nodeId=dataset:${encodeURIComponent(NS)}:table_1&depth=1`,
      );
      assert.equal(fitting.status, 200, fitting.text);
      assert.equal((JSON.parse(fitting.text) as { graph: unknown[] }).graph.length, 5);
    } finally {
      await limited.dispose();
    }
    const unlimited = await serve('0');
    try {
      const answered = await lineage(unlimited);
      assert.equal(answered.status, 200, answered.text);
      assert.equal((JSON.parse(answered.text) as { graph: unknown[] }).graph.length, 7);
    } finally {
      await unlimited.dispose();
    }
  });

  it('is a count', async () => {
    await assert.rejects(
      () => startApi({ env: { LINEAGE_SVC_MARQUEZ_MAX_LINEAGE_NODES: 'many' } }),
      /LINEAGE_SVC_MARQUEZ_MAX_LINEAGE_NODES/,
    );
  });
});
