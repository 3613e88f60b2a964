/**
 * The warehouse provider (Google BigQuery + Data Lineage API).
 *
 * Pure parts: table parts from the node, console deep link, int64 parsing, attributes from the
 * captured `tables.get` fixture (views without a row count), namespace normalization (stream ->
 * `kafka://{cluster}`, warehouse and BigQuery URIs -> `bigquery`, other systems dropped, column
 * lineage inputs rewritten), events of the pushed job types only, events left empty skipped, the
 * provider over a fake port (credentials failure, push failures), Google error bodies.
 *
 * Over real sockets against the Google simulator (`simulators/google/`): retries on 429 and
 * 503, retries exhausted, 404/403 skipped with warnings, the demo extraction's warehouse tables
 * (one per topic of the BigQuery sink) enriched end to end, downstream discovery through
 * `searchLinks` (derived tables, TRANSFORMS, catalog jobs, two levels; link search faults;
 * paging, cycles and the depth bound), push end to end (one event per pushed job node, normalized
 * namespaces, idempotent re-push through `requestId`, unchanged through the ledger), a permission
 * fault on one job reported for that job while the others are sent (and only that job sent by the
 * next push), application-default credentials missing, `POST /api/v1/push/warehouse` and
 * `GET /api/v1/catalogs`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sharedFixture } from '../helpers/sharedFixtures.js';
import { pushToCatalog } from '../../infra/catalogs/catalogService.js';
import { notPermitted } from '../../infra/confluent/failureAdvice.js';
import {
  applicationDefaultTokenProvider,
  createGoogleClient,
  googleService,
  NO_CREDENTIALS_MESSAGE,
  parseGoogleError,
  type GoogleClient,
} from '../../infra/catalogs/googleClient.js';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import {
  googleFqn,
  loadGoogleScenario,
  startGoogleSimulator,
  type GoogleSimulator,
} from '../../simulators/google/index.js';
import {
  applyEnrichment,
  CatalogApiError,
  createMemoryPushLedger,
  DEFAULT_PUSH_OPTIONS,
} from '../../src/catalogs/provider.js';
import {
  dataplexBootstrap,
  int64,
  kafkaTopicFqn,
  schemaAspectKey,
  topicEntries,
  topicEntryId,
  normalizeRunEvent,
  processName,
  pushableGraph,
  requestIdOf,
  tableAttributes,
  warehouseDatasetIdentity,
  warehouseDeepLink,
  warehouseEvents,
  warehouseProvider,
  warehouseTableParts,
  WarehouseCredentialsError,
  type BigQueryTable,
  type WarehouseCatalogPort,
} from '../../src/catalogs/warehouse/index.js';
import { loadConfig } from '../../src/config.js';
import { extract } from '../../src/extraction/extract.js';
import {
  catalogJobId,
  connectorId,
  consumerGroupId,
  lakehouseTableId,
  streamJobId,
  topicId,
  warehouseTableId,
  warehouseTableName,
} from '../../src/graph/ids.js';
import type { Edge, LineageGraph, Node } from '../../src/graph/model.js';
import { silentLogger } from '../../src/logger.js';
import type { RunEvent } from '../../src/openlineage/model.js';
import { DEDICATED, PROD, fastApi } from '../extraction/helpers.js';
import { call, startApi } from '../http/helpers.js';

const FIXTURE = 'catalogs/bigquery/tables-get-response.bq-show-public-ghcnd_2025.json';
const DOCS_EXAMPLE = 'catalogs/google-datalineage/processOpenLineageRunEvent-request.docs-example.json';
const PROJECT = 'acme-analytics';
const DATASET = 'retail_reporting';
const NOW = new Date('2026-01-15T10:00:00Z');

function node(partial: Partial<Node> & Pick<Node, 'id' | 'node_type' | 'system' | 'qualified_name'>): Node {
  return { display_name: partial.qualified_name, environment_id: PROD, cluster_id: null, attributes: {}, ...partial };
}
const edge = (src_id: string, edge_type: Edge['edge_type'], dst_id: string): Edge => ({
  src_id,
  dst_id,
  edge_type,
  attributes: null,
});

function warehouseTable(project: string, dataset: string, table: string, clusterId: string | null = DEDICATED): Node {
  return node({
    id: warehouseTableId(PROD, project, dataset, table),
    node_type: 'CATALOG_TABLE',
    system: 'WAREHOUSE',
    qualified_name: `${project}.${dataset}.${table}`,
    display_name: table,
    cluster_id: clusterId,
    catalog_type: 'WAREHOUSE_LINEAGE',
    attributes: { project_id: project, dataset_id: dataset, table_name: table },
  });
}

/** A small graph: source topic -> BigQuery sink -> warehouse table; a Flink job; a consumer group; a lakehouse-only job. */
function smallGraph(): LineageGraph {
  const orders = node({
    id: topicId(PROD, DEDICATED, 'orders.v1'),
    node_type: 'TOPIC',
    system: 'STREAM',
    qualified_name: `${DEDICATED}/orders.v1`,
    cluster_id: DEDICATED,
  });
  const revenue = node({
    id: topicId(PROD, DEDICATED, 'revenue'),
    node_type: 'TOPIC',
    system: 'STREAM',
    qualified_name: `${DEDICATED}/revenue`,
    cluster_id: DEDICATED,
  });
  const sink = node({
    id: connectorId(PROD, DEDICATED, 'bq-sink'),
    node_type: 'CONNECTOR',
    system: 'STREAM',
    qualified_name: `${DEDICATED}/bq-sink`,
    cluster_id: DEDICATED,
  });
  const flink = node({
    id: streamJobId(PROD, 'revenue-job'),
    node_type: 'STREAM_JOB',
    system: 'STREAM',
    qualified_name: 'revenue-job',
  });
  const group = node({
    id: consumerGroupId(PROD, DEDICATED, 'readers'),
    node_type: 'CONSUMER_GROUP',
    system: 'STREAM',
    qualified_name: `${DEDICATED}/readers`,
    cluster_id: DEDICATED,
  });
  const lakeA = node({
    id: lakehouseTableId(PROD, 'main', 's', 'a'),
    node_type: 'CATALOG_TABLE',
    system: 'LAKEHOUSE',
    qualified_name: 'main.s.a',
    catalog_type: 'LAKEHOUSE_CATALOG',
  });
  const lakeB = node({
    id: lakehouseTableId(PROD, 'main', 's', 'b'),
    node_type: 'CATALOG_TABLE',
    system: 'LAKEHOUSE',
    qualified_name: 'main.s.b',
    catalog_type: 'LAKEHOUSE_CATALOG',
  });
  const lakeJob = node({
    id: streamJobId(PROD, 'lake-only'),
    node_type: 'STREAM_JOB',
    system: 'STREAM',
    qualified_name: 'lake-only',
  });
  const table = warehouseTable(PROJECT, DATASET, 'revenue');
  return {
    nodes: [orders, revenue, sink, flink, group, lakeA, lakeB, lakeJob, table],
    edges: [
      edge(orders.id, 'CONSUMES', flink.id),
      edge(flink.id, 'PRODUCES', revenue.id),
      edge(revenue.id, 'CONSUMES', sink.id),
      edge(sink.id, 'PRODUCES', table.id),
      edge(orders.id, 'CONSUMES', group.id),
      edge(lakeA.id, 'CONSUMES', lakeJob.id),
      edge(lakeJob.id, 'PRODUCES', lakeB.id),
      edge(lakeA.id, 'TRANSFORMS', lakeB.id),
    ],
  };
}

describe('warehouse provider: pure parts', () => {
  it('reads table parts from attributes or the qualified name, and builds the console deep link', () => {
    assert.deepEqual(warehouseTableParts(warehouseTable('p', 'd', 't')), { project: 'p', dataset: 'd', table: 't' });
    assert.deepEqual(warehouseTableParts({ qualified_name: 'example.com:proj.sales.orders_v1', attributes: null }), {
      project: 'example.com:proj',
      dataset: 'sales',
      table: 'orders_v1',
    });
    assert.deepEqual(warehouseTableParts({ qualified_name: 'sales.orders', attributes: null }, 'fallback'), {
      project: 'fallback',
      dataset: 'sales',
      table: 'orders',
    });
    assert.equal(warehouseTableName('pg.retail-public.orders'), 'pg_retail_public_orders');
    assert.equal(
      warehouseDeepLink('example.com:proj', 'sales', 'orders'),
      'https://console.cloud.google.com/bigquery?project=example.com%3Aproj&p=example.com%3Aproj&d=sales&t=orders&page=table',
    );
    assert.deepEqual(
      [int64('26803823'), int64(5), int64('1.5'), int64(undefined), int64('')],
      [26803823, 5, null, null, null],
    );
  });

  it('maps a captured tables.get body to the enrichment attributes', (t) => {
    const body = sharedFixture<BigQueryTable>(t, FIXTURE);
    if (!body) return;
    const attributes = tableAttributes(body, {
      project: 'bigquery-public-data',
      dataset: 'ghcn_d',
      table: 'ghcnd_2025',
    });
    assert.equal(attributes.table_type, 'TABLE');
    assert.equal(attributes.num_rows, 26803823);
    assert.equal(attributes.num_bytes, 3098123624);
    assert.equal(attributes.creation_time, 1735871501647);
    assert.equal(attributes.last_modified_time, 1763360917481);
    assert.equal(attributes.location, 'US');
    const columns = attributes.columns as Array<{ name: string; type: string; description: string | null }>;
    assert.deepEqual(columns[0], { name: 'id', type: 'STRING', description: null });
    assert.equal(columns.find((c) => c.name === 'etl_timestamp')?.description, 'Load time for this data row');
    assert.deepEqual(attributes.labels, {});
    assert.match(String(attributes.url), /d=ghcn_d&t=ghcnd_2025&page=table$/);
    const view = tableAttributes(
      {
        type: 'VIEW',
        numRows: '0',
        numBytes: '0',
        schema: { fields: [{ name: 'a', type: 'RECORD', fields: [{ name: 'b', type: 'STRING' }] }] },
      },
      { project: 'p', dataset: 'd', table: 'v' },
    );
    assert.equal(view.num_rows, null);
    assert.equal(view.num_bytes, 0);
    assert.deepEqual(view.columns, [
      { name: 'a', type: 'RECORD', description: null, fields: [{ name: 'b', type: 'STRING', description: null }] },
    ]);
  });

  it('normalizes dataset namespaces: stream -> kafka by cluster, warehouse and BigQuery URIs -> bigquery, others dropped', () => {
    assert.deepEqual(warehouseDatasetIdentity(`stream://${PROD}/${DEDICATED}`, 'orders.v1'), {
      namespace: `kafka://${DEDICATED}`,
      name: 'orders.v1',
    });
    assert.equal(warehouseDatasetIdentity(`stream://${PROD}`, 'orders'), null);
    assert.deepEqual(warehouseDatasetIdentity('kafka://broker:9092', 'orders'), {
      namespace: 'kafka://broker:9092',
      name: 'orders',
    });
    assert.deepEqual(warehouseDatasetIdentity(`warehouse://${PROJECT}/${DATASET}`, 'revenue'), {
      namespace: 'bigquery',
      name: `${PROJECT}.${DATASET}.revenue`,
    });
    assert.deepEqual(warehouseDatasetIdentity(`warehouse://${PROJECT}`, `${PROJECT}.${DATASET}.revenue`), {
      namespace: 'bigquery',
      name: `${PROJECT}.${DATASET}.revenue`,
    });
    assert.equal(warehouseDatasetIdentity(`warehouse://${PROJECT}`, 'loose'), null);
    assert.deepEqual(warehouseDatasetIdentity('bigquery', 'p.d.t'), { namespace: 'bigquery', name: 'p.d.t' });
    assert.deepEqual(warehouseDatasetIdentity(`bigquery://${PROJECT}`, DATASET), {
      namespace: 'bigquery',
      name: `${PROJECT}.${DATASET}`,
    });
    assert.deepEqual(warehouseDatasetIdentity(`bigquery://${PROJECT}`, `${DATASET}/t`), {
      namespace: 'bigquery',
      name: `${PROJECT}.${DATASET}.t`,
    });
    for (const other of [
      'lakehouse://dbc-1.cloud.databricks.com',
      'datalake://eu-west-1/db',
      's3://bucket',
      'postgres://db:5432',
    ])
      assert.equal(warehouseDatasetIdentity(other, 'x'), null, other);
  });

  it('rewrites events, drops foreign datasets and column lineage inputs, and skips events left empty', (t) => {
    const docsExample = sharedFixture<RunEvent>(t, DOCS_EXAMPLE);
    if (!docsExample) return;
    assert.equal(normalizeRunEvent(docsExample), null, 'the docs example only has namespaces of another system');
    const event: RunEvent = {
      ...docsExample,
      job: { namespace: `stream://${PROD}/${DEDICATED}`, name: 'bq-sink' },
      inputs: [
        { namespace: `stream://${PROD}/${DEDICATED}`, name: 'revenue' },
        { namespace: 's3://bucket', name: 'x' },
      ],
      outputs: [
        {
          namespace: `warehouse://${PROJECT}/${DATASET}`,
          name: 'revenue',
          facets: {
            columnLineage: {
              _producer: 'https://example.com',
              _schemaURL: 'https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json',
              fields: {
                amount: {
                  inputFields: [
                    { namespace: `stream://${PROD}/${DEDICATED}`, name: 'revenue', field: 'amount' },
                    { namespace: 's3://bucket', name: 'x', field: 'y' },
                  ],
                },
                other: { inputFields: [{ namespace: 's3://bucket', name: 'x', field: 'z' }] },
              },
            },
          },
        },
      ],
    };
    const normalized = normalizeRunEvent(event)!;
    assert.deepEqual(normalized.inputs, [{ namespace: `kafka://${DEDICATED}`, name: 'revenue' }]);
    assert.equal(normalized.outputs[0]!.namespace, 'bigquery');
    assert.equal(normalized.outputs[0]!.name, `${PROJECT}.${DATASET}.revenue`);
    assert.deepEqual((normalized.outputs[0]!.facets!.columnLineage as unknown as { fields: unknown }).fields, {
      amount: { inputFields: [{ namespace: `kafka://${DEDICATED}`, name: 'revenue', field: 'amount' }] },
    });
    assert.equal(normalized.job.namespace, `stream://${PROD}/${DEDICATED}`, 'the job namespace is kept');
    assert.equal(event.inputs.length, 2, 'the input event is not changed');
    assert.equal(googleFqn('kafka://lkc-1', 'orders.v1'), 'kafka:lkc-1.`orders.v1`');
    assert.equal(googleFqn('bigquery', 'p.d.t'), 'bigquery:p.d.t');
  });

  it('plans one event per connector, stream job and SQL query; consumer groups and TRANSFORMS are left out', () => {
    const graph = smallGraph();
    assert.deepEqual(
      pushableGraph(graph)
        .nodes.map((n) => n.node_type)
        .filter((t) => t === 'CONSUMER_GROUP'),
      [],
    );
    const plan = warehouseEvents(graph, NOW);
    assert.deepEqual(plan.events.map(processName).sort(), [
      `stream://${PROD}/${DEDICATED}:bq-sink`,
      `stream://${PROD}:revenue-job`, // no cluster or compute pool of its own: the environment's namespace
    ]);
    assert.deepEqual(plan.skipped, [`stream://${PROD}:lake-only`]);
    const sink = plan.events.find((e) => e.job.name === 'bq-sink')!;
    assert.deepEqual(
      sink.inputs.map((d) => [d.namespace, d.name]),
      [[`kafka://${DEDICATED}`, 'revenue']],
    );
    assert.deepEqual(
      sink.outputs.map((d) => [d.namespace, d.name]),
      [['bigquery', `${PROJECT}.${DATASET}.revenue`]],
    );
    assert.equal(sink.eventTime, NOW.toISOString());
    assert.match(requestIdOf(sink), /^[0-9a-f-]{36}$/);
    assert.equal(requestIdOf(sink), requestIdOf(structuredClone(sink)));
    assert.notEqual(requestIdOf(sink), requestIdOf({ ...sink, eventTime: '2026-01-16T10:00:00.000Z' }));
  });

  it('reports missing settings and runs over a fake port: credentials, failures, skipped tables', async () => {
    const config = loadConfig({});
    assert.deepEqual(warehouseProvider.missingSettings(config), [
      'LINEAGE_SVC_WAREHOUSE_PROJECT_ID',
      'LINEAGE_SVC_WAREHOUSE_LOCATION',
    ]);
    assert.equal(
      warehouseProvider.isConfigured(
        loadConfig({ LINEAGE_SVC_WAREHOUSE_PROJECT_ID: 'p', LINEAGE_SVC_WAREHOUSE_LOCATION: 'us' }),
      ),
      true,
    );
    const sent: string[] = [];
    const registered: string[] = [];
    const port = (authenticated: boolean): WarehouseCatalogPort => ({
      projectId: PROJECT,
      location: 'us',
      async authenticate() {
        if (!authenticated) throw new WarehouseCredentialsError(NO_CREDENTIALS_MESSAGE);
      },
      async getTable(ref) {
        if (ref.table === 'revenue') return { type: 'TABLE', numRows: '7' };
        throw new CatalogApiError('warehouse.bigquery.tables.get', 'status', 404, 'HTTP 404 notFound');
      },
      async searchLinks() {
        return {};
      },
      async batchSearchLinkProcesses() {
        return {};
      },
      async getProcess(name) {
        throw new CatalogApiError('warehouse.lineage.processes.get', 'status', 404, `HTTP 404 ${name}`);
      },
      async processOpenLineageRunEvent(event) {
        sent.push(event.job.name);
        if (event.job.name === 'revenue-job')
          throw new CatalogApiError(
            'warehouse.lineage.processOpenLineageRunEvent',
            'status',
            400,
            'HTTP 400 INVALID_ARGUMENT',
          );
        return {};
      },
      async ensureDataplexResource(collection, id) {
        registered.push(`${collection}/${id}`);
        return 'exists';
      },
      async createDataplexEntry(_group, entryId) {
        registered.push(entryId);
        if (entryId.endsWith('revenue'))
          throw new CatalogApiError('warehouse.dataplex.entries.create', 'status', 403, 'HTTP 403 PERMISSION_DENIED');
        return 'created';
      },
      async updateDataplexEntryAspects() {
        throw new Error('not expected: every entry is new');
      },
    });
    const graph = smallGraph();
    graph.nodes.push(warehouseTable(PROJECT, DATASET, 'ghost'));
    const noCredentials = await warehouseProvider.enrich(graph, { port: port(false) });
    assert.deepEqual(noCredentials.enrichments, []);
    assert.equal(noCredentials.warnings.length, 1);
    assert.match(noCredentials.warnings[0]!, /set LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN/);
    const enriched = await warehouseProvider.enrich(graph, { port: port(true) });
    assert.deepEqual(
      enriched.enrichments.map((e) => [e.node_id, e.attributes.num_rows]),
      [[warehouseTableId(PROD, PROJECT, DATASET, 'revenue'), 7]],
    );
    assert.deepEqual(enriched.warnings, [`warehouse: table ${PROJECT}.${DATASET}.ghost skipped: HTTP 404 notFound`]);
    const pushed = await warehouseProvider.push(
      graph,
      { ...DEFAULT_PUSH_OPTIONS, create_bridge_table: true },
      { port: port(true), now: NOW },
    );
    assert.equal(pushed.tables_updated, 1);
    assert.equal(pushed.errors.length, 2);
    assert.equal(pushed.errors[0], `dataplex: entry ${DEDICATED}-revenue not registered: HTTP 403 PERMISSION_DENIED`);
    assert.match(pushed.errors[1]!, /revenue-job \(run [0-9a-f-]{36}\): not sent: HTTP 400/);
    assert.deepEqual(registered, [
      'entryGroups/lineage-svc',
      'aspectTypes/lineage-svc-schema',
      'entryTypes/lineage-svc-topic',
      `${DEDICATED}-orders.v1`,
      `${DEDICATED}-revenue`,
    ]);
    assert.equal(pushed.skipped.length, 2);
    assert.deepEqual(sent.sort(), ['bq-sink', 'revenue-job']);
    const refused = await warehouseProvider.push(graph, DEFAULT_PUSH_OPTIONS, { port: port(false), now: NOW });
    assert.equal(refused.tables_updated, 0);
    assert.match(refused.errors.join('\n'), /^warehouse: nothing pushed: no Google credentials/);
  });

  it('builds Dataplex topic entries whose FQN matches the lineage reference, with the schema aspect', () => {
    assert.equal(kafkaTopicFqn(DEDICATED, 'orders.v1'), `kafka:${DEDICATED}.\`orders.v1\``);
    assert.equal(kafkaTopicFqn(DEDICATED, 'odd`name'), `kafka:${DEDICATED}.\`odd\`\`name\``);
    assert.equal(kafkaTopicFqn(DEDICATED, 'orders_v1'), `kafka:${DEDICATED}.orders_v1`);
    assert.equal(
      googleFqn(`kafka://${DEDICATED}`, 'orders.v1'),
      kafkaTopicFqn(DEDICATED, 'orders.v1'),
      'what the simulator derives like Google',
    );
    assert.equal(topicEntryId(DEDICATED, 'orders.v1'), `${DEDICATED}-orders.v1`);
    assert.equal(topicEntryId(DEDICATED, 'a b'), `${DEDICATED}-a_b`);
    assert.deepEqual(
      dataplexBootstrap('p', 'us').map((r) => `${r.collection}/${r.id}`),
      ['entryGroups/lineage-svc', 'aspectTypes/lineage-svc-schema', 'entryTypes/lineage-svc-topic'],
    );
    const graph = smallGraph();
    const schema = node({
      id: 'stream:schema:env:orders.v1-value',
      node_type: 'SCHEMA',
      system: 'STREAM',
      qualified_name: 'orders.v1-value',
      attributes: {
        fields: [
          { name: 'id', type: 'long' },
          { name: 'email', type: ['null', 'string'], doc: 'E-mail' },
        ],
      },
    });
    graph.nodes.push(
      schema,
      node({ id: 'stream:topic:env:placeholder', node_type: 'TOPIC', system: 'STREAM', qualified_name: 'placeholder' }),
    );
    graph.edges.push({
      src_id: topicId(PROD, DEDICATED, 'orders.v1'),
      dst_id: schema.id,
      edge_type: 'HAS_SCHEMA',
      attributes: { role: 'value' },
    });
    const entries = topicEntries(graph, 'p', 'us');
    assert.deepEqual(
      entries.map((e) => e.entryId),
      [`${DEDICATED}-orders.v1`, `${DEDICATED}-revenue`],
      'topics without a cluster are left out',
    );
    assert.deepEqual(entries[0]!.entry, {
      entryType: 'projects/p/locations/us/entryTypes/lineage-svc-topic',
      fullyQualifiedName: `kafka:${DEDICATED}.\`orders.v1\``,
      entrySource: { system: 'Confluent Cloud', platform: 'kafka', displayName: 'orders.v1' },
      aspects: {
        [schemaAspectKey('p', 'us')]: {
          data: {
            fields: [
              { name: 'id', type: 'long', description: '' },
              { name: 'email', type: '["null","string"]', description: 'E-mail' },
            ],
          },
        },
      },
    });
    assert.deepEqual(entries[1]!.entry.aspects['p.us.lineage-svc-schema'], { data: { fields: [] } });
  });

  it('parses both Google error envelopes', () => {
    assert.deepEqual(
      parseGoogleError(
        '{"error":{"code":404,"message":"Not found: Table p:d.t","errors":[{"reason":"notFound"}],"status":"NOT_FOUND"}}',
      ),
      {
        errorCode: 'NOT_FOUND',
        reason: 'notFound',
        message: 'Not found: Table p:d.t',
      },
    );
    assert.deepEqual(
      parseGoogleError('{"error":{"code":403,"message":"denied","errors":[{"reason":"rateLimitExceeded"}]}}'),
      { errorCode: 'rateLimitExceeded', reason: 'rateLimitExceeded', message: 'denied' },
    );
    assert.deepEqual(parseGoogleError('<html>Bad gateway</html>'), {
      errorCode: undefined,
      reason: undefined,
      message: '<html>Bad gateway</html>',
    });
  });
});

describe('warehouse provider against the Google simulator', () => {
  let google: GoogleSimulator;
  let platform: PlatformSimulator;
  let graph: LineageGraph;
  let client: GoogleClient;
  let extracted: LineageGraph;
  const tableIds = ['order_revenue_1m', 'customer_ltv'].map((table) => warehouseTableId(PROD, PROJECT, DATASET, table));

  before(async () => {
    google = await startGoogleSimulator({ scenario: await loadGoogleScenario('demo') });
    platform = await startPlatformSimulator({ scenario: await loadScenario('demo') });
    extracted = (
      await extract(
        { platform: fastApi(platform), logger: silentLogger() },
        { environmentIds: [PROD], warehouseProjectId: 'setting-project' },
      )
    ).graph;
    const sink = extracted.nodes.find((n) => n.node_type === 'CONNECTOR' && n.display_name === 'bq-revenue-sink');
    assert.ok(sink, 'the demo scenario has the BigQuery sink connector');
    // Tables the extraction does not know: one the principal may not read, one BigQuery does not have.
    const restricted = warehouseTable(PROJECT, 'finance_restricted', 'margins');
    const ghost = warehouseTable(PROJECT, DATASET, 'ghost_table');
    graph = { ...extracted, nodes: [...extracted.nodes, restricted, ghost] };
    client = createGoogleClient({
      projectId: PROJECT,
      location: 'us',
      bigQueryApiUrl: google.url,
      lineageApiUrl: google.url,
      dataplexApiUrl: google.url,
      accessToken: google.scenario.token,
      retryBaseDelayMs: 1,
      operationPollMs: 1,
    });
  });
  after(async () => {
    await google.close();
    await platform.close();
  });

  it('retries 429 and 503, and gives up after 3 retries', async () => {
    google.resetRequestLog();
    google.injectFault({ api: 'warehouse.bigquery.tables.get', status: 429, retry_after: 0 });
    google.injectFault({ api: 'warehouse.bigquery.tables.get', status: 503 });
    const table = await client.getTable({ project: PROJECT, dataset: DATASET, table: 'order_revenue_1m' });
    assert.equal(table.id, `${PROJECT}:${DATASET}.order_revenue_1m`);
    assert.deepEqual(
      google.requestLog().map((entry) => entry.status),
      [429, 503, 200],
    );

    google.injectFault({ api: 'warehouse.lineage.processOpenLineageRunEvent', status: 503, times: 4 });
    const plan = warehouseEvents(graph, NOW);
    await assert.rejects(client.processOpenLineageRunEvent(plan.events[0]!, 'retry-test'), (error: unknown) => {
      assert.ok(error instanceof CatalogApiError);
      assert.equal(error.failure, 'retries_exhausted');
      assert.equal(error.status, 503);
      return true;
    });
    assert.equal(google.requestCounts()['warehouse.lineage.processOpenLineageRunEvent'], 4);
    assert.equal(google.lineageEvents().length, 0);
  });

  it('extracts one warehouse table per topic of the demo BigQuery sink, with the project of its config', () => {
    const sink = extracted.nodes.find((n) => n.display_name === 'bq-revenue-sink')!;
    const tables = extracted.nodes.filter((n) => n.node_type === 'CATALOG_TABLE' && n.system === 'WAREHOUSE');
    assert.deepEqual(
      tables.map((n) => n.id).sort(),
      [...tableIds].sort(),
      'the config names acme-analytics, not the setting',
    );
    for (const table of tables) {
      assert.equal(table.catalog_type, 'WAREHOUSE_LINEAGE');
      assert.equal(table.cluster_id, sink.cluster_id);
      assert.ok(
        extracted.edges.some((e) => e.src_id === sink.id && e.edge_type === 'PRODUCES' && e.dst_id === table.id),
      );
      const topic = topicId(PROD, sink.cluster_id!, String(table.attributes!.source_topic));
      assert.ok(extracted.edges.some((e) => e.src_id === topic && e.edge_type === 'CONSUMES' && e.dst_id === sink.id));
    }
    assert.ok(!extracted.nodes.some((n) => n.qualified_name.startsWith('bigquery://')), 'no bigquery:// dataset');
  });

  it('enriches the extracted warehouse tables; 404 and 403 are skipped with warnings', async () => {
    const result = await warehouseProvider.enrich(graph, { port: client });
    assert.deepEqual([...result.warnings].sort(), [
      `warehouse: table ${PROJECT}.finance_restricted.margins skipped: warehouse.bigquery.tables.get: ` +
        `HTTP 403 PERMISSION_DENIED (GET /bigquery/v2/projects/${PROJECT}/datasets/finance_restricted/tables/margins): ` +
        `Access Denied: Table ${PROJECT}:finance_restricted.margins: Permission bigquery.tables.get denied on table ` +
        `${PROJECT}:finance_restricted.margins (or it may not exist).; ` +
        notPermitted(
          googleService('warehouse.bigquery.tables.get'),
          `${google.url}/bigquery/v2/projects/${PROJECT}/datasets/finance_restricted/tables/margins`,
        ),
      `warehouse: table ${PROJECT}.${DATASET}.ghost_table skipped: warehouse.bigquery.tables.get: HTTP 404 NOT_FOUND ` +
        `(GET /bigquery/v2/projects/${PROJECT}/datasets/${DATASET}/tables/ghost_table): ` +
        `Not found: Table ${PROJECT}:${DATASET}.ghost_table`,
    ]);
    const enriched = applyEnrichment(graph, result);
    const revenue = enriched.nodes.find((n) => n.id === tableIds[0])!;
    assert.equal(revenue.attributes!.table_type, 'TABLE');
    assert.equal(revenue.attributes!.num_rows, 1440);
    assert.equal(revenue.attributes!.num_bytes, 92160);
    assert.equal(revenue.attributes!.creation_time, 1725266400000);
    assert.equal(revenue.attributes!.last_modified_time, 1733043100000);
    assert.equal(
      revenue.attributes!.description,
      'Revenue per one-minute window, written by the BigQuery sink connector',
    );
    assert.deepEqual(revenue.attributes!.labels, { owner: 'analytics', source: 'confluent' });
    assert.equal(revenue.attributes!.location, 'US');
    assert.deepEqual((revenue.attributes!.columns as unknown[])[0], {
      name: 'window_start',
      type: 'TIMESTAMP',
      description: 'Start of the window',
    });
    assert.equal(revenue.attributes!.url, warehouseDeepLink(PROJECT, DATASET, 'order_revenue_1m'));
    const ltv = enriched.nodes.find((n) => n.id === tableIds[1])!;
    assert.deepEqual((ltv.attributes!.columns as Array<{ fields?: unknown }>)[2]!.fields, [
      { name: 'city', type: 'STRING', description: null },
      { name: 'country', type: 'STRING', description: null },
    ]);
    const view = enriched.nodes.find((n) => n.id === warehouseTableId(PROD, PROJECT, DATASET, 'revenue_daily'))!;
    assert.deepEqual([view.attributes!.table_type, view.attributes!.num_rows], ['VIEW', null]);
  });

  it('discovers downstream tables through searchLinks: derived, enriched, TRANSFORMS or a catalog job, two levels deep', async () => {
    const result = await warehouseProvider.enrich(graph, { port: client });
    const enriched = applyEnrichment(graph, result);
    const byId = new Map(enriched.nodes.map((n) => [n.id, n]));
    const has = (src: string, type: Edge['edge_type'], dst: string) =>
      enriched.edges.some((e) => e.src_id === src && e.edge_type === type && e.dst_id === dst);
    const [revenue] = tableIds as [string];
    const view = warehouseTableId(PROD, PROJECT, DATASET, 'revenue_daily');
    const monthly = warehouseTableId(PROD, PROJECT, DATASET, 'revenue_monthly');
    const forecast = warehouseTableId(PROD, PROJECT, 'finance_reporting', 'revenue_forecast');
    assert.deepEqual(
      result.newNodes.map((n) => n.id).sort(),
      [
        view,
        monthly,
        forecast,
        catalogJobId('WAREHOUSE', PROD, 'process/scheduled-revenue-rollup'),
        catalogJobId('WAREHOUSE', PROD, 'process/dataflow-revenue-forecast'),
      ].sort(),
    );
    for (const id of [view, monthly, forecast]) {
      const table = byId.get(id)!;
      assert.equal(table.attributes!.derived, true, id);
      assert.equal(table.catalog_type, 'WAREHOUSE_LINEAGE');
      assert.equal(table.cluster_id, byId.get(revenue)!.cluster_id, 'the cluster of the table it comes from');
    }
    assert.ok(has(revenue, 'TRANSFORMS', view), 'a link without a process is a TRANSFORMS edge');
    const rollup = catalogJobId('WAREHOUSE', PROD, 'process/scheduled-revenue-rollup');
    assert.ok(has(revenue, 'CONSUMES', rollup) && has(rollup, 'PRODUCES', monthly), 'the scheduled query between');
    assert.ok(!has(revenue, 'TRANSFORMS', monthly));
    const dataflow = catalogJobId('WAREHOUSE', PROD, 'process/dataflow-revenue-forecast');
    assert.ok(has(monthly, 'CONSUMES', dataflow) && has(dataflow, 'PRODUCES', forecast), 'the second level');
    assert.deepEqual(
      {
        node_type: byId.get(rollup)!.node_type,
        display_name: byId.get(rollup)!.display_name,
        job_kind: byId.get(rollup)!.attributes!.job_kind,
        process_name: byId.get(rollup)!.attributes!.process_name,
        process_attributes: byId.get(rollup)!.attributes!.process_attributes,
      },
      {
        node_type: 'CATALOG_JOB',
        display_name: 'Monthly revenue rollup (scheduled query)',
        job_kind: 'bigquery',
        process_name: `projects/${google.scenario.project_number}/locations/us/processes/scheduled-revenue-rollup`,
        process_attributes: { scheduled_query: 'monthly-revenue-rollup', owner: 'analytics' },
      },
    );
    assert.equal(byId.get(dataflow)!.attributes!.job_kind, 'dataflow');
    const forecastTable = byId.get(forecast)!.attributes!;
    assert.deepEqual(
      [forecastTable.table_type, forecastTable.num_rows, forecastTable.description, forecastTable.labels],
      ['TABLE', 12, 'Twelve-month revenue forecast', { owner: 'finance' }],
      'discovered tables are enriched too',
    );
    assert.equal(byId.get(view)!.attributes!.num_rows, null);
  });

  it('reports link search faults without stopping enrichment: unavailable once, or per table', async () => {
    google.injectFault({ api: 'warehouse.lineage.searchLinks', status: 403 });
    const denied = await warehouseProvider.enrich(graph, { port: client });
    const unavailable = denied.warnings.filter((w) => w.includes('downstream discovery unavailable'));
    assert.equal(unavailable.length, 1);
    assert.match(unavailable[0]!, /HTTP 403 PERMISSION_DENIED/);
    assert.equal(denied.enrichments.length, 2, 'both sink tables are still enriched');
    google.clearFaults();

    // One table's links cannot be read (retries exhausted): a warning for it, the other walks on.
    const flaky: WarehouseCatalogPort = {
      ...client,
      searchLinks: (fqn, pageToken) =>
        fqn.endsWith('.customer_ltv')
          ? Promise.reject(new CatalogApiError('warehouse.lineage.searchLinks', 'retries_exhausted', 503, 'HTTP 503'))
          : client.searchLinks(fqn, pageToken),
    };
    const failing = await warehouseProvider.enrich(graph, { port: flaky });
    assert.deepEqual(
      failing.warnings.filter((w) => w.includes('downstream lineage of')),
      [`warehouse: downstream lineage of ${PROJECT}.${DATASET}.customer_ltv not read: HTTP 503`],
    );
    assert.ok(
      failing.newNodes.some((n) => n.display_name === 'revenue_daily'),
      'the other table walks on',
    );

    google.injectFault({ api: 'warehouse.lineage.batchSearchLinkProcesses', status: 404, times: 1 });
    const noProcesses = await warehouseProvider.enrich(graph, { port: client });
    assert.equal(noProcesses.warnings.filter((w) => w.includes('processes of the links')).length, 1);
    const monthly = warehouseTableId(PROD, PROJECT, DATASET, 'revenue_monthly');
    assert.ok(
      noProcesses.newEdges.some((e) => e.edge_type === 'TRANSFORMS' && e.dst_id === monthly),
      'links whose processes could not be read become TRANSFORMS edges',
    );
    google.clearFaults();
  });

  it('pushes one event per pushed job node with normalized namespaces; a re-push is idempotent', async () => {
    const plan = warehouseEvents(graph, NOW);
    const jobNodes = graph.nodes.filter((n) => ['CONNECTOR', 'STREAM_JOB', 'SQL_QUERY'].includes(n.node_type));
    assert.ok(jobNodes.length >= 3);
    assert.equal(plan.events.length + plan.skipped.length, jobNodes.length, 'one event per pushed job node');
    const before = google.lineageEvents().length;
    const result = await warehouseProvider.push(graph, DEFAULT_PUSH_OPTIONS, { port: client, now: NOW });
    assert.deepEqual(result.errors, []);
    assert.equal(result.tables_updated, plan.events.length);
    assert.equal(result.skipped.length, plan.skipped.length);
    const received = google.lineageEvents().slice(before);
    assert.equal(received.length, plan.events.length);
    assert.equal(
      new Set(received.map((r) => processName(r.event as unknown as RunEvent))).size,
      received.length,
      'one event per job',
    );
    for (const entry of received) {
      assert.equal(entry.project, PROJECT);
      assert.equal(entry.location, 'us');
      const event = entry.event as unknown as RunEvent;
      assert.ok(event.inputs.length + event.outputs.length > 0);
      for (const dataset of [...event.inputs, ...event.outputs])
        assert.match(dataset.namespace, /^(bigquery|kafka:\/\/lkc-[a-z0-9]+)$/, dataset.namespace);
      assert.ok([...entry.sources, ...entry.targets].every((fqn) => fqn !== null));
    }
    const sink = received.find((r) => (r.event as unknown as RunEvent).job.name === 'bq-revenue-sink')!;
    const cluster = graph.nodes.find((n) => n.display_name === 'bq-revenue-sink')!.cluster_id;
    assert.deepEqual(
      [...sink.targets].sort(),
      [
        `bigquery:${PROJECT}.${DATASET}.customer_ltv`,
        `bigquery:${PROJECT}.${DATASET}.order_revenue_1m`,
        `kafka:${cluster}.dlq-lcc-bq42r7`,
      ],
      'the two extracted tables and the dead-letter topic',
    );
    assert.deepEqual([...sink.sources].sort(), [`kafka:${cluster}.customer_ltv`, `kafka:${cluster}.order_revenue_1m`]);

    const resources = google.dataplexResources();
    assert.deepEqual(Object.keys(resources).sort(), [
      'aspectTypes/lineage-svc-schema',
      'entryGroups/lineage-svc',
      'entryTypes/lineage-svc-topic',
    ]);
    const entries = google.dataplexEntries();
    const topics = graph.nodes.filter((n) => n.node_type === 'TOPIC' && n.cluster_id);
    assert.equal(Object.keys(entries).length, topics.length, 'one entry per topic');
    const fqns = new Set(Object.values(entries).map((entry) => entry.fullyQualifiedName as string));
    for (const fqn of sink.sources) assert.ok(fqns.has(fqn!), `an entry for ${fqn}`);
    const customers = entries[`lineage-svc/${cluster}-pg.retail.public.customers`]!;
    assert.equal(customers.fullyQualifiedName, `kafka:${cluster}.\`pg.retail.public.customers\``);
    const fields = (
      customers.aspects as Record<string, { data: { fields: Array<{ name: string; description: string }> } }>
    )[`${PROJECT}.us.lineage-svc-schema`]!.data.fields;
    assert.deepEqual(
      fields.find((f) => f.name === 'email'),
      { name: 'email', type: 'string', description: 'Customer e-mail address' },
    );

    google.resetRequestLog();
    const again = await warehouseProvider.push(graph, DEFAULT_PUSH_OPTIONS, { port: client, now: NOW });
    assert.deepEqual(again.errors, []);
    assert.equal(again.tables_updated, plan.events.length);
    assert.equal(google.lineageEvents().length - before, plan.events.length, 'same requestIds: nothing recorded twice');
    const counts = google.requestCounts();
    assert.equal(counts['warehouse.dataplex.entries.create'], topics.length);
    assert.equal(
      counts['warehouse.dataplex.entries.patch'],
      topics.length,
      'existing entries get their aspects by PATCH',
    );
    assert.equal(counts['warehouse.dataplex.entryGroups.create'], undefined, 'the bootstrap runs once');
  });

  it('pushes the enriched graph (derived tables, catalog jobs) once; a second push with the ledger reports unchanged', async () => {
    const enriched = applyEnrichment(graph, await warehouseProvider.enrich(graph, { port: client }));
    assert.ok(enriched.nodes.some((n) => n.node_type === 'CATALOG_JOB'));
    const ledger = createMemoryPushLedger();
    const before = google.lineageEvents().length;
    const later = new Date(NOW.getTime() + 86_400_000); // not the requestIds of the push above
    const first = await warehouseProvider.push(enriched, DEFAULT_PUSH_OPTIONS, { port: client, now: later, ledger });
    assert.deepEqual(first.errors, []);
    const sent = google.lineageEvents().slice(before);
    assert.equal(sent.length, first.tables_updated);
    assert.ok(first.results.filter((r) => r.status === 'updated').length > 0);
    assert.ok(
      !sent.some((r) => (r.event as unknown as RunEvent).job.name.startsWith('process/')),
      'catalog jobs are processes of Google itself: not pushed back',
    );
    const sink = sent.find((r) => (r.event as unknown as RunEvent).job.name === 'bq-revenue-sink')!;
    assert.ok(sink.targets.includes(`bigquery:${PROJECT}.${DATASET}.order_revenue_1m`));
    const second = await warehouseProvider.push(enriched, DEFAULT_PUSH_OPTIONS, {
      port: client,
      now: new Date(later.getTime() + 60_000),
      ledger,
    });
    assert.equal(second.tables_updated, 0);
    assert.deepEqual(
      second.results.filter((r) => r.status !== 'skipped').map((r) => r.status),
      first.results.filter((r) => r.status !== 'skipped').map(() => 'unchanged'),
    );
    assert.equal(google.lineageEvents().length, before + sent.length, 'nothing sent the second time');
  });

  it('reports a permission fault on one job for that job and sends the others; the next push sends only that job', async () => {
    const ledger = createMemoryPushLedger();
    const at = (minutes: number) => new Date(NOW.getTime() + 2 * 86_400_000 + minutes * 60_000);
    const expected = warehouseEvents(graph, NOW).events.length;
    const sentSince = (count: number) => google.lineageEvents().slice(count);
    const jobs = (result: { results: Array<{ kind: string; name: string; status: string }> }) =>
      result.results.filter((r) => r.kind === 'job' && r.status !== 'skipped');
    // The first event Google receives is refused: the caller may not write lineage there.
    google.injectFault({ api: 'warehouse.lineage.processOpenLineageRunEvent', status: 403, times: 1 });
    let before = google.lineageEvents().length;
    const first = await warehouseProvider.push(graph, DEFAULT_PUSH_OPTIONS, { port: client, now: at(0), ledger });
    google.clearFaults();
    const failed = jobs(first).filter((r) => r.status === 'failed');
    assert.equal(failed.length, 1, JSON.stringify(first.results));
    assert.match(first.results.find((r) => r.status === 'failed')!.error!, /^not sent: .*HTTP 403/);
    assert.deepEqual(
      jobs(first)
        .filter((r) => r.status !== 'failed')
        .map((r) => r.status),
      Array(expected - 1).fill('updated'),
    );
    assert.equal(first.errors.length, 1);
    assert.ok(first.errors[0]!.startsWith(`${failed[0]!.name} (run `), first.errors[0]);
    assert.equal(first.tables_updated, expected - 1);
    assert.equal(sentSince(before).length, expected - 1, 'the other events are sent');

    before = google.lineageEvents().length;
    const second = await warehouseProvider.push(graph, DEFAULT_PUSH_OPTIONS, { port: client, now: at(1), ledger });
    assert.deepEqual(second.errors, []);
    assert.deepEqual(
      Object.fromEntries(jobs(second).map((r) => [r.name, r.status])),
      Object.fromEntries(jobs(first).map((r) => [r.name, r.status === 'failed' ? 'updated' : 'unchanged'])),
    );
    assert.deepEqual(
      sentSince(before).map((r) => processName(r.event as unknown as RunEvent)),
      [failed[0]!.name],
      'only the job refused the first time is sent',
    );

    // Nothing changed since: no event, and Dataplex holds the same entries (each gets its schema aspect
    // again by PATCH, with the same content: only Google's updateTime moves).
    before = google.lineageEvents().length;
    const entries = () =>
      Object.fromEntries(
        Object.entries(google.dataplexEntries()).map(([id, { updateTime: _moved, ...entry }]) => [id, entry]),
      );
    const registered = entries();
    const third = await warehouseProvider.push(graph, DEFAULT_PUSH_OPTIONS, { port: client, now: at(2), ledger });
    assert.deepEqual([third.tables_updated, third.errors], [0, []]);
    assert.deepEqual(
      jobs(third).map((r) => r.status),
      Array(expected).fill('unchanged'),
    );
    assert.equal(sentSince(before).length, 0);
    assert.deepEqual(entries(), registered, 'the Dataplex entries hold what they held');
  });

  it('names the variables when neither a token nor application-default credentials exist', async () => {
    const saved = process.env.GOOGLE_APPLICATION_CREDENTIALS;
    process.env.GOOGLE_APPLICATION_CREDENTIALS = '/nonexistent/lineage-svc-test-credentials.json';
    try {
      const adc = createGoogleClient({
        projectId: PROJECT,
        location: 'us',
        bigQueryApiUrl: google.url,
        lineageApiUrl: google.url,
        tokenProvider: applicationDefaultTokenProvider(),
      });
      await assert.rejects(adc.authenticate(), (error: unknown) => {
        assert.ok(error instanceof WarehouseCredentialsError);
        assert.ok(error.message.startsWith(NO_CREDENTIALS_MESSAGE));
        assert.ok(!error.message.includes('\n'));
        return true;
      });
      const result = await warehouseProvider.enrich(graph, { port: adc });
      assert.equal(result.warnings.length, 1);
      assert.match(
        result.warnings[0]!,
        /^warehouse: no table enriched: no Google credentials: set LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN/,
      );
    } finally {
      if (saved === undefined) delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
      else process.env.GOOGLE_APPLICATION_CREDENTIALS = saved;
    }
  });

  it('pushes through POST /api/v1/push/warehouse and pushToCatalog, and lists the provider on GET /catalogs', async () => {
    const env = {
      LINEAGE_SVC_WAREHOUSE_PROJECT_ID: PROJECT,
      LINEAGE_SVC_WAREHOUSE_LOCATION: 'eu',
      LINEAGE_SVC_WAREHOUSE_BIGQUERY_API_URL: google.url,
      LINEAGE_SVC_WAREHOUSE_LINEAGE_API_URL: google.url,
      LINEAGE_SVC_WAREHOUSE_DATAPLEX_API_URL: google.url,
      LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN: google.scenario.token,
    };
    const api = await startApi({ env });
    try {
      const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'warehouse' } });
      const graphId = created.body.graph_id as string;
      assert.equal((await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import`, { json: graph })).status, 200);
      const catalogs = (await call(api.base, 'GET', '/api/v1/catalogs')).body.catalogs as Array<{
        catalog_type: string;
        configured: boolean;
        capabilities: string[];
      }>;
      const warehouse = catalogs.find((c) => c.catalog_type === 'WAREHOUSE_LINEAGE')!;
      assert.deepEqual([warehouse.configured, warehouse.capabilities], [true, ['enrich', 'push']]);
      const before = google.lineageEvents().filter((r) => r.location === 'eu').length;
      const pushed = await call(api.base, 'POST', '/api/v1/push/warehouse', { json: {} });
      assert.equal(pushed.status, 200, pushed.text);
      assert.equal(pushed.body.catalog_type, 'WAREHOUSE_LINEAGE');
      assert.equal(pushed.body.graph_id, graphId);
      assert.deepEqual(pushed.body.errors, []);
      const expected = warehouseEvents(graph, NOW).events.length;
      assert.equal(pushed.body.tables_updated, expected);
      assert.equal(google.lineageEvents().filter((r) => r.location === 'eu').length - before, expected);
      const statuses = (body: { results: Array<{ kind: string; status: string }> }) =>
        body.results.filter((r) => r.kind === 'job' && r.status !== 'skipped').map((r) => r.status);
      assert.deepEqual(statuses(pushed.body), Array(expected).fill('updated'));
      // A second push of the same graph from the same process sends nothing: every job is unchanged.
      const again = await call(api.base, 'POST', '/api/v1/push/warehouse', { json: {} });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.tables_updated, 0);
      assert.deepEqual(statuses(again.body), Array(expected).fill('unchanged'));
      assert.equal(google.lineageEvents().filter((r) => r.location === 'eu').length - before, expected);
    } finally {
      await api.dispose();
    }
    const direct = await pushToCatalog(
      graph,
      'WAREHOUSE_LINEAGE',
      DEFAULT_PUSH_OPTIONS,
      loadConfig({ ...env, LINEAGE_SVC_WAREHOUSE_LOCATION: 'asia-east1' }),
    );
    assert.equal(direct.tables_updated, 0);
    assert.match(direct.errors[0]!, /HTTP 400 INVALID_ARGUMENT .*Location asia-east1 is not supported/);
  });
});

describe('warehouse downstream discovery: paging, cycles and depth', () => {
  it('reads every page of links, visits each table once around a cycle, and stops 10 levels down', async () => {
    const fan = Array.from({ length: 120 }, (_, i) => `t${i}`);
    const chain = Array.from({ length: 12 }, (_, i) => `c${i + 1}`);
    const fqn = (table: string) => `bigquery:p.d.${table}`;
    const google = await startGoogleSimulator({
      scenario: {
        token: 'ya29.walk',
        project_id: 'p',
        tables: ['root', ...fan, ...chain].map((table) => ({ project: 'p', dataset: 'd', table })),
        links: [
          ...fan.map((table) => ({ source: fqn('root'), target: fqn(table) })),
          { source: fqn('t0'), target: fqn('root'), process: 'back-fill' },
          { source: fqn('root'), target: fqn('c1') },
          ...chain.slice(1).map((table, i) => ({ source: fqn(chain[i]!), target: fqn(table) })),
          { source: fqn('root'), target: 'kafka:lkc-1.topic' },
        ],
        processes: [{ id: 'back-fill', source_type: 'COMPOSER' }],
      },
    });
    try {
      const client = createGoogleClient({
        projectId: 'p',
        location: 'us',
        bigQueryApiUrl: google.url,
        lineageApiUrl: google.url,
        dataplexApiUrl: google.url,
        accessToken: google.scenario.token,
        retryBaseDelayMs: 1,
      });
      const root = warehouseTable('p', 'd', 'root');
      const result = await warehouseProvider.enrich({ nodes: [root], edges: [] }, { port: client });
      assert.deepEqual(result.warnings, []);
      const tables = new Set(result.newNodes.filter((n) => n.node_type === 'CATALOG_TABLE').map((n) => n.display_name));
      assert.equal(tables.size, 120 + 10, 'the whole fan (two pages of links) and the chain down to c10');
      assert.ok(tables.has('t119') && tables.has('c10') && !tables.has('c11'));
      assert.ok(!tables.has('root'), 'the cycle leads back to a known table');
      const backFill = catalogJobId('WAREHOUSE', PROD, 'process/back-fill');
      assert.ok(
        result.newEdges.some((e) => e.src_id === backFill && e.edge_type === 'PRODUCES' && e.dst_id === root.id),
      );
      const counts = google.requestCounts();
      assert.equal(counts['warehouse.lineage.searchLinks'], 2 + 120 + 9, 'root twice (two pages), each table once');
      assert.equal(counts['warehouse.bigquery.tables.get'], 1 + 120 + 10);
      assert.equal(counts['warehouse.lineage.processes.get'], 1);
    } finally {
      await google.close();
    }
  });
});
