/**
 * The warning when catalog enrichment is asked for and no catalog provider that enriches tables is
 * configured (`CATALOG_ENRICHMENT_UNAVAILABLE` in `services/extraction.ts`; issue 17: a message names
 * the variables to change). It is built from the catalog registry (`src/catalogs/registry.ts`), so it
 * names the variables of every provider, data governance (DataZone, push only) included, and only
 * variables that the configuration reads (`EnvironmentSchema` in `src/config.ts`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CATALOG_ENRICHMENT_UNAVAILABLE,
  catalogEnrichmentUnavailable,
  enrichLineageGraph,
} from '../../services/extraction.js';
import type { ServiceContext } from '../../services/context.js';
import { CATALOG_REGISTRY } from '../../src/catalogs/registry.js';
import { EnvironmentSchema } from '../../src/config.js';
import { CATALOG_TYPES, type CatalogType, type LineageGraph } from '../../src/graph/model.js';

/** Every variable the configuration reads. */
const VARIABLES = Object.keys(EnvironmentSchema.shape);

/** A service context whose catalogs report `available` and enrich nothing (all `enrichLineageGraph` uses here). */
function contextWith(available: CatalogType[]): ServiceContext {
  return {
    catalogs: {
      available: () => available,
      enrich: (graph: LineageGraph) => Promise.resolve({ graph, warnings: [], ran: available, results: [] }),
    },
  } as unknown as ServiceContext;
}

const EMPTY_GRAPH = { nodes: [], edges: [] } as unknown as LineageGraph;

describe('catalog enrichment unavailable: the warning names the variables of every provider', () => {
  it('has a registry entry for every catalog type', () => {
    assert.deepEqual(
      CATALOG_REGISTRY.map((entry) => entry.catalogType),
      [...CATALOG_TYPES],
    );
  });

  it('names every required variable of every provider, each one a variable the configuration reads', () => {
    for (const entry of CATALOG_REGISTRY) {
      assert.ok(entry.requiredSettings.length > 0, entry.catalogType);
      for (const variable of entry.requiredSettings) {
        assert.ok(CATALOG_ENRICHMENT_UNAVAILABLE.includes(variable), `${entry.catalogType}: ${variable}`);
      }
    }
    const named = CATALOG_ENRICHMENT_UNAVAILABLE.match(/LINEAGE_SVC_[A-Z0-9_]+/g) ?? [];
    assert.ok(named.length > 0);
    for (const variable of named) assert.ok(VARIABLES.includes(variable), `${variable} is not read by src/config.ts`);
  });

  it('names the data governance (DataZone) variables and says that provider is push only', () => {
    const dataGovernance = VARIABLES.filter((name) => name.startsWith('LINEAGE_SVC_DATA_GOVERNANCE_'));
    assert.deepEqual(dataGovernance.sort(), [
      'LINEAGE_SVC_DATA_GOVERNANCE_DOMAIN_ID',
      'LINEAGE_SVC_DATA_GOVERNANCE_PROJECT_ID',
    ]);
    for (const variable of dataGovernance) assert.ok(CATALOG_ENRICHMENT_UNAVAILABLE.includes(variable), variable);
    assert.match(
      CATALOG_ENRICHMENT_UNAVAILABLE,
      /the data governance catalog \(LINEAGE_SVC_DATA_GOVERNANCE_DOMAIN_ID and LINEAGE_SVC_DATA_GOVERNANCE_PROJECT_ID\) is push only/,
    );
    assert.match(
      CATALOG_ENRICHMENT_UNAVAILABLE,
      /^catalog enrichment is not available: .*; catalog attributes are left as they are$/,
    );
  });

  it('leaves out the push-only note when the registry has no push-only provider', () => {
    const enriching = CATALOG_REGISTRY.filter((entry) => entry.system !== null);
    const message = catalogEnrichmentUnavailable(enriching);
    assert.doesNotMatch(message, /push only/);
    for (const entry of enriching) assert.ok(message.includes(entry.requiredSettings[0]!), entry.catalogType);
  });

  it('is the warning of an enrichment with no provider, or with only the push-only data governance provider', async () => {
    for (const available of [[], ['DATA_GOVERNANCE']] as CatalogType[][]) {
      const enriched = await enrichLineageGraph(contextWith(available), EMPTY_GRAPH, {
        catalogs: true,
        metrics: false,
      });
      assert.deepEqual(enriched.warnings, [CATALOG_ENRICHMENT_UNAVAILABLE], available.join());
      assert.deepEqual(enriched.catalogsEnriched, []);
    }
    const lakehouse = await enrichLineageGraph(contextWith(['LAKEHOUSE_CATALOG']), EMPTY_GRAPH, {
      catalogs: true,
      metrics: false,
    });
    assert.deepEqual(lakehouse.warnings, []);
  });
});
