/**
 * A small, realistic lineage graph for tests: a Postgres CDC source connector writes `orders`, a
 * Flink statement enriches it into `orders_enriched`, an S3 sink reads that, a consumer group owned
 * by the sink reads it too, `orders` has a value schema, and Tableflow materializes the enriched
 * topic into a lakehouse table.
 */
import {
  connectorId,
  consumerGroupId,
  externalDatasetId,
  lakehouseTableId,
  materializedTableId,
  schemaId,
  streamJobId,
  topicId,
} from '../../src/graph/ids.js';
import type { Edge, LineageGraph, Node } from '../../src/graph/model.js';

export const ENV = 'env-abc123';
export const CLUSTER = 'lkc-xyz789';

export const ids = {
  postgres: externalDatasetId(ENV, 'postgres://orders-db:5432/shop.public.orders'),
  source: connectorId(ENV, CLUSTER, 'pg-orders-cdc'),
  orders: topicId(ENV, CLUSTER, 'shop.public.orders'),
  ordersSchema: schemaId(ENV, 'shop.public.orders-value'),
  enrich: streamJobId(ENV, 'enrich-orders'),
  enriched: topicId(ENV, CLUSTER, 'orders_enriched'),
  sink: connectorId(ENV, CLUSTER, 's3-orders-sink'),
  sinkGroup: consumerGroupId(ENV, CLUSTER, 'connect-lcc-s3sink'),
  s3: externalDatasetId(ENV, 's3://analytics-bucket/orders'),
  materialized: materializedTableId(ENV, CLUSTER, 'orders_enriched'),
  lakehouse: lakehouseTableId(ENV, 'confluent_tableflow', CLUSTER, 'orders_enriched'),
};

function node(id: string, fields: Partial<Node> & Pick<Node, 'node_type' | 'system'>): Node {
  const qualifiedName = id.split(':').slice(3).join(':');
  return {
    id,
    qualified_name: qualifiedName,
    display_name: qualifiedName.split('/').pop() ?? qualifiedName,
    environment_id: ENV,
    cluster_id: CLUSTER,
    attributes: null,
    ...fields,
  };
}

/**
 * A STREAM node of `node_type` whose id is also its qualified and display name, in environment `env`
 * and cluster `lkc`: the small hand-made estates of the column graph and connector field tests.
 */
export function bareNode(id: string, node_type: Node['node_type'], attributes: Node['attributes'] = {}): Node {
  return {
    id,
    node_type,
    system: 'STREAM',
    qualified_name: id,
    display_name: id,
    environment_id: 'env',
    cluster_id: 'lkc',
    attributes,
  };
}

/** An edge of `edge_type` from `src_id` to `dst_id`, with `attributes` (none by default). */
export function edge(
  src_id: string,
  edge_type: Edge['edge_type'],
  dst_id: string,
  attributes: Edge['attributes'] = null,
): Edge {
  return { src_id, dst_id, edge_type, attributes };
}

/** A fresh copy of the sample graph (11 nodes, 11 edges). */
export function sampleGraph(): LineageGraph {
  const nodes: Node[] = [
    node(ids.postgres, { node_type: 'EXTERNAL_DATASET', system: 'EXTERNAL', cluster_id: null }),
    node(ids.source, {
      node_type: 'CONNECTOR',
      system: 'STREAM',
      attributes: { connector_class: 'PostgresCdcSourceV2', connector_type: 'source', connector_id: 'lcc-pgsrc' },
    }),
    node(ids.orders, { node_type: 'TOPIC', system: 'STREAM', attributes: { partitions: 6, replication_factor: 3 } }),
    node(ids.ordersSchema, {
      node_type: 'SCHEMA',
      system: 'STREAM',
      attributes: {
        schema_type: 'AVRO',
        version: 3,
        schema_id: 100042,
        fields: [{ name: 'order_id', type: 'string' }],
      },
    }),
    node(ids.enrich, {
      node_type: 'STREAM_JOB',
      system: 'STREAM',
      cluster_id: null,
      attributes: {
        sql: 'INSERT INTO orders_enriched SELECT * FROM `shop.public.orders`',
        phase: 'RUNNING',
        compute_pool_id: 'lfcp-1',
      },
    }),
    node(ids.enriched, { node_type: 'TOPIC', system: 'STREAM', attributes: { partitions: 6, replication_factor: 3 } }),
    node(ids.sink, {
      node_type: 'CONNECTOR',
      system: 'STREAM',
      attributes: { connector_class: 'S3_SINK', connector_type: 'sink', connector_id: 'lcc-s3sink' },
    }),
    node(ids.sinkGroup, { node_type: 'CONSUMER_GROUP', system: 'STREAM', attributes: { metrics_total_lag: 12 } }),
    node(ids.s3, { node_type: 'EXTERNAL_DATASET', system: 'EXTERNAL', cluster_id: null }),
    node(ids.materialized, {
      node_type: 'MATERIALIZED_TABLE',
      system: 'STREAM',
      attributes: { table_formats: ['ICEBERG'], storage_kind: 'MANAGED' },
    }),
    node(ids.lakehouse, { node_type: 'CATALOG_TABLE', system: 'LAKEHOUSE', catalog_type: 'LAKEHOUSE_CATALOG' }),
  ];
  const edges: Edge[] = [
    edge(ids.postgres, 'CONSUMES', ids.source),
    edge(ids.source, 'PRODUCES', ids.orders),
    edge(ids.orders, 'HAS_SCHEMA', ids.ordersSchema, { role: 'value' }),
    edge(ids.orders, 'CONSUMES', ids.enrich),
    edge(ids.enrich, 'PRODUCES', ids.enriched),
    edge(ids.enriched, 'CONSUMES', ids.sink),
    edge(ids.sink, 'PRODUCES', ids.s3),
    edge(ids.enriched, 'CONSUMES', ids.sinkGroup, { lag: 12 }),
    edge(ids.sinkGroup, 'MEMBER_OF', ids.sink),
    edge(ids.enriched, 'MATERIALIZES', ids.materialized),
    edge(ids.materialized, 'MATERIALIZES', ids.lakehouse),
  ];
  return { nodes, edges };
}

/**
 * A topic `name` of environment `env-1`, cluster `lkc-1` (id `stream:topic:env-1:lkc-1/{name}`), for
 * tests that write single nodes.
 * @param attributes its attributes (default none).
 */
export function testTopic(name: string, attributes: Record<string, unknown> = {}): Node {
  return topicNode('env-1', 'lkc-1', name, attributes);
}

/**
 * A topic `name` of environment `environment`, cluster `cluster`, as an extraction records it (id
 * `stream:topic:{environment}:{cluster}/{name}`).
 * @param attributes its attributes (partitions, bootstrap endpoint…).
 */
export function topicNode(
  environment: string,
  cluster: string,
  name: string,
  attributes: Record<string, unknown>,
): Node {
  return {
    id: `stream:topic:${environment}:${cluster}/${name}`,
    node_type: 'TOPIC',
    system: 'STREAM',
    qualified_name: `${cluster}/${name}`,
    display_name: name,
    environment_id: environment,
    cluster_id: cluster,
    attributes,
  };
}
