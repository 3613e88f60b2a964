/**
 * Writes the JSON Schemas of lineage-svc's custom OpenLineage facets to `docs/facets/`, where their
 * `_schemaURL` points (`src/openlineage/customFacets.ts`). Run by `make facet-schemas` after a
 * change to a custom facet; `test/openlineage/customFacets.test.ts` fails while the files are stale.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { customFacetSchemaDocuments } from '../../src/openlineage/customFacets.js';

/** The folder the files are written to. */
export const FACET_SCHEMA_FOLDER = path.join(import.meta.dirname, '..', '..', 'docs', 'facets');

/** The exact text of a schema file: two-space JSON and a final newline. */
export const facetSchemaText = (document: unknown): string => `${JSON.stringify(document, null, 2)}\n`;

if (process.argv[1] === import.meta.filename) {
  mkdirSync(FACET_SCHEMA_FOLDER, { recursive: true });
  for (const [file, document] of Object.entries(customFacetSchemaDocuments())) {
    writeFileSync(path.join(FACET_SCHEMA_FOLDER, file), facetSchemaText(document));
    process.stdout.write(`wrote docs/facets/${file}\n`);
  }
}
