#!/usr/bin/env node
/**
 * `make demo`: starts the platform simulator with the built-in demo scenario on 127.0.0.1 (an
 * ephemeral port), points the configuration at it (base URLs and the scenario's credentials, set in
 * this process only), and runs the same code path as
 * `lineage-svc-extract --env <every demo environment> --metrics`, writing `./lineage_graph.json`.
 * Prints the phases, the warnings and the summary, then stops the simulator.
 *
 * Exit codes: 0 success, 1 interrupted, 2 failure (one line on stderr).
 */
import './environment.js'; // first: .env settings before anything reads the environment
import { loadScenario, simulatorClientEnvironment, startPlatformSimulator } from '../simulators/confluent/index.js';
import { loadConfig } from '../src/config.js';
import { reportError, runExtract } from './shared.js';

const NAME = 'lineage-svc-demo';

async function main(): Promise<number> {
  const scenario = await loadScenario('demo');
  const simulator = await startPlatformSimulator({ scenario, host: '127.0.0.1', port: 0 });
  try {
    const env: Record<string, string | undefined> = {
      ...process.env,
      ...simulatorClientEnvironment(simulator.url, scenario),
    };
    const environments = scenario.environments.map((environment) => environment.id);
    process.stdout.write(`${NAME}: platform simulator (scenario demo) at ${simulator.url}\n`);
    process.stdout.write(
      `${NAME}: running lineage-svc-extract ${environments.map((id) => `--env ${id}`).join(' ')} --metrics\n`,
    );
    return await runExtract(
      'lineage-svc-extract',
      {
        env: environments,
        cluster: [],
        output: './lineage_graph.json',
        noEnrich: false,
        enrichOnly: false,
        pushLineage: false,
        metrics: true,
        metricsLookbackHours: 1,
      },
      loadConfig(env),
      env,
      process,
    );
  } finally {
    await simulator.close();
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  // `on`, not `once`: a second signal while exiting must not fall back to the default action.
  process.on(signal, () => {
    process.stderr.write(`${NAME}: interrupted\n`);
    process.exit(1);
  });
}

try {
  process.exitCode = await main();
} catch (error) {
  process.exitCode = reportError(process, NAME, error);
}
