/**
 * `lineage-svc-api` as a process: `--help`, bad configuration (exit 2, one line), and a real start
 * on the sqlite store that imports the graph file into graph `default`, serves it, and stops
 * gracefully (exit 0) on SIGTERM.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_GRAPH_NAME, graphIdForName } from '../../src/graphCommands.js';
import { createEventStore } from '../../infra/eventStore/createEventStore.js';
import { sampleGraph } from '../helpers/sampleGraph.js';

const root = join(import.meta.dirname, '..', '..');
const COMMAND = ['--import', 'tsx', join(root, 'commands', 'api.ts')];
const baseEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };

describe('lineage-svc-api command', () => {
  it('prints its settings with --help and exits 0', () => {
    const result = spawnSync(process.execPath, [...COMMAND, '--help'], { cwd: root, env: baseEnv, encoding: 'utf8' });
    assert.equal(result.status, 0);
    assert.match(result.stdout, /LINEAGE_SVC_API_PORT/);
    assert.match(result.stdout, /LINEAGE_SVC_GRAPH_FILE/);
  });

  it('exits 2 with one line on bad configuration or arguments', () => {
    const bad = spawnSync(process.execPath, COMMAND, {
      cwd: root,
      env: { ...baseEnv, LINEAGE_SVC_API_PORT: 'http' },
      encoding: 'utf8',
    });
    assert.equal(bad.status, 2);
    assert.equal(bad.stderr.trim().split('\n').length, 1);
    assert.match(bad.stderr, /^lineage-svc-api: .*LINEAGE_SVC_API_PORT/);
    const args = spawnSync(process.execPath, [...COMMAND, 'serve'], { cwd: root, env: baseEnv, encoding: 'utf8' });
    assert.equal(args.status, 2);
  });

  it('imports the graph file into graph "default" on an empty store, serves it, and stops on SIGTERM', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'lineage-api-cmd-'));
    try {
      const file = join(folder, 'lineage_graph.json');
      writeFileSync(file, JSON.stringify(sampleGraph()));
      const { child, base, exited } = await startApiCommand({
        LINEAGE_SVC_STORAGE__BACKEND: 'sqlite',
        LINEAGE_SVC_STORAGE__PATH: join(folder, 'store'),
        LINEAGE_SVC_GRAPH_FILE: file,
      });
      const graph = await (await fetch(`${base}/api/v1/graphs/${graphIdForName(DEFAULT_GRAPH_NAME)}`)).json();
      assert.equal((graph as { name: string }).name, 'default');
      assert.equal((graph as { node_count: number }).node_count, 11);
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
  it('on a port in use exits 2 with one line naming the port and the variable, without touching the store', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'lineage-api-port-'));
    let first: Awaited<ReturnType<typeof startApiCommand>> | undefined;
    try {
      const file = join(folder, 'lineage_graph.json');
      writeFileSync(file, JSON.stringify(sampleGraph()));
      first = await startApiCommand({
        LINEAGE_SVC_STORAGE__BACKEND: 'sqlite',
        LINEAGE_SVC_STORAGE__PATH: join(folder, 'first'),
        LINEAGE_SVC_GRAPH_FILE: file,
      });
      const port = new URL(first.base).port;
      // The second API's store exists and is empty: before issue 17 it imported the graph file into it.
      const storage = { backend: 'sqlite' as const, path: join(folder, 'second') };
      const before = await createEventStore(storage);
      const head = await before.headPosition();
      await before.close();
      const second = spawnSync(process.execPath, COMMAND, {
        cwd: root,
        env: {
          ...baseEnv,
          LINEAGE_SVC_API_HOST: '127.0.0.1',
          LINEAGE_SVC_API_PORT: port,
          LINEAGE_SVC_STORAGE__BACKEND: 'sqlite',
          LINEAGE_SVC_STORAGE__PATH: storage.path,
          LINEAGE_SVC_GRAPH_FILE: file,
        },
        encoding: 'utf8',
      });
      assert.equal(second.status, 2, second.stderr);
      assert.equal(second.stderr.trim().split('\n').length, 1, second.stderr);
      assert.match(
        second.stderr,
        new RegExp(`^lineage-svc-api: cannot listen on 127\\.0\\.0\\.1:${port} .*LINEAGE_SVC_API_PORT`),
      );
      const after = await createEventStore(storage);
      assert.equal(await after.headPosition(), head);
      await after.close();
      const graphs = await (await fetch(`${first.base}/api/v1/graphs`)).json();
      assert.equal((graphs as { graphs: unknown[] }).graphs.length, 1, 'the first API still serves its graph');
      first.child.kill('SIGTERM');
      assert.equal(await first.exited, 0);
    } finally {
      first?.child.kill('SIGKILL');
      rmSync(folder, { recursive: true, force: true });
    }
  });
  it('keeps serving when the OpenLineage Kafka brokers are unreachable, and still stops on SIGTERM', async () => {
    const { child, base, exited } = await startApiCommand({
      LINEAGE_SVC_STORAGE__BACKEND: 'memory',
      LINEAGE_SVC_OPENLINEAGE_KAFKA_BROKERS: '127.0.0.1:1',
      LINEAGE_SVC_GRAPH_FILE: join(tmpdir(), 'lineage-svc-no-such-graph-file.json'),
    });
    const health = await fetch(`${base}/api/v1/health`);
    assert.equal(health.status, 200);
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  });
});

/**
 * Starts `lineage-svc-api` on an ephemeral loopback port with `env` added, and waits until it
 * listens. Rejects, with its stderr, when it exits first.
 */
async function startApiCommand(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; base: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, COMMAND, {
    cwd: root,
    env: { ...baseEnv, LINEAGE_SVC_API_HOST: '127.0.0.1', LINEAGE_SVC_API_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  return { child, base, exited };
}
