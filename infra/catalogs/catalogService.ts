/**
 * Binds the catalog providers of `src/catalogs/registry.ts` to their HTTP clients, for the API
 * (push routes, the enrichment task) and the commands (`lineage-svc-extract` enrichment and
 * `--push-lineage`).
 *
 * - `createCatalogGateway(config)`: the `CatalogGateway` of `services/context.ts`: which providers
 *   are available, every available provider's enrichment (providers with tables only: the data
 *   governance provider is push only; applied with `applyEnrichment`; the caller records the
 *   returned graph), and one provider's push. The gateway gives the event providers (warehouse,
 *   data governance) a `PushLedger` (`./pushLedger.ts`: a file next to a `file` or `sqlite` store,
 *   else in memory; one key space per catalog type), so that a second push of unchanged lineage
 *   sends nothing and reports `unchanged`.
 * - `pushToCatalog(graph, catalogType, options, config)`: one provider's push.
 *   @throws UnconfiguredProviderError (HTTP 400) naming the variables to set, or when the provider
 *   is not implemented yet.
 *
 * Adding a provider: add its factory to `PORT_FACTORIES` (its client in `infra/catalogs/`).
 */
import {
  applyEnrichment,
  enrichmentItemResults,
  type EnrichmentResult,
  type PushLedger,
  type PushOptions,
  type PushResult,
} from '../../src/catalogs/provider.js';
import { CATALOG_REGISTRY, catalogEntry, type CatalogRegistryEntry } from '../../src/catalogs/registry.js';
import type { Config } from '../../src/config.js';
import { LineageError } from '../../src/errors.js';
import type { CatalogType, LineageGraph } from '../../src/graph/model.js';
import type { Logger } from '../../src/logger.js';
import type { CatalogGateway } from '../../services/context.js';
import { createDatabricksClient, type DatabricksClientOptions } from './databricksClient.js';
import { createDataZoneClient, type DataZoneClientOptions } from './dataZoneClient.js';
import { createGlueClient, type GlueClientOptions } from './glueClient.js';
import { createGoogleClient, type GoogleClientOptions } from './googleClient.js';
import { prefixedLedger, pushLedgerFor } from './pushLedger.js';

/** Client options tests may shorten (retry delays, timeouts, polling). */
export type CatalogClientOptions = Partial<Omit<DatabricksClientOptions, 'workspaceUrl' | 'token'>> & {
  /** Datalake (Glue) client overrides: endpoint, static credentials, attempts, timeout. */
  glue?: Partial<Omit<GlueClientOptions, 'region' | 'logger'>> | undefined;
  /** Warehouse (Google) client overrides: token provider (ADC stand-in), retry delays, timeout, fetch. */
  google?: Partial<Omit<GoogleClientOptions, 'projectId' | 'location' | 'logger'>> | undefined;
  /** Data governance (DataZone) client overrides: endpoint, region, static credentials, attempts, timeout. */
  dataZone?: Partial<Omit<DataZoneClientOptions, 'domainId' | 'logger'>> | undefined;
  /** Environment the DataZone region is read from (`AWS_REGION`); default `process.env`. */
  env?: Record<string, string | undefined> | undefined;
  /** The record of pushed lineage events; default `pushLedgerFor(config)` (`./pushLedger.ts`). */
  ledger?: PushLedger | undefined;
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
  DATA_GOVERNANCE: (config, options) => ({
    port: createDataZoneClient({
      region: (options.env ?? process.env).AWS_REGION || config.datalake.region,
      ...options.dataZone,
      domainId: config.dataGovernance.domainId!,
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

/**
 * The catalog gateway of a process (`services/context.ts`): every provider of the registry bound to
 * its client, built from the configuration on each call so that a test may change either.
 */
export function createCatalogGateway(
  config: Config,
  clientOptions: CatalogClientOptions & { logger?: Logger | undefined } = {},
): CatalogGateway {
  const reason = (catalogType: CatalogType) => unavailableReason(catalogEntry(catalogType), config);
  // What was pushed to the catalogs that keep no readable copy (lineage events): next to the store on disk, else in memory.
  let ledger: PushLedger | undefined;
  const ledgerOf = (catalogType: CatalogType) =>
    prefixedLedger((ledger ??= clientOptions.ledger ?? pushLedgerFor(config)), catalogType);
  const available = () =>
    CATALOG_REGISTRY.filter((entry) => unavailableReason(entry, config) === undefined).map(
      (entry) => entry.catalogType,
    );
  return {
    available,
    unavailableReason: reason,
    async enrich(graph, only) {
      let current = graph;
      const results: EnrichmentResult[] = [];
      const ran = available().filter(
        (catalogType) =>
          catalogEntry(catalogType).system !== null && (only === undefined || only.includes(catalogType)),
      );
      for (const catalogType of ran) {
        const result = await catalogEntry(catalogType).provider!.enrich(
          current,
          PORT_FACTORIES[catalogType]!(config, clientOptions),
        );
        result.results = enrichmentItemResults(current, result);
        current = applyEnrichment(current, result);
        results.push(result);
      }
      return { graph: current, results, warnings: results.flatMap((result) => result.warnings), ran };
    },
    async push(graph, catalogType, options) {
      const why = reason(catalogType);
      if (why !== undefined) throw new UnconfiguredProviderError(why);
      return catalogEntry(catalogType).provider!.push(graph, options, {
        ...PORT_FACTORIES[catalogType]!(config, clientOptions),
        ledger: ledgerOf(catalogType),
      });
    },
  };
}

/**
 * Pushes `graph` to one catalog (the gateway's `push`, for callers without a gateway).
 * @throws UnconfiguredProviderError when the provider is not configured or not implemented.
 */
export function pushToCatalog(
  graph: LineageGraph,
  catalogType: CatalogType,
  options: PushOptions,
  config: Config,
  clientOptions: CatalogClientOptions & { logger?: Logger | undefined } = {},
): Promise<PushResult> {
  return createCatalogGateway(config, clientOptions).push(graph, catalogType, options);
}
