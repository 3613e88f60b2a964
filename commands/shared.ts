/**
 * What `lineage-svc-extract` and the demo share: running an extraction from parsed flags and a
 * configuration (extract, record in the event store, write the graph file, print the summary), and
 * the one-line error report of the commands.
 *
 * Output: progress lines (`Phase 1/4: ...`) and warnings on stderr, the summary on stdout.
 */
import { readGraphFile, writeGraphFile } from '../infra/graphFile.js';
import { createPlatformApi } from '../infra/confluent/platformApi.js';
import type { HttpClientOptions } from '../infra/confluent/httpClient.js';
import { openRuntime } from '../infra/runtime.js';
import { enrichCatalogs, pushToCatalog, type CatalogClientOptions } from '../infra/catalogs/catalogService.js';
import { DEFAULT_PUSH_OPTIONS, type PushResult } from '../src/catalogs/provider.js';
import type { LineageGraph } from '../src/graph/model.js';
import { recordGraph } from '../src/graphCommands.js';
import type { Config } from '../src/config.js';
import { countGraph, extract, type ExtractionCounts, type ExtractionProgress } from '../src/extraction/extract.js';
import { enrichWithMetrics } from '../src/extraction/enrich.js';
import { oneLine } from './arguments.js';
import { recordExtraction } from '../src/extraction/record.js';
import { ConfigurationError } from '../src/errors.js';
import { createLogger, type Logger } from '../src/logger.js';

/** The flags of `lineage-svc-extract` (specification, "Command-line tools"). */
export interface ExtractArgs {
  env: string[];
  cluster: string[];
  output: string;
  noEnrich: boolean;
  enrichOnly: boolean;
  pushLineage: boolean;
  metrics: boolean;
  metricsLookbackHours: number;
}

/** Where a command writes. */
export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
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
 * Runs `lineage-svc-extract` with parsed flags. Resolves with the exit code (0 success, 2 failure);
 * never throws. `httpOptions` lets tests shorten retry delays and timeouts.
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
  if (!config.stream.credentials.cloud) {
    return reportError(
      io,
      name,
      new ConfigurationError('LINEAGE_SVC_STREAM_CLOUD_API_KEY and LINEAGE_SVC_STREAM_CLOUD_API_SECRET are required'),
    );
  }
  if (args.pushLineage && (!config.lakehouse.workspaceUrl || !config.lakehouse.token)) {
    return reportError(
      io,
      name,
      new Error('--push-lineage needs LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL and LINEAGE_SVC_LAKEHOUSE_TOKEN'),
    );
  }
  const logger = commandLogger(config, env);
  const platform = createPlatformApi(config.stream, { logger, ...httpOptions });
  const enableMetrics = !args.noEnrich && (args.metrics || config.enableMetrics);
  const progress = (p: ExtractionProgress) => io.stderr.write(`${p.label}: ${p.message}\n`);
  const lakehouseReady = Boolean(config.lakehouse.workspaceUrl && config.lakehouse.token);
  /** Catalog enrichment (lakehouse when configured), with its warnings; the graph unchanged otherwise. */
  const catalogEnrichment = async (graph: LineageGraph): Promise<{ graph: LineageGraph; warnings: string[] }> => {
    if (!lakehouseReady) {
      io.stderr.write(
        'Enrichment: catalog enrichment of lakehouse tables is not available: set LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL and LINEAGE_SVC_LAKEHOUSE_TOKEN; catalog attributes are left as they are\n',
      );
      return { graph, warnings: [] };
    }
    io.stderr.write('Enrichment: catalog tables (lakehouse)\n');
    const outcome = await enrichCatalogs(graph, config, { logger, ...catalogOptions });
    return { graph: outcome.graph, warnings: outcome.warnings };
  };
  /** `--push-lineage`: pushes to the lakehouse with the default switches and prints one line. */
  const pushLineage = async (graph: LineageGraph): Promise<PushResult> => {
    const result = await pushToCatalog(graph, 'LAKEHOUSE_CATALOG', DEFAULT_PUSH_OPTIONS, config, {
      logger,
      ...catalogOptions,
    });
    io.stderr.write(
      `Push: ${result.tables_updated} lakehouse table(s) updated, ${result.properties_set} properties, ${result.comments_set} comments, ` +
        `${result.bridge_rows_inserted} bridge rows; ${result.errors.length} error(s), ${result.skipped.length} skipped\n`,
    );
    for (const error of result.errors) io.stderr.write(`warning: push: ${error}\n`);
    for (const skipped of result.skipped) io.stderr.write(`push skipped: ${skipped}\n`);
    return result;
  };
  try {
    if (args.enrichOnly) {
      const graph = await readGraphFile(args.output);
      const started = performance.now();
      let warnings: string[] = [];
      let enriched = graph;
      if (enableMetrics) {
        progress({
          phase: 5,
          label: 'Phase 5/4 (metrics)',
          message: `throughput metrics over the last ${args.metricsLookbackHours} h`,
        });
        ({ graph: enriched, warnings } = await enrichWithMetrics(graph, platform, args.metricsLookbackHours));
      } else if (args.noEnrich) {
        io.stderr.write('Enrichment: --no-enrich given; nothing to do\n');
      }
      if (!args.noEnrich) {
        const catalogs = await catalogEnrichment(enriched);
        enriched = catalogs.graph;
        warnings = [...warnings, ...catalogs.warnings];
      }
      await writeGraphFile(args.output, enriched);
      if (args.pushLineage) await pushLineage(enriched);
      for (const warning of warnings) io.stderr.write(`warning: ${warning}\n`);
      const lines = summaryLines({
        counts: countGraph(enriched),
        requests: platform.requestCounts(),
        warnings,
        durationMs: performance.now() - started,
        output: args.output,
      });
      io.stdout.write(`${lines.join('\n')}\n`);
      return 0;
    }
    const runtime = await openRuntime(config, logger);
    try {
      const recorded = await recordExtraction(
        runtime,
        { environmentIds: args.env, clusterIds: args.cluster, enableMetrics },
        () =>
          extract(
            { platform, logger },
            {
              environmentIds: args.env,
              clusterIds: args.cluster,
              enableMetrics,
              metricsLookbackHours: args.metricsLookbackHours,
              onProgress: progress,
              schemaRegistryUrl: config.stream.schemaRegistryUrl,
              flinkApiUrl: config.stream.flinkApiUrl,
              datalakeRegion: config.datalake.region,
            },
          ),
      );
      const { result, record } = recorded;
      let graph = result.graph;
      const warnings = [...result.warnings];
      if (!args.noEnrich) {
        const catalogs = await catalogEnrichment(graph);
        if (catalogs.graph !== graph) {
          graph = catalogs.graph;
          await recordGraph(
            runtime.commands,
            recorded.graphId,
            graph,
            { mode: 'merge' },
            { cause: 'enrichment', actor: 'cli', correlation_id: recorded.extractionId },
          );
        }
        warnings.push(...catalogs.warnings);
      }
      await writeGraphFile(args.output, graph);
      for (const warning of warnings) io.stderr.write(`warning: ${warning}\n`);
      if (args.pushLineage) await pushLineage(graph);
      const changes = record.changes;
      const lines = summaryLines({ ...result, counts: countGraph(graph), warnings, output: args.output });
      lines.push(
        `Recorded extraction ${recorded.extractionId} in graph ${recorded.graphId} (${config.storage.backend} store): ` +
          `${changes.nodesAdded.length} node(s) added, ${changes.nodesChanged.length} changed, ${changes.nodesRemoved.length} removed; ` +
          `${changes.edgesAdded.length} edge(s) added, ${changes.edgesChanged.length} changed, ${changes.edgesRemoved.length} removed`,
      );
      io.stdout.write(`${lines.join('\n')}\n`);
      return 0;
    } finally {
      await runtime.close();
    }
  } catch (error) {
    return reportError(io, name, error);
  }
}
