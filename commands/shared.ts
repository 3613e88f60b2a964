/**
 * What `lineage-svc-extract` and the demo share: running an extraction from parsed flags and a
 * configuration (extract, record in the event store, write the graph file, print the summary), and
 * the one-line error report of the commands.
 *
 * Output: progress lines (`Phase 1/4: ...`) and warnings on stderr, the summary on stdout.
 */
import { checkGraphFileWritable, readGraphFile, writeGraphExport, writeGraphFile } from '../infra/graphFile.js';
import { exportGraph, type ExportFormat } from '../src/export/index.js';
import { DEFAULT_GRAPH_NAME } from '../src/graphCommands.js';
import type { HttpClientOptions } from '../infra/confluent/httpClient.js';
import { openRuntime, type LineageRuntime } from '../infra/runtime.js';
import { describeEventStore } from '../infra/eventStore/createEventStore.js';
import { createCatalogGateway, type CatalogClientOptions } from '../infra/catalogs/catalogService.js';
import { createServiceContext } from '../infra/serviceContext.js';
import { countResults, type PushResult } from '../src/catalogs/provider.js';
import { CATALOG_REGISTRY, catalogEntry, findCatalogEntry } from '../src/catalogs/registry.js';
import type { CatalogType, LineageGraph } from '../src/graph/model.js';
import type { Config } from '../src/config.js';
import { countGraph, type ExtractionCounts } from '../src/extraction/extract.js';
import { ConfigurationError } from '../src/errors.js';
import { createLogger, type Logger } from '../src/logger.js';
import type { ServiceContext } from '../services/context.js';
import {
  enrichAndRecordGraph,
  requireCloudCredentials,
  runExtraction,
  type ProgressListener,
} from '../services/extraction.js';
import { pushLineageGraph } from '../services/push.js';
import { oneLine } from './arguments.js';

/** The flags of `lineage-svc-extract` (specification, "Command-line tools"). */
export interface ExtractArgs {
  env: string[];
  cluster: string[];
  output: string;
  /** Format of the output file (default `json`, the graph file `--enrich-only` and the API read). */
  format?: ExportFormat | undefined;
  noEnrich: boolean;
  enrichOnly: boolean;
  pushLineage: boolean;
  /**
   * The catalogs `--push-lineage` pushes to (`--push-lineage lakehouse,warehouse`, parsed by
   * `pushLineageCatalogs`); absent or empty: every available catalog.
   */
  pushLineageCatalogs?: CatalogType[] | undefined;
  metrics: boolean;
  metricsLookbackHours: number;
}

/** Where a command writes. */
export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** The first line of a command that opens the store: `Store: sqlite in ./.lineage-svc`. */
export function storeLine(config: Pick<Config, 'storage'>): string {
  return `Store: ${describeEventStore(config.storage)}`;
}

/** Writes `{name}: {message}` as one line on stderr and returns the exit code to use. */
export function reportError(io: Pick<CommandIo, 'stderr'>, name: string, error: unknown, exitCode = 2): number {
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`${name}: ${oneLine(message)}\n`);
  return exitCode;
}

/** The command's logger: silent below `error` unless `LINEAGE_SVC_LOG_LEVEL` asks for more. */
export function commandLogger(config: Config, env: Record<string, string | undefined>): Logger {
  return createLogger({ level: env.LINEAGE_SVC_LOG_LEVEL ? config.logLevel : 'error' });
}

function formatCounts(counts: ExtractionCounts): string[] {
  const lines = [`${counts.nodes} nodes, ${counts.edges} edges`];
  for (const [system, types] of Object.entries(counts.nodesBySystem).sort()) {
    const total = Object.values(types).reduce((a, b) => a + b, 0);
    lines.push(
      `  ${system.padEnd(9)} ${String(total).padStart(6)}  ${Object.entries(types)
        .sort()
        .map(([type, n]) => `${type} ${n}`)
        .join(', ')}`,
    );
  }
  lines.push(
    `  edges     ${String(counts.edges).padStart(6)}  ${Object.entries(counts.edgesByType)
      .sort()
      .map(([type, n]) => `${type} ${n}`)
      .join(', ')}`,
  );
  return lines;
}

/** The end-of-run summary: counts by system and type, requests per API, warnings, duration. */
export function summaryLines(input: {
  counts: ExtractionCounts;
  requests: Record<string, number>;
  warnings: readonly string[];
  durationMs: number;
  output: string;
}): string[] {
  const total = Object.values(input.requests).reduce((a, b) => a + b, 0);
  return [
    `Extraction summary (${(input.durationMs / 1000).toFixed(1)} s): ${formatCounts(input.counts)[0]}`,
    ...formatCounts(input.counts).slice(1),
    `Requests: ${total} in all`,
    ...Object.entries(input.requests)
      .sort()
      .map(([api, n]) => `  ${api.padEnd(34)} ${String(n).padStart(6)}`),
    `Warnings: ${input.warnings.length}`,
    `Graph written to ${input.output}`,
  ];
}

/**
 * Lines per push result: `Push: 3 lakehouse table(s) updated, ...` with the per-table or per-job
 * counts (`2 updated, 1 unchanged, 0 skipped, 0 failed`), then its errors and skips.
 */
export function pushLines(catalogType: CatalogType, result: PushResult): string[] {
  const counts = countResults(result);
  return [
    `Push: ${result.tables_updated} ${catalogEntry(catalogType).shortName} table(s) updated, ` +
      `${result.properties_set} properties, ${result.comments_set} comments, ${result.bridge_rows_inserted} bridge rows; ` +
      `${result.errors.length} error(s), ${result.skipped.length} skipped; per table or job: ` +
      `${counts.updated} updated, ${counts.unchanged} unchanged, ${counts.skipped} skipped, ${counts.failed} failed`,
    ...result.errors.map((error) => `warning: push: ${error}`),
    ...result.skipped.map((skipped) => `push skipped: ${skipped}`),
  ];
}

/**
 * The catalog list of `--push-lineage lakehouse,warehouse`: comma-separated provider names (short
 * names or catalog types, any case), in the order given, without repeats.
 * @throws Error naming the unknown names
 */
export function parsePushLineageCatalogs(text: string): CatalogType[] {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => findCatalogEntry(name) === undefined);
  if (names.length === 0 || unknown.length > 0)
    throw new Error(
      `--push-lineage takes a comma-separated list of ${CATALOG_REGISTRY.map((e) => e.shortName).join(', ')}; ` +
        `got "${text}"`,
    );
  return [...new Set(names.map((name) => findCatalogEntry(name)!.catalogType))];
}

/**
 * Rewrites `--push-lineage LIST` and `--push-lineage=LIST` into `--push-lineage
 * --push-lineage-catalogs LIST`, so that cmd-ts keeps `--push-lineage` a bare flag
 * (`docs/specification.md`, "Command-line tools") while it also takes an optional list. A following
 * word is taken as the list only when every comma-separated part of it names a catalog provider.
 */
export function expandPushLineageArgument(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    const inline = /^--push-lineage=(.*)$/.exec(arg);
    if (inline) out.push('--push-lineage', '--push-lineage-catalogs', inline[1]!);
    else if (arg === '--push-lineage' && isCatalogList(argv[i + 1])) {
      out.push('--push-lineage', '--push-lineage-catalogs', argv[i + 1]!);
      i += 1;
    } else out.push(arg);
  }
  return out;
}

const isCatalogList = (word: string | undefined): boolean =>
  word !== undefined &&
  !word.startsWith('-') &&
  word.split(',').every((name) => name.trim() !== '' && findCatalogEntry(name) !== undefined);

/** The catalogs `--push-lineage` pushes to: the list given, else every available one. */
function pushLineageTargets(args: Pick<ExtractArgs, 'pushLineageCatalogs'>, available: CatalogType[]): CatalogType[] {
  return args.pushLineageCatalogs && args.pushLineageCatalogs.length > 0 ? args.pushLineageCatalogs : available;
}

/**
 * The flag check that needs the configuration: `--push-lineage` needs at least one available
 * catalog, and each catalog of its list must be available (the message names the variables to set).
 */
function pushLineageProblem(args: ExtractArgs, config: Config): Error | undefined {
  if (!args.pushLineage) return undefined;
  const gateway = createCatalogGateway(config);
  if (args.pushLineageCatalogs && args.pushLineageCatalogs.length > 0) {
    const reasons = args.pushLineageCatalogs
      .map((catalogType) => gateway.unavailableReason(catalogType))
      .filter((reason) => reason !== undefined);
    return reasons.length > 0 ? new ConfigurationError(`--push-lineage: ${reasons.join('; ')}`) : undefined;
  }
  if (gateway.available().length > 0) return undefined;
  return new ConfigurationError(
    '--push-lineage needs a configured catalog: LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL and LINEAGE_SVC_LAKEHOUSE_TOKEN, ' +
      'LINEAGE_SVC_DATALAKE_REGION, LINEAGE_SVC_WAREHOUSE_PROJECT_ID and LINEAGE_SVC_WAREHOUSE_LOCATION, or ' +
      'LINEAGE_SVC_DATA_GOVERNANCE_DOMAIN_ID and LINEAGE_SVC_DATA_GOVERNANCE_PROJECT_ID',
  );
}

/** `--push-lineage`: pushes `graph` to each catalog asked for (default every available one) with the default switches. */
async function pushToEveryCatalog(
  context: ServiceContext,
  graph: LineageGraph,
  io: CommandIo,
  args: Pick<ExtractArgs, 'pushLineageCatalogs'>,
): Promise<void> {
  for (const catalogType of pushLineageTargets(args, context.catalogs.available())) {
    const result = await pushLineageGraph(context, graph, catalogType);
    io.stderr.write(`${pushLines(catalogType, result).join('\n')}\n`);
  }
}

/** `--enrich-only`: enriches the graph file at `--output` in place and records it in the graph named `default`. */
async function enrichGraphFile(args: ExtractArgs, context: ServiceContext, io: CommandIo): Promise<void> {
  const started = performance.now();
  const graph = await readGraphFile(args.output);
  const enableMetrics = !args.noEnrich && (args.metrics || context.config.enableMetrics);
  if (args.noEnrich) io.stderr.write('Enrichment: --no-enrich given; nothing to do\n');
  const enriched = await enrichAndRecordGraph(context, graph, {
    catalogs: !args.noEnrich,
    metrics: enableMetrics,
    metricsLookbackHours: args.metricsLookbackHours,
    actor: 'cli',
    onProgress: progressWriter(io),
  });
  await writeGraphFile(args.output, enriched.graph);
  if (args.pushLineage) await pushToEveryCatalog(context, enriched.graph, io, args);
  for (const warning of enriched.warnings) io.stderr.write(`warning: ${warning}\n`);
  const lines = summaryLines({
    counts: countGraph(enriched.graph),
    requests: {},
    warnings: enriched.warnings,
    durationMs: performance.now() - started,
    output: args.output,
  });
  const changes = enriched.changes;
  lines.push(
    `Recorded the enrichment in graph ${enriched.graph_id} (${describeEventStore(context.config.storage)}): ` +
      `${changes.nodes_added} node(s) added, ${changes.nodes_changed} changed; ` +
      `${changes.edges_added} edge(s) added, ${changes.edges_changed} changed`,
  );
  io.stdout.write(`${lines.join('\n')}\n`);
}

/** Extraction, recorded in the store, then the graph file, the pushes and the summary. */
async function extractToFile(args: ExtractArgs, context: ServiceContext, io: CommandIo): Promise<void> {
  if (!args.noEnrich && context.catalogs.available().length === 0) {
    io.stderr.write('Enrichment: no catalog provider is configured; catalog attributes are left as they are\n');
  }
  const outcome = await runExtraction(context, {
    environmentIds: args.env,
    clusterIds: args.cluster,
    enableMetrics: !args.noEnrich && (args.metrics || context.config.enableMetrics),
    metricsLookbackHours: args.metricsLookbackHours,
    actor: 'cli',
    enrichCatalogs: !args.noEnrich,
    onProgress: progressWriter(io),
  });
  if ((args.format ?? 'json') === 'json') await writeGraphFile(args.output, outcome.graph);
  else await writeGraphExport(args.output, exportGraph(outcome.graph, args.format!, { graphName: DEFAULT_GRAPH_NAME }));
  for (const warning of outcome.warnings) io.stderr.write(`warning: ${warning}\n`);
  if (args.pushLineage) await pushToEveryCatalog(context, outcome.graph, io, args);
  const changes = outcome.changes;
  const lines = summaryLines({ ...outcome, output: args.output });
  lines.push(
    `Recorded extraction ${outcome.extractionId} in graph ${outcome.graphId} (${context.config.storage.backend} store): ` +
      `${changes.nodesAdded.length} node(s) added, ${changes.nodesChanged.length} changed, ` +
      `${changes.nodesRemoved.length} removed; ${changes.edgesAdded.length} edge(s) added, ` +
      `${changes.edgesChanged.length} changed, ${changes.edgesRemoved.length} removed`,
  );
  io.stdout.write(`${lines.join('\n')}\n`);
}

/** Writes each progress step as `{label}: {message}` on stderr. */
function progressWriter(io: CommandIo): ProgressListener {
  return (step) => io.stderr.write(`${step.label}: ${step.message}\n`);
}

/**
 * Runs `lineage-svc-extract` with parsed flags. Resolves with the exit code (0 success, 2 failure);
 * never throws. `httpOptions` and `catalogOptions` let tests shorten retry delays and timeouts.
 */
export async function runExtract(
  name: string,
  args: ExtractArgs,
  config: Config,
  env: Record<string, string | undefined>,
  io: CommandIo,
  httpOptions: HttpClientOptions = {},
  catalogOptions: CatalogClientOptions = {},
): Promise<number> {
  if (args.env.length === 0)
    return reportError(io, name, new Error('--env is required (repeat it for several environments)'));
  let runtime: LineageRuntime | undefined;
  try {
    requireCloudCredentials(config, 'extraction');
    const problem = pushLineageProblem(args, config);
    if (problem) throw problem;
    if (args.enrichOnly && (args.format ?? 'json') !== 'json') {
      throw new ConfigurationError(
        '--enrich-only reads and writes the JSON graph file: --format applies to extractions',
      );
    }
    await checkGraphFileWritable(args.output);
    const logger = commandLogger(config, env);
    io.stderr.write(`${storeLine(config)}\n`);
    runtime = await openRuntime(config, logger);
    const context = createServiceContext({
      config,
      runtime,
      logger,
      httpOptions,
      catalogClientOptions: catalogOptions,
    });
    if (args.enrichOnly) await enrichGraphFile(args, context, io);
    else await extractToFile(args, context, io);
    return 0;
  } catch (error) {
    return reportError(io, name, error);
  } finally {
    await runtime?.close().catch(() => undefined);
  }
}
