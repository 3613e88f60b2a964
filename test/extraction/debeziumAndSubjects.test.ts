/**
 * Issue 14, item 8 (extraction): Debezium table filters as regular expressions matched against the
 * cluster's topics (`src/extraction/connectors.ts`, `debeziumTopics`), and RecordNameStrategy
 * subjects linked to topics from the registry's evidence (`src/extraction/schemas.ts`,
 * `subjectLinks`). Unit rules first, then an extraction of the demo estate with a regex include
 * list, a CDC source without one and RecordNameStrategy subjects added (a copy of the scenario; the
 * built-in demo is unchanged).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { parseScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import { connectorId, externalDatasetId, schemaId, topicId } from '../../src/graph/ids.js';
import type { Edge, LineageGraph } from '../../src/graph/model.js';
import { connectorTopics, debeziumTableIds, externalDatasets } from '../../src/extraction/connectors.js';
import { extract } from '../../src/extraction/extract.js';
import { subjectLinks, type SubjectSummary } from '../../src/extraction/schemas.js';
import { silentLogger } from '../../src/logger.js';
import { DEDICATED, PROD, fastApi } from './helpers.js';

const LISTED = [
  'pg.retail.public.orders',
  'pg.retail.public.customers',
  'pg.retail.audit.logins',
  'pg.retail.transaction',
  'pg.retail',
  'clickstream',
];

describe('Debezium table filters', () => {
  const cdc = { 'connector.class': 'PostgresCdcSourceV2', 'topic.prefix': 'pg.retail' };

  it('matches a regex table.include.list, whole and case-insensitively, against the listed topics', () => {
    assert.deepEqual(connectorTopics('source', { ...cdc, 'table.include.list': 'public\\..*' }, LISTED), [
      'pg.retail.public.customers',
      'pg.retail.public.orders',
    ]);
    assert.deepEqual(connectorTopics('source', { ...cdc, 'table.include.list': 'PUBLIC\\.ORD.*' }, LISTED), [
      'pg.retail.public.orders',
    ]);
    // Whole match: a pattern that matches the start of `public.orders` only matches no table.
    assert.deepEqual(connectorTopics('source', { ...cdc, 'table.include.list': 'public\\.ord[a-z]?' }, LISTED), []);
  });

  it('captures every table of a CDC source without an include list, minus the excluded ones', () => {
    assert.deepEqual(connectorTopics('source', cdc, LISTED), [
      'pg.retail.audit.logins',
      'pg.retail.public.customers',
      'pg.retail.public.orders',
    ]);
    assert.deepEqual(
      connectorTopics('source', { ...cdc, 'table.exclude.list': 'audit\\..*,public\\.customers' }, LISTED),
      ['pg.retail.public.orders'],
    );
    assert.deepEqual(connectorTopics('source', { ...cdc, 'schema.include.list': 'audit' }, LISTED), [
      'pg.retail.audit.logins',
    ]);
    assert.deepEqual(connectorTopics('source', { ...cdc, 'schema.exclude.list': 'audit' }, LISTED), [
      'pg.retail.public.customers',
      'pg.retail.public.orders',
    ]);
  });

  it('keeps plain table names as topics even when the cluster does not list them, never patterns', () => {
    assert.deepEqual(
      connectorTopics('source', { ...cdc, 'table.include.list': 'public.orders,public\\.refunds,public\\..*x' }, []),
      ['pg.retail.public.orders', 'pg.retail.public.refunds'],
    );
    // A source with a prefix that is neither CDC nor filtered names no table.
    assert.deepEqual(connectorTopics('source', { 'topic.prefix': 'pg.retail' }, LISTED), []);
  });

  it('reads the table of Postgres, MySQL and SQL Server topic names', () => {
    assert.deepEqual(debeziumTableIds('pg.retail.public.orders', 'pg.retail'), ['public.orders']);
    assert.deepEqual(debeziumTableIds('mysql.inventory.products', 'mysql'), ['inventory.products']);
    assert.deepEqual(debeziumTableIds('mssql.sales.dbo.orders', 'mssql'), ['sales.dbo.orders', 'dbo.orders']);
    assert.deepEqual(debeziumTableIds('pg.retail.transaction', 'pg.retail'), []);
    assert.deepEqual(debeziumTableIds('pg.retailer.public.x', 'pg.retail'), []);
  });

  it('names the database tables of the matched topics, never the pattern', () => {
    const config = {
      ...cdc,
      'database.hostname': 'db',
      'database.port': '5432',
      'database.dbname': 'retail',
      'table.include.list': 'public\\..*',
    };
    const topics = connectorTopics('source', config, LISTED);
    assert.deepEqual(externalDatasets(config, 'source', topics), [
      'postgres://db:5432/retail.public.customers',
      'postgres://db:5432/retail.public.orders',
    ]);
  });
});

function summary(
  subject: string,
  fullName: string | undefined,
  schemaId: number,
  references: string[] = [],
  union = false,
): SubjectSummary {
  return { subject, fullName, schemaId, references, union };
}

describe('RecordNameStrategy subjects', () => {
  const known = new Set(['orders', 'order-events', 'customers', 'pg.retail.public.orders', 'ksql_a', 'ksql_b']);

  it('links union members, record namespaces that are topics and unique record names; leaves nested types and the rest', () => {
    const links = subjectLinks(
      [
        summary('order-events-value', undefined, 1, ['com.acme.OrderCreated'], true),
        summary('com.acme.OrderCreated', 'com.acme.OrderCreated', 2, ['com.acme.Money']),
        summary('com.acme.Money', 'com.acme.Money', 3),
        summary('customers-value', 'com.acme.Customer', 11, ['com.acme.Address']),
        summary('com.acme.Address', 'com.acme.Address', 12),
        summary('pg.retail.public.orders.Envelope', 'pg.retail.public.orders.Envelope', 4),
        summary('pg.retail.public.orders.Key', 'pg.retail.public.orders.Key', 5),
        summary('orders-value', 'com.acme.Order', 6),
        summary('com.acme.Order', 'com.acme.Order', 7),
        summary('ksql_a-value', 'io.confluent.ksql.avro_schemas.KsqlDataSourceSchema', 8),
        summary('ksql_b-value', 'io.confluent.ksql.avro_schemas.KsqlDataSourceSchema', 9),
        summary(
          'io.confluent.ksql.avro_schemas.KsqlDataSourceSchema',
          'io.confluent.ksql.avro_schemas.KsqlDataSourceSchema',
          9,
        ),
        summary('com.acme.Unused', 'com.acme.Unused', 10),
      ],
      known,
    );
    const rows = links.map((link) => [link.subject, link.topic, link.role, link.evidence, link.referencedBy ?? null]);
    assert.deepEqual(rows, [
      ['com.acme.Order', 'orders', 'value', 'record_name', null],
      ['com.acme.OrderCreated', 'order-events', 'value', 'reference', 'order-events-value'],
      ['customers-value', 'customers', 'value', 'subject_name', null],
      // Two topics have this record name: only the one with the same schema id.
      ['io.confluent.ksql.avro_schemas.KsqlDataSourceSchema', 'ksql_b', 'value', 'record_name', null],
      ['ksql_a-value', 'ksql_a', 'value', 'subject_name', null],
      ['ksql_b-value', 'ksql_b', 'value', 'subject_name', null],
      ['order-events-value', 'order-events', 'value', 'subject_name', null],
      ['orders-value', 'orders', 'value', 'subject_name', null],
      ['pg.retail.public.orders.Envelope', 'pg.retail.public.orders', 'value', 'record_namespace', null],
      ['pg.retail.public.orders.Key', 'pg.retail.public.orders', 'key', 'record_namespace', null],
    ]);
  });
});

/** The demo scenario with a regex include list, a second CDC source and RecordNameStrategy subjects. */
function extendedDemo(): unknown {
  const raw = YAML.parse(readFileSync('simulators/confluent/scenarios/demo.yaml', 'utf8')) as {
    environments: {
      schema_registry: { subjects: unknown[] };
      kafka_clusters: { connectors: unknown[]; topics: unknown[] }[];
    }[];
  };
  const prod = raw.environments[0]!;
  const dedicated = prod.kafka_clusters[0]!;
  const cdc = dedicated.connectors[0] as { name: string; config: Record<string, string> };
  assert.equal(cdc.name, 'pg-retail-cdc');
  cdc.config['table.include.list'] = 'public\\..*';
  dedicated.topics.push(
    { name: 'pg.retail.audit.logins', partitions: 1 },
    { name: 'mysql', partitions: 1 },
    { name: 'mysql.inventory.products', partitions: 3 },
    { name: 'mysql.inventory.stock', partitions: 3 },
    { name: 'mysql.inventory.stock_audit', partitions: 1 },
    {
      name: 'order-events',
      partitions: 6,
      value_schema: {
        schema: '["com.acme.retail.OrderCreated", "com.acme.retail.OrderShipped"]',
        references: [
          { name: 'com.acme.retail.OrderCreated', subject: 'com.acme.retail.OrderCreated', version: 1 },
          { name: 'com.acme.retail.OrderShipped', subject: 'com.acme.retail.OrderShipped', version: 1 },
        ],
      },
    },
  );
  dedicated.connectors.push({
    name: 'mysql-inventory-cdc',
    id: 'lcc-my7c2d',
    class: 'MySqlCdcSourceV2',
    type: 'source',
    config: {
      'database.hostname': 'inventory-db',
      'database.port': '3306',
      'topic.prefix': 'mysql',
      'table.exclude.list': 'inventory\\.stock_audit',
      'value.subject.name.strategy': 'RecordNameStrategy',
    },
  });
  const record = (namespace: string, name: string) => ({
    type: 'record',
    name,
    namespace,
    fields: [{ name: 'id', type: 'long' }],
  });
  prod.schema_registry.subjects.push(
    { subject: 'com.acme.retail.OrderCreated', schema: record('com.acme.retail', 'OrderCreated') },
    { subject: 'com.acme.retail.OrderShipped', schema: record('com.acme.retail', 'OrderShipped') },
    { subject: 'mysql.inventory.products.Envelope', schema: record('mysql.inventory.products', 'Envelope') },
    { subject: 'mysql.inventory.products.Key', schema: record('mysql.inventory.products', 'Key') },
    { subject: 'com.acme.retail.Unlinked', schema: record('com.acme.retail', 'Unlinked') },
  );
  return raw;
}

describe('extraction of the extended demo', () => {
  let sim: PlatformSimulator;
  let graph: LineageGraph;
  before(async () => {
    sim = await startPlatformSimulator({ scenario: parseScenario(extendedDemo(), 'extended demo') });
    graph = (await extract({ platform: fastApi(sim), logger: silentLogger() }, { environmentIds: [PROD] })).graph;
  });
  after(async () => {
    await sim.close();
  });

  const producedBy = (connector: string) =>
    graph.edges
      .filter((edge) => edge.edge_type === 'PRODUCES' && edge.src_id === connectorId(PROD, DEDICATED, connector))
      .map((edge) => edge.dst_id)
      .sort();
  const hasSchema = (topic: string): Edge[] =>
    graph.edges.filter((edge) => edge.edge_type === 'HAS_SCHEMA' && edge.src_id === topicId(PROD, DEDICATED, topic));

  it('gives the regex include list its matching topics and tables', () => {
    const topics = ['pg.retail.public.customers', 'pg.retail.public.order_items', 'pg.retail.public.orders'];
    assert.deepEqual(
      producedBy('pg-retail-cdc'),
      topics.map((topic) => topicId(PROD, DEDICATED, topic)),
    );
    const consumed = graph.edges
      .filter((edge) => edge.edge_type === 'CONSUMES' && edge.dst_id === connectorId(PROD, DEDICATED, 'pg-retail-cdc'))
      .map((edge) => edge.src_id)
      .sort();
    const host = 'postgres://retail-db.c8x2k4.us-east-1.rds.amazonaws.com:5432/retail';
    assert.deepEqual(
      consumed,
      ['customers', 'order_items', 'orders'].map((table) => externalDatasetId(PROD, `${host}.public.${table}`)),
    );
    assert.ok(!graph.nodes.some((node) => node.id.includes('.*')), 'no node is named by a pattern');
  });

  it('gives a CDC source without an include list every captured table of its prefix', () => {
    assert.deepEqual(
      producedBy('mysql-inventory-cdc'),
      ['mysql.inventory.products', 'mysql.inventory.stock'].map((topic) => topicId(PROD, DEDICATED, topic)),
    );
  });

  it('links RecordNameStrategy subjects by union reference and by record namespace, and leaves the others', () => {
    const rows = (topic: string) =>
      hasSchema(topic)
        .map((edge) => [edge.dst_id, edge.attributes?.role, edge.attributes?.evidence ?? null])
        .sort();
    const subject = (name: string) => schemaId(PROD, name);
    assert.deepEqual(rows('order-events'), [
      [subject('com.acme.retail.OrderCreated'), 'value', 'reference'],
      [subject('com.acme.retail.OrderShipped'), 'value', 'reference'],
      [subject('order-events-value'), 'value', null],
    ]);
    assert.deepEqual(rows('mysql.inventory.products'), [
      [subject('mysql.inventory.products.Envelope'), 'value', 'record_namespace'],
      [subject('mysql.inventory.products.Key'), 'key', 'record_namespace'],
    ]);
    // The demo's Address is a nested type of the customers record: no link of its own.
    assert.deepEqual(
      rows('pg.retail.public.customers').map(([id]) => id),
      [subject('pg.retail.public.customers-value')],
    );
    assert.ok(!graph.edges.some((edge) => edge.dst_id === subject('com.acme.retail.Unlinked')));
    assert.ok(
      graph.nodes.some((node) => node.id === subject('com.acme.retail.Unlinked')),
      'still a SCHEMA node',
    );
  });
});
