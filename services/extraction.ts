/**
 * The extraction and enrichment use cases, written once for every entry point: `lineage-svc-extract`
 * and `make demo` (`commands/shared.ts`), the API's `extract` and `enrich` tasks
 * (`./taskRunners.ts`) and the watchers (`./watcherEngine.ts`).
 *
 * - `runExtraction`: extracts the requested environments from the platform (`src/extraction/extract.ts`),
 *   records the graph in the graph named `default` (`src/extraction/record.ts`: a diff, scoped to the
 *   extracted environments and clusters; with metrics, their samples in one append to
 *   `metrics-{graph_id}`), then, when asked, enriches it from every available catalog and records that
 *   as a second write (cause `enrichment`, the extraction's correlation id).
 * - `enrichLineageGraph`: catalog and metrics enrichment of a graph value (no store).
 * - `enrichStoredGraph`: the same over a stored graph, recorded (mode `merge`, cause `enrichment`).
 *
 * Metrics are samples, never lineage: what is recorded as the graph carries no `metrics_*` attribute
 * (`withoutMetricAttributes`), the samples are recorded as `MetricsSampled` with the same correlation
 * id, and the graph values these functions answer (what the command writes to the graph file) carry
 * this run's samples as attributes (`withMetricAttributes`).
 */
import { randomUUID } from 'node:crypto';
import type { PushItemResult } from '../src/catalogs/provider.js';
import { CATALOG_REGISTRY, catalogEntry, type CatalogRegistryEntry } from '../src/catalogs/registry.js';
import { ConfigurationError } from '../src/errors.js';
import { countGraph, extract, type ExtractionCounts, type ExtractionProgress } from '../src/extraction/extract.js';
import { enrichWithMetrics } from '../src/extraction/enrich.js';
import { withMetricAttributes, withoutMetricAttributes, type MetricSamples } from '../src/extraction/metrics.js';
import { recordExtraction, recordMetricSamples } from '../src/extraction/record.js';
import type { ChangeCounts } from '../src/events.js';
import { countChanges, type GraphChanges } from '../src/graph/changes.js';
import type { CatalogType, LineageGraph } from '../src/graph/model.js';
import { DEFAULT_GRAPH_NAME, graphIdForName, recordGraph } from '../src/graphCommands.js';
import type { Config } from '../src/config.js';
import { toLineageGraph } from '../projections/graphProjection.js';
import type { ServiceContext } from './context.js';
import { defaultGraph, readGraph } from './graphs.js';

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
  /** Enrich from every available catalog after recording the extraction. */
  enrichCatalogs: boolean;
  onProgress?: ProgressListener | undefined;
}

/** What an extraction did. */
export interface ExtractionOutcome {
  extractionId: string;
  graphId: string;
  /**
   * The extracted graph, enriched when catalog enrichment ran, with this run's metric samples as
   * node attributes (what the graph file shows; the store keeps them apart, as `metrics`).
   */
  graph: LineageGraph;
  /** The metric samples recorded (`MetricsSampled`), null without metrics. */
  metrics: MetricSamples | null;
  counts: ExtractionCounts;
  /** What the extraction changed in the stored graph. */
  changes: GraphChanges;
  /** What the catalog enrichment changed after it (empty when it did not run). */
  enrichmentChanges: ChangeCounts | null;
  /** Revision of the graph's stream after the last write. */
  graphRevision: number;
  /** Platform requests, per API name. */
  requests: Record<string, number>;
  warnings: string[];
  /** Milliseconds spent extracting (without recording and enrichment). */
  durationMs: number;
  /** Catalog types whose enrichment ran. */
  catalogsEnriched: CatalogType[];
}

/**
 * Extracts, records, and (when asked) enriches from the catalogs.
 * @throws ConfigurationError without cloud credentials; whatever extraction or the store throw
 *   (an `ExtractionFailed` event is recorded first).
 */
export async function runExtraction(context: ServiceContext, request: ExtractionRequest): Promise<ExtractionOutcome> {
  const { config, runtime, logger } = context;
  requireCloudCredentials(config, 'extraction');
  const recorded = await recordExtraction(
    runtime,
    {
      environmentIds: request.environmentIds,
      clusterIds: request.clusterIds,
      enableMetrics: request.enableMetrics,
      actor: request.actor,
    },
    () =>
      extract(
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
      ),
  );
  const { result, record } = recorded;
  const outcome: ExtractionOutcome = {
    extractionId: recorded.extractionId,
    graphId: recorded.graphId,
    graph: withMetricAttributes(result.graph, result.metrics),
    metrics: result.metrics,
    counts: result.counts,
    changes: record.changes,
    enrichmentChanges: null,
    graphRevision: record.revision,
    requests: result.requests,
    warnings: [...result.warnings],
    durationMs: result.durationMs,
    catalogsEnriched: [],
  };
  if (!request.enrichCatalogs || enrichableCatalogs(context).length === 0) return outcome;
  request.onProgress?.({ label: 'Enrichment', message: `catalog tables (${catalogNames(context)})` });
  const enriched = await context.catalogs.enrich(result.graph);
  outcome.warnings.push(...enriched.warnings);
  outcome.catalogsEnriched = enriched.ran;
  outcome.graph = withMetricAttributes(enriched.graph, result.metrics);
  outcome.counts = countGraph(enriched.graph);
  const enrichment = await recordGraph(
    runtime.commands,
    recorded.graphId,
    enriched.graph,
    { mode: 'merge' },
    { cause: 'enrichment', actor: request.actor, correlation_id: recorded.extractionId },
  );
  outcome.enrichmentChanges = countChanges(enrichment.changes);
  outcome.graphRevision = enrichment.revision;
  return outcome;
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
 * so that the store keeps what the file shows.
 * @throws ConfigurationError as `enrichLineageGraph`.
 */
export async function enrichAndRecordGraph(
  context: ServiceContext,
  graph: LineageGraph,
  request: EnrichmentRequest & { actor: string },
): Promise<EnrichedGraph & StoredEnrichmentOutcome> {
  const enriched = await enrichLineageGraph(context, graph, request);
  const graphId = graphIdForName(DEFAULT_GRAPH_NAME);
  const recorded = await recordEnrichment(context, graphId, enriched, request, DEFAULT_GRAPH_NAME);
  return { ...enriched, ...recorded };
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
