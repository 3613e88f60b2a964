/**
 * What the push routes call (specification "Endpoints / Tasks and push"): picks the graph (the one
 * named, else the most recently changed one), and runs one catalog provider's push over it
 * synchronously (`../catalogs/catalogService.ts`).
 *
 * Errors: `NotFoundError` (404) for an unknown graph or when there is no graph at all;
 * `UnconfiguredProviderError` (400) when the provider lacks its variables (the message names them)
 * or is not implemented. Catalog-side failures do not throw: they are in the result's `errors` and
 * `skipped`.
 */
import type { PushOptions, PushResult } from '../src/catalogs/provider.js';
import type { Config } from '../src/config.js';
import type { CatalogType } from '../src/graph/model.js';
import type { Logger } from '../src/logger.js';
import { toLineageGraph } from '../projections/graphProjection.js';
import { pushToCatalog, type CatalogClientOptions } from '../infra/catalogs/catalogService.js';
import { defaultGraph, readGraph, type GraphRuntime } from './graphs.js';

/** The answer of a push: which catalog and graph, and the PushResult fields. */
export interface PushAnswer extends PushResult {
  catalog_type: CatalogType;
  graph_id: string;
}

/** Pushes a graph (by default the most recently changed one) to one catalog. */
export async function pushGraph(
  deps: {
    runtime: GraphRuntime;
    config: Config;
    logger?: Logger | undefined;
    clientOptions?: CatalogClientOptions | undefined;
  },
  input: { catalogType: CatalogType; graphId?: string | null | undefined; options: PushOptions },
): Promise<PushAnswer> {
  const state = input.graphId ? await readGraph(deps.runtime, input.graphId) : defaultGraph(deps.runtime);
  const result = await pushToCatalog(toLineageGraph(state), input.catalogType, input.options, deps.config, {
    ...deps.clientOptions,
    logger: deps.logger,
  });
  return { catalog_type: input.catalogType, graph_id: state.graphId, ...result };
}
