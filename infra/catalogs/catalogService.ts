/**
 * Binds the catalog providers of `src/catalogs/registry.ts` to their HTTP clients, for the API
 * (push routes, the enrichment task) and the commands (`lineage-svc-extract` enrichment and
 * `--push-lineage`).
 *
 * - `enrichCatalogs(graph, config)`: runs every configured provider's enrichment and applies the
 *   results (`applyEnrichment`); unconfigured providers are left out silently; the caller records
 *   the returned graph (`recordGraph` mode `merge`).
 * - `pushToCatalog(graph, catalogType, options, config)`: one provider's push.
 *   @throws UnconfiguredProviderError (HTTP 400) naming the variables to set, or when the provider
 *   is not implemented yet.
 *
 * Adding a provider: add its factory to `PORT_FACTORIES` (its client in `infra/catalogs/`).
 */
import {
  applyEnrichment,
  type EnrichmentResult,
  type PushOptions,
  type PushResult,
} from '../../src/catalogs/provider.js';
import { CATALOG_REGISTRY, catalogEntry, type CatalogRegistryEntry } from '../../src/catalogs/registry.js';
import type { Config } from '../../src/config.js';
import { LineageError } from '../../src/errors.js';
import type { CatalogType, LineageGraph } from '../../src/graph/model.js';
import type { Logger } from '../../src/logger.js';
import { createDatabricksClient, type DatabricksClientOptions } from './databricksClient.js';
import { createGlueClient, type GlueClientOptions } from './glueClient.js';
import { createGoogleClient, type GoogleClientOptions } from './googleClient.js';

/** Client options tests may shorten (retry delays, timeouts, polling). */
export type CatalogClientOptions = Partial<Omit<DatabricksClientOptions, 'workspaceUrl' | 'token'>> & {
  /** Datalake (Glue) client overrides: endpoint, static credentials, attempts, timeout. */
  glue?: Partial<Omit<GlueClientOptions, 'region' | 'logger'>> | undefined;
  /** Warehouse (Google) client overrides: token provider (ADC stand-in), retry delays, timeout, fetch. */
  google?: Partial<Omit<GoogleClientOptions, 'projectId' | 'location' | 'logger'>> | undefined;
};

/** A provider that cannot run: not configured, or not implemented yet (HTTP 400). */
export class UnconfiguredProviderError extends LineageError {
  constructor(message: string) {
    super(message, 'CATALOG_PROVIDER_UNCONFIGURED', 400);
  }
}

/** The deps a provider's enrich and push get, built from the configuration. */
type DepsFactory = (
  config: Config,
  options: CatalogClientOptions & { logger?: Logger | undefined },
) => Record<string, unknown> & { port: unknown };

/** Port factories of the implemented providers, by catalog type. */
const PORT_FACTORIES: Partial<Record<CatalogType, DepsFactory>> = {
  LAKEHOUSE_CATALOG: (config, options) => ({
    port: createDatabricksClient({
      ...options,
      workspaceUrl: config.lakehouse.workspaceUrl!,
      token: config.lakehouse.token!,
    }),
    warehouseId: config.lakehouse.warehouseId,
  }),
  DATALAKE_CATALOG: (config, options) => ({
    port: createGlueClient({ ...options.glue, region: config.datalake.region!, logger: options.logger }),
  }),
  WAREHOUSE_LINEAGE: (config, options) => ({
    port: createGoogleClient({
      timeoutMs: options.timeoutMs,
      retryBaseDelayMs: options.retryBaseDelayMs,
      maxRetryAfterMs: options.maxRetryAfterMs,
      bigQueryApiUrl: config.warehouse.bigQueryApiUrl,
      lineageApiUrl: config.warehouse.lineageApiUrl,
      dataplexApiUrl: config.warehouse.dataplexApiUrl,
      accessToken: config.warehouse.accessToken,
      ...options.google,
      projectId: config.warehouse.projectId!,
      location: config.warehouse.location!,
      logger: options.logger,
    }),
  }),
};

/** Why a provider cannot run now, or undefined when it can. */
export function unavailableReason(entry: CatalogRegistryEntry, config: Config): string | undefined {
  if (!entry.provider || !PORT_FACTORIES[entry.catalogType])
    return `the ${entry.shortName} provider (${entry.catalogType}) is not implemented in this release`;
  const missing = entry.missingSettings(config);
  if (missing.length > 0)
    return `the ${entry.shortName} provider (${entry.catalogType}) is not configured: set ${missing.join(' and ')}`;
  return undefined;
}

/** What `enrichCatalogs` did. */
export interface CatalogEnrichmentOutcome {
  graph: LineageGraph;
  results: EnrichmentResult[];
  warnings: string[];
  /** Catalog types that ran. */
  ran: CatalogType[];
}

/** Runs every configured, implemented provider's enrichment over `graph` and applies the results. */
export async function enrichCatalogs(
  graph: LineageGraph,
  config: Config,
  options: CatalogClientOptions & { logger?: Logger | undefined } = {},
): Promise<CatalogEnrichmentOutcome> {
  let current = graph;
  const results: EnrichmentResult[] = [];
  const ran: CatalogType[] = [];
  for (const entry of CATALOG_REGISTRY) {
    if (unavailableReason(entry, config) !== undefined) continue;
    const deps = PORT_FACTORIES[entry.catalogType]!(config, options);
    const result = await entry.provider!.enrich(current, deps);
    current = applyEnrichment(current, result);
    results.push(result);
    ran.push(entry.catalogType);
  }
  return { graph: current, results, warnings: results.flatMap((result) => result.warnings), ran };
}

/**
 * Pushes `graph` to one catalog.
 * @throws UnconfiguredProviderError when the provider is not configured or not implemented.
 */
export async function pushToCatalog(
  graph: LineageGraph,
  catalogType: CatalogType,
  options: PushOptions,
  config: Config,
  clientOptions: CatalogClientOptions & { logger?: Logger | undefined } = {},
): Promise<PushResult> {
  const entry = catalogEntry(catalogType);
  const reason = unavailableReason(entry, config);
  if (reason !== undefined) throw new UnconfiguredProviderError(reason);
  return entry.provider!.push(graph, options, PORT_FACTORIES[catalogType]!(config, clientOptions));
}
