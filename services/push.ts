/**
 * The catalog push use cases (specification "Endpoints / Tasks and push" and "Catalog
 * integrations"), for the push routes, `lineage-svc-extract --push-lineage` and the watchers'
 * pushes after each extraction.
 *
 * - `pushGraph`: one stored graph (the one named, else the most recently changed one) to one catalog.
 * - `pushLineageGraph`: a graph value to one catalog (the command's `--push-lineage` after extraction).
 * - `catalogPushers`: the pushes a watcher can run after an extraction, one per available catalog.
 *
 * Errors: `NotFoundError` (404) for an unknown graph or when there is no graph at all;
 * `UnconfiguredProviderError` (400) when the provider lacks its variables (the message names them)
 * or is not implemented. Catalog-side failures do not throw: they are in the result's `errors` and
 * `skipped`.
 */
import { DEFAULT_PUSH_OPTIONS, type PushOptions, type PushResult } from '../src/catalogs/provider.js';
import type { CatalogType, LineageGraph } from '../src/graph/model.js';
import type { ExtractionSummary } from '../src/watcher/watcher.js';
import { toLineageGraph } from '../projections/graphProjection.js';
import type { ServiceContext } from './context.js';
import { defaultGraph, readGraph } from './graphs.js';

/** The answer of a push: which catalog and graph, and the PushResult fields. */
export interface PushAnswer extends PushResult {
  catalog_type: CatalogType;
  graph_id: string;
}

/** What to push. */
export interface PushRequest {
  catalogType: CatalogType;
  /** The graph; absent or null: the most recently changed graph. */
  graphId?: string | null | undefined;
  options: PushOptions;
}

/** Pushes a stored graph to one catalog, synchronously. */
export async function pushGraph(
  context: Pick<ServiceContext, 'runtime' | 'catalogs'>,
  request: PushRequest,
): Promise<PushAnswer> {
  const state = request.graphId ? await readGraph(context.runtime, request.graphId) : defaultGraph(context.runtime);
  const result = await context.catalogs.push(toLineageGraph(state), request.catalogType, request.options);
  return { catalog_type: request.catalogType, graph_id: state.graphId, ...result };
}

/** Pushes a graph value to one catalog with the default switches. */
export function pushLineageGraph(
  context: Pick<ServiceContext, 'catalogs'>,
  graph: LineageGraph,
  catalogType: CatalogType,
): Promise<PushResult> {
  return context.catalogs.push(graph, catalogType, DEFAULT_PUSH_OPTIONS);
}

/** A push to one catalog after a watcher's extraction; throws when the catalog reported errors. */
export type CatalogPush = (extraction: ExtractionSummary) => Promise<void>;

/**
 * The pushes a watcher can run, by catalog type: one per available provider, each pushing the graph
 * the extraction wrote to with the default switches (`DEFAULT_PUSH_OPTIONS`). Each throws when the
 * catalog reported errors, so that the watcher logs them.
 */
export function catalogPushers(context: Pick<ServiceContext, 'runtime' | 'catalogs'>): Record<string, CatalogPush> {
  const pushers: Record<string, CatalogPush> = {};
  for (const catalogType of context.catalogs.available()) {
    pushers[catalogType] = async (extraction) => {
      const result = await pushGraph(context, {
        catalogType,
        graphId: extraction.graphId,
        options: DEFAULT_PUSH_OPTIONS,
      });
      if (result.errors.length > 0) throw new Error(`${result.errors.length} error(s), the first: ${result.errors[0]}`);
    };
  }
  return pushers;
}
