#!/usr/bin/env node
/**
 * `lineage-svc-simulator`: runs the platform simulator (a stand-in for Confluent Cloud's REST
 * APIs, see `docs/simulator.md`) until SIGINT/SIGTERM.
 *
 * Flags: `--scenario PATH|NAME` (default `demo`: a built-in scenario name or a YAML/JSON file), `--no-catalogs`,
 * `--host` (default `127.0.0.1`), `--port` (default 0: an ephemeral port), `--advertised-url URL` (the
 * base URL written into answers, for clients that reach the simulator by another name), `--latency-ms`
 * (milliseconds added to every request; default the scenario's `latency_ms`).
 *
 * Prints `lineage-svc-simulator listening on http://127.0.0.1:PORT (scenario demo)`, then the
 * `export LINEAGE_SVC_...=...` lines that point an extractor at it with the scenario's keys. With
 * `--catalogs` (the default; `--no-catalogs` leaves them out) it also serves the catalogs of the
 * demo on ports of their own, and prints their variables: Databricks (the lakehouse,
 * `simulators/databricks`, scenario `demo`), Google BigQuery, Data Lineage and Dataplex (the
 * warehouse, `simulators/google`, scenario `demo`) and AWS DataZone (the data governance,
 * `simulators/datazone`: `LINEAGE_SVC_DATA_GOVERNANCE_*`, `AWS_ENDPOINT_URL_DATAZONE`, `AWS_REGION`
 * and example credentials, which the simulator accepts as any SigV4 signature).
 *
 * Exit codes: 0 stopped by SIGINT/SIGTERM (or `--help`); 1 the server could not run (e.g. the port
 * is taken); 2 bad flags or an invalid scenario. Errors are one line on stderr, never a stack trace.
 */
import './environment.js'; // first: .env settings before anything reads the environment
import { command, flag, option, optional, string, type Type } from 'cmd-ts';
import { parseArguments } from './arguments.js';
import { ValidationError } from '../src/errors.js';
import { loadScenario, type Scenario } from '../simulators/confluent/scenario.js';
import { startPlatformSimulator } from '../simulators/confluent/server.js';
import { simulatorClientEnvironment } from '../simulators/confluent/clientEnvironment.js';
import { startDemoCatalogSimulators } from '../simulators/demoCatalogs.js';

const NAME = 'lineage-svc-simulator';

function integerType(name: string, min: number, max: number): Type<string, number> {
  return {
    displayName: 'integer',
    async from(text: string): Promise<number> {
      if (!/^\d+$/.test(text.trim()))
        throw new Error(`${name} must be an integer between ${min} and ${max}, got "${text}"`);
      const n = Number(text);
      if (n < min || n > max) throw new Error(`${name} must be an integer between ${min} and ${max}, got "${text}"`);
      return n;
    },
  };
}

const cli = command({
  name: NAME,
  description:
    'Serve the Confluent Cloud REST APIs a lineage extractor calls, from a scenario (demo and test stand-in).',
  args: {
    scenario: option({
      long: 'scenario',
      type: string,
      defaultValue: () => 'demo',
      defaultValueIsSerializable: true,
      description: 'built-in scenario name (demo) or path to a YAML/JSON scenario file',
    }),
    host: option({
      long: 'host',
      type: string,
      defaultValue: () => '127.0.0.1',
      defaultValueIsSerializable: true,
      description: 'bind address',
    }),
    port: option({
      long: 'port',
      type: integerType('--port', 0, 65535),
      defaultValue: () => 0,
      defaultValueIsSerializable: true,
      description: 'port (0: ephemeral)',
    }),
    advertisedUrl: option({
      long: 'advertised-url',
      type: optional(string),
      description:
        'base URL written into answers and the export lines, for clients that reach it by another name ' +
        '(e.g. http://simulator:8080 in Compose); default http://HOST:PORT',
    }),
    latencyMs: option({
      long: 'latency-ms',
      type: optional(integerType('--latency-ms', 0, 600_000)),
      description: "milliseconds added to every request (default: the scenario's latency_ms)",
    }),
    noCatalogs: flag({
      long: 'no-catalogs',
      description: 'serve only the platform, not the Databricks, Google and DataZone catalog simulators',
    }),
  },
  handler: (args) => args,
});

function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

function oneLine(text: string): string {
  return stripAnsi(text).replace(/\s+/g, ' ').trim();
}

function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The `export` lines for an extractor pointed at the simulator. */
function exportLines(url: string, scenario: Scenario): string[] {
  const lines = Object.entries(simulatorClientEnvironment(url, scenario)).map(
    ([name, value]) => `export ${name}=${shellQuote(value)}`,
  );
  for (const env of scenario.environments) {
    for (const cluster of env.kafka_clusters) {
      if (cluster.api_key !== undefined)
        lines.push(`# Kafka cluster ${cluster.id} has its own key: ${cluster.api_key.key}:${cluster.api_key.secret}`);
    }
    if (env.schema_registry?.api_key !== undefined) {
      lines.push(
        `# Schema Registry ${env.schema_registry.id} has its own key: ${env.schema_registry.api_key.key}:${env.schema_registry.api_key.secret}`,
      );
    }
    for (const k of env.ksqldb_clusters) {
      if (k.api_key !== undefined)
        lines.push(`# ksqlDB cluster ${k.id} has its own key: ${k.api_key.key}:${k.api_key.secret}`);
    }
  }
  return lines;
}

/**
 * Starts the demo's catalog simulators (Databricks, Google, DataZone; `simulators/demoCatalogs.ts`)
 * and returns their `export` lines (a comment naming each) and a function closing them all.
 */
async function startCatalogSimulators(host: string): Promise<{ lines: string[]; close: () => Promise<void> }> {
  const catalogs = await startDemoCatalogSimulators(host);
  const lines = catalogs.sections.flatMap((section) => [
    `# ${section.title}`,
    ...section.variables.map(([name, value]) => `export ${name}=${shellQuote(value)}`),
  ]);
  return { lines, close: catalogs.close };
}

async function main(argv: string[]): Promise<number> {
  const parsed = await parseArguments(cli, NAME, argv);
  if ('exitCode' in parsed) return parsed.exitCode;
  const args = parsed.args as {
    scenario: string;
    host: string;
    port: number;
    advertisedUrl: string | undefined;
    latencyMs: number | undefined;
    noCatalogs: boolean;
  };
  let scenario: Scenario;
  try {
    scenario = await loadScenario(args.scenario);
  } catch (error) {
    process.stderr.write(`${NAME}: error: ${oneLine(error instanceof Error ? error.message : String(error))}\n`);
    return 2;
  }
  const simulator = await startPlatformSimulator({
    scenario,
    host: args.host,
    port: args.port,
    ...(args.advertisedUrl !== undefined ? { advertisedUrl: args.advertisedUrl } : {}),
    ...(args.latencyMs !== undefined ? { latencyMs: args.latencyMs } : {}),
  });
  process.stdout.write(`${NAME} listening on ${simulator.url} (scenario ${args.scenario})\n`);
  process.stdout.write(`${exportLines(simulator.url, scenario).join('\n')}\n`);
  const catalogs = args.noCatalogs ? undefined : await startCatalogSimulators(args.host);
  if (catalogs) process.stdout.write(`${catalogs.lines.join('\n')}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await catalogs?.close();
  await simulator.close();
  return 0;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`${NAME}: error: ${oneLine(message)}\n`);
  process.exitCode = error instanceof ValidationError ? 2 : 1;
}
