/**
 * Extraction orchestration: reads one or more environments through a `PlatformPort` and returns
 * the lineage graph, in the specification's five phases ("Command-line tools"):
 *
 * 1. topic inventory and consumer groups, cluster after cluster (`Phase 1/4`); also each cluster's
 *    Cluster Linking mirror topics (and its cluster links when it has mirrors: `clusterLinks.ts`);
 * 2. connectors, ksqlDB queries and Flink statements, in parallel (`Phase 2/4`), then MEMBER_OF
 *    edges from consumer groups to the jobs that own them;
 * 3. Schema Registry and Stream Catalog, in parallel (`Phase 3/4`), then column lineage through
 *    `SELECT *` on PRODUCES edges expanded with the input topics' value-schema fields (`starColumns.ts`);
 * 4. table materialisation: Tableflow topic -> table -> catalog (`Phase 4/4`);
 * 5. with `enableMetrics`, throughput metrics over the lookback window. The specification numbers
 *    progress `Phase n/4` because metrics are optional; this phase logs as `Phase 5/4 (metrics)`.
 *
 * Phases 1-4 run per environment, environments one after the other. Cluster Linking belongs to
 * phase 1, which reads it; its `source topic -TRANSFORMS-> mirror topic` edges are added once the
 * last environment's phase 4 is done (no progress line of its own, before phase 5): a link's source
 * cluster may belong to an environment extracted later, and only then is it known whether the
 * source is one of this run's topics or an external `kafka://{cluster}/{topic}` dataset. A 404 on
 * the mirror listing (a cluster without Cluster Linking) is logged (`Extraction:NoClusterLinking`),
 * not warned. Every extractor runs under a
 * 120 s timeout (`extractorTimeoutMs`); a failed or timed-out extractor adds a warning and
 * contributes nothing, and extraction goes on (partial success). Warnings follow the
 * specification's "Errors" section (400: the key may lack access or parameters are invalid; 401 on
 * the topic listing: a cluster-scoped key is needed; 404 on Schema Registry: it may be disabled).
 * Extraction fails (throws `ExtractionError`) only when no requested environment could be read.
 */
import { connectorId } from '../graph/ids.js';
import type { LineageGraph } from '../graph/model.js';
import { LineageError } from '../errors.js';
import type { Logger } from '../logger.js';
import { catalogEnrichments, type Enrichment } from './catalog.js';
import { clusterLinkFragment, type ClusterLinkingInventory } from './clusterLinks.js';
import { connectorFragment } from './connectors.js';
import {
  consumerGroupFragment,
  consumerLagQuery,
  lagsFromMetrics,
  lagsFromRest,
  ownershipEdges,
  type GroupTopicLag,
} from './consumerGroups.js';
import { clustersOfEnvironment, type ClusterInfo } from './environments.js';
import { GraphBuilder } from './graphBuilder.js';
import {
  derivedMetricEnrichments,
  metricEnrichments,
  metricRequests,
  metricsInterval,
  type MetricRequest,
} from './metrics.js';
import type { BusinessMetadataBody, ComputePoolBody, MetricsPointBody } from './platformTypes.js';
import { PlatformApiError, type PlatformPort } from './port.js';
import { schemaFragment } from './schemas.js';
import { expandStarColumns, hasStarColumns, isEdgeColumnLineage, valueSchemaFields } from './starColumns.js';
import {
  flinkFragment,
  isLineagePhase,
  ksqlFragment,
  parsedStatementLineage,
  type StatementLineageResolver,
} from './streamProcessing.js';
import { tableflowFragment } from './tableflow.js';
import { topicFragment } from './topics.js';

/** Raised when nothing could be extracted at all (every environment failed discovery). Code `EXTRACTION_FAILED`, status 502. */
export class ExtractionError extends LineageError {
  constructor(message: string) {
    super(message, 'EXTRACTION_FAILED', 502);
  }
}

/** What `extract` needs from outside. */
export interface ExtractDeps {
  platform: PlatformPort;
  logger: Logger;
  /** The clock (metrics windows, durations). Default `() => new Date()`. */
  now?: () => Date;
}

/** A progress report, for progress bars and plain phase lines. */
export interface ExtractionProgress {
  /** 0 for discovery, 1-5 for the phases, 6 when done. */
  phase: number;
  /** `Phase 1/4`, ..., `Phase 5/4 (metrics)`, `Discovery`, `Done`. */
  label: string;
  message: string;
}

/** Options of `extract`. */
export interface ExtractOptions {
  environmentIds: readonly string[];
  /** Cluster filter; empty or absent: every cluster. */
  clusterIds?: readonly string[];
  enableMetrics?: boolean;
  /** Metrics window in hours; default 1. */
  metricsLookbackHours?: number;
  onProgress?: (progress: ExtractionProgress) => void;
  /** Per-extractor timeout in ms; default 120,000 (specification, "Limits"). */
  extractorTimeoutMs?: number;
  /** Schema Registry / Stream Catalog base URL override (`LINEAGE_SVC_SCHEMA_REGISTRY_URL`). */
  schemaRegistryUrl?: string | undefined;
  /** Flink SQL base URL override (`LINEAGE_SVC_STREAM_FLINK_API_URL`). */
  flinkApiUrl?: string | undefined;
  /** Region of data-lake catalog tables (`LINEAGE_SVC_DATALAKE_REGION`); default the cluster's region. */
  datalakeRegion?: string | undefined;
  /** Finds the topics of Flink statements; default `parsedStatementLineage` (parsed SQL plus what the platform reports). */
  statementLineage?: StatementLineageResolver;
}

/** Node counts by system and type, edge counts by type. */
export interface ExtractionCounts {
  nodes: number;
  edges: number;
  nodesBySystem: Record<string, Record<string, number>>;
  edgesByType: Record<string, number>;
}

/** The outcome of `extract`. */
export interface ExtractionResult {
  graph: LineageGraph;
  warnings: string[];
  /** Requests made during this extraction, per API name. */
  requests: Record<string, number>;
  durationMs: number;
  counts: ExtractionCounts;
}

/** Counts nodes by system and type and edges by type. */
export function countGraph(graph: LineageGraph): ExtractionCounts {
  const nodesBySystem: Record<string, Record<string, number>> = {};
  for (const node of graph.nodes) {
    const bySystem = (nodesBySystem[node.system] ??= {});
    bySystem[node.node_type] = (bySystem[node.node_type] ?? 0) + 1;
  }
  const edgesByType: Record<string, number> = {};
  for (const edge of graph.edges) edgesByType[edge.edge_type] = (edgesByType[edge.edge_type] ?? 0) + 1;
  return { nodes: graph.nodes.length, edges: graph.edges.length, nodesBySystem, edgesByType };
}

/** The warning for a failed extractor, per the specification's "Errors" section. */
export function failureWarning(label: string, error: unknown, environmentId?: string): string {
  if (error instanceof PlatformApiError) {
    const { api, status } = error;
    if (error.failure === 'status') {
      if (status === 400)
        return `${label}: ${api} answered 400: the API key may lack access or the parameters are invalid`;
      if (status === 401 && api === 'kafka-rest.topics') {
        return `${label}: ${api} answered 401: listing topics needs a cluster-scoped API key (set LINEAGE_SVC_CLUSTER_API_KEY and LINEAGE_SVC_CLUSTER_API_SECRET)`;
      }
      if (
        status === 404 &&
        (api.startsWith('schema-registry.') || api.startsWith('catalog.') || api === 'srcm.clusters')
      ) {
        return `${label}: ${api} answered 404: Schema Registry may be disabled in environment ${environmentId ?? '(unknown)'}`;
      }
      if (status === 401 || status === 403)
        return `${label}: ${api} answered ${status}: the API key is not authorised for this resource`;
      return `${label}: ${api} answered ${status ?? 'an error'}`;
    }
    return `${label}: ${error.message}`;
  }
  return `${label}: failed: ${error instanceof Error ? error.message : String(error)}`;
}

class ExtractorTimeout extends Error {}

/** Per-environment state shared by the phases. */
interface EnvironmentState {
  environmentId: string;
  environmentName: string | null;
  clusters: ClusterInfo[];
  /** Cluster id -> names of the topics listed there (phase 1). */
  topicsByCluster: Map<string, Set<string>>;
  connectorsByLccId: Map<string, string>;
  sqlQueriesByGroupId: Map<string, string>;
  statementsByName: Map<string, string>;
  computePools: ComputePoolBody[];
  /** Mirror topics and cluster links of the clusters that have mirrors (phase 1), resolved after every environment. */
  clusterLinking: { cluster: ClusterInfo; inventory: ClusterLinkingInventory }[];
}

/**
 * Extracts the lineage graph of the given environments.
 * @returns the graph (passes `parseLineageGraph`), the warnings, the requests per API, the duration
 *   in ms and the node/edge counts.
 * @throws ExtractionError when no environment could be read at all (e.g. a wrong cloud key).
 */
export async function extract(deps: ExtractDeps, options: ExtractOptions): Promise<ExtractionResult> {
  const { platform, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const started = performance.now();
  const requestsBefore = platform.requestCounts();
  const timeoutMs = options.extractorTimeoutMs ?? 120_000;
  const lookbackHours = options.metricsLookbackHours ?? 1;
  const resolver = options.statementLineage ?? parsedStatementLineage;
  const builder = new GraphBuilder();
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    logger.warn({ warning: message }, 'Extraction:Warning');
  };
  const progress = (phase: number, label: string, message: string) => {
    logger.info({ phase }, `${label}: ${message}`);
    options.onProgress?.({ phase, label, message });
  };

  /** Runs one extractor under the timeout; on failure warns and returns `fallback`. */
  const safely = async <T>(
    label: string,
    environmentId: string | undefined,
    run: () => Promise<T>,
    fallback: T,
  ): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        run(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new ExtractorTimeout()), timeoutMs);
        }),
      ]);
    } catch (error) {
      if (error instanceof ExtractorTimeout)
        warn(`${label}: did not finish within ${timeoutMs / 1000} s; its results are left out`);
      else warn(failureWarning(label, error, environmentId));
      return fallback;
    } finally {
      clearTimeout(timer);
    }
  };

  const states: EnvironmentState[] = [];
  let readable = 0;
  const environmentIds = [...new Set(options.environmentIds)];
  for (const environmentId of environmentIds) {
    progress(0, 'Discovery', `clusters in ${environmentId}`);
    let environmentName: string | null = null;
    let clusterBodies;
    try {
      const [environment, clusters] = await Promise.all([
        platform.getEnvironment(environmentId).catch(() => undefined),
        platform.listKafkaClusters(environmentId),
      ]);
      environmentName = environment?.display_name ?? null;
      clusterBodies = clusters;
    } catch (error) {
      warn(failureWarning(`Discovery:${environmentId}`, error, environmentId));
      continue;
    }
    readable += 1;
    const clusters = clustersOfEnvironment(environmentId, environmentName, clusterBodies, options.clusterIds ?? []);
    if (clusters.length === 0) {
      warn(
        `Discovery:${environmentId}: no Kafka clusters found${options.clusterIds?.length ? ` matching ${options.clusterIds.join(', ')}` : ''}`,
      );
      continue;
    }
    const state: EnvironmentState = {
      environmentId,
      environmentName,
      clusters,
      topicsByCluster: new Map(),
      connectorsByLccId: new Map(),
      sqlQueriesByGroupId: new Map(),
      statementsByName: new Map(),
      computePools: [],
      clusterLinking: [],
    };
    states.push(state);
    await extractEnvironment(state);
  }
  if (readable === 0 && environmentIds.length > 0) {
    throw new ExtractionError(`no environment could be read: ${warnings[0] ?? 'no answer from the platform'}`);
  }

  addClusterLinks(states);

  if (options.enableMetrics) {
    progress(5, 'Phase 5/4 (metrics)', `throughput metrics over the last ${lookbackHours} h`);
    await addMetrics(states);
  }

  const { graph, warnings: buildWarnings } = builder.build();
  for (const warning of buildWarnings) warn(warning);
  const counts = countGraph(graph);
  progress(6, 'Done', `${counts.nodes} nodes, ${counts.edges} edges`);
  const after = platform.requestCounts();
  const requests: Record<string, number> = {};
  for (const [api, count] of Object.entries(after)) {
    const delta = count - (requestsBefore[api] ?? 0);
    if (delta > 0) requests[api] = delta;
  }
  return { graph, warnings, requests, durationMs: performance.now() - started, counts };

  async function extractEnvironment(state: EnvironmentState): Promise<void> {
    const env = state.environmentId;
    // Phase 1: topics and consumer groups, cluster after cluster.
    progress(1, 'Phase 1/4', `topic inventory and consumer groups in ${env} (${state.clusters.length} cluster(s))`);
    for (const cluster of state.clusters) await extractClusterInventory(cluster, state);

    // Phase 2: connectors, ksqlDB and Flink in parallel.
    progress(2, 'Phase 2/4', `connectors, ksqlDB queries and Flink statements in ${env}`);
    await Promise.all([
      ...state.clusters.map((cluster) =>
        safely(
          `Connect:${cluster.clusterId}`,
          env,
          async () => {
            const connectors = await platform.listConnectors(env, cluster.clusterId);
            const fragment = connectorFragment(cluster, connectors, [
              ...(state.topicsByCluster.get(cluster.clusterId) ?? []),
            ]);
            builder.add(fragment);
            for (const connector of connectors) {
              if (connector.id?.id)
                state.connectorsByLccId.set(connector.id.id, connectorId(env, cluster.clusterId, connector.info.name));
            }
          },
          undefined,
        ),
      ),
      safely(`ksqlDB:${env}`, env, () => extractKsql(state), undefined),
      safely(`Flink:${env}`, env, () => extractFlink(state), undefined),
    ]);
    const groups = [...builder.allNodes()].filter(
      (node) => node.node_type === 'CONSUMER_GROUP' && node.environment_id === env,
    );
    builder.add(
      ownershipEdges(groups, {
        connectorsByLccId: state.connectorsByLccId,
        sqlQueriesByGroupId: state.sqlQueriesByGroupId,
        statementsByName: state.statementsByName,
      }),
    );

    // Phase 3: Schema Registry and Stream Catalog in parallel.
    progress(3, 'Phase 3/4', `schemas and catalog metadata in ${env}`);
    const registries = options.schemaRegistryUrl
      ? [{ id: null as string | null, url: options.schemaRegistryUrl, catalogUrl: options.schemaRegistryUrl }]
      : await safely(
          `SchemaRegistry:${env}`,
          env,
          async () =>
            (await platform.listSchemaRegistries(env)).flatMap((registry) => {
              const url = registry.spec?.http_endpoint || registry.status?.http_endpoint;
              return url
                ? [{ id: registry.id as string | null, url, catalogUrl: registry.spec?.catalog_http_endpoint || url }]
                : [];
            }),
          [],
        );
    if (registries.length === 0) {
      logger.info({ environment_id: env }, 'Extraction:NoSchemaRegistry');
      progress(3, 'Phase 3/4', `no Schema Registry in ${env}: schemas and catalog skipped`);
    }
    await Promise.all(
      registries.flatMap((registry) => [
        safely(
          `SchemaRegistry:${env}`,
          env,
          async () => {
            const schemas = await platform.listLatestSchemas(registry.url);
            builder.add(schemaFragment(env, registry.id, schemas, state.topicsByCluster));
          },
          undefined,
        ),
        safely(`StreamCatalog:${env}`, env, () => extractCatalog(state, registry.catalogUrl), undefined),
      ]),
    );
    expandStarLineage(env);

    // Phase 4: Tableflow.
    progress(4, 'Phase 4/4', `table materialisation in ${env}`);
    await Promise.all(
      state.clusters.map((cluster) =>
        safely(
          `Tableflow:${cluster.clusterId}`,
          env,
          async () => {
            const [tables, integrations] = await Promise.all([
              platform.listTableflowTopics(env, cluster.clusterId),
              platform.listCatalogIntegrations(env, cluster.clusterId),
            ]);
            builder.add(tableflowFragment(cluster, tables, integrations, { datalakeRegion: options.datalakeRegion }));
          },
          undefined,
        ),
      ),
    );
  }

  /**
   * After phase 3: column lineage through `SELECT *` on this environment's PRODUCES edges, expanded
   * with the value-schema fields of the input topics (`starColumns.ts`). Phase 2 parses the SQL
   * before the schemas are read, so this is a pass of its own.
   */
  function expandStarLineage(env: string): void {
    const edges = [...builder.allEdges()];
    const fieldsOfDataset = valueSchemaFields(edges, (id) => builder.node(id));
    for (const edge of edges) {
      if (edge.edge_type !== 'PRODUCES' || builder.node(edge.src_id)?.environment_id !== env) continue;
      const columns = edge.attributes?.column_lineage;
      if (!isEdgeColumnLineage(columns) || !hasStarColumns(columns)) continue;
      const expanded = expandStarColumns(columns, fieldsOfDataset);
      // An edge added again merges its attributes key by key: this replaces `column_lineage` only.
      if (expanded !== columns) builder.addEdge({ ...edge, attributes: { column_lineage: expanded } });
    }
  }

  async function extractClusterInventory(cluster: ClusterInfo, state: EnvironmentState): Promise<void> {
    const env = state.environmentId;
    const label = `KafkaAdmin:${cluster.clusterId}`;
    await safely(
      label,
      env,
      async () => {
        const [topics, configs, groups, metricLags, linking] = await Promise.allSettled([
          platform.listTopics(cluster),
          platform.listAllTopicConfigs(cluster),
          platform.listConsumerGroups(cluster),
          platform.queryMetrics(consumerLagQuery(cluster.clusterId, now())),
          readClusterLinking(cluster),
        ]);
        if (topics.status === 'rejected') {
          warn(failureWarning(label, topics.reason, env));
        } else {
          if (configs.status === 'rejected') warn(failureWarning(label, configs.reason, env));
          const fragment = topicFragment(cluster, topics.value, configs.status === 'fulfilled' ? configs.value : []);
          builder.add(fragment);
          state.topicsByCluster.set(cluster.clusterId, new Set(fragment.nodes.map((node) => node.display_name)));
        }
        if (
          groups.status === 'rejected' &&
          !(topics.status === 'rejected' && sameAuthFailure(topics.reason, groups.reason))
        ) {
          warn(failureWarning(`ConsumerGroups:${cluster.clusterId}`, groups.reason, env));
        }
        if (linking.status === 'fulfilled') {
          if (linking.value.mirrors.length > 0) state.clusterLinking.push({ cluster, inventory: linking.value });
        } else if (isNotFound(linking.reason, 'kafka-rest.mirrors')) {
          // Clusters without Cluster Linking (e.g. Basic) answer 404: nothing to mirror, nothing to warn about.
          logger.info({ cluster_id: cluster.clusterId }, 'Extraction:NoClusterLinking');
        } else if (!(topics.status === 'rejected' && sameAuthFailure(topics.reason, linking.reason))) {
          warn(failureWarning(`ClusterLinking:${cluster.clusterId}`, linking.reason, env));
        }
        const groupList = groups.status === 'fulfilled' ? groups.value : [];
        let lags: GroupTopicLag[];
        if (metricLags.status === 'fulfilled') {
          lags = lagsFromMetrics(metricLags.value);
        } else if (cluster.kind?.toLowerCase() === 'dedicated' && groups.status === 'fulfilled') {
          logger.info(
            { cluster_id: cluster.clusterId, reason: (metricLags.reason as Error).message },
            'Extraction:LagFromKafkaRest',
          );
          lags = await lagsPerGroup(
            cluster,
            groupList.map((group) => group.consumer_group_id),
            env,
          );
        } else {
          lags = [];
          warn(
            `${failureWarning(`ConsumerGroups:${cluster.clusterId}`, metricLags.reason, env)}; ` +
              `consumer lag is unavailable (Kafka REST lag endpoints answer on Dedicated clusters only), so groups have no topic edges`,
          );
        }
        builder.add(consumerGroupFragment(cluster, groupList, lags));
      },
      undefined,
    );
  }

  /**
   * The mirror topics of a cluster (`kafka-rest.mirrors`) and, only when there are some, its cluster
   * links (`kafka-rest.links`): two requests per cluster at most, none per topic.
   */
  async function readClusterLinking(cluster: ClusterInfo): Promise<ClusterLinkingInventory> {
    const mirrors = await platform.listMirrorTopics(cluster);
    if (mirrors.length === 0) return { mirrors, links: [] };
    return { mirrors, links: await platform.listClusterLinks(cluster) };
  }

  /**
   * After every environment: the TRANSFORMS edges of the mirror topics read in phase 1, now that
   * every extracted cluster (of any environment) is known (`clusterLinks.ts`).
   */
  function addClusterLinks(environments: readonly EnvironmentState[]): void {
    const extractedClusters = new Map<string, string>();
    for (const state of environments)
      for (const cluster of state.clusters) extractedClusters.set(cluster.clusterId, state.environmentId);
    for (const state of environments) {
      for (const { cluster, inventory } of state.clusterLinking)
        builder.add(clusterLinkFragment(cluster, inventory, extractedClusters, warn));
    }
  }

  async function lagsPerGroup(
    cluster: ClusterInfo,
    groupIds: readonly string[],
    env: string,
  ): Promise<GroupTopicLag[]> {
    const failures: unknown[] = [];
    const results = await Promise.all(
      groupIds.map((groupId) =>
        platform.listConsumerGroupLags(cluster, groupId).then(
          (rows) => lagsFromRest(groupId, rows),
          (error: unknown) => {
            failures.push(error);
            return [];
          },
        ),
      ),
    );
    if (failures.length > 0)
      warn(
        `${failureWarning(`ConsumerGroups:${cluster.clusterId}`, failures[0], env)} (lag of ${failures.length} of ${groupIds.length} group(s) unavailable)`,
      );
    return results.flat();
  }

  async function extractKsql(state: EnvironmentState): Promise<void> {
    const env = state.environmentId;
    const wanted = new Set(state.clusters.map((cluster) => cluster.clusterId));
    const clusters = (await platform.listKsqlClusters(env)).filter(
      (cluster) => !cluster.spec?.kafka_cluster?.id || wanted.has(cluster.spec.kafka_cluster.id),
    );
    await Promise.all(
      clusters.map((cluster) =>
        safely(
          `ksqlDB:${cluster.id}`,
          env,
          async () => {
            const url = cluster.status?.http_endpoint || cluster.spec?.http_endpoint;
            if (!url) {
              warn(
                `ksqlDB:${cluster.id}: no server endpoint reported (cluster phase ${cluster.status?.phase ?? 'unknown'}); skipped`,
              );
              return;
            }
            const inventory = await platform.describeKsqlCluster(url);
            const fragment = ksqlFragment(env, cluster, inventory, warn);
            builder.add(fragment);
            for (const query of inventory.queries) {
              if (query.consumerGroupId)
                state.sqlQueriesByGroupId.set(
                  query.consumerGroupId,
                  `stream:sql_query:${env}:${cluster.id}/${query.id}`,
                );
            }
          },
          undefined,
        ),
      ),
    );
  }

  async function extractFlink(state: EnvironmentState): Promise<void> {
    const env = state.environmentId;
    const pools = await platform.listComputePools(env);
    state.computePools = pools;
    if (pools.length === 0 && !options.flinkApiUrl) return;
    const [organization] = await platform.listOrganizations();
    if (!organization) throw new Error('no organisation found for the Flink SQL path');
    const regions = new Map<string, { cloud: string; region: string }>();
    for (const pool of pools)
      regions.set(`${pool.spec.cloud.toLowerCase()}/${pool.spec.region}`, {
        cloud: pool.spec.cloud,
        region: pool.spec.region,
      });
    const endpoints = options.flinkApiUrl
      ? [options.flinkApiUrl]
      : (
          await Promise.all(
            [...regions.values()].map((region) =>
              safely(
                `Flink:${region.cloud.toLowerCase()}-${region.region}`,
                env,
                async () => {
                  const found = await platform.listFlinkRegions(region.cloud, region.region);
                  return found.map((entry) => entry.http_endpoint);
                },
                [] as string[],
              ),
            ),
          )
        ).flat();
    const directory = {
      byName: new Map(state.clusters.map((cluster) => [cluster.displayName, cluster.clusterId])),
      ids: new Set(state.clusters.map((cluster) => cluster.clusterId)),
      topics: state.topicsByCluster,
      environmentId: env,
      environmentName: state.environmentName,
    };
    const seen = new Set<string>();
    await Promise.all(
      [...new Set(endpoints)].map((endpoint) =>
        safely(
          `Flink:${env}`,
          env,
          async () => {
            const statements = (await platform.listStatements(endpoint, organization.id, env)).filter((statement) => {
              if (seen.has(statement.name) || !isLineagePhase(statement.status?.phase)) return false;
              seen.add(statement.name);
              return true;
            });
            builder.add(flinkFragment(env, statements, directory, resolver, warn));
            for (const statement of statements)
              state.statementsByName.set(statement.name, `stream:stream_job:${env}:${statement.name}`);
          },
          undefined,
        ),
      ),
    );
  }

  async function extractCatalog(state: EnvironmentState, catalogUrl: string): Promise<void> {
    const env = state.environmentId;
    const wanted = new Set(state.clusters.map((cluster) => cluster.clusterId));
    const [entities, definitions] = await Promise.all([
      platform.searchCatalogTopics(catalogUrl),
      platform.listBusinessMetadataDefs(catalogUrl).catch((error: unknown) => {
        warn(failureWarning(`StreamCatalog:${env}`, error, env));
        return [];
      }),
    ]);
    const inScope = entities.filter((entity) => {
      const match = /(lkc-[A-Za-z0-9]+):/.exec(entity.attributes.qualifiedName);
      return (
        match?.[1] !== undefined &&
        wanted.has(match[1]) &&
        state.topicsByCluster.get(match[1])?.has(entity.attributes.name ?? '') !== false
      );
    });
    const businessMetadata = new Map<string, BusinessMetadataBody[]>();
    if (definitions.length > 0) {
      // Business metadata is only readable per entity; fetched only when the registry defines some.
      const failures: unknown[] = [];
      await Promise.all(
        inScope.map((entity) =>
          platform.getTopicBusinessMetadata(catalogUrl, entity.attributes.qualifiedName).then(
            (metadata) => {
              if (metadata.length > 0) businessMetadata.set(entity.attributes.qualifiedName, metadata);
            },
            (error: unknown) => failures.push(error),
          ),
        ),
      );
      if (failures.length > 0)
        warn(
          `${failureWarning(`StreamCatalog:${env}`, failures[0], env)} (business metadata of ${failures.length} topic(s) unavailable)`,
        );
    }
    applyEnrichments(catalogEnrichments(env, inScope, businessMetadata));
  }

  function applyEnrichments(enrichments: readonly Enrichment[]): void {
    for (const enrichment of enrichments) builder.enrich(enrichment.nodeId, enrichment.attributes);
  }

  async function addMetrics(environments: readonly EnvironmentState[]): Promise<void> {
    const requests = metricRequests({
      clusters: environments.flatMap((state) =>
        state.clusters.map((cluster) => ({ environmentId: state.environmentId, clusterId: cluster.clusterId })),
      ),
      computePools: environments.flatMap((state) =>
        state.computePools.map((pool) => ({ environmentId: state.environmentId, computePoolId: pool.id })),
      ),
      interval: metricsInterval(now(), lookbackHours),
    });
    const answers: { request: MetricRequest; points: MetricsPointBody[] }[] = [];
    const failures: unknown[] = [];
    await safely(
      'Metrics',
      undefined,
      async () => {
        await Promise.all(
          requests.map((request) =>
            platform.queryMetrics(request.query).then(
              (points) => answers.push({ request, points }),
              (error: unknown) => failures.push(error),
            ),
          ),
        );
      },
      undefined,
    );
    if (failures.length > 0)
      warn(
        `${failureWarning('Metrics', failures[0])} (${failures.length} of ${requests.length} metric queries failed)`,
      );
    const connectors = new Map<string, string>();
    for (const state of environments) for (const [lcc, id] of state.connectorsByLccId) connectors.set(lcc, id);
    applyEnrichments(metricEnrichments(answers, connectors, lookbackHours));
    applyEnrichments(derivedMetricEnrichments([...builder.allNodes()], now(), lookbackHours));
  }
}

/** True when `error` is a 404 answered by the API `api`. */
function isNotFound(error: unknown, api: string): boolean {
  return error instanceof PlatformApiError && error.api === api && error.failure === 'status' && error.status === 404;
}

/** True when two failures are the same authentication problem (one warning is enough). */
function sameAuthFailure(a: unknown, b: unknown): boolean {
  return (
    a instanceof PlatformApiError &&
    b instanceof PlatformApiError &&
    a.status === b.status &&
    (a.status === 401 || a.status === 403)
  );
}
