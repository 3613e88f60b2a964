/**
 * `lineage-svc-extract` (a child process, through tsx) with exactly one catalog configured sees
 * that catalog's enrichment, and only that one: the datalake alone (AWS Glue in moto, on a free
 * port; skipped with a printed notice when moto is not installed) and the warehouse alone
 * (BigQuery and the Data Lineage API in the Google simulator).
 *
 * Each catalog is checked twice: after a full extraction of the platform demo (the datalake table
 * of a Tableflow Glue integration, the warehouse tables of the BigQuery sink connector; enrichment
 * by `runExtraction`), and with `--enrich-only` on a graph file holding one table (enrichment by
 * `enrichAndRecordGraph`). Both runs record the enrichment in the store (sqlite, a folder per run)
 * as events with cause `enrichment`, read back here.
 */
import assert from 'node:assert/strict';
import { motoInstalled, startMoto } from '../helpers/moto.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CreateDatabaseCommand, CreateTableCommand, GlueClient } from '@aws-sdk/client-glue';
import type { ChildProcess } from 'node:child_process';
import { createEventStore } from '../../infra/eventStore/createEventStore.js';
import { startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import {
  googleClientEnvironment,
  loadGoogleScenario,
  startGoogleSimulator,
  type GoogleSimulator,
} from '../../simulators/google/index.js';
import { streams } from '../../src/events.js';
import { catalogJobId, datalakeTableId, lakehouseTableId, warehouseTableId } from '../../src/graph/ids.js';
import type { LineageGraph, Node } from '../../src/graph/model.js';
import { DEFAULT_GRAPH_NAME, graphIdForName } from '../../src/graphCommands.js';
import { DEDICATED, PROD, cliEnv, demoScenarioWithGlue, runExtractCommand } from '../extraction/helpers.js';

const REGION = 'eu-west-1';
const DATABASE = 'retail_lake';
const AWS_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing' };
const PROJECT = 'acme-analytics';
const DATASET = 'retail_reporting';
const LAKEHOUSE_TABLE_ID = lakehouseTableId(PROD, 'retail_prod', DEDICATED, 'orders_enriched');
if (!motoInstalled)
  process.stdout.write('# notice: moto is not installed; the datalake-only extract tests are skipped\n');

let platform: PlatformSimulator;
let google: GoogleSimulator;
let folder: string;
before(async () => {
  // The demo estate plus a Tableflow AwsGlue integration, so that the extraction has a datalake table.
  platform = await startPlatformSimulator({ scenario: await demoScenarioWithGlue(DATABASE) });
  google = await startGoogleSimulator({ scenario: await loadGoogleScenario('demo') });
  folder = mkdtempSync(join(tmpdir(), 'lineage-svc-extract-catalogs-'));
});
after(async () => {
  await platform.close();
  await google.close();
  rmSync(folder, { recursive: true, force: true });
});

/** Writes a graph file holding one catalog table node of the environment `PROD` and returns its path. */
function graphFile(
  name: string,
  table: Pick<Node, 'id' | 'system' | 'qualified_name' | 'display_name' | 'catalog_type'>,
): string {
  const path = join(folder, `${name}.json`);
  const node: Node = {
    node_type: 'CATALOG_TABLE',
    environment_id: PROD,
    cluster_id: null,
    attributes: {},
    ...table,
  };
  const graph: LineageGraph = { nodes: [node], edges: [] };
  writeFileSync(path, JSON.stringify(graph));
  return path;
}

/** The nodes of the graph file at `path`, by id. */
function nodesOf(path: string): Map<string, Node> {
  return new Map((JSON.parse(readFileSync(path, 'utf8')) as LineageGraph).nodes.map((n) => [n.id, n]));
}

/**
 * The node events of the graph `default` in the sqlite store at `storeFolder` recorded with cause
 * `enrichment`: per event type, the nodes it carries.
 */
async function enrichmentEvents(storeFolder: string, cause = 'enrichment'): Promise<Record<string, Node[]>> {
  const store = await createEventStore({ backend: 'sqlite', path: storeFolder });
  try {
    const events = await store.readStream(streams.graph(graphIdForName(DEFAULT_GRAPH_NAME)));
    const byType: Record<string, Node[]> = {};
    for (const event of events.filter((e) => e.metadata.cause === cause)) {
      assert.equal(event.metadata.actor, 'cli');
      const nodes = (event.data as { nodes?: Node[] }).nodes ?? [];
      (byType[event.type] ??= []).push(...nodes);
    }
    return byType;
  } finally {
    await store.close();
  }
}

/**
 * Runs `lineage-svc-extract --env PROD --output output` (plus `flags`) on the platform simulator with a
 * store at `store` and one catalog's variables `catalogEnv`; asserts that it succeeded and enriched the
 * tables of that catalog only, and answers the nodes of the graph file it wrote.
 */
async function extractWithOneCatalog(
  catalog: 'datalake' | 'warehouse',
  catalogEnv: Record<string, string>,
  store: string,
  output: string,
  flags: string[] = [],
): Promise<Map<string, Node>> {
  const run = await runExtractCommand(['--env', PROD, '--output', output, ...flags], {
    ...cliEnv(platform, store),
    ...catalogEnv,
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, new RegExp(`^Enrichment: catalog tables \\(${catalog}\\)$`, 'm'));
  return nodesOf(output);
}

/** The variables of the warehouse alone, against the Google simulator. */
function warehouseEnv(): Record<string, string> {
  return googleClientEnvironment(google.url, google.scenario);
}

describe(
  'lineage-svc-extract with only the datalake configured',
  { skip: motoInstalled ? false : 'moto not installed: Glue enrichment through the command not tested' },
  () => {
    let moto: { url: string; child: ChildProcess };
    const datalakeEnv = (): Record<string, string> => ({
      ...AWS_CREDENTIALS,
      LINEAGE_SVC_DATALAKE_REGION: REGION,
      AWS_ENDPOINT_URL_GLUE: moto.url,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    });
    const id = datalakeTableId(REGION, DATABASE, 'orders_enriched');

    before(async () => {
      process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
      moto = await startMoto();
      const glue = new GlueClient({
        region: REGION,
        endpoint: moto.url,
        credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
      });
      await glue.send(new CreateDatabaseCommand({ DatabaseInput: { Name: DATABASE } }));
      await glue.send(
        new CreateTableCommand({
          DatabaseName: DATABASE,
          TableInput: {
            Name: 'orders_enriched',
            Owner: 'data-platform',
            TableType: 'EXTERNAL_TABLE',
            Parameters: { table_type: 'ICEBERG' },
            StorageDescriptor: {
              Columns: [{ Name: 'order_id', Type: 'string', Comment: 'order key' }],
              Location: 's3://acme-lake/orders_enriched',
            },
          },
        }),
      );
      glue.destroy();
    });
    after(async () => {
      if (moto?.child.exitCode === null) {
        const exited = new Promise((resolve) => moto.child.once('exit', resolve));
        moto.child.kill('SIGTERM');
        await exited;
      }
    });

    /** The Glue attributes of the table, as moto holds them. */
    const assertGlueAttributes = (table: Node | undefined) => {
      assert.ok(table, 'the datalake table is in the graph');
      assert.equal(table.attributes?.owner, 'data-platform');
      assert.equal(table.attributes?.table_type, 'EXTERNAL_TABLE');
      assert.deepEqual(table.attributes?.columns, [{ name: 'order_id', type: 'string', comment: 'order key' }]);
      assert.equal(table.attributes?.storage_location, 's3://acme-lake/orders_enriched');
      assert.match(
        String(table.attributes?.url),
        /glue\/home\?region=eu-west-1#\/v2\/data-catalog\/tables\/view\/orders_enriched/,
      );
    };

    it('extracts the demo estate and enriches its datalake table from Glue, and only that catalog', async () => {
      const store = join(folder, 'datalake-extract-store');
      const output = join(folder, 'datalake-extract.json');
      const nodes = await extractWithOneCatalog('datalake', datalakeEnv(), store, output);
      assertGlueAttributes(nodes.get(id));
      assert.equal(nodes.get(LAKEHOUSE_TABLE_ID)?.attributes?.owner, undefined, 'the lakehouse is not configured');
      const warehouse = [...nodes.values()].filter((n) => n.system === 'WAREHOUSE');
      assert.ok(warehouse.length > 0 && warehouse.every((n) => n.attributes?.table_type === undefined));
      // Extraction and enrichment are one write (cause extraction): the table is recorded enriched.
      const recorded = await enrichmentEvents(store, 'extraction');
      assert.equal(recorded.NodesChanged, undefined, 'one write: nothing recorded twice');
      assert.equal(recorded.NodesAdded?.find((n) => n.id === id)?.attributes?.owner, 'data-platform');
    });

    it('enriches a graph file from Glue with --enrich-only and records the enrichment', async () => {
      const store = join(folder, 'datalake-file-store');
      const output = graphFile('datalake', {
        id,
        system: 'DATALAKE',
        qualified_name: `${DATABASE}/orders_enriched`,
        display_name: 'orders_enriched',
        catalog_type: 'DATALAKE_CATALOG',
      });
      const nodes = await extractWithOneCatalog('datalake', datalakeEnv(), store, output, ['--enrich-only']);
      assertGlueAttributes(nodes.get(id));
      const recorded = await enrichmentEvents(store);
      assert.deepEqual(
        (recorded.NodesAdded ?? []).map((n) => [n.id, n.attributes?.owner]),
        [[id, 'data-platform']],
      );
    });
  },
);

describe('lineage-svc-extract with only the warehouse configured', () => {
  const tableId = (table: string, dataset = DATASET) => warehouseTableId(PROD, PROJECT, dataset, table);

  it('extracts the demo estate and enriches the BigQuery sink tables, with their downstream view and catalog jobs', async () => {
    const store = join(folder, 'warehouse-extract-store');
    const output = join(folder, 'warehouse-extract.json');
    const nodes = await extractWithOneCatalog('warehouse', warehouseEnv(), store, output);
    const revenue = nodes.get(tableId('order_revenue_1m'))!;
    assert.deepEqual(
      [revenue.attributes?.table_type, revenue.attributes?.num_rows, revenue.attributes?.labels],
      ['TABLE', 1440, { owner: 'analytics', source: 'confluent' }],
    );
    assert.equal(nodes.get(tableId('customer_ltv'))?.attributes?.table_type, 'TABLE');
    const view = nodes.get(tableId('revenue_daily'))!;
    assert.deepEqual([view.attributes?.derived, view.attributes?.table_type], [true, 'VIEW']);
    assert.equal(
      nodes.get(catalogJobId('WAREHOUSE', PROD, 'process/scheduled-revenue-rollup'))?.node_type,
      'CATALOG_JOB',
    );
    assert.equal(nodes.get(tableId('revenue_forecast', 'finance_reporting'))?.attributes?.derived, true);
    assert.equal(nodes.get(LAKEHOUSE_TABLE_ID)?.attributes?.owner, undefined, 'the lakehouse is not configured');
    const datalake = [...nodes.values()].filter((n) => n.system === 'DATALAKE');
    assert.ok(datalake.length > 0 && datalake.every((n) => n.attributes?.owner === undefined), 'nor is the datalake');
    // Extraction and enrichment are one write (cause extraction): the tables are recorded enriched.
    const recorded = await enrichmentEvents(store, 'extraction');
    assert.equal(recorded.NodesChanged, undefined, 'one write: nothing recorded twice');
    for (const table of ['customer_ltv', 'order_revenue_1m'])
      assert.equal(recorded.NodesAdded?.find((n) => n.id === tableId(table))?.attributes?.table_type, 'TABLE');
    assert.ok(
      (recorded.NodesAdded ?? []).some((n) => n.id === tableId('revenue_daily')),
      'the discovered tables are recorded too',
    );
  });

  it('enriches a graph file from BigQuery with --enrich-only and records the enrichment, with no platform key set', async () => {
    const store = join(folder, 'warehouse-file-store');
    const id = tableId('order_revenue_1m');
    const output = graphFile('warehouse', {
      id,
      system: 'WAREHOUSE',
      qualified_name: `${PROJECT}.${DATASET}.order_revenue_1m`,
      display_name: 'order_revenue_1m',
      catalog_type: 'WAREHOUSE_LINEAGE',
    });
    // Only the catalog's variables: --enrich-only reads the graph file, not the platform (issue 28).
    const run = await runExtractCommand(['--env', PROD, '--output', output, '--enrich-only'], {
      PATH: process.env.PATH ?? '',
      LINEAGE_SVC_STORAGE__PATH: store,
      ...warehouseEnv(),
    });
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /LINEAGE_SVC_STREAM_CLOUD_API_KEY/);
    assert.match(run.stderr, /^Enrichment: catalog tables \(warehouse\)$/m);
    const nodes = nodesOf(output);
    const table = nodes.get(id)!;
    assert.equal(table.attributes?.table_type, 'TABLE');
    assert.equal(
      table.attributes?.description,
      'Revenue per one-minute window, written by the BigQuery sink connector',
    );
    assert.deepEqual(table.attributes?.labels, { owner: 'analytics', source: 'confluent' });
    assert.equal((table.attributes?.columns as Array<{ name: string }>)[0]?.name, 'window_start');
    assert.equal(typeof table.attributes?.creation_time, 'number');
    assert.match(String(table.attributes?.url), /console\.cloud\.google\.com\/bigquery\?project=acme-analytics/);
    const recorded = await enrichmentEvents(store);
    assert.deepEqual(
      (recorded.NodesAdded ?? []).filter((n) => n.id === id).map((n) => n.attributes?.table_type),
      ['TABLE'],
    );
  });
});
