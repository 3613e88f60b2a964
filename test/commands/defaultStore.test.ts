/**
 * The default store keeps history (issue "History you can trust", item 1): with no storage
 * settings, `lineage-svc-extract` records into sqlite, so a second run of the same extraction
 * records no change, and every run names its store on its first line.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import { cliEnv, DEV, PROD, runExtractCommand } from '../extraction/helpers.js';

describe('lineage-svc-extract with default settings', () => {
  let sim: PlatformSimulator;
  let folder: string;
  before(async () => {
    sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
    folder = mkdtempSync(join(tmpdir(), 'lineage-svc-default-store-'));
  });
  after(async () => {
    await sim.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('keeps history in sqlite: the second run of the same extraction records no change', async () => {
    const store = join(folder, 'store');
    const env = cliEnv(sim, store);
    assert.equal(env.LINEAGE_SVC_STORAGE__BACKEND, undefined, 'no backend is set: the default is used');
    const args = ['--env', PROD, '--env', DEV, '--output', join(folder, 'graph.json')];

    const first = await runExtractCommand(args, env);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stderr.split('\n')[0], `Store: sqlite in ${store}`);
    const added = /Recorded extraction \S+ in graph \S+ \(sqlite store\): (\d+) node\(s\) added/.exec(first.stdout);
    assert.ok(added && Number(added[1]) > 50, first.stdout);
    assert.ok(existsSync(store), 'the sqlite store is on disk');

    const second = await runExtractCommand(args, env);
    assert.equal(second.code, 0, second.stderr);
    assert.match(
      second.stdout,
      /\(sqlite store\): 0 node\(s\) added, 0 changed, 0 removed; 0 edge\(s\) added, 0 changed, 0 removed/,
    );
  });
});
