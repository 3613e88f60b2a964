/**
 * `make serve` (`commands/serve.ts`) as a user runs it: the simulator, the demo extraction into a
 * sqlite store, the API and the UI start; the printed URL serves the app and, through the UI's
 * proxy, the demo graph; SIGINT stops everything with exit code 0. Real sockets on 127.0.0.1 (free
 * ports picked by the system), a temporary working directory, no timing assertions.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ensureUiBuilt } from './helpers.js';
import { freePort } from '../helpers/ports.js';

describe('make serve', () => {
  it('starts the simulators, extracts and enriches the demo, serves API and UI, and stops on SIGINT', async () => {
    ensureUiBuilt();
    const folder = mkdtempSync(join(tmpdir(), 'lineage-serve-'));
    const [apiPort, uiPort] = [await freePort(), await freePort()];
    // tsx by its resolved URL: the working directory is the temporary folder.
    const tsx = import.meta.resolve('tsx');
    const child = spawn(process.execPath, ['--import', tsx, join(process.cwd(), 'commands/serve.ts')], {
      cwd: folder,
      env: {
        ...process.env,
        LINEAGE_SVC_STORAGE__BACKEND: 'sqlite',
        LINEAGE_SVC_STORAGE__PATH: join(folder, 'store'),
        LINEAGE_SVC_API_PORT: String(apiPort),
        LINEAGE_SVC_UI_PORT: String(uiPort),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const deadline = Date.now() + 120_000;
      while (!/serve: open http/.test(output)) {
        assert.equal(child.exitCode, null, `serve exited early:\n${output}`);
        assert.ok(Date.now() < deadline, `serve did not print its URL:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const url = /serve: open (http:\/\/\S+)/.exec(output)![1]!;
      assert.equal(url, `http://127.0.0.1:${uiPort}/`);
      const page = await fetch(url);
      assert.equal(page.status, 200);
      const graphs = (await (await fetch(`${url}api/v1/graphs`)).json()) as {
        graphs: { graph_id: string; node_count: number }[];
      };
      assert.ok(graphs.graphs[0]!.node_count > 50, JSON.stringify(graphs));
      // The catalog simulators run too: warehouse tables enriched from BigQuery, lakehouse tables from Unity Catalog.
      const tables = (await (
        await fetch(`${url}api/v1/graphs/${graphs.graphs[0]!.graph_id}/nodes?node_type=CATALOG_TABLE&limit=500`)
      ).json()) as { nodes: { system: string; attributes?: { table_type?: string } }[] };
      assert.ok(Array.isArray(tables.nodes), JSON.stringify(tables));
      for (const system of ['WAREHOUSE', 'LAKEHOUSE'])
        assert.ok(
          tables.nodes.some((node) => node.system === system && node.attributes?.table_type !== undefined),
          `no enriched ${system} table: ${JSON.stringify(tables).slice(0, 400)}`,
        );
    } finally {
      child.kill('SIGINT');
      const code = await exited;
      rmSync(folder, { recursive: true, force: true });
      assert.equal(code, 0, output);
    }
    assert.match(output, /stopping the UI, the API and the simulators/);
    assert.match(output, /Warehouse \(Google BigQuery/);
  });
});
