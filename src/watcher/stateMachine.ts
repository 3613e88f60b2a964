/**
 * The watcher's state machine (`docs/specification.md`, "States and transitions" -> "Watcher"), as
 * a pure reducer: `next(machine, input) -> { machine, transition, effects }`. The engine
 * (`./watcher.ts`) performs the effects (timers, extraction) and records each transition as
 * `WatcherStateChanged`.
 *
 * Transitions (state, on input -> next state; effects):
 *
 * - WATCHING, on `start` (the watcher was just started) -> EXTRACTING; effects: `start-extraction`
 *   (`docs/contract.md` section 5: the watcher extracts once when it starts)
 * - WATCHING, on `changes` -> COOLDOWN; effects: `start-cooldown-timer`
 * - COOLDOWN, on `changes` -> COOLDOWN (no transition); effects: `start-cooldown-timer` (the timer restarts;
 *   the changes join the batch)
 * - COOLDOWN, on `cooldown-elapsed` (current timer) -> EXTRACTING; effects: `start-extraction` (one
 *   extraction for the whole batch)
 * - EXTRACTING, on `changes` -> EXTRACTING (no transition); effects: none; remembered for when the extraction
 *   ends
 * - EXTRACTING, on `extraction-ended` -> WATCHING, or COOLDOWN when changes arrived during the extraction;
 *   effects: `start-cooldown-timer` in the second case
 * - any but STOPPED, on `interrupt` -> STOPPED; effects: `cancel-cooldown-timer`, `stop`
 * - STOPPED, on anything -> STOPPED; effects: none
 *
 * Every other pair (a `cooldown-elapsed` of a timer that was restarted, an `extraction-ended` outside
 * EXTRACTING, `start` twice) changes nothing. The specification leaves the state after EXTRACTING
 * open (`docs/specification.md`, "Watcher"); this machine goes back to WATCHING, or straight to COOLDOWN when changes were
 * detected while extracting, so that they get their own extraction after a full quiet period.
 *
 * Times (`at`) are milliseconds since the epoch; `cooldownMs` is milliseconds.
 */
import type { WATCHER_STATES } from '../events.js';

/** `WATCHING`, `COOLDOWN`, `EXTRACTING` or `STOPPED`. */
export type WatcherStateName = (typeof WATCHER_STATES)[number];

/** The machine's whole state. */
export interface MachineState {
  state: WatcherStateName;
  /** Quiet time after the last change before extracting, in milliseconds. */
  cooldownMs: number;
  /** Generation of the live cooldown timer: a `cooldown-elapsed` of an older generation is stale. */
  timerGeneration: number;
  /** When the live cooldown timer ends (ms since the epoch), or null when none runs. */
  cooldownDeadline: number | null;
  /** Changes waiting for the next extraction (the batch of the current cooldown). */
  pendingChanges: number;
  /** Changes detected while EXTRACTING (they start a new cooldown when the extraction ends). */
  changesDuringExtraction: number;
  /** Changes the running extraction was started for (its batch). */
  extractingChanges: number;
}

/** What happens to the machine. `at` is the time of the input, ms since the epoch. */
export type MachineInput =
  | { type: 'start'; at: number }
  | { type: 'changes'; at: number; count: number }
  | { type: 'cooldown-elapsed'; at: number; generation: number }
  | { type: 'extraction-ended'; at: number; outcome: { ok: true; extractionId: string } | { ok: false; error: string } }
  | { type: 'interrupt'; at: number; reason: string };

/** What the engine must do. */
export type MachineEffect =
  /** (Re)start the cooldown timer: fire `cooldown-elapsed` with `generation` after `delayMs`, cancelling any earlier timer. */
  | { type: 'start-cooldown-timer'; generation: number; delayMs: number }
  | { type: 'cancel-cooldown-timer' }
  /** Run one extraction (then the optional pushes), then feed `extraction-ended`. `changes`: the batch size. */
  | { type: 'start-extraction'; changes: number }
  /** Stop polling; the watcher is done. */
  | { type: 'stop' };

/** A state change, as recorded in `WatcherStateChanged`. */
export interface Transition {
  from: WatcherStateName;
  to: WatcherStateName;
  reason: string;
}

/** The outcome of one input. */
export interface MachineStep {
  machine: MachineState;
  /** Null when the state name did not change. */
  transition: Transition | null;
  effects: MachineEffect[];
}

/** A fresh machine in WATCHING (what `WatcherStarted` means), not yet started. */
export function initialMachine(cooldownMs: number): MachineState {
  return {
    state: 'WATCHING',
    cooldownMs,
    timerGeneration: 0,
    cooldownDeadline: null,
    pendingChanges: 0,
    changesDuringExtraction: 0,
    extractingChanges: 0,
  };
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** The machine entering (or staying in) COOLDOWN with a fresh timer for `pending` batched changes, from `at`. */
function enterCooldown(base: MachineState, at: number, pending: number): MachineState {
  return {
    ...base,
    state: 'COOLDOWN',
    timerGeneration: base.timerGeneration + 1,
    cooldownDeadline: at + base.cooldownMs,
    pendingChanges: pending,
  };
}

/** The effect that (re)starts the cooldown timer of `state`'s live generation. */
function cooldownTimer(state: MachineState): MachineEffect {
  return {
    type: 'start-cooldown-timer',
    generation: state.timerGeneration,
    delayMs: state.cooldownMs,
  };
}

/** The step that changes nothing. */
function unchangedStep(machine: MachineState): MachineStep {
  return { machine, transition: null, effects: [] };
}

/** `interrupt` in any state but STOPPED: STOPPED, cancelling the timer and stopping the watcher. */
function onInterrupt(machine: MachineState, input: Extract<MachineInput, { type: 'interrupt' }>): MachineStep {
  const stopped: MachineState = {
    ...machine,
    state: 'STOPPED',
    cooldownDeadline: null,
    timerGeneration: machine.timerGeneration + 1,
  };
  return {
    machine: stopped,
    transition: { from: machine.state, to: 'STOPPED', reason: input.reason },
    effects: [{ type: 'cancel-cooldown-timer' }, { type: 'stop' }],
  };
}

/** `start`: the initial extraction, only from a WATCHING machine that was never started. */
function onStart(machine: MachineState): MachineStep {
  if (machine.state !== 'WATCHING' || machine.timerGeneration !== 0 || machine.extractingChanges !== 0)
    return unchangedStep(machine);
  // timerGeneration 1 marks the machine as started (a second `start` is ignored).
  const extracting: MachineState = { ...machine, state: 'EXTRACTING', timerGeneration: 1, extractingChanges: 0 };
  return {
    machine: extracting,
    transition: { from: 'WATCHING', to: 'EXTRACTING', reason: 'initial extraction' },
    effects: [{ type: 'start-extraction', changes: 0 }],
  };
}

/** `changes`: WATCHING starts a cooldown, COOLDOWN restarts it with a bigger batch, EXTRACTING remembers them. */
function onChanges(machine: MachineState, input: Extract<MachineInput, { type: 'changes' }>): MachineStep {
  if (input.count <= 0) return unchangedStep(machine);
  if (machine.state === 'WATCHING') {
    const cooling = enterCooldown(machine, input.at, input.count);
    return {
      machine: cooling,
      transition: {
        from: 'WATCHING',
        to: 'COOLDOWN',
        reason: `${input.count} change(s) detected; extracting after ${seconds(machine.cooldownMs)} without changes`,
      },
      effects: [cooldownTimer(cooling)],
    };
  }
  if (machine.state === 'COOLDOWN') {
    const cooling = enterCooldown(machine, input.at, machine.pendingChanges + input.count);
    return { machine: cooling, transition: null, effects: [cooldownTimer(cooling)] };
  }
  // EXTRACTING
  return {
    machine: { ...machine, changesDuringExtraction: machine.changesDuringExtraction + input.count },
    transition: null,
    effects: [],
  };
}

/** `cooldown-elapsed` of the live timer in COOLDOWN: one extraction for the whole batch. */
function onCooldownElapsed(
  machine: MachineState,
  input: Extract<MachineInput, { type: 'cooldown-elapsed' }>,
): MachineStep {
  if (machine.state !== 'COOLDOWN' || input.generation !== machine.timerGeneration) return unchangedStep(machine);
  const extracting: MachineState = {
    ...machine,
    state: 'EXTRACTING',
    cooldownDeadline: null,
    extractingChanges: machine.pendingChanges,
    pendingChanges: 0,
  };
  return {
    machine: extracting,
    transition: {
      from: 'COOLDOWN',
      to: 'EXTRACTING',
      reason: `cooldown of ${seconds(machine.cooldownMs)} elapsed; ${machine.pendingChanges} change(s) batched`,
    },
    effects: [{ type: 'start-extraction', changes: machine.pendingChanges }],
  };
}

/** `extraction-ended` in EXTRACTING: back to WATCHING, or to COOLDOWN when changes arrived meanwhile. */
function onExtractionEnded(
  machine: MachineState,
  input: Extract<MachineInput, { type: 'extraction-ended' }>,
): MachineStep {
  if (machine.state !== 'EXTRACTING') return unchangedStep(machine);
  const outcome = input.outcome.ok
    ? `extraction ${input.outcome.extractionId} completed`
    : `extraction failed: ${input.outcome.error}`;
  const settled: MachineState = { ...machine, extractingChanges: 0, changesDuringExtraction: 0 };
  if (machine.changesDuringExtraction > 0) {
    const cooling = enterCooldown(settled, input.at, machine.changesDuringExtraction);
    return {
      machine: cooling,
      transition: {
        from: 'EXTRACTING',
        to: 'COOLDOWN',
        reason: `${outcome}; ${machine.changesDuringExtraction} change(s) detected during the extraction`,
      },
      effects: [cooldownTimer(cooling)],
    };
  }
  return {
    machine: { ...settled, state: 'WATCHING' },
    transition: { from: 'EXTRACTING', to: 'WATCHING', reason: outcome },
    effects: [],
  };
}

/** Applies one input. Pure: `machine` is not modified. */
export function next(machine: MachineState, input: MachineInput): MachineStep {
  if (machine.state === 'STOPPED') return unchangedStep(machine);
  switch (input.type) {
    case 'interrupt':
      return onInterrupt(machine, input);
    case 'start':
      return onStart(machine);
    case 'changes':
      return onChanges(machine, input);
    case 'cooldown-elapsed':
      return onCooldownElapsed(machine, input);
    case 'extraction-ended':
      return onExtractionEnded(machine, input);
    default:
      return unchangedStep(machine);
  }
}
