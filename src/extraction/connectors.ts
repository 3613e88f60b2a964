/**
 * Managed connectors (`connect/v1 ... connectors?expand=info,status,id`; `docs/platform-apis.md`
 * section 4). One CONNECTOR node per connector, `stream:connector:{env}:{cluster}/{name}`, with
 * attributes `connector_class`, `connector_type` (`source`/`sink`), `connector_id` (`lcc-...`),
 * `state`, `tasks` and the data formats.
 *
 * Topics: a source writes `kafka.topic`, or, Debezium-style, `{topic.prefix}.{schema}.{table}`
 * (`database.server.name` as the prefix on older connectors) for each table its filters capture:
 * `table.include.list`, `table.exclude.list`, `schema.*` and `database.*` lists are regular
 * expressions matched against the tables of the cluster's listed topics (`debeziumTopics`); a CDC
 * source without an include list captures every table of its prefix. The platform reports no
 * connector's topics (connect/v1 has no `.../topics` endpoint), so the listed topics are the only
 * evidence. A sink reads `topics` (comma-separated) or every listed topic of its cluster that
 * `topics.regex` matches entirely. Edges: `connector -> topic` PRODUCES for sources,
 * `topic -> connector` CONSUMES for sinks. Topics not listed become placeholders that merge with the
 * real topic later.
 *
 * External systems become EXTERNAL_DATASET nodes named by OpenLineage-style URIs
 * (`s3://bucket/prefix`, `postgres://host:5432/db.schema.table`, ...):
 * `dataset -> connector` CONSUMES for sources, `connector -> dataset` PRODUCES for sinks. BigQuery
 * sinks write warehouse CATALOG_TABLE nodes instead, one per topic (`warehouseTables.ts`), with
 * `connector -> table` PRODUCES.
 *
 * Every sink also gets its dead-letter topic `dlq-{connector id}` (or
 * `errors.deadletterqueue.topic.name`) as a placeholder topic with attributes `role: "dlq"` and
 * `for_connector`, and a PRODUCES edge; it merges with the real topic when the topic is listed.
 * Connector type is not taken from `info.type` alone: the platform often reports `unknown`.
 */
import { connectorId, externalDatasetId, topicId } from '../graph/ids.js';
import type { Node } from '../graph/model.js';
import type { ClusterInfo } from './environments.js';
import { cdcColumnLineage, sinkFieldMapping } from './connectorFields.js';
import { makeEdge, makeNode, type Fragment } from './graphBuilder.js';
import type { ExpandedConnectorBody } from './platformTypes.js';
import { placeholderTopic } from './topics.js';
import { bigQueryTables, isBigQuerySink, warehouseTableNode } from './warehouseTables.js';

/** `source` or `sink`, or null when neither the platform nor the config tells. */
export type ConnectorType = 'source' | 'sink' | null;

/** Splits a comma-separated config value, trimmed, empties dropped. */
export function splitList(value: string | null | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/** Source or sink: `info.type` when it says so, else the class name, else the topic keys. */
export function connectorTypeOf(
  reportedType: string | null | undefined,
  config: Record<string, string | null | undefined>,
): ConnectorType {
  const type = reportedType?.toLowerCase();
  if (type === 'source' || type === 'sink') return type;
  const cls = (config['connector.class'] ?? '').toLowerCase();
  if (/source/.test(cls)) return 'source';
  if (/sink/.test(cls)) return 'sink';
  if (config.topics || config['topics.regex']) return 'sink';
  if (config['kafka.topic'] || config['topic.prefix']) return 'source';
  return null;
}

/**
 * The topics a connector writes (source) or reads (sink). A sink reads `topics` and every listed topic
 * that `topics.regex` matches entirely (an invalid pattern matches nothing). A source writes
 * `kafka.topic`, or, Debezium-style, the topics of `debeziumTopics` when it has a topic prefix.
 * @param listedTopics the topics the cluster lists (Kafka REST), matched against patterns.
 * @returns topic names, sorted, without duplicates.
 */
export function connectorTopics(
  type: ConnectorType,
  config: Record<string, string | null | undefined>,
  listedTopics: readonly string[],
): string[] {
  const topics = new Set<string>();
  if (type === 'sink') {
    for (const topic of splitList(config.topics)) topics.add(topic);
    const regex = wholeMatch(config['topics.regex'], '');
    if (regex) for (const topic of listedTopics) if (regex.test(topic)) topics.add(topic);
  } else if (type === 'source') {
    for (const topic of splitList(config['kafka.topic'])) topics.add(topic);
    const prefix = topicPrefixOf(config);
    if (prefix) for (const topic of debeziumTopics(config, prefix, listedTopics)) topics.add(topic);
    if (!prefix && config['topic.prefix'] === undefined)
      for (const topic of splitList(config.topics)) topics.add(topic);
  }
  return [...topics].sort();
}

/** The topic prefix of a Debezium-style source: `topic.prefix`, else `database.server.name` (older connectors). */
export function topicPrefixOf(config: Record<string, string | null | undefined>): string | undefined {
  return config['topic.prefix'] || config['database.server.name'] || undefined;
}

/** True for a change-data-capture source: a `Cdc` managed class (`PostgresCdcSourceV2`...) or a Debezium class. */
export function isCdcSource(config: Record<string, string | null | undefined>): boolean {
  return /cdc|debezium/i.test(config['connector.class'] ?? '');
}

/** A pattern matched against the whole string (`^(?:...)$`), with `flags`; undefined when absent or invalid. */
function wholeMatch(pattern: string | null | undefined, flags: string): RegExp | undefined {
  if (!pattern) return undefined;
  try {
    return new RegExp(`^(?:${pattern})$`, flags);
  } catch {
    return undefined;
  }
}

/** Comma-separated Debezium filter patterns, each matched whole and case-insensitively; invalid ones dropped. */
function filterPatterns(value: string | null | undefined): RegExp[] {
  return splitList(value).flatMap((pattern) => wholeMatch(pattern, 'i') ?? []);
}

/** True when a filter entry is a plain table name (`public.orders`, `public\.orders`), not a pattern. */
function isLiteralTable(entry: string): boolean {
  return !/[\\^$*+?()[\]{}|]/.test(entry.replace(/\\\./g, '.'));
}

/**
 * The tables a Debezium-style topic stands for: `{prefix}.{schema}.{table}` (Postgres; `{database}.{table}`
 * for MySQL) gives `schema.table`; a topic with one more part (`{prefix}.{database}.{schema}.{table}`,
 * SQL Server) also gives its last two. Topics with no dot after the prefix (the schema-change topic,
 * `{prefix}.transaction`) stand for no table.
 */
export function debeziumTableIds(topic: string, prefix: string): string[] {
  if (!topic.startsWith(`${prefix}.`)) return [];
  const rest = topic.slice(prefix.length + 1);
  const parts = rest.split('.');
  if (parts.length < 2) return [];
  return parts.length > 2 ? [rest, parts.slice(-2).join('.')] : [rest];
}

/**
 * The topics of a Debezium-style source with topic prefix `prefix` (Debezium's table filters,
 * `docs/extraction.md`, "Debezium sources"). Its `table.include.list` (`table.whitelist`) and
 * `table.exclude.list` (`table.blacklist`) are comma-separated regular expressions matched, whole
 * and case-insensitively, against `schema.table` (`database.table` for MySQL);
 * `schema.include.list` / `schema.exclude.list` and `database.include.list` /
 * `database.exclude.list` against the part before the table. Matched against the cluster's listed
 * topics `{prefix}.{schema}.{table}`; an include entry that is a plain table name also gives its
 * topic when the cluster does not list it (a placeholder). A CDC source (`isCdcSource`) without an
 * include list captures every table its other filters allow; any other source with a prefix and no
 * include list gives no topic.
 * @returns topic names, unsorted.
 */
export function debeziumTopics(
  config: Record<string, string | null | undefined>,
  prefix: string,
  listedTopics: readonly string[],
): string[] {
  const includeList = config['table.include.list'] ?? config['table.whitelist'];
  const include = filterPatterns(includeList);
  const exclude = filterPatterns(config['table.exclude.list'] ?? config['table.blacklist']);
  const ownerInclude = filterPatterns(config['schema.include.list'] ?? config['database.include.list']);
  const ownerExclude = filterPatterns(config['schema.exclude.list'] ?? config['database.exclude.list']);
  const captured = (table: string): boolean => {
    const owner = table.slice(0, table.lastIndexOf('.'));
    if (ownerInclude.length > 0 && !ownerInclude.some((regex) => regex.test(owner))) return false;
    if (ownerExclude.some((regex) => regex.test(owner)) || exclude.some((regex) => regex.test(table))) return false;
    return include.length > 0 ? include.some((regex) => regex.test(table)) : true;
  };
  const topics = new Set<string>();
  if (include.length > 0 || isCdcSource(config)) {
    for (const topic of listedTopics) {
      if (debeziumTableIds(topic, prefix).some(captured)) topics.add(topic);
    }
  }
  for (const entry of splitList(includeList)) {
    const table = entry.replace(/\\\./g, '.');
    if (isLiteralTable(entry) && captured(table)) topics.add(`${prefix}.${table}`);
  }
  return [...topics];
}

function hostOf(url: string | null | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).host;
  } catch {
    return url.replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '') || undefined;
  }
}

/**
 * The external datasets a connector reads (source) or writes (sink), as OpenLineage-style URIs.
 * Known families: S3, GCS, Azure Blob, Postgres/MySQL/SQL Server/Oracle (CDC and JDBC),
 * Snowflake, Elasticsearch/OpenSearch, MongoDB, HTTP, Redshift and DynamoDB. Others give none;
 * BigQuery sinks give warehouse tables instead (`src/extraction/warehouseTables.ts`).
 */
export function externalDatasets(
  config: Record<string, string | null | undefined>,
  type: ConnectorType,
  topics: readonly string[],
): string[] {
  const cls = (config['connector.class'] ?? '').toLowerCase();
  const get = (...keys: string[]) =>
    keys.map((key) => config[key]).find((value) => value !== undefined && value !== null && value !== '');
  const uris: string[] = [];
  if (cls.includes('s3')) {
    const bucket = get('s3.bucket.name', 's3.bucket');
    if (bucket) uris.push(`s3://${bucket}/${get('topics.dir') ?? 'topics'}`);
  } else if (cls.includes('gcs')) {
    const bucket = get('gcs.bucket.name');
    if (bucket) uris.push(`gs://${bucket}/${get('topics.dir') ?? 'topics'}`);
  } else if (cls.includes('azureblob')) {
    const account = get('azblob.account.name');
    const container = get('azblob.container.name');
    if (account && container)
      uris.push(`wasbs://${container}@${account}.blob.core.windows.net/${get('topics.dir') ?? 'topics'}`);
  } else if (/postgres|mysql|sqlserver|oracle|mariadb/.test(cls)) {
    const scheme = /postgres/.test(cls)
      ? 'postgres'
      : /mysql|mariadb/.test(cls)
        ? 'mysql'
        : /sqlserver/.test(cls)
          ? 'sqlserver'
          : 'oracle';
    const host = get('database.hostname', 'connection.host', 'db.hostname');
    const port = get('database.port', 'connection.port', 'db.port');
    const database = get('database.dbname', 'db.name', 'database.name');
    if (host) {
      const base = `${scheme}://${host}${port ? `:${port}` : ''}`;
      const tables = sourceTables(config, type, topics);
      if (type === 'sink' && tables.length === 0) {
        for (const topic of topics) uris.push(`${base}/${database ? `${database}.` : ''}${topic}`);
      } else if (tables.length > 0) {
        for (const table of tables) uris.push(`${base}/${database ? `${database}.` : ''}${table}`);
      } else {
        uris.push(`${base}/${database ?? ''}`);
      }
    }
  } else if (cls.includes('snowflake')) {
    const host = hostOf(get('snowflake.url.name'));
    const database = get('snowflake.database.name');
    const schema = get('snowflake.schema.name');
    if (host && database) uris.push(`snowflake://${host}/${database}${schema ? `.${schema}` : ''}`);
  } else if (cls.includes('elasticsearch') || cls.includes('opensearch')) {
    const host = hostOf(get('connection.url', 'connection.urls'));
    if (host) uris.push(`elasticsearch://${host}`);
  } else if (cls.includes('mongo')) {
    const host = hostOf(get('connection.uri')) ?? get('connection.host');
    const database = get('database');
    if (host) uris.push(`mongodb://${host}/${database ?? ''}${get('collection') ? `.${get('collection')}` : ''}`);
  } else if (cls.includes('http')) {
    const url = get('http.api.url', 'url', 'http.url');
    if (url) uris.push(url);
  } else if (cls.includes('redshift')) {
    const host = get('aws.redshift.domain');
    if (host)
      uris.push(`redshift://${host}:${get('aws.redshift.port') ?? '5439'}/${get('aws.redshift.database') ?? ''}`);
  } else if (cls.includes('dynamodb')) {
    const region = get('aws.dynamodb.region');
    if (region) uris.push(`dynamodb://${region}`);
  }
  return [...new Set(uris)].sort();
}

/**
 * The tables a connector's database dataset names: for a source with a topic prefix, the tables its
 * topics stand for (`debeziumTableIds`, `schema.table`), else the plain names of `table.include.list`
 * (`table.whitelist`, `table.name.format`); patterns never become table names.
 */
function sourceTables(
  config: Record<string, string | null | undefined>,
  type: ConnectorType,
  topics: readonly string[],
): string[] {
  const prefix = topicPrefixOf(config);
  if (type === 'source' && prefix) {
    const fromTopics = topics.flatMap((topic) => debeziumTableIds(topic, prefix).slice(-1));
    if (fromTopics.length > 0) return fromTopics;
  }
  const listed = config['table.include.list'] || config['table.whitelist'] || config['table.name.format'];
  return splitList(listed)
    .filter(isLiteralTable)
    .map((entry) => entry.replace(/\\\./g, '.'));
}

/** The dead-letter topic of a sink connector: `errors.deadletterqueue.topic.name`, else `dlq-{lcc id}`. */
export function deadLetterTopic(
  config: Record<string, string | null | undefined>,
  lccId: string | null | undefined,
): string | undefined {
  const configured = config['errors.deadletterqueue.topic.name'];
  if (configured) return configured;
  return lccId ? `dlq-${lccId}` : undefined;
}

/**
 * The table dataset (EXTERNAL_DATASET node id) a CDC source's topic carries: the dataset whose URI
 * ends with the topic's table (`debeziumTableIds`); undefined for a source that is not CDC.
 */
function cdcTableDataset(
  config: Record<string, string | null | undefined>,
  topic: string,
  datasets: readonly string[],
  environmentId: string,
  clusterId: string,
): string | undefined {
  const prefix = topicPrefixOf(config);
  if (!prefix || !isCdcSource(config)) return undefined;
  for (const table of debeziumTableIds(topic, prefix)) {
    const uri = datasets.find((candidate) => candidate.endsWith(`.${table}`) || candidate.endsWith(`/${table}`));
    if (uri) return externalDatasetNode(environmentId, clusterId, uri).id;
  }
  return undefined;
}

/** Options of `connectorFragment`. */
export interface ConnectorFragmentOptions {
  /** `LINEAGE_SVC_WAREHOUSE_PROJECT_ID`: the project of BigQuery sink tables whose config names none. */
  warehouseProjectId?: string | undefined;
}

/** CONNECTOR, EXTERNAL_DATASET, warehouse CATALOG_TABLE and placeholder TOPIC nodes with their edges, for one cluster. */
export function connectorFragment(
  cluster: ClusterInfo,
  connectors: readonly ExpandedConnectorBody[],
  listedTopics: readonly string[],
  options: ConnectorFragmentOptions = {},
): Fragment {
  const env = cluster.environmentId;
  const fragment: Fragment = { nodes: [], edges: [] };
  for (const connector of [...connectors].sort((a, b) => (a.info.name < b.info.name ? -1 : 1))) {
    const config = connector.info.config ?? {};
    const name = connector.info.name;
    const lccId = connector.id?.id ?? null;
    const type = connectorTypeOf(connector.info.type ?? connector.status?.type, config);
    const topics = connectorTopics(type, config, listedTopics);
    const datasets = externalDatasets(config, type, topics);
    const id = connectorId(env, cluster.clusterId, name);
    fragment.nodes.push(
      makeNode({
        id,
        nodeType: 'CONNECTOR',
        system: 'STREAM',
        qualifiedName: `${cluster.clusterId}/${name}`,
        displayName: name,
        environmentId: env,
        clusterId: cluster.clusterId,
        attributes: {
          connector_class: config['connector.class'] ?? null,
          connector_type: type,
          connector_id: lccId,
          state: connector.status?.connector?.state ?? null,
          tasks: connector.status?.tasks?.length ?? null,
          input_data_format: config['input.data.format'] ?? undefined,
          output_data_format: config['output.data.format'] ?? config['data.format'] ?? undefined,
          field_mapping: type === 'sink' ? sinkFieldMapping(config) : undefined,
        },
      }),
    );
    for (const topic of topics) {
      fragment.nodes.push(placeholderTopic(env, cluster.clusterId, topic));
      const topicNode = topicId(env, cluster.clusterId, topic);
      const table = type === 'source' ? cdcTableDataset(config, topic, datasets, env, cluster.clusterId) : undefined;
      fragment.edges.push(
        type === 'sink'
          ? makeEdge(topicNode, 'CONSUMES', id)
          : makeEdge(
              id,
              'PRODUCES',
              topicNode,
              table ? { column_lineage: cdcColumnLineage(config, table) } : undefined,
            ),
      );
    }
    for (const uri of datasets) {
      const dataset = externalDatasetNode(env, cluster.clusterId, uri);
      const datasetId = dataset.id;
      fragment.nodes.push(dataset);
      fragment.edges.push(type === 'sink' ? makeEdge(id, 'PRODUCES', datasetId) : makeEdge(datasetId, 'CONSUMES', id));
    }
    if (type === 'sink' && isBigQuerySink(config)) {
      for (const ref of bigQueryTables(config, topics, cluster.clusterId, options.warehouseProjectId)) {
        const table = warehouseTableNode(env, cluster.clusterId, ref);
        fragment.nodes.push(table);
        fragment.edges.push(makeEdge(id, 'PRODUCES', table.id));
      }
    }
    if (type === 'sink') {
      const dlq = deadLetterTopic(config, lccId);
      if (dlq) {
        fragment.nodes.push(placeholderTopic(env, cluster.clusterId, dlq, { role: 'dlq', for_connector: name }));
        fragment.edges.push(makeEdge(id, 'PRODUCES', topicId(env, cluster.clusterId, dlq), { role: 'dlq' }));
      }
    }
  }
  return fragment;
}

/**
 * The EXTERNAL_DATASET node of a dataset outside the platform, named by its URI and scoped to the
 * environment and cluster that read or write it (contract section 1, `externalDatasetId`).
 * Attributes: `uri`, `scheme` (the URI's scheme) and `attributes`.
 */
export function externalDatasetNode(
  environmentId: string,
  clusterId: string,
  uri: string,
  attributes: Record<string, unknown> = {},
): Node {
  return makeNode({
    id: externalDatasetId(environmentId, uri),
    nodeType: 'EXTERNAL_DATASET',
    system: 'EXTERNAL',
    qualifiedName: uri,
    displayName: uri,
    environmentId,
    clusterId,
    attributes: { uri, scheme: uri.split(':')[0], ...attributes },
  });
}
