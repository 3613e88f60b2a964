/**
 * The catalog endpoints and commands over real sockets: `GET /api/v1/catalogs` from the registry,
 * `POST /api/v1/lineage/push` and `POST /api/v1/push/{provider}` against the lakehouse simulator
 * (results, 400 for an unconfigured or unimplemented provider naming the variables, 404 for an
 * unknown provider or graph), the enrichment task's catalog part, and `lineage-svc-extract` with
 * `--push-lineage` and `--enrich-only` against both simulators.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import {
  loadLakehouseScenario,
  startLakehouseSimulator,
  type LakehouseSimulator,
} from '../../simulators/databricks/index.js';
import { extract } from '../../src/extraction/extract.js';
import { lakehouseTableId } from '../../src/graph/ids.js';
import type { LineageGraph } from '../../src/graph/model.js';
import { silentLogger } from '../../src/logger.js';
import { DEDICATED, PROD, cliEnv, fastApi, runExtractCommand } from '../extraction/helpers.js';
import { assertProblem, call, startApi, type TestApi } from '../http/helpers.js';
import { waitForTask } from '../helpers/tasks.js';

const TABLE = `retail_prod.${DEDICATED}.orders_enriched`;
const TABLE_ID = lakehouseTableId(PROD, 'retail_prod', DEDICATED, 'orders_enriched');

let platform: PlatformSimulator;
let lakehouse: LakehouseSimulator;
let graph: LineageGraph;
let folder: string;

before(async () => {
  platform = await startPlatformSimulator({ scenario: await loadScenario('demo') });
  lakehouse = await startLakehouseSimulator({ scenario: await loadLakehouseScenario('demo') });
  graph = (await extract({ platform: fastApi(platform), logger: silentLogger() }, { environmentIds: [PROD] })).graph;
  folder = mkdtempSync(join(tmpdir(), 'lineage-svc-catalogs-'));
});
after(async () => {
  await platform.close();
  await lakehouse.close();
  rmSync(folder, { recursive: true, force: true });
});

const lakehouseEnv = () => ({
  LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL: lakehouse.url,
  LINEAGE_SVC_LAKEHOUSE_TOKEN: lakehouse.scenario.token,
});

async function apiWithGraph(env: Record<string, string>): Promise<{ api: TestApi; graphId: string }> {
  const api = await startApi({ env });
  const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'catalogs' } });
  const graphId = created.body.graph_id as string;
  const imported = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import`, { json: graph });
  assert.equal(imported.status, 200, imported.text);
  return { api, graphId };
}

describe('catalog endpoints', () => {
  it('lists the registry on GET /catalogs', async () => {
    const api = await startApi({ env: lakehouseEnv() });
    try {
      const catalogs = (await call(api.base, 'GET', '/api/v1/catalogs')).body.catalogs as Array<{
        catalog_type: string;
        capabilities: string[];
        configured: boolean;
        settings: string[];
      }>;
      assert.deepEqual(
        catalogs.map((c) => [c.catalog_type, c.configured, c.capabilities.join('+')]),
        [
          ['LAKEHOUSE_CATALOG', true, 'enrich+push'],
          ['DATALAKE_CATALOG', false, 'enrich+push'],
          ['WAREHOUSE_LINEAGE', false, 'enrich+push'],
          ['DATA_GOVERNANCE', false, 'push'],
        ],
      );
      assert.ok(catalogs[0]!.settings.includes('LINEAGE_SVC_LAKEHOUSE_WAREHOUSE_ID'));
    } finally {
      await api.dispose();
    }
  });

  it('pushes with POST /lineage/push and POST /push/{provider}, by default the most recent graph', async () => {
    const { api, graphId } = await apiWithGraph(lakehouseEnv());
    try {
      const before = lakehouse.statements().length;
      const pushed = await call(api.base, 'POST', '/api/v1/lineage/push', {
        json: { catalog_type: 'LAKEHOUSE_CATALOG', set_comments: false },
      });
      assert.equal(pushed.status, 200, pushed.text);
      assert.equal(pushed.body.catalog_type, 'LAKEHOUSE_CATALOG');
      assert.equal(pushed.body.graph_id, graphId);
      assert.equal(pushed.body.tables_updated, 1);
      assert.deepEqual(
        (pushed.body.results as Array<{ kind: string; name: string; status: string }>).map((r) => [
          r.kind,
          r.name,
          r.status,
        ]),
        [['table', TABLE, 'updated']],
      );
      assert.equal(pushed.body.comments_set, 0);
      assert.ok(pushed.body.properties_set >= 6);
      assert.deepEqual(pushed.body.errors, []);
      const sent = lakehouse.statements().slice(before);
      assert.deepEqual(
        sent.map((s) => s.parsed?.kind),
        ['set_properties'],
      );
      assert.equal(lakehouse.table(TABLE)!.properties['lineage_svc.environment_id'], PROD);

      const byName = await call(api.base, 'POST', `/api/v1/push/lakehouse?graph_id=${graphId}`, {
        json: { create_bridge_table: true },
      });
      assert.equal(byName.status, 200, byName.text);
      assert.equal(byName.body.comments_set, 1);
      assert.match(byName.body.errors[0], /bridge table retail_prod\.default\.stream_lineage: not created/);
      const byType = await call(api.base, 'POST', '/api/v1/push/LAKEHOUSE_CATALOG');
      assert.equal(byType.status, 200, byType.text);
      // Nothing changed since the push before: the table already holds the lineage.
      assert.equal(byType.body.tables_updated, 0);
      assert.deepEqual(
        (byType.body.results as Array<{ name: string; status: string }>).map((r) => [r.name, r.status]),
        [[TABLE, 'unchanged']],
      );
    } finally {
      await api.dispose();
    }
  });

  it('answers 400 naming the variables for an unconfigured provider, 404 for unknown providers and graphs, 400 for bad bodies', async () => {
    const { api } = await apiWithGraph({});
    try {
      assertProblem(
        await call(api.base, 'POST', '/api/v1/push/lakehouse'),
        400,
        /set LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL and LINEAGE_SVC_LAKEHOUSE_TOKEN/,
      );
      assertProblem(
        await call(api.base, 'POST', '/api/v1/lineage/push', { json: { catalog_type: 'DATALAKE_CATALOG' } }),
        400,
        /set LINEAGE_SVC_DATALAKE_REGION/,
      );
      assertProblem(
        await call(api.base, 'POST', '/api/v1/lineage/push', { json: { catalog_type: 'WAREHOUSE_LINEAGE' } }),
        400,
        /set LINEAGE_SVC_WAREHOUSE_PROJECT_ID and LINEAGE_SVC_WAREHOUSE_LOCATION/,
      );
      assertProblem(
        await call(api.base, 'POST', '/api/v1/lineage/push', { json: { catalog_type: 'DATA_GOVERNANCE' } }),
        400,
        /set LINEAGE_SVC_DATA_GOVERNANCE_DOMAIN_ID and LINEAGE_SVC_DATA_GOVERNANCE_PROJECT_ID/,
      );
      assertProblem(await call(api.base, 'POST', '/api/v1/push/snowflake'), 404, /no catalog provider "snowflake"/);
      assertProblem(
        await call(api.base, 'POST', '/api/v1/lineage/push', {
          json: { catalog_type: 'LAKEHOUSE_CATALOG', graph_id: 'nope' },
        }),
        404,
      );
      assertProblem(await call(api.base, 'POST', '/api/v1/lineage/push', { json: { catalog_type: 'NOPE' } }), 400);
      assertProblem(await call(api.base, 'POST', '/api/v1/push/lakehouse', { json: { set_properties: 'yes' } }), 400);
      assertProblem(await call(api.base, 'POST', '/api/v1/push/lakehouse', { json: { token: 'x' } }), 400);
    } finally {
      await api.dispose();
    }
    const empty = await startApi({ env: lakehouseEnv() });
    try {
      assertProblem(await call(empty.base, 'POST', '/api/v1/push/lakehouse'), 404, /no graph yet/);
    } finally {
      await empty.dispose();
    }
  });

  it('enriches lakehouse tables in the enrichment task and records the difference', async () => {
    const { api, graphId } = await apiWithGraph(lakehouseEnv());
    try {
      const started = await call(api.base, 'POST', '/api/v1/tasks/enrich', { json: { graph_id: graphId } });
      assert.equal(started.status, 202, started.text);
      const task = (await waitForTask(api.base, started.body.task_id)).body;
      assert.equal(task.status, 'completed', JSON.stringify(task));
      assert.equal(task.result.node_count, graph.nodes.length + 5, 'three tables and two catalog jobs discovered');
      assert.match(task.result.warnings.join('\n'), /margin_restricted skipped/);
      const results = task.result.results as Array<{ name: string; status: string }>;
      assert.ok(
        results.some((item) => item.status === 'updated'),
        JSON.stringify(results),
      );
      assert.ok(
        results.some((item) => item.status === 'skipped' && item.name.includes('margin_restricted')),
        'the forbidden table is skipped, per table',
      );
      const node = (await call(api.base, 'GET', `/api/v1/graphs/${graphId}/nodes/${encodeURIComponent(TABLE_ID)}`))
        .body;
      assert.equal(node.attributes.owner, 'data-platform@acme-retail.com');
      assert.equal(node.attributes.table_type, 'MANAGED');
    } finally {
      await api.dispose();
    }
  });
});

/** The push line of `lineage-svc-extract` says `tables` tables were updated or already held the lineage, one skipped. */
function assertPushedOrUnchanged(stderr: string, tables: number): void {
  const line =
    /Push: (\d+) lakehouse table\(s\) updated, .*; 0 error\(s\), 1 skipped; per table or job: (\d+) updated, (\d+) unchanged, 1 skipped, 0 failed/.exec(
      stderr,
    );
  assert.ok(line, stderr);
  assert.equal(line[1], line[2]);
  assert.equal(Number(line[2]) + Number(line[3]), tables);
}

describe('lineage-svc-extract with the lakehouse', () => {
  it('takes a list after --push-lineage, and refuses a catalog of the list that is not configured', async () => {
    const output = join(folder, 'listed.json');
    const listed = await runExtractCommand(['--env', PROD, '--output', output, '--push-lineage', 'lakehouse'], {
      ...cliEnv(platform),
      ...lakehouseEnv(),
    });
    assert.equal(listed.code, 0, listed.stderr);
    assertPushedOrUnchanged(listed.stderr, 3);
    const refused = await runExtractCommand(['--env', PROD, '--output', output, '--push-lineage=lakehouse,warehouse'], {
      ...cliEnv(platform),
      ...lakehouseEnv(),
    });
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      /--push-lineage: .*set LINEAGE_SVC_WAREHOUSE_PROJECT_ID and LINEAGE_SVC_WAREHOUSE_LOCATION/,
    );
    const unknown = await runExtractCommand(
      ['--env', PROD, '--output', output, '--push-lineage-catalogs', 'snowflake'],
      {
        ...cliEnv(platform),
        ...lakehouseEnv(),
      },
    );
    assert.equal(unknown.code, 2);
    assert.match(
      unknown.stderr,
      /--push-lineage takes a comma-separated list of lakehouse, datalake, warehouse, data_governance/,
    );
  });

  it('extracts, enriches lakehouse tables and pushes lineage with --push-lineage', async () => {
    const output = join(folder, 'graph.json');
    const before = lakehouse.statements().length;
    const { code, stdout, stderr } = await runExtractCommand(['--env', PROD, '--output', output, '--push-lineage'], {
      ...cliEnv(platform),
      ...lakehouseEnv(),
    });
    assert.equal(code, 0, stderr);
    assert.match(stderr, /Enrichment: catalog tables \(lakehouse\)/);
    assertPushedOrUnchanged(stderr, 3);
    assert.match(stdout, /Extraction summary/);
    const written = JSON.parse(readFileSync(output, 'utf8')) as LineageGraph;
    const table = written.nodes.find((n) => n.id === TABLE_ID)!;
    assert.equal(table.attributes?.owner, 'data-platform@acme-retail.com');
    assert.ok(written.nodes.some((n) => n.attributes?.derived === true));
    const kinds = lakehouse
      .statements()
      .slice(before)
      .map((s) => s.parsed?.kind);
    // Tables an earlier test pushed the same lineage to are unchanged: no statement for them.
    if (/per table or job: [1-9]/.test(stderr))
      assert.ok(kinds.includes('set_properties') && kinds.includes('comment'));
    else assert.deepEqual(kinds, []);
  });

  it('--enrich-only enriches the existing file and pushes it', async () => {
    const output = join(folder, 'plain.json');
    // On the store an earlier test enriched, --no-enrich keeps what the catalog reported (it is not read, not gone).
    const kept = await runExtractCommand(['--env', PROD, '--output', output, '--no-enrich'], cliEnv(platform));
    assert.equal(kept.code, 0, kept.stderr);
    assert.equal(
      (JSON.parse(readFileSync(output, 'utf8')) as LineageGraph).nodes.find((n) => n.id === TABLE_ID)?.attributes
        ?.owner,
      'data-platform@acme-retail.com',
    );
    const plain = await runExtractCommand(
      ['--env', PROD, '--output', output, '--no-enrich'],
      cliEnv(platform, join(folder, 'plain-store')),
    );
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(
      (JSON.parse(readFileSync(output, 'utf8')) as LineageGraph).nodes.find((n) => n.id === TABLE_ID)?.attributes
        ?.owner,
      undefined,
    );
    const enriched = await runExtractCommand(['--env', PROD, '--output', output, '--enrich-only', '--push-lineage'], {
      ...cliEnv(platform),
      ...lakehouseEnv(),
    });
    assert.equal(enriched.code, 0, enriched.stderr);
    assertPushedOrUnchanged(enriched.stderr, 3);
    assert.equal(
      (JSON.parse(readFileSync(output, 'utf8')) as LineageGraph).nodes.find((n) => n.id === TABLE_ID)?.attributes
        ?.owner,
      'data-platform@acme-retail.com',
    );
  });
});
