/**
 * The OpenLineage endpoints over a real socket, on the memory and sqlite stores, with authentication
 * on: ingestion on `POST /lineage` and `POST /lineage/events` (single, array, gzip, deflate, corrupt
 * gzip, zip bomb, duplicates, lenient warnings, strict rejections), every `/lineage/...` query with
 * its filters, paging, 404s and 400s, the two graph views (they store nothing), a RunEvent reading
 * one of our topics joining the extracted graph's jobs with no view called (and following the graph's
 * changes), and a Spark-like `kafka://` event joining the topics of an extraction of the demo simulator.
 */
import assert from 'node:assert/strict';
import { deflateSync, gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import { extract } from '../../src/extraction/extract.js';
import { silentLogger } from '../../src/logger.js';
import { CLUSTER, ENV, ids, sampleGraph } from '../helpers/sampleGraph.js';
import { DEV, PROD, fastApi } from '../extraction/helpers.js';
import { BACKENDS, assertProblem, call, startApi, type Answer, type TestApi } from './helpers.js';

const KEY = 'ol-test-key-9d8c7b6a';
const AUTH = { 'x-api-key': KEY };
const NS = `stream://${ENV}/${CLUSTER}`;
/** The Flink statement enrich-orders has no cluster of its own: its job is in its compute pool's namespace. */
const STATEMENT_NS = `stream://${ENV}/lfcp-1`;
const PRODUCER = 'https://github.com/OpenLineage/OpenLineage/tree/1.20.0/integration/spark';
const SCHEMA_URL = 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent';

/** A clean RunEvent of job `{namespace}/{job}` reading `inputs` and writing `outputs`. */
function runEvent(options: {
  job: string;
  namespace?: string;
  runId?: string;
  eventType?: string;
  eventTime?: string;
  inputs?: Array<{ namespace: string; name: string }>;
  outputs?: Array<{ namespace: string; name: string }>;
}): Record<string, unknown> {
  return {
    eventType: options.eventType ?? 'COMPLETE',
    eventTime: options.eventTime ?? '2026-02-01T10:00:00.000Z',
    producer: PRODUCER,
    schemaURL: SCHEMA_URL,
    run: { runId: options.runId ?? '01940000-0000-7000-8000-000000000001' },
    job: { namespace: options.namespace ?? 'spark', name: options.job },
    inputs: options.inputs ?? [],
    outputs: options.outputs ?? [],
  };
}

const runIdOf = (n: number) => `01940000-0000-7000-8000-${String(n).padStart(12, '0')}`;

/** Posts raw bytes (compressed bodies). */
async function postBytes(base: string, path: string, bytes: Buffer, headers: Record<string, string>): Promise<Answer> {
  const response = await fetch(`${base}/api/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...AUTH, ...headers },
    body: new Uint8Array(bytes),
  });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  return {
    status: response.status,
    type,
    body: type.includes('json') && text !== '' ? JSON.parse(text) : text,
    text,
    headers: response.headers,
  };
}

for (const backend of BACKENDS) {
  describe(`OpenLineage endpoints (${backend} store, authentication on)`, () => {
    let api: TestApi;
    let graphId: string;
    const get = (path: string) => call(api.base, 'GET', `/api/v1${path}`, { headers: AUTH });
    const post = (path: string, json: unknown) => call(api.base, 'POST', `/api/v1${path}`, { json, headers: AUTH });

    before(async () => {
      api = await startApi({ backend, env: { LINEAGE_SVC_API_KEY: KEY } });
    });
    after(async () => api.dispose());

    it('asks for the API key on every lineage route and view', async () => {
      assertProblem(
        await call(api.base, 'POST', '/api/v1/lineage', { json: runEvent({ job: 'x' }) }),
        403,
        'API key is missing',
      );
      assertProblem(await call(api.base, 'GET', '/api/v1/lineage/events'), 403, 'API key is missing');
      assertProblem(
        await call(api.base, 'GET', '/api/v1/graphs/confluent/view', { headers: { 'x-api-key': 'wrong' } }),
        403,
        'API key is invalid',
      );
      assertProblem(await get('/graphs/confluent/view'), 404, /no graph yet/);
    });

    it('POST /lineage takes one event and an array; POST /lineage/events takes an array and one event', async () => {
      const single = await post('/lineage', runEvent({ job: 'single', runId: runIdOf(1) }));
      assert.equal(single.status, 200, single.text);
      assert.deepEqual([single.body.accepted, single.body.duplicates, single.body.rejected], [1, 0, 0]);
      assert.equal(single.body.results[0].status, 'accepted');
      assert.equal(single.body.results[0].run_id, runIdOf(1));
      assert.match(single.body.results[0].dedupe_key, /^[0-9a-f]{64}$/);

      const array = await post('/lineage', [
        runEvent({ job: 'array-a', runId: runIdOf(2) }),
        runEvent({ job: 'array-b', runId: runIdOf(3) }),
      ]);
      assert.equal(array.status, 200);
      assert.deepEqual(
        array.body.results.map((result: { index: number; status: string }) => `${result.index}:${result.status}`),
        ['0:accepted', '1:accepted'],
      );

      const events = await post('/lineage/events', [runEvent({ job: 'batch', runId: runIdOf(4) })]);
      assert.equal(events.body.accepted, 1);
      const one = await post('/lineage/events', runEvent({ job: 'batch-single', runId: runIdOf(5) }));
      assert.equal(one.body.accepted, 1);

      const stored = await get('/lineage/events?limit=1000');
      assert.deepEqual(
        stored.body.events.map((event: { job: { name: string } }) => event.job.name).sort(),
        ['array-a', 'array-b', 'batch', 'batch-single', 'single'],
        'reads see the writes at once',
      );
    });

    it('accepts gzip and deflate bodies; a corrupt one is a 400, another encoding a 415, a zip bomb a 413', async () => {
      const gz = await postBytes(
        api.base,
        '/lineage',
        gzipSync(JSON.stringify([runEvent({ job: 'gzipped', runId: runIdOf(10) })])),
        { 'content-encoding': 'gzip' },
      );
      assert.equal(gz.status, 200, gz.text);
      assert.equal(gz.body.accepted, 1);
      const deflated = await postBytes(
        api.base,
        '/lineage/events',
        deflateSync(JSON.stringify(runEvent({ job: 'deflated', runId: runIdOf(11) }))),
        { 'content-encoding': 'deflate' },
      );
      assert.equal(deflated.body.accepted, 1);
      assert.equal((await get(`/lineage/events?job=gzipped`)).body.total, 1);

      const corrupt = await postBytes(api.base, '/lineage', Buffer.from('this is not gzip at all'), {
        'content-encoding': 'gzip',
      });
      assertProblem(corrupt, 400, /could not be decompressed/);
      const truncated = gzipSync(JSON.stringify(runEvent({ job: 'cut' }))).subarray(0, 20);
      assertProblem(await postBytes(api.base, '/lineage', truncated, { 'content-encoding': 'gzip' }), 400);
      assertProblem(
        await postBytes(api.base, '/lineage', Buffer.from('{}'), { 'content-encoding': 'br' }),
        415,
        /not supported/,
      );

      const bomb = gzipSync(Buffer.concat([Buffer.from('['), Buffer.alloc(11 * 1024 * 1024, 0x20), Buffer.from(']')]));
      assert.ok(bomb.length < 100_000, 'the compressed body is small');
      assertProblem(await postBytes(api.base, '/lineage', bomb, { 'content-encoding': 'gzip' }), 413);
      // The server still answers.
      assert.equal((await get('/lineage/jobs')).status, 200);
    });

    it('reports a redelivered event as duplicate and stores it once', async () => {
      const event = runEvent({ job: 'redelivered', runId: runIdOf(20) });
      assert.equal((await post('/lineage', event)).body.results[0].status, 'accepted');
      const again = await post('/lineage', event);
      assert.equal(again.status, 200);
      assert.deepEqual([again.body.accepted, again.body.duplicates], [0, 1]);
      assert.equal(again.body.results[0].status, 'duplicate');
      const batch = await post('/lineage/events', [
        event,
        runEvent({ job: 'redelivered', runId: runIdOf(20), eventType: 'START' }),
      ]);
      assert.deepEqual(
        batch.body.results.map((result: { status: string }) => result.status),
        ['duplicate', 'accepted'],
      );
      assert.equal((await get(`/lineage/events?run_id=${runIdOf(20)}`)).body.total, 2);
    });

    it('returns the warnings of lenient ingestion, keeps a non-UUID runId findable, and answers strict rejections as problem+json', async () => {
      const lenient = {
        ...runEvent({ job: 'dbt-model', namespace: 'dbt', runId: 'dbt-run-42' }),
        eventTime: '2026-02-02T08:00:00',
      } as Record<string, unknown>;
      delete lenient.schemaURL;
      const answer = await post('/lineage', lenient);
      assert.equal(answer.status, 200);
      const warnings: string[] = answer.body.results[0].warnings;
      assert.ok(
        warnings.some((warning) => /no timezone; UTC assumed/.test(warning)),
        warnings.join('|'),
      );
      assert.ok(warnings.some((warning) => /schemaURL is missing/.test(warning)));
      assert.ok(warnings.some((warning) => /is not a UUID/.test(warning)));
      const runUuid: string = answer.body.results[0].run_uuid;
      for (const id of ['dbt-run-42', runUuid]) {
        const run = await get(`/lineage/events/${encodeURIComponent(id)}`);
        assert.equal(run.status, 200);
        assert.equal(run.body.events.length, 1);
        assert.equal(run.body.events[0].eventTime, '2026-02-02T08:00:00Z');
        assert.equal((await get(`/lineage/events?run_id=${encodeURIComponent(id)}`)).body.total, 1);
      }

      const noName = runEvent({ job: '' });
      const rejected = assertProblem(await post('/lineage', noName), 400, /rejected/);
      assert.ok((rejected.errors as Array<{ path: string }>).some((issue) => issue.path.startsWith('[0]')));
      const allBad = assertProblem(
        await post('/lineage/events', [noName, { ...runEvent({ job: 'x' }), eventType: 'EXPLODED' }]),
        400,
        /all 2 events were rejected/,
      );
      assert.ok((allBad.errors as Array<{ path: string }>).some((issue) => issue.path.startsWith('[1]')));
      const mixed = await post('/lineage/events', [noName, runEvent({ job: 'mixed-good', runId: runIdOf(30) })]);
      assert.equal(mixed.status, 200);
      assert.deepEqual([mixed.body.accepted, mixed.body.rejected], [1, 1]);
      assert.ok(mixed.body.results[0].errors.length > 0);
      assertProblem(await post('/lineage/events', []), 400, /no event/);
      assertProblem(await post('/lineage', 'a string'), 400);
      assertProblem(
        await call(api.base, 'POST', '/api/v1/lineage', {
          body: '{"broken',
          headers: { ...AUTH, 'content-type': 'application/json' },
        }),
        400,
      );
      assertProblem(
        await call(api.base, 'POST', '/api/v1/lineage', {
          body: '<xml/>',
          headers: { ...AUTH, 'content-type': 'application/xml' },
        }),
        415,
      );
    });

    it('GET /lineage/events filters by namespace, job, run_id, event_type, since and until, ordered by eventTime, with limit, offset and total', async () => {
      const events = [
        runEvent({
          namespace: 'q-ns',
          job: 'q-a',
          runId: runIdOf(101),
          eventType: 'START',
          eventTime: '2026-03-01T00:00:03Z',
        }),
        runEvent({
          namespace: 'q-ns',
          job: 'q-a',
          runId: runIdOf(101),
          eventType: 'COMPLETE',
          eventTime: '2026-03-01T00:00:04Z',
        }),
        runEvent({
          namespace: 'q-ns',
          job: 'q-b',
          runId: runIdOf(102),
          eventType: 'FAIL',
          eventTime: '2026-03-01T00:00:01Z',
        }),
        runEvent({
          namespace: 'q-other',
          job: 'q-a',
          runId: runIdOf(103),
          eventType: 'COMPLETE',
          eventTime: '2026-03-01T00:00:02Z',
        }),
      ];
      assert.equal((await post('/lineage/events', events)).body.accepted, 4);
      const times = (answer: Answer) =>
        answer.body.events.map((event: { eventTime: string }) => event.eventTime.slice(17, 19));
      const ns = await get('/lineage/events?namespace=q-ns');
      assert.deepEqual([ns.body.total, ...times(ns)], [3, '01', '03', '04'], 'ordered by eventTime');
      assert.deepEqual(times(await get('/lineage/events?job=q-a')), ['02', '03', '04']);
      assert.deepEqual(times(await get('/lineage/events?namespace=q-ns&job=q-a')), ['03', '04']);
      assert.deepEqual(times(await get(`/lineage/events?run_id=${runIdOf(101)}`)), ['03', '04']);
      assert.deepEqual(times(await get('/lineage/events?job=q-a&event_type=complete')), ['02', '04']);
      assert.deepEqual(
        times(await get('/lineage/events?since=2026-03-01T00:00:02Z&until=2026-03-01T00:00:03Z')),
        ['02', '03'],
        'bounds are inclusive',
      );
      const page = await get('/lineage/events?namespace=q-ns&limit=2&offset=1');
      assert.deepEqual([page.body.total, page.body.limit, page.body.offset, ...times(page)], [3, 2, 1, '03', '04']);
      assert.deepEqual((await get('/lineage/events?namespace=q-ns&offset=10')).body.events, []);
      assert.deepEqual((await get('/lineage/events?namespace=nobody')).body, {
        events: [],
        total: 0,
        limit: 100,
        offset: 0,
      });

      const run = await get(`/lineage/events/${runIdOf(101)}`);
      assert.deepEqual(
        run.body.events.map((event: { eventType: string }) => event.eventType),
        ['START', 'COMPLETE'],
      );

      assertProblem(await get('/lineage/events?event_type=EXPLODED'), 400);
      assert.deepEqual(
        times(await get('/lineage/events?since=2026-03-01T00:00:02&until=2026-03-01T00:00:03')),
        ['02', '03'],
        'a bound without a timezone is UTC, as an eventTime without one is',
      );
      const since = assertProblem(await get('/lineage/events?since=yesterday'), 400, /since/);
      assert.match(String(since.detail), /querystring\.since: must be an ISO 8601 date-time, got "yesterday"/);
      assertProblem(await get('/lineage/events?until=2026-13-45'), 400, /until/);
      assertProblem(await get('/lineage/events?limit=0'), 400);
      assertProblem(await get('/lineage/events?limit=1001'), 400);
      assertProblem(await get('/lineage/events?offset=-1'), 400);
      assertProblem(await get(`/lineage/events/${runIdOf(999)}`), 404, /not known/);
    });

    /** raw -> j1 -> mid -> j2 -> out -> j3 -> final, in namespace `chain`. */
    const chain = () => [
      runEvent({
        namespace: 'chain',
        job: 'j1',
        runId: runIdOf(201),
        inputs: [{ namespace: 'pg://db', name: 'raw' }],
        outputs: [{ namespace: 's3://lake', name: 'mid' }],
      }),
      runEvent({
        namespace: 'chain',
        job: 'j2',
        runId: runIdOf(202),
        inputs: [{ namespace: 's3://lake', name: 'mid' }],
        outputs: [{ namespace: 's3://lake', name: 'out' }],
      }),
      runEvent({
        namespace: 'chain',
        job: 'j3',
        runId: runIdOf(203),
        inputs: [{ namespace: 's3://lake', name: 'out' }],
        outputs: [{ namespace: 's3://lake', name: 'final' }],
      }),
    ];

    it('lists datasets and jobs and gives their details', async () => {
      assert.equal((await post('/lineage/events', chain())).body.accepted, 3);

      const lake = await get(`/lineage/datasets?namespace=${encodeURIComponent('s3://lake')}`);
      assert.deepEqual(
        lake.body.datasets.map((dataset: { name: string }) => dataset.name),
        ['final', 'mid', 'out'],
      );
      assert.equal(lake.body.total, 3);
      assert.ok((await get('/lineage/datasets')).body.total >= 4);
      const mid = await get(`/lineage/datasets/detail?namespace=${encodeURIComponent('s3://lake')}&name=mid`);
      assert.deepEqual(mid.body.produced_by, [{ namespace: 'chain', name: 'j1' }]);
      assert.deepEqual(mid.body.consumed_by, [{ namespace: 'chain', name: 'j2' }]);
      assertProblem(
        await get(`/lineage/datasets/detail?namespace=${encodeURIComponent('s3://lake')}&name=nothing`),
        404,
        /not known/,
      );
      assertProblem(await get('/lineage/datasets/detail?namespace=x'), 400);

      const jobs = await get('/lineage/jobs?namespace=chain');
      assert.deepEqual(
        jobs.body.jobs.map((job: { name: string }) => job.name),
        ['j1', 'j2', 'j3'],
      );
      assert.equal(jobs.body.jobs[0].latest_run_id, runIdOf(201));
      const j2 = await get('/lineage/jobs/detail?namespace=chain&name=j2');
      assert.deepEqual(
        j2.body.latest_inputs.map((dataset: { name: string }) => dataset.name),
        ['mid'],
      );
      assert.deepEqual(
        j2.body.latest_outputs.map((dataset: { name: string }) => dataset.name),
        ['out'],
      );
      assert.equal(j2.body.latest_run.run_id, runIdOf(202));
      assertProblem(await get('/lineage/jobs/detail?namespace=chain&name=j9'), 404, /not known/);
    });

    it('walks dataset lineage by dataset hops, upstream, downstream or both, with 400s and 404s', async () => {
      const stored = (await post('/lineage/events', chain())).body;
      assert.equal(stored.accepted + stored.duplicates, 3);
      const lineage = (query: string) =>
        get(`/lineage/datasets/lineage?namespace=${encodeURIComponent('s3://lake')}&${query}`);
      const jobNames = (answer: Answer) =>
        answer.body.events.map((event: { job: { name: string } }) => event.job.name).sort();
      const one = await lineage('name=final&depth=1');
      assert.equal(one.status, 200);
      assert.deepEqual(
        [jobNames(one), one.body.datasets_visited, one.body.jobs_visited, one.body.direction],
        [['j3'], 2, 1, 'upstream'],
      );
      assert.equal(one.body.events[0].run.runId, runIdOf(203), 'whole events');
      assert.deepEqual(jobNames(await lineage('name=final')), ['j1', 'j2', 'j3'], 'default upstream, depth 5');
      assert.deepEqual(jobNames(await lineage('name=mid&direction=downstream&depth=2')), ['j2', 'j3']);
      const both = await lineage('name=out&direction=both&depth=1');
      assert.deepEqual([jobNames(both), both.body.datasets_visited], [['j2', 'j3'], 3]);
      assertProblem(await lineage('name=final&depth=0'), 400);
      assertProblem(await lineage('name=final&depth=51'), 400);
      assertProblem(await lineage('name=final&depth=two'), 400);
      assertProblem(await lineage('name=final&direction=sideways'), 400);
      assertProblem(await lineage('name=unknown'), 404, /not known/);
      assertProblem(await get('/lineage/datasets/lineage?name=final'), 400);
    });

    it('serves the confluent view (stream only) and the enriched view (systems filter), storing nothing', async () => {
      const created = await post('/graphs', { name: 'views' });
      graphId = created.body.graph_id;
      assert.equal((await post(`/graphs/${graphId}/import`, sampleGraph())).status, 200);
      const head = await api.runtime.store.headPosition();

      const lineage = await get(
        `/lineage/datasets/lineage?namespace=${encodeURIComponent(NS)}&name=orders_enriched&direction=upstream&depth=2`,
      );
      assert.equal(lineage.status, 200, lineage.text);
      const jobs = new Set(lineage.body.events.map((event: { job: { name: string } }) => event.job.name));
      assert.ok(jobs.has('enrich-orders') && jobs.has('pg-orders-cdc'), `no view called yet: ${[...jobs].join(', ')}`);

      const confluent = await get('/graphs/confluent/view');
      assert.equal(confluent.status, 200, confluent.text);
      assert.equal(confluent.body.graph_id, graphId, 'default graph: the most recently changed');
      assert.equal(confluent.body.count, confluent.body.events.length);
      assert.ok(confluent.body.count > 0);
      assert.equal('stored' in confluent.body, false);
      const namespaces = (answer: Answer) =>
        new Set<string>(
          answer.body.events.flatMap(
            (event: {
              job: { namespace: string };
              inputs: Array<{ namespace: string }>;
              outputs: Array<{ namespace: string }>;
            }) => [
              event.job.namespace,
              ...event.inputs.map((d) => d.namespace),
              ...event.outputs.map((d) => d.namespace),
            ],
          ),
        );
      assert.ok(
        [...namespaces(confluent)].every((namespace) => namespace.startsWith('stream://')),
        [...namespaces(confluent)].join(', '),
      );

      const enriched = await get(`/graphs/enriched/view?graph_id=${graphId}`);
      assert.equal(enriched.body.systems, null);
      const all = [...namespaces(enriched)];
      assert.ok(
        all.some((namespace) => namespace.startsWith('lakehouse://')) &&
          all.some((namespace) => namespace.startsWith('s3://')),
        all.join(', '),
      );
      const filtered = await get(`/graphs/enriched/view?graph_id=${graphId}&systems=Stream,%20external`);
      assert.deepEqual(filtered.body.systems, ['STREAM', 'EXTERNAL']);
      const kept = [...namespaces(filtered)];
      assert.ok(kept.some((namespace) => namespace.startsWith('s3://')));
      assert.ok(!kept.some((namespace) => namespace.startsWith('lakehouse://')), kept.join(', '));

      const again = await get('/graphs/confluent/view');
      assert.deepEqual(
        again.body.events.map((event: { run: { runId: string } }) => event.run.runId),
        confluent.body.events.map((event: { run: { runId: string } }) => event.run.runId),
        'an unchanged graph keeps its runIds',
      );
      assert.equal(await api.runtime.store.headPosition(), head, 'the views and the lineage query stored nothing');

      assertProblem(await get('/graphs/enriched/view?systems=stream,mainframe'), 400, /mainframe/);
      assertProblem(await get('/graphs/confluent/view?graph_id=00000000-0000-4000-8000-000000000000'), 404);
      assertProblem(await get('/graphs/enriched/view?graph_id='), 400);
    });
  });
}

describe('a Spark-like kafka:// event joins the topics of an extraction (sqlite store, authentication on)', () => {
  let sim: PlatformSimulator;
  let api: TestApi;
  before(async () => {
    sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
    api = await startApi({ backend: 'sqlite', env: { LINEAGE_SVC_API_KEY: KEY } });
  });
  after(async () => {
    await api.dispose();
    await sim.close();
  });

  it('resolves kafka://{bootstrap} to the extracted topic: lineage runs from the Spark output through the topic into our jobs', async () => {
    const { graph } = await extract(
      { platform: fastApi(sim), logger: silentLogger() },
      { environmentIds: [PROD, DEV] },
    );
    assert.ok(
      graph.nodes.some((node) => node.node_type === 'TOPIC' && typeof node.attributes?.bootstrap_endpoint === 'string'),
      'topics carry bootstrap_endpoint',
    );
    const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'demo' }, headers: AUTH });
    assert.equal(
      (await call(api.base, 'POST', `/api/v1/graphs/${created.body.graph_id}/import`, { json: graph, headers: AUTH }))
        .status,
      200,
    );
    const view = await call(api.base, 'GET', '/api/v1/graphs/confluent/view', { headers: AUTH });
    assert.equal(view.status, 200);

    // A topic some job of ours writes, and its kafka:// identity.
    type ViewDataset = {
      namespace: string;
      name: string;
      facets?: { symlinks?: { identifiers: Array<{ namespace: string; name: string }> } };
    };
    const written = (view.body.events as Array<{ job: { name: string }; outputs: ViewDataset[] }>).flatMap((event) =>
      event.outputs.filter((dataset) => dataset.facets?.symlinks).map((dataset) => ({ job: event.job.name, dataset })),
    );
    const target = written[0];
    assert.ok(target, 'a written topic with a kafka:// symlink');
    const kafka = target.dataset.facets!.symlinks!.identifiers[0]!;
    assert.match(kafka.namespace, /^kafka:\/\/[^/]+:\d+$/);

    const spark = runEvent({
      namespace: 'spark-cluster',
      job: 'daily_rollup',
      runId: runIdOf(500),
      inputs: [{ namespace: kafka.namespace, name: kafka.name }],
      outputs: [{ namespace: 's3://warehouse', name: 'rollup' }],
    });
    assert.equal((await call(api.base, 'POST', '/api/v1/lineage', { json: spark, headers: AUTH })).body.accepted, 1);

    const upstream = await call(
      api.base,
      'GET',
      `/api/v1/lineage/datasets/lineage?namespace=${encodeURIComponent('s3://warehouse')}&name=rollup&depth=2`,
      { headers: AUTH },
    );
    assert.equal(upstream.status, 200, upstream.text);
    const jobs = upstream.body.events.map((event: { job: { name: string } }) => event.job.name);
    assert.ok(jobs.includes('daily_rollup') && jobs.includes(target.job), `${jobs.join(', ')} includes ${target.job}`);

    const detail = await call(
      api.base,
      'GET',
      `/api/v1/lineage/datasets/detail?namespace=${encodeURIComponent(target.dataset.namespace)}&name=${encodeURIComponent(target.dataset.name)}`,
      { headers: AUTH },
    );
    assert.ok(detail.body.identities.some((identity: { namespace: string }) => identity.namespace === kafka.namespace));
    assert.ok(
      detail.body.consumed_by.some((job: { name: string }) => job.name === 'daily_rollup'),
      'the Spark job reads our topic',
    );
  });
});

describe('a RunEvent reading one of our topics joins the extracted graph as it is, with no view called (memory store)', () => {
  const BOOTSTRAP = 'pkc-join.aws.confluent.cloud:9092';
  let api: TestApi;
  let graphId: string;
  const get = (path: string) => call(api.base, 'GET', `/api/v1${path}`, { headers: AUTH });
  const post = (path: string, json: unknown) => call(api.base, 'POST', `/api/v1${path}`, { json, headers: AUTH });
  /** The graph with a bootstrap endpoint on its topics, without the nodes `without`, and their edges. */
  const graphWithout = (...without: string[]) => {
    const graph = sampleGraph();
    graph.nodes = graph.nodes
      .filter((node) => !without.includes(node.id))
      .map((node) =>
        node.node_type === 'TOPIC'
          ? { ...node, attributes: { ...node.attributes, bootstrap_endpoint: BOOTSTRAP } }
          : node,
      );
    graph.edges = graph.edges.filter((edge) => !without.includes(edge.src_id) && !without.includes(edge.dst_id));
    return graph;
  };
  type LineageEvent = { job: { namespace: string; name: string }; run: { runId: string }; eventTime: string };
  /** Upstream of the Spark job's output: the events by job name. */
  const upstream = async (): Promise<{
    body: { jobs_visited: number; datasets_visited: number };
    byJob: Map<string, LineageEvent>;
  }> => {
    const answer = await get(
      `/lineage/datasets/lineage?namespace=${encodeURIComponent('s3://reports')}&name=orders_daily&depth=3`,
    );
    assert.equal(answer.status, 200, answer.text);
    return {
      body: answer.body,
      byJob: new Map(answer.body.events.map((event: LineageEvent) => [event.job.name, event])),
    };
  };

  before(async () => {
    api = await startApi({ env: { LINEAGE_SVC_API_KEY: KEY } });
    graphId = (await post('/graphs', { name: 'joined' })).body.graph_id;
    assert.equal((await post(`/graphs/${graphId}/import`, graphWithout())).status, 200);
    const spark = runEvent({
      namespace: 'spark',
      job: 'orders_report',
      runId: runIdOf(700),
      inputs: [{ namespace: `kafka://${BOOTSTRAP}`, name: 'orders_enriched' }],
      outputs: [{ namespace: 's3://reports', name: 'orders_daily' }],
    });
    assert.equal((await post('/lineage', spark)).body.accepted, 1);
  });
  after(() => api.dispose());

  it('answers the graph jobs the Spark job reads from, as the views build them, at the graph time, storing nothing', async () => {
    const head = await api.runtime.store.headPosition();
    const { body, byJob } = await upstream();
    assert.deepEqual([...byJob.keys()].sort(), ['enrich-orders', 'orders_report', 'pg-orders-cdc']);
    assert.deepEqual(
      [body.jobs_visited, body.datasets_visited],
      [3, 4],
      'orders_daily, orders_enriched, orders, postgres',
    );
    const summary = await get(`/graphs/${graphId}`);
    assert.equal(
      byJob.get('enrich-orders')!.eventTime,
      summary.body.updated_at,
      'eventTime: the graph as of its last change',
    );
    assert.equal(await api.runtime.store.headPosition(), head);
    // The same RunEvents as the enriched view (this GET stores nothing either), eventTime aside.
    const view = await get(`/graphs/enriched/view?graph_id=${graphId}`);
    const viewRunIds = new Map(view.body.events.map((event: LineageEvent) => [event.job.name, event.run.runId]));
    for (const job of ['enrich-orders', 'pg-orders-cdc'])
      assert.equal(byJob.get(job)!.run.runId, viewRunIds.get(job), job);
    assert.equal(await api.runtime.store.headPosition(), head);

    const jobs = await get(`/lineage/jobs?namespace=${encodeURIComponent(STATEMENT_NS)}`);
    assert.ok(
      jobs.body.jobs.some((job: { name: string }) => job.name === 'enrich-orders'),
      'the graph jobs are listed',
    );
    const detail = await get(`/lineage/jobs/detail?namespace=${encodeURIComponent(STATEMENT_NS)}&name=enrich-orders`);
    assert.deepEqual(
      [detail.body.latest_run.run_id, detail.body.latest_inputs.map((dataset: { name: string }) => dataset.name)],
      [viewRunIds.get('enrich-orders'), ['shop.public.orders']],
    );
    const topic = await get(`/lineage/datasets/detail?namespace=${encodeURIComponent(NS)}&name=orders_enriched`);
    assert.ok(
      topic.body.identities.some((identity: { namespace: string }) => identity.namespace === `kafka://${BOOTSTRAP}`),
    );
    assert.deepEqual(topic.body.produced_by, [{ namespace: STATEMENT_NS, name: 'enrich-orders' }]);
    assert.ok(topic.body.consumed_by.some((job: { name: string }) => job.name === 'orders_report'));
  });

  it('follows a changed node: the job gets its new definition and a new runId', async () => {
    const previous = (await upstream()).byJob.get('enrich-orders')!;
    const enrich = graphWithout().nodes.find((node) => node.id === ids.enrich)!;
    const changed = await post(`/graphs/${graphId}/nodes`, {
      ...enrich,
      attributes: { ...enrich.attributes, sql: 'SELECT * FROM orders WHERE amount > 0' },
    });
    assert.equal(changed.status, 200, changed.text);
    const next = (await upstream()).byJob.get('enrich-orders') as LineageEvent & {
      job: { facets: { sql?: { query: string } } };
    };
    assert.notEqual(next.run.runId, previous.run.runId);
    assert.equal(next.job.facets.sql?.query, 'SELECT * FROM orders WHERE amount > 0');
  });

  it('follows a removed node, then a deleted graph', async () => {
    const replaced = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import?mode=replace`, {
      json: graphWithout(ids.enrich),
      headers: AUTH,
    });
    assert.equal(replaced.status, 200, replaced.text);
    const { body, byJob } = await upstream();
    assert.deepEqual([[...byJob.keys()], body.jobs_visited, body.datasets_visited], [['orders_report'], 1, 2]);
    const topic = await get(`/lineage/datasets/detail?namespace=${encodeURIComponent(NS)}&name=orders_enriched`);
    assert.deepEqual(topic.body.produced_by, [], 'enrich-orders is gone');

    assert.equal((await call(api.base, 'DELETE', `/api/v1/graphs/${graphId}`, { headers: AUTH })).status, 200);
    const consumers = await get(`/lineage/datasets/detail?namespace=${encodeURIComponent(NS)}&name=orders_enriched`);
    assert.deepEqual(
      consumers.body.consumed_by,
      [{ namespace: 'spark', name: 'orders_report' }],
      'only the ingested job',
    );
    assertProblem(
      await get(`/lineage/jobs/detail?namespace=${encodeURIComponent(NS)}&name=pg-orders-cdc`),
      404,
      /not known/,
    );
  });
});
