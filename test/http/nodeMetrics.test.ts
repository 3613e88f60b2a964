/**
 * A node's metric series over the API (`GET /graphs/{graph_id}/nodes/{node_id}/metrics`,
 * `infra/http/routes/nodeMetrics.ts`), and the latest samples laid over node attributes on graph
 * reads (`services/graphs.ts`) while history and diff never see them. Samples are recorded as the
 * extraction records them (`recordMetricSamples`, `src/extraction/record.ts`), on a real socket, on
 * every backend, with the store's clock under the test's control.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { METRIC_SERIES_LIMIT } from '../../projections/metricsProjection.js';
import { recordMetricSamples } from '../../src/extraction/record.js';
import type { MetricSamples } from '../../src/extraction/metrics.js';
import { ManualClock, MANUAL_CLOCK_START } from '../helpers/clock.js';
import { ids, sampleGraph } from '../helpers/sampleGraph.js';
import { assertProblem, BACKENDS, call, enc, startApi, type TestApi } from './helpers.js';

const HOUR = 3_600_000;
const at = (ms: number) => new Date(MANUAL_CLOCK_START + ms).toISOString().replace('.000Z', 'Z');

/** Samples of the orders topic and the sink's consumer group over the hour ending `hours` after the start. */
function samplesAt(hours: number, bytes: number, lag: number): MetricSamples {
  return {
    window_start: at((hours - 1) * HOUR),
    window_end: at(hours * HOUR),
    samples: [
      {
        node_id: ids.orders,
        metrics: { metrics_received_bytes: bytes, metrics_sent_records: 10 * hours, metrics_active: true },
      },
      { node_id: ids.sinkGroup, metrics: { metrics_total_lag: lag, metrics_active: lag > 0 } },
    ],
  };
}

for (const backend of BACKENDS) {
  describe(`node metrics (${backend} store)`, () => {
    let api: TestApi;
    let graphId: string;
    let importRevision: number;
    let historyBefore: number;
    const clock = new ManualClock();
    const get = (path: string) => call(api.base, 'GET', `/api/v1${path}`);
    const metricsOf = (nodeId: string, query = '', graph = graphId) =>
      get(`/graphs/${graph}/nodes/${enc(nodeId)}/metrics${query}`);

    before(async () => {
      api = await startApi({ backend, now: clock.now, traversalIndexQuietMilliseconds: 0 });
      const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'shop' } });
      graphId = created.body.graph_id;
      const imported = await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import`, { json: sampleGraph() });
      assert.equal(imported.status, 200);
      importRevision = imported.body.revision;
      historyBefore = (await get(`/graphs/${graphId}/history`)).body.changes.length;
      for (const [hours, bytes, lag] of [
        [1, 100, 57],
        [2, 250, 0],
      ] as const) {
        await clock.advance(HOUR);
        const context = { correlation_id: `x-${hours}`, cause: 'extraction', actor: 'cli' };
        const appended = await recordMetricSamples(api.runtime.store, graphId, samplesAt(hours, bytes, lag), context);
        await api.runtime.projector.waitFor(appended!.position);
      }
    });
    after(async () => api.dispose());

    it("answers a node's series, oldest first, with windows, recording times and correlation ids", async () => {
      const answer = await metricsOf(ids.orders);
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, {
        graph_id: graphId,
        node_id: ids.orders,
        since: null,
        until: null,
        series_limit: METRIC_SERIES_LIMIT,
        count: 2,
        samples: [1, 2].map((hours) => ({
          window_start: at((hours - 1) * HOUR),
          window_end: at(hours * HOUR),
          recorded_at: new Date(MANUAL_CLOCK_START + hours * HOUR).toISOString(),
          correlation_id: `x-${hours}`,
          metrics: samplesAt(hours, hours === 1 ? 100 : 250, 0).samples[0]!.metrics,
        })),
      });
      const byName = await metricsOf(ids.orders, '', 'shop');
      assert.equal(byName.status, 200);
      assert.equal(byName.body.graph_id, graphId);
    });

    it('selects samples by the end of their window: since and until are inclusive ISO 8601 times', async () => {
      const since = await metricsOf(ids.sinkGroup, `?since=${at(1.5 * HOUR)}`);
      assert.deepEqual(
        since.body.samples.map((sample: { metrics: Record<string, unknown> }) => sample.metrics.metrics_total_lag),
        [0],
      );
      assert.equal(since.body.since, new Date(MANUAL_CLOCK_START + 1.5 * HOUR).toISOString());
      const until = await metricsOf(ids.sinkGroup, `?until=${enc(new Date(MANUAL_CLOCK_START + HOUR).toISOString())}`);
      assert.deepEqual(
        until.body.samples.map((sample: { metrics: Record<string, unknown> }) => sample.metrics.metrics_total_lag),
        [57],
      );
      const both = await metricsOf(ids.orders, `?since=${at(HOUR)}&until=${at(2 * HOUR)}`);
      assert.equal(both.body.count, 2);
      const none = await metricsOf(ids.orders, `?since=${at(3 * HOUR)}`);
      assert.deepEqual([none.status, none.body.count, none.body.samples], [200, 0, []]);
    });

    it('answers an empty series for a node of the graph that was never sampled', async () => {
      const answer = await metricsOf(ids.s3);
      assert.deepEqual([answer.status, answer.body.count, answer.body.samples], [200, 0, []]);
    });

    it('refuses bounds that are not ISO 8601 times, or since after until (400 problem+json)', async () => {
      assertProblem(await metricsOf(ids.orders, '?since=yesterday'), 400, /since must be an ISO 8601 time/);
      assertProblem(await metricsOf(ids.orders, '?until=2025-13-45T00:00:00Z'), 400, /until must be an ISO 8601 time/);
      assertProblem(await metricsOf(ids.orders, `?since=${at(2 * HOUR)}&until=${at(HOUR)}`), 400, /is after until/);
    });

    it('answers 404 for an unknown graph or node (problem+json)', async () => {
      assertProblem(await metricsOf(ids.orders, '', 'no-such-graph'), 404, /graph "no-such-graph" not found/);
      assertProblem(await metricsOf('stream:topic:env-abc123:lkc-xyz789/nope'), 404, /not found in graph/);
    });

    it('shows the latest samples as node attributes on every read of nodes, over the stored ones', async () => {
      const expectOrders = (node: { attributes: Record<string, unknown> }) =>
        assert.deepEqual(node.attributes, {
          partitions: 6,
          replication_factor: 3,
          metrics_received_bytes: 250,
          metrics_sent_records: 20,
          metrics_active: true,
          metrics_window_hours: 1,
        });
      expectOrders((await get(`/graphs/${graphId}/nodes/${enc(ids.orders)}`)).body);
      const group = (await get(`/graphs/${graphId}/nodes/${enc(ids.sinkGroup)}`)).body;
      assert.deepEqual(group.attributes, { metrics_total_lag: 0, metrics_active: false, metrics_window_hours: 1 });
      const find = (nodes: { id: string }[]) => nodes.find((node) => node.id === ids.orders) as never;
      expectOrders(find((await get(`/graphs/${graphId}`)).body.nodes));
      expectOrders(find((await get(`/graphs/${graphId}/export`)).body.nodes));
      expectOrders(find((await get(`/graphs/${graphId}/nodes?node_type=TOPIC`)).body.nodes));
      const schema = (await get(`/graphs/${graphId}/nodes/${enc(ids.ordersSchema)}`)).body;
      assert.equal(schema.attributes.metrics_window_hours, undefined, 'a node without samples is as stored');
    });

    it('shows them on traversals, walked on the graph or on its traversal index', async () => {
      const walk = async () => {
        const downstream = await get(`/graphs/${graphId}/query/downstream/${enc(ids.postgres)}?hops=3`);
        assert.equal(downstream.status, 200);
        assert.equal(
          downstream.body.nodes.find((node: { id: string }) => node.id === ids.orders).attributes
            .metrics_received_bytes,
          250,
        );
        const upstream = await get(`/graphs/${graphId}/query/upstream/${enc(ids.orders)}?hops=1`);
        assert.equal(upstream.body.origin.attributes.metrics_received_bytes, 250);
        assert.equal(upstream.body.nodes[0].id, ids.source);
      };
      await walk();
      assert.ok(api.runtime.graphs.traversalIndex(graphId), 'the traversal index is built');
      await walk();
    });

    it('as of a past point, shows the samples recorded by then', async () => {
      const mid = await get(`/graphs/${graphId}/nodes/${enc(ids.orders)}?as_of=${at(1.5 * HOUR)}`);
      assert.equal(mid.body.attributes.metrics_received_bytes, 100);
      const atImport = await get(`/graphs/${graphId}/nodes/${enc(ids.orders)}?as_of=${importRevision}`);
      assert.deepEqual(atImport.body.attributes, { partitions: 6, replication_factor: 3 });
    });

    it('never counts samples as graph changes: no history entry, no difference', async () => {
      const history = await get(`/graphs/${graphId}/history`);
      assert.equal(history.body.changes.length, historyBefore);
      const diff = await get(`/graphs/${graphId}/diff?from=${importRevision}`);
      assert.equal(diff.status, 200);
      assert.deepEqual(
        [diff.body.nodes, diff.body.edges],
        [
          { added: [], removed: [], changed: [] },
          { added: [], removed: [], changed: [] },
        ],
      );
    });
  });
}
