/**
 * Waiting for a condition that another part of the system (a socket, a background task, another
 * process) makes true in its own time. Not a way to make time pass: for that, hand the code under
 * test a `ManualClock` (`./clock.ts`).
 */

/**
 * Waits until `check` answers something other than undefined, and answers it. Between two checks it
 * gives the event loop one turn after a short pause (10 ms), so that sockets and other processes can
 * make progress; it is a wait for a condition, never a way to make time pass.
 * @throws Error naming `what` when the condition does not hold within `timeoutMs` milliseconds (default 20,000)
 */
export async function eventually<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
