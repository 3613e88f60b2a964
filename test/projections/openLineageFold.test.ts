/**
 * Specifications of the OpenLineage fold (`evolveOpenLineage`, `projections/openLineage/evolve.ts`):
 * given stored events, the datasets, jobs, runs, lineage edges and identities the state holds
 * (docs/openlineage.md, "Ingestion", "Identity" and "Queries"). Each specification looks at one
 * part of the state through its own view, and compares the whole of that part.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { v5 as uuidv5 } from 'uuid';
import {
  evolveOpenLineage,
  initialOpenLineageState,
  type OpenLineageState,
} from '../../projections/openLineage/index.js';
import type { EventOf, StoredLineageEvent } from '../../src/events.js';
import type { Node } from '../../src/graph/model.js';
import { datasetKey, splitDatasetKey } from '../../src/openlineage/identity.js';
import { NON_UUID_RUN_NAMESPACE, normalizeOpenLineage } from '../../src/openlineage/ingest.js';
import { recorded, type EventToRecord } from '../helpers/recordedEvents.js';
import type { GraphNodeIndex } from '../../projections/openLineage/graphNodeIndex.js';
import { specification, type Fold } from '../helpers/specification.js';

const RUN_1 = '0190a1b2-0000-7000-8000-000000000001';
const RUN_2 = '0190a1b2-0000-7000-8000-000000000002';
const T0 = '2026-03-01T10:00:00.000Z';
const T1 = '2026-03-01T11:00:00.000Z';
const T2 = '2026-03-01T12:00:00.000Z';

type Ref = { namespace: string; name: string; facets?: Record<string, unknown> };

/** A RunEvent as ingestion stores it. */
function runEvent(fields: {
  job: string;
  runId?: string;
  /** Default COMPLETE; null leaves it out. */
  eventType?: string | null;
  eventTime?: string;
  inputs?: Ref[];
  outputs?: Ref[];
  jobFacets?: Record<string, unknown>;
}): Record<string, unknown> {
  return {
    eventTime: fields.eventTime ?? T0,
    ...(fields.eventType === null ? {} : { eventType: fields.eventType ?? 'COMPLETE' }),
    producer: 'https://example.com/producer',
    schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
    run: { runId: fields.runId ?? RUN_1 },
    job: { namespace: 'jobs', name: fields.job, ...(fields.jobFacets ? { facets: fields.jobFacets } : {}) },
    inputs: fields.inputs ?? [],
    outputs: fields.outputs ?? [],
  };
}

/** `OpenLineageEventIngested` of `event`, its dedupe key `key` (each test names its keys). */
function ingested(
  key: string,
  event: Record<string, unknown>,
  kind: 'RunEvent' | 'JobEvent' | 'DatasetEvent' = 'RunEvent',
): EventOf<'OpenLineageEventIngested'> {
  return { type: 'OpenLineageEventIngested', data: { kind, dedupe_key: key, event, warnings: [] } };
}

/** `NodesAdded` of one stream topic of cluster `lkc-1` in `env-1` with these attributes. */
function topicAdded(attributes: Record<string, unknown>, system: Node['system'] = 'STREAM'): EventOf<'NodesAdded'> {
  const node: Node = {
    id: 'stream:topic:env-1:lkc-1/orders',
    node_type: 'TOPIC',
    system,
    qualified_name: 'lkc-1/orders',
    display_name: 'orders',
    environment_id: 'env-1',
    cluster_id: 'lkc-1',
    attributes,
  };
  return { type: 'NodesAdded', data: { graph_id: 'g-1', nodes: [node] } };
}

const fold = <View>(view: (state: OpenLineageState) => View): Fold<OpenLineageState, StoredLineageEvent, View> => ({
  initialState: initialOpenLineageState,
  evolve: evolveOpenLineage,
  view,
});
const given =
  <View>(view: (state: OpenLineageState) => View) =>
  (events: EventToRecord[]) =>
    specification(fold(view)).given(recorded(events));

/** The datasets: identity, facets and first/last seen (ISO). */
const datasets = given((state) =>
  [...state.datasets.values()].map((dataset) => ({
    dataset: `${dataset.namespace}|${dataset.name}`,
    facets: dataset.facets,
    first_seen: new Date(dataset.firstMs).toISOString(),
    last_seen: new Date(dataset.lastMs).toISOString(),
  })),
);
/** The jobs: latest run, the arrival number of their latest run-less event, and facets. */
const jobs = given((state) =>
  [...state.jobs.values()].map((job) => ({
    job: `${job.namespace}|${job.name}`,
    latest_run_id: job.latestRunId,
    latest_job_event: job.latestJobEvent?.seq ?? null,
    facets: job.facets,
  })),
);
/** The lineage graph's edges, `from -> to` with `d:` for datasets and `j:` for jobs. */
const edges = given((state) => state.graph.mapEdges((_, __, source, target) => `${label(source)} -> ${label(target)}`));
/** The folded events in arrival order: kind, job, runId, eventType; and how many dedupe keys. */
const events = given((state) => ({
  events: state.events.map((record) => [
    record.seq,
    record.kind,
    record.jobKey === null ? null : splitDatasetKey(record.jobKey).name,
    record.runId,
    record.eventType,
  ]),
  dedupe_keys: state.dedupeKeys.size,
  position: state.position,
}));
/** The runs index: each key, and the arrival numbers of its events. */
const runs = given((state) =>
  Object.fromEntries([...state.byRun].map(([key, records]) => [key, records.map((record) => record.seq)])),
);
/** The classes of joined dataset identities with more than one member, each sorted. */
const identityClasses = given((state) => {
  const classes = new Map<string, string[]>();
  for (const key of state.datasets.keys()) classes.set(state.identities.find(key), [...state.identities.members(key)]);
  return [...classes.values()]
    .filter((members) => members.length > 1)
    .map((members) => members.map((key) => Object.values(splitDatasetKey(key)).join('|')).sort());
});

function label(node: string): string {
  const { namespace, name } = splitDatasetKey(node.slice(2));
  return `${node.startsWith('d') ? 'd' : 'j'}:${namespace}|${name}`;
}

describe('OpenLineage fold: the initial state', () => {
  it('is empty, at position 0', () => {
    const state = initialOpenLineageState();
    assert.deepEqual(
      [
        state.position,
        state.events.length,
        state.datasets.size,
        state.jobs.size,
        state.graph.order,
        state.dedupeKeys.size,
      ],
      [0, 0, 0, 0, 0, 0],
    );
  });
  it('is a new one at every call (reset shares nothing with the state it replaces)', () => {
    const a = initialOpenLineageState();
    const b = initialOpenLineageState();
    evolveOpenLineage(
      a,
      recorded([ingested('k1', runEvent({ job: 'copy', outputs: [{ namespace: 'n', name: 'd' }] }))])[0]!,
    );
    assert.deepEqual([b.events.length, b.datasets.size, b.graph.order, b.identities.has('n\u0000d')], [0, 0, 0, false]);
  });
});

describe('OpenLineage fold: events and dedupe', () => {
  it('folds a RunEvent once per dedupe_key; a duplicate only moves the position', () =>
    events([
      ingested('k1', runEvent({ job: 'copy' })),
      ingested('k1', runEvent({ job: 'copy' })),
      ingested('k2', runEvent({ job: 'copy', eventType: 'START' })),
    ]).then({
      events: [
        [0, 'RunEvent', 'copy', RUN_1, 'COMPLETE'],
        [1, 'RunEvent', 'copy', RUN_1, 'START'],
      ],
      dedupe_keys: 2,
      position: 3,
    }));

  it('reads a RunEvent without eventType as OTHER; JobEvents and DatasetEvents have none', () =>
    events([
      ingested('k1', runEvent({ job: 'a', eventType: null })),
      ingested('k2', { eventTime: T0, job: { namespace: 'jobs', name: 'b' } }, 'JobEvent'),
      ingested('k3', { eventTime: T0, dataset: { namespace: 'n', name: 'd' } }, 'DatasetEvent'),
    ]).then({
      events: [
        [0, 'RunEvent', 'a', RUN_1, 'OTHER'],
        [1, 'JobEvent', 'b', null, null],
        [2, 'DatasetEvent', null, null, null],
      ],
      dedupe_keys: 3,
      position: 3,
    }));

  it('other events (graph, task) change nothing but the position (a graph event also the lineage position)', () =>
    given((state) => state)([
      { type: 'GraphCreated', data: { graph_id: 'g-1', name: 'g', description: null } },
      { type: 'TaskCreated', data: { task_id: 't-1', task_type: 'extract', parameters: {} } },
    ]).then((state) => {
      const fresh = initialOpenLineageState();
      assert.equal(state.position, 2);
      assert.equal(state.lineagePosition, 1, 'the graph event, not the task event');
      assert.deepEqual(
        { ...state, position: 0, lineagePosition: 0, identities: null, graph: null },
        { ...fresh, identities: null, graph: null },
      );
      assert.equal(state.graph.order, 0);
    }));

  it('keeps arrival order and notes when eventTimes arrive out of order', () =>
    given((state) => ({
      sorted: state.eventsSorted,
      times: state.events.map((record) => new Date(record.timeMs).toISOString()),
    }))([
      ingested('k1', runEvent({ job: 'a', eventTime: T1 })),
      ingested('k2', runEvent({ job: 'b', eventTime: T0 })),
    ]).then({ sorted: false, times: [T1, T0] }));
});

describe('OpenLineage fold: runs', () => {
  it('indexes a run under its runId and its lower-case form', () =>
    runs([
      ingested('k1', runEvent({ job: 'a', runId: RUN_1.toUpperCase() })),
      ingested('k2', runEvent({ job: 'a', runId: RUN_1.toUpperCase(), eventType: 'START' })),
    ]).then({
      [RUN_1.toUpperCase()]: [0, 1],
      [RUN_1]: [0, 1],
    }));

  it('indexes a non-UUID runId under the run_uuid that ingestion reports too', () => {
    const event = runEvent({ job: 'dbt-model', runId: 'dbt-run-42' });
    const normalized = normalizeOpenLineage(event);
    assert.ok(normalized.ok);
    const uuid = uuidv5('jobs\ndbt-model\ndbt-run-42', NON_UUID_RUN_NAMESPACE);
    assert.equal(normalized.run_uuid, uuid, 'the same derivation as ingestion');
    runs([ingested('k1', event)]).then({ 'dbt-run-42': [0], [uuid]: [0] });
  });

  it("a job's latest run is the run with the latest eventTime, whatever the arrival order", () =>
    jobs([
      ingested('k1', runEvent({ job: 'copy', runId: RUN_2, eventTime: T2 })),
      ingested('k2', runEvent({ job: 'copy', runId: RUN_1, eventTime: T1 })),
    ]).then([{ job: 'jobs|copy', latest_run_id: RUN_2, latest_job_event: null, facets: {} }]));

  it('a run-less job keeps its latest JobEvent; job facets merge from the latest event', () =>
    jobs([
      ingested(
        'k1',
        { eventTime: T1, job: { namespace: 'jobs', name: 'b', facets: { sql: { query: 'new' } } } },
        'JobEvent',
      ),
      ingested(
        'k2',
        {
          eventTime: T0,
          job: { namespace: 'jobs', name: 'b', facets: { sql: { query: 'old' }, owner: { name: 'x' } } },
        },
        'JobEvent',
      ),
    ]).then([{ job: 'jobs|b', latest_run_id: null, latest_job_event: 0, facets: { sql: { query: 'new' } } }]));
});

describe('OpenLineage fold: datasets and lineage edges', () => {
  it('a RunEvent links its inputs to the job and the job to its outputs', () =>
    edges([
      ingested(
        'k1',
        runEvent({
          job: 'copy',
          inputs: [{ namespace: 's3://b', name: 'in' }],
          outputs: [{ namespace: 'db', name: 'out' }],
        }),
      ),
    ]).then(['d:s3://b|in -> j:jobs|copy', 'j:jobs|copy -> d:db|out']));

  it('edges accumulate over runs: a later run with other inputs adds, never removes', () =>
    edges([
      ingested('k1', runEvent({ job: 'copy', runId: RUN_1, inputs: [{ namespace: 'n', name: 'old' }] })),
      ingested('k2', runEvent({ job: 'copy', runId: RUN_2, eventTime: T1, inputs: [{ namespace: 'n', name: 'new' }] })),
      ingested(
        'k3',
        runEvent({
          job: 'copy',
          runId: RUN_2,
          eventTime: T1,
          eventType: 'START',
          inputs: [{ namespace: 'n', name: 'new' }],
        }),
      ),
    ]).then(['d:n|old -> j:jobs|copy', 'd:n|new -> j:jobs|copy']));

  it('dataset facets: the latest eventTime wins per key, an older event only fills what is missing, _deleted removes', () =>
    datasets([
      ingested(
        'k1',
        runEvent({
          job: 'a',
          eventTime: T1,
          outputs: [{ namespace: 'n', name: 'd', facets: { schema: { v: 2 }, owner: { o: 'x' } } }],
        }),
      ),
      ingested(
        'k2',
        runEvent({
          job: 'a',
          eventTime: T0,
          outputs: [{ namespace: 'n', name: 'd', facets: { schema: { v: 1 }, doc: { d: 'old' } } }],
        }),
      ),
      ingested(
        'k3',
        runEvent({
          job: 'a',
          eventTime: T2,
          outputs: [{ namespace: 'n', name: 'd', facets: { owner: { _deleted: true } } }],
        }),
      ),
    ]).then([{ dataset: 'n|d', facets: { schema: { v: 2 }, doc: { d: 'old' } }, first_seen: T0, last_seen: T2 }]));

  it('a DatasetEvent registers its dataset, without job or edge', () =>
    given((state) => ({
      datasets: [...state.datasets.keys()].map((key) => Object.values(splitDatasetKey(key)).join('|')),
      jobs: state.jobs.size,
      edges: state.graph.size,
    }))([
      ingested(
        'k1',
        { eventTime: T0, dataset: { namespace: 'n', name: 'd', facets: { doc: { d: 'x' } } } },
        'DatasetEvent',
      ),
    ]).then({ datasets: ['n|d'], jobs: 0, edges: 0 }));
});

describe('OpenLineage fold: identities', () => {
  it('joins a dataset with its symlinks identifiers', () =>
    identityClasses([
      ingested(
        'k1',
        runEvent({
          job: 'spark',
          outputs: [
            {
              namespace: 's3://lake',
              name: 'warehouse/orders',
              facets: { symlinks: { identifiers: [{ namespace: 'hive://m:9083', name: 'db.orders', type: 'TABLE' }] } },
            },
          ],
        }),
      ),
    ]).then([['hive://m:9083|db.orders', 's3://lake|warehouse/orders']]));

  it('joins kafka://{bootstrap} with stream://{env}/{cluster} from a stream node carrying a bootstrap endpoint, normalized', () =>
    identityClasses([
      ingested(
        'k1',
        runEvent({
          job: 'flink',
          inputs: [
            { namespace: 'kafka://b1:9092', name: 'orders' },
            { namespace: 'stream://env-1/lkc-1', name: 'orders' },
          ],
        }),
      ),
      topicAdded({ bootstrap_endpoint: 'SASL_SSL://B1:9092' }),
    ]).then([['kafka://b1:9092|orders', 'stream://env-1/lkc-1|orders']]));

  it('learns the alias before the datasets arrive, too', () =>
    identityClasses([
      topicAdded({ kafka_bootstrap_endpoint: 'b1' }),
      ingested('k1', runEvent({ job: 'flink', inputs: [{ namespace: 'kafka://b1:9092', name: 'orders' }] })),
    ]).then([['kafka://b1:9092|orders', 'stream://env-1/lkc-1|orders']]));

  it('ignores nodes of other systems and nodes without a bootstrap endpoint', () =>
    identityClasses([
      ingested(
        'k1',
        runEvent({
          job: 'flink',
          inputs: [
            { namespace: 'kafka://b1:9092', name: 'orders' },
            { namespace: 'stream://env-1/lkc-1', name: 'orders' },
          ],
        }),
      ),
      topicAdded({ bootstrap_endpoint: 'b1:9092' }, 'EXTERNAL'),
      topicAdded({}),
    ]).then([]));
});

/** A stream node of `env-1`/`lkc-1` (a topic unless `fields` say otherwise). */
function streamNode(name: string, fields: Partial<Node> = {}): Node {
  return {
    id: `stream:topic:env-1:lkc-1/${name}`,
    node_type: 'TOPIC',
    system: 'STREAM',
    qualified_name: `lkc-1/${name}`,
    display_name: name,
    environment_id: 'env-1',
    cluster_id: 'lkc-1',
    attributes: null,
    ...fields,
  };
}
const GROUP = streamNode('readers', { id: 'stream:consumer_group:env-1:lkc-1/readers', node_type: 'CONSUMER_GROUP' });
const SCHEMA = streamNode('orders-value', {
  id: 'stream:schema:env-1:orders-value',
  node_type: 'SCHEMA',
  qualified_name: 'orders-value',
  cluster_id: null,
});

/** Where the extracted graphs hold datasets and jobs, as `{key: {graph id: node ids}}`, keys `d:{namespace}|{name}` and `j:{job name}`. */
const graphIndex = given((state) => {
  const shown: Record<string, Record<string, string[]>> = {};
  const show = (label: string, index: GraphNodeIndex, key: string) => {
    const byGraph: Record<string, string[]> = (shown[label] = {});
    for (const [graphId, nodeId] of index.nodesUnder(key)) (byGraph[graphId] ??= []).push(nodeId);
  };
  for (const key of state.graphDatasets.indexedKeys()) {
    show(`d:${Object.values(splitDatasetKey(key)).join('|')}`, state.graphDatasets, key);
  }
  for (const key of state.graphJobs.indexedKeys()) show(`j:${key}`, state.graphJobs, key);
  return shown;
});

describe('OpenLineage fold: where the extracted graphs hold datasets and jobs', () => {
  it('indexes dataset nodes under their OpenLineage identity and job nodes under their name; schemas are not indexed', () =>
    graphIndex([
      { type: 'NodesAdded', data: { graph_id: 'g-1', nodes: [streamNode('orders'), GROUP, SCHEMA] } },
      { type: 'NodesAdded', data: { graph_id: 'g-2', nodes: [streamNode('orders')] } },
    ]).then({
      'd:stream://env-1/lkc-1|orders': { 'g-1': [streamNode('orders').id], 'g-2': [streamNode('orders').id] },
      'j:readers': { 'g-1': [GROUP.id] },
    }));

  it('registers the identity of an indexed dataset, so that its Kafka alias joins it', () =>
    given((state) =>
      state.identities
        .members(datasetKey('stream://env-1/lkc-1', 'orders'))
        .map((key) => Object.values(splitDatasetKey(key)).join('|'))
        .sort(),
    )([
      {
        type: 'NodesAdded',
        data: { graph_id: 'g-1', nodes: [streamNode('orders', { attributes: { bootstrap_endpoint: 'b1' } })] },
      },
    ]).then(['kafka://b1:9092|orders', 'stream://env-1/lkc-1|orders']));

  it('re-indexes a node whose identity changes, and unindexes removed nodes', () =>
    graphIndex([
      { type: 'NodesAdded', data: { graph_id: 'g-1', nodes: [streamNode('orders'), streamNode('refunds')] } },
      {
        type: 'NodesChanged',
        data: { graph_id: 'g-1', nodes: [streamNode('orders', { qualified_name: 'lkc-1/orders_v2' })] },
      },
      { type: 'NodesRemoved', data: { graph_id: 'g-1', node_ids: [streamNode('refunds').id, 'stream:topic:unknown'] } },
    ]).then({ 'd:stream://env-1/lkc-1|orders_v2': { 'g-1': [streamNode('orders').id] } }));

  it('forgets a deleted graph, and a graph created anew starts empty; other graphs stay', () =>
    graphIndex([
      { type: 'GraphCreated', data: { graph_id: 'g-1', name: 'a', description: null } },
      { type: 'NodesAdded', data: { graph_id: 'g-1', nodes: [streamNode('orders'), GROUP] } },
      { type: 'NodesAdded', data: { graph_id: 'g-2', nodes: [streamNode('orders')] } },
      { type: 'GraphDeleted', data: { graph_id: 'g-1' } },
      { type: 'GraphCreated', data: { graph_id: 'g-1', name: 'a', description: null } },
    ]).then({ 'd:stream://env-1/lkc-1|orders': { 'g-2': [streamNode('orders').id] } }));

  it('leaves node events outside graph streams out of the index', () =>
    graphIndex([
      { type: 'NodesAdded', data: { graph_id: 'g-1', nodes: [streamNode('orders')] }, stream: 'elsewhere-1' },
    ]).then({}));

  it('skips the RunEvents a graph view stored (cause view): the graph is joined as it is now', () =>
    events([
      { ...ingested('k1', runEvent({ job: 'stale-view-job' })), metadata: { cause: 'view' } },
      ingested('k2', runEvent({ job: 'spark' })),
    ]).then({ events: [[0, 'RunEvent', 'spark', RUN_1, 'COMPLETE']], dedupe_keys: 1, position: 2 }));
});

describe('OpenLineage fold: runs of a known job naming the same inputs and outputs', () => {
  /** Everything the fold keeps but `linked` (the fold's own memory), as comparable values. */
  function wholeState(state: OpenLineageState) {
    return {
      position: state.position,
      events: state.events.map(({ event, ...record }) => ({ ...record, event: JSON.stringify(event) })),
      byRun: [...state.byRun].map(([key, records]) => [key, records.map((record) => record.seq)]),
      byJob: [...state.byJob].map(([key, records]) => [key, records.map((record) => record.seq)]),
      jobs: [...state.jobs].map(([key, { linked: _linked, latestJobEvent, ...job }]) => [
        key,
        { ...job, latestJobEvent: latestJobEvent?.seq ?? null },
      ]),
      datasets: [...state.datasets],
      datasetsByNamespace: [...state.datasetsByNamespace].map(([namespace, keys]) => [namespace, [...keys]]),
      nodes: state.graph.nodes(),
      edges: state.graph.mapEdges((_, __, source, target) => `${source} -> ${target}`),
      identities: [...state.datasets.keys()].map((key) => [key, state.identities.find(key)]),
    };
  }

  // One job's runs: the same datasets again (newer and older eventTimes, new facets, a symlink), then in
  // another order, one dropped, one added, an entry without a name, an output that becomes an input.
  const a = { namespace: 'n', name: 'a' };
  const b = { namespace: 'n', name: 'b' };
  const c = { namespace: 'n', name: 'c' };
  const out = { namespace: 'db', name: 'out' };
  const runs: Array<{ time: string; inputs: Ref[]; outputs: Ref[] }> = [
    { time: T1, inputs: [a, b], outputs: [out] },
    { time: T2, inputs: [a, b], outputs: [{ ...out, facets: { schema: { fields: [] } } }] },
    { time: T0, inputs: [{ ...a, facets: { owner: { name: 'x' } } }, b], outputs: [out] },
    {
      time: T2,
      inputs: [
        {
          ...a,
          facets: { symlinks: { identifiers: [{ namespace: 'hive', name: 'warehouse.a', type: 'TABLE' }] } },
        },
        b,
      ],
      outputs: [out],
    },
    { time: T2, inputs: [b, a], outputs: [out] },
    { time: T2, inputs: [b], outputs: [out] },
    { time: T2, inputs: [b, c], outputs: [out] },
    { time: T2, inputs: [b, { namespace: 'n' } as Ref], outputs: [out] },
    { time: T2, inputs: [b, { namespace: 'n' } as Ref], outputs: [out] },
    { time: T2, inputs: [out], outputs: [b] },
    { time: T2, inputs: [out], outputs: [b] },
  ];
  const stored = recorded(
    runs.map((run, index) =>
      ingested(
        `k${index}`,
        runEvent({
          job: 'copy',
          runId: `0190a1b2-0000-7000-8000-${String(index).padStart(12, '0')}`,
          eventTime: run.time,
          inputs: run.inputs,
          outputs: run.outputs,
        }),
      ),
    ),
  );

  it('leaves the state the full fold leaves (every event linking its edges again)', () => {
    const folded = initialOpenLineageState();
    const full = initialOpenLineageState();
    for (const event of stored) {
      evolveOpenLineage(folded, event);
      // The full fold: the job's memory of what it linked forgotten before each event.
      for (const job of full.jobs.values()) job.linked = null;
      evolveOpenLineage(full, event);
    }
    assert.deepEqual(wholeState(folded), wholeState(full));
  });

  it('does not look its edges up again', () => {
    const state = initialOpenLineageState();
    let lookups = 0;
    const hasEdge = state.graph.hasEdge.bind(state.graph);
    state.graph.hasEdge = ((...args: Parameters<typeof hasEdge>) => {
      lookups += 1;
      return hasEdge(...args);
    }) as typeof hasEdge;
    evolveOpenLineage(state, stored[0]!);
    const first = lookups;
    evolveOpenLineage(state, stored[1]!);
    evolveOpenLineage(state, stored[2]!);
    assert.equal(first, 3);
    assert.equal(lookups, first);
  });
});
