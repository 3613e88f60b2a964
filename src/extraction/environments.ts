/**
 * Environment and cluster discovery (`org/v2`, `cmk/v2`; `docs/platform-apis.md` sections 1-2): turns the
 * cluster list of an environment into the `ClusterInfo` records the other extractors work from.
 * Environments and clusters are not graph nodes; they scope the ids of everything else.
 */
import type { KafkaClusterRef } from './port.js';
import type { KafkaClusterBody } from './platformTypes.js';

/** One Kafka cluster of an extracted environment. */
export interface ClusterInfo extends KafkaClusterRef {
  environmentName: string | null;
  displayName: string;
  /** Bootstrap `host:port` with the `SASL_SSL://` scheme stripped, or null. */
  bootstrapEndpoint: string | null;
  cloud: string | null;
  region: string | null;
  /** Basic, Standard, Enterprise, Dedicated or Freight; consumer lag endpoints answer on Dedicated only. */
  kind: string | null;
}

/**
 * The Kafka REST base of a cluster: `spec.http_endpoint`, or when empty the platform's public form
 * `https://{cluster_id}.{region}.{cloud}.confluent.cloud:443` (as the reference implementation does).
 */
export function restEndpointOf(cluster: KafkaClusterBody): string {
  const endpoint = cluster.spec?.http_endpoint;
  if (endpoint) return endpoint.replace(/\/+$/, '');
  const region = cluster.spec?.region ?? 'unknown';
  const cloud = (cluster.spec?.cloud ?? 'unknown').toLowerCase();
  return `https://${cluster.id}.${region}.${cloud}.confluent.cloud:443`;
}

/**
 * The clusters of one environment, filtered by `clusterFilter` (all when empty), sorted by id.
 * @param clusters `cmk/v2/clusters?environment=` items.
 */
export function clustersOfEnvironment(
  environmentId: string,
  environmentName: string | null,
  clusters: readonly KafkaClusterBody[],
  clusterFilter: readonly string[] = [],
): ClusterInfo[] {
  const wanted = new Set(clusterFilter);
  return clusters
    .filter((cluster) => wanted.size === 0 || wanted.has(cluster.id))
    .map((cluster) => ({
      environmentId,
      environmentName,
      clusterId: cluster.id,
      displayName: cluster.spec?.display_name ?? cluster.id,
      restEndpoint: restEndpointOf(cluster),
      bootstrapEndpoint: cluster.spec?.kafka_bootstrap_endpoint?.replace(/^[A-Za-z_]+:\/\//, '') || null,
      cloud: cluster.spec?.cloud ?? null,
      region: cluster.spec?.region ?? null,
      kind: cluster.spec?.config?.kind ?? null,
    }))
    .sort((a, b) => (a.clusterId < b.clusterId ? -1 : a.clusterId > b.clusterId ? 1 : 0));
}
