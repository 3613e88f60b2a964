/**
 * The Confluent Cloud adapter of `PlatformPort` (`src/extraction/port.ts`): one typed call per
 * endpoint, each returning a zod-parsed (lenient) body. Credentials per service follow
 * `docs/contract.md` section 3: the cloud key for the control plane (org, cmk, connect, fcpm, ksqldbcm, srcm) and the
 * Metrics API, the cluster key for Kafka REST, the Schema Registry key for Schema Registry and Stream
 * Catalog, the Flink key for Flink SQL, the ksqlDB key for ksqlDB servers and the Tableflow key for
 * Tableflow. Endpoints, keys and fields: `docs/platform-apis.md` (one numbered section per API).
 */
import { z } from 'zod';
import type { Config } from '../../src/config.js';
import type { KafkaClusterRef, PlatformPort } from '../../src/extraction/port.js';
import { PlatformApiError } from '../../src/extraction/port.js';
import {
  BusinessMetadataBody,
  BusinessMetadataDefBody,
  CatalogIntegrationBody,
  CatalogSearchBody,
  ClusterLinkBody,
  ComputePoolBody,
  ConsumerGroupBody,
  ConsumerLagBody,
  EnvironmentBody,
  ExpandedConnectorMap,
  FlinkRegionBody,
  KafkaClusterBody,
  KafkaTopicBody,
  KsqlClusterBody,
  KsqlEntitiesBody,
  MetricsPointBody,
  MirrorTopicBody,
  OrganizationBody,
  SchemaBody,
  SchemaRegistryClusterBody,
  StatementBody,
  TableflowTopicBody,
  TopicConfigBody,
  type CatalogEntityBody,
  type MetricsPointBody as MetricsPoint,
} from '../../src/extraction/platformTypes.js';
import { keyAndSecret, type ServiceSettings } from './failureAdvice.js';
import { keepsTopicConfig } from '../../src/extraction/topics.js';
import {
  createHttpClient,
  type HttpClient,
  type HttpClientOptions,
  type JsonListReading,
  type Target,
} from './httpClient.js';

/** Stream Catalog search page size: the documented maximum (topic listing is capped at 500). */
export const CATALOG_PAGE_SIZE = 500;
/** Metrics API groups per page: the documented maximum. */
export const METRICS_PAGE_LIMIT = 1000;

const KafkaList = <T>(item: z.ZodType<T>) => z.looseObject({ data: z.array(item).nullish() });
const MetricsPage = z.looseObject({
  data: z.array(MetricsPointBody).nullish(),
  meta: z.looseObject({ pagination: z.looseObject({ next_page_token: z.string().nullish() }).nullish() }).nullish(),
});

const enc = encodeURIComponent;

/** The Confluent Cloud adapter plus access to its HTTP client (for request counts in tests). */
export interface ConfluentPlatformApi extends PlatformPort {
  readonly http: HttpClient;
}

const CLOUD_KEY = 'the cloud key (LINEAGE_SVC_STREAM_CLOUD_API_KEY)';

/**
 * Who answers each kind of target and which variables set it (`docs/configuration.md`), so that
 * failures say what to change (`./failureAdvice.ts`). `overridden` is true when the configuration
 * set the base URL (Schema Registry, Flink) rather than discovery.
 */
export const PLATFORM_SERVICES = {
  cloud: {
    name: 'Confluent Cloud API',
    urlVariable: 'LINEAGE_SVC_STREAM_CLOUD_API_URL',
    credentialVariables: keyAndSecret('LINEAGE_SVC_STREAM_CLOUD_API'),
    roles: 'for example OrganizationAdmin, EnvironmentAdmin or Operator on the environment',
  },
  metrics: {
    name: 'Confluent Cloud Metrics API',
    urlVariable: 'LINEAGE_SVC_STREAM_TELEMETRY_API_URL',
    credentialVariables: keyAndSecret('LINEAGE_SVC_STREAM_CLOUD_API'),
    roles: 'MetricsViewer on the organization or environment',
  },
  tableflow: {
    name: 'Confluent Cloud API (Tableflow)',
    urlVariable: 'LINEAGE_SVC_STREAM_CLOUD_API_URL',
    credentialVariables: keyAndSecret('LINEAGE_SVC_TABLEFLOW_API'),
    credentialFallback: CLOUD_KEY,
    roles: 'for example EnvironmentAdmin on the environment',
  },
  kafkaRest: {
    name: 'Kafka REST',
    urlSource: "the cluster's spec.http_endpoint in cmk.clusters",
    credentialVariables: keyAndSecret('LINEAGE_SVC_CLUSTER_API'),
    credentialFallback: CLOUD_KEY,
    roles: 'for example CloudClusterAdmin on the cluster, or DeveloperRead on its topics and consumer groups',
  },
  ksqldb: {
    name: 'ksqlDB',
    urlSource: "the ksqlDB cluster's http_endpoint in ksqldbcm.clusters",
    credentialVariables: keyAndSecret('LINEAGE_SVC_KSQLDB_API'),
    credentialFallback: CLOUD_KEY,
    roles: 'for example KsqlAdmin on the ksqlDB cluster',
  },
} as const satisfies Record<string, ServiceSettings>;

/** Schema Registry and Stream Catalog at `base`: set by `LINEAGE_SVC_SCHEMA_REGISTRY_URL` or discovered. */
export function schemaRegistryService(overridden: boolean): ServiceSettings {
  return {
    name: 'Schema Registry',
    urlVariable: overridden ? 'LINEAGE_SVC_SCHEMA_REGISTRY_URL' : undefined,
    urlSource: overridden
      ? undefined
      : "the environment's Schema Registry in srcm.clusters; LINEAGE_SVC_SCHEMA_REGISTRY_URL overrides it",
    credentialVariables: keyAndSecret('LINEAGE_SVC_SCHEMA_REGISTRY_API'),
    credentialFallback: CLOUD_KEY,
    roles: 'for example DataSteward, or DeveloperRead on the subjects',
  };
}

/** Flink SQL at `base`: set by `LINEAGE_SVC_STREAM_FLINK_API_URL` or discovered. */
export function flinkService(overridden: boolean): ServiceSettings {
  return {
    name: 'Flink SQL',
    urlVariable: overridden ? 'LINEAGE_SVC_STREAM_FLINK_API_URL' : undefined,
    urlSource: overridden
      ? undefined
      : "the region's endpoint in fcpm.regions; LINEAGE_SVC_STREAM_FLINK_API_URL overrides it",
    credentialVariables: keyAndSecret('LINEAGE_SVC_FLINK_API'),
    credentialFallback: CLOUD_KEY,
    roles: 'for example FlinkDeveloper or FlinkAdmin in the environment',
  };
}

/**
 * How `topics/-/configs` answers are read: row by row, keeping only the rows a topic node keeps
 * (`keepsTopicConfig`: set, not default, not sensitive). Most rows are defaults: on the 2,000-topic
 * estate of issue 16 the answers are 32 MB of JSON, and parsed whole (then validated, a copy) they
 * made most of the extraction's peak memory (docs/benchmarks.md, "Extraction memory").
 */
const KEPT_TOPIC_CONFIG_ROWS: JsonListReading = {
  key: 'data',
  keep: (row) =>
    typeof row !== 'object' || row === null || keepsTopicConfig(row as Parameters<typeof keepsTopicConfig>[0]),
};

/**
 * Builds the adapter from the configuration (`config.stream`: base URLs and per-service
 * credentials, already resolved with their fallbacks by `loadConfig`).
 */
export function createPlatformApi(stream: Config['stream'], options: HttpClientOptions = {}): ConfluentPlatformApi {
  const http = createHttpClient(options);
  const creds = stream.credentials;
  const cloud: Target = { base: stream.cloudApiUrl, credentials: creds.cloud, service: PLATFORM_SERVICES.cloud };
  const telemetry: Target = {
    base: stream.telemetryApiUrl,
    credentials: creds.cloud,
    service: PLATFORM_SERVICES.metrics,
  };
  const tableflow: Target = {
    base: stream.cloudApiUrl,
    credentials: creds.tableflow ?? creds.cloud,
    service: PLATFORM_SERVICES.tableflow,
  };
  // Kafka REST needs a cluster-scoped key; without one the cloud key is tried and the platform's 401
  // turns into the warning of `docs/specification.md`, "Errors".
  const kafka = (cluster: KafkaClusterRef): Target => ({
    base: cluster.restEndpoint,
    credentials: creds.cluster ?? creds.cloud,
    service: PLATFORM_SERVICES.kafkaRest,
  });
  const sr = (base: string): Target => ({
    base,
    credentials: creds.schemaRegistry ?? creds.cloud,
    service: schemaRegistryService(base === stream.schemaRegistryUrl),
  });
  const kafkaPath = (cluster: KafkaClusterRef, rest: string) => `/kafka/v3/clusters/${enc(cluster.clusterId)}${rest}`;

  return {
    http,
    getEnvironment: (environmentId) =>
      http.getJson(
        { api: 'org.environment', target: cloud, path: `/org/v2/environments/${enc(environmentId)}` },
        EnvironmentBody,
      ),
    listEnvironments: () =>
      http.getPages({ api: 'org.environments', target: cloud, path: '/org/v2/environments' }, EnvironmentBody),
    listOrganizations: () =>
      http.getPages({ api: 'org.organizations', target: cloud, path: '/org/v2/organizations' }, OrganizationBody),
    listKafkaClusters: (environmentId) =>
      http.getPages(
        { api: 'cmk.clusters', target: cloud, path: `/cmk/v2/clusters?environment=${enc(environmentId)}` },
        KafkaClusterBody,
      ),
    async listTopics(cluster) {
      const body = await http.getJson(
        { api: 'kafka-rest.topics', target: kafka(cluster), path: kafkaPath(cluster, '/topics') },
        KafkaList(KafkaTopicBody),
      );
      return body.data ?? [];
    },
    async listAllTopicConfigs(cluster) {
      const body = await http.getJson(
        { api: 'kafka-rest.all-topic-configs', target: kafka(cluster), path: kafkaPath(cluster, '/topics/-/configs') },
        KafkaList(TopicConfigBody),
        { list: KEPT_TOPIC_CONFIG_ROWS },
      );
      return body.data ?? [];
    },
    async listConsumerGroups(cluster) {
      const body = await http.getJson(
        { api: 'kafka-rest.consumer-groups', target: kafka(cluster), path: kafkaPath(cluster, '/consumer-groups') },
        KafkaList(ConsumerGroupBody),
      );
      return body.data ?? [];
    },
    async listConsumerGroupLags(cluster, groupId) {
      const body = await http.getJson(
        {
          api: 'kafka-rest.lags',
          target: kafka(cluster),
          path: kafkaPath(cluster, `/consumer-groups/${enc(groupId)}/lags`),
        },
        KafkaList(ConsumerLagBody),
      );
      return body.data ?? [];
    },
    async listMirrorTopics(cluster) {
      const body = await http.getJson(
        { api: 'kafka-rest.mirrors', target: kafka(cluster), path: kafkaPath(cluster, '/links/-/mirrors') },
        KafkaList(MirrorTopicBody),
      );
      return body.data ?? [];
    },
    async listClusterLinks(cluster) {
      const body = await http.getJson(
        { api: 'kafka-rest.links', target: kafka(cluster), path: kafkaPath(cluster, '/links') },
        KafkaList(ClusterLinkBody),
      );
      return body.data ?? [];
    },
    async queryMetrics(query) {
      const points: MetricsPoint[] = [];
      let token: string | undefined;
      const seen = new Set<string>();
      for (;;) {
        const path = `/v2/metrics/cloud/query${token === undefined ? '' : `?page_token=${enc(token)}`}`;
        const page = await http.getJson(
          {
            api: 'metrics.query',
            target: telemetry,
            path,
            method: 'POST',
            body: { format: 'FLAT', limit: METRICS_PAGE_LIMIT, ...query },
          },
          MetricsPage,
        );
        points.push(...((page.data ?? []) as MetricsPoint[]));
        const next = page.meta?.pagination?.next_page_token;
        if (!next || seen.has(next)) return points;
        seen.add(next);
        token = next;
      }
    },
    async listConnectors(environmentId, clusterId) {
      const body = await http.getJson(
        {
          api: 'connect.connectors',
          target: cloud,
          path: `/connect/v1/environments/${enc(environmentId)}/clusters/${enc(clusterId)}/connectors?expand=info,status,id`,
        },
        z.union([ExpandedConnectorMap, z.array(z.unknown()).length(0)]),
      );
      return Array.isArray(body) ? [] : Object.values(body);
    },
    listSchemaRegistries: (environmentId) =>
      http.getPages(
        { api: 'srcm.clusters', target: cloud, path: `/srcm/v3/clusters?environment=${enc(environmentId)}` },
        SchemaRegistryClusterBody,
      ),
    listLatestSchemas: (base) =>
      http.getJson(
        {
          api: 'schema-registry.schemas',
          target: sr(base),
          path: '/schemas?latestOnly=true',
          accept: 'application/vnd.schemaregistry.v1+json, application/json',
        },
        z.array(SchemaBody),
      ),
    async searchCatalogTopics(base) {
      const entities: CatalogEntityBody[] = [];
      for (let offset = 0; ; offset += CATALOG_PAGE_SIZE) {
        const page = await http.getJson(
          {
            api: 'catalog.search',
            target: sr(base),
            path: `/catalog/v1/search/basic?type=kafka_topic&limit=${CATALOG_PAGE_SIZE}&offset=${offset}`,
          },
          CatalogSearchBody,
        );
        const found = page.entities ?? [];
        entities.push(...found);
        if (found.length < CATALOG_PAGE_SIZE) return entities;
      }
    },
    listBusinessMetadataDefs: (base) =>
      http.getJson(
        { api: 'catalog.businessmetadatadefs', target: sr(base), path: '/catalog/v1/types/businessmetadatadefs' },
        z.array(BusinessMetadataDefBody),
      ),
    getTopicBusinessMetadata: (base, qualifiedName) =>
      http.getJson(
        {
          api: 'catalog.entity-businessmetadata',
          target: sr(base),
          path: `/catalog/v1/entity/type/kafka_topic/name/${enc(qualifiedName)}/businessmetadata`,
        },
        z.array(BusinessMetadataBody),
      ),
    listKsqlClusters: (environmentId) =>
      http.getPages(
        { api: 'ksqldbcm.clusters', target: cloud, path: `/ksqldbcm/v2/clusters?environment=${enc(environmentId)}` },
        KsqlClusterBody,
      ),
    async describeKsqlCluster(base) {
      const entities = await http.getJson(
        {
          api: 'ksqldb.ksql',
          target: { base, credentials: creds.ksqldb ?? creds.cloud, service: PLATFORM_SERVICES.ksqldb },
          path: '/ksql',
          method: 'POST',
          accept: 'application/vnd.ksql.v1+json',
          body: { ksql: 'SHOW QUERIES EXTENDED; LIST STREAMS; LIST TABLES;', streamsProperties: {} },
        },
        KsqlEntitiesBody,
      );
      return {
        queries: entities.flatMap((entity) => entity.queryDescriptions ?? []),
        sources: entities.flatMap((entity) => [...(entity.streams ?? []), ...(entity.tables ?? [])]),
      };
    },
    listComputePools: (environmentId) =>
      http.getPages(
        { api: 'fcpm.compute-pools', target: cloud, path: `/fcpm/v2/compute-pools?environment=${enc(environmentId)}` },
        ComputePoolBody,
      ),
    listFlinkRegions: (cloudName, region) =>
      http.getPages(
        {
          api: 'fcpm.regions',
          target: cloud,
          path: `/fcpm/v2/regions?cloud=${enc(cloudName)}&region_name=${enc(region)}`,
        },
        FlinkRegionBody,
      ),
    listStatements: (base, organizationId, environmentId) =>
      http.getPages(
        {
          api: 'flink.statements',
          target: {
            base,
            credentials: creds.flink ?? creds.cloud,
            service: flinkService(base === stream.flinkApiUrl),
          },
          path: `/sql/v1/organizations/${enc(organizationId)}/environments/${enc(environmentId)}/statements`,
        },
        StatementBody,
      ),
    listTableflowTopics: (environmentId, clusterId) =>
      http.getPages(
        {
          api: 'tableflow.topics',
          target: tableflow,
          path: `/tableflow/v1/tableflow-topics?environment=${enc(environmentId)}&spec.kafka_cluster=${enc(clusterId)}`,
        },
        TableflowTopicBody,
      ),
    listCatalogIntegrations: (environmentId, clusterId) =>
      http.getPages(
        {
          api: 'tableflow.catalog-integrations',
          target: tableflow,
          path: `/tableflow/v1/catalog-integrations?environment=${enc(environmentId)}&spec.kafka_cluster=${enc(clusterId)}`,
        },
        CatalogIntegrationBody,
      ),
    requestCounts: () => http.counts(),
  };
}

export { PlatformApiError };
