import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createOpenLineageProjection, initialOpenLineageState } from '../../projections/openLineage/index.js';
import { createProjector } from '../../projections/projector.js';
import { NotFoundError } from '../../src/errors.js';
import { recordGraph } from '../../src/graphCommands.js';
import { canonicalJson, dedupeKeyOf, normalizeOpenLineage } from '../../src/openlineage/ingest.js';
import { CLUSTER, ENV, sampleGraph } from '../helpers/sampleGraph.js';
import { completeEventFiles, fixturesPresent, readFixture, runEvent, setup } from './helpers.js';

const GRAPH_ID = '5b0e7c1a-2f6d-4e8b-9a3c-1d2e3f4a5b6c';

const warningsOf = (raw: unknown) => {
  const result = normalizeOpenLineage(raw, { now: () => new Date('2026-05-05T00:00:00.000Z') });
  assert.ok(result.ok, `accepted: ${JSON.stringify(result)}`);
  return result;
};
const errorsOf = (raw: unknown) => {
  const result = normalizeOpenLineage(raw);
  assert.equal(result.ok, false, 'rejected');
  return result.ok ? [] : result.errors;
};

describe('normalizeOpenLineage: lenient where producers need it', () => {
  it('accepts a clean event with no warning and detects the kind from its shape', () => {
    const result = warningsOf(runEvent({ job: 'a' }));
    assert.deepEqual(result.warnings, []);
    assert.equal(result.kind, 'RunEvent');
    assert.equal(
      warningsOf({
        eventTime: '2026-01-01T00:00:00Z',
        producer: 'p:x',
        schemaURL: 's:x',
        job: { namespace: 'n', name: 'j' },
      }).kind,
      'JobEvent',
    );
    assert.equal(
      warningsOf({
        eventTime: '2026-01-01T00:00:00Z',
        producer: 'p:x',
        schemaURL: 's:x',
        dataset: { namespace: 'n', name: 'd' },
      }).kind,
      'DatasetEvent',
    );
  });
  it('no timezone: assumes UTC and warns', () => {
    const result = warningsOf({ ...runEvent({ job: 'a' }), eventTime: '2020-12-28T19:51:01.641499' });
    assert.match(result.warnings.join(), /no timezone; UTC assumed/);
    assert.equal(result.event.eventTime, '2020-12-28T19:51:01.641499Z');
    assert.equal(result.event_time_ms, Date.UTC(2020, 11, 28, 19, 51, 1, 641));
  });
  it('no schemaURL, no producer, no eventType, no eventTime: warns', () => {
    const raw = runEvent({ job: 'a' });
    delete raw.schemaURL;
    delete raw.producer;
    delete raw.eventType;
    delete raw.eventTime;
    const result = warningsOf(raw);
    assert.match(result.warnings.join('|'), /schemaURL is missing/);
    assert.match(result.warnings.join('|'), /producer is missing/);
    assert.match(result.warnings.join('|'), /eventType is missing/);
    assert.match(result.warnings.join('|'), /eventTime is missing/);
    assert.equal(result.event.eventTime, '2026-05-05T00:00:00.000Z');
  });
  it('non-UUID runId: kept as is, with a derived UUID and a warning', () => {
    const result = warningsOf(runEvent({ job: 'a', runId: 'dbt-run-jaffle_shop' }));
    assert.equal(result.run_id, 'dbt-run-jaffle_shop');
    assert.equal(result.run_id_original, 'dbt-run-jaffle_shop');
    assert.match(result.run_uuid!, /^[0-9a-f-]{36}$/);
    assert.match(result.warnings.join(), /is not a UUID/);
    assert.equal((result.event.run as { runId: string }).runId, 'dbt-run-jaffle_shop');
  });
  it('legacy parentRun facet is read as parent; facets without _producer/_schemaURL warn', () => {
    const raw = runEvent({ job: 'a' });
    raw.run = {
      runId: '0190a1b2-0000-7000-8000-000000000009',
      facets: { parentRun: { run: { runId: 'x' }, job: { namespace: 'n', name: 'dag' } } },
    };
    const result = warningsOf(raw);
    assert.match(result.warnings.join('|'), /parentRun/);
    assert.match(result.warnings.join('|'), /facets without _producer\/_schemaURL: run.facets.parentRun/);
    assert.deepEqual((result.event.run as any).facets.parent, (raw.run as any).facets.parentRun);
  });
  it('a parent facet without a run id is accepted with a warning (proxy-fluentd/event_invalid_run_facet)', (t) => {
    if (!fixturesPresent(t, 'events/proxy-fluentd/event_invalid_run_facet.json')) return;
    assert.match(
      warningsOf(readFixture('events/proxy-fluentd/event_invalid_run_facet.json')).warnings.join(),
      /parent" has no run.runId/,
    );
  });
  it('the same event twice (keys in another order) gets the same dedupe key', () => {
    const a = runEvent({ job: 'a' });
    const b = Object.fromEntries(Object.entries(a).reverse());
    assert.equal(warningsOf(a).dedupe_key, warningsOf(b).dedupe_key);
    assert.equal(warningsOf(a).dedupe_key, dedupeKeyOf(b));
    assert.notEqual(warningsOf(a).dedupe_key, warningsOf(runEvent({ job: 'b' })).dedupe_key);
  });
  it('dedupe keys stay what stores already hold: the canonical JSON of a value with every awkward part', () => {
    // The key stored with every ingested event: a change of canonicalJson would store redeliveries twice.
    const value = {
      b: [1, 'é\u2028', null, { z: true, a: undefined, '': 0.5, '"q"': -0 }],
      a: { ä: 'x', Z: 1e21, _: [] },
      emoji: '😀',
      nested: [[[]], {}],
    };
    assert.equal(
      canonicalJson(value),
      '{"a":{"Z":1e+21,"_":[],"ä":"x"},"b":[1,"é\u2028",null,{"":0.5,"\\"q\\"":0,"z":true}],"emoji":"😀","nested":[[[]],{}]}',
    );
    assert.equal(dedupeKeyOf(value), '81adb1a7ed0b275dc583c49781c289dbb89b20c31d22d4d9811ab719d50066dc');
  });
});

describe('normalizeOpenLineage: strict where a payload would corrupt the store', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['body not an object', [1, 2], /must be a JSON object/],
    ['body null', null, /must be a JSON object/],
    ['no job name', { ...runEvent({ job: 'a' }), job: { namespace: 'n' } }, /job\.name/],
    ['empty job namespace', { ...runEvent({ job: 'a' }), job: { namespace: '', name: 'x' } }, /job\.namespace/],
    ['inputs not an array', { ...runEvent({ job: 'a' }), inputs: { namespace: 'n', name: 'd' } }, /inputs/],
    ['dataset without a name', { ...runEvent({ job: 'a' }), outputs: [{ namespace: 'n' }] }, /outputs\.0\.name/],
    ['unknown eventType', { ...runEvent({ job: 'a' }), eventType: 'DONE' }, /eventType/],
    ['no runId', { ...runEvent({ job: 'a' }), run: {} }, /run\.runId/],
    ['eventTime not a date', { ...runEvent({ job: 'a' }), eventTime: 'yesterday' }, /eventTime/],
    [
      'facets not an object',
      { ...runEvent({ job: 'a' }), job: { namespace: 'n', name: 'j', facets: [] } },
      /job\.facets/,
    ],
    [
      'over 1 MB',
      {
        ...runEvent({ job: 'a' }),
        job: { namespace: 'n', name: 'j', facets: { big: { blob: 'x'.repeat(1_100_000) } } },
      },
      /byte limit/,
    ],
  ];
  for (const [title, raw, pattern] of cases) {
    it(`rejects: ${title}`, () => {
      const errors = errorsOf(raw);
      assert.match(errors.map((error) => `${error.path}: ${error.message}`).join('\n'), pattern);
    });
  }
});

describe('OpenLineage ingestion and the projection', () => {
  it('every complete fixture event file ingests', async (t) => {
    if (!fixturesPresent(t, 'SOURCES.md')) return;
    const { ingest, projection } = await setup(t);
    const files = completeEventFiles();
    assert.ok(files.length >= 60, `found ${files.length} FULL files`);
    let events = 0;
    for (const file of files) {
      const raw = readFixture(file);
      const bodies = Array.isArray(raw) ? raw : [raw];
      events += bodies.length;
      const results = await ingest(bodies);
      for (const result of results)
        assert.notEqual(result.status, 'rejected', `${file}: ${JSON.stringify(result.errors)}`);
    }
    assert.ok(projection.eventCount > 0 && projection.eventCount <= events);
  });

  it('returns the Spark, Airflow and Marquez chains of the fixture events from datasetLineage', async (t) => {
    if (!fixturesPresent(t, 'SOURCES.md')) return;
    const { ingest, projection } = await setup(t);
    for (const file of completeEventFiles()) {
      const raw = readFixture(file);
      await ingest(Array.isArray(raw) ? raw : [raw]);
    }
    const datasetsOf = (result: ReturnType<typeof projection.datasetLineage>) =>
      new Set(
        result.events.flatMap((event: any) =>
          [...(event.inputs ?? []), ...(event.outputs ?? [])].map((d: any) => `${d.namespace}|${d.name}`),
        ),
      );

    // Spark CLL: file:/tmp/cll_test/cll_source1 and cll_source2 -> tbl1, joined with the default.tbl1 TABLE symlink.
    const cll = projection.datasetLineage({
      namespace: 'file:/tmp/cll_test',
      name: 'default.tbl1',
      direction: 'upstream',
      depth: 2,
    });
    const cllDatasets = datasetsOf(cll);
    assert.ok(
      cllDatasets.has('file|/tmp/cll_test/cll_source1') && cllDatasets.has('file|/tmp/cll_test/cll_source2'),
      [...cllDatasets].join(),
    );
    assert.ok(cll.jobs_visited >= 1);

    // Airflow: gs://mock-bucket -> bigquery mock-project.test.upload -> upload_cp -> gs result.
    const airflow = projection.datasetLineage({
      namespace: 'gs://mock-bucket',
      name: 'result.csv',
      direction: 'upstream',
      depth: 5,
    });
    const jobs = new Set(airflow.events.map((event: any) => event.job.name));
    assert.deepEqual([...jobs].sort(), ['BQ.copy', 'BQ.download', 'BQ.upload']);
    assert.ok(datasetsOf(airflow).has('gs://mock-bucket|test.csv'));
    assert.equal(airflow.jobs_visited, 3);
    assert.equal(airflow.datasets_visited, 5, 'result.csv, upload_cp, upload, copied.csv, test.csv');
    const oneHop = projection.datasetLineage({
      namespace: 'gs://mock-bucket',
      name: 'result.csv',
      direction: 'upstream',
      depth: 1,
    });
    assert.equal(oneHop.jobs_visited, 1, 'depth counts dataset hops');
    const downstream = projection.datasetLineage({
      namespace: 'gs://mock-bucket',
      name: 'test.csv',
      direction: 'downstream',
      depth: 3,
    });
    assert.ok(datasetsOf(downstream).has('gs://mock-bucket|result.csv'));

    // Marquez apples: a multi-hop chain.
    const apples = projection.datasetLineage({
      namespace: 'grandmas.kitchen',
      name: 'apple.filling',
      direction: 'both',
      depth: 5,
    });
    assert.ok(apples.jobs_visited >= 2);
    assert.ok(apples.events.every((event: any) => typeof event.job.name === 'string'));
  });

  it('a redelivered event is stored once (duplicate), alone or inside a batch, also under concurrency', async (t) => {
    const { ingest, store, ingestor, sync, projection } = await setup(t);
    const event = runEvent({ job: 'once', outputs: [{ namespace: 'n', name: 'd' }] });
    const [first] = await ingest([event]);
    assert.equal(first!.status, 'accepted');
    const [again] = await ingest([structuredClone(event)]);
    assert.equal(again!.status, 'duplicate');
    const batch = await ingest([event, runEvent({ job: 'other' }), runEvent({ job: 'other' })]);
    assert.deepEqual(
      batch.map((result) => result.status),
      ['duplicate', 'accepted', 'duplicate'],
    );
    const concurrent = await Promise.all([1, 2, 3].map(() => ingestor.ingest([runEvent({ job: 'race' })])));
    await sync();
    assert.deepEqual(concurrent.map((results) => results[0]!.status).sort(), ['accepted', 'duplicate', 'duplicate']);
    const head = await store.headPosition();
    assert.equal(head, 3, 'three events stored in all');
    assert.equal(projection.queryEvents({}).total, 3);
  });

  it('answers event queries with filters, ordering by eventTime and paging', async (t) => {
    const { ingest, projection } = await setup(t);
    await ingest([
      runEvent({
        job: 'j1',
        namespace: 'ns1',
        runId: '0190a1b2-0000-7000-8000-00000000000a',
        eventType: 'START',
        eventTime: '2026-01-01T00:00:03Z',
      }),
      runEvent({
        job: 'j1',
        namespace: 'ns1',
        runId: '0190a1b2-0000-7000-8000-00000000000a',
        eventType: 'COMPLETE',
        eventTime: '2026-01-01T00:00:05Z',
      }),
      runEvent({
        job: 'j2',
        namespace: 'ns1',
        runId: 'airflow-task-try-1',
        eventType: 'START',
        eventTime: '2026-01-01T00:00:01Z',
      }),
      runEvent({
        job: 'j3',
        namespace: 'ns2',
        runId: '0190a1b2-0000-7000-8000-00000000000c',
        eventType: 'FAIL',
        eventTime: '2026-01-01T00:00:02+01:00',
      }),
    ]);
    const times = (result: { events: any[] }) => result.events.map((event) => event.job.name);
    assert.deepEqual(
      times(projection.queryEvents()),
      ['j3', 'j2', 'j1', 'j1'],
      'ordered by eventTime (j3 is at 23:00:02Z the day before)',
    );
    assert.equal(projection.queryEvents({ namespace: 'ns1' }).total, 3);
    assert.deepEqual(times(projection.queryEvents({ namespace: 'ns1', job: 'j1' })), ['j1', 'j1']);
    assert.equal(projection.queryEvents({ event_type: 'START' }).total, 2);
    assert.deepEqual(
      times(
        projection.queryEvents({
          since: Date.parse('2026-01-01T00:00:02Z'),
          until: Date.parse('2026-01-01T00:00:04Z'),
        }),
      ),
      ['j1'],
    );
    const page = projection.queryEvents({ limit: 2, offset: 1 });
    assert.deepEqual([times(page), page.total], [['j2', 'j1'], 4]);
    assert.equal(
      projection.queryEvents({ run_id: 'airflow-task-try-1' }).total,
      1,
      'non-UUID runId findable as received',
    );
    assert.equal(projection.eventsOfRun('airflow-task-try-1').length, 1);
    const [, , third] = projection.queryEvents({ namespace: 'ns1' }).events;
    assert.equal((third as any).eventType, 'COMPLETE');
    assert.equal(projection.eventsOfRun('0190a1b2-0000-7000-8000-00000000000a').length, 2);
  });

  it('lists datasets and jobs, details with the latest run, and 404 errors', async (t) => {
    const { ingest, projection } = await setup(t);
    await ingest([
      runEvent({
        job: 'copy',
        runId: '0190a1b2-0000-7000-8000-000000000101',
        eventTime: '2026-01-01T00:00:00Z',
        inputs: [{ namespace: 's3://b', name: 'old' }],
        outputs: [{ namespace: 'db', name: 't' }],
      }),
      runEvent({
        job: 'copy',
        runId: '0190a1b2-0000-7000-8000-000000000102',
        eventTime: '2026-01-02T00:00:00Z',
        inputs: [{ namespace: 's3://b', name: 'new' }],
        outputs: [{ namespace: 'db', name: 't' }],
      }),
    ]);
    assert.deepEqual(
      projection.listDatasets({ namespace: 's3://b' }).map((dataset) => dataset.name),
      ['new', 'old'],
    );
    assert.equal(projection.listDatasets().length, 3);
    assert.deepEqual(
      projection.listJobs().map((job) => [job.name, job.latest_run_id]),
      [['copy', '0190a1b2-0000-7000-8000-000000000102']],
    );
    const detail = projection.jobDetail({ namespace: 'jobs', name: 'copy' });
    assert.deepEqual(
      detail.latest_inputs.map((dataset) => dataset.name),
      ['new'],
    );
    assert.deepEqual(
      detail.latest_outputs.map((dataset) => dataset.name),
      ['t'],
    );
    assert.deepEqual(projection.datasetDetail({ namespace: 'db', name: 't' }).produced_by, [
      { namespace: 'jobs', name: 'copy' },
    ]);
    assert.throws(() => projection.datasetDetail({ namespace: 'db', name: 'nope' }), NotFoundError);
    assert.throws(() => projection.jobDetail({ namespace: 'jobs', name: 'nope' }), NotFoundError);
    assert.throws(() => projection.eventsOfRun('nope'), NotFoundError);
    assert.throws(() => projection.datasetLineage({ namespace: 'db', name: 'nope' }), NotFoundError);
    const lineage = projection.datasetLineage({ namespace: 'db', name: 't' });
    assert.deepEqual(
      [lineage.direction, lineage.depth, lineage.jobs_visited, lineage.datasets_visited],
      ['upstream', 5, 1, 3],
    );
    assert.equal(lineage.events.length, 1, 'the events of the latest run only');
  });

  it('joins kafka:// with stream:// through the extracted graph, and Spark symlinks', async (t) => {
    const { ingest, projection, commands, sync } = await setup(t);
    const graph = sampleGraph();
    graph.nodes = graph.nodes.map((node) =>
      node.node_type === 'TOPIC'
        ? { ...node, attributes: { ...node.attributes, bootstrap_endpoint: 'pkc-1.aws.confluent.cloud:9092' } }
        : node,
    );
    await recordGraph(commands, GRAPH_ID, graph, { mode: 'replace', createIfMissing: true }, { actor: 'test' });
    await sync();
    // A Spark job reads our topic under its kafka:// name and writes a table known by a symlink.
    await ingest([
      runEvent({
        job: 'spark_app.read_orders',
        namespace: 'spark',
        inputs: [{ namespace: 'kafka://pkc-1.aws.confluent.cloud:9092', name: 'orders_enriched' }],
        outputs: [
          {
            namespace: 's3://lake',
            name: 'warehouse/orders',
            facets: {
              symlinks: {
                _producer: 'p:x',
                _schemaURL: 's:x',
                identifiers: [{ namespace: 'hive://metastore:9083', name: 'db.orders', type: 'TABLE' }],
              },
            },
          },
        ],
      }),
    ]);
    const upstream = projection.datasetLineage({
      namespace: 'hive://metastore:9083',
      name: 'db.orders',
      direction: 'upstream',
      depth: 10,
    });
    const jobs = upstream.events.map((event: any) => event.job.name);
    assert.ok(
      jobs.includes('spark_app.read_orders') && jobs.includes('enrich-orders') && jobs.includes('pg-orders-cdc'),
      jobs.join(),
    );
    const detail = projection.datasetDetail({ namespace: `stream://${ENV}/${CLUSTER}`, name: 'orders_enriched' });
    assert.ok(detail.identities.some((identity) => identity.namespace === 'kafka://pkc-1.aws.confluent.cloud:9092'));
    assert.ok(detail.consumed_by.some((job) => job.name === 'spark_app.read_orders'));
  });

  it('joins kafka:// with stream:// from graph nodes carrying a bootstrap endpoint', async (t) => {
    const { ingest, projection } = await setup(t);
    await ingest([
      runEvent({
        job: 'flink',
        inputs: [{ namespace: 'kafka://b1:9092', name: 'topic-a' }],
        outputs: [{ namespace: 'kafka://b1:9092', name: 'topic-b' }],
      }),
    ]);
    await ingest([
      runEvent({
        job: 'consumer',
        inputs: [{ namespace: 'stream://env-1/lkc-1', name: 'topic-b' }],
        outputs: [{ namespace: 'x', name: 'y' }],
      }),
    ]);
    assert.equal(projection.datasetLineage({ namespace: 'x', name: 'y', depth: 5 }).jobs_visited, 1, 'not joined yet');
    projection.apply({
      type: 'NodesAdded',
      stream: 'graph-g',
      revision: 0,
      position: projection.position + 1,
      recorded_at: '2026-01-01T00:00:00.000Z',
      metadata: { event_id: 'e' },
      data: {
        graph_id: 'g',
        nodes: [
          {
            id: 'stream:topic:env-1:lkc-1/topic-b',
            node_type: 'TOPIC',
            system: 'STREAM',
            qualified_name: 'lkc-1/topic-b',
            display_name: 'topic-b',
            environment_id: 'env-1',
            cluster_id: 'lkc-1',
            attributes: { bootstrap_endpoint: 'SASL_SSL://B1:9092' },
          },
        ],
      },
    });
    const joined = projection.datasetLineage({ namespace: 'x', name: 'y', depth: 5 });
    assert.equal(joined.jobs_visited, 2);
    assert.equal(joined.datasets_visited, 3, 'y, topic-b (one dataset under two names), topic-a');
  });

  it('a rebuilt projection equals the live one', async (t) => {
    const { ingest, projection, store } = await setup(t);
    await ingest([
      runEvent({
        job: 'a',
        runId: 'r-1',
        inputs: [{ namespace: 'n', name: 'x' }],
        outputs: [{ namespace: 'n', name: 'y' }],
      }),
      runEvent({
        job: 'b',
        eventTime: '2026-01-03T00:00:00Z',
        inputs: [{ namespace: 'n', name: 'y' }],
        outputs: [{ namespace: 'n', name: 'z' }],
      }),
      {
        eventTime: '2026-01-02T00:00:00Z',
        producer: 'p:x',
        schemaURL: 's:x',
        dataset: {
          namespace: 'n',
          name: 'z',
          facets: { symlinks: { identifiers: [{ namespace: 'm', name: 'zz', type: 'TABLE' }] } },
        },
      },
    ]);
    const rebuilt = createOpenLineageProjection();
    const replay = createProjector({ store, projections: [rebuilt] });
    await replay.start();
    t.after(() => replay.stop());
    const snapshot = (p: typeof projection) => ({
      events: p.queryEvents({ limit: 1000 }),
      datasets: p.listDatasets(),
      jobs: p.listJobs(),
      lineage: p.datasetLineage({ namespace: 'm', name: 'zz', direction: 'both', depth: 5 }),
      detail: p.datasetDetail({ namespace: 'n', name: 'z' }),
    });
    assert.deepEqual(snapshot(rebuilt), snapshot(projection));
    assert.equal(snapshot(projection).lineage.jobs_visited, 2);
    const before = projection.state;
    projection.reset();
    assert.equal(projection.eventCount, 0);
    assert.equal(projection.position, 0);
    assert.notEqual(projection.state, before, 'reset replaces the state');
    assert.deepEqual(projection.listDatasets(), []);
    assert.deepEqual(projection.state.dedupeKeys, initialOpenLineageState().dedupeKeys);
  });
});
