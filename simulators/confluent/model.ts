/**
 * The simulator's in-memory world: the scenario with every default resolved and indexed, so that
 * each request is answered in time proportional to its answer (maps by id, lists pre-sorted;
 * nothing scans the whole estate per request).
 *
 * Derived data (all deterministic, from the scenario alone):
 * - topic log-end offsets per partition (from `messages`, else from the topic name);
 * - consumer-group partition assignments (round-robin over members) and per-partition lag (the
 *   topic's declared lag spread over its partitions);
 * - Schema Registry subjects, including `<topic>-key`/`-value` subjects declared inline on topics,
 *   with schema ids from 100001 upwards;
 * - ksqlDB read/write queries per source, consumer group ids `_confluent-ksql-<topic_prefix>query_<id>`;
 * - Flink statement regions (from their compute pool), `sql.current-catalog`/`-database`,
 *   `status.traits.sql_kind` and `status.latest_offsets`;
 * - Metrics API series (see `metrics.ts`).
 */
import { hash32, pick, token, uuidFrom } from './util.js';
import type {
  CatalogIntegrationDef,
  ClusterLinkDef,
  ComputePoolDef,
  ConnectorDef,
  ConsumerGroupDef,
  EnvironmentDef,
  FlinkStatementDef,
  KafkaClusterDef,
  KsqlClusterDef,
  KsqlQueryDef,
  KsqlSourceDef,
  Scenario,
  SchemaRegistryDef,
  TableflowTopicDef,
  TopicDef,
} from './scenario.js';

export interface EnvModel {
  def: EnvironmentDef;
  id: string;
  clusters: ClusterModel[];
  sr: SrModel | undefined;
  ksql: KsqlModel[];
  pools: PoolModel[];
  statements: StatementModel[];
  /** `crn://confluent.cloud/organization=<org>/environment=<env>` */
  crn: string;
}

export interface TopicModel {
  def: TopicDef;
  name: string;
  cluster: ClusterModel;
  isInternal: boolean;
  /** log-end offset per partition */
  endOffsets: number[];
}

export interface LagRow {
  topic: string;
  partition: number;
  currentOffset: number;
  logEndOffset: number;
  lag: number;
  /** index in `members`, or -1 when the group has no member */
  member: number;
}

export interface MemberModel {
  consumerId: string;
  clientId: string;
  instanceId: string | null;
}

export interface GroupModel {
  def: ConsumerGroupDef;
  id: string;
  cluster: ClusterModel;
  members: MemberModel[];
  lags: LagRow[];
}

export interface ClusterModel {
  def: KafkaClusterDef;
  id: string;
  env: EnvModel;
  bootstrapHost: string;
  topics: TopicModel[];
  topicByName: Map<string, TopicModel>;
  groups: GroupModel[];
  groupById: Map<string, GroupModel>;
  connectors: ConnectorDef[];
  connectorByName: Map<string, ConnectorDef>;
  links: ClusterLinkDef[];
  tableflowTopics: TableflowTopicDef[];
  tableflowByTopic: Map<string, TableflowTopicDef>;
  catalogIntegrations: CatalogIntegrationDef[];
  /** `lowercase cloud` e.g. `aws` */
  cloudLower: string;
}

export interface SubjectModel {
  subject: string;
  schemaType: 'AVRO' | 'JSON' | 'PROTOBUF';
  schema: string;
  version: number;
  id: number;
  references: { name: string; subject: string; version: number }[];
}

export interface SrModel {
  def: SchemaRegistryDef;
  id: string;
  env: EnvModel;
  subjects: SubjectModel[];
  bySubject: Map<string, SubjectModel>;
  byId: Map<number, SubjectModel>;
  /** every topic of the environment, for the Stream Catalog (sorted by cluster then name) */
  catalogTopics: TopicModel[];
  /** `<lsrc>:<lkc>:<topic>` and `<lkc>:<topic>` -> topic */
  topicByQualifiedName: Map<string, TopicModel>;
  tagDefs: { name: string; description: string }[];
  bmDefs: { name: string; description: string; attributes: string[] }[];
}

export interface KsqlSourceModel {
  def: KsqlSourceDef;
  name: string;
  readQueries: KsqlQueryDef[];
  writeQueries: KsqlQueryDef[];
}

export interface KsqlModel {
  def: KsqlClusterDef;
  id: string;
  env: EnvModel;
  kafkaCluster: ClusterModel;
  topicPrefix: string;
  sources: KsqlSourceModel[];
  sourceByName: Map<string, KsqlSourceModel>;
  queries: KsqlQueryDef[];
  queryById: Map<string, KsqlQueryDef>;
}

export interface PoolModel {
  def: ComputePoolDef;
  id: string;
  env: EnvModel;
  /** `<cloud lower>-<region>`, the path segment of the regional Flink endpoint */
  regionKey: string;
}

export interface StatementModel {
  def: FlinkStatementDef;
  name: string;
  env: EnvModel;
  pool: PoolModel;
  uid: string;
  sqlKind: string;
  properties: Record<string, string>;
  latestOffsets: Record<string, string>;
}

export interface RegionModel {
  cloud: 'AWS' | 'GCP' | 'AZURE';
  region: string;
  /** `aws-us-east-1` */
  key: string;
}

export interface World {
  scenario: Scenario;
  environments: EnvModel[];
  envById: Map<string, EnvModel>;
  clusters: Map<string, ClusterModel>;
  schemaRegistries: Map<string, SrModel>;
  ksqlClusters: Map<string, KsqlModel>;
  pools: Map<string, PoolModel>;
  regions: RegionModel[];
  regionByKey: Map<string, RegionModel>;
  /** `<env>/<regionKey>` -> statements sorted by name */
  statementsByEnvRegion: Map<string, StatementModel[]>;
  /** creation time of every resource (ms since epoch) */
  createdAt: number;
}

function stringifySchema(schema: string | Record<string, unknown>): string {
  return typeof schema === 'string' ? schema : JSON.stringify(schema);
}

/** Derives `status.traits.sql_kind` from a statement's SQL (leading `SET ...;` lines ignored). */
export function sqlKindOf(sql: string): string {
  const body = sql
    .replace(/--[^\n]*\n/g, '\n')
    .replace(/^\s*(SET\s+'[^']*'\s*=?\s*'[^']*'\s*;\s*)+/i, '')
    .trim()
    .toUpperCase();
  if (/^INSERT\s+(INTO|OVERWRITE)\b/.test(body)) return 'INSERT_INTO';
  if (/^EXECUTE\s+STATEMENT\s+SET\b/.test(body) || /^BEGIN\s+STATEMENT\s+SET\b/.test(body)) return 'STATEMENT_SET';
  if (/^CREATE\s+(OR\s+REPLACE\s+)?TABLE\b[\s\S]*\bAS\s+(SELECT|WITH)\b/.test(body)) return 'CREATE_TABLE_AS';
  if (/^CREATE\s+(OR\s+REPLACE\s+)?TABLE\b/.test(body)) return 'CREATE_TABLE';
  if (/^CREATE\s+(TEMPORARY\s+)?VIEW\b/.test(body)) return 'CREATE_VIEW';
  if (/^(SELECT|WITH)\b/.test(body)) return 'SELECT';
  if (/^SHOW\b/.test(body)) return 'SHOW';
  if (/^ALTER\s+TABLE\b/.test(body)) return 'ALTER_TABLE';
  if (/^DROP\s+TABLE\b/.test(body)) return 'DROP_TABLE';
  const first = /^[A-Z]+/.exec(body);
  return first?.[0] ?? 'UNKNOWN';
}

function buildTopic(def: TopicDef, cluster: ClusterModel): TopicModel {
  const messages = def.messages ?? pick(`${cluster.id}/${def.name}/messages`, 20_000, 4_000_000);
  const base = Math.floor(messages / def.partitions);
  const extra = messages % def.partitions;
  const endOffsets = Array.from({ length: def.partitions }, (_, p) => base + (p < extra ? 1 : 0));
  return { def, name: def.name, cluster, isInternal: def.is_internal ?? def.name.startsWith('_'), endOffsets };
}

function buildGroup(def: ConsumerGroupDef, cluster: ClusterModel): GroupModel {
  let members: MemberModel[];
  if (def.members !== undefined) {
    members = def.members.map((m, i) => ({
      clientId: m.client_id,
      consumerId: m.consumer_id ?? `${m.client_id}-${uuidFrom(`${cluster.id}/${def.group_id}/${i}`)}`,
      instanceId: m.instance_id ?? null,
    }));
  } else if (def.state === 'EMPTY' || def.state === 'DEAD') {
    members = [];
  } else {
    const clientId = `${def.group_id}-client`;
    members = [
      { clientId, consumerId: `${clientId}-${uuidFrom(`${cluster.id}/${def.group_id}/0`)}`, instanceId: null },
    ];
  }
  const lags: LagRow[] = [];
  let slot = 0;
  for (const gt of def.topics) {
    const topic = cluster.topicByName.get(gt.topic);
    if (topic === undefined) continue;
    const partitions = topic.endOffsets.length;
    const per = Math.floor(gt.lag / partitions);
    const rest = gt.lag % partitions;
    topic.endOffsets.forEach((end, p) => {
      const lag = per + (p < rest ? 1 : 0);
      const logEndOffset = Math.max(end, lag);
      lags.push({
        topic: topic.name,
        partition: p,
        currentOffset: logEndOffset - lag,
        logEndOffset,
        lag,
        member: members.length === 0 ? -1 : slot % members.length,
      });
      slot++;
    });
  }
  return { def, id: def.group_id, cluster, members, lags };
}

/** Compares two strings for sorting. */
function byString(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The world's region of `cloud` and `region`, added (in order of first sight) when new. */
function addRegion(world: World, cloud: RegionModel['cloud'], region: string): RegionModel {
  const key = `${cloud.toLowerCase()}-${region}`;
  let r = world.regionByKey.get(key);
  if (r === undefined) {
    r = { cloud, region, key };
    world.regionByKey.set(key, r);
    world.regions.push(r);
  }
  return r;
}

/** An environment's model, without its resources yet. */
function buildEnvironment(scenario: Scenario, envDef: EnvironmentDef): EnvModel {
  return {
    def: envDef,
    id: envDef.id,
    clusters: [],
    sr: undefined,
    ksql: [],
    pools: [],
    statements: [],
    crn: `crn://confluent.cloud/organization=${scenario.organization.id}/environment=${envDef.id}`,
  };
}

/** A Kafka cluster's model with its topics and consumer groups, sorted by name and id. */
function buildCluster(cDef: KafkaClusterDef, env: EnvModel): ClusterModel {
  const cluster: ClusterModel = {
    def: cDef,
    id: cDef.id,
    env,
    bootstrapHost: cDef.bootstrap_host ?? `pkc-${token(`${cDef.id}/pkc`, 5)}`,
    topics: [],
    topicByName: new Map(),
    groups: [],
    groupById: new Map(),
    connectors: cDef.connectors,
    connectorByName: new Map(cDef.connectors.map((c) => [c.name, c])),
    links: cDef.links,
    tableflowTopics: cDef.tableflow.topics,
    tableflowByTopic: new Map(cDef.tableflow.topics.map((t) => [t.topic, t])),
    catalogIntegrations: cDef.tableflow.catalog_integrations,
    cloudLower: cDef.cloud.toLowerCase(),
  };
  for (const tDef of cDef.topics) {
    const topic = buildTopic(tDef, cluster);
    cluster.topicByName.set(topic.name, topic);
  }
  cluster.topics = [...cluster.topicByName.values()].sort((a, b) => byString(a.name, b.name));
  for (const gDef of cDef.consumer_groups) {
    const group = buildGroup(gDef, cluster);
    cluster.groupById.set(group.id, group);
  }
  cluster.groups = [...cluster.groupById.values()].sort((a, b) => byString(a.id, b.id));
  return cluster;
}

/** A subject's declaration, in the registry or inline on a topic. */
interface DeclaredSubject {
  subject: string;
  def: SchemaRegistryDef['subjects'][number] | NonNullable<TopicDef['value_schema']>;
}

/** The registry's subjects, then the key and value schemas declared on the environment's topics. */
function declaredSubjects(srDef: SchemaRegistryDef, env: EnvModel): DeclaredSubject[] {
  const pending: DeclaredSubject[] = [];
  for (const s of srDef.subjects) pending.push({ subject: s.subject, def: s });
  for (const c of env.clusters) {
    for (const t of c.topics) {
      if (t.def.key_schema !== undefined)
        pending.push({ subject: t.def.key_schema.subject ?? `${t.name}-key`, def: t.def.key_schema });
      if (t.def.value_schema !== undefined)
        pending.push({ subject: t.def.value_schema.subject ?? `${t.name}-value`, def: t.def.value_schema });
    }
  }
  return pending;
}

/** Indexes the subjects by name and schema id, giving the ones without an id the next free id from 100001. */
function indexSubjects(sr: SrModel, pending: readonly DeclaredSubject[]): void {
  const usedIds = new Set(pending.map((p) => p.def.id).filter((id): id is number => id !== undefined));
  let nextId = 100001;
  for (const p of pending) {
    let id = p.def.id;
    if (id === undefined) {
      while (usedIds.has(nextId)) nextId++;
      id = nextId;
      usedIds.add(id);
    }
    const model: SubjectModel = {
      subject: p.subject,
      schemaType: p.def.schema_type,
      schema: stringifySchema(p.def.schema),
      version: p.def.version,
      id,
      references: p.def.references,
    };
    sr.bySubject.set(model.subject, model);
    if (!sr.byId.has(id)) sr.byId.set(id, model);
  }
  sr.subjects = [...sr.bySubject.values()].sort((a, b) => byString(a.subject, b.subject));
}

/** The catalog's tag and business metadata definitions: the declared ones, then those the topics use. */
function addCatalogDefinitions(srDef: SchemaRegistryDef, sr: SrModel): void {
  const tagNames = new Map(srDef.tag_definitions.map((d) => [d.name, d.description]));
  const bmDefs = new Map(
    srDef.business_metadata_definitions.map((d) => [d.name, { ...d, attributes: [...d.attributes] }]),
  );
  for (const t of sr.catalogTopics) {
    for (const tag of t.def.tags) if (!tagNames.has(tag)) tagNames.set(tag, `${tag} tag`);
    for (const [bm, attrs] of Object.entries(t.def.business_metadata)) {
      let d = bmDefs.get(bm);
      if (d === undefined) {
        d = { name: bm, description: `${bm} business metadata`, attributes: [] };
        bmDefs.set(bm, d);
      }
      for (const a of Object.keys(attrs)) if (!d.attributes.includes(a)) d.attributes.push(a);
    }
  }
  sr.tagDefs = [...tagNames].map(([name, description]) => ({ name, description }));
  sr.bmDefs = [...bmDefs.values()];
}

/** An environment's Schema Registry model: its subjects, catalog topics and catalog definitions. */
function buildSchemaRegistry(srDef: SchemaRegistryDef, env: EnvModel): SrModel {
  const sr: SrModel = {
    def: srDef,
    id: srDef.id,
    env,
    subjects: [],
    bySubject: new Map(),
    byId: new Map(),
    catalogTopics: env.clusters.flatMap((c) => c.topics),
    topicByQualifiedName: new Map(),
    tagDefs: [],
    bmDefs: [],
  };
  indexSubjects(sr, declaredSubjects(srDef, env));
  for (const t of sr.catalogTopics) {
    sr.topicByQualifiedName.set(`${sr.id}:${t.cluster.id}:${t.name}`, t);
    sr.topicByQualifiedName.set(`${t.cluster.id}:${t.name}`, t);
  }
  addCatalogDefinitions(srDef, sr);
  return sr;
}

/** A ksqlDB cluster's model, its sources knowing the queries that read and write them. */
function buildKsqlCluster(kDef: KsqlClusterDef, env: EnvModel, kafkaCluster: ClusterModel): KsqlModel {
  const sources: KsqlSourceModel[] = kDef.sources.map((s) => ({
    def: s,
    name: s.name.toUpperCase(),
    readQueries: [],
    writeQueries: [],
  }));
  const sourceByName = new Map(sources.map((s) => [s.name, s]));
  for (const q of kDef.queries) {
    for (const n of q.sources) sourceByName.get(n.toUpperCase())?.readQueries.push(q);
    for (const n of q.sinks) sourceByName.get(n.toUpperCase())?.writeQueries.push(q);
  }
  return {
    def: kDef,
    id: kDef.id,
    env,
    kafkaCluster,
    topicPrefix: kDef.topic_prefix ?? `pksqlc-${token(`${kDef.id}/prefix`, 5)}`,
    sources,
    sourceByName,
    queries: kDef.queries,
    queryById: new Map(kDef.queries.map((q) => [q.id.toUpperCase(), q])),
  };
}

/** A Flink statement's model: its SQL properties (current catalog and database) and latest source offsets. */
function buildStatement(world: World, env: EnvModel, sDef: FlinkStatementDef, pool: PoolModel): StatementModel {
  const dbCluster =
    (sDef.kafka_cluster_id !== undefined ? world.clusters.get(sDef.kafka_cluster_id) : undefined) ??
    env.clusters.find((c) => c.def.cloud === pool.def.cloud && c.def.region === pool.def.region) ??
    env.clusters[0];
  const properties: Record<string, string> = {
    'sql.current-catalog': env.def.display_name,
    ...(dbCluster !== undefined ? { 'sql.current-database': dbCluster.def.display_name } : {}),
    'sql.local-time-zone': 'GMT+00:00',
    ...sDef.properties,
  };
  const latestOffsets: Record<string, string> = {};
  for (const topicName of sDef.source_topics) {
    const topic = env.clusters.map((c) => c.topicByName.get(topicName)).find((t) => t !== undefined);
    const parts = topic?.endOffsets ?? [pick(`${sDef.name}/${topicName}`, 1000, 90000)];
    latestOffsets[topicName] = parts.map((off, p) => `partition:${p},offset:${off}`).join(';');
  }
  return {
    def: sDef,
    name: sDef.name,
    env,
    pool,
    uid: uuidFrom(`${env.id}/${sDef.name}`),
    sqlKind: sDef.sql_kind ?? sqlKindOf(sDef.sql),
    properties,
    latestOffsets,
  };
}

/** Adds an environment's compute pools and the statements that run on them to the world. */
function addFlink(world: World, env: EnvModel, envDef: EnvironmentDef): void {
  for (const pDef of envDef.flink.compute_pools) {
    const region = addRegion(world, pDef.cloud, pDef.region);
    const pool: PoolModel = { def: pDef, id: pDef.id, env, regionKey: region.key };
    env.pools.push(pool);
    world.pools.set(pool.id, pool);
  }
  for (const sDef of envDef.flink.statements) {
    const pool = world.pools.get(sDef.compute_pool_id);
    if (pool === undefined) continue; // prevented by validation
    const statement = buildStatement(world, env, sDef, pool);
    env.statements.push(statement);
    const key = `${env.id}/${pool.regionKey}`;
    const list = world.statementsByEnvRegion.get(key) ?? [];
    list.push(statement);
    world.statementsByEnvRegion.set(key, list);
  }
}

/** Adds one environment and all its resources to the world. */
function addEnvironment(world: World, scenario: Scenario, envDef: EnvironmentDef): void {
  const env = buildEnvironment(scenario, envDef);
  world.environments.push(env);
  world.envById.set(env.id, env);
  for (const cDef of envDef.kafka_clusters) {
    const cluster = buildCluster(cDef, env);
    env.clusters.push(cluster);
    world.clusters.set(cluster.id, cluster);
  }
  if (envDef.schema_registry !== undefined) {
    const sr = buildSchemaRegistry(envDef.schema_registry, env);
    env.sr = sr;
    world.schemaRegistries.set(sr.id, sr);
  }
  for (const kDef of envDef.ksqldb_clusters) {
    const kafkaCluster = world.clusters.get(kDef.kafka_cluster_id);
    if (kafkaCluster === undefined) continue; // prevented by validation
    const ksql = buildKsqlCluster(kDef, env, kafkaCluster);
    env.ksql.push(ksql);
    world.ksqlClusters.set(ksql.id, ksql);
  }
  addFlink(world, env, envDef);
}

/** Builds the indexed world from a validated scenario. */
export function buildWorld(scenario: Scenario): World {
  const createdAt = Date.parse(scenario.created_at);
  const world: World = {
    scenario,
    environments: [],
    envById: new Map(),
    clusters: new Map(),
    schemaRegistries: new Map(),
    ksqlClusters: new Map(),
    pools: new Map(),
    regions: [],
    regionByKey: new Map(),
    statementsByEnvRegion: new Map(),
    createdAt: Number.isNaN(createdAt) ? Date.parse('2024-06-03T09:15:00Z') : createdAt,
  };
  for (const fr of scenario.flink_regions) addRegion(world, fr.cloud, fr.region);
  for (const envDef of scenario.environments) addEnvironment(world, scenario, envDef);
  for (const list of world.statementsByEnvRegion.values()) list.sort((a, b) => byString(a.name, b.name));
  if (world.regions.length === 0) addRegion(world, 'AWS', 'us-east-1');
  world.regions.sort((a, b) => byString(a.key, b.key));
  return world;
}

/** Deterministic per-hour figure for a resource without declared metrics. */
export function defaultRate(key: string, min: number, max: number): number {
  return min + (hash32(key) % Math.max(1, max - min));
}
