/**
 * Large-estate scenario generator for benchmarks and scale tests.
 *
 * `largeEstateScenario({ environments: 10, clustersPerEnvironment: 10, topicsPerCluster: 100,
 * connectorsPerCluster: 20, consumerGroupsPerCluster: 200, seed: 42 })` builds a scenario object
 * (validate it with `parseScenario`, or pass it straight to `startPlatformSimulator`) of 10,000
 * topics, 2,000 connectors and 20,000 consumer groups with realistic names:
 *
 * - topics `<domain>.<entity>[.<variant>]` (`payments.transactions.v2`, `crm.customers_enriched`...),
 *   including the `<prefix>.<schema>.<table>` topics of CDC source connectors and the
 *   `dlq-<lcc-id>` topics of sink connectors;
 * - connectors: half sources (Postgres/MySQL CDC with `topic.prefix` + `table.include.list`,
 *   Datagen/HTTP with `kafka.topic`), half sinks (S3, BigQuery, Snowflake, Elasticsearch with
 *   `topics` or `topics.regex`), each sink with its `connect-<lcc-id>` consumer group;
 * - application consumer groups `<domain>-<service>[-<n>]` reading one to three topics with lag;
 * - per environment: a Schema Registry (value schemas for about 70% of the topics, AVRO/JSON/PROTOBUF),
 *   a ksqlDB cluster with persistent queries and a Flink compute pool with INSERT/CTAS statements;
 * - 70% of the clusters are Dedicated (Kafka REST lag endpoints available), the rest Standard.
 *
 * The output depends only on the options (same options, same scenario).
 */
import { seededRandom, token } from './util.js';
import type { ScenarioInput } from './scenario.js';

/** Sizes of the generated estate. */
export interface LargeEstateOptions {
  environments?: number;
  clustersPerEnvironment?: number;
  topicsPerCluster?: number;
  connectorsPerCluster?: number;
  /** total consumer groups per cluster, the sink connectors' `connect-` groups included */
  consumerGroupsPerCluster?: number;
  ksqlQueriesPerEnvironment?: number;
  flinkStatementsPerEnvironment?: number;
  seed?: number;
}

const DOMAINS = [
  'orders',
  'payments',
  'inventory',
  'shipping',
  'crm',
  'marketing',
  'fraud',
  'pricing',
  'catalog',
  'loyalty',
  'billing',
  'logistics',
  'support',
  'identity',
  'analytics',
  'risk',
];
const ENTITIES = [
  'events',
  'transactions',
  'customers',
  'orders',
  'shipments',
  'stock_levels',
  'prices',
  'sessions',
  'clicks',
  'refunds',
  'invoices',
  'alerts',
  'profiles',
  'carts',
  'returns',
  'accounts',
  'ledger',
  'devices',
  'campaigns',
  'tickets',
];
const VARIANTS = [
  '',
  '',
  '',
  '.v1',
  '.v2',
  '_enriched',
  '_agg_1h',
  '_snapshot',
  '.changelog',
  '_by_region',
  '_scored',
  '_deduped',
];
const TABLES = [
  'orders',
  'order_lines',
  'customers',
  'addresses',
  'products',
  'payments',
  'invoices',
  'shipments',
  'accounts',
  'users',
];
const SERVICES = [
  'service',
  'processor',
  'notifier',
  'indexer',
  'aggregator',
  'scorer',
  'exporter',
  'validator',
  'router',
  'auditor',
  'sync',
  'reporter',
];
const REGIONS: [string, string][] = [
  ['AWS', 'us-east-1'],
  ['AWS', 'us-west-2'],
  ['AWS', 'eu-west-1'],
  ['GCP', 'us-central1'],
  ['GCP', 'europe-west3'],
  ['AZURE', 'eastus'],
];

type Rand = () => number;
const choose = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length) % items.length] as T;
const intIn = (rand: Rand, min: number, max: number): number => min + Math.floor(rand() * (max - min + 1));

/** The options with their defaults filled in. */
type EstateSizes = Required<LargeEstateOptions>;
type EnvironmentInput = NonNullable<ScenarioInput['environments']>[number];
type ClusterInput = NonNullable<EnvironmentInput['kafka_clusters']>[number];
/** A topic of the environment, for the Flink statements. */
interface EnvTopic {
  cluster: string;
  clusterName: string;
  topic: string;
}

/** The generator's state: the sizes, the one random sequence every builder draws from (in a fixed order), and ids. */
interface EstateGenerator {
  o: EstateSizes;
  rand: Rand;
  id: (prefix: string, key: string, length?: number) => string;
}

/** A cluster's topic names, unique: `add` appends `_2`, `_3`... to a name already taken. */
interface TopicNames {
  names: Set<string>;
  add: (name: string) => string;
}

/** The options with their defaults (the bench's sizes are the defaults). */
function estateSizes(options: LargeEstateOptions): EstateSizes {
  return {
    environments: options.environments ?? 10,
    clustersPerEnvironment: options.clustersPerEnvironment ?? 10,
    topicsPerCluster: options.topicsPerCluster ?? 100,
    connectorsPerCluster: options.connectorsPerCluster ?? 20,
    consumerGroupsPerCluster: options.consumerGroupsPerCluster ?? 200,
    ksqlQueriesPerEnvironment: options.ksqlQueriesPerEnvironment ?? 3,
    flinkStatementsPerEnvironment: options.flinkStatementsPerEnvironment ?? 10,
    seed: options.seed ?? 42,
  };
}

/** An empty set of unique topic names. */
function topicNames(): TopicNames {
  const names = new Set<string>();
  const add = (name: string): string => {
    let n = name;
    for (let i = 2; names.has(n); i++) n = `${name}_${i}`;
    names.add(n);
    return n;
  };
  return { names, add };
}

/** A Postgres or MySQL CDC source connector and the topics of its one or two tables. */
function cdcSourceConnector(
  gen: EstateGenerator,
  k: number,
  lcc: string,
  domain: string,
  region: string,
  topics: TopicNames,
): Record<string, unknown> {
  const { rand, o } = gen;
  const prefix = `cdc.${domain}`;
  const tables = [choose(rand, TABLES), choose(rand, TABLES)].filter((t, i, a) => a.indexOf(t) === i);
  for (const t of tables) topics.add(`${prefix}.public.${t}`);
  return {
    name: `${domain}-${k % 4 === 0 ? 'postgres' : 'mysql'}-cdc-${k}`,
    id: lcc,
    class: k % 4 === 0 ? 'PostgresCdcSourceV2' : 'MySqlCdcSourceV2',
    type: 'source',
    config: {
      'database.hostname': `${domain}-db.${token(`${o.seed}/${lcc}/host`, 6)}.${region}.rds.amazonaws.com`,
      'database.dbname': domain,
      'database.user': 'debezium',
      'database.password': 'not-a-real-password',
      'topic.prefix': prefix,
      'table.include.list': tables.map((t) => `public.${t}`).join(','),
      'output.data.format': 'AVRO',
    },
  };
}

/** An HTTP or Datagen source connector writing one raw topic. */
function ingestSourceConnector(
  gen: EstateGenerator,
  k: number,
  lcc: string,
  domain: string,
  topics: TopicNames,
): Record<string, unknown> {
  const topic = topics.add(`${domain}.${choose(gen.rand, ENTITIES)}.raw`);
  return {
    name: `${domain}-ingest-${k}`,
    id: lcc,
    class: k % 3 === 0 ? 'HttpSourceV2' : 'DatagenSource',
    type: 'source',
    config: { 'kafka.topic': topic, 'output.data.format': 'JSON_SR' },
  };
}

/** An S3, BigQuery, Snowflake or Elasticsearch sink connector with its dead letter topic; its topics are chosen later. */
function sinkConnector(k: number, lcc: string, domain: string, topics: TopicNames): Record<string, unknown> {
  const dlq = topics.add(`dlq-${lcc}`);
  const kind = k % 4;
  const classes = ['S3_SINK', 'BigQueryStorageSink', 'SnowflakeSink', 'ElasticsearchSink'] as const;
  const config: Record<string, string> = { 'input.data.format': 'AVRO' };
  if (kind === 0) {
    config['s3.bucket.name'] = `acme-${domain}-lake`;
    config['topics.dir'] = domain;
  } else if (kind === 1) {
    config.project = `acme-${domain}`;
    config.datasets = `${domain}_raw`;
  } else if (kind === 2) {
    config['snowflake.database.name'] = domain.toUpperCase();
    config['snowflake.schema.name'] = 'STREAMING';
    config['snowflake.private.key'] = 'not-a-real-key';
  } else {
    config['connection.url'] = `https://${domain}-search.example.internal:9200`;
    config['connection.password'] = 'not-a-real-password';
  }
  const cls = classes[kind] ?? 'S3_SINK';
  return {
    name: `${domain}-${cls.toLowerCase().replace(/_/g, '-')}-${k}`,
    id: lcc,
    class: cls,
    type: 'sink',
    config,
    _dlq: dlq,
    _domain: domain,
  };
}

/** A cluster's connectors, sources first (CDC and ingest, alternating), then sinks; their topics join the cluster's. */
function clusterConnectors(gen: EstateGenerator, e: number, c: number, region: string, topics: TopicNames) {
  const { o, rand, id } = gen;
  const connectors: Record<string, unknown>[] = [];
  const sources = Math.ceil(o.connectorsPerCluster / 2);
  for (let k = 0; k < o.connectorsPerCluster; k++) {
    const lcc = id('lcc', `env${e}/c${c}/k${k}`);
    const domain = choose(rand, DOMAINS);
    if (k < sources) {
      if (k % 2 === 0) connectors.push(cdcSourceConnector(gen, k, lcc, domain, region, topics));
      else connectors.push(ingestSourceConnector(gen, k, lcc, domain, topics));
    } else {
      connectors.push(sinkConnector(k, lcc, domain, topics));
    }
  }
  return connectors;
}

/** Chooses the topics each sink reads (a domain regex or one or two topics) and adds its `connect-` group. */
function wireSinkConnectors(
  gen: EstateGenerator,
  connectors: Record<string, unknown>[],
  dataTopics: readonly string[],
  groups: Record<string, unknown>[],
): void {
  const { o, rand } = gen;
  for (const k of connectors) {
    if (k.type !== 'sink') continue;
    const domain = k._domain as string;
    const config = k.config as Record<string, string>;
    const ownDomain = dataTopics.filter((t) => t.startsWith(`${domain}.`));
    let read: string[];
    if (ownDomain.length >= 2 && rand() < 0.3) {
      config['topics.regex'] = `^${domain.replace(/\./g, '\\.')}\\..*`;
      read = ownDomain;
    } else {
      read = [choose(rand, dataTopics), choose(rand, dataTopics)].filter((t, i, a) => a.indexOf(t) === i);
      config.topics = read.join(',');
    }
    delete k._dlq;
    delete k._domain;
    if (groups.length < o.consumerGroupsPerCluster) {
      groups.push({
        group_id: `connect-${String(k.id)}`,
        topics: read.map((t) => ({ topic: t, lag: intIn(rand, 0, 500) })),
      });
    }
  }
}

/** Fills the cluster's groups with application groups, leaving room for the ksqlDB query groups on the first cluster. */
function addApplicationGroups(
  gen: EstateGenerator,
  c: number,
  groups: Record<string, unknown>[],
  sinkTopicPool: readonly string[],
): void {
  const { o, rand } = gen;
  const groupBudget = o.consumerGroupsPerCluster - (c === 0 ? o.ksqlQueriesPerEnvironment : 0);
  for (let g = 0; groups.length < groupBudget; g++) {
    const n = intIn(rand, 1, 3);
    const read = Array.from({ length: n }, () => choose(rand, sinkTopicPool)).filter((t, i, a) => a.indexOf(t) === i);
    const state = rand() < 0.1 ? 'EMPTY' : 'STABLE';
    groups.push({
      group_id: `${choose(rand, DOMAINS)}-${choose(rand, SERVICES)}-${g}`,
      state,
      topics: read.map((t) => ({
        topic: t,
        lag: state === 'EMPTY' ? intIn(rand, 1000, 500000) : intIn(rand, 0, 2000),
      })),
    });
  }
}

/** A value schema for topic `name`: Avro (70 %), JSON Schema (20 %) or Protobuf. */
function valueSchema(rand: Rand, name: string): Record<string, unknown> {
  const kind = rand();
  if (kind < 0.7) {
    return {
      schema: {
        type: 'record',
        name: name.replace(/[^A-Za-z0-9_]/g, '_'),
        namespace: 'com.acme.generated',
        fields: [
          { name: 'id', type: 'string' },
          { name: 'event_time', type: { type: 'long', logicalType: 'timestamp-millis' } },
          { name: 'payload', type: 'string' },
        ],
      },
    };
  }
  if (kind < 0.9) {
    return {
      schema_type: 'JSON',
      schema: {
        title: name,
        type: 'object',
        properties: { id: { type: 'string' }, amount: { type: 'number' } },
      },
    };
  }
  return {
    schema_type: 'PROTOBUF',
    schema: `syntax = "proto3";\npackage acme.generated;\n\nmessage Event {\n  string id = 1;\n  int64 event_time = 2;\n}\n`,
  };
}

/**
 * The cluster's topic definitions: partitions, a value schema for most (one per name in the environment, `subjects`),
 * PII tags and owners; each is recorded in `envTopics`.
 */
function topicDefinitions(
  rand: Rand,
  topicList: readonly string[],
  subjects: Set<string>,
  envTopics: EnvTopic[],
  cluster: { id: string; name: string },
): Record<string, unknown>[] {
  return topicList.map((name) => {
    const topic: Record<string, unknown> = { name, partitions: choose(rand, [1, 3, 6, 6, 12, 24]) };
    if (!name.startsWith('dlq-') && rand() < 0.7 && !subjects.has(name)) {
      subjects.add(name);
      topic.value_schema = valueSchema(rand, name);
    }
    if (rand() < 0.15) topic.tags = ['PII'];
    if (rand() < 0.3) topic.owner = `${name.split('.')[0] ?? 'data'}-team`;
    envTopics.push({ cluster: cluster.id, clusterName: cluster.name, topic: name });
    return topic;
  });
}

/** One Kafka cluster: connectors, topics, consumer groups. */
function buildCluster(
  gen: EstateGenerator,
  e: number,
  c: number,
  [cloud, region]: [string, string],
  subjects: Set<string>,
  envTopics: EnvTopic[],
): ClusterInput {
  const { o, rand, id } = gen;
  const clusterId = id('lkc', `env${e}/cluster${c}`);
  const clusterName = `${choose(rand, DOMAINS)}-${['prod', 'core', 'edge', 'shared', 'streaming'][c % 5]}-${c}`;
  const topics = topicNames();
  const groups: Record<string, unknown>[] = [];
  // Connectors first: their topics are part of the cluster's topics.
  const connectors = clusterConnectors(gen, e, c, region, topics);
  // Fill up the topics.
  const reserve = c === 0 ? o.ksqlQueriesPerEnvironment : 0; // the ksqlDB output topics
  while (topics.names.size < o.topicsPerCluster - reserve) {
    topics.add(`${choose(rand, DOMAINS)}.${choose(rand, ENTITIES)}${choose(rand, VARIANTS)}`);
  }
  const topicList = [...topics.names];
  const dataTopics = topicList.filter((t) => !t.startsWith('dlq-'));
  // Sinks read topics; each has its connect- group. Then the application groups.
  wireSinkConnectors(gen, connectors, dataTopics, groups);
  addApplicationGroups(gen, c, groups, dataTopics);
  const topicDefs = topicDefinitions(rand, topicList, subjects, envTopics, { id: clusterId, name: clusterName });
  return {
    id: clusterId,
    display_name: clusterName,
    cloud: cloud as 'AWS',
    region,
    kind: rand() < 0.7 ? 'Dedicated' : 'Standard',
    topics: topicDefs as never,
    consumer_groups: groups as never,
    connectors: connectors as never,
  };
}

/** The environment's ksqlDB app on its first cluster: one query per output topic, each with its consumer group. */
function ksqlApp(gen: EstateGenerator, e: number, first: ClusterInput): Record<string, unknown> {
  const { o, rand, id } = gen;
  const firstTopics = (first.topics ?? []).map((t) => t.name).filter((t) => !t.startsWith('dlq-'));
  const prefix = `pksqlc-${token(`${o.seed}/env${e}/ksql`, 5)}`;
  const sources: Record<string, unknown>[] = [];
  const queries: Record<string, unknown>[] = [];
  for (let q = 0; q < o.ksqlQueriesPerEnvironment; q++) {
    const input = firstTopics[(q * 7) % Math.max(1, firstTopics.length)] ?? 'events';
    const inName = `SRC_${q}_${input.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}`;
    const outTopic = `${input}_ksql_${q}`;
    first.topics?.push({ name: outTopic, partitions: 6 });
    const outName = `OUT_${q}_${input.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}`;
    sources.push({ name: inName, type: 'STREAM', topic: input, value_format: 'AVRO' });
    sources.push({ name: outName, type: 'STREAM', topic: outTopic, value_format: 'AVRO' });
    const queryId = `CSAS_${outName}_${q * 2 + 1}`;
    queries.push({
      id: queryId,
      sources: [inName],
      sinks: [outName],
      sql: `CREATE STREAM ${outName} WITH (KAFKA_TOPIC='${outTopic}', VALUE_FORMAT='AVRO') AS SELECT * FROM ${inName} WHERE ID IS NOT NULL EMIT CHANGES;`,
    });
    first.consumer_groups?.push({
      group_id: `_confluent-ksql-${prefix}query_${queryId}`,
      topics: [{ topic: input, lag: intIn(rand, 0, 300) }],
    });
  }
  return {
    id: id('lksqlc', `env${e}/ksql`),
    display_name: `ksql-app-${e}`,
    kafka_cluster_id: first.id,
    topic_prefix: prefix,
    sources,
    queries,
  };
}

/** The environment's Flink statements: each reads a random topic and writes another of the same cluster. */
function flinkStatements(
  gen: EstateGenerator,
  envTopics: readonly EnvTopic[],
  poolId: string,
): Record<string, unknown>[] {
  const { o, rand } = gen;
  const statements: Record<string, unknown>[] = [];
  for (let s = 0; s < o.flinkStatementsPerEnvironment && envTopics.length > 1; s++) {
    const src = envTopics[Math.floor(rand() * envTopics.length)];
    if (src === undefined) break;
    const sameCluster = envTopics.filter(
      (t) => t.cluster === src.cluster && t.topic !== src.topic && !t.topic.startsWith('dlq-'),
    );
    const out = sameCluster[Math.floor(rand() * sameCluster.length)];
    if (out === undefined) continue;
    const aggregate = s % 3 === 0;
    statements.push({
      name: `${src.topic.replace(/[^a-z0-9]+/g, '-')}-job-${s}`,
      compute_pool_id: poolId,
      kafka_cluster_id: src.cluster,
      source_topics: [src.topic],
      sql: aggregate
        ? `INSERT INTO \`${out.topic}\` SELECT \`id\`, COUNT(*) AS \`cnt\` FROM \`${src.topic}\` GROUP BY \`id\`;`
        : `INSERT INTO \`${out.topic}\` SELECT * FROM \`${src.clusterName}\`.\`${src.topic}\` WHERE \`id\` IS NOT NULL;`,
    });
  }
  return statements;
}

/** One environment: its clusters, Schema Registry, ksqlDB app on the first cluster and Flink across the environment. */
function buildEnvironment(gen: EstateGenerator, e: number): EnvironmentInput {
  const { o, id } = gen;
  const envId = id('env', `env${e}`);
  const [cloud, region] = REGIONS[e % REGIONS.length] ?? ['AWS', 'us-east-1'];
  const clusters: ClusterInput[] = [];
  const envTopics: EnvTopic[] = [];
  /** subjects are environment-wide (TopicNameStrategy): a topic name gets one schema per environment */
  const subjects = new Set<string>();
  for (let c = 0; c < o.clustersPerEnvironment; c++) {
    clusters.push(buildCluster(gen, e, c, [cloud, region], subjects, envTopics));
  }
  const first = clusters[0];
  const ksql: Record<string, unknown>[] = [];
  const poolId = id('lfcp', `env${e}/pool`);
  if (first !== undefined && o.ksqlQueriesPerEnvironment > 0) ksql.push(ksqlApp(gen, e, first));
  const statements = flinkStatements(gen, envTopics, poolId);
  return {
    id: envId,
    display_name: `${['prod', 'staging', 'analytics', 'platform', 'edge'][e % 5]}-${e}`,
    schema_registry: { id: id('lsrc', `env${e}/sr`), cloud: cloud as 'AWS', region },
    kafka_clusters: clusters,
    ksqldb_clusters: ksql as never,
    flink: {
      compute_pools: [{ id: poolId, display_name: `pool-${e}`, cloud: cloud as 'AWS', region, max_cfu: 50 }],
      statements: statements as never,
    },
  };
}

/** Builds a deterministic large scenario (see the module comment). */
export function largeEstateScenario(options: LargeEstateOptions = {}): ScenarioInput {
  const o = estateSizes(options);
  const gen: EstateGenerator = {
    o,
    rand: seededRandom(o.seed),
    id: (prefix: string, key: string, length = 6): string => `${prefix}-${token(`${o.seed}/${key}`, length)}`,
  };
  const environments: EnvironmentInput[] = [];
  for (let e = 0; e < o.environments; e++) environments.push(buildEnvironment(gen, e));
  return { name: `large-estate-${o.seed}`, environments };
}
