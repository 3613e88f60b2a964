/**
 * Specifications of the watcher state machine (`src/watcher/stateMachine.ts`) as a fold of its
 * inputs: given what happened to a watcher, the machine's state, the transitions the engine records
 * (`WatcherStateChanged`) and the effects it performs, in order. Every row of the specification's
 * table, batching, the cooldown restart, and the choices the specification leaves open.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  initialMachine,
  next,
  type MachineEffect,
  type MachineInput,
  type MachineState,
  type Transition,
} from '../../src/watcher/stateMachine.js';
import { specification } from '../helpers/specification.js';

/** The machine with everything it asked for so far: its transitions and its effects, oldest first. */
interface Run {
  machine: MachineState;
  transitions: Transition[];
  effects: MachineEffect[];
}

const COOLDOWN_MS = 30_000;
const WATCHING: MachineState = initialMachine(COOLDOWN_MS);

const { given } = specification({
  initialState: (): Run => ({ machine: WATCHING, transitions: [], effects: [] }),
  evolve: (run: Run, input: MachineInput): Run => {
    const step = next(run.machine, input);
    return {
      machine: step.machine,
      transitions: step.transition ? [...run.transitions, step.transition] : run.transitions,
      effects: [...run.effects, ...step.effects],
    };
  },
});

const ok = { ok: true as const, extractionId: 'x-1' };
const start = (at: number): MachineInput => ({ type: 'start', at });
const changes = (count: number, at: number): MachineInput => ({ type: 'changes', at, count });
const cooldownElapsed = (generation: number, at: number): MachineInput => ({
  type: 'cooldown-elapsed',
  at,
  generation,
});
const extractionEnded = (at: number, outcome: { ok: true; extractionId: string } | { ok: false; error: string } = ok) =>
  ({ type: 'extraction-ended', at, outcome }) as MachineInput;
const interrupt = (at: number, reason = 'interrupted'): MachineInput => ({ type: 'interrupt', at, reason });

const timer = (generation: number): MachineEffect => ({
  type: 'start-cooldown-timer',
  generation,
  delayMs: COOLDOWN_MS,
});
const initialExtraction: Transition = { from: 'WATCHING', to: 'EXTRACTING', reason: 'initial extraction' };

describe('watcher state machine', () => {
  it('WATCHING + start -> EXTRACTING: the watcher extracts once when it starts', () =>
    given([start(0)]).then({
      machine: { ...WATCHING, state: 'EXTRACTING', timerGeneration: 1 },
      transitions: [initialExtraction],
      effects: [{ type: 'start-extraction', changes: 0 }],
    }));

  it('EXTRACTING + extraction ended -> WATCHING, naming the extraction; a second start is ignored', () =>
    given([start(0), extractionEnded(5), start(6)]).then({
      machine: { ...WATCHING, timerGeneration: 1 },
      transitions: [initialExtraction, { from: 'EXTRACTING', to: 'WATCHING', reason: 'extraction x-1 completed' }],
      effects: [{ type: 'start-extraction', changes: 0 }],
    }));

  it('a failed extraction is named in the reason', () =>
    given([start(0), extractionEnded(1, { ok: false, error: 'boom' })]).then(({ transitions }) =>
      assert.deepEqual(transitions.at(-1), { from: 'EXTRACTING', to: 'WATCHING', reason: 'extraction failed: boom' }),
    ));

  it('WATCHING + changes -> COOLDOWN, and the cooldown timer starts', () =>
    given([changes(2, 1_000)]).then({
      machine: { ...WATCHING, state: 'COOLDOWN', timerGeneration: 1, cooldownDeadline: 31_000, pendingChanges: 2 },
      transitions: [
        {
          from: 'WATCHING',
          to: 'COOLDOWN',
          reason: '2 change(s) detected; extracting after 30 s without changes',
        },
      ],
      effects: [timer(1)],
    }));

  it('COOLDOWN + changes -> COOLDOWN (no transition): the timer restarts and the changes join the batch', () =>
    given([changes(1, 0), changes(2, 10_000)]).then(({ machine, transitions, effects }) => {
      assert.deepEqual(machine, {
        ...WATCHING,
        state: 'COOLDOWN',
        timerGeneration: 2,
        cooldownDeadline: 40_000,
        pendingChanges: 3,
      });
      assert.equal(transitions.length, 1);
      assert.deepEqual(effects, [timer(1), timer(2)]);
    }));

  it('the end of a timer that was restarted is stale and changes nothing', () =>
    given([changes(1, 0), changes(2, 10_000), cooldownElapsed(1, 30_000)]).then(({ machine, effects }) => {
      assert.equal(machine.state, 'COOLDOWN');
      assert.equal(machine.pendingChanges, 3);
      assert.deepEqual(effects, [timer(1), timer(2)]);
    }));

  it('COOLDOWN + cooldown elapsed -> EXTRACTING, with one extraction for the whole batch', () =>
    given([changes(1, 0), changes(1, 5_000), cooldownElapsed(2, 35_000)]).then({
      machine: { ...WATCHING, state: 'EXTRACTING', timerGeneration: 2, extractingChanges: 2 },
      transitions: [
        { from: 'WATCHING', to: 'COOLDOWN', reason: '1 change(s) detected; extracting after 30 s without changes' },
        { from: 'COOLDOWN', to: 'EXTRACTING', reason: 'cooldown of 30 s elapsed; 2 change(s) batched' },
      ],
      effects: [timer(1), timer(2), { type: 'start-extraction', changes: 2 }],
    }));

  it('changes during EXTRACTING wait for its end, then start a new cooldown of their own', () =>
    given([start(0), changes(3, 1), extractionEnded(2)]).then({
      machine: { ...WATCHING, state: 'COOLDOWN', timerGeneration: 2, cooldownDeadline: 30_002, pendingChanges: 3 },
      transitions: [
        initialExtraction,
        {
          from: 'EXTRACTING',
          to: 'COOLDOWN',
          reason: 'extraction x-1 completed; 3 change(s) detected during the extraction',
        },
      ],
      effects: [{ type: 'start-extraction', changes: 0 }, timer(2)],
    }));

  for (const [state, before] of [
    ['WATCHING', []],
    ['COOLDOWN', [changes(1, 0)]],
    ['EXTRACTING', [start(0)]],
  ] as const) {
    it(`${state} + interrupt -> STOPPED: the timer is cancelled and polling stops`, () =>
      given([...before, interrupt(9)]).then(({ machine, transitions, effects }) => {
        assert.equal(machine.state, 'STOPPED');
        assert.equal(machine.cooldownDeadline, null);
        assert.deepEqual(transitions.at(-1), { from: state, to: 'STOPPED', reason: 'interrupted' });
        assert.deepEqual(effects.slice(-2), [{ type: 'cancel-cooldown-timer' }, { type: 'stop' }]);
      }));
  }

  it('STOPPED ignores everything', () =>
    given([
      interrupt(0),
      changes(1, 10),
      cooldownElapsed(1, 10),
      cooldownElapsed(2, 10),
      extractionEnded(10),
      interrupt(10, 'again'),
      start(10),
    ]).then({
      machine: { ...WATCHING, state: 'STOPPED', timerGeneration: 1 },
      transitions: [{ from: 'WATCHING', to: 'STOPPED', reason: 'interrupted' }],
      effects: [{ type: 'cancel-cooldown-timer' }, { type: 'stop' }],
    }));

  it('inputs that do not apply to the state change nothing: no cooldown to elapse, no extraction to end, no changes', () =>
    given([cooldownElapsed(0, 0), extractionEnded(0), changes(0, 0)]).then({
      machine: WATCHING,
      transitions: [],
      effects: [],
    }));
});
