/**
 * Watchers run in-process by the API (specification "Watcher service"; contract section 4
 * "Watchers"). A watcher is the stream `watcher-{watcher_id}` (`src/events.ts`) plus the
 * extractions it ran (actor `watcher:{watcher_id}`); the API reads them from the watcher projection
 * (`projections/watcherProjection.ts`), so a restarted server still lists them, with their history.
 *
 * - At most `maxRunning` watchers (default `MAX_RUNNING_WATCHERS`) run at the same time; starting one
 *   more answers 409 (`WATCHER_LIMIT_REACHED`). Stopped watchers do not count.
 * - A watcher that cannot run (no platform credentials) is still started, like a task: its polls and
 *   its extractions fail, and its history names the cause.
 * - Pushing to a catalog type with no push available is refused with 400 at start.
 * - On shutdown (`stopAll`) every running watcher moves to STOPPED with the reason
 *   `API process shutting down`.
 * - On restart (`stopInterrupted`), watchers a previous process left running are not restarted:
 *   they are recorded STOPPED with the reason `process restarted` (start them again to resume). The
 *   configuration could have changed since, and a restarted API should not start polling a platform
 *   on its own.
 */
import { randomUUID } from 'node:crypto';
import { errorMessage, LineageError, NotFoundError, ValidationError } from '../src/errors.js';
import type { EventStore } from '../src/eventStore.js';
import { streams, toAppend, type EventContext, type LineageEvent } from '../src/events.js';
import type { Logger } from '../src/logger.js';
import {
  createWatcher,
  type WatcherDeps,
  type WatcherEngine,
  type WatcherSettings,
  type WatcherTimers,
} from '../src/watcher/watcher.js';
import type { Projector } from '../projections/projector.js';
import type { WatcherProjection, WatcherState } from '../projections/watcherProjection.js';

/** Watchers running at the same time in one API process. */
export const MAX_RUNNING_WATCHERS = 8;

/** The reason recorded for watchers a previous process left running. */
export const RESTART_REASON = 'process restarted';
/** The reason recorded for watchers stopped when the API shuts down. */
export const SHUTDOWN_REASON = 'API process shutting down';
/** The reason recorded for a watcher stopped through `POST /watchers/{id}/stop`. */
export const API_STOP_REASON = 'stopped through the API';

/** Starting a watcher while `MAX_RUNNING_WATCHERS` run (409). */
export class WatcherLimitError extends LineageError {
  constructor(max: number) {
    super(`at most ${max} watchers run at the same time; stop one first`, 'WATCHER_LIMIT_REACHED', 409);
  }
}

/** Builds the engine dependencies of one watcher (poll, extract, push). */
export type WatcherDepsFactory = (
  watcherId: string,
  settings: WatcherSettings,
) => Pick<WatcherDeps, 'poll' | 'extract' | 'push'>;

/** What the watcher service needs. */
export interface WatcherServiceDeps {
  store: EventStore;
  watchers: WatcherProjection;
  projector: Pick<Projector, 'waitFor'>;
  logger: Logger;
  /** The engine dependencies per watcher. */
  engineDeps: WatcherDepsFactory;
  /** Catalog types a push is available for; others are refused at start. */
  pushTypes: readonly string[];
  /** Default `MAX_RUNNING_WATCHERS`. */
  maxRunning?: number;
  /** Default the real clock and timers. */
  timers?: WatcherTimers;
}

/** Starts, stops and deregisters watchers. */
export interface WatcherService {
  /** Starts a watcher; resolves with its state once `WatcherStarted` is projected. */
  start(settings: WatcherSettings): Promise<WatcherState>;
  /** Stops a watcher (idempotent); resolves with its state. @throws NotFoundError for an unknown watcher. */
  stop(watcherId: string, reason?: string): Promise<WatcherState>;
  /** Stops it if running and forgets it. @throws NotFoundError for an unknown watcher. */
  deregister(watcherId: string): Promise<void>;
  /** Records watchers not run by this process and not STOPPED as STOPPED (`process restarted`); resolves with how many. */
  stopInterrupted(): Promise<number>;
  /** Stops every running watcher (shutdown). */
  stopAll(reason?: string): Promise<void>;
  /** Ids of the watchers running in this process. */
  running(): string[];
}

/** Creates the watcher service. */
export function createWatcherService(deps: WatcherServiceDeps): WatcherService {
  const { store, watchers, projector, logger } = deps;
  const maxRunning = deps.maxRunning ?? MAX_RUNNING_WATCHERS;
  const engines = new Map<string, WatcherEngine>();

  const append = async (watcherId: string, events: LineageEvent[], context: EventContext) => {
    const appended = await store.append(streams.watcher(watcherId), toAppend(events, context));
    return appended.position;
  };
  const context = (watcherId: string): EventContext => ({
    correlation_id: watcherId,
    cause: 'watcher',
    actor: `watcher:${watcherId}`,
  });

  async function projected(watcherId: string): Promise<WatcherState> {
    const watcher = watchers.get(watcherId);
    if (!watcher) throw new NotFoundError(`watcher "${watcherId}" not found`);
    return watcher;
  }

  async function stopEngine(watcherId: string, reason: string): Promise<void> {
    const engine = engines.get(watcherId);
    if (!engine) return;
    engines.delete(watcherId);
    await engine.stop(reason);
  }

  return {
    async start(settings) {
      for (const type of settings.push) {
        if (!deps.pushTypes.includes(type)) {
          throw new ValidationError(`pushing to ${type} is not available in this process`, [
            {
              path: 'body.push',
              message: `no push to ${type} is available${deps.pushTypes.length > 0 ? ` (available: ${deps.pushTypes.join(', ')})` : ''}`,
            },
          ]);
        }
      }
      if (engines.size >= maxRunning) throw new WatcherLimitError(maxRunning);
      const watcherId = randomUUID();
      let lastPosition = 0;
      const engine = createWatcher({
        watcherId,
        settings,
        ...deps.engineDeps(watcherId, settings),
        ...(deps.timers ? { timers: deps.timers } : {}),
        async record(events) {
          lastPosition = await append(watcherId, events, context(watcherId));
        },
        onLog(entry) {
          logger[entry.level]({ watcher_id: watcherId, kind: entry.type }, `Watcher:${entry.message}`);
        },
      });
      engines.set(watcherId, engine);
      try {
        await engine.start();
        await projector.waitFor(lastPosition);
      } catch (error) {
        engines.delete(watcherId);
        await engine.stop('could not start').catch(() => undefined);
        throw error;
      }
      logger.info({ watcher_id: watcherId, environment_ids: settings.environmentIds }, 'Watcher:Started');
      return projected(watcherId);
    },
    async stop(watcherId, reason = API_STOP_REASON) {
      const before = await projected(watcherId);
      if (engines.has(watcherId)) {
        await stopEngine(watcherId, reason);
      } else if (before.state !== 'STOPPED') {
        // Left running by a process that is gone (or shown as running before stopInterrupted ran).
        await append(
          watcherId,
          [{ type: 'WatcherStateChanged', data: { watcher_id: watcherId, from: before.state, to: 'STOPPED', reason } }],
          context(watcherId),
        );
      }
      const position = await store.headPosition();
      await projector.waitFor(position);
      return projected(watcherId);
    },
    async deregister(watcherId) {
      await projected(watcherId);
      await stopEngine(watcherId, 'deregistered');
      const position = await append(
        watcherId,
        [{ type: 'WatcherDeregistered', data: { watcher_id: watcherId } }],
        context(watcherId),
      );
      await projector.waitFor(position);
    },
    async stopInterrupted() {
      let count = 0;
      for (const watcher of watchers.list()) {
        if (watcher.state === 'STOPPED' || engines.has(watcher.watcher_id)) continue;
        const position = await append(
          watcher.watcher_id,
          [
            {
              type: 'WatcherStateChanged',
              data: { watcher_id: watcher.watcher_id, from: watcher.state, to: 'STOPPED', reason: RESTART_REASON },
            },
          ],
          { ...context(watcher.watcher_id), cause: 'system' },
        );
        await projector.waitFor(position);
        count += 1;
      }
      return count;
    },
    async stopAll(reason = SHUTDOWN_REASON) {
      const ids = [...engines.keys()];
      await Promise.all(
        ids.map((id) =>
          stopEngine(id, reason).catch((error: unknown) =>
            logger.warn({ watcher_id: id, err: errorMessage(error) }, 'Watcher:StopFailed'),
          ),
        ),
      );
    },
    running: () => [...engines.keys()],
  };
}
