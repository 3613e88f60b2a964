/**
 * Lenient zod schemas of the platform (Confluent Cloud) response bodies the extractors read, and the
 * TypeScript types inferred from them. Only the fields lineage needs are required; everything else
 * passes through untouched (`z.looseObject`), so that new fields on the platform never break an
 * extraction. Shapes: `docs/platform-apis.md` sections 1-10 and the official OpenAPI
 * specs they cite.
 */
import { z } from 'zod';

const str = z.string();
const optStr = z.string().nullish();
const stringRecord = z.record(z.string(), z.string().nullish());

/** `org/v2` Environment: `id` (`env-...`), `display_name`. */
export const EnvironmentBody = z.looseObject({ id: str, display_name: optStr });
export type EnvironmentBody = z.infer<typeof EnvironmentBody>;

/** `org/v2` Organization: `id` is the organization UUID used in Flink SQL paths. */
export const OrganizationBody = z.looseObject({ id: str });
export type OrganizationBody = z.infer<typeof OrganizationBody>;

/**
 * `cmk/v2` Cluster. `spec.http_endpoint` is the Kafka REST base (may be `""`), and
 * `spec.kafka_bootstrap_endpoint` is `SASL_SSL://host:9092`; `spec.config.kind` is Basic,
 * Standard, Enterprise, Dedicated or Freight.
 */
export const KafkaClusterBody = z.looseObject({
  id: str,
  spec: z
    .looseObject({
      display_name: optStr,
      cloud: optStr,
      region: optStr,
      availability: optStr,
      http_endpoint: optStr,
      kafka_bootstrap_endpoint: optStr,
      config: z.looseObject({ kind: optStr }).nullish(),
    })
    .nullish(),
  status: z.looseObject({ phase: optStr }).nullish(),
});
export type KafkaClusterBody = z.infer<typeof KafkaClusterBody>;

/** Kafka REST v3 `KafkaTopic`. */
export const KafkaTopicBody = z.looseObject({
  topic_name: str,
  is_internal: z.boolean().nullish(),
  partitions_count: z.number().nullish(),
  replication_factor: z.number().nullish(),
});
export type KafkaTopicBody = z.infer<typeof KafkaTopicBody>;

/** Kafka REST v3 `KafkaTopicConfig` from `GET .../topics/-/configs` (every topic in one call). */
export const TopicConfigBody = z.looseObject({
  topic_name: str,
  name: str,
  value: z.string().nullish(),
  source: optStr,
  is_default: z.boolean().nullish(),
  is_sensitive: z.boolean().nullish(),
});
export type TopicConfigBody = z.infer<typeof TopicConfigBody>;

/**
 * Kafka REST v3 `KafkaMirrorData`: one mirror topic of a cluster link, as listed on the destination
 * cluster by `GET /kafka/v3/clusters/{cluster_id}/links/-/mirrors` (Confluent Cloud Kafka REST v3,
 * "Cluster Linking (v3)": list all mirror topics). `mirror_topic_name` is a topic of this cluster,
 * read-only, copied from `source_topic_name` on the link's other cluster. `mirror_lags` has one row
 * per partition: `lag` in messages (offsets) behind the source, `last_source_fetch_offset` the last
 * source offset fetched (-1 before the first fetch). `mirror_status` is ACTIVE, PAUSED, STOPPED,
 * FAILED, PENDING_STOPPED...; `state_time_ms` the time of the last status change (ms since epoch).
 */
export const MirrorTopicBody = z.looseObject({
  link_name: str,
  mirror_topic_name: str,
  source_topic_name: str,
  num_partitions: z.number().nullish(),
  mirror_lags: z
    .array(
      z.looseObject({
        partition: z.number().nullish(),
        lag: z.number().nullish(),
        last_source_fetch_offset: z.number().nullish(),
      }),
    )
    .nullish(),
  mirror_status: optStr,
  state_time_ms: z.number().nullish(),
});
export type MirrorTopicBody = z.infer<typeof MirrorTopicBody>;

/**
 * Kafka REST v3 `KafkaLinkData`: one cluster link of a cluster, from
 * `GET /kafka/v3/clusters/{cluster_id}/links` (Confluent Cloud Kafka REST v3, "Cluster Linking
 * (v3)": list all cluster links). The other cluster's id is `source_cluster_id` on a
 * destination-initiated link's destination, `remote_cluster_id` in the other link modes (source-
 * initiated, bidirectional) and `destination_cluster_id` when this cluster is the source. `link_id`
 * is the link's UUID, `cluster_link_id` its base64 form; `topic_names` the mirror topics;
 * `link_state` ACTIVE, UNAVAILABLE... (absent in some recorded bodies).
 */
export const ClusterLinkBody = z.looseObject({
  link_name: str,
  link_id: optStr,
  cluster_link_id: optStr,
  source_cluster_id: optStr,
  remote_cluster_id: optStr,
  destination_cluster_id: optStr,
  topic_names: z.array(z.string()).nullish(),
  link_state: optStr,
});
export type ClusterLinkBody = z.infer<typeof ClusterLinkBody>;

/** Kafka REST v3 `KafkaConsumerGroup`. */
export const ConsumerGroupBody = z.looseObject({
  consumer_group_id: str,
  state: optStr,
  type: optStr,
  is_simple: z.boolean().nullish(),
  partition_assignor: optStr,
});
export type ConsumerGroupBody = z.infer<typeof ConsumerGroupBody>;

/** Kafka REST v3 `KafkaConsumerLag`: one row per topic partition of a consumer group (Dedicated clusters only). */
export const ConsumerLagBody = z.looseObject({
  topic_name: str,
  partition_id: z.number().nullish(),
  lag: z.number().nullish(),
});
export type ConsumerLagBody = z.infer<typeof ConsumerLagBody>;

/** One Metrics API v2 FLAT data point: `value` plus the group-by labels (`metric.topic`, `resource.connector.id`...). */
export const MetricsPointBody = z.looseObject({ value: z.number() });
export type MetricsPointBody = z.infer<typeof MetricsPointBody> & Record<string, unknown>;

/** A Metrics API v2 query (`POST /v2/metrics/cloud/query`). */
export interface MetricsQuery {
  aggregations: { metric: string; agg?: string }[];
  filter: Record<string, unknown>;
  group_by: string[];
  granularity: string;
  /** ISO 8601 `start/end` intervals. */
  intervals: string[];
  /** Groups per page, at most 1,000. */
  limit?: number;
  format?: 'FLAT';
}

/**
 * `connect/v1` `GET .../connectors?expand=info,status,id`: a map keyed by connector name. Config
 * values are strings; secrets come back masked.
 */
export const ExpandedConnectorBody = z.looseObject({
  id: z.looseObject({ id: optStr }).nullish(),
  info: z.looseObject({
    name: str,
    type: optStr,
    config: stringRecord.nullish(),
  }),
  status: z
    .looseObject({
      connector: z.looseObject({ state: optStr, trace: optStr }).nullish(),
      tasks: z.array(z.looseObject({ state: optStr })).nullish(),
      type: optStr,
    })
    .nullish(),
});
export type ExpandedConnectorBody = z.infer<typeof ExpandedConnectorBody>;
export const ExpandedConnectorMap = z.record(z.string(), ExpandedConnectorBody);

/** `srcm/v3` Schema Registry cluster: `spec.http_endpoint` and `spec.catalog_http_endpoint`. */
export const SchemaRegistryClusterBody = z.looseObject({
  id: str,
  spec: z.looseObject({ http_endpoint: optStr, catalog_http_endpoint: optStr, package: optStr }).nullish(),
  status: z.looseObject({ http_endpoint: optStr }).nullish(),
});
export type SchemaRegistryClusterBody = z.infer<typeof SchemaRegistryClusterBody>;

/** Schema Registry `GET /schemas?latestOnly=true` item. `schemaType` is omitted for AVRO. */
export const SchemaBody = z.looseObject({
  subject: str,
  version: z.number(),
  id: z.number(),
  schema: z.string(),
  schemaType: optStr,
  references: z.array(z.looseObject({ name: optStr, subject: optStr, version: z.number().nullish() })).nullish(),
});
export type SchemaBody = z.infer<typeof SchemaBody>;

/** Stream Catalog `search/basic` entity header (`qualifiedName` is `lsrc-...:lkc-...:topic`). */
export const CatalogEntityBody = z.looseObject({
  typeName: str,
  attributes: z.looseObject({
    qualifiedName: str,
    name: optStr,
    owner: optStr,
    ownerEmail: optStr,
    description: optStr,
  }),
  classificationNames: z.array(z.string()).nullish(),
});
export type CatalogEntityBody = z.infer<typeof CatalogEntityBody>;
export const CatalogSearchBody = z.looseObject({ entities: z.array(CatalogEntityBody).nullish() });

/** Stream Catalog business metadata definition (`GET /catalog/v1/types/businessmetadatadefs`). */
export const BusinessMetadataDefBody = z.looseObject({ name: str });
export type BusinessMetadataDefBody = z.infer<typeof BusinessMetadataDefBody>;

/** Stream Catalog business metadata of one entity (`GET .../entity/type/kafka_topic/name/{qn}/businessmetadata`). */
export const BusinessMetadataBody = z.looseObject({
  typeName: str,
  attributes: z.record(z.string(), z.unknown()).nullish(),
});
export type BusinessMetadataBody = z.infer<typeof BusinessMetadataBody>;

/** `ksqldbcm/v2` cluster: `status.http_endpoint` (the server), `spec.kafka_cluster.id`, `status.topic_prefix`. */
export const KsqlClusterBody = z.looseObject({
  id: str,
  spec: z
    .looseObject({ display_name: optStr, kafka_cluster: z.looseObject({ id: str }).nullish(), http_endpoint: optStr })
    .nullish(),
  status: z.looseObject({ http_endpoint: optStr, topic_prefix: optStr, phase: optStr }).nullish(),
});
export type KsqlClusterBody = z.infer<typeof KsqlClusterBody>;

/** ksqlDB `QueryDescription` (one item of `SHOW QUERIES EXTENDED`): `sources`/`sinks` are stream or table names. */
export const KsqlQueryDescriptionBody = z.looseObject({
  id: str,
  statementText: optStr,
  sources: z.array(z.string()).nullish(),
  sinks: z.array(z.string()).nullish(),
  consumerGroupId: optStr,
  state: optStr,
  queryType: optStr,
});
export type KsqlQueryDescriptionBody = z.infer<typeof KsqlQueryDescriptionBody>;

/** ksqlDB stream or table as listed by `LIST STREAMS;` / `LIST TABLES;`. */
export const KsqlSourceBody = z.looseObject({ name: str, topic: str, type: optStr });
export type KsqlSourceBody = z.infer<typeof KsqlSourceBody>;

/** ksqlDB `/ksql` answer: one entity per statement, told apart by `@type`. */
export const KsqlEntitiesBody = z.array(
  z.looseObject({
    '@type': optStr,
    queryDescriptions: z.array(KsqlQueryDescriptionBody).nullish(),
    streams: z.array(KsqlSourceBody).nullish(),
    tables: z.array(KsqlSourceBody).nullish(),
  }),
);

/** What one ksqlDB cluster runs: its persistent queries and the streams/tables they name. */
export interface KsqlInventory {
  queries: KsqlQueryDescriptionBody[];
  sources: KsqlSourceBody[];
}

/** `fcpm/v2` compute pool: `spec.cloud` and `spec.region` pick the Flink SQL host. */
export const ComputePoolBody = z.looseObject({
  id: str,
  spec: z.looseObject({ display_name: optStr, cloud: str, region: str }),
});
export type ComputePoolBody = z.infer<typeof ComputePoolBody>;

/** `fcpm/v2/regions` item: `http_endpoint` is the regional Flink SQL base. */
export const FlinkRegionBody = z.looseObject({ id: optStr, cloud: optStr, region_name: optStr, http_endpoint: str });
export type FlinkRegionBody = z.infer<typeof FlinkRegionBody>;

/**
 * Flink SQL `sql/v1` Statement. `spec.properties["sql.current-database"]` is the Kafka cluster's
 * display name; `status.latest_offsets` maps each source topic to its offsets.
 */
export const StatementBody = z.looseObject({
  name: str,
  spec: z.looseObject({
    statement: optStr,
    compute_pool_id: optStr,
    principal: optStr,
    properties: stringRecord.nullish(),
    stopped: z.boolean().nullish(),
  }),
  status: z
    .looseObject({
      phase: optStr,
      detail: optStr,
      traits: z.looseObject({ sql_kind: optStr }).nullish(),
      latest_offsets: stringRecord.nullish(),
    })
    .nullish(),
});
export type StatementBody = z.infer<typeof StatementBody>;

/** `tableflow/v1` TableflowTopic: `spec.display_name` is the topic name. */
export const TableflowTopicBody = z.looseObject({
  spec: z.looseObject({
    display_name: str,
    kafka_cluster: z.looseObject({ id: str }).nullish(),
    table_formats: z.array(z.string()).nullish(),
    suspended: z.boolean().nullish(),
    storage: z.looseObject({ kind: optStr, table_path: optStr }).nullish(),
    config: z.looseObject({ error_handling: z.looseObject({ mode: optStr, target: optStr }).nullish() }).nullish(),
  }),
  status: z
    .looseObject({
      phase: optStr,
      write_mode: optStr,
      catalog_sync_statuses: z
        .array(z.looseObject({ catalog_integration_id: optStr, catalog_type: optStr, sync_status: optStr }))
        .nullish(),
    })
    .nullish(),
});
export type TableflowTopicBody = z.infer<typeof TableflowTopicBody>;

/** `tableflow/v1` CatalogIntegration: `spec.config.kind` is AwsGlue, Snowflake or Unity. */
export const CatalogIntegrationBody = z.looseObject({
  id: str,
  spec: z.looseObject({
    display_name: optStr,
    kafka_cluster: z.looseObject({ id: str }).nullish(),
    config: z
      .looseObject({ kind: str, catalog_name: optStr, workspace_endpoint: optStr, custom_database: optStr })
      .nullish(),
  }),
  status: z.looseObject({ phase: optStr, last_sync_at: optStr }).nullish(),
});
export type CatalogIntegrationBody = z.infer<typeof CatalogIntegrationBody>;
