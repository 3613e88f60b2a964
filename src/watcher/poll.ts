/**
 * One poll of the estate for the watcher: the cheap list calls of the `PlatformPort` only, never the
 * per-resource or data-heavy ones (no topic configs, consumer groups, lags, metrics, catalog or
 * ksqlDB `SHOW QUERIES`). Per environment:
 *
 * - `cmk.clusters` (filtered by the cluster filter), then per cluster `kafka-rest.topics` and
 *   `connect.connectors`;
 * - `ksqldbcm.clusters` (ksqlDB clusters attached to the watched Kafka clusters, or to none);
 * - `fcpm.compute-pools`, `org.organizations`, `fcpm.regions` per pool region (or the configured
 *   Flink URL), then `flink.statements` per regional endpoint;
 * - `srcm.clusters` (or the configured Schema Registry URL), then `schema-registry.schemas`
 *   (latest version of every subject, one call).
 *
 * A failed call never fails the poll: the part it covers is listed in `failedScopes`
 * (`./changes.ts`), so that its resources are neither created nor deleted by this poll.
 */
import type { PlatformPort } from '../extraction/port.js';
import { clustersOfEnvironment } from '../extraction/environments.js';
import { scopeOf, type EstateInventory } from './changes.js';

/** What to poll. */
export interface PollOptions {
  environmentIds: readonly string[];
  /** Cluster filter; empty: every cluster. */
  clusterIds?: readonly string[];
  /** Schema Registry base URL override (`LINEAGE_SVC_SCHEMA_REGISTRY_URL`). */
  schemaRegistryUrl?: string | undefined;
  /** Flink SQL base URL override (`LINEAGE_SVC_STREAM_FLINK_API_URL`). */
  flinkApiUrl?: string | undefined;
}

/** Reads the inventory of the watched environments. Never throws for platform failures (see `failedScopes`). */
export async function pollEstate(platform: PlatformPort, options: PollOptions): Promise<EstateInventory> {
  const inventory: EstateInventory = {
    topics: [],
    connectors: [],
    sqlClusters: [],
    statements: [],
    schemas: [],
    failedScopes: [],
  };
  const fail = (scope: string) => inventory.failedScopes.push(scope);
  await Promise.all([...new Set(options.environmentIds)].map((environmentId) => pollEnvironment(environmentId)));
  inventory.failedScopes.sort();
  return inventory;

  async function pollEnvironment(env: string): Promise<void> {
    let clusters;
    try {
      clusters = clustersOfEnvironment(env, null, await platform.listKafkaClusters(env), options.clusterIds ?? []);
    } catch {
      fail(scopeOf.environment(env));
      return;
    }
    const wanted = new Set(clusters.map((cluster) => cluster.clusterId));
    await Promise.all([
      ...clusters.map(async (cluster) => {
        try {
          for (const topic of await platform.listTopics(cluster))
            inventory.topics.push({ environmentId: env, clusterId: cluster.clusterId, name: topic.topic_name });
        } catch {
          fail(scopeOf.topics(env, cluster.clusterId));
        }
      }),
      ...clusters.map(async (cluster) => {
        try {
          for (const connector of await platform.listConnectors(env, cluster.clusterId)) {
            inventory.connectors.push({
              environmentId: env,
              clusterId: cluster.clusterId,
              name: connector.info.name,
              config: { ...(connector.info.config ?? {}) },
            });
          }
        } catch {
          fail(scopeOf.connectors(env, cluster.clusterId));
        }
      }),
      (async () => {
        try {
          for (const cluster of await platform.listKsqlClusters(env)) {
            const kafka = cluster.spec?.kafka_cluster?.id;
            if (!kafka || wanted.has(kafka)) inventory.sqlClusters.push({ environmentId: env, id: cluster.id });
          }
        } catch {
          fail(scopeOf.sqlClusters(env));
        }
      })(),
      pollStatements(env).catch(() => fail(scopeOf.statements(env))),
      pollSchemas(env).catch(() => fail(scopeOf.schemas(env))),
    ]);
  }

  async function pollStatements(env: string): Promise<void> {
    const pools = await platform.listComputePools(env);
    if (pools.length === 0 && !options.flinkApiUrl) return;
    const [organization] = await platform.listOrganizations();
    if (!organization) throw new Error('no organization found for the Flink SQL path');
    let endpoints: string[];
    if (options.flinkApiUrl) {
      endpoints = [options.flinkApiUrl];
    } else {
      const regions = new Map<string, { cloud: string; region: string }>();
      for (const pool of pools)
        regions.set(`${pool.spec.cloud.toLowerCase()}/${pool.spec.region}`, {
          cloud: pool.spec.cloud,
          region: pool.spec.region,
        });
      const found = await Promise.all(
        [...regions.values()].map((region) => platform.listFlinkRegions(region.cloud, region.region)),
      );
      endpoints = [...new Set(found.flat().map((entry) => entry.http_endpoint))];
    }
    const seen = new Set<string>();
    for (const statements of await Promise.all(
      endpoints.map((endpoint) => platform.listStatements(endpoint, organization.id, env)),
    )) {
      for (const statement of statements) {
        if (seen.has(statement.name)) continue;
        seen.add(statement.name);
        inventory.statements.push({
          environmentId: env,
          name: statement.name,
          sql: statement.spec.statement ?? null,
          properties: { ...(statement.spec.properties ?? {}) },
          stopped: statement.spec.stopped ?? null,
          phase: statement.status?.phase ?? null,
        });
      }
    }
  }

  async function pollSchemas(env: string): Promise<void> {
    const registries = options.schemaRegistryUrl
      ? [{ id: 'configured', url: options.schemaRegistryUrl }]
      : (await platform.listSchemaRegistries(env)).flatMap((registry) => {
          const url = registry.spec?.http_endpoint || registry.status?.http_endpoint;
          return url ? [{ id: registry.id, url }] : [];
        });
    for (const schemas of await Promise.all(
      registries.map(async (registry) => ({ registry, list: await platform.listLatestSchemas(registry.url) })),
    )) {
      for (const schema of schemas.list) {
        inventory.schemas.push({
          environmentId: env,
          registryId: schemas.registry.id,
          subject: schema.subject,
          version: schema.version,
          id: schema.id,
        });
      }
    }
  }
}
