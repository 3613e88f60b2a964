/**
 * The Marquez lineage index (`services/marquezLineageIndex.ts`; issue 25 item 4): one index per store
 * position, reused while the store does not move and replaced once it does; a walk refused with
 * ValidationError (a 400 on the route) as soon as it passes `maxNodes`; the answer's JSON parses to
 * the graph the route answers. Real sockets, memory store.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ValidationError } from '../../src/errors.js';
import { streams, toAppend } from '../../src/events.js';
import { datasetKey } from '../../src/openlineage/identity.js';
import { marquezLineageIndex } from '../../services/marquezLineageIndex.js';
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
});
