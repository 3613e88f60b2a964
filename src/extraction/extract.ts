/**
 * Extraction orchestration: reads one or more environments through a `PlatformPort` and returns
 * the lineage graph, in the five phases of `docs/extraction.md` ("Phases"), one file each under
 * `src/extraction/phases/`, sharing one run context (`runContext.ts`):
 *
 * 0. discovery of the environment's clusters (`phases/discovery.ts`, progress `Discovery`);
 * 1. topic inventory and consumer groups, cluster after cluster (`phases/topicInventory.ts`,
 *    `Phase 1/4`); also each cluster's Cluster Linking mirror topics and, when it has mirrors, its
 *    cluster links;
 * 2. connectors, ksqlDB queries and Flink statements, in parallel, then MEMBER_OF edges from
 *    consumer groups to the jobs that own them (`phases/streamProcessing.ts`, `Phase 2/4`);
 * 3. Schema Registry and Stream Catalog, in parallel, then column lineage through `SELECT *` on
 *    PRODUCES edges expanded with the input topics' value-schema fields (`phases/schemas.ts`, `Phase 3/4`);
 * 4. table materialization: Tableflow topic -> table -> catalog (`phases/tableflow.ts`, `Phase 4/4`);
 * 5. with `enableMetrics`, throughput metrics over the lookback window (`phases/metrics.ts`). Progress
 *    reads `Phase n/N`, N the phases that run: 4, or 5 with metrics (`runContext.ts`, `phaseLabel`).
 *
 * Discovery and phases 1-4 run per environment, environments one after the other. Cluster Linking
 * belongs to phase 1, which reads it; its `source topic -TRANSFORMS-> mirror topic` edges are added
 * once the last environment's phase 4 is done (`phases/clusterLinking.ts`, no progress line of its
 * own, before phase 5): a link's source cluster may belong to an environment extracted later. A 404
 * on the mirror listing (a cluster without Cluster Linking) is logged (`Extraction:NoClusterLinking`),
 * not warned. Every extractor runs under a 120 s timeout (`extractorTimeoutMs`); a failed or
 * timed-out extractor adds a warning (`failureWarning`: 400, the key may lack access or parameters
 * are invalid; 401 on the topic listing, a cluster-scoped key is needed; 404 on Schema Registry, it
 * may be disabled) and contributes nothing, and extraction goes on (partial success). Extraction
 * fails (throws `ExtractionError`) only when no requested environment could be read.
 */
import type { IncompleteScope } from '../events.js';
import type { LineageGraph } from '../graph/model.js';
import { LineageError, ValidationError } from '../errors.js';
import type { Logger } from '../logger.js';
import { linkMirrorTopics } from './phases/clusterLinking.js';
import { discoverEnvironment, type EnvironmentDiscovery } from './phases/discovery.js';
import type { MetricSamples } from './metrics.js';
import { extractMetrics } from './phases/metrics.js';
import { extractSchemasAndCatalog } from './phases/schemas.js';
import { extractStreamProcessing } from './phases/streamProcessing.js';
import { extractTableflow } from './phases/tableflow.js';
import { extractTopicInventory } from './phases/topicInventory.js';
import type { PlatformPort } from './port.js';
import {
  createExtractionRun,
  type DiscoveredEnvironment,
  type ExtractedEnvironment,
  type ExtractionRun,
} from './runContext.js';
import type { StatementLineageResolver } from './streamProcessing.js';

export { failureWarning } from './failures.js';

/** Raised when nothing could be extracted at all (every environment failed discovery). Code `EXTRACTION_FAILED`, status 502. */
export class ExtractionError extends LineageError {
  constructor(message: string) {
    super(message, 'EXTRACTION_FAILED', 502);
  }
}

/** What `extract` needs from outside. */
export interface ExtractDeps {
  platform: PlatformPort;
  logger: Logger;
  /** The clock (the consumer lag query, metrics windows); durations use `performance.now()`. Default `() => new Date()`. */
  now?: () => Date;
}

/** A progress report, for progress bars and plain phase lines: one per step, in order. */
export interface ExtractionProgress {
  /** 0 for discovery, 1-5 for the phases, 6 when done. */
  phase: number;
  /** `Discovery`, `Phase 1/4` ... `Phase 4/4` (or `Phase 1/5` ... `Phase 5/5` with metrics), `Done`. */
  label: string;
  message: string;
  /** The numbered phases this run goes through: 4, or 5 with `enableMetrics`. */
  phases: number;
  /** Requests sent to the platform so far in this run (every attempt). */
  requests: number;
  /** Warnings given so far in this run. */
  warnings: number;
}

/** Options of `extract`. */
export interface ExtractOptions {
  environmentIds: readonly string[];
  /** Cluster filter; empty or absent: every cluster. */
  clusterIds?: readonly string[];
  enableMetrics?: boolean;
  /** Metrics window in hours; default 1. */
  metricsLookbackHours?: number;
  onProgress?: (progress: ExtractionProgress) => void;
  /** Per-extractor timeout in milliseconds; default 120,000 (`docs/extraction.md`, "Phases"). */
  extractorTimeoutMs?: number;
  /** Schema Registry / Stream Catalog base URL override (`LINEAGE_SVC_SCHEMA_REGISTRY_URL`). */
  schemaRegistryUrl?: string | undefined;
  /** Flink SQL base URL override (`LINEAGE_SVC_STREAM_FLINK_API_URL`). */
  flinkApiUrl?: string | undefined;
  /** Region of data-lake catalog tables (`LINEAGE_SVC_DATALAKE_REGION`); default the cluster's region. */
  datalakeRegion?: string | undefined;
  /** Project of BigQuery sink tables whose connector names none (`LINEAGE_SVC_WAREHOUSE_PROJECT_ID`). */
  warehouseProjectId?: string | undefined;
  /** Finds the topics of Flink statements; default `parsedStatementLineage` (parsed SQL plus what the platform reports). */
  statementLineage?: StatementLineageResolver;
}

/** Node counts by system and type, edge counts by type. */
export interface ExtractionCounts {
  nodes: number;
  edges: number;
  nodesBySystem: Record<string, Record<string, number>>;
  edgesByType: Record<string, number>;
}

/** The outcome of `extract`. */
export interface ExtractionResult {
  graph: LineageGraph;
  warnings: string[];
  /** Requests made during this extraction, per API name. */
  requests: Record<string, number>;
  durationMs: number;
  counts: ExtractionCounts;
  /**
   * With `enableMetrics`, the metrics phase's samples (never node attributes of `graph`: recording
   * appends them as `MetricsSampled`, `withMetricAttributes` puts them on nodes); null without.
   */
  metrics: MetricSamples | null;
  /**
   * The scopes not read completely (`src/extraction/completeness.ts`): a failed or timed-out call
   * leaves what it would have listed unknown, so recording keeps their stored state.
   */
  incompleteScopes: IncompleteScope[];
}

/** Counts nodes by system and type and edges by type. */
export function countGraph(graph: LineageGraph): ExtractionCounts {
  const nodesBySystem: Record<string, Record<string, number>> = {};
  for (const node of graph.nodes) {
    const bySystem = (nodesBySystem[node.system] ??= {});
    bySystem[node.node_type] = (bySystem[node.node_type] ?? 0) + 1;
  }
  const edgesByType: Record<string, number> = {};
  for (const edge of graph.edges) edgesByType[edge.edge_type] = (edgesByType[edge.edge_type] ?? 0) + 1;
  return { nodes: graph.nodes.length, edges: graph.edges.length, nodesBySystem, edgesByType };
}

/**
 * Extracts the lineage graph of the given environments (`docs/extraction.md`, "Phases"): discovery
 * and phases 1-4 per environment, one environment after the other, then the Cluster Linking edges,
 * then with `enableMetrics` phase 5.
 * @returns the graph (passes `parseLineageGraph`), the warnings, the requests made per API during
 *   this extraction, the duration in milliseconds, the node/edge counts and, with `enableMetrics`,
 *   the metric samples (`metrics`; the graph's nodes carry no metric attributes).
 * @throws ExtractionError when no environment could be read at all (e.g. a wrong cloud key).
 */
export async function extract(deps: ExtractDeps, options: ExtractOptions): Promise<ExtractionResult> {
  const run = createExtractionRun(deps, options);
  const environmentIds = [...new Set(options.environmentIds)];
  const discoveries: EnvironmentDiscovery[] = [];
  for (const environmentId of environmentIds) discoveries.push(await discoverEnvironment(run, environmentId));
  checkFilters(environmentIds, run.settings.clusterIds, discoveries);
  if (environmentIds.length > 0 && discoveries.every((discovery) => discovery.status === 'unreadable')) {
    throw new ExtractionError(`no environment could be read: ${run.warnings[0] ?? 'no answer from the platform'}`);
  }
  const environments: ExtractedEnvironment[] = [];
  for (const discovery of discoveries) {
    if (discovery.status === 'found') environments.push(await extractEnvironment(run, discovery.environment));
  }
  linkMirrorTopics(run, environments);
  const metrics = options.enableMetrics ? await extractMetrics(run, environments) : null;
  return finish(run, metrics);
}

/**
 * Refuses filters that match nothing, before anything is extracted, so that a typo never records an
 * empty scope: an environment the platform says does not exist, or a `--cluster` id that is in none
 * of the requested environments (checked only when every environment could be read).
 * @throws ValidationError naming the values that match nothing.
 */
function checkFilters(
  environmentIds: readonly string[],
  clusterIds: readonly string[],
  discoveries: readonly EnvironmentDiscovery[],
): void {
  const unknown = environmentIds.filter((_, index) => discoveries[index]?.status === 'unknown');
  if (unknown.length > 0) {
    throw new ValidationError(
      `${unknown.map((id) => `--env ${id}`).join(', ')} matches no environment the cloud key can see ` +
        '(the platform answered 404): check the environment id (env-...)',
    );
  }
  if (clusterIds.length === 0 || discoveries.some((discovery) => discovery.status === 'unreadable')) return;
  const existing = new Set(discoveries.flatMap((discovery) => ('clusterIds' in discovery ? discovery.clusterIds : [])));
  const missing = clusterIds.filter((id) => !existing.has(id));
  if (missing.length > 0) {
    throw new ValidationError(
      `${missing.map((id) => `--cluster ${id}`).join(', ')} matches no Kafka cluster of ${environmentIds.join(', ')}` +
        ` (they have ${[...existing].sort().join(', ') || 'none'})`,
    );
  }
}

/** Phases 1-4 on one discovered environment, in order; what they found about it. */
async function extractEnvironment(
  run: ExtractionRun,
  discovered: DiscoveredEnvironment,
): Promise<ExtractedEnvironment> {
  const withTopics = { ...discovered, ...(await extractTopicInventory(run, discovered)) };
  const streamProcessing = await extractStreamProcessing(run, withTopics);
  await extractSchemasAndCatalog(run, withTopics);
  await extractTableflow(run, discovered);
  // The phase 2 object itself (not a copy): a Flink extractor that timed out may still record its compute pools.
  return Object.assign(streamProcessing, withTopics);
}

/** Builds the graph (its merge warnings join the run's), counts it, reports `Done` and the requests made since the run began. */
function finish(run: ExtractionRun, metrics: MetricSamples | null): ExtractionResult {
  const { graph, warnings: buildWarnings } = run.builder.build();
  for (const warning of buildWarnings) run.warn(warning);
  const counts = countGraph(graph);
  // No counts here: the summary gives them once, after the catalogs' enrichment has added its nodes.
  run.progress(6, 'Done', 'the platform is read');
  const after = run.platform.requestCounts();
  const requests: Record<string, number> = {};
  for (const [api, count] of Object.entries(after)) {
    const delta = count - (run.requestsBefore[api] ?? 0);
    if (delta > 0) requests[api] = delta;
  }
  return {
    graph,
    warnings: run.warnings,
    requests,
    durationMs: performance.now() - run.startedAt,
    counts,
    metrics,
    incompleteScopes: run.incompleteScopes,
  };
}
