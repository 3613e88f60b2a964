/**
 * Topics (Kafka REST v3 `topics` and `topics/-/configs`; `docs/platform-apis.md` section 3): one TOPIC
 * node per listed topic, `stream:topic:{env}:{cluster}/{topic}`, with attributes `partitions`,
 * `replication_factor`, `bootstrap_endpoint` (`host:port`) and `configs` (the configs that differ from the defaults, from the single
 * cluster-wide configs call: no request per topic). Platform-internal topics (`is_internal`, or a
 * `_confluent` prefix such as ksqlDB's changelogs) are left out.
 */
import { topicId } from '../graph/ids.js';
import type { ClusterInfo } from './environments.js';
import { makeNode, type Fragment } from './graphBuilder.js';
import type { KafkaTopicBody, TopicConfigBody } from './platformTypes.js';

/** True for topics the platform keeps for itself (not lineage). */
export function isInternalTopic(topic: Pick<KafkaTopicBody, 'topic_name' | 'is_internal'>): boolean {
  return topic.is_internal === true || topic.topic_name.startsWith('_confluent');
}

/**
 * Whether a topic config row is kept on its topic's node: a value that is set, not a default and not
 * sensitive. (`listAllTopicConfigs` of `infra/confluent/platformApi.ts` drops the other rows while it
 * parses the answer: on 2,000 topics they are about 30 MB of JSON that nobody reads.)
 */
export function keepsTopicConfig<Row extends Pick<TopicConfigBody, 'value' | 'source' | 'is_default' | 'is_sensitive'>>(
  config: Row,
): config is Row & { value: string } {
  const isDefault = config.is_default ?? config.source === 'DEFAULT_CONFIG';
  return !isDefault && !config.is_sensitive && config.value !== null && config.value !== undefined;
}

/** Groups config rows by topic, keeping only non-default, non-sensitive values (`keepsTopicConfig`): `{topic: {name: value}}`. */
export function configsByTopic(configs: readonly TopicConfigBody[]): Map<string, Record<string, string>> {
  const result = new Map<string, Record<string, string>>();
  for (const config of configs) {
    if (!keepsTopicConfig(config)) continue;
    let entry = result.get(config.topic_name);
    if (!entry) result.set(config.topic_name, (entry = {}));
    entry[config.name] = config.value;
  }
  return result;
}

/** TOPIC nodes of one cluster. */
export function topicFragment(
  cluster: ClusterInfo,
  topics: readonly KafkaTopicBody[],
  configs: readonly TopicConfigBody[],
): Fragment {
  const byTopic = configsByTopic(configs);
  const nodes = topics
    .filter((topic) => !isInternalTopic(topic))
    .map((topic) =>
      makeNode({
        id: topicId(cluster.environmentId, cluster.clusterId, topic.topic_name),
        nodeType: 'TOPIC',
        system: 'STREAM',
        qualifiedName: `${cluster.clusterId}/${topic.topic_name}`,
        displayName: topic.topic_name,
        environmentId: cluster.environmentId,
        clusterId: cluster.clusterId,
        attributes: {
          partitions: topic.partitions_count ?? null,
          replication_factor: topic.replication_factor ?? null,
          configs: byTopic.get(topic.topic_name) ?? {},
          // `host:port` of the cluster: joins OpenLineage `kafka://host:port` datasets to this topic.
          bootstrap_endpoint: cluster.bootstrapEndpoint,
        },
      }),
    );
  return { nodes, edges: [] };
}

/**
 * A topic node for a topic named by a connector, query or statement but not (yet) listed. It merges
 * with the real topic when the listing has it (`graphBuilder.ts`), and stays, flagged
 * `placeholder: true`, when it does not (e.g. the topic listing failed).
 */
export function placeholderTopic(
  environmentId: string,
  clusterId: string,
  topic: string,
  attributes: Record<string, unknown> = {},
) {
  return makeNode({
    id: topicId(environmentId, clusterId, topic),
    nodeType: 'TOPIC',
    system: 'STREAM',
    qualifiedName: `${clusterId}/${topic}`,
    displayName: topic,
    environmentId,
    clusterId,
    attributes: { ...attributes, placeholder: true },
  });
}
