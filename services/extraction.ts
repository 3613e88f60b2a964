/**
 * The extraction and enrichment use cases, written once for every entry point: `lineage-svc-extract`
 * and `make demo` (`commands/shared.ts`), the API's `extract` and `enrich` tasks
 * (`./taskRunners.ts`) and the watchers (`./watcherEngine.ts`).
 *
 * - `runExtraction`: extracts the requested environments from the platform (`src/extraction/extract.ts`),
 *   enriches the result from every available catalog (when asked), and records both as one write in
 *   the graph named `default` (`src/extraction/record.ts`: a diff, scoped to the extracted
 *   environments and clusters, scopes not read completely kept as stored; lag and, with metrics,
 *   throughput as samples in `metrics-{graph_id}`); then writes the graph file and pushes to the
 *   catalogs asked for. The commands only parse arguments and print.
 * - `enrichLineageGraph`: catalog and metrics enrichment of a graph value (no store).
 * - `enrichStoredGraph`: the same over a stored graph, recorded (mode `merge`, cause `enrichment`).
 *
 * Metrics are samples, never lineage: what is recorded as the graph carries no `metrics_*` attribute
 * (`withoutMetricAttributes`), the samples are recorded as `MetricsSampled` with the same correlation
 * id, and the graph values these functions answer (what the command writes to the graph file) carry
 * this run's samples as attributes (`withMetricAttributes`).
 */
import { randomUUID } from 'node:crypto';
import type { PushItemResult, PushResult } from '../src/catalogs/provider.js';
import type { ExportFormat } from '../src/export/index.js';
import { CATALOG_REGISTRY, catalogEntry, type CatalogRegistryEntry } from '../src/catalogs/registry.js';
import { ConfigurationError, LineageError } from '../src/errors.js';
import { countGraph, extract, type ExtractionCounts, type ExtractionProgress } from '../src/extraction/extract.js';
import { enrichWithMetrics } from '../src/extraction/enrich.js';
import { withMetricAttributes, withoutMetricAttributes, type MetricSamples } from '../src/extraction/metrics.js';
import { describeScope, incompleteScope, type IncompleteScope } from '../src/extraction/completeness.js';
import { splitObservations, withObservations } from '../src/extraction/observations.js';
import { recordExtraction, recordMetricSamples } from '../src/extraction/record.js';
import type { ChangeCounts } from '../src/events.js';
import { countChanges, type GraphChanges } from '../src/graph/changes.js';
import type { CatalogType, LineageGraph } from '../src/graph/model.js';
import { DEFAULT_GRAPH_NAME, graphIdForName, recordGraph } from '../src/graphCommands.js';
import type { Config } from '../src/config.js';
import { toLineageGraph } from '../projections/graphProjection.js';
import type { CatalogEnrichmentOutcome, ServiceContext } from './context.js';
import { defaultGraph, readGraph } from './graphs.js';
import { pushLineageGraph } from './push.js';

/** `a`, `a or b`, `a, b or c`. */
function orList(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)!}`;
}

/** A provider's name in a message: `lakehouse`, `data governance`. */
const providerName = (entry: CatalogRegistryEntry) => entry.shortName.replaceAll('_', ' ');

/**
 * The warning when catalog enrichment was asked for and no catalog provider that enriches is
 * available, built from the catalog registry so that it names every provider: the required variables
 * of each provider with tables to enrich, then those of the push-only providers (data governance),
 * which enrich nothing even when set.
 */
export function catalogEnrichmentUnavailable(registry: readonly CatalogRegistryEntry[]): string {
  const enriching = registry
    .filter((entry) => entry.system !== null)
    .map((entry) => `${entry.requiredSettings.join(' and ')} for the ${providerName(entry)} catalog`);
  const pushOnly = registry
    .filter((entry) => entry.system === null)
    .map((entry) => `the ${providerName(entry)} catalog (${entry.requiredSettings.join(' and ')})`);
  const note =
    pushOnly.length === 0
      ? ''
      : `; ${pushOnly.join(' and ')} ${pushOnly.length === 1 ? 'is push only and enriches' : 'are push only and enrich'} nothing`;
  return (
    'catalog enrichment is not available: no catalog provider that enriches tables is configured ' +
    `(set ${orList(enriching)}${note}); catalog attributes are left as they are`
  );
}

/** The warning when catalog enrichment was asked for and no catalog provider that enriches is available. */
export const CATALOG_ENRICHMENT_UNAVAILABLE = catalogEnrichmentUnavailable(CATALOG_REGISTRY);

/**
 * Fails when the platform's cloud credentials are not set.
 * @param purpose what needs them, for the message (`extraction`, `watching`...)
 * @throws ConfigurationError naming the two variables to set
 */
export function requireCloudCredentials(config: Config, purpose: string): void {
  if (!config.stream.credentials.cloud) {
    throw new ConfigurationError(
      `${purpose} needs LINEAGE_SVC_STREAM_CLOUD_API_KEY and LINEAGE_SVC_STREAM_CLOUD_API_SECRET, which are not set`,
    );
  }
}

/**
 * A progress report: a phase label (`Phase 1/4`, `Enrichment`...) and one line; the extraction's own
 * steps also carry the phase, the phases that run, and the requests and warnings so far.
 */
export type ProgressListener = (
  step: Pick<ExtractionProgress, 'label' | 'message'> & Partial<ExtractionProgress>,
) => void;

/** What to extract and how. */
export interface ExtractionRequest {
  environmentIds: readonly string[];
  /** Cluster filter; empty: every cluster. */
  clusterIds: readonly string[];
  enableMetrics: boolean;
  /** Metrics window in hours; default 1. */
  metricsLookbackHours?: number;
  /** Who asked, recorded on the events: `cli`, `api`, `watcher:{id}`. */
  actor: string;
  /**
   * Enrich from every available catalog before recording (the default of every entry point, so that
   * entry points never undo each other). Off (`--no-enrich`): what the catalogs reported before is
   * kept as recorded, never removed.
   */
  enrichCatalogs: boolean;
  /**
   * `--strict`: an extraction that did not read every scope completely records no graph change and
   * fails with `IncompleteExtractionError` (exit 2), instead of keeping the stored state of those scopes.
   */
  strict?: boolean | undefined;
  /** The graph file to write once recorded (`--output`, `--format`); none when absent. */
  output?: { path: string; format: ExportFormat } | undefined;
  /** Catalogs to push the recorded graph to (`--push-lineage`), in order; none when absent or empty. */
  push?: readonly CatalogType[] | undefined;
  onProgress?: ProgressListener | undefined;
}

/**
 * Raised by a `strict` extraction that did not read every scope completely. Code
 * `EXTRACTION_INCOMPLETE`, status 502; nothing of the graph was recorded.
 */
export class IncompleteExtractionError extends LineageError {
  constructor(readonly scopes: readonly IncompleteScope[]) {
    super(
      `the extraction did not read ${scopes.length} scope(s) completely and --strict was given, so nothing was recorded: ` +
        scopes.map((scope) => `${describeScope(scope)} (${scope.reason})`).join('; '),
      'EXTRACTION_INCOMPLETE',
      502,
    );
  }
}

/** What an extraction did. */
export interface ExtractionOutcome {
  extractionId: string;
  graphId: string;
  /**
   * The graph as recorded (extraction and catalog enrichment in one write, scopes not read completely
   * as stored), with this run's metric samples as node attributes (what the graph file shows; the
   * store keeps them apart, as `metrics`).
   */
  graph: LineageGraph;
  /** The metric samples recorded (`MetricsSampled`), null without metrics. */
  metrics: MetricSamples | null;
  counts: ExtractionCounts;
  /** What the extraction (with its enrichment) changed in the stored graph: one write. */
  changes: GraphChanges;
  /** Revision of the graph's stream after the write. */
  graphRevision: number;
  /** Platform requests, per API name. */
  requests: Record<string, number>;
  warnings: string[];
  /** The scopes not read completely: their stored state was kept (`src/extraction/completeness.ts`). */
  incompleteScopes: IncompleteScope[];
  /** Milliseconds spent extracting (without enrichment and recording). */
  durationMs: number;
  /** Catalog types whose enrichment ran. */
  catalogsEnriched: CatalogType[];
  /** What each push of `ExtractionRequest.push` did, in order. */
  pushes: { catalogType: CatalogType; result: PushResult }[];
}

/**
 * Extracts, enriches from the available catalogs (when asked) and records both as one write: the
 * graph's history gets one entry per extraction, and identical input records nothing. Catalog
 * scopes that did not run or did not read a table completely keep their stored nodes, edges and
 * attributes (`catalogScopes`).
 * @throws ConfigurationError without cloud credentials; IncompleteExtractionError with `strict` and a
 *   scope not read completely; whatever extraction or the store throw (an `ExtractionFailed` event is
 *   recorded first).
 */
export async function runExtraction(context: ServiceContext, request: ExtractionRequest): Promise<ExtractionOutcome> {
  const { config, runtime, logger } = context;
  requireCloudCredentials(config, 'extraction');
  let catalogsEnriched: CatalogType[] = [];
  const recorded = await recordExtraction(
    runtime,
    {
      environmentIds: request.environmentIds,
      clusterIds: request.clusterIds,
      enableMetrics: request.enableMetrics,
      actor: request.actor,
    },
    async () => {
      const result = await extract(
        { platform: context.platform(), logger },
        {
          environmentIds: request.environmentIds,
          clusterIds: request.clusterIds,
          enableMetrics: request.enableMetrics,
          metricsLookbackHours: request.metricsLookbackHours ?? 1,
          ...(request.onProgress ? { onProgress: request.onProgress } : {}),
          schemaRegistryUrl: config.stream.schemaRegistryUrl,
          flinkApiUrl: config.stream.flinkApiUrl,
          datalakeRegion: config.datalake.region,
          warehouseProjectId: config.warehouse.projectId,
        },
      );
      const enriched = await enrichFromCatalogs(context, result.graph, request);
      catalogsEnriched = enriched.ran;
      const incompleteScopes = [...result.incompleteScopes, ...enriched.scopes];
      if (request.strict && incompleteScopes.length > 0) throw new IncompleteExtractionError(incompleteScopes);
      // Lag moves on its own: a metric sample, never a graph change (src/extraction/observations.ts).
      const { graph, observations } = splitObservations(enriched.graph, new Date());
      return {
        ...result,
        graph,
        metrics: withObservations(result.metrics, observations),
        warnings: [...result.warnings, ...enriched.warnings],
        incompleteScopes,
      };
    },
  );
  const { result, record } = recorded;
  const graph = withMetricAttributes(result.graph, result.metrics);
  // The graph file holds the recorded graph (scopes not read completely as stored), then the pushes.
  if (request.output) await context.graphFiles.write(request.output.path, graph, request.output.format);
  const pushes: ExtractionOutcome['pushes'] = [];
  for (const catalogType of request.push ?? [])
    pushes.push({ catalogType, result: await pushLineageGraph(context, graph, catalogType) });
  return {
    extractionId: recorded.extractionId,
    graphId: recorded.graphId,
    graph,
    metrics: result.metrics,
    counts: result.counts,
    changes: record.changes,
    graphRevision: record.revision,
    requests: result.requests,
    warnings: [...result.warnings],
    incompleteScopes: result.incompleteScopes,
    durationMs: result.durationMs,
    catalogsEnriched,
    pushes,
  };
}

/**
 * The catalog enrichment of an extracted graph, before it is recorded: every available catalog
 * that enriches (when asked), and the catalog scopes whose stored state must be kept: a catalog that
 * did not run (not configured, or not asked), and each table a catalog that ran did not read
 * completely (not `updated` or `unchanged`).
 */
async function enrichFromCatalogs(
  context: ServiceContext,
  graph: LineageGraph,
  request: Pick<ExtractionRequest, 'enrichCatalogs' | 'onProgress'>,
): Promise<{ graph: LineageGraph; warnings: string[]; ran: CatalogType[]; scopes: IncompleteScope[] }> {
  const enriching = CATALOG_REGISTRY.filter((entry) => entry.system !== null).map((entry) => entry.catalogType);
  const asked = request.enrichCatalogs ? enrichableCatalogs(context) : [];
  let enriched: CatalogEnrichmentOutcome = { graph, results: [], warnings: [], ran: [] };
  if (asked.length > 0) {
    request.onProgress?.({ label: 'Enrichment', message: `catalog tables (${catalogNames(context)})` });
    enriched = await context.catalogs.enrich(graph);
  }
  const scopes: IncompleteScope[] = [];
  for (const catalogType of enriching) {
    if (!enriched.ran.includes(catalogType)) {
      const reason = request.enrichCatalogs
        ? (context.catalogs.unavailableReason(catalogType) ?? `the ${catalogType} enrichment did not run`)
        : 'catalog enrichment was not asked for (--no-enrich)';
      scopes.push(incompleteScope({ kind: 'catalog', resource_id: catalogType, reason }));
      continue;
    }
    const result = enriched.results.find((entry) => entry.catalog_type === catalogType);
    for (const item of result?.results ?? []) {
      if (item.status === 'updated' || item.status === 'unchanged' || item.node_id === undefined) continue;
      const reason = item.error ?? item.reason ?? item.status;
      scopes.push(incompleteScope({ kind: 'catalog', resource_id: catalogType, node_id: item.node_id, reason }));
    }
  }
  return { graph: enriched.graph, warnings: enriched.warnings, ran: enriched.ran, scopes };
}

/** The short names of the available catalogs, for progress lines: `lakehouse, datalake`. */
function catalogNames(context: ServiceContext): string {
  return enrichableCatalogs(context)
    .map((catalogType) => catalogEntry(catalogType).shortName)
    .join(', ');
}

/** The available catalogs that hold tables to enrich (data governance is push only). */
function enrichableCatalogs(context: ServiceContext): CatalogType[] {
  return context.catalogs.available().filter((catalogType) => catalogEntry(catalogType).system !== null);
}

/** Which enrichments to run. */
export interface EnrichmentRequest {
  /** Every available catalog provider's enrichment. */
  catalogs: boolean;
  /** Throughput metrics from the platform's Metrics API. */
  metrics: boolean;
  /** Metrics window in hours; default 1. */
  metricsLookbackHours?: number;
  onProgress?: ProgressListener | undefined;
}

/** An enriched graph value. */
export interface EnrichedGraph {
  /** The graph, enriched; with metrics, their samples as node attributes (`withMetricAttributes`). */
  graph: LineageGraph;
  /** The metric samples of the graph's nodes, null when metrics were not asked for. */
  metrics: MetricSamples | null;
  warnings: string[];
  catalogsEnriched: CatalogType[];
  /** Per catalog table: updated, unchanged, skipped (with a reason) or failed (with an error). */
  results: PushItemResult[];
}

/**
 * Enriches a graph value: metrics first (when asked), then every available catalog (when asked;
 * `CATALOG_ENRICHMENT_UNAVAILABLE` is a warning when none is). Records nothing.
 * @throws ConfigurationError when metrics are asked for without cloud credentials.
 */
export async function enrichLineageGraph(
  context: ServiceContext,
  graph: LineageGraph,
  request: EnrichmentRequest,
): Promise<EnrichedGraph> {
  let current = graph;
  const warnings: string[] = [];
  let catalogsEnriched: CatalogType[] = [];
  const results: PushItemResult[] = [];
  let metrics: MetricSamples | null = null;
  if (request.metrics) {
    requireCloudCredentials(context.config, 'metrics enrichment');
    const hours = request.metricsLookbackHours ?? 1;
    request.onProgress?.({ label: 'Metrics', message: `throughput metrics over the last ${hours} h` });
    const enriched = await enrichWithMetrics(current, context.platform(), hours);
    current = enriched.graph;
    metrics = enriched.samples;
    warnings.push(...enriched.warnings);
  }
  if (request.catalogs) {
    if (enrichableCatalogs(context).length === 0) {
      warnings.push(CATALOG_ENRICHMENT_UNAVAILABLE);
    } else {
      request.onProgress?.({ label: 'Enrichment', message: `catalog tables (${catalogNames(context)})` });
      const enriched = await context.catalogs.enrich(current);
      current = enriched.graph;
      warnings.push(...enriched.warnings);
      catalogsEnriched = enriched.ran;
      results.push(...enriched.results.flatMap((result) => result.results ?? []));
    }
  }
  return { graph: current, metrics, warnings, catalogsEnriched, results };
}

/** The answer of an enrichment of a stored graph (the `enrich` task's result). */
export interface StoredEnrichmentOutcome {
  graph_id: string;
  node_count: number;
  edge_count: number;
  changes: ChangeCounts;
  warnings: string[];
  /** Per catalog table: updated, unchanged, skipped (with a reason) or failed (with an error). */
  results: PushItemResult[];
}

/**
 * Enriches a stored graph (by default the most recently changed one) and records the difference
 * (mode `merge`, cause `enrichment`).
 * @throws NotFoundError for an unknown graph or when there is none; ConfigurationError as `enrichLineageGraph`.
 */
export async function enrichStoredGraph(
  context: ServiceContext,
  request: EnrichmentRequest & { graphId: string | null; actor: string },
): Promise<StoredEnrichmentOutcome> {
  const { runtime } = context;
  const state = request.graphId === null ? defaultGraph(runtime) : await readGraph(runtime, request.graphId);
  const enriched = await enrichLineageGraph(context, toLineageGraph(state), request);
  return recordEnrichment(context, state.graphId, enriched, request);
}

/**
 * Enriches a graph value (`lineage-svc-extract --enrich-only` reads it from the graph file) and
 * records it into the graph named `default` (created when missing; mode `merge`, cause `enrichment`),
 * so that the store keeps what the file shows; then writes it back to `output` (JSON) and pushes it
 * to the catalogs of `push`, in order.
 * @throws ConfigurationError as `enrichLineageGraph`.
 */
export async function enrichAndRecordGraph(
  context: ServiceContext,
  graph: LineageGraph,
  request: EnrichmentRequest & {
    actor: string;
    output?: string | undefined;
    push?: readonly CatalogType[] | undefined;
  },
): Promise<EnrichedGraph & StoredEnrichmentOutcome & Pick<ExtractionOutcome, 'pushes'>> {
  const enriched = await enrichLineageGraph(context, graph, request);
  const graphId = graphIdForName(DEFAULT_GRAPH_NAME);
  const recorded = await recordEnrichment(context, graphId, enriched, request, DEFAULT_GRAPH_NAME);
  if (request.output !== undefined) await context.graphFiles.write(request.output, enriched.graph, 'json');
  const pushes: ExtractionOutcome['pushes'] = [];
  for (const catalogType of request.push ?? [])
    pushes.push({ catalogType, result: await pushLineageGraph(context, enriched.graph, catalogType) });
  return { ...enriched, ...recorded, pushes };
}

/**
 * Records an enriched graph into `graphId` (mode `merge`, cause `enrichment`) without its `metrics_*`
 * attributes, then its metric samples (`MetricsSampled` in `metrics-{graph_id}`, one append, the same
 * correlation id), and reads back its size. With `createAs`, a missing graph is created with that
 * name; without, it is a NotFoundError.
 */
async function recordEnrichment(
  context: ServiceContext,
  graphId: string,
  enriched: EnrichedGraph,
  request: Pick<EnrichmentRequest, 'onProgress'> & { actor: string },
  createAs?: string,
): Promise<StoredEnrichmentOutcome> {
  const { runtime } = context;
  request.onProgress?.({ label: 'Recording', message: `recording the enrichment of graph ${graphId}` });
  const events = { cause: 'enrichment', actor: request.actor, correlation_id: randomUUID() };
  const record = await recordGraph(
    runtime.commands,
    graphId,
    withoutMetricAttributes(enriched.graph),
    { mode: 'merge', createIfMissing: createAs !== undefined, name: createAs ?? null },
    events,
  );
  const sampled = await recordMetricSamples(runtime.store, graphId, enriched.metrics, events);
  if (sampled) await runtime.projector.waitFor(sampled.position);
  const after = await readGraph(runtime, graphId);
  return {
    graph_id: graphId,
    node_count: after.graph.order,
    edge_count: after.graph.size,
    changes: countChanges(record.changes),
    warnings: enriched.warnings,
    results: enriched.results,
  };
}
