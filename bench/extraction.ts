/**
 * Extraction benchmark: a full extraction of an estate from the platform simulator with a fixed
 * latency on every request. Two estates:
 *
 * - `LARGE_ESTATE` (the default): 10 environments x 10 clusters, 100 topics, 20 connectors and 200
 *   consumer groups per cluster (10,000 topics, 2,000 connectors, 20,000 consumer groups), 50 ms per
 *   request. Targets: under 60 s, under 500 MB peak RSS, no request per topic.
 * - `ISSUE_16_ESTATE`: the estate of issue 16's table, 2,000 topics, 400 connectors, 4,000 consumer
 *   groups and 100 statements (one environment of 5 clusters), 20 ms per request. Target: peak RSS
 *   at most 150 MB, time and requests no worse than before (2.0 s, 55 requests).
 *
 * The simulator runs in this process; the extraction runs in a child process
 * (`bench/extractionChild.ts`, `process.execArgv` forwarded) that loads nothing of the simulator,
 * so that its peak RSS is the extraction's own.
 */
import { execFile } from 'node:child_process';
import { extname, join } from 'node:path';
import {
  largeEstateScenario,
  parseScenario,
  startPlatformSimulator,
  type LargeEstateOptions,
} from '../simulators/confluent/index.js';
import type { ExtractionBenchRow } from './extractionChild.js';

export type { ExtractionBenchRow } from './extractionChild.js';

/** An estate to extract (sizes of `largeEstateScenario`) and the simulator's latency per request in milliseconds. */
export interface ExtractionBenchEstate {
  sizes: LargeEstateOptions;
  latencyMs: number;
}

/** 10,000 topics, 2,000 connectors, 20,000 consumer groups, 50 ms per request. */
export const LARGE_ESTATE: ExtractionBenchEstate = {
  sizes: {
    environments: 10,
    clustersPerEnvironment: 10,
    topicsPerCluster: 100,
    connectorsPerCluster: 20,
    consumerGroupsPerCluster: 200,
  },
  latencyMs: 50,
};

/** Issue 16's estate: 2,000 topics, 400 connectors, 4,000 consumer groups, 100 statements (3 ksqlDB, 97 Flink), 20 ms per request. */
export const ISSUE_16_ESTATE: ExtractionBenchEstate = {
  sizes: {
    environments: 1,
    clustersPerEnvironment: 5,
    topicsPerCluster: 400,
    connectorsPerCluster: 80,
    consumerGroupsPerCluster: 800,
    ksqlQueriesPerEnvironment: 3,
    flinkStatementsPerEnvironment: 97,
  },
  latencyMs: 20,
};

/** Runs the benchmark on `estate` (default `LARGE_ESTATE`) and returns its row. */
export async function benchExtraction(estate: ExtractionBenchEstate = LARGE_ESTATE): Promise<ExtractionBenchRow> {
  const scenario = parseScenario(largeEstateScenario(estate.sizes));
  const simulator = await startPlatformSimulator({ scenario, latencyMs: estate.latencyMs });
  try {
    const environments = scenario.environments.map((environment) => environment.id);
    const credentials = scenario.credentials as unknown as Record<string, { key: string; secret: string }>;
    const output = await new Promise<string>((resolve, reject) => {
      // Asynchronous child: the simulator in this process must keep answering.
      execFile(
        process.execPath,
        [
          ...process.execArgv,
          join(import.meta.dirname, `extractionChild${extname(import.meta.filename)}`),
          simulator.url,
          JSON.stringify(environments),
          JSON.stringify(credentials),
        ],
        { encoding: 'utf8', maxBuffer: 1 << 24 },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
    });
    return JSON.parse(output) as ExtractionBenchRow;
  } finally {
    await simulator.close();
  }
}

if (process.argv[1] === import.meta.filename) {
  // `node --import tsx bench/extraction.ts [large|issue-16]`
  const estate = process.argv[2] === 'issue-16' ? ISSUE_16_ESTATE : LARGE_ESTATE;
  process.stdout.write(`${JSON.stringify(await benchExtraction(estate), null, 2)}\n`);
}
