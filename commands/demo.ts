#!/usr/bin/env node
/**
 * `make demo`: starts the platform simulator with the built-in demo scenario on 127.0.0.1 (an
 * ephemeral port), and the demo's catalog simulators beside it (Databricks, Google, DataZone;
 * `simulators/demoCatalogs.ts`), points the configuration at them (base URLs and the scenarios'
 * credentials, set in this process only), and runs the same code path as
 * `lineage-svc-extract --env <every demo environment> --metrics`, writing `./lineage_graph.json`.
 * Prints the phases, the warnings and the summary, then the catalogs: the lakehouse tables of
 * Tableflow and the warehouse tables of the BigQuery sink connector, with their enrichment, the
 * tables found downstream (Unity Catalog lineage, the Data Lineage API) and the catalog jobs between
 * them. Then stops the simulators.
 *
 * Exit codes: 0 success, 1 interrupted, 2 failure (one line on stderr).
 */
import './environment.js'; // first: .env settings before anything reads the environment
import { readFile } from 'node:fs/promises';
import { loadScenario, simulatorClientEnvironment, startPlatformSimulator } from '../simulators/confluent/index.js';
import { startDemoCatalogSimulators } from '../simulators/demoCatalogs.js';
import { loadConfig } from '../src/config.js';
import type { LineageGraph, Node } from '../src/graph/model.js';
import { runExtract } from './shared.js';
import { reportError } from './arguments.js';

const NAME = 'lineage-svc-demo';
const OUTPUT = './lineage_graph.json';

/** One table's enrichment in a few words: type, rows, bytes, columns, owner, labels. */
function tableFacts(table: Node): string {
  const a = table.attributes ?? {};
  if (a.table_type === undefined) return 'not enriched';
  const facts = [String(a.table_type)];
  if (typeof a.num_rows === 'number') facts.push(`${a.num_rows.toLocaleString('en-US')} rows`);
  if (typeof a.num_bytes === 'number' && a.num_bytes > 0) facts.push(`${a.num_bytes.toLocaleString('en-US')} bytes`);
  if (Array.isArray(a.columns)) facts.push(`${a.columns.length} columns`);
  if (typeof a.owner === 'string') facts.push(`owner ${a.owner}`);
  const labels = Object.entries((a.labels ?? {}) as Record<string, string>).map(([key, value]) => `${key}=${value}`);
  if (labels.length > 0) facts.push(`labels ${labels.join(',')}`);
  return facts.join(', ');
}

/** The catalogs the summary covers, with the heading of each. */
const SUMMARIZED_CATALOGS = [
  { system: 'LAKEHOUSE', heading: 'Lakehouse' },
  { system: 'WAREHOUSE', heading: 'Warehouse' },
] as const;

/**
 * The catalog part of the summary, per catalog (lakehouse, then warehouse): each table with its
 * enrichment and where it comes from (the connector that writes it, the stream table it
 * materializes, or the table it is derived from, through a catalog job or a TRANSFORMS edge), and
 * the catalog jobs. A catalog with no table gives no lines.
 */
export function catalogSummary(graph: LineageGraph): string[] {
  const byId = new Map(graph.nodes.map((node) => [node.id, node]));
  const into = (id: string) => graph.edges.filter((edge) => edge.dst_id === id);
  const name = (id: string) => byId.get(id)?.qualified_name ?? id;
  const origin = (edge: LineageGraph['edges'][number]) => {
    const source = byId.get(edge.src_id);
    if (source?.node_type === 'CONNECTOR') return `written by connector ${source.display_name}`;
    if (source?.node_type === 'CATALOG_JOB') {
      const read = into(source.id).map((input) => name(input.src_id));
      return `from ${read.join(', ')} by ${source.attributes?.job_kind ?? 'catalog'} job "${source.display_name}"`;
    }
    if (edge.edge_type === 'TRANSFORMS') return `from ${name(edge.src_id)} (TRANSFORMS)`;
    return `${edge.edge_type.toLowerCase()} from ${name(edge.src_id)}`;
  };
  const lines: string[] = [];
  for (const { system, heading } of SUMMARIZED_CATALOGS) {
    const inCatalog = graph.nodes.filter((node) => node.system === system);
    const tables = inCatalog
      .filter((node) => node.node_type === 'CATALOG_TABLE')
      .sort((a, b) => a.qualified_name.localeCompare(b.qualified_name));
    if (tables.length === 0) continue;
    const jobs = inCatalog.filter((node) => node.node_type === 'CATALOG_JOB');
    lines.push(`${heading}: ${tables.length} table(s), ${jobs.length} catalog job(s)`);
    for (const table of tables) {
      const origins = into(table.id).map(origin).join('; ') || 'no upstream';
      const derived = table.attributes?.derived === true ? ' [derived]' : '';
      lines.push(`  ${table.qualified_name}${derived}: ${tableFacts(table)}; ${origins}`);
    }
    for (const job of jobs) lines.push(`  catalog job ${job.id} (${job.attributes?.job_kind ?? 'unknown'})`);
  }
  return lines;
}

async function main(): Promise<number> {
  const scenario = await loadScenario('demo');
  const simulator = await startPlatformSimulator({ scenario, host: '127.0.0.1', port: 0 });
  const catalogs = await startDemoCatalogSimulators('127.0.0.1');
  try {
    const env: Record<string, string | undefined> = {
      ...process.env,
      ...simulatorClientEnvironment(simulator.url, scenario),
      ...catalogs.environment,
    };
    const environments = scenario.environments.map((environment) => environment.id);
    process.stdout.write(`${NAME}: platform simulator (scenario demo) at ${simulator.url}\n`);
    for (const section of catalogs.sections) process.stdout.write(`${NAME}: ${section.title}\n`);
    process.stdout.write(
      `${NAME}: running lineage-svc-extract ${environments.map((id) => `--env ${id}`).join(' ')} --metrics\n`,
    );
    const code = await runExtract(
      'lineage-svc-extract',
      {
        env: environments,
        cluster: [],
        output: OUTPUT,
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
    if (code === 0) {
      const graph = JSON.parse(await readFile(OUTPUT, 'utf8')) as LineageGraph;
      process.stdout.write(`${catalogSummary(graph).join('\n')}\n`);
    }
    return code;
  } finally {
    await Promise.all([simulator.close(), catalogs.close()]);
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
