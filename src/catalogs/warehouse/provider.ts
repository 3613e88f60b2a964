/**
 * The warehouse provider as the catalog registry sees it (`src/catalogs/registry.ts`): catalog type
 * `WAREHOUSE_LINEAGE`, short name `warehouse`, the variables it reads (`docs/contract.md` section 3,
 * `docs/catalogs.md` "Warehouse"), and its enrichment and push.
 */
import type { Config } from '../../config.js';
import { missingOf, type CatalogProvider } from '../provider.js';
import { enrichWarehouse } from './enrichment.js';
import { pushWarehouse } from './lineagePush.js';
import type { WarehouseCatalogPort } from './port.js';

/** Variables the warehouse provider reads (`docs/contract.md` section 3). */
export const WAREHOUSE_SETTINGS = [
  'LINEAGE_SVC_WAREHOUSE_PROJECT_ID',
  'LINEAGE_SVC_WAREHOUSE_LOCATION',
  'LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN',
  'LINEAGE_SVC_WAREHOUSE_BIGQUERY_API_URL',
  'LINEAGE_SVC_WAREHOUSE_LINEAGE_API_URL',
  'LINEAGE_SVC_WAREHOUSE_DATAPLEX_API_URL',
] as const;

const required = (config: Config) => ({
  LINEAGE_SVC_WAREHOUSE_PROJECT_ID: config.warehouse.projectId,
  LINEAGE_SVC_WAREHOUSE_LOCATION: config.warehouse.location,
});

/** The warehouse provider (`WAREHOUSE_LINEAGE`, short name `warehouse`). */
export const warehouseProvider: CatalogProvider<WarehouseCatalogPort> = {
  catalogType: 'WAREHOUSE_LINEAGE',
  system: 'WAREHOUSE',
  shortName: 'warehouse',
  settings: WAREHOUSE_SETTINGS,
  requiredSettings: ['LINEAGE_SVC_WAREHOUSE_PROJECT_ID', 'LINEAGE_SVC_WAREHOUSE_LOCATION'],
  missingSettings: (config: Config) => missingOf(required(config)),
  isConfigured: (config: Config) => missingOf(required(config)).length === 0,
  enrich: enrichWarehouse,
  push: pushWarehouse,
};
