/**
 * `lineage-svc-watch` as a process against the platform simulator: `--help`, bad flags and missing
 * configuration (exit 2, one line), and a real run in the default output folder: the initial
 * extraction writes `./lineage_graph.json`, a topic created in the simulator is detected and
 * re-extracted into the file, and SIGINT ends the run with exit 0; the heartbeat file is touched by
 * the polls; an environment the platform does not know stops the watcher at start with exit 3.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/wait.js';
import {
  loadScenario,
  simulatorClientEnvironment,
  startPlatformSimulator,
  type PlatformSimulator,
} from '../../simulators/confluent/index.js';

const root = join(import.meta.dirname, '..', '..');
// tsx resolved from here, so that the command also runs from a working directory outside the checkout.
const COMMAND = ['--import', import.meta.resolve('tsx'), join(root, 'commands', 'watch.ts')];
const baseEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
const ENV = 'env-q7m2k9';
const CLUSTER = 'lkc-7x9m2p';

describe('lineage-svc-watch command', () => {
  let sim: PlatformSimulator;
  before(async () => {
    sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
  });
  after(async () => sim.close());

  it('prints its flags with --help and exits 0', () => {
    const result = spawnSync(process.execPath, [...COMMAND, '--help'], { cwd: root, env: baseEnv, encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    for (const flagName of [
      '--env',
      '--cluster',
      '--cooldown',
      '--poll-interval',
      '--push-lakehouse',
      '--push-datalake',
    ])
      assert.ok(result.stdout.includes(flagName), flagName);
  });

  it('exits 2 with one line on bad flags, a missing credential or an unavailable push', () => {
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [[], {}, /--env is required/],
      [['--env', ''], {}, /--env is empty: .* LINEAGE_SVC_WATCH_ENVIRONMENT/],
      [['--env', ENV, '--cooldown', 'soon'], {}, /--cooldown must be a number of seconds/],
      [['--env', ENV, '--poll-interval', '0'], {}, /--poll-interval/],
      [['--env', ENV], {}, /LINEAGE_SVC_STREAM_CLOUD_API_KEY/],
      [
        ['--env', ENV, '--push-lakehouse'],
        simulatorClientEnvironment(sim.url, sim.scenario),
        /--push-lakehouse needs LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL/,
      ],
      [
        ['--env', ENV, '--push-datalake'],
        simulatorClientEnvironment(sim.url, sim.scenario),
        /--push-datalake needs LINEAGE_SVC_DATALAKE_REGION/,
      ],
    ];
    for (const [args, env, message] of cases) {
      const result = spawnSync(process.execPath, [...COMMAND, ...args], {
        cwd: root,
        env: { ...baseEnv, ...env },
        encoding: 'utf8',
      });
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.match(result.stderr, /^lineage-svc-watch: /);
      assert.match(result.stderr, message);
    }
  });

  it('exits 3 with one line naming an environment the platform does not know, recording nothing', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'lineage-watch-unknown-'));
    try {
      // Asynchronous: the simulator answers from this process's event loop.
      const child = spawn(process.execPath, [...COMMAND, '--env', 'env-nosuch1'], {
        cwd: folder,
        env: { ...baseEnv, ...simulatorClientEnvironment(sim.url, sim.scenario) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const result = { stdout: '', stderr: '', status: null as number | null };
      child.stdout.on('data', (chunk: Buffer) => (result.stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (result.stderr += chunk.toString('utf8')));
      result.status = await new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      assert.equal(result.status, 3, `${result.stdout}\n${result.stderr}`);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.match(result.stderr, /^lineage-svc-watch: the platform does not know the environment env-nosuch1 /);
      assert.ok(!existsSync(join(folder, 'lineage_graph.json')));
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('writes ./lineage_graph.json at start and after a change, and exits 0 on SIGINT', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'lineage-watch-cmd-'));
    const heartbeat = join(folder, 'heartbeat');
    const args = ['--env', ENV, '--cooldown', '0.2', '--poll-interval', '0.1', '--heartbeat-file', heartbeat];
    const child = spawn(process.execPath, [...COMMAND, ...args], {
      cwd: folder,
      env: { ...baseEnv, ...simulatorClientEnvironment(sim.url, sim.scenario) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const waitFor = (what: string, check: () => boolean) =>
      eventually(
        what,
        () => {
          if (child.exitCode !== null) throw new Error(`the watcher exited (${child.exitCode}) before ${what}`);
          return check() ? true : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 50 },
      ).catch((error: unknown) => {
        throw new Error(`${(error as Error).message}; stdout: ${stdout}; stderr: ${stderr}`);
      });
    const graphFile = join(folder, 'lineage_graph.json');
    try {
      await waitFor('the initial extraction', () => /EXTRACTING -> WATCHING/.test(stdout));
      assert.ok(existsSync(graphFile));
      await waitFor('a heartbeat after a poll', () => existsSync(heartbeat));
      const firstBeat = statSync(heartbeat).mtimeMs;
      await waitFor('a later heartbeat', () => statSync(heartbeat).mtimeMs > firstBeat);
      assert.ok(!readFileSync(graphFile, 'utf8').includes('watcher.cmd_topic'));
      sim.mutate([
        {
          op: 'add_topic',
          environment_id: ENV,
          cluster_id: CLUSTER,
          topic: { name: 'watcher.cmd_topic', partitions: 1 },
        },
      ]);
      await waitFor('the change', () =>
        /change\(s\) detected: created topic lkc-7x9m2p\/watcher\.cmd_topic/.test(stdout),
      );
      await waitFor('the new graph file', () => readFileSync(graphFile, 'utf8').includes('watcher.cmd_topic'));
      assert.match(stdout, /WATCHING -> COOLDOWN/);
      assert.match(stdout, /COOLDOWN -> EXTRACTING/);
      child.kill('SIGINT');
      assert.equal(await exited, 0, stderr);
      assert.match(stdout, /-> STOPPED: interrupted \(SIGINT\)/);
      assert.match(stdout, /Stopped\n$/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      const added = sim.scenario.environments
        .find((env) => env.id === ENV)
        ?.kafka_clusters.find((c) => c.id === CLUSTER)
        ?.topics.some((t) => t.name === 'watcher.cmd_topic');
      if (added)
        sim.mutate([{ op: 'remove_topic', environment_id: ENV, cluster_id: CLUSTER, name: 'watcher.cmd_topic' }]);
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
