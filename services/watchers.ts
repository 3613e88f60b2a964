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
 * - Each watcher records the process that runs it (`owner_process_id`). `stopInterrupted`, run at
 *   start and by every sweep (`services/ownership.ts`), looks at watchers that are not STOPPED and
 *   whose owner is not live (its lease expired, or it stopped without stopping them): by default it
 *   records them STOPPED (reason `process restarted` for watchers recorded before owners existed,
 *   `ownerGoneReason` otherwise); with `resumeOrphans` it takes them over instead (`WatcherClaimed`,
 *   then its own engine, while fewer than `maxRunning` run here). Either append expects the revision
 *   the decision was made on, so it happens once, by one process; the work of a live process is never
 *   touched. The configuration could have changed since, so resuming is off by default.
 * - A watcher this process runs that another process recorded STOPPED (through its API) is stopped
 *   here at the next sweep.
 */
import { randomUUID } from 'node:crypto';
import {
  errorMessage,
  ExpectedRevisionConflictError,
  LineageError,
  NotFoundError,
  ValidationError,
} from '../src/errors.js';
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
import type { OwnerLiveness } from './ownership.js';

/** Watchers running at the same time in one API process. */
export const MAX_RUNNING_WATCHERS = 8;

/** The reason recorded for watchers a previous process left running. */
export const RESTART_REASON = 'process restarted';
/** The reason recorded for a watcher whose owner stopped renewing its lease. */
export function ownerGoneReason(ownerProcessId: string): string {
  return `the process that ran it (${ownerProcessId}) stopped renewing its lease`;
}
/** The reason recorded when another process takes a watcher over. */
export function resumedReason(ownerProcessId: string | null, processId: string): string {
  return `resumed by process ${processId}${ownerProcessId === null ? '' : ` after ${ownerProcessId} stopped renewing its lease`}`;
}
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
  /** This process's id, recorded as the owner of the watchers it starts. */
  processId?: string;
  /** Whether a watcher's owner is alive (`ProcessLease.isOwnerLive`). Default: only this process is. */
  isOwnerLive?: OwnerLiveness;
  /** Take over the watchers of owners that are gone instead of stopping them. Default false. */
  resumeOrphans?: boolean;
}

/** Starts, stops and deregisters watchers. */
export interface WatcherService {
  /** Starts a watcher; resolves with its state once `WatcherStarted` is projected. */
  start(settings: WatcherSettings): Promise<WatcherState>;
  /** Stops a watcher (idempotent); resolves with its state. @throws NotFoundError for an unknown watcher. */
  stop(watcherId: string, reason?: string): Promise<WatcherState>;
  /** Stops it if running and forgets it. @throws NotFoundError for an unknown watcher. */
  deregister(watcherId: string): Promise<void>;
  /**
   * Stops (or, with `resumeOrphans`, takes over) the watchers whose owner is not live; stops local
   * engines of watchers recorded STOPPED elsewhere. Resolves with how many watchers this call stopped or took over.
   */
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
  const processId = deps.processId;
  const isOwnerLive: OwnerLiveness =
    deps.isOwnerLive ?? ((owner) => processId !== undefined && owner !== null && owner === processId);

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

  /** Creates and starts the engine of a watcher (a new one, or one taken over with `resume`). */
  async function launch(watcherId: string, settings: WatcherSettings, resume: boolean): Promise<void> {
    let lastPosition = 0;
    const engine = createWatcher({
      watcherId,
      settings,
      ...deps.engineDeps(watcherId, settings),
      ...(deps.timers ? { timers: deps.timers } : {}),
      ...(processId === undefined ? {} : { ownerProcessId: processId }),
      resume,
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
  }

  /** Appends to a watcher's stream expecting `revision`; false when another writer got there first. */
  async function appendOnce(watcherId: string, events: LineageEvent[], revision: number): Promise<boolean> {
    try {
      const appended = await store.append(
        streams.watcher(watcherId),
        toAppend(events, { ...context(watcherId), cause: 'system' }),
        { expectedRevision: revision },
      );
      await projector.waitFor(appended.position);
      return true;
    } catch (error) {
      if (error instanceof ExpectedRevisionConflictError) return false;
      throw error;
    }
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
      await launch(watcherId, settings, false);
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
        const id = watcher.watcher_id;
        if (engines.has(id)) {
          // Recorded STOPPED by another process (its API): stop the engine here too.
          if (watcher.state === 'STOPPED') await stopEngine(id, watcher.reason ?? API_STOP_REASON);
          continue;
        }
        if (watcher.state === 'STOPPED' || isOwnerLive(watcher.owner_process_id)) continue;
        const owner = watcher.owner_process_id;
        if (deps.resumeOrphans && processId !== undefined && engines.size < maxRunning) {
          const claimed = await appendOnce(
            id,
            [
              {
                type: 'WatcherClaimed',
                data: {
                  watcher_id: id,
                  process_id: processId,
                  previous_process_id: owner,
                  reason: resumedReason(owner, processId),
                },
              },
            ],
            watchers.revision(id),
          );
          if (!claimed) continue;
          const settings: WatcherSettings = {
            environmentIds: [...watcher.environment_ids],
            clusterIds: [...watcher.cluster_ids],
            cooldownSeconds: watcher.cooldown_seconds,
            pollIntervalSeconds: watcher.poll_interval_seconds,
            push: watcher.push.filter((type) => deps.pushTypes.includes(type)),
          };
          await launch(id, settings, true);
          logger.warn({ watcher_id: id, previous_process_id: owner }, 'Watcher:Resumed');
          count += 1;
          continue;
        }
        const reason = owner === null ? RESTART_REASON : ownerGoneReason(owner);
        const stopped = await appendOnce(
          id,
          [{ type: 'WatcherStateChanged', data: { watcher_id: id, from: watcher.state, to: 'STOPPED', reason } }],
          watchers.revision(id),
        );
        if (stopped) count += 1;
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
