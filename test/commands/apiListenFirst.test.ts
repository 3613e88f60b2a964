/**
 * `lineage-svc-api` checks that it can listen before it touches the store (issue 17, item 5): on an
 * address already taken, it exits 2 at once with one line naming the address and the variables to
 * change, and the store (sqlite, in a folder that does not exist yet) is never created, so the graph
 * file is never imported. The address is held by a plain TCP server on 127.0.0.1, both as the exact
 * address and under the wildcard host the API binds by default.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sampleGraph } from '../helpers/sampleGraph.js';

const root = join(import.meta.dirname, '..', '..');

describe('lineage-svc-api on an address in use', () => {
  let holder: Server;
  let port: number;
  let folder: string;
  let graphFile: string;
  before(async () => {
    holder = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as { port: number }).port;
    folder = mkdtempSync(join(tmpdir(), 'lineage-svc-listen-first-'));
    graphFile = join(folder, 'lineage_graph.json');
    writeFileSync(graphFile, JSON.stringify(sampleGraph()));
  });
  after(async () => {
    await new Promise<void>((resolve) => holder.close(() => resolve()));
    rmSync(folder, { recursive: true, force: true });
  });

  for (const host of ['127.0.0.1', '0.0.0.0']) {
    it(`exits 2 within seconds, before creating the store (LINEAGE_SVC_API_HOST=${host})`, () => {
      const store = join(folder, `store-${host}`);
      const started = performance.now();
      const result = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'commands', 'api.ts')], {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? '',
          LINEAGE_SVC_API_HOST: host,
          LINEAGE_SVC_API_PORT: String(port),
          LINEAGE_SVC_STORAGE__BACKEND: 'sqlite',
          LINEAGE_SVC_STORAGE__PATH: store,
          LINEAGE_SVC_GRAPH_FILE: graphFile,
          LINEAGE_SVC_LOG_LEVEL: 'INFO',
        },
        encoding: 'utf8',
        timeout: 30_000,
      });
      const seconds = (performance.now() - started) / 1000;
      assert.equal(result.status, 2, result.stderr);
      assert.equal(result.stdout, '');
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, `one line, no log of the store or the import:\n${result.stderr}`);
      assert.equal(
        lines[0],
        `lineage-svc-api: cannot listen on ${host}:${port} (LINEAGE_SVC_API_HOST, LINEAGE_SVC_API_PORT): ` +
          'the port is already in use; set LINEAGE_SVC_API_PORT to a free port',
      );
      assert.equal(existsSync(store), false, 'the store folder was never created');
      assert.ok(seconds < 15, `took ${seconds.toFixed(1)} s`);
    });
  }
});
