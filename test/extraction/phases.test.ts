/**
 * Each phase of `extract()` driven alone (`src/extraction/phases/`), with a fake `PlatformPort`
 * (`fakePlatform.ts`): what it asks the platform, what it adds to the run's graph builder, what it
 * warns, and what it returns for the phases after it. The run context itself
 * (`src/extraction/runContext.ts`) and the failure wording (`src/extraction/failures.ts`) first.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extract, type ExtractOptions } from '../../src/extraction/extract.js';
import { ValidationError } from '../../src/errors.js';
import { failureWarning, isNotFound, sameAuthFailure } from '../../src/extraction/failures.js';
import { linkMirrorTopics } from '../../src/extraction/phases/clusterLinking.js';
import { discoverEnvironment } from '../../src/extraction/phases/discovery.js';
import { extractMetrics } from '../../src/extraction/phases/metrics.js';
import { extractSchemasAndCatalog, schemaRegistriesOf } from '../../src/extraction/phases/schemas.js';
import { extractStreamProcessing } from '../../src/extraction/phases/streamProcessing.js';
import { extractTableflow } from '../../src/extraction/phases/tableflow.js';
import { extractTopicInventory } from '../../src/extraction/phases/topicInventory.js';
import type { MetricsQuery } from '../../src/extraction/platformTypes.js';
import { PlatformApiError, type PlatformPort } from '../../src/extraction/port.js';
import {
  createExtractionRun,
  type DiscoveredEnvironment,
  type ExtractedEnvironment,
  type ExtractionRun,
  type TopicInventory,
} from '../../src/extraction/runContext.js';
import {
  connectorId,
  consumerGroupId,
  datalakeTableId,
  externalDatasetId,
  schemaId,
  sqlQueryId,
  streamJobId,
  topicId,
} from '../../src/graph/ids.js';
import { topicFragment } from '../../src/extraction/topics.js';
import { silentLogger } from '../../src/logger.js';
import { credentialsRejected, notPermitted } from '../../infra/confluent/failureAdvice.js';
import { PLATFORM_SERVICES } from '../../infra/confluent/platformApi.js';
import { capturingLogger, clusterOf, fail, fakePlatform } from './fakePlatform.js';

const ENV = 'env-1';
const NOW = new Date('2026-11-20T10:00:30Z');

/** A run over `platform` with a fixed clock; `options` as `extract` takes them. */
function runOf(platform: PlatformPort, options: Partial<ExtractOptions> = {}, logger = silentLogger()): ExtractionRun {
  return createExtractionRun({ platform, logger, now: () => NOW }, { environmentIds: [ENV], ...options });
}

/** Environment `env-1` with the given clusters. */
function environmentOf(...clusterIds: string[]): DiscoveredEnvironment {
  return { environmentId: ENV, environmentName: 'prod', clusters: clusterIds.map((id) => clusterOf(id)) };
}

/** The environment with topics listed per cluster, as phase 1 leaves it. */
function withTopics(
  environment: DiscoveredEnvironment,
  topics: Record<string, string[]>,
): DiscoveredEnvironment & TopicInventory {
  return {
    ...environment,
    topicsByCluster: new Map(Object.entries(topics).map(([cluster, names]) => [cluster, new Set(names)])),
    clusterLinking: [],
  };
}

const topic = (topic_name: string) => ({ topic_name, partitions_count: 3, replication_factor: 3 });
const lagPoint = (group: string, topicName: string, value: number) => ({
  value,
  'metric.consumer_group_id': group,
  'metric.topic': topicName,
  timestamp: '2026-11-20T09:59:00Z',
});

/** The Kafka REST URL of `api` on `lkc-1` in these tests' failures. */
const kafkaRestUrl = (api: string) =>
  `https://lkc-1.example.test/kafka/v3/clusters/lkc-1/${api.replace('kafka-rest.', '')}`;

/**
 * A Kafka REST 401 or 403 as the HTTP client raises it: with the `advice` that names the service, the
 * URL and the variables (`infra/confluent/failureAdvice.ts`).
 */
function refusedByKafkaRest(api: string, status: 401 | 403): PlatformApiError {
  const advice = (status === 401 ? credentialsRejected : notPermitted)(PLATFORM_SERVICES.kafkaRest, kafkaRestUrl(api));
  return new PlatformApiError(api, 'status', status, `${api}: ${advice}`, advice);
}

describe('run context', () => {
  it('applies the defaults of the options', () => {
    const { settings } = runOf(fakePlatform());
    assert.equal(settings.extractorTimeoutMs, 120_000);
    assert.equal(settings.metricsLookbackHours, 1);
    assert.deepEqual(settings.clusterIds, []);
    assert.equal(typeof settings.statementLineage.resolve, 'function');
  });

  it('guards an extractor: its value, a failure as a warning and the fallback, a timeout as a warning', async () => {
    const run = runOf(fakePlatform(), { extractorTimeoutMs: 20 });
    assert.equal(await run.guarded('A', ENV, async () => 7, 0), 7);
    assert.equal(
      await run.guarded('Connect:lkc-1', ENV, () => Promise.reject(fail('connect.connectors', 403)), -1),
      -1,
    );
    assert.equal(await run.guarded('Slow', ENV, () => new Promise<number>(() => {}), -2), -2);
    assert.deepEqual(run.warnings, [
      'Connect:lkc-1: connect.connectors answered 403: the API key is not authorized for this resource',
      'Slow: did not finish within 0.02 s; its results are left out',
    ]);
  });

  it('reports progress to onProgress and the log, and warnings to the log', () => {
    const seen: string[] = [];
    const { logger, lines } = capturingLogger();
    const run = runOf(fakePlatform(), { onProgress: (p) => seen.push(`${p.phase} ${p.label}: ${p.message}`) }, logger);
    run.progress(2, 'Phase 2/4', 'connectors');
    run.warn('something');
    assert.deepEqual(seen, ['2 Phase 2/4: connectors']);
    assert.deepEqual(
      lines.map((line) => [line.msg, line.phase ?? line.warning]),
      [
        ['Phase 2/4: connectors', 2],
        ['Extraction:Warning', 'something'],
      ],
    );
  });
});

describe('failure wording', () => {
  it('words each failure as the documentation says', () => {
    assert.match(
      failureWarning('T', fail('tableflow.topics', 400)),
      /^T: tableflow.topics answered 400: the API key may lack access/,
    );
    assert.match(
      failureWarning('K', fail('kafka-rest.topics', 401)),
      /needs a cluster-scoped API key \(set LINEAGE_SVC_CLUSTER_API_KEY/,
    );
    assert.equal(
      failureWarning('D', fail('cmk.clusters', 401)),
      'D: cmk.clusters answered 401: the API key or secret was rejected (wrong or expired)',
    );
    assert.equal(
      failureWarning('D', fail('cmk.clusters', 403)),
      'D: cmk.clusters answered 403: the API key is not authorized for this resource',
    );
    assert.equal(
      failureWarning('S', fail('catalog.search', 404), ENV),
      'S: catalog.search answered 404: Schema Registry may be disabled in environment env-1',
    );
    assert.equal(failureWarning('C', fail('connect.connectors', 404)), 'C: connect.connectors answered 404');
    assert.equal(
      failureWarning('C', new PlatformApiError('connect.connectors', 'timeout', undefined, 'no answer within 30 s')),
      'C: no answer within 30 s',
    );
    assert.equal(failureWarning('X', new Error('boom')), 'X: failed: boom');
  });

  it('gives the advice of every 401 and 403: the service, the URL and the variables (issue 17)', () => {
    const cluster = 'LINEAGE_SVC_CLUSTER_API_KEY and LINEAGE_SVC_CLUSTER_API_SECRET';
    const topics = failureWarning('KafkaAdmin:lkc-1', refusedByKafkaRest('kafka-rest.topics', 401));
    assert.equal(
      topics,
      'KafkaAdmin:lkc-1: kafka-rest.topics answered 401: listing topics needs a cluster-scoped API key; ' +
        `Kafka REST rejected the credentials at ${kafkaRestUrl('kafka-rest.topics')} (HTTP 401): ` +
        `the key or secret is wrong or expired; set ${cluster} (when unset, the cloud key (LINEAGE_SVC_STREAM_CLOUD_API_KEY) is used)`,
    );
    for (const api of ['kafka-rest.consumer-groups', 'kafka-rest.mirrors', 'kafka-rest.all-topic-configs']) {
      const rejected = failureWarning('L', refusedByKafkaRest(api, 401));
      assert.ok(
        rejected.startsWith(`L: ${api} answered 401: Kafka REST rejected the credentials at ${kafkaRestUrl(api)}`),
      );
      assert.ok(rejected.includes(cluster), rejected);
      assert.doesNotMatch(rejected, /role binding/);
      const refused = failureWarning('L', refusedByKafkaRest(api, 403));
      assert.ok(refused.startsWith(`L: ${api} answered 403: Kafka REST refused the request at ${kafkaRestUrl(api)}`));
      assert.ok(refused.includes(cluster), refused);
      assert.doesNotMatch(refused, /wrong or expired/);
    }
  });

  it('tells a 404 of one API and the same authentication failure twice', () => {
    assert.ok(isNotFound(fail('kafka-rest.mirrors', 404), 'kafka-rest.mirrors'));
    assert.ok(!isNotFound(fail('kafka-rest.mirrors', 403), 'kafka-rest.mirrors'));
    assert.ok(!isNotFound(fail('kafka-rest.links', 404), 'kafka-rest.mirrors'));
    assert.ok(sameAuthFailure(fail('kafka-rest.topics', 401), fail('kafka-rest.mirrors', 401)));
    assert.ok(!sameAuthFailure(fail('kafka-rest.topics', 401), fail('kafka-rest.mirrors', 403)));
    assert.ok(!sameAuthFailure(fail('kafka-rest.topics', 500), fail('kafka-rest.mirrors', 500)));
  });
});

describe('discovery', () => {
  const clusters = [
    { id: 'lkc-2', spec: { display_name: 'two', http_endpoint: 'https://two:443' } },
    { id: 'lkc-1', spec: { display_name: 'one', http_endpoint: 'https://one:443', config: { kind: 'Dedicated' } } },
  ];

  it('finds the clusters sorted, with the environment name, in two requests', async () => {
    const platform = fakePlatform({ listKafkaClusters: () => clusters });
    const found = await discoverEnvironment(runOf(platform), ENV);
    assert.equal(found.status, 'found');
    assert.ok(found.status === 'found');
    assert.equal(found.environment.environmentName, 'prod');
    assert.deepEqual(
      found.environment.clusters.map((c) => [c.clusterId, c.displayName, c.kind]),
      [
        ['lkc-1', 'one', 'Dedicated'],
        ['lkc-2', 'two', null],
      ],
    );
    assert.deepEqual(platform.requestCounts(), { 'org.environment': 1, 'cmk.clusters': 1 });
  });

  it('goes on without a name when the environment cannot be read, quietly', async () => {
    const run = runOf(
      fakePlatform({
        getEnvironment: () => Promise.reject(fail('org.environment', 403)),
        listKafkaClusters: () => clusters,
      }),
    );
    const found = await discoverEnvironment(run, ENV);
    assert.ok(found.status === 'found');
    assert.equal(found.environment.environmentName, null);
    assert.deepEqual(run.warnings, []);
  });

  it('is unreadable when the clusters cannot be listed, and says why', async () => {
    const run = runOf(fakePlatform({ listKafkaClusters: () => Promise.reject(fail('cmk.clusters', 401)) }));
    assert.deepEqual(await discoverEnvironment(run, ENV), { status: 'unreadable' });
    assert.deepEqual(run.warnings, [
      'Discovery:env-1: cmk.clusters answered 401: the API key or secret was rejected (wrong or expired)',
    ]);
  });

  it('is unknown, quietly, when the environment answers 404 and its clusters 403', async () => {
    const run = runOf(
      fakePlatform({
        getEnvironment: () => Promise.reject(fail('org.environment', 404)),
        listKafkaClusters: () => Promise.reject(fail('cmk.clusters', 403)),
      }),
    );
    assert.deepEqual(await discoverEnvironment(run, ENV), { status: 'unknown' });
    assert.deepEqual(run.warnings, []);
  });

  it('warns when the cluster filter leaves nothing', async () => {
    const run = runOf(fakePlatform({ listKafkaClusters: () => clusters }), { clusterIds: ['lkc-9'] });
    assert.deepEqual(await discoverEnvironment(run, ENV), { status: 'no_clusters', clusterIds: ['lkc-2', 'lkc-1'] });
    assert.deepEqual(run.warnings, ['Discovery:env-1: no Kafka clusters found matching lkc-9']);
  });
});

describe('phase 1: topic inventory', () => {
  it('lists topics, consumer groups with their lag, one cluster after the other', async () => {
    const finished: string[] = [];
    let finishedBeforeSecond: string[] | undefined;
    const platform = fakePlatform({
      listTopics: async (cluster: { clusterId: string }) => {
        if (cluster.clusterId === 'lkc-2') finishedBeforeSecond = [...finished];
        await new Promise((resolve) => setTimeout(resolve, 5));
        finished.push(cluster.clusterId);
        return [topic(`orders-${cluster.clusterId}`), topic('_confluent-internal')];
      },
      listConsumerGroups: () => [{ consumer_group_id: 'billing', state: 'STABLE' }],
      queryMetrics: (query: MetricsQuery) => [lagPoint('billing', `orders-${String(query.filter.value)}`, 42)],
    });
    const run = runOf(platform);
    const inventory = await extractTopicInventory(run, environmentOf('lkc-1', 'lkc-2'));
    assert.deepEqual([...inventory.topicsByCluster.get('lkc-1')!], ['orders-lkc-1']);
    assert.deepEqual(inventory.clusterLinking, []);
    const { graph } = run.builder.build();
    const consumes = graph.edges.find((e) => e.dst_id === consumerGroupId(ENV, 'lkc-2', 'billing'));
    assert.equal(consumes?.src_id, topicId(ENV, 'lkc-2', 'orders-lkc-2'));
    assert.equal(consumes?.attributes?.lag, 42);
    assert.deepEqual(finishedBeforeSecond, ['lkc-1'], 'the second cluster is read once the first is done');
    assert.equal(platform.callsOf('kafka-rest.links').length, 0, 'no link listing without mirror topics');
    assert.deepEqual(run.warnings, []);
  });

  it('reads cluster links only for clusters with mirror topics, and logs a 404 on the mirrors without warning', async () => {
    const mirror = { link_name: 'dr', mirror_topic_name: 'orders', source_topic_name: 'orders' };
    const platform = fakePlatform({
      listMirrorTopics: (cluster: { clusterId: string }) =>
        cluster.clusterId === 'lkc-1' ? [mirror] : Promise.reject(fail('kafka-rest.mirrors', 404)),
      listClusterLinks: () => [{ link_name: 'dr', source_cluster_id: 'lkc-src' }],
    });
    const { logger, lines } = capturingLogger();
    const run = runOf(platform, {}, logger);
    const inventory = await extractTopicInventory(run, environmentOf('lkc-1', 'lkc-2'));
    assert.deepEqual(
      inventory.clusterLinking.map((found) => [found.cluster.clusterId, found.inventory.links.length]),
      [['lkc-1', 1]],
    );
    assert.equal(platform.callsOf('kafka-rest.links').length, 1);
    assert.deepEqual(run.warnings, []);
    assert.ok(lines.some((line) => line.msg === 'Extraction:NoClusterLinking' && line.cluster_id === 'lkc-2'));
  });
});

describe('phase 1: failures and fallbacks', () => {
  it('warns once when topics, groups and mirrors all answer the same 401, naming the service and the URL', async () => {
    const platform = fakePlatform({
      listTopics: () => Promise.reject(refusedByKafkaRest('kafka-rest.topics', 401)),
      listConsumerGroups: () => Promise.reject(refusedByKafkaRest('kafka-rest.consumer-groups', 401)),
      listMirrorTopics: () => Promise.reject(refusedByKafkaRest('kafka-rest.mirrors', 401)),
    });
    const run = runOf(platform);
    const inventory = await extractTopicInventory(run, environmentOf('lkc-1'));
    assert.equal(run.warnings.length, 1);
    assert.ok(
      run.warnings[0]!.startsWith(
        'KafkaAdmin:lkc-1: kafka-rest.topics answered 401: listing topics needs a cluster-scoped API key; ' +
          `Kafka REST rejected the credentials at ${kafkaRestUrl('kafka-rest.topics')} (HTTP 401): ` +
          'the key or secret is wrong or expired; set LINEAGE_SVC_CLUSTER_API_KEY and LINEAGE_SVC_CLUSTER_API_SECRET',
      ),
      run.warnings[0],
    );
    assert.equal(inventory.topicsByCluster.has('lkc-1'), false);
  });

  it('falls back to Kafka REST lags per group on Dedicated clusters when the Metrics API fails', async () => {
    const platform = fakePlatform({
      listTopics: () => [topic('orders')],
      listConsumerGroups: () => [{ consumer_group_id: 'a' }, { consumer_group_id: 'b' }],
      queryMetrics: () => Promise.reject(fail('metrics.query', 403)),
      listConsumerGroupLags: (_cluster: unknown, group: string) =>
        group === 'a'
          ? [{ topic_name: 'orders', partition_id: 0, lag: 5 }]
          : Promise.reject(fail('kafka-rest.lags', 500)),
    });
    const run = runOf(platform);
    await extractTopicInventory(run, environmentOf('lkc-1'));
    assert.equal(platform.callsOf('kafka-rest.lags').length, 2);
    const { graph } = run.builder.build();
    assert.equal(graph.edges.find((e) => e.dst_id === consumerGroupId(ENV, 'lkc-1', 'a'))?.attributes?.lag, 5);
    assert.deepEqual(run.warnings, [
      'ConsumerGroups:lkc-1: kafka-rest.lags answered 500 (lag of 1 of 2 group(s) unavailable)',
    ]);
  });

  it('says groups have no topic edges on other clusters when the Metrics API fails', async () => {
    const platform = fakePlatform({
      listConsumerGroups: () => [{ consumer_group_id: 'a' }],
      queryMetrics: () => Promise.reject(fail('metrics.query', 403)),
    });
    const run = createExtractionRun({ platform, logger: silentLogger(), now: () => NOW }, { environmentIds: [ENV] });
    await extractTopicInventory(run, {
      environmentId: ENV,
      environmentName: null,
      clusters: [clusterOf('lkc-1', 'Standard')],
    });
    assert.equal(platform.callsOf('kafka-rest.lags').length, 0);
    assert.equal(run.warnings.length, 1);
    assert.match(
      run.warnings[0]!,
      /^ConsumerGroups:lkc-1: metrics.query answered 403: .*; consumer lag is unavailable .*Dedicated clusters only/,
    );
  });
});

describe('phase 2: connectors and ksqlDB', () => {
  it('adds connectors and links the consumer groups they own (MEMBER_OF)', async () => {
    const platform = fakePlatform({
      listConsumerGroups: () => [{ consumer_group_id: 'connect-lcc-1' }],
      listConnectors: () => [
        {
          id: { id: 'lcc-1' },
          info: { name: 's3-sink', config: { 'connector.class': 'S3_SINK', topics: 'orders' } },
          status: { connector: { state: 'RUNNING' }, type: 'sink' },
        },
      ],
      listTopics: () => [topic('orders')],
    });
    const run = runOf(platform);
    const environment = environmentOf('lkc-1');
    const inventory = await extractTopicInventory(run, environment);
    const found = await extractStreamProcessing(run, { ...environment, ...inventory });
    const connector = connectorId(ENV, 'lkc-1', 's3-sink');
    assert.deepEqual([...found.connectorsByLccId], [['lcc-1', connector]]);
    const { graph } = run.builder.build();
    assert.ok(
      graph.edges.some(
        (e) =>
          e.edge_type === 'MEMBER_OF' &&
          e.src_id === consumerGroupId(ENV, 'lkc-1', 'connect-lcc-1') &&
          e.dst_id === connector,
      ),
    );
    assert.ok(
      graph.edges.some(
        (e) => e.edge_type === 'CONSUMES' && e.src_id === topicId(ENV, 'lkc-1', 'orders') && e.dst_id === connector,
      ),
    );
  });

  it('describes only the ksqlDB clusters of extracted Kafka clusters, and warns on one without an endpoint', async () => {
    const platform = fakePlatform({
      listKsqlClusters: () => [
        { id: 'lksqlc-1', spec: { kafka_cluster: { id: 'lkc-1' } }, status: { http_endpoint: 'https://ksql-1' } },
        { id: 'lksqlc-2', spec: { kafka_cluster: { id: 'lkc-other' } }, status: { http_endpoint: 'https://ksql-2' } },
        { id: 'lksqlc-3', spec: { kafka_cluster: { id: 'lkc-1' } }, status: { phase: 'PROVISIONING' } },
      ],
      describeKsqlCluster: () => ({
        queries: [{ id: 'CSAS_1', consumerGroupId: 'ksql-group-1', sources: [], sinks: [], state: 'RUNNING' }],
        sources: [],
      }),
    });
    const run = runOf(platform);
    const found = await extractStreamProcessing(run, withTopics(environmentOf('lkc-1'), { 'lkc-1': [] }));
    assert.deepEqual(
      platform.callsOf('ksqldb.ksql').map((call) => call.args[0]),
      ['https://ksql-1'],
    );
    assert.deepEqual([...found.sqlQueriesByGroupId], [['ksql-group-1', sqlQueryId(ENV, 'lksqlc-1', 'CSAS_1')]]);
    assert.deepEqual(run.warnings, [
      'ksqlDB:lksqlc-3: no server endpoint reported (cluster phase PROVISIONING); skipped',
    ]);
  });
});

describe('phase 2: Flink', () => {
  const statement = (name: string, phase = 'RUNNING') => ({
    name,
    spec: { statement: 'SELECT 1', compute_pool_id: 'lfcp-1', properties: { 'sql.current-database': 'lkc-1-name' } },
    status: { phase, latest_offsets: { orders: 'partition:0,offset:1' } },
  });

  it('asks Flink nothing more when the environment has no compute pool', async () => {
    const platform = fakePlatform();
    const found = await extractStreamProcessing(runOf(platform), withTopics(environmentOf('lkc-1'), {}));
    assert.deepEqual(found.computePools, []);
    assert.equal(platform.callsOf('org.organizations').length, 0);
    assert.equal(platform.callsOf('fcpm.regions').length, 0);
  });

  it('reads statements once per region of the pools, counts a statement listed twice once, and skips failed ones', async () => {
    const pools = [
      { id: 'lfcp-1', spec: { cloud: 'AWS', region: 'us-east-1' } },
      { id: 'lfcp-2', spec: { cloud: 'aws', region: 'us-east-1' } },
    ];
    const platform = fakePlatform({
      listComputePools: () => pools,
      listFlinkRegions: () => [{ http_endpoint: 'https://flink-a' }, { http_endpoint: 'https://flink-b' }],
      listStatements: () => [statement('enrich'), statement('broken', 'FAILED')],
    });
    const resolved: string[] = [];
    const statementLineage = {
      resolve: (body: { name: string }) => {
        resolved.push(body.name);
        return { sources: [], sinks: [] };
      },
    };
    const run = runOf(platform, { statementLineage });
    const found = await extractStreamProcessing(run, withTopics(environmentOf('lkc-1'), { 'lkc-1': ['orders'] }));
    assert.equal(platform.callsOf('fcpm.regions').length, 1);
    assert.equal(platform.callsOf('flink.statements').length, 2);
    assert.deepEqual(
      resolved,
      ['enrich'],
      'resolved once although both endpoints list it; FAILED statements not at all',
    );
    assert.deepEqual([...found.statementsByName], [['enrich', streamJobId(ENV, 'enrich')]]);
    assert.deepEqual(found.computePools, pools);
    const jobs = run.builder.build().graph.nodes.filter((n) => n.node_type === 'STREAM_JOB');
    assert.deepEqual(
      jobs.map((n) => n.id),
      [streamJobId(ENV, 'enrich')],
    );
  });

  it('keeps the compute pools when the organization cannot be read, with a Flink warning', async () => {
    const pools = [{ id: 'lfcp-1', spec: { cloud: 'AWS', region: 'us-east-1' } }];
    const platform = fakePlatform({ listComputePools: () => pools, listOrganizations: () => [] });
    const run = runOf(platform);
    const found = await extractStreamProcessing(run, withTopics(environmentOf('lkc-1'), {}));
    assert.deepEqual(found.computePools, pools);
    assert.deepEqual(run.warnings, ['Flink:env-1: failed: no organization found for the Flink SQL path']);
  });

  it('uses the configured Flink URL instead of the regions', async () => {
    const platform = fakePlatform({ listStatements: () => [statement('enrich')] });
    const run = runOf(platform, { flinkApiUrl: 'https://flink.example' });
    await extractStreamProcessing(run, withTopics(environmentOf('lkc-1'), {}));
    assert.equal(platform.callsOf('fcpm.regions').length, 0);
    assert.deepEqual(
      platform.callsOf('flink.statements').map((call) => call.args),
      [['https://flink.example', 'org-1', ENV]],
    );
  });
});

describe('phase 3: Schema Registry and Stream Catalog', () => {
  const avro = JSON.stringify({ type: 'record', name: 'Order', fields: [{ name: 'id', type: 'string' }] });
  const entity = (name: string, cluster = 'lkc-1') => ({
    typeName: 'kafka_topic',
    attributes: { qualifiedName: `lsrc-1:${cluster}:${name}`, name, owner: 'team-orders' },
  });

  it('skips an environment without Schema Registry with a progress line and no further request', async () => {
    const platform = fakePlatform();
    const progress: string[] = [];
    const run = runOf(platform, { onProgress: (p) => progress.push(p.message) });
    await extractSchemasAndCatalog(run, withTopics(environmentOf('lkc-1'), { 'lkc-1': ['orders'] }));
    assert.deepEqual(progress, [
      'schemas and catalog metadata in env-1',
      'no Schema Registry in env-1: schemas and catalog skipped',
    ]);
    assert.deepEqual(platform.requestCounts(), { 'srcm.clusters': 1 });
  });

  it('finds registries with an endpoint, or takes the configured URL without asking', async () => {
    const platform = fakePlatform({
      listSchemaRegistries: () => [
        { id: 'lsrc-1', spec: { http_endpoint: 'https://sr', catalog_http_endpoint: 'https://catalog' } },
        { id: 'lsrc-2', spec: {} },
      ],
    });
    assert.deepEqual(await schemaRegistriesOf(runOf(platform), ENV), [
      { id: 'lsrc-1', url: 'https://sr', catalogUrl: 'https://catalog' },
    ]);
    const configured = fakePlatform();
    assert.deepEqual(await schemaRegistriesOf(runOf(configured, { schemaRegistryUrl: 'https://mine' }), ENV), [
      { id: null, url: 'https://mine', catalogUrl: 'https://mine' },
    ]);
    assert.equal(configured.calls.length, 0);
  });

  it('adds schemas of listed topics and enriches them from the catalog, without business metadata requests when none is defined', async () => {
    const platform = fakePlatform({
      listTopics: () => [topic('orders')],
      listSchemaRegistries: () => [{ id: 'lsrc-1', spec: { http_endpoint: 'https://sr' } }],
      listLatestSchemas: () => [{ subject: 'orders-value', version: 2, id: 100, schema: avro }],
      searchCatalogTopics: () => [entity('orders'), entity('elsewhere', 'lkc-9')],
    });
    const run = runOf(platform);
    const environment = environmentOf('lkc-1');
    await extractSchemasAndCatalog(run, { ...environment, ...(await extractTopicInventory(run, environment)) });
    const { graph } = run.builder.build();
    const orders = topicId(ENV, 'lkc-1', 'orders');
    assert.ok(
      graph.edges.some(
        (e) => e.edge_type === 'HAS_SCHEMA' && e.src_id === orders && e.dst_id === schemaId(ENV, 'orders-value'),
      ),
    );
    assert.equal(graph.nodes.find((n) => n.id === orders)?.attributes?.owner, 'team-orders');
    assert.equal(platform.callsOf('catalog.entity-businessmetadata').length, 0);
    assert.deepEqual(run.warnings, []);
  });

  it('reads business metadata per topic when some is defined, and counts the failures in one warning', async () => {
    const platform = fakePlatform({
      listSchemaRegistries: () => [{ id: 'lsrc-1', spec: { http_endpoint: 'https://sr' } }],
      searchCatalogTopics: () => [entity('orders'), entity('payments')],
      listBusinessMetadataDefs: () => [{ name: 'Domain' }],
      getTopicBusinessMetadata: (_url: string, qualifiedName: string) =>
        qualifiedName.endsWith(':orders')
          ? [{ typeName: 'Domain', attributes: { area: 'retail' } }]
          : Promise.reject(fail('catalog.entity-businessmetadata', 500)),
    });
    const run = runOf(platform);
    await extractSchemasAndCatalog(run, withTopics(environmentOf('lkc-1'), {}));
    assert.equal(platform.callsOf('catalog.entity-businessmetadata').length, 2);
    assert.deepEqual(run.warnings, [
      'StreamCatalog:env-1: catalog.entity-businessmetadata answered 500 (business metadata of 1 topic(s) unavailable)',
    ]);
  });
});

describe('phase 4: Tableflow', () => {
  const glue = { id: 'tci-1', spec: { config: { kind: 'AwsGlue' } } };
  const table = { spec: { display_name: 'orders', table_formats: ['ICEBERG'] } };

  it('materializes topics per cluster into data-lake tables of the configured region', async () => {
    const platform = fakePlatform({ listTableflowTopics: () => [table], listCatalogIntegrations: () => [glue] });
    const run = runOf(platform, { datalakeRegion: 'eu-west-9' });
    await extractTableflow(run, environmentOf('lkc-1', 'lkc-2'));
    assert.equal(platform.callsOf('tableflow.topics').length, 2);
    const ids = run.builder.build().graph.nodes.map((n) => n.id);
    assert.ok(ids.includes(datalakeTableId('eu-west-9', 'lkc-1', 'orders')), ids.join('\n'));
  });

  it('warns per cluster on a 400 and adds nothing for it', async () => {
    const platform = fakePlatform({
      listTableflowTopics: (_env: string, cluster: string) =>
        cluster === 'lkc-1' ? Promise.reject(fail('tableflow.topics', 400)) : [table],
    });
    const run = runOf(platform);
    await extractTableflow(run, environmentOf('lkc-1', 'lkc-2'));
    assert.deepEqual(run.warnings, [
      'Tableflow:lkc-1: tableflow.topics answered 400: the API key may lack access or the parameters are invalid',
    ]);
    const clusters = new Set(
      run.builder
        .build()
        .graph.nodes.filter((n) => n.node_type === 'MATERIALIZED_TABLE')
        .map((n) => n.cluster_id),
    );
    assert.deepEqual([...clusters], ['lkc-2']);
  });
});

describe('after every environment: Cluster Linking', () => {
  it('links a mirror to the topic of an extracted cluster in another environment, else to an external kafka:// dataset', () => {
    const run = runOf(fakePlatform());
    const destination = clusterOf('lkc-dst', 'Dedicated', 'env-2');
    const mirrors = [
      { link_name: 'from-prod', mirror_topic_name: 'orders', source_topic_name: 'orders' },
      { link_name: 'from-outside', mirror_topic_name: 'clicks', source_topic_name: 'clicks' },
    ];
    const links = [
      { link_name: 'from-prod', source_cluster_id: 'lkc-1' },
      { link_name: 'from-outside', source_cluster_id: 'lkc-elsewhere' },
    ];
    linkMirrorTopics(run, [
      withTopics(environmentOf('lkc-1'), {}),
      {
        environmentId: 'env-2',
        environmentName: 'dr',
        clusters: [destination],
        clusterLinking: [{ cluster: destination, inventory: { mirrors, links } }],
      },
    ]);
    const transforms = run.builder.build().graph.edges.filter((e) => e.edge_type === 'TRANSFORMS');
    assert.deepEqual(
      transforms.map((e) => [e.src_id, e.dst_id]).sort(),
      [
        [externalDatasetId('env-2', 'kafka://lkc-elsewhere/clicks'), topicId('env-2', 'lkc-dst', 'clicks')],
        [topicId(ENV, 'lkc-1', 'orders'), topicId('env-2', 'lkc-dst', 'orders')],
      ].sort(),
    );
  });
});

describe('phase 5: metrics', () => {
  const extracted = (): ExtractedEnvironment => ({
    ...withTopics(environmentOf('lkc-1'), {}),
    connectorsByLccId: new Map([['lcc-1', connectorId(ENV, 'lkc-1', 's3-sink')]]),
    sqlQueriesByGroupId: new Map(),
    statementsByName: new Map(),
    computePools: [{ id: 'lfcp-1', spec: { cloud: 'AWS', region: 'us-east-1' } }],
  });

  it('queries each cluster and compute pool over the window and enriches the nodes it knows', async () => {
    const platform = fakePlatform({
      queryMetrics: (query: MetricsQuery) =>
        query.aggregations[0]!.metric === 'io.confluent.kafka.server/received_records'
          ? [{ value: 60, 'metric.topic': 'orders' }]
          : [],
    });
    const run = runOf(platform, { metricsLookbackHours: 3 });
    run.builder.add(topicFragment(clusterOf('lkc-1'), [topic('orders')], []));
    const samples = await extractMetrics(run, [extracted()]);
    const queries = platform.callsOf('metrics.query').map((call) => call.args[0] as MetricsQuery);
    assert.equal(
      queries.length,
      4 + 2 + 2,
      'four topic and two connector metrics per cluster, two Flink metrics per pool',
    );
    assert.ok(queries.every((query) => query.intervals[0] === '2026-11-20T07:00:30Z/2026-11-20T10:00:30Z'));
    const orders = samples?.samples.find((sample) => sample.node_id === topicId(ENV, 'lkc-1', 'orders'));
    assert.equal(orders?.metrics.metrics_received_records, 60);
    assert.equal(samples?.window_start, '2026-11-20T07:00:30Z');
    assert.equal(samples?.window_end, '2026-11-20T10:00:30Z');
    const node = run.builder.build().graph.nodes.find((n) => n.id === topicId(ENV, 'lkc-1', 'orders'));
    assert.equal(node?.attributes?.metrics_received_records, undefined, 'samples stay apart from the graph');
    assert.deepEqual(run.warnings, []);
  });

  it('counts failed queries in one warning and keeps the answers of the others', async () => {
    let answered = 0;
    const platform = fakePlatform({
      queryMetrics: () => (++answered % 2 === 0 ? Promise.reject(fail('metrics.query', 503)) : []),
    });
    const run = runOf(platform);
    await extractMetrics(run, [extracted()]);
    assert.deepEqual(run.warnings, ['Metrics: metrics.query answered 503 (4 of 8 metric queries failed)']);
  });
});

describe('extract lists the phases', () => {
  it('refuses, before any phase, an environment that does not exist or a cluster in none of them', async () => {
    const platform = fakePlatform({
      getEnvironment: (env: string) =>
        env === 'env-nope' ? Promise.reject(fail('org.environment', 404)) : { id: env, display_name: env },
      listKafkaClusters: (env: string) =>
        env === 'env-nope'
          ? Promise.reject(fail('cmk.clusters', 403))
          : [{ id: 'lkc-1', spec: { http_endpoint: 'https://k' } }],
      listTopics: () => [topic('orders')],
    });
    const deps = { platform, logger: silentLogger(), now: () => NOW };
    await assert.rejects(
      extract(deps, { environmentIds: ['env-1', 'env-nope'] }),
      (error: Error) => error instanceof ValidationError && /--env env-nope matches no environment/.test(error.message),
    );
    await assert.rejects(
      extract(deps, { environmentIds: ['env-1'], clusterIds: ['lkc-1', 'lkc-typo'] }),
      (error: Error) =>
        error instanceof ValidationError &&
        /--cluster lkc-typo matches no Kafka cluster of env-1 \(they have lkc-1\)/.test(error.message),
    );
    assert.equal(platform.requestCounts()['kafka-rest.topics'], undefined, 'no phase ran');
  });

  it('runs discovery per environment, then phases 1-4 per environment, then metrics once, then Done', async () => {
    const platform = fakePlatform({
      listKafkaClusters: (env: string) => [
        { id: env === 'env-1' ? 'lkc-1' : 'lkc-2', spec: { http_endpoint: 'https://k' } },
      ],
      listTopics: () => [topic('orders')],
    });
    const labels: string[] = [];
    const result = await extract(
      { platform, logger: silentLogger(), now: () => NOW },
      { environmentIds: ['env-1', 'env-2', 'env-1'], enableMetrics: true, onProgress: (p) => labels.push(p.label) },
    );
    const perEnvironment = ['Phase 1/5', 'Phase 2/5', 'Phase 3/5', 'Phase 3/5', 'Phase 4/5'];
    assert.deepEqual(labels, ['Discovery', 'Discovery', ...perEnvironment, ...perEnvironment, 'Phase 5/5', 'Done']);
    assert.equal(result.counts.nodes, 2);
    assert.deepEqual(result.requests, platform.requestCounts(), 'every request of the run, and only those');
    assert.deepEqual(result.warnings, []);
  });
});
