/**
 * One write, one history entry: a graph command appends all of one write with one correlation id
 * (the caller's, else a fresh one), so the graph's history shows a single entry for it, such as the
 * import of a graph file into a new graph at API start.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openRuntime } from '../../infra/runtime.js';
import { loadConfig } from '../../src/config.js';
import { DEFAULT_GRAPH_NAME, graphIdForName, recordGraph } from '../../src/graphCommands.js';
import { createLogger } from '../../src/logger.js';
import { graphHistory } from '../../services/graphs.js';
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
