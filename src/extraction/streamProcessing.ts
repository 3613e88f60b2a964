/**
 * Stream processing: ksqlDB persistent queries (SQL_QUERY) and Flink SQL statements (STREAM_JOB)
 * (`confluent-apis.md` sections 5-6).
 *
 * This module builds nodes and edges only from what the platform reports directly:
 * - ksqlDB `SHOW QUERIES EXTENDED`: each query's `sources` and `sinks` are stream/table names,
 *   resolved to topics through `LIST STREAMS` / `LIST TABLES`; edges `topic -> query` CONSUMES and
 *   `query -> topic` PRODUCES on the ksqlDB cluster's Kafka cluster. Node
 *   `stream:sql_query:{env}:{ksql cluster}/{query id}`, attributes `sql`, `state`, `query_type`,
 *   `ksql_cluster_id`, `consumer_group_id`.
 * - Flink statements: node `stream:stream_job:{env}:{statement name}`, attributes `sql`, `phase`,
 *   `compute_pool_id`, `principal`, `sql_kind`, `stopped`, `current_catalog`, `current_database`.
 *   Source edges come from `status.latest_offsets` (the topics the statement reads, as the platform
 *   reports them), on the cluster named by `sql.current-database`. The platform does not report
 *   sinks; they need the SQL parsed.
 *
 * Parsing SQL is the job of a `StatementLineageResolver` (the seam for the SQL-parsing issue):
 * `extract()` takes one in its options, and `reportedStatementLineage` below is the default that
 * parses nothing. A parser-backed resolver returns sources and sinks for the same statement and
 * its topics are resolved and linked exactly like these.
 */
import { sqlQueryId, streamJobId, topicId } from '../graph/ids.js';
import { makeEdge, makeNode, type Fragment } from './graphBuilder.js';
import type { KsqlClusterBody, KsqlInventory, StatementBody } from './platformTypes.js';
import { placeholderTopic } from './topics.js';

/** A topic named by a query or statement: a cluster (id) and a topic name. */
export interface TopicRef {
  clusterId: string;
  topic: string;
}

/** The clusters of the environment a statement may name, by id and by display name. */
export interface ClusterDirectory {
  /** Display name (`sql.current-database`) -> cluster id. */
  byName: ReadonlyMap<string, string>;
  /** Cluster ids of the environment. */
  ids: ReadonlySet<string>;
  /** Cluster id -> topics listed there (phase 1), used to place a topic the statement's own cluster lacks. */
  topics?: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * The cluster of a topic named by a statement running against `defaultCluster`: that cluster when it
 * lists the topic (or when nothing is known), else the only other cluster of the environment that
 * lists it (a fully qualified cross-cluster name), else `defaultCluster`.
 */
export function resolveTopicCluster(topic: string, defaultCluster: string, clusters: ClusterDirectory): string {
  const topics = clusters.topics;
  if (!topics || topics.get(defaultCluster)?.has(topic)) return defaultCluster;
  const others = [...topics.entries()].filter(([, names]) => names.has(topic)).map(([clusterId]) => clusterId);
  return others.length === 1 && others[0] !== undefined ? others[0] : defaultCluster;
}

/** What a statement reads and writes. */
export interface StatementLineage {
  sources: TopicRef[];
  sinks: TopicRef[];
}

/**
 * Finds the topics a Flink statement reads and writes. The default (`reportedStatementLineage`)
 * uses only what the platform reports; the SQL-parsing issue provides one that reads `spec.statement`.
 */
export interface StatementLineageResolver {
  resolve(statement: StatementBody, clusters: ClusterDirectory): StatementLineage;
}

/** The cluster a statement runs against: `sql.current-database` (a display name or an id). */
export function statementCluster(statement: StatementBody, clusters: ClusterDirectory): string | undefined {
  const database = statement.spec.properties?.['sql.current-database'];
  if (!database) return undefined;
  return clusters.byName.get(database) ?? (clusters.ids.has(database) ? database : undefined);
}

/** Sources from `status.latest_offsets` (topic -> offsets), on the statement's cluster; no sinks. */
export const reportedStatementLineage: StatementLineageResolver = {
  resolve(statement, clusters) {
    const clusterId = statementCluster(statement, clusters);
    if (!clusterId) return { sources: [], sinks: [] };
    const topics = Object.keys(statement.status?.latest_offsets ?? {}).sort();
    return { sources: topics.map((topic) => ({ clusterId: resolveTopicCluster(topic, clusterId, clusters), topic })), sinks: [] };
  },
};

/** STREAM_JOB nodes of one environment's statements, with the edges the resolver finds. */
export function flinkFragment(
  environmentId: string,
  statements: readonly StatementBody[],
  clusters: ClusterDirectory,
  resolver: StatementLineageResolver = reportedStatementLineage,
): Fragment {
  const fragment: Fragment = { nodes: [], edges: [] };
  for (const statement of [...statements].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const id = streamJobId(environmentId, statement.name);
    const properties = statement.spec.properties ?? {};
    fragment.nodes.push(
      makeNode({
        id,
        nodeType: 'STREAM_JOB',
        system: 'STREAM',
        qualifiedName: statement.name,
        displayName: statement.name,
        environmentId,
        clusterId: statementCluster(statement, clusters) ?? null,
        attributes: {
          sql: statement.spec.statement ?? null,
          phase: statement.status?.phase ?? null,
          compute_pool_id: statement.spec.compute_pool_id ?? null,
          principal: statement.spec.principal ?? null,
          sql_kind: statement.status?.traits?.sql_kind ?? null,
          stopped: statement.spec.stopped ?? null,
          current_catalog: properties['sql.current-catalog'] ?? null,
          current_database: properties['sql.current-database'] ?? null,
        },
      }),
    );
    const lineage = resolver.resolve(statement, clusters);
    for (const source of lineage.sources) {
      fragment.nodes.push(placeholderTopic(environmentId, source.clusterId, source.topic));
      fragment.edges.push(makeEdge(topicId(environmentId, source.clusterId, source.topic), 'CONSUMES', id));
    }
    for (const sink of lineage.sinks) {
      fragment.nodes.push(placeholderTopic(environmentId, sink.clusterId, sink.topic));
      fragment.edges.push(makeEdge(id, 'PRODUCES', topicId(environmentId, sink.clusterId, sink.topic)));
    }
  }
  return fragment;
}

/** SQL_QUERY nodes of one ksqlDB cluster with their source and sink topics. */
export function ksqlFragment(environmentId: string, cluster: KsqlClusterBody, inventory: KsqlInventory): Fragment {
  const kafkaClusterId = cluster.spec?.kafka_cluster?.id ?? null;
  const topicOf = new Map(inventory.sources.map((source) => [source.name.toUpperCase(), source.topic]));
  const fragment: Fragment = { nodes: [], edges: [] };
  for (const query of [...inventory.queries].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    if (query.queryType && query.queryType.toUpperCase() !== 'PERSISTENT') continue;
    const id = sqlQueryId(environmentId, cluster.id, query.id);
    fragment.nodes.push(
      makeNode({
        id,
        nodeType: 'SQL_QUERY',
        system: 'STREAM',
        qualifiedName: `${cluster.id}/${query.id}`,
        displayName: query.id,
        environmentId,
        clusterId: kafkaClusterId,
        attributes: {
          sql: query.statementText ?? null,
          state: query.state ?? null,
          query_type: query.queryType ?? null,
          ksql_cluster_id: cluster.id,
          consumer_group_id: query.consumerGroupId ?? null,
        },
      }),
    );
    if (!kafkaClusterId) continue;
    const link = (names: readonly string[] | null | undefined, direction: 'source' | 'sink') => {
      for (const name of names ?? []) {
        const topic = topicOf.get(name.toUpperCase());
        if (!topic) continue;
        fragment.nodes.push(placeholderTopic(environmentId, kafkaClusterId, topic));
        const topicNode = topicId(environmentId, kafkaClusterId, topic);
        fragment.edges.push(direction === 'source' ? makeEdge(topicNode, 'CONSUMES', id) : makeEdge(id, 'PRODUCES', topicNode));
      }
    };
    link(query.sources, 'source');
    link(query.sinks, 'sink');
  }
  return fragment;
}
