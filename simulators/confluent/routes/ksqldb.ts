/**
 * ksqlDB server, served below the ksqldbcm cluster's `status.http_endpoint` = `{url}/ksqldb/{lksqlc}`
 * (ksqlDB API key: the cluster's own `api_key` or the scenario's `ksqldb` key).
 *
 * `POST /ksql` (API name `ksqldb.ksql`) with `{"ksql":"...;","streamsProperties":{}}` answers a JSON
 * array with one entity per statement, in the shapes of ksqlDB's REST mapper:
 *
 * | statement | `@type` |
 * |---|---|
 * | `SHOW QUERIES;` / `LIST QUERIES;` | `queries` (`queries[{queryString, sinks, sinkKafkaTopics, id, statusCount, queryType, state}]`) |
 * | `SHOW QUERIES EXTENDED;` | `query_descriptions` (`queryDescriptions[]`, each as for EXPLAIN) |
 * | `LIST STREAMS;` / `SHOW STREAMS;` (`TABLES`) | `streams` / `tables` |
 * | `LIST STREAMS EXTENDED;` (`TABLES`) | `source_descriptions` (`sourceDescriptions[]`) |
 * | `DESCRIBE <name> [EXTENDED];` | `sourceDescription` |
 * | `EXPLAIN <query id>;` | `queryDescription` |
 *
 * Other statements answer 400 `statement_error` (error_code 40001) with the entities answered so
 * far, as ksqlDB stops at the first failing statement. Persistent queries read from consumer groups
 * named `_confluent-ksql-<topic_prefix>query_<query id>`.
 */
import { HttpError } from '../errors.js';
import type { KsqlModel, KsqlSourceModel } from '../model.js';
import type { KsqlQueryDef } from '../scenario.js';
import type { Registrar } from '../server.js';

const HOST = '10.12.4.7:8088';

function fieldInfo(source: KsqlSourceModel): Record<string, unknown>[] {
  const fields =
    source.def.fields.length > 0
      ? source.def.fields
      : [
          { name: 'ROWKEY', type: 'STRING', key: true },
          { name: 'PAYLOAD', type: 'STRING', key: false },
        ];
  return fields.map((f) => ({
    name: f.name,
    schema: { type: f.type.toUpperCase(), fields: null, memberSchema: null },
    ...(f.key ? { type: 'KEY' } : {}),
  }));
}

function splitStatements(text: string): string[] {
  const out: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (const ch of text) {
    current += ch;
    if (quote !== null) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '`' || ch === '"') {
      quote = ch;
    } else if (ch === ';') {
      if (current.trim() !== ';') out.push(current.trim());
      current = '';
    }
  }
  if (current.trim() !== '') out.push(current.trim());
  return out;
}

function unquote(name: string): string {
  const m = /^[`"](.*)[`"]$/.exec(name);
  return m?.[1] ?? name.toUpperCase();
}

/** Registers the ksqlDB server route. */
export function registerKsqldb(r: Registrar): void {
  const { world } = r;

  const sinkTopics = (k: KsqlModel, q: KsqlQueryDef): string[] =>
    q.sinks.map((s) => k.sourceByName.get(s.toUpperCase())?.def.topic).filter((t): t is string => t !== undefined);
  const runningQuery = (k: KsqlModel, q: KsqlQueryDef): Record<string, unknown> => ({
    queryString: q.sql,
    sinks: q.sinks.map((s) => s.toUpperCase()),
    sinkKafkaTopics: sinkTopics(k, q),
    id: q.id,
    statusCount: { [q.state]: 1 },
    queryType: q.query_type,
    state: q.state,
  });
  const queryDescription = (k: KsqlModel, q: KsqlQueryDef): Record<string, unknown> => {
    const sink = q.sinks[0] !== undefined ? k.sourceByName.get(q.sinks[0].toUpperCase()) : undefined;
    const sources = q.sources.map((s) => s.toUpperCase());
    const sinks = q.sinks.map((s) => s.toUpperCase());
    return {
      id: q.id,
      statementText: q.sql,
      windowType: sink?.def.windowed === true ? 'TUMBLING' : null,
      fields: sink !== undefined ? fieldInfo(sink) : [],
      sources,
      sinks,
      topology:
        'Topologies:\n   Sub-topology: 0\n' +
        `    Source: KSTREAM-SOURCE-0000000000 (topics: [${sources.map((s) => k.sourceByName.get(s)?.def.topic ?? s).join(', ')}])\n` +
        '      --> KSTREAM-TRANSFORMVALUES-0000000001\n' +
        `    Sink: KSTREAM-SINK-0000000003 (topic: ${sinkTopics(k, q)[0] ?? ''})\n`,
      executionPlan:
        ` > [ SINK ] | Schema: ... | Logger: ${q.id}.${sinks[0] ?? ''}\n` +
        `\t\t > [ PROJECT ] | Logger: ${q.id}.Project\n` +
        `\t\t\t\t > [ SOURCE ] | Logger: ${q.id}.KsqlTopic.Source\n`,
      overriddenProperties: {},
      ksqlHostQueryStatus: { [HOST]: q.state },
      queryType: q.query_type,
      queryErrors: [],
      tasksMetadata: [],
      consumerGroupId: `_confluent-ksql-${k.topicPrefix}query_${q.id}`,
      state: q.state === 'ERROR' ? 'ERROR' : 'RUNNING',
    };
  };
  const sourceDescription = (k: KsqlModel, s: KsqlSourceModel, extended: boolean): Record<string, unknown> => {
    const topic = k.kafkaCluster.topicByName.get(s.def.topic);
    const partitions = topic?.def.partitions ?? 1;
    const statement =
      s.def.statement ??
      `CREATE ${s.def.type} ${s.name} (${fieldInfo(s)
        .map(
          (f) =>
            `${String(f.name)} ${String((f.schema as { type: string }).type)}${f.type === 'KEY' ? (s.def.type === 'TABLE' ? ' PRIMARY KEY' : ' KEY') : ''}`,
        )
        .join(
          ', ',
        )}) WITH (KAFKA_TOPIC='${s.def.topic}', KEY_FORMAT='${s.def.key_format}', VALUE_FORMAT='${s.def.value_format}');`;
    const groups = extended
      ? s.readQueries.map((q) => {
          const group = k.kafkaCluster.groupById.get(`_confluent-ksql-${k.topicPrefix}query_${q.id}`);
          const rows = group?.lags.filter((row) => row.topic === s.def.topic) ?? [];
          return {
            groupId: `_confluent-ksql-${k.topicPrefix}query_${q.id}`,
            topicSummaries: [
              {
                kafkaTopic: s.def.topic,
                offsets: rows.map((row) => ({
                  partition: row.partition,
                  logStartOffset: 0,
                  logEndOffset: row.logEndOffset,
                  consumerOffset: row.currentOffset,
                })),
              },
            ],
          };
        })
      : [];
    return {
      name: s.name,
      windowType: s.def.windowed ? 'TUMBLING' : null,
      readQueries: s.readQueries.map((q) => runningQuery(k, q)),
      writeQueries: s.writeQueries.map((q) => runningQuery(k, q)),
      fields: fieldInfo(s),
      type: s.def.type,
      timestamp: '',
      statistics: '',
      errorStats: '',
      extended,
      keyFormat: s.def.key_format,
      valueFormat: s.def.value_format,
      topic: s.def.topic,
      partitions,
      replication: topic?.def.replication_factor ?? 3,
      statement,
      queryOffsetSummaries: groups,
      sourceConstraints: [...new Set(s.readQueries.flatMap((q) => q.sinks.map((n) => n.toUpperCase())))],
      clusterStatistics: [],
      clusterErrorStats: [],
    };
  };
  const listEntry = (s: KsqlSourceModel): Record<string, unknown> => ({
    type: s.def.type,
    name: s.name,
    topic: s.def.topic,
    keyFormat: s.def.key_format,
    valueFormat: s.def.value_format,
    isWindowed: s.def.windowed,
  });

  const answer = (k: KsqlModel, statementText: string): Record<string, unknown> | undefined => {
    const text = statementText.replace(/;\s*$/, '').replace(/\s+/g, ' ').trim();
    const upper = text.toUpperCase();
    const base = { statementText };
    let m: RegExpExecArray | null;
    if (/^(SHOW|LIST) QUERIES$/.test(upper)) {
      return { '@type': 'queries', ...base, queries: k.queries.map((q) => runningQuery(k, q)), warnings: [] };
    }
    if (/^(SHOW|LIST) QUERIES EXTENDED$/.test(upper)) {
      return {
        '@type': 'query_descriptions',
        ...base,
        queryDescriptions: k.queries.map((q) => queryDescription(k, q)),
        warnings: [],
      };
    }
    if ((m = /^(SHOW|LIST) (STREAMS|TABLES)( EXTENDED)?$/.exec(upper)) !== null) {
      const kind = m[2] === 'STREAMS' ? 'STREAM' : 'TABLE';
      const sources = k.sources.filter((s) => s.def.type === kind);
      if (m[3] !== undefined) {
        return {
          '@type': 'source_descriptions',
          ...base,
          sourceDescriptions: sources.map((s) => sourceDescription(k, s, true)),
          warnings: [],
        };
      }
      return kind === 'STREAM'
        ? { '@type': 'streams', ...base, streams: sources.map(listEntry), warnings: [] }
        : { '@type': 'tables', ...base, tables: sources.map(listEntry), warnings: [] };
    }
    if ((m = /^DESCRIBE (?:STREAM |TABLE )?([`"][^`"]+[`"]|[A-Za-z0-9_]+)( EXTENDED)?$/i.exec(text)) !== null) {
      const name = unquote(m[1] ?? '');
      const s = k.sourceByName.get(name);
      if (s === undefined) {
        throw new HttpError(400, 'ksqldb', `Could not find STREAM/TABLE '${name}' in the Metastore`, {
          statementText,
          errorCode: 40001,
        });
      }
      return {
        '@type': 'sourceDescription',
        ...base,
        sourceDescription: sourceDescription(k, s, m[2] !== undefined),
        warnings: [],
      };
    }
    if ((m = /^EXPLAIN ([A-Za-z0-9_]+)$/i.exec(text)) !== null) {
      const q = k.queryById.get((m[1] ?? '').toUpperCase());
      if (q === undefined)
        throw new HttpError(
          400,
          'ksqldb',
          `Query with id:${m[1] ?? ''} does not exist, use SHOW QUERIES to view the full set of running queries.`,
          { statementText, errorCode: 40001 },
        );
      return { '@type': 'queryDescription', ...base, queryDescription: queryDescription(k, q), warnings: [] };
    }
    return undefined;
  };

  r.post('/ksqldb/:ksql/ksql', { api: 'ksqldb.ksql', family: 'ksqldb', auth: 'ksqldb' }, (req, reply) => {
    const k = world.ksqlClusters.get((req.params as { ksql: string }).ksql);
    if (k === undefined) throw new HttpError(404, 'ksqldb', 'HTTP 404 Not Found', { errorCode: 40400 });
    const body = req.body as { ksql?: unknown } | undefined;
    if (body === undefined || body === null || typeof body.ksql !== 'string') {
      throw new HttpError(400, 'ksqldb', 'Request body must contain a "ksql" string', { errorCode: 40000 });
    }
    const entities: Record<string, unknown>[] = [];
    for (const statement of splitStatements(body.ksql)) {
      const entity = answer(k, statement);
      if (entity === undefined) {
        throw new HttpError(
          400,
          'ksqldb',
          `line 1:1: statement not supported by the simulator or mismatched input: ${statement}`,
          {
            statementText: statement,
            errorCode: 40001,
            entities,
          },
        );
      }
      entities.push(entity);
    }
    const accept = req.headers.accept ?? '';
    void reply.type(
      accept.includes('application/vnd.ksql.v1+json') ? 'application/vnd.ksql.v1+json' : 'application/json',
    );
    return JSON.stringify(entities);
  });
}
