/**
 * What every use case in `services/` is given: the configuration, the runtime (store, projections,
 * graph commands), a logger, and the two outside systems behind ports, so that no service opens a
 * socket or a file of its own. The composition root (`infra/serviceContext.ts`) builds it for the
 * commands, the API and the watcher alike; tests build it with fakes.
 */
import type { EnrichmentResult, PushOptions, PushResult } from '../src/catalogs/provider.js';
import type { Config } from '../src/config.js';
import type { ExportFormat } from '../src/export/index.js';
import type { PlatformPort } from '../src/extraction/port.js';
import type { CatalogType, LineageGraph } from '../src/graph/model.js';
import type { Logger } from '../src/logger.js';
import type { LineageRuntime } from './runtime.js';

/** What a catalog enrichment did: the enriched graph, each provider's result, and which providers ran. */
export interface CatalogEnrichmentOutcome {
  graph: LineageGraph;
  results: EnrichmentResult[];
  warnings: string[];
  /** Catalog types whose enrichment ran, in registry order. */
  ran: CatalogType[];
}

/**
 * The catalog providers of this process, bound to their clients (specification, "Catalog
 * integrations"). Implemented in `infra/catalogs/catalogService.ts`.
 */
export interface CatalogGateway {
  /** Catalog types that are implemented and configured here, in registry order. */
  available(): CatalogType[];
  /** Why a catalog type cannot run (the message names the variables to set), or undefined when it can. */
  unavailableReason(catalogType: CatalogType): string | undefined;
  /**
   * Runs the enrichment of every available provider (or of the ones in `only`) over `graph`, each on
   * the graph the previous one returned. Catalog-side failures are warnings, never thrown.
   */
  enrich(graph: LineageGraph, only?: readonly CatalogType[]): Promise<CatalogEnrichmentOutcome>;
  /**
   * Pushes `graph` to one catalog. Catalog-side failures are in the result's `errors` and `skipped`.
   * @throws UnconfiguredProviderError (HTTP 400) when the provider is not configured or not implemented.
   */
  push(graph: LineageGraph, catalogType: CatalogType, options: PushOptions): Promise<PushResult>;
}

/**
 * Writes graph files: the JSON graph file (`docs/extraction.md`, "Graph") or an export format
 * (GraphML, GEXF, DOT, Mermaid). Implemented in `infra/graphFile.ts`, bound by `infra/serviceContext.ts`.
 */
export interface GraphFileWriter {
  /**
   * Writes `graph` to `path` in `format` (atomically: a temporary file renamed over it).
   * @throws Error when the file cannot be written (the message names the path).
   */
  write(path: string, graph: LineageGraph, format: ExportFormat): Promise<void>;
}

/** The dependencies of the use cases. */
export interface ServiceContext {
  config: Config;
  runtime: LineageRuntime;
  logger: Logger;
  /** A fresh platform client (its request counts start at zero), per extraction, poll loop or enrichment. */
  platform(): PlatformPort;
  catalogs: CatalogGateway;
  /** Where extractions write their graph file (`ExtractionRequest.output`). */
  graphFiles: GraphFileWriter;
}
