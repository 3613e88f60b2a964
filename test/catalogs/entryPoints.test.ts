/**
 * The demo's catalogs through the commands, each a child process (through tsx) on 127.0.0.1:
 *
 * - `lineage-svc-simulator` serves Databricks, Google and DataZone beside the platform and prints
 *   their variables; `lineage-svc-extract --push-lineage` with exactly those variables enriches the
 *   lakehouse and warehouse tables and pushes to the three catalogs, and a second run (same store
 *   folder, so the same push record) reports every table and job unchanged;
 * - `make demo` (`commands/demo.ts`, in a temporary working directory) prints the warehouse tables
 *   of the BigQuery sink enriched, the downstream view and the catalog jobs in its summary;
 * - `lineage-svc-watch --push-warehouse --push-data-governance` pushes to both after its extraction
 *   (the Google and DataZone simulators in this process record what they receive).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../helpers/wait.js';
import { loadScenario, simulatorClientEnvironment, startPlatformSimulator } from '../../simulators/confluent/index.js';
import {
  DEMO_DATAZONE_DOMAIN,
  DEMO_DATAZONE_PROJECT,
  startDataZoneSimulator,
} from '../../simulators/datazone/index.js';
import { WAREHOUSE_SETTINGS } from '../../src/catalogs/warehouse/provider.js';
import { googleClientEnvironment, loadGoogleScenario, startGoogleSimulator } from '../../simulators/google/index.js';
import { DEV, PROD, runExtractCommand } from '../extraction/helpers.js';

const root = join(import.meta.dirname, '..', '..');
// tsx by its resolved URL, so that a command also runs from a working directory outside the checkout.
const TSX = import.meta.resolve('tsx');
const baseEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };

/** A command of `commands/` as a child process, with its output so far and its exit. */
interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
  /** Waits (at most 60 s) until `check` holds; fails early, with the output, when the process exits first. */
  waitFor(what: string, check: (stdout: string) => boolean): Promise<void>;
}

function startCommand(command: string, args: string[], env: Record<string, string>, cwd = root): Running {
  const child = spawn(process.execPath, ['--import', TSX, join(root, 'commands', command), ...args], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    waitFor: (what, check) =>
      eventually(
        what,
        () => {
          if (check(stdout)) return true;
          if (child.exitCode !== null) throw new Error(`${command} exited (${child.exitCode}) before ${what}`);
          return undefined;
        },
        { timeoutMs: 60_000, intervalMs: 50 },
      ).then(
        () => undefined,
        (error: unknown) => {
          throw new Error(`${(error as Error).message}; stdout: ${stdout}; stderr: ${stderr}`);
        },
      ),
  };
}

/** Stops a command with SIGINT and answers its exit code (SIGKILL after 20 s). */
async function stop(running: Running): Promise<number | null> {
  if (running.child.exitCode !== null) return running.child.exitCode;
  running.child.kill('SIGINT');
  const timer = setTimeout(() => running.child.kill('SIGKILL'), 20_000);
  try {
    return await running.exited;
  } finally {
    clearTimeout(timer);
  }
}

/** `export NAME=VALUE` lines (values as `shellQuote` writes them) as variables. */
function exportedVariables(stdout: string): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const [, name, value] of stdout.matchAll(/^export ([A-Z0-9_]+)=(.*)$/gm))
    variables[name!] = value!.startsWith("'") ? value!.slice(1, -1).replaceAll(`'\\''`, "'") : value!;
  return variables;
}

/** The per-table-or-job counts of the push line of one catalog (`lakehouse`, `warehouse`, `data_governance`). */
function pushCounts(stderr: string, shortName: string) {
  const line = new RegExp(
    `^Push: (\\d+) ${shortName} table\\(s\\) updated, .*; (\\d+) error\\(s\\), \\d+ skipped; per table or job: ` +
      `(\\d+) updated, (\\d+) unchanged, (\\d+) skipped, (\\d+) failed$`,
    'm',
  ).exec(stderr);
  assert.ok(line, `no push line for ${shortName}: ${stderr}`);
  const [tablesUpdated, errors, updated, unchanged, skipped, failed] = line.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return { tablesUpdated, errors, updated, unchanged, skipped, failed };
}

let folder: string;
before(() => {
  folder = mkdtempSync(join(tmpdir(), 'lineage-svc-catalog-entry-points-'));
});
after(() => rmSync(folder, { recursive: true, force: true }));

describe('lineage-svc-simulator and lineage-svc-extract --push-lineage', () => {
  it('serves the three catalogs, prints their variables, and a second push of the demo changes nothing in any', async () => {
    const simulator = startCommand('simulator.ts', ['--port', '0'], baseEnv);
    try {
      await simulator.waitFor('the catalog variables', (stdout) => /^export AWS_SECRET_ACCESS_KEY=/m.test(stdout));
      const variables = exportedVariables(simulator.stdout());
      for (const name of [
        'LINEAGE_SVC_STREAM_CLOUD_API_KEY',
        'LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL',
        'LINEAGE_SVC_LAKEHOUSE_TOKEN',
        ...WAREHOUSE_SETTINGS,
        'LINEAGE_SVC_DATA_GOVERNANCE_DOMAIN_ID',
        'LINEAGE_SVC_DATA_GOVERNANCE_PROJECT_ID',
        'AWS_ENDPOINT_URL_DATAZONE',
        'AWS_REGION',
      ])
        assert.ok(variables[name], `${name} is printed`);
      assert.match(variables.LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL!, /^http:\/\/127\.0\.0\.1:\d+$/);

      const env = { ...baseEnv, ...variables, LINEAGE_SVC_STORAGE__PATH: join(folder, 'push-store') };
      const args = ['--env', PROD, '--env', DEV, '--output', join(folder, 'pushed.json'), '--push-lineage'];
      const first = await runExtractCommand(args, env);
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stderr, /^Enrichment: catalog tables \(lakehouse, warehouse\)$/m);
      const pushed = Object.fromEntries(
        ['lakehouse', 'warehouse', 'data_governance'].map((name) => [name, pushCounts(first.stderr, name)]),
      );
      for (const [name, counts] of Object.entries(pushed)) {
        assert.ok(counts.updated > 0, `${name}: something is written the first time`);
        assert.deepEqual([counts.errors, counts.failed, counts.unchanged], [0, 0, 0], name);
      }
      assert.equal(pushed.lakehouse!.skipped, 1, 'the forbidden lakehouse table');

      const second = await runExtractCommand(args, env);
      assert.equal(second.code, 0, second.stderr);
      for (const [name, before] of Object.entries(pushed))
        assert.deepEqual(
          pushCounts(second.stderr, name),
          { ...before, tablesUpdated: 0, updated: 0, unchanged: before.updated },
          `${name}: the second push reports everything it wrote unchanged`,
        );
    } finally {
      assert.equal(await stop(simulator), 0, simulator.stderr());
    }
  });
});

describe('make demo', () => {
  it('prints the warehouse tables of the BigQuery sink, enriched, their downstream view and the catalog jobs', async () => {
    const cwd = join(folder, 'demo');
    mkdirSync(cwd);
    const demo = startCommand('demo.ts', [], baseEnv, cwd);
    const code = await demo.exited;
    assert.equal(code, 0, demo.stderr());
    const stdout = demo.stdout();
    const table = (name: string, rest: string) =>
      new RegExp(`^ {2}acme-analytics\\.${name.replaceAll('.', '\\.')}${rest}$`);
    const expected = [
      /^Warehouse: 5 table\(s\), 2 catalog job\(s\)$/,
      table(
        'retail_reporting.order_revenue_1m',
        ': TABLE, 1,440 rows, 92,160 bytes, 4 columns, labels owner=analytics,source=confluent; written by connector bq-revenue-sink',
      ),
      table('retail_reporting.customer_ltv', ': TABLE, .*; written by connector bq-revenue-sink'),
      table(
        'retail_reporting.revenue_daily',
        ' \\[derived\\]: VIEW, 2 columns; from acme-analytics\\.retail_reporting\\.order_revenue_1m \\(TRANSFORMS\\)',
      ),
      table(
        'retail_reporting.revenue_monthly',
        ' \\[derived\\]: TABLE, .*; from acme-analytics\\.retail_reporting\\.order_revenue_1m ' +
          'by bigquery job "Monthly revenue rollup \\(scheduled query\\)"',
      ),
      /^ {2}catalog job warehouse:catalog_job:env-q7m2k9:process\/scheduled-revenue-rollup \(bigquery\)$/,
      /^ {2}catalog job warehouse:catalog_job:env-q7m2k9:process\/dataflow-revenue-forecast \(dataflow\)$/,
      /^Lakehouse: 4 table\(s\), 2 catalog job\(s\)$/,
      /^ {2}catalog job lakehouse:catalog_job:env-q7m2k9:notebook\/1148372950163720 \(notebook\)$/,
    ];
    const lines = stdout.split('\n');
    for (const line of expected)
      assert.ok(
        lines.some((l) => line.test(l)),
        `${line}\n${stdout}`,
      );
    assert.ok(existsSync(join(cwd, 'lineage_graph.json')));
  });
});

describe('lineage-svc-watch --push-warehouse --push-data-governance', () => {
  it('pushes to the warehouse and the data governance catalog after its extraction', async () => {
    const platform = await startPlatformSimulator({ scenario: await loadScenario('demo') });
    const google = await startGoogleSimulator({ scenario: await loadGoogleScenario('demo') });
    const dataZone = await startDataZoneSimulator();
    const cwd = join(folder, 'watch');
    mkdirSync(cwd);
    const watch = startCommand(
      'watch.ts',
      ['--env', PROD, '--poll-interval', '60', '--push-warehouse', '--push-data-governance'],
      {
        ...baseEnv,
        ...simulatorClientEnvironment(platform.url, platform.scenario),
        ...googleClientEnvironment(google.url, google.scenario),
        LINEAGE_SVC_DATA_GOVERNANCE_DOMAIN_ID: DEMO_DATAZONE_DOMAIN,
        LINEAGE_SVC_DATA_GOVERNANCE_PROJECT_ID: DEMO_DATAZONE_PROJECT,
        AWS_ENDPOINT_URL_DATAZONE: dataZone.url,
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
        AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      },
      cwd,
    );
    try {
      await watch.waitFor('both pushes', (stdout) =>
        ['WAREHOUSE_LINEAGE', 'DATA_GOVERNANCE'].every((type) => stdout.includes(`pushed to ${type}`)),
      );
      assert.doesNotMatch(watch.stdout(), /push to \S+ failed/);
      const jobs = (events: Array<{ event: unknown }>) =>
        new Set(events.map((entry) => (entry.event as { job: { name: string } }).job.name));
      assert.ok(jobs(google.lineageEvents()).has('bq-revenue-sink'), 'the BigQuery sink event reached Data Lineage');
      assert.ok(jobs(dataZone.lineageEvents()).has('bq-revenue-sink'), 'and DataZone');
      assert.ok(Object.keys(google.dataplexEntries()).length > 0, 'the topics are registered in Dataplex');
    } finally {
      assert.equal(await stop(watch), 0, watch.stderr());
      await Promise.all([platform.close(), google.close(), dataZone.close()]);
    }
  });
});
