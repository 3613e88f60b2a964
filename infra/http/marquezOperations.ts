/**
 * The OpenAPI documentation of the Marquez-compatible routes (`routes/marquez.ts`; docs/marquez.md),
 * merged into `OPERATION_DOCS` (`openApiOperations.ts`). Examples are in Marquez 0.51's shapes, on
 * the names of the demo estate.
 */
import type { OperationDocs } from './openApiOperations.js';

const NAMESPACE = 'stream://env-q7m2k9/lkc-p8x3v1';
const TIME = '2026-01-01T00:00:00.000Z';
const RUN_ID = '01940000-0000-7000-8000-00000000a001';
const VERSION = '0c6e3a5b-2f1d-5c3e-9a8b-7d6e5f4a3b2c';
/** What the lineage operations say of `as_of`, lineage-svc's extension. */
const AS_OF_DOC =
  'lineage-svc extension: as_of answers the lineage as it was at a point of the history: an ISO 8601 time (the events recorded at or before it) ' +
  'or a global store position (an integer, as head_position of GET /api/v1/ready), folded from the store up to that point; a node that did not ' +
  'exist then answers 404.';

const dataset = {
  id: { namespace: NAMESPACE, name: 'orders' },
  type: 'STREAM',
  name: 'orders',
  physicalName: 'orders',
  createdAt: TIME,
  updatedAt: TIME,
  namespace: NAMESPACE,
  sourceName: NAMESPACE,
  fields: [{ name: 'order_id', type: 'string', tags: [] }],
  tags: ['PII'],
  lastModifiedAt: TIME,
  facets: {},
  currentVersion: VERSION,
  deleted: false,
};

const run = {
  id: RUN_ID,
  createdAt: TIME,
  updatedAt: TIME,
  state: 'COMPLETED',
  startedAt: TIME,
  endedAt: TIME,
  durationMs: 0,
  args: {},
  jobVersion: { namespace: NAMESPACE, name: 'enrich-orders', version: VERSION },
  inputDatasetVersions: [{ datasetVersionId: { namespace: NAMESPACE, name: 'orders', version: VERSION }, facets: {} }],
  outputDatasetVersions: [],
  context: {},
  facets: {},
};

const job = {
  id: { namespace: NAMESPACE, name: 'enrich-orders' },
  type: 'STREAM',
  name: 'enrich-orders',
  simpleName: 'enrich-orders',
  createdAt: TIME,
  updatedAt: TIME,
  namespace: NAMESPACE,
  inputs: [{ namespace: NAMESPACE, name: 'orders' }],
  outputs: [{ namespace: NAMESPACE, name: 'orders_enriched' }],
  latestRun: run,
  latestRuns: [run],
  facets: {},
  currentVersion: VERSION,
  tags: [],
};

const NOT_FOUND = 'No dataset, job or run with that name or id';

/** Every Marquez route's documentation, keyed by `METHOD /fastify/url`. */
export const MARQUEZ_OPERATIONS: Readonly<Record<string, OperationDocs>> = {
  'GET /api/v1/namespaces': {
    operationId: 'listMarquezNamespaces',
    description: 'Every namespace of a dataset or a job (ingested or extracted), sorted by name.',
    responses: { 200: 'The namespaces' },
    responseExample: {
      namespaces: [
        {
          name: NAMESPACE,
          createdAt: TIME,
          updatedAt: TIME,
          ownerName: 'lineage-svc',
          description: `OpenLineage namespace ${NAMESPACE}`,
        },
      ],
    },
  },
  'GET /api/v1/namespaces/:namespace': {
    operationId: 'getMarquezNamespace',
    description: 'One namespace; 404 when no dataset or job is in it.',
    responses: { 200: 'The namespace', 404: 'No dataset or job in that namespace' },
    responseExample: {
      name: NAMESPACE,
      createdAt: TIME,
      updatedAt: TIME,
      ownerName: 'lineage-svc',
      description: `OpenLineage namespace ${NAMESPACE}`,
    },
  },
  'GET /api/v1/tags': {
    operationId: 'listMarquezTags',
    description: 'The tags of the datasets (their catalog tags), sorted by name.',
    responses: { 200: 'The tags' },
    responseExample: { tags: [{ name: 'PII', description: 'Catalog tag PII' }] },
  },
  'GET /api/v1/jobs': {
    operationId: 'listMarquezJobs',
    description:
      'One page of the jobs of every namespace, sorted by namespace then name; lastRunStates keeps those whose latest run is in one of the states.',
    responses: { 200: 'A page of jobs with totalCount' },
    responseExample: { jobs: [job], totalCount: 1 },
  },
  'GET /api/v1/namespaces/:namespace/jobs': {
    operationId: 'listMarquezNamespaceJobs',
    description: 'One page of the jobs of a namespace, sorted by name.',
    responses: { 200: 'A page of jobs with totalCount' },
    responseExample: { jobs: [job], totalCount: 1 },
  },
  'GET /api/v1/namespaces/:namespace/jobs/:job': {
    operationId: 'getMarquezJob',
    description: 'One job with its latest run and the inputs and outputs of that run.',
    responses: { 200: 'The job', 404: NOT_FOUND },
    responseExample: job,
  },
  'GET /api/v1/namespaces/:namespace/jobs/:job/runs': {
    operationId: 'listMarquezRuns',
    description: 'The runs of a job, newest first: an extracted job has one COMPLETE run per definition.',
    responses: { 200: 'A page of runs with totalCount', 404: NOT_FOUND },
    responseExample: { runs: [run], totalCount: 1 },
  },
  'GET /api/v1/namespaces/:namespace/jobs/:job/versions': {
    operationId: 'listMarquezJobVersions',
    description:
      'The versions of a job, newest first: the history entries of its graph node, and the distinct definitions of its ingested runs.',
    responses: { 200: 'A page of versions with totalCount', 404: NOT_FOUND },
    responseExample: {
      versions: [
        {
          id: { ...job.id, version: VERSION },
          version: VERSION,
          name: job.name,
          namespace: NAMESPACE,
          createdAt: TIME,
          inputs: job.inputs,
          outputs: job.outputs,
          facets: {},
        },
      ],
      totalCount: 1,
    },
  },
  'GET /api/v1/jobs/runs/:id': {
    operationId: 'getMarquezRun',
    description: 'One run by its runId.',
    responses: { 200: 'The run', 404: NOT_FOUND },
    responseExample: run,
  },
  'GET /api/v1/jobs/runs/:id/facets': {
    operationId: 'getMarquezRunFacets',
    description: 'The run facets (type=run, merged over its events) or the job facets (type=job) of a run.',
    responses: { 200: 'The facets', 404: NOT_FOUND },
    responseExample: { runId: RUN_ID, facets: {} },
  },
  'GET /api/v1/namespaces/:namespace/datasets': {
    operationId: 'listMarquezDatasets',
    description: 'One page of the datasets of a namespace, sorted by name.',
    responses: { 200: 'A page of datasets with totalCount' },
    responseExample: { datasets: [dataset], totalCount: 1 },
  },
  'GET /api/v1/namespaces/:namespace/datasets/:dataset': {
    operationId: 'getMarquezDataset',
    description: 'One dataset, under its identity or one joined with it (symlinks, kafka:// and stream:// names).',
    responses: { 200: 'The dataset', 404: NOT_FOUND },
    responseExample: dataset,
  },
  'GET /api/v1/namespaces/:namespace/datasets/:dataset/versions': {
    operationId: 'listMarquezDatasetVersions',
    description:
      'The versions of a dataset, newest first: the history entries of its graph nodes (facet lineage_svc_history says what made each) ' +
      'and the ingested runs that wrote it.',
    responses: { 200: 'A page of versions with totalCount', 404: NOT_FOUND },
    responseExample: {
      versions: [
        {
          ...dataset,
          id: { ...dataset.id, version: VERSION },
          version: VERSION,
          lifecycleState: 'CREATE',
          description: '',
        },
      ],
      totalCount: 1,
    },
  },
  'GET /api/v1/lineage': {
    operationId: 'getMarquezLineage',
    description:
      'The lineage graph around nodeId (dataset:{namespace}:{name} or job:{namespace}:{name}; Marquez Web sends each part percent-encoded): ' +
      'depth job hops upstream and downstream, each job with all its inputs and outputs. POST on this path is OpenLineage ingestion. ' +
      AS_OF_DOC,
    responses: {
      200: 'The lineage graph',
      400: 'nodeId malformed, depth out of range, or as_of neither an integer nor an ISO 8601 time',
      404: 'No dataset or job of that nodeId',
    },
    responseExample: {
      graph: [
        {
          id: `dataset:${NAMESPACE}:orders`,
          type: 'DATASET',
          data: dataset,
          inEdges: [],
          outEdges: [{ origin: `dataset:${NAMESPACE}:orders`, destination: `job:${NAMESPACE}:enrich-orders` }],
        },
        {
          id: `job:${NAMESPACE}:enrich-orders`,
          type: 'JOB',
          data: job,
          inEdges: [{ origin: `dataset:${NAMESPACE}:orders`, destination: `job:${NAMESPACE}:enrich-orders` }],
          outEdges: [],
        },
      ],
    },
  },
  'GET /api/v1/column-lineage': {
    operationId: 'getMarquezColumnLineage',
    description:
      'The column lineage around a dataset (all its fields) or a dataset field, from the columnLineage facets of the jobs that write it; ' +
      'downstream too with withDownstream=true. ' +
      AS_OF_DOC,
    responses: {
      200: 'The column lineage graph',
      400: 'nodeId malformed, a job, or as_of neither an integer nor an ISO 8601 time',
      404: 'No dataset of that nodeId (as of as_of when given)',
    },
    responseExample: {
      graph: [
        {
          id: `datasetField:${NAMESPACE}:orders_enriched:order_id`,
          type: 'DATASET_FIELD',
          data: {
            namespace: NAMESPACE,
            dataset: 'orders_enriched',
            field: 'order_id',
            fieldType: null,
            transformationDescription: null,
            transformationType: 'IDENTITY',
            inputFields: [
              {
                namespace: NAMESPACE,
                dataset: 'orders',
                field: 'order_id',
                transformationDescription: null,
                transformationType: 'IDENTITY',
              },
            ],
          },
          inEdges: [
            {
              origin: `datasetField:${NAMESPACE}:orders:order_id`,
              destination: `datasetField:${NAMESPACE}:orders_enriched:order_id`,
            },
          ],
          outEdges: [],
        },
      ],
    },
  },
  'GET /api/v1/search': {
    operationId: 'searchMarquez',
    description:
      'Datasets and jobs whose name contains q (case-insensitive), sorted by name or by last update (newest first).',
    responses: { 200: 'The results with totalCount' },
    responseExample: {
      totalCount: 1,
      results: [
        {
          type: 'DATASET',
          name: 'orders',
          updatedAt: TIME,
          namespace: NAMESPACE,
          nodeId: `dataset:${NAMESPACE}:orders`,
        },
      ],
    },
  },
  'GET /api/v1/events/lineage': {
    operationId: 'listMarquezLineageEvents',
    description: 'The received OpenLineage events with eventTime between after and before, newest first by default.',
    responses: { 200: 'A page of events with totalCount' },
    responseExample: {
      events: [
        {
          eventType: 'COMPLETE',
          eventTime: TIME,
          run: { runId: RUN_ID },
          job: { namespace: 'spark', name: 'orders_report' },
          producer: 'https://example.com/spark',
        },
      ],
      totalCount: 1,
    },
  },
  'GET /api/v1/stats/:asset': {
    operationId: 'getMarquezStats',
    description:
      'lineage-events: received RunEvents per interval by eventType; jobs, datasets, sources: how many existed by the end of each interval. ' +
      'period DAY is 24 hourly intervals, WEEK 7 days in the timezone given.',
    responses: { 200: 'The intervals, oldest first', 400: 'Unknown asset, period or time zone' },
    responseExample: [
      { startInterval: TIME, endInterval: '2026-01-01T01:00:00.000Z', fail: 0, start: 1, complete: 1, abort: 0 },
    ],
  },
  'POST /api/v1/namespaces/:namespace/datasets/:dataset/tags/:tag': {
    operationId: 'tagMarquezDataset',
    description:
      'Puts a tag on a dataset (role write): a MarquezTagAdded event, with cause marquez-api; a tag already there records nothing. ' +
      'Answers the dataset after the write.',
    responses: {
      200: 'The dataset, tagged',
      400: 'A tag name blank, too long or with control characters',
      404: NOT_FOUND,
    },
    responseExample: dataset,
  },
  'DELETE /api/v1/namespaces/:namespace/datasets/:dataset/tags/:tag': {
    operationId: 'untagMarquezDataset',
    description:
      'Takes a tag off a dataset (role write): a MarquezTagRemoved event; a tag not there records nothing. Answers the dataset after the write.',
    responses: { 200: 'The dataset', 400: 'A tag name blank, too long or with control characters', 404: NOT_FOUND },
    responseExample: { ...dataset, tags: [] },
  },
  'POST /api/v1/namespaces/:namespace/datasets/:dataset/fields/:field/tags/:tag': {
    operationId: 'tagMarquezDatasetField',
    description:
      "Puts a tag on a field of a dataset's schema (role write): a MarquezTagAdded event naming the field. Answers the dataset, the tag in the field's tags.",
    responses: {
      200: 'The dataset, its field tagged',
      400: 'A tag name blank, too long or with control characters',
      404: 'No such dataset or field',
    },
    responseExample: { ...dataset, fields: [{ name: 'order_id', type: 'string', tags: ['PII'] }] },
  },
  'DELETE /api/v1/namespaces/:namespace/datasets/:dataset/fields/:field/tags/:tag': {
    operationId: 'untagMarquezDatasetField',
    description:
      "Takes a tag off a field of a dataset's schema (role write): a MarquezTagRemoved event naming the field. Answers the dataset.",
    responses: {
      200: 'The dataset',
      400: 'A tag name blank, too long or with control characters',
      404: 'No such dataset or field',
    },
    responseExample: dataset,
  },
  'POST /api/v1/namespaces/:namespace/jobs/:job/tags/:tag': {
    operationId: 'tagMarquezJob',
    description:
      'Puts a tag on a job (role write): a MarquezTagAdded event; a tag already there records nothing. Answers the job after the write.',
    responses: { 200: 'The job, tagged', 400: 'A tag name blank, too long or with control characters', 404: NOT_FOUND },
    responseExample: { ...job, tags: ['PII'] },
  },
  'DELETE /api/v1/namespaces/:namespace/jobs/:job/tags/:tag': {
    operationId: 'untagMarquezJob',
    description:
      'Takes a tag off a job (role write): a MarquezTagRemoved event; a tag not there records nothing. Answers the job after the write.',
    responses: { 200: 'The job', 400: 'A tag name blank, too long or with control characters', 404: NOT_FOUND },
    responseExample: job,
  },
  'PUT /api/v1/tags/:tag': {
    operationId: 'putMarquezTag',
    description:
      'Creates a tag with a description, or changes its description (role write): a MarquezTagDefined event; the same description records nothing. ' +
      "Answers every tag, Marquez's TagList.",
    responses: {
      200: 'Every tag',
      400: 'A tag name blank, too long or with control characters, or a description that is not a string',
    },
    requestExample: { description: 'Personal data' },
    responseExample: { tags: [{ name: 'PII', description: 'Personal data' }] },
  },
  'DELETE /api/v1/namespaces/:namespace/datasets/:dataset': {
    operationId: 'deleteMarquezDataset',
    description:
      "Deletes a dataset from the Marquez API's reads (role write): a MarquezElementDeleted event. As Marquez's soft delete, it shows again " +
      'when a later OpenLineage event names it, or a later graph change records its graph node; the extracted graphs and our own API keep it. ' +
      'Answers the dataset as it was, deleted: true.',
    responses: { 200: 'The dataset deleted', 404: 'No such dataset, or deleted already' },
    responseExample: { ...dataset, deleted: true },
  },
  'DELETE /api/v1/namespaces/:namespace/jobs/:job': {
    operationId: 'deleteMarquezJob',
    description:
      "Deletes a job from the Marquez API's reads (role write): a MarquezElementDeleted event. It shows again when a later OpenLineage event " +
      'names it, or a later graph change records its graph node; the extracted graphs and our own API keep it. Answers the job as it was.',
    responses: { 200: 'The job deleted', 404: 'No such job, or deleted already' },
    responseExample: job,
  },
};
