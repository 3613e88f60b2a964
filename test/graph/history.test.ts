/**
 * One write, one history entry: a graph command appends all of one write with one correlation id
 * (the caller's, else a fresh one), so the graph's history shows a single entry for it, such as the
 * import of a graph file into a new graph at API start. A write of more than
 * `RECORDED_ITEMS_PER_EVENT` nodes or edges is several events of that one append: still one entry,
 * all or nothing, and `as_of` and diffs across it answer what the fold from the start answers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { syntheticGraph } from '../../bench/syntheticGraph.js';
import { openRuntime, type LineageRuntime } from '../../infra/runtime.js';
import { foldGraphAsOf, toLineageGraph } from '../../projections/graphProjection.js';
import { loadConfig } from '../../src/config.js';
import { StorageError } from '../../src/errors.js';
import { iterateStream, type EventStore, type RecordedEvent } from '../../src/eventStore.js';
import { streams } from '../../src/events.js';
import { RECORDED_ITEMS_PER_EVENT } from '../../src/graph/changes.js';
import { createGraph, DEFAULT_GRAPH_NAME, graphIdForName, recordGraph } from '../../src/graphCommands.js';
import { createLogger } from '../../src/logger.js';
import { diffGraphHistory, graphHistory, readGraph } from '../../services/graphs.js';
import { sampleGraph } from '../helpers/sampleGraph.js';

describe('graph history', () => {
  it('shows an import into a new graph as one entry with a correlation id', async () => {
    const runtime = await openRuntime(
      loadConfig({ LINEAGE_SVC_STORAGE__BACKEND: 'memory' }),
      createLogger({ level: 'error' }),
    );
    try {
      const graph = sampleGraph();
      const graphId = graphIdForName(DEFAULT_GRAPH_NAME);
      await recordGraph(
        runtime.commands,
        graphId,
        graph,
        { mode: 'replace', createIfMissing: true, name: DEFAULT_GRAPH_NAME },
        { cause: 'import', actor: 'api' },
      );
      const { changes } = graphHistory(runtime, graphId);
      assert.equal(changes.length, 1, JSON.stringify(changes));
      const [entry] = changes;
      assert.equal(entry!.kind, 'created');
      assert.equal(entry!.cause, 'import');
      assert.match(entry!.correlation_id ?? '', /^[0-9a-f-]{36}$/);
      assert.equal(entry!.counts.nodes_added, graph.nodes.length);
      assert.equal(entry!.counts.edges_added, graph.edges.length);

      const changed = {
        ...graph,
        nodes: graph.nodes.map((node, index) =>
          index === 0 ? { ...node, attributes: { ...node.attributes, owner: 'x' } } : node,
        ),
      };
      await recordGraph(runtime.commands, graphId, changed, { mode: 'replace' }, { cause: 'api', actor: 'api' });
      const after = graphHistory(runtime, graphId).changes;
      assert.equal(after.length, 2);
      assert.notEqual(after[1]!.correlation_id, entry!.correlation_id, 'each write has its own correlation id');
    } finally {
      await runtime.close();
    }
  });
});

/** Counts the store's appends, and fails the next one when `failNext` is set. */
function watchAppends(store: EventStore): { appends: number; failNext: boolean } {
  const watched = { appends: 0, failNext: false };
  const append = store.append.bind(store);
  store.append = async (...args) => {
    watched.appends += 1;
    if (watched.failNext) {
      watched.failNext = false;
      throw new StorageError('disk full (test)');
    }
    return append(...args);
  };
  return watched;
}

/** The graph as the fold of its stream from the start gives it at `revision`, nodes and edges sorted. */
async function foldedAt(runtime: LineageRuntime, graphId: string, revision: number) {
  const { nodes, edges } = toLineageGraph(await foldGraphAsOf(runtime.store, graphId, { revision }));
  return { nodes: nodes.map((node) => node.id).sort(), edges: edges.length };
}

describe('a change of more items than one event holds', () => {
  it('is several events of one append, one history entry, all or nothing', async () => {
    const runtime = await openRuntime(
      loadConfig({ LINEAGE_SVC_STORAGE__BACKEND: 'memory' }),
      createLogger({ level: 'error' }),
    );
    try {
      const graphId = graphIdForName('large-change');
      await createGraph(runtime.commands, { graphId, name: 'large-change' }, { cause: 'api', actor: 'test' });
      const graph = syntheticGraph({ nodes: 600, edges: 1_300, seed: 5 });
      const watched = watchAppends(runtime.store);

      // A failed append records nothing: no event, no history entry, the graph as it was.
      watched.failNext = true;
      await assert.rejects(
        recordGraph(runtime.commands, graphId, graph, { mode: 'replace', trusted: true }, { cause: 'import' }),
        StorageError,
      );
      assert.equal(graphHistory(runtime, graphId).changes.length, 1);
      assert.equal((await readGraph(runtime, graphId)).graph.order, 0);

      watched.appends = 0;
      const result = await recordGraph(
        runtime.commands,
        graphId,
        graph,
        { mode: 'replace', trusted: true },
        { cause: 'import', actor: 'test' },
      );
      assert.equal(watched.appends, 1, 'the whole change is one append');
      const events: RecordedEvent[] = [];
      for await (const event of iterateStream(runtime.store, streams.graph(graphId), { fromRevision: 1 }))
        events.push(event);
      const items = (event: RecordedEvent) => {
        const data = event.data as { nodes?: unknown[]; edges?: unknown[] };
        return (data.nodes ?? data.edges ?? []).length;
      };
      const nodes = graph.nodes.length;
      const edges = graph.edges.length;
      assert.equal(
        events.length,
        Math.ceil(nodes / RECORDED_ITEMS_PER_EVENT) + Math.ceil(edges / RECORDED_ITEMS_PER_EVENT),
      );
      assert.ok(events.every((event) => items(event) <= RECORDED_ITEMS_PER_EVENT));
      assert.equal(new Set(events.map((event) => event.metadata.correlation_id)).size, 1);
      assert.equal(result.revision, events.length);

      const { changes } = graphHistory(runtime, graphId);
      assert.equal(changes.length, 2, 'the creation, then the change as one entry');
      assert.deepEqual(changes[1]!.counts, {
        nodes_added: nodes,
        nodes_changed: 0,
        nodes_removed: 0,
        edges_added: edges,
        edges_changed: 0,
        edges_removed: 0,
      });
      assert.equal(changes[1]!.revision, events.length);

      // A write that fills an empty graph keeps no versions in the history index (its window opens
      // at its end); points in it and before it answer what the fold from the start answers.
      assert.equal(runtime.graphs.history?.baseRevision(graphId), undefined);
      for (const revision of [events.length, 0, 1, 3]) {
        const view = await readGraph(runtime, graphId, String(revision));
        assert.deepEqual(
          {
            nodes: view.graph
              .nodeValues()
              .map((node) => node.id)
              .sort(),
            edges: view.graph.size,
          },
          await foldedAt(runtime, graphId, revision),
          `as_of ${revision}`,
        );
      }
      assert.equal(runtime.graphs.history?.baseRevision(graphId), events.length);
      const diff = await diffGraphHistory(runtime, graphId, '0', String(events.length));
      assert.equal(diff.nodes.added.length, nodes);
      assert.equal(diff.edges.added.length, edges);
      assert.equal(diff.nodes.removed.length + diff.nodes.changed.length + diff.edges.removed.length, 0);
    } finally {
      await runtime.close();
    }
  });
});
