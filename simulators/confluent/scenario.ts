/**
 * The platform simulator's scenario: the estate it serves, as a zod-validated object.
 *
 * A scenario is written in YAML or JSON (snake_case keys, like the platform's own JSON) or built
 * in code (see `largeEstate.ts`). It describes an organization with environments; each environment
 * holds Kafka clusters (topics, consumer groups, managed connectors, cluster links, Tableflow), an
 * optional Schema Registry (subjects, tag and business-metadata definitions), ksqlDB clusters
 * (sources and persistent queries) and Flink compute pools and statements. Credentials are declared
 * per service. Faults can be declared up front.
 *
 * Units: every `*_ms` field is milliseconds; `retry_after` is seconds; metric figures under
 * `metrics` are **per hour** (counters are scaled to the queried bucket, gauges are not).
 *
 * `parseScenario` validates and fills defaults, then checks cross-references (a query's sources
 * exist, a group reads topics of its cluster, ids are unique...). Every failure is a
 * `ValidationError` whose message is one line naming the path of the bad field, e.g.
 * `invalid scenario (demo.yaml): environments[0].kafka_clusters[1].topics[3].partitions: expected number, received string`.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { z } from 'zod';
import { ValidationError } from '../../src/errors.js';

/** HTTP basic credential: the API key and its secret. */
const credentialSchema = z.strictObject({
  key: z.string().min(1),
  secret: z.string().min(1),
});

const scalar = z.union([z.string(), z.number(), z.boolean()]);

/** A fault: see `faults.ts` for the semantics of each kind. */
export const faultSchema = z.strictObject({
  /** Optional name, echoed in listings. */
  id: z.string().min(1).optional(),
  /** API name(s) to match (`kafka-rest.topics`), `*` wildcards allowed (`kafka-rest.*`). */
  api: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  /** HTTP method to match (case-insensitive). */
  method: z.string().min(1).optional(),
  /** Regular expression tested against the request URL (path and query string). */
  path: z.string().min(1).optional(),
  kind: z.enum(['latency', 'status', 'timeout', 'unauthorized', 'not_found']),
  /** `latency`: ms added; `timeout`: ms to hold the request before answering normally (absent: hold until the client gives up). */
  ms: z.number().int().nonnegative().optional(),
  /** `status`: the HTTP status code to answer. */
  status: z.number().int().min(100).max(599).optional(),
  /** Seconds for a `Retry-After` header. */
  retry_after: z.number().int().nonnegative().optional(),
  /** Replaces the service's error body (any JSON). */
  body: z.unknown().optional(),
  /** How many matching requests the fault applies to (default: unlimited). */
  times: z.number().int().positive().optional(),
  /** Let this many matching requests through before the fault starts applying (default 0). */
  after: z.number().int().nonnegative().optional(),
});

/** A schema version registered under a subject. `schema` may be given as an object (serialized as JSON). */
const subjectSchema = z.strictObject({
  subject: z.string().min(1),
  schema_type: z.enum(['AVRO', 'JSON', 'PROTOBUF']).default('AVRO'),
  schema: z.union([z.string().min(1), z.record(z.string(), z.unknown())]),
  version: z.number().int().positive().default(1),
  /** Global schema id; assigned from 100001 upwards when absent. */
  id: z.number().int().positive().optional(),
  references: z
    .array(
      z.strictObject({ name: z.string().min(1), subject: z.string().min(1), version: z.number().int().positive() }),
    )
    .default([]),
});

/** A schema attached inline to a topic: registered as `<topic>-key` / `<topic>-value` (TopicNameStrategy). */
const inlineSchema = subjectSchema.extend({ subject: z.string().min(1).optional() });

const topicMetricsSchema = z.strictObject({
  received_bytes: z.number().nonnegative().default(0),
  sent_bytes: z.number().nonnegative().default(0),
  received_records: z.number().nonnegative().default(0),
  sent_records: z.number().nonnegative().default(0),
});

const topicSchema = z.strictObject({
  name: z.string().min(1).max(249),
  partitions: z.number().int().positive().default(6),
  replication_factor: z.number().int().positive().default(3),
  /** Default: the name starts with `_`. */
  is_internal: z.boolean().optional(),
  /** Topic configs that differ from the defaults (`cleanup.policy: compact`...); values become strings. */
  configs: z.record(z.string(), scalar).default({}),
  key_schema: inlineSchema.optional(),
  value_schema: inlineSchema.optional(),
  /** Stream Catalog tags (classifications) bound to the topic. */
  tags: z.array(z.string().min(1)).default([]),
  /** Stream Catalog business metadata: `{ <definition name>: { <attribute>: <value> } }`. */
  business_metadata: z.record(z.string(), z.record(z.string(), scalar)).default({}),
  owner: z.string().optional(),
  owner_email: z.string().optional(),
  description: z.string().optional(),
  /** Per-hour throughput for the Metrics API; absent: a deterministic non-zero figure; `false`: idle (no data points). */
  metrics: z.union([topicMetricsSchema, z.literal(false)]).optional(),
  /** Records ever written (drives log-end offsets); default derived from the name. */
  messages: z.number().int().nonnegative().optional(),
});

const consumerGroupSchema = z.strictObject({
  group_id: z.string().min(1),
  state: z
    .enum(['STABLE', 'EMPTY', 'PREPARING_REBALANCE', 'COMPLETING_REBALANCE', 'DEAD', 'UNKNOWN'])
    .default('STABLE'),
  type: z.enum(['CLASSIC', 'CONSUMER']).default('CLASSIC'),
  is_simple: z.boolean().default(false),
  partition_assignor: z.string().default('org.apache.kafka.clients.consumer.RangeAssignor'),
  /** Members; partitions of the group's topics are assigned round-robin. Default: one member (none when EMPTY). */
  members: z
    .array(
      z.strictObject({
        client_id: z.string().min(1),
        consumer_id: z.string().min(1).optional(),
        instance_id: z.string().min(1).nullable().optional(),
      }),
    )
    .optional(),
  /** Topics the group has committed offsets on, with the total lag (records) over the topic's partitions. */
  topics: z
    .array(z.strictObject({ topic: z.string().min(1), lag: z.number().int().nonnegative().default(0) }))
    .default([]),
});

const connectorMetricsSchema = z.strictObject({
  sent_records: z.number().nonnegative().default(0),
  received_records: z.number().nonnegative().default(0),
  sent_bytes: z.number().nonnegative().default(0),
  received_bytes: z.number().nonnegative().default(0),
  dead_letter_queue_records: z.number().nonnegative().default(0),
});

const connectorSchema = z.strictObject({
  name: z.string().min(1),
  /** `lcc-...` (managed) or `clcc-...` (custom). */
  id: z.string().min(1),
  /** `connector.class` (managed short name such as `PostgresCdcSourceV2`, or a Java class name). */
  class: z.string().min(1),
  type: z.enum(['source', 'sink']),
  /** The `type` the API reports in `info`/`status`; the real platform sometimes says `unknown`. Default: `type`. */
  reported_type: z.enum(['source', 'sink', 'unknown']).optional(),
  /** Connector config as the user set it; secrets (`*password*`, `*secret*`, `*api.key*`...) are masked in answers. */
  config: z.record(z.string(), scalar).default({}),
  state: z.enum(['RUNNING', 'PAUSED', 'FAILED', 'PROVISIONING', 'DEGRADED']).default('RUNNING'),
  trace: z.string().default(''),
  tasks: z.number().int().nonnegative().default(1),
  metrics: z.union([connectorMetricsSchema, z.literal(false)]).optional(),
});

const clusterLinkSchema = z.strictObject({
  link_name: z.string().min(1),
  source_cluster_id: z.string().min(1),
  link_id: z.string().optional(),
  mirrors: z
    .array(
      z.strictObject({
        mirror_topic_name: z.string().min(1),
        source_topic_name: z.string().min(1),
        status: z.enum(['ACTIVE', 'PAUSED', 'STOPPED', 'FAILED', 'PENDING_STOPPED']).default('ACTIVE'),
        /** Messages the mirror is behind its source, in all; spread over the partitions in `mirror_lags`. */
        lag: z.number().int().nonnegative().default(0),
      }),
    )
    .default([]),
});

const tableflowTopicSchema = z.strictObject({
  topic: z.string().min(1),
  table_formats: z
    .array(z.enum(['ICEBERG', 'DELTA']))
    .min(1)
    .default(['ICEBERG']),
  storage: z
    .object({
      kind: z.enum(['Managed', 'ByobAws', 'AzureDataLakeStorageGen2']).default('Managed'),
      bucket_name: z.string().optional(),
      bucket_region: z.string().optional(),
      provider_integration_id: z.string().optional(),
      container_name: z.string().optional(),
      storage_account_name: z.string().optional(),
      table_path: z.string().optional(),
    })
    .default({ kind: 'Managed' }),
  error_handling: z
    .object({ mode: z.enum(['SUSPEND', 'SKIP', 'LOG']).default('SUSPEND'), target: z.string().optional() })
    .default({ mode: 'SUSPEND' }),
  phase: z.string().default('RUNNING'),
  write_mode: z.enum(['APPEND', 'UPSERT', 'UPSERT_HISTORY']).default('APPEND'),
  suspended: z.boolean().default(false),
});

const catalogIntegrationSchema = z.strictObject({
  /** `tci-...` */
  id: z.string().min(1),
  display_name: z.string().min(1),
  /** The `spec.config` object, e.g. `{kind: Unity, workspace_endpoint, catalog_name, client_id, client_secret}`. */
  config: z.object({ kind: z.enum(['Unity', 'AwsGlue', 'Snowflake']) }).catchall(z.unknown()),
  phase: z.string().default('CONNECTED'),
  suspended: z.boolean().default(false),
});

const kafkaClusterSchema = z.strictObject({
  /** `lkc-...` */
  id: z.string().min(1),
  display_name: z.string().min(1),
  cloud: z.enum(['AWS', 'GCP', 'AZURE']).default('AWS'),
  region: z.string().min(1).default('us-east-1'),
  availability: z.enum(['SINGLE_ZONE', 'MULTI_ZONE', 'LOW', 'HIGH']).default('SINGLE_ZONE'),
  /** Cluster type. The lag endpoints of Kafka REST answer only on Dedicated clusters, as on the real platform. */
  kind: z.enum(['Basic', 'Standard', 'Enterprise', 'Dedicated', 'Freight']).default('Dedicated'),
  cku: z.number().int().positive().optional(),
  /** The `pkc-xxxxx` part of the bootstrap host; derived from the id when absent. */
  bootstrap_host: z.string().min(1).optional(),
  /** This cluster's Kafka API key (else `credentials.kafka`). */
  api_key: credentialSchema.optional(),
  topics: z.array(topicSchema).default([]),
  consumer_groups: z.array(consumerGroupSchema).default([]),
  connectors: z.array(connectorSchema).default([]),
  links: z.array(clusterLinkSchema).default([]),
  tableflow: z
    .object({
      topics: z.array(tableflowTopicSchema).default([]),
      catalog_integrations: z.array(catalogIntegrationSchema).default([]),
    })
    .default({ topics: [], catalog_integrations: [] }),
});

const schemaRegistrySchema = z.strictObject({
  /** `lsrc-...` */
  id: z.string().min(1),
  display_name: z.string().default('Stream Governance Package'),
  cloud: z.enum(['AWS', 'GCP', 'AZURE']).default('AWS'),
  region: z.string().min(1).default('us-east-1'),
  package: z.enum(['ESSENTIALS', 'ADVANCED']).default('ESSENTIALS'),
  /** This Schema Registry's API key (else `credentials.schema_registry`). */
  api_key: credentialSchema.optional(),
  subjects: z.array(subjectSchema).default([]),
  /** Tag definitions; tags used on topics but not declared here get a generated description. */
  tag_definitions: z
    .array(z.strictObject({ name: z.string().min(1), description: z.string().default('') }))
    .default([]),
  business_metadata_definitions: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        description: z.string().default(''),
        attributes: z.array(z.string().min(1)).default([]),
      }),
    )
    .default([]),
});

const ksqlSourceSchema = z.strictObject({
  /** Source name; stored upper-case like ksqlDB does for unquoted identifiers. */
  name: z.string().min(1),
  type: z.enum(['STREAM', 'TABLE']).default('STREAM'),
  topic: z.string().min(1),
  key_format: z.string().default('KAFKA'),
  value_format: z.string().default('AVRO'),
  windowed: z.boolean().default(false),
  fields: z
    .array(z.strictObject({ name: z.string().min(1), type: z.string().min(1), key: z.boolean().default(false) }))
    .default([]),
  /** The CREATE statement; generated when absent. */
  statement: z.string().optional(),
});

const ksqlQuerySchema = z.strictObject({
  /** e.g. `CSAS_ORDERS_ENRICHED_3` */
  id: z.string().min(1),
  sql: z.string().min(1),
  sources: z.array(z.string().min(1)).min(1),
  sinks: z.array(z.string().min(1)).default([]),
  state: z.enum(['RUNNING', 'ERROR', 'PAUSED', 'UNRESPONSIVE']).default('RUNNING'),
  query_type: z.enum(['PERSISTENT', 'PUSH']).default('PERSISTENT'),
});

const ksqlClusterSchema = z.strictObject({
  /** `lksqlc-...` */
  id: z.string().min(1),
  display_name: z.string().min(1),
  kafka_cluster_id: z.string().min(1),
  csu: z.number().int().positive().default(4),
  /** `pksqlc-...`: prefix of the cluster's internal topics and consumer groups; derived from the id when absent. */
  topic_prefix: z.string().min(1).optional(),
  phase: z.string().default('PROVISIONED'),
  api_key: credentialSchema.optional(),
  sources: z.array(ksqlSourceSchema).default([]),
  queries: z.array(ksqlQuerySchema).default([]),
});

const flinkStatementSchema = z.strictObject({
  name: z.string().min(1),
  sql: z.string().min(1),
  compute_pool_id: z.string().min(1),
  phase: z
    .enum(['PENDING', 'RUNNING', 'COMPLETED', 'DELETING', 'FAILING', 'FAILED', 'STOPPING', 'STOPPED', 'DEGRADED'])
    .default('RUNNING'),
  /** Cluster whose display name fills `sql.current-database` (default: the environment's first cluster in the pool's region). */
  kafka_cluster_id: z.string().min(1).optional(),
  /** Extra/overriding `spec.properties`. */
  properties: z.record(z.string(), z.string()).default({}),
  principal: z.string().default('sa-flinkrunner'),
  stopped: z.boolean().optional(),
  /** `status.traits.sql_kind`; derived from the SQL when absent (`INSERT_INTO`, `CREATE_TABLE_AS`, `SELECT`...). */
  sql_kind: z.string().optional(),
  detail: z.string().default(''),
  /** Result columns (`status.traits.schema.columns`), e.g. for a SELECT: `[{name, type: BIGINT}]`. */
  columns: z
    .array(z.strictObject({ name: z.string().min(1), type: z.string().min(1), nullable: z.boolean().default(true) }))
    .default([]),
  /** Topics the statement reads: fills `status.latest_offsets` (topic -> `partition:N,offset:M;...`). */
  source_topics: z.array(z.string().min(1)).default([]),
  labels: z.record(z.string(), z.string()).default({}),
  created_at: z.string().optional(),
  metrics: z
    .union([
      z.strictObject({
        num_records_in: z.number().nonnegative().default(0),
        num_records_out: z.number().nonnegative().default(0),
        pending_records: z.number().nonnegative().default(0),
      }),
      z.literal(false),
    ])
    .optional(),
});

const environmentSchema = z.strictObject({
  /** `env-...` */
  id: z.string().min(1),
  display_name: z.string().min(1),
  /** `stream_governance_config.package`; default: the Schema Registry's package when there is one. */
  stream_governance_package: z.enum(['ESSENTIALS', 'ADVANCED']).optional(),
  kafka_clusters: z.array(kafkaClusterSchema).default([]),
  /** Absent: `srcm` lists no cluster for the environment and every Schema Registry URL answers 404. */
  schema_registry: schemaRegistrySchema.optional(),
  ksqldb_clusters: z.array(ksqlClusterSchema).default([]),
  flink: z
    .object({
      compute_pools: z
        .array(
          z.strictObject({
            /** `lfcp-...` */
            id: z.string().min(1),
            display_name: z.string().min(1),
            cloud: z.enum(['AWS', 'GCP', 'AZURE']).default('AWS'),
            region: z.string().min(1).default('us-east-1'),
            max_cfu: z.number().int().positive().default(10),
            current_cfu: z.number().int().nonnegative().default(2),
            default_pool: z.boolean().default(false),
          }),
        )
        .default([]),
      statements: z.array(flinkStatementSchema).default([]),
    })
    .default({ compute_pools: [], statements: [] }),
});

const defaultCredentials = {
  cloud: { key: 'SIMCLOUDKEY0001', secret: 'sim-cloud-secret' },
  kafka: { key: 'SIMKAFKAKEY0001', secret: 'sim-kafka-secret' },
  schema_registry: { key: 'SIMSRKEY0000001', secret: 'sim-sr-secret' },
  flink: { key: 'SIMFLINKKEY0001', secret: 'sim-flink-secret' },
  ksqldb: { key: 'SIMKSQLKEY00001', secret: 'sim-ksqldb-secret' },
};

/** The whole scenario. */
export const scenarioSchema = z.strictObject({
  name: z.string().default('scenario'),
  organization: z
    .object({
      id: z.string().min(1).default('5f1c8d3e-2b47-4c9a-8e61-0d7a9b3c4e21'),
      display_name: z.string().default('Simulated Organization'),
    })
    .default({ id: '5f1c8d3e-2b47-4c9a-8e61-0d7a9b3c4e21', display_name: 'Simulated Organization' }),
  /**
   * Keys per service. `cloud`: control plane, Connect, Metrics (and Tableflow); `kafka`: every Kafka
   * cluster without its own `api_key`; `schema_registry`, `flink`, `ksqldb`: those data planes;
   * `tableflow`: an extra key Tableflow also accepts.
   */
  credentials: z
    .object({
      cloud: credentialSchema.default(defaultCredentials.cloud),
      kafka: credentialSchema.default(defaultCredentials.kafka),
      schema_registry: credentialSchema.default(defaultCredentials.schema_registry),
      flink: credentialSchema.default(defaultCredentials.flink),
      ksqldb: credentialSchema.default(defaultCredentials.ksqldb),
      tableflow: credentialSchema.optional(),
    })
    .default(defaultCredentials),
  /** Milliseconds added to every request (the benchmark uses 50). */
  latency_ms: z.number().int().nonnegative().default(0),
  /** Creation time stamped on every resource (ISO 8601). */
  created_at: z.string().default('2024-06-03T09:15:00Z'),
  /** Flink regions listed by `/fcpm/v2/regions` besides those of the compute pools. */
  flink_regions: z
    .array(z.strictObject({ cloud: z.enum(['AWS', 'GCP', 'AZURE']), region: z.string().min(1) }))
    .default([]),
  service_accounts: z
    .array(
      z.strictObject({ id: z.string().min(1), display_name: z.string().min(1), description: z.string().default('') }),
    )
    .default([]),
  environments: z.array(environmentSchema).default([]),
  faults: z.array(faultSchema).default([]),
});

/** A validated scenario, defaults filled. */
export type Scenario = z.output<typeof scenarioSchema>;
/** What a scenario author writes (defaults optional). */
export type ScenarioInput = z.input<typeof scenarioSchema>;
export type FaultSpec = z.output<typeof faultSchema>;
export type EnvironmentDef = Scenario['environments'][number];
export type KafkaClusterDef = EnvironmentDef['kafka_clusters'][number];
export type TopicDef = KafkaClusterDef['topics'][number];
export type ConsumerGroupDef = KafkaClusterDef['consumer_groups'][number];
export type ConnectorDef = KafkaClusterDef['connectors'][number];
export type ClusterLinkDef = KafkaClusterDef['links'][number];
export type TableflowTopicDef = KafkaClusterDef['tableflow']['topics'][number];
export type CatalogIntegrationDef = KafkaClusterDef['tableflow']['catalog_integrations'][number];
export type SchemaRegistryDef = NonNullable<EnvironmentDef['schema_registry']>;
export type SubjectDef = SchemaRegistryDef['subjects'][number];
export type KsqlClusterDef = EnvironmentDef['ksqldb_clusters'][number];
export type KsqlSourceDef = KsqlClusterDef['sources'][number];
export type KsqlQueryDef = KsqlClusterDef['queries'][number];
export type ComputePoolDef = EnvironmentDef['flink']['compute_pools'][number];
export type FlinkStatementDef = EnvironmentDef['flink']['statements'][number];
export type Credential = z.output<typeof credentialSchema>;

function formatPath(segments: readonly PropertyKey[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += out === '' ? String(s) : `.${String(s)}`;
  }
  return out === '' ? '(root)' : out;
}

function fail(source: string, pathText: string, message: string): never {
  throw new ValidationError(`invalid scenario (${source}): ${pathText}: ${message}`, [{ path: pathText, message }]);
}

/**
 * Validates a scenario object, fills defaults and checks cross-references.
 * @param input the parsed YAML/JSON or a scenario built in code
 * @param source a name for error messages (a file name, `demo`, `object`)
 * @throws ValidationError with a one-line message naming the bad field's path
 */
export function parseScenario(input: unknown, source = 'object'): Scenario {
  const result = scenarioSchema.safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0];
    if (issue === undefined) fail(source, '(root)', 'invalid');
    fail(source, formatPath(issue.path), issue.message.replace(/\s+/g, ' '));
  }
  checkReferences(result.data, source);
  return result.data;
}

function checkUnique(seen: Map<string, string>, id: string, where: string, source: string, what: string): void {
  const previous = seen.get(id);
  if (previous !== undefined) fail(source, where, `duplicate ${what} "${id}" (already at ${previous})`);
  seen.set(id, where);
}

/** Cross-reference checks that the schema cannot express. */
function checkReferences(s: Scenario, source: string): void {
  const envIds = new Map<string, string>();
  const clusterIds = new Map<string, string>();
  const connectorIds = new Map<string, string>();
  const lsrcIds = new Map<string, string>();
  const ksqlIds = new Map<string, string>();
  const poolIds = new Map<string, string>();
  s.environments.forEach((env, ei) => {
    const ep = `environments[${ei}]`;
    checkUnique(envIds, env.id, `${ep}.id`, source, 'environment id');
    const clusterTopics = new Map<string, Set<string>>();
    env.kafka_clusters.forEach((c, ci) => {
      const cp = `${ep}.kafka_clusters[${ci}]`;
      checkUnique(clusterIds, c.id, `${cp}.id`, source, 'Kafka cluster id');
      const topics = new Map<string, string>();
      c.topics.forEach((t, ti) => checkUnique(topics, t.name, `${cp}.topics[${ti}].name`, source, 'topic'));
      clusterTopics.set(c.id, new Set(topics.keys()));
      const groups = new Map<string, string>();
      c.consumer_groups.forEach((g, gi) => {
        const gp = `${cp}.consumer_groups[${gi}]`;
        checkUnique(groups, g.group_id, `${gp}.group_id`, source, 'consumer group');
        g.topics.forEach((gt, ti) => {
          if (!topics.has(gt.topic))
            fail(source, `${gp}.topics[${ti}].topic`, `topic "${gt.topic}" is not a topic of cluster ${c.id}`);
        });
      });
      const names = new Map<string, string>();
      c.connectors.forEach((k, ki) => {
        checkUnique(names, k.name, `${cp}.connectors[${ki}].name`, source, 'connector name');
        checkUnique(connectorIds, k.id, `${cp}.connectors[${ki}].id`, source, 'connector id');
      });
      c.tableflow.topics.forEach((tt, ti) => {
        if (!topics.has(tt.topic))
          fail(source, `${cp}.tableflow.topics[${ti}].topic`, `topic "${tt.topic}" is not a topic of cluster ${c.id}`);
      });
      c.links.forEach((l, li) =>
        l.mirrors.forEach((m, mi) => {
          if (!topics.has(m.mirror_topic_name))
            fail(
              source,
              `${cp}.links[${li}].mirrors[${mi}].mirror_topic_name`,
              `topic "${m.mirror_topic_name}" is not a topic of cluster ${c.id}`,
            );
        }),
      );
    });
    if (env.schema_registry !== undefined) {
      checkUnique(lsrcIds, env.schema_registry.id, `${ep}.schema_registry.id`, source, 'Schema Registry id');
      const subjects = new Map<string, string>();
      env.schema_registry.subjects.forEach((sub, si) =>
        checkUnique(subjects, sub.subject, `${ep}.schema_registry.subjects[${si}].subject`, source, 'subject'),
      );
      env.kafka_clusters.forEach((c, ci) =>
        c.topics.forEach((t, ti) => {
          const tp = `${ep}.kafka_clusters[${ci}].topics[${ti}]`;
          if (t.key_schema !== undefined)
            checkUnique(subjects, t.key_schema.subject ?? `${t.name}-key`, `${tp}.key_schema`, source, 'subject');
          if (t.value_schema !== undefined)
            checkUnique(subjects, t.value_schema.subject ?? `${t.name}-value`, `${tp}.value_schema`, source, 'subject');
        }),
      );
    } else {
      env.kafka_clusters.forEach((c, ci) =>
        c.topics.forEach((t, ti) => {
          const tp = `${ep}.kafka_clusters[${ci}].topics[${ti}]`;
          if (t.key_schema !== undefined) fail(source, `${tp}.key_schema`, 'the environment has no schema_registry');
          if (t.value_schema !== undefined)
            fail(source, `${tp}.value_schema`, 'the environment has no schema_registry');
        }),
      );
    }
    env.ksqldb_clusters.forEach((k, ki) => {
      const kp = `${ep}.ksqldb_clusters[${ki}]`;
      checkUnique(ksqlIds, k.id, `${kp}.id`, source, 'ksqlDB cluster id');
      const topics = clusterTopics.get(k.kafka_cluster_id);
      if (topics === undefined)
        fail(source, `${kp}.kafka_cluster_id`, `no Kafka cluster "${k.kafka_cluster_id}" in environment ${env.id}`);
      const sources = new Map<string, string>();
      k.sources.forEach((src, si) => {
        checkUnique(sources, src.name.toUpperCase(), `${kp}.sources[${si}].name`, source, 'ksqlDB source');
        if (!topics.has(src.topic))
          fail(
            source,
            `${kp}.sources[${si}].topic`,
            `topic "${src.topic}" is not a topic of cluster ${k.kafka_cluster_id}`,
          );
      });
      const queries = new Map<string, string>();
      k.queries.forEach((q, qi) => {
        checkUnique(queries, q.id, `${kp}.queries[${qi}].id`, source, 'ksqlDB query id');
        [
          ...q.sources.map((n, i) => [n, `sources[${i}]`] as const),
          ...q.sinks.map((n, i) => [n, `sinks[${i}]`] as const),
        ].forEach(([n, where]) => {
          if (!sources.has(n.toUpperCase()))
            fail(source, `${kp}.queries[${qi}].${where}`, `"${n}" is not a source of ksqlDB cluster ${k.id}`);
        });
      });
    });
    env.flink.compute_pools.forEach((p, pi) =>
      checkUnique(poolIds, p.id, `${ep}.flink.compute_pools[${pi}].id`, source, 'compute pool id'),
    );
    const envPools = new Set(env.flink.compute_pools.map((p) => p.id));
    const statementNames = new Map<string, string>();
    env.flink.statements.forEach((st, si) => {
      const sp = `${ep}.flink.statements[${si}]`;
      checkUnique(statementNames, st.name, `${sp}.name`, source, 'statement name');
      if (!envPools.has(st.compute_pool_id))
        fail(source, `${sp}.compute_pool_id`, `no compute pool "${st.compute_pool_id}" in environment ${env.id}`);
      if (st.kafka_cluster_id !== undefined && !clusterTopics.has(st.kafka_cluster_id))
        fail(source, `${sp}.kafka_cluster_id`, `no Kafka cluster "${st.kafka_cluster_id}" in environment ${env.id}`);
    });
  });
}

/**
 * Folder of the built-in scenarios (`demo.yaml`...): next to this module, or - when running the
 * compiled copy under `dist/` (tsc does not copy YAML) - in the source tree.
 */
export const builtInScenarioDir = ((): string => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, 'scenarios'), path.resolve(here, '../../../simulators/confluent/scenarios')];
  return candidates.find((dir) => existsSync(path.join(dir, 'demo.yaml'))) ?? (candidates[0] as string);
})();

/**
 * Parses scenario text (YAML, of which JSON is a subset) and validates it.
 * @param text file contents
 * @param source a name for error messages
 */
export function parseScenarioText(text: string, source: string): Scenario {
  let data: unknown;
  try {
    data = YAML.parse(text, { prettyErrors: false });
  } catch (error) {
    const message = error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
    throw new ValidationError(`invalid scenario (${source}): not valid YAML/JSON: ${message}`, [
      { path: '(root)', message },
    ]);
  }
  return parseScenario(data, source);
}

/**
 * Loads a scenario: `'demo'` (or the name of another file in `scenarios/`, without extension) or a
 * path to a `.yaml`/`.yml`/`.json` file.
 * @throws ValidationError when the file cannot be read or is invalid (one-line message)
 */
export async function loadScenario(nameOrPath: string): Promise<Scenario> {
  const isName = /^[A-Za-z0-9_-]+$/.test(nameOrPath) && !nameOrPath.includes('.');
  const file = isName ? path.join(builtInScenarioDir, `${nameOrPath}.yaml`) : path.resolve(nameOrPath);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? 'is a directory' : `cannot read (${code ?? 'error'})`;
    throw new ValidationError(`invalid scenario (${nameOrPath}): ${why}: ${file}`, [{ path: '(root)', message: why }]);
  }
  return parseScenarioText(text, isName ? nameOrPath : path.basename(file));
}
