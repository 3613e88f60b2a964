/**
 * Field-level impact analysis (issue 26) through `GET /api/v1/graphs/{graph_id}/impact`, on the demo
 * estate extracted from the platform simulator and imported into an API on a real socket: exact
 * impact sets downstream and upstream through Flink SQL, ksqlDB (names folded), connectors (hops of
 * unknown transformation, kept as `*`), Tableflow and a mirror topic; `include=indirect`; the CSV
 * answer; `as_of`; and every error (problem+json 400 and 404).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadScenario, startPlatformSimulator } from '../../simulators/confluent/index.js';
import { extract } from '../../src/extraction/extract.js';
import type { LineageGraph } from '../../src/graph/model.js';
import { silentLogger } from '../../src/logger.js';
import { fastApi } from '../extraction/helpers.js';
import { assertProblem, call, enc, startApi, type TestApi } from './helpers.js';

const ENV = 'env-q7m2k9';
const topic = (cluster: string, name: string) => `stream:topic:${ENV}:${cluster}/${name}`;
const job = (name: string) => `stream:stream_job:${ENV}:${name}`;
const query = (name: string) => `stream:sql_query:${ENV}:lksqlc-8p2v6d/${name}`;
const connector = (cluster: string, name: string) => `stream:connector:${ENV}:${cluster}/${name}`;
const group = (cluster: string, name: string) => `stream:consumer_group:${ENV}:${cluster}/${name}`;
const DEDICATED = 'lkc-7x9m2p';
const STANDARD = 'lkc-3k8w5n';
const ORDERS = topic(DEDICATED, 'pg.retail.public.orders');
const ENRICHED = topic(DEDICATED, 'orders_enriched');
const FOR_BI = topic(STANDARD, 'orders_for_bi');
const CLICKSTREAM = topic(DEDICATED, 'clickstream');
const ELASTICSEARCH = `external:external_dataset:${ENV}:elasticsearch://search-acme-clicks.us-east-1.es.amazonaws.com`;
const POSTGRES = `external:external_dataset:${ENV}:postgres://retail-db.c8x2k4.us-east-1.rds.amazonaws.com:5432/retail.public.`;

interface Column {
  node_id: string;
  field: string;
  hops: number;
  via: string[];
  type: string;
  subtype: string;
}
interface Impact {
  origin: { node_id: string; field: string };
  direction: string;
  columns: Column[];
  jobs: string[];
  node_count: number;
}

/** `[node_id, field, hops, via...]` rows of an answer, in its order. */
const rows = (impact: Impact) =>
  impact.columns.map((column) => [column.node_id, column.field, column.hops, column.via.join(';')]);

describe('field-level impact on the demo estate', () => {
  let api: TestApi;
  let graphId: string;
  let demo: LineageGraph;
  const impact = async (parameters: string): Promise<Impact> => {
    const answer = await call(api.base, 'GET', `/api/v1/graphs/${graphId}/impact?${parameters}`);
    assert.equal(answer.status, 200, answer.text);
    return answer.body as Impact;
  };

  before(async () => {
    const scenario = await loadScenario('demo');
    const simulator = await startPlatformSimulator({ scenario });
    try {
      const environmentIds = scenario.environments.map((environment) => environment.id);
      demo = (await extract({ platform: fastApi(simulator), logger: silentLogger() }, { environmentIds })).graph;
    } finally {
      await simulator.close();
    }
    api = await startApi();
    const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'impact' } });
    graphId = (created.body as { graph_id: string }).graph_id;
    const imported = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import`, { json: demo });
    assert.equal(imported.status, 200, imported.text);
  });
  after(() => api?.dispose());

  it('follows a CDC field through Flink SQL, Tableflow, a mirror topic and connectors (downstream)', async () => {
    const answer = await impact(`node_id=${enc(ORDERS)}&field=after.customer_id`);
    assert.deepEqual(answer.origin, { node_id: ORDERS, field: 'after.customer_id' });
    assert.equal(answer.direction, 'downstream');
    const enrich = job('enrich-orders');
    const snowflake = connector(STANDARD, 'snowflake-bi-sink');
    const bigQuery = connector(DEDICATED, 'bq-revenue-sink');
    const archive = connector(DEDICATED, 's3-orders-archive');
    assert.deepEqual(rows(answer), [
      [`lakehouse:catalog_table:${ENV}:retail_prod.lkc-7x9m2p.orders_enriched`, 'customer_id', 1, enrich],
      [`stream:materialized_table:${ENV}:lkc-7x9m2p/orders_enriched`, 'customer_id', 1, enrich],
      [topic(STANDARD, 'dedicated.orders_enriched'), 'customer_id', 1, enrich],
      [ENRICHED, 'customer_id', 1, enrich],
      [
        `external:external_dataset:${ENV}:s3://acme-retail-archive/raw/orders`,
        'customer_id',
        2,
        `${enrich};${archive}`,
      ],
      [FOR_BI, 'customer_id', 2, `${enrich};${job('orders-to-bi')}`],
      [topic(DEDICATED, 'customer_ltv'), 'customer_id', 2, `${enrich};${job('customer-ltv')}`],
      [topic(DEDICATED, 'dlq-lcc-s3a7k2'), '*', 2, `${enrich};${archive}`],
      [
        `external:external_dataset:${ENV}:snowflake://acme-analytics.snowflakecomputing.com/RETAIL.BI`,
        'customer_id',
        3,
        `${enrich};${job('orders-to-bi')};${snowflake}`,
      ],
      [topic(STANDARD, 'dlq-lcc-sf5h1q'), '*', 3, `${enrich};${job('orders-to-bi')};${snowflake}`],
      [topic(DEDICATED, 'dlq-lcc-bq42r7'), '*', 3, `${enrich};${job('customer-ltv')};${bigQuery}`],
      [
        `warehouse:catalog_table:${ENV}:acme-analytics.retail_reporting.customer_ltv`,
        'customer_id',
        3,
        `${enrich};${job('customer-ltv')};${bigQuery}`,
      ],
    ]);
    assert.ok(answer.columns.every((column) => column.type === 'DIRECT'));
    assert.deepEqual(
      answer.columns.filter((column) => column.field === '*').map((column) => column.subtype),
      Array(3).fill('UNKNOWN'),
      'a dead-letter topic is a hop of unknown transformation, kept',
    );
    assert.deepEqual(answer.jobs, [
      group(DEDICATED, 'order-status-notifier'),
      enrich,
      archive,
      group(STANDARD, 'finance-reconciliation'),
      group(DEDICATED, 'fraud-scoring-service'),
      job('customer-ltv'),
      job('orders-to-bi'),
      job('workspace-2024-09-03-101512-3f0c2a9e'),
      snowflake,
      bigQuery,
      group(STANDARD, 'bi-dashboard-refresher'),
    ]);
    assert.ok(
      !answer.jobs.includes(job('orders-per-minute')),
      'a statement that does not read the column is not impacted',
    );
    assert.equal(answer.node_count, 12 + 11, 'the datasets of the columns (12) and the jobs (11)');
    // The BigQuery sink writes customer_ltv to its own table only (the table names its source topic).
    assert.ok(!answer.columns.some((column) => column.node_id.endsWith('retail_reporting.order_revenue_1m')));
  });

  it('walks upstream from a column to the CDC topic and, through Debezium, to the table column', async () => {
    const answer = await impact(`node_id=${enc(FOR_BI)}&field=customer_id&direction=upstream`);
    const cdc = connector(DEDICATED, 'pg-retail-cdc');
    const path = `${job('orders-to-bi')};${job('enrich-orders')}`;
    assert.deepEqual(rows(answer), [
      [ENRICHED, 'customer_id', 1, job('orders-to-bi')],
      [ORDERS, 'after.customer_id', 2, path],
      [`${POSTGRES}orders`, 'customer_id', 3, `${path};${cdc}`],
    ]);
    assert.deepEqual(answer.jobs, [job('orders-to-bi'), job('enrich-orders'), cdc]);
    const shallow = await impact(`node_id=${enc(FOR_BI)}&field=customer_id&direction=upstream&depth=1`);
    assert.deepEqual(rows(shallow), [[ENRICHED, 'customer_id', 1, job('orders-to-bi')]]);
    assert.deepEqual(shallow.jobs, [job('orders-to-bi')]);
  });

  it('matches ksqlDB names case-insensitively (the schema says user_id, the queries USER_ID)', async () => {
    const answer = await impact(`node_id=${enc(CLICKSTREAM)}&field=user_id`);
    const opensearch = connector(DEDICATED, 'opensearch-clicks');
    assert.deepEqual(rows(answer), [
      [ELASTICSEARCH, 'user_id', 1, opensearch],
      [topic(DEDICATED, 'checkout_clicks'), 'USER_ID', 1, query('CSAS_CHECKOUT_CLICKS_5')],
      [topic(DEDICATED, 'clickstream_bots'), 'USER_ID', 1, query('CSAS_CLICKSTREAM_BOTS_1')],
      [topic(DEDICATED, 'dlq-lcc-os9d3m'), '*', 1, opensearch],
      // The sink writes each topic's fields as they are named: the bots topic's USER_ID too.
      [ELASTICSEARCH, 'USER_ID', 2, `${query('CSAS_CLICKSTREAM_BOTS_1')};${opensearch}`],
    ]);
    assert.ok(!answer.jobs.includes(query('CTAS_CLICKSTREAM_SESSIONS_3')), 'the sessions query does not read USER_ID');
    // The origin takes the node's own spelling.
    const upper = await impact(`node_id=${enc(CLICKSTREAM)}&field=USER_ID`);
    assert.deepEqual(upper.origin, { node_id: CLICKSTREAM, field: 'user_id' });
  });

  it('adds INDIRECT columns with include=indirect, each marked, and only then', async () => {
    const direct = await impact(`node_id=${enc(ENRICHED)}&field=status`);
    assert.ok(!direct.columns.some((column) => column.node_id === FOR_BI));
    const answer = await impact(`node_id=${enc(ENRICHED)}&field=status&include=indirect`);
    const indirect = answer.columns.filter((column) => column.type === 'INDIRECT' && column.hops === 1);
    assert.deepEqual(
      indirect.map((column) => [column.node_id, column.field, column.subtype]),
      [
        ...['customer_id', 'loyalty_tier', 'order_date', 'order_id', 'total_amount'].map((field) => [
          FOR_BI,
          field,
          'FILTER',
        ]),
        ...['customer_id', 'lifetime_orders', 'lifetime_value'].map((field) => [
          topic(DEDICATED, 'customer_ltv'),
          field,
          'FILTER',
        ]),
      ],
    );
    // What a direct walk reaches stays DIRECT.
    for (const column of direct.columns)
      assert.ok(
        answer.columns.some(
          (other) => other.node_id === column.node_id && other.field === column.field && other.type === 'DIRECT',
        ),
      );
  });

  it('walks a windowed Flink statement: window_start/window_end DIRECT, its other columns INDIRECT WINDOW', async () => {
    const revenue = topic(DEDICATED, 'order_revenue_1m');
    const perMinute = job('orders-per-minute');
    const ofRevenue = (impact: Impact) =>
      impact.columns
        .filter((column) => column.node_id === revenue)
        .map((column) => [column.field, column.hops, column.via.join(';'), column.type, column.subtype]);
    // The TUMBLE's DESCRIPTOR column: the window bounds are computed from it.
    const direct = await impact(`node_id=${enc(ENRICHED)}&field=order_time&depth=1`);
    assert.deepEqual(ofRevenue(direct), [
      ['window_end', 1, perMinute, 'DIRECT', 'TRANSFORMATION'],
      ['window_start', 1, perMinute, 'DIRECT', 'TRANSFORMATION'],
    ]);
    // ... and it windows every other output column.
    const answer = await impact(`node_id=${enc(ENRICHED)}&field=order_time&depth=1&include=indirect`);
    assert.deepEqual(ofRevenue(answer), [
      ['currency', 1, perMinute, 'INDIRECT', 'WINDOW'],
      ['order_count', 1, perMinute, 'INDIRECT', 'WINDOW'],
      ['revenue', 1, perMinute, 'INDIRECT', 'WINDOW'],
      ['window_end', 1, perMinute, 'DIRECT', 'TRANSFORMATION'],
      ['window_start', 1, perMinute, 'DIRECT', 'TRANSFORMATION'],
    ]);
    const upstream = await impact(`node_id=${enc(revenue)}&field=revenue&direction=upstream&include=indirect&depth=1`);
    assert.deepEqual(
      upstream.columns.map((column) => [column.node_id, column.field, column.type, column.subtype]),
      [
        [ENRICHED, 'currency', 'INDIRECT', 'GROUP_BY'],
        [ENRICHED, 'order_time', 'INDIRECT', 'WINDOW'],
        [ENRICHED, 'total_amount', 'DIRECT', 'AGGREGATION'],
      ],
    );
  });

  it("names a positional INSERT's outputs after the sink's columns: the stopped backfill statement", async () => {
    // INSERT INTO orders_enriched SELECT i.order_id, CAST(NULL ...), ..., i.unit_price * i.quantity, 'USD',
    // i.$rowtime FROM order_items: no column list, so Flink writes by position (total_amount, order_time).
    const backfill = job('backfill-order-items-v1');
    const items = topic(DEDICATED, 'pg.retail.public.order_items');
    const down = await impact(`node_id=${enc(items)}&field=unit_price&depth=1`);
    assert.deepEqual(
      down.columns
        .filter((column) => column.node_id === ENRICHED)
        .map((column) => [column.field, column.via.join(';'), column.subtype]),
      [['total_amount', backfill, 'TRANSFORMATION']],
    );
    const amount = await impact(`node_id=${enc(ENRICHED)}&field=total_amount&direction=upstream&depth=1`);
    assert.deepEqual(rows(amount), [
      [items, 'quantity', 1, backfill],
      [items, 'unit_price', 1, backfill],
      [ORDERS, 'after.total_amount', 1, job('enrich-orders')],
    ]);
    const time = await impact(`node_id=${enc(ENRICHED)}&field=order_time&direction=upstream&depth=1`);
    assert.deepEqual(rows(time), [
      [items, '$rowtime', 1, backfill],
      [ORDERS, '$rowtime', 1, job('enrich-orders')],
    ]);
    // The sink has no column named after the query's expressions.
    const unknown = await call(
      api.base,
      'GET',
      `/api/v1/graphs/${graphId}/impact?node_id=${enc(ENRICHED)}&field=${enc('$rowtime')}`,
    );
    assert.equal(unknown.status, 404, unknown.text);
  });

  it('streams the answer as CSV, one row per column, via joined with ;', async () => {
    const json = await impact(`node_id=${enc(ORDERS)}&field=after.customer_id`);
    const answer = await call(
      api.base,
      'GET',
      `/api/v1/graphs/${graphId}/impact?node_id=${enc(ORDERS)}&field=after.customer_id&format=csv`,
    );
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.type, /^text\/csv/);
    const lines = answer.text.trimEnd().split('\n');
    assert.equal(lines[0], 'node_id,field,hops,via');
    assert.deepEqual(
      lines.slice(1),
      json.columns.map((column) => [column.node_id, column.field, column.hops, column.via.join(';')].join(',')),
    );
    const marked = await call(
      api.base,
      'GET',
      `/api/v1/graphs/${graphId}/impact?node_id=${enc(ENRICHED)}&field=status&include=indirect&format=csv`,
    );
    assert.equal(marked.text.split('\n')[0], 'node_id,field,hops,via,type,subtype');
    assert.ok(marked.text.includes(`${FOR_BI},order_id,1,${job('orders-to-bi')},INDIRECT,FILTER`));
  });

  it('answers the impact as of an earlier revision', async () => {
    const before = await call(api.base, 'GET', `/api/v1/graphs/${graphId}`);
    const revision = (before.body as { revision: number }).revision;
    const without = demo.edges.filter(
      (edge) => !(edge.src_id === job('orders-to-bi') && edge.edge_type === 'PRODUCES'),
    );
    const replaced = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import?mode=replace`, {
      json: { nodes: demo.nodes, edges: without },
    });
    assert.equal(replaced.status, 200, replaced.text);
    const now = await impact(`node_id=${enc(ENRICHED)}&field=customer_id`);
    assert.ok(!now.columns.some((column) => column.node_id === FOR_BI), 'the statement no longer writes orders_for_bi');
    const then = await impact(`node_id=${enc(ENRICHED)}&field=customer_id&as_of=${revision}`);
    assert.ok(then.columns.some((column) => column.node_id === FOR_BI && column.field === 'customer_id'));
    const restored = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import?mode=replace`, { json: demo });
    assert.equal(restored.status, 200, restored.text);
  });

  it('diffs at column level: a field removed from a schema, a statement that stopped reading a column', async () => {
    const before = (await call(api.base, 'GET', `/api/v1/graphs/${graphId}`)).body as { revision: number };
    const schema = `stream:schema:${ENV}:orders_enriched-value`;
    const nodes = demo.nodes.map((node) =>
      node.id === schema
        ? {
            ...node,
            attributes: {
              ...node.attributes,
              fields: (node.attributes!.fields as Array<{ name: string }>).filter(
                (field) => field.name !== 'loyalty_tier',
              ),
            },
          }
        : node,
    );
    const edges = demo.edges.map((edge) =>
      edge.src_id === job('orders-to-bi') && edge.edge_type === 'PRODUCES'
        ? {
            ...edge,
            attributes: {
              column_lineage: (edge.attributes!.column_lineage as Array<{ output: string }>).filter(
                (entry) => entry.output !== 'loyalty_tier',
              ),
            },
          }
        : edge,
    );
    const changed = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import?mode=replace`, {
      json: { nodes, edges },
    });
    assert.equal(changed.status, 200, changed.text);
    const answer = await call(api.base, 'GET', `/api/v1/graphs/${graphId}/diff/columns?from=${before.revision}`);
    assert.equal(answer.status, 200, answer.text);
    const diff = answer.body as {
      fields: { added: unknown[]; removed: unknown[] };
      column_edges: { added: unknown[]; removed: Array<{ input: unknown; output: unknown; subtype: string }> };
    };
    assert.deepEqual(diff.fields, { added: [], removed: [{ node_id: schema, field: 'loyalty_tier' }] });
    assert.deepEqual(diff.column_edges.added, []);
    assert.deepEqual(
      diff.column_edges.removed.map((edge) => [edge.input, edge.output, edge.subtype]),
      [
        [{ node_id: ENRICHED, field: 'loyalty_tier' }, { node_id: FOR_BI, field: 'loyalty_tier' }, 'IDENTITY'],
        [{ node_id: ENRICHED, field: 'status' }, { node_id: FOR_BI, field: 'loyalty_tier' }, 'FILTER'],
      ],
    );
    // The impact as of then still has the column; now it has not.
    const now = await impact(`node_id=${enc(ENRICHED)}&field=loyalty_tier`);
    assert.ok(!now.columns.some((column) => column.node_id === FOR_BI));
    const then = await impact(`node_id=${enc(ENRICHED)}&field=loyalty_tier&as_of=${before.revision}`);
    assert.ok(then.columns.some((column) => column.node_id === FOR_BI && column.field === 'loyalty_tier'));
    const restored = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import?mode=replace`, { json: demo });
    assert.equal(restored.status, 200, restored.text);
    assertProblem(await call(api.base, 'GET', `/api/v1/graphs/${graphId}/diff/columns?from=yesterday`), 400);
  });

  it('answers problem+json for an unknown node or field, a bad direction, depth or include, and a job', async () => {
    const get = (parameters: string) => call(api.base, 'GET', `/api/v1/graphs/${graphId}/impact?${parameters}`);
    assertProblem(
      await get(`node_id=${enc('stream:topic:nope')}&field=x`),
      404,
      /node "stream:topic:nope" is not in the graph/,
    );
    const field = assertProblem(await get(`node_id=${enc(ENRICHED)}&field=no_such_field`), 404);
    assert.match(String(field.detail), /field "no_such_field" is not a known field/);
    assert.match(
      String(field.detail),
      /order_id, customer_id, customer_email, loyalty_tier, status, total_amount, currency, order_time/,
    );
    assertProblem(await get(`node_id=${enc(ENRICHED)}&field=status&direction=sideways`), 400);
    assertProblem(await get(`node_id=${enc(ENRICHED)}&field=status&depth=0`), 400);
    assertProblem(await get(`node_id=${enc(ENRICHED)}&field=status&depth=51`), 400);
    assertProblem(await get(`node_id=${enc(ENRICHED)}&field=status&include=everything`), 400);
    assertProblem(await get(`node_id=${enc(ENRICHED)}&field=status&format=xml`), 400);
    assertProblem(await get(`node_id=${enc(ENRICHED)}`), 400);
    assertProblem(await get(`node_id=${enc(job('enrich-orders'))}&field=status`), 400, /not a dataset/);
    assertProblem(await get(`node_id=${enc(ENRICHED)}&field=status&as_of=yesterday`), 400);
    assertProblem(await call(api.base, 'GET', `/api/v1/graphs/nope/impact?node_id=${enc(ENRICHED)}&field=status`), 404);
  });
});
