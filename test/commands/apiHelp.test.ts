/**
 * `lineage-svc-api --help` lists every setting the API reads (issue 17): the settings come from one
 * table (`commands/environment.ts`, `SETTINGS`), which must name every variable `loadConfig` reads,
 * and the help must name each of them that the API uses. The variables read are found by handing
 * `loadConfig` an environment that records every name asked for.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { SETTINGS } from '../../commands/environment.js';
import { CONNECTION_DRAIN_MS, TASK_DRAIN_MS } from '../../infra/http/app.js';
import { loadConfig } from '../../src/config.js';

/** Every `LINEAGE_SVC_*` variable `loadConfig` reads. */
function variablesRead(): Set<string> {
  const read = new Set<string>();
  const record = (name: string | symbol): void => {
    if (typeof name === 'string' && name.startsWith('LINEAGE_SVC_')) read.add(name);
  };
  const env = new Proxy({} as Record<string, string | undefined>, {
    get: (_target, name) => (record(name), undefined),
    has: (_target, name) => (record(name), false),
  });
  loadConfig(env);
  return read;
}

/** `lineage-svc-api --help`, from the command itself. */
function apiHelp(): string {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'commands/api.ts', '--help'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

describe('lineage-svc-api --help', () => {
  const read = variablesRead();
  const help = apiHelp();
  const listed = (name: string) => new RegExp(`(^|[\\s,])${name}(,|$)`, 'm').test(help);

  it('reads the settings table, which names every variable loadConfig reads and no other', () => {
    assert.ok(read.size > 50, `loadConfig read ${read.size} variables`);
    const inTable = new Set(SETTINGS.flatMap((group) => group.settings.flatMap((setting) => setting.variables)));
    assert.deepEqual([...read].filter((name) => !inTable.has(name)).sort(), [], 'missing from SETTINGS');
    assert.deepEqual([...inTable].filter((name) => !read.has(name)).sort(), [], 'in SETTINGS but never read');
  });

  it('lists every variable the API reads, and not those only other commands read', () => {
    const forApi = SETTINGS.flatMap((group) => group.settings)
      .filter((setting) => setting.commands.includes('api'))
      .flatMap((setting) => setting.variables);
    assert.deepEqual(
      forApi.filter((name) => !listed(name)),
      [],
      help,
    );
    for (const name of [
      'LINEAGE_SVC_API_KEYS',
      'LINEAGE_SVC_API_RATE_LIMIT_PER_MINUTE',
      'LINEAGE_SVC_API_REQUEST_TIMEOUT_SECONDS',
      'LINEAGE_SVC_MIN_POLL_INTERVAL_SECONDS',
    ])
      assert.ok(listed(name), name);
    const notApi = [...read].filter((name) => !forApi.includes(name));
    assert.deepEqual(notApi, ['LINEAGE_SVC_API_URL'], 'only the UI reads the API URL');
    assert.ok(!listed('LINEAGE_SVC_API_URL'));
  });

  it('describes shutdown with the drain times the app uses', () => {
    assert.match(help, /Shutdown \(SIGINT or SIGTERM\)/);
    assert.ok(help.includes(`open requests get ${CONNECTION_DRAIN_MS / 1000} s`), help);
    assert.ok(help.includes(`waits up to ${TASK_DRAIN_MS / 1000} s for running tasks`), help);
    assert.match(help, /records its watchers STOPPED, releases its lease and closes the\s+store: exit 0/);
  });
});
