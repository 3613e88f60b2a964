/**
 * The run context of one extraction: what every phase of `extract()` (`src/extraction/phases/`)
 * shares — the platform port, the graph builder the fragments go into, the warnings, the clock, the
 * resolved options — and what the phases learn about each environment on the way
 * (`docs/extraction.md`, "Phases").
 *
 * Progress is a stream of values (`ExtractionProgress`, `src/extraction/extract.ts`): one per step,
 * each with the count of numbered phases that run (4, or 5 with metrics), the requests made and the
 * warnings given so far. The phases only report; the commands render (`commands/progress.ts`).
 *
 * Every extractor runs through `guarded`: under the per-extractor timeout (120 s by default), a
 * failure or a timeout becomes one warning and the extractor's fallback (partial success).
 */
import type { Logger } from '../logger.js';
import type { ClusterLinkingInventory } from './clusterLinks.js';
import { incompleteScope, type IncompleteScope, type IncompleteScopeInput } from './completeness.js';
import type { ClusterInfo } from './environments.js';
import type { ExtractDeps, ExtractionProgress, ExtractOptions } from './extract.js';
import { failureWarning } from './failures.js';
import { GraphBuilder } from './graphBuilder.js';
import type { ComputePoolBody } from './platformTypes.js';
import type { PlatformPort } from './port.js';
import { parsedStatementLineage, type StatementLineageResolver } from './streamProcessing.js';

/** The options of `extract` with their defaults applied. */
export interface ExtractionSettings {
  /** Cluster filter; empty: every cluster. */
  clusterIds: readonly string[];
  /** Per-extractor timeout in milliseconds; default 120,000. */
  extractorTimeoutMs: number;
  /** Metrics window in hours; default 1. */
  metricsLookbackHours: number;
  /** Finds the topics of Flink statements; default `parsedStatementLineage`. */
  statementLineage: StatementLineageResolver;
  /** Schema Registry / Stream Catalog base URL override; when set, `srcm.clusters` is not asked. */
  schemaRegistryUrl: string | undefined;
  /** Flink SQL base URL override; when set, `fcpm.regions` is not asked. */
  flinkApiUrl: string | undefined;
  /** Region of data-lake catalog tables; default the cluster's region. */
  datalakeRegion: string | undefined;
  /** Project of BigQuery sink tables whose connector names none (`LINEAGE_SVC_WAREHOUSE_PROJECT_ID`). */
  warehouseProjectId: string | undefined;
}

/** What one extraction shares between its phases. Created by `createExtractionRun`. */
export interface ExtractionRun {
  readonly platform: PlatformPort;
  readonly logger: Logger;
  /** Where every phase adds its fragments and enrichments; built once, at the end. */
  readonly builder: GraphBuilder;
  /** The warnings so far, in the order they were given (add them with `warn`); `extract` returns this array. */
  readonly warnings: string[];
  /** The clock (metrics windows, the consumer lag query). */
  readonly now: () => Date;
  readonly settings: ExtractionSettings;
  /** `performance.now()` when the run was created, in milliseconds. */
  readonly startedAt: number;
  /** `platform.requestCounts()` when the run was created: the result reports only this run's requests. */
  readonly requestsBefore: Readonly<Record<string, number>>;
  /**
   * The scopes not read completely so far (`src/extraction/completeness.ts`): their stored state is
   * kept when the extraction is recorded. `extract` returns this array.
   */
  readonly incompleteScopes: IncompleteScope[];
  /** Adds a warning and logs it (`Extraction:Warning`). */
  warn(message: string): void;
  /** Reports a scope that was not read completely (once per kind and ids; the first reason is kept). */
  incomplete(scope: IncompleteScopeInput): void;
  /**
   * Logs `{label}: {message}` and reports it to `onProgress` with the counts so far (phase 0
   * discovery, 1-5 the numbered phases, 6 done). The label of a numbered phase is `Phase {n}/{N}`,
   * N the count of numbered phases this run goes through (`phaseLabel`), whatever `label` says.
   */
  progress(phase: number, label: string, message: string): void;
  /**
   * Runs one extractor under the per-extractor timeout. On failure, warns with `failureWarning(label,
   * error, environmentId)` and resolves to `fallback`; on timeout, warns `{label}: did not finish
   * within {s} s; its results are left out` and resolves to `fallback` (the extractor is not
   * cancelled). Either way, each of `scopes` is reported incomplete with the warning as its reason.
   * Never rejects.
   */
  guarded<T>(
    label: string,
    environmentId: string | undefined,
    extractor: () => Promise<T>,
    fallback: T,
    scopes?: readonly Omit<IncompleteScopeInput, 'reason'>[],
  ): Promise<T>;
}

class ExtractorTimeout extends Error {}

/** The numbered phases a run goes through: 1-4, and 5 (metrics) with `enableMetrics`. */
export function phaseCount(options: Pick<ExtractOptions, 'enableMetrics'>): number {
  return options.enableMetrics ? 5 : 4;
}

/** `Phase {phase}/{phases}` for a numbered phase (1-5); `label` for discovery (0) and done (6). */
export function phaseLabel(phase: number, phases: number, label: string): string {
  return phase >= 1 && phase <= 5 ? `Phase ${phase}/${phases}` : label;
}

/** The requests of a run so far: `after` minus `before`, summed over every API. */
function requestsSince(before: Readonly<Record<string, number>>, after: Readonly<Record<string, number>>): number {
  let total = 0;
  for (const [api, count] of Object.entries(after)) total += count - (before[api] ?? 0);
  return total;
}

/** The context of a new extraction: an empty graph builder, no warnings, the options' defaults applied. */
export function createExtractionRun(deps: ExtractDeps, options: ExtractOptions): ExtractionRun {
  const { platform, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const startedAt = performance.now();
  const requestsBefore = platform.requestCounts();
  const settings: ExtractionSettings = {
    clusterIds: options.clusterIds ?? [],
    extractorTimeoutMs: options.extractorTimeoutMs ?? 120_000,
    metricsLookbackHours: options.metricsLookbackHours ?? 1,
    statementLineage: options.statementLineage ?? parsedStatementLineage,
    schemaRegistryUrl: options.schemaRegistryUrl,
    flinkApiUrl: options.flinkApiUrl,
    datalakeRegion: options.datalakeRegion,
    warehouseProjectId: options.warehouseProjectId,
  };
  const warnings: string[] = [];
  const warn = (message: string): void => {
    warnings.push(message);
    logger.warn({ warning: message }, 'Extraction:Warning');
  };
  const incompleteScopes: IncompleteScope[] = [];
  const incomplete = (input: IncompleteScopeInput): void => {
    const scope = incompleteScope(input);
    const same = (other: IncompleteScope) =>
      other.kind === scope.kind &&
      other.environment_id === scope.environment_id &&
      other.cluster_id === scope.cluster_id &&
      other.resource_id === scope.resource_id &&
      other.node_id === scope.node_id;
    if (!incompleteScopes.some(same)) incompleteScopes.push(scope);
  };
  const phases = phaseCount(options);
  const progress = (phase: number, label: string, message: string): void => {
    const shown = phaseLabel(phase, phases, label);
    logger.info({ phase }, `${shown}: ${message}`);
    if (!options.onProgress) return;
    const requests = requestsSince(requestsBefore, platform.requestCounts());
    const report: ExtractionProgress = { phase, label: shown, message, phases, requests, warnings: warnings.length };
    options.onProgress(report);
  };
  const guarded = async <T>(
    label: string,
    environmentId: string | undefined,
    extractor: () => Promise<T>,
    fallback: T,
    scopes: readonly Omit<IncompleteScopeInput, 'reason'>[] = [],
  ): Promise<T> => {
    const timeoutMs = settings.extractorTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        extractor(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new ExtractorTimeout()), timeoutMs);
        }),
      ]);
    } catch (error) {
      const reason =
        error instanceof ExtractorTimeout
          ? `${label}: did not finish within ${timeoutMs / 1000} s; its results are left out`
          : failureWarning(label, error, environmentId);
      warn(reason);
      for (const scope of scopes) incomplete({ ...scope, reason });
      return fallback;
    } finally {
      clearTimeout(timer);
    }
  };
  const builder = new GraphBuilder();
  return {
    platform,
    logger,
    builder,
    warnings,
    incompleteScopes,
    now,
    settings,
    startedAt,
    requestsBefore,
    warn,
    incomplete,
    progress,
    guarded,
  };
}

// ---------------------------------------------------------------------------------------------
// What the phases learn about an environment.

/** An environment as discovery found it (phase 0): its name and its clusters after the cluster filter. */
export interface DiscoveredEnvironment {
  environmentId: string;
  /** `display_name` of `org.environment`; null when that call failed. */
  environmentName: string | null;
  /** Sorted by cluster id; never empty (an environment without clusters is not extracted). */
  clusters: ClusterInfo[];
  /**
   * Every cluster of the environment, before the `--cluster` filter, sorted by id (default `clusters`):
   * names that statements give to clusters not extracted still resolve to them.
   */
  allClusters?: ClusterInfo[];
}

/** The mirror topics and cluster links read on one destination cluster. */
export interface ClusterLinkingFound {
  cluster: ClusterInfo;
  inventory: ClusterLinkingInventory;
}

/** What phase 1 (topic inventory) found in an environment. */
export interface TopicInventory {
  /** Cluster id -> names of the topics listed there (clusters whose listing failed are absent). */
  topicsByCluster: Map<string, Set<string>>;
  /** The clusters with mirror topics; their TRANSFORMS edges are added after every environment. */
  clusterLinking: ClusterLinkingFound[];
}

/** What phase 2 (connectors, ksqlDB, Flink) found in an environment: the owners of consumer groups, and the compute pools. */
export interface StreamProcessingInventory {
  /** Connector id (`lcc-...`) -> connector node id. */
  connectorsByLccId: Map<string, string>;
  /** ksqlDB query consumer group id -> SQL_QUERY node id. */
  sqlQueriesByGroupId: Map<string, string>;
  /** Flink statement name -> STREAM_JOB node id. */
  statementsByName: Map<string, string>;
  /** The environment's Flink compute pools (metrics are queried per pool); empty when their listing failed. */
  computePools: ComputePoolBody[];
}

/** An environment after phases 1-4: what the steps after the last environment (Cluster Linking, metrics) read. */
export type ExtractedEnvironment = DiscoveredEnvironment & TopicInventory & StreamProcessingInventory;
