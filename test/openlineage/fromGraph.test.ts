import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { graphToRunEvents, openLineageIdentity, splitUri } from '../../src/openlineage/fromGraph.js';
import { RunEventSchema, isUuid, type RunEvent } from '../../src/openlineage/model.js';
import { CLUSTER, ENV, ids, sampleGraph } from '../helpers/sampleGraph.js';
import { datalakeTableId, warehouseTableId } from '../../src/graph/ids.js';
import type { LineageGraph } from '../../src/graph/model.js';
import { fixturesPresent } from './helpers.js';
import { loadValidator } from './validator.js';

const NS = `stream://${ENV}/${CLUSTER}`;
const TIME = '2026-03-01T12:00:00.000Z';

function withBootstrap(graph: LineageGraph): LineageGraph {
  return {
    ...graph,
    nodes: graph.nodes.map((node) =>
      node.node_type === 'TOPIC'
        ? {
            ...node,
            attributes: { ...node.attributes, bootstrap_endpoint: 'pkc-abc.eu-west-1.aws.confluent.cloud:9092' },
          }
        : node,
    ),
  };
}

/** The sample graph plus a warehouse table derived (TRANSFORMS) from a data-lake table. */
function enrichedGraph(): LineageGraph {
  const graph = withBootstrap(sampleGraph());
  const glue = datalakeTableId('eu-west-1', CLUSTER, 'orders_enriched');
  const bq = warehouseTableId(ENV, 'proj', 'ds', 'orders_daily');
  graph.nodes.push(
    {
      id: glue,
      node_type: 'CATALOG_TABLE',
      system: 'DATALAKE',
      qualified_name: `${CLUSTER}/orders_enriched`,
      display_name: 'orders_enriched',
      environment_id: ENV,
      cluster_id: CLUSTER,
      attributes: { region: 'eu-west-1' },
      catalog_type: 'DATALAKE_CATALOG',
    },
    {
      id: bq,
      node_type: 'CATALOG_TABLE',
      system: 'WAREHOUSE',
      qualified_name: 'proj.ds.orders_daily',
      display_name: 'orders_daily',
      environment_id: ENV,
      cluster_id: null,
      attributes: null,
      catalog_type: 'WAREHOUSE_LINEAGE',
    },
  );
  graph.edges.push(
    { src_id: ids.materialized, dst_id: glue, edge_type: 'MATERIALIZES', attributes: null },
    { src_id: glue, dst_id: bq, edge_type: 'TRANSFORMS', attributes: null },
  );
  return graph;
}

const byJob = (events: RunEvent[], name: string) => {
  const event = events.find((entry) => entry.job.name === name);
  assert.ok(event, `an event for job ${name}`);
  return event;
};
const names = (datasets: RunEvent['inputs']) =>
  datasets.map((dataset) => `${dataset.namespace}|${dataset.name}`).sort();

describe('graph to OpenLineage RunEvents', () => {
  it('emits one COMPLETE RunEvent per job with the contract edge directions', () => {
    const events = graphToRunEvents(withBootstrap(sampleGraph()), { eventTime: TIME });
    assert.deepEqual(events.map((event) => event.job.name).sort(), [
      'connect-lcc-s3sink',
      'enrich-orders',
      'pg-orders-cdc',
      's3-orders-sink',
    ]);
    for (const event of events) {
      assert.equal(event.eventType, 'COMPLETE');
      assert.equal(event.eventTime, TIME);
      assert.ok(isUuid(event.run.runId));
      RunEventSchema.parse(event);
    }
    const source = byJob(events, 'pg-orders-cdc');
    assert.equal(source.job.namespace, NS);
    assert.deepEqual(
      names(source.inputs),
      ['postgres://orders-db:5432|shop.public.orders'],
      'source connector reads its external dataset',
    );
    assert.deepEqual(names(source.outputs), [`${NS}|shop.public.orders`]);
    assert.equal(
      (source.job.facets?.stream_connector as unknown as { connector_class: string }).connector_class,
      'PostgresCdcSourceV2',
    );

    const flink = byJob(events, 'enrich-orders');
    assert.equal(
      flink.job.namespace,
      `stream://${ENV}/lfcp-1`,
      'a statement without a cluster is in its compute pool, not its topics',
    );
    assert.equal(
      (flink.job.facets?.sql as unknown as { query: string }).query,
      'INSERT INTO orders_enriched SELECT * FROM `shop.public.orders`',
    );
    assert.deepEqual(names(flink.inputs), [`${NS}|shop.public.orders`]);
    assert.deepEqual(
      names(flink.outputs),
      [`${NS}|orders_enriched`, `lakehouse://unknown-workspace|confluent_tableflow.${CLUSTER}.orders_enriched`].sort(),
      'Tableflow outputs via MATERIALIZES',
    );

    const sink = byJob(events, 's3-orders-sink');
    assert.deepEqual(names(sink.inputs), [`${NS}|orders_enriched`]);
    assert.deepEqual(
      names(sink.outputs),
      ['s3://analytics-bucket|orders'],
      'sink connector writes its external dataset',
    );
    const group = byJob(events, 'connect-lcc-s3sink');
    assert.deepEqual(names(group.inputs), [`${NS}|orders_enriched`], 'a consumer group reads its topics');

    const orders = source.outputs[0]!;
    assert.deepEqual((orders.facets?.schema as unknown as { fields: unknown[] }).fields, [
      { name: 'order_id', type: 'string' },
    ]);
    assert.deepEqual(orders.facets?.symlinks?.identifiers, [
      { namespace: 'kafka://pkc-abc.eu-west-1.aws.confluent.cloud:9092', name: 'shop.public.orders', type: 'TOPIC' },
    ]);
    const topicFacet = orders.facets?.stream_topic as Record<string, unknown>;
    assert.deepEqual([topicFacet.partitions, topicFacet.replication_factor, topicFacet.cluster_id], [6, 3, CLUSTER]);
  });

  it("puts a Flink statement's job in its own namespace, never in that of the topics it reads or writes", () => {
    // A statement of environment env-a (compute pool lfcp-a) reads a topic of cluster lkc-x and writes
    // one of cluster lkc-y; its sql.current-database names no cluster of env-a (cluster_id null),
    // or names its own cluster lkc-own.
    const topicNode = (cluster: string, name: string): LineageGraph['nodes'][number] => ({
      id: `stream:topic:env-a:${cluster}/${name}`,
      node_type: 'TOPIC',
      system: 'STREAM',
      qualified_name: `${cluster}/${name}`,
      display_name: name,
      environment_id: 'env-a',
      cluster_id: cluster,
      attributes: null,
    });
    const statement = (name: string, cluster: string | null): LineageGraph['nodes'][number] => ({
      id: `stream:stream_job:env-a:${name}`,
      node_type: 'STREAM_JOB',
      system: 'STREAM',
      qualified_name: name,
      display_name: name,
      environment_id: 'env-a',
      cluster_id: cluster,
      attributes: { sql: 'INSERT INTO shipped SELECT * FROM orders', compute_pool_id: 'lfcp-a' },
    });
    const orders = topicNode('lkc-x', 'orders');
    const shipped = topicNode('lkc-y', 'shipped');
    const graph: LineageGraph = {
      nodes: [orders, shipped, statement('unplaced', null), statement('placed', 'lkc-own')],
      edges: ['unplaced', 'placed'].flatMap((name) => [
        {
          src_id: orders.id,
          dst_id: `stream:stream_job:env-a:${name}`,
          edge_type: 'CONSUMES' as const,
          attributes: null,
        },
        {
          src_id: `stream:stream_job:env-a:${name}`,
          dst_id: shipped.id,
          edge_type: 'PRODUCES' as const,
          attributes: null,
        },
      ]),
    };
    const events = graphToRunEvents(graph, { eventTime: TIME });
    assert.deepEqual(
      events.map((event) => [event.job.namespace, event.job.name, names(event.inputs), names(event.outputs)]).sort(),
      [
        ['stream://env-a/lfcp-a', 'unplaced', ['stream://env-a/lkc-x|orders'], ['stream://env-a/lkc-y|shipped']],
        ['stream://env-a/lkc-own', 'placed', ['stream://env-a/lkc-x|orders'], ['stream://env-a/lkc-y|shipped']],
      ],
    );
    assert.deepEqual(openLineageIdentity(statement('unplaced', null)), {
      namespace: 'stream://env-a/lfcp-a',
      name: 'unplaced',
    });
  });

  it('keeps runIds stable while a job is unchanged and changes them when it changes', () => {
    const first = graphToRunEvents(sampleGraph(), { eventTime: TIME });
    const again = graphToRunEvents(sampleGraph(), { eventTime: '2027-01-01T00:00:00.000Z' });
    assert.deepEqual(
      first.map((event) => event.run.runId),
      again.map((event) => event.run.runId),
    );
    const changed = sampleGraph();
    changed.nodes = changed.nodes.map((node) =>
      node.id === ids.enrich ? { ...node, attributes: { ...node.attributes, sql: 'SELECT 1' } } : node,
    );
    const after = graphToRunEvents(changed, { eventTime: TIME });
    assert.notEqual(byJob(after, 'enrich-orders').run.runId, byJob(first, 'enrich-orders').run.runId);
    assert.equal(byJob(after, 'pg-orders-cdc').run.runId, byJob(first, 'pg-orders-cdc').run.runId);
  });

  it('the confluent view keeps stream nodes only; the enriched view filters by systems', () => {
    const confluent = graphToRunEvents(enrichedGraph(), { streamOnly: true, eventTime: TIME });
    for (const event of confluent) {
      for (const dataset of [...event.inputs, ...event.outputs])
        assert.ok(dataset.namespace.startsWith('stream://'), dataset.namespace);
    }
    assert.deepEqual(byJob(confluent, 'pg-orders-cdc').inputs, []);
    const enriched = graphToRunEvents(enrichedGraph(), { eventTime: TIME });
    const transform = byJob(enriched, 'transforms:orders_daily');
    assert.deepEqual(names(transform.inputs), [`datalake://eu-west-1/${CLUSTER}|orders_enriched`]);
    assert.deepEqual(names(transform.outputs), ['warehouse://proj/ds|orders_daily']);
    assert.ok(
      names(byJob(enriched, 'enrich-orders').outputs).includes(`datalake://eu-west-1/${CLUSTER}|orders_enriched`),
    );
    const onlyStreamAndExternal = graphToRunEvents(enrichedGraph(), {
      systems: new Set(['STREAM', 'EXTERNAL'] as const),
      eventTime: TIME,
    });
    assert.equal(
      onlyStreamAndExternal.some((event) => event.job.name.startsWith('transforms:')),
      false,
    );
    assert.deepEqual(names(byJob(onlyStreamAndExternal, 'pg-orders-cdc').inputs), [
      'postgres://orders-db:5432|shop.public.orders',
    ]);
  });

  it('maps namespaces per the specification and OpenLineage naming', () => {
    assert.deepEqual(splitUri('s3://bucket/a/b.parquet'), { namespace: 's3://bucket', name: 'a/b.parquet' });
    assert.deepEqual(splitUri('postgres://db:5432/app.public.t'), {
      namespace: 'postgres://db:5432',
      name: 'app.public.t',
    });
    assert.equal(splitUri('not a uri'), null);
    const lakehouse = openLineageIdentity({
      id: 'lakehouse:catalog_table:e:c.s.t',
      node_type: 'CATALOG_TABLE',
      system: 'LAKEHOUSE',
      qualified_name: 'c.s.t',
      display_name: 't',
      environment_id: 'e',
      cluster_id: null,
      attributes: { workspace_url: 'https://dbc-1.cloud.databricks.com/' },
    });
    assert.deepEqual(lakehouse, { namespace: 'lakehouse://dbc-1.cloud.databricks.com', name: 'c.s.t' });
  });

  it('every emitted event validates against the official OpenLineage 2-0-2 and facet schemas', (t) => {
    if (!fixturesPresent(t, 'spec/OpenLineage.json')) return;
    const validator = loadValidator();
    const events = [
      ...graphToRunEvents(enrichedGraph(), { eventTime: TIME }),
      ...graphToRunEvents(enrichedGraph(), { streamOnly: true, eventTime: TIME }),
    ];
    assert.ok(events.length >= 9);
    for (const event of events) assert.deepEqual(validator.errors(event), [], `${event.job.name} validates`);
    // The validator does catch problems (a sanity check of the check itself).
    const broken = structuredClone(events[0]!) as unknown as Record<string, any>;
    broken.run.runId = 'not-a-uuid';
    delete broken.job.facets.sql;
    broken.job.facets.documentation = { description: 'x' };
    assert.ok(validator.errors(broken).length >= 2);
  });
});
