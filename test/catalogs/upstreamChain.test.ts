/**
 * Unit tests of the pure push pieces (`docs/specification.md`, "Catalog integrations" ->
 * "Lakehouse catalog (table nodes)"): the upstream chain (order, kinds, schema fields), the ~3 KB cap with truncation, the `lineage_svc.*`
 * properties, the comment tree, the bridge rows, and the SQL text (identifier quoting and string
 * escaping, checked by parsing the statements back with the simulator's SQL parser).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  chooseWarehouse,
  commentStatement,
  createBridgeTableStatement,
  deleteBridgeRowsStatement,
  insertBridgeRowsStatement,
  lakehouseDeepLink,
  setPropertiesStatement,
  sqlIdentifier,
  sqlString,
  tableParts,
} from '../../src/catalogs/lakehouse.js';
import {
  BRIDGE_COLUMNS,
  CHAIN_MAX_BYTES,
  PROPERTY_MAX_BYTES,
  bridgeRows,
  byteLength,
  capChain,
  commentTree,
  indexGraph,
  lineageProperties,
  upstreamChain,
  type ChainEntry,
} from '../../src/catalogs/upstreamChain.js';
import {
  connectorId,
  externalDatasetId,
  lakehouseTableId,
  materializedTableId,
  schemaId,
  streamJobId,
  topicId,
} from '../../src/graph/ids.js';
import type { Edge, EdgeType, LineageGraph, Node } from '../../src/graph/model.js';
import { parseStatement } from '../../simulators/databricks/sql.js';

const ENV = 'env-q7m2k9';
const LKC = 'lkc-7x9m2p';
const ids = {
  pg: externalDatasetId(ENV, 'postgres://db:5432/retail.public.orders'),
  cdc: connectorId(ENV, LKC, 'pg-cdc'),
  raw: topicId(ENV, LKC, 'pg.retail.public.orders'),
  schema: schemaId(ENV, 'pg.retail.public.orders-value'),
  job: streamJobId(ENV, 'enrich-orders'),
  enriched: topicId(ENV, LKC, 'orders_enriched'),
  mt: materializedTableId(ENV, LKC, 'orders_enriched'),
  table: lakehouseTableId(ENV, 'retail_prod', LKC, 'orders_enriched'),
  derived: lakehouseTableId(ENV, 'retail_prod', 'gold', 'daily_revenue'),
};

function node(id: string, fields: Partial<Node> & Pick<Node, 'node_type' | 'system' | 'qualified_name'>): Node {
  return {
    id,
    display_name: fields.qualified_name.split('/').at(-1)!,
    environment_id: ENV,
    cluster_id: LKC,
    attributes: null,
    ...fields,
  };
}
const edge = (src: string, type: EdgeType, dst: string, attributes: Edge['attributes'] = null): Edge => ({
  src_id: src,
  dst_id: dst,
  edge_type: type,
  attributes,
});

function pipeline(): LineageGraph {
  return {
    nodes: [
      node(ids.pg, {
        node_type: 'EXTERNAL_DATASET',
        system: 'EXTERNAL',
        qualified_name: 'postgres://db:5432/retail.public.orders',
        display_name: 'retail.public.orders',
        cluster_id: null,
      }),
      node(ids.cdc, {
        node_type: 'CONNECTOR',
        system: 'STREAM',
        qualified_name: `${LKC}/pg-cdc`,
        attributes: { connector_class: 'PostgresCdcSourceV2' },
      }),
      node(ids.raw, { node_type: 'TOPIC', system: 'STREAM', qualified_name: `${LKC}/pg.retail.public.orders` }),
      node(ids.schema, {
        node_type: 'SCHEMA',
        system: 'STREAM',
        qualified_name: 'pg.retail.public.orders-value',
        attributes: {
          fields: [
            { name: 'order_id', type: 'string' },
            { name: 'amount', type: 'double' },
          ],
        },
      }),
      node(ids.job, {
        node_type: 'STREAM_JOB',
        system: 'STREAM',
        qualified_name: 'enrich-orders',
        attributes: { sql: "INSERT INTO orders_enriched SELECT * FROM `pg.retail.public.orders` WHERE note = 'it''s'" },
      }),
      node(ids.enriched, { node_type: 'TOPIC', system: 'STREAM', qualified_name: `${LKC}/orders_enriched` }),
      node(ids.mt, {
        node_type: 'MATERIALIZED_TABLE',
        system: 'STREAM',
        qualified_name: `${LKC}/orders_enriched`,
        display_name: 'orders_enriched (tableflow)',
      }),
      node(ids.table, {
        node_type: 'CATALOG_TABLE',
        system: 'LAKEHOUSE',
        qualified_name: `retail_prod.${LKC}.orders_enriched`,
        display_name: 'orders_enriched',
        catalog_type: 'LAKEHOUSE_CATALOG',
      }),
      node(ids.derived, {
        node_type: 'CATALOG_TABLE',
        system: 'LAKEHOUSE',
        qualified_name: 'retail_prod.gold.daily_revenue',
        display_name: 'daily_revenue',
        catalog_type: 'LAKEHOUSE_CATALOG',
        attributes: { derived: true },
      }),
    ],
    edges: [
      edge(ids.pg, 'CONSUMES', ids.cdc),
      edge(ids.cdc, 'PRODUCES', ids.raw),
      edge(ids.raw, 'HAS_SCHEMA', ids.schema, { role: 'value' }),
      edge(ids.raw, 'CONSUMES', ids.job),
      edge(ids.job, 'PRODUCES', ids.enriched),
      edge(ids.enriched, 'MATERIALIZES', ids.mt),
      edge(ids.mt, 'MATERIALIZES', ids.table),
      edge(ids.table, 'TRANSFORMS', ids.derived),
    ],
  };
}

const SYNCED = '2025-01-02T03:04:05Z';

describe('upstreamChain', () => {
  it('lists the upstream nodes nearest first with kinds, sql, connector class and schema fields', () => {
    const chain = upstreamChain(indexGraph(pipeline()), ids.table);
    assert.deepEqual(
      chain.map((e) => [e.hop, e.kind, e.qualified_name]),
      [
        [1, 'materialized_table', `${LKC}/orders_enriched`],
        [2, 'topic', `${LKC}/orders_enriched`],
        [3, 'stream_job', 'enrich-orders'],
        [4, 'topic', `${LKC}/pg.retail.public.orders`],
        [5, 'connector', `${LKC}/pg-cdc`],
        [6, 'external_dataset', 'postgres://db:5432/retail.public.orders'],
      ],
    );
    assert.match(chain[2]!.sql!, /^INSERT INTO orders_enriched/);
    assert.equal(chain[4]!.connector_class, 'PostgresCdcSourceV2');
    assert.deepEqual(chain[3]!.schema_fields, [
      { name: 'order_id', type: 'string' },
      { name: 'amount', type: 'double' },
    ]);
    assert.equal(chain[1]!.schema_fields, undefined, 'a topic without a schema edge has no schema_fields');
    assert.equal(chain[0]!.edge_type, 'MATERIALIZES');
    assert.equal(
      chain[5]!.full_path,
      `postgres://db:5432/retail.public.orders -> ${LKC}/pg-cdc -> ${LKC}/pg.retail.public.orders -> enrich-orders -> ` +
        `${LKC}/orders_enriched -> ${LKC}/orders_enriched -> retail_prod.${LKC}.orders_enriched`,
    );
  });

  it('walks through catalog tables without listing them (hop numbers stay graph distances)', () => {
    const chain = upstreamChain(indexGraph(pipeline()), ids.derived);
    assert.equal(chain[0]!.hop, 2);
    assert.equal(chain[0]!.kind, 'materialized_table');
    assert.ok(chain.every((e) => e.kind !== ('catalog_table' as string)));
    assert.deepEqual(upstreamChain(indexGraph(pipeline()), 'lakehouse:catalog_table:x:missing'), []);
  });

  it('stops at the hop limit', () => {
    assert.equal(upstreamChain(indexGraph(pipeline()), ids.table, 2).length, 2);
  });
});

describe('capChain', () => {
  const long = (n: number): ChainEntry[] =>
    Array.from({ length: n }, (_, i) => ({
      hop: i + 1,
      kind: 'topic',
      qualified_name: `${LKC}/topic_${'x'.repeat(80)}_${i}`,
      display_name: `t${i}`,
      node_id: `n${i}`,
      system: 'stream',
      edge_type: 'PRODUCES',
      full_path: '',
    }));

  it('keeps a small chain whole, compact JSON without bridge-only fields', () => {
    const capped = capChain(long(3));
    assert.equal(capped.truncated, false);
    assert.equal(capped.hops.length, 3);
    assert.ok(!capped.json.includes('node_id') && !capped.json.includes(' '));
    assert.deepEqual(Object.keys(JSON.parse(capped.json)[0]), ['hop', 'kind', 'qualified_name', 'display_name']);
  });

  it('drops the farthest hops until the JSON fits in about 3 KB and says so', () => {
    const capped = capChain(long(60));
    assert.equal(capped.truncated, true);
    assert.ok(byteLength(capped.json) <= CHAIN_MAX_BYTES);
    assert.ok(capped.hops.length > 10 && capped.hops.length < 60);
    assert.deepEqual(
      capped.hops.map((h) => h.hop),
      Array.from({ length: capped.hops.length }, (_, i) => i + 1),
      'nearest kept',
    );
  });

  it('drops the fields of a single oversized hop, then the hop', () => {
    const big: ChainEntry = {
      ...long(1)[0]!,
      schema_fields: Array.from({ length: 400 }, (_, i) => ({ name: `f${i}`, type: 'string' })),
    };
    const capped = capChain([big]);
    assert.equal(capped.truncated, true);
    assert.equal(capped.hops[0]!.schema_fields, undefined);
    assert.deepEqual(capChain([{ ...big, qualified_name: 'q'.repeat(5000) }]), {
      hops: [],
      json: '[]',
      truncated: true,
    });
  });

  it('counts bytes, not characters (multi-byte names)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 200 }), { maxLength: 60 }), (names) => {
        const chain = names.map((name, i) => ({
          ...long(1)[0]!,
          hop: i + 1,
          qualified_name: name,
          display_name: name,
        }));
        const capped = capChain(chain);
        assert.ok(byteLength(capped.json) <= CHAIN_MAX_BYTES);
        assert.equal(
          capped.truncated,
          capped.hops.length < chain.length ||
            JSON.stringify(capped.hops) !==
              JSON.stringify(chain.map(({ node_id: _a, system: _b, edge_type: _c, full_path: _d, ...hop }) => hop)),
        );
      }),
      { numRuns: 50 },
    );
  });
});

describe('lineageProperties', () => {
  const graph = pipeline();
  const table = graph.nodes.find((n) => n.id === ids.table)!;
  const chain = upstreamChain(indexGraph(graph), ids.table);

  it('sets the lineage_svc.* keys of the specification', () => {
    const { properties } = lineageProperties({ table, chain, syncedAt: SYNCED });
    assert.deepEqual(Object.keys(properties).sort(), [
      'lineage_svc.cluster_id',
      'lineage_svc.environment_id',
      'lineage_svc.last_synced',
      'lineage_svc.pipeline_type',
      'lineage_svc.source_connectors',
      'lineage_svc.source_topics',
      'lineage_svc.upstream_chain',
    ]);
    assert.equal(properties['lineage_svc.source_topics'], `${LKC}/orders_enriched,${LKC}/pg.retail.public.orders`);
    assert.equal(properties['lineage_svc.source_connectors'], 'pg-cdc');
    assert.equal(properties['lineage_svc.pipeline_type'], 'tableflow');
    assert.equal(properties['lineage_svc.last_synced'], SYNCED);
    assert.equal(properties['lineage_svc.environment_id'], ENV);
    assert.equal(properties['lineage_svc.cluster_id'], LKC);
    const parsed = JSON.parse(properties['lineage_svc.upstream_chain']!) as Array<{ hop: number; kind: string }>;
    assert.deepEqual(
      parsed.map((h) => h.kind),
      ['materialized_table', 'topic', 'stream_job', 'topic', 'connector', 'external_dataset'],
    );
  });

  it('marks upstream_truncated "true" only when cut, and keeps every value under 4 KB', () => {
    const manyTopics: ChainEntry[] = Array.from({ length: 300 }, (_, i) => ({
      hop: 1 + (i % 9),
      kind: 'topic',
      qualified_name: `${LKC}/t${i}_${'y'.repeat(30)}`,
      display_name: `t${i}`,
      node_id: `n${i}`,
      system: 'stream',
      edge_type: 'PRODUCES',
      full_path: '',
    }));
    const { properties, capped } = lineageProperties({ table, chain: manyTopics, syncedAt: SYNCED });
    assert.equal(properties['lineage_svc.upstream_truncated'], 'true');
    assert.equal(capped.truncated, true);
    for (const value of Object.values(properties)) assert.ok(byteLength(value) <= PROPERTY_MAX_BYTES);
    assert.equal(
      lineageProperties({ table, chain, syncedAt: SYNCED }).properties['lineage_svc.upstream_truncated'],
      undefined,
    );
  });

  it('calls derived tables catalog_derived', () => {
    const derived = graph.nodes.find((n) => n.id === ids.derived)!;
    assert.equal(
      lineageProperties({ table: derived, chain: upstreamChain(indexGraph(graph), ids.derived), syncedAt: SYNCED })
        .properties['lineage_svc.pipeline_type'],
      'catalog_derived',
    );
  });
});

describe('commentTree', () => {
  it('is an indented tree from the farthest hop down to the table, then environment and last synced', () => {
    const graph = pipeline();
    const table = graph.nodes.find((n) => n.id === ids.table)!;
    const { capped } = lineageProperties({
      table,
      chain: upstreamChain(indexGraph(graph), ids.table),
      syncedAt: SYNCED,
    });
    assert.equal(
      commentTree(table, capped, SYNCED),
      [
        'Upstream lineage (lineage-svc):',
        '- external_dataset: retail.public.orders',
        '  - connector: pg-cdc [PostgresCdcSourceV2]',
        '    - topic: pg.retail.public.orders [2 columns]',
        '      - stream_job: enrich-orders [SQL: INSERT INTO orders_enriched SELECT * FROM `pg.retail.public.orders` WHERE not...]',
        '        - topic: orders_enriched',
        '          - materialized_table: orders_enriched (tableflow)',
        `            -> retail_prod.${LKC}.orders_enriched`,
        `Environment: ${ENV}`,
        `Last synced: ${SYNCED}`,
      ].join('\n'),
    );
  });

  it('notes omitted hops when the chain was cut', () => {
    const table = pipeline().nodes.find((n) => n.id === ids.table)!;
    const text = commentTree(table, { hops: [], json: '[]', truncated: true }, SYNCED);
    assert.match(text, /\(no upstream nodes known\)/);
    assert.match(text, /farther upstream hops omitted/);
  });
});

describe('bridgeRows', () => {
  it('has one row per upstream node, each with the whole chain and the specification columns', () => {
    const graph = pipeline();
    const table = graph.nodes.find((n) => n.id === ids.table)!;
    const chain = upstreamChain(indexGraph(graph), ids.table);
    const rows = bridgeRows({ table, chain, syncedAt: SYNCED });
    assert.equal(rows.length, chain.length);
    assert.deepEqual(
      Object.keys(rows[0]!),
      BRIDGE_COLUMNS.map(([name]) => name),
    );
    assert.deepEqual(rows[4], {
      uc_table: `retail_prod.${LKC}.orders_enriched`,
      source_type: 'connector',
      source_name: `${LKC}/pg-cdc`,
      source_system: 'stream',
      edge_type: 'PRODUCES',
      environment_id: ENV,
      cluster_id: LKC,
      hop_distance: 5,
      full_path:
        `${LKC}/pg-cdc -> ${LKC}/pg.retail.public.orders -> enrich-orders -> ` +
        `${LKC}/orders_enriched -> ${LKC}/orders_enriched -> retail_prod.${LKC}.orders_enriched`,
      chain_json: rows[0]!.chain_json,
      synced_at: SYNCED,
    });
    assert.equal(JSON.parse(rows[0]!.chain_json).length, chain.length);
    assert.equal(rows[5]!.source_system, 'external');
  });
});

describe('SQL text', () => {
  it('quotes identifiers with backticks and doubles backticks inside', () => {
    assert.equal(sqlIdentifier('lkc-7x9m2p'), '`lkc-7x9m2p`');
    assert.equal(sqlIdentifier('a`b'), '`a``b`');
    assert.equal(
      setPropertiesStatement(['c', 's`; DROP TABLE x; --', 't'], { k: 'v' }),
      "ALTER TABLE `c`.`s``; DROP TABLE x; --`.`t` SET TBLPROPERTIES ('k' = 'v')",
    );
  });

  it('escapes string literals to one line', () => {
    assert.equal(sqlString("it's \\ a\nb\tc\r"), "'it\\'s \\\\ a\\nb\\tc\\r'");
    assert.equal(sqlString('x\u0000y\u0007'), "'xy'");
  });

  it('round-trips any name and value through the statements (parsed back by the simulator)', () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(text, text, text, text, text, (catalog, schema, table, value, comment) => {
        const parts = [catalog || 'c', schema || 's', table || 't'];
        // control characters other than \n \r \t are dropped by sqlString
        // eslint-disable-next-line no-control-regex
        const clean = (s: string) => s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '');
        const props = parseStatement(setPropertiesStatement(parts, { 'lineage_svc.x': value }));
        assert.deepEqual(props, {
          kind: 'set_properties',
          table: parts,
          properties: { 'lineage_svc.x': clean(value) },
        });
        assert.deepEqual(parseStatement(commentStatement(parts, comment)), {
          kind: 'comment',
          table: parts,
          comment: clean(comment),
        });
        const del = parseStatement(deleteBridgeRowsStatement(parts[0]!, value));
        assert.deepEqual(del, {
          kind: 'delete',
          table: [parts[0], 'default', 'stream_lineage'],
          column: 'uc_table',
          value: clean(value),
        });
      }),
      { numRuns: 200 },
    );
  });

  it('builds the bridge table and its rows with typed values', () => {
    assert.deepEqual(parseStatement(createBridgeTableStatement('retail_prod')), {
      kind: 'create_table',
      table: ['retail_prod', 'default', 'stream_lineage'],
      ifNotExists: true,
      columns: BRIDGE_COLUMNS.map(([name, type]) => ({ name, type })),
    });
    const graph = pipeline();
    const table = graph.nodes.find((n) => n.id === ids.table)!;
    const rows = bridgeRows({ table, chain: upstreamChain(indexGraph(graph), ids.table), syncedAt: SYNCED });
    const statement = insertBridgeRowsStatement('retail_prod', rows);
    assert.match(statement, /TIMESTAMP '2025-01-02T03:04:05Z'/);
    const parsed = parseStatement(statement);
    assert.equal(parsed.kind, 'insert');
    if (parsed.kind !== 'insert') return;
    assert.equal(parsed.rows.length, rows.length);
    assert.deepEqual(
      parsed.rows[2],
      BRIDGE_COLUMNS.map(([name]) => rows[2]![name]),
    );
  });
});

describe('helpers', () => {
  it('splits qualified names, builds deep links, picks warehouses', () => {
    assert.deepEqual(tableParts({ qualified_name: `retail_prod.${LKC}.orders_enriched`, attributes: null }), [
      'retail_prod',
      LKC,
      'orders_enriched',
    ]);
    assert.equal(
      lakehouseDeepLink('https://dbc-1.cloud.databricks.com/', ['retail_prod', LKC, 'a b']),
      `https://dbc-1.cloud.databricks.com/explore/data/retail_prod/${LKC}/a%20b`,
    );
    assert.equal(
      chooseWarehouse([
        { id: 'b', name: 'B', state: 'STOPPED' },
        { id: 'a', name: 'A', state: 'RUNNING' },
      ])?.id,
      'a',
    );
    assert.equal(
      chooseWarehouse([
        { id: 'b', name: 'B', state: 'STOPPED' },
        { id: 'c', name: 'C', state: 'STOPPED', enable_serverless_compute: true },
      ])?.id,
      'c',
    );
    assert.equal(chooseWarehouse([{ id: 'd', name: 'D', state: 'DELETED' }]), undefined);
  });
});
