/**
 * The port between extraction logic and the platform: what `extract()` needs from Confluent Cloud,
 * as typed calls returning parsed response bodies (`platformTypes.ts`). The HTTP adapter is
 * `infra/confluent/platformApi.ts`; tests may pass any object of this shape.
 *
 * Every call either resolves with the parsed body (paginated lists fully followed) or rejects with
 * a `PlatformApiError` naming the API (the simulator's API names, e.g. `kafka-rest.topics`).
 */
import type {
  BusinessMetadataBody,
  BusinessMetadataDefBody,
  CatalogEntityBody,
  CatalogIntegrationBody,
  ClusterLinkBody,
  ComputePoolBody,
  ConsumerGroupBody,
  ConsumerLagBody,
  EnvironmentBody,
  ExpandedConnectorBody,
  FlinkRegionBody,
  KafkaClusterBody,
  KafkaTopicBody,
  KsqlClusterBody,
  KsqlInventory,
  MetricsPointBody,
  MetricsQuery,
  MirrorTopicBody,
  SchemaBody,
  SchemaRegistryClusterBody,
  StatementBody,
  TableflowTopicBody,
  TopicConfigBody,
} from './platformTypes.js';

/** Why a platform call failed. */
export type PlatformFailure =
  /** The platform answered a status that is not retried (400, 401, 403, 404, ...). */
  | 'status'
  /** A retried status (429, 500, 502, 503, 504) or a network error persisted through all attempts. */
  | 'retries_exhausted'
  /** No answer within the per-request client timeout (30 s by default). */
  | 'timeout'
  /** The body did not parse as JSON or did not match the expected shape. */
  | 'invalid_response';

/** A failed platform call. The message never contains credentials. */
export class PlatformApiError extends Error {
  override readonly name = 'PlatformApiError';
  constructor(
    /** API name, e.g. `kafka-rest.topics`. */
    readonly api: string,
    readonly failure: PlatformFailure,
    /** Last HTTP status seen, if any. */
    readonly status: number | undefined,
    message: string,
    /** What to change, naming the service, the URL and the variable (401, 403, timeouts); absent when unknown. */
    readonly advice?: string,
  ) {
    super(message);
  }
}

/** A Kafka cluster as the data-plane calls need it. */
export interface KafkaClusterRef {
  environmentId: string;
  clusterId: string;
  /** Kafka REST base URL (`spec.http_endpoint`), joined to paths by concatenation. */
  restEndpoint: string;
}

/**
 * What extraction reads from the platform. One method per endpoint; list methods follow every page.
 * Base URLs of discovered hosts (Kafka REST, Schema Registry, ksqlDB, Flink) are passed in as found.
 */
export interface PlatformPort {
  /** `GET /org/v2/environments/{id}` (org.environment). */
  getEnvironment(environmentId: string): Promise<EnvironmentBody>;
  /** `GET /org/v2/environments` (org.environments), paginated: every environment the cloud key can see. */
  listEnvironments(): Promise<EnvironmentBody[]>;
  /** `GET /org/v2/organizations` (org.organizations): the organization UUID for Flink SQL paths. */
  listOrganizations(): Promise<{ id: string }[]>;
  /** `GET /cmk/v2/clusters?environment=` (cmk.clusters), paginated. */
  listKafkaClusters(environmentId: string): Promise<KafkaClusterBody[]>;
  /** `GET {rest}/kafka/v3/clusters/{id}/topics` (kafka-rest.topics). Needs the cluster key. */
  listTopics(cluster: KafkaClusterRef): Promise<KafkaTopicBody[]>;
  /**
   * `GET {rest}/kafka/v3/clusters/{id}/topics/-/configs` (kafka-rest.all-topic-configs): every topic's configs in one
   * call. An adapter may leave out the rows that `keepsTopicConfig` (`topics.ts`) does not keep.
   */
  listAllTopicConfigs(cluster: KafkaClusterRef): Promise<TopicConfigBody[]>;
  /** `GET {rest}/kafka/v3/clusters/{id}/consumer-groups` (kafka-rest.consumer-groups). */
  listConsumerGroups(cluster: KafkaClusterRef): Promise<ConsumerGroupBody[]>;
  /** `GET {rest}/.../consumer-groups/{group}/lags` (kafka-rest.lags); Dedicated clusters only. */
  listConsumerGroupLags(cluster: KafkaClusterRef, groupId: string): Promise<ConsumerLagBody[]>;
  /**
   * `GET {rest}/kafka/v3/clusters/{id}/links/-/mirrors` (kafka-rest.mirrors): every mirror topic of
   * every cluster link whose destination is this cluster, in one call (Confluent Cloud Kafka REST v3,
   * "Cluster Linking"). Rejects with status 404 (or 403) on clusters without Cluster Linking.
   */
  listMirrorTopics(cluster: KafkaClusterRef): Promise<MirrorTopicBody[]>;
  /**
   * `GET {rest}/kafka/v3/clusters/{id}/links` (kafka-rest.links): the cluster links of this cluster
   * with the other cluster's id (Confluent Cloud Kafka REST v3, "Cluster Linking").
   */
  listClusterLinks(cluster: KafkaClusterRef): Promise<ClusterLinkBody[]>;
  /** `POST /v2/metrics/cloud/query` (metrics.query), every page (FLAT format). */
  queryMetrics(query: MetricsQuery): Promise<MetricsPointBody[]>;
  /** `GET /connect/v1/environments/{env}/clusters/{id}/connectors?expand=info,status,id` (connect.connectors). */
  listConnectors(environmentId: string, clusterId: string): Promise<ExpandedConnectorBody[]>;
  /** `GET /srcm/v3/clusters?environment=` (srcm.clusters). */
  listSchemaRegistries(environmentId: string): Promise<SchemaRegistryClusterBody[]>;
  /** `GET {sr}/schemas?latestOnly=true` (schema-registry.schemas): the latest version of every subject in one call. */
  listLatestSchemas(schemaRegistryUrl: string): Promise<SchemaBody[]>;
  /** `GET {catalog}/catalog/v1/search/basic?type=kafka_topic` (catalog.search), offset-paginated by 500. */
  searchCatalogTopics(catalogUrl: string): Promise<CatalogEntityBody[]>;
  /** `GET {catalog}/catalog/v1/types/businessmetadatadefs` (catalog.businessmetadatadefs). */
  listBusinessMetadataDefs(catalogUrl: string): Promise<BusinessMetadataDefBody[]>;
  /** `GET {catalog}/catalog/v1/entity/type/kafka_topic/name/{qn}/businessmetadata` (catalog.entity-businessmetadata). */
  getTopicBusinessMetadata(catalogUrl: string, qualifiedName: string): Promise<BusinessMetadataBody[]>;
  /** `GET /ksqldbcm/v2/clusters?environment=` (ksqldbcm.clusters). */
  listKsqlClusters(environmentId: string): Promise<KsqlClusterBody[]>;
  /** `POST {ksql}/ksql` with `SHOW QUERIES EXTENDED; LIST STREAMS; LIST TABLES;` (ksqldb.ksql), one request. */
  describeKsqlCluster(ksqlUrl: string): Promise<KsqlInventory>;
  /** `GET /fcpm/v2/compute-pools?environment=` (fcpm.compute-pools). */
  listComputePools(environmentId: string): Promise<ComputePoolBody[]>;
  /** `GET /fcpm/v2/regions?cloud=&region_name=` (fcpm.regions). */
  listFlinkRegions(cloud: string, region: string): Promise<FlinkRegionBody[]>;
  /** `GET {flink}/sql/v1/organizations/{org}/environments/{env}/statements` (flink.statements), paginated. */
  listStatements(flinkUrl: string, organizationId: string, environmentId: string): Promise<StatementBody[]>;
  /** `GET /tableflow/v1/tableflow-topics?environment=&spec.kafka_cluster=` (tableflow.topics). */
  listTableflowTopics(environmentId: string, clusterId: string): Promise<TableflowTopicBody[]>;
  /** `GET /tableflow/v1/catalog-integrations?environment=&spec.kafka_cluster=` (tableflow.catalog-integrations). */
  listCatalogIntegrations(environmentId: string, clusterId: string): Promise<CatalogIntegrationBody[]>;
  /** Requests made so far per API name (every attempt counts). */
  requestCounts(): Record<string, number>;
}
