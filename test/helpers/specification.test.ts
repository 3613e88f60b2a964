/**
 * The specification helper (`./specification.ts`) itself: it folds the given events from a fresh
 * initial state, and fails when the state differs, when a fold throws unexpectedly, or when a fold
 * that should throw does not.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { specification } from './specification.js';

/** A running total of deposits that refuses withdrawals beyond the balance. */
type Movement = { kind: 'deposit' | 'withdrawal'; amount: number };
const account = specification({
  initialState: () => ({ balance: 0, movements: 0 }),
  evolve: (state: { balance: number; movements: number }, movement: Movement) => {
    const balance = state.balance + (movement.kind === 'deposit' ? movement.amount : -movement.amount);
    if (balance < 0) throw new RangeError(`balance would be ${balance}`);
    return { balance, movements: state.movements + 1 };
  },
});

describe('specification helper', () => {
  it('folds the given events from the initial state and compares the whole state', () => {
    account
      .given([
        { kind: 'deposit', amount: 5 },
        { kind: 'withdrawal', amount: 2 },
      ])
      .then({ balance: 3, movements: 2 });
    assert.throws(() => account.given([{ kind: 'deposit', amount: 5 }]).then({ balance: 5, movements: 0 }), {
      name: 'AssertionError',
    });
  });

  it('hands the state to a function for partial assertions', () => {
    let seen: unknown;
    account.given([{ kind: 'deposit', amount: 1 }]).then((state) => (seen = state));
    assert.deepEqual(seen, { balance: 1, movements: 1 });
  });

  it('starts every case from a fresh initial state', () => {
    const list = specification({
      initialState: () => [] as number[],
      evolve: (numbers: number[], value: number) => void numbers.push(value),
    });
    list.given([1, 2]).then([1, 2]);
    list.given([3]).then([3]);
  });

  it('thenThrows passes when the fold rejects, and fails when it does not or rejects otherwise', () => {
    account.given([{ kind: 'withdrawal', amount: 1 }]).thenThrows(RangeError);
    account.given([{ kind: 'withdrawal', amount: 1 }]).thenThrows(/balance would be -1/);
    assert.throws(() => account.given([{ kind: 'deposit', amount: 1 }]).thenThrows(), { name: 'AssertionError' });
    assert.throws(() => account.given([{ kind: 'withdrawal', amount: 1 }]).thenThrows(TypeError), {
      name: 'AssertionError',
    });
  });

  it('then fails with the error of the fold when the fold rejects', () =>
    assert.throws(
      () => account.given([{ kind: 'withdrawal', amount: 1 }]).then({ balance: 0, movements: 0 }),
      RangeError,
    ));
});
