/**
 * Cluster Linking (Confluent Cloud Kafka REST v3, "Cluster Linking (v3)" endpoints; calls and fields
 * in `docs/platform-apis.md` section 3): a cluster link copies a source topic, byte for byte, into a
 * read-only *mirror topic* on the destination cluster. Both are read on the destination cluster:
 *
 * - `GET /kafka/v3/clusters/{cluster_id}/links/-/mirrors` (`KafkaMirrorDataList`): every mirror topic
 *   of every link, with `link_name`, `mirror_topic_name`, `source_topic_name`, `mirror_status` and
 *   the lag per partition;
 * - `GET /kafka/v3/clusters/{cluster_id}/links` (`KafkaLinkDataList`): the links, with the other
 *   cluster's id (`source_cluster_id` for destination-initiated links, `remote_cluster_id` for the
 *   other link modes) and `link_id`.
 *
 * Each mirror topic gives one edge `source -TRANSFORMS-> mirror topic` (a dataset derived from
 * another with no job known: the link is not a job of the graph). The mirror topic is the TOPIC
 * node of the destination cluster (`stream:topic:{env}:{cluster}/{mirror_topic_name}`, listed by
 * the topic inventory). The source is:
 *
 * - the TOPIC node of the source cluster when that cluster is extracted in this run, in any
 *   environment (`stream:topic:{source env}:{source cluster}/{source_topic_name}`);
 * - otherwise (a cluster of an environment not asked for, a cluster left out by the cluster filter,
 *   or a cluster outside Confluent Cloud) an EXTERNAL_DATASET `kafka://{source_cluster_id}/{topic}`,
 *   scoped like the connectors' external datasets: the destination's environment and cluster.
 *
 * Topic nodes are added as placeholders (`placeholderTopic`): they merge into the listed topics and
 * stay flagged `placeholder: true` only when the topic was not listed (e.g. its listing failed).
 *
 * Edge attributes: `cluster_link` (link name), `link_id` (when the link reports it),
 * `source_cluster_id`, `mirror_status` (ACTIVE, PAUSED, STOPPED, FAILED, PENDING_STOPPED...) and
 * `mirror_lag` (the sum of the partitions' `lag`, in messages; null when no partition reports one).
 * A mirror whose link is not listed, or whose link names no other cluster, is skipped with a warning.
 *
 * The edge belongs to the destination cluster's scope (it reports the mirror): an extraction of the
 * source's environment alone never removes it, and a stand-in `kafka://` source is resolved against
 * the stored graph when the edge is recorded (`src/extraction/scopes.ts`).
 */
import { topicId } from '../graph/ids.js';
import type { ClusterInfo } from './environments.js';
import { makeEdge, type Fragment } from './graphBuilder.js';
import type { ClusterLinkBody, MirrorTopicBody } from './platformTypes.js';
import { externalDatasetNode } from './connectors.js';
import { placeholderTopic } from './topics.js';

/** What the destination cluster reported: its mirror topics and its cluster links. */
export interface ClusterLinkingInventory {
  /** `GET .../links/-/mirrors` items. */
  mirrors: readonly MirrorTopicBody[];
  /** `GET .../links` items; may be empty when there are no mirrors (the call is then not made). */
  links: readonly ClusterLinkBody[];
}

/** The URI of a topic of a cluster outside the extraction: `kafka://{cluster_id}/{topic}`. */
export function kafkaTopicUri(clusterId: string, topic: string): string {
  return `kafka://${clusterId}/${topic}`;
}

/**
 * The other cluster of a link seen from its destination: `source_cluster_id` (destination-initiated
 * links), else `remote_cluster_id` (source-initiated and bidirectional links), else null (e.g. a
 * link that only names a `destination_cluster_id`: this cluster is its source).
 */
export function linkSourceClusterId(
  link: Pick<ClusterLinkBody, 'source_cluster_id' | 'remote_cluster_id'>,
): string | null {
  return link.source_cluster_id || link.remote_cluster_id || null;
}

/** The sum of a mirror topic's partition lags in messages, or null when no partition reports a lag. */
export function mirrorLag(mirror: Pick<MirrorTopicBody, 'mirror_lags'>): number | null {
  let total: number | null = null;
  for (const row of mirror.mirror_lags ?? []) {
    if (typeof row.lag === 'number' && Number.isFinite(row.lag)) total = (total ?? 0) + row.lag;
  }
  return total;
}

/**
 * TRANSFORMS edges from each mirror topic's source to the mirror topic, for one destination cluster.
 * Pure: no I/O.
 * @param cluster the destination cluster (where the mirrors were listed).
 * @param inventory its mirror topics and cluster links.
 * @param extractedClusters every cluster extracted in this run (all environments): cluster id ->
 *   environment id. A source cluster found here resolves to its TOPIC node; any other to an
 *   EXTERNAL_DATASET `kafka://{source_cluster_id}/{topic}`.
 * @param warn called once per skipped mirror (link not listed, or no other-cluster id).
 * @returns topic placeholders, external datasets and edges; never throws.
 */
export function clusterLinkFragment(
  cluster: ClusterInfo,
  inventory: ClusterLinkingInventory,
  extractedClusters: ReadonlyMap<string, string>,
  warn: (message: string) => void = () => {},
): Fragment {
  const env = cluster.environmentId;
  const fragment: Fragment = { nodes: [], edges: [] };
  const links = new Map(inventory.links.map((link) => [link.link_name, link]));
  const label = `ClusterLinking:${cluster.clusterId}`;
  const mirrors = [...inventory.mirrors].sort((a, b) =>
    a.mirror_topic_name < b.mirror_topic_name ? -1 : a.mirror_topic_name > b.mirror_topic_name ? 1 : 0,
  );
  for (const mirror of mirrors) {
    const link = links.get(mirror.link_name);
    if (!link) {
      warn(
        `${label}: mirror topic ${mirror.mirror_topic_name} belongs to cluster link ${mirror.link_name}, which the cluster does not list; skipped`,
      );
      continue;
    }
    const sourceClusterId = linkSourceClusterId(link);
    if (!sourceClusterId) {
      warn(
        `${label}: cluster link ${link.link_name} names no source cluster ` +
          `(neither source_cluster_id nor remote_cluster_id); mirror topic ${mirror.mirror_topic_name} skipped`,
      );
      continue;
    }
    const sourceTopic = mirror.source_topic_name;
    const sourceEnvironment = extractedClusters.get(sourceClusterId);
    let sourceId: string;
    if (sourceEnvironment !== undefined) {
      sourceId = topicId(sourceEnvironment, sourceClusterId, sourceTopic);
      fragment.nodes.push(placeholderTopic(sourceEnvironment, sourceClusterId, sourceTopic));
    } else {
      const source = externalDatasetNode(env, cluster.clusterId, kafkaTopicUri(sourceClusterId, sourceTopic), {
        source_cluster_id: sourceClusterId,
        source_topic_name: sourceTopic,
      });
      sourceId = source.id;
      fragment.nodes.push(source);
    }
    const mirrorId = topicId(env, cluster.clusterId, mirror.mirror_topic_name);
    fragment.nodes.push(placeholderTopic(env, cluster.clusterId, mirror.mirror_topic_name));
    fragment.edges.push(
      makeEdge(sourceId, 'TRANSFORMS', mirrorId, {
        cluster_link: link.link_name,
        link_id: link.link_id || undefined,
        source_cluster_id: sourceClusterId,
        mirror_status: mirror.mirror_status ?? null,
        mirror_lag: mirrorLag(mirror),
      }),
    );
  }
  return fragment;
}
