/**
 * The lineage change publisher (issue 12, item 3; docs/architecture.md "Publishing changes"): every
 * committed lineage change, read from the store in position order from a checkpoint, sent as a
 * CloudEvent (CNCF CloudEvents 1.0, built with the `cloudevents` SDK) to a `ChangeSink` (Kafka,
 * a webhook; `infra/publish/`).
 *
 * Delivery is at least once: the checkpoint (`PublisherCheckpointed {position}` in the stream
 * `publisher-checkpoint`) moves only after the sink acknowledged everything up to it, so a crash or a
 * restart sends again what came after the last checkpoint, never less. Receivers deduplicate on the
 * CloudEvent `id` (the event's id in the store). Order: events are sent in store position order, one
 * batch after the other, so each graph's changes (same `subject`) arrive in order.
 *
 * One process publishes at a time. A process claims the stream (`PublisherClaimed`) when no one holds
 * it, or when the holder's process lease expired or was released (`services/ownership.ts`). Every
 * append to `publisher-checkpoint` expects the revision the publisher last saw, so a process that lost
 * its claim (it was paused longer than its lease and another process took over) finds out at its
 * next checkpoint and stops; what it sent meanwhile is a duplicate, which at least once allows.
 *
 * Failures (issue 23, item 3): a read of the store, a checkpoint or a send that fails is retried with
 * exponential backoff (p-retry: from `PUBLISHER_MINIMUM_RETRY_MILLISECONDS`, doubling, randomized, at
 * most `failurePauseMilliseconds` apart, forever), each attempt from the checkpoint in the store. The
 * backoff starts afresh after an attempt that published something, so that a failure days later is
 * retried at once again. An ambiguous checkpoint (committed, but its answer lost with the connection)
 * makes the next append a conflict: the publisher then reads the stream again and, still the holder,
 * goes on from there.
 */
import { CloudEvent } from 'cloudevents';
import pRetry from 'p-retry';
import { ExpectedRevisionConflictError, errorMessage } from '../src/errors.js';
import type { EventStore, RecordedEvent } from '../src/eventStore.js';
import {
  decodeTrustedEvent,
  streams,
  toAppend,
  type LineageEventType,
  type StoredLineageEvent,
} from '../src/events.js';
import type { Logger } from '../src/logger.js';
import type { ProcessLease } from './ownership.js';

/** The version of the published `data` schemas (in every `type`, e.g. `io.lineage-svc.nodes.added.v1`). */
export const CHANGE_DATA_VERSION = 1;

/**
 * The CloudEvent `type` of each published change kind (reverse-DNS, with the data version). Event
 * types not listed here (tasks, process leases, the publisher's own checkpoints, extraction starts
 * and failures, detected platform changes) are not published.
 */
export const CHANGE_TYPES: Readonly<Partial<Record<LineageEventType, string>>> = {
  GraphCreated: 'io.lineage-svc.graph.created.v1',
  GraphDeleted: 'io.lineage-svc.graph.deleted.v1',
  NodesAdded: 'io.lineage-svc.nodes.added.v1',
  NodesChanged: 'io.lineage-svc.nodes.changed.v1',
  NodesRemoved: 'io.lineage-svc.nodes.removed.v1',
  EdgesAdded: 'io.lineage-svc.edges.added.v1',
  EdgesChanged: 'io.lineage-svc.edges.changed.v1',
  EdgesRemoved: 'io.lineage-svc.edges.removed.v1',
  ExtractionCompleted: 'io.lineage-svc.extraction.completed.v1',
  OpenLineageEventIngested: 'io.lineage-svc.openlineage.ingested.v1',
  WatcherStarted: 'io.lineage-svc.watcher.started.v1',
  WatcherStateChanged: 'io.lineage-svc.watcher.state_changed.v1',
  WatcherClaimed: 'io.lineage-svc.watcher.claimed.v1',
  WatcherDeregistered: 'io.lineage-svc.watcher.deregistered.v1',
};

/** Delay before the publisher's first retry after a failure, in milliseconds (doubling from there). */
export const PUBLISHER_MINIMUM_RETRY_MILLISECONDS = 250;

/** The default CloudEvent `source` (a URI reference). */
export const DEFAULT_SOURCE = '/lineage-svc';

/** A published change: a CloudEvent whose `partitionkey` (the Kafka key) is its `subject`. */
export type ChangeEvent = CloudEvent<Record<string, unknown>>;

/** Where changes go. `send` resolves once the whole batch is acknowledged (in order), or rejects. */
export interface ChangeSink {
  /** A name for logs, e.g. `webhook http://...` or `kafka lineage-svc.changes`. */
  readonly name: string;
  send(batch: readonly ChangeEvent[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * The CloudEvent of a stored event, or undefined when its type is not published.
 * - `id`: the event's id in the store (stable across redeliveries: receivers deduplicate on it);
 * - `source`: `source`; `type`: `CHANGE_TYPES`; `time`: when the store recorded it;
 * - `subject`: the graph id for graph and extraction events, else the stream (`watcher-{id}`,
 *   `openlineage-{key}`); `partitionkey` (the Kafka key) is the same;
 * - `data` (`application/json`): the event's data, plus `data_version`;
 * - extensions `lineageposition` (global store position), `lineagestream`, `lineagerevision` and,
 *   when present, `correlationid`.
 */
export function toChangeEvent(event: StoredLineageEvent, source = DEFAULT_SOURCE): ChangeEvent | undefined {
  const type = CHANGE_TYPES[event.type];
  if (type === undefined) return undefined;
  const data = event.data as Record<string, unknown>;
  const subject = typeof data.graph_id === 'string' ? data.graph_id : event.stream;
  return new CloudEvent<Record<string, unknown>>(
    {
      specversion: '1.0',
      id: event.metadata.event_id,
      source,
      type,
      subject,
      time: event.recorded_at,
      datacontenttype: 'application/json',
      data: { data_version: CHANGE_DATA_VERSION, ...data },
      partitionkey: subject,
      lineageposition: event.position,
      lineagestream: event.stream,
      lineagerevision: event.revision,
      ...(event.metadata.correlation_id ? { correlationid: event.metadata.correlation_id } : {}),
    },
    false,
  );
}

/** What the `publisher-checkpoint` stream says. */
export interface PublisherCheckpoint {
  /** The process that holds the claim, or null. */
  holder: string | null;
  /** Every change up to this position was published (0: none yet). */
  position: number;
  /** Revision of the stream (-1: empty); the next append expects it. */
  revision: number;
}

/** Folds the `publisher-checkpoint` stream. */
export function foldCheckpoint(
  events: readonly RecordedEvent[],
  from: PublisherCheckpoint = emptyCheckpoint(),
): PublisherCheckpoint {
  let state = { ...from };
  for (const recorded of events) {
    const event = decodeTrustedEvent(recorded);
    if (event.type === 'PublisherClaimed') state = { ...state, holder: event.data.process_id };
    else if (event.type === 'PublisherCheckpointed')
      state = { ...state, position: Math.max(state.position, event.data.position) };
    state.revision = recorded.revision;
  }
  return state;
}

function emptyCheckpoint(): PublisherCheckpoint {
  return { holder: null, position: 0, revision: -1 };
}

/** What the publisher needs. */
export interface PublisherDeps {
  store: EventStore;
  /** This process's lease: its id, and whether the current holder is alive. */
  lease: Pick<ProcessLease, 'identity' | 'isOwnerLive' | 'lost' | 'leaseSeconds'>;
  sink: ChangeSink;
  logger: Logger;
  /** CloudEvent `source`. Default `DEFAULT_SOURCE`. */
  source?: string;
  /** Events read per page. Default 500. */
  pageSize?: number;
  /** Pause when there is nothing new, in ms. Default 200. */
  idleMilliseconds?: number;
  /** Checkpoint at most this often while busy, in ms (always when caught up). Default 1,000. */
  checkpointMilliseconds?: number;
  /**
   * Longest pause between two attempts after failures (a failed read, checkpoint or send), in ms;
   * attempts back off from `PUBLISHER_MINIMUM_RETRY_MILLISECONDS` (or this, when smaller) up to it. Default 5,000.
   */
  failurePauseMilliseconds?: number;
  /** Pause between two looks at another process's claim, in ms. Default a third of the lease. */
  claimPollMilliseconds?: number;
}

/** A running publisher. */
export interface ChangePublisher {
  /** True while this process holds the claim. */
  readonly publishing: boolean;
  /** Changes sent by this process (redeliveries included). */
  readonly sent: number;
  /** Attempts that failed (a read, a checkpoint or a send), each one retried after a pause. */
  readonly failedAttempts: number;
  /** Stops after the page in progress (its checkpoint included); closes the sink. */
  stop(): Promise<void>;
}

/** Starts publishing in the background (claiming first, or waiting for the holder to go). */
export function startChangePublisher(deps: PublisherDeps): ChangePublisher {
  const { store, lease, sink, logger } = deps;
  const me = lease.identity.processId;
  const stream = streams.publisherCheckpoint;
  const source = deps.source ?? DEFAULT_SOURCE;
  const pageSize = deps.pageSize ?? 500;
  const idle = deps.idleMilliseconds ?? 200;
  const checkpointEvery = deps.checkpointMilliseconds ?? 1_000;
  const failurePause = deps.failurePauseMilliseconds ?? 5_000;
  const claimPoll = deps.claimPollMilliseconds ?? Math.max(50, (lease.leaseSeconds * 1000) / 3);
  const context = { correlation_id: me, cause: 'system', actor: `process:${me}` };
  let stopped = false;
  let publishing = false;
  let sent = 0;
  let failedAttempts = 0;
  /** Set once an attempt sent or checkpointed something: its failure then restarts the backoff. */
  let progressed = false;
  const stopping = new AbortController();
  let wake: (() => void) | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  async function readCheckpoint(): Promise<PublisherCheckpoint> {
    return foldCheckpoint(await store.readStream(stream));
  }

  /** Appends to the checkpoint stream expecting `revision`; the new revision, or undefined when the claim was lost. */
  async function appendExpecting(
    revision: number,
    event: Parameters<typeof toAppend>[0][number],
  ): Promise<number | undefined> {
    try {
      return (await store.append(stream, toAppend([event], context), { expectedRevision: revision }))
        .next_expected_revision;
    } catch (error) {
      if (error instanceof ExpectedRevisionConflictError) return undefined;
      throw error;
    }
  }

  /** Publishes from `checkpoint` until stopped or the claim is lost. */
  async function publish(checkpoint: PublisherCheckpoint): Promise<void> {
    let revision = checkpoint.revision;
    let position = checkpoint.position;
    let checkpointed = position;
    let sinceCheckpoint = 0;
    let lastCheckpointAt = Date.now();
    while (!stopped && !lease.lost) {
      const page = await store.readAll({ after: position, maxCount: pageSize });
      const batch: ChangeEvent[] = [];
      for (const recorded of page) {
        const change = toChangeEvent(decodeTrustedEvent(recorded), source);
        if (change) batch.push(change);
      }
      if (batch.length > 0) {
        await sink.send(batch);
        sent += batch.length;
        sinceCheckpoint += batch.length;
        progressed = true;
      }
      if (page.length > 0) position = page[page.length - 1]!.position;
      const caughtUp = page.length < pageSize;
      const due = Date.now() - lastCheckpointAt >= checkpointEvery || caughtUp;
      // Skipped events alone (leases, tasks, our own checkpoints) move the checkpoint only now and then.
      const worth = sinceCheckpoint > 0 || position - checkpointed >= 10_000;
      if (due && worth && position > checkpointed) {
        const next = await appendExpecting(revision, {
          type: 'PublisherCheckpointed',
          data: { process_id: me, position, published: sinceCheckpoint },
        });
        if (next === undefined) {
          logger.warn({ process_id: me }, 'Publisher:ClaimLost');
          return;
        }
        revision = next;
        checkpointed = position;
        sinceCheckpoint = 0;
        lastCheckpointAt = Date.now();
      }
      if (caughtUp) await sleep(idle);
    }
  }

  /** One attempt: reads the checkpoint, claims it when free, and publishes until stopped or the claim is lost. */
  async function claimAndPublish(): Promise<void> {
    try {
      const checkpoint = await readCheckpoint();
      if (checkpoint.holder !== me) {
        if (checkpoint.holder !== null && lease.isOwnerLive(checkpoint.holder)) {
          await sleep(claimPoll);
          return;
        }
        const revision = await appendExpecting(checkpoint.revision, {
          type: 'PublisherClaimed',
          data: { process_id: me, previous_process_id: checkpoint.holder },
        });
        if (revision === undefined) return;
        checkpoint.revision = revision;
        checkpoint.holder = me;
        logger.info({ process_id: me, from_position: checkpoint.position, sink: sink.name }, 'Publisher:Claimed');
      }
      publishing = true;
      await publish(checkpoint);
    } finally {
      publishing = false;
    }
  }

  const running = (async () => {
    while (!stopped && !lease.lost) {
      progressed = false;
      try {
        await pRetry(
          async () => {
            progressed = false;
            await claimAndPublish();
          },
          {
            retries: Number.POSITIVE_INFINITY,
            minTimeout: Math.min(PUBLISHER_MINIMUM_RETRY_MILLISECONDS, failurePause),
            maxTimeout: failurePause,
            randomize: true,
            signal: stopping.signal,
            unref: true,
            onFailedAttempt: ({ error, attemptNumber }) => {
              failedAttempts += 1;
              logger.warn({ err: errorMessage(error), sink: sink.name, attempt: attemptNumber }, 'Publisher:Failed');
            },
            // After progress, give the failure back to the loop below, which starts the backoff afresh.
            shouldRetry: () => !progressed && !stopped && !lease.lost,
          },
        );
      } catch {
        // Stopped, the lease lost, or a failure after progress (logged above): the loop decides.
      }
    }
  })();

  return {
    get publishing() {
      return publishing;
    },
    get sent() {
      return sent;
    },
    get failedAttempts() {
      return failedAttempts;
    },
    async stop() {
      stopped = true;
      stopping.abort();
      wake?.();
      await running;
      await sink.close();
    },
  };
}

/** Sends every batch to each sink in turn (all must acknowledge). */
export function fanOut(sinks: readonly ChangeSink[]): ChangeSink {
  return {
    name: sinks.map((sink) => sink.name).join(' + '),
    async send(batch) {
      for (const sink of sinks) await sink.send(batch);
    },
    async close() {
      await Promise.allSettled(sinks.map((sink) => sink.close()));
    },
  };
}
