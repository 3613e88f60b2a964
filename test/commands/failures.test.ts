/**
 * Commands that never record a wrong graph (issue "History you can trust", item 4): flags that
 * cannot work are refused with one line and exit 2 before anything is read or recorded, so the
 * store and the graph file stay as they were; `--version` and `--help` run nothing.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createEventStore } from '../../infra/eventStore/createEventStore.js';
import { packageInfo } from '../../infra/http/routes/meta.js';
import { streams } from '../../src/events.js';
import { DEFAULT_GRAPH_NAME, graphIdForName } from '../../src/graphCommands.js';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import { cliEnv, PROD, runExtractCommand } from '../extraction/helpers.js';

/** The head position of a sqlite store folder (0 when empty). */
async function headPosition(folder: string): Promise<number> {
  const store = await createEventStore({ backend: 'sqlite', path: folder });
  try {
    return await store.headPosition();
  } finally {
    await store.close();
  }
}

/** All requests a simulator answered. */
function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, count) => sum + count, 0);
}

/** The revision of the graph named `default` in a sqlite store folder. */
async function graphRevision(folder: string): Promise<number> {
  const store = await createEventStore({ backend: 'sqlite', path: folder });
  try {
    const events = await store.readStream(streams.graph(graphIdForName(DEFAULT_GRAPH_NAME)));
    return events.at(-1)?.revision ?? -1;
  } finally {
    await store.close();
  }
}

describe('command-line failures', () => {
  let sim: PlatformSimulator;
  let folder: string;
  before(async () => {
    sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
    folder = mkdtempSync(join(tmpdir(), 'lineage-svc-command-failures-'));
  });
  after(async () => {
    await sim.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('refuses an --output it cannot write before extracting: exit 2, one line, store and file untouched', async () => {
    const store = join(folder, 'store');
    const output = join(folder, 'graph.json');
    const first = await runExtractCommand(['--env', PROD, '--output', output], cliEnv(sim, store));
    assert.equal(first.code, 0, first.stderr);
    const fileBefore = readFileSync(output, 'utf8');
    const positionBefore = await headPosition(store);
    assert.ok(positionBefore > 0);
    const requestsBefore = total(sim.requestCounts());

    mkdirSync(join(folder, 'a-folder'));
    for (const target of [join(folder, 'no-such-folder', 'graph.json'), join(folder, 'a-folder')]) {
      const run = await runExtractCommand(['--env', PROD, '--output', target], cliEnv(sim, store));
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
      assert.match(
        run.stderr,
        /^lineage-svc-extract: cannot write graph file .*: (it is a folder|the folder .* does not exist)/,
      );
    }
    assert.equal(await headPosition(store), positionBefore, 'nothing was appended');
    assert.equal(readFileSync(output, 'utf8'), fileBefore);
    assert.equal(total(sim.requestCounts()), requestsBefore, 'the platform was not asked');
  });

  it('refuses --env and --cluster values that match nothing: exit 2, one line, graph and file untouched', async () => {
    const store = join(folder, 'typo-store');
    const output = join(folder, 'typo-graph.json');
    const first = await runExtractCommand(['--env', PROD, '--output', output], cliEnv(sim, store));
    assert.equal(first.code, 0, first.stderr);
    const fileBefore = readFileSync(output, 'utf8');
    const graphBefore = await graphRevision(store);
    for (const [args, message] of [
      [['--env', 'env-typo0'], /--env env-typo0 matches no environment the cloud key can see/],
      [['--env', PROD, '--cluster', 'lkc-nope'], /--cluster lkc-nope matches no Kafka cluster of env-q7m2k9/],
    ] as const) {
      const run = await runExtractCommand([...args, '--output', output], cliEnv(sim, store));
      assert.equal(run.code, 2, run.stderr);
      const lines = run.stderr
        .trim()
        .split('\n')
        .filter((line) => !/^(Store|Discovery|Enrichment):/.test(line));
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0]!, message);
    }
    assert.equal(readFileSync(output, 'utf8'), fileBefore, 'the graph file is untouched');
    assert.equal(await graphRevision(store), graphBefore, 'the graph is untouched');
  });

  for (const command of ['extract', 'watch', 'api', 'simulator']) {
    it(`lineage-svc-${command} answers --version and --help without opening a store`, () => {
      const cwd = mkdtempSync(join(tmpdir(), 'lineage-svc-version-'));
      try {
        for (const [flag, pattern] of [
          ['--version', new RegExp(`^lineage-svc-${command} ${packageInfo().version.replaceAll('.', '\\.')}\\n$`)],
          ['--help', /lineage-svc-/],
        ] as const) {
          const result = spawnSync(
            process.execPath,
            ['--import', import.meta.resolve('tsx'), join(process.cwd(), `commands/${command}.ts`), flag],
            {
              cwd,
              env: { PATH: process.env.PATH ?? '' },
              encoding: 'utf8',
            },
          );
          assert.equal(result.status, 0, result.stderr);
          assert.match(result.stdout, pattern);
        }
        assert.equal(existsSync(join(cwd, '.lineage-svc')), false, 'no store was opened');
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    });
  }
});
