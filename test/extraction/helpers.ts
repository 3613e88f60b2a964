/**
 * Test helpers for extraction: a demo-scenario simulator and a platform adapter pointed at it with
 * the scenario's keys and fast retries.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPlatformApi, type ConfluentPlatformApi } from '../../infra/confluent/platformApi.js';
import type { HttpClientOptions } from '../../infra/confluent/httpClient.js';
import { after, afterEach, before } from 'node:test';
import {
  loadScenario,
  simulatorClientEnvironment,
  startPlatformSimulator,
  type PlatformSimulator,
  type Scenario,
} from '../../simulators/confluent/index.js';
import type { Config } from '../../src/config.js';
import type { ClusterInfo } from '../../src/extraction/environments.js';

/** The demo scenario's environments. */
export const PROD = 'env-q7m2k9';
export const DEV = 'env-x2n4c6';
export const DEDICATED = 'lkc-7x9m2p';
export const STANDARD = 'lkc-3k8w5n';

/** `config.stream` for a simulator, with the scenario's keys; `overrides` replace credentials. */
export function streamConfig(
  sim: PlatformSimulator,
  overrides: Partial<Config['stream']['credentials']> = {},
): Config['stream'] {
  const c = sim.scenario.credentials;
  return {
    cloudApiUrl: sim.url,
    telemetryApiUrl: sim.url,
    flinkApiUrl: undefined,
    schemaRegistryUrl: undefined,
    credentials: {
      cloud: c.cloud,
      cluster: c.kafka,
      schemaRegistry: c.schema_registry,
      flink: c.flink,
      ksqldb: c.ksqldb,
      tableflow: c.tableflow ?? c.cloud,
      ...overrides,
    },
  };
}

/** An adapter with 1 ms retry delays and no rate limit (tests never wait seconds). */
export function fastApi(
  sim: PlatformSimulator,
  options: HttpClientOptions = {},
  overrides: Partial<Config['stream']['credentials']> = {},
): ConfluentPlatformApi {
  return createPlatformApi(streamConfig(sim, overrides), { retryBaseDelayMs: 1, rateLimit: false, ...options });
}

/**
 * A sqlite store folder for the commands this test process runs (the default backend is sqlite in
 * `./.lineage-svc`; tests keep theirs apart from the repository and from each other), removed at exit.
 */
export const COMMAND_STORE_FOLDER = mkdtempSync(join(tmpdir(), 'lineage-svc-command-store-'));
process.on('exit', () => rmSync(COMMAND_STORE_FOLDER, { recursive: true, force: true }));

/**
 * The environment variables of `lineage-svc-extract` for a simulator, with the default backend
 * (sqlite) in `storeFolder` (default `COMMAND_STORE_FOLDER`, shared by the commands of one test file).
 */
export function cliEnv(sim: PlatformSimulator, storeFolder = COMMAND_STORE_FOLDER): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    LINEAGE_SVC_STORAGE__PATH: storeFolder,
    ...simulatorClientEnvironment(sim.url, sim.scenario),
  };
}

/** Runs `lineage-svc-extract` (its TypeScript source, through tsx) and collects its output and exit code. */
export function runExtractCommand(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'commands/extract.ts', ...args], {
      env,
      cwd: process.cwd(),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A Dedicated AWS cluster as discovery describes it (`ClusterInfo`), in environment `environmentId`
 * (named `prod`) and region us-east-1; `overrides` change any field (another region, name, ...).
 */
export function testCluster(
  environmentId: string,
  clusterId: string,
  overrides: Partial<ClusterInfo> = {},
): ClusterInfo {
  return {
    environmentId,
    environmentName: 'prod',
    clusterId,
    restEndpoint: 'https://pkc-1.us-east-1.aws.confluent.cloud:443',
    displayName: 'orders',
    bootstrapEndpoint: 'pkc-1.us-east-1.aws.confluent.cloud:9092',
    cloud: 'AWS',
    region: 'us-east-1',
    kind: 'Dedicated',
    ...overrides,
  };
}

/**
 * The demo scenario with a Tableflow AwsGlue catalog integration on the dedicated cluster of the
 * production environment, writing to Glue database `database`: an extraction of it has a datalake
 * table to enrich.
 */
export async function demoScenarioWithGlue(database: string): Promise<Scenario> {
  const scenario = await loadScenario('demo');
  const cluster = scenario.environments.find((e) => e.id === PROD)!.kafka_clusters.find((c) => c.id === DEDICATED)!;
  cluster.tableflow.catalog_integrations.push({
    id: 'tci-g1u3e5',
    display_name: 'acme-glue',
    config: { kind: 'AwsGlue', provider_integration_id: 'cspi-4q9w2e', custom_database: database },
    phase: 'CONNECTED',
    suspended: false,
  });
  return scenario;
}

/**
 * A platform simulator on the demo scenario and a temporary folder for the commands' stores, for the
 * test file (or suite) that calls it: started before its tests, faults cleared after each, both
 * gone after the last. Read `simulator` and `folder` inside the tests.
 */
export function demoSimulatorFixture(folderPrefix: string): {
  readonly simulator: PlatformSimulator;
  readonly folder: string;
} {
  let simulator: PlatformSimulator | undefined;
  let folder: string | undefined;
  before(async () => {
    simulator = await startPlatformSimulator({ scenario: await loadScenario('demo') });
    folder = mkdtempSync(join(tmpdir(), folderPrefix));
  });
  after(async () => {
    await simulator?.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });
  afterEach(() => simulator?.clearFaults());
  return {
    get simulator() {
      if (!simulator) throw new Error('the demo simulator is started before the tests only');
      return simulator;
    },
    get folder() {
      if (!folder) throw new Error('the store folder is made before the tests only');
      return folder;
    },
  };
}
