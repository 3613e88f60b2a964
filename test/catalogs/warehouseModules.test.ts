/**
 * The warehouse provider's layout (`src/catalogs/warehouse/index.ts`): the folder's public surface
 * is what `src/catalogs/warehouse.ts` exported before the split plus the downstream discovery
 * (`discovery.ts`), and the provider's enrichment and push are the functions of their concern's module.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as dataplex from '../../src/catalogs/warehouse/dataplex.js';
import * as enrichment from '../../src/catalogs/warehouse/enrichment.js';
import * as warehouse from '../../src/catalogs/warehouse/index.js';
import * as lineagePush from '../../src/catalogs/warehouse/lineagePush.js';
import * as port from '../../src/catalogs/warehouse/port.js';

/** The value exports of the warehouse provider before the split, and the discovery's (types vanish at run time). */
const PUBLIC_VALUES = [
  'LINKS_PER_PROCESS_SEARCH',
  'MAX_LINK_PAGES',
  'bigQueryTableFqn',
  'createWarehouseDiscovery',
  'parseBigQueryFqn',
  'warehouseCatalogJob',
  'BIGQUERY_NAMESPACE',
  'ENRICH_CONCURRENCY',
  'ENTRY_GROUP_ID',
  'ENTRY_SYSTEM',
  'PUSHED_JOB_TYPES',
  'REQUEST_ID_NAMESPACE',
  'SCHEMA_ASPECT_TYPE_ID',
  'TOPIC_ENTRY_TYPE_ID',
  'WAREHOUSE_SETTINGS',
  'WarehouseCredentialsError',
  'dataplexBootstrap',
  'enrichWarehouse',
  'fqnSegment',
  'int64',
  'isSkippableWarehouseError',
  'isWarehouseTable',
  'kafkaTopicFqn',
  'normalizeRunEvent',
  'processName',
  'pushWarehouse',
  'pushableGraph',
  'registerTopicAssets',
  'requestIdOf',
  'schemaAspectKey',
  'tableAttributes',
  'topicEntries',
  'topicEntryId',
  'warehouseDatasetIdentity',
  'warehouseDeepLink',
  'warehouseEvents',
  'warehouseProvider',
  'warehouseTableParts',
];

describe('warehouse provider layout', () => {
  it('exports the same values as before the split plus the discovery, and nothing internal', () => {
    assert.deepEqual(Object.keys(warehouse).sort(), [...PUBLIC_VALUES].sort());
    assert.equal('describeFailure' in warehouse, false);
    assert.equal('nonEmpty' in warehouse, false);
  });

  it('wires the provider to the enrichment and push of their modules', () => {
    assert.equal(warehouse.warehouseProvider.enrich, enrichment.enrichWarehouse);
    assert.equal(warehouse.warehouseProvider.push, lineagePush.pushWarehouse);
    assert.equal(warehouse.registerTopicAssets, dataplex.registerTopicAssets);
    assert.equal(warehouse.WarehouseCredentialsError, port.WarehouseCredentialsError);
  });
});
