/**
 * A small in-memory `PlatformPort` (`src/extraction/port.ts`) for driving one extraction phase at a
 * time: every list is empty unless a test overrides its method, every call is recorded under the
 * platform's API name (the names `requestCounts()` reports), and `fail(api, status)` builds the
 * `PlatformApiError` the HTTP adapter would reject with.
 */
import { pino, type Logger } from 'pino';
import type { ClusterInfo } from '../../src/extraction/environments.js';
import { PlatformApiError, type PlatformPort } from '../../src/extraction/port.js';

/** The API name of each port method (as in `src/extraction/port.ts`). */
const API_OF: Record<Exclude<keyof PlatformPort, 'requestCounts'>, string> = {
  getEnvironment: 'org.environment',
  listEnvironments: 'org.environments',
  listOrganizations: 'org.organizations',
  listKafkaClusters: 'cmk.clusters',
  listTopics: 'kafka-rest.topics',
  listAllTopicConfigs: 'kafka-rest.all-topic-configs',
  listConsumerGroups: 'kafka-rest.consumer-groups',
  listConsumerGroupLags: 'kafka-rest.lags',
  listMirrorTopics: 'kafka-rest.mirrors',
  listClusterLinks: 'kafka-rest.links',
  queryMetrics: 'metrics.query',
  listConnectors: 'connect.connectors',
  listSchemaRegistries: 'srcm.clusters',
  listLatestSchemas: 'schema-registry.schemas',
  searchCatalogTopics: 'catalog.search',
  listBusinessMetadataDefs: 'catalog.businessmetadatadefs',
  getTopicBusinessMetadata: 'catalog.entity-businessmetadata',
  listKsqlClusters: 'ksqldbcm.clusters',
  describeKsqlCluster: 'ksqldb.ksql',
  listComputePools: 'fcpm.compute-pools',
  listFlinkRegions: 'fcpm.regions',
  listStatements: 'flink.statements',
  listTableflowTopics: 'tableflow.topics',
  listCatalogIntegrations: 'tableflow.catalog-integrations',
};

/** One recorded call: the API name and the arguments. */
export interface RecordedCall {
  api: string;
  args: unknown[];
}

/** A fake platform and the calls made to it, in the order they were made. */
export interface FakePlatform extends PlatformPort {
  calls: RecordedCall[];
  /** The calls of one API. */
  callsOf(api: string): RecordedCall[];
}

type Overrides = { [K in Exclude<keyof PlatformPort, 'requestCounts'>]?: (...args: never[]) => unknown };

/** A fake `PlatformPort`: empty answers (an environment named `prod`, one organization) unless overridden. */
export function fakePlatform(overrides: Overrides = {}): FakePlatform {
  const calls: RecordedCall[] = [];
  const defaults: Overrides = {
    getEnvironment: (environmentId: string) => ({ id: environmentId, display_name: 'prod' }),
    listOrganizations: () => [{ id: 'org-1' }],
    describeKsqlCluster: () => ({ queries: [], sources: [] }),
  };
  const platform = {
    calls,
    callsOf: (api: string) => calls.filter((call) => call.api === api),
    requestCounts: () => {
      const counts: Record<string, number> = {};
      for (const call of calls) counts[call.api] = (counts[call.api] ?? 0) + 1;
      return counts;
    },
  } as FakePlatform;
  for (const [method, api] of Object.entries(API_OF)) {
    const answer =
      (overrides as Record<string, (...args: unknown[]) => unknown>)[method] ??
      (defaults as Record<string, (...args: unknown[]) => unknown>)[method] ??
      (() => []);
    (platform as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      calls.push({ api, args });
      return answer(...args);
    };
  }
  return platform;
}

/** The `PlatformApiError` of an API answering `status` (not retried). */
export function fail(api: string, status: number): PlatformApiError {
  return new PlatformApiError(api, 'status', status, `${api} answered ${status}`);
}

/** A cluster of environment `env-1` (Kafka REST at an example host). */
export function clusterOf(clusterId: string, kind = 'Dedicated', environmentId = 'env-1'): ClusterInfo {
  return {
    environmentId,
    environmentName: 'prod',
    clusterId,
    restEndpoint: `https://${clusterId}.example:443`,
    displayName: `${clusterId}-name`,
    bootstrapEndpoint: null,
    cloud: 'AWS',
    region: 'us-east-1',
    kind,
  };
}

/** A logger that keeps its lines (parsed JSON objects) for the test to read. */
export function capturingLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info', base: undefined, timestamp: false },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { logger, lines };
}
