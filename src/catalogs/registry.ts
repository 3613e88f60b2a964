/**
 * The registry of catalog providers: one entry per `catalog_type` (`docs/contract.md` section 2), each with
 * the facts `GET /api/v1/catalogs` lists and, once implemented, the provider itself.
 *
 * Implemented: the lakehouse (`LAKEHOUSE_CATALOG`), the datalake (`DATALAKE_CATALOG`, AWS Glue,
 * `./datalake.ts`), the warehouse (`WAREHOUSE_LINEAGE`, BigQuery + Data Lineage, `./warehouse/`) and
 * the data governance (`DATA_GOVERNANCE`, AWS DataZone, push only, `./dataGovernance.ts`). An entry
 * whose `provider` is undefined would be listed with empty capabilities; to add a provider, set
 * `provider` here to a `CatalogProvider` (see `./provider.ts`) and add its port factory in
 * `infra/catalogs/catalogService.ts`.
 */
import { CATALOG_TYPES, type CatalogType } from '../graph/model.js';
import { datalakeProvider } from './datalake.js';
import { lakehouseProvider } from './lakehouse.js';
import { dataGovernanceProvider } from './dataGovernance.js';
import { type CatalogProvider, type CatalogProviderInfo } from './provider.js';
import { warehouseProvider } from './warehouse/index.js';

/** One registry entry. */
export interface CatalogRegistryEntry extends CatalogProviderInfo {
  /** The implementation; undefined while the provider is only planned. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  provider: CatalogProvider<any> | undefined;
}

/** Every catalog type, in `CATALOG_TYPES` order. */
export const CATALOG_REGISTRY: readonly CatalogRegistryEntry[] = [
  { ...lakehouseProvider, provider: lakehouseProvider },
  { ...datalakeProvider, provider: datalakeProvider },
  { ...warehouseProvider, provider: warehouseProvider },
  { ...dataGovernanceProvider, provider: dataGovernanceProvider },
];

/** Accepted spellings of a provider name: the catalog type or the short name, any case, `-` or `_`. */
export function findCatalogEntry(name: string): CatalogRegistryEntry | undefined {
  const wanted = name.trim().toLowerCase().replaceAll('-', '_');
  return CATALOG_REGISTRY.find((entry) => entry.catalogType.toLowerCase() === wanted || entry.shortName === wanted);
}

/** The entry of a catalog type. */
export function catalogEntry(catalogType: CatalogType): CatalogRegistryEntry {
  return CATALOG_REGISTRY.find((entry) => entry.catalogType === catalogType)!;
}

/** Every name `POST /push/{provider}` accepts (catalog types and short names). */
export const PROVIDER_NAMES: readonly string[] = [
  ...CATALOG_TYPES,
  ...CATALOG_REGISTRY.map((entry) => entry.shortName),
];
