/**
 * The lakehouse provider end to end over real sockets: the HTTP client against the lakehouse
 * simulator (retries on 429/503 with Retry-After, 404/403 skipped with warnings, statement
 * polling), enrichment of the lakehouse table extracted from the platform demo scenario (attributes,
 * downstream discovery with `derived` tables and TRANSFORMS edges, recursing), and push (properties,
 * comment and bridge rows as recorded by the simulator; bridge creation refused while properties
 * and comments still apply; a missing table, a forbidden one and one the principal may not modify
 * reported per table while the others are written; a second push writes nothing).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDatabricksClient, type DatabricksClient } from '../../infra/catalogs/databricksClient.js';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import {
  loadLakehouseScenario,
  startLakehouseSimulator,
  type LakehouseScenario,
  type LakehouseSimulator,
} from '../../simulators/databricks/index.js';
import { createCatalogGateway } from '../../infra/catalogs/catalogService.js';
import { lakehouseProvider } from '../../src/catalogs/lakehouse.js';
import { loadConfig } from '../../src/config.js';
import { applyEnrichment, CatalogApiError, DEFAULT_PUSH_OPTIONS } from '../../src/catalogs/provider.js';
import { byteLength, CHAIN_MAX_BYTES, indexGraph, toHop, upstreamChain } from '../../src/catalogs/upstreamChain.js';
import { extract } from '../../src/extraction/extract.js';
import { catalogJobId, lakehouseTableId } from '../../src/graph/ids.js';
import { parseLineageGraph } from '../../src/graph/validation.js';
import type { LineageGraph } from '../../src/graph/model.js';
import { silentLogger } from '../../src/logger.js';
import { DEDICATED, PROD, fastApi } from '../extraction/helpers.js';

const TABLE = `retail_prod.${DEDICATED}.orders_enriched`;
const TABLE_ID = lakehouseTableId(PROD, 'retail_prod', DEDICATED, 'orders_enriched');
const GOLD_ID = lakehouseTableId(PROD, 'retail_prod', 'gold', 'daily_revenue');
const DASHBOARD_ID = lakehouseTableId(PROD, 'retail_prod', 'gold', 'revenue_dashboard');
const FORBIDDEN_ID = lakehouseTableId(PROD, 'retail_prod', 'finance', 'margin_restricted');

let platform: PlatformSimulator;
let demo: LakehouseScenario;
let extracted: LineageGraph;

function client(
  sim: LakehouseSimulator,
  overrides: Partial<Parameters<typeof createDatabricksClient>[0]> = {},
): DatabricksClient {
  return createDatabricksClient({
    workspaceUrl: sim.url,
    token: sim.scenario.token,
    retryBaseDelayMs: 1,
    pollIntervalMs: 1,
    ...overrides,
  });
}

async function withLakehouse<T>(
  scenario: LakehouseScenario,
  body: (sim: LakehouseSimulator) => Promise<T>,
): Promise<T> {
  const sim = await startLakehouseSimulator({ scenario });
  try {
    return await body(sim);
  } finally {
    await sim.close();
  }
}

before(async () => {
  platform = await startPlatformSimulator({ scenario: await loadScenario('demo') });
  demo = await loadLakehouseScenario('demo');
  extracted = (await extract({ platform: fastApi(platform), logger: silentLogger() }, { environmentIds: [PROD] }))
    .graph;
});
after(async () => platform.close());

describe('Databricks client against the lakehouse simulator', () => {
  it('reads a table with the bearer token', async () => {
    await withLakehouse(demo, async (sim) => {
      const info = await client(sim).getTable(TABLE);
      assert.equal(info.full_name, TABLE);
      assert.equal(info.table_type, 'MANAGED');
      assert.equal(info.columns?.[2]?.type_text, 'decimal(12,2)');
      const wrong = createDatabricksClient({ workspaceUrl: sim.url, token: 'dapi-wrong', retryBaseDelayMs: 1 });
      await assert.rejects(
        wrong.getTable(TABLE),
        (error: unknown) =>
          error instanceof CatalogApiError &&
          error.status === 401 &&
          error.errorCode === 'UNAUTHENTICATED' &&
          !error.message.includes('dapi'),
      );
    });
  });

  it('retries 429 and 503 (at most 3 retries), honoring Retry-After', async () => {
    await withLakehouse(demo, async (sim) => {
      const waits: number[] = [];
      const c = client(sim, { sleep: async (ms) => void waits.push(ms) });
      sim.injectFault({ api: 'lakehouse.tables.get', status: 429, times: 1, retry_after: 0.05 });
      sim.injectFault({ api: 'lakehouse.tables.get', status: 503, times: 2 });
      const info = await c.getTable(TABLE);
      assert.equal(info.name, 'orders_enriched');
      assert.equal(sim.requestCounts()['lakehouse.tables.get'], 4);
      assert.deepEqual(waits, [50, 2, 4], 'Retry-After 0.05 s beats the 1 ms backoff; then 2 and 4 ms');

      sim.resetRequestLog();
      sim.injectFault({ api: 'lakehouse.tables.get', status: 503, times: 9 });
      await assert.rejects(
        c.getTable(TABLE),
        (error: unknown) =>
          error instanceof CatalogApiError && error.failure === 'retries_exhausted' && error.status === 503,
      );
      assert.equal(sim.requestCounts()['lakehouse.tables.get'], 4, '4 attempts in all');
      sim.clearFaults();
    });
  });

  it('does not retry 404 and 403; maps them to skippable errors with the Databricks error code', async () => {
    await withLakehouse(demo, async (sim) => {
      const c = client(sim);
      await assert.rejects(
        c.getTable('retail_prod.nope.nope'),
        (error: unknown) =>
          error instanceof CatalogApiError &&
          error.status === 404 &&
          error.errorCode === 'TABLE_DOES_NOT_EXIST' &&
          error.skippable,
      );
      await assert.rejects(
        c.getTable('retail_prod.finance.margin_restricted'),
        (error: unknown) => error instanceof CatalogApiError && error.status === 403 && error.skippable,
      );
      assert.equal(sim.requestCounts()['lakehouse.tables.get'], 2);
    });
  });

  it('polls a RUNNING statement until it ends, and lists warehouses', async () => {
    await withLakehouse({ ...demo, statement_pending_polls: 3 }, async (sim) => {
      const c = client(sim);
      const outcome = await c.executeStatement(
        '5b8e1d4c7a2f9e63',
        `COMMENT ON TABLE \`retail_prod\`.\`${DEDICATED}\`.\`orders_enriched\` IS 'hello'`,
      );
      assert.equal(outcome.state, 'SUCCEEDED');
      assert.equal(sim.requestCounts()['lakehouse.sql.statements.get'], 3);
      assert.equal(sim.table(TABLE)?.comment, 'hello');
      const failed = await c.executeStatement('5b8e1d4c7a2f9e63', 'NOT SQL AT ALL');
      assert.equal(failed.state, 'FAILED');
      assert.match(failed.error?.message ?? '', /PARSE_SYNTAX_ERROR/);
      assert.deepEqual(
        (await c.listWarehouses()).map((w) => w.id),
        ['0f3c7e21a9b84d52', '5b8e1d4c7a2f9e63'],
      );
    });
  });
});

describe('lakehouse enrichment', () => {
  it('enriches the Tableflow table, discovers downstream tables recursively, skips the forbidden one', async () => {
    assert.ok(
      extracted.nodes.some((n) => n.id === TABLE_ID),
      'the platform demo yields the lakehouse table',
    );
    await withLakehouse(demo, async (sim) => {
      const result = await lakehouseProvider.enrich(extracted, { port: client(sim) });
      const enrichment = result.enrichments.find((e) => e.node_id === TABLE_ID);
      assert.ok(enrichment);
      assert.equal(enrichment.attributes.owner, 'data-platform@acme-retail.com');
      assert.equal(enrichment.attributes.table_type, 'MANAGED');
      assert.equal(
        enrichment.attributes.storage_location,
        `s3://acme-tableflow-managed/retail_prod/${DEDICATED}/orders_enriched`,
      );
      assert.equal(enrichment.attributes.updated_at, new Date(1733043100000).toISOString());
      assert.equal(enrichment.attributes.data_source_format, 'DELTA');
      assert.deepEqual((enrichment.attributes.columns as unknown[])[0], {
        name: 'order_id',
        type: 'string',
        comment: 'Order identifier',
      });
      assert.equal(enrichment.attributes.url, `${sim.url}/explore/data/retail_prod/${DEDICATED}/orders_enriched`);

      const NOTEBOOK_ID = catalogJobId('LAKEHOUSE', PROD, 'notebook/1148372950163720');
      const QUERY_ID = catalogJobId('LAKEHOUSE', PROD, 'query/3f9c2a71-5b8e-4d16-a0c4-7e2b9d1f6a83');
      assert.deepEqual(
        result.newNodes.map((n) => n.id).sort(),
        [DASHBOARD_ID, FORBIDDEN_ID, GOLD_ID, NOTEBOOK_ID, QUERY_ID].sort(),
      );
      const notebook = result.newNodes.find((n) => n.id === NOTEBOOK_ID)!;
      assert.equal(notebook.node_type, 'CATALOG_JOB');
      assert.equal(notebook.system, 'LAKEHOUSE');
      assert.equal(notebook.attributes?.job_kind, 'notebook');
      assert.equal(notebook.attributes?.url, `${sim.url}/#notebook/1148372950163720`);
      const gold = result.newNodes.find((n) => n.id === GOLD_ID)!;
      assert.equal(gold.attributes?.derived, true);
      assert.equal(gold.attributes?.owner, 'analytics@acme-retail.com', 'discovered tables are enriched too');
      assert.equal(gold.environment_id, PROD);
      assert.equal(gold.cluster_id, DEDICATED);
      assert.equal(gold.catalog_type, 'LAKEHOUSE_CATALOG');
      assert.deepEqual(
        result.newEdges.map((e) => [e.src_id, e.edge_type, e.dst_id]).sort(),
        [
          [TABLE_ID, 'CONSUMES', NOTEBOOK_ID],
          [NOTEBOOK_ID, 'PRODUCES', GOLD_ID],
          [TABLE_ID, 'TRANSFORMS', FORBIDDEN_ID],
          [GOLD_ID, 'CONSUMES', QUERY_ID],
          [QUERY_ID, 'PRODUCES', DASHBOARD_ID],
        ].sort(),
      );
      assert.equal(result.warnings.length, 1);
      assert.match(
        result.warnings[0]!,
        /retail_prod\.finance\.margin_restricted skipped: .*HTTP 403 PERMISSION_DENIED/,
      );

      const graph = applyEnrichment(extracted, result);
      assert.equal(graph.nodes.length, extracted.nodes.length + 5);
      assert.doesNotThrow(
        () => parseLineageGraph(structuredClone(graph)),
        'catalog jobs sit between tables by the edge rules',
      );
      assert.equal(
        graph.nodes.find((n) => n.id === TABLE_ID)?.attributes?.catalog_integration_id,
        'tci-u4n8k2',
        'Tableflow attributes stay',
      );
      // A second enrichment of the enriched graph adds nothing new.
      const again = await lakehouseProvider.enrich(graph, { port: client(sim) });
      assert.deepEqual(again.newNodes, []);
      assert.deepEqual(again.newEdges, []);
    });
  });

  it('skips a missing table with a warning and survives lineage tracking being unavailable', async () => {
    await withLakehouse(
      { ...demo, lineage_tracking: false, tables: demo.tables.filter((t) => t.full_name !== TABLE) },
      async (sim) => {
        const result = await lakehouseProvider.enrich(extracted, { port: client(sim) });
        assert.deepEqual(result.enrichments, []);
        assert.deepEqual(result.newNodes, []);
        assert.match(result.warnings.join('\n'), /orders_enriched skipped: .*HTTP 404 TABLE_DOES_NOT_EXIST/);
      },
    );
    await withLakehouse({ ...demo, lineage_tracking: false }, async (sim) => {
      const result = await lakehouseProvider.enrich(extracted, { port: client(sim) });
      assert.equal(result.enrichments.length, 1);
      assert.match(result.warnings.join('\n'), /downstream discovery unavailable/);
    });
  });
});

describe('lakehouse enrichment results per table', () => {
  it('the gateway reports each table updated, skipped or, on a second enrichment, unchanged', async () => {
    await withLakehouse(demo, async (sim) => {
      const config = loadConfig({
        LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL: sim.url,
        LINEAGE_SVC_LAKEHOUSE_TOKEN: sim.scenario.token,
      });
      const gateway = createCatalogGateway(config, { retryBaseDelayMs: 1, pollIntervalMs: 1 });
      const first = await gateway.enrich(extracted);
      const statuses = (outcome: typeof first) =>
        Object.fromEntries((outcome.results[0]!.results ?? []).map((r) => [r.name, r.status]));
      assert.deepEqual(statuses(first), {
        [TABLE]: 'updated',
        'retail_prod.gold.daily_revenue': 'updated',
        'retail_prod.gold.revenue_dashboard': 'updated',
        'retail_prod.finance.margin_restricted': 'skipped',
      });
      const second = await gateway.enrich(first.graph);
      assert.deepEqual(statuses(second), {
        [TABLE]: 'unchanged',
        'retail_prod.gold.daily_revenue': 'unchanged',
        'retail_prod.gold.revenue_dashboard': 'unchanged',
        'retail_prod.finance.margin_restricted': 'skipped',
      });
    });
  });
});

describe('lakehouse push', () => {
  const now = new Date('2025-01-02T03:04:05.678Z');

  it('a second push of the same graph writes nothing and reports every pushed table unchanged', async () => {
    await withLakehouse(demo, async (sim) => {
      const port = client(sim);
      const graph = applyEnrichment(extracted, await lakehouseProvider.enrich(extracted, { port }));
      const first = await lakehouseProvider.push(graph, DEFAULT_PUSH_OPTIONS, { port, now });
      assert.equal(first.results.filter((r) => r.status === 'updated').length, 3);
      const written = sim.statements().length;
      const state = JSON.stringify(sim.table(TABLE));
      const second = await lakehouseProvider.push(graph, DEFAULT_PUSH_OPTIONS, {
        port,
        now: new Date('2025-01-03T00:00:00Z'),
      });
      assert.equal(sim.statements().length, written, 'no statement the second time');
      assert.equal(JSON.stringify(sim.table(TABLE)), state, 'the catalog is left as it was');
      assert.equal(second.tables_updated, 0);
      assert.deepEqual(
        second.results.map((r) => r.status),
        ['skipped', 'unchanged', 'unchanged', 'unchanged'],
      );
      assert.match(second.results[0]!.reason ?? '', /PERMISSION_DENIED/);
    });
  });

  it('sets the properties and the comment of every table with upstream lineage, on an auto-discovered running warehouse', async () => {
    await withLakehouse(demo, async (sim) => {
      const port = client(sim);
      const graph = applyEnrichment(extracted, await lakehouseProvider.enrich(extracted, { port }));
      const result = await lakehouseProvider.push(graph, DEFAULT_PUSH_OPTIONS, { port, now });
      // orders_enriched, daily_revenue and revenue_dashboard are written; the forbidden table is skipped.
      assert.equal(result.tables_updated, 3);
      assert.equal(result.comments_set, 3);
      assert.equal(result.bridge_rows_inserted, 0);
      assert.deepEqual(result.errors, []);
      assert.equal(result.skipped.length, 1, JSON.stringify(result.skipped));
      assert.match(result.skipped.join('\n'), /margin_restricted: not readable: .*HTTP 403 PERMISSION_DENIED/);
      assert.deepEqual(
        result.results.map((r) => [r.name, r.status]),
        [
          ['retail_prod.finance.margin_restricted', 'skipped'],
          ['retail_prod.gold.daily_revenue', 'updated'],
          ['retail_prod.gold.revenue_dashboard', 'updated'],
          [TABLE, 'updated'],
        ],
      );

      const statements = sim.statements();
      assert.ok(
        statements.every((s) => s.warehouse_id === '5b8e1d4c7a2f9e63'),
        'the RUNNING warehouse is chosen',
      );
      const table = sim.table(TABLE)!;
      assert.equal(table.properties['lineage_svc.pipeline_type'], 'tableflow');
      assert.equal(table.properties['lineage_svc.last_synced'], '2025-01-02T03:04:05Z');
      assert.equal(table.properties['lineage_svc.environment_id'], PROD);
      assert.equal(table.properties['lineage_svc.cluster_id'], DEDICATED);
      assert.match(table.properties['lineage_svc.source_topics']!, new RegExp(`${DEDICATED}/orders_enriched`));
      const fullChain = JSON.stringify(upstreamChain(indexGraph(graph), TABLE_ID).map(toHop));
      assert.ok(byteLength(table.properties['lineage_svc.upstream_chain']!) <= CHAIN_MAX_BYTES);
      assert.equal(
        table.properties['lineage_svc.upstream_truncated'],
        byteLength(fullChain) > CHAIN_MAX_BYTES ? 'true' : undefined,
      );
      const chain = JSON.parse(table.properties['lineage_svc.upstream_chain']!) as Array<{
        hop: number;
        kind: string;
        qualified_name: string;
        sql?: string;
      }>;
      assert.deepEqual(
        chain.slice(0, 2).map((h) => [h.hop, h.kind]),
        [
          [1, 'materialized_table'],
          [2, 'topic'],
        ],
      );
      assert.ok(
        chain.some((h) => h.kind === 'stream_job' && h.sql?.includes('orders_enriched')),
        'the Flink job with its SQL',
      );
      assert.ok(
        chain.every((h, i) => i === 0 || h.hop >= chain[i - 1]!.hop),
        'ordered by distance',
      );
      assert.match(table.comment!, /^Upstream lineage \(lineage-svc\):\n/);
      assert.match(table.comment!, /\n *- topic: pg\.retail\.public\.orders \[5 columns\]\n/);
      assert.match(
        table.comment!,
        new RegExp(
          `-> ${TABLE.replaceAll('.', '\\.')}\\n(\\(farther upstream hops omitted[^\\n]*\\n)?Environment: ${PROD}\\nLast synced: 2025-01-02T03:04:05Z$`,
        ),
      );
      const written = [TABLE, 'retail_prod.gold.daily_revenue', 'retail_prod.gold.revenue_dashboard'].map(
        (name) => Object.keys(sim.table(name)!.properties).length,
      );
      assert.equal(
        result.properties_set,
        written.reduce((a, b) => a + b, 0),
        'one per key per table',
      );
      assert.equal(
        sim.table('retail_prod.gold.daily_revenue')!.properties['lineage_svc.pipeline_type'],
        'catalog_derived',
      );
    });
  });

  it('writes bridge rows, one per upstream node, replacing those of an earlier push', async () => {
    const scenario: LakehouseScenario = { ...demo, principal: { ...demo.principal, create_table_denied: [] } };
    await withLakehouse(scenario, async (sim) => {
      const port = client(sim);
      const options = { set_properties: false, set_comments: false, create_bridge_table: true };
      const first = await lakehouseProvider.push(extracted, options, { port, now, warehouseId: '0f3c7e21a9b84d52' });
      assert.deepEqual(first.errors, []);
      assert.equal(first.tables_updated, 0);
      const rows = sim.rows('retail_prod.default.stream_lineage');
      assert.equal(rows.length, first.bridge_rows_inserted);
      assert.ok(rows.length >= 4);
      assert.ok(
        rows.every(
          (r) =>
            r.uc_table === TABLE &&
            r.environment_id === PROD &&
            r.cluster_id === DEDICATED &&
            r.synced_at === '2025-01-02T03:04:05Z',
        ),
      );
      assert.deepEqual(rows[0] && { type: rows[0].source_type, hop: rows[0].hop_distance, edge: rows[0].edge_type }, {
        type: 'materialized_table',
        hop: 1,
        edge: 'MATERIALIZES',
      });
      assert.equal(JSON.parse(String(rows[0]!.chain_json)).length, rows.length, 'chain_json repeats the whole chain');
      assert.ok(
        sim.statements().every((s) => s.warehouse_id === '0f3c7e21a9b84d52'),
        'the configured warehouse is used',
      );
      const second = await lakehouseProvider.push(extracted, options, { port, now, warehouseId: '0f3c7e21a9b84d52' });
      assert.equal(second.bridge_rows_inserted, first.bridge_rows_inserted);
      assert.equal(sim.rows('retail_prod.default.stream_lineage').length, rows.length, 'rows do not pile up');
    });
  });

  it('fails bridge creation without permission while properties and comments still apply', async () => {
    await withLakehouse(demo, async (sim) => {
      const result = await lakehouseProvider.push(
        extracted,
        { set_properties: true, set_comments: true, create_bridge_table: true },
        { port: client(sim), now },
      );
      assert.equal(result.tables_updated, 1);
      assert.equal(result.comments_set, 1);
      assert.ok(result.properties_set >= 6);
      assert.equal(result.bridge_rows_inserted, 0);
      assert.equal(result.errors.length, 1);
      assert.match(
        result.errors[0]!,
        /^bridge table retail_prod\.default\.stream_lineage: not created: FAILED .*does not have CREATE TABLE/,
      );
      assert.equal(sim.table('retail_prod.default.stream_lineage'), undefined);
      assert.ok(sim.table(TABLE)!.properties['lineage_svc.upstream_chain']);
    });
  });

  it('reports a missing table, a forbidden one and one it may not modify per table, and still writes the others', async () => {
    const GHOST_ID = lakehouseTableId(PROD, 'retail_prod', 'gold', 'ghost_table');
    const scenario: LakehouseScenario = {
      ...demo,
      tables: demo.tables.map((t) =>
        t.full_name === 'retail_prod.gold.daily_revenue' ? { ...t, modify_denied: true } : t,
      ),
    };
    await withLakehouse(scenario, async (sim) => {
      const port = client(sim);
      // A table the graph knows (downstream of the Tableflow table) and Unity Catalog does not.
      const withGhost: LineageGraph = {
        nodes: [
          ...extracted.nodes,
          {
            id: GHOST_ID,
            node_type: 'CATALOG_TABLE',
            system: 'LAKEHOUSE',
            qualified_name: 'retail_prod.gold.ghost_table',
            display_name: 'ghost_table',
            environment_id: PROD,
            cluster_id: DEDICATED,
            catalog_type: 'LAKEHOUSE_CATALOG',
            attributes: {},
          },
        ],
        edges: [...extracted.edges, { src_id: TABLE_ID, dst_id: GHOST_ID, edge_type: 'TRANSFORMS', attributes: {} }],
      };
      const enrichment = await lakehouseProvider.enrich(withGhost, { port });
      assert.deepEqual(
        enrichment.enrichments.map((e) => e.node_id),
        [TABLE_ID],
        'the Tableflow table is enriched although the table beside it is missing',
      );
      assert.match(
        enrichment.warnings.join('\n'),
        /retail_prod\.gold\.ghost_table skipped: .*HTTP 404 TABLE_DOES_NOT_EXIST/,
      );
      assert.match(enrichment.warnings.join('\n'), /margin_restricted skipped: .*HTTP 403 PERMISSION_DENIED/);
      assert.equal(
        enrichment.newNodes.find((n) => n.id === GOLD_ID)?.attributes?.owner,
        'analytics@acme-retail.com',
        'discovery walks on past both faults',
      );

      const graph = applyEnrichment(withGhost, enrichment);
      const result = await lakehouseProvider.push(graph, DEFAULT_PUSH_OPTIONS, { port, now });
      const byName = Object.fromEntries(result.results.map((r) => [r.name, r]));
      assert.deepEqual(Object.fromEntries(result.results.map((r) => [r.name, r.status])), {
        'retail_prod.finance.margin_restricted': 'skipped',
        'retail_prod.gold.daily_revenue': 'skipped',
        'retail_prod.gold.ghost_table': 'skipped',
        'retail_prod.gold.revenue_dashboard': 'updated',
        [TABLE]: 'updated',
      });
      assert.match(byName['retail_prod.gold.ghost_table']!.reason!, /^not readable: .*HTTP 404 TABLE_DOES_NOT_EXIST/);
      assert.match(byName['retail_prod.finance.margin_restricted']!.reason!, /^not readable: .*PERMISSION_DENIED/);
      assert.match(byName['retail_prod.gold.daily_revenue']!.reason!, /properties not set: .*MODIFY/);
      assert.equal(result.tables_updated, 2);
      assert.deepEqual(result.errors, []);
      assert.equal(sim.table('retail_prod.gold.daily_revenue')!.properties['lineage_svc.upstream_chain'], undefined);
      assert.ok(sim.table('retail_prod.gold.revenue_dashboard')!.properties['lineage_svc.upstream_chain']);
      assert.ok(sim.table(TABLE)!.properties['lineage_svc.upstream_chain']);
    });
  });

  it('reports a workspace without a usable warehouse as an error, and tables without lineage as skipped', async () => {
    await withLakehouse({ ...demo, warehouses: [] }, async (sim) => {
      const result = await lakehouseProvider.push(extracted, DEFAULT_PUSH_OPTIONS, { port: client(sim), now });
      assert.equal(result.tables_updated, 0);
      assert.match(result.errors[0]!, /no SQL warehouse found.*LINEAGE_SVC_LAKEHOUSE_WAREHOUSE_ID/);
      const lonely: LineageGraph = { nodes: extracted.nodes.filter((n) => n.id === TABLE_ID), edges: [] };
      const none = await lakehouseProvider.push(lonely, DEFAULT_PUSH_OPTIONS, { port: client(sim), now });
      assert.deepEqual(none.errors, []);
      assert.match(none.skipped[0]!, /no upstream lineage/);
      assert.equal(sim.requestCounts()['lakehouse.sql.statements'], undefined);
    });
  });
});
