/**
 * `lineage-svc-extract` (a child process, through tsx) with exactly one catalog configured sees
 * that catalog's enrichment: the datalake alone (AWS Glue in moto, on a free port; skipped with a
 * printed notice when moto is not installed) and the warehouse alone (BigQuery in the Google
 * simulator). The extraction does not build datalake or warehouse tables from the platform demo
 * yet, so each run enriches a graph file holding the table (`--enrich-only`), the same code path
 * as the enrichment after an extraction (`services/extraction.ts`).
 */
import assert from 'node:assert/strict';
import { motoInstalled, startMoto } from '../helpers/moto.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CreateDatabaseCommand, CreateTableCommand, GlueClient } from '@aws-sdk/client-glue';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import { loadGoogleScenario, startGoogleSimulator } from '../../simulators/google/index.js';
import { datalakeTableId, warehouseTableId } from '../../src/graph/ids.js';
import type { LineageGraph, Node } from '../../src/graph/model.js';
import { PROD, cliEnv, runExtractCommand } from '../extraction/helpers.js';

const REGION = 'eu-west-1';
const AWS_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing' };
if (!motoInstalled)
  process.stdout.write('# notice: moto is not installed; the datalake-only extract test is skipped\n');

let platform: PlatformSimulator;
let folder: string;
before(async () => {
  platform = await startPlatformSimulator({ scenario: await loadScenario('demo') });
  folder = mkdtempSync(join(tmpdir(), 'lineage-svc-extract-catalogs-'));
});
after(async () => {
  await platform.close();
  rmSync(folder, { recursive: true, force: true });
});

/** Writes a graph file holding one table node and returns its path. */
function graphFile(name: string, table: Node): string {
  const path = join(folder, `${name}.json`);
  const graph: LineageGraph = { nodes: [table], edges: [] };
  writeFileSync(path, JSON.stringify(graph));
  return path;
}

describe('lineage-svc-extract with one catalog configured', () => {
  it(
    'enriches datalake tables from Glue when only the datalake is configured',
    { skip: motoInstalled ? false : 'moto not installed: Glue enrichment through the command not tested' },
    async () => {
      const moto = await startMoto();
      try {
        const glue = new GlueClient({
          region: REGION,
          endpoint: moto.url,
          credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
        });
        await glue.send(new CreateDatabaseCommand({ DatabaseInput: { Name: 'retail_lake' } }));
        await glue.send(
          new CreateTableCommand({
            DatabaseName: 'retail_lake',
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
        const id = datalakeTableId(REGION, 'retail_lake', 'orders_enriched');
        const output = graphFile('datalake', {
          id,
          node_type: 'CATALOG_TABLE',
          system: 'DATALAKE',
          qualified_name: 'retail_lake/orders_enriched',
          display_name: 'orders_enriched',
          environment_id: PROD,
          cluster_id: null,
          catalog_type: 'DATALAKE_CATALOG',
          attributes: {},
        });
        const run = await runExtractCommand(['--env', PROD, '--output', output, '--enrich-only'], {
          ...cliEnv(platform, folder),
          ...AWS_CREDENTIALS,
          LINEAGE_SVC_DATALAKE_REGION: REGION,
          AWS_ENDPOINT_URL_GLUE: moto.url,
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        });
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stderr, /Enrichment: catalog tables \(datalake\)/);
        const table = (JSON.parse(readFileSync(output, 'utf8')) as LineageGraph).nodes.find((n) => n.id === id)!;
        assert.equal(table.attributes?.owner, 'data-platform');
        assert.equal(table.attributes?.table_type, 'EXTERNAL_TABLE');
        assert.deepEqual(table.attributes?.columns, [{ name: 'order_id', type: 'string', comment: 'order key' }]);
        assert.equal(table.attributes?.storage_location, 's3://acme-lake/orders_enriched');
        assert.match(
          String(table.attributes?.url),
          /glue\/home\?region=eu-west-1#\/v2\/data-catalog\/tables\/view\/orders_enriched/,
        );
      } finally {
        moto.child.kill('SIGTERM');
      }
    },
  );

  it('enriches warehouse tables from BigQuery when only the warehouse is configured', async () => {
    const google = await startGoogleSimulator({ scenario: await loadGoogleScenario('demo') });
    try {
      const id = warehouseTableId(PROD, 'acme-analytics', 'retail_reporting', 'order_revenue_1m');
      const output = graphFile('warehouse', {
        id,
        node_type: 'CATALOG_TABLE',
        system: 'WAREHOUSE',
        qualified_name: 'acme-analytics.retail_reporting.order_revenue_1m',
        display_name: 'order_revenue_1m',
        environment_id: PROD,
        cluster_id: null,
        catalog_type: 'WAREHOUSE_LINEAGE',
        attributes: {},
      });
      const run = await runExtractCommand(['--env', PROD, '--output', output, '--enrich-only'], {
        ...cliEnv(platform, folder),
        LINEAGE_SVC_WAREHOUSE_PROJECT_ID: google.scenario.project_id,
        LINEAGE_SVC_WAREHOUSE_LOCATION: 'us',
        LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN: google.scenario.token,
        LINEAGE_SVC_WAREHOUSE_BIGQUERY_API_URL: google.url,
        LINEAGE_SVC_WAREHOUSE_LINEAGE_API_URL: google.url,
        LINEAGE_SVC_WAREHOUSE_DATAPLEX_API_URL: google.url,
      });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /Enrichment: catalog tables \(warehouse\)/);
      const table = (JSON.parse(readFileSync(output, 'utf8')) as LineageGraph).nodes.find((n) => n.id === id)!;
      assert.equal(table.attributes?.table_type, 'TABLE');
      assert.equal(
        table.attributes?.description,
        'Revenue per one-minute window, written by the BigQuery sink connector',
      );
      assert.deepEqual(table.attributes?.labels, { owner: 'analytics', source: 'confluent' });
      assert.equal((table.attributes?.columns as Array<{ name: string }>)[0]?.name, 'window_start');
      assert.equal(typeof table.attributes?.creation_time, 'number');
      assert.match(String(table.attributes?.url), /console\.cloud\.google\.com\/bigquery\?project=acme-analytics/);
    } finally {
      await google.close();
    }
  });
});
