/**
 * Column lineage through `SELECT *` expanded with topic value schemas (`src/extraction/starColumns.ts`,
 * `docs/sql-lineage.md` section 5): the pure rewrite of one edge's `column_lineage`, the value-schema
 * lookup over HAS_SCHEMA edges, and extraction against the platform simulator (a Flink statement
 * added to the demo scenario), whose OpenLineage events still validate.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import { extract } from '../../src/extraction/extract.js';
import { makeEdge, makeNode } from '../../src/extraction/graphBuilder.js';
import {
  expandStarColumns,
  hasStarColumns,
  isEdgeColumnLineage,
  valueSchemaFields,
  type FieldsOfDataset,
} from '../../src/extraction/starColumns.js';
import type { EdgeColumnLineage } from '../../src/extraction/streamProcessing.js';
import { schemaId, streamJobId, topicId } from '../../src/graph/ids.js';
import type { Node } from '../../src/graph/model.js';
import { parseLineageGraph } from '../../src/graph/validation.js';
import { isLineageError, statementLineage } from '../../src/sql/index.js';
import { silentLogger } from '../../src/logger.js';
import { graphToRunEvents } from '../../src/openlineage/fromGraph.js';
import { RunEventSchema } from '../../src/openlineage/model.js';
import { fixturesPresent } from '../openlineage/helpers.js';
import { loadValidator } from '../openlineage/validator.js';
import { DEDICATED, DEV, PROD, fastApi } from './helpers.js';

const ENV = 'env-test';
const CLUSTER = 'lkc-test';
const IN = topicId(ENV, CLUSTER, 'in_t');
const OTHER = topicId(ENV, CLUSTER, 'other_t');
const A = topicId(ENV, CLUSTER, 'a');
const B = topicId(ENV, CLUSTER, 'b');

const fields: Record<string, string[]> = {
  [IN]: ['id', 'amount', 'currency'],
  [OTHER]: ['id', 'amount', 'currency'],
  [A]: ['id', 'name'],
  [B]: ['id', 'score'],
};
const fieldsOfDataset: FieldsOfDataset = (datasetId) => fields[datasetId];

const entry = (output: string, kind: string, ...inputs: Array<[string, string]>): EdgeColumnLineage => ({
  output,
  kind,
  inputs: inputs.map(([dataset, column]) => ({ dataset, column })),
});
const compact = (columns: readonly EdgeColumnLineage[]) =>
  columns.map(
    (c) => `${c.output} ${c.kind} ${c.inputs.map((i) => `${i.dataset.split('/').pop()}.${i.column}`).join(',')}`,
  );

describe('expandStarColumns', () => {
  it('expands an identity star to one entry per value-schema field, in schema order', () => {
    // INSERT INTO out_t SELECT * FROM in_t
    const columns = [entry('*', 'identity', [IN, '*'])];
    const expanded = expandStarColumns(columns, fieldsOfDataset);
    assert.deepEqual(expanded, [
      entry('id', 'identity', [IN, 'id']),
      entry('amount', 'identity', [IN, 'amount']),
      entry('currency', 'identity', [IN, 'currency']),
    ]);
    assert.deepEqual(columns, [entry('*', 'identity', [IN, '*'])], 'the input is not changed');
  });

  it('expands a star and its filter, and leaves the explicit column and its filter alone', () => {
    // INSERT INTO out_t SELECT *, amount * 2 AS double_amount FROM in_t WHERE amount > 0
    const columns = [
      entry('*', 'identity', [IN, '*']),
      entry('*', 'filter', [IN, 'amount']),
      entry('double_amount', 'transformation', [IN, 'amount']),
      entry('double_amount', 'filter', [IN, 'amount']),
    ];
    assert.deepEqual(compact(expandStarColumns(columns, fieldsOfDataset)), [
      'id identity in_t.id',
      'amount identity in_t.amount',
      'currency identity in_t.currency',
      'id filter in_t.amount',
      'amount filter in_t.amount',
      'currency filter in_t.amount',
      'double_amount transformation in_t.amount',
      'double_amount filter in_t.amount',
    ]);
  });

  it('expands a join of two stars, each with the join keys, by the star group they follow', () => {
    // INSERT INTO out_t SELECT * FROM a JOIN b ON a.id = b.id
    const columns = [
      entry('*', 'identity', [A, '*']),
      entry('*', 'join_key', [A, 'id'], [B, 'id']),
      entry('*', 'identity', [B, '*']),
      entry('*', 'join_key', [A, 'id'], [B, 'id']),
    ];
    assert.deepEqual(compact(expandStarColumns(columns, fieldsOfDataset)), [
      'id identity a.id',
      'name identity a.name',
      'id join_key a.id,b.id',
      'name join_key a.id,b.id',
      'id identity b.id',
      'score identity b.score',
      'id join_key a.id,b.id',
      'score join_key a.id,b.id',
    ]);
  });

  it('expands only the star whose fields are known; the other star and its join keys stay `*`', () => {
    const unknown = topicId(ENV, CLUSTER, 'no_schema');
    const columns = [
      entry('*', 'identity', [A, '*']),
      entry('*', 'join_key', [A, 'id'], [unknown, 'id']),
      entry('*', 'identity', [unknown, '*']),
      entry('*', 'join_key', [A, 'id'], [unknown, 'id']),
    ];
    assert.deepEqual(compact(expandStarColumns(columns, fieldsOfDataset)), [
      'id identity a.id',
      'name identity a.name',
      'id join_key a.id,no_schema.id',
      'name join_key a.id,no_schema.id',
      '* identity no_schema.*',
      '* join_key a.id,no_schema.id',
    ]);
  });

  it('leaves a star over a topic with unknown fields as it is, returning the same array', () => {
    const columns = [
      entry('*', 'identity', [topicId(ENV, CLUSTER, 'no_schema'), '*']),
      entry('*', 'filter', [IN, 'amount']),
    ];
    assert.equal(expandStarColumns(columns, fieldsOfDataset), columns);
    assert.equal(
      expandStarColumns(columns, () => []),
      columns,
      'an empty field list is unknown, not zero columns',
    );
  });

  it('leaves unresolved inputs as they are, even when their name has fields', () => {
    const columns: EdgeColumnLineage[] = [
      { output: '*', kind: 'identity', inputs: [{ dataset: IN, column: '*', resolved: false }] },
      entry('*', 'filter', [IN, 'amount']),
    ];
    assert.equal(expandStarColumns(columns, fieldsOfDataset), columns);
  });

  it('keeps an explicit output whose name a star field repeats, unmerged and in its place', () => {
    // INSERT INTO out_t SELECT UPPER(currency) AS currency, * FROM in_t
    const columns = [entry('currency', 'transformation', [IN, 'currency']), entry('*', 'identity', [IN, '*'])];
    assert.deepEqual(compact(expandStarColumns(columns, fieldsOfDataset)), [
      'currency transformation in_t.currency',
      'id identity in_t.id',
      'amount identity in_t.amount',
      'currency identity in_t.currency',
    ]);
  });

  it('does not apply an indirect star entry across an explicit output', () => {
    const columns = [
      entry('*', 'identity', [IN, '*']),
      entry('x', 'transformation', [IN, 'amount']),
      entry('*', 'filter', [IN, 'amount']),
    ];
    assert.deepEqual(compact(expandStarColumns(columns, fieldsOfDataset)).slice(3), [
      'x transformation in_t.amount',
      '* filter in_t.amount',
    ]);
  });

  it('expands a UNION of stars only when the inputs have the same fields', () => {
    const same = [entry('*', 'identity', [IN, '*'], [OTHER, '*'])];
    assert.deepEqual(compact(expandStarColumns(same, fieldsOfDataset)), [
      'id identity in_t.id,other_t.id',
      'amount identity in_t.amount,other_t.amount',
      'currency identity in_t.currency,other_t.currency',
    ]);
    const different = [entry('*', 'identity', [IN, '*'], [A, '*'])];
    assert.equal(expandStarColumns(different, fieldsOfDataset), different);
  });

  it('leaves a star whose input is a named column (a table function) as it is', () => {
    const columns = [entry('*', 'transformation', [IN, 'amount'])];
    assert.equal(expandStarColumns(columns, fieldsOfDataset), columns);
  });

  it('recognizes the attribute shape and star entries', () => {
    assert.ok(isEdgeColumnLineage([entry('*', 'identity', [IN, '*'])]));
    assert.ok(!isEdgeColumnLineage([{ output: '*', kind: 'identity', inputs: [{ dataset: IN }] }]));
    assert.ok(!isEdgeColumnLineage({ output: '*' }));
    assert.ok(hasStarColumns([entry('x', 'identity', [IN, 'x']), entry('*', 'identity', [IN, '*'])]));
    assert.ok(!hasStarColumns([entry('x', 'identity', [IN, 'x'])]));
  });
});

describe('expandStarColumns over the parser output', () => {
  // The rule relies on the parser's order: each output's direct entry, then its indirect entries.
  const datasets: Record<string, string> = { in_t: IN, a: A, b: B };
  const parsed = (sql: string): EdgeColumnLineage[] => {
    const result = statementLineage(sql, { dialect: 'flink' });
    if (isLineageError(result)) throw new Error(result.error);
    return result.columnLineage[0]!.columns.map((c) => ({
      output: c.output,
      kind: c.kind,
      inputs: c.inputs.map((i) => ({ dataset: datasets[i.table.parts.join('.')]!, column: i.column })),
    }));
  };

  it('star plus an explicit column and a filter', () => {
    const columns = parsed('INSERT INTO out_t SELECT *, amount * 2 AS double_amount FROM in_t WHERE amount > 0');
    assert.deepEqual(compact(columns), [
      '* identity in_t.*',
      '* filter in_t.amount',
      'double_amount transformation in_t.amount',
      'double_amount filter in_t.amount',
    ]);
    assert.deepEqual(compact(expandStarColumns(columns, fieldsOfDataset)).slice(0, 6), [
      'id identity in_t.id',
      'amount identity in_t.amount',
      'currency identity in_t.currency',
      'id filter in_t.amount',
      'amount filter in_t.amount',
      'currency filter in_t.amount',
    ]);
  });

  it('a join of two stars', () => {
    const columns = parsed('INSERT INTO out_t SELECT * FROM a JOIN b ON a.id = b.id');
    assert.deepEqual(compact(columns), [
      '* identity a.*',
      '* join_key a.id,b.id',
      '* identity b.*',
      '* join_key a.id,b.id',
    ]);
    assert.equal(expandStarColumns(columns, fieldsOfDataset).length, 8);
  });

  it('nested stars have the same form as one star', () => {
    const columns = parsed('CREATE TABLE c AS SELECT * FROM (SELECT * FROM in_t)');
    assert.deepEqual(compact(columns), ['* identity in_t.*']);
    assert.deepEqual(compact(expandStarColumns(columns, fieldsOfDataset)), [
      'id identity in_t.id',
      'amount identity in_t.amount',
      'currency identity in_t.currency',
    ]);
  });
});

describe('valueSchemaFields', () => {
  const topic = (name: string): Node =>
    makeNode({
      id: topicId(ENV, CLUSTER, name),
      nodeType: 'TOPIC',
      system: 'STREAM',
      qualifiedName: `${CLUSTER}/${name}`,
      displayName: name,
      environmentId: ENV,
      clusterId: CLUSTER,
    });
  const schema = (subject: string, names: string[] | null): Node =>
    makeNode({
      id: schemaId(ENV, subject),
      nodeType: 'SCHEMA',
      system: 'STREAM',
      qualifiedName: subject,
      displayName: subject,
      environmentId: ENV,
      clusterId: null,
      attributes: { fields: names?.map((name) => ({ name, type: 'string' })) ?? null },
    });
  const nodes = [
    topic('orders'),
    topic('events'),
    topic('mixed'),
    topic('opaque'),
    schema('orders-key', ['order_id']),
    schema('orders-value', ['order_id', 'status']),
    schema('events-com.acme.Click', ['page']),
    schema('events-com.acme.View', ['screen']),
    schema('mixed-value', ['a', 'b']),
    schema('mixed-com.acme.Mixed', ['c']),
    schema('opaque-value', null),
  ];
  const link = (name: string, subject: string, role: string) =>
    makeEdge(topicId(ENV, CLUSTER, name), 'HAS_SCHEMA', schemaId(ENV, subject), { role });
  const edges = [
    link('orders', 'orders-key', 'key'),
    link('orders', 'orders-value', 'value'),
    link('events', 'events-com.acme.Click', 'value'),
    link('events', 'events-com.acme.View', 'value'),
    link('mixed', 'mixed-value', 'value'),
    link('mixed', 'mixed-com.acme.Mixed', 'value'),
    link('opaque', 'opaque-value', 'value'),
  ];
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const lookup = valueSchemaFields(edges, (id) => byId.get(id));

  it('reads the value schema, not the key schema', () => {
    assert.deepEqual(lookup(topicId(ENV, CLUSTER, 'orders')), ['order_id', 'status']);
  });

  it('prefers the {topic}-value subject among several value schemas, and knows nothing when none is', () => {
    assert.deepEqual(lookup(topicId(ENV, CLUSTER, 'mixed')), ['a', 'b']);
    assert.equal(lookup(topicId(ENV, CLUSTER, 'events')), undefined, 'two record types on one topic');
  });

  it('knows nothing of a topic without a value schema or with unread fields', () => {
    assert.equal(lookup(topicId(ENV, CLUSTER, 'opaque')), undefined);
    assert.equal(lookup(topicId(ENV, CLUSTER, 'nowhere')), undefined);
  });
});

describe('SELECT * through extraction', () => {
  const STATEMENT = 'customers-star-copy';
  const SQL =
    "INSERT INTO `customers_copy` SELECT *, UPPER(`email`) AS `email_upper` FROM `pg.retail.public.customers` WHERE `op` <> 'd';";
  let sim: PlatformSimulator;
  before(async () => {
    sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
    const prod = sim.scenario.environments.find((environment) => environment.id === PROD)!;
    const template = prod.flink.statements.find((statement) => statement.name === 'enrich-orders')!;
    sim.mutate([
      {
        op: 'put_statement',
        environment_id: PROD,
        statement: { ...template, name: STATEMENT, source_topics: ['pg.retail.public.customers'], sql: SQL },
      },
    ]);
  });
  after(async () => {
    await sim.close();
  });

  it('gives the PRODUCES edge of a Flink SELECT * one entry per field of the Avro value schema, and its events validate', async (t) => {
    const result = await extract({ platform: fastApi(sim), logger: silentLogger() }, { environmentIds: [PROD, DEV] });
    const graph = parseLineageGraph(result.graph);
    const customers = topicId(PROD, DEDICATED, 'pg.retail.public.customers');
    assert.ok(
      graph.edges.some(
        (e) =>
          e.src_id === customers &&
          e.edge_type === 'HAS_SCHEMA' &&
          e.dst_id === schemaId(PROD, 'pg.retail.public.customers-value'),
      ),
    );
    const produces = graph.edges.find(
      (e) =>
        e.src_id === streamJobId(PROD, STATEMENT) &&
        e.edge_type === 'PRODUCES' &&
        e.dst_id === topicId(PROD, DEDICATED, 'customers_copy'),
    );
    assert.ok(produces, 'the statement produces customers_copy');
    const columns = produces.attributes?.column_lineage as EdgeColumnLineage[];
    const value = ['customer_id', 'email', 'full_name', 'loyalty_tier', 'address', 'op'];
    // An INSERT without a column list: each entry keeps its position in the expanded query (7 columns)
    // for readers to name it after the sink's columns (customers_copy has no schema here).
    const at = (position: number) => ({ position, query_columns: 7 });
    const expected: EdgeColumnLineage[] = [
      ...value.map((field, index) => ({
        output: field,
        kind: 'identity',
        inputs: [{ dataset: customers, column: field }],
        ...at(index),
      })),
      ...value.map((field, index) => ({
        output: field,
        kind: 'filter',
        inputs: [{ dataset: customers, column: 'op' }],
        ...at(index),
      })),
      { output: 'email_upper', kind: 'transformation', inputs: [{ dataset: customers, column: 'email' }], ...at(6) },
      { output: 'email_upper', kind: 'filter', inputs: [{ dataset: customers, column: 'op' }], ...at(6) },
    ];
    assert.deepEqual(columns, expected);
    assert.ok(!hasStarColumns(columns));

    const events = graphToRunEvents(graph, { eventTime: '2026-03-01T12:00:00Z' });
    const event = events.find((candidate) => candidate.job.name.endsWith(STATEMENT));
    assert.ok(event, 'the statement has a RunEvent');
    const facet = event.outputs.find((dataset) => dataset.name.endsWith('customers_copy'))?.facets
      ?.columnLineage as unknown as { fields: Record<string, unknown> } | undefined;
    assert.deepEqual(Object.keys(facet?.fields ?? {}).sort(), [...value, 'email_upper'].sort());
    for (const candidate of events) RunEventSchema.parse(candidate);
    if (!fixturesPresent(t, 'spec')) return;
    const validator = loadValidator();
    for (const candidate of events)
      assert.deepEqual(validator.errors(candidate), [], `${candidate.job.namespace} ${candidate.job.name}`);
  });
});
