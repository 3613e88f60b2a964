/**
 * What the OpenAPI document says about each operation that its route does not say itself: the
 * operationId, a description, the description of each response and examples. Keyed by method and
 * fastify URL (`GET /api/v1/graphs/:graph_id`). `describeOperation` (`openApi.ts`) fills in only
 * what the route's own `schema` left out, so metadata written inline in a route wins.
 * `test/http/openApiDocument.test.ts` fails when an operation has no operationId, summary, tags,
 * response descriptions or example, whichever of the two places they come from.
 */
import {
  EXAMPLE_GRAPH_ID,
  cdcConnector,
  changeCounts,
  createdGraph,
  failedTask,
  graphDiff,
  graphHistory,
  graphSummary,
  graphWithContent,
  graphDrawing,
  lineageDataset,
  lineageGraph,
  lineageJob,
  nodeMetricSeries,
  nodeProvenance,
  ordersTopic,
  producesEdge,
  prometheusText,
  pushResult,
  readiness,
  runEvent,
  traversal,
  watcher,
  exportExamples,
  upstreamTraversal,
} from './openApiExamples.js';
import { traversalGraph } from '../../src/export/index.js';
import { MARQUEZ_OPERATIONS } from './marquezOperations.js';

/** The documentation of one operation. */
export interface OperationDocs {
  /** Unique across the document; camelCase, a verb first. */
  operationId: string;
  /** Longer than the summary: behavior, defaults, errors. */
  description: string;
  /** Description of each response status the route documents; statuses left out get a generic one. */
  responses?: Readonly<Record<number, string>>;
  /** The request body's example, for operations that take one. */
  requestExample?: unknown;
  /** The example of the first 2xx response. */
  responseExample: unknown;
  /** Media type of a response that is not JSON (documented as text). */
  contentType?: string;
  /** Text answers the first 2xx response may also be (the export formats), by media type, with their example. */
  textAnswers?: Readonly<Record<string, string>>;
}

/** What `traversalGraph` takes: a traversal's answer. */
type TraversalAnswer = Parameters<typeof traversalGraph>[0];

const IMPACT_EXAMPLE = {
  origin: { node_id: 'stream:topic:env-q7m2k9:lkc-7x9m2p/pg.retail.public.orders', field: 'after.customer_id' },
  direction: 'downstream',
  columns: [
    {
      node_id: 'stream:topic:env-q7m2k9:lkc-7x9m2p/orders_enriched',
      field: 'customer_id',
      hops: 1,
      via: ['stream:stream_job:env-q7m2k9:enrich-orders'],
      type: 'DIRECT',
      subtype: 'IDENTITY',
    },
  ],
  jobs: ['stream:stream_job:env-q7m2k9:enrich-orders'],
  node_count: 2,
};

const NO_GRAPH = 'No graph with that id or name (or it did not exist at as_of)';
const NO_NODE = 'No graph with that id or name, or no node with that id in it';
const NO_WATCHER = 'No watcher with that id (or it was deregistered)';
const WRITE_CONFLICT = 'The write kept conflicting with concurrent writes; retry';
const NO_DEFAULT_GRAPH = 'No graph yet, or no graph with that id';

/** Meta and operations: health, version, catalogs, readiness and metrics. */
const META: Record<string, OperationDocs> = {
  'GET /api/v1/health': {
    operationId: 'getHealth',
    description:
      'Liveness: answers 200 while the process serves HTTP and can recover by itself; 503 once it cannot (its lease was lost, ' +
      'or its projections stopped on an event they could not apply): restart it. Open even when authentication is on.',
    responses: { 200: 'The process is alive', 503: 'Not live: restart the process; the detail says why' },
    responseExample: { status: 'ok' },
  },
  'GET /api/v1/version': {
    operationId: 'getVersion',
    description: 'The name and version of the running package (semantic versioning; the API version is in the path).',
    responses: { 200: 'Name and version' },
    responseExample: { name: 'lineage-svc', version: '0.1.0' },
  },
  'GET /api/v1/catalogs': {
    operationId: 'listCatalogProviders',
    description:
      'The four catalog providers, what each does (enrich, push), whether its settings are present, and the names ' +
      '(never the values) of those settings.',
    responses: { 200: 'The catalog providers' },
    responseExample: {
      catalogs: [
        {
          catalog_type: 'DATA_GOVERNANCE',
          system: null,
          capabilities: ['push'],
          configured: false,
          settings: ['LINEAGE_SVC_DATA_GOVERNANCE_DOMAIN_ID', 'LINEAGE_SVC_DATA_GOVERNANCE_PROJECT_ID'],
        },
      ],
    },
  },
  'GET /api/v1/ready': {
    operationId: 'getReadiness',
    description:
      'Readiness for load balancers: the store answers and can take writes, and the projections reach its head ' +
      'within 2 s. Each check is bounded by 2 s. Open even when authentication is on.',
    responses: { 200: 'Ready, with each check', 503: 'Not ready: the detail names each failing check' },
    responseExample: readiness,
  },
  'GET /metrics': {
    operationId: 'getMetrics',
    description:
      'Prometheus metrics in the text format 0.0.4 (prefix lineage_svc_). Open even when authentication is on.',
    responses: { 200: 'The metrics, Prometheus text format' },
    responseExample: prometheusText,
    contentType: 'text/plain; version=0.0.4; charset=utf-8',
  },
};

/** Graphs: list, create, read, delete, import, export, views. */
const GRAPHS: Record<string, OperationDocs> = {
  'GET /api/v1/graphs': {
    operationId: 'listGraphs',
    description: 'Every live graph with its counts, most recently changed first (the first is the default graph).',
    responses: { 200: 'The graphs' },
    responseExample: { graphs: [graphSummary] },
  },
  'POST /api/v1/graphs': {
    operationId: 'createGraph',
    description: 'Creates an empty graph; a name, when given, must be unique among live graphs (409 otherwise).',
    responses: { 201: 'The new empty graph', 409: 'A live graph already has that name' },
    requestExample: { name: 'orders-sandbox', description: 'Hand-drawn lineage of the orders pipeline' },
    responseExample: createdGraph,
  },
  'GET /api/v1/graphs/confluent/view': {
    operationId: 'getConfluentView',
    description:
      'The OpenLineage view of the stream platform only: one COMPLETE RunEvent (schema 2-0-2) per job of the graph. ' +
      'Reads only; stores nothing.',
    responses: { 200: 'One RunEvent per job', 404: NO_DEFAULT_GRAPH },
    responseExample: {
      view: 'confluent',
      graph_id: EXAMPLE_GRAPH_ID,
      systems: ['STREAM'],
      events: [runEvent],
      count: 1,
    },
  },
  'GET /api/v1/graphs/enriched/view': {
    operationId: 'getEnrichedView',
    description:
      'The OpenLineage view across the systems asked for (all by default): one COMPLETE RunEvent per job. Reads only.',
    responses: { 200: 'One RunEvent per job', 400: 'An unknown system name', 404: NO_DEFAULT_GRAPH },
    responseExample: { view: 'enriched', graph_id: EXAMPLE_GRAPH_ID, systems: null, events: [runEvent], count: 1 },
  },
  'GET /api/v1/graphs/:graph_id': {
    operationId: 'getGraph',
    description:
      'A graph with all its nodes and edges, now or as of a time or revision. The graph may be named by id or name.',
    responses: { 200: 'The graph with its nodes and edges', 400: 'A malformed as_of', 404: NO_GRAPH },
    responseExample: graphWithContent,
  },
  'GET /api/v1/graphs/:graph_id/drawing': {
    operationId: 'getGraphDrawing',
    description:
      'What drawing a whole graph needs, and nothing else: node ids, names, types, systems, environments and ' +
      'clusters, edges as pairs of node indexes, the nodes marked internal and the bytes of their latest metric ' +
      'sample, in columns (one array per field, a node’s index its position; types, systems, environments and ' +
      'clusters as indexes into lists of their distinct values). About a fifth of the whole graph’s JSON ' +
      '(11 MB against 55 MB for 100,000 nodes): the web UI draws from it and reads a node’s full record ' +
      '(attributes, schemas, column lineage) on demand. as_of reads it at a revision or time, as for the whole graph.',
    responses: { 200: 'The graph’s nodes and edges in columns', 400: 'A malformed as_of', 404: NO_GRAPH },
    responseExample: graphDrawing,
  },
  'DELETE /api/v1/graphs/:graph_id': {
    operationId: 'deleteGraph',
    description: 'Deletes a graph. Its history stays readable (history, diff, as_of before the deletion).',
    responses: { 200: 'The graph was deleted', 404: NO_GRAPH, 409: WRITE_CONFLICT },
    responseExample: { graph_id: EXAMPLE_GRAPH_ID, status: 'deleted', revision: 3 },
  },
  'POST /api/v1/graphs/:graph_id/import': {
    operationId: 'importGraph',
    description:
      'Imports a graph file (body up to 128 MiB). merge upserts its nodes and edges; replace makes the graph equal to ' +
      'it. The whole payload is validated first (400 with every problem); only the difference is recorded.',
    responses: { 200: 'What the import changed', 400: 'The graph file is invalid', 404: NO_GRAPH, 409: WRITE_CONFLICT },
    requestExample: lineageGraph,
    responseExample: {
      graph_id: EXAMPLE_GRAPH_ID,
      mode: 'merge',
      revision: 2,
      changes: changeCounts,
      node_count: 71,
      edge_count: 82,
    },
  },
  'GET /api/v1/graphs/:graph_id/export': {
    operationId: 'exportGraph',
    description:
      'The graph as a graph file (LineageGraph JSON, the import format), or as GraphML, GEXF, DOT or Mermaid text ' +
      'with format. Non-JSON formats are streamed as an attachment.',
    responses: { 200: 'The graph file (JSON), or the graph in the format asked for', 404: NO_GRAPH },
    responseExample: lineageGraph,
    textAnswers: exportExamples(lineageGraph),
  },
};

/** Nodes, edges, traversals, history, diff and metric series of one graph. */
const GRAPH_CONTENT: Record<string, OperationDocs> = {
  'GET /api/v1/graphs/:graph_id/nodes': {
    operationId: 'listNodes',
    description: 'A page of the nodes of a graph, filtered by type, system, environment, cluster and text.',
    responses: { 200: 'A page of nodes with the total matching', 404: NO_GRAPH },
    responseExample: { nodes: [ordersTopic], total: 1, limit: 1000, offset: 0 },
  },
  'POST /api/v1/graphs/:graph_id/nodes': {
    operationId: 'putNode',
    description:
      'Adds a node, or replaces the node with the same id. The id must agree with the system, type and qualified name.',
    responses: {
      200: 'The node replaced the one with the same id',
      201: 'The node was added',
      404: NO_GRAPH,
      409: WRITE_CONFLICT,
    },
    requestExample: ordersTopic,
    responseExample: ordersTopic,
  },
  'GET /api/v1/graphs/:graph_id/nodes/:node_id': {
    operationId: 'getNode',
    description: 'One node; percent-encode its id in the path (it holds colons and slashes).',
    responses: { 200: 'The node', 404: NO_NODE },
    responseExample: ordersTopic,
  },
  'GET /api/v1/graphs/:graph_id/edges': {
    operationId: 'listEdges',
    description: 'A page of the edges of a graph, filtered by type and by a node at either end.',
    responses: { 200: 'A page of edges with the total matching', 404: NO_GRAPH },
    responseExample: { edges: [producesEdge], total: 1, limit: 1000, offset: 0 },
  },
  'POST /api/v1/graphs/:graph_id/edges': {
    operationId: 'putEdge',
    description:
      'Adds an edge, or replaces the attributes of the edge with the same ends and type. Both ends must be in the ' +
      'graph, and the edge must go in its type’s direction.',
    responses: {
      200: 'The edge replaced the attributes of the same edge',
      201: 'The edge was added',
      404: 'No graph with that id or name, or an end of the edge is not in it',
      409: WRITE_CONFLICT,
    },
    requestExample: producesEdge,
    responseExample: producesEdge,
  },
  'GET /api/v1/graphs/:graph_id/query/upstream/:node_id': {
    operationId: 'getUpstream',
    description:
      'The nodes and edges upstream of a node (against edge direction), nearest first, within hops. With format, the ' +
      'same as an export (origin at hop 0).',
    responses: { 200: 'The nodes and edges reached, or them in the format asked for', 404: NO_NODE },
    responseExample: upstreamTraversal,
    textAnswers: exportExamples(traversalGraph(upstreamTraversal as unknown as TraversalAnswer)),
  },
  'GET /api/v1/graphs/:graph_id/query/downstream/:node_id': {
    operationId: 'getDownstream',
    description:
      'The nodes and edges downstream of a node (along edge direction), nearest first, within hops. With format, the ' +
      'same as an export (origin at hop 0).',
    responses: { 200: 'The nodes and edges reached, or them in the format asked for', 404: NO_NODE },
    responseExample: traversal,
    textAnswers: exportExamples(traversalGraph(traversal as unknown as TraversalAnswer)),
  },
  'GET /api/v1/graphs/:graph_id/groups': {
    operationId: 'getGraphGroups',
    description:
      'A graph’s nodes counted per environment, cluster and node type, and its edges counted per pair of these groups ' +
      '(links name groups by their index): the web UI’s first picture of a large graph. ' +
      'max_groups merges clusters into their environment, then environments, until at most that many groups are left ' +
      '(a few kilobytes whatever the graph’s size). as_of reads it at a revision or time. ' +
      'The counts are made once per graph revision and kept.',
    responses: { 200: 'The groups and the links between them', 404: NO_GRAPH },
    responseExample: {
      graph_id: EXAMPLE_GRAPH_ID,
      revision: 3,
      node_count: 5,
      edge_count: 4,
      merged: 'none',
      groups: [
        { environment_id: 'env-q7m2k9', cluster_id: 'lkc-7x9m2p', node_type: 'CONNECTOR', node_count: 1 },
        { environment_id: 'env-q7m2k9', cluster_id: 'lkc-7x9m2p', node_type: 'TOPIC', node_count: 3 },
        { environment_id: 'env-q7m2k9', cluster_id: null, node_type: 'STREAM_JOB', node_count: 1 },
      ],
      links: [
        { source: 0, target: 1, edge_count: 1 },
        { source: 1, target: 2, edge_count: 2 },
        { source: 2, target: 1, edge_count: 1 },
      ],
    },
  },
  'GET /api/v1/graphs/:graph_id/history': {
    operationId: 'getGraphHistory',
    description: 'The changes of a graph, oldest first, one per write; deleted graphs keep their history.',
    responses: { 200: 'The changes, oldest first', 404: 'No graph with that id or name, ever' },
    responseExample: graphHistory,
  },
  'GET /api/v1/graphs/:graph_id/diff': {
    operationId: 'diffGraph',
    description:
      'What changed between two points of a graph, each an ISO 8601 time or a revision; a point before the graph ' +
      'existed counts as the empty graph. Lists are sorted.',
    responses: { 200: 'The nodes and edges added, removed and changed', 400: 'A malformed from or to', 404: NO_GRAPH },
    responseExample: graphDiff,
  },
  'GET /api/v1/graphs/:graph_id/nodes/:node_id/metrics': {
    operationId: 'getNodeMetrics',
    description:
      'The metric samples of a node (throughput, consumer lag), oldest first, as the extractions recorded them.',
    responses: {
      200: 'The samples, oldest first',
      400: 'since or until is not an ISO 8601 time, or since is after until',
      404: 'No graph with that id or name, or a node neither in it nor sampled',
    },
    responseExample: nodeMetricSeries,
  },
  'GET /api/v1/graphs/:graph_id/nodes/:node_id/history': {
    operationId: 'getNodeProvenance',
    description:
      'When the node was first and last seen, every change to it with the write that made it (cause, actor, ' +
      'correlation id, its state after) and why it was removed: not listed by an extraction of its scope, an import ' +
      'with mode replace, a write through the API. The newest `limit` changes (default 100, at most 500), oldest first.',
    responses: {
      200: 'The provenance, changes oldest first',
      400: 'limit is not a whole number from 1 to 500',
      404: 'No graph with that id or name, or a node the graph never held',
    },
    responseExample: nodeProvenance,
  },
  'GET /api/v1/graphs/:graph_id/edges/history': {
    operationId: 'getEdgeProvenance',
    description:
      'The provenance of the edge src_id -edge_type-> dst_id, as for a node; an edge removed with one of its nodes ' +
      'names the node.',
    responses: {
      200: 'The provenance, changes oldest first',
      400: 'src_id, dst_id or edge_type is missing or malformed, or limit is out of range',
      404: 'No graph with that id or name, or an edge the graph never held',
    },
    responseExample: {
      ...nodeProvenance,
      element: {
        src_id: 'stream:stream_job:env-q7m2k9:enrich-orders',
        dst_id: 'stream:topic:env-q7m2k9:lkc-7x9m2p/orders_enriched',
        edge_type: 'PRODUCES',
      },
    },
  },
  'GET /api/v1/graphs/:graph_id/diff/columns': {
    operationId: 'diffGraphColumns',
    description:
      'The column-level changes between two points of a graph (each an ISO 8601 time or a revision; to defaults to ' +
      'now): fields added to or removed from schemas and catalog tables, and column lineage that appeared or went, ' +
      'such as a statement that stopped reading a column. Lists are sorted.',
    responses: { 200: 'The fields and column edges added and removed', 400: 'A malformed from or to', 404: NO_GRAPH },
    responseExample: {
      graph_id: EXAMPLE_GRAPH_ID,
      from: { as_of: '12', revision: 12 },
      to: { as_of: null, revision: 15 },
      fields: {
        added: [],
        removed: [{ node_id: 'stream:schema:env-q7m2k9:orders_enriched-value', field: 'loyalty_tier' }],
      },
      column_edges: {
        added: [],
        removed: [
          {
            input: { node_id: 'stream:topic:env-q7m2k9:lkc-7x9m2p/orders_enriched', field: 'loyalty_tier' },
            output: { node_id: 'stream:topic:env-q7m2k9:lkc-3k8w5n/orders_for_bi', field: 'loyalty_tier' },
            job: 'stream:stream_job:env-q7m2k9:orders-to-bi',
            type: 'DIRECT',
            subtype: 'IDENTITY',
          },
        ],
      },
    },
  },
  'GET /api/v1/graphs/:graph_id/impact': {
    operationId: 'getFieldImpact',
    description:
      'Every column downstream (or upstream) of one field of a dataset, at most depth jobs away, with the jobs ' +
      'between: DIRECT column lineage of Flink statements, ksqlDB queries and connectors, Tableflow and mirror ' +
      'topics field for field; a hop whose mapping is not known reaches the field `*` with subtype UNKNOWN. ' +
      'include=indirect adds the columns only INDIRECT lineage reaches (join keys, filters, group-by, window ' +
      'columns), marked INDIRECT. format=csv streams node_id,field,hops,via rows (via `;`-separated), no row cap.',
    responses: {
      200: 'The columns and jobs reached, or them as CSV',
      400: 'A bad direction, depth, include or format, a node that is not a dataset, or a malformed as_of',
      404: 'No graph with that id or name, no such node, or a field the node is not known to have (listed)',
    },
    responseExample: IMPACT_EXAMPLE,
    textAnswers: {
      'text/csv':
        'node_id,field,hops,via\n' +
        'stream:topic:env-q7m2k9:lkc-7x9m2p/orders_enriched,customer_id,1,stream:stream_job:env-q7m2k9:enrich-orders\n',
    },
  },
};

/** Tasks: extraction and enrichment in the API process. */
const TASKS: Record<string, OperationDocs> = {
  'POST /api/v1/tasks/extract': {
    operationId: 'startExtraction',
    description:
      'Starts extracting environments from the platform into the default graph; answers at once. Environments come ' +
      'from the body or the query (the body wins). Unknown body fields, credentials among them, are rejected.',
    responses: { 202: 'The task was started; poll it' },
    requestExample: {
      environment_ids: ['env-q7m2k9'],
      cluster_ids: [],
      enable_metrics: true,
      metrics_lookback_hours: 1,
    },
    responseExample: { task_id: failedTask.task_id, status: 'pending' },
  },
  'POST /api/v1/extract': {
    operationId: 'startExtractionShort',
    description: 'The same as POST /api/v1/tasks/extract.',
    responses: { 202: 'The task was started; poll it' },
    requestExample: { environment_ids: ['env-q7m2k9'] },
    responseExample: { task_id: failedTask.task_id, status: 'pending' },
  },
  'POST /api/v1/tasks/enrich': {
    operationId: 'startEnrichment',
    description:
      'Starts enriching a graph (default the default graph) with metrics and catalog metadata; answers at once.',
    responses: { 202: 'The task was started; poll it' },
    requestExample: {
      graph_id: EXAMPLE_GRAPH_ID,
      enable_catalog: false,
      enable_metrics: true,
      metrics_lookback_hours: 1,
    },
    responseExample: { task_id: failedTask.task_id, status: 'pending' },
  },
  'GET /api/v1/tasks': {
    operationId: 'listTasks',
    description: 'Tasks of every API process on the store, newest first, filtered by type and status.',
    responses: { 200: 'The tasks, newest first' },
    responseExample: { tasks: [failedTask], total: 1 },
  },
  'GET /api/v1/environments': {
    operationId: 'listPlatformEnvironments',
    description:
      'The Confluent Cloud environments the configured cloud API key can see (GET /org/v2/environments, every page), ' +
      'each with the live graphs holding nodes of it (empty: never extracted), sorted by display name. The platform’s ' +
      'answer is reused for 30 s (a failure for 5 s), whoever asks. Needs the read role; extracting or watching an ' +
      'environment still needs operate.',
    responses: {
      200: 'The environments',
      502: 'The platform answered with an error (PLATFORM_FAILED: for example 401 for a wrong cloud key)',
      503: 'No cloud credentials (PLATFORM_NOT_CONFIGURED), or the platform did not answer (PLATFORM_UNREACHABLE)',
    },
    responseExample: {
      environments: [
        { id: 'env-q7m2k9', display_name: 'prod', graph_ids: [EXAMPLE_GRAPH_ID] },
        { id: 'env-w3n8c5', display_name: 'staging', graph_ids: [] },
      ],
      total: 2,
      listed_at: '2026-01-05T09:30:00.000Z',
    },
  },
  'GET /api/v1/tasks/:task_id': {
    operationId: 'getTask',
    description: 'One task: its phase while it runs, its result when completed, its error when failed.',
    responses: { 200: 'The task', 404: 'No task with that id' },
    responseExample: failedTask,
  },
};

/** OpenLineage ingestion and queries. */
const LINEAGE: Record<string, OperationDocs> = {
  'POST /api/v1/lineage': {
    operationId: 'ingestLineage',
    responses: {
      200: 'One result per item; at least one was accepted or a duplicate',
      400: 'Every item was rejected, or the body is not an event or an array',
      413: 'Body over 10 MiB, compressed or not',
      415: 'A content encoding other than gzip, x-gzip, deflate or identity',
    },
    description: 'The OpenLineage HTTP transport’s default path.',
    requestExample: runEvent,
    responseExample: {
      results: [{ index: 0, status: 'accepted', run_id: runEvent.run.runId, warnings: [] }],
      accepted: 1,
      duplicates: 0,
      rejected: 0,
    },
  },
  'POST /api/v1/lineage/events': {
    operationId: 'ingestLineageEvents',
    description: 'The same as POST /api/v1/lineage.',
    responses: {
      200: 'One result per item; at least one was accepted or a duplicate',
      400: 'Every item was rejected, or the body is not an event or an array',
      413: 'Body over 10 MiB, compressed or not',
      415: 'A content encoding other than gzip, x-gzip, deflate or identity',
    },
    requestExample: [runEvent],
    responseExample: {
      results: [{ index: 0, status: 'duplicate', run_id: runEvent.run.runId, warnings: [] }],
      accepted: 0,
      duplicates: 1,
      rejected: 0,
    },
  },
  'GET /api/v1/lineage/events': {
    operationId: 'listLineageEvents',
    description: 'Received events (not the graphs’), ordered by eventTime then arrival; total counts every match.',
    responses: { 200: 'A page of events with the total matching' },
    responseExample: { events: [runEvent], total: 1, limit: 100, offset: 0 },
  },
  'GET /api/v1/lineage/events/:run_id': {
    operationId: 'getRunEvents',
    description: 'The events of one run, by its runId as received or by its UUID.',
    responses: { 200: 'The events of the run', 404: 'No run with that runId' },
    responseExample: { run_id: runEvent.run.runId, events: [runEvent] },
  },
  'GET /api/v1/lineage/datasets': {
    operationId: 'listLineageDatasets',
    description: 'Datasets of the ingested events and of the graphs’ jobs, sorted by namespace then name.',
    responses: { 200: 'The datasets' },
    responseExample: { datasets: [lineageDataset], total: 1 },
  },
  'GET /api/v1/lineage/datasets/detail': {
    operationId: 'getLineageDataset',
    description: 'One dataset with its identities (kafka:// and stream:// names) and the jobs that write and read it.',
    responses: { 200: 'The dataset', 404: 'No dataset with that namespace and name' },
    responseExample: {
      ...lineageDataset,
      identities: [{ namespace: lineageDataset.namespace, name: lineageDataset.name }],
      produced_by: [{ namespace: lineageJob.namespace, name: 'pg-retail-cdc' }],
      consumed_by: [{ namespace: lineageJob.namespace, name: 'enrich-orders' }],
    },
  },
  'GET /api/v1/lineage/datasets/lineage': {
    operationId: 'getDatasetLineage',
    description: 'The whole events of every job within depth dataset hops of a dataset, upstream, downstream or both.',
    responses: { 200: 'The events of the jobs reached', 404: 'No dataset with that namespace and name' },
    responseExample: {
      origin: { namespace: lineageDataset.namespace, name: 'orders_enriched' },
      direction: 'upstream',
      depth: 1,
      events: [runEvent],
      datasets_visited: 2,
      jobs_visited: 1,
    },
  },
  'GET /api/v1/lineage/jobs': {
    operationId: 'listLineageJobs',
    description: 'Jobs of the ingested events and of the graphs, sorted by namespace then name.',
    responses: { 200: 'The jobs' },
    responseExample: { jobs: [lineageJob], total: 1 },
  },
  'GET /api/v1/lineage/jobs/detail': {
    operationId: 'getLineageJob',
    description: 'One job with the inputs and outputs of its latest run.',
    responses: { 200: 'The job and its latest run', 404: 'No job with that namespace and name' },
    responseExample: {
      job: { namespace: lineageJob.namespace, name: lineageJob.name, facets: lineageJob.facets },
      latest_run: {
        run_id: lineageJob.latest_run_id,
        event_type: 'COMPLETE',
        event_time: lineageJob.latest_event_time,
      },
      latest_inputs: runEvent.inputs,
      latest_outputs: runEvent.outputs,
    },
  },
};

/** Catalog pushes and watchers. */
const PUSH_AND_WATCHERS: Record<string, OperationDocs> = {
  'POST /api/v1/lineage/push': {
    operationId: 'pushLineage',
    description:
      'Pushes the lineage of a graph into one catalog and answers when done. Catalog-side failures are in errors, ' +
      'skipped and results, not in the status.',
    responses: {
      200: 'What was pushed, per table or job',
      400: 'The provider is not configured (the detail names the variables to set) or the body is malformed',
      404: NO_DEFAULT_GRAPH,
    },
    requestExample: { catalog_type: 'DATA_GOVERNANCE', graph_id: EXAMPLE_GRAPH_ID },
    responseExample: pushResult,
  },
  'POST /api/v1/push/:provider': {
    operationId: 'pushToProvider',
    description:
      'The same as POST /api/v1/lineage/push, the provider named in the path by a short name or a catalog type.',
    responses: {
      200: 'What was pushed, per table or job',
      400: 'The provider is not configured (the detail names the variables to set) or the body is malformed',
      404: 'No such provider, no graph yet, or no graph with that id',
    },
    requestExample: { set_properties: true, set_comments: true, create_bridge_table: false },
    responseExample: pushResult,
  },
  'POST /api/v1/watchers': {
    operationId: 'startWatcher',
    description:
      'Starts a watcher in this API process: it extracts once, then polls the platform and re-extracts after each ' +
      'quiet period (cooldown). poll_interval_seconds may not be below LINEAGE_SVC_MIN_POLL_INTERVAL_SECONDS.',
    responses: { 201: 'The watcher was started', 409: 'Too many running watchers' },
    requestExample: { environment_ids: ['env-q7m2k9'], cooldown_seconds: 30, poll_interval_seconds: 10 },
    responseExample: { watcher_id: watcher.watcher_id, state: 'WATCHING' },
  },
  'GET /api/v1/watchers': {
    operationId: 'listWatchers',
    description: 'Watchers of every process on the store, newest first; deregistered ones are not listed.',
    responses: { 200: 'The watchers, newest first' },
    responseExample: { watchers: [watcher], total: 1 },
  },
  'GET /api/v1/watchers/:watcher_id': {
    operationId: 'getWatcher',
    description: 'The status of one watcher: its state, the reason of the last change of state, its counts.',
    responses: { 200: 'The watcher', 404: NO_WATCHER },
    responseExample: watcher,
  },
  'DELETE /api/v1/watchers/:watcher_id': {
    operationId: 'deregisterWatcher',
    description: 'Stops the watcher if it runs, then forgets it.',
    responses: { 204: 'The watcher was deregistered', 404: NO_WATCHER },
    responseExample: null,
  },
  'POST /api/v1/watchers/:watcher_id/stop': {
    operationId: 'stopWatcher',
    description: 'Stops a watcher; stopping a stopped watcher answers the same.',
    responses: { 200: 'The watcher, STOPPED', 404: NO_WATCHER },
    responseExample: { ...watcher, state: 'STOPPED', reason: 'stopped through the API', running_here: false },
  },
  'GET /api/v1/watchers/:watcher_id/events': {
    operationId: 'listWatcherChanges',
    description: 'The changes the watcher detected on the platform, newest first.',
    responses: { 200: 'The changes, newest first', 404: NO_WATCHER },
    responseExample: {
      events: [
        {
          kind: 'created',
          resource_type: 'connector',
          resource_id: cdcConnector.display_name,
          environment_id: 'env-q7m2k9',
          detected_at: '2026-11-25T04:02:16.880Z',
        },
      ],
      total: 1,
    },
  },
  'GET /api/v1/watchers/:watcher_id/history': {
    operationId: 'listWatcherExtractions',
    description: 'The extractions the watcher ran, newest first.',
    responses: { 200: 'The extractions, newest first', 404: NO_WATCHER },
    responseExample: {
      extractions: [
        {
          extraction_id: 'fb4499fd-c234-48b3-a0d8-aa2d8e0f2d51',
          graph_id: EXAMPLE_GRAPH_ID,
          status: 'completed',
          started_at: '2026-11-25T04:02:47.031Z',
          completed_at: '2026-11-25T04:02:49.410Z',
          node_count: 71,
          edge_count: 82,
          graph_revision: 3,
          changes: {
            nodes_added: 1,
            nodes_changed: 0,
            nodes_removed: 0,
            edges_added: 1,
            edges_changed: 0,
            edges_removed: 0,
          },
          error: null,
          duration_ms: 2379,
        },
      ],
      total: 1,
    },
  },
};

/** Every operation's documentation, keyed by `METHOD /fastify/url`. */
export const OPERATION_DOCS: Readonly<Record<string, OperationDocs>> = {
  ...META,
  ...GRAPHS,
  ...GRAPH_CONTENT,
  ...TASKS,
  ...LINEAGE,
  ...PUSH_AND_WATCHERS,
  ...MARQUEZ_OPERATIONS,
};
