/**
 * The extracted graphs in the OpenLineage queries (`projections/openLineage/extracted.ts`, over
 * `createRunEventBuilder`, `jobsWriting` and `jobsReading` of `src/openlineage/fromGraph.ts`):
 * - one job's RunEvent built alone over the graph projection's resident graph is the event
 *   `graphToRunEvents` gives for it;
 * - `jobsWriting` and `jobsReading` are exactly the inverse of the events' outputs and inputs, so a
 *   walk from a dataset finds every job whose event names it, and no other;
 * - the projection joins the graph as it is: a job appears, changes and disappears with its node,
 *   and the RunEvents a view stored before (cause `view`) are not read.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { syntheticGraph } from '../../bench/syntheticGraph.js';
import { createGraphProjection } from '../../projections/graphProjection.js';
import { streams, toAppend } from '../../src/events.js';
import { recordGraph } from '../../src/graphCommands.js';
import type { Edge, LineageGraph, Node } from '../../src/graph/model.js';
import {
  createRunEventBuilder,
  graphToRunEvents,
  residentGraphLookup,
  jobsReading,
  jobsWriting,
  openLineageIdentity,
  type GraphJobRef,
} from '../../src/openlineage/fromGraph.js';
import { datasetKey } from '../../src/openlineage/identity.js';
import type { RunEvent } from '../../src/openlineage/model.js';
import { recorded } from '../helpers/recordedEvents.js';
import { CLUSTER, ENV, ids, sampleGraph } from '../helpers/sampleGraph.js';
import { runEvent, setup } from './helpers.js';

const EVENT_TIME = '2026-04-01T00:00:00.000Z';
const GRAPH_ID = '3c1b6f0e-8d2a-4c5b-9e7f-0a1b2c3d4e5f';
const NS = `stream://${ENV}/${CLUSTER}`;

/** The sample graph plus a catalog table derived (TRANSFORMS) from the lakehouse table, so every edge rule is present. */
function graphWithTransforms(): LineageGraph {
  const graph = sampleGraph();
  const lakehouse = graph.nodes.find((node) => node.id === ids.lakehouse)!;
  const derived: Node = {
    ...lakehouse,
    id: `${ids.lakehouse}_daily`,
    qualified_name: `${lakehouse.qualified_name}_daily`,
  };
  const edge: Edge = { src_id: ids.lakehouse, dst_id: derived.id, edge_type: 'TRANSFORMS', attributes: null };
  return { nodes: [...graph.nodes, derived], edges: [...graph.edges, edge] };
}

/** The resident graph the graph projection holds for `graph`. */
function residentGraph(graph: LineageGraph) {
  const projection = createGraphProjection();
  const events = recorded([
    { type: 'GraphCreated', data: { graph_id: 'g', name: 'g', description: null } },
    { type: 'NodesAdded', data: { graph_id: 'g', nodes: graph.nodes } },
    { type: 'EdgesAdded', data: { graph_id: 'g', edges: graph.edges } },
  ]);
  for (const event of events) projection.apply(event);
  return projection.get('g')!.graph;
}

/** The job refs of `graphToRunEvents`'s events, in its order: job nodes, then TRANSFORMS targets. */
function refsOf(graph: LineageGraph, events: RunEvent[]): GraphJobRef[] {
  const lookup = residentGraphLookup(residentGraph(graph));
  const builder = createRunEventBuilder(lookup, { eventTime: EVENT_TIME });
  const refs = [...graph.nodes.map((node) => node.id), ...graph.nodes.map((node) => `transforms:${node.id}`)];
  const byRunId = new Map(refs.map((ref) => [builder.event(ref)?.run.runId, ref]));
  return events.map((event) => byRunId.get(event.run.runId)!);
}

for (const [label, make] of [
  ['the sample graph with a TRANSFORMS edge', graphWithTransforms],
  ['a 2,000-node synthetic graph', () => syntheticGraph({ nodes: 2_000, edges: 6_000 })],
] as const) {
  describe(`one job at a time over the resident graph: ${label}`, () => {
    const graph = make();
    const events = graphToRunEvents(graph, { eventTime: EVENT_TIME });
    const lookup = residentGraphLookup(residentGraph(graph));
    const builder = createRunEventBuilder(lookup, { eventTime: EVENT_TIME });

    it('builds each job as graphToRunEvents does', () => {
      const refs = refsOf(graph, events);
      assert.ok(events.length > 0 && refs.every((ref) => ref !== undefined), 'every event has its job');
      assert.deepEqual(
        refs.map((ref) => builder.event(ref)),
        events,
      );
    });

    it('jobsWriting and jobsReading are exactly the inverse of the outputs and inputs', () => {
      const refs = refsOf(graph, events);
      const keysOf = (datasets: RunEvent['inputs']) =>
        new Set((datasets ?? []).map((dataset) => datasetKey(dataset.namespace, dataset.name)));
      const expected = { writing: new Set<string>(), reading: new Set<string>() };
      events.forEach((event, at) => {
        for (const key of keysOf(event.outputs)) expected.writing.add(`${key} <- ${refs[at]}`);
        for (const key of keysOf(event.inputs)) expected.reading.add(`${key} -> ${refs[at]}`);
      });
      const actual = { writing: new Set<string>(), reading: new Set<string>() };
      for (const node of graph.nodes) {
        const identity = openLineageIdentity(node);
        const key = datasetKey(identity.namespace, identity.name);
        for (const ref of jobsWriting(lookup, node.id)) actual.writing.add(`${key} <- ${ref}`);
        for (const ref of jobsReading(lookup, node.id)) actual.reading.add(`${key} -> ${ref}`);
      }
      assert.deepEqual([...actual.writing].sort(), [...expected.writing].sort());
      assert.deepEqual([...actual.reading].sort(), [...expected.reading].sort());
    });
  });
}

describe('the OpenLineage projection joins the extracted graph as it is', () => {
  it('finds the graph jobs, follows a removed job, and forgets a deleted graph', async (t) => {
    const { commands, graphs, ingest, projection, sync } = await setup(t);
    const graph = sampleGraph();
    await recordGraph(commands, GRAPH_ID, graph, { mode: 'replace', createIfMissing: true }, { actor: 'test' });
    await sync();
    const lineage = () => projection.datasetLineage({ namespace: 's3://analytics-bucket', name: 'orders', depth: 5 });
    const updatedAt = graphs.get(GRAPH_ID)!.updatedAt!;
    const expected = graphToRunEvents(graph, { eventTime: updatedAt });
    const byName = (events: unknown[]) => (events as RunEvent[]).map((event) => event.job.name).sort();
    assert.deepEqual(byName(lineage().events), ['enrich-orders', 'pg-orders-cdc', 's3-orders-sink']);
    assert.deepEqual(
      lineage().events,
      ['s3-orders-sink', 'enrich-orders', 'pg-orders-cdc'].map((name) =>
        expected.find((event) => event.job.name === name),
      ),
      'the events graphToRunEvents gives, at the time of the graph, in the order reached',
    );
    assert.deepEqual(
      projection.listDatasets({ namespace: NS }).map((dataset) => dataset.name),
      ['orders_enriched', 'shop.public.orders'],
    );

    const withoutEnrich: LineageGraph = {
      nodes: graph.nodes.filter((node) => node.id !== ids.enrich),
      edges: graph.edges.filter((edge) => edge.src_id !== ids.enrich && edge.dst_id !== ids.enrich),
    };
    await recordGraph(commands, GRAPH_ID, withoutEnrich, { mode: 'replace' }, { actor: 'test' });
    await sync();
    assert.deepEqual(byName(lineage().events), ['s3-orders-sink']);

    await ingest([runEvent({ job: 'audit', inputs: [{ namespace: NS, name: 'orders_enriched' }] })]);
    await commands.store.append(
      streams.graph(GRAPH_ID),
      toAppend([{ type: 'GraphDeleted', data: { graph_id: GRAPH_ID } }], {}),
    );
    await sync();
    assert.throws(() => lineage(), /not known/);
    assert.deepEqual(
      projection.datasetDetail({ namespace: NS, name: 'orders_enriched' }).consumed_by,
      [{ namespace: 'jobs', name: 'audit' }],
      'the ingested reader stays, the graph readers are gone',
    );
  });

  it('does not read the RunEvents a view stored before views stopped storing', async (t) => {
    const { store, projection, sync } = await setup(t);
    const stale = runEvent({ job: 'deleted-long-ago', outputs: [{ namespace: NS, name: 'orders' }] });
    await store.append(
      streams.openLineage('view-key'),
      toAppend(
        [
          {
            type: 'OpenLineageEventIngested',
            data: { kind: 'RunEvent', dedupe_key: 'view-key', event: stale, warnings: [] },
          },
        ],
        {
          cause: 'view',
        },
      ),
    );
    await sync();
    assert.deepEqual([projection.eventCount, projection.listJobs()], [0, []]);
  });
});
