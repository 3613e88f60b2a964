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
 * The simulator runs in this process; the extraction runs in a child process (this file with
 * `measure URL`, `process.execArgv` forwarded) so that its peak RSS is its own.
 */
import { execFile } from 'node:child_process';
import { createPlatformApi } from '../infra/confluent/platformApi.js';
import {
  largeEstateScenario,
  parseScenario,
  startPlatformSimulator,
  type LargeEstateOptions,
} from '../simulators/confluent/index.js';
import { extract } from '../src/extraction/extract.js';
import { silentLogger } from '../src/logger.js';

/** One row of the extraction benchmark. */
export interface ExtractionBenchRow {
  topics: number;
  connectors: number;
  consumer_groups: number;
  wall_seconds: number;
  requests_total: number;
  requests_per_api: Record<string, number>;
  peak_rss_mb: number;
  nodes: number;
  edges: number;
}

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

/** The child: extracts every environment from the simulator at `url` and prints its measurements. */
async function measure(
  url: string,
  environments: string[],
  credentials: Record<string, { key: string; secret: string }>,
): Promise<ExtractionBenchRow> {
  const platform = createPlatformApi({
    cloudApiUrl: url,
    telemetryApiUrl: url,
    flinkApiUrl: undefined,
    schemaRegistryUrl: undefined,
    credentials: {
      cloud: credentials.cloud,
      cluster: credentials.kafka,
      schemaRegistry: credentials.schema_registry,
      flink: credentials.flink,
      ksqldb: credentials.ksqldb,
      tableflow: credentials.tableflow ?? credentials.cloud,
    },
  });
  const started = performance.now();
  const result = await extract({ platform, logger: silentLogger() }, { environmentIds: environments });
  const wall = (performance.now() - started) / 1000;
  const count = (type: string) =>
    result.graph.nodes.filter((node) => node.node_type === type && node.attributes?.placeholder !== true).length;
  return {
    topics: count('TOPIC'),
    connectors: count('CONNECTOR'),
    consumer_groups: count('CONSUMER_GROUP'),
    wall_seconds: wall,
    requests_total: Object.values(result.requests).reduce((a, b) => a + b, 0),
    requests_per_api: result.requests,
    peak_rss_mb: process.resourceUsage().maxRSS / 1024,
    nodes: result.graph.nodes.length,
    edges: result.graph.edges.length,
  };
}

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
          import.meta.filename,
          'measure',
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
  const [mode, url, environments, credentials] = process.argv.slice(2);
  if (mode === 'measure') {
    process.stdout.write(
      JSON.stringify(
        await measure(
          url!,
          JSON.parse(environments!) as string[],
          JSON.parse(credentials!) as Record<string, { key: string; secret: string }>,
        ),
      ),
    );
  } else {
    // `node --import tsx bench/extraction.ts [large|issue-16]`
    const estate = mode === 'issue-16' ? ISSUE_16_ESTATE : LARGE_ESTATE;
    process.stdout.write(`${JSON.stringify(await benchExtraction(estate), null, 2)}\n`);
  }
}
