/**
 * Cluster Linking extractor (`src/extraction/clusterLinks.ts`), pure: mirror topics and cluster
 * links in, TRANSFORMS edges out. The source topic is a TOPIC node when its cluster is extracted (in
 * any environment), an EXTERNAL_DATASET `kafka://{cluster}/{topic}` otherwise; mirrors of unknown
 * links, or of links without another cluster's id, are skipped with a warning. The last cases read
 * the recorded bodies of `../shared/fixtures/confluent/kafka-rest-v3` through the port's schemas.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import {
  clusterLinkFragment,
  kafkaTopicUri,
  linkSourceClusterId,
  mirrorLag,
} from '../../src/extraction/clusterLinks.js';
import { GraphBuilder } from '../../src/extraction/graphBuilder.js';
import { ClusterLinkBody, MirrorTopicBody } from '../../src/extraction/platformTypes.js';
import { topicFragment } from '../../src/extraction/topics.js';
import { externalDatasetId, topicId } from '../../src/graph/ids.js';
import { parseLineageGraph } from '../../src/graph/validation.js';
import { sharedFixture } from '../helpers/sharedFixtures.js';
import { testCluster } from './helpers.js';

const PROD = 'env-prod01';
const DR = 'env-dr0001';
const SOURCE = 'lkc-source';
const DESTINATION = 'lkc-destin';

const destination = testCluster(DR, DESTINATION, {
  environmentName: 'disaster-recovery',
  restEndpoint: 'https://pkc-2.us-west-2.aws.confluent.cloud:443',
  displayName: 'dr',
  bootstrapEndpoint: 'pkc-2.us-west-2.aws.confluent.cloud:9092',
  region: 'us-west-2',
});

const mirror = (fields: Partial<MirrorTopicBody> = {}): MirrorTopicBody => ({
  link_name: 'prod-to-dr',
  mirror_topic_name: 'orders',
  source_topic_name: 'orders',
  num_partitions: 3,
  mirror_lags: [
    { partition: 0, lag: 0, last_source_fetch_offset: 120 },
    { partition: 1, lag: 7, last_source_fetch_offset: 98 },
    { partition: 2, lag: 35, last_source_fetch_offset: 101 },
  ],
  mirror_status: 'ACTIVE',
  state_time_ms: 1_725_266_000_000,
  ...fields,
});

const link = (fields: Partial<ClusterLinkBody> = {}): ClusterLinkBody => ({
  link_name: 'prod-to-dr',
  link_id: '7840644d-f7d8-4844-a577-a10ef3df31df',
  cluster_link_id: 'eEBkTffYSESld6EO898x3w',
  source_cluster_id: SOURCE,
  topic_names: ['orders'],
  link_state: 'ACTIVE',
  ...fields,
});

/** Runs the extractor and collects its warnings. */
function run(mirrors: MirrorTopicBody[], links: ClusterLinkBody[], extracted: Record<string, string>) {
  const warnings: string[] = [];
  const fragment = clusterLinkFragment(destination, { mirrors, links }, new Map(Object.entries(extracted)), (message) =>
    warnings.push(message),
  );
  return { fragment, warnings };
}

describe('cluster links: mirror topics to TRANSFORMS edges', () => {
  it('links the source topic node when the source cluster is extracted in another environment', () => {
    const { fragment, warnings } = run([mirror()], [link()], { [SOURCE]: PROD, [DESTINATION]: DR });
    assert.deepEqual(warnings, []);
    assert.deepEqual(fragment.edges, [
      {
        src_id: topicId(PROD, SOURCE, 'orders'),
        dst_id: topicId(DR, DESTINATION, 'orders'),
        edge_type: 'TRANSFORMS',
        attributes: {
          cluster_link: 'prod-to-dr',
          link_id: '7840644d-f7d8-4844-a577-a10ef3df31df',
          source_cluster_id: SOURCE,
          mirror_status: 'ACTIVE',
          mirror_lag: 42,
        },
      },
    ]);
    // The source topic carries its own environment and cluster, not the destination's.
    const source = fragment.nodes.find((node) => node.id === topicId(PROD, SOURCE, 'orders'));
    assert.equal(source?.environment_id, PROD);
    assert.equal(source?.cluster_id, SOURCE);
    assert.equal(source?.node_type, 'TOPIC');
    assert.ok(
      fragment.nodes.every((node) => node.node_type === 'TOPIC'),
      'no external dataset for an extracted source',
    );
  });

  it('merges into the listed topics: placeholders only where the inventory has no topic', () => {
    const builder = new GraphBuilder();
    builder.add(topicFragment(destination, [{ topic_name: 'orders', partitions_count: 3, replication_factor: 3 }], []));
    builder.add(run([mirror()], [link()], { [SOURCE]: PROD, [DESTINATION]: DR }).fragment);
    const { graph, warnings } = builder.build();
    assert.deepEqual(warnings, []);
    const parsed = parseLineageGraph(graph);
    const mirrorTopic = parsed.nodes.find((node) => node.id === topicId(DR, DESTINATION, 'orders'));
    assert.equal(mirrorTopic?.attributes?.partitions, 3);
    assert.equal(mirrorTopic?.attributes?.placeholder, undefined, 'the listed mirror topic stays a real topic');
    // The source cluster's listing is not part of this build: its topic stays a flagged placeholder.
    assert.equal(
      parsed.nodes.find((node) => node.id === topicId(PROD, SOURCE, 'orders'))?.attributes?.placeholder,
      true,
    );
    assert.equal(parsed.edges.length, 1);
  });

  it('makes the source an external kafka:// dataset when its cluster is not extracted', () => {
    const { fragment, warnings } = run([mirror({ mirror_topic_name: 'us.orders' })], [link()], { [DESTINATION]: DR });
    assert.deepEqual(warnings, []);
    const uri = 'kafka://lkc-source/orders';
    assert.equal(kafkaTopicUri(SOURCE, 'orders'), uri);
    const external = fragment.nodes.find((node) => node.node_type === 'EXTERNAL_DATASET');
    assert.deepEqual(external, {
      id: externalDatasetId(DR, uri),
      node_type: 'EXTERNAL_DATASET',
      system: 'EXTERNAL',
      qualified_name: uri,
      display_name: uri,
      environment_id: DR,
      cluster_id: DESTINATION,
      attributes: { uri, scheme: 'kafka', source_cluster_id: SOURCE, source_topic_name: 'orders' },
    });
    assert.equal(fragment.edges[0]?.src_id, externalDatasetId(DR, uri));
    assert.equal(
      fragment.edges[0]?.dst_id,
      topicId(DR, DESTINATION, 'us.orders'),
      'a prefixed mirror keeps its own name',
    );
    const builder = new GraphBuilder();
    builder.add(fragment);
    assert.doesNotThrow(() => parseLineageGraph(builder.build().graph));
  });

  it('uses remote_cluster_id for links in other modes', () => {
    const remote = link({ source_cluster_id: undefined, remote_cluster_id: 'lkc-remote' });
    assert.equal(linkSourceClusterId(remote), 'lkc-remote');
    const { fragment } = run([mirror()], [remote], { [DESTINATION]: DR });
    assert.equal(fragment.edges[0]?.src_id, externalDatasetId(DR, 'kafka://lkc-remote/orders'));
    assert.equal(fragment.edges[0]?.attributes?.source_cluster_id, 'lkc-remote');
  });

  it('skips with a warning a mirror whose link is not listed, and one whose link names no other cluster', () => {
    const { fragment, warnings } = run(
      [
        mirror({ link_name: 'gone', mirror_topic_name: 'a' }),
        mirror({ link_name: 'source-side', mirror_topic_name: 'b' }),
        mirror({ mirror_topic_name: 'c', source_topic_name: 'c' }),
      ],
      [link(), link({ link_name: 'source-side', source_cluster_id: null, destination_cluster_id: 'lkc-other' })],
      { [DESTINATION]: DR },
    );
    assert.deepEqual(warnings, [
      'ClusterLinking:lkc-destin: mirror topic a belongs to cluster link gone, which the cluster does not list; skipped',
      'ClusterLinking:lkc-destin: cluster link source-side names no source cluster (neither source_cluster_id nor remote_cluster_id); mirror topic b skipped',
    ]);
    assert.deepEqual(
      fragment.edges.map((edge) => edge.dst_id),
      [topicId(DR, DESTINATION, 'c')],
      'the other mirrors are kept',
    );
  });

  it('sums the partition lags; unknown lag is null and link_id is left out when not reported', () => {
    assert.equal(mirrorLag(mirror()), 42);
    assert.equal(
      mirrorLag(
        mirror({
          mirror_lags: [
            { partition: 0, lag: null },
            { partition: 1, lag: 5 },
          ],
        }),
      ),
      5,
    );
    assert.equal(mirrorLag(mirror({ mirror_lags: [] })), null);
    assert.equal(mirrorLag(mirror({ mirror_lags: undefined })), null);
    const { fragment } = run([mirror({ mirror_lags: null, mirror_status: 'STOPPED' })], [link({ link_id: null })], {
      [DESTINATION]: DR,
    });
    assert.deepEqual(fragment.edges[0]?.attributes, {
      cluster_link: 'prod-to-dr',
      source_cluster_id: SOURCE,
      mirror_status: 'STOPPED',
      mirror_lag: null,
    });
  });

  it('gives nothing for a cluster without mirrors', () => {
    assert.deepEqual(run([], [link()], { [DESTINATION]: DR }), { fragment: { nodes: [], edges: [] }, warnings: [] });
  });

  it('reads the recorded bodies: partition lags summed, mirrors of unlisted links skipped', (t) => {
    const mirrorsBody = sharedFixture<unknown>(t, 'confluent/kafka-rest-v3/oas_list_all_mirror_topics.json');
    const linksBody = sharedFixture<unknown>(t, 'confluent/kafka-rest-v3/oas_list_cluster_links.json');
    if (mirrorsBody === undefined || linksBody === undefined) return;
    const mirrors = z.object({ data: z.array(MirrorTopicBody) }).parse(mirrorsBody).data;
    const links = z.object({ data: z.array(ClusterLinkBody) }).parse(linksBody).data;
    assert.deepEqual(mirrors.map(mirrorLag), [50_000, 50_000]);
    assert.deepEqual(links.map(linkSourceClusterId), ['src-cluster-id', 'src-cluster-id', null]);
    // The documentation examples do not agree: their mirrors name links (link-sb-1, link-sb-2) the link list lacks.
    const { fragment, warnings } = run(mirrors, links, { [DESTINATION]: DR });
    assert.equal(fragment.edges.length, 0);
    assert.equal(warnings.length, 2);
  });

  it('reads the recorded terraform bodies: a prefixed mirror of a destination-initiated link', (t) => {
    const mirrorBody = sharedFixture<unknown>(t, 'confluent/kafka-rest-v3/tfp_get_mirror_topic_with_prefix.json');
    const linksBody = sharedFixture<unknown>(t, 'confluent/kafka-rest-v3/tfp_list_cluster_links.json');
    if (mirrorBody === undefined || linksBody === undefined) return;
    const recorded = MirrorTopicBody.parse(mirrorBody);
    const links = z.object({ data: z.array(ClusterLinkBody) }).parse(linksBody).data;
    const { fragment, warnings } = run([recorded], links, { [DESTINATION]: DR });
    assert.deepEqual(warnings, []);
    assert.deepEqual(
      fragment.edges.map((edge) => [
        edge.src_id,
        edge.dst_id,
        edge.attributes?.cluster_link,
        edge.attributes?.mirror_lag,
      ]),
      [[externalDatasetId(DR, 'kafka://lkc-nv0zqv/orders'), topicId(DR, DESTINATION, 'us_orders'), 'ui-test', 0]],
    );
  });
});
