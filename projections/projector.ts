/**
 * The projector keeps projections up to date with the store: it catches up from the projections'
 * checkpoint, then follows the store live through a subscription. Writers that want to read their
 * own writes call `waitFor(position)` with the position their append returned.
 *
 * Recovery (issue 23, item 3): when reading the store fails (the database went away, a connection
 * was cut), the projector retries with exponential backoff (p-retry: from `minimumRetryMilliseconds`,
 * doubling, randomized, at most `maximumRetryMilliseconds` apart, forever) and each attempt catches up
 * from its own checkpoint (`position`) before following live again, so no event is missed or applied
 * twice. A projection that throws while applying an event is a bug, not a store failure: the
 * projector stops (`status` `failed`, logged `Projector:Failed`), which the liveness probe reports so
 * that the process is restarted (docs/operations.md, "Readiness and recovery").
 */
import type { Logger } from 'pino';
import pRetry, { AbortError } from 'p-retry';
import type { EventStore, RecordedEvent, Subscription } from '../src/eventStore.js';
import { iterateAll } from '../src/eventStore.js';
import { LineageError, errorMessage } from '../src/errors.js';
import { decodeTrustedEvent, type StoredLineageEvent } from '../src/events.js';

/** What the projector drives: a fold with a checkpoint. */
export interface Projection {
  /** Global position of the last event applied. */
  readonly position: number;
  apply(event: StoredLineageEvent): void;
  reset(): void;
}

/** Receives each event once the projections have applied it; `replay` is true while catching up (start, rebuild). */
export type AppliedListener = (event: StoredLineageEvent, replay: boolean) => void;

/**
 * Where the projector stands:
 * - `idle`: created, not started;
 * - `catching-up`: reading what the store holds beyond its position (at start, on rebuild, after a failure);
 * - `live`: following the store (its last read succeeded);
 * - `retrying`: a read of the store failed; the next attempt is scheduled (backoff);
 * - `failed`: a projection threw while applying an event; the projector gave up (restart the process);
 * - `stopped`: `stop()` was called, or the store was closed.
 */
export type ProjectorStatus = 'idle' | 'catching-up' | 'live' | 'retrying' | 'failed' | 'stopped';

/**
 * `waitFor` did not see its position applied in time, or the projector failed: the write was stored
 * but cannot be read back now (HTTP 503, code `PROJECTIONS_BEHIND`). Retrying the request is safe.
 */
export class ProjectionsBehindError extends LineageError {
  constructor(message: string) {
    super(message, 'PROJECTIONS_BEHIND', 503);
  }
}

/** Backoff of the projector's retries after a failed read of the store, in milliseconds. */
export interface ProjectorRetryOptions {
  /** Delay before the first retry. Default `PROJECTOR_MINIMUM_RETRY_MILLISECONDS`. */
  minimumRetryMilliseconds?: number;
  /** Longest delay between two retries. Default `PROJECTOR_MAXIMUM_RETRY_MILLISECONDS`. */
  maximumRetryMilliseconds?: number;
}

/** Default delay before the projector's first retry after a failed read, in milliseconds. */
export const PROJECTOR_MINIMUM_RETRY_MILLISECONDS = 250;

/**
 * Default longest delay between two retries of the projector, in milliseconds: once the store is
 * back, the projections follow it again within this delay plus the time to catch up.
 */
export const PROJECTOR_MAXIMUM_RETRY_MILLISECONDS = 5_000;

export interface Projector {
  /** Position every projection has reached. */
  readonly position: number;
  /** Where the projector stands (see `ProjectorStatus`); readiness needs `live`. */
  readonly status: ProjectorStatus;
  /** Reads of the store that failed since the projector was created (each one retried). */
  readonly failedAttempts: number;
  /** Events applied while catching up (at start and on each rebuild) since the projector was created. */
  readonly replayedEvents: number;
  /**
   * Calls `listener` with every event after the projections applied it, until the returned function
   * is called. A listener that throws is logged and changes nothing else.
   */
  onApplied(listener: AppliedListener): () => void;
  /** Catches up with everything stored, then follows new events in the background. */
  start(): Promise<void>;
  /**
   * Resolves once every event up to `position` is applied.
   * @throws ProjectionsBehindError after `timeoutMs` (default 30 s), or at once when the projector failed.
   */
  waitFor(position: number, timeoutMs?: number): Promise<void>;
  /** Forgets the projections' state and replays the whole store into them. */
  rebuild(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Events read per page while catching up, and per batch of the live subscription (an import appends
 * hundreds of events at once). 32 graph events of 1,000 nodes or edges are about 6 MB
 * of JSON; 256 (the page before issue 16) were about 50 MB, a tenth of the start-up memory target.
 */
export const CATCH_UP_PAGE_SIZE = 32;

/** Milliseconds of live folding after which the projector lets the event loop run (issue 23). */
export const LIVE_SLICE_MILLISECONDS = 10;

/** A projection threw while applying an event: not retried (`ProjectorStatus` `failed`). */
class ProjectionApplyError extends Error {}

/** Creates a projector over `projections`; nothing happens until `start()`. */
export function createProjector(options: {
  store: EventStore;
  projections: Projection[];
  logger?: Logger;
  retry?: ProjectorRetryOptions;
}): Projector {
  const { store, projections, logger } = options;
  const minimumRetry = options.retry?.minimumRetryMilliseconds ?? PROJECTOR_MINIMUM_RETRY_MILLISECONDS;
  const maximumRetry = Math.max(
    minimumRetry,
    options.retry?.maximumRetryMilliseconds ?? PROJECTOR_MAXIMUM_RETRY_MILLISECONDS,
  );
  let position = Math.min(...projections.map((projection) => projection.position));
  let subscription: Subscription | undefined;
  let following: AbortController | undefined;
  let running: Promise<void> | undefined;
  let waiters: Array<{ position: number; resolve: () => void; reject: (error: Error) => void }> = [];
  const listeners = new Set<AppliedListener>();
  let catchingUp = false;
  let replayedEvents = 0;
  let status: ProjectorStatus = 'idle';
  let failedAttempts = 0;

  function apply(recorded: RecordedEvent): void {
    if (recorded.position <= position) return;
    let event: StoredLineageEvent | undefined;
    try {
      event = decodeTrustedEvent(recorded);
    } catch (error) {
      logger?.error(
        { stream: recorded.stream, revision: recorded.revision, err: errorMessage(error) },
        'Projector:SkippedUndecodableEvent',
      );
    }
    if (event) {
      for (const projection of projections) {
        if (projection.position >= recorded.position) continue;
        try {
          projection.apply(event);
        } catch (error) {
          throw new ProjectionApplyError(
            `a projection failed applying ${event.type} at position ${recorded.position} (${event.stream}): ${errorMessage(error)}`,
            { cause: error },
          );
        }
      }
      if (catchingUp) replayedEvents += 1;
      for (const listener of listeners) notify(listener, event);
    }
    position = recorded.position;
    if (waiters.length > 0) {
      const ready = waiters.filter((waiter) => waiter.position <= position);
      waiters = waiters.filter((waiter) => waiter.position > position);
      for (const waiter of ready) waiter.resolve();
    }
  }

  function notify(listener: AppliedListener, event: StoredLineageEvent): void {
    try {
      listener(event, catchingUp);
    } catch (error) {
      logger?.error({ type: event.type, err: errorMessage(error) }, 'Projector:ListenerFailed');
    }
  }

  /** Applies everything stored after `position`; `replay` marks the events for listeners (start, rebuild). */
  async function catchUp(replay: boolean): Promise<void> {
    catchingUp = replay;
    try {
      // Pages of CATCH_UP_PAGE_SIZE events: graph events hold up to 1,000 nodes or edges each (about
      // 200 KB of JSON), and a page's rows and decoded events are all alive until it is applied.
      for await (const recorded of iterateAll(store, { after: position, pageSize: CATCH_UP_PAGE_SIZE }))
        apply(recorded);
    } finally {
      catchingUp = false;
    }
  }

  /**
   * One attempt: catch up from `position`, then follow live until the subscription ends ('closed':
   * stopped, or the store was closed) or fails after having been live ('interrupted': the next
   * attempts start their backoff afresh). A failure before going live is thrown, for p-retry.
   */
  async function followOnce(signal: AbortSignal): Promise<'closed' | 'interrupted'> {
    if (status !== 'live') {
      status = 'catching-up';
      await catchUp(false);
    }
    if (signal.aborted) return 'closed';
    const current = store.subscribe({ after: position, batchSize: CATCH_UP_PAGE_SIZE });
    subscription = current;
    status = 'live';
    try {
      let slice = performance.now();
      for await (const recorded of current) {
        apply(recorded);
        // An import appends hundreds of events at once: folding them may not hold the event loop (issue 23).
        if (performance.now() - slice >= LIVE_SLICE_MILLISECONDS) {
          await new Promise((resolve) => setImmediate(resolve));
          slice = performance.now();
        }
      }
      return 'closed';
    } catch (error) {
      if (error instanceof ProjectionApplyError || signal.aborted) throw error;
      failedAttempts += 1;
      status = 'retrying';
      logger?.warn({ err: errorMessage(error), position }, 'Projector:SubscriptionFailed');
      return 'interrupted';
    } finally {
      await current.close().catch(() => undefined);
    }
  }

  /** Follows the store until stopped, retrying with backoff after each failed read. */
  async function follow(signal: AbortSignal): Promise<void> {
    try {
      for (;;) {
        const outcome = await pRetry(
          async () => {
            try {
              return await followOnce(signal);
            } catch (error) {
              if (error instanceof ProjectionApplyError) throw new AbortError(error);
              throw error;
            }
          },
          {
            retries: Number.POSITIVE_INFINITY,
            minTimeout: minimumRetry,
            maxTimeout: maximumRetry,
            randomize: true,
            signal,
            unref: true,
            onFailedAttempt: ({ error, attemptNumber }) => {
              if (signal.aborted) return;
              failedAttempts += 1;
              status = 'retrying';
              logger?.warn(
                { err: errorMessage(error), attempt: attemptNumber, position },
                'Projector:SubscriptionFailed',
              );
            },
          },
        );
        if (outcome === 'closed' || signal.aborted) break;
      }
      status = 'stopped';
    } catch (error) {
      if (signal.aborted) {
        status = 'stopped';
        return;
      }
      status = 'failed';
      logger?.error({ err: errorMessage(error), position }, 'Projector:Failed');
      const failed = waiters;
      waiters = [];
      for (const waiter of failed)
        waiter.reject(new ProjectionsBehindError(`the projections stopped: ${errorMessage(error)}`));
    }
  }

  function startFollowing(): void {
    const controller = new AbortController();
    following = controller;
    running = follow(controller.signal);
  }

  return {
    get position() {
      return position;
    },
    get replayedEvents() {
      return replayedEvents;
    },
    get status() {
      return status;
    },
    get failedAttempts() {
      return failedAttempts;
    },
    onApplied(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async start() {
      status = 'catching-up';
      try {
        await catchUp(true);
      } catch (error) {
        status = 'stopped';
        throw error;
      }
      status = 'live';
      startFollowing();
    },
    waitFor(target, timeoutMs = 30_000) {
      if (target <= position) return Promise.resolve();
      if (status === 'failed')
        return Promise.reject(
          new ProjectionsBehindError(`the projections stopped at position ${position}; see the server log`),
        );
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((waiter) => waiter.resolve !== done);
          reject(
            new ProjectionsBehindError(
              `projections did not reach position ${target} within ${timeoutMs} ms (at ${position}, ${status})`,
            ),
          );
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        const fail = (error: Error) => {
          clearTimeout(timer);
          reject(error);
        };
        waiters.push({ position: target, resolve: done, reject: fail });
      });
    },
    async rebuild() {
      await this.stop();
      for (const projection of projections) projection.reset();
      position = 0;
      await this.start();
    },
    async stop() {
      following?.abort();
      await subscription?.close();
      await running;
      subscription = undefined;
      following = undefined;
      running = undefined;
      if (status !== 'failed') status = 'stopped';
    },
  };
}
