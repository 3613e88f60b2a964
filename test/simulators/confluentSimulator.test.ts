/**
 * Platform simulator over a real socket: endpoints and shapes, pagination, credentials per
 * service, every fault kind, request accounting, scenario loading (YAML, JSON, errors) and the
 * large-estate generator. No timing assertions.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ValidationError } from '../../src/errors.js';
import { ManualClock } from '../helpers/clock.js';
import { eventually } from '../helpers/wait.js';
import {
  largeEstateScenario,
  loadScenario,
  parseScenario,
  startPlatformSimulator,
  type PlatformSimulator,
  type Scenario,
  type ScenarioInput,
} from '../../simulators/confluent/index.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Key {
  key: string;
  secret: string;
}

function basic(k: Key): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${k.key}:${k.secret}`).toString('base64')}` };
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: Json;
}

async function call(
  url: string,
  key: Key | undefined,
  init: { method?: string; body?: unknown; signal?: AbortSignal; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...(key !== undefined ? basic(key) : {}), ...(init.headers ?? {}) };
  if (init.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(url, {
    method: init.method ?? (init.body !== undefined ? 'POST' : 'GET'),
    headers,
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    ...(init.signal !== undefined ? { signal: init.signal } : {}),
  });
  const text = await res.text();
  let body: Json = {};
  try {
    body = text === '' ? {} : (JSON.parse(text) as Json);
  } catch {
    body = {};
  }
  return { status: res.status, headers: res.headers, text, body };
}

const PROD = 'env-q7m2k9';
const DEV = 'env-x2n4c6';
const ORDERS = 'lkc-7x9m2p';
const ANALYTICS = 'lkc-3k8w5n';
const LSRC = 'lsrc-5w7q1z';
const KSQL = 'lksqlc-8p2v6d';

describe('platform simulator (demo scenario)', () => {
  let sim: PlatformSimulator;
  let scenario: Scenario;
  let cloud: Key;
  let kafka: Key;
  let sr: Key;
  let flink: Key;
  let ksqldb: Key;
  const u = (p: string): string => `${sim.url}${p}`;
  const krest = (cluster: string, p: string): string => u(`/kafka-rest/${cluster}/kafka/v3/clusters/${cluster}${p}`);

  before(async () => {
    scenario = await loadScenario('demo');
    sim = await startPlatformSimulator({ scenario });
    ({ cloud, kafka, schema_registry: sr, flink, ksqldb } = scenario.credentials);
  });
  after(async () => {
    await sim.close();
  });

  describe('control plane', () => {
    it('lists environments and gets one, 404 for an unknown one', async () => {
      const list = await call(u('/org/v2/environments'), cloud);
      assert.equal(list.status, 200);
      assert.equal(list.body.kind, 'EnvironmentList');
      assert.equal(list.body.api_version, 'org/v2');
      assert.deepEqual(
        list.body.data.map((e: Json) => e.id),
        [PROD, DEV],
      );
      assert.match(
        list.body.data[0].metadata.resource_name,
        /^crn:\/\/confluent\.cloud\/organization=.+\/environment=env-q7m2k9$/,
      );
      assert.equal(list.body.data[0].stream_governance_config.package, 'ADVANCED');
      const one = await call(u(`/org/v2/environments/${PROD}`), cloud);
      assert.equal(one.body.display_name, 'retail-prod');
      const missing = await call(u('/org/v2/environments/env-nope'), cloud);
      assert.equal(missing.status, 404);
      assert.equal(missing.body.errors[0].status, '404');
      assert.equal(missing.body.errors[0].code, 'resource_not_found');
      const orgs = await call(u('/org/v2/organizations'), cloud);
      assert.equal(orgs.body.data[0].id, scenario.organization.id);
    });

    it('lists Kafka clusters with discovered endpoints pointing back to the simulator', async () => {
      const res = await call(u(`/cmk/v2/clusters?environment=${PROD}&page_size=100`), cloud);
      assert.equal(res.status, 200);
      assert.equal(res.body.kind, 'ClusterList');
      const c = res.body.data[0];
      assert.equal(c.id, ORDERS);
      assert.equal(c.spec.http_endpoint, `${sim.url}/kafka-rest/${ORDERS}`);
      assert.equal(c.spec.kafka_bootstrap_endpoint, 'SASL_SSL://pkc-4r8mz.us-east-1.aws.confluent.cloud:9092');
      assert.equal(c.spec.config.kind, 'Dedicated');
      assert.equal(c.spec.environment.id, PROD);
      assert.equal(res.body.metadata.next, undefined);
      const one = await call(u(`/cmk/v2/clusters/${ANALYTICS}?environment=${PROD}`), cloud);
      assert.equal(one.body.spec.display_name, 'analytics-standard');
      const deleted = await call(u(`/cmk/v2/clusters/lkc-gone?environment=${PROD}`), cloud);
      assert.equal(deleted.status, 403);
      assert.equal(deleted.body.errors[0].code, 'forbidden_access');
      const missingEnv = await call(u('/cmk/v2/clusters'), cloud);
      assert.equal(missingEnv.status, 400);
      assert.equal(missingEnv.body.errors[0].source.parameter, 'environment');
    });

    it('paginates v2 lists with page_size and page_token over several pages', async () => {
      const ids: string[] = [];
      let next: string | undefined = u(`/cmk/v2/clusters?environment=${PROD}&page_size=1`);
      let pages = 0;
      while (next !== undefined && next !== '') {
        const res = await call(next, cloud);
        assert.equal(res.status, 200);
        ids.push(...res.body.data.map((c: Json) => c.id));
        next = res.body.metadata.next;
        if (next !== undefined) assert.match(next, /page_token=/);
        pages++;
      }
      assert.equal(pages, 2);
      assert.deepEqual(ids, [ORDERS, ANALYTICS]);
      const bad = await call(u(`/cmk/v2/clusters?environment=${PROD}&page_token=garbage`), cloud);
      assert.equal(bad.status, 400);
    });

    it('answers srcm, ksqldbcm, fcpm, iam and tableflow', async () => {
      const srcm = await call(u(`/srcm/v3/clusters?environment=${PROD}`), cloud);
      assert.equal(srcm.body.data[0].spec.http_endpoint, `${sim.url}/schema-registry/${LSRC}`);
      assert.equal(srcm.body.data[0].spec.catalog_http_endpoint, `${sim.url}/schema-registry/${LSRC}`);
      const noSr = await call(u(`/srcm/v3/clusters?environment=${DEV}`), cloud);
      assert.equal(noSr.status, 200);
      assert.equal(noSr.body.data, null);
      assert.equal(noSr.body.metadata.total_size, 0);
      const ksql = await call(u(`/ksqldbcm/v2/clusters?environment=${PROD}`), cloud);
      assert.equal(ksql.body.data[0].status.http_endpoint, `${sim.url}/ksqldb/${KSQL}`);
      assert.equal(ksql.body.data[0].spec.kafka_cluster.id, ORDERS);
      assert.equal(ksql.body.data[0].status.topic_prefix, 'pksqlc-9j4r2');
      const pools = await call(u(`/fcpm/v2/compute-pools?environment=${PROD}`), cloud);
      assert.equal(pools.body.data[0].spec.region, 'us-east-1');
      assert.equal(pools.body.metadata.next, '');
      const regions = await call(u('/fcpm/v2/regions?cloud=AWS&region_name=us-east-1'), cloud);
      assert.equal(regions.body.data[0].http_endpoint, `${sim.url}/flink/aws-us-east-1`);
      const sas = await call(u('/iam/v2/service-accounts'), cloud);
      assert.ok(sas.body.data.some((s: Json) => s.id === 'sa-p7f2q8'));
      const tf = await call(
        u(`/tableflow/v1/tableflow-topics?environment=${PROD}&spec.kafka_cluster=${ORDERS}`),
        cloud,
      );
      assert.equal(tf.body.kind, 'TableflowTopicList');
      assert.equal(tf.body.data[0].spec.display_name, 'orders_enriched');
      assert.deepEqual(tf.body.data[0].spec.table_formats, ['DELTA', 'ICEBERG']);
      assert.equal(tf.body.data[0].spec.storage.kind, 'Managed');
      const ci = await call(
        u(`/tableflow/v1/catalog-integrations?environment=${PROD}&spec.kafka_cluster=${ORDERS}`),
        cloud,
      );
      assert.equal(ci.body.data[0].spec.config.kind, 'Unity');
      const tfMissing = await call(u(`/tableflow/v1/tableflow-topics?environment=${PROD}`), cloud);
      assert.equal(tfMissing.status, 400);
    });
  });

  describe('connect', () => {
    const base = `/connect/v1/environments/${PROD}/clusters/${ORDERS}/connectors`;
    it('lists names, and the expanded map with masked secrets', async () => {
      const names = await call(u(base), cloud);
      assert.ok(Array.isArray(names.body));
      assert.ok((names.body as unknown as string[]).includes('pg-retail-cdc'));
      const expanded = await call(u(`${base}?expand=info,status,id`), cloud);
      const cdc = expanded.body['pg-retail-cdc'];
      assert.equal(cdc.id.id, 'lcc-p9c2d1');
      assert.equal(cdc.info.config['topic.prefix'], 'pg.retail');
      assert.equal(cdc.info.config['table.include.list'], 'public.orders,public.customers,public.order_items');
      assert.equal(cdc.info.config['database.password'], '****************');
      assert.equal(cdc.status.connector.state, 'RUNNING');
      assert.equal(expanded.body['opensearch-clicks'].info.config['topics.regex'], '^clickstream.*');
      const one = await call(u(`${base}/bq-revenue-sink`), cloud);
      assert.equal(one.body.type, 'sink');
      assert.equal(one.body.config.topics, 'order_revenue_1m,customer_ltv');
      const config = await call(u(`${base}/bq-revenue-sink/config`), cloud);
      assert.equal(config.body['connector.class'], 'BigQueryStorageSink');
      const status = await call(u(`${base}/bq-revenue-sink/status`), cloud);
      assert.equal(status.body.connector.state, 'RUNNING');
      const missing = await call(u(`${base}/nope`), cloud);
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { error_code: 404, message: 'resource not found' });
    });
  });

  describe('kafka rest', () => {
    it('lists topics, configs (per topic and all at once) and partitions, unpaginated', async () => {
      const topics = await call(krest(ORDERS, '/topics'), kafka);
      assert.equal(topics.status, 200);
      assert.equal(topics.body.kind, 'KafkaTopicList');
      assert.equal(topics.body.metadata.next, null);
      const t = topics.body.data.find((x: Json) => x.topic_name === 'orders_enriched');
      assert.equal(t.partitions_count, 12);
      assert.equal(t.replication_factor, 3);
      assert.equal(t.is_internal, false);
      assert.equal(topics.body.data.find((x: Json) => x.topic_name.startsWith('_confluent-ksql')).is_internal, true);
      const configs = await call(krest(ORDERS, '/topics/pg.retail.public.customers/configs'), kafka);
      const cleanup = configs.body.data.find((c: Json) => c.name === 'cleanup.policy');
      assert.equal(cleanup.value, 'compact');
      assert.equal(cleanup.source, 'DYNAMIC_TOPIC_CONFIG');
      assert.equal(cleanup.is_default, false);
      const all = await call(krest(ORDERS, '/topics/-/configs'), kafka);
      const topicNames = new Set(all.body.data.map((c: Json) => c.topic_name));
      assert.equal(topicNames.size, topics.body.data.length);
      const single = await call(krest(ORDERS, '/topics/orders_enriched/configs/retention.ms'), kafka);
      assert.equal(single.body.value, '604800000');
      const parts = await call(krest(ORDERS, '/topics/orders_enriched/partitions'), kafka);
      assert.equal(parts.body.data.length, 12);
      const missing = await call(krest(ORDERS, '/topics/nope'), kafka);
      assert.equal(missing.status, 404);
      assert.equal(missing.body.error_code, 40403);
      const wrongCluster = await call(u(`/kafka-rest/${ORDERS}/kafka/v3/clusters/${ANALYTICS}/topics`), kafka);
      assert.equal(wrongCluster.status, 404);
      assert.match(wrongCluster.body.message, /cannot be found/);
    });

    it('lists consumer groups, consumers, lags and lag summary (Dedicated only)', async () => {
      const groups = await call(krest(ORDERS, '/consumer-groups'), kafka);
      const ids = groups.body.data.map((g: Json) => g.consumer_group_id);
      assert.ok(ids.includes('connect-lcc-s3a7k2'));
      assert.ok(ids.includes('_confluent-ksql-pksqlc-9j4r2query_CSAS_CLICKSTREAM_BOTS_1'));
      const consumers = await call(krest(ORDERS, '/consumer-groups/fraud-scoring-service/consumers'), kafka);
      assert.equal(consumers.body.data.length, 3);
      assert.equal(consumers.body.data[0].client_id, 'fraud-scorer');
      const lags = await call(krest(ORDERS, '/consumer-groups/connect-lcc-bq42r7/lags'), kafka);
      assert.deepEqual([...new Set(lags.body.data.map((l: Json) => l.topic_name))].sort(), [
        'customer_ltv',
        'order_revenue_1m',
      ]);
      const total = lags.body.data.reduce((a: number, l: Json) => a + l.lag, 0);
      assert.equal(total, 15);
      const summary = await call(krest(ORDERS, '/consumer-groups/connect-lcc-bq42r7/lag-summary'), kafka);
      assert.equal(summary.body.total_lag, 15);
      assert.equal(summary.body.max_lag_topic_name, 'order_revenue_1m');
      const empty = await call(krest(ORDERS, '/consumer-groups/legacy-reporting'), kafka);
      assert.equal(empty.body.state, 'EMPTY');
      const standard = await call(krest(ANALYTICS, '/consumer-groups/bi-dashboard-refresher/lags'), kafka);
      assert.equal(standard.status, 404);
      const assignments = await call(
        krest(
          ORDERS,
          `/consumer-groups/fraud-scoring-service/consumers/${encodeURIComponent(consumers.body.data[0].consumer_id)}/assignments`,
        ),
        kafka,
      );
      assert.equal(assignments.status, 404);
    });

    it('lists cluster links and mirror topics', async () => {
      const links = await call(krest(ANALYTICS, '/links'), kafka);
      assert.equal(links.body.data[0].source_cluster_id, ORDERS);
      const mirrors = await call(krest(ANALYTICS, '/links/-/mirrors'), kafka);
      assert.equal(mirrors.body.data[0].source_topic_name, 'orders_enriched');
      assert.equal(mirrors.body.data[0].mirror_topic_name, 'dedicated.orders_enriched');
      // retail-dev mirrors a topic of retail-prod: one partition row per partition, the declared lag spread over them.
      const dev = await call(krest('lkc-9d2f4g', '/links/-/mirrors'), kafka);
      assert.equal(dev.status, 200);
      assert.equal(dev.body.kind, 'KafkaMirrorDataList');
      assert.equal(dev.body.metadata.next, null);
      const orderItems = dev.body.data[0] as Json;
      assert.deepEqual(
        [orderItems.link_name, orderItems.source_topic_name, orderItems.mirror_topic_name],
        ['retail-prod-to-dev', 'pg.retail.public.order_items', 'pg.retail.public.order_items'],
      );
      assert.equal(orderItems.mirror_lags.length, 12);
      assert.equal(
        orderItems.mirror_lags.reduce((sum: number, row: Json) => sum + row.lag, 0),
        96,
      );
      const devLinks = await call(krest('lkc-9d2f4g', '/links'), kafka);
      assert.equal(devLinks.body.data[0].source_cluster_id, ORDERS, 'the source cluster is in another environment');
      // A cluster that is no link's destination answers empty lists.
      const none = await call(krest(ORDERS, '/links/-/mirrors'), kafka);
      assert.deepEqual(none.body.data, []);
      assert.deepEqual((await call(krest(ORDERS, '/links'), kafka)).body.data, []);
      // The Kafka cluster key, not the cloud key.
      assert.equal((await call(krest('lkc-9d2f4g', '/links/-/mirrors'), cloud)).status, 401);
    });
  });

  describe('schema registry and stream catalog', () => {
    const s = (p: string): string => u(`/schema-registry/${LSRC}${p}`);
    it('lists subjects and schemas, omitting schemaType for AVRO', async () => {
      const subjects = await call(s('/subjects'), sr);
      assert.ok((subjects.body as unknown as string[]).includes('orders_enriched-value'));
      const latest = await call(s('/subjects/pg.retail.public.customers-value/versions/latest'), sr);
      assert.equal(latest.headers.get('content-type')?.startsWith('application/vnd.schemaregistry.v1+json'), true);
      assert.equal(latest.body.schemaType, undefined);
      assert.deepEqual(latest.body.references, [
        { name: 'com.acme.retail.Address', subject: 'com.acme.retail.Address', version: 1 },
      ]);
      const proto = await call(s('/subjects/pg.retail.public.order_items-value/versions/1'), sr);
      assert.equal(proto.body.schemaType, 'PROTOBUF');
      const all = await call(s('/schemas'), sr);
      assert.equal((all.body as unknown as Json[]).length, (subjects.body as unknown as string[]).length);
      const byId = await call(s(`/schemas/ids/${latest.body.id}`), sr);
      assert.equal(byId.body.schema, latest.body.schema);
      const missing = await call(s('/subjects/nope-value/versions/latest'), sr);
      assert.equal(missing.status, 404);
      assert.equal(missing.body.error_code, 40401);
      const noRegistry = await call(u('/schema-registry/lsrc-disabled/subjects'), sr);
      assert.equal(noRegistry.status, 404);
    });

    it('searches topics and answers entities, tags and business metadata (int64 kept exact)', async () => {
      const search = await call(s('/catalog/v1/search/basic?type=kafka_topic&tag=PII&limit=500'), sr);
      assert.deepEqual(search.body.types, ['kafka_topic']);
      const names = search.body.entities.map((e: Json) => e.attributes.name);
      assert.ok(names.includes('orders_enriched'));
      assert.ok(search.body.entities.every((e: Json) => e.classificationNames.includes('PII')));
      const qn = `${LSRC}:${ORDERS}:orders_enriched`;
      const entity = await call(s(`/catalog/v1/entity/type/kafka_topic/name/${qn}`), sr);
      assert.equal(entity.body.entity.attributes.qualifiedName, qn);
      assert.equal(entity.body.entity.attributes.owner, 'orders-platform');
      assert.match(entity.text, /"flushMs":9223372036854775807/);
      assert.deepEqual(entity.body.entity.classifications.map((c: Json) => c.typeName).sort(), ['Gold', 'PII']);
      const tags = await call(s(`/catalog/v1/entity/type/kafka_topic/name/${ORDERS}:orders_enriched/tags`), sr);
      assert.equal(tags.body.length, 2);
      const bm = await call(s(`/catalog/v1/entity/type/kafka_topic/name/${qn}/businessmetadata`), sr);
      assert.equal(bm.body[0].typeName, 'DataProduct');
      assert.equal(bm.body[0].attributes.domain, 'commerce');
      const tagdefs = await call(s('/catalog/v1/types/tagdefs'), sr);
      assert.ok(tagdefs.body.some((d: Json) => d.name === 'PII'));
    });
  });

  describe('ksqlDB', () => {
    const ksql = (statement: string): Promise<Answer> =>
      call(u(`/ksqldb/${KSQL}/ksql`), ksqldb, {
        body: { ksql: statement, streamsProperties: {} },
        headers: { accept: 'application/vnd.ksql.v1+json' },
      });
    it('answers SHOW QUERIES [EXTENDED], LIST STREAMS/TABLES [EXTENDED], DESCRIBE and EXPLAIN', async () => {
      const queries = await ksql('SHOW QUERIES;');
      assert.equal(queries.status, 200);
      assert.equal(queries.body[0]['@type'], 'queries');
      const q = queries.body[0].queries.find((x: Json) => x.id === 'CSAS_CHECKOUT_CLICKS_5');
      assert.deepEqual(q.sinkKafkaTopics, ['checkout_clicks']);
      const extended = await ksql('SHOW QUERIES EXTENDED;');
      assert.equal(extended.body[0]['@type'], 'query_descriptions');
      const d = extended.body[0].queryDescriptions.find((x: Json) => x.id === 'CSAS_CHECKOUT_CLICKS_5');
      assert.deepEqual(d.sources, ['CLICKSTREAM', 'CUSTOMERS_TBL']);
      assert.equal(d.consumerGroupId, '_confluent-ksql-pksqlc-9j4r2query_CSAS_CHECKOUT_CLICKS_5');
      const many = await ksql('LIST STREAMS; LIST TABLES; LIST STREAMS EXTENDED; LIST TABLES EXTENDED;');
      assert.deepEqual(
        many.body.map((e: Json) => e['@type']),
        ['streams', 'tables', 'source_descriptions', 'source_descriptions'],
      );
      assert.ok(
        many.body[1].tables.some((t: Json) => t.name === 'CUSTOMERS_TBL' && t.topic === 'pg.retail.public.customers'),
      );
      const describe = await ksql('DESCRIBE clickstream_bots EXTENDED;');
      assert.equal(describe.body[0]['@type'], 'sourceDescription');
      assert.equal(describe.body[0].sourceDescription.topic, 'clickstream_bots');
      assert.equal(describe.body[0].sourceDescription.writeQueries[0].id, 'CSAS_CLICKSTREAM_BOTS_1');
      const explain = await ksql('EXPLAIN CTAS_CLICKSTREAM_SESSIONS_3;');
      assert.equal(explain.body[0].queryDescription.sinks[0], 'CLICKSTREAM_SESSIONS');
      const unsupported = await ksql('LIST STREAMS; TERMINATE ALL;');
      assert.equal(unsupported.status, 400);
      assert.equal(unsupported.body['@type'], 'statement_error');
      assert.equal(unsupported.body.entities.length, 1);
    });
  });

  describe('flink', () => {
    it('lists statements of a region with pagination, and gets one', async () => {
      const base = `/flink/aws-us-east-1/sql/v1/organizations/${scenario.organization.id}/environments/${PROD}/statements`;
      const names: string[] = [];
      let next: string | undefined = u(`${base}?page_size=2`);
      let pages = 0;
      while (next !== undefined && next !== '') {
        const res = await call(next, flink);
        assert.equal(res.status, 200);
        assert.equal(res.body.kind, 'StatementList');
        names.push(...res.body.data.map((st: Json) => st.name));
        next = res.body.metadata.next;
        pages++;
      }
      assert.equal(pages, 3);
      assert.equal(names.length, 6);
      const one = await call(u(`${base}/orders-to-bi`), flink);
      assert.equal(one.body.spec.properties['sql.current-catalog'], 'retail-prod');
      assert.equal(one.body.spec.properties['sql.current-database'], 'analytics-standard');
      assert.equal(one.body.status.traits.sql_kind, 'INSERT_INTO');
      assert.match(one.body.status.latest_offsets.orders_enriched, /^partition:0,offset:\d+;/);
      const ctas = await call(u(`${base}/customer-ltv`), flink);
      assert.equal(ctas.body.status.traits.sql_kind, 'CREATE_TABLE_AS');
      const other = await call(
        u(`/flink/aws-us-east-1/sql/v1/organizations/${scenario.organization.id}/environments/${DEV}/statements`),
        flink,
      );
      assert.deepEqual(other.body.data, []);
      const missing = await call(u(`${base}/nope`), flink);
      assert.equal(missing.status, 404);
    });
  });

  describe('metrics', () => {
    const query = (body: unknown, page?: string): Promise<Answer> =>
      call(u(`/v2/metrics/cloud/query${page !== undefined ? `?page_token=${page}` : ''}`), cloud, { body });
    it('answers topic throughput grouped by topic, paginated', async () => {
      const body = {
        aggregations: [{ metric: 'io.confluent.kafka.server/received_bytes' }],
        filter: { field: 'resource.kafka.id', op: 'EQ', value: ORDERS },
        granularity: 'ALL',
        intervals: ['now-1h|m/now|m'],
        group_by: ['metric.topic'],
        limit: 5,
      };
      const seen: string[] = [];
      let token: string | undefined;
      do {
        const res = await query(body, token);
        assert.equal(res.status, 200);
        for (const row of res.body.data) {
          assert.equal(typeof row.value, 'number');
          assert.equal(typeof row.timestamp, 'string');
          seen.push(row['metric.topic']);
        }
        token = res.body.meta.pagination.next_page_token;
      } while (token !== undefined);
      assert.ok(seen.includes('orders_enriched'));
      assert.ok(!seen.includes('pksqlc-9j4r2-processing-log'), 'idle topics have no data point');
      assert.equal(new Set(seen).size, seen.length);
    });
    it("reads relative intervals (now-2h|h) on the simulator's clock", async () => {
      const clock = new ManualClock(Date.parse('2026-11-01T09:41:00Z'));
      const held = await startPlatformSimulator({ scenario, clock });
      try {
        const answer = await call(`${held.url}/v2/metrics/cloud/query`, cloud, {
          body: {
            aggregations: [{ metric: 'io.confluent.kafka.server/received_bytes' }],
            filter: { field: 'resource.kafka.id', op: 'EQ', value: ORDERS },
            granularity: 'PT1H',
            intervals: ['now-2h|h/now|h'],
          },
        });
        assert.equal(answer.status, 200, answer.text);
        assert.deepEqual(
          [...new Set(answer.body.data.map((row: Json) => row.timestamp))],
          ['2026-11-01T07:00:00Z', '2026-11-01T08:00:00Z'],
        );
      } finally {
        await held.close();
      }
    });
    it('answers consumer lag by group and topic, connector and Flink metrics', async () => {
      const lag = await query({
        aggregations: [{ metric: 'io.confluent.kafka.server/consumer_lag_offsets' }],
        filter: { field: 'resource.kafka.id', op: 'EQ', value: ANALYTICS },
        granularity: 'PT1M',
        intervals: ['2024-09-03T10:00:00Z/PT3M'],
        group_by: ['metric.consumer_group_id', 'metric.topic'],
        format: 'GROUPED',
      });
      const sf = lag.body.data.find((g: Json) => g['metric.consumer_group_id'] === 'connect-lcc-sf5h1q');
      assert.equal(sf['metric.topic'], 'orders_for_bi');
      assert.equal(sf.points.length, 3);
      assert.equal(sf.points[0].value, 57);
      const connect = await query({
        aggregations: [{ metric: 'io.confluent.kafka.connect/sent_records' }],
        filter: { field: 'resource.connector.id', op: 'EQ', value: 'lcc-p9c2d1' },
        granularity: 'ALL',
        intervals: ['now-1h/now'],
        group_by: ['resource.connector.id'],
      });
      assert.equal(connect.body.data[0]['resource.connector.id'], 'lcc-p9c2d1');
      const flinkMetrics = await query({
        aggregations: [{ metric: 'io.confluent.flink/num_records_in' }],
        filter: { field: 'resource.compute_pool.id', op: 'EQ', value: 'lfcp-6z1w4r' },
        granularity: 'ALL',
        intervals: ['now-1h/now'],
        group_by: ['resource.flink_statement.name'],
      });
      assert.ok(flinkMetrics.body.data.some((r: Json) => r['resource.flink_statement.name'] === 'enrich-orders'));
      const noFilter = await query({
        aggregations: [{ metric: 'io.confluent.kafka.server/sent_bytes' }],
        granularity: 'ALL',
        intervals: ['now-1h/now'],
      });
      assert.equal(noFilter.status, 400);
      assert.equal(typeof noFilter.body.errors[0].detail, 'string');
      const attributes = await call(u('/v2/metrics/cloud/attributes'), cloud, {
        body: {
          metric: 'io.confluent.kafka.server/sent_bytes',
          group_by: ['metric.topic'],
          filter: { field: 'resource.kafka.id', op: 'EQ', value: 'lkc-9d2f4g' },
          intervals: ['now-1h/now'],
        },
      });
      // `scratch` declares no metrics; the mirror topic receives the replicated records.
      assert.deepEqual(attributes.body.data, [
        { 'metric.topic': 'pg.retail.public.order_items' },
        { 'metric.topic': 'test_orders' },
      ]);
    });
  });

  describe('credentials per service', () => {
    it('rejects the cloud key on Kafka REST with the real 401 body', async () => {
      const res = await call(krest(ORDERS, '/topics'), cloud);
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, { error_code: 40101, message: 'Authentication failed' });
      assert.match(res.headers.get('www-authenticate') ?? '', /^Basic /);
    });
    it("rejects wrong or missing keys with each family's body", async () => {
      const v2 = await call(u('/org/v2/environments'), kafka);
      assert.equal(v2.status, 401);
      assert.equal(v2.body.errors[0].code, 'user_unauthenticated');
      const none = await call(u(`/cmk/v2/clusters?environment=${PROD}`), undefined);
      assert.equal(none.status, 401);
      const srWithCloud = await call(u(`/schema-registry/${LSRC}/subjects`), cloud);
      assert.deepEqual(srWithCloud.body, { error_code: 401, message: 'Unauthorized' });
      const connect = await call(u(`/connect/v1/environments/${PROD}/clusters/${ORDERS}/connectors`), kafka);
      assert.deepEqual(connect.body, { error: { code: 401, message: 'Unauthorized' } });
      const flinkWithCloud = await call(
        u(`/flink/aws-us-east-1/sql/v1/organizations/${scenario.organization.id}/environments/${PROD}/statements`),
        cloud,
      );
      assert.equal(flinkWithCloud.status, 401);
      const ksqlWithCloud = await call(u(`/ksqldb/${KSQL}/ksql`), cloud, { body: { ksql: 'SHOW QUERIES;' } });
      assert.equal(ksqlWithCloud.status, 401);
      assert.equal(ksqlWithCloud.body['@type'], 'generic_error');
      const metricsWithKafka = await call(u('/v2/metrics/cloud/descriptors/metrics'), kafka);
      assert.equal(metricsWithKafka.status, 401);
      const tableflowWithCloud = await call(
        u(`/tableflow/v1/tableflow-topics?environment=${PROD}&spec.kafka_cluster=${ORDERS}`),
        cloud,
      );
      assert.equal(tableflowWithCloud.status, 200);
    });
  });

  describe('faults', () => {
    it('latency: holds the request for its milliseconds, then answers normally; the fault is counted', async () => {
      const clock = new ManualClock();
      const held = await startPlatformSimulator({ scenario, clock });
      try {
        held.clearFaults();
        const fault = held.injectFault({
          id: 'slow-topics',
          api: 'kafka-rest.topics',
          kind: 'latency',
          ms: 30_000,
          times: 2,
        });
        assert.equal(fault.remaining, 2);
        const topics = `${held.url}/kafka-rest/${ORDERS}/kafka/v3/clusters/${ORDERS}/topics`;
        for (let i = 0; i < 2; i++) {
          const pending = call(topics, kafka);
          await eventually('the request to be held', () => (clock.pendingTimers === 1 ? true : undefined));
          await clock.advance(29_999);
          assert.equal(held.requestLog()[i]?.status, null, 'still held 1 ms before the latency is over');
          await clock.advance(1);
          assert.equal((await pending).status, 200);
        }
        assert.equal((await call(topics, kafka)).status, 200, 'the third request is not held');
        const [f] = held.faults();
        assert.equal(f?.hits, 2);
        assert.equal(f?.remaining, 0);
      } finally {
        await held.close();
      }
    });
    it('status: 503 once, then success; 429 carries Retry-After; Kafka REST 429 is HTML', async () => {
      sim.injectFault({ api: 'cmk.clusters', kind: 'status', status: 503, times: 1 });
      const first = await call(u(`/cmk/v2/clusters?environment=${PROD}`), cloud);
      assert.equal(first.status, 503);
      assert.equal(first.body.errors[0].status, '503');
      assert.equal((await call(u(`/cmk/v2/clusters?environment=${PROD}`), cloud)).status, 200);
      sim.injectFault({ api: 'connect.*', kind: 'status', status: 429, retry_after: 7, times: 1 });
      const limited = await call(u(`/connect/v1/environments/${PROD}/clusters/${ORDERS}/connectors`), cloud);
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('retry-after'), '7');
      sim.injectFault({ api: 'kafka-rest.consumer-groups', kind: 'status', status: 429, times: 1 });
      const html = await call(krest(ORDERS, '/consumer-groups'), kafka);
      assert.equal(html.status, 429);
      assert.match(html.headers.get('content-type') ?? '', /text\/html/);
      assert.match(html.text, /HTTP ERROR 429 Too Many Requests/);
      assert.equal(html.headers.get('retry-after'), null);
      for (const status of [500, 502, 504]) {
        sim.injectFault({ path: '/org/v2/environments$', kind: 'status', status, times: 1 });
        assert.equal((await call(u('/org/v2/environments'), cloud)).status, status);
      }
      sim.clearFaults();
    });
    it('timeout: holds the request until the client gives up, or for its milliseconds', async () => {
      const clock = new ManualClock();
      const held = await startPlatformSimulator({ scenario, clock });
      try {
        held.clearFaults();
        const subjects = `${held.url}/schema-registry/${LSRC}/subjects`;
        const subjectsEntry = () => held.requestLog().find((e) => e.api === 'schema-registry.subjects');
        held.injectFault({ api: 'schema-registry.subjects', kind: 'timeout', times: 1 });
        const controller = new AbortController();
        const pending = call(subjects, sr, { signal: controller.signal });
        await eventually('the request to arrive', subjectsEntry);
        await clock.advance(3_600_000);
        assert.equal(subjectsEntry()?.status, null, 'an hour later it is still held');
        controller.abort();
        await assert.rejects(pending, (error: Error) => error.name === 'AbortError');
        const entry = await eventually('the simulator to see the client give up', () =>
          subjectsEntry()?.aborted ? subjectsEntry() : undefined,
        );
        assert.equal(entry.status, null);
        assert.equal((await call(subjects, sr)).status, 200);

        held.injectFault({ api: 'org.environments', kind: 'timeout', ms: 20_000, times: 1 });
        const slow = call(`${held.url}/org/v2/environments`, cloud);
        await eventually('the request to be held', () => (clock.pendingTimers === 1 ? true : undefined));
        await clock.advance(19_999);
        assert.equal(held.requestLog().find((e) => e.api === 'org.environments')?.status, null);
        await clock.advance(1);
        assert.equal((await slow).status, 200, 'answered normally once its 20 s are over');
      } finally {
        await held.close();
      }
    });
    it('unauthorized and not_found, matched by path regex and after', async () => {
      sim.injectFault({ api: 'flink.*', kind: 'unauthorized', times: 1 });
      const base = `/flink/aws-us-east-1/sql/v1/organizations/${scenario.organization.id}/environments/${PROD}/statements`;
      const denied = await call(u(base), flink);
      assert.equal(denied.status, 401);
      assert.equal(denied.body.errors[0].status, '401');
      sim.injectFault({ method: 'GET', path: 'page_token=', kind: 'not_found', after: 1, times: 1 });
      const first = await call(u(`${base}?page_size=2`), flink);
      const second = await call(first.body.metadata.next as string, flink);
      assert.equal(second.status, 200, 'the first matching request is let through');
      const third = await call(second.body.metadata.next as string, flink);
      assert.equal(third.status, 404);
      sim.clearFaults();
    });
    it('admin endpoint installs, lists and clears faults; bad faults are rejected', async () => {
      const added = await call(u('/_simulator/faults'), undefined, {
        body: [{ api: 'ksqldb.ksql', kind: 'status', status: 500, times: 1 }],
      });
      assert.equal(added.status, 201);
      assert.equal(added.body.faults.length, 1);
      const ksqlAnswer = await call(u(`/ksqldb/${KSQL}/ksql`), ksqldb, { body: { ksql: 'SHOW QUERIES;' } });
      assert.equal(ksqlAnswer.status, 500);
      assert.equal(ksqlAnswer.body['@type'], 'generic_error');
      const listed = await call(u('/_simulator/faults'), undefined);
      assert.equal(listed.body.faults[0].hits, 1);
      const bad = await call(u('/_simulator/faults'), undefined, { body: { kind: 'explode' } });
      assert.equal(bad.status, 400);
      assert.match(bad.body.error, /^invalid fault: kind:/);
      assert.throws(() => sim.injectFault({ kind: 'status' }), ValidationError);
      assert.equal((await call(u('/_simulator/faults'), undefined, { method: 'DELETE' })).status, 204);
      assert.deepEqual(sim.faults(), []);
    });
  });

  describe('request accounting', () => {
    it('counts requests per API and logs method, path, api and status', async () => {
      sim.resetRequestLog();
      await call(krest(ORDERS, '/topics'), kafka);
      await call(krest(ORDERS, '/topics/-/configs'), kafka);
      await call(krest(ORDERS, '/topics'), cloud);
      await call(u('/nowhere'), cloud);
      const counts: Record<string, number> = sim.requestCounts();
      assert.equal(counts['kafka-rest.topic-configs'], undefined, 'no request per topic');
      assert.deepEqual(counts, { 'kafka-rest.all-topic-configs': 1, 'kafka-rest.topics': 2, unknown: 1 });
      const log = sim.requestLog();
      assert.deepEqual(
        log.map((e) => [e.method, e.api, e.status]),
        [
          ['GET', 'kafka-rest.topics', 200],
          ['GET', 'kafka-rest.all-topic-configs', 200],
          ['GET', 'kafka-rest.topics', 401],
          ['GET', 'unknown', 404],
        ],
      );
      assert.equal(log[0]?.path, `/kafka-rest/${ORDERS}/kafka/v3/clusters/${ORDERS}/topics`);
      const admin = await call(u('/_simulator/requests'), undefined);
      assert.equal(admin.body.counts['kafka-rest.topics'], 2);
      sim.resetRequestLog();
      assert.deepEqual(sim.requestCounts(), {});
    });
  });
});

describe('platform simulator options and scenarios', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'sim-scenarios-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const small: ScenarioInput = {
    name: 'small',
    credentials: { cloud: { key: 'C', secret: 'c' }, kafka: { key: 'K', secret: 'k' } },
    environments: [
      {
        id: 'env-a1',
        display_name: 'alpha',
        kafka_clusters: [
          {
            id: 'lkc-a1',
            display_name: 'one',
            api_key: { key: 'OWN', secret: 'own' },
            topics: [{ name: 'events' }],
            consumer_groups: [{ group_id: 'g1', topics: [{ topic: 'events', lag: 3 }] }],
          },
          { id: 'lkc-a2', display_name: 'two', topics: [{ name: 'other' }] },
        ],
      },
    ],
    faults: [{ api: 'org.environments', kind: 'status', status: 502, times: 1 }],
  };

  it('loads YAML and JSON scenario files', async () => {
    const yamlFile = path.join(dir, 'small.yaml');
    await writeFile(yamlFile, 'name: from-yaml\nenvironments:\n  - id: env-y\n    display_name: yaml-env\n');
    const jsonFile = path.join(dir, 'small.json');
    await writeFile(jsonFile, JSON.stringify(small));
    const fromYaml = await loadScenario(yamlFile);
    assert.equal(fromYaml.name, 'from-yaml');
    assert.equal(fromYaml.environments[0]?.kafka_clusters.length, 0);
    const fromJson = await loadScenario(jsonFile);
    assert.equal(fromJson.environments[0]?.kafka_clusters[0]?.topics[0]?.partitions, 6);
  });

  it('gives a clear one-line error naming the bad field', async () => {
    const bad = path.join(dir, 'bad.yaml');
    await writeFile(
      bad,
      'environments:\n  - id: env-b\n    display_name: b\n    kafka_clusters:\n' +
        '      - id: lkc-b\n        display_name: b\n        topics:\n          - name: t\n            partitions: six\n',
    );
    await assert.rejects(loadScenario(bad), (error: Error) => {
      assert.ok(error instanceof ValidationError);
      assert.equal(
        error.message,
        'invalid scenario (bad.yaml): environments[0].kafka_clusters[0].topics[0].partitions: Invalid input: expected number, received string',
      );
      assert.ok(!error.message.includes('\n'));
      return true;
    });
    assert.throws(
      () =>
        parseScenario({
          environments: [{ id: 'e', display_name: 'e', kafka_clusters: [{ id: 'k', display_name: 'k', topcs: [] }] }],
        }),
      /environments\[0\]\.kafka_clusters\[0\]: Unrecognized key: "topcs"/,
    );
    assert.throws(
      () =>
        parseScenario({
          environments: [
            {
              id: 'e',
              display_name: 'e',
              kafka_clusters: [
                { id: 'k', display_name: 'k', consumer_groups: [{ group_id: 'g', topics: [{ topic: 'missing' }] }] },
              ],
            },
          ],
        }),
      /consumer_groups\[0\]\.topics\[0\]\.topic: topic "missing" is not a topic of cluster k/,
    );
    await assert.rejects(loadScenario(path.join(dir, 'absent.yaml')), /file not found/);
    const notYaml = path.join(dir, 'broken.json');
    await writeFile(notYaml, '{"environments": [');
    await assert.rejects(
      loadScenario(notYaml),
      /^ValidationError: invalid scenario \(broken\.json\): not valid YAML\/JSON/,
    );
  });

  it('serves a scenario object: own cluster keys, declared faults, global latency', async () => {
    const sim = await startPlatformSimulator({ scenario: small, latencyMs: 5 });
    try {
      const cloud = { key: 'C', secret: 'c' };
      const declared = await call(`${sim.url}/org/v2/environments`, cloud);
      assert.equal(declared.status, 502, 'fault declared in the scenario');
      assert.equal((await call(`${sim.url}/org/v2/environments`, cloud)).status, 200);
      const own = `${sim.url}/kafka-rest/lkc-a1/kafka/v3/clusters/lkc-a1/topics`;
      assert.equal(
        (await call(own, { key: 'K', secret: 'k' })).status,
        401,
        'the shared key does not open a cluster with its own key',
      );
      assert.equal((await call(own, { key: 'OWN', secret: 'own' })).status, 200);
      assert.equal(
        (await call(`${sim.url}/kafka-rest/lkc-a2/kafka/v3/clusters/lkc-a2/topics`, { key: 'K', secret: 'k' })).status,
        200,
      );
      const noSr = await call(`${sim.url}/srcm/v3/clusters?environment=env-a1`, cloud);
      assert.equal(noSr.body.data, null);
      sim.setLatency(0);
      assert.equal((await call(`${sim.url}/org/v2/environments`, cloud)).status, 200);
    } finally {
      await sim.close();
    }
  });

  it('keeps its counters to itself: two simulators in one process number errors, requests and faults apart', async () => {
    const first = await startPlatformSimulator({ scenario: small });
    const second = await startPlatformSimulator({ scenario: small });
    try {
      const cloud = { key: 'C', secret: 'c' };
      const errorIdOf = async (sim: PlatformSimulator): Promise<string> => {
        const answer = await call(`${sim.url}/org/v2/no-such-resource`, cloud);
        assert.equal(answer.status, 404);
        return answer.body.errors[0].id as string;
      };
      const firstIds = [await errorIdOf(first), await errorIdOf(first)];
      const secondIds = [await errorIdOf(second), await errorIdOf(second)];
      assert.match(firstIds[0]!, /^[0-9a-f]{32}$/);
      assert.notEqual(firstIds[0], firstIds[1], 'one simulator never repeats an error id');
      assert.deepEqual(secondIds, firstIds, 'the second simulator starts its own sequence');
      assert.deepEqual(
        second.requestLog().map((entry) => entry.seq),
        [1, 2],
      );
      assert.equal(first.injectFault({ kind: 'not_found' }).id, second.injectFault({ kind: 'not_found' }).id);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  it('closes while a request is held by a timeout fault', async () => {
    const sim = await startPlatformSimulator({ scenario: small });
    sim.clearFaults();
    sim.injectFault({ kind: 'timeout' });
    const pending = call(`${sim.url}/org/v2/environments`, { key: 'C', secret: 'c' }).catch((error: unknown) => error);
    await eventually('the request to be held', () => sim.requestLog()[0]);
    await sim.close();
    assert.ok((await pending) instanceof Error);
  });
});

describe('large estate', () => {
  it('is deterministic and has the requested sizes', () => {
    const a = largeEstateScenario({
      environments: 2,
      clustersPerEnvironment: 2,
      topicsPerCluster: 30,
      connectorsPerCluster: 6,
      consumerGroupsPerCluster: 20,
      seed: 3,
    });
    const b = largeEstateScenario({
      environments: 2,
      clustersPerEnvironment: 2,
      topicsPerCluster: 30,
      connectorsPerCluster: 6,
      consumerGroupsPerCluster: 20,
      seed: 3,
    });
    assert.deepEqual(a, b);
    const c = largeEstateScenario({
      environments: 2,
      clustersPerEnvironment: 2,
      topicsPerCluster: 30,
      connectorsPerCluster: 6,
      consumerGroupsPerCluster: 20,
      seed: 4,
    });
    assert.notDeepEqual(a, c);
    const s = parseScenario(a, 'large');
    for (const env of s.environments) {
      for (const cluster of env.kafka_clusters) {
        assert.equal(cluster.topics.length, 30);
        assert.equal(cluster.connectors.length, 6);
        assert.equal(cluster.consumer_groups.length, 20);
      }
    }
  });

  it('serves the full-size estate (10,000 topics, 2,000 connectors, 20,000 groups)', async () => {
    const scenario = parseScenario(largeEstateScenario({ seed: 11 }), 'large');
    const totals = { topics: 0, connectors: 0, groups: 0 };
    for (const env of scenario.environments) {
      for (const c of env.kafka_clusters) {
        totals.topics += c.topics.length;
        totals.connectors += c.connectors.length;
        totals.groups += c.consumer_groups.length;
      }
    }
    assert.deepEqual(totals, { topics: 10_000, connectors: 2_000, groups: 20_000 });
    const sim = await startPlatformSimulator({ scenario });
    try {
      const { cloud, kafka } = scenario.credentials;
      const env = scenario.environments[9];
      const cluster = env?.kafka_clusters[9];
      assert.ok(env !== undefined && cluster !== undefined);
      const envs = await call(`${sim.url}/org/v2/environments?page_size=100`, cloud);
      assert.equal(envs.body.data.length, 10);
      const clusters = await call(`${sim.url}/cmk/v2/clusters?environment=${env.id}&page_size=100`, cloud);
      const endpoint = clusters.body.data.find((c: Json) => c.id === cluster.id).spec.http_endpoint as string;
      const topics = await call(`${endpoint}/kafka/v3/clusters/${cluster.id}/topics`, kafka);
      assert.equal(topics.body.data.length, 100);
      const configs = await call(`${endpoint}/kafka/v3/clusters/${cluster.id}/topics/-/configs`, kafka);
      assert.equal(new Set(configs.body.data.map((c: Json) => c.topic_name)).size, 100);
      const groups = await call(`${endpoint}/kafka/v3/clusters/${cluster.id}/consumer-groups`, kafka);
      assert.equal(groups.body.data.length, 200);
      // No cluster links in the large estate, but the endpoints answer (empty lists).
      const mirrors = await call(`${endpoint}/kafka/v3/clusters/${cluster.id}/links/-/mirrors`, kafka);
      assert.deepEqual([mirrors.status, mirrors.body.data], [200, []]);
      const links = await call(`${endpoint}/kafka/v3/clusters/${cluster.id}/links`, kafka);
      assert.deepEqual([links.status, links.body.data], [200, []]);
      const connectors = await call(
        `${sim.url}/connect/v1/environments/${env.id}/clusters/${cluster.id}/connectors?expand=info,status,id`,
        cloud,
      );
      assert.equal(Object.keys(connectors.body).length, 20);
      const metrics = await call(`${sim.url}/v2/metrics/cloud/query`, cloud, {
        body: {
          aggregations: [{ metric: 'io.confluent.kafka.server/consumer_lag_offsets' }],
          filter: { field: 'resource.kafka.id', op: 'EQ', value: cluster.id },
          granularity: 'ALL',
          intervals: ['now-1h/now'],
          group_by: ['metric.consumer_group_id', 'metric.topic'],
          limit: 1000,
        },
      });
      assert.equal(metrics.status, 200);
      assert.ok(metrics.body.data.length > 200);
    } finally {
      await sim.close();
    }
  });
});
