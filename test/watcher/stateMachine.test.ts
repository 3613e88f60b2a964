/**
 * The watcher state machine (`src/watcher/stateMachine.ts`): every row of the specification's
 * table, batching, the cooldown restart, and the choices the specification leaves open.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { initialMachine, next, type MachineInput, type MachineState } from '../../src/watcher/stateMachine.js';

const COOLDOWN_MS = 30_000;
function run(inputs: MachineInput[], start: MachineState = initialMachine(COOLDOWN_MS)) {
  let machine = start;
  const steps = [];
  for (const input of inputs) {
    const step = next(machine, input);
    steps.push(step);
    machine = step.machine;
  }
  return { machine, steps };
}
const ok = { ok: true as const, extractionId: 'x-1' };

describe('watcher state machine', () => {
  it('extracts once at start (WATCHING -> EXTRACTING), then goes back to WATCHING', () => {
    const { machine, steps } = run([
      { type: 'start', at: 0 },
      { type: 'extraction-ended', at: 5, outcome: ok },
    ]);
    assert.deepEqual(steps[0]!.transition, { from: 'WATCHING', to: 'EXTRACTING', reason: 'initial extraction' });
    assert.deepEqual(steps[0]!.effects, [{ type: 'start-extraction', changes: 0 }]);
    assert.deepEqual(steps[1]!.transition, { from: 'EXTRACTING', to: 'WATCHING', reason: 'extraction x-1 completed' });
    assert.equal(machine.state, 'WATCHING');
    assert.equal(next(machine, { type: 'start', at: 6 }).transition, null, 'a second start is ignored');
  });

  it('WATCHING + change -> COOLDOWN and the cooldown timer starts', () => {
    const { machine, steps } = run([{ type: 'changes', at: 1_000, count: 2 }]);
    assert.equal(machine.state, 'COOLDOWN');
    assert.equal(steps[0]!.transition?.to, 'COOLDOWN');
    assert.deepEqual(steps[0]!.effects, [
      { type: 'start-cooldown-timer', generation: machine.timerGeneration, delayMs: COOLDOWN_MS },
    ]);
    assert.equal(machine.cooldownDeadline, 31_000);
  });

  it('COOLDOWN + another change before the end -> COOLDOWN, the timer restarts, changes are batched', () => {
    const { machine, steps } = run([
      { type: 'changes', at: 0, count: 1 },
      { type: 'changes', at: 10_000, count: 2 },
    ]);
    assert.equal(machine.state, 'COOLDOWN');
    assert.equal(steps[1]!.transition, null);
    assert.equal(steps[1]!.effects[0]?.type, 'start-cooldown-timer');
    assert.equal(machine.cooldownDeadline, 40_000);
    assert.equal(machine.pendingChanges, 3);
    // The first timer's expiry is stale now.
    const stale = next(machine, { type: 'cooldown-elapsed', at: 30_000, generation: machine.timerGeneration - 1 });
    assert.equal(stale.machine.state, 'COOLDOWN');
    assert.deepEqual(stale.effects, []);
  });

  it('COOLDOWN + cooldown elapsed -> EXTRACTING with one extraction for the batch', () => {
    const first = run([
      { type: 'changes', at: 0, count: 1 },
      { type: 'changes', at: 5_000, count: 1 },
    ]).machine;
    const step = next(first, { type: 'cooldown-elapsed', at: 35_000, generation: first.timerGeneration });
    assert.equal(step.machine.state, 'EXTRACTING');
    assert.deepEqual(step.effects, [{ type: 'start-extraction', changes: 2 }]);
    assert.match(step.transition!.reason, /cooldown of 30 s elapsed; 2 change\(s\) batched/);
  });

  it('EXTRACTING + extraction ended -> WATCHING; a failure is named in the reason', () => {
    const extracting = run([{ type: 'start', at: 0 }]).machine;
    const failed = next(extracting, { type: 'extraction-ended', at: 1, outcome: { ok: false, error: 'boom' } });
    assert.deepEqual(failed.transition, { from: 'EXTRACTING', to: 'WATCHING', reason: 'extraction failed: boom' });
  });

  it('changes during EXTRACTING wait, then start a new cooldown when the extraction ends', () => {
    const { machine, steps } = run([
      { type: 'start', at: 0 },
      { type: 'changes', at: 1, count: 3 },
      { type: 'extraction-ended', at: 2, outcome: ok },
    ]);
    assert.equal(steps[1]!.transition, null);
    assert.deepEqual(steps[1]!.effects, []);
    assert.equal(steps[2]!.transition?.to, 'COOLDOWN');
    assert.equal(machine.state, 'COOLDOWN');
    assert.equal(machine.pendingChanges, 3);
    assert.equal(steps[2]!.effects[0]?.type, 'start-cooldown-timer');
  });

  it('any state + interrupt -> STOPPED, timers cancelled; STOPPED ignores everything', () => {
    const starts: MachineInput[][] = [[], [{ type: 'changes', at: 0, count: 1 }], [{ type: 'start', at: 0 }]];
    for (const inputs of starts) {
      const { machine } = run(inputs);
      const step = next(machine, { type: 'interrupt', at: 9, reason: 'interrupted' });
      assert.deepEqual(step.transition, { from: machine.state, to: 'STOPPED', reason: 'interrupted' });
      assert.deepEqual(step.effects, [{ type: 'cancel-cooldown-timer' }, { type: 'stop' }]);
      for (const input of [
        { type: 'changes', at: 10, count: 1 },
        { type: 'cooldown-elapsed', at: 10, generation: step.machine.timerGeneration },
        { type: 'extraction-ended', at: 10, outcome: ok },
        { type: 'interrupt', at: 10, reason: 'again' },
      ] as MachineInput[]) {
        const after = next(step.machine, input);
        assert.equal(after.machine.state, 'STOPPED');
        assert.equal(after.transition, null);
      }
    }
  });

  it('ignores inputs that do not apply to the state', () => {
    const watching = initialMachine(COOLDOWN_MS);
    assert.equal(next(watching, { type: 'cooldown-elapsed', at: 0, generation: 0 }).transition, null);
    assert.equal(next(watching, { type: 'extraction-ended', at: 0, outcome: ok }).transition, null);
    assert.equal(next(watching, { type: 'changes', at: 0, count: 0 }).transition, null);
  });
});
