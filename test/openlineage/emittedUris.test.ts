/**
 * Issue 15: every emitted OpenLineage event validates against the official schema (uri formats
 * included) when the graph's names hold spaces, unicode and reserved URI characters.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeUriForOpenLineage, graphToRunEvents } from '../../src/openlineage/fromGraph.js';
import type { LineageGraph } from '../../src/graph/model.js';
import { sampleGraph } from '../helpers/sampleGraph.js';
import { fixturesPresent } from './helpers.js';
import { loadValidator } from './validator.js';

const HOSTILE = ['raw data/orders', 'zürich 東京', 'a?b#c[d]%zz', 'pct%20ok', "it's (100%)"];

/** The sample graph with hostile names on every external dataset and every topic. */
function hostileGraph(suffix: string): LineageGraph {
  const graph = sampleGraph();
  return {
    ...graph,
    nodes: graph.nodes.map((node) => {
      if (node.node_type === 'EXTERNAL_DATASET')
        return { ...node, qualified_name: `s3://acme-datalake/${suffix}`, display_name: suffix };
      if (node.node_type === 'TOPIC') return { ...node, display_name: `${node.display_name} ${suffix}` };
      return node;
    }),
  };
}

describe('emitted OpenLineage URIs', () => {
  it('percent-encodes what a URI may not hold and keeps valid escapes', () => {
    assert.equal(encodeUriForOpenLineage('s3://acme-datalake/raw data/orders'), 's3://acme-datalake/raw%20data/orders');
    assert.equal(encodeUriForOpenLineage('s3://b/pct%20ok'), 's3://b/pct%20ok');
    assert.equal(encodeUriForOpenLineage('s3://b/100%'), 's3://b/100%25');
    assert.equal(encodeUriForOpenLineage('s3://b/zürich'), 's3://b/z%C3%BCrich');
    assert.equal(encodeUriForOpenLineage('s3://b/\ud800'), 's3://b/%EF%BF%BD');
  });

  it('validates every event of views of graphs with spaces, unicode and reserved characters', (t) => {
    if (!fixturesPresent(t, 'spec/OpenLineage.json')) return;
    const validator = loadValidator();
    for (const suffix of HOSTILE) {
      const graph = hostileGraph(suffix);
      const events = [
        ...graphToRunEvents(graph, { eventTime: '2024-01-01T00:00:00.000Z' }),
        ...graphToRunEvents(graph, { streamOnly: true, eventTime: '2024-01-01T00:00:00.000Z' }),
      ];
      assert.ok(events.length > 0);
      const sources = events.flatMap((event) =>
        [...event.inputs, ...event.outputs].flatMap((dataset) => {
          const uri = (dataset.facets as Record<string, { uri?: string }> | undefined)?.dataSource?.uri;
          return uri === undefined ? [] : [uri];
        }),
      );
      assert.ok(
        sources.some((uri) => uri.startsWith('s3://acme-datalake/')),
        `an s3 dataSource for "${suffix}"`,
      );
      for (const event of events)
        assert.deepEqual(validator.errors(event), [], `${event.job.name} validates with "${suffix}"`);
    }
  });
});
