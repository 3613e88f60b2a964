/**
 * The watcher projection: folds the `watcher-{watcher_id}` streams (WatcherStarted,
 * WatcherStateChanged, WatcherChangesDetected, WatcherDeregistered; `src/events.ts`) and the
 * extractions the watchers ran (the `extraction-{id}` streams whose events carry the actor
 * `watcher:{watcher_id}`: ExtractionStarted, ExtractionCompleted, ExtractionFailed) into one record
 * per watcher: its configuration, state, detected changes and extraction history.
 *
 * A deregistered watcher is forgotten (hidden from every query); later events of its streams are
 * ignored. `WatcherClaimed` hands a watcher to another process (state WATCHING again, unless it was
 * STOPPED first). Per watcher, the newest `MAX_CHANGES_KEPT` changes and `MAX_EXTRACTIONS_KEPT`
 * extractions are kept in memory (the totals count them all); the full record stays in the store.
 *
 * `evolveWatchers` is the fold, from `initialWatchersState()`; the projection applies it to each event.
 */
import type { StoredLineageEvent } from '../src/events.js';
import type { WatcherChange } from '../src/watcher/changes.js';
import type { WatcherStateName } from '../src/watcher/stateMachine.js';

/** Changes kept per watcher (newest). */
export const MAX_CHANGES_KEPT = 1_000;
/** Extractions kept per watcher (newest). */
export const MAX_EXTRACTIONS_KEPT = 500;

/** One detected change, with when it was detected. */
export interface DetectedChange extends Omit<WatcherChange, 'resource_type'> {
  resource_type: string;
  /** ISO 8601 time the poll's detection was recorded. */
  detected_at: string;
  /** Global store position of the detection event (orders changes). */
  position: number;
}

/** One extraction run by a watcher. */
export interface WatcherExtraction {
  extraction_id: string;
  graph_id: string;
  /** `running` until ExtractionCompleted or ExtractionFailed. */
  status: 'running' | 'completed' | 'failed';
  /** ISO 8601 times. */
  started_at: string;
  completed_at: string | null;
  node_count: number | null;
  edge_count: number | null;
  /** Revision of the graph stream after the extraction (null unless completed). */
  graph_revision: number | null;
  /** Nodes and edges added, changed and removed by the extraction (null unless completed). */
  changes: Record<string, number> | null;
  error: string | null;
  /** Duration in milliseconds (null while running). */
  duration_ms: number | null;
  position: number;
}

/** Everything known about one watcher (snake_case: the API's Watcher shape, minus the lists). */
export interface WatcherState {
  watcher_id: string;
  state: WatcherStateName;
  environment_ids: string[];
  cluster_ids: string[];
  /** Seconds. */
  cooldown_seconds: number;
  /** Seconds. */
  poll_interval_seconds: number;
  push: string[];
  /** Reason of the last state change (null before any). */
  reason: string | null;
  /** ISO 8601 times. */
  started_at: string;
  updated_at: string;
  stopped_at: string | null;
  last_change_at: string | null;
  last_extraction_at: string | null;
  /** Changes detected so far (all of them, not only the ones kept). */
  change_count: number;
  /** Extractions started so far. */
  extraction_count: number;
  /** Global position of WatcherStarted: orders watchers newest first. */
  position: number;
  /** The process that runs (or ran) the watcher; null: recorded before watchers had owners. */
  owner_process_id: string | null;

  /** Newest last. */
  changes: DetectedChange[];
  /** Newest last. */
  extractions: WatcherExtraction[];
}

/** The projection (the projector's `Projection`). */
export interface WatcherProjection {
  readonly position: number;
  apply(event: StoredLineageEvent): void;
  /** One watcher, or undefined (also for deregistered ones). */
  get(watcherId: string): WatcherState | undefined;
  /** Watchers, newest first, optionally only those in `state`. */
  list(filter?: { state?: WatcherStateName | undefined }): WatcherState[];
  /** Revision of the `watcher-{id}` stream as far as applied (-1 when unknown): an append deciding on `get` expects it. */
  revision(watcherId: string): number;
  reset(): void;
}

const WATCHER_ACTOR = /^watcher:(.+)$/;

/** The watcher id of an extraction event's actor (`watcher:{id}`), or undefined. */
export function watcherOfActor(actor: string | undefined): string | undefined {
  return actor === undefined ? undefined : WATCHER_ACTOR.exec(actor)?.[1];
}

function keepNewest<T>(list: T[], max: number): void {
  if (list.length > max) list.splice(0, list.length - max);
}

/**
 * What the watcher fold keeps: the live watchers, the ids of deregistered ones (their later events are
 * ignored), and which watcher ran each extraction that has not ended yet.
 */
export interface WatchersState {
  /** Live watchers by watcher id. */
  watchers: Map<string, WatcherState>;
  /** Ids of deregistered watchers. */
  deregistered: Set<string>;
  /** Extraction id -> watcher id, for the extraction's later events (forgotten when it ends). */
  extractionOwners: Map<string, string>;
}

/** The state before any event: no watcher. */
export function initialWatchersState(): WatchersState {
  return { watchers: new Map(), deregistered: new Set(), extractionOwners: new Map() };
}

/**
 * Applies one event to the watchers, in place, and returns the state: the events of `watcher-` streams,
 * and the extraction events of `extraction-` streams whose ExtractionStarted carries the actor
 * `watcher:{watcher_id}` of a live watcher. Every other event is ignored; so are events of unknown or
 * deregistered watchers, a second WatcherStarted, state changes of a STOPPED watcher, and the end of
 * an extraction that has ended already.
 */
export function evolveWatchers(state: WatchersState, event: StoredLineageEvent): WatchersState {
  const { watchers, deregistered, extractionOwners } = state;
  if (event.stream.startsWith('extraction-')) {
    evolveExtraction(state, event);
    return state;
  }
  if (!event.stream.startsWith('watcher-')) return state;
  switch (event.type) {
    case 'WatcherStarted': {
      const { watcher_id: id } = event.data;
      if (watchers.has(id) || deregistered.has(id)) return state;
      watchers.set(id, {
        watcher_id: id,
        state: 'WATCHING',
        environment_ids: event.data.environment_ids,
        cluster_ids: event.data.cluster_ids,
        cooldown_seconds: event.data.cooldown_seconds,
        poll_interval_seconds: event.data.poll_interval_seconds,
        push: event.data.push,
        reason: null,
        started_at: event.recorded_at,
        updated_at: event.recorded_at,
        stopped_at: null,
        last_change_at: null,
        last_extraction_at: null,
        change_count: 0,
        extraction_count: 0,
        position: event.position,
        owner_process_id: event.data.owner_process_id ?? null,
        changes: [],
        extractions: [],
      });
      return state;
    }
    case 'WatcherClaimed': {
      const watcher = watchers.get(event.data.watcher_id);
      if (!watcher) return state;
      if (watcher.state === 'STOPPED') return state;
      watcher.owner_process_id = event.data.process_id;
      watcher.state = 'WATCHING';
      watcher.reason = event.data.reason;
      watcher.updated_at = event.recorded_at;
      return state;
    }
    case 'WatcherStateChanged': {
      const watcher = watchers.get(event.data.watcher_id);
      if (!watcher || watcher.state === 'STOPPED') return state;
      watcher.state = event.data.to;
      watcher.reason = event.data.reason;
      watcher.updated_at = event.recorded_at;
      if (event.data.to === 'STOPPED') watcher.stopped_at = event.recorded_at;
      return state;
    }
    case 'WatcherChangesDetected': {
      const watcher = watchers.get(event.data.watcher_id);
      if (!watcher) return state;
      for (const change of event.data.changes)
        watcher.changes.push({ ...change, detected_at: event.recorded_at, position: event.position });
      keepNewest(watcher.changes, MAX_CHANGES_KEPT);
      watcher.change_count += event.data.changes.length;
      watcher.last_change_at = event.recorded_at;
      watcher.updated_at = event.recorded_at;
      return state;
    }
    case 'WatcherDeregistered':
      watchers.delete(event.data.watcher_id);
      deregistered.add(event.data.watcher_id);
      return state;
    default:
      return state;
  }
}

/** Applies an extraction event to the watcher that ran the extraction (see `evolveWatchers`). */
function evolveExtraction(state: WatchersState, event: StoredLineageEvent): void {
  const { watchers, extractionOwners } = state;
  switch (event.type) {
    case 'ExtractionStarted': {
      const watcherId = watcherOfActor(event.metadata.actor);
      const watcher = watcherId === undefined ? undefined : watchers.get(watcherId);
      if (!watcher || watcherId === undefined) return;
      extractionOwners.set(event.data.extraction_id, watcherId);
      watcher.extractions.push({
        extraction_id: event.data.extraction_id,
        graph_id: event.data.graph_id,
        status: 'running',
        started_at: event.recorded_at,
        completed_at: null,
        node_count: null,
        edge_count: null,
        graph_revision: null,
        changes: null,
        error: null,
        duration_ms: null,
        position: event.position,
      });
      keepNewest(watcher.extractions, MAX_EXTRACTIONS_KEPT);
      watcher.extraction_count += 1;
      watcher.last_extraction_at = event.recorded_at;
      return;
    }
    case 'ExtractionCompleted':
    case 'ExtractionFailed': {
      const watcherId = extractionOwners.get(event.data.extraction_id);
      const watcher = watcherId === undefined ? undefined : watchers.get(watcherId);
      extractionOwners.delete(event.data.extraction_id);
      const record = watcher?.extractions.find((entry) => entry.extraction_id === event.data.extraction_id);
      if (!record || record.status !== 'running') return;
      record.completed_at = event.recorded_at;
      record.duration_ms = event.data.duration_ms;
      if (event.type === 'ExtractionCompleted') {
        record.status = 'completed';
        record.node_count = event.data.node_count;
        record.edge_count = event.data.edge_count;
        record.graph_revision = event.data.graph_revision;
        record.changes = { ...event.data.changes };
      } else {
        record.status = 'failed';
        record.error = event.data.error;
      }
      return;
    }
    default:
      return;
  }
}

/** Creates an empty watcher projection. */
export function createWatcherProjection(): WatcherProjection {
  let state = initialWatchersState();
  const revisions = new Map<string, number>();
  let position = 0;

  return {
    get position() {
      return position;
    },
    apply(event) {
      evolveWatchers(state, event);
      if (event.stream.startsWith('watcher-')) revisions.set(event.stream, event.revision);
      position = event.position;
    },
    get: (watcherId) => state.watchers.get(watcherId),
    revision: (watcherId) => revisions.get(`watcher-${watcherId}`) ?? -1,
    list(filter = {}) {
      return [...state.watchers.values()]
        .filter((watcher) => filter.state === undefined || watcher.state === filter.state)
        .sort((a, b) => b.position - a.position);
    },
    reset() {
      state = initialWatchersState();
      revisions.clear();
      position = 0;
    },
  };
}
