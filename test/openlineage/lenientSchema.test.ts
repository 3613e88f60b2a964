/**
 * `passesLenientSchema` (src/openlineage/model.ts), the check that spares an accepted event the zod
 * parse of its lenient schema: it may answer true only where the schema accepts (what is refused must
 * not change), and answers true for the usual events (or it spares nothing).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  LenientDatasetEventSchema,
  LenientJobEventSchema,
  LenientRunEventSchema,
  passesLenientSchema,
  type OpenLineageEventKind,
} from '../../src/openlineage/model.js';

const SCHEMAS = {
  RunEvent: LenientRunEventSchema,
  JobEvent: LenientJobEventSchema,
  DatasetEvent: LenientDatasetEventSchema,
} as const;

const dataset = { namespace: 'kafka://b:9092', name: 'orders', facets: { schema: { fields: [] } } };
const run = {
  eventType: 'COMPLETE',
  run: { runId: '0190a1b2-0000-7000-8000-000000000001', facets: { parent: {} } },
  job: { namespace: 'n', name: 'j', facets: {} },
  inputs: [dataset],
  outputs: [{ namespace: 'db', name: 'out', outputFacets: {} }],
};
const job = { job: { namespace: 'n', name: 'j' }, inputs: null, outputs: [dataset] };
const datasetEvent = { dataset: { ...dataset, inputFacets: null } };

/** The usual events, and variants of every field the schemas look at, valid and not. */
function variants(): Array<[OpenLineageEventKind, Record<string, unknown>]> {
  const bad: unknown[] = [undefined, null, '', 0, 'x', [], [dataset], {}, Object.create(null), new Date(0)];
  const withFacets = (facets: unknown) => ({ ...dataset, facets });
  const out: Array<[OpenLineageEventKind, Record<string, unknown>]> = [
    ['RunEvent', run],
    ['RunEvent', { ...run, eventType: undefined, inputs: undefined, outputs: null }],
    ['JobEvent', job],
    ['DatasetEvent', datasetEvent],
  ];
  for (const value of bad) {
    out.push(['RunEvent', { ...run, eventType: value }]);
    out.push(['RunEvent', { ...run, run: value }]);
    out.push(['RunEvent', { ...run, run: { runId: value } }]);
    out.push(['RunEvent', { ...run, run: { runId: 'r', facets: value } }]);
    out.push(['RunEvent', { ...run, job: value }]);
    out.push(['RunEvent', { ...run, job: { namespace: value, name: 'j' } }]);
    out.push(['RunEvent', { ...run, job: { namespace: 'n', name: value } }]);
    out.push(['RunEvent', { ...run, job: { namespace: 'n', name: 'j', facets: value } }]);
    out.push(['RunEvent', { ...run, inputs: value }]);
    out.push(['RunEvent', { ...run, outputs: [dataset, value] }]);
    out.push(['RunEvent', { ...run, inputs: [withFacets(value)] }]);
    out.push(['RunEvent', { ...run, inputs: [{ ...dataset, inputFacets: value }] }]);
    out.push(['RunEvent', { ...run, outputs: [{ ...dataset, outputFacets: value }] }]);
    out.push(['RunEvent', { ...run, outputs: [{ ...dataset, name: value }] }]);
    out.push(['JobEvent', { ...job, job: value }]);
    out.push(['JobEvent', { ...job, outputs: [{ namespace: value, name: 'x' }] }]);
    out.push(['DatasetEvent', { dataset: value }]);
    out.push(['DatasetEvent', { dataset: withFacets(value) }]);
  }
  out.push(['RunEvent', { ...run, inputs: [withFacets({ constructor: 'x' })] }]);
  out.push(['RunEvent', { ...run, inputs: [withFacets({ [Symbol('s')]: 1 })] }]);
  // eslint-disable-next-line no-sparse-arrays
  out.push(['RunEvent', { ...run, inputs: [, dataset] }]);
  return out;
}

describe('passesLenientSchema', () => {
  it('answers true only for events the lenient schema accepts', () => {
    for (const [kind, raw] of variants()) {
      if (passesLenientSchema(raw, kind))
        assert.ok(SCHEMAS[kind].safeParse(raw).success, `${kind} ${JSON.stringify(raw)}`);
    }
  });

  it('answers true for the usual events, and for every variant the schema accepts but odd objects', () => {
    assert.ok(passesLenientSchema(run, 'RunEvent'));
    assert.ok(passesLenientSchema(job, 'JobEvent'));
    assert.ok(passesLenientSchema(datasetEvent, 'DatasetEvent'));
    const spared = variants().filter(([kind, raw]) => SCHEMAS[kind].safeParse(raw).success);
    const missed = spared.filter(([kind, raw]) => !passesLenientSchema(raw, kind));
    // Only facets without a prototype (the six `Object.create(null)` variants) or with an own
    // `constructor` key are left to zod.
    assert.equal(spared.length, 40);
    assert.equal(missed.length, 7);
  });
});
