/**
 * Ownership of work across processes (issue 12, item 1; docs/architecture.md "Several processes").
 *
 * Every API or watch process has an identity (a process id, its host, pid and start time) and a
 * lease, both recorded in its stream `process-{process_id}`: `ProcessStarted` takes the lease for
 * `leaseSeconds`, `ProcessLeaseRenewed` extends it every `leaseSeconds / 3`, `ProcessStopped`
 * releases it on a clean stop. Tasks and watchers record the process that runs them
 * (`owner_process_id`).
 *
 * A sweep (`createOwnershipSweeper`) runs in every process every `leaseSeconds / 3`: it records
 * `ProcessLeaseExpired` for each process whose lease ran out, then lets the task and watcher services
 * interrupt (or resume) the work of owners that are not live. Every one of those appends expects the
 * revision the decision was made on, so that the expiry and each interruption are recorded exactly
 * once, by one process, and never while the owner renewed in between: a renewal the sweeper has not
 * seen yet moves the revision and makes its append a conflict, which it skips.
 *
 * A process that finds its own lease recorded expired (its renewal conflicts: it was paused or cut
 * off from the store longer than the lease) has lost its work: `onLost` is called once, and the
 * lease stops renewing. Events its work still appends are ignored by the projections (a failed task
 * stays failed, a STOPPED watcher stays STOPPED).
 *
 * A renewal that fails because the store is unreachable (issue 23, item 3) is retried with backoff
 * (p-retry: from `LEASE_MINIMUM_RETRY_MILLISECONDS`, doubling, randomized, at most
 * `LEASE_MAXIMUM_RETRY_MILLISECONDS` apart) until the next renewal is due. Before each retry, and
 * after a conflict, the lease reads its own stream after the revision it knows: a renewal that was
 * committed although its answer was lost with the connection is adopted, and only a
 * `ProcessLeaseExpired` recorded by another process means the lease is lost. So an outage shorter
 * than the lease costs nothing; a longer one loses the lease (`onLost`), and the process should be
 * restarted (the API's liveness probe then answers 503, docs/operations.md "Readiness and recovery").
 */
import { randomUUID } from 'node:crypto';
import pRetry from 'p-retry';
import { ExpectedRevisionConflictError, errorMessage } from '../src/errors.js';
import type { EventStore } from '../src/eventStore.js';
import { streams, toAppend, type EventContext } from '../src/events.js';
import type { Logger } from '../src/logger.js';
import type { ProcessKind, ProcessProjection } from '../projections/processProjection.js';
import type { Projector } from '../projections/projector.js';

/** Default lease, in seconds: work of a process that died is taken over 30 to 40 s later. */
export const DEFAULT_LEASE_SECONDS = 30;

/** Delay before the first retry of a failed renewal, in milliseconds (doubling from there). */
export const LEASE_MINIMUM_RETRY_MILLISECONDS = 250;

/** Longest delay between two retries of a failed renewal, in milliseconds. */
export const LEASE_MAXIMUM_RETRY_MILLISECONDS = 2_000;

/** Who a process is. */
export interface ProcessIdentity {
  /** A UUID, fresh for each start. */
  processId: string;
  kind: ProcessKind;
  host: string;
  pid: number;
  /** ISO 8601 time the process started. */
  startedAt: string;
}

/** An identity for this process; `host` and `pid` come from the caller (the composition root reads them). */
export function newProcessIdentity(kind: ProcessKind, host: string, pid: number, now = Date.now()): ProcessIdentity {
  return { processId: randomUUID(), kind, host, pid, startedAt: new Date(now).toISOString() };
}

/** Tells whether the process that owns some work is alive. */
export type OwnerLiveness = (ownerProcessId: string | null | undefined) => boolean;

/** What a lease needs. */
export interface ProcessLeaseDeps {
  store: EventStore;
  processes: ProcessProjection;
  projector: Pick<Projector, 'waitFor'>;
  logger: Logger;
  identity: ProcessIdentity;
  /** Seconds a lease lasts after each renewal. Default `DEFAULT_LEASE_SECONDS`. */
  leaseSeconds?: number;
  /** Clock, in ms since the epoch. Default `Date.now`. */
  now?: () => number;
  /** Called once when this process finds its lease recorded expired by another process. */
  onLost?: () => void;
}

/** This process's lease. */
export interface ProcessLease {
  readonly identity: ProcessIdentity;
  /** Seconds a renewal adds. */
  readonly leaseSeconds: number;
  /** True once another process recorded this lease expired. */
  readonly lost: boolean;
  /** Records `ProcessStarted` and renews every `leaseSeconds / 3` until `stop`. */
  start(): Promise<void>;
  /** Whether the owner of some work is alive: this process (unless its lease was lost), or another live process. */
  isOwnerLive: OwnerLiveness;
  /** Records `ProcessLeaseExpired` for every other process whose lease ran out; resolves with their ids. */
  expireDead(): Promise<string[]>;
  /** Stops renewing and records `ProcessStopped` (releasing the lease at once). Idempotent. */
  stop(reason?: string): Promise<void>;
}

/** Creates the lease of this process; nothing is recorded until `start`. */
export function createProcessLease(deps: ProcessLeaseDeps): ProcessLease {
  const { store, processes, projector, logger, identity } = deps;
  const leaseSeconds = deps.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
  const now = deps.now ?? Date.now;
  const stream = streams.process(identity.processId);
  const context: EventContext = {
    correlation_id: identity.processId,
    cause: 'system',
    actor: `process:${identity.processId}`,
  };
  const expiresAt = () => new Date(now() + leaseSeconds * 1000).toISOString();
  let revision = -1;
  let timer: ReturnType<typeof setInterval> | undefined;
  let renewing: Promise<void> = Promise.resolve();
  let lost = false;
  let stopped = false;

  function loseLease(): void {
    if (lost) return;
    lost = true;
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    logger.error({ process_id: identity.processId }, 'Process:LeaseLost');
    deps.onLost?.();
  }

  const renewalMilliseconds = Math.max(50, (leaseSeconds * 1000) / 3);

  /**
   * Reads this lease's stream after the known revision: a `ProcessLeaseExpired` there means the lease
   * is lost (answers false); otherwise the revision moves to the last event (our own renewals whose
   * answers were lost) and the renewal may be tried again (answers true).
   */
  async function catchUpWithOwnStream(): Promise<boolean> {
    const recorded = await store.readStream(stream, { fromRevision: revision + 1 });
    if (recorded.some((event) => event.type === 'ProcessLeaseExpired')) return false;
    if (recorded.length > 0) revision = recorded[recorded.length - 1]!.revision;
    return true;
  }

  async function renewOnce(attempt: number): Promise<void> {
    if (lost || stopped) return;
    if (attempt > 1 && !(await catchUpWithOwnStream())) {
      loseLease();
      return;
    }
    const appended = await store.append(
      stream,
      toAppend(
        [{ type: 'ProcessLeaseRenewed', data: { process_id: identity.processId, expires_at: expiresAt() } }],
        context,
      ),
      { expectedRevision: revision },
    );
    revision = appended.next_expected_revision;
  }

  async function renew(): Promise<void> {
    if (lost || stopped) return;
    try {
      await pRetry(renewOnce, {
        retries: Number.POSITIVE_INFINITY,
        minTimeout: Math.min(LEASE_MINIMUM_RETRY_MILLISECONDS, renewalMilliseconds),
        maxTimeout: LEASE_MAXIMUM_RETRY_MILLISECONDS,
        // Until the next renewal is due: that one starts its own attempts.
        maxRetryTime: renewalMilliseconds,
        randomize: true,
        unref: true,
        onFailedAttempt: ({ error, attemptNumber }) => {
          if (!(error instanceof ExpectedRevisionConflictError))
            logger.warn(
              { process_id: identity.processId, attempt: attemptNumber, err: errorMessage(error) },
              'Process:LeaseNotRenewed',
            );
        },
        shouldRetry: () => !lost && !stopped,
      });
    } catch (error) {
      logger.warn({ process_id: identity.processId, err: errorMessage(error) }, 'Process:LeaseNotRenewed');
    }
  }

  const lease: ProcessLease = {
    identity,
    leaseSeconds,
    get lost() {
      return lost;
    },
    async start() {
      const appended = await store.append(
        stream,
        toAppend(
          [
            {
              type: 'ProcessStarted',
              data: {
                process_id: identity.processId,
                kind: identity.kind,
                host: identity.host,
                pid: identity.pid,
                started_at: identity.startedAt,
                lease_seconds: leaseSeconds,
                expires_at: expiresAt(),
              },
            },
          ],
          context,
        ),
        { expectedRevision: 'no_stream' },
      );
      revision = appended.next_expected_revision;
      await projector.waitFor(appended.position);
      timer = setInterval(() => {
        renewing = renewing.then(renew);
      }, renewalMilliseconds);
      timer.unref();
      logger.info(
        { process_id: identity.processId, kind: identity.kind, lease_seconds: leaseSeconds },
        'Process:Started',
      );
    },
    isOwnerLive(owner) {
      if (owner === identity.processId) return !lost;
      return processes.isLive(owner, now());
    },
    async expireDead() {
      const expired: string[] = [];
      const at = now();
      for (const process of processes.list()) {
        if (process.process_id === identity.processId || process.status !== 'running') continue;
        if (Date.parse(process.expires_at) > at) continue;
        try {
          const appended = await store.append(
            streams.process(process.process_id),
            toAppend(
              [
                {
                  type: 'ProcessLeaseExpired',
                  data: {
                    process_id: process.process_id,
                    detected_by: identity.processId,
                    expired_at: process.expires_at,
                  },
                },
              ],
              context,
            ),
            { expectedRevision: process.revision },
          );
          await projector.waitFor(appended.position);
          expired.push(process.process_id);
          logger.warn(
            { process_id: process.process_id, host: process.host, pid: process.pid, expired_at: process.expires_at },
            'Process:LeaseExpired',
          );
        } catch (error) {
          // A renewal or another process's record got there first: nothing to do this time.
          if (!(error instanceof ExpectedRevisionConflictError)) throw error;
        }
      }
      return expired;
    },
    async stop(reason = 'stopped') {
      if (stopped) return;
      stopped = true;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      await renewing;
      if (lost || revision < 0) return;
      try {
        await store.append(
          stream,
          toAppend([{ type: 'ProcessStopped', data: { process_id: identity.processId, reason } }], context),
          { expectedRevision: revision },
        );
      } catch (error) {
        logger.warn({ process_id: identity.processId, err: errorMessage(error) }, 'Process:StopNotRecorded');
      }
    },
  };
  return lease;
}

/** A periodic sweep. */
export interface OwnershipSweeper {
  /** Runs one sweep now (after the one in progress, if any). */
  sweep(): Promise<void>;
  /** Stops sweeping; waits for the sweep in progress. */
  stop(): Promise<void>;
}

/**
 * Sweeps every `intervalMilliseconds` (default a third of the lease): records expired leases, then
 * runs `reclaim` (the task and watcher services' take-over of orphaned work). Sweeps never overlap;
 * a failing sweep is logged and the next one runs as usual.
 */
export function createOwnershipSweeper(options: {
  lease: ProcessLease;
  reclaim: () => Promise<void>;
  logger: Logger;
  intervalMilliseconds?: number;
}): OwnershipSweeper {
  const { lease, reclaim, logger } = options;
  let chain: Promise<void> = Promise.resolve();
  let stopped = false;
  const once = async () => {
    if (stopped || lease.lost) return;
    try {
      await lease.expireDead();
      await reclaim();
    } catch (error) {
      logger.warn({ err: errorMessage(error) }, 'Process:SweepFailed');
    }
  };
  const sweep = () => (chain = chain.then(once));
  const timer = setInterval(
    () => void sweep(),
    options.intervalMilliseconds ?? Math.max(50, (lease.leaseSeconds * 1000) / 3),
  );
  timer.unref();
  return {
    sweep,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await chain;
    },
  };
}
