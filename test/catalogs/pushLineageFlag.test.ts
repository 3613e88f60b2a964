/**
 * The `--push-lineage [LIST]` argument of `lineage-svc-extract` (`commands/shared.ts`): the bare
 * flag stays a flag, a following list of provider names (or `=LIST`) becomes the catalogs to push
 * to, and a word that is not a provider list is left alone.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandPushLineageArgument, parsePushLineageCatalogs } from '../../commands/shared.js';

describe('--push-lineage [LIST]', () => {
  it('keeps the bare flag and turns a provider list into --push-lineage-catalogs', () => {
    assert.deepEqual(expandPushLineageArgument(['--env', 'env-1', '--push-lineage']), [
      '--env',
      'env-1',
      '--push-lineage',
    ]);
    assert.deepEqual(expandPushLineageArgument(['--push-lineage', 'lakehouse,warehouse', '--env', 'env-1']), [
      '--push-lineage',
      '--push-lineage-catalogs',
      'lakehouse,warehouse',
      '--env',
      'env-1',
    ]);
    assert.deepEqual(expandPushLineageArgument(['--push-lineage=DATA_GOVERNANCE']), [
      '--push-lineage',
      '--push-lineage-catalogs',
      'DATA_GOVERNANCE',
    ]);
    assert.deepEqual(expandPushLineageArgument(['--push-lineage', '--metrics']), ['--push-lineage', '--metrics']);
    assert.deepEqual(expandPushLineageArgument(['--push-lineage', 'graph.json']), ['--push-lineage', 'graph.json']);
  });

  it('parses short names and catalog types in the order given, once each, and names the choices otherwise', () => {
    assert.deepEqual(parsePushLineageCatalogs('warehouse, LAKEHOUSE_CATALOG,warehouse,data-governance'), [
      'WAREHOUSE_LINEAGE',
      'LAKEHOUSE_CATALOG',
      'DATA_GOVERNANCE',
    ]);
    assert.throws(() => parsePushLineageCatalogs('snowflake'), /lakehouse, datalake, warehouse, data_governance/);
    assert.throws(() => parsePushLineageCatalogs(','), /comma-separated list/);
  });
});
