/**
 * Pure extractor tests: parsed payloads in, fragments out (no network), plus the graph builder's
 * merge rules and the retry arithmetic of the HTTP client.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { retryAfterMs, retryDelayMs } from '../../infra/confluent/httpClient.js';
import { catalogEnrichments, parseCatalogTopicName } from '../../src/extraction/catalog.js';
import {
  connectorFragment,
  connectorTopics,
  connectorTypeOf,
  externalDatasets,
} from '../../src/extraction/connectors.js';
import {
  consumerGroupFragment,
  lagsFromMetrics,
  lagsFromRest,
  ownershipEdges,
} from '../../src/extraction/consumerGroups.js';
import { clustersOfEnvironment } from '../../src/extraction/environments.js';
import { GraphBuilder, makeEdge } from '../../src/extraction/graphBuilder.js';
import {
  derivedMetricEnrichments,
  metricEnrichments,
  metricRequests,
  metricsInterval,
} from '../../src/extraction/metrics.js';
import {
  avroFields,
  jsonSchemaFields,
  protobufFields,
  schemaFragment,
  subjectTopic,
} from '../../src/extraction/schemas.js';
import { flinkFragment, ksqlFragment } from '../../src/extraction/streamProcessing.js';
import { tableflowFragment } from '../../src/extraction/tableflow.js';
import { placeholderTopic, topicFragment } from '../../src/extraction/topics.js';
import {
  connectorId,
  consumerGroupId,
  datalakeTableId,
  lakehouseTableId,
  materializedTableId,
  schemaId,
  sqlQueryId,
  streamJobId,
  topicId,
} from '../../src/graph/ids.js';
import { parseLineageGraph } from '../../src/graph/validation.js';
import { testCluster } from './helpers.js';

const ENV = 'env-abc123';
const LKC = 'lkc-abc123';
const cluster = testCluster(ENV, LKC);

/** Builds a graph from fragments and checks it with the core validator. */
function valid(...fragments: { nodes: never[] | unknown[]; edges: unknown[] }[]) {
  const builder = new GraphBuilder();
  for (const fragment of fragments) builder.add(fragment as never);
  const built = builder.build();
  return { graph: parseLineageGraph(built.graph), warnings: built.warnings };
}

describe('environments', () => {
  it('reads clusters with REST and bootstrap endpoints, filters and falls back', () => {
    const clusters = clustersOfEnvironment(ENV, 'prod', [
      {
        id: 'lkc-b',
        spec: {
          display_name: 'b',
          http_endpoint: 'http://127.0.0.1:1/kafka-rest/lkc-b/',
          kafka_bootstrap_endpoint: 'SASL_SSL://pkc-b:9092',
          config: { kind: 'Standard' },
        },
      },
      { id: 'lkc-a', spec: { display_name: 'a', http_endpoint: '', cloud: 'AWS', region: 'eu-west-1' } },
    ]);
    assert.deepEqual(
      clusters.map((c) => c.clusterId),
      ['lkc-a', 'lkc-b'],
    );
    assert.equal(clusters[0]?.restEndpoint, 'https://lkc-a.eu-west-1.aws.confluent.cloud:443');
    assert.equal(clusters[1]?.restEndpoint, 'http://127.0.0.1:1/kafka-rest/lkc-b');
    assert.equal(clusters[1]?.bootstrapEndpoint, 'pkc-b:9092');
    assert.equal(clusters[1]?.kind, 'Standard');
    assert.deepEqual(
      clustersOfEnvironment(ENV, null, [{ id: 'lkc-a' }, { id: 'lkc-b' }], ['lkc-b']).map((c) => c.clusterId),
      ['lkc-b'],
    );
  });
});

describe('topics', () => {
  it('makes topic nodes with partitions, replication factor and non-default configs, skipping internal topics', () => {
    const fragment = topicFragment(
      cluster,
      [
        { topic_name: 'orders', partitions_count: 6, replication_factor: 3, is_internal: false },
        { topic_name: 'fd.SAMPLE.AUTH_USER', partitions_count: 1, replication_factor: 3 },
        { topic_name: '_confluent-ksql-x-changelog', partitions_count: 1 },
        { topic_name: '__consumer_offsets', is_internal: true },
      ],
      [
        { topic_name: 'orders', name: 'cleanup.policy', value: 'compact', is_default: false },
        { topic_name: 'orders', name: 'segment.ms', value: '1', source: 'DEFAULT_CONFIG' },
        { topic_name: 'orders', name: 'secret', value: 'x', is_default: false, is_sensitive: true },
      ],
    );
    assert.deepEqual(
      fragment.nodes.map((n) => n.id),
      [topicId(ENV, LKC, 'orders'), topicId(ENV, LKC, 'fd.SAMPLE.AUTH_USER')],
    );
    assert.deepEqual(fragment.nodes[0]?.attributes, {
      partitions: 6,
      replication_factor: 3,
      configs: { 'cleanup.policy': 'compact' },
      bootstrap_endpoint: 'pkc-1.us-east-1.aws.confluent.cloud:9092',
    });
    assert.equal(fragment.nodes[1]?.qualified_name, `${LKC}/fd.SAMPLE.AUTH_USER`);
    valid(fragment);
  });
});

describe('consumer groups', () => {
  it('reads lag from Metrics points (newest point per group and topic) and from REST rows', () => {
    const lags = lagsFromMetrics([
      { timestamp: '2024-01-01T00:00:00Z', value: 5, 'metric.consumer_group_id': 'g', 'metric.topic': 't' },
      { timestamp: '2024-01-01T00:01:00Z', value: 7, 'metric.consumer_group_id': 'g', 'metric.topic': 't' },
      { timestamp: '2024-01-01T00:01:00Z', value: 1, 'metric.consumer_group_id': 'g', 'metric.topic': 'u' },
      { value: 3 },
    ] as never);
    assert.deepEqual(lags, [
      { groupId: 'g', topic: 't', lag: 7 },
      { groupId: 'g', topic: 'u', lag: 1 },
    ]);
    assert.deepEqual(
      lagsFromRest('g', [
        { topic_name: 't', partition_id: 0, lag: 2 },
        { topic_name: 't', partition_id: 1, lag: 3 },
      ]),
      [{ groupId: 'g', topic: 't', lag: 5 }],
    );
  });

  it('makes group nodes, CONSUMES edges with lag, and MEMBER_OF to the owning connector, query or statement', () => {
    const groups = consumerGroupFragment(
      cluster,
      [{ consumer_group_id: 'connect-lcc-1', state: 'STABLE' }, { consumer_group_id: 'app' }],
      [
        { groupId: 'connect-lcc-1', topic: 'orders', lag: 4 },
        { groupId: 'connect-lcc-1', topic: 'payments', lag: 6 },
        { groupId: '_confluent-ksql-pksqlc-1query_CSAS_X_1', topic: 'orders', lag: 0 },
        { groupId: 'enrich', topic: 'orders', lag: null },
      ],
    );
    const connectGroup = groups.nodes.find((n) => n.display_name === 'connect-lcc-1');
    assert.equal(connectGroup?.attributes?.total_lag, 10);
    assert.equal(connectGroup?.attributes?.state, 'STABLE');
    assert.deepEqual(
      groups.edges.find((e) => e.dst_id === connectGroup?.id && e.src_id === topicId(ENV, LKC, 'payments'))?.attributes,
      { lag: 6 },
    );
    assert.equal(groups.nodes.length, 4, 'groups known only from lag data are added too');
    const owners = ownershipEdges(groups.nodes, {
      connectorsByLccId: new Map([['lcc-1', connectorId(ENV, LKC, 'sink')]]),
      sqlQueriesByGroupId: new Map([
        ['_confluent-ksql-pksqlc-1query_CSAS_X_1', sqlQueryId(ENV, 'lksqlc-1', 'CSAS_X_1')],
      ]),
      statementsByName: new Map([['enrich', streamJobId(ENV, 'enrich')]]),
    });
    assert.deepEqual(owners.edges.map((e) => [e.src_id, e.dst_id]).sort(), [
      [consumerGroupId(ENV, LKC, '_confluent-ksql-pksqlc-1query_CSAS_X_1'), sqlQueryId(ENV, 'lksqlc-1', 'CSAS_X_1')],
      [consumerGroupId(ENV, LKC, 'connect-lcc-1'), connectorId(ENV, LKC, 'sink')],
      [consumerGroupId(ENV, LKC, 'enrich'), streamJobId(ENV, 'enrich')],
    ]);
  });
});

describe('connectors', () => {
  it('tells sources from sinks without trusting info.type', () => {
    assert.equal(connectorTypeOf('unknown', { 'connector.class': 'PostgresCdcSourceV2' }), 'source');
    assert.equal(connectorTypeOf('unknown', { 'connector.class': 'S3_SINK' }), 'sink');
    assert.equal(connectorTypeOf(undefined, { 'connector.class': 'Custom', topics: 'a' }), 'sink');
    assert.equal(connectorTypeOf('source', {}), 'source');
  });

  it('finds topics from kafka.topic, topics, topics.regex and Debezium topic.prefix + table list', () => {
    assert.deepEqual(
      connectorTopics('sink', { topics: 'b, a', 'topics.regex': '^click.*' }, [
        'clicks',
        'clickstream',
        'orders',
        'xclick',
      ]),
      ['a', 'b', 'clicks', 'clickstream'],
    );
    assert.deepEqual(connectorTopics('sink', { 'topics.regex': '(' }, ['a']), []);
    assert.deepEqual(
      connectorTopics('source', { 'topic.prefix': 'pg', 'table.include.list': 'public.a,public.b' }, []),
      ['pg.public.a', 'pg.public.b'],
    );
    assert.deepEqual(connectorTopics('source', { 'kafka.topic': 'clicks' }, []), ['clicks']);
  });

  it('names external datasets as OpenLineage-style URIs', () => {
    assert.deepEqual(
      externalDatasets({ 'connector.class': 'S3_SINK', 's3.bucket.name': 'b', 'topics.dir': 'raw' }, 'sink', []),
      ['s3://b/raw'],
    );
    assert.deepEqual(
      externalDatasets(
        {
          'connector.class': 'PostgresSource',
          'database.hostname': 'db',
          'database.port': '5432',
          'database.dbname': 'app',
          'table.include.list': 'public.orders',
        },
        'source',
        [],
      ),
      ['postgres://db:5432/app.public.orders'],
    );
    assert.deepEqual(
      externalDatasets({ 'connector.class': 'BigQueryStorageSink', project: 'p', datasets: 'd' }, 'sink', []),
      [],
      'BigQuery sinks write warehouse tables (src/extraction/warehouseTables.ts), not an external dataset',
    );
    assert.deepEqual(
      externalDatasets(
        {
          'connector.class': 'SnowflakeSink',
          'snowflake.url.name': 'https://acct.snowflakecomputing.com:443',
          'snowflake.database.name': 'DB',
          'snowflake.schema.name': 'S',
        },
        'sink',
        [],
      ),
      ['snowflake://acct.snowflakecomputing.com/DB.S'],
    );
    assert.deepEqual(externalDatasets({ 'connector.class': 'DatagenSource' }, 'source', []), []);
  });

  it('builds connector nodes, edges, and a DLQ placeholder that merges into the real topic', () => {
    const fragment = connectorFragment(
      cluster,
      [
        {
          id: { id: 'lcc-s3' },
          info: {
            name: 's3',
            type: 'unknown',
            config: { 'connector.class': 'S3_SINK', topics: 'orders', 's3.bucket.name': 'b' },
          },
          status: { connector: { state: 'RUNNING' }, tasks: [{}, {}] },
        },
        {
          id: { id: 'lcc-gen' },
          info: {
            name: 'gen',
            type: 'source',
            config: { 'connector.class': 'DatagenSource', 'kafka.topic': 'clicks' },
          },
        },
      ],
      ['orders', 'dlq-lcc-s3'],
    );
    const sink = connectorId(ENV, LKC, 's3');
    const real = topicFragment(
      cluster,
      [{ topic_name: 'orders' }, { topic_name: 'clicks' }, { topic_name: 'dlq-lcc-s3', partitions_count: 1 }],
      [],
    );
    const { graph } = valid(real, fragment);
    const node = graph.nodes.find((n) => n.id === sink);
    assert.deepEqual(node?.attributes, {
      connector_class: 'S3_SINK',
      connector_type: 'sink',
      connector_id: 'lcc-s3',
      state: 'RUNNING',
      field_mapping: { all_fields: true, struct: null, fields: [] },
      tasks: 2,
    });
    assert.ok(
      graph.edges.some(
        (e) => e.src_id === topicId(ENV, LKC, 'orders') && e.edge_type === 'CONSUMES' && e.dst_id === sink,
      ),
    );
    assert.ok(
      graph.edges.some(
        (e) =>
          e.src_id === sink &&
          e.edge_type === 'PRODUCES' &&
          e.dst_id === `external:external_dataset:${ENV}:s3://b/topics`,
      ),
    );
    assert.ok(
      graph.edges.some(
        (e) =>
          e.src_id === connectorId(ENV, LKC, 'gen') &&
          e.edge_type === 'PRODUCES' &&
          e.dst_id === topicId(ENV, LKC, 'clicks'),
      ),
    );
    const dlq = graph.nodes.find((n) => n.id === topicId(ENV, LKC, 'dlq-lcc-s3'));
    assert.deepEqual(dlq?.attributes, {
      partitions: 1,
      replication_factor: null,
      configs: {},
      bootstrap_endpoint: 'pkc-1.us-east-1.aws.confluent.cloud:9092',
      role: 'dlq',
      for_connector: 's3',
    });
    // Placeholder first, real topic later: same result.
    const reversed = valid(fragment, real).graph.nodes.find((n) => n.id === dlq?.id);
    assert.deepEqual(reversed?.attributes, {
      role: 'dlq',
      for_connector: 's3',
      partitions: 1,
      replication_factor: null,
      configs: {},
      bootstrap_endpoint: 'pkc-1.us-east-1.aws.confluent.cloud:9092',
    });
  });
});

describe('schemas', () => {
  it('parses fields of Avro, JSON Schema and Protobuf', () => {
    assert.deepEqual(
      avroFields(
        JSON.stringify({
          type: 'record',
          name: 'R',
          fields: [
            { name: 'a', type: ['null', 'string'], doc: 'A' },
            { name: 'b', type: { type: 'long', logicalType: 'timestamp-millis' } },
          ],
        }),
      ),
      [
        { name: 'a', type: 'null|string', description: 'A' },
        { name: 'b', type: 'long(timestamp-millis)' },
      ],
    );
    assert.deepEqual(jsonSchemaFields(JSON.stringify({ properties: { id: { type: 'string', description: 'x' } } })), [
      { name: 'id', type: 'string', description: 'x' },
    ]);
    assert.deepEqual(
      protobufFields(
        'syntax = "proto3";\nmessage M {\n  int64 id = 1;\n  repeated string tags = 2;\n  map<string, int32> counts = 3;\n  message N { int32 x = 1; }\n}',
      ),
      [
        { name: 'id', type: 'int64' },
        { name: 'tags', type: 'repeated string' },
        { name: 'counts', type: 'map<string,int32>' },
      ],
    );
  });

  it('links TopicNameStrategy and TopicRecordNameStrategy subjects to topics', () => {
    assert.deepEqual(subjectTopic('orders-value', undefined, new Set()), { topic: 'orders', role: 'value' });
    assert.deepEqual(subjectTopic('orders-key', undefined, new Set()), { topic: 'orders', role: 'key' });
    assert.deepEqual(subjectTopic('orders-com.acme.Order', 'com.acme.Order', new Set(['orders'])), {
      topic: 'orders',
      role: 'value',
    });
    assert.equal(subjectTopic('com.acme.Order', 'com.acme.Order', new Set(['orders'])), undefined);
    const avro = JSON.stringify({ type: 'record', name: 'Order', namespace: 'com.acme', fields: [] });
    const fragment = schemaFragment(
      ENV,
      'lsrc-1',
      [
        { subject: 'orders-value', version: 2, id: 10, schema: avro },
        { subject: 'orders-com.acme.Order', version: 1, id: 11, schema: avro },
        { subject: 'missing-value', version: 1, id: 12, schema: avro },
      ],
      new Map([[LKC, new Set(['orders'])]]),
    );
    assert.deepEqual(
      fragment.edges.map((e) => [e.dst_id, e.attributes]),
      [
        [schemaId(ENV, 'orders-com.acme.Order'), { role: 'value' }],
        [schemaId(ENV, 'orders-value'), { role: 'value' }],
      ],
    );
    assert.equal(fragment.nodes.find((n) => n.id === schemaId(ENV, 'orders-value'))?.attributes?.schema_type, 'AVRO');
  });
});

describe('catalog', () => {
  it('enriches topics with tags, business metadata and owner, keeping topic names whole', () => {
    assert.deepEqual(parseCatalogTopicName('lsrc-1:lkc-2:a:b.c'), { clusterId: 'lkc-2', topic: 'a:b.c' });
    const enrichments = catalogEnrichments(
      ENV,
      [
        {
          typeName: 'kafka_topic',
          attributes: { qualifiedName: `lsrc-1:${LKC}:orders`, name: 'orders', owner: 'team' },
          classificationNames: ['PII', 'Gold'],
        },
      ],
      new Map([[`lsrc-1:${LKC}:orders`, [{ typeName: 'DataProduct', attributes: { domain: 'commerce' } }]]]),
    );
    assert.deepEqual(enrichments, [
      {
        nodeId: topicId(ENV, LKC, 'orders'),
        attributes: {
          tags: ['Gold', 'PII'],
          business_metadata: { DataProduct: { domain: 'commerce' } },
          owner: 'team',
        },
      },
    ]);
  });
});

describe('tableflow', () => {
  it('maps topic -> materialized table -> lakehouse and data-lake catalog tables by format', () => {
    const fragment = tableflowFragment(
      cluster,
      [
        {
          spec: {
            display_name: 'orders.v1',
            kafka_cluster: { id: LKC },
            table_formats: ['DELTA', 'ICEBERG'],
            storage: { kind: 'Managed' },
          },
          status: { phase: 'RUNNING' },
        },
      ],
      [
        { id: 'tci-u', spec: { kafka_cluster: { id: LKC }, config: { kind: 'Unity', catalog_name: 'main' } } },
        { id: 'tci-g', spec: { kafka_cluster: { id: LKC }, config: { kind: 'AwsGlue' } } },
        { id: 'tci-s', spec: { kafka_cluster: { id: LKC }, config: { kind: 'Snowflake' } } },
      ],
    );
    const table = materializedTableId(ENV, LKC, 'orders.v1');
    const lakehouse = lakehouseTableId(ENV, 'main', LKC, 'orders_v1');
    const datalake = datalakeTableId('us-east-1', LKC, 'orders.v1');
    assert.deepEqual(
      fragment.edges.map((e) => [e.src_id, e.dst_id]),
      [
        [topicId(ENV, LKC, 'orders.v1'), table],
        [table, datalake],
        [table, lakehouse],
      ],
    );
    assert.equal(fragment.nodes.find((n) => n.id === lakehouse)?.catalog_type, 'LAKEHOUSE_CATALOG');
    valid(topicFragment(cluster, [{ topic_name: 'orders.v1' }], []), fragment);
  });
});

describe('stream processing', () => {
  it("passes on the parser's warnings for a ksqlDB query, such as a statement it cannot classify", () => {
    const warnings: string[] = [];
    ksqlFragment(
      ENV,
      { id: 'lksqlc-1', spec: { kafka_cluster: { id: LKC } } },
      {
        queries: [
          { id: 'Q_1', statementText: 'RUN SCRIPT /tmp/x.sql;', sources: [], sinks: [], queryType: 'PERSISTENT' },
        ],
        sources: [],
      },
      (message) => warnings.push(message),
    );
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.match(warnings[0]!, /^ksqlDB query Q_1: statement 1 not classified \(starts "RUN SCRIPT/);
  });

  it('builds ksqlDB query nodes with source and sink topics', () => {
    const fragment = ksqlFragment(
      ENV,
      { id: 'lksqlc-1', spec: { kafka_cluster: { id: LKC } } },
      {
        queries: [
          {
            id: 'CSAS_B_1',
            statementText: 'CREATE STREAM B AS SELECT * FROM A;',
            sources: ['A'],
            sinks: ['B'],
            state: 'RUNNING',
            queryType: 'PERSISTENT',
            consumerGroupId: 'g',
          },
          { id: 'transient_1', sources: ['A'], sinks: [], queryType: 'PUSH' },
        ],
        sources: [
          { name: 'A', topic: 'a' },
          { name: 'B', topic: 'b' },
        ],
      },
    );
    const id = sqlQueryId(ENV, 'lksqlc-1', 'CSAS_B_1');
    assert.deepEqual(
      fragment.nodes.filter((n) => n.node_type === 'SQL_QUERY').map((n) => n.id),
      [id],
    );
    assert.ok(
      fragment.edges.some((e) => e.src_id === topicId(ENV, LKC, 'a') && e.edge_type === 'CONSUMES' && e.dst_id === id),
    );
    assert.ok(
      fragment.edges.some((e) => e.src_id === id && e.edge_type === 'PRODUCES' && e.dst_id === topicId(ENV, LKC, 'b')),
    );
    valid(fragment);
  });

  it('builds Flink statement nodes with sources from latest_offsets, placed on the cluster that lists the topic', () => {
    const fragment = flinkFragment(
      ENV,
      [
        {
          name: 'to-bi',
          spec: {
            statement: 'INSERT INTO x SELECT * FROM `prod`.`orders`.`o`;',
            compute_pool_id: 'lfcp-1',
            properties: { 'sql.current-database': 'bi' },
          },
          status: { phase: 'RUNNING', latest_offsets: { o: 'partition:0,offset:1' } },
        },
      ],
      {
        byName: new Map([
          ['orders', LKC],
          ['bi', 'lkc-bi'],
        ]),
        ids: new Set([LKC, 'lkc-bi']),
        topics: new Map([
          [LKC, new Set(['o'])],
          ['lkc-bi', new Set(['x'])],
        ]),
      },
    );
    const node = fragment.nodes.find((n) => n.node_type === 'STREAM_JOB');
    assert.equal(node?.attributes?.compute_pool_id, 'lfcp-1');
    assert.equal(node?.cluster_id, 'lkc-bi');
    assert.deepEqual(
      fragment.edges.map((e) => [e.src_id, e.edge_type, e.dst_id]),
      [[topicId(ENV, LKC, 'o'), 'CONSUMES', streamJobId(ENV, 'to-bi')]],
    );
  });
});

describe('metrics', () => {
  it('builds queries per cluster and compute pool and folds points into attributes', () => {
    const requests = metricRequests({
      clusters: [{ environmentId: ENV, clusterId: LKC }],
      computePools: [{ environmentId: ENV, computePoolId: 'lfcp-1' }],
      interval: metricsInterval(new Date('2024-01-01T01:00:00.500Z'), 1),
    });
    assert.equal(requests.length, 8);
    assert.deepEqual(requests[0]?.query.intervals, ['2024-01-01T00:00:00Z/2024-01-01T01:00:00Z']);
    const topicRequest = requests.find((r) => r.attribute === 'metrics_received_bytes')!;
    const connectorRequest = requests.find((r) => r.target === 'connector')!;
    const enrichments = metricEnrichments(
      [
        {
          request: topicRequest,
          points: [
            { value: 100, 'metric.topic': 'orders' },
            { value: 0, 'metric.topic': 'idle' },
          ] as never,
        },
        {
          request: connectorRequest,
          points: [
            { value: 5, 'resource.connector.id': 'lcc-1' },
            { value: 1, 'resource.connector.id': 'lcc-unknown' },
          ] as never,
        },
      ],
      new Map([['lcc-1', connectorId(ENV, LKC, 'sink')]]),
      1,
    );
    assert.deepEqual(enrichments, [
      {
        nodeId: topicId(ENV, LKC, 'orders'),
        attributes: { metrics_received_bytes: 100, metrics_active: true, metrics_window_hours: 1 },
      },
      {
        nodeId: topicId(ENV, LKC, 'idle'),
        attributes: { metrics_received_bytes: 0, metrics_active: false, metrics_window_hours: 1 },
      },
      {
        nodeId: connectorId(ENV, LKC, 'sink'),
        attributes: { [connectorRequest.attribute]: 5, metrics_active: true, metrics_window_hours: 1 },
      },
    ]);
  });

  it('derives consumer group lag and catalog table activity from the graph', () => {
    const now = new Date('2024-01-01T12:00:00Z');
    const derived = derivedMetricEnrichments(
      [
        { id: 'g', node_type: 'CONSUMER_GROUP', attributes: { total_lag: 0, state: 'STABLE' } },
        { id: 't', node_type: 'CATALOG_TABLE', attributes: { last_sync_at: '2024-01-01T11:30:00Z' } },
        { id: 'old', node_type: 'CATALOG_TABLE', attributes: { updated_at: '2023-12-01T00:00:00Z' } },
      ] as never,
      now,
      1,
    );
    assert.deepEqual(
      derived.map((d) => [d.nodeId, d.attributes.metrics_active]),
      [
        ['g', true],
        ['t', true],
        ['old', false],
      ],
    );
    assert.equal(derived[0]?.attributes.metrics_total_lag, 0);
  });
});

describe('graph builder', () => {
  it('merges attributes key by key, enriches only existing nodes, and drops dangling edges with a warning', () => {
    const builder = new GraphBuilder();
    builder.add(topicFragment(cluster, [{ topic_name: 'a', partitions_count: 1 }], []));
    builder.addNode({ ...placeholderTopic(ENV, LKC, 'a', { role: 'x' }) });
    assert.equal(builder.enrich(topicId(ENV, LKC, 'a'), { tags: ['PII'] }), true);
    assert.equal(builder.enrich(topicId(ENV, LKC, 'missing'), { tags: ['PII'] }), false);
    builder.addEdge(makeEdge(topicId(ENV, LKC, 'a'), 'HAS_SCHEMA', schemaId(ENV, 'nope')));
    const { graph, warnings } = builder.build();
    parseLineageGraph(graph);
    assert.deepEqual(graph.nodes[0]?.attributes, {
      role: 'x',
      partitions: 1,
      replication_factor: null,
      configs: {},
      bootstrap_endpoint: 'pkc-1.us-east-1.aws.confluent.cloud:9092',
      tags: ['PII'],
    });
    assert.equal(graph.edges.length, 0);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /dropped 1 HAS_SCHEMA edge\(s\).*missing stream:schema:env-abc123:nope/);
  });
});

describe('retry arithmetic', () => {
  it('backs off 1, 2, 4 times the base and honors Retry-After when longer', () => {
    assert.deepEqual(
      [0, 1, 2].map((retry) => retryDelayMs(retry, 1000, undefined, 60_000)),
      [1000, 2000, 4000],
    );
    assert.equal(retryDelayMs(0, 1000, 3000, 60_000), 3000);
    assert.equal(retryDelayMs(2, 1000, 3000, 60_000), 4000);
    assert.equal(retryDelayMs(0, 1000, 3_600_000, 60_000), 60_000);
    assert.equal(retryAfterMs('2'), 2000);
    assert.equal(retryAfterMs(new Date(10_000).toUTCString(), 5_000), 5000);
    assert.equal(retryAfterMs(null), undefined);
    assert.equal(retryAfterMs('soon'), undefined);
  });
});
