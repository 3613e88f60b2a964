/**
 * Connector field mappings (issue 26, item 1; `src/extraction/connectorFields.ts`) and what the
 * column walk makes of them (`projections/columnGraph.ts`): a sink's field list and its single
 * message transforms (ReplaceField include/exclude/renames, ExtractField, Flatten, Cast, MaskField,
 * an unknown transform), and a Debezium source's table column -> `after.c`, both directions, with
 * exact impact sets on a small estate of our own.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  cdcColumnLineage,
  mappedColumnLineage,
  sinkFieldMapping,
  type ConnectorConfig,
} from '../../src/extraction/connectorFields.js';
import { knownFields, walkColumns } from '../../projections/columnGraph.js';
import { ResidentGraph } from '../../projections/residentGraph.js';
import { bareNode, edge } from '../helpers/sampleGraph.js';

const replaceField = (settings: Record<string, string>): ConnectorConfig => ({
  transforms: 'rf',
  'transforms.rf.type': 'org.apache.kafka.connect.transforms.ReplaceField$Value',
  ...Object.fromEntries(Object.entries(settings).map(([key, value]) => [`transforms.rf.${key}`, value])),
});

describe('sink field mappings', () => {
  it('passes every field under its own name with no transform', () => {
    assert.deepEqual(sinkFieldMapping({ 'connector.class': 'S3_SINK' }), {
      all_fields: true,
      struct: null,
      fields: [],
    });
  });

  it('keeps only a field list, renames, and drops excluded fields from it', () => {
    assert.deepEqual(sinkFieldMapping({ 'fields.whitelist': 'id, amount' }), {
      all_fields: false,
      struct: null,
      fields: [
        { output: 'id', input: 'id', kind: 'identity' },
        { output: 'amount', input: 'amount', kind: 'identity' },
      ],
    });
    assert.deepEqual(
      sinkFieldMapping(replaceField({ include: 'id,email,amount', exclude: 'email', renames: 'amount:total' })),
      {
        all_fields: false,
        struct: null,
        fields: [
          { output: 'id', input: 'id', kind: 'identity' },
          { output: 'total', input: 'amount', kind: 'identity' },
        ],
      },
    );
    // Over every field, a rename is a named output beside the star.
    assert.deepEqual(sinkFieldMapping(replaceField({ renames: 'customer_id:cust' })), {
      all_fields: true,
      struct: null,
      fields: [{ output: 'cust', input: 'customer_id', kind: 'identity' }],
    });
  });

  it('reads inside an extracted field, and types Cast and MaskField fields as transformations', () => {
    const config: ConnectorConfig = {
      transforms: 'unwrap,flat,mask,keep',
      'transforms.unwrap.type': 'org.apache.kafka.connect.transforms.ExtractField$Value',
      'transforms.unwrap.field': 'after',
      'transforms.flat.type': 'org.apache.kafka.connect.transforms.Flatten$Value',
      'transforms.mask.type': 'org.apache.kafka.connect.transforms.MaskField$Value',
      'transforms.mask.fields': 'email',
      'transforms.keep.type': 'org.apache.kafka.connect.transforms.ReplaceField$Value',
      'transforms.keep.include': 'id,email',
    };
    assert.deepEqual(sinkFieldMapping(config), {
      all_fields: false,
      struct: 'after',
      fields: [
        { output: 'id', input: 'after.id', kind: 'identity' },
        { output: 'email', input: 'after.email', kind: 'transformation' },
      ],
    });
  });

  it('states no mapping when a transform is not known, and ignores key and routing transforms', () => {
    assert.equal(sinkFieldMapping({ transforms: 'x', 'transforms.x.type': 'com.example.MysteryTransform' }), undefined);
    assert.deepEqual(
      sinkFieldMapping({
        transforms: 'route,key',
        'transforms.route.type': 'org.apache.kafka.connect.transforms.RegexRouter',
        'transforms.key.type': 'org.apache.kafka.connect.transforms.ReplaceField$Key',
      }),
      { all_fields: true, struct: null, fields: [] },
    );
  });

  it('lists a mapping over the topics it reads for the OpenLineage facet: renamed fields once, under their new name', () => {
    const mapping = sinkFieldMapping(replaceField({ renames: 'amount:total' }))!;
    assert.deepEqual(
      mappedColumnLineage(mapping, [{ dataset: 'orders', fields: ['id', 'amount'] }]).map((entry) => [
        entry.output,
        entry.inputs[0]!.column,
      ]),
      [
        ['id', 'id'],
        ['total', 'amount'],
      ],
    );
  });

  it('maps a CDC table column to after.c and before.c, or to c when the envelope is unwrapped', () => {
    assert.deepEqual(
      cdcColumnLineage({}, 'table').map((entry) => entry.output),
      ['after.*', 'before.*'],
    );
    assert.deepEqual(
      cdcColumnLineage({ 'after.state.only': 'true' }, 'table').map((entry) => entry.output),
      ['*'],
    );
  });
});

/** table -CDC-> orders (after/before) -sink with a rename-> warehouse table; and a sink with an unknown transform. */
function estate(): ResidentGraph {
  const graph = new ResidentGraph();
  const nodes = [
    bareNode('table', 'EXTERNAL_DATASET'),
    bareNode('cdc', 'CONNECTOR'),
    bareNode('orders', 'TOPIC'),
    bareNode('orders-value', 'SCHEMA', { fields: [{ name: 'before' }, { name: 'after' }, { name: 'op' }] }),
    bareNode('sink', 'CONNECTOR', {
      field_mapping: sinkFieldMapping({
        ...replaceField({ renames: 'after.customer_id:customer' }),
        transforms: 'rf',
      }),
    }),
    bareNode('warehouse', 'CATALOG_TABLE'),
    bareNode('mystery', 'CONNECTOR', {}),
    bareNode('elsewhere', 'EXTERNAL_DATASET'),
  ];
  for (const one of nodes) graph.setNode(one.id, one);
  for (const one of [
    edge('table', 'CONSUMES', 'cdc'),
    edge('cdc', 'PRODUCES', 'orders', { column_lineage: cdcColumnLineage({}, 'table') }),
    edge('orders', 'HAS_SCHEMA', 'orders-value', { role: 'value' }),
    edge('orders', 'CONSUMES', 'sink'),
    edge('sink', 'PRODUCES', 'warehouse'),
    edge('orders', 'CONSUMES', 'mystery'),
    edge('mystery', 'PRODUCES', 'elsewhere'),
  ])
    graph.setEdge(one);
  return graph;
}

describe('the column walk through connectors', () => {
  const graph = estate();
  const rows = (walk: ReturnType<typeof walkColumns>) =>
    walk.columns.map((column) => [column.node_id, column.field, column.hops, column.subtype]);

  it('goes downstream from a table column through Debezium, a rename and an unknown transform', () => {
    const walk = walkColumns(graph, { node_id: 'table', field: 'customer_id' }, 'downstream', 10, false);
    assert.deepEqual(rows(walk), [
      ['orders', 'after.customer_id', 1, 'IDENTITY'],
      ['orders', 'before.customer_id', 1, 'IDENTITY'],
      ['elsewhere', '*', 2, 'UNKNOWN'],
      ['warehouse', 'before.customer_id', 2, 'IDENTITY'],
      ['warehouse', 'customer', 2, 'IDENTITY'],
    ]);
    assert.deepEqual(walk.jobs, ['cdc', 'mystery', 'sink']);
  });

  it('goes upstream from a renamed column to the table column', () => {
    const walk = walkColumns(graph, { node_id: 'warehouse', field: 'customer' }, 'upstream', 10, false);
    assert.deepEqual(rows(walk), [
      ['orders', 'after.customer_id', 1, 'IDENTITY'],
      ['table', 'customer_id', 2, 'IDENTITY'],
    ]);
    assert.deepEqual(walk.jobs, ['sink', 'cdc']);
  });
});

describe('ReplaceField exclude over every field', () => {
  const config = (extract: boolean): ConnectorConfig => ({
    transforms: extract ? 'unwrap,drop' : 'drop',
    'transforms.unwrap.type': 'org.apache.kafka.connect.transforms.ExtractField$Value',
    'transforms.unwrap.field': 'after',
    'transforms.drop.type': 'org.apache.kafka.connect.transforms.ReplaceField$Value',
    'transforms.drop.blacklist': 'card_number',
    'transforms.drop.renames': 'card_number:card,amount:amount_eur',
  });
  /** payments (id, card_number, amount) -sink dropping card_number-> lake; cdc_payments (after.*) -sink-> lake_cdc. */
  function payments(): ResidentGraph {
    const graph = new ResidentGraph();
    for (const one of [
      bareNode('payments', 'TOPIC'),
      bareNode('payments-value', 'SCHEMA', { fields: [{ name: 'id' }, { name: 'card_number' }, { name: 'amount' }] }),
      bareNode('sink', 'CONNECTOR', { field_mapping: sinkFieldMapping(config(false)) }),
      bareNode('lake', 'EXTERNAL_DATASET'),
      bareNode('cdc_payments', 'TOPIC'),
      bareNode('cdc-value', 'SCHEMA', { fields: [{ name: 'before' }, { name: 'after' }] }),
      bareNode('cdc_sink', 'CONNECTOR', { field_mapping: sinkFieldMapping(config(true)) }),
      bareNode('lake_cdc', 'EXTERNAL_DATASET'),
    ])
      graph.setNode(one.id, one);
    for (const one of [
      edge('payments', 'HAS_SCHEMA', 'payments-value', { role: 'value' }),
      edge('payments', 'CONSUMES', 'sink'),
      edge('sink', 'PRODUCES', 'lake'),
      edge('cdc_payments', 'HAS_SCHEMA', 'cdc-value', { role: 'value' }),
      edge('cdc_payments', 'CONSUMES', 'cdc_sink'),
      edge('cdc_sink', 'PRODUCES', 'lake_cdc'),
    ])
      graph.setEdge(one);
    return graph;
  }
  const reached = (graph: ResidentGraph, node_id: string, field: string, direction: 'downstream' | 'upstream') =>
    walkColumns(graph, { node_id, field }, direction, 5, false).columns.map((column) => [column.node_id, column.field]);

  it('lists the excluded fields beside the star; a rename of an excluded field renames nothing', () => {
    assert.deepEqual(sinkFieldMapping(config(false)), {
      all_fields: true,
      struct: null,
      fields: [{ output: 'amount_eur', input: 'amount', kind: 'identity' }],
      excluded: ['card_number'],
    });
    assert.deepEqual(sinkFieldMapping(config(true))?.excluded, ['card_number']);
    assert.deepEqual(sinkFieldMapping(config(true))?.struct, 'after');
  });

  it("gives the sink the topic's schema fields minus the excluded ones, both ways", () => {
    const graph = payments();
    assert.deepEqual(knownFields(graph, 'lake'), { declared: ['amount_eur', 'id'], named: [] });
    assert.deepEqual(reached(graph, 'payments', 'card_number', 'downstream'), []);
    assert.deepEqual(reached(graph, 'payments', 'id', 'downstream'), [['lake', 'id']]);
    assert.deepEqual(reached(graph, 'payments', 'amount', 'downstream'), [['lake', 'amount_eur']]);
    assert.deepEqual(reached(graph, 'lake', 'card_number', 'upstream'), []);
    assert.deepEqual(reached(graph, 'lake', 'id', 'upstream'), [['payments', 'id']]);
    // Inside an extracted struct: after.card_number is dropped, after.id written as id.
    assert.deepEqual(reached(graph, 'cdc_payments', 'after.card_number', 'downstream'), []);
    assert.deepEqual(reached(graph, 'cdc_payments', 'after.id', 'downstream'), [['lake_cdc', 'id']]);
    assert.deepEqual(reached(graph, 'lake_cdc', 'card_number', 'upstream'), []);
  });

  it('leaves the excluded fields out of the OpenLineage facet entries', () => {
    assert.deepEqual(
      mappedColumnLineage(sinkFieldMapping(config(false))!, [
        { dataset: 'payments', fields: ['id', 'card_number', 'amount'] },
      ]).map((entry) => [entry.output, entry.inputs[0]!.column]),
      [
        ['id', 'id'],
        ['amount_eur', 'amount'],
      ],
    );
  });
});
