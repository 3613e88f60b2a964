/**
 * The watcher engine: ties the poller, the change detection (`./changes.ts`), the state machine
 * (`./stateMachine.ts`), the timers, the extraction and the event log together. Everything with a
 * side effect is injected, so that tests drive it with a fake clock and fake extractions:
 *
 * - `poll()` reads the estate's inventory (`./poll.ts` over a `PlatformPort` in production);
 * - `extract()` runs and records one extraction and writes the graph wherever the caller wants
 *   (the command writes `./lineage_graph.json`), resolving with its summary;
 * - `push(catalogType, extraction)` pushes to one catalog after each successful extraction
 *   (failures are logged and never stop the watcher);
 * - `record(events)` appends events to the stream `watcher-{watcher_id}`;
 * - `timers` gives the clock (ms since the epoch) and one-shot timers (ms).
 *
 * Life cycle: `start()` records `WatcherStarted` (state WATCHING) and resolves; in the background
 * the engine takes a baseline poll, then extracts once (WATCHING -> EXTRACTING, `docs/contract.md`
 * section 5), then polls every `pollIntervalSeconds` (polls never overlap: the next is scheduled
 * when one ends). Each poll that finds lineage-relevant changes records `WatcherChangesDetected`
 * and feeds the machine; each state change is recorded as `WatcherStateChanged {from, to, reason}`
 * and reported through `onLog`. `stop(reason)` moves to STOPPED (recorded) and stops polling at
 * once; an extraction that is running is not aborted, its end is ignored by the machine. Events are
 * appended one after the other in the order they happen; an append that fails is reported through
 * `onLog` and skipped.
 */
import { errorMessage } from '../errors.js';
import type { LineageEvent } from '../events.js';
import {
  detectChanges,
  fingerprintEstate,
  reconcile,
  type EstateFingerprint,
  type EstateInventory,
  type WatcherChange,
} from './changes.js';
import {
  initialMachine,
  next,
  type MachineEffect,
  type MachineInput,
  type MachineState,
  type WatcherStateName,
} from './stateMachine.js';

/** A clock and one-shot timers. `now()` is in ms since the epoch; `setTimeout` delays are in ms. */
export interface WatcherTimers {
  now(): number;
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The real clock and timers. */
export const systemTimers: WatcherTimers = {
  now: () => Date.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** What a watcher watches and how (the fields of `WatcherStarted`). */
export interface WatcherSettings {
  environmentIds: string[];
  /** Cluster filter; empty: every cluster. */
  clusterIds: string[];
  /** Quiet time after the last change before extracting, in seconds (specification default 30.0). */
  cooldownSeconds: number;
  /** Time between two polls, in seconds (specification default 10.0). */
  pollIntervalSeconds: number;
  /** Catalog types to push to after each extraction (e.g. `LAKEHOUSE_CATALOG`). */
  push: string[];
}

/** What one extraction produced. */
export interface ExtractionSummary {
  extractionId: string;
  graphId: string;
  nodeCount: number;
  edgeCount: number;
  /** Revision of the graph stream after the extraction's changes. */
  graphRevision: number;
}

/** One line worth logging: a transition, detected changes, an extraction, a push, or a failure. */
export interface WatcherLogEntry {
  type: 'transition' | 'changes' | 'extraction' | 'push' | 'poll-failed' | 'record-failed';
  /** One line, human-readable. */
  message: string;
  /** `warn` for failures, `info` otherwise. */
  level: 'info' | 'warn';
}

/** What the engine needs. */
export interface WatcherDeps {
  watcherId: string;
  settings: WatcherSettings;
  poll(): Promise<EstateInventory>;
  extract(): Promise<ExtractionSummary>;
  push?: (catalogType: string, extraction: ExtractionSummary) => Promise<void>;
  record(events: LineageEvent[]): Promise<void>;
  /** The process that runs the watcher, recorded in `WatcherStarted` (`services/ownership.ts`). */
  ownerProcessId?: string;
  /**
   * True when taking over a watcher another process started (its `WatcherClaimed` is recorded by the
   * caller): `start()` records no `WatcherStarted` and goes straight to the baseline poll and the
   * initial extraction.
   */
  resume?: boolean;
  timers?: WatcherTimers;
  onLog?: (entry: WatcherLogEntry) => void;
}

/** A running watcher. */
export interface WatcherEngine {
  readonly watcherId: string;
  /** The current state name. */
  readonly state: WatcherStateName;
  /** Extractions finished so far (completed or failed). */
  readonly extractions: number;
  /** Records `WatcherStarted` and starts the background work; resolves once `WatcherStarted` is recorded. */
  start(): Promise<void>;
  /** Moves to STOPPED with `reason` (recorded) and stops polling; resolves once recorded. Idempotent. */
  stop(reason: string): Promise<void>;
  /** Resolves when every event so far is recorded and no poll is running (tests, shutdown). */
  idle(): Promise<void>;
}

/** One line describing a batch of changes, e.g. `created topic lkc-1/orders; updated connector lkc-1/sink`. */
export function describeChanges(changes: readonly WatcherChange[]): string {
  const shown = changes.slice(0, 10).map((change) => `${change.kind} ${change.resource_type} ${change.resource_id}`);
  return `${shown.join('; ')}${changes.length > 10 ? `; and ${changes.length - 10} more` : ''}`;
}

/** Largest number of changes per `WatcherChangesDetected` event (bigger polls are split). */
export const MAX_CHANGES_PER_EVENT = 500;

/** Creates a watcher engine; nothing happens until `start()`. */
export function createWatcher(deps: WatcherDeps): WatcherEngine {
  const { watcherId, settings } = deps;
  const timers = deps.timers ?? systemTimers;
  const log = (entry: WatcherLogEntry) => deps.onLog?.(entry);
  const cooldownMs = Math.round(settings.cooldownSeconds * 1000);
  const pollIntervalMs = Math.max(1, Math.round(settings.pollIntervalSeconds * 1000));

  let machine: MachineState = initialMachine(cooldownMs);
  let baseline: EstateFingerprint | null = null;
  let started = false;
  let stopped = false;
  let extractions = 0;
  let pollTimer: unknown;
  let cooldownTimer: unknown;
  let polling: Promise<void> = Promise.resolve();
  let recording: Promise<void> = Promise.resolve();

  function record(events: LineageEvent[]): Promise<void> {
    recording = recording
      .then(() => deps.record(events))
      .catch((error: unknown) =>
        log({
          type: 'record-failed',
          level: 'warn',
          message: `could not record ${events.map((event) => event.type).join(', ')}: ${errorMessage(error)}`,
        }),
      );
    return recording;
  }

  function dispatch(input: MachineInput): void {
    const step = next(machine, input);
    machine = step.machine;
    if (step.transition) {
      const { from, to, reason } = step.transition;
      log({ type: 'transition', level: 'info', message: `${from} -> ${to}: ${reason}` });
      void record([{ type: 'WatcherStateChanged', data: { watcher_id: watcherId, from, to, reason } }]);
    }
    for (const effect of step.effects) perform(effect);
  }

  function perform(effect: MachineEffect): void {
    switch (effect.type) {
      case 'start-cooldown-timer':
        if (cooldownTimer !== undefined) timers.clearTimeout(cooldownTimer);
        cooldownTimer = timers.setTimeout(() => {
          cooldownTimer = undefined;
          dispatch({ type: 'cooldown-elapsed', at: timers.now(), generation: effect.generation });
        }, effect.delayMs);
        return;
      case 'cancel-cooldown-timer':
        if (cooldownTimer !== undefined) timers.clearTimeout(cooldownTimer);
        cooldownTimer = undefined;
        return;
      case 'start-extraction':
        void runExtraction(effect.changes);
        return;
      case 'stop':
        stopped = true;
        if (pollTimer !== undefined) timers.clearTimeout(pollTimer);
        pollTimer = undefined;
        return;
    }
  }

  async function runExtraction(batch: number): Promise<void> {
    let outcome: { ok: true; extractionId: string } | { ok: false; error: string };
    try {
      const summary = await deps.extract();
      log({
        type: 'extraction',
        level: 'info',
        message:
          `extraction ${summary.extractionId} completed (${batch} change(s) batched): ` +
          `${summary.nodeCount} nodes, ${summary.edgeCount} edges, graph ${summary.graphId} at revision ${summary.graphRevision}`,
      });
      for (const catalogType of settings.push) {
        if (stopped) break;
        try {
          if (!deps.push) throw new Error('no push is available');
          await deps.push(catalogType, summary);
          log({ type: 'push', level: 'info', message: `pushed to ${catalogType}` });
        } catch (error) {
          log({ type: 'push', level: 'warn', message: `push to ${catalogType} failed: ${errorMessage(error)}` });
        }
      }
      outcome = { ok: true, extractionId: summary.extractionId };
    } catch (error) {
      log({ type: 'extraction', level: 'warn', message: `extraction failed: ${errorMessage(error)}` });
      outcome = { ok: false, error: errorMessage(error) };
    }
    extractions += 1;
    dispatch({ type: 'extraction-ended', at: timers.now(), outcome });
  }

  async function pollOnce(): Promise<void> {
    let inventory: EstateInventory;
    try {
      inventory = await deps.poll();
    } catch (error) {
      log({ type: 'poll-failed', level: 'warn', message: `poll failed: ${errorMessage(error)}` });
      return;
    }
    if (inventory.failedScopes.length > 0) {
      log({
        type: 'poll-failed',
        level: 'warn',
        message: `poll could not read ${inventory.failedScopes.join(', ')}; those parts are kept as they were`,
      });
    }
    const after = fingerprintEstate(inventory);
    if (baseline === null) {
      baseline = after;
      return;
    }
    const changes = detectChanges(baseline, after);
    baseline = reconcile(baseline, after);
    if (stopped || changes.length === 0) return;
    log({
      type: 'changes',
      level: 'info',
      message: `${changes.length} change(s) detected: ${describeChanges(changes)}`,
    });
    for (let at = 0; at < changes.length; at += MAX_CHANGES_PER_EVENT) {
      void record([
        {
          type: 'WatcherChangesDetected',
          data: { watcher_id: watcherId, changes: changes.slice(at, at + MAX_CHANGES_PER_EVENT) },
        },
      ]);
    }
    dispatch({ type: 'changes', at: timers.now(), count: changes.length });
  }

  function schedulePoll(): void {
    if (stopped) return;
    pollTimer = timers.setTimeout(() => {
      pollTimer = undefined;
      if (stopped) return;
      polling = pollOnce().finally(schedulePoll);
    }, pollIntervalMs);
  }

  return {
    watcherId,
    get state() {
      return machine.state;
    },
    get extractions() {
      return extractions;
    },
    async start() {
      if (started) return;
      started = true;
      if (!deps.resume) {
        await record([
          {
            type: 'WatcherStarted',
            data: {
              watcher_id: watcherId,
              environment_ids: [...settings.environmentIds],
              cluster_ids: [...settings.clusterIds],
              cooldown_seconds: settings.cooldownSeconds,
              poll_interval_seconds: settings.pollIntervalSeconds,
              push: [...settings.push],
              ...(deps.ownerProcessId === undefined ? {} : { owner_process_id: deps.ownerProcessId }),
            },
          },
        ]);
      }
      // Baseline first, so that a change made during the initial extraction is still seen.
      polling = pollOnce().finally(() => {
        if (stopped) return;
        dispatch({ type: 'start', at: timers.now() });
        schedulePoll();
      });
    },
    async stop(reason) {
      if (machine.state === 'STOPPED') return recording;
      dispatch({ type: 'interrupt', at: timers.now(), reason });
      stopped = true;
      return recording;
    },
    async idle() {
      await polling;
      await recording;
    },
  };
}
