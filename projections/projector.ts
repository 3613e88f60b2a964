/**
 * The projector keeps projections up to date with the store: it catches up from the projections'
 * checkpoint, then follows the store live through a subscription. Writers that want to read their
 * own writes call `waitFor(position)` with the position their append returned.
 */
import type { Logger } from 'pino';
import type { EventStore, RecordedEvent, Subscription } from '../src/eventStore.js';
import { iterateAll } from '../src/eventStore.js';
import { errorMessage } from '../src/errors.js';
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

export interface Projector {
  /** Position every projection has reached. */
  readonly position: number;
  /** Events applied while catching up (at start and on each rebuild) since the projector was created. */
  readonly replayedEvents: number;
  /**
   * Calls `listener` with every event after the projections applied it, until the returned function
   * is called. A listener that throws is logged and changes nothing else.
   */
  onApplied(listener: AppliedListener): () => void;
  /** Catches up with everything stored, then follows new events in the background. */
  start(): Promise<void>;
  /** Resolves once every event up to `position` is applied (rejects after `timeoutMs`, default 30 s). */
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

/** Creates a projector over `projections`; nothing happens until `start()`. */
export function createProjector(options: { store: EventStore; projections: Projection[]; logger?: Logger }): Projector {
  const { store, projections, logger } = options;
  let position = Math.min(...projections.map((projection) => projection.position));
  let subscription: Subscription | undefined;
  let running: Promise<void> | undefined;
  let waiters: Array<{ position: number; resolve: () => void }> = [];
  const listeners = new Set<AppliedListener>();
  let catchingUp = false;
  let replayedEvents = 0;

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
      for (const projection of projections) if (projection.position < recorded.position) projection.apply(event);
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

  async function catchUp(): Promise<void> {
    catchingUp = true;
    try {
      // Pages of CATCH_UP_PAGE_SIZE events: graph events hold up to 1,000 nodes or edges each (about
      // 200 KB of JSON), and a page's rows and decoded events are all alive until it is applied.
      for await (const recorded of iterateAll(store, { after: position, pageSize: CATCH_UP_PAGE_SIZE }))
        apply(recorded);
    } finally {
      catchingUp = false;
    }
  }

  function follow(): void {
    subscription = store.subscribe({ after: position, batchSize: CATCH_UP_PAGE_SIZE });
    const current = subscription;
    running = (async () => {
      try {
        for await (const recorded of current) apply(recorded);
      } catch (error) {
        logger?.error({ err: errorMessage(error) }, 'Projector:SubscriptionFailed');
      }
    })();
  }

  return {
    get position() {
      return position;
    },
    get replayedEvents() {
      return replayedEvents;
    },
    onApplied(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async start() {
      await catchUp();
      follow();
    },
    waitFor(target, timeoutMs = 30_000) {
      if (target <= position) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((waiter) => waiter.resolve !== done);
          reject(new Error(`projections did not reach position ${target} within ${timeoutMs} ms (at ${position})`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        waiters.push({ position: target, resolve: done });
      });
    },
    async rebuild() {
      await this.stop();
      for (const projection of projections) projection.reset();
      position = 0;
      await this.start();
    },
    async stop() {
      await subscription?.close();
      await running;
      subscription = undefined;
      running = undefined;
    },
  };
}
