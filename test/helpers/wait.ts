/**
 * Waiting for a condition that another part of the system (a socket, a background task, another
 * process) makes true in its own time. Not a way to make time pass: for that, hand the code under
 * test a `ManualClock` (`./clock.ts`).
 */

/** How long `eventually` waits, in milliseconds. */
export interface EventuallyOptions {
  /** Give up after this long (default 20,000). */
  timeoutMs?: number;
  /** Pause between two checks (default 20). */
  intervalMs?: number;
}

/**
 * Checks until `check` answers something other than undefined, and answers it. Between two checks it
 * pauses `intervalMs`, so that sockets and other processes make progress; it waits for a condition,
 * and never asserts how long that took.
 * @throws Error naming `what` when the condition does not hold within `timeoutMs`; whatever `check` throws
 */
export async function eventually<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  options: EventuallyOptions = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 20));
  }
}
