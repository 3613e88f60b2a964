/**
 * Phase 2 (`Phase 2/4`): connectors, ksqlDB queries and Flink statements of an environment, in
 * parallel, then MEMBER_OF edges from its consumer groups to the jobs that own them
 * (`docs/extraction.md`, "Phases", item 2). Requests: `connect.connectors` per cluster
 * (`expand=info,status,id`); `ksqldbcm.clusters`, then one `ksqldb.ksql` per ksqlDB cluster;
 * `fcpm.compute-pools`, and when the environment has pools (or a Flink URL is configured)
 * `org.organizations`, `fcpm.regions` per region of its pools and `flink.statements` per Flink endpoint.
 */
import { connectorId } from '../../graph/ids.js';
import { connectorFragment } from '../connectors.js';
import { ownershipEdges } from '../consumerGroups.js';
import type { ClusterInfo } from '../environments.js';
import type { ComputePoolBody } from '../platformTypes.js';
import type { DiscoveredEnvironment, ExtractionRun, StreamProcessingInventory, TopicInventory } from '../runContext.js';
import { flinkFragment, isLineagePhase, ksqlFragment, type ClusterDirectory } from '../streamProcessing.js';

/**
 * Runs phase 2 on one environment: `Connect:{cluster}`, `ksqlDB:{env}` and `Flink:{env}` as guarded
 * extractors in parallel, adding CONNECTOR, SQL_QUERY, STREAM_JOB and external dataset nodes and
 * their edges to `run.builder`; then the MEMBER_OF edges of the environment's consumer groups
 * (already in the builder from phase 1).
 * @param environment with the topics phase 1 listed (sink connectors match `topics.regex` against them,
 *   Flink statements are placed on the cluster that lists their topics).
 * @returns the owners of consumer groups found and the compute pools. Never rejects for a platform failure.
 */
export async function extractStreamProcessing(
  run: ExtractionRun,
  environment: DiscoveredEnvironment & TopicInventory,
): Promise<StreamProcessingInventory> {
  const env = environment.environmentId;
  run.progress(2, 'Phase 2/4', `connectors, ksqlDB queries and Flink statements in ${env}`);
  const found: StreamProcessingInventory = {
    connectorsByLccId: new Map(),
    sqlQueriesByGroupId: new Map(),
    statementsByName: new Map(),
    computePools: [],
  };
  await Promise.all([
    ...environment.clusters.map((cluster) =>
      run.guarded(
        `Connect:${cluster.clusterId}`,
        env,
        () => readConnectors(run, cluster, environment, found),
        undefined,
        [{ kind: 'connectors', environment_id: env, cluster_id: cluster.clusterId }],
      ),
    ),
    run.guarded(`ksqlDB:${env}`, env, () => readKsql(run, environment, found), undefined, [
      { kind: 'ksqldb', environment_id: env },
    ]),
    run.guarded(`Flink:${env}`, env, () => readFlink(run, environment, found), undefined, [
      { kind: 'flink', environment_id: env },
    ]),
  ]);
  const groups = [...run.builder.allNodes()].filter(
    (node) => node.node_type === 'CONSUMER_GROUP' && node.environment_id === env,
  );
  run.builder.add(ownershipEdges(groups, found));
  return found;
}

/** The connectors of one cluster: their fragment, and their `lcc-...` ids into `found.connectorsByLccId`. */
async function readConnectors(
  run: ExtractionRun,
  cluster: ClusterInfo,
  environment: TopicInventory,
  found: StreamProcessingInventory,
): Promise<void> {
  const env = cluster.environmentId;
  const connectors = await run.platform.listConnectors(env, cluster.clusterId);
  const fragment = connectorFragment(
    cluster,
    connectors,
    [...(environment.topicsByCluster.get(cluster.clusterId) ?? [])],
    { warehouseProjectId: run.settings.warehouseProjectId },
  );
  run.builder.add(fragment);
  for (const connector of connectors) {
    if (connector.id?.id)
      found.connectorsByLccId.set(connector.id.id, connectorId(env, cluster.clusterId, connector.info.name));
  }
}

/**
 * The ksqlDB clusters of the environment attached to one of its extracted Kafka clusters (or to
 * none), each one guarded extractor `ksqlDB:{lksqlc}`; their queries' consumer groups go into
 * `found.sqlQueriesByGroupId`. A cluster without an endpoint is skipped with a warning.
 * @throws PlatformApiError when the ksqlDB clusters cannot be listed.
 */
async function readKsql(
  run: ExtractionRun,
  environment: DiscoveredEnvironment,
  found: StreamProcessingInventory,
): Promise<void> {
  const env = environment.environmentId;
  const wanted = new Set(environment.clusters.map((cluster) => cluster.clusterId));
  const clusters = (await run.platform.listKsqlClusters(env)).filter(
    (cluster) => !cluster.spec?.kafka_cluster?.id || wanted.has(cluster.spec.kafka_cluster.id),
  );
  await Promise.all(
    clusters.map((cluster) =>
      run.guarded(
        `ksqlDB:${cluster.id}`,
        env,
        async () => {
          const url = cluster.status?.http_endpoint || cluster.spec?.http_endpoint;
          if (!url) {
            const reason = `ksqlDB:${cluster.id}: no server endpoint reported (cluster phase ${cluster.status?.phase ?? 'unknown'}); skipped`;
            run.warn(reason);
            run.incomplete({ kind: 'ksqldb', environment_id: env, resource_id: cluster.id, reason });
            return;
          }
          const inventory = await run.platform.describeKsqlCluster(url);
          run.builder.add(ksqlFragment(env, cluster, inventory, run.warn));
          for (const query of inventory.queries) {
            if (query.consumerGroupId)
              found.sqlQueriesByGroupId.set(query.consumerGroupId, `stream:sql_query:${env}:${cluster.id}/${query.id}`);
          }
        },
        undefined,
        [{ kind: 'ksqldb', environment_id: env, resource_id: cluster.id }],
      ),
    ),
  );
}

/**
 * The Flink statements of the environment: compute pools (into `found.computePools`, even when the
 * rest fails), then with pools or a configured Flink URL the organization, the Flink endpoints of
 * the pools' regions (`Flink:{cloud}-{region}`, each guarded) and each endpoint's statements
 * (`Flink:{env}`, guarded; a statement listed by two endpoints counts once). Statements in a lineage
 * phase become STREAM_JOB nodes; their names go into `found.statementsByName`.
 * @throws PlatformApiError when the compute pools or organizations cannot be listed; Error when there is no organization.
 */
async function readFlink(
  run: ExtractionRun,
  environment: DiscoveredEnvironment & TopicInventory,
  found: StreamProcessingInventory,
): Promise<void> {
  const env = environment.environmentId;
  const pools = await run.platform.listComputePools(env);
  found.computePools = pools;
  if (pools.length === 0 && !run.settings.flinkApiUrl) return;
  const [organization] = await run.platform.listOrganizations();
  if (!organization) throw new Error('no organization found for the Flink SQL path');
  const endpoints = await flinkEndpoints(run, env, pools);
  // Every cluster of the environment, filtered or not: a statement's name for another cluster resolves to it.
  const clusters = environment.allClusters ?? environment.clusters;
  const directory: ClusterDirectory = {
    byName: new Map(clusters.map((cluster) => [cluster.displayName, cluster.clusterId])),
    ids: new Set(clusters.map((cluster) => cluster.clusterId)),
    topics: environment.topicsByCluster,
    environmentId: env,
    environmentName: environment.environmentName,
  };
  const seen = new Set<string>();
  await Promise.all(
    [...new Set(endpoints)].map((endpoint) =>
      run.guarded(
        `Flink:${env}`,
        env,
        async () => {
          const statements = (await run.platform.listStatements(endpoint, organization.id, env)).filter((statement) => {
            if (seen.has(statement.name) || !isLineagePhase(statement.status?.phase)) return false;
            seen.add(statement.name);
            return true;
          });
          run.builder.add(flinkFragment(env, statements, directory, run.settings.statementLineage, run.warn));
          for (const statement of statements)
            found.statementsByName.set(statement.name, `stream:stream_job:${env}:${statement.name}`);
        },
        undefined,
        [{ kind: 'flink', environment_id: env }],
      ),
    ),
  );
}

/** The Flink SQL endpoints to ask: the configured URL, else the endpoints of the regions of the compute pools. */
async function flinkEndpoints(run: ExtractionRun, env: string, pools: readonly ComputePoolBody[]): Promise<string[]> {
  if (run.settings.flinkApiUrl) return [run.settings.flinkApiUrl];
  const regions = new Map<string, { cloud: string; region: string }>();
  for (const pool of pools)
    regions.set(`${pool.spec.cloud.toLowerCase()}/${pool.spec.region}`, {
      cloud: pool.spec.cloud,
      region: pool.spec.region,
    });
  const perRegion = await Promise.all(
    [...regions.values()].map((region) =>
      run.guarded(
        `Flink:${region.cloud.toLowerCase()}-${region.region}`,
        env,
        async () => {
          const regionsFound = await run.platform.listFlinkRegions(region.cloud, region.region);
          return regionsFound.map((entry) => entry.http_endpoint);
        },
        [] as string[],
        [{ kind: 'flink', environment_id: env }],
      ),
    ),
  );
  return perRegion.flat();
}
