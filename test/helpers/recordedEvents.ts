/**
 * Events as the store gives them back (`StoredLineageEvent`, `src/events.ts`), for specifications
 * of folds: each event is put in its stream (`streams` of `src/events.ts`, named from its data), with
 * revisions counted per stream from 0, global positions from 1, and `recorded_at` times one second
 * apart, as an append of them one after the other would record them.
 *
 * ```ts
 * recorded([
 *   { type: 'TaskCreated', data: { task_id: 't-1', task_type: 'extract', parameters: {} } },
 *   { type: 'TaskFailed', data: { task_id: 't-1', error: 'boom' }, metadata: { actor: 'api' } },
 * ]);
 * ```
 */
import { streams, type EventContext, type LineageEvent, type StoredLineageEvent } from '../../src/events.js';

/** When the first recorded event was recorded unless told otherwise (ISO 8601 UTC). */
export const RECORDING_START = '2026-11-01T09:00:00.000Z';

/** An event to record, with optional metadata (correlation id, actor, cause) and an optional stream of its own. */
export type EventToRecord = LineageEvent & { metadata?: EventContext; stream?: string };

/** Where the recording starts and how its times advance. */
export interface RecordingOptions {
  /** `recorded_at` of the first event (ISO 8601; default `RECORDING_START`). */
  start?: string;
  /** Milliseconds between two consecutive events' `recorded_at` (default 1,000). */
  stepMilliseconds?: number;
  /** Global position of the first event (default 1). */
  firstPosition?: number;
}

/**
 * The stream an event belongs to (`src/events.ts`, `streams`): `graph-{graph_id}` for graph events,
 * `extraction-{extraction_id}`, `task-{task_id}`, `watcher-{watcher_id}`, and `openlineage-{dedupe_key}`.
 */
export function streamOf(event: LineageEvent): string {
  switch (event.type) {
    case 'ExtractionStarted':
    case 'ExtractionCompleted':
    case 'ExtractionFailed':
      return streams.extraction(event.data.extraction_id);
    case 'OpenLineageEventIngested':
      return streams.openLineage(event.data.dedupe_key);
    case 'TaskCreated':
    case 'TaskProgressed':
    case 'TaskCompleted':
    case 'TaskFailed':
      return streams.task(event.data.task_id);
    case 'WatcherStarted':
    case 'WatcherStateChanged':
    case 'WatcherChangesDetected':
    case 'WatcherDeregistered':
    case 'WatcherClaimed':
      return streams.watcher(event.data.watcher_id);
    case 'ProcessStarted':
    case 'ProcessLeaseRenewed':
    case 'ProcessStopped':
    case 'ProcessLeaseExpired':
      return streams.process(event.data.process_id);
    case 'PublisherClaimed':
    case 'PublisherCheckpointed':
      return streams.publisherCheckpoint;
    case 'MetricsSampled':
      return streams.metrics(event.data.graph_id);
    case 'MarquezTagAdded':
    case 'MarquezTagRemoved':
    case 'MarquezTagDefined':
    case 'MarquezElementDeleted':
      return streams.marquez;
    default:
      return streams.graph(event.data.graph_id);
  }
}

/**
 * Stamps events, oldest first, as the store records them: stream (`streamOf`, unless the event names
 * its own), revision within that stream, global position, `recorded_at`, and metadata with a
 * deterministic `event_id` (`event-{position}`).
 */
export function recorded(events: readonly EventToRecord[], options: RecordingOptions = {}): StoredLineageEvent[] {
  const firstPosition = options.firstPosition ?? 1;
  const revisions = new Map<string, number>();
  return events.map((event, index) => {
    const { metadata, stream: ownStream, ...rest } = event;
    const stream = ownStream ?? streamOf(event);
    const revision = revisions.get(stream) ?? 0;
    revisions.set(stream, revision + 1);
    const position = firstPosition + index;
    return {
      ...(rest as LineageEvent),
      stream,
      revision,
      position,
      recorded_at: recordedAt(index, options),
      metadata: { event_id: `event-${position}`, ...metadata },
    };
  });
}

/**
 * The `recorded_at` that `recorded` gives the event at `index` (0 for the first), with the same options.
 */
export function recordedAt(index: number, options: Pick<RecordingOptions, 'start' | 'stepMilliseconds'> = {}): string {
  return new Date(
    Date.parse(options.start ?? RECORDING_START) + index * (options.stepMilliseconds ?? 1_000),
  ).toISOString();
}
