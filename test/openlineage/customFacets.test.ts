/**
 * The published JSON Schemas of our custom facets (`docs/facets/`): equal to what
 * `src/openlineage/customFacets.ts` generates from the zod schemas, named by the `_schemaURL` of
 * the facets we emit, and strict enough to reject a facet with a wrong field.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { FACET_SCHEMA_FOLDER, facetSchemaText } from '../../infra/openlineage/writeFacetSchemas.js';
import { customFacetSchemaDocuments } from '../../src/openlineage/customFacets.js';
import { graphToRunEvents } from '../../src/openlineage/fromGraph.js';
import { FACET_SCHEMA_URLS } from '../../src/openlineage/model.js';
import { sampleGraph } from '../helpers/sampleGraph.js';
import { fixturesPresent } from './helpers.js';
import { loadValidator } from './validator.js';

describe('custom facet schemas', () => {
  it('are published as generated (run `make facet-schemas` after changing a custom facet)', () => {
    const documents = customFacetSchemaDocuments();
    assert.deepEqual(readdirSync(FACET_SCHEMA_FOLDER).sort(), Object.keys(documents).sort());
    for (const [file, document] of Object.entries(documents)) {
      assert.equal(
        readFileSync(path.join(FACET_SCHEMA_FOLDER, file), 'utf8'),
        facetSchemaText(document),
        `docs/facets/${file} is stale`,
      );
    }
  });

  it('are where the _schemaURL of each custom facet points, with the facet key and $defs entry it names', () => {
    const documents = customFacetSchemaDocuments();
    for (const key of ['stream_topic', 'stream_connector'] as const) {
      const [documentUrl, pointer] = FACET_SCHEMA_URLS[key].split('#');
      const document = Object.values(documents).find((candidate) => candidate.$id === documentUrl) as
        { $defs: Record<string, unknown>; properties: Record<string, { $ref: string }> } | undefined;
      assert.ok(document, `a document with $id ${documentUrl}`);
      const definition = pointer!.replace('/$defs/', '');
      assert.ok(document.$defs[definition], `${definition} is defined`);
      assert.equal(document.properties[key]!.$ref, `#/$defs/${definition}`);
    }
  });

  it('validate the custom facets we emit, and reject a wrong one', (t) => {
    if (!fixturesPresent(t, 'spec/OpenLineage.json')) return;
    const validator = loadValidator();
    const events = graphToRunEvents(sampleGraph(), { eventTime: '2026-11-01T00:00:00.000Z' });
    const withTopic = events.find((event) => event.outputs.some((output) => output.facets?.stream_topic));
    const withConnector = events.find((event) => event.job.facets?.stream_connector);
    assert.ok(withTopic && withConnector, 'the sample graph has both custom facets');
    for (const event of events) assert.deepEqual(validator.errors(event), [], event.job.name);
    const broken = structuredClone(withTopic) as unknown as {
      outputs: Array<{ facets?: Record<string, Record<string, unknown>> }>;
    };
    const facet = broken.outputs.find((output) => output.facets?.stream_topic)!.facets!.stream_topic!;
    facet.partitions = 'six';
    delete facet.tags;
    const errors = validator.errors(broken);
    assert.ok(
      errors.some((error) => error.includes('stream_topic')),
      errors.join('; '),
    );
  });
});
