/**
 * Scheduling priority of worker threads whose work may wait (issue 23, item 4). On a machine with
 * fewer cores than busy threads, the kernel shares the cores fairly between the event loop and a
 * worker validating a 30 MB import body, so requests (`GET /health` included) wait their turn behind
 * the worker. A worker that lowers its own priority (`lowerThreadPriority`) leaves the cores to the
 * event loop first and takes what is left; on an idle core it runs as fast as before.
 *
 * Linux only: there `setpriority(PRIO_PROCESS, tid)` (Node's `os.setPriority`) sets the priority of
 * one thread, named by its thread id (`/proc/thread-self`). Elsewhere it would name the whole
 * process, so nothing is done.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Nice value of background worker threads: 10, the value `nice` gives by default. The kernel then
 * weighs the thread about ten times lighter than one at 0 (the event loop).
 */
export const BACKGROUND_THREAD_NICENESS = 10;

/**
 * Lowers the calling thread's scheduling priority to `niceness` (a nice value, -20 to 19; higher is
 * lower priority), on Linux only, unless its nice value is that high already. Call it from
 * the worker thread itself, first thing. Lowering a priority needs no privilege; a failure (no
 * `/proc`, a sandbox refusing the call) leaves the priority as it was.
 * @returns true when the priority was set; false elsewhere than on Linux, when its nice value was that high
 *   already, or when it failed.
 */
export function lowerThreadPriority(niceness: number = BACKGROUND_THREAD_NICENESS): boolean {
  if (process.platform !== 'linux') return false;
  try {
    // `/proc/thread-self` links to `{pid}/task/{tid}`.
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(threadId) || threadId <= 0) return false;
    // Never raise it: a process started at a higher nice value (`nice -n 15`) keeps its worker there.
    if (getPriority(threadId) >= niceness) return false;
    setPriority(threadId, niceness);
    return true;
  } catch {
    return false;
  }
}
