/**
 * Reads are free (issue 14 item 6): no GET of the API appends to the store. The GET routes are
 * enumerated from the running app's OpenAPI document (`GET /openapi.json`), so that a route added
 * later is covered without touching this test; their path parameters are filled with real ids (a
 * graph imported from `test/helpers/sampleGraph.ts`, one of its nodes, an ingested OpenLineage run, a
 * task), their required query parameters with real values, and the store's head position
 * (`runtime.store.headPosition()`) must be the same after each answer as before.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CLUSTER, ENV, ids, sampleGraph } from '../helpers/sampleGraph.js';
import { call, enc, fastRunners, startApi, waitForTask, type Answer, type TestApi } from './helpers.js';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import { cliEnv } from '../extraction/helpers.js';

const RUN_ID = '01940000-0000-7000-8000-00000000a001';
const BOOTSTRAP = 'pkc-reads.aws.confluent.cloud:9092';
/** A watcher id no watcher has: the watcher routes answer 404, still without appending. */
const UNKNOWN_WATCHER = '00000000-0000-4000-8000-000000000000';

/** Values of the path parameters, by name. */
type PathValues = Record<string, string>;

/** An OpenAPI path (`/api/v1/graphs/{graph_id}`) with its parameters filled and encoded. */
function fill(path: string, values: PathValues): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    assert.ok(value !== undefined, `no value for the path parameter {${name}} of ${path}: add one to this test`);
    return enc(value);
  });
}

/** The node the path route is asked about (set once the graph is extracted). */
let nodeForPath = '';

/** Required query parameters of the GET routes that have some, by path. */
function requiredQuery(path: string): string {
  if (path.endsWith('/diff') || path.endsWith('/diff/columns')) return '?from=0';
  if (path.endsWith('/path')) return `?from=${enc(nodeForPath)}&to=${enc(nodeForPath)}`;
  if (path.endsWith('/lineage/datasets/detail') || path.endsWith('/lineage/datasets/lineage'))
    return `?namespace=${enc(`stream://${ENV}/${CLUSTER}`)}&name=orders_enriched&direction=both`;
  if (path.endsWith('/edges/history')) {
    const edge = sampleGraph().edges[0]!;
    return `?src_id=${enc(edge.src_id)}&dst_id=${enc(edge.dst_id)}&edge_type=${edge.edge_type}`;
  }
  if (path.endsWith('/impact')) return `?node_id=${enc(nodeForPath)}&field=order_id`;
  if (path === '/api/v1/lineage' || path === '/api/v1/column-lineage')
    return `?nodeId=dataset:${enc(`stream://${ENV}/${CLUSTER}`)}:orders_enriched`;
  if (path === '/api/v1/search') return '?q=orders';
  if (path.endsWith('/lineage/jobs/detail')) return `?namespace=${enc(`stream://${ENV}/lfcp-1`)}&name=enrich-orders`; // its compute pool's namespace
  return '';
}

describe('reads are free: no GET appends to the store', () => {
  let api: TestApi;
  let sim: PlatformSimulator;
  let values: PathValues;
  const get = (path: string): Promise<Answer> => call(api.base, 'GET', path);

  before(async () => {
    // The platform simulator answers the platform reads (GET /api/v1/environments); a lease of an
    // hour: no lease renewal or ownership sweep appends while the routes are read.
    sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
    const platformEnv = Object.fromEntries(
      Object.entries(cliEnv(sim)).filter(([name]) => name.startsWith('LINEAGE_SVC_')),
    );
    api = await startApi({ runners: fastRunners(), env: { ...platformEnv, LINEAGE_SVC_LEASE_SECONDS: '3600' } });
    const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'reads' } });
    assert.equal(created.status, 201, created.text);
    const graph = sampleGraph();
    graph.nodes = graph.nodes.map((node) =>
      node.node_type === 'TOPIC'
        ? { ...node, attributes: { ...node.attributes, bootstrap_endpoint: BOOTSTRAP } }
        : node,
    );
    const imported = await call(api.base, 'POST', `/api/v1/graphs/${created.body.graph_id}/import`, { json: graph });
    assert.equal(imported.status, 200, imported.text);
    const ingested = await call(api.base, 'POST', '/api/v1/lineage/events', {
      json: [
        {
          eventTime: '2026-01-01T00:00:00.000Z',
          eventType: 'COMPLETE',
          producer: 'https://example.com/spark',
          schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
          run: { runId: RUN_ID },
          job: { namespace: 'spark', name: 'orders_report' },
          inputs: [{ namespace: `kafka://${BOOTSTRAP}`, name: 'orders_enriched' }],
          outputs: [{ namespace: 's3://reports', name: 'orders_daily' }],
        },
      ],
    });
    assert.equal(ingested.body.accepted, 1, ingested.text);
    const task = await call(api.base, 'POST', '/api/v1/tasks/extract', { json: { environment_ids: [ENV] } });
    assert.equal(task.status, 202, task.text);
    assert.equal((await waitForTask(api.base, task.body.task_id)).body.status, 'completed');
    nodeForPath = ids.orders;
    values = {
      graph_id: created.body.graph_id,
      node_id: ids.orders,
      run_id: RUN_ID,
      task_id: task.body.task_id,
      watcher_id: UNKNOWN_WATCHER,
      // The Marquez routes: a namespace holding both a job and a dataset, the ingested run, a statistic.
      namespace: `stream://${ENV}/${CLUSTER}`,
      job: 'pg-orders-cdc', // a connector of that cluster (the Flink statement is in its compute pool's namespace)
      dataset: 'orders_enriched',
      id: RUN_ID,
      asset: 'jobs',
    };
  });
  after(async () => {
    await api?.dispose();
    await sim?.close();
  });

  it('answers every GET route of the OpenAPI document without moving the head position', async () => {
    const document = await get('/openapi.json');
    assert.equal(document.status, 200);
    const paths = Object.entries(document.body.paths as Record<string, Record<string, unknown>>)
      .filter(([, operations]) => 'get' in operations)
      .map(([path]) => path);
    for (const expected of [
      '/api/v1/graphs/confluent/view',
      '/api/v1/graphs/enriched/view',
      '/api/v1/lineage/datasets/lineage',
      '/api/v1/graphs/{graph_id}/query/upstream/{node_id}',
    ])
      assert.ok(paths.includes(expected), `${expected} is in the OpenAPI document`);
    const head = await api.runtime.store.headPosition();
    const statuses: Record<string, number> = {};
    for (const path of [...paths, '/openapi.json']) {
      const url = fill(path, values) + requiredQuery(path);
      const answer = await get(url);
      statuses[path] = answer.status;
      assert.ok(answer.status < 500, `GET ${url}: ${answer.status} ${answer.text.slice(0, 300)}`);
      assert.equal(await api.runtime.store.headPosition(), head, `GET ${url} appended to the store`);
    }
    // The ids are real: the graph, node, run, task and OpenLineage reads found what they asked for.
    for (const path of paths.filter((path) => !path.includes('{watcher_id}') && !path.endsWith('/metrics')))
      assert.equal(statuses[path], 200, `GET ${path}`);
  });

  it('a view called twice stores nothing and answers the same jobs', async () => {
    const head = await api.runtime.store.headPosition();
    const first = await get('/api/v1/graphs/enriched/view');
    const second = await get(`/api/v1/graphs/enriched/view?graph_id=${values.graph_id}`);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.stored, undefined, 'no stored count: a view stores nothing');
    const runIds = (answer: Answer) => answer.body.events.map((event: { run: { runId: string } }) => event.run.runId);
    assert.deepEqual(runIds(second), runIds(first));
    assert.equal(await api.runtime.store.headPosition(), head);
  });
});
