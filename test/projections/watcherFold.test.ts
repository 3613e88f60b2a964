/**
 * Specifications of the watcher fold (`evolveWatchers`, `projections/watcherProjection.ts`): given the
 * events of `watcher-{watcher_id}` streams and of the extractions the watchers ran, the watchers the
 * API lists, with their state, detected changes and extraction history.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChangeCounts, EventOf } from '../../src/events.js';
import {
  evolveWatchers,
  initialWatchersState,
  MAX_CHANGES_KEPT,
  MAX_EXTRACTIONS_KEPT,
  type WatcherExtraction,
  type WatcherState,
} from '../../projections/watcherProjection.js';
import { recorded, recordedAt, type EventToRecord } from '../helpers/recordedEvents.js';
import { specification } from '../helpers/specification.js';

const { given } = specification({
  initialState: initialWatchersState,
  evolve: evolveWatchers,
  view: (state) => [...state.watchers.values()],
});

const ENV = 'env-q7m2k9';
const GRAPH = 'g-default';

function started(watcherId: string): EventOf<'WatcherStarted'> {
  return {
    type: 'WatcherStarted',
    data: {
      watcher_id: watcherId,
      environment_ids: [ENV],
      cluster_ids: ['lkc-7x9m2p'],
      cooldown_seconds: 30,
      poll_interval_seconds: 10,
      push: ['LAKEHOUSE_CATALOG'],
    },
  };
}
function stateChanged(
  watcherId: string,
  from: WatcherState['state'],
  to: WatcherState['state'],
  reason: string,
): EventOf<'WatcherStateChanged'> {
  return { type: 'WatcherStateChanged', data: { watcher_id: watcherId, from, to, reason } };
}
function topicCreated(name: string) {
  return { kind: 'created' as const, resource_type: 'topic', resource_id: `lkc-7x9m2p/${name}`, environment_id: ENV };
}
function changesDetected(watcherId: string, ...topics: string[]): EventOf<'WatcherChangesDetected'> {
  return { type: 'WatcherChangesDetected', data: { watcher_id: watcherId, changes: topics.map(topicCreated) } };
}
function deregistered(watcherId: string): EventOf<'WatcherDeregistered'> {
  return { type: 'WatcherDeregistered', data: { watcher_id: watcherId } };
}
/** ExtractionStarted as the watcher `watcherId` records it (actor `watcher:{id}`), or another actor. */
function extractionStarted(extractionId: string, actor: string): EventToRecord {
  return {
    type: 'ExtractionStarted',
    data: {
      extraction_id: extractionId,
      graph_id: GRAPH,
      environment_ids: [ENV],
      cluster_ids: [],
      enable_metrics: false,
    },
    metadata: { actor, cause: 'watcher' },
  };
}
const CHANGES: ChangeCounts = {
  nodes_added: 1,
  nodes_changed: 0,
  nodes_removed: 0,
  edges_added: 2,
  edges_changed: 0,
  edges_removed: 0,
};
function extractionCompleted(extractionId: string): EventOf<'ExtractionCompleted'> {
  return {
    type: 'ExtractionCompleted',
    data: {
      extraction_id: extractionId,
      graph_id: GRAPH,
      node_count: 12,
      edge_count: 11,
      changes: CHANGES,
      graph_revision: 7,
      warnings: [],
      requests: { 'kafka-rest.topics': 2 },
      duration_ms: 840,
    },
  };
}
function extractionFailed(extractionId: string, error: string): EventOf<'ExtractionFailed'> {
  return {
    type: 'ExtractionFailed',
    data: { extraction_id: extractionId, graph_id: GRAPH, error, warnings: [], duration_ms: 120 },
  };
}

/** A watcher as WatcherStarted at `index` (position `index + 1`) leaves it. */
function watching(watcherId: string, index = 0): WatcherState {
  return {
    watcher_id: watcherId,
    state: 'WATCHING',
    environment_ids: [ENV],
    cluster_ids: ['lkc-7x9m2p'],
    cooldown_seconds: 30,
    poll_interval_seconds: 10,
    push: ['LAKEHOUSE_CATALOG'],
    reason: null,
    started_at: recordedAt(index),
    updated_at: recordedAt(index),
    stopped_at: null,
    last_change_at: null,
    last_extraction_at: null,
    change_count: 0,
    extraction_count: 0,
    position: index + 1,
    owner_process_id: null,
    changes: [],
    extractions: [],
  };
}
/** An extraction as ExtractionStarted at `index` leaves it. */
function running(extractionId: string, index: number): WatcherExtraction {
  return {
    extraction_id: extractionId,
    graph_id: GRAPH,
    status: 'running',
    started_at: recordedAt(index),
    completed_at: null,
    node_count: null,
    edge_count: null,
    graph_revision: null,
    changes: null,
    error: null,
    duration_ms: null,
    position: index + 1,
  };
}

describe('watcher fold', () => {
  it('knows no watcher before any event', () => given([]).then([]));

  it('a started watcher is WATCHING with its configuration, nothing detected or extracted yet', () =>
    given(recorded([started('w-1')])).then([watching('w-1')]));

  it('a second WatcherStarted of the same watcher (a replayed event) changes nothing', () =>
    given(
      recorded([started('w-1'), stateChanged('w-1', 'WATCHING', 'EXTRACTING', 'initial extraction'), started('w-1')]),
    ).then([{ ...watching('w-1'), state: 'EXTRACTING', reason: 'initial extraction', updated_at: recordedAt(1) }]));

  it('a state change moves the watcher and keeps its reason', () =>
    given(
      recorded([
        started('w-1'),
        stateChanged('w-1', 'WATCHING', 'EXTRACTING', 'initial extraction'),
        stateChanged('w-1', 'EXTRACTING', 'WATCHING', 'extraction x-1 completed'),
      ]),
    ).then([{ ...watching('w-1'), state: 'WATCHING', reason: 'extraction x-1 completed', updated_at: recordedAt(2) }]));

  it('a stopped watcher records when it stopped and stays STOPPED', () =>
    given(
      recorded([
        started('w-1'),
        stateChanged('w-1', 'WATCHING', 'STOPPED', 'interrupted'),
        stateChanged('w-1', 'STOPPED', 'WATCHING', 'late'),
      ]),
    ).then([
      {
        ...watching('w-1'),
        state: 'STOPPED',
        reason: 'interrupted',
        updated_at: recordedAt(1),
        stopped_at: recordedAt(1),
      },
    ]));

  it('detected changes are kept, oldest first, with when and where they were recorded', () =>
    given(
      recorded([started('w-1'), changesDetected('w-1', 'orders', 'refunds'), changesDetected('w-1', 'payments')]),
    ).then([
      {
        ...watching('w-1'),
        change_count: 3,
        last_change_at: recordedAt(2),
        updated_at: recordedAt(2),
        changes: [
          { ...topicCreated('orders'), detected_at: recordedAt(1), position: 2 },
          { ...topicCreated('refunds'), detected_at: recordedAt(1), position: 2 },
          { ...topicCreated('payments'), detected_at: recordedAt(2), position: 3 },
        ],
      },
    ]));

  it(`keeps the newest ${MAX_CHANGES_KEPT} changes and counts them all`, () => {
    const topics = Array.from({ length: MAX_CHANGES_KEPT + 2 }, (_, index) => `topic-${index}`);
    given(recorded([started('w-1'), changesDetected('w-1', ...topics)])).then((state) => {
      const watcher = state.watchers.get('w-1')!;
      assert.equal(watcher.change_count, MAX_CHANGES_KEPT + 2);
      assert.equal(watcher.changes.length, MAX_CHANGES_KEPT);
      assert.equal(watcher.changes[0]!.resource_id, 'lkc-7x9m2p/topic-2');
      assert.equal(watcher.changes.at(-1)!.resource_id, `lkc-7x9m2p/topic-${MAX_CHANGES_KEPT + 1}`);
    });
  });

  it('an extraction the watcher ran is running until it completes, then carries its counts', () =>
    given(recorded([started('w-1'), extractionStarted('x-1', 'watcher:w-1'), extractionCompleted('x-1')])).then([
      {
        ...watching('w-1'),
        extraction_count: 1,
        last_extraction_at: recordedAt(1),
        extractions: [
          {
            ...running('x-1', 1),
            status: 'completed',
            completed_at: recordedAt(2),
            node_count: 12,
            edge_count: 11,
            graph_revision: 7,
            changes: CHANGES,
            duration_ms: 840,
          },
        ],
      },
    ]));

  it('a failed extraction names the cause', () =>
    given(
      recorded([started('w-1'), extractionStarted('x-1', 'watcher:w-1'), extractionFailed('x-1', 'HTTP 503')]),
    ).then([
      {
        ...watching('w-1'),
        extraction_count: 1,
        last_extraction_at: recordedAt(1),
        extractions: [
          { ...running('x-1', 1), status: 'failed', completed_at: recordedAt(2), error: 'HTTP 503', duration_ms: 120 },
        ],
      },
    ]));

  it('the end of an extraction that has ended already changes nothing', () =>
    given(
      recorded([
        started('w-1'),
        extractionStarted('x-1', 'watcher:w-1'),
        extractionFailed('x-1', 'HTTP 503'),
        extractionCompleted('x-1'),
      ]),
    ).then((state) => {
      assert.equal(state.watchers.get('w-1')!.extractions[0]!.status, 'failed');
      assert.equal(state.extractionOwners.size, 0, 'an ended extraction is forgotten');
    }));

  it('extractions started by someone else, or by an unknown watcher, do not belong to a watcher', () =>
    given(
      recorded([
        started('w-1'),
        extractionStarted('x-1', 'cli'),
        extractionStarted('x-2', 'watcher:w-9'),
        extractionCompleted('x-1'),
        extractionCompleted('x-2'),
      ]),
    ).then([watching('w-1')]));

  it(`keeps the newest ${MAX_EXTRACTIONS_KEPT} extractions and counts them all`, () => {
    const extractions = Array.from({ length: MAX_EXTRACTIONS_KEPT + 1 }, (_, index) =>
      extractionStarted(`x-${index}`, 'watcher:w-1'),
    );
    given(recorded([started('w-1'), ...extractions])).then((state) => {
      const watcher = state.watchers.get('w-1')!;
      assert.equal(watcher.extraction_count, MAX_EXTRACTIONS_KEPT + 1);
      assert.equal(watcher.extractions.length, MAX_EXTRACTIONS_KEPT);
      assert.equal(watcher.extractions[0]!.extraction_id, 'x-1');
    });
  });

  it('a deregistered watcher is forgotten, and its later events are ignored', () =>
    given(
      recorded([
        started('w-1'),
        started('w-2'),
        deregistered('w-1'),
        started('w-1'),
        stateChanged('w-1', 'WATCHING', 'COOLDOWN', 'late'),
        changesDetected('w-1', 'orders'),
        extractionStarted('x-1', 'watcher:w-1'),
      ]),
    ).then([watching('w-2', 1)]));

  it('events of unknown watchers, and of other streams, are ignored', () =>
    given(
      recorded([
        stateChanged('w-9', 'WATCHING', 'COOLDOWN', '1 change(s) detected'),
        changesDetected('w-9', 'orders'),
        { type: 'TaskCreated', data: { task_id: 't-1', task_type: 'extract', parameters: {} } },
        { ...started('w-1'), stream: 'task-t-1' },
      ]),
    ).then([]));
});
