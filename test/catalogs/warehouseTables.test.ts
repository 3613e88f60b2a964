/**
 * Warehouse tables from BigQuery sink connectors (`src/extraction/warehouseTables.ts`,
 * `docs/specification.md`, "Warehouse (table nodes)"): the classic `BigQuerySink` and the
 * storage-write `BigQueryStorageSink`, the topic-to-table map, sanitizing, the project from the
 * config or the setting, the dataset from the config (plain or `regex=dataset`) or the cluster id,
 * dots and hyphens; and the connector fragment: one CATALOG_TABLE per topic, PRODUCES from the
 * connector, no `bigquery://` external dataset.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connectorFragment } from '../../src/extraction/connectors.js';
import { bigQueryTables, parseTopicToTableMap } from '../../src/extraction/warehouseTables.js';
import { connectorId, topicId, warehouseTableId } from '../../src/graph/ids.js';
import { testCluster } from '../extraction/helpers.js';

const ENV = 'env-w1';
const LKC = 'lkc-w2';
const cluster = testCluster(ENV, LKC);

/** `{project}.{dataset}.{table}` of each topic. */
const names = (...args: Parameters<typeof bigQueryTables>) =>
  bigQueryTables(...args).map((ref) => `${ref.project}.${ref.dataset}.${ref.table}`);

describe('warehouse tables of BigQuery sink connectors', () => {
  it('names one table per topic, dots and hyphens replaced, for the classic and the storage-write sink', () => {
    for (const connectorClass of ['BigQuerySink', 'BigQueryStorageSink']) {
      const config = { 'connector.class': connectorClass, project: 'acme', datasets: 'sales' };
      assert.deepEqual(names(config, ['orders.v1', 'order-items', 'plain'], LKC, undefined), [
        'acme.sales.orders_v1',
        'acme.sales.order_items',
        'acme.sales.plain',
      ]);
    }
  });

  it('takes the project from the config, else gcp.project.id, else the setting; none gives no table', () => {
    const topics = ['t'];
    assert.deepEqual(names({ project: 'from-config', datasets: 'd' }, topics, LKC, 'setting'), ['from-config.d.t']);
    assert.deepEqual(names({ 'gcp.project.id': 'gcp-key', datasets: 'd' }, topics, LKC, 'setting'), ['gcp-key.d.t']);
    assert.deepEqual(names({ datasets: 'd' }, topics, LKC, 'setting'), ['setting.d.t']);
    assert.deepEqual(names({ project: ' ', datasets: 'd' }, topics, LKC, 'setting'), ['setting.d.t']);
    assert.deepEqual(names({ datasets: 'd' }, topics, LKC, undefined), []);
    assert.deepEqual(names({ datasets: 'd' }, topics, LKC, ''), []);
  });

  it('takes the dataset from defaultDataset, datasets (plain or regex=dataset pairs) or dataset, else the cluster id', () => {
    const topics = ['orders', 'clicks'];
    assert.deepEqual(names({ project: 'p', defaultDataset: 'dd', datasets: 'other' }, topics, LKC, undefined), [
      'p.dd.orders',
      'p.dd.clicks',
    ]);
    assert.deepEqual(names({ project: 'p', datasets: 'ord.*=sales,.*=web' }, topics, LKC, undefined), [
      'p.sales.orders',
      'p.web.clicks',
    ]);
    assert.deepEqual(names({ project: 'p', datasets: 'ord.*=sales' }, topics, LKC, undefined), [
      'p.sales.orders',
      `p.${LKC}.clicks`,
    ]);
    assert.deepEqual(names({ project: 'p', dataset: 'single' }, ['orders'], LKC, undefined), ['p.single.orders']);
    assert.deepEqual(names({ project: 'p' }, ['orders.v1'], LKC, undefined), [`p.${LKC}.orders_v1`]);
  });

  it('honors the topic-to-table map and the sanitize switch of both connector generations', () => {
    assert.deepEqual(
      [...parseTopicToTableMap('a.b:t1, c-d : t2,broken,:x,y:')],
      [
        ['a.b', 't1'],
        ['c-d', 't2'],
      ],
    );
    const topics = ['orders.v1', 'clicks-raw'];
    assert.deepEqual(
      names({ project: 'p', datasets: 'd', 'topic2table.map': 'orders.v1:orders_current' }, topics, LKC, undefined),
      ['p.d.orders_current', 'p.d.clicks_raw'],
    );
    assert.deepEqual(
      names({ project: 'p', defaultDataset: 'd', topic2TableMap: 'clicks-raw:clicks' }, topics, LKC, undefined),
      ['p.d.orders_v1', 'p.d.clicks'],
    );
    assert.deepEqual(
      names({ project: 'p', datasets: 'd', 'sanitize.topics': 'false' }, ['clicks-raw'], LKC, undefined),
      ['p.d.clicks-raw'],
    );
    assert.deepEqual(names({ project: 'p', datasets: 'd', sanitizeTopics: 'FALSE' }, ['clicks-raw'], LKC, undefined), [
      'p.d.clicks-raw',
    ]);
    assert.deepEqual(
      names({ project: 'p', datasets: 'd', 'sanitize.topics': 'true' }, ['clicks-raw'], LKC, undefined),
      ['p.d.clicks_raw'],
    );
  });

  it('gives each topic of a BigQuery sink a warehouse table produced by the connector, and no external dataset', () => {
    const fragment = connectorFragment(
      cluster,
      [
        {
          id: { id: 'lcc-bq1' },
          info: {
            name: 'bq',
            type: 'sink',
            config: { 'connector.class': 'BigQueryStorageSink', topics: 'orders.v1,clicks-raw', datasets: 'sales' },
          },
        },
        {
          info: { name: 'bq-no-project', type: 'sink', config: { 'connector.class': 'BigQuerySink', topics: 'x' } },
        },
      ],
      ['orders.v1', 'clicks-raw', 'x'],
      { warehouseProjectId: 'acme-analytics' },
    );
    const tables = fragment.nodes.filter((node) => node.node_type === 'CATALOG_TABLE');
    const connector = connectorId(ENV, LKC, 'bq');
    const expected = [
      ['sales', 'orders_v1', 'orders.v1'],
      ['sales', 'clicks_raw', 'clicks-raw'],
      [LKC, 'x', 'x'],
    ];
    assert.deepEqual(
      tables.map((node) => node.id).sort(),
      expected.map(([dataset, table]) => warehouseTableId(ENV, 'acme-analytics', dataset!, table!)).sort(),
    );
    const ordersTable = tables.find((node) => node.display_name === 'orders_v1')!;
    assert.deepEqual(
      {
        system: ordersTable.system,
        catalog_type: ordersTable.catalog_type,
        qualified_name: ordersTable.qualified_name,
        cluster_id: ordersTable.cluster_id,
        attributes: ordersTable.attributes,
      },
      {
        system: 'WAREHOUSE',
        catalog_type: 'WAREHOUSE_LINEAGE',
        qualified_name: 'acme-analytics.sales.orders_v1',
        cluster_id: LKC,
        attributes: {
          project_id: 'acme-analytics',
          dataset_id: 'sales',
          table_name: 'orders_v1',
          source_topic: 'orders.v1',
        },
      },
    );
    const edges = fragment.edges.map((edge) => `${edge.src_id} ${edge.edge_type} ${edge.dst_id}`);
    assert.ok(edges.includes(`${topicId(ENV, LKC, 'orders.v1')} CONSUMES ${connector}`));
    assert.ok(edges.includes(`${connector} PRODUCES ${ordersTable.id}`));
    assert.equal(fragment.nodes.filter((node) => node.node_type === 'EXTERNAL_DATASET').length, 0);
  });
});
