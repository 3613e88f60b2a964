/**
 * The background subscriptions of a process outlive a store outage (issue 23, item 3), on a store
 * taken down and brought back (`test/helpers/faultyStore.ts`): the lease keeps renewing after an
 * outage shorter than the lease, and after a renewal whose answer was lost (committed, but answered
 * with an error); the change publisher retries with backoff and publishes every change once the store
 * is back. The projector's own recovery is in `test/projections/projectorListeners.test.ts`; two API
 * processes on a PostgreSQL that is stopped and started again in `databaseOutage.test.ts`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { createGraph, recordGraph } from '../../src/graphCommands.js';
import { streams } from '../../src/events.js';
import { silentLogger } from '../../src/logger.js';
import { openRuntime, type LineageRuntime } from '../../infra/runtime.js';
import { createProcessLease, newProcessIdentity } from '../../services/ownership.js';
import { startChangePublisher, type ChangeEvent, type ChangeSink } from '../../services/publisher.js';
import { faultyStore } from '../helpers/faultyStore.js';
import { eventually } from '../helpers/wait.js';
import { testTopic } from '../helpers/sampleGraph.js';

async function memoryRuntime(): Promise<LineageRuntime> {
  return openRuntime(loadConfig({ LINEAGE_SVC_STORAGE__BACKEND: 'memory' }), silentLogger());
}

/** The event types of the lease's stream, in order. */
async function leaseEvents(runtime: LineageRuntime, processId: string): Promise<string[]> {
  return (await runtime.store.readStream(streams.process(processId))).map((event) => event.type);
}

describe('the process lease across store failures', () => {
  it('keeps renewing after an outage shorter than the lease', async () => {
    const runtime = await memoryRuntime();
    const faulty = faultyStore(runtime.store);
    let lostCalls = 0;
    const lease = createProcessLease({
      store: faulty.store,
      processes: runtime.processes,
      projector: runtime.projector,
      logger: silentLogger(),
      identity: newProcessIdentity('api', 'test-host', 1),
      leaseSeconds: 3, // renewed every second
      onLost: () => (lostCalls += 1),
    });
    try {
      await lease.start();
      faulty.down = true;
      await eventually('a failed renewal', () => (faulty.failedCalls >= 1 ? true : undefined));
      faulty.down = false;
      const renewalsBefore = (await leaseEvents(runtime, lease.identity.processId)).length;
      await eventually('two renewals after the outage', async () =>
        (await leaseEvents(runtime, lease.identity.processId)).length >= renewalsBefore + 2 ? true : undefined,
      );
      assert.equal(lease.lost, false);
      assert.equal(lostCalls, 0);
    } finally {
      await lease.stop();
      await runtime.close();
    }
  });

  it('adopts a renewal that was committed although its answer was lost, instead of taking the next conflict for a lost lease', async () => {
    const runtime = await memoryRuntime();
    const faulty = faultyStore(runtime.store);
    const lease = createProcessLease({
      store: faulty.store,
      processes: runtime.processes,
      projector: runtime.projector,
      logger: silentLogger(),
      identity: newProcessIdentity('api', 'test-host', 2),
      leaseSeconds: 0.3, // renewed every 100 ms
    });
    try {
      await lease.start();
      faulty.lostAnswers = 1;
      await eventually('the ambiguous renewal', () => (faulty.lostAnswers === 0 ? true : undefined));
      const afterAmbiguous = (await leaseEvents(runtime, lease.identity.processId)).length;
      await eventually('three more renewals', async () =>
        (await leaseEvents(runtime, lease.identity.processId)).length >= afterAmbiguous + 3 ? true : undefined,
      );
      assert.equal(lease.lost, false, 'the lease is still held');
      const types = await leaseEvents(runtime, lease.identity.processId);
      assert.deepEqual(new Set(types), new Set(['ProcessStarted', 'ProcessLeaseRenewed']));
    } finally {
      await lease.stop();
      await runtime.close();
    }
  });
});

/** A sink that records what it is sent. */
function recordingSink(): ChangeSink & { received: ChangeEvent[] } {
  const received: ChangeEvent[] = [];
  return {
    name: 'recording',
    received,
    async send(batch) {
      received.push(...batch);
    },
    async close() {},
  };
}

/** Each change at its first arrival, in arrival order. */
function firstArrivals(received: readonly ChangeEvent[]): ChangeEvent[] {
  const seen = new Set<string>();
  return received.filter((change) => !seen.has(change.id) && seen.add(change.id));
}

describe('the change publisher across a store outage', () => {
  it('retries with backoff while the store is down and then publishes every change, in order', async () => {
    const runtime = await memoryRuntime();
    const faulty = faultyStore(runtime.store);
    const lease = createProcessLease({
      store: runtime.store,
      processes: runtime.processes,
      projector: runtime.projector,
      logger: silentLogger(),
      identity: newProcessIdentity('api', 'test-host', 3),
    });
    await lease.start();
    const sink = recordingSink();
    const publisher = startChangePublisher({
      store: faulty.store,
      lease,
      sink,
      logger: silentLogger(),
      idleMilliseconds: 10,
      failurePauseMilliseconds: 100,
    });
    try {
      const graphId = (await createGraph(runtime.commands, { name: 'g' }, { actor: 'test' })).graphId;
      await eventually('the graph published', () => (sink.received.length >= 1 ? true : undefined));
      faulty.down = true;
      const names = ['a', 'b', 'c'];
      for (const name of names) {
        // Appended through the working store: another process wrote them during this one's outage.
        await recordGraph(
          runtime.commands,
          graphId,
          {
            nodes: [testTopic(name)],
            edges: [],
          },
          { mode: 'merge' },
          { actor: 'test' },
        );
      }
      await eventually('several failed attempts', () => (publisher.failedAttempts >= 3 ? true : undefined));
      assert.equal(firstArrivals(sink.received).length, 1, 'nothing new sent while the store is down');
      faulty.down = false;
      await eventually('every change published', () => (firstArrivals(sink.received).length >= 4 ? true : undefined));
      // At least once: a change may arrive twice (a checkpoint that failed), never out of order or not at all.
      assert.deepEqual(
        firstArrivals(sink.received).map((change) => change.type),
        [
          'io.lineage-svc.graph.created.v1',
          'io.lineage-svc.nodes.added.v1',
          'io.lineage-svc.nodes.added.v1',
          'io.lineage-svc.nodes.added.v1',
        ],
      );
    } finally {
      await publisher.stop();
      await lease.stop();
      await runtime.close();
    }
  });
});
