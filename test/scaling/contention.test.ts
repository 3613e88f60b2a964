/**
 * Writes under contention (issue 12, item 2): 20 concurrent writers each upsert 20 distinct nodes of
 * one graph over HTTP (`POST /api/v1/graphs/{id}/nodes`). Every one of the 400 requests succeeds, and
 * the graph ends with 400 nodes, on memory, file, sqlite and PostgreSQL in one process, and on sqlite
 * and PostgreSQL across two `lineage-svc-api` processes (writers alternate between them). A command
 * that names a stale expected revision is still refused with 409.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { ExpectedRevisionConflictError } from '../../src/errors.js';
import { recordGraph } from '../../src/graphCommands.js';
import { silentLogger } from '../../src/logger.js';
import { buildApp } from '../../infra/http/app.js';
import { openRuntime } from '../../infra/runtime.js';
import { postgresSkipReason, request, startApiProcess, storeTarget, type ApiProcess } from './helpers.js';

const WRITERS = 20;
const UPSERTS = 20;
const ENV = 'env-q7m2k9';
const CLUSTER = 'lkc-7x9m2p';
const postgresSkip = await postgresSkipReason();

function topic(writer: number, index: number) {
  const name = `w${writer}-t${index}`;
  return {
    id: `stream:topic:${ENV}:${CLUSTER}/${name}`,
    node_type: 'TOPIC',
    system: 'STREAM',
    qualified_name: `${CLUSTER}/${name}`,
    display_name: name,
    environment_id: ENV,
    cluster_id: CLUSTER,
    attributes: { partitions: 3 },
  };
}

/** Runs the writers against `bases` (writer i talks to `bases[i % bases.length]`); resolves with every status. */
async function contend(bases: string[], graphId: string): Promise<number[]> {
  const statuses: number[] = [];
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, writer) => {
      const base = bases[writer % bases.length]!;
      for (let index = 0; index < UPSERTS; index += 1) {
        const answer = await request(base, 'POST', `/api/v1/graphs/${graphId}/nodes`, topic(writer, index));
        statuses.push(answer.status);
      }
    }),
  );
  return statuses;
}

function summary(statuses: number[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describe('20 writers x 20 upserts of distinct nodes of one graph', () => {
  for (const backend of ['memory', 'file', 'sqlite', 'postgres'] as const) {
    it(
      `all succeed in one process on ${backend}`,
      { skip: backend === 'postgres' ? postgresSkip : false },
      async () => {
        const target = await storeTarget(backend);
        const config = loadConfig({ ...target.env, LINEAGE_SVC_LEASE_SECONDS: '30' });
        const runtime = await openRuntime(config, silentLogger());
        const app = await buildApp({ config, logger: silentLogger(), runtime });
        try {
          await app.listen({ port: 0, host: '127.0.0.1' });
          const address = app.server.address();
          assert.ok(address && typeof address === 'object');
          const base = `http://127.0.0.1:${address.port}`;
          const graph = await request(base, 'POST', '/api/v1/graphs', { name: 'contention' });
          assert.equal(graph.status, 201);
          const statuses = await contend([base], graph.body.graph_id);
          console.log(`# ${backend}, one process: ${JSON.stringify(summary(statuses))}`);
          assert.deepEqual(summary(statuses), { 201: WRITERS * UPSERTS });
          const nodes = await request(base, 'GET', `/api/v1/graphs/${graph.body.graph_id}/nodes?limit=1000`);
          assert.equal(nodes.body.total, WRITERS * UPSERTS);

          // A stale expected revision is a true conflict: 409, nothing recorded.
          const current = runtime.graphs.get(graph.body.graph_id)!.revision;
          await assert.rejects(
            recordGraph(
              runtime.commands,
              graph.body.graph_id,
              { nodes: [topic(99, 0) as never], edges: [] },
              { mode: 'merge', expectedRevision: current - 1 },
              { cause: 'api', actor: 'test' },
            ),
            (error: unknown) => error instanceof ExpectedRevisionConflictError && error.status === 409,
          );
          assert.equal(runtime.graphs.get(graph.body.graph_id)!.revision, current);
          const fresh = await recordGraph(
            runtime.commands,
            graph.body.graph_id,
            { nodes: [topic(99, 0) as never], edges: [] },
            { mode: 'merge', expectedRevision: current },
            { cause: 'api', actor: 'test' },
          );
          assert.equal(fresh.revision, current + 1);
        } finally {
          await app.close();
          await runtime.close();
          await target.remove();
        }
      },
    );
  }

  for (const backend of ['sqlite', 'postgres'] as const) {
    it(
      `all succeed across two lineage-svc-api processes on ${backend}`,
      { skip: backend === 'postgres' ? postgresSkip : false },
      async () => {
        const target = await storeTarget(backend);
        const children: ApiProcess[] = [];
        try {
          children.push(...(await Promise.all([startApiProcess(target.env), startApiProcess(target.env)])));
          const bases = children.map((child) => child.base);
          const graph = await request(bases[0]!, 'POST', '/api/v1/graphs', { name: 'contention' });
          assert.equal(graph.status, 201);
          const statuses = await contend(bases, graph.body.graph_id);
          console.log(`# ${backend}, two processes: ${JSON.stringify(summary(statuses))}`);
          assert.deepEqual(summary(statuses), { 201: WRITERS * UPSERTS });
          for (const base of bases) {
            // Each process reads its own writes; the other's arrive through its subscription.
            const nodes = await eventuallyTotal(base, graph.body.graph_id, WRITERS * UPSERTS);
            assert.equal(nodes, WRITERS * UPSERTS);
          }
        } finally {
          await Promise.all(children.map((child) => child.stop()));
          await target.remove();
        }
      },
    );
  }
});

async function eventuallyTotal(base: string, graphId: string, expected: number): Promise<number> {
  const { eventually } = await import('../helpers/wait.js');
  return eventually(`${expected} nodes in ${base}`, async () => {
    const nodes = await request(base, 'GET', `/api/v1/graphs/${graphId}/nodes?limit=1000`);
    return nodes.body.total === expected ? nodes.body.total : undefined;
  });
}
