/**
 * The child process of the extraction benchmark (`bench/extraction.ts`): extracts every environment
 * from the platform simulator at a URL and prints what it measured as one JSON object. It loads only
 * the extraction and its platform client, not the simulator (which runs in the parent): its peak
 * resident memory is the extraction's (the simulator's modules added about 22 MB to it when this was
 * part of `bench/extraction.ts`).
 *
 * `node bench/extractionChild.js URL ENVIRONMENTS_JSON CREDENTIALS_JSON` (compiled, or through tsx).
 */
import { createPlatformApi } from '../infra/confluent/platformApi.js';
import { keepYoungGenerationSmall } from '../infra/v8Heap.js';
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
  /** Peak resident memory of this process, in MB (`maxRSS`). */
  peak_rss_mb: number;
  nodes: number;
  edges: number;
}

/** Extracts every environment from the simulator at `url` and answers the measurements. */
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

if (process.argv[1] === import.meta.filename) {
  keepYoungGenerationSmall(); // as lineage-svc-extract does
  const [url, environments, credentials] = process.argv.slice(2);
  const row = await measure(
    url!,
    JSON.parse(environments!) as string[],
    JSON.parse(credentials!) as Record<string, { key: string; secret: string }>,
  );
  process.stdout.write(JSON.stringify(row));
}
