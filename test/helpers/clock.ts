/**
 * A controlled clock for tests: time stands still until the test moves it on with `advance`, and
 * one-shot timers fire only then, in order of their due time. It has the shape of the clocks the
 * code under test accepts (`WatcherTimers` in `src/watcher/watcher.ts`, `SimulatorClock` in
 * `simulators/confluent/server.ts`), so that tests make time pass without sleeping.
 *
 * ```ts
 * const clock = new ManualClock();
 * const sim = await startPlatformSimulator({ scenario, clock });
 * await clock.advance(20_000); // a held request's 20 s are over
 * ```
 */

/** 2023-11-14T22:13:20.000Z: where a `ManualClock` starts unless told otherwise (milliseconds since the epoch). */
export const MANUAL_CLOCK_START = 1_700_000_000_000;

/** A clock that moves only when told to, with one-shot timers. All times and delays are in milliseconds. */
export class ManualClock {
  private time: number;
  private readonly timers = new Map<number, { at: number; callback: () => void }>();
  private nextId = 1;

  /** @param start the time it shows first, in milliseconds since the epoch */
  constructor(start = MANUAL_CLOCK_START) {
    this.time = start;
  }

  /** The current time, in milliseconds since the epoch. */
  now = (): number => this.time;

  /** The current time as a Date (the shape of the event stores' `now` option). */
  date = (): Date => new Date(this.time);

  /** Schedules `callback` for `delayMs` milliseconds from now; answers the handle for `clearTimeout`. */
  setTimeout = (callback: () => void, delayMs: number): unknown => {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + delayMs, callback });
    return id;
  };

  /** Cancels a timer (a handle of a timer that already fired or was cancelled is ignored). */
  clearTimeout = (handle: unknown): void => {
    this.timers.delete(handle as number);
  };

  /** How many timers are waiting to fire. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /**
   * Moves time forward by `ms` milliseconds, firing the timers that fall due in order of their due
   * time (the clock shows each timer's time while its callback runs), and lets promises settle after
   * each one and at the end.
   */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await settle();
      const due = [...this.timers.entries()]
        .filter(([, timer]) => timer.at <= end)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = due[1].at;
      due[1].callback();
    }
    this.time = end;
    await settle();
  }
}

/** Lets pending promise callbacks and I/O callbacks run (twenty turns of the event loop; no time passes on any clock). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}
