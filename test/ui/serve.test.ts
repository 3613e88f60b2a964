/**
 * `make serve` (`commands/serve.ts`) as a user runs it: the simulator, the demo extraction into a
 * sqlite store, the API and the UI start; the printed URL serves the app and, through the UI's
 * proxy, the demo graph; the key printed in its fragment (made for the run) is the one writes need:
 * without it a write through the UI is refused, and the API itself wants a key; SIGINT stops
 * everything with exit code 0. Real sockets on 127.0.0.1 (free ports picked by the system), a
 * temporary working directory, no timing assertions.
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
        LINEAGE_SVC_API_KEY: undefined,
        LINEAGE_SVC_API_KEYS: undefined,
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
      const [, url, key] = /serve: open (http:\/\/\S+\/)#api_key=(\S+)/.exec(output) ?? [];
      assert.equal(url, `http://127.0.0.1:${uiPort}/`, output);
      assert.ok(key && key.length >= 40, 'a key made for the run rides in the fragment');
      assert.match(output, new RegExp(`another tab asks for it: ${key}`));
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
      // Writes need the user's key: the UI lends its own to reads only, and the API is not open.
      const write = (headers: Record<string, string>) =>
        fetch(`${url}api/v1/graphs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: url.slice(0, -1), ...headers },
          body: JSON.stringify({ name: 'from-the-browser' }),
        });
      assert.equal((await write({})).status, 401);
      assert.equal((await write({ 'x-api-key': 'guessed' })).status, 403);
      assert.equal((await write({ 'x-api-key': key })).status, 201);
      assert.equal((await fetch(`http://127.0.0.1:${apiPort}/api/v1/graphs`)).status, 403, 'the API wants a key');
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
