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
import type { Node } from '../../src/graph/model.js';
import { walkColumns } from '../../projections/columnGraph.js';
import { ResidentGraph } from '../../projections/residentGraph.js';
import { edge } from '../helpers/sampleGraph.js';

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
  const node = (id: string, node_type: Node['node_type'], attributes: Node['attributes'] = {}): Node => ({
    id,
    node_type,
    system: 'STREAM',
    qualified_name: id,
    display_name: id,
    environment_id: 'env',
    cluster_id: 'lkc',
    attributes,
  });
  const graph = new ResidentGraph();
  const nodes = [
    node('table', 'EXTERNAL_DATASET'),
    node('cdc', 'CONNECTOR'),
    node('orders', 'TOPIC'),
    node('orders-value', 'SCHEMA', { fields: [{ name: 'before' }, { name: 'after' }, { name: 'op' }] }),
    node('sink', 'CONNECTOR', {
      field_mapping: sinkFieldMapping({
        ...replaceField({ renames: 'after.customer_id:customer' }),
        transforms: 'rf',
      }),
    }),
    node('warehouse', 'CATALOG_TABLE'),
    node('mystery', 'CONNECTOR', {}),
    node('elsewhere', 'EXTERNAL_DATASET'),
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
