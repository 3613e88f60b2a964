/**
 * The data governance provider (AWS DataZone) against the DataZone simulator on a real socket,
 * through the official SDK client (`infra/catalogs/dataZoneClient.ts`) and the catalog gateway:
 * namespace normalization (stream -> kafka keyed by cluster, warehouse -> bigquery, other
 * namespaces kept), one event per governed job with a Client-Token, a second push of the same
 * graph sends nothing and reports every job `unchanged` (in one process, and from a new gateway on
 * the same store folder through the ledger file), a permission fault on one job is reported
 * for that job while the others are sent, a missing domain is reported per job, and the events are
 * the bytes of OpenLineage RunEvents.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCatalogGateway } from '../../infra/catalogs/catalogService.js';
import { createDataZoneClient } from '../../infra/catalogs/dataZoneClient.js';
import { PUSH_LEDGER_FILE } from '../../infra/catalogs/pushLedger.js';
import {
  DEMO_DATAZONE_DOMAIN,
  DEMO_DATAZONE_PROJECT,
  startDataZoneSimulator,
  type DataZoneSimulator,
} from '../../simulators/datazone/index.js';
import {
  clientTokenOf,
  dataGovernanceDatasetIdentity,
  dataGovernanceEvents,
  dataGovernanceProvider,
} from '../../src/catalogs/dataGovernance.js';
import { createMemoryPushLedger, DEFAULT_PUSH_OPTIONS } from '../../src/catalogs/provider.js';
import { loadConfig } from '../../src/config.js';
import {
  catalogJobId,
  connectorId,
  lakehouseTableId,
  streamJobId,
  topicId,
  warehouseTableId,
} from '../../src/graph/ids.js';
import type { Edge, LineageGraph, Node } from '../../src/graph/model.js';
import { DEDICATED, PROD } from '../extraction/helpers.js';

const NOW = new Date('2026-01-15T10:00:00Z');
const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };

const node = (partial: Partial<Node> & Pick<Node, 'id' | 'node_type' | 'system' | 'qualified_name'>): Node => ({
  display_name: partial.qualified_name,
  environment_id: PROD,
  cluster_id: null,
  attributes: {},
  ...partial,
});
const edge = (src_id: string, edge_type: Edge['edge_type'], dst_id: string): Edge => ({
  src_id,
  dst_id,
  edge_type,
  attributes: null,
});

/** Topic -> Flink job -> topic -> BigQuery sink -> warehouse table; a lakehouse notebook between two tables. */
function graph(): LineageGraph {
  const topic = (name: string) =>
    node({
      id: topicId(PROD, DEDICATED, name),
      node_type: 'TOPIC',
      system: 'STREAM',
      qualified_name: `${DEDICATED}/${name}`,
      cluster_id: DEDICATED,
    });
  const orders = topic('orders');
  const revenue = topic('revenue');
  const flink = node({
    id: streamJobId(PROD, 'revenue-job'),
    node_type: 'STREAM_JOB',
    system: 'STREAM',
    qualified_name: 'revenue-job',
  });
  const sink = node({
    id: connectorId(PROD, DEDICATED, 'bq-revenue-sink'),
    node_type: 'CONNECTOR',
    system: 'STREAM',
    qualified_name: `${DEDICATED}/bq-revenue-sink`,
    cluster_id: DEDICATED,
  });
  const table = node({
    id: warehouseTableId(PROD, 'acme-analytics', 'retail_reporting', 'revenue'),
    node_type: 'CATALOG_TABLE',
    system: 'WAREHOUSE',
    qualified_name: 'acme-analytics.retail_reporting.revenue',
    catalog_type: 'WAREHOUSE_LINEAGE',
    attributes: { project_id: 'acme-analytics', dataset_id: 'retail_reporting', table_name: 'revenue' },
  });
  const lake = (name: string) =>
    node({
      id: lakehouseTableId(PROD, 'retail_prod', 'gold', name),
      node_type: 'CATALOG_TABLE',
      system: 'LAKEHOUSE',
      qualified_name: `retail_prod.gold.${name}`,
      catalog_type: 'LAKEHOUSE_CATALOG',
    });
  const daily = lake('daily');
  const dashboard = lake('dashboard');
  const notebook = node({
    id: catalogJobId('LAKEHOUSE', PROD, 'notebook/42'),
    node_type: 'CATALOG_JOB',
    system: 'LAKEHOUSE',
    qualified_name: 'notebook/42',
  });
  return {
    nodes: [orders, revenue, flink, sink, table, daily, dashboard, notebook],
    edges: [
      edge(orders.id, 'CONSUMES', flink.id),
      edge(flink.id, 'PRODUCES', revenue.id),
      edge(revenue.id, 'CONSUMES', sink.id),
      edge(sink.id, 'PRODUCES', table.id),
      edge(daily.id, 'CONSUMES', notebook.id),
      edge(notebook.id, 'PRODUCES', dashboard.id),
    ],
  };
}

describe('data governance provider: pure parts', () => {
  it('normalizes namespaces as the warehouse push does, keeping the namespaces DataZone can draw', () => {
    assert.deepEqual(dataGovernanceDatasetIdentity(`stream://${PROD}/${DEDICATED}`, 'orders'), {
      namespace: `kafka://${DEDICATED}`,
      name: 'orders',
    });
    assert.deepEqual(dataGovernanceDatasetIdentity('warehouse://acme-analytics/retail_reporting', 'revenue'), {
      namespace: 'bigquery',
      name: 'acme-analytics.retail_reporting.revenue',
    });
    assert.deepEqual(dataGovernanceDatasetIdentity('lakehouse://example', 'a.b.c'), {
      namespace: 'lakehouse://example',
      name: 'a.b.c',
    });
    assert.equal(dataGovernanceDatasetIdentity(`stream://${PROD}`, 'orders'), null);
  });

  it('plans one event per connector, stream job and catalog job, and a Client-Token that follows the bytes', () => {
    const plan = dataGovernanceEvents(graph(), NOW);
    assert.deepEqual(plan.skipped, []);
    assert.equal(plan.events.length, 3);
    const flink = plan.events.find((event) => event.job.name.includes('revenue-job'))!;
    assert.deepEqual(
      flink.inputs.map((d) => `${d.namespace} ${d.name}`),
      [`kafka://${DEDICATED} orders`],
    );
    const token = clientTokenOf(DEMO_DATAZONE_DOMAIN, flink);
    assert.equal(token, clientTokenOf(DEMO_DATAZONE_DOMAIN, structuredClone(flink)));
    assert.notEqual(token, clientTokenOf(DEMO_DATAZONE_DOMAIN, { ...flink, eventTime: '2026-01-16T10:00:00Z' }));
  });
});

describe('data governance provider against the DataZone simulator', () => {
  let sim: DataZoneSimulator;
  let folder: string;
  before(async () => {
    sim = await startDataZoneSimulator();
    folder = mkdtempSync(join(tmpdir(), 'lineage-svc-datazone-'));
  });
  after(async () => {
    await sim.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const client = (domainId = DEMO_DATAZONE_DOMAIN) =>
    createDataZoneClient({
      domainId,
      region: 'eu-west-1',
      endpoint: sim.url,
      credentials: CREDENTIALS,
      maxAttempts: 2,
    });

  it('posts one RunEvent per job, and a second push sends nothing and reports every job unchanged', async () => {
    const before = sim.lineageEvents().length;
    const ledger = createMemoryPushLedger();
    const deps = { port: client(), now: NOW, ledger };
    const first = await dataGovernanceProvider.push(graph(), DEFAULT_PUSH_OPTIONS, deps);
    assert.deepEqual(first.errors, []);
    assert.equal(first.tables_updated, 3);
    assert.deepEqual(
      first.results.map((r) => r.status),
      ['updated', 'updated', 'updated'],
    );
    const received = sim.lineageEvents().slice(before);
    assert.equal(received.length, 3);
    for (const event of received) {
      assert.equal(event.domainId, DEMO_DATAZONE_DOMAIN);
      assert.equal(event.event.eventType, 'COMPLETE');
      assert.match(event.clientToken ?? '', /^[0-9a-f-]{36}$/);
    }
    const second = await dataGovernanceProvider.push(graph(), DEFAULT_PUSH_OPTIONS, {
      ...deps,
      now: new Date('2026-01-16T10:00:00Z'),
    });
    assert.equal(second.tables_updated, 0);
    assert.deepEqual(
      second.results.map((r) => r.status),
      ['unchanged', 'unchanged', 'unchanged'],
    );
    assert.equal(sim.lineageEvents().length - before, 3, 'nothing posted the second time');
  });

  it('a retried request with the same Client-Token records one event', async () => {
    const port = client();
    const [event] = dataGovernanceEvents(graph(), new Date('2026-02-01T08:00:00Z')).events;
    const before = sim.lineageEvents().length;
    const a = await port.postLineageEvent(event!, clientTokenOf(port.domainId, event!));
    const b = await port.postLineageEvent(event!, clientTokenOf(port.domainId, event!));
    assert.equal(a.id, b.id);
    assert.equal(a.domainId, DEMO_DATAZONE_DOMAIN);
    assert.equal(sim.lineageEvents().length - before, 1);
  });

  it('reports a permission fault on one job for that job and sends the others', async () => {
    sim.injectFault({ status: 403, job: 'bq-revenue-sink' });
    try {
      const result = await dataGovernanceProvider.push(graph(), DEFAULT_PUSH_OPTIONS, { port: client(), now: NOW });
      const denied = result.results.find((r) => r.name.includes('bq-revenue-sink'))!;
      assert.equal(denied.status, 'skipped');
      assert.match(denied.reason ?? '', /AccessDeniedException/);
      assert.equal(result.results.filter((r) => r.status === 'updated').length, 2);
      assert.equal(result.tables_updated, 2);
      assert.equal(result.skipped.length, 1);
    } finally {
      sim.clearFaults();
    }
  });

  it('reports a missing domain per job, and a validation failure as failed', async () => {
    const missing = await dataGovernanceProvider.push(graph(), DEFAULT_PUSH_OPTIONS, {
      port: client('dzd_doesnotexist1'),
      now: NOW,
    });
    assert.deepEqual(
      missing.results.map((r) => r.status),
      ['skipped', 'skipped', 'skipped'],
    );
    assert.match(missing.results[0]!.reason ?? '', /ResourceNotFoundException/);
    sim.injectFault({ status: 409, times: 1, job: 'revenue-job' });
    const conflict = await dataGovernanceProvider.push(graph(), DEFAULT_PUSH_OPTIONS, { port: client(), now: NOW });
    sim.clearFaults();
    const failed = conflict.results.find((r) => r.status === 'failed')!;
    assert.match(failed.error ?? '', /ConflictException/);
    assert.equal(conflict.errors.length, 1);
  });

  it('runs through the catalog gateway with the settings, the endpoint variable and a gateway ledger', async () => {
    const config = loadConfig({
      LINEAGE_SVC_DATA_GOVERNANCE_DOMAIN_ID: DEMO_DATAZONE_DOMAIN,
      LINEAGE_SVC_DATA_GOVERNANCE_PROJECT_ID: DEMO_DATAZONE_PROJECT,
      LINEAGE_SVC_DATALAKE_REGION: 'eu-west-1',
      LINEAGE_SVC_STORAGE__BACKEND: 'file',
      LINEAGE_SVC_STORAGE__PATH: folder,
    });
    const gateway = createCatalogGateway(config, {
      dataZone: { endpoint: sim.url, credentials: CREDENTIALS },
      env: {},
    });
    assert.ok(gateway.available().includes('DATA_GOVERNANCE'));
    const enriched = await gateway.enrich(graph());
    assert.ok(!enriched.ran.includes('DATA_GOVERNANCE'), 'push only: no enrichment');
    const first = await gateway.push(graph(), 'DATA_GOVERNANCE', DEFAULT_PUSH_OPTIONS);
    assert.equal(first.results.filter((r) => r.status === 'updated').length, 3);
    const second = await gateway.push(graph(), 'DATA_GOVERNANCE', DEFAULT_PUSH_OPTIONS);
    assert.deepEqual(
      second.results.map((r) => r.status),
      ['unchanged', 'unchanged', 'unchanged'],
    );
    // A new process (a new gateway) on the same store folder reads the record of the first push.
    const later = createCatalogGateway(config, { dataZone: { endpoint: sim.url, credentials: CREDENTIALS }, env: {} });
    const third = await later.push(graph(), 'DATA_GOVERNANCE', DEFAULT_PUSH_OPTIONS);
    assert.deepEqual(
      third.results.map((r) => r.status),
      ['unchanged', 'unchanged', 'unchanged'],
    );
    assert.ok(existsSync(join(folder, PUSH_LEDGER_FILE)));
  });
});
