/**
 * Kafka REST v3, served below each cluster's `spec.http_endpoint` = `{url}/kafka-rest/{lkc}`
 * (Kafka cluster API key: the cluster's own `api_key` or the scenario's `kafka` key; the cloud key
 * is rejected with 401 `{"error_code":40101,"message":"Authentication failed"}` as on the real
 * platform). Lists are not paginated (`metadata.next: null`), as on the real platform.
 *
 * - `kafka-rest.cluster`: `GET /kafka/v3/clusters/{lkc}`
 * - `kafka-rest.topics`: `GET /kafka/v3/clusters/{lkc}/topics`
 * - `kafka-rest.topic`: `GET /kafka/v3/clusters/{lkc}/topics/{topic}`
 * - `kafka-rest.topic-configs`: `GET /kafka/v3/clusters/{lkc}/topics/{topic}/configs`
 * - `kafka-rest.topic-config`: `GET /kafka/v3/clusters/{lkc}/topics/{topic}/configs/{name}`
 * - `kafka-rest.all-topic-configs`: `GET /kafka/v3/clusters/{lkc}/topics/-/configs` (every topic's configs in
 *   one call)
 * - `kafka-rest.partitions`: `GET /kafka/v3/clusters/{lkc}/topics/{topic}/partitions`
 * - `kafka-rest.consumer-groups`: `GET /kafka/v3/clusters/{lkc}/consumer-groups`
 * - `kafka-rest.consumer-group`: `GET /kafka/v3/clusters/{lkc}/consumer-groups/{group}`
 * - `kafka-rest.consumers`: `GET /kafka/v3/clusters/{lkc}/consumer-groups/{group}/consumers`
 * - `kafka-rest.consumer`: `GET /kafka/v3/clusters/{lkc}/consumer-groups/{group}/consumers/{consumer}`
 * - `kafka-rest.lag-summary`: `GET /kafka/v3/clusters/{lkc}/consumer-groups/{group}/lag-summary` (Dedicated
 *   clusters only)
 * - `kafka-rest.lags`: `GET /kafka/v3/clusters/{lkc}/consumer-groups/{group}/lags` (Dedicated clusters only)
 * - `kafka-rest.lag`:
 *   `GET /kafka/v3/clusters/{lkc}/consumer-groups/{group}/lags/{topic}/partitions/{partition}` (Dedicated
 *   clusters only)
 * - `kafka-rest.links` / `kafka-rest.link`: `GET /kafka/v3/clusters/{lkc}/links`, `GET .../links/{link}`
 * - `kafka-rest.mirrors` / `kafka-rest.mirror`: `GET /kafka/v3/clusters/{lkc}/links/-/mirrors`,
 *   `GET .../links/{link}/mirrors`, `GET .../links/{link}/mirrors/{topic}`
 *
 * Not served (404), as in the Confluent Cloud spec: `.../consumers/{consumer}/assignments` (the
 * consumer objects still link to it). The lag endpoints answer 404 `HTTP 404 Not Found` on
 * non-Dedicated clusters (the spec marks them "Available in dedicated clusters only"); use the
 * Metrics API `consumer_lag_offsets` there.
 */
import { HttpError } from '../errors.js';
import type { ClusterModel, GroupModel, LagRow, TopicModel } from '../model.js';
import type { Registrar, RouteMeta } from '../server.js';
import { pick, q1, uuidFrom, type Query } from '../util.js';

const meta = (api: string): RouteMeta => ({ api, family: 'kafka-rest', auth: 'kafka' });

/** [name, default value, read-only, source, synonyms [name, value, source][]] - the defaults of a Confluent Cloud topic. */
const DEFAULT_TOPIC_CONFIGS: [string, string, boolean, string, [string, string, string][]][] = [
  ['cleanup.policy', 'delete', false, 'DEFAULT_CONFIG', [['log.cleanup.policy', 'delete', 'DEFAULT_CONFIG']]],
  ['compression.type', 'producer', true, 'DEFAULT_CONFIG', [['compression.type', 'producer', 'DEFAULT_CONFIG']]],
  ['confluent.key.schema.validation', 'false', false, 'DEFAULT_CONFIG', []],
  [
    'confluent.schema.validation.context.name',
    'default',
    false,
    'DYNAMIC_TOPIC_CONFIG',
    [['confluent.schema.validation.context.name', 'default', 'DYNAMIC_TOPIC_CONFIG']],
  ],
  [
    'confluent.topic.type',
    'standard',
    false,
    'DYNAMIC_TOPIC_CONFIG',
    [['confluent.topic.type', 'standard', 'DYNAMIC_TOPIC_CONFIG']],
  ],
  ['confluent.value.schema.validation', 'false', false, 'DEFAULT_CONFIG', []],
  [
    'delete.retention.ms',
    '86400000',
    false,
    'DEFAULT_CONFIG',
    [['log.cleaner.delete.retention.ms', '86400000', 'DEFAULT_CONFIG']],
  ],
  [
    'file.delete.delay.ms',
    '60000',
    true,
    'DEFAULT_CONFIG',
    [['log.segment.delete.delay.ms', '60000', 'DEFAULT_CONFIG']],
  ],
  [
    'flush.messages',
    '9223372036854775807',
    true,
    'DEFAULT_CONFIG',
    [['log.flush.interval.messages', '9223372036854775807', 'DEFAULT_CONFIG']],
  ],
  ['flush.ms', '9223372036854775807', true, 'DEFAULT_CONFIG', []],
  ['follower.replication.throttled.replicas', '', true, 'DEFAULT_CONFIG', []],
  ['index.interval.bytes', '4096', true, 'DEFAULT_CONFIG', [['log.index.interval.bytes', '4096', 'DEFAULT_CONFIG']]],
  ['leader.replication.throttled.replicas', '', true, 'DEFAULT_CONFIG', []],
  [
    'max.compaction.lag.ms',
    '9223372036854775807',
    false,
    'DEFAULT_CONFIG',
    [['log.cleaner.max.compaction.lag.ms', '9223372036854775807', 'DEFAULT_CONFIG']],
  ],
  [
    'max.message.bytes',
    '2097164',
    false,
    'STATIC_BROKER_CONFIG',
    [
      ['message.max.bytes', '2097164', 'STATIC_BROKER_CONFIG'],
      ['message.max.bytes', '1048588', 'DEFAULT_CONFIG'],
    ],
  ],
  [
    'message.downconversion.enable',
    'true',
    true,
    'DEFAULT_CONFIG',
    [['log.message.downconversion.enable', 'true', 'DEFAULT_CONFIG']],
  ],
  [
    'message.format.version',
    '3.0-IV1',
    true,
    'DEFAULT_CONFIG',
    [['log.message.format.version', '3.0-IV1', 'DEFAULT_CONFIG']],
  ],
  [
    'message.timestamp.difference.max.ms',
    '9223372036854775807',
    false,
    'DEFAULT_CONFIG',
    [['log.message.timestamp.difference.max.ms', '9223372036854775807', 'DEFAULT_CONFIG']],
  ],
  [
    'message.timestamp.type',
    'CreateTime',
    false,
    'DEFAULT_CONFIG',
    [['log.message.timestamp.type', 'CreateTime', 'DEFAULT_CONFIG']],
  ],
  [
    'min.cleanable.dirty.ratio',
    '0.5',
    true,
    'DEFAULT_CONFIG',
    [['log.cleaner.min.cleanable.ratio', '0.5', 'DEFAULT_CONFIG']],
  ],
  [
    'min.compaction.lag.ms',
    '0',
    false,
    'DEFAULT_CONFIG',
    [['log.cleaner.min.compaction.lag.ms', '0', 'DEFAULT_CONFIG']],
  ],
  [
    'min.insync.replicas',
    '2',
    false,
    'STATIC_BROKER_CONFIG',
    [
      ['min.insync.replicas', '2', 'STATIC_BROKER_CONFIG'],
      ['min.insync.replicas', '1', 'DEFAULT_CONFIG'],
    ],
  ],
  ['preallocate', 'false', true, 'DEFAULT_CONFIG', [['log.preallocate', 'false', 'DEFAULT_CONFIG']]],
  ['retention.bytes', '-1', false, 'DEFAULT_CONFIG', [['log.retention.bytes', '-1', 'DEFAULT_CONFIG']]],
  ['retention.ms', '604800000', false, 'DEFAULT_CONFIG', [['log.retention.ms', '604800000', 'DEFAULT_CONFIG']]],
  [
    'segment.bytes',
    '104857600',
    false,
    'STATIC_BROKER_CONFIG',
    [
      ['log.segment.bytes', '104857600', 'STATIC_BROKER_CONFIG'],
      ['log.segment.bytes', '1073741824', 'DEFAULT_CONFIG'],
    ],
  ],
  [
    'segment.index.bytes',
    '10485760',
    true,
    'DEFAULT_CONFIG',
    [['log.index.size.max.bytes', '10485760', 'DEFAULT_CONFIG']],
  ],
  ['segment.jitter.ms', '0', true, 'DEFAULT_CONFIG', []],
  ['segment.ms', '604800000', false, 'DEFAULT_CONFIG', []],
  [
    'unclean.leader.election.enable',
    'false',
    true,
    'DEFAULT_CONFIG',
    [['unclean.leader.election.enable', 'false', 'DEFAULT_CONFIG']],
  ],
];
const DEFAULT_CONFIG_NAMES = new Set(DEFAULT_TOPIC_CONFIGS.map(([n]) => n));

/** The effective configs of a topic: `[name, value]` (defaults overridden by the scenario). */
export function effectiveTopicConfigs(topic: TopicModel): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of DEFAULT_TOPIC_CONFIGS) out.set(name, value);
  for (const [name, value] of Object.entries(topic.def.configs)) out.set(name, String(value));
  return out;
}

const seg = encodeURIComponent;

/** Registers the Kafka REST routes. */
export function registerKafkaRest(r: Registrar): void {
  const { world } = r;
  const prefix = '/kafka-rest/:hostCluster/kafka/v3/clusters/:cid';

  const clusterBase = (c: ClusterModel): string => `${r.base()}/kafka-rest/${c.id}/kafka/v3/clusters/${c.id}`;
  const clusterOf = (params: unknown): ClusterModel => {
    const { hostCluster, cid } = params as { hostCluster: string; cid: string };
    const cluster = world.clusters.get(hostCluster);
    if (cluster === undefined || cid !== hostCluster)
      throw new HttpError(404, 'kafka-rest', `Cluster ${cid} cannot be found.`);
    return cluster;
  };
  const topicOf = (params: unknown): [ClusterModel, TopicModel] => {
    const cluster = clusterOf(params);
    const topic = cluster.topicByName.get((params as { topic: string }).topic);
    if (topic === undefined)
      throw new HttpError(404, 'kafka-rest', 'This server does not host this topic-partition.', { errorCode: 40403 });
    return [cluster, topic];
  };
  const groupOf = (params: unknown): [ClusterModel, GroupModel] => {
    const cluster = clusterOf(params);
    const id = (params as { group: string }).group;
    const group = cluster.groupById.get(id);
    if (group === undefined)
      throw new HttpError(404, 'kafka-rest', `Consumer group ${id} could not be found.`, { errorCode: 404 });
    return [cluster, group];
  };
  const list = (kind: string, self: string, data: unknown[]): Record<string, unknown> => ({
    kind,
    metadata: { self, next: null },
    data,
  });

  const renderTopic = (c: ClusterModel, t: TopicModel, withOps: boolean): Record<string, unknown> => {
    const self = `${clusterBase(c)}/topics/${seg(t.name)}`;
    return {
      kind: 'KafkaTopic',
      metadata: { self, resource_name: `crn:///kafka=${c.id}/topic=${t.name}` },
      cluster_id: c.id,
      topic_name: t.name,
      is_internal: t.isInternal,
      replication_factor: t.def.replication_factor,
      partitions_count: t.def.partitions,
      partitions: { related: `${self}/partitions` },
      configs: { related: `${self}/configs` },
      partition_reassignments: { related: `${self}/partitions/-/reassignment` },
      authorized_operations: withOps
        ? ['ALTER', 'ALTER_CONFIGS', 'CREATE', 'DELETE', 'DESCRIBE', 'DESCRIBE_CONFIGS', 'READ', 'WRITE']
        : [],
    };
  };
  const renderConfigs = (c: ClusterModel, t: TopicModel): Record<string, unknown>[] => {
    const self = `${clusterBase(c)}/topics/${seg(t.name)}/configs`;
    const overrides = t.def.configs;
    const rows: Record<string, unknown>[] = [];
    const make = (
      name: string,
      value: string,
      readOnly: boolean,
      source: string,
      synonyms: [string, string, string][],
    ): Record<string, unknown> => ({
      kind: 'KafkaTopicConfig',
      metadata: { self: `${self}/${seg(name)}`, resource_name: `crn:///kafka=${c.id}/topic=${t.name}/config=${name}` },
      cluster_id: c.id,
      name,
      value,
      is_read_only: readOnly,
      is_sensitive: false,
      source,
      synonyms: synonyms.map(([n, v, s]) => ({ name: n, value: v, source: s })),
      topic_name: t.name,
      is_default: source === 'DEFAULT_CONFIG',
    });
    for (const [name, value, readOnly, source, synonyms] of DEFAULT_TOPIC_CONFIGS) {
      const override = overrides[name];
      if (override === undefined) rows.push(make(name, value, readOnly, source, synonyms));
      else {
        const v = String(override);
        rows.push(
          make(name, v, readOnly, 'DYNAMIC_TOPIC_CONFIG', [
            [name, v, 'DYNAMIC_TOPIC_CONFIG'],
            ...synonyms.filter(([, , s]) => s !== 'DYNAMIC_TOPIC_CONFIG'),
          ]),
        );
      }
    }
    for (const [name, value] of Object.entries(overrides)) {
      if (DEFAULT_CONFIG_NAMES.has(name)) continue;
      rows.push(
        make(name, String(value), false, 'DYNAMIC_TOPIC_CONFIG', [[name, String(value), 'DYNAMIC_TOPIC_CONFIG']]),
      );
    }
    return rows;
  };
  const groupSelf = (c: ClusterModel, g: GroupModel): string => `${clusterBase(c)}/consumer-groups/${seg(g.id)}`;
  const renderGroup = (c: ClusterModel, g: GroupModel): Record<string, unknown> => {
    const self = groupSelf(c, g);
    return {
      kind: 'KafkaConsumerGroup',
      metadata: { self, resource_name: `crn:///kafka=${c.id}/consumer-group=${g.id}` },
      cluster_id: c.id,
      consumer_group_id: g.id,
      is_simple: g.def.is_simple,
      partition_assignor: g.members.length === 0 ? '' : g.def.partition_assignor,
      state: g.def.state,
      type: g.def.type,
      is_mixed_consumer_group: false,
      coordinator: { related: `${clusterBase(c)}/brokers/${pick(`${c.id}/${g.id}`, 0, 11)}` },
      consumers: { related: `${self}/consumers` },
      lag_summary: { related: `${self}/lag-summary` },
    };
  };
  const renderConsumer = (c: ClusterModel, g: GroupModel, index: number): Record<string, unknown> => {
    const m = g.members[index];
    if (m === undefined) return {};
    const self = `${groupSelf(c, g)}/consumers/${seg(m.consumerId)}`;
    return {
      kind: 'KafkaConsumer',
      metadata: { self, resource_name: `crn:///kafka=${c.id}/consumer-group=${g.id}/consumer=${m.consumerId}` },
      cluster_id: c.id,
      consumer_group_id: g.id,
      consumer_id: m.consumerId,
      instance_id: m.instanceId,
      client_id: m.clientId,
      assignments: { related: `${self}/assignments` },
    };
  };
  const memberFields = (
    g: GroupModel,
    row: LagRow,
  ): { consumer_id: string; instance_id: string | null; client_id: string } => {
    const m = g.members[row.member];
    return { consumer_id: m?.consumerId ?? '', instance_id: m?.instanceId ?? null, client_id: m?.clientId ?? '' };
  };
  const requireDedicated = (c: ClusterModel): void => {
    if (c.def.kind !== 'Dedicated') throw new HttpError(404, 'kafka-rest', 'HTTP 404 Not Found', { errorCode: 404 });
  };

  r.get(prefix, meta('kafka-rest.cluster'), (req) => {
    const c = clusterOf(req.params);
    const self = clusterBase(c);
    return {
      kind: 'KafkaCluster',
      metadata: { self, resource_name: `crn:///kafka=${c.id}` },
      cluster_id: c.id,
      controller: { related: `${self}/brokers/0` },
      acls: { related: `${self}/acls` },
      brokers: { related: `${self}/brokers` },
      broker_configs: { related: `${self}/broker-configs` },
      consumer_groups: { related: `${self}/consumer-groups` },
      topics: { related: `${self}/topics` },
      partition_reassignments: { related: `${self}/topics/-/partitions/-/reassignment` },
    };
  });
  r.get(`${prefix}/topics`, meta('kafka-rest.topics'), (req) => {
    const c = clusterOf(req.params);
    const withOps = q1(req.query as Query, 'include_authorized_operations') === 'true';
    return list(
      'KafkaTopicList',
      `${clusterBase(c)}/topics`,
      c.topics.map((t) => renderTopic(c, t, withOps)),
    );
  });
  r.get(`${prefix}/topics/-/configs`, meta('kafka-rest.all-topic-configs'), (req) => {
    const c = clusterOf(req.params);
    return list(
      'KafkaTopicConfigList',
      `${clusterBase(c)}/topics/-/configs`,
      c.topics.flatMap((t) => renderConfigs(c, t)),
    );
  });
  r.get(`${prefix}/topics/:topic`, meta('kafka-rest.topic'), (req) => {
    const [c, t] = topicOf(req.params);
    return renderTopic(c, t, q1(req.query as Query, 'include_authorized_operations') === 'true');
  });
  r.get(`${prefix}/topics/:topic/configs`, meta('kafka-rest.topic-configs'), (req) => {
    const [c, t] = topicOf(req.params);
    return list('KafkaTopicConfigList', `${clusterBase(c)}/topics/${seg(t.name)}/configs`, renderConfigs(c, t));
  });
  r.get(`${prefix}/topics/:topic/configs/:name`, meta('kafka-rest.topic-config'), (req) => {
    const [c, t] = topicOf(req.params);
    const name = (req.params as { name: string }).name;
    const row = renderConfigs(c, t).find((x) => x.name === name);
    if (row === undefined)
      throw new HttpError(404, 'kafka-rest', `Config ${name} cannot be found for topic ${t.name}.`, {
        errorCode: 40402,
      });
    return row;
  });
  r.get(`${prefix}/topics/:topic/partitions`, meta('kafka-rest.partitions'), (req) => {
    const [c, t] = topicOf(req.params);
    const self = `${clusterBase(c)}/topics/${seg(t.name)}/partitions`;
    return list(
      'KafkaPartitionList',
      self,
      t.endOffsets.map((_, p) => ({
        kind: 'KafkaPartition',
        metadata: { self: `${self}/${p}`, resource_name: `crn:///kafka=${c.id}/topic=${t.name}/partition=${p}` },
        cluster_id: c.id,
        topic_name: t.name,
        partition_id: p,
        leader: { related: `${self}/${p}/replicas/${pick(`${t.name}/${p}`, 0, 11)}` },
        replicas: { related: `${self}/${p}/replicas` },
        reassignment: { related: `${self}/${p}/reassignment` },
      })),
    );
  });
  r.get(`${prefix}/consumer-groups`, meta('kafka-rest.consumer-groups'), (req) => {
    const c = clusterOf(req.params);
    return list(
      'KafkaConsumerGroupList',
      `${clusterBase(c)}/consumer-groups`,
      c.groups.map((g) => renderGroup(c, g)),
    );
  });
  r.get(`${prefix}/consumer-groups/:group`, meta('kafka-rest.consumer-group'), (req) => {
    const [c, g] = groupOf(req.params);
    return renderGroup(c, g);
  });
  r.get(`${prefix}/consumer-groups/:group/consumers`, meta('kafka-rest.consumers'), (req) => {
    const [c, g] = groupOf(req.params);
    return list(
      'KafkaConsumerList',
      `${groupSelf(c, g)}/consumers`,
      g.members.map((_, i) => renderConsumer(c, g, i)),
    );
  });
  r.get(`${prefix}/consumer-groups/:group/consumers/:consumer`, meta('kafka-rest.consumer'), (req) => {
    const [c, g] = groupOf(req.params);
    const index = g.members.findIndex((m) => m.consumerId === (req.params as { consumer: string }).consumer);
    if (index < 0) throw new HttpError(404, 'kafka-rest', 'Consumer could not be found.', { errorCode: 404 });
    return renderConsumer(c, g, index);
  });
  const renderLag = (c: ClusterModel, g: GroupModel, row: LagRow): Record<string, unknown> => ({
    kind: 'KafkaConsumerLag',
    metadata: {
      self: `${groupSelf(c, g)}/lags/${seg(row.topic)}/partitions/${row.partition}`,
      resource_name: `crn:///kafka=${c.id}/consumer-group=${g.id}/lag=${row.topic}/partition=${row.partition}`,
    },
    cluster_id: c.id,
    consumer_group_id: g.id,
    topic_name: row.topic,
    partition_id: row.partition,
    ...memberFields(g, row),
    current_offset: row.currentOffset,
    log_end_offset: row.logEndOffset,
    lag: row.lag,
  });
  r.get(`${prefix}/consumer-groups/:group/lags`, meta('kafka-rest.lags'), (req) => {
    const [c, g] = groupOf(req.params);
    requireDedicated(c);
    return list(
      'KafkaConsumerLagList',
      `${groupSelf(c, g)}/lags`,
      g.lags.map((row) => renderLag(c, g, row)),
    );
  });
  r.get(`${prefix}/consumer-groups/:group/lags/:topic/partitions/:partition`, meta('kafka-rest.lag'), (req) => {
    const [c, g] = groupOf(req.params);
    requireDedicated(c);
    const { topic, partition } = req.params as { topic: string; partition: string };
    const row = g.lags.find((x) => x.topic === topic && String(x.partition) === partition);
    if (row === undefined)
      throw new HttpError(404, 'kafka-rest', 'This server does not host this topic-partition.', { errorCode: 40403 });
    return renderLag(c, g, row);
  });
  r.get(`${prefix}/consumer-groups/:group/lag-summary`, meta('kafka-rest.lag-summary'), (req) => {
    const [c, g] = groupOf(req.params);
    requireDedicated(c);
    let max: LagRow | undefined;
    let total = 0;
    for (const row of g.lags) {
      total += row.lag;
      if (max === undefined || row.lag > max.lag) max = row;
    }
    const self = `${groupSelf(c, g)}/lag-summary`;
    const fields = max === undefined ? { consumer_id: '', instance_id: null, client_id: '' } : memberFields(g, max);
    return {
      kind: 'KafkaConsumerGroupLagSummary',
      metadata: { self, resource_name: `crn:///kafka=${c.id}/consumer-groups=${g.id}/lag-summary` },
      cluster_id: c.id,
      consumer_group_id: g.id,
      max_lag_consumer_id: fields.consumer_id,
      max_lag_instance_id: fields.instance_id,
      max_lag_client_id: fields.client_id,
      max_lag_topic_name: max?.topic ?? '',
      max_lag_partition_id: max?.partition ?? 0,
      max_lag: max?.lag ?? 0,
      total_lag: total,
      max_lag_consumer: { related: `${groupSelf(c, g)}/consumers/${seg(fields.consumer_id)}` },
      max_lag_partition: {
        related: `${clusterBase(c)}/topics/${seg(max?.topic ?? '')}/partitions/${max?.partition ?? 0}`,
      },
    };
  });
  const renderMirror = (
    c: ClusterModel,
    linkName: string,
    m: ClusterModel['links'][number]['mirrors'][number],
  ): Record<string, unknown> => {
    const topic = c.topicByName.get(m.mirror_topic_name);
    const offsets = topic?.endOffsets ?? [0];
    // The declared lag spread over the partitions, the first ones taking the remainder (as consumer lag is).
    const per = Math.floor(m.lag / offsets.length);
    const rest = m.lag % offsets.length;
    return {
      kind: 'KafkaMirrorData',
      metadata: {
        self: `${clusterBase(c)}/links/${seg(linkName)}/mirrors/${seg(m.mirror_topic_name)}`,
        resource_name: `crn:///kafka=${c.id}`,
      },
      link_name: linkName,
      resource_name: `crn:///kafka=${c.id}`,
      mirror_topic_name: m.mirror_topic_name,
      source_topic_name: m.source_topic_name,
      num_partitions: offsets.length,
      mirror_lags: offsets.map((off, p) => ({
        partition: p,
        lag: per + (p < rest ? 1 : 0),
        last_source_fetch_offset: off,
      })),
      mirror_status: m.status,
      state_time_ms: world.createdAt,
    };
  };
  const renderLink = (c: ClusterModel, l: ClusterModel['links'][number]): Record<string, unknown> => ({
    kind: 'KafkaLinkData',
    metadata: {
      self: `${clusterBase(c)}/links/${seg(l.link_name)}`,
      resource_name: `crn:///kafka=${c.id}/link=${l.link_name}`,
    },
    source_cluster_id: l.source_cluster_id,
    destination_cluster_id: null,
    link_name: l.link_name,
    link_id: l.link_id ?? uuidFrom(`${c.id}/${l.link_name}/link`),
    cluster_link_id: Buffer.from(uuidFrom(`${c.id}/${l.link_name}/cl`).replace(/-/g, ''), 'hex').toString('base64url'),
    topic_names: l.mirrors.map((m) => m.mirror_topic_name),
    link_state: 'ACTIVE',
  });
  const linkOf = (params: unknown): [ClusterModel, ClusterModel['links'][number]] => {
    const c = clusterOf(params);
    const name = (params as { link: string }).link;
    const link = c.links.find((l) => l.link_name === name);
    if (link === undefined)
      throw new HttpError(404, 'kafka-rest', `Cluster link '${name}' does not exist.`, { errorCode: 40404 });
    return [c, link];
  };
  r.get(`${prefix}/links`, meta('kafka-rest.links'), (req) => {
    const c = clusterOf(req.params);
    return list(
      'KafkaLinkDataList',
      `${clusterBase(c)}/links`,
      c.links.map((l) => renderLink(c, l)),
    );
  });
  r.get(`${prefix}/links/-/mirrors`, meta('kafka-rest.mirrors'), (req) => {
    const c = clusterOf(req.params);
    return {
      kind: 'KafkaMirrorDataList',
      metadata: { self: `${clusterBase(c)}/links/-/mirrors`, resource_name: `crn:///kafka=${c.id}`, next: null },
      data: c.links.flatMap((l) => l.mirrors.map((m) => renderMirror(c, l.link_name, m))),
    };
  });
  r.get(`${prefix}/links/:link`, meta('kafka-rest.link'), (req) => {
    const [c, link] = linkOf(req.params);
    return renderLink(c, link);
  });
  r.get(`${prefix}/links/:link/mirrors`, meta('kafka-rest.mirrors'), (req) => {
    const [c, link] = linkOf(req.params);
    return {
      kind: 'KafkaMirrorDataList',
      metadata: {
        self: `${clusterBase(c)}/links/${seg(link.link_name)}/mirrors`,
        resource_name: `crn:///kafka=${c.id}`,
        next: null,
      },
      data: link.mirrors.map((m) => renderMirror(c, link.link_name, m)),
    };
  });
  r.get(`${prefix}/links/:link/mirrors/:mirror`, meta('kafka-rest.mirror'), (req) => {
    const [c, link] = linkOf(req.params);
    const name = (req.params as { mirror: string }).mirror;
    const m = link.mirrors.find((x) => x.mirror_topic_name === name);
    if (m === undefined)
      throw new HttpError(404, 'kafka-rest', `Topic '${name}' is not a mirror topic of link '${link.link_name}'.`, {
        errorCode: 40403,
      });
    return renderMirror(c, link.link_name, m);
  });
}
