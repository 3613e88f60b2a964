/**
 * The Marquez-compatible API against Marquez's own contract (issue 25): every endpoint's answer, on
 * the demo estate plus ingested Spark runs (`helpers.ts`), is validated with ajv against the schema
 * of its 200 answer in Marquez's OpenAPI document (`../shared/fixtures/openlineage/marquez-api/
 * openapi.json`), and carries the fields of the document's examples and of `lineage_node.json` and
 * `column_lineage_node.json`. Skipped with a notice when the fixtures are absent.
 *
 * Marquez's document is loosened before compiling, each time for a defect of the document rather than
 * a choice of ours: `discriminator` is dropped and `GraphNode.data`'s `oneOf` read as `anyOf` (Dataset
 * and Job require nothing, so every object matches both); `type: null` is dropped (`SearchResult`);
 * the format `URL` is any string; `NodeType` also allows `DATASET_FIELD` (what Marquez's column
 * lineage answers, as its own `column_lineage_node.json` shows); `FacetsResult.facets` is a map of
 * facets (what Marquez answers and Marquez Web reads), not one facet; `DatasetVersion.tags` is an
 * array of strings, as in its own example and in `Dataset`.
 *
 * Also: bad parameters are 400 problem+json naming the parameter, unknown nodes 404, never 500.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { datasetKey } from '../../src/openlineage/identity.js';
import { openLineageIdentity } from '../../src/openlineage/fromGraph.js';
import { SHARED_FIXTURES } from '../helpers/sharedFixtures.js';
import { assertProblem, call, type Answer } from '../http/helpers.js';
import {
  COMPLETED_RUN,
  REPORT_DATASET,
  REPORT_NAMESPACE,
  SPARK_JOB,
  SPARK_NAMESPACE,
  startMarquezStack,
  type MarquezStack,
} from './helpers.js';

/** ajv-formats' plugin, whichever way its CommonJS export reaches this ES module. */
type FormatsPlugin = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as unknown as FormatsPlugin;

const FIXTURES = join(SHARED_FIXTURES, 'openlineage', 'marquez-api');
const skip = existsSync(join(FIXTURES, 'openapi.json'))
  ? false
  : 'SKIPPED: ../shared/fixtures/openlineage/marquez-api not found; Marquez contract not checked';

/** Marquez's document, loosened as the module comment says. */
function loosenDocument(document: Record<string, unknown>): Record<string, unknown> {
  const loose = loosen(document) as { components: { schemas: Record<string, Record<string, unknown>> } };
  const schemas = loose.components.schemas;
  schemas.NodeType!.enum = [...(schemas.NodeType!.enum as string[]), 'DATASET_FIELD'];
  (schemas.FacetsResult!.properties as Record<string, unknown>).facets = {
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/CustomFacet' },
  };
  (schemas.DatasetVersion!.properties as Record<string, unknown>).tags = { type: 'array', items: { type: 'string' } };
  return loose;
}

function loosen(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(loosen);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (key === 'discriminator' || key === 'example' || (key === 'type' && entry === null)) continue;
    out[key === 'oneOf' ? 'anyOf' : key] = loosen(entry);
  }
  return out;
}

const readFixture = (name: string): Record<string, unknown> => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));

/** Fields a Marquez example has that we leave out when we have no value (Marquez sends null, its schema says string). */
const LEFT_OUT_WHEN_UNKNOWN = new Set([
  'description',
  'location',
  'latestRun',
  'nominalStartTime',
  'nominalEndTime',
  'lastModifiedAt',
  'context',
  'sourceName',
]);

/** The keys of `example` missing from `answer`, but those we leave out when unknown. */
function missingKeys(example: Record<string, unknown>, answer: Record<string, unknown>): string[] {
  return Object.keys(example).filter((key) => !(key in answer) && !LEFT_OUT_WHEN_UNKNOWN.has(key));
}

describe('the Marquez API against Marquez 0.51 contract', { skip }, () => {
  let stack: MarquezStack;
  let document: { components: { schemas: Record<string, { example?: Record<string, unknown> }> } };
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat('URL', true);
  const validators = new Map<string, ValidateFunction>();
  const get = (path: string): Promise<Answer> => call(stack.api.base, 'GET', path, { headers: stack.headers });
  const enc = encodeURIComponent;

  /** Asserts a 200 answer that Marquez's schema `name` accepts. */
  async function conforms(path: string, name: string): Promise<Record<string, unknown>> {
    const answer = await get(path);
    assert.equal(answer.status, 200, `${path}: ${answer.text.slice(0, 300)}`);
    let validate = validators.get(name);
    if (!validate) {
      validate = ajv.compile({ $ref: `marquez#/components/schemas/${name}` });
      validators.set(name, validate);
    }
    assert.ok(
      validate(answer.body),
      `${path} against ${name}: ${ajv.errorsText(validate.errors, { separator: '\n' })}`,
    );
    return answer.body as Record<string, unknown>;
  }

  /** Asserts that `answer` has the fields of schema `name`'s example. */
  function likeExample(answer: Record<string, unknown>, name: string): void {
    const example = document.components.schemas[name]!.example!;
    assert.deepEqual(missingKeys(example, answer), [], `${name}: fields of Marquez's example missing`);
  }

  before(async () => {
    document = JSON.parse(readFileSync(join(FIXTURES, 'openapi.json'), 'utf8'));
    ajv.addSchema(loosenDocument(document), 'marquez');
    stack = await startMarquezStack();
  });
  after(async () => stack?.close());

  it('namespaces, tags, one namespace', async () => {
    const namespaces = await conforms('/api/v1/namespaces', 'NamespaceList');
    const list = namespaces.namespaces as Array<Record<string, unknown>>;
    assert.ok(
      list.some((entry) => entry.name === SPARK_NAMESPACE) &&
        list.some((entry) => entry.name === stack.topic.namespace),
    );
    likeExample(list[0]!, 'Namespace');
    likeExample(await conforms(`/api/v1/namespaces/${enc(SPARK_NAMESPACE)}`, 'Namespace'), 'Namespace');
    const tags = await conforms('/api/v1/tags', 'TagList');
    assert.ok((tags.tags as unknown[]).length > 0, 'the demo topics carry catalog tags');
  });

  it('jobs: all, per namespace, one, runs, a run, its facets', async () => {
    const all = await conforms('/api/v1/jobs?limit=5&offset=0', 'JobList');
    assert.equal((all.jobs as unknown[]).length, 5);
    assert.ok((all.totalCount as number) > 5);
    const failed = await conforms('/api/v1/jobs?lastRunStates=FAILED', 'JobList');
    assert.deepEqual(
      (failed.jobs as Array<{ name: string }>).map((job) => job.name),
      [SPARK_JOB],
    );
    const inNamespace = await conforms(`/api/v1/namespaces/${enc(stack.topic.namespace)}/jobs?limit=100`, 'JobList');
    const extracted = (inNamespace.jobs as Array<Record<string, unknown>>)[0]!;
    likeExample(extracted, 'Job');
    const job = await conforms(`/api/v1/namespaces/${enc(SPARK_NAMESPACE)}/jobs/${SPARK_JOB}`, 'Job');
    likeExample(job, 'Job');
    assert.deepEqual(job.inputs, [stack.topic]);
    assert.equal((job.latestRun as { state: string }).state, 'FAILED');
    const runs = await conforms(
      `/api/v1/namespaces/${enc(SPARK_NAMESPACE)}/jobs/${SPARK_JOB}/runs?limit=10`,
      'RunList',
    );
    assert.deepEqual(
      (runs.runs as Array<{ state: string }>).map((run) => run.state),
      ['FAILED', 'COMPLETED'],
    );
    likeExample((runs.runs as Array<Record<string, unknown>>)[1]!, 'Run');
    const run = await conforms(`/api/v1/jobs/runs/${COMPLETED_RUN}`, 'Run');
    const completedRunTime = (eventType: string) =>
      Date.parse(
        stack.sparkEvents.find(
          (event) => (event.run as { runId: string }).runId === COMPLETED_RUN && event.eventType === eventType,
        )!.eventTime as string,
      );
    assert.equal(run.durationMs, completedRunTime('COMPLETE') - completedRunTime('START'));
    assert.ok((run.durationMs as number) > 0);
    const facets = await conforms(`/api/v1/jobs/runs/${COMPLETED_RUN}/facets?type=run`, 'FacetsResult');
    assert.ok('nominalTime' in (facets.facets as object));
    const extractedRun = (extracted.latestRun as { id: string }).id;
    await conforms(`/api/v1/jobs/runs/${extractedRun}/facets?type=job`, 'FacetsResult');
    await conforms(`/api/v1/namespaces/${enc(SPARK_NAMESPACE)}/jobs/${SPARK_JOB}/versions`, 'JobVersionList');
  });

  it('datasets: per namespace, one, versions from our history', async () => {
    const list = await conforms(
      `/api/v1/namespaces/${enc(stack.topic.namespace)}/datasets?limit=2&offset=1`,
      'DatasetList',
    );
    assert.equal((list.datasets as unknown[]).length, 2);
    assert.ok((list.totalCount as number) >= 3);
    const dataset = await conforms(
      `/api/v1/namespaces/${enc(stack.topic.namespace)}/datasets/${enc(stack.topic.name)}`,
      'Dataset',
    );
    likeExample(dataset, 'Dataset');
    assert.ok(
      (dataset.fields as Array<{ name: string }>).some((field) => field.name === stack.topicField),
      "the topic's schema fields",
    );
    const versions = await conforms(
      `/api/v1/namespaces/${enc(stack.topic.namespace)}/datasets/${enc(stack.topic.name)}/versions`,
      'DatasetVersionList',
    );
    const history = (
      versions.versions as Array<{ facets: { lineage_svc_history?: { change: string; cause: string } } }>
    )[0]!;
    assert.equal(history.facets.lineage_svc_history?.change, 'added');
    assert.equal(history.facets.lineage_svc_history?.cause, 'extraction');
    const written = await conforms(
      `/api/v1/namespaces/${enc(REPORT_NAMESPACE)}/datasets/${enc(REPORT_DATASET)}/versions`,
      'DatasetVersionList',
    );
    const runs = (written.versions as Array<{ createdByRun: { id: string } }>).map(
      (version) => version.createdByRun.id,
    );
    assert.equal(runs.length, 4, 'one version per event that wrote it');
    assert.ok(runs.includes(COMPLETED_RUN));
  });

  it('lineage by nodeId, raw or percent-encoded parts, like lineage_node.json', async () => {
    const example = readFixture('lineage_node.json');
    for (const nodeId of [
      `dataset:${enc(stack.topic.namespace)}:${enc(stack.topic.name)}`,
      enc(`dataset:${stack.topic.namespace}:${stack.topic.name}`),
    ]) {
      const lineage = await conforms(`/api/v1/lineage?nodeId=${nodeId}&depth=20`, 'LineageGraph');
      const graph = lineage.graph as Array<Record<string, unknown>>;
      const origin = graph.find((node) => node.id === `dataset:${stack.topic.namespace}:${stack.topic.name}`)!;
      assert.ok(origin, 'the origin is in the graph');
      assert.deepEqual(Object.keys(origin).sort(), Object.keys(example).sort());
      assert.deepEqual(
        missingKeys(example.data as Record<string, unknown>, origin.data as Record<string, unknown>),
        [],
      );
      const ids = new Set(graph.map((node) => node.id));
      for (const node of graph)
        for (const edge of [
          ...(node.inEdges as Array<{ origin: string; destination: string }>),
          ...(node.outEdges as Array<{ origin: string; destination: string }>),
        ])
          assert.ok(
            ids.has(edge.origin) && ids.has(edge.destination),
            `edge ${edge.origin} -> ${edge.destination} ends in the graph`,
          );
      assert.ok(
        graph.some((node) => node.id === `job:${SPARK_NAMESPACE}:${SPARK_JOB}`),
        'the ingested job reading the topic',
      );
    }
    const job = await conforms(
      `/api/v1/lineage?nodeId=job:${enc(SPARK_NAMESPACE)}:${SPARK_JOB}&depth=1`,
      'LineageGraph',
    );
    assert.ok(
      (job.graph as Array<{ id: string }>).some((node) => node.id === `dataset:${REPORT_NAMESPACE}:${REPORT_DATASET}`),
    );
  });

  it('column lineage like column_lineage_node.json', async () => {
    const example = readFixture('column_lineage_node.json');
    const lineage = await conforms(
      `/api/v1/column-lineage?nodeId=dataset:${enc(REPORT_NAMESPACE)}:${enc(REPORT_DATASET)}&depth=20`,
      'LineageGraph',
    );
    const graph = lineage.graph as Array<Record<string, unknown>>;
    const field = graph.find(
      (node) => node.id === `datasetField:${REPORT_NAMESPACE}:${REPORT_DATASET}:${stack.topicField}_daily`,
    )!;
    assert.ok(field);
    assert.deepEqual(Object.keys(field).sort(), Object.keys(example).sort());
    assert.deepEqual(missingKeys(example.data as Record<string, unknown>, field.data as Record<string, unknown>), []);
    assert.deepEqual(
      (field.inEdges as Array<{ origin: string }>).map((edge) => edge.origin),
      [`datasetField:${stack.topic.namespace}:${stack.topic.name}:${stack.topicField}`],
    );
    // Upstream continues through the column lineage our SQL parser derived for the demo's statements.
    assert.ok(graph.length > 2, 'fields upstream of the topic');
    const downstream = await conforms(
      `/api/v1/column-lineage?nodeId=datasetField:${enc(stack.topic.namespace)}:${enc(stack.topic.name)}:${stack.topicField}&depth=1&withDownstream=true`,
      'LineageGraph',
    );
    assert.ok(
      (downstream.graph as Array<{ id: string }>).some((node) => node.id === field.id),
      'downstream reaches the report field',
    );
  });

  it('column lineage of an extracted topic agrees with the impact API (one column graph)', async () => {
    const { state } = stack.api.runtime.openLineage;
    const located = [...state.graphDatasets.nodesUnder(datasetKey(stack.topic.namespace, stack.topic.name))][0];
    assert.ok(located, 'the topic is a node of an extracted graph');
    const [graphId, nodeId] = located;
    const graph = stack.api.runtime.graphs.get(graphId)!.graph;
    const impact = await get(
      `/api/v1/graphs/${graphId}/impact?node_id=${enc(nodeId)}&field=${enc(stack.topicField)}&direction=upstream&depth=1&include=indirect`,
    );
    assert.equal(impact.status, 200, impact.text);
    const fieldId = (id: string, field: string) => {
      const identity = openLineageIdentity(graph.node(id)!);
      return `datasetField:${identity.namespace}:${identity.name}:${field}`;
    };
    const fromImpact = (impact.body.columns as Array<{ node_id: string; field: string; hops: number; subtype: string }>)
      .filter((column) => column.hops === 1 && column.field !== '*' && column.subtype !== 'UNKNOWN')
      .map((column) => fieldId(column.node_id, column.field));
    assert.ok(fromImpact.length > 0, `the topic field has column lineage upstream: ${impact.text}`);
    const lineage = await conforms(
      `/api/v1/column-lineage?nodeId=datasetField:${enc(stack.topic.namespace)}:${enc(stack.topic.name)}:${enc(stack.topicField)}&depth=3`,
      'LineageGraph',
    );
    const graphIds = new Set((lineage.graph as Array<{ id: string }>).map((node) => node.id));
    for (const id of fromImpact) assert.ok(graphIds.has(id), `${id} (impact API) is in the Marquez column lineage`);
    const origin = (lineage.graph as Array<{ id: string; inEdges: Array<{ origin: string }> }>).find(
      (node) => node.id === fieldId(nodeId, stack.topicField),
    )!;
    for (const edge of origin.inEdges)
      assert.ok(fromImpact.includes(edge.origin), `${edge.origin} (Marquez) is a column of the impact API`);
  });

  it('search, events, stats', async () => {
    const search = await conforms('/api/v1/search?q=DAILY&sort=UPDATE_AT&limit=10', 'SearchResultList');
    const results = search.results as Array<{ type: string; name: string; nodeId: string }>;
    assert.deepEqual(results.map((result) => result.name).sort(), [REPORT_DATASET, SPARK_JOB].sort());
    assert.ok(results.some((result) => result.nodeId === `job:${SPARK_NAMESPACE}:${SPARK_JOB}`));
    const jobsOnly = await conforms('/api/v1/search?q=daily&filter=JOB&limit=10', 'SearchResultList');
    assert.deepEqual(
      (jobsOnly.results as Array<{ type: string }>).map((result) => result.type),
      ['JOB'],
    );
    const events = await conforms('/api/v1/events/lineage?limit=3&offset=0', 'LineageEventList');
    assert.equal(events.totalCount, 4);
    assert.deepEqual(
      (events.events as Array<{ eventType: string }>).map((event) => event.eventType),
      ['FAIL', 'START', 'COMPLETE'],
    );
    const ascending = await conforms('/api/v1/events/lineage?limit=10&offset=1&sortDirection=asc', 'LineageEventList');
    assert.deepEqual(
      (ascending.events as Array<{ eventType: string }>).map((event) => event.eventType),
      ['COMPLETE', 'START', 'FAIL'],
    );
    const day = await get('/api/v1/stats/lineage-events?period=DAY&timezone=Europe/Paris');
    assert.equal(day.status, 200);
    assert.equal(day.body.length, 24);
    const counted = (day.body as Array<{ start: number; complete: number; fail: number }>).reduce(
      (sum, entry) => sum + entry.start + entry.complete + entry.fail,
      0,
    );
    assert.equal(counted, 4);
    for (const asset of ['jobs', 'datasets', 'sources']) {
      const week = await get(`/api/v1/stats/${asset}?period=WEEK&timezone=UTC`);
      assert.equal(week.status, 200);
      assert.equal(week.body.length, 7);
      assert.ok(week.body[6].count > 0, `${asset} counted`);
    }
  });

  it('answers bad input with 400 problem+json and unknown nodes with 404', async () => {
    assertProblem(await get('/api/v1/lineage'), 400, /nodeId/);
    assertProblem(
      await get('/api/v1/lineage?nodeId=table:a:b'),
      400,
      /must start with dataset:, job: or datasetField:/,
    );
    assertProblem(await get('/api/v1/lineage?nodeId=dataset:a%ZZ:b'), 400, /percent-encoded/);
    assertProblem(await get(`/api/v1/lineage?nodeId=dataset:nowhere:nothing`), 404);
    assertProblem(await get(`/api/v1/lineage?nodeId=dataset:${enc(REPORT_NAMESPACE)}:x&depth=-1`), 400, /depth/);
    assertProblem(
      await get(`/api/v1/column-lineage?nodeId=job:${enc(SPARK_NAMESPACE)}:${SPARK_JOB}`),
      400,
      /not a job/,
    );
    assertProblem(await get('/api/v1/stats/lineage-events?period=DAY&timezone=Mars/Olympus'), 400, /time zone/);
    assertProblem(await get('/api/v1/stats/everything'), 400);
    assertProblem(await get('/api/v1/events/lineage?sortDirection=sideways'), 400, /sortDirection/);
    assertProblem(await get('/api/v1/events/lineage?before=yesterday'), 400, /before/);
    assertProblem(await get('/api/v1/jobs?lastRunStates=SLEEPING'), 400, /lastRunStates/);
    assertProblem(await get(`/api/v1/namespaces/${enc(SPARK_NAMESPACE)}/jobs/nothing`), 404);
    assertProblem(await get(`/api/v1/namespaces/${enc(SPARK_NAMESPACE)}/datasets/nothing/versions`), 404);
    assertProblem(await get('/api/v1/jobs/runs/00000000-0000-4000-8000-000000000000/facets'), 404);
    assertProblem(await get('/api/v1/namespaces/nothing'), 404);
  });
});
