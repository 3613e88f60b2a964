/**
 * Consumer groups (Kafka REST v3 `consumer-groups`, Metrics API `consumer_lag_offsets`, Kafka REST
 * `lags`; `docs/platform-apis.md` sections 3 and 10). One CONSUMER_GROUP node per group,
 * `stream:consumer_group:{env}:{cluster}/{group}`, and one CONSUMES edge `topic -> group` per topic
 * the group reads, with attribute `lag` (messages behind, summed over partitions). The group's
 * `total_lag` attribute is the sum over its topics.
 *
 * Which topics a group reads comes in bulk from the Metrics API (`consumer_lag_offsets` grouped by
 * `metric.consumer_group_id` and `metric.topic`: one request per cluster, every cluster type), or,
 * when that is unavailable, per group from Kafka REST `lags` (Dedicated clusters only).
 *
 * `ownershipEdges` adds MEMBER_OF `group -> job` for groups whose id shows their owner: a managed
 * connector (`connect-{lcc id}`), a ksqlDB persistent query (its `consumerGroupId`, i.e.
 * `_confluent-ksql-{service}query_{id}`), or a Flink statement (a group named after it).
 */
import { consumerGroupId, topicId } from '../graph/ids.js';
import type { ClusterInfo } from './environments.js';
import { makeEdge, makeNode, type Fragment } from './graphBuilder.js';
import type { ConsumerGroupBody, ConsumerLagBody, MetricsPointBody, MetricsQuery } from './platformTypes.js';
import { isInternalTopic } from './topics.js';

/** How far one group is behind on one topic. */
export interface GroupTopicLag {
  groupId: string;
  topic: string;
  /** Messages behind, summed over the topic's partitions; null when unknown. */
  lag: number | null;
}

/** The Metrics API metric that reports consumer lag per group and topic. */
export const CONSUMER_LAG_METRIC = 'io.confluent.kafka.server/consumer_lag_offsets';

/**
 * Reads `consumer_lag_offsets` points (FLAT, grouped by group and topic, one point per minute) into
 * lags: per group and topic, the value at the newest timestamp (lag is a gauge: points in time are
 * not summed).
 */
export function lagsFromMetrics(points: readonly MetricsPointBody[]): GroupTopicLag[] {
  const latest = new Map<string, { lag: GroupTopicLag; at: string }>();
  for (const point of points) {
    const record = point as Record<string, unknown>;
    const groupId = record['metric.consumer_group_id'];
    const topic = record['metric.topic'];
    if (typeof groupId !== 'string' || typeof topic !== 'string') continue;
    const at = typeof record.timestamp === 'string' ? record.timestamp : '';
    const key = `${groupId}\t${topic}`;
    const entry = latest.get(key);
    if (!entry || at >= entry.at) latest.set(key, { lag: { groupId, topic, lag: point.value }, at });
  }
  return [...latest.values()].map((entry) => entry.lag);
}

/** The Metrics API query for the consumer lag of every group of one cluster: the last 5 minutes, per minute. */
export function consumerLagQuery(clusterId: string, now: Date): MetricsQuery {
  const end = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  const start = new Date(end.getTime() - 5 * 60_000);
  return {
    aggregations: [{ metric: CONSUMER_LAG_METRIC }],
    filter: { field: 'resource.kafka.id', op: 'EQ', value: clusterId },
    group_by: ['metric.consumer_group_id', 'metric.topic'],
    granularity: 'PT1M',
    intervals: [`${start.toISOString()}/${end.toISOString()}`],
  };
}

/** Reads Kafka REST `lags` rows of one group (one row per partition) into per-topic lags. */
export function lagsFromRest(groupId: string, rows: readonly ConsumerLagBody[]): GroupTopicLag[] {
  const sums = new Map<string, GroupTopicLag>();
  for (const row of rows) {
    const entry = sums.get(row.topic_name);
    const lag = row.lag ?? null;
    if (entry) entry.lag = entry.lag === null || lag === null ? null : entry.lag + lag;
    else sums.set(row.topic_name, { groupId, topic: row.topic_name, lag });
  }
  return [...sums.values()];
}

/**
 * CONSUMER_GROUP nodes and their CONSUMES edges for one cluster. Groups reported only by the lag
 * data (not listed) are added too; lags on platform-internal topics are skipped.
 */
export function consumerGroupFragment(
  cluster: ClusterInfo,
  groups: readonly ConsumerGroupBody[],
  lags: readonly GroupTopicLag[],
): Fragment {
  const env = cluster.environmentId;
  const byGroup = new Map<string, GroupTopicLag[]>();
  for (const lag of lags) {
    if (isInternalTopic({ topic_name: lag.topic })) continue;
    const list = byGroup.get(lag.groupId);
    if (list) list.push(lag);
    else byGroup.set(lag.groupId, [lag]);
  }
  const listed = new Map(groups.map((group) => [group.consumer_group_id, group]));
  const ids = [...new Set([...listed.keys(), ...byGroup.keys()])].sort();
  const fragment: Fragment = { nodes: [], edges: [] };
  for (const groupId of ids) {
    const group = listed.get(groupId);
    const topicLags = (byGroup.get(groupId) ?? []).sort((a, b) => (a.topic < b.topic ? -1 : 1));
    const known = topicLags.filter((entry) => entry.lag !== null);
    const nodeId = consumerGroupId(env, cluster.clusterId, groupId);
    fragment.nodes.push(
      makeNode({
        id: nodeId,
        nodeType: 'CONSUMER_GROUP',
        system: 'STREAM',
        qualifiedName: `${cluster.clusterId}/${groupId}`,
        displayName: groupId,
        environmentId: env,
        clusterId: cluster.clusterId,
        attributes: {
          state: group?.state ?? null,
          group_type: group?.type ?? null,
          is_simple: group?.is_simple ?? null,
          partition_assignor: group?.partition_assignor ?? null,
          total_lag: known.length > 0 ? known.reduce((sum, entry) => sum + (entry.lag ?? 0), 0) : null,
        },
      }),
    );
    for (const entry of topicLags) {
      fragment.edges.push(
        makeEdge(topicId(env, cluster.clusterId, entry.topic), 'CONSUMES', nodeId, { lag: entry.lag }),
      );
    }
  }
  return fragment;
}

/** The jobs of one cluster that may own consumer groups. */
export interface GroupOwners {
  /** Managed connector id (`lcc-...`) -> connector node id. */
  connectorsByLccId: ReadonlyMap<string, string>;
  /** ksqlDB query consumer group id -> SQL_QUERY node id. */
  sqlQueriesByGroupId: ReadonlyMap<string, string>;
  /** Flink statement name -> STREAM_JOB node id. */
  statementsByName: ReadonlyMap<string, string>;
}

/** The node id of the job that owns a consumer group, when the group id shows it. */
export function ownerOfGroup(groupId: string, owners: GroupOwners): string | undefined {
  const connect = /^connect-(lcc-[A-Za-z0-9]+)$/.exec(groupId);
  if (connect?.[1]) return owners.connectorsByLccId.get(connect[1]);
  const query = owners.sqlQueriesByGroupId.get(groupId);
  if (query) return query;
  return owners.statementsByName.get(groupId);
}

/** MEMBER_OF edges `group -> owning job` for the given consumer group nodes. */
export function ownershipEdges(groups: Iterable<{ id: string; display_name: string }>, owners: GroupOwners): Fragment {
  const edges = [];
  for (const group of groups) {
    const owner = ownerOfGroup(group.display_name, owners);
    if (owner) edges.push(makeEdge(group.id, 'MEMBER_OF', owner));
  }
  return { nodes: [], edges };
}
