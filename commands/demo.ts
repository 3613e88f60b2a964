#!/usr/bin/env node
/**
 * `make demo`: starts the platform simulator with the built-in demo scenario on 127.0.0.1 (an
 * ephemeral port), and the Google simulator (BigQuery, Data Lineage, Dataplex; `simulators/google`,
 * scenario `demo`) beside it, points the configuration at them (base URLs and the scenarios'
 * credentials, `LINEAGE_SVC_WAREHOUSE_*`, set in this process only), and runs the same code path as
 * `lineage-svc-extract --env <every demo environment> --metrics`, writing `./lineage_graph.json`.
 * Prints the phases, the warnings and the summary, then the warehouse: the tables of the BigQuery
 * sink connector with their enrichment, the tables found downstream through the Data Lineage API
 * and the catalog jobs between them. Then stops the simulators.
 *
 * Exit codes: 0 success, 1 interrupted, 2 failure (one line on stderr).
 */
import './environment.js'; // first: .env settings before anything reads the environment
import { readFile } from 'node:fs/promises';
import { loadScenario, simulatorClientEnvironment, startPlatformSimulator } from '../simulators/confluent/index.js';
import { loadGoogleScenario, startGoogleSimulator, type GoogleSimulator } from '../simulators/google/index.js';
import { loadConfig } from '../src/config.js';
import type { LineageGraph, Node } from '../src/graph/model.js';
import { reportError, runExtract } from './shared.js';

const NAME = 'lineage-svc-demo';
const OUTPUT = './lineage_graph.json';

/** The variables that point the warehouse provider at the Google simulator (`docs/catalogs.md`, "Warehouse"). */
function warehouseEnvironment(google: GoogleSimulator): Record<string, string> {
  return {
    LINEAGE_SVC_WAREHOUSE_PROJECT_ID: google.scenario.project_id,
    LINEAGE_SVC_WAREHOUSE_LOCATION: google.scenario.locations[0] ?? 'us',
    LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN: google.scenario.token,
    LINEAGE_SVC_WAREHOUSE_BIGQUERY_API_URL: google.url,
    LINEAGE_SVC_WAREHOUSE_LINEAGE_API_URL: google.url,
    LINEAGE_SVC_WAREHOUSE_DATAPLEX_API_URL: google.url,
  };
}

/** One table's enrichment in a few words: type, rows, bytes, columns, labels. */
function tableFacts(table: Node): string {
  const a = table.attributes ?? {};
  if (a.table_type === undefined) return 'not enriched';
  const facts = [String(a.table_type)];
  if (typeof a.num_rows === 'number') facts.push(`${a.num_rows.toLocaleString('en-US')} rows`);
  if (typeof a.num_bytes === 'number' && a.num_bytes > 0) facts.push(`${a.num_bytes.toLocaleString('en-US')} bytes`);
  if (Array.isArray(a.columns)) facts.push(`${a.columns.length} columns`);
  const labels = Object.entries((a.labels ?? {}) as Record<string, string>).map(([key, value]) => `${key}=${value}`);
  if (labels.length > 0) facts.push(`labels ${labels.join(',')}`);
  return facts.join(', ');
}

/**
 * The warehouse part of the summary: each warehouse table with its enrichment and where it comes
 * from (the connector that writes it, or the table it is derived from, through a catalog job or a
 * TRANSFORMS edge), and the catalog jobs.
 */
export function warehouseSummary(graph: LineageGraph): string[] {
  const byId = new Map(graph.nodes.map((node) => [node.id, node]));
  const tables = graph.nodes
    .filter((node) => node.node_type === 'CATALOG_TABLE' && node.catalog_type === 'WAREHOUSE_LINEAGE')
    .sort((a, b) => a.qualified_name.localeCompare(b.qualified_name));
  const jobs = graph.nodes.filter((node) => node.node_type === 'CATALOG_JOB' && node.system === 'WAREHOUSE');
  const into = (id: string) => graph.edges.filter((edge) => edge.dst_id === id);
  const name = (id: string) => byId.get(id)?.qualified_name ?? id;
  const lines = [`Warehouse: ${tables.length} table(s), ${jobs.length} catalog job(s)`];
  for (const table of tables) {
    const origins = into(table.id).map((edge) => {
      const source = byId.get(edge.src_id);
      if (source?.node_type === 'CONNECTOR') return `written by connector ${source.display_name}`;
      if (source?.node_type === 'CATALOG_JOB') {
        const read = into(source.id).map((input) => name(input.src_id));
        return `from ${read.join(', ')} by ${source.attributes?.job_kind ?? 'catalog'} job "${source.display_name}"`;
      }
      return edge.edge_type === 'TRANSFORMS'
        ? `from ${name(edge.src_id)} (TRANSFORMS)`
        : `${edge.edge_type} ${name(edge.src_id)}`;
    });
    const derived = table.attributes?.derived === true ? ' [derived]' : '';
    lines.push(`  ${table.qualified_name}${derived}: ${tableFacts(table)}; ${origins.join('; ') || 'no upstream'}`);
  }
  for (const job of jobs)
    lines.push(
      `  catalog job ${job.id} (${job.attributes?.job_kind ?? 'unknown'}): ${job.attributes?.process_name ?? ''}`,
    );
  return lines;
}

async function main(): Promise<number> {
  const scenario = await loadScenario('demo');
  const simulator = await startPlatformSimulator({ scenario, host: '127.0.0.1', port: 0 });
  const google = await startGoogleSimulator({ scenario: await loadGoogleScenario('demo'), host: '127.0.0.1' });
  try {
    const env: Record<string, string | undefined> = {
      ...process.env,
      ...simulatorClientEnvironment(simulator.url, scenario),
      ...warehouseEnvironment(google),
    };
    const environments = scenario.environments.map((environment) => environment.id);
    process.stdout.write(`${NAME}: platform simulator (scenario demo) at ${simulator.url}\n`);
    process.stdout.write(`${NAME}: Google simulator (BigQuery, Data Lineage; scenario demo) at ${google.url}\n`);
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
      process.stdout.write(`${warehouseSummary(graph).join('\n')}\n`);
    }
    return code;
  } finally {
    await Promise.all([simulator.close(), google.close()]);
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
