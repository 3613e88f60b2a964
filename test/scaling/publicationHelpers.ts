/**
 * Shared parts of the publication tests (test/scaling/publication.test.ts, test/kafka/brokerRestart.test.ts):
 * nodes to add, a process lease, the changes the store holds per graph, and a reader of a topic that
 * checks they all arrived in order per graph.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Kafka } from 'kafkajs';
import { decodeTrustedEvent } from '../../src/events.js';
import { recordGraph } from '../../src/graphCommands.js';
import { silentLogger } from '../../src/logger.js';
import type { LineageRuntime } from '../../infra/runtime.js';
import { createProcessLease, newProcessIdentity, type ProcessLease } from '../../services/ownership.js';
import { toChangeEvent } from '../../services/publisher.js';
import { topicNode } from '../helpers/sampleGraph.js';
import { eventually } from '../helpers/wait.js';
import { allEvents } from './helpers.js';

/** The test estate's environment and cluster. */
export const ENV = 'env-q7m2k9';
export const CLUSTER = 'lkc-7x9m2p';

/** A topic node of the test cluster (partitions 3). */
export function topic(name: string) {
  return topicNode(ENV, CLUSTER, name, { partitions: 3 });
}

/** Adds node `name` to graph `graphId` (one NodesAdded event). */
export async function addNode(runtime: LineageRuntime, graphId: string, name: string): Promise<void> {
  await recordGraph(
    runtime.commands,
    graphId,
    { nodes: [topic(name)] as never, edges: [] },
    { mode: 'merge' },
    { actor: 'test' },
  );
}

/** A started process lease of `runtime` (the publisher publishes while it holds it). */
export async function leaseOf(runtime: LineageRuntime, leaseSeconds = 30): Promise<ProcessLease> {
  const lease = createProcessLease({
    store: runtime.store,
    processes: runtime.processes,
    projector: runtime.projector,
    logger: silentLogger(),
    identity: newProcessIdentity('api', 'test-host', process.pid),
    leaseSeconds,
  });
  await lease.start();
  return lease;
}

/** The positions of the published changes the store holds, per subject, in store order. */
export async function expectedPerSubject(runtime: LineageRuntime): Promise<Map<string, string[]>> {
  const expected = new Map<string, string[]>();
  for (const recorded of await allEvents(runtime.store)) {
    const change = toChangeEvent(decodeTrustedEvent(recorded));
    if (!change) continue;
    const list = expected.get(String(change.subject)) ?? [];
    list.push(change.id);
    expected.set(String(change.subject), list);
  }
  return expected;
}

/** Ids per subject in first-arrival order (duplicates dropped), and the number of duplicates. */
export function firstArrivals(received: ReadonlyArray<{ id: string; subject?: string | undefined }>) {
  const seen = new Set<string>();
  const perSubject = new Map<string, string[]>();
  let duplicates = 0;
  for (const event of received) {
    if (seen.has(event.id)) {
      duplicates += 1;
      continue;
    }
    seen.add(event.id);
    const list = perSubject.get(String(event.subject)) ?? [];
    list.push(event.id);
    perSubject.set(String(event.subject), list);
  }
  return { perSubject, duplicates };
}

/** Records every record of `topic` from its start: key, CloudEvent id and subject, in arrival order. */
export async function recordTopic(kafka: Kafka, topicName: string) {
  const received: Array<{ key: string; id: string; subject: string; partition: number }> = [];
  const consumer = kafka.consumer({
    groupId: `reader-${randomUUID()}`,
    sessionTimeout: 6_000,
    rebalanceTimeout: 6_000,
    // Its stop waits for the fetch in flight: 500 ms at most (kafkajs's default is 5 s).
    maxWaitTimeInMs: 500,
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: topicName, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message, partition }) => {
        const event = JSON.parse(message.value!.toString('utf8'));
        received.push({ key: message.key!.toString('utf8'), id: event.id, subject: event.subject, partition });
      },
    });
  } catch (error) {
    // A topic that does not exist yet: the connected reader would keep the test process alive.
    await consumer.disconnect();
    throw error;
  }
  return { received, stop: () => consumer.disconnect() };
}

/** Waits until `received` holds every published change of the store, in order per graph, and returns the duplicates. */
export async function everyChangeInOrder(
  runtime: LineageRuntime,
  received: ReadonlyArray<{ id: string; subject: string }>,
) {
  const expected = await expectedPerSubject(runtime);
  const total = [...expected.values()].reduce((sum, ids) => sum + ids.length, 0);
  await eventually(
    'every change on the topic',
    () => (new Set(received.map((record) => record.id)).size >= total ? true : undefined),
    {
      timeoutMs: 90_000,
    },
  );
  const { perSubject, duplicates } = firstArrivals(received);
  assert.deepEqual(perSubject, expected);
  return { total, duplicates };
}
