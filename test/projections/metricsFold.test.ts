/**
 * Specifications of the metrics fold (`evolveMetrics`, `projections/metricsProjection.ts`): given the
 * `MetricsSampled` events of `metrics-{graph_id}` streams, each node's series of samples (oldest
 * first, bounded by `METRIC_SERIES_LIMIT`), apart from the graph's own events.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventOf, NodeMetricSample } from '../../src/events.js';
import {
  evolveMetrics,
  initialMetricsState,
  METRIC_SERIES_LIMIT,
  pointAt,
  type MetricPoint,
  type MetricsState,
} from '../../projections/metricsProjection.js';
import { recorded, recordedAt, type EventToRecord } from '../helpers/recordedEvents.js';
import { specification } from '../helpers/specification.js';

/** The state as plain records: graph id -> node id -> series. */
function plain(state: MetricsState): Record<string, Record<string, MetricPoint[]>> {
  return Object.fromEntries(
    [...state].map(([graphId, nodes]) => [
      graphId,
      Object.fromEntries([...nodes].map(([id, series]) => [id, [...series]])),
    ]),
  );
}

const { given } = specification({ initialState: initialMetricsState, evolve: evolveMetrics, view: plain });

const TOPIC = 'stream:topic:env-1:lkc-1/orders';
const GROUP = 'stream:consumer_group:env-1:lkc-1/billing';
const WINDOW = { window_start: '2026-11-01T08:00:00Z', window_end: '2026-11-01T09:00:00Z' };

/** `MetricsSampled` of graph `graphId` in its own stream (`metrics-{graph_id}`), sampled by `correlationId`. */
function sampled(graphId: string, samples: NodeMetricSample[], correlationId = 'x-1', window = WINDOW): EventToRecord {
  const event: EventOf<'MetricsSampled'> = { type: 'MetricsSampled', data: { graph_id: graphId, ...window, samples } };
  return { ...event, stream: `metrics-${graphId}`, metadata: { correlation_id: correlationId, cause: 'extraction' } };
}

const topicSample = (bytes: number): NodeMetricSample => ({
  node_id: TOPIC,
  metrics: { metrics_received_bytes: bytes, metrics_sent_records: 7, metrics_active: bytes > 0 },
});
const groupSample: NodeMetricSample = { node_id: GROUP, metrics: { metrics_total_lag: 57, metrics_active: true } };

/** The point a sample becomes when recorded at `index` by `correlationId`. */
function point(sample: NodeMetricSample, index: number, correlationId = 'x-1', window = WINDOW): MetricPoint {
  return { ...window, recorded_at: recordedAt(index), correlation_id: correlationId, metrics: sample.metrics };
}

describe('metrics fold', () => {
  it('knows no sample before any event', () => given([]).then({}));

  it('a sample becomes the first point of each sampled node, with its window and recording time', () =>
    given(recorded([sampled('g-1', [topicSample(100), groupSample])])).then({
      'g-1': { [TOPIC]: [point(topicSample(100), 0)], [GROUP]: [point(groupSample, 0)] },
    }));

  it('later samples append to the series, oldest first; a node missing from a sample keeps its series', () =>
    given(
      recorded([
        sampled('g-1', [topicSample(100), groupSample], 'x-1'),
        sampled('g-1', [topicSample(0)], 'x-2', {
          window_start: '2026-11-01T09:00:00Z',
          window_end: '2026-11-01T10:00:00Z',
        }),
      ]),
    ).then({
      'g-1': {
        [TOPIC]: [
          point(topicSample(100), 0),
          point(topicSample(0), 1, 'x-2', { window_start: '2026-11-01T09:00:00Z', window_end: '2026-11-01T10:00:00Z' }),
        ],
        [GROUP]: [point(groupSample, 0)],
      },
    }));

  it("keeps each graph's samples apart", () =>
    given(recorded([sampled('g-1', [topicSample(1)]), sampled('g-2', [topicSample(2)])])).then({
      'g-1': { [TOPIC]: [point(topicSample(1), 0)] },
      'g-2': { [TOPIC]: [point(topicSample(2), 1)] },
    }));

  it(`keeps the last ${METRIC_SERIES_LIMIT} samples of a node, dropping the oldest`, () => {
    const events = Array.from({ length: METRIC_SERIES_LIMIT + 5 }, (_, index) => sampled('g-1', [topicSample(index)]));
    given(recorded(events)).then((state) => {
      const series = state.get('g-1')?.get(TOPIC) ?? [];
      assert.equal(series.length, METRIC_SERIES_LIMIT);
      assert.equal(series[0]?.metrics.metrics_received_bytes, 5);
      assert.equal(series.at(-1)?.metrics.metrics_received_bytes, METRIC_SERIES_LIMIT + 4);
      assert.equal(series.at(-1)?.recorded_at, recordedAt(METRIC_SERIES_LIMIT + 4));
    });
  });

  it('a deleted graph loses its samples; other graphs keep theirs', () =>
    given(
      recorded([
        sampled('g-1', [topicSample(1)]),
        sampled('g-2', [topicSample(2)]),
        { type: 'GraphDeleted', data: { graph_id: 'g-1' } },
      ]),
    ).then({ 'g-2': { [TOPIC]: [point(topicSample(2), 1)] } }));

  it('graph changes are not samples: they leave the state as it is', () =>
    given(
      recorded([
        sampled('g-1', [topicSample(1)]),
        { type: 'NodesRemoved', data: { graph_id: 'g-1', node_ids: [TOPIC] } },
        { type: 'GraphCreated', data: { graph_id: 'g-3', name: 'other', description: null } },
      ]),
    ).then({ 'g-1': { [TOPIC]: [point(topicSample(1), 0)] } }));

  it('a MetricsSampled outside a metrics- stream is ignored', () =>
    given(recorded([{ ...sampled('g-1', [topicSample(1)]), stream: 'graph-g-1' }])).then({}));

  it('applies events in place and answers the state it was given (as the graph fold does)', () => {
    const [first, second] = recorded([sampled('g-1', [topicSample(1), groupSample]), sampled('g-1', [topicSample(2)])]);
    const state = initialMetricsState();
    assert.equal(evolveMetrics(state, first!), state);
    assert.equal(evolveMetrics(state, second!), state);
    assert.deepEqual(
      state
        .get('g-1')
        ?.get(TOPIC)
        ?.map((point) => point.metrics.metrics_received_bytes),
      [1, 2],
    );
  });

  it('finds the latest point recorded at or before a time (what graph reads "as of" a point show)', () => {
    const events = recorded([
      sampled('g-1', [topicSample(1)]),
      sampled('g-1', [topicSample(2)]),
      sampled('g-1', [topicSample(3)]),
    ]);
    const series = events.reduce(evolveMetrics, initialMetricsState()).get('g-1')!.get(TOPIC)!;
    assert.equal(pointAt(series, Date.parse(recordedAt(0)) - 1), undefined);
    assert.equal(pointAt(series, Date.parse(recordedAt(0)))?.metrics.metrics_received_bytes, 1);
    assert.equal(pointAt(series, Date.parse(recordedAt(1)) + 500)?.metrics.metrics_received_bytes, 2);
    assert.equal(pointAt(series, Date.parse(recordedAt(9)))?.metrics.metrics_received_bytes, 3);
  });
});
