/**
 * `as_of` on Marquez's `GET /lineage` and `GET /column-lineage` (our extension; issue 25 item 2;
 * `services/marquezAsOf.ts`): a job and a dataset ingested after a point are absent from the lineage
 * as of that point (as an ISO time and as a store position), present without `as_of`; a node that did
 * not exist then is 404; a point asked again answers the same, and a point past the store's end
 * follows the events appended after (the folds kept per point); a malformed `as_of` is 400
 * problem+json. Real sockets, memory store.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { assertProblem, call, startApi, type TestApi } from '../http/helpers.js';

const NS = 'file://warehouse';
const producer = 'https://example.com/as-of-test';
const schema = (...names: string[]) => ({
  _producer: producer,
  _schemaURL: 'https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet',
  fields: names.map((name) => ({ name, type: 'string' })),
});
const runEvent = (runId: string, job: string, input: string, output: Record<string, unknown>) => ({
  eventType: 'COMPLETE',
  eventTime: new Date().toISOString(),
  producer,
  schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
  run: { runId },
  job: { namespace: NS, name: job },
  inputs: [{ namespace: NS, name: input }],
  outputs: [output],
});

const nodeIds = (body: { graph: Array<{ id: string }> }) => body.graph.map((node) => node.id).sort();

describe('Marquez lineage as_of', () => {
  let api: TestApi;
  let time: string;
  let position: number;

  before(async () => {
    api = await startApi();
    const first = runEvent('01940000-0000-7000-8000-0000000c0001', 'load_y', 'x', {
      namespace: NS,
      name: 'y',
      facets: { schema: schema('a') },
    });
    assert.equal((await call(api.base, 'POST', '/api/v1/lineage', { json: first })).status, 200);
    position = await api.runtime.store.headPosition();
    // Recorded times have millisecond precision: a point strictly between the two writes.
    await sleep(5);
    time = new Date().toISOString();
    await sleep(5);
    const second = runEvent('01940000-0000-7000-8000-0000000c0002', 'load_z', 'y', {
      namespace: NS,
      name: 'z',
      facets: {
        schema: schema('a2'),
        columnLineage: {
          _producer: producer,
          _schemaURL:
            'https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet',
          fields: { a2: { inputFields: [{ namespace: NS, name: 'y', field: 'a' }] } },
        },
      },
    });
    assert.equal((await call(api.base, 'POST', '/api/v1/lineage', { json: second })).status, 200);
  });
  after(async () => api?.dispose());

  it('lineage: the job and dataset added after the point are absent as of it, by time and by position', async () => {
    const now = await call(api.base, 'GET', `/api/v1/lineage?nodeId=dataset:${encodeURIComponent(NS)}:y&depth=5`);
    assert.equal(now.status, 200, now.text);
    assert.deepEqual(nodeIds(now.body), [
      `dataset:${NS}:x`,
      `dataset:${NS}:y`,
      `dataset:${NS}:z`,
      `job:${NS}:load_y`,
      `job:${NS}:load_z`,
    ]);
    for (const asOf of [time, String(position)]) {
      const then = await call(
        api.base,
        'GET',
        `/api/v1/lineage?nodeId=dataset:${encodeURIComponent(NS)}:y&depth=5&as_of=${encodeURIComponent(asOf)}`,
      );
      assert.equal(then.status, 200, then.text);
      assert.deepEqual(nodeIds(then.body), [`dataset:${NS}:x`, `dataset:${NS}:y`, `job:${NS}:load_y`], `as_of=${asOf}`);
    }
    const missing = await call(
      api.base,
      'GET',
      `/api/v1/lineage?nodeId=job:${encodeURIComponent(NS)}:load_z&as_of=${encodeURIComponent(time)}`,
    );
    assertProblem(missing, 404);
  });

  it('column lineage: the field derived after the point is absent as of it', async () => {
    const path = `/api/v1/column-lineage?nodeId=datasetField:${encodeURIComponent(NS)}:y:a&depth=5&withDownstream=true`;
    const now = await call(api.base, 'GET', path);
    assert.equal(now.status, 200, now.text);
    assert.ok(nodeIds(now.body).includes(`datasetField:${NS}:z:a2`), now.text);
    const then = await call(api.base, 'GET', `${path}&as_of=${encodeURIComponent(time)}`);
    assert.equal(then.status, 200, then.text);
    assert.ok(!nodeIds(then.body).includes(`datasetField:${NS}:z:a2`), then.text);
    const gone = await call(
      api.base,
      'GET',
      `/api/v1/column-lineage?nodeId=dataset:${encodeURIComponent(NS)}:z&as_of=${encodeURIComponent(time)}`,
    );
    assertProblem(gone, 404);
  });

  it('a point asked again answers the same; a point past the store and the live lineage follow what is appended after', async () => {
    const lineageAt = async (asOf: string) => {
      const answer = await call(
        api.base,
        'GET',
        `/api/v1/lineage?nodeId=dataset:${encodeURIComponent(NS)}:y&depth=5&as_of=${encodeURIComponent(asOf)}`,
      );
      assert.equal(answer.status, 200, answer.text);
      return nodeIds(answer.body);
    };
    const past = await lineageAt(String(position));
    assert.deepEqual(await lineageAt(String(position)), past, 'the kept point answers as the first fold did');
    const future = new Date(Date.now() + 3_600_000).toISOString();
    assert.ok(!(await lineageAt(future)).includes(`job:${NS}:read_y`));
    const live = async () => {
      const answer = await call(api.base, 'GET', `/api/v1/lineage?nodeId=dataset:${encodeURIComponent(NS)}:y&depth=5`);
      assert.equal(answer.status, 200, answer.text);
      return nodeIds(answer.body);
    };
    assert.ok(!(await live()).includes(`job:${NS}:read_y`));
    const third = runEvent('01940000-0000-7000-8000-0000000c0003', 'read_y', 'y', { namespace: NS, name: 'w' });
    assert.equal((await call(api.base, 'POST', '/api/v1/lineage', { json: third })).status, 200);
    assert.ok((await lineageAt(future)).includes(`job:${NS}:read_y`), 'the event appended since is folded');
    assert.ok((await live()).includes(`job:${NS}:read_y`), 'the live lineage index moved on with the store');
    assert.deepEqual(await lineageAt(String(position)), past, 'a past point is unchanged by later events');
  });

  it('a malformed as_of is 400 problem+json, and the store is unchanged', async () => {
    const head = await api.runtime.store.headPosition();
    for (const bad of ['yesterday', '-3', '2026-13-45T00:00:00Z']) {
      const answer = await call(
        api.base,
        'GET',
        `/api/v1/lineage?nodeId=dataset:${encodeURIComponent(NS)}:y&as_of=${encodeURIComponent(bad)}`,
      );
      assertProblem(answer, 400, /as_of/);
    }
    assert.equal(await api.runtime.store.headPosition(), head);
  });
});
