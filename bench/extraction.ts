/**
 * Extraction benchmark: a full extraction of a large estate (10 environments x 10 clusters, 100
 * topics, 20 connectors and 200 consumer groups per cluster: 10,000 topics, 2,000 connectors,
 * 20,000 consumer groups) from the platform simulator with 50 ms of latency on every request.
 * Targets: under 60 s, under 500 MB peak RSS, no request per topic.
 *
 * The simulator runs in this process; the extraction runs in a child process (this file with
 * `measure URL`, `process.execArgv` forwarded) so that its peak RSS is its own.
 */
import { execFile } from 'node:child_process';
import { createPlatformApi } from '../infra/confluent/platformApi.js';
import { largeEstateScenario, parseScenario, startPlatformSimulator } from '../simulators/confluent/index.js';
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

const ESTATE = {
  environments: 10,
  clustersPerEnvironment: 10,
  topicsPerCluster: 100,
  connectorsPerCluster: 20,
  consumerGroupsPerCluster: 200,
};
const LATENCY_MS = 50;

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

/** Runs the benchmark and returns its row. */
export async function benchExtraction(): Promise<ExtractionBenchRow> {
  const scenario = parseScenario(largeEstateScenario(ESTATE));
  const simulator = await startPlatformSimulator({ scenario, latencyMs: LATENCY_MS });
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
    process.stdout.write(`${JSON.stringify(await benchExtraction(), null, 2)}\n`);
  }
}
