/**
 * Specifications of folds, in the spirit of emmett's `DeciderSpecification`: given a list of events,
 * fold them with the projection's evolve function from its initial state, then assert the state.
 *
 * ```ts
 * const { given } = specification({
 *   initialState: () => new Map<string, TaskState>(),
 *   evolve: evolveTasks,
 *   view: (tasks) => [...tasks.values()],
 * });
 *
 * it('a task that completed is done', () =>
 *   given(recorded([created('t-1'), completed('t-1', RESULT)])).then([{ ...queued('t-1', 0), status: 'completed', ... }]));
 *
 * it('a task ends once', () =>
 *   given(recorded([created('t-1'), completed('t-1', RESULT), failed('t-1', 'late')])).then((tasks) =>
 *     assert.equal(tasks.get('t-1')?.status, 'completed'),
 *   ));
 *
 * it('an event that does not match its schema is refused', () => given([broken]).thenThrows(TypeError));
 * ```
 *
 * (`test/projections/taskFold.test.ts` has those event builders; `recorded` is in `./recordedEvents.ts`.)
 *
 * `then` compares the state (or its `view`) with `assert.deepStrictEqual`, so the expected value is
 * the whole state: nothing the fold adds goes unnoticed. For a partial assertion, pass a function
 * instead; it receives the state itself. Events for projections are stamped with `recorded(...)`,
 * as the store would stamp them.
 *
 * The object `given` answers has a `then` method, as emmett's has: call it, never `await` the
 * object itself (it is not a promise, and answers nothing).
 */
import assert from 'node:assert/strict';

/** A fold: where it starts and how one event moves it on. */
export interface Fold<State, Event, View = State> {
  /** A fresh initial state; called once per `given`, so that no two specifications share a state. */
  initialState: () => State;
  /**
   * Applies one event. Answers the next state; a fold that changes the state in place (and answers
   * nothing) is accepted as it is: the state it was given is then the next state.
   */
  evolve: (state: State, event: Event) => State | void;
  /**
   * What `then` compares with the expected value (default: the state itself). A view makes the
   * expected values read like the domain (plain arrays and records instead of maps and graphs).
   */
  view?: (state: State) => View;
}

/** What `then` may be given: the whole expected view, or a function that asserts on the state. */
export type Expectation<State, View> = View | ((state: State) => void);

/** The outcome of folding the given events, to be asserted. */
export interface Then<State, View> {
  /**
   * Asserts the folded state: deep and strict equality of its view with `expected`, or, when
   * `expected` is a function, whatever that function asserts on the state.
   * @throws AssertionError when the state differs, or when the fold throws
   */
  then(expected: Expectation<State, View>): void;
  /**
   * Asserts that folding the given events throws: any error, or one matching `expected` (an error
   * class, a regular expression tested on the message, a validation function or an object of
   * expected properties, as `assert.throws` takes them).
   * @throws AssertionError when the fold does not throw, or throws something else
   */
  thenThrows(expected?: assert.AssertPredicate): void;
}

/** A specification of one fold: start a case with `given(events)`. */
export interface Specification<State, Event, View> {
  /** The events of one case, oldest first. Nothing is folded until `then` or `thenThrows`. */
  given(events: readonly Event[]): Then<State, View>;
}

/**
 * The specification of a fold.
 * @param fold its initial state, evolve function and optional view
 */
export function specification<State, Event, View = State>(
  fold: Fold<State, Event, View>,
): Specification<State, Event, View> {
  const foldAll = (events: readonly Event[]): State => {
    let state = fold.initialState();
    for (const event of events) {
      const next = fold.evolve(state, event);
      if (next !== undefined) state = next;
    }
    return state;
  };
  return {
    given(events) {
      return {
        then(expected) {
          const state = foldAll(events);
          if (typeof expected === 'function') {
            (expected as (state: State) => void)(state);
            return;
          }
          const actual = fold.view ? fold.view(state) : (state as unknown as View);
          assert.deepStrictEqual(actual, expected);
        },
        thenThrows(expected) {
          if (expected === undefined) assert.throws(() => foldAll(events));
          else assert.throws(() => foldAll(events), expected);
        },
      };
    },
  };
}
