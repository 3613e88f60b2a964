/**
 * The JSON Schemas of lineage-svc's own OpenLineage facets, in the form OpenLineage asks of custom
 * facets (https://openlineage.io/docs/spec/facets/custom-facets): one document per facet, whose
 * `$defs` entry extends the core `DatasetFacet` or `JobFacet` with the facet's own fields, and whose
 * top-level `properties` name the facet key. Each emitted facet's `_schemaURL` points at its `$defs`
 * entry in the copy published with the source (`docs/facets/`); a test keeps those files equal to
 * what this module generates from the zod schemas that also check what we emit
 * (`StreamTopicDatasetFacetSchema`, `StreamConnectorJobFacetSchema` in `model.ts`).
 */
import { z } from 'zod';
import {
  CUSTOM_FACET_SCHEMAS,
  OPENLINEAGE_SCHEMA,
  StreamConnectorJobFacetSchema,
  StreamTopicDatasetFacetSchema,
} from './model.js';

/** One custom facet: its key in `facets`, the `$defs` name, what it extends, and its zod schema. */
interface CustomFacet {
  key: string;
  definition: string;
  extends: 'DatasetFacet' | 'JobFacet';
  description: string;
  schema: z.ZodObject;
}

/** Every custom facet we emit. */
const CUSTOM_FACETS: readonly CustomFacet[] = [
  {
    key: 'stream_topic',
    definition: 'StreamTopicDatasetFacet',
    extends: 'DatasetFacet',
    description:
      'Where a streaming platform topic lives (environment, cluster) and how it is laid out (partitions, replication factor, tags).',
    schema: StreamTopicDatasetFacetSchema,
  },
  {
    key: 'stream_connector',
    definition: 'StreamConnectorJobFacet',
    extends: 'JobFacet',
    description: 'A managed connector: its class, its direction (source or sink) and where it runs.',
    schema: StreamConnectorJobFacetSchema,
  },
];

/** File name of a custom facet's schema document (under `docs/facets/`). */
export const customFacetFile = (definition: string): string => `${definition}.json`;

/**
 * The schema documents of every custom facet, by file name, with `$id` = `${baseUrl}/{file}`.
 * @param baseUrl where the files are published (default `CUSTOM_FACET_SCHEMAS`).
 */
export function customFacetSchemaDocuments(
  baseUrl: string = CUSTOM_FACET_SCHEMAS,
): Record<string, Record<string, unknown>> {
  const documents: Record<string, Record<string, unknown>> = {};
  for (const facet of CUSTOM_FACETS) {
    // The facet's own fields: `_producer` and `_schemaURL` come from the core facet it extends.
    const own = facet.schema.omit({ _producer: true, _schemaURL: true });
    const fields = z.toJSONSchema(own, { target: 'draft-2020-12' }) as Record<string, unknown>;
    delete fields.$schema;
    const file = customFacetFile(facet.definition);
    documents[file] = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: `${baseUrl}/${file}`,
      $defs: {
        [facet.definition]: {
          description: facet.description,
          allOf: [{ $ref: `${OPENLINEAGE_SCHEMA}#/$defs/${facet.extends}` }, fields],
          type: 'object',
        },
      },
      type: 'object',
      properties: { [facet.key]: { $ref: `#/$defs/${facet.definition}` } },
    };
  }
  return documents;
}
