/**
 * What the catalog simulators (Databricks, Google) share: routes that log each request under an API
 * name, answer injected faults before anything else, and require `Authorization: Bearer {token}`;
 * plus the request log, per-API counts, and fault control. Each simulator keeps its own error
 * shapes: it says how a fault and a missing token become errors, and renders them in its own
 * error handler.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';

/** One request as the simulator saw it; `status` is filled in when the answer is sent. */
export interface SimulatorRequestLogEntry {
  method: string;
  path: string;
  api: string;
  status: number | null;
}

/** A fault: the next `times` (default 1) requests of `api` answer `status`, with an optional `Retry-After` in seconds. */
export interface SimulatorFault {
  api: string;
  status: number;
  times?: number | undefined;
  retry_after?: number | undefined;
}

export interface BearerApiHarnessOptions {
  /** The bearer token every request must carry. */
  token: string;
  /** Faults from the scenario. */
  faults: readonly SimulatorFault[];
  /** The error a fault is answered with (rendered by the simulator's error handler). */
  faultError(fault: SimulatorFault, api: string): Error;
  /** The error a request without the right token is answered with. */
  unauthorizedError(api: string): Error;
}

export interface BearerApiHarness {
  /** Registers a route under an API name, behind the fault and token checks. */
  route(
    method: HTTPMethods,
    url: string,
    api: string,
    handler: (request: FastifyRequest, reply: FastifyReply) => unknown,
  ): void;
  injectFault(fault: SimulatorFault): void;
  clearFaults(): void;
  requestLog(): SimulatorRequestLogEntry[];
  requestCounts(): Record<string, number>;
  resetRequestLog(): void;
}

/** Sets up the harness on `app` (adds an `onResponse` hook that records each answer's status). */
export function createBearerApiHarness(app: FastifyInstance, options: BearerApiHarnessOptions): BearerApiHarness {
  let faults = options.faults.map((fault) => ({ ...fault, remaining: fault.times ?? 1 }));
  let log: SimulatorRequestLogEntry[] = [];
  const entryOf = new WeakMap<FastifyRequest, SimulatorRequestLogEntry>();

  app.addHook('onResponse', async (request, reply) => {
    const entry = entryOf.get(request);
    if (entry) entry.status = reply.statusCode;
  });

  return {
    route(method, url, api, handler) {
      app.route({
        method,
        url,
        handler: async (request, reply) => {
          const entry: SimulatorRequestLogEntry = {
            method: String(method),
            path: request.url.split('?')[0] ?? request.url,
            api,
            status: null,
          };
          log.push(entry);
          entryOf.set(request, entry);
          const fault = faults.find((candidate) => candidate.api === api && candidate.remaining > 0);
          if (fault) {
            fault.remaining -= 1;
            throw options.faultError(fault, api);
          }
          if (request.headers.authorization !== `Bearer ${options.token}`) throw options.unauthorizedError(api);
          return handler(request, reply);
        },
      });
    },
    injectFault(fault) {
      faults.push({ ...fault, remaining: fault.times ?? 1 });
    },
    clearFaults() {
      faults = [];
    },
    requestLog: () => log.map((entry) => ({ ...entry })),
    requestCounts() {
      const counts: Record<string, number> = {};
      for (const entry of log) counts[entry.api] = (counts[entry.api] ?? 0) + 1;
      return counts;
    },
    resetRequestLog() {
      log = [];
    },
  };
}
