/**
 * A store that can be taken down: every call to the wrapped store (reads, appends, subscription
 * reads) rejects with a `StorageError` while it is down, like a database that went away, and works
 * again once it is back up. Subscriptions are the wrapped store's own polling subscription over the
 * faulty `readAll`, so that a read that fails ends them with that error, as on PostgreSQL.
 * `lostAnswers` makes the next appends ambiguous: written, but answered with a `StorageError`, as
 * when the connection drops between the commit and its answer.
 */
import { StorageError } from '../../src/errors.js';
import { appendNotifier, pollingSubscription, type EventStore } from '../../src/eventStore.js';

/** The faulty store and its switch. */
export interface FaultyStore {
  store: EventStore;
  /** True while every call fails. */
  down: boolean;
  /** The next this many appends are committed, then answered with a `StorageError`. */
  lostAnswers: number;
  /** Failed calls so far. */
  readonly failedCalls: number;
  /** Appends only, failed or not, in order: `true` for one that succeeded. */
  readonly appendOutcomes: boolean[];
}

/** Wraps `inner`; `pollMilliseconds` is how often idle subscriptions read again (default 20). */
export function faultyStore(inner: EventStore, pollMilliseconds = 20): FaultyStore {
  const notifier = appendNotifier(pollMilliseconds);
  const control = { down: false, lostAnswers: 0, failedCalls: 0, appendOutcomes: [] as boolean[] };
  function guard<Arguments extends unknown[], Result>(
    call: (...args: Arguments) => Promise<Result>,
  ): (...args: Arguments) => Promise<Result> {
    return async (...args) => {
      if (control.down) {
        control.failedCalls += 1;
        throw new StorageError('faulty store: connect ECONNREFUSED (the test took the store down)');
      }
      return call(...args);
    };
  }
  const readAll = guard((options?: Parameters<EventStore['readAll']>[0]) => inner.readAll(options));
  const store: EventStore = {
    backend: inner.backend,
    snapshots: inner.snapshots,
    async append(stream, events, options) {
      try {
        const result = await guard(() => inner.append(stream, events, options))();
        notifier.notify();
        if (control.lostAnswers > 0) {
          control.lostAnswers -= 1;
          throw new StorageError('faulty store: Connection terminated unexpectedly (after the commit)');
        }
        control.appendOutcomes.push(true);
        return result;
      } catch (error) {
        control.appendOutcomes.push(false);
        throw error;
      }
    },
    readStream: guard((stream: string, options?: Parameters<EventStore['readStream']>[1]) =>
      inner.readStream(stream, options),
    ),
    streamRevision: guard((stream: string) => inner.streamRevision(stream)),
    readAll,
    headPosition: guard(() => inner.headPosition()),
    subscribe: (options) => pollingSubscription(readAll, notifier.wait, options),
    close: () => inner.close(),
  };
  return Object.assign(control, { store });
}
