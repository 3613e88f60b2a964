/**
 * The `columnLineage` dataset facet (ColumnLineageDatasetFacet 1-2-0) built from the PRODUCES edge
 * attribute `column_lineage`: the kind -> transformation mapping, dataset-level indirect lineage, and
 * ajv validation (official 2-0-2 core schema and facet schemas) of the views of the demo extraction
 * (the platform simulator's demo scenario, as `test/sql/extractionE2e.test.ts` runs it).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import { extract } from '../../src/extraction/extract.js';
import type { LineageGraph, Node } from '../../src/graph/model.js';
import { silentLogger } from '../../src/logger.js';
import { COLUMN_TRANSFORMATIONS, columnLineageFacet, graphToRunEvents } from '../../src/openlineage/fromGraph.js';
import { FACET_SCHEMA_URLS, LINEAGE_SVC_PRODUCER, RunEventSchema, type RunEvent } from '../../src/openlineage/model.js';
import { DEV, PROD, fastApi } from '../extraction/helpers.js';
import { fixturesPresent } from './helpers.js';
import { loadValidator } from './validator.js';

const ENV = 'env-1';
const CLUSTER = 'lkc-1';
const NS = `stream://${ENV}/${CLUSTER}`;

function topic(name: string, fields?: string[]): Node {
  return {
    id: `stream:topic:${ENV}:${CLUSTER}/${name}`,
    node_type: 'TOPIC',
    system: 'STREAM',
    qualified_name: `${CLUSTER}/${name}`,
    display_name: name,
    environment_id: ENV,
    cluster_id: CLUSTER,
    attributes: fields ? { fields } : {},
  };
}

/** orders + customers -> enrich (Flink) -> enriched, with every kind of column lineage. */
function joinGraph(): LineageGraph {
  const orders = topic('orders');
  const customers = topic('customers');
  const enriched = topic('enriched');
  const job: Node = {
    id: `stream:stream_job:${ENV}:enrich`,
    node_type: 'STREAM_JOB',
    system: 'STREAM',
    qualified_name: 'enrich',
    display_name: 'enrich',
    environment_id: ENV,
    cluster_id: null,
    attributes: {
      sql:
        'INSERT INTO enriched SELECT o.id, UPPER(c.name) AS name, COUNT(*) AS n ' +
        'FROM orders o JOIN customers c ON o.cid = c.id WHERE o.ok GROUP BY o.id, c.name',
    },
  };
  return {
    nodes: [orders, customers, enriched, job],
    edges: [
      { src_id: orders.id, dst_id: job.id, edge_type: 'CONSUMES', attributes: null },
      { src_id: customers.id, dst_id: job.id, edge_type: 'CONSUMES', attributes: null },
      {
        src_id: job.id,
        dst_id: enriched.id,
        edge_type: 'PRODUCES',
        attributes: {
          column_lineage: [
            { output: 'id', kind: 'identity', inputs: [{ dataset: orders.id, column: 'id' }] },
            { output: 'name', kind: 'transformation', inputs: [{ dataset: customers.id, column: 'name' }] },
            { output: 'n', kind: 'aggregation', inputs: [{ dataset: orders.id, column: 'id' }] },
            { output: 'id', kind: 'filter', inputs: [{ dataset: orders.id, column: 'ok' }] },
            {
              output: 'id',
              kind: 'join_key',
              inputs: [
                { dataset: orders.id, column: 'cid' },
                { dataset: customers.id, column: 'id' },
              ],
            },
            { output: '*', kind: 'filter', inputs: [{ dataset: orders.id, column: 'ok' }] },
            {
              output: 'ghost',
              kind: 'identity',
              inputs: [{ dataset: 'unresolved_table', column: 'x', resolved: false }],
            },
            { output: 'weird', kind: 'unknown_kind', inputs: [{ dataset: orders.id, column: 'id' }] },
          ],
        },
      },
    ],
  };
}

type Facet = {
  _producer: string;
  _schemaURL: string;
  fields: Record<
    string,
    {
      inputFields: Array<{
        namespace: string;
        name: string;
        field: string;
        transformations: Array<{ type: string; subtype: string }>;
      }>;
    }
  >;
  dataset?: Array<{ field: string; transformations: Array<{ subtype: string }> }>;
};

describe('columnLineage facet from PRODUCES column_lineage', () => {
  it('maps each kind to its transformation, merges input fields, and keeps indirect lineage at field and dataset level', () => {
    const events = graphToRunEvents(joinGraph(), { eventTime: '2026-03-01T12:00:00Z' });
    const event = events.find((entry) => entry.job.name === 'enrich');
    assert.ok(event);
    RunEventSchema.parse(event);
    const output = event.outputs.find((dataset) => dataset.name === 'enriched');
    assert.ok(output);
    const facet = output.facets?.columnLineage as unknown as Facet;
    assert.equal(facet._producer, LINEAGE_SVC_PRODUCER);
    assert.equal(facet._schemaURL, FACET_SCHEMA_URLS.columnLineage);
    assert.deepEqual(
      Object.keys(facet.fields).sort(),
      ['id', 'n', 'name'],
      'unresolved inputs and unknown kinds are skipped; "*" is not a column',
    );
    assert.deepEqual(facet.fields.name!.inputFields, [
      {
        namespace: NS,
        name: 'customers',
        field: 'name',
        transformations: [{ type: 'DIRECT', subtype: 'TRANSFORMATION' }],
      },
    ]);
    assert.deepEqual(facet.fields.n!.inputFields[0]!.transformations, [{ type: 'DIRECT', subtype: 'AGGREGATION' }]);
    const id = facet.fields.id!.inputFields.map(
      (input) =>
        `${input.name}.${input.field}:${input.transformations.map((entry) => `${entry.type}/${entry.subtype}`).join('+')}`,
    );
    assert.deepEqual(id.sort(), [
      'customers.id:INDIRECT/JOIN',
      'orders.cid:INDIRECT/JOIN',
      'orders.id:DIRECT/IDENTITY',
      'orders.ok:INDIRECT/FILTER',
    ]);
    assert.deepEqual(
      facet.dataset
        ?.map((input) => `${input.field}:${input.transformations.map((entry) => entry.subtype).join('+')}`)
        .sort(),
      ['cid:JOIN', 'id:JOIN', 'ok:FILTER'],
    );
    // The facet describes this job's write only: the inputs carry none.
    for (const input of event.inputs) assert.equal(input.facets?.columnLineage, undefined);
  });

  it('covers the seven kinds of the extraction and answers nothing without usable entries', () => {
    assert.deepEqual(Object.keys(COLUMN_TRANSFORMATIONS).sort(), [
      'aggregation',
      'filter',
      'group_by',
      'identity',
      'join_key',
      'transformation',
      'window',
    ]);
    const none = () => undefined;
    assert.equal(columnLineageFacet(undefined, none), undefined);
    assert.equal(
      columnLineageFacet([{ output: 'a', kind: 'identity', inputs: [{ dataset: 'missing', column: 'a' }] }], none),
      undefined,
    );
    assert.equal(columnLineageFacet('not a list', none), undefined);
  });

  it('changes the runId when the column lineage changes', () => {
    const graph = joinGraph();
    const before = graphToRunEvents(graph, { eventTime: '2026-03-01T12:00:00Z' }).find(
      (event) => event.job.name === 'enrich',
    )!;
    const edge = graph.edges.find((entry) => entry.edge_type === 'PRODUCES')!;
    edge.attributes = {
      column_lineage: [{ output: 'id', kind: 'identity', inputs: [{ dataset: topic('orders').id, column: 'id' }] }],
    };
    const afterChange = graphToRunEvents(graph, { eventTime: '2026-03-01T12:00:00Z' }).find(
      (event) => event.job.name === 'enrich',
    )!;
    assert.notEqual(afterChange.run.runId, before.run.runId);
  });

  it('validates the test graph against the official schemas with ajv', (t) => {
    if (!fixturesPresent(t, 'spec')) return;
    const validator = loadValidator();
    for (const event of graphToRunEvents(joinGraph(), { eventTime: '2026-03-01T12:00:00Z' }))
      assert.deepEqual(validator.errors(event), [], event.job.name);
  });
});

describe('views of the demo extraction validate, column lineage included', () => {
  let sim: PlatformSimulator;
  let graph: LineageGraph;
  before(async () => {
    sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
    graph = (await extract({ platform: fastApi(sim), logger: silentLogger() }, { environmentIds: [PROD, DEV] })).graph;
  });
  after(async () => {
    await sim.close();
  });

  it('emits columnLineage on stream-job and ksqlDB outputs, and every event of both views validates with ajv', (t) => {
    const confluent = graphToRunEvents(graph, { streamOnly: true, eventTime: '2026-03-01T12:00:00Z' });
    const enriched = graphToRunEvents(graph, { eventTime: '2026-03-01T12:00:00Z' });
    assert.ok(confluent.length > 0 && enriched.length >= confluent.length);
    const withColumns = (events: RunEvent[]) =>
      events.filter((event) => event.outputs.some((dataset) => dataset.facets?.columnLineage !== undefined));
    const jobsWithColumns = withColumns(confluent);
    assert.ok(jobsWithColumns.length > 0, 'some outputs carry columnLineage');
    const nodeTypes = new Set(
      jobsWithColumns.map((event) => (event.job.facets?.jobType as unknown as { jobType: string }).jobType),
    );
    assert.ok(
      nodeTypes.has('STREAM_JOB') && nodeTypes.has('SQL_QUERY'),
      `column lineage on Flink and ksqlDB outputs (${[...nodeTypes].join(', ')})`,
    );
    for (const event of jobsWithColumns) {
      for (const dataset of event.outputs) {
        const facet = dataset.facets?.columnLineage as unknown as Facet | undefined;
        if (!facet) continue;
        for (const { inputFields } of Object.values(facet.fields)) {
          for (const input of inputFields) {
            assert.ok(
              event.inputs.some((source) => source.namespace === input.namespace && source.name === input.name),
              `${event.job.name}: column input ${input.namespace} ${input.name} is one of the job's inputs`,
            );
            for (const transformation of input.transformations)
              assert.ok(['DIRECT', 'INDIRECT'].includes(transformation.type));
          }
        }
      }
    }
    for (const event of [...confluent, ...enriched]) RunEventSchema.parse(event);
    if (!fixturesPresent(t, 'spec')) return;
    const validator = loadValidator();
    for (const event of [...confluent, ...enriched])
      assert.deepEqual(validator.errors(event), [], `${event.job.namespace} ${event.job.name}`);
  });
});
