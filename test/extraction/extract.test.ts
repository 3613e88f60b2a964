/**
 * End-to-end extraction against the platform simulator (demo scenario, real sockets): the whole
 * graph, several environments, Cluster Linking across environments, the cluster filter, the DLQ
 * placeholder merge, no request per topic, metrics, faults (429 with Retry-After, 5xx, retries
 * exhausted, timeout, 401 on topics, 404 on Schema Registry, 404 and 403 on mirror topics) and
 * pagination.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import { withMetricAttributes } from '../../src/extraction/metrics.js';
import { extract, type ExtractOptions } from '../../src/extraction/extract.js';
import {
  connectorId,
  consumerGroupId,
  lakehouseTableId,
  materializedTableId,
  schemaId,
  sqlQueryId,
  streamJobId,
  topicId,
} from '../../src/graph/ids.js';
import { parseLineageGraph } from '../../src/graph/validation.js';
import { silentLogger } from '../../src/logger.js';
import { DEDICATED, DEV, PROD, STANDARD, fastApi } from './helpers.js';

let sim: PlatformSimulator;
before(async () => {
  sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
});
after(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.clearFaults();
  sim.resetRequestLog();
});

const run = (options: Partial<ExtractOptions> = {}, api = fastApi(sim)) =>
  extract({ platform: api, logger: silentLogger() }, { environmentIds: [PROD, DEV], ...options });

const edge = (
  graph: { edges: { src_id: string; dst_id: string; edge_type: string }[] },
  src: string,
  type: string,
  dst: string,
) => graph.edges.find((e) => e.src_id === src && e.edge_type === type && e.dst_id === dst);

describe('extract against the simulator', () => {
  it('builds the demo graph, valid, with every node type the platform reports', async () => {
    const result = await run();
    const graph = parseLineageGraph(result.graph);
    assert.deepEqual(result.warnings, []);
    const types = new Set(graph.nodes.map((n) => n.node_type));
    for (const type of [
      'TOPIC',
      'CONSUMER_GROUP',
      'CONNECTOR',
      'SQL_QUERY',
      'STREAM_JOB',
      'SCHEMA',
      'MATERIALIZED_TABLE',
      'EXTERNAL_DATASET',
      'CATALOG_TABLE',
    ]) {
      assert.ok(types.has(type as never), `missing ${type}`);
    }
    const orders = graph.nodes.find((n) => n.id === topicId(PROD, DEDICATED, 'pg.retail.public.orders'));
    assert.equal(orders?.attributes?.partitions, 12);
    assert.deepEqual(orders?.attributes?.tags, ['PII', 'Raw']);
    assert.equal(orders?.attributes?.owner, 'orders-platform');
    // CDC source: postgres table -> connector -> topic
    const cdc = connectorId(PROD, DEDICATED, 'pg-retail-cdc');
    assert.ok(edge(graph, cdc, 'PRODUCES', topicId(PROD, DEDICATED, 'pg.retail.public.orders')));
    assert.ok(
      edge(
        graph,
        'external:external_dataset:env-q7m2k9:postgres://retail-db.c8x2k4.us-east-1.rds.amazonaws.com:5432/retail.public.orders',
        'CONSUMES',
        cdc,
      ),
    );
    // topics.regex sink
    const os = connectorId(PROD, DEDICATED, 'opensearch-clicks');
    for (const topic of ['clickstream', 'clickstream_bots', 'clickstream_sessions'])
      assert.ok(edge(graph, topicId(PROD, DEDICATED, topic), 'CONSUMES', os), topic);
    // ksqlDB query with sources and sinks, and its consumer group
    const query = sqlQueryId(PROD, 'lksqlc-8p2v6d', 'CSAS_CHECKOUT_CLICKS_5');
    assert.ok(edge(graph, topicId(PROD, DEDICATED, 'pg.retail.public.customers'), 'CONSUMES', query));
    assert.ok(edge(graph, query, 'PRODUCES', topicId(PROD, DEDICATED, 'checkout_clicks')));
    assert.ok(
      edge(
        graph,
        consumerGroupId(PROD, DEDICATED, '_confluent-ksql-pksqlc-9j4r2query_CSAS_CHECKOUT_CLICKS_5'),
        'MEMBER_OF',
        query,
      ),
    );
    // connector consumer group
    assert.ok(
      edge(
        graph,
        consumerGroupId(PROD, DEDICATED, 'connect-lcc-s3a7k2'),
        'MEMBER_OF',
        connectorId(PROD, DEDICATED, 's3-orders-archive'),
      ),
    );
    const lagEdge = edge(
      graph,
      topicId(PROD, STANDARD, 'orders_for_bi'),
      'CONSUMES',
      consumerGroupId(PROD, STANDARD, 'connect-lcc-sf5h1q'),
    );
    assert.equal((lagEdge as { attributes?: { lag?: number } } | undefined)?.attributes?.lag, 57);
    // Flink statements: attributes and reported sources, cross-cluster source placed on its cluster
    const job = graph.nodes.find((n) => n.id === streamJobId(PROD, 'enrich-orders'));
    assert.equal(job?.attributes?.compute_pool_id, 'lfcp-6z1w4r');
    assert.equal(job?.attributes?.phase, 'RUNNING');
    assert.match(String(job?.attributes?.sql), /INSERT INTO `orders_enriched`/);
    assert.ok(edge(graph, topicId(PROD, DEDICATED, 'orders_enriched'), 'CONSUMES', streamJobId(PROD, 'orders-to-bi')));
    // schemas: key and value roles, and the Protobuf fields
    assert.ok(
      edge(
        graph,
        topicId(PROD, DEDICATED, 'pg.retail.public.orders'),
        'HAS_SCHEMA',
        schemaId(PROD, 'pg.retail.public.orders-key'),
      ),
    );
    const proto = graph.nodes.find((n) => n.id === schemaId(PROD, 'pg.retail.public.order_items-value'));
    assert.equal(proto?.attributes?.schema_type, 'PROTOBUF');
    assert.equal(proto?.attributes?.field_count, 6);
    // Tableflow: topic -> materialized table -> Unity catalog table
    const table = materializedTableId(PROD, DEDICATED, 'orders_enriched');
    assert.ok(edge(graph, topicId(PROD, DEDICATED, 'orders_enriched'), 'MATERIALIZES', table));
    assert.ok(edge(graph, table, 'MATERIALIZES', lakehouseTableId(PROD, 'retail_prod', DEDICATED, 'orders_enriched')));
    // business metadata
    const enriched = graph.nodes.find((n) => n.id === topicId(PROD, DEDICATED, 'orders_enriched'));
    assert.deepEqual(enriched?.attributes?.business_metadata, {
      DataProduct: { owner_team: 'orders-platform', domain: 'commerce', sla_minutes: '5' },
    });
    // the development environment without Schema Registry
    assert.ok(graph.nodes.some((n) => n.id === topicId(DEV, 'lkc-9d2f4g', 'test_orders')));
  });

  it('merges the DLQ placeholder into the real topic and keeps phantom ones flagged', async () => {
    const { graph } = await run();
    const dlq = graph.nodes.find((n) => n.id === topicId(PROD, DEDICATED, 'dlq-lcc-bq42r7'));
    assert.equal(dlq?.attributes?.role, 'dlq');
    assert.equal(dlq?.attributes?.for_connector, 'bq-revenue-sink');
    assert.equal(dlq?.attributes?.partitions, 1);
    assert.equal(dlq?.attributes?.placeholder, undefined);
    assert.ok(edge(graph, connectorId(PROD, DEDICATED, 'bq-revenue-sink'), 'PRODUCES', dlq!.id));
    const phantom = graph.nodes.find((n) => n.id === topicId(PROD, DEDICATED, 'dlq-lcc-s3a7k2'));
    assert.equal(phantom?.attributes?.placeholder, true);
  });

  it('makes no request per topic: one topic listing and one config call per cluster', async () => {
    const result = await run();
    const counts = sim.requestCounts();
    assert.equal(counts['kafka-rest.topics'], 3);
    assert.equal(counts['kafka-rest.all-topic-configs'], 3);
    // Cluster Linking: one mirror listing per cluster, the links only of the two clusters that have mirrors.
    assert.equal(counts['kafka-rest.mirrors'], 3);
    assert.equal(counts['kafka-rest.links'], 2);
    assert.equal(counts['kafka-rest.mirror'] ?? 0, 0, 'no request per mirror topic');
    assert.equal(counts['kafka-rest.link'] ?? 0, 0, 'no request per cluster link');
    assert.equal(counts['kafka-rest.topic-configs'] ?? 0, 0);
    assert.equal(counts['kafka-rest.topic'] ?? 0, 0);
    assert.equal(counts['kafka-rest.lags'] ?? 0, 0, 'lag comes in bulk from the Metrics API');
    assert.equal(counts['schema-registry.subject-version'] ?? 0, 0);
    assert.deepEqual(result.requests['kafka-rest.topics'], 3);
  });

  it('links mirror topics to their source topics across clusters and environments (Cluster Linking)', async () => {
    const { graph, warnings, counts } = await run();
    assert.deepEqual(warnings, []);
    assert.equal(counts.edgesByType.TRANSFORMS, 2, 'one TRANSFORMS edge per mirror topic of the demo');
    // retail-prod -> retail-dev: the source resolves to the real topic of the other environment.
    const across = edge(
      graph,
      topicId(PROD, DEDICATED, 'pg.retail.public.order_items'),
      'TRANSFORMS',
      topicId(DEV, 'lkc-9d2f4g', 'pg.retail.public.order_items'),
    );
    const attributes = (across as { attributes?: Record<string, unknown> } | undefined)?.attributes;
    assert.match(
      String(attributes?.link_id),
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      'the link UUID',
    );
    assert.deepEqual(
      { ...attributes, link_id: undefined },
      {
        cluster_link: 'retail-prod-to-dev',
        link_id: undefined,
        source_cluster_id: DEDICATED,
        mirror_status: 'ACTIVE',
        mirror_lag: 96,
      },
    );
    const source = graph.nodes.find((n) => n.id === topicId(PROD, DEDICATED, 'pg.retail.public.order_items'));
    assert.equal(source?.attributes?.partitions, 12, 'the listed source topic, not a placeholder');
    assert.equal(source?.attributes?.placeholder, undefined);
    // Within retail-prod: a prefixed mirror of orders_enriched on the Standard cluster.
    const within = edge(
      graph,
      topicId(PROD, DEDICATED, 'orders_enriched'),
      'TRANSFORMS',
      topicId(PROD, STANDARD, 'dedicated.orders_enriched'),
    );
    assert.equal(
      (within as { attributes?: { cluster_link?: string } } | undefined)?.attributes?.cluster_link,
      'orders-to-analytics',
    );
    assert.equal(
      graph.nodes.filter((n) => n.node_type === 'EXTERNAL_DATASET' && n.id.includes('kafka://')).length,
      0,
      'every source cluster is extracted',
    );
  });

  it('makes the source an external kafka:// dataset when its environment is not extracted', async () => {
    const { graph, warnings } = await run({ environmentIds: [DEV] });
    assert.deepEqual(warnings, []);
    const uri = `kafka://${DEDICATED}/pg.retail.public.order_items`;
    const external = graph.nodes.find((n) => n.id === `external:external_dataset:${DEV}:${uri}`);
    assert.equal(external?.qualified_name, uri);
    assert.equal(external?.cluster_id, 'lkc-9d2f4g');
    assert.ok(edge(graph, external!.id, 'TRANSFORMS', topicId(DEV, 'lkc-9d2f4g', 'pg.retail.public.order_items')));
    assert.ok(!graph.nodes.some((n) => n.environment_id === PROD), 'no node of the environment not asked for');
  });

  it('skips Cluster Linking quietly on a 404 and warns on a 403', async () => {
    sim.injectFault({ api: 'kafka-rest.mirrors', kind: 'not_found' });
    const quiet = await run();
    assert.deepEqual(quiet.warnings, []);
    assert.equal(quiet.counts.edgesByType.TRANSFORMS, undefined);
    assert.equal(sim.requestCounts()['kafka-rest.links'] ?? 0, 0, 'no link listing without mirrors');
    assert.ok(
      quiet.graph.nodes.some((n) => n.id === topicId(DEV, 'lkc-9d2f4g', 'pg.retail.public.order_items')),
      'the mirror topic is still a topic',
    );
    sim.clearFaults();
    sim.injectFault({ api: 'kafka-rest.mirrors', kind: 'status', status: 403, path: 'lkc-9d2f4g' });
    const denied = await run();
    assert.equal(denied.warnings.length, 1, denied.warnings.join('\n'));
    assert.match(
      denied.warnings[0]!,
      /^ClusterLinking:lkc-9d2f4g: kafka-rest.mirrors answered 403: Kafka REST refused/,
    );
    assert.match(denied.warnings[0]!, /at http:\/\/.*\/links\/-\/mirrors \(HTTP 403\): /);
    assert.match(denied.warnings[0]!, /lacks a role binding.*LINEAGE_SVC_CLUSTER_API_KEY/);
    assert.equal(denied.counts.edgesByType.TRANSFORMS, 1, "the other cluster's mirror is still linked");
  });

  it('extracts only the requested environment and clusters', async () => {
    const dev = await run({ environmentIds: [DEV] });
    assert.ok(dev.graph.nodes.length > 0);
    assert.ok(dev.graph.nodes.every((n) => n.environment_id === DEV));
    sim.resetRequestLog();
    const filtered = await run({ environmentIds: [PROD], clusterIds: [STANDARD] });
    parseLineageGraph(filtered.graph);
    const listed = filtered.graph.nodes.filter((n) => n.node_type === 'TOPIC' && n.attributes?.placeholder !== true);
    assert.ok(listed.length > 0);
    assert.ok(listed.every((n) => n.cluster_id === STANDARD));
    assert.ok(filtered.graph.nodes.every((n) => n.node_type !== 'CONNECTOR' || n.cluster_id === STANDARD));
    assert.ok(filtered.graph.nodes.some((n) => n.id === topicId(PROD, STANDARD, 'orders_for_bi')));
    assert.equal(sim.requestCounts()['kafka-rest.topics'], 1);
  });

  it('samples metrics with --metrics, apart from the graph', async () => {
    const result = await run({ enableMetrics: true });
    assert.ok(
      result.graph.nodes.every((node) => !Object.keys(node.attributes ?? {}).some((key) => key.startsWith('metrics_'))),
      'the extracted graph carries no metric attribute',
    );
    assert.ok(result.metrics && result.metrics.samples.length > 0);
    const graph = withMetricAttributes(result.graph, result.metrics);
    const topic = graph.nodes.find((n) => n.id === topicId(PROD, DEDICATED, 'dlq-lcc-bq42r7'));
    assert.equal(topic?.attributes?.metrics_received_records, 60);
    assert.equal(topic?.attributes?.metrics_active, true);
    const group = graph.nodes.find((n) => n.id === consumerGroupId(PROD, STANDARD, 'connect-lcc-sf5h1q'));
    assert.equal(group?.attributes?.metrics_total_lag, 57);
    const job = graph.nodes.find((n) => n.id === streamJobId(PROD, 'enrich-orders'));
    assert.equal(typeof job?.attributes?.metrics_records_in, 'number');
    const connector = graph.nodes.find((n) => n.id === connectorId(PROD, DEDICATED, 's3-orders-archive'));
    assert.equal(typeof connector?.attributes?.metrics_received_records, 'number');
  });

  it('follows pagination over several pages', async () => {
    const result = await run({}, fastApi(sim, { pageSize: 1 }));
    assert.deepEqual(result.warnings, []);
    assert.ok(sim.requestCounts()['cmk.clusters']! >= 3, 'two clusters in prod at one per page');
    assert.equal(result.graph.nodes.filter((n) => n.node_type === 'STREAM_JOB').length, 6);
    assert.ok(sim.requestCounts()['flink.statements']! >= 6);
  });
});

describe('extract with platform faults', () => {
  it('honors Retry-After on a 429 and succeeds', async () => {
    sim.injectFault({ api: 'cmk.clusters', kind: 'status', status: 429, retry_after: 1, times: 1 });
    const result = await run({ environmentIds: [DEV] });
    assert.deepEqual(result.warnings, []);
    assert.equal(sim.requestCounts()['cmk.clusters'], 2);
    const log = sim.requestLog().filter((entry) => entry.api === 'cmk.clusters');
    assert.deepEqual(
      log.map((entry) => entry.status),
      [429, 200],
    );
  });

  it('retries 5xx and then succeeds', async () => {
    sim.injectFault({ api: 'kafka-rest.topics', kind: 'status', status: 503, times: 2 });
    sim.injectFault({ api: 'connect.connectors', kind: 'status', status: 502, times: 1 });
    const result = await run({ environmentIds: [PROD] });
    assert.deepEqual(result.warnings, []);
    assert.equal(sim.requestCounts()['kafka-rest.topics'], 4);
    assert.ok(result.graph.nodes.some((n) => n.id === topicId(PROD, DEDICATED, 'clickstream')));
  });

  it('warns and returns a partial graph when retries are exhausted', async () => {
    sim.injectFault({ api: 'connect.connectors', kind: 'status', status: 500 });
    const result = await run({ environmentIds: [PROD] });
    parseLineageGraph(result.graph);
    assert.ok(
      result.warnings.some((w) => /^Connect:lkc-.*gave up after 4 attempts \(HTTP 500\)/.test(w)),
      result.warnings.join('\n'),
    );
    assert.equal(sim.requestCounts()['connect.connectors'], 8, '4 attempts for each of the two clusters');
    assert.equal(result.graph.nodes.filter((n) => n.node_type === 'CONNECTOR').length, 0);
    assert.ok(result.graph.nodes.some((n) => n.node_type === 'TOPIC'));
  });

  it('warns on a client timeout and goes on', async () => {
    sim.injectFault({ api: 'ksqldb.ksql', kind: 'timeout' });
    const result = await run({ environmentIds: [PROD] }, fastApi(sim, { timeoutMs: 300 }));
    assert.ok(
      result.warnings.some((w) => /ksqlDB:lksqlc-8p2v6d: ksqldb.ksql: no answer within 0.3 s/.test(w)),
      result.warnings.join('\n'),
    );
    assert.equal(sim.requestCounts()['ksqldb.ksql'], 1, 'a timeout is not retried');
    assert.equal(result.graph.nodes.filter((n) => n.node_type === 'SQL_QUERY').length, 0);
    assert.ok(result.graph.nodes.some((n) => n.node_type === 'STREAM_JOB'));
  });

  it('says a cluster-scoped key is needed when topic listing answers 401 to the cloud key, and where', async () => {
    const result = await run({ environmentIds: [DEV] }, fastApi(sim, {}, { cluster: undefined }));
    const pattern = new RegExp(
      '^KafkaAdmin:lkc-9d2f4g: kafka-rest\\.topics answered 401: listing topics needs a cluster-scoped API key; ' +
        String.raw`Kafka REST rejected the credentials at http://127\.0\.0\.1:\d+\S*/kafka/v3/clusters/lkc-9d2f4g/topics \(HTTP 401\): ` +
        'the key or secret is wrong or expired; set LINEAGE_SVC_CLUSTER_API_KEY and LINEAGE_SVC_CLUSTER_API_SECRET',
    );
    assert.ok(
      result.warnings.some((w) => pattern.test(w)),
      result.warnings.join('\n'),
    );
    assert.equal(sim.requestCounts()['kafka-rest.topics'], 1, '401 is not retried');
    assert.ok(
      !result.warnings.some((w) => w.startsWith('ClusterLinking:')),
      'the same 401 on the mirror listing is not warned twice',
    );
  });

  it('says Schema Registry may be disabled on a 404', async () => {
    sim.injectFault({ api: 'schema-registry.*', kind: 'not_found' });
    const result = await run({ environmentIds: [PROD] });
    assert.ok(
      result.warnings.some((w) =>
        /SchemaRegistry:env-q7m2k9: schema-registry.schemas answered 404: Schema Registry may be disabled in environment env-q7m2k9/.test(
          w,
        ),
      ),
      result.warnings.join('\n'),
    );
    assert.equal(result.graph.nodes.filter((n) => n.node_type === 'SCHEMA').length, 0);
    assert.ok(result.graph.nodes.some((n) => n.node_type === 'TOPIC'));
  });

  it('says the key may lack access on a 400', async () => {
    sim.injectFault({ api: 'tableflow.topics', kind: 'status', status: 400 });
    const result = await run({ environmentIds: [PROD] });
    assert.ok(
      result.warnings.some((w) =>
        /Tableflow:lkc-.*answered 400: the API key may lack access or the parameters are invalid/.test(w),
      ),
      result.warnings.join('\n'),
    );
  });

  it('falls back to Kafka REST lags on Dedicated clusters when the Metrics API fails', async () => {
    sim.injectFault({ api: 'metrics.query', kind: 'status', status: 403 });
    const result = await run({ environmentIds: [PROD] });
    assert.ok((sim.requestCounts()['kafka-rest.lags'] ?? 0) > 0);
    assert.ok(
      edge(
        result.graph,
        topicId(PROD, DEDICATED, 'order_revenue_1m'),
        'CONSUMES',
        consumerGroupId(PROD, DEDICATED, 'connect-lcc-bq42r7'),
      ),
    );
    assert.ok(
      result.warnings.some((w) => w.startsWith(`ConsumerGroups:${STANDARD}`) && /Dedicated clusters only/.test(w)),
      result.warnings.join('\n'),
    );
  });

  it('fails when no environment can be read', async () => {
    await assert.rejects(
      run({ environmentIds: [PROD] }, fastApi(sim, {}, { cloud: { key: 'WRONG', secret: 'wrong' } })),
      /no environment could be read: Discovery:env-q7m2k9: cmk.clusters answered 401/,
    );
  });
});
