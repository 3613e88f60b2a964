/**
 * Recording an extraction in the event store: `ExtractionStarted` in `extraction-{id}`, the graph
 * recorded with `recordGraph` (mode `replace`, scoped to the extracted environments and, when given,
 * clusters, so that nodes of other environments stay; edges owned by the node that reports them;
 * references to other scopes resolved against the stored graph: `src/extraction/scopes.ts`), then
 * `ExtractionCompleted` with counts, changes, warnings, requests and duration, or `ExtractionFailed`
 * when extraction throws. Scopes the extraction did not read completely keep their stored state
 * (`./completeness.ts`) and are listed on `ExtractionCompleted` (`incomplete_scopes`), so that history
 * says "cluster X was not read" instead of "cluster X's topics vanished". Only the difference
 * against the stored graph is appended: a
 * re-extraction that finds nothing new appends no node or edge event. With metrics, the samples are appended to `metrics-{graph_id}` in one append
 * (`recordMetricSamples`, same correlation id), after the graph and before `ExtractionCompleted`: they
 * never count as graph changes.
 */
import { randomUUID } from 'node:crypto';
import type { AppendResult, EventStore } from '../eventStore.js';
import { streams, toAppend, type EventContext, type LineageEvent } from '../events.js';
import { countChanges, type GraphReader, type Resolution } from '../graph/changes.js';
import type { LineageGraph } from '../graph/model.js';
import {
  DEFAULT_GRAPH_NAME,
  graphIdForName,
  recordGraph,
  type GraphCommandDeps,
  type RecordResult,
} from '../graphCommands.js';
import { keepIncompleteScopes } from './completeness.js';
import { countGraph, type ExtractionResult } from './extract.js';
import type { MetricSamples } from './metrics.js';
import { extractionScope, ownsEdge, resolveAgainstStored } from './scopes.js';

export { extractionScope } from './scopes.js';

/** Most samples in one `MetricsSampled` event (as node changes: at most 1,000 per event). */
export const SAMPLES_PER_EVENT = 1_000;

/**
 * Appends metric samples of graph `graphId` to `metrics-{graph_id}` as `MetricsSampled` events of at
 * most `SAMPLES_PER_EVENT` samples each, all in one append (atomic; no expected revision: samples of
 * different runs never conflict). Nothing is appended when there is no sample.
 * @returns the append's result, or null when nothing was appended.
 * @throws ValidationError when a sample is invalid (a metric name without the `metrics_` prefix).
 */
export async function recordMetricSamples(
  store: EventStore,
  graphId: string,
  samples: MetricSamples | null,
  context: EventContext,
): Promise<AppendResult | null> {
  if (!samples || samples.samples.length === 0) return null;
  const events: LineageEvent[] = [];
  for (let at = 0; at < samples.samples.length; at += SAMPLES_PER_EVENT) {
    events.push({
      type: 'MetricsSampled',
      data: {
        graph_id: graphId,
        window_start: samples.window_start,
        window_end: samples.window_end,
        samples: samples.samples.slice(at, at + SAMPLES_PER_EVENT),
      },
    });
  }
  return store.append(streams.metrics(graphId), toAppend(events, context));
}

/** What recording needs: the store and the graph commands' dependencies (`openRuntime(...)` gives both). */
export interface RecordDeps {
  store: EventStore;
  commands: GraphCommandDeps;
}

/** What is being extracted, for the events and the replace scope. */
export interface RecordOptions {
  environmentIds: readonly string[];
  clusterIds?: readonly string[];
  enableMetrics: boolean;
  /** Graph name; default `DEFAULT_GRAPH_NAME`. */
  graphName?: string;
  /** Extraction id; default a fresh UUID. */
  extractionId?: string;
  /** Who asked: `cli`, `api`, `watcher`...; default `cli`. */
  actor?: string;
}

/** The outcome of a recorded extraction. */
export interface RecordedExtraction {
  extractionId: string;
  graphId: string;
  /**
   * The extraction's result, its `graph` and `counts` those of the graph as recorded: resolved against
   * the stored graph (`src/extraction/scopes.ts`), so it may name stored nodes of other scopes that its
   * edges reach (e.g. the source topic of a mirror in an environment not extracted this time).
   */
  result: ExtractionResult;
  record: RecordResult;
}

/**
 * Runs `run` (an extraction) between `ExtractionStarted` and `ExtractionCompleted`/`ExtractionFailed`
 * and records its graph.
 * @throws whatever `run` or the store throws, after appending `ExtractionFailed` when possible.
 */
export async function recordExtraction(
  deps: RecordDeps,
  options: RecordOptions,
  run: () => Promise<ExtractionResult>,
): Promise<RecordedExtraction> {
  const extractionId = options.extractionId ?? randomUUID();
  const graphName = options.graphName ?? DEFAULT_GRAPH_NAME;
  const graphId = graphIdForName(graphName);
  const context: EventContext = { correlation_id: extractionId, cause: 'extraction', actor: options.actor ?? 'cli' };
  const stream = streams.extraction(extractionId);
  const append = (event: LineageEvent) => deps.store.append(stream, toAppend([event], context));
  const started = performance.now();
  await append({
    type: 'ExtractionStarted',
    data: {
      extraction_id: extractionId,
      graph_id: graphId,
      environment_ids: [...options.environmentIds],
      cluster_ids: [...(options.clusterIds ?? [])],
      enable_metrics: options.enableMetrics,
    },
  });
  let result: ExtractionResult | undefined;
  try {
    result = await run();
    const scope = extractionScope(options.environmentIds, options.clusterIds);
    const resolve = resolveAgainstStored(scope);
    const incompleteScopes = result.incompleteScopes;
    let resolved: LineageGraph = result.graph;
    const record = await recordGraph(
      deps.commands,
      graphId,
      result.graph,
      {
        mode: 'replace',
        scope,
        ownsEdge: ownsEdge(scope),
        // Decided against the state the change is appended on (again after a conflict): keep the last one.
        resolve: (current: GraphReader, next: LineageGraph): Resolution => {
          const resolution = resolve(current, next);
          // Scopes not read completely keep their stored state (src/extraction/completeness.ts).
          resolved = keepIncompleteScopes(current, resolution.graph, incompleteScopes).graph;
          return { ...resolution, graph: resolved };
        },
        createIfMissing: true,
        name: graphName,
      },
      context,
    );
    result = { ...result, graph: resolved, counts: countGraph(resolved) };
    const sampled = await recordMetricSamples(deps.store, graphId, result.metrics, context);
    if (sampled) await deps.commands.state.waitFor(sampled.position);
    await append({
      type: 'ExtractionCompleted',
      data: {
        extraction_id: extractionId,
        graph_id: graphId,
        node_count: result.counts.nodes,
        edge_count: result.counts.edges,
        changes: countChanges(record.changes),
        graph_revision: record.revision,
        warnings: result.warnings,
        requests: result.requests,
        duration_ms: result.durationMs,
        incomplete_scopes: incompleteScopes,
      },
    });
    return { extractionId, graphId, result, record };
  } catch (error) {
    await append({
      type: 'ExtractionFailed',
      data: {
        extraction_id: extractionId,
        graph_id: graphId,
        error: error instanceof Error ? error.message : String(error),
        warnings: result?.warnings ?? [],
        duration_ms: performance.now() - started,
      },
    }).catch(() => undefined);
    throw error;
  }
}
