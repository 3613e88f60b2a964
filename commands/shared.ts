/**
 * What `lineage-svc-extract` and the demo share: running an extraction from parsed flags and a
 * configuration (extract, record in the event store, write the graph file, print the summary), and
 * the one-line error report of the commands.
 *
 * Output: progress on stderr (live on a terminal, plain lines otherwise, none with `--quiet` or a log
 * level above INFO: `./progress.ts`), warnings on stderr, the summary on stdout (with `--json`, one
 * JSON object and nothing else: `ExtractSummary`).
 */
import { checkGraphFileWritable, readGraphFile } from '../infra/graphFile.js';
import type { ExportFormat } from '../src/export/index.js';
import type { HttpClientOptions } from '../infra/confluent/httpClient.js';
import { countChanges } from '../src/graph/changes.js';
import type { ChangeCounts } from '../src/events.js';
import { openRuntime, type LineageRuntime } from '../infra/runtime.js';
import { describeEventStore } from '../infra/eventStore/createEventStore.js';
import { createCatalogGateway, type CatalogClientOptions } from '../infra/catalogs/catalogService.js';
import { createServiceContext } from '../infra/serviceContext.js';
import { countResults, type PushResult } from '../src/catalogs/provider.js';
import { CATALOG_REGISTRY, catalogEntry, findCatalogEntry } from '../src/catalogs/registry.js';
import type { CatalogType } from '../src/graph/model.js';
import type { Config } from '../src/config.js';
import { countGraph, type ExtractionCounts } from '../src/extraction/extract.js';
import { ConfigurationError } from '../src/errors.js';
import { createLogger, type Logger } from '../src/logger.js';
import type { ServiceContext } from '../services/context.js';
import { enrichAndRecordGraph, requireCloudCredentials, runExtraction } from '../services/extraction.js';
import { describeScope, type IncompleteScope } from '../src/extraction/completeness.js';
import { oneLine, reportError } from './arguments.js';
import { createProgressDisplay, expectedSteps, progressMode, type ProgressDisplay } from './progress.js';

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
  /** `--strict`: a scope not read completely fails the run (exit 2) and nothing is recorded. */
  strict?: boolean | undefined;
  /** `--quiet`: nothing but errors (no progress, notes, warnings, push lines or summary); `--json` still prints its object. */
  quiet?: boolean | undefined;
  /** `--verbose`: the summary lists the platform requests per API. */
  verbose?: boolean | undefined;
  /** `--json`: the summary as one JSON object on stdout (`ExtractSummary`), nothing else there. */
  json?: boolean | undefined;
}

/**
 * The `--json` summary of `lineage-svc-extract` (`docs/extraction.md`, "Scripts"): one object on
 * stdout. Counts are of the graph written; `changes` is what the run recorded in the store.
 */
export interface ExtractSummary {
  /** The graph recorded (the graph named `default`). */
  graph_id: string;
  /** The extraction's id; null with `--enrich-only`. */
  extraction_id: string | null;
  nodes: number;
  edges: number;
  /** Node counts by node type (`TOPIC`, `CONNECTOR`...). */
  nodes_by_type: Record<string, number>;
  /** Node counts by system, then node type. */
  nodes_by_system: Record<string, Record<string, number>>;
  /** Edge counts by edge type. */
  edges_by_type: Record<string, number>;
  /** What was recorded in the store (nodes and edges added, changed, removed). */
  changes: ChangeCounts;
  /** Platform requests per API name (every attempt); empty with `--enrich-only`. */
  requests: Record<string, number>;
  /** Every warning, in the order given. */
  warnings: string[];
  /**
   * The scopes not read completely (a failed or timed-out call): their recorded state was kept,
   * nothing in them recorded as removed (`docs/extraction.md`, "Scopes and completeness").
   */
  incomplete_scopes: IncompleteScope[];
  /** Wall time of the command from the start of the extraction to the summary, in seconds. */
  duration_seconds: number;
  /** The file written (`--output`) and its format (`--format`). */
  output: string;
  format: ExportFormat;
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

/**
 * The end-of-run summary: counts by system and type, the requests (per API with `verbose`),
 * warnings, duration.
 */
export function summaryLines(input: {
  counts: ExtractionCounts;
  requests: Record<string, number>;
  warnings: readonly string[];
  durationMs: number;
  output: string;
  verbose?: boolean | undefined;
}): string[] {
  const total = Object.values(input.requests).reduce((a, b) => a + b, 0);
  const perApi = Object.entries(input.requests)
    .sort()
    .map(([api, n]) => `  ${api.padEnd(34)} ${String(n).padStart(6)}`);
  return [
    `Extraction summary (${(input.durationMs / 1000).toFixed(1)} s): ${formatCounts(input.counts)[0]}`,
    ...formatCounts(input.counts).slice(1),
    input.verbose === true || perApi.length === 0
      ? `Requests: ${total} in all`
      : `Requests: ${total} in all (--verbose lists them per API)`,
    ...(input.verbose === true ? perApi : []),
    `Warnings: ${input.warnings.length}`,
    `Graph written to ${input.output}`,
  ];
}

/** The node counts by type, over every system. */
function nodesByType(counts: ExtractionCounts): Record<string, number> {
  const byType: Record<string, number> = {};
  for (const types of Object.values(counts.nodesBySystem))
    for (const [type, count] of Object.entries(types)) byType[type] = (byType[type] ?? 0) + count;
  return Object.fromEntries(Object.entries(byType).sort(([a], [b]) => a.localeCompare(b)));
}

/** The `--json` summary object (`ExtractSummary`). */
export function extractSummary(input: {
  graphId: string;
  extractionId: string | null;
  counts: ExtractionCounts;
  changes: ChangeCounts;
  requests: Record<string, number>;
  warnings: readonly string[];
  incompleteScopes?: readonly IncompleteScope[];
  durationMs: number;
  output: string;
  format: ExportFormat;
}): ExtractSummary {
  return {
    graph_id: input.graphId,
    extraction_id: input.extractionId,
    nodes: input.counts.nodes,
    edges: input.counts.edges,
    nodes_by_type: nodesByType(input.counts),
    nodes_by_system: input.counts.nodesBySystem,
    edges_by_type: Object.fromEntries(Object.entries(input.counts.edgesByType).sort(([x], [y]) => x.localeCompare(y))),
    changes: input.changes,
    requests: input.requests,
    warnings: [...input.warnings],
    incomplete_scopes: [...(input.incompleteScopes ?? [])],
    duration_seconds: Math.round(input.durationMs) / 1000,
    output: input.output,
    format: input.format,
  };
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

/** Where one run of `lineage-svc-extract` writes, and how much. */
interface RunOutput {
  io: CommandIo;
  display: ProgressDisplay;
  /** Notes (`Store: ...`, `Enrichment: ...`) are written: not with `--quiet` or a log level above INFO. */
  notes: boolean;
  /** Warning lines are written: not with `--quiet` or the log level ERROR (their count stays in the summary). */
  warningLines: boolean;
  /** `--json`: stdout gets the summary object only. */
  json: boolean;
  /** The text summary is written: not with `--quiet`. */
  summary: boolean;
  /** `--verbose`: the summary lists the requests per API. */
  verbose: boolean;
  /** `performance.now()` at the start of the run, in milliseconds. */
  startedAt: number;
}

/** A note on stderr (`Store: ...`, `Enrichment: ...`), left out with `--quiet` or a log level above INFO. */
function note(out: RunOutput, line: string): void {
  if (out.notes) out.io.stderr.write(`${line}\n`);
}

/** The warnings, one `warning: ...` line each on stderr; with `--quiet` only their count in the summary. */
function writeWarnings(out: RunOutput, warnings: readonly string[]): void {
  if (!out.warningLines) return;
  for (const warning of warnings) out.io.stderr.write(`warning: ${warning}\n`);
}

/** The lines of each push result on stderr (`warning: ...` lines left out with `--quiet`). */
function writePushes(out: RunOutput, pushes: readonly { catalogType: CatalogType; result: PushResult }[]): void {
  for (const { catalogType, result } of pushes) {
    if (!out.summary) continue; // --quiet: push results are counts and warnings, not errors (--json has them)
    const lines = pushLines(catalogType, result).filter((line) => out.warningLines || !line.startsWith('warning: '));
    out.io.stderr.write(`${lines.join('\n')}\n`);
  }
}

/** `--enrich-only`: enriches the graph file at `--output` in place and records it in the graph named `default`. */
async function enrichGraphFile(args: ExtractArgs, context: ServiceContext, out: RunOutput): Promise<void> {
  const graph = await readGraphFile(args.output);
  const enableMetrics = !args.noEnrich && (args.metrics || context.config.enableMetrics);
  if (args.noEnrich) note(out, 'Enrichment: --no-enrich given; nothing to do');
  let enriched;
  try {
    enriched = await enrichAndRecordGraph(context, graph, {
      catalogs: !args.noEnrich,
      metrics: enableMetrics,
      metricsLookbackHours: args.metricsLookbackHours,
      actor: 'cli',
      output: args.output,
      push: args.pushLineage ? pushLineageTargets(args, context.catalogs.available()) : [],
      onProgress: out.display.step,
    });
  } finally {
    out.display.stop();
  }
  writePushes(out, enriched.pushes);
  writeWarnings(out, enriched.warnings);
  const counts = countGraph(enriched.graph);
  const durationMs = performance.now() - out.startedAt;
  if (out.json) {
    const summary = extractSummary({
      graphId: enriched.graph_id,
      extractionId: null,
      counts,
      changes: enriched.changes,
      requests: {},
      warnings: enriched.warnings,
      durationMs,
      output: args.output,
      format: 'json',
    });
    out.io.stdout.write(`${JSON.stringify(summary)}\n`);
    return;
  }
  if (!out.summary) return;
  const lines = summaryLines({ counts, requests: {}, warnings: enriched.warnings, durationMs, output: args.output });
  const changes = enriched.changes;
  lines.push(
    `Recorded the enrichment in graph ${enriched.graph_id} (${describeEventStore(context.config.storage)}): ` +
      `${changes.nodes_added} node(s) added, ${changes.nodes_changed} changed; ` +
      `${changes.edges_added} edge(s) added, ${changes.edges_changed} changed`,
  );
  out.io.stdout.write(`${lines.join('\n')}\n`);
}

/** Extraction, recorded in the store, then the graph file, the pushes and the summary. */
async function extractToFile(args: ExtractArgs, context: ServiceContext, out: RunOutput): Promise<void> {
  if (!args.noEnrich && context.catalogs.available().length === 0) {
    note(out, 'Enrichment: no catalog provider is configured; catalog attributes are left as they are');
  }
  const format = args.format ?? 'json';
  let outcome;
  try {
    // One use case: extract, enrich, record, write the graph file, push (services/extraction.ts).
    outcome = await runExtraction(context, {
      environmentIds: args.env,
      clusterIds: args.cluster,
      enableMetrics: metricsAsked(args, context.config),
      metricsLookbackHours: args.metricsLookbackHours,
      actor: 'cli',
      enrichCatalogs: !args.noEnrich,
      strict: args.strict === true,
      output: { path: args.output, format },
      push: args.pushLineage ? pushLineageTargets(args, context.catalogs.available()) : [],
      onProgress: out.display.step,
    });
  } finally {
    out.display.stop();
  }
  writeWarnings(out, outcome.warnings);
  writePushes(out, outcome.pushes);
  if (out.json) {
    const summary = extractSummary({
      ...outcome,
      changes: countChanges(outcome.changes),
      durationMs: performance.now() - out.startedAt,
      output: args.output,
      format,
    });
    out.io.stdout.write(`${JSON.stringify(summary)}\n`);
    return;
  }
  if (!out.summary) return;
  const changes = outcome.changes;
  const lines = summaryLines({ ...outcome, output: args.output, verbose: out.verbose });
  // A catalog that is not configured (or --no-enrich) is kept as recorded too, but that is the
  // configuration, not a failure: only failed reads are printed (--json lists every scope).
  const failedReads = outcome.incompleteScopes.filter((scope) => scope.kind !== 'catalog' || scope.node_id !== null);
  if (failedReads.length > 0) {
    lines.push(
      `Not read completely (kept as recorded): ${failedReads.map((scope) => describeScope(scope)).join(', ')}`,
    );
  }
  lines.push(
    `Recorded extraction ${outcome.extractionId} in graph ${outcome.graphId} (${context.config.storage.backend} store): ` +
      `${changes.nodesAdded.length} node(s) added, ${changes.nodesChanged.length} changed, ` +
      `${changes.nodesRemoved.length} removed; ${changes.edgesAdded.length} edge(s) added, ` +
      `${changes.edgesChanged.length} changed, ${changes.edgesRemoved.length} removed`,
  );
  out.io.stdout.write(`${lines.join('\n')}\n`);
}

/** Whether the run takes throughput metrics: `--metrics` or `LINEAGE_SVC_ENABLE_METRICS`, unless `--no-enrich`. */
function metricsAsked(args: ExtractArgs, config: Config): boolean {
  return !args.noEnrich && (args.metrics || config.enableMetrics);
}

/** The checks that need the configuration, before anything is read or recorded. */
async function checkExtractRun(args: ExtractArgs, config: Config): Promise<void> {
  // --enrich-only reads the graph file, not the platform: the cloud key only for its metrics.
  if (!args.enrichOnly) requireCloudCredentials(config, 'extraction');
  else if (metricsAsked(args, config)) requireCloudCredentials(config, '--enrich-only with metrics');
  const problem = pushLineageProblem(args, config);
  if (problem) throw problem;
  if (args.enrichOnly && (args.format ?? 'json') !== 'json') {
    throw new ConfigurationError('--enrich-only reads and writes the JSON graph file: --format applies to extractions');
  }
  await checkGraphFileWritable(args.output);
}

/**
 * The run's output: the progress display (`./progress.ts`: live on a terminal, lines otherwise, off
 * with `--quiet`, with `LINEAGE_SVC_LOG_LEVEL` WARNING or ERROR, and when that level is INFO or DEBUG,
 * where the log lines already tell each step) and the flags that trim what is written.
 */
function runOutput(args: ExtractArgs, config: Config, io: CommandIo, logger: Logger): RunOutput {
  const mode = progressMode({
    quiet: args.quiet === true,
    logLevel: config.logLevel,
    logsSteps: logger.isLevelEnabled('info'),
    stream: io.stderr as { isTTY?: boolean },
  });
  const steps = args.enrichOnly ? 3 : expectedSteps(new Set(args.env).size, metricsAsked(args, config));
  return {
    io,
    display: createProgressDisplay(mode, io.stderr, steps),
    notes: mode !== 'off',
    warningLines: args.quiet !== true && config.logLevel !== 'error',
    json: args.json === true,
    summary: args.quiet !== true,
    verbose: args.verbose === true,
    startedAt: performance.now(),
  };
}

/**
 * Runs `lineage-svc-extract` with parsed flags. Resolves with the exit code (0 success, 2 failure);
 * never throws. `httpOptions` and `catalogOptions` let tests shorten retry delays and timeouts.
 * Errors are one line on stderr (`{name}: ...`), with `--quiet` and `--json` too.
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
  let out: RunOutput | undefined;
  try {
    await checkExtractRun(args, config);
    const logger = commandLogger(config, env);
    out = runOutput(args, config, io, logger);
    note(out, storeLine(config));
    runtime = await openRuntime(config, logger);
    const display = out.display;
    const context = createServiceContext({
      config,
      runtime,
      logger,
      httpOptions: {
        ...httpOptions,
        onRequest: (api) => display.request(api),
        onRetry: (retry) => display.retry(retry),
      },
      catalogClientOptions: catalogOptions,
    });
    if (args.enrichOnly) await enrichGraphFile(args, context, out);
    else await extractToFile(args, context, out);
    return 0;
  } catch (error) {
    out?.display.stop();
    return reportError(io, name, error);
  } finally {
    await runtime?.close().catch(() => undefined);
  }
}
