/**
 * What the providers that push OpenLineage RunEvents share (the warehouse's Data Lineage API,
 * `docs/catalog-apis.md` B2; the data governance's DataZone, C2): one event per job, sent with a
 * bounded number in flight, each job's outcome in the PushResult's `results`, and a record of what
 * was sent (`PushLedger`) so that a second push of the same lineage sends nothing.
 *
 * An event's **fingerprint** is the SHA-256 of its JSON without `eventTime`: the runId of
 * `graphToRunEvents` is already a hash of the job's definition, inputs and outputs, so two pushes of
 * an unchanged job have the same fingerprint, and any change to the job, its datasets or their facets
 * changes it. Pure apart from the injected `send` and ledger.
 */
import { createHash } from 'node:crypto';
import pLimit from 'p-limit';
import type { RunEvent } from '../openlineage/model.js';
import type { PushLedger, PushResult } from './provider.js';

/** The fingerprint of an event (hex SHA-256 of its JSON without `eventTime`). */
export function eventFingerprint(event: RunEvent): string {
  const { eventTime: _eventTime, ...rest } = event;
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex');
}

/** The name a catalog shows for an event's job: `{namespace}:{name}`. */
export function jobDisplayName(event: Pick<RunEvent, 'job'>): string {
  return `${event.job.namespace}:${event.job.name}`;
}

/** How `sendRunEvents` sends and records. */
export interface SendRunEventsOptions {
  /** Sends one event; throws on failure. */
  send: (event: RunEvent) => Promise<void>;
  /** What was pushed before; absent: every event is sent. */
  ledger?: PushLedger | undefined;
  /** Prefix of the ledger keys: the target (`{project}/{location}`, `{domain}`). */
  target: string;
  /** Calls in flight. */
  concurrency: number;
  /** True when a failure means "no access" or "not there" (reported as `skipped`, not `failed`). */
  skippable?: (error: unknown) => boolean;
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Sends `events` and fills `result`: per job a `results` entry (`updated` when sent, `unchanged`
 * when the ledger holds the same fingerprint for it and nothing was sent, `skipped` for failures
 * `skippable` accepts, else `failed`), `tables_updated` += events sent, and one `errors` or `skipped`
 * line per failure (`{job} (run {runId}): not sent: ...`). A failure never stops the other events.
 */
export async function sendRunEvents(
  events: readonly RunEvent[],
  result: PushResult,
  options: SendRunEventsOptions,
): Promise<void> {
  const limit = pLimit(options.concurrency);
  const outcomes = await Promise.all(
    events.map((event) =>
      limit(async () => {
        const key = `${options.target}|${jobDisplayName(event)}`;
        const fingerprint = eventFingerprint(event);
        if (options.ledger && (await options.ledger.get(key)) === fingerprint) return { status: 'unchanged' as const };
        try {
          await options.send(event);
          await options.ledger?.set(key, fingerprint);
          return { status: 'updated' as const };
        } catch (error) {
          return { status: options.skippable?.(error) ? ('skipped' as const) : ('failed' as const), error };
        }
      }),
    ),
  );
  outcomes.forEach((outcome, i) => {
    const event = events[i]!;
    const base = { kind: 'job' as const, name: jobDisplayName(event) };
    if (outcome.status === 'updated') {
      result.tables_updated += 1;
      result.results.push({ ...base, status: 'updated' });
    } else if (outcome.status === 'unchanged') result.results.push({ ...base, status: 'unchanged' });
    else {
      const message = `not sent: ${describe(outcome.error)}`;
      (outcome.status === 'skipped' ? result.skipped : result.errors).push(
        `${base.name} (run ${event.run.runId}): ${message}`,
      );
      result.results.push(
        outcome.status === 'skipped'
          ? { ...base, status: 'skipped', reason: message }
          : { ...base, status: 'failed', error: message },
      );
    }
  });
}
