/**
 * The process projection: folds the `process-{process_id}` streams (ProcessStarted,
 * ProcessLeaseRenewed, ProcessStopped, ProcessLeaseExpired; `src/events.ts`) into one record per
 * process, so that every process can tell whether the owner of a task or a watcher is alive: a
 * process is live while it has neither stopped nor been recorded expired, and its lease's
 * `expires_at` is still ahead of the clock (`isLive`).
 *
 * Times are the processes' own clocks (ISO 8601): hosts sharing a store are assumed to keep their
 * clocks within a few seconds of each other (NTP), well inside a lease.
 */
import type { StoredLineageEvent } from '../src/events.js';
import type { PROCESS_KINDS } from '../src/events.js';

/** `api` or `watch`. */
export type ProcessKind = (typeof PROCESS_KINDS)[number];

/** `running` while its lease is renewed; `stopped` after a clean stop; `expired` once another process recorded the expiry. */
export type ProcessStatus = 'running' | 'stopped' | 'expired';

/** Everything known about one process. */
export interface ProcessState {
  process_id: string;
  kind: ProcessKind;
  host: string;
  pid: number;
  /** ISO 8601 times. */
  started_at: string;
  /** When the lease runs out unless renewed (ISO 8601). */
  expires_at: string;
  /** Seconds a renewal adds. */
  lease_seconds: number;
  status: ProcessStatus;
  /** Revision of the process stream (the next append there expects it). */
  revision: number;
}

/** The projection (the projector's `Projection`). */
export interface ProcessProjection {
  readonly position: number;
  apply(event: StoredLineageEvent): void;
  /** One process, or undefined when it never recorded ProcessStarted. */
  get(processId: string): ProcessState | undefined;
  /** Every process, oldest first. */
  list(): ProcessState[];
  /**
   * Whether the process is alive at `nowMs` (ms since the epoch): running and its lease not expired.
   * False for an unknown process and for null (work recorded before processes had owners).
   */
  isLive(processId: string | null | undefined, nowMs: number): boolean;
  reset(): void;
}

/** Applies one event to the map of processes, in place; events of other streams are ignored. */
export function evolveProcesses(processes: Map<string, ProcessState>, event: StoredLineageEvent): void {
  if (!event.stream.startsWith('process-')) return;
  switch (event.type) {
    case 'ProcessStarted':
      if (processes.has(event.data.process_id)) return;
      processes.set(event.data.process_id, {
        process_id: event.data.process_id,
        kind: event.data.kind,
        host: event.data.host,
        pid: event.data.pid,
        started_at: event.data.started_at,
        expires_at: event.data.expires_at,
        lease_seconds: event.data.lease_seconds,
        status: 'running',
        revision: event.revision,
      });
      return;
    case 'ProcessLeaseRenewed': {
      const process = processes.get(event.data.process_id);
      if (!process) return;
      process.revision = event.revision;
      if (process.status === 'running') process.expires_at = event.data.expires_at;
      return;
    }
    case 'ProcessStopped': {
      const process = processes.get(event.data.process_id);
      if (!process) return;
      process.revision = event.revision;
      if (process.status === 'running') process.status = 'stopped';
      return;
    }
    case 'ProcessLeaseExpired': {
      const process = processes.get(event.data.process_id);
      if (!process) return;
      process.revision = event.revision;
      if (process.status === 'running') process.status = 'expired';
      return;
    }
    default:
      return;
  }
}

/** Creates an empty process projection. */
export function createProcessProjection(): ProcessProjection {
  const processes = new Map<string, ProcessState>();
  let position = 0;
  return {
    get position() {
      return position;
    },
    apply(event) {
      evolveProcesses(processes, event);
      position = event.position;
    },
    get: (processId) => processes.get(processId),
    list: () => [...processes.values()],
    isLive(processId, nowMs) {
      if (processId === null || processId === undefined) return false;
      const process = processes.get(processId);
      return process !== undefined && process.status === 'running' && Date.parse(process.expires_at) > nowMs;
    },
    reset() {
      processes.clear();
      position = 0;
    },
  };
}
