/**
 * Stream processing: ksqlDB persistent queries (SQL_QUERY) and Flink SQL statements (STREAM_JOB)
 * (`docs/platform-apis.md` sections 5-6).
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
 * Parsing SQL is the job of a `StatementLineageResolver`: `extract()` takes one in its options;
 * `parsedStatementLineage` (the default, issue 4, `docs/sql-lineage.md`) parses `spec.statement`
 * with `src/sql`, resolves names (catalog = environment, database = cluster, table = topic, with
 * `sql.current-catalog` / `sql.current-database`) and adds the reported `latest_offsets` sources;
 * `reportedStatementLineage` parses nothing. A statement that cannot be parsed keeps its node with
 * a `parse_error` attribute and a warning. Column lineage is the PRODUCES edge attribute
 * `column_lineage: [{ output, kind, inputs: [{ dataset, column }] }]` where `dataset` is the topic
 * node id of a resolved input (else the name as written, with `resolved: false`).
 *
 * ksqlDB queries take sources and sinks from the server (`sources`/`sinks` of SHOW QUERIES
 * EXTENDED); when the server gives none, from the parsed `statementText`. Stream and table names
 * resolve to topics through the server's stream/table descriptions. Column lineage comes from the
 * parsed statement.
 */
import { sqlQueryId, streamJobId, topicId } from '../graph/ids.js';
import { formatTableRef, isLineageError, statementLineage, type ColumnLineage, type TableRef } from '../sql/index.js';
import { resolveTableRef, type CatalogEnvironment } from '../sql/resolve.js';
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
  /** The environment (Flink catalog) id; names whose catalog is this id or `environmentName` resolve here. */
  environmentId?: string;
  /** The environment's display name (`sql.current-catalog` is usually this). */
  environmentName?: string | null;
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

/** One entry of the PRODUCES edge attribute `column_lineage`. */
export interface EdgeColumnLineage {
  output: string;
  kind: string;
  inputs: Array<{ dataset: string; column: string; resolved?: false }>;
  /**
   * The output's 0-based position in the query of a Flink INSERT without a column list: `output` is
   * the query's name until extraction names it after the sink's schema (`starColumns.ts`,
   * `namePositionalOutputs`); absent otherwise.
   */
  position?: number;
  /** With `position`: the number of columns of the query. */
  query_columns?: number;
}

/** What a statement reads and writes. */
export interface StatementLineage {
  sources: TopicRef[];
  sinks: TopicRef[];
  /** Column lineage per sink (same cluster and topic as a `sinks` entry). */
  columnLineage?: Array<{ sink: TopicRef; columns: EdgeColumnLineage[] }>;
  /** Set when the statement text could not be parsed. */
  parseError?: string;
  /** Unresolved names, fallback parsing, ambiguous columns. */
  warnings?: string[];
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
    return {
      sources: topics.map((topic) => ({ clusterId: resolveTopicCluster(topic, clusterId, clusters), topic })),
      sinks: [],
    };
  },
};

/** The environment of a directory as a catalog for `resolveTableRef`. */
function catalogOf(clusters: ClusterDirectory, environmentId: string): CatalogEnvironment {
  const names = new Map<string, string>();
  for (const [name, id] of clusters.byName) if (!names.has(id)) names.set(id, name);
  return {
    id: clusters.environmentId ?? environmentId,
    name: clusters.environmentName ?? null,
    clusters: [...clusters.ids].map((id) => ({ id, name: names.get(id) ?? null })),
  };
}

const sameTopic = (a: TopicRef, b: TopicRef) => a.clusterId === b.clusterId && a.topic === b.topic;

/** Maps parsed column lineage to edge attributes, inputs named by topic node id where they resolve. */
function edgeColumnLineage(
  environmentId: string,
  columns: ColumnLineage['columns'],
  resolveInput: (table: TableRef) => TopicRef | undefined,
): EdgeColumnLineage[] {
  return columns.map((entry) => ({
    output: entry.output,
    kind: entry.kind,
    inputs: entry.inputs.map((input) => {
      const topic = resolveInput(input.table);
      return topic
        ? { dataset: topicId(environmentId, topic.clusterId, topic.topic), column: input.column }
        : { dataset: formatTableRef(input.table), column: input.column, resolved: false as const };
    }),
    ...(entry.position !== undefined ? { position: entry.position, query_columns: entry.queryColumns } : {}),
  }));
}

/**
 * Parses `spec.statement` (Flink dialect) and resolves its tables to topics (`src/sql/resolve.ts`);
 * adds the platform-reported sources (`status.latest_offsets`). A reported source placed on a cluster
 * that does not list it (a guess) yields to the parsed source of that topic name on another cluster.
 * Unresolvable names are left out with a warning; an unparsable statement gives `parseError` and
 * only the reported sources.
 */
export const parsedStatementLineage: StatementLineageResolver = {
  resolve(statement, clusters) {
    const reported = reportedStatementLineage.resolve(statement, clusters);
    const sql = statement.spec.statement;
    if (!sql) return reported;
    const properties = statement.spec.properties ?? {};
    const context = {
      currentCatalog: properties['sql.current-catalog'] ?? undefined,
      currentDatabase: properties['sql.current-database'] ?? undefined,
    };
    const parsed = statementLineage(sql, { dialect: 'flink', ...context });
    if (isLineageError(parsed))
      return {
        ...reported,
        parseError: parsed.error,
        warnings: [`statement ${statement.name}: not parsed: ${parsed.error}`],
      };
    const environmentId = clusters.environmentId ?? '';
    const catalog = catalogOf(clusters, environmentId);
    const warnings = parsed.warnings.map((warning) => `statement ${statement.name}: ${warning}`);
    const resolveRef = (table: TableRef, warn: boolean): TopicRef | undefined => {
      const resolution = resolveTableRef(table, context, [catalog]);
      if (resolution.resolved) return { clusterId: resolution.clusterId, topic: resolution.topic };
      if (warn) warnings.push(`statement ${statement.name}: ${resolution.reason}; left unresolved`);
      return undefined;
    };
    const parsedSources = parsed.sources.flatMap((table) => resolveRef(table, true) ?? []);
    // A reported topic placed on a cluster that does not list it (a guess: e.g. its cluster was filtered
    // out) yields to the cluster the SQL names for a topic of that name.
    const listed = (ref: TopicRef) => clusters.topics?.get(ref.clusterId)?.has(ref.topic) === true;
    const sources = reported.sources.filter(
      (ref) =>
        listed(ref) || !parsedSources.some((topic) => topic.topic === ref.topic && topic.clusterId !== ref.clusterId),
    );
    for (const topic of parsedSources) if (!sources.some((s) => sameTopic(s, topic))) sources.push(topic);
    const sinks: TopicRef[] = [];
    for (const table of parsed.sinks) {
      const topic = resolveRef(table, true);
      if (topic && !sinks.some((s) => sameTopic(s, topic))) sinks.push(topic);
    }
    const columnLineage: NonNullable<StatementLineage['columnLineage']> = [];
    for (const entry of parsed.columnLineage) {
      const sink = resolveRef(entry.sink, false);
      if (!sink || entry.columns.length === 0) continue;
      columnLineage.push({
        sink,
        columns: edgeColumnLineage(environmentId, entry.columns, (table) => resolveRef(table, false)),
      });
    }
    return { sources, sinks, columnLineage, warnings };
  },
};

/**
 * Statement phases whose lineage is kept: all but FAILED, FAILING and DELETING (they move no data).
 * STOPPED statements keep their lineage (they resume where they stopped); COMPLETED ones wrote data.
 */
export function isLineagePhase(phase: string | null | undefined): boolean {
  return !['FAILED', 'FAILING', 'DELETING'].includes((phase ?? '').toUpperCase());
}

/**
 * STREAM_JOB nodes of one environment's statements, with the edges the resolver finds: CONSUMES
 * topic -> job, PRODUCES job -> topic (attribute `column_lineage` when known); `parse_error` on the
 * node when the SQL could not be parsed. `warn` receives the resolver's warnings.
 */
export function flinkFragment(
  environmentId: string,
  statements: readonly StatementBody[],
  clusters: ClusterDirectory,
  resolver: StatementLineageResolver = reportedStatementLineage,
  warn: (message: string) => void = () => {},
): Fragment {
  const fragment: Fragment = { nodes: [], edges: [] };
  const directory: ClusterDirectory = clusters.environmentId ? clusters : { ...clusters, environmentId };
  for (const statement of [...statements].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const id = streamJobId(environmentId, statement.name);
    const properties = statement.spec.properties ?? {};
    const lineage = resolver.resolve(statement, directory);
    for (const warning of lineage.warnings ?? []) warn(warning);
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
          ...(lineage.parseError !== undefined ? { parse_error: lineage.parseError } : {}),
        },
      }),
    );
    for (const source of lineage.sources) {
      fragment.nodes.push(placeholderTopic(environmentId, source.clusterId, source.topic));
      fragment.edges.push(makeEdge(topicId(environmentId, source.clusterId, source.topic), 'CONSUMES', id));
    }
    for (const sink of lineage.sinks) {
      fragment.nodes.push(placeholderTopic(environmentId, sink.clusterId, sink.topic));
      const columns = lineage.columnLineage?.find((entry) => sameTopic(entry.sink, sink))?.columns;
      fragment.edges.push(
        makeEdge(
          id,
          'PRODUCES',
          topicId(environmentId, sink.clusterId, sink.topic),
          columns ? { column_lineage: columns } : undefined,
        ),
      );
    }
  }
  return fragment;
}

/**
 * SQL_QUERY nodes of one ksqlDB cluster with their source and sink topics: from the server's
 * `sources`/`sinks` when it reports them, else from the parsed `statementText` (ksqlDB dialect).
 * Names resolve to topics through the server's stream/table list; a name it does not list is left
 * out (with a warning). PRODUCES edges carry `column_lineage` from the parsed statement.
 */
export function ksqlFragment(
  environmentId: string,
  cluster: KsqlClusterBody,
  inventory: KsqlInventory,
  warn: (message: string) => void = () => {},
): Fragment {
  const kafkaClusterId = cluster.spec?.kafka_cluster?.id ?? null;
  const topicOf = new Map(inventory.sources.map((source) => [source.name.toUpperCase(), source.topic]));
  const topicOfRef = (table: TableRef): string | undefined =>
    table.parts.length === 1 ? (topicOf.get(table.parts[0]!.toUpperCase()) ?? topicOf.get(table.parts[0]!)) : undefined;
  const fragment: Fragment = { nodes: [], edges: [] };
  for (const query of [...inventory.queries].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    if (query.queryType && query.queryType.toUpperCase() !== 'PERSISTENT') continue;
    const id = sqlQueryId(environmentId, cluster.id, query.id);
    const parsed = query.statementText ? statementLineage(query.statementText, { dialect: 'ksql' }) : undefined;
    const parseError = parsed && isLineageError(parsed) ? parsed.error : undefined;
    if (parseError) warn(`ksqlDB query ${query.id}: not parsed: ${parseError}`);
    else if (parsed && !isLineageError(parsed)) {
      for (const warning of parsed.warnings) warn(`ksqlDB query ${query.id}: ${warning}`);
    }
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
          ...(parseError !== undefined ? { parse_error: parseError } : {}),
        },
      }),
    );
    if (!kafkaClusterId) continue;
    const lineage = parsed && !isLineageError(parsed) ? parsed : undefined;
    const sourceNames =
      query.sources && query.sources.length > 0
        ? query.sources
        : (lineage?.sources.map((t) => t.parts.join('.')) ?? []);
    const sinkNames =
      query.sinks && query.sinks.length > 0 ? query.sinks : (lineage?.sinks.map((t) => t.parts.join('.')) ?? []);
    const link = (names: readonly string[], direction: 'source' | 'sink') => {
      for (const name of names) {
        const topic = topicOf.get(name.toUpperCase()) ?? topicOf.get(name);
        if (!topic) {
          warn(`ksqlDB query ${query.id}: ${name} is no stream or table the server lists; left unresolved`);
          continue;
        }
        fragment.nodes.push(placeholderTopic(environmentId, kafkaClusterId, topic));
        const topicNode = topicId(environmentId, kafkaClusterId, topic);
        if (direction === 'source') {
          fragment.edges.push(makeEdge(topicNode, 'CONSUMES', id));
          continue;
        }
        const entry = lineage?.columnLineage.find((c) => topicOfRef(c.sink) === topic);
        const columns =
          entry && entry.columns.length > 0
            ? edgeColumnLineage(environmentId, entry.columns, (table) => {
                const t = topicOfRef(table);
                return t ? { clusterId: kafkaClusterId, topic: t } : undefined;
              })
            : undefined;
        fragment.edges.push(makeEdge(id, 'PRODUCES', topicNode, columns ? { column_lineage: columns } : undefined));
      }
    };
    link(sourceNames, 'source');
    link(sinkNames, 'sink');
  }
  return fragment;
}
