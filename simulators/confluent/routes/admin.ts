/**
 * The simulator's own admin API under `/_simulator` (no credentials; never counted, never faulted):
 *
 * - `GET /_simulator/faults`: `{faults: [{id, spec, hits, seen, remaining}]}`
 * - `POST /_simulator/faults`: body: one fault or an array -> 201 `{faults: [...installed]}`; 400 `{error}`
 *   when malformed
 * - `DELETE /_simulator/faults`: removes every fault -> 204
 * - `GET /_simulator/requests`: `{counts: {api: n}, log: [...]}`
 * - `DELETE /_simulator/requests`: resets the request log and counts -> 204
 * - `PUT /_simulator/latency`: body `{latency_ms}` -> sets the global latency (ms)
 * - `GET /_simulator/health`: `{status: "ok"}`
 * - `GET /_simulator/scenario`: the scenario served now
 * - `POST /_simulator/scenario`: body: one scenario operation or an array (`../mutations.ts`) -> 200
 *   `{applied: n}`; 400 `{error}` when invalid (nothing changes)
 */
import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../../../src/errors.js';
import { parseScenarioOps } from '../mutations.js';
import type { PlatformSimulator } from '../server.js';

/** Registers the admin routes on the simulator's fastify instance. */
export function registerAdmin(app: FastifyInstance, simulator: PlatformSimulator): void {
  app.get('/_simulator/health', async () => ({ status: 'ok' }));
  app.get('/_simulator/faults', async () => ({ faults: simulator.faults() }));
  app.post('/_simulator/faults', async (request, reply) => {
    const body = request.body;
    const list = Array.isArray(body) ? body : [body];
    try {
      const installed = list.map((f) => simulator.injectFault(f as never));
      return await reply.code(201).send({ faults: installed });
    } catch (error) {
      if (error instanceof ValidationError) return reply.code(400).send({ error: error.message });
      throw error;
    }
  });
  app.delete('/_simulator/faults', async (_request, reply) => {
    simulator.clearFaults();
    return reply.code(204).send();
  });
  app.get('/_simulator/requests', async () => ({ counts: simulator.requestCounts(), log: simulator.requestLog() }));
  app.delete('/_simulator/requests', async (_request, reply) => {
    simulator.resetRequestLog();
    return reply.code(204).send();
  });
  app.get('/_simulator/scenario', async () => simulator.scenario);
  app.post('/_simulator/scenario', async (request, reply) => {
    try {
      const ops = parseScenarioOps(request.body);
      simulator.mutate(ops);
      return { applied: ops.length };
    } catch (error) {
      if (error instanceof ValidationError) return reply.code(400).send({ error: error.message });
      throw error;
    }
  });
  app.put('/_simulator/latency', async (request, reply) => {
    const ms = (request.body as { latency_ms?: unknown } | undefined)?.latency_ms;
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
      return reply.code(400).send({ error: 'latency_ms must be a non-negative number' });
    simulator.setLatency(ms);
    return { latency_ms: ms };
  });
}
