/**
 * Phase 1 (`Phase 1/4`): topic inventory and consumer groups, cluster after cluster
 * (`docs/extraction.md`, "Phases", item 1). Per cluster, in parallel: `kafka-rest.topics`,
 * `kafka-rest.all-topic-configs` (every topic's configs in one call: no request per topic),
 * `kafka-rest.consumer-groups`, one Metrics API `consumer_lag_offsets` query (the group -> topic
 * edges with their lag), and Cluster Linking's `kafka-rest.mirrors` (then `kafka-rest.links` only
 * when the cluster has mirror topics). When the Metrics API fails, Dedicated clusters fall back to
 * Kafka REST `lags` per group; elsewhere a warning says groups have no topic edges.
 *
 * The mirror topics are returned, not linked: their TRANSFORMS edges need every extracted cluster
 * (`phases/clusterLinking.ts`, after the last environment).
 */
import type { ClusterLinkingInventory } from '../clusterLinks.js';
import {
  consumerGroupFragment,
  consumerLagQuery,
  lagsFromMetrics,
  lagsFromRest,
  type GroupTopicLag,
} from '../consumerGroups.js';
import type { IncompleteScope } from '../completeness.js';
import type { ClusterInfo } from '../environments.js';
import { failureWarning, isNotFound, sameAuthFailure } from '../failures.js';
import type { ConsumerGroupBody, MetricsPointBody } from '../platformTypes.js';
import type { PlatformPort } from '../port.js';
import type { DiscoveredEnvironment, ExtractionRun, TopicInventory } from '../runContext.js';
import { topicFragment } from '../topics.js';

/**
 * Runs phase 1 on one environment: each cluster's topics, consumer groups with their lag and mirror
 * topics, one cluster after the other (each cluster one guarded extractor `KafkaAdmin:{cluster}`).
 * Adds TOPIC and CONSUMER_GROUP nodes and CONSUMES edges to `run.builder`.
 * @returns the topics listed per cluster and the clusters with mirror topics. Never rejects for a platform failure.
 */
export async function extractTopicInventory(
  run: ExtractionRun,
  environment: DiscoveredEnvironment,
): Promise<TopicInventory> {
  const { environmentId, clusters } = environment;
  run.progress(
    1,
    'Phase 1/4',
    `topic inventory and consumer groups in ${environmentId} (${clusters.length} cluster(s))`,
  );
  const inventory: TopicInventory = { topicsByCluster: new Map(), clusterLinking: [] };
  for (const cluster of clusters) await readClusterInventory(run, cluster, inventory);
  return inventory;
}

/** One cluster of phase 1 (five requests in parallel, then the lag fallback when needed); records into `inventory`. */
async function readClusterInventory(
  run: ExtractionRun,
  cluster: ClusterInfo,
  inventory: TopicInventory,
): Promise<void> {
  const { platform } = run;
  const env = cluster.environmentId;
  const label = `KafkaAdmin:${cluster.clusterId}`;
  const where = { environment_id: env, cluster_id: cluster.clusterId };
  const failed = (kind: IncompleteScope['kind'], reason: string) => {
    run.warn(reason);
    run.incomplete({ kind, ...where, reason });
  };
  await run.guarded(
    label,
    env,
    async () => {
      const [topics, configs, groups, metricLags, linking] = await Promise.allSettled([
        platform.listTopics(cluster),
        platform.listAllTopicConfigs(cluster),
        platform.listConsumerGroups(cluster),
        platform.queryMetrics(consumerLagQuery(cluster.clusterId, run.now())),
        readClusterLinking(platform, cluster),
      ]);
      if (topics.status === 'rejected') {
        failed('topics', failureWarning(label, topics.reason, env));
      } else {
        if (configs.status === 'rejected') failed('topic_configs', failureWarning(label, configs.reason, env));
        const fragment = topicFragment(cluster, topics.value, configs.status === 'fulfilled' ? configs.value : []);
        run.builder.add(fragment);
        inventory.topicsByCluster.set(cluster.clusterId, new Set(fragment.nodes.map((node) => node.display_name)));
      }
      // The same 401/403 as the topic listing's is not warned twice.
      const topicsRejection: unknown = topics.status === 'rejected' ? topics.reason : undefined;
      if (groups.status === 'rejected') {
        const reason = failureWarning(`ConsumerGroups:${cluster.clusterId}`, groups.reason, env);
        if (sameAuthFailure(topicsRejection, groups.reason))
          run.incomplete({ kind: 'consumer_groups', ...where, reason });
        else failed('consumer_groups', reason);
      }
      if (linking.status === 'fulfilled') {
        if (linking.value.mirrors.length > 0) inventory.clusterLinking.push({ cluster, inventory: linking.value });
      } else if (isNotFound(linking.reason, 'kafka-rest.mirrors')) {
        // Clusters without Cluster Linking (e.g. Basic) answer 404: nothing to mirror, nothing to warn about.
        run.logger.info({ cluster_id: cluster.clusterId }, 'Extraction:NoClusterLinking');
      } else {
        const reason = failureWarning(`ClusterLinking:${cluster.clusterId}`, linking.reason, env);
        if (sameAuthFailure(topicsRejection, linking.reason))
          run.incomplete({ kind: 'cluster_links', ...where, reason });
        else failed('cluster_links', reason);
      }
      const groupList = groups.status === 'fulfilled' ? groups.value : undefined;
      const lags = await consumerLags(run, cluster, groupList, metricLags);
      run.builder.add(consumerGroupFragment(cluster, groupList ?? [], lags));
    },
    undefined,
    (['topics', 'topic_configs', 'consumer_groups', 'consumer_lag', 'cluster_links'] as const).map((kind) => ({
      kind,
      ...where,
    })),
  );
}

/**
 * The group -> topic lags of a cluster: from the Metrics API answer; when it failed, from Kafka REST
 * `lags` per group on a Dedicated cluster whose groups were listed; else none, with a warning.
 * @param groups the listed consumer groups; undefined when their listing failed.
 */
async function consumerLags(
  run: ExtractionRun,
  cluster: ClusterInfo,
  groups: readonly ConsumerGroupBody[] | undefined,
  metricLags: PromiseSettledResult<MetricsPointBody[]>,
): Promise<GroupTopicLag[]> {
  if (metricLags.status === 'fulfilled') return lagsFromMetrics(metricLags.value);
  if (cluster.kind?.toLowerCase() === 'dedicated' && groups !== undefined) {
    run.logger.info(
      { cluster_id: cluster.clusterId, reason: (metricLags.reason as Error).message },
      'Extraction:LagFromKafkaRest',
    );
    return lagsPerGroup(
      run,
      cluster,
      groups.map((group) => group.consumer_group_id),
    );
  }
  const reason =
    `${failureWarning(`ConsumerGroups:${cluster.clusterId}`, metricLags.reason, cluster.environmentId)}; ` +
    `consumer lag is unavailable (Kafka REST lag endpoints answer on Dedicated clusters only), so the groups' topic edges are kept as recorded`;
  lagUnavailable(run, cluster, reason);
  return [];
}

/** Kafka REST `lags` of each group (one request per group, in parallel); failures give one warning with their count. */
async function lagsPerGroup(
  run: ExtractionRun,
  cluster: ClusterInfo,
  groupIds: readonly string[],
): Promise<GroupTopicLag[]> {
  const failures: unknown[] = [];
  const results = await Promise.all(
    groupIds.map((groupId) =>
      run.platform.listConsumerGroupLags(cluster, groupId).then(
        (rows) => lagsFromRest(groupId, rows),
        (error: unknown) => {
          failures.push(error);
          return [];
        },
      ),
    ),
  );
  if (failures.length > 0) {
    const warning = failureWarning(`ConsumerGroups:${cluster.clusterId}`, failures[0], cluster.environmentId);
    const reason = `${warning} (lag of ${failures.length} of ${groupIds.length} group(s) unavailable)`;
    lagUnavailable(run, cluster, reason);
  }
  return results.flat();
}

/** Warns that a cluster's consumer lag could not be read, and reports its `consumer_lag` scope incomplete. */
function lagUnavailable(run: ExtractionRun, cluster: ClusterInfo, reason: string): void {
  run.warn(reason);
  run.incomplete({
    kind: 'consumer_lag',
    environment_id: cluster.environmentId,
    cluster_id: cluster.clusterId,
    reason,
  });
}

/**
 * The mirror topics of a cluster (`kafka-rest.mirrors`) and, only when there are some, its cluster
 * links (`kafka-rest.links`): two requests per cluster at most, none per topic.
 * @throws PlatformApiError from either listing (a 404 on the mirrors: no Cluster Linking on this cluster).
 */
export async function readClusterLinking(
  platform: PlatformPort,
  cluster: ClusterInfo,
): Promise<ClusterLinkingInventory> {
  const mirrors = await platform.listMirrorTopics(cluster);
  if (mirrors.length === 0) return { mirrors, links: [] };
  return { mirrors, links: await platform.listClusterLinks(cluster) };
}
