/**
 * Example values of the OpenAPI document (`openApiOperations.ts` attaches them to the operations):
 * taken from the demo estate (`simulators/confluent/scenarios/demo.yaml`, what `make demo` extracts),
 * environment `env-q7m2k9`, cluster `lkc-7x9m2p`, the change-data-capture connector `pg-retail-cdc`
 * writing `pg.retail.public.orders`, which the Flink statement `enrich-orders` reads to write
 * `orders_enriched`. Attributes are shortened. `test/http/openApiDocument.test.ts` validates every
 * example against the schema it illustrates, and sends the request examples to a real API.
 */
import { EXPORT_FORMATS, EXPORT_MEDIA, exportGraph, type ExportableGraph } from '../../src/export/index.js';

/** The demo's default graph (the graph extractions write to). */
export const EXAMPLE_GRAPH_ID = '85583bda-c716-56cb-b241-625345095220';
/** A second graph, created through the API. */
const SANDBOX_GRAPH_ID = 'eeae4e7e-12c5-498c-a4e8-b9d8827d7e70';
const ENVIRONMENT = 'env-q7m2k9';
const CLUSTER = 'lkc-7x9m2p';
const RECORDED_AT = '2026-11-25T03:55:37.988Z';
const PRODUCER = 'https://github.com/lineage-svc/lineage-svc/tree/v0.1.0';

/** The node id used in the examples' paths, as stored (percent-encode it in a path). */
export const EXAMPLE_NODE_ID = `stream:topic:${ENVIRONMENT}:${CLUSTER}/pg.retail.public.orders`;

/** The topic the connector writes (a TOPIC node). */
export const ordersTopic = {
  id: EXAMPLE_NODE_ID,
  node_type: 'TOPIC',
  system: 'STREAM',
  qualified_name: `${CLUSTER}/pg.retail.public.orders`,
  display_name: 'pg.retail.public.orders',
  environment_id: ENVIRONMENT,
  cluster_id: CLUSTER,
  attributes: {
    partitions: 12,
    replication_factor: 3,
    tags: ['PII', 'Raw'],
    owner: 'orders-platform',
    description: 'Change events of the public.orders table (Debezium envelope)',
    metrics_received_records: 132223,
    metrics_active: true,
    metrics_window_hours: 1,
  },
};

/** The source connector (a CONNECTOR node). */
export const cdcConnector = {
  id: `stream:connector:${ENVIRONMENT}:${CLUSTER}/pg-retail-cdc`,
  node_type: 'CONNECTOR',
  system: 'STREAM',
  qualified_name: `${CLUSTER}/pg-retail-cdc`,
  display_name: 'pg-retail-cdc',
  environment_id: ENVIRONMENT,
  cluster_id: CLUSTER,
  attributes: { connector_class: 'PostgresCdcSourceV2', connector_type: 'source', state: 'RUNNING', tasks: 1 },
};

/** The Flink statement that reads the topic (a STREAM_JOB node). */
export const enrichOrdersJob = {
  id: `stream:stream_job:${ENVIRONMENT}:enrich-orders`,
  node_type: 'STREAM_JOB',
  system: 'STREAM',
  qualified_name: 'enrich-orders',
  display_name: 'enrich-orders',
  environment_id: ENVIRONMENT,
  cluster_id: CLUSTER,
  attributes: { phase: 'RUNNING', compute_pool_id: 'lfcp-6z1w4r', sql_kind: 'INSERT_INTO', stopped: false },
};

/** The topic the statement writes. */
export const ordersEnrichedTopic = {
  id: `stream:topic:${ENVIRONMENT}:${CLUSTER}/orders_enriched`,
  node_type: 'TOPIC',
  system: 'STREAM',
  qualified_name: `${CLUSTER}/orders_enriched`,
  display_name: 'orders_enriched',
  environment_id: ENVIRONMENT,
  cluster_id: CLUSTER,
  attributes: { partitions: 12, replication_factor: 3, tags: ['Gold', 'PII'], owner: 'orders-platform' },
};

/** The connector PRODUCES the topic. */
export const producesEdge = {
  src_id: cdcConnector.id,
  dst_id: ordersTopic.id,
  edge_type: 'PRODUCES',
  attributes: null,
};

/** The statement CONSUMES the topic. */
export const consumesEdge = {
  src_id: ordersTopic.id,
  dst_id: enrichOrdersJob.id,
  edge_type: 'CONSUMES',
  attributes: null,
};

/** The statement PRODUCES the enriched topic. */
const enrichedEdge = {
  src_id: enrichOrdersJob.id,
  dst_id: ordersEnrichedTopic.id,
  edge_type: 'PRODUCES',
  attributes: null,
};

/** A graph file (LineageGraph): the four nodes and three edges above. */
export const lineageGraph = {
  nodes: [cdcConnector, ordersTopic, enrichOrdersJob, ordersEnrichedTopic],
  edges: [producesEdge, consumesEdge, enrichedEdge],
};

/** The demo's default graph as `GET /graphs` lists it. */
export const graphSummary = {
  graph_id: EXAMPLE_GRAPH_ID,
  name: 'default',
  description: null,
  node_count: 71,
  edge_count: 82,
  revision: 2,
  created_at: RECORDED_AT,
  updated_at: RECORDED_AT,
};

/** A graph created through the API, still empty. */
export const createdGraph = {
  graph_id: SANDBOX_GRAPH_ID,
  name: 'orders-sandbox',
  description: 'Hand-drawn lineage of the orders pipeline',
  node_count: 0,
  edge_count: 0,
  revision: 0,
  created_at: '2026-11-25T03:59:45.061Z',
  updated_at: '2026-11-25T03:59:45.061Z',
};

/** A graph with its content (an excerpt: counts are of the whole demo graph). */
export const graphWithContent = { ...graphSummary, ...lineageGraph };

/** The drawing of the graph file above (`GET /graphs/{id}/drawing`): its nodes and edges in columns. */
export const graphDrawing = {
  ...graphSummary,
  node_count: 4,
  edge_count: 3,
  node_types: ['CONNECTOR', 'TOPIC', 'STREAM_JOB'],
  systems: ['STREAM'],
  edge_types: ['PRODUCES', 'CONSUMES'],
  environments: [ENVIRONMENT],
  clusters: [CLUSTER],
  nodes: {
    id: lineageGraph.nodes.map((node) => node.id),
    node_type: [0, 1, 2, 1],
    system: [0, 0, 0, 0],
    display_name: lineageGraph.nodes.map((node) => node.display_name),
    qualified_name: [cdcConnector.qualified_name, ordersTopic.qualified_name, null, ordersEnrichedTopic.qualified_name],
    environment: [0, 0, 0, 0],
    cluster: [0, 0, 0, 0],
  },
  edges: { source: [0, 1, 2], target: [1, 2, 3], edge_type: [0, 1, 0] },
  internal: [],
  throughput: { node: [], received_bytes: [], sent_bytes: [] },
};

/** The counts of one write. */
export const changeCounts = {
  nodes_added: 71,
  nodes_changed: 0,
  nodes_removed: 0,
  edges_added: 82,
  edges_changed: 0,
  edges_removed: 0,
};

/** The downstream of the topic within 2 hops. */
export const traversal = {
  origin: ordersTopic,
  direction: 'downstream',
  hops: 2,
  nodes: [
    { ...enrichOrdersJob, hop: 1 },
    { ...ordersEnrichedTopic, hop: 2 },
  ],
  edges: [consumesEdge, enrichedEdge],
  node_count: 2,
  edge_count: 2,
};

/** The upstream of the enriched topic within 2 hops. */
export const upstreamTraversal = {
  origin: ordersEnrichedTopic,
  direction: 'upstream',
  hops: 2,
  nodes: [
    { ...enrichOrdersJob, hop: 1 },
    { ...ordersTopic, hop: 2 },
  ],
  edges: [enrichedEdge, consumesEdge],
  node_count: 2,
  edge_count: 2,
};

/** The demo graph's history: one extraction. */
export const graphHistory = {
  graph_id: EXAMPLE_GRAPH_ID,
  changes: [
    {
      revision: 2,
      time: RECORDED_AT,
      cause: 'extraction',
      actor: 'cli',
      correlation_id: 'fb4499fd-c234-48b3-a0d8-aa2d8e0f2d51',
      kind: 'created',
      counts: changeCounts,
    },
  ],
};

/** What changed between revision 2 and a later one where the statement was renamed. */
export const graphDiff = {
  graph_id: EXAMPLE_GRAPH_ID,
  from: { as_of: '2', revision: 2, time: RECORDED_AT },
  to: { as_of: null, revision: 3, time: '2026-11-25T04:10:02.115Z' },
  nodes: {
    added: [],
    removed: [],
    changed: [
      {
        id: enrichOrdersJob.id,
        before: enrichOrdersJob,
        after: { ...enrichOrdersJob, attributes: { ...enrichOrdersJob.attributes, phase: 'STOPPED', stopped: true } },
      },
    ],
  },
  edges: { added: [], removed: [], changed: [] },
};

/** A node's metric samples. */
export const nodeMetricSeries = {
  graph_id: EXAMPLE_GRAPH_ID,
  node_id: EXAMPLE_NODE_ID,
  since: '2026-11-25T00:00:00.000Z',
  until: null,
  series_limit: 48,
  samples: [
    {
      window_start: '2026-11-25T02:55:37.000Z',
      window_end: '2026-11-25T03:55:37.000Z',
      recorded_at: RECORDED_AT,
      correlation_id: 'fb4499fd-c234-48b3-a0d8-aa2d8e0f2d51',
      metrics: { metrics_received_bytes: 74176973, metrics_received_records: 132223, metrics_active: true },
    },
  ],
  count: 1,
};

/** A node's provenance: added by an extraction, removed by a later one that did not list it. */
export const nodeProvenance = {
  graph_id: EXAMPLE_GRAPH_ID,
  element: { node_id: EXAMPLE_NODE_ID },
  present: false,
  first_seen: '2026-11-25T02:55:37.000Z',
  last_seen: RECORDED_AT,
  total: 2,
  changes: [
    {
      revision: 3,
      recorded_at: '2026-11-25T02:55:37.000Z',
      change: 'added',
      cause: 'extraction',
      actor: 'cli',
      correlation_id: '8f0a5c8e-5d1e-4f44-a1a4-2f4f1b8d6e10',
      reason: 'added by extraction 8f0a5c8e-5d1e-4f44-a1a4-2f4f1b8d6e10 by lineage-svc-extract',
      state: null,
    },
    {
      revision: 9,
      recorded_at: RECORDED_AT,
      change: 'removed',
      cause: 'extraction',
      actor: 'watcher:prod',
      correlation_id: 'fb4499fd-c234-48b3-a0d8-aa2d8e0f2d51',
      reason: `not listed by the extraction of environment ${ENVIRONMENT} at revision 9 (extraction fb4499fd-c234-48b3-a0d8-aa2d8e0f2d51)`,
      state: null,
    },
  ],
};

/** An OpenLineage RunEvent as the confluent view gives it for the statement (facets shortened). */
export const runEvent = {
  eventTime: RECORDED_AT,
  producer: PRODUCER,
  schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
  eventType: 'COMPLETE',
  run: { runId: 'bfef11b8-57e5-5423-9580-02c54f578541' },
  job: {
    namespace: `stream://${ENVIRONMENT}/${CLUSTER}`,
    name: 'enrich-orders',
    facets: {
      jobType: {
        _producer: PRODUCER,
        _schemaURL: 'https://openlineage.io/spec/facets/2-0-4/JobTypeJobFacet.json#/$defs/JobTypeJobFacet',
        processingType: 'STREAMING',
        integration: 'STREAM',
        jobType: 'STREAM_JOB',
      },
    },
  },
  inputs: [{ namespace: `stream://${ENVIRONMENT}/${CLUSTER}`, name: 'pg.retail.public.orders', facets: {} }],
  outputs: [{ namespace: `stream://${ENVIRONMENT}/${CLUSTER}`, name: 'orders_enriched', facets: {} }],
};

/** A dataset as the OpenLineage queries list it. */
export const lineageDataset = {
  namespace: `stream://${ENVIRONMENT}/${CLUSTER}`,
  name: 'pg.retail.public.orders',
  facets: {},
  first_seen: RECORDED_AT,
  last_seen: RECORDED_AT,
};

/** A job as the OpenLineage queries list it. */
export const lineageJob = {
  namespace: `stream://${ENVIRONMENT}/${CLUSTER}`,
  name: 'enrich-orders',
  facets: runEvent.job.facets,
  latest_run_id: runEvent.run.runId,
  latest_event_type: 'COMPLETE',
  latest_event_time: RECORDED_AT,
};

/** A task that failed because no platform credentials were set. */
export const failedTask = {
  task_id: 'bf99691a-1863-4d16-ab1f-4fcbdffc3321',
  task_type: 'extract',
  status: 'failed',
  phase: 'Discovery',
  message: 'extracting 1 environment(s)',
  parameters: { environment_ids: [ENVIRONMENT], cluster_ids: [], enable_metrics: false, metrics_lookback_hours: 1 },
  result: null,
  error: 'extraction needs LINEAGE_SVC_STREAM_CLOUD_API_KEY and LINEAGE_SVC_STREAM_CLOUD_API_SECRET, which are not set',
  created_at: '2026-11-25T03:59:45.127Z',
  updated_at: '2026-11-25T03:59:45.169Z',
  completed_at: '2026-11-25T03:59:45.169Z',
};

/** A watcher of the demo environment. */
export const watcher = {
  watcher_id: '9ce6171d-71a5-404d-9e36-a027b6c5313b',
  state: 'WATCHING',
  reason: 'started',
  environment_ids: [ENVIRONMENT],
  cluster_ids: [],
  cooldown_seconds: 30,
  poll_interval_seconds: 10,
  push: [],
  running_here: true,
  started_at: '2026-11-25T03:59:46.223Z',
  updated_at: '2026-11-25T03:59:46.269Z',
  stopped_at: null,
  last_change_at: '2026-11-25T04:02:16.880Z',
  last_extraction_at: '2026-11-25T04:02:47.031Z',
  change_count: 1,
  extraction_count: 2,
};

/** A push to the data governance catalog. */
export const pushResult = {
  catalog_type: 'DATA_GOVERNANCE',
  graph_id: EXAMPLE_GRAPH_ID,
  tables_updated: 0,
  properties_set: 0,
  comments_set: 0,
  bridge_rows_inserted: 0,
  errors: [],
  skipped: [],
  results: [
    {
      kind: 'job',
      name: `stream://${ENVIRONMENT}/${CLUSTER}:enrich-orders`,
      node_id: enrichOrdersJob.id,
      status: 'updated',
    },
  ],
};

/** Readiness of an API on the demo's sqlite store. */
export const readiness = {
  status: 'ready',
  checks: {
    store: { status: 'ok', backend: 'sqlite', head_position: 7, folder: '.lineage-svc' },
    projections: { status: 'ok', position: 7, head_position: 7, lag: 0 },
  },
};

/** An excerpt of `GET /metrics`. */
export const prometheusText = [
  '# HELP lineage_svc_store_head_position Global position of the last event in the store (EventStoreDB positions have gaps)',
  '# TYPE lineage_svc_store_head_position gauge',
  'lineage_svc_store_head_position 7',
  '',
].join('\n');

/**
 * The text answers of the export formats other than JSON, by media type (without its charset), for
 * `graph`: the exporters' own output (`src/export/`), so the examples are what the API sends.
 */
export function exportExamples(graph: { nodes: readonly object[]; edges: readonly object[] }): Record<string, string> {
  const examples: Record<string, string> = {};
  for (const format of EXPORT_FORMATS) {
    if (format === 'json') continue;
    const mediaType = EXPORT_MEDIA[format].contentType.split(';')[0]!;
    examples[mediaType] = [...exportGraph(graph as ExportableGraph, format, { graphName: 'lineage' })].join('');
  }
  return examples;
}
