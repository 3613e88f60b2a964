/**
 * Fault injection for the platform simulator.
 *
 * A fault matches requests by API name (`api`: exact name such as `kafka-rest.topics`, or a
 * pattern with `*` such as `kafka-rest.*`; a list means any of them), by HTTP `method`, and/or by
 * `path` (a regular expression tested against the request URL, path plus query string). A fault
 * with no matcher matches every platform request (never the `/_simulator` admin API).
 *
 * Kinds:
 * - `latency`: adds `ms` milliseconds, then the request is answered normally (several latency
 *   faults add up);
 * - `status`: answers `status` (any code) with the API family's error body (or `body`), plus a
 *   `Retry-After: <retry_after>` header when given (429 answers of the control plane, Connect,
 *   Schema Registry and Metrics carry `Retry-After: 1` and the `X-RateLimit-*` headers by default;
 *   Kafka REST's 429 is Jetty's HTML page without rate-limit headers, as on the real platform);
 * - `timeout`: holds the request without answering until the client gives up (closes the
 *   connection), or for `ms` milliseconds and then answers normally;
 * - `unauthorized`: 401 with the family's body;
 * - `not_found`: 404 with the family's body.
 *
 * `times` bounds how many matching requests a fault applies to (default unlimited); `after` lets
 * that many matching requests through first. Latency faults all apply; of the other kinds the first
 * matching one (in insertion order) applies.
 */
import { faultSchema, type FaultSpec } from './scenario.js';
import { ValidationError } from '../../src/errors.js';

/** A fault as accepted by `injectFault` (same shape as a scenario's `faults` entries). */
export type Fault = FaultSpec;

/** A fault installed in the simulator, with its counters. */
export interface ActiveFault {
  /** given id, or `fault-<n>` */
  id: string;
  spec: Fault;
  /** requests the fault applied to */
  hits: number;
  /** matching requests seen (including those let through by `after`) */
  seen: number;
  /** remaining applications (`null`: unlimited) */
  remaining: number | null;
}

/** What a request must do because of faults. */
export interface FaultDecision {
  /** total milliseconds to wait first */
  latencyMs: number;
  /** the terminal fault, if any (status / timeout / unauthorized / not_found) */
  terminal: ActiveFault | undefined;
  /** ids of every fault applied */
  applied: string[];
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`);
}

interface CompiledFault {
  active: ActiveFault;
  apis: RegExp[] | undefined;
  method: string | undefined;
  path: RegExp | undefined;
}

/** The set of faults of one simulator. */
export class FaultStore {
  private faults: CompiledFault[] = [];
  private seq = 0;

  /**
   * Validates and installs a fault.
   * @throws ValidationError (one line, naming the bad field) when the fault is malformed
   */
  add(input: unknown): ActiveFault {
    const parsed = faultSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue === undefined || issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.');
      const message = issue?.message ?? 'invalid';
      throw new ValidationError(`invalid fault: ${where}: ${message}`, [{ path: where, message }]);
    }
    const spec = parsed.data;
    if (spec.kind === 'status' && spec.status === undefined) {
      throw new ValidationError('invalid fault: status: required for kind "status"', [
        { path: 'status', message: 'required' },
      ]);
    }
    if (spec.kind === 'latency' && spec.ms === undefined) {
      throw new ValidationError('invalid fault: ms: required for kind "latency"', [
        { path: 'ms', message: 'required' },
      ]);
    }
    let pathRe: RegExp | undefined;
    if (spec.path !== undefined) {
      try {
        pathRe = new RegExp(spec.path);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new ValidationError(`invalid fault: path: ${message}`, [{ path: 'path', message }]);
      }
    }
    this.seq++;
    const active: ActiveFault = {
      id: spec.id ?? `fault-${this.seq}`,
      spec,
      hits: 0,
      seen: 0,
      remaining: spec.times ?? null,
    };
    const apis =
      spec.api === undefined ? undefined : (Array.isArray(spec.api) ? spec.api : [spec.api]).map(globToRegExp);
    this.faults.push({ active, apis, method: spec.method?.toUpperCase(), path: pathRe });
    return active;
  }

  /** Removes every fault. */
  clear(): void {
    this.faults = [];
  }

  /** The installed faults with their counters (copies). */
  list(): ActiveFault[] {
    return this.faults.map((f) => ({ ...f.active }));
  }

  /** Decides which faults apply to a request, and counts them. */
  decide(api: string, method: string, url: string): FaultDecision {
    const decision: FaultDecision = { latencyMs: 0, terminal: undefined, applied: [] };
    for (const f of this.faults) {
      const a = f.active;
      if (a.remaining === 0) continue;
      if (f.apis !== undefined && !f.apis.some((re) => re.test(api))) continue;
      if (f.method !== undefined && f.method !== method) continue;
      if (f.path !== undefined && !f.path.test(url)) continue;
      if (a.spec.kind !== 'latency' && decision.terminal !== undefined) continue;
      a.seen++;
      if (a.seen <= (a.spec.after ?? 0)) continue;
      a.hits++;
      if (a.remaining !== null) a.remaining--;
      decision.applied.push(a.id);
      if (a.spec.kind === 'latency') decision.latencyMs += a.spec.ms ?? 0;
      else decision.terminal = a;
    }
    return decision;
  }
}
