/**
 * Publication of lineage changes as CloudEvents (issue 12, item 3; `services/publisher.ts`,
 * `infra/publish/`):
 *
 * - the mapping: one `type` per change kind, `subject` = graph id, the store's event id as `id`,
 *   versioned `data`; tasks and leases are not published;
 * - the publisher: checkpointed in `publisher-checkpoint`, a new process resumes where the stopped one
 *   left off, a failing sink loses nothing (the batch is sent again), one publisher at a time;
 * - the webhook sink against a real HTTP receiver on 127.0.0.1: HMAC-SHA256 signature (Standard
 *   Webhooks headers), retries with backoff after 503, no retry after 400;
 * - with real processes on sqlite: the publishing `lineage-svc-api` is SIGKILLed in the middle of a
 *   stream of changes and another one started: every change arrives at least once at the receiver,
 *   in order per graph;
 * - Kafka, against a real Apache Kafka broker (`infra/kafka/broker.ts`; skipped with a message without
 *   `java` and `mvn`): records keyed by graph id, in order, across a failover between two API
 *   processes; the errors a user meets (brokers down, wrong password, no ACL). The sink across a
 *   broker restart is in test/kafka/brokerRestart.test.ts (a broker of its own).
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { describe, it } from 'node:test';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { loadConfig } from '../../src/config.js';
import { createGraph } from '../../src/graphCommands.js';
import { decodeTrustedEvent, streams } from '../../src/events.js';
import { silentLogger } from '../../src/logger.js';
import { openRuntime, type LineageRuntime } from '../../infra/runtime.js';
import { createKafkaSink } from '../../infra/publish/kafkaSink.js';
import { createWebhookSink, verifyWebhookSignature, webhookSignature } from '../../infra/publish/webhookSink.js';
import {
  CHANGE_TYPES,
  startChangePublisher,
  toChangeEvent,
  type ChangeEvent,
  type ChangeSink,
} from '../../services/publisher.js';
import { eventually } from '../helpers/wait.js';
import { freePort, OUTSIDER_USER, SASL_USER } from '../../infra/kafka/broker.js';
import { kafkaClient, kafkaSkip, recordingLogger, useKafkaBroker } from '../kafka/helpers.js';
import { allEvents, processIdOf, startApiProcess, storeTarget, type ApiProcess } from './helpers.js';
import {
  addNode,
  everyChangeInOrder,
  expectedPerSubject,
  firstArrivals,
  leaseOf,
  recordTopic,
  topic,
} from './publicationHelpers.js';

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

/** Verifies a request with the reference implementation (the `standardwebhooks` package); throws WebhookVerificationError. */
function verifyWithReference(secret: string, body: string, headers: IncomingMessage['headers']): void {
  const named = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;
  new Webhook(secret).verify(body, Object.fromEntries(named.map((name) => [name, String(headers[name])])));
}

/** A sink that records what it is sent; `failures` sends fail first. */
function recordingSink(failures = 0): ChangeSink & { received: ChangeEvent[]; attempts: number } {
  const sink = {
    name: 'recording',
    received: [] as ChangeEvent[],
    attempts: 0,
    async send(batch: readonly ChangeEvent[]) {
      sink.attempts += 1;
      if (sink.attempts <= failures) throw new Error('sink down');
      sink.received.push(...batch);
    },
    async close() {},
  };
  return sink;
}

describe('CloudEvents of lineage changes', () => {
  it('maps each change kind to a type, the graph to the subject, and skips tasks and leases', async () => {
    const runtime = await openRuntime(loadConfig({ LINEAGE_SVC_STORAGE__BACKEND: 'memory' }), silentLogger());
    try {
      const lease = await leaseOf(runtime);
      const created = await createGraph(runtime.commands, { name: 'g' }, { actor: 'test' });
      await addNode(runtime, created.graphId, 'orders');
      const events = await allEvents(runtime.store);
      const changes = events.map((event) => toChangeEvent(decodeTrustedEvent(event), '/test'));
      assert.equal(changes.filter(Boolean).length, 2);
      assert.equal(changes[events.findIndex((event) => event.type === 'ProcessStarted')], undefined);
      const added = changes.find((change) => change?.type === CHANGE_TYPES.NodesAdded)!;
      const stored = events.find((event) => event.type === 'NodesAdded')!;
      assert.equal(added.specversion, '1.0');
      assert.equal(added.type, 'io.lineage-svc.nodes.added.v1');
      assert.equal(added.source, '/test');
      assert.equal(added.subject, created.graphId);
      assert.equal(added.id, stored.metadata.event_id);
      assert.equal(added.time, stored.recorded_at);
      assert.equal(added.datacontenttype, 'application/json');
      assert.equal(added.data!.data_version, 1);
      assert.deepEqual(
        (added.data!.nodes as Array<{ id: string }>).map((node) => node.id),
        [topic('orders').id],
      );
      assert.equal(added.lineageposition, stored.position);
      await lease.stop();
    } finally {
      await runtime.close();
    }
  });
});

describe('the change publisher', () => {
  it('checkpoints in the store; a new process resumes after the checkpoint; a failing sink loses nothing', async () => {
    const runtime = await openRuntime(loadConfig({ LINEAGE_SVC_STORAGE__BACKEND: 'memory' }), silentLogger());
    try {
      const graph = (await createGraph(runtime.commands, { name: 'g' }, { actor: 'test' })).graphId;
      const firstLease = await leaseOf(runtime);
      const first = recordingSink(2);
      const publisher = startChangePublisher({
        store: runtime.store,
        lease: firstLease,
        sink: first,
        logger: silentLogger(),
        failurePauseMilliseconds: 10,
        idleMilliseconds: 10,
      });
      for (let index = 0; index < 5; index += 1) await addNode(runtime, graph, `a${index}`);
      await eventually('the first five changes', () => (first.received.length >= 6 ? true : undefined));
      await eventually('a checkpoint', async () => {
        const checkpoints = (await runtime.store.readStream(streams.publisherCheckpoint)).filter(
          (event) => event.type === 'PublisherCheckpointed',
        );
        return checkpoints.length > 0 &&
          (checkpoints.at(-1)!.data as { position: number }).position >= (await runtime.store.headPosition()) - 1
          ? true
          : undefined;
      });
      await publisher.stop();
      await firstLease.stop();
      assert.equal(first.attempts > 2, true, 'the failing sends were retried');

      for (let index = 0; index < 5; index += 1) await addNode(runtime, graph, `b${index}`);
      const secondLease = await leaseOf(runtime);
      const second = recordingSink();
      const resumed = startChangePublisher({
        store: runtime.store,
        lease: secondLease,
        sink: second,
        logger: silentLogger(),
        idleMilliseconds: 10,
      });
      await eventually('the next five changes', () => (second.received.length >= 5 ? true : undefined));
      await resumed.stop();
      // The second publisher started after the checkpoint: it sent the new changes, not the old ones again.
      assert.deepEqual(
        second.received.map((change) => (change.data!.nodes as Array<{ display_name: string }>)[0]!.display_name),
        ['b0', 'b1', 'b2', 'b3', 'b4'],
      );
      const expected = await expectedPerSubject(runtime);
      const { perSubject } = firstArrivals([...first.received, ...second.received]);
      assert.deepEqual(perSubject, expected);
      const claims = (await runtime.store.readStream(streams.publisherCheckpoint)).filter(
        (event) => event.type === 'PublisherClaimed',
      );
      assert.deepEqual(
        claims.map((event) => (event.data as { process_id: string }).process_id),
        [firstLease.identity.processId, secondLease.identity.processId],
      );
      await secondLease.stop();
    } finally {
      await runtime.close();
    }
  });

  it('publishes from one process at a time', async () => {
    const runtime = await openRuntime(loadConfig({ LINEAGE_SVC_STORAGE__BACKEND: 'memory' }), silentLogger());
    try {
      const graph = (await createGraph(runtime.commands, { name: 'g' }, { actor: 'test' })).graphId;
      const leases = [await leaseOf(runtime), await leaseOf(runtime)];
      const sinks = [recordingSink(), recordingSink()];
      const publishers = leases.map((lease, index) =>
        startChangePublisher({
          store: runtime.store,
          lease,
          sink: sinks[index]!,
          logger: silentLogger(),
          idleMilliseconds: 10,
        }),
      );
      for (let index = 0; index < 10; index += 1) await addNode(runtime, graph, `n${index}`);
      await eventually('every change published', () =>
        sinks[0]!.received.length + sinks[1]!.received.length >= 11 ? true : undefined,
      );
      assert.equal(sinks.filter((sink) => sink.received.length > 0).length, 1);
      assert.equal(publishers.filter((publisher) => publisher.publishing).length, 1);
      for (const publisher of publishers) await publisher.stop();
      for (const lease of leases) await lease.stop();
    } finally {
      await runtime.close();
    }
  });
});

/** An HTTP receiver on 127.0.0.1: records every request; `answer` decides the status of each. */
async function receiver(answer: (index: number) => number = () => 200) {
  const requests: Array<{ headers: IncomingMessage['headers']; body: string; status: number }> = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const status = answer(requests.length);
      requests.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  return {
    url: `http://127.0.0.1:${address.port}/hooks/lineage`,
    requests,
    /** The CloudEvents of the acknowledged requests, in arrival order. */
    delivered(): Array<{ id: string; subject?: string; type: string }> {
      return requests.filter((entry) => entry.status === 200).flatMap((entry) => JSON.parse(entry.body));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('the webhook sink', () => {
  async function someChanges(): Promise<ChangeEvent[]> {
    const runtime = await openRuntime(loadConfig({ LINEAGE_SVC_STORAGE__BACKEND: 'memory' }), silentLogger());
    try {
      const graph = (await createGraph(runtime.commands, { name: 'g' }, { actor: 'test' })).graphId;
      await addNode(runtime, graph, 'orders');
      return (await allEvents(runtime.store)).flatMap((event) => toChangeEvent(decodeTrustedEvent(event)) ?? []);
    } finally {
      await runtime.close();
    }
  }

  it('signs each batch with HMAC-SHA256 and retries with backoff after 503', async () => {
    const hook = await receiver((index) => (index < 2 ? 503 : 200));
    try {
      const batch = await someChanges();
      const retries: number[] = [];
      const sink = createWebhookSink({
        url: hook.url,
        secret: SECRET,
        retry: { minTimeoutMilliseconds: 5, maxTimeoutMilliseconds: 20 },
        onRetry: (_error, attempt) => retries.push(attempt),
      });
      await sink.send(batch);
      assert.deepEqual(
        hook.requests.map((entry) => entry.status),
        [503, 503, 200],
      );
      assert.deepEqual(retries, [1, 2]);
      const last = hook.requests[2]!;
      assert.equal(last.headers['content-type'], 'application/cloudevents-batch+json; charset=utf-8');
      const [id, timestamp, signature] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map(
        (name) => last.headers[name] as string,
      );
      assert.ok(verifyWebhookSignature(SECRET, id!, timestamp!, last.body, signature!));
      const another = `whsec_${randomBytes(32).toString('base64')}`;
      assert.ok(!verifyWebhookSignature(another, id!, timestamp!, last.body, signature!));
      assert.ok(!verifyWebhookSignature(SECRET, id!, timestamp!, `${last.body} `, signature!));
      // The reference verifier of the Standard Webhooks specification accepts it, and only it.
      verifyWithReference(SECRET, last.body, last.headers);
      assert.throws(() => verifyWithReference(another, last.body, last.headers), WebhookVerificationError);
      assert.throws(() => verifyWithReference(SECRET, `${last.body} `, last.headers), WebhookVerificationError);
      assert.deepEqual(
        JSON.parse(last.body).map((event: { id: string }) => event.id),
        batch.map((event) => event.id),
      );
      // The same batch keeps its webhook-id on every attempt (receivers deduplicate on it too).
      assert.equal(new Set(hook.requests.map((entry) => entry.headers['webhook-id'])).size, 1);
    } finally {
      await hook.close();
    }
  });

  it('refuses a secret that is not a Standard Webhooks secret, saying how to make one', () => {
    for (const secret of ['a-webhook-secret', 'whsec_c2hvcnQ=', `whsec_${randomBytes(65).toString('base64')}`])
      assert.throws(
        () => createWebhookSink({ url: 'http://127.0.0.1:9/hook', secret }),
        /must be a Standard Webhooks secret: whsec_ followed by the base64 of 24 to 64 random bytes/,
      );
    // With or without its prefix, the same key signs the same way.
    const bare = SECRET.slice('whsec_'.length);
    assert.equal(webhookSignature(bare, 'i', '1', 'b'), webhookSignature(SECRET, 'i', '1', 'b'));
    assert.equal(webhookSignature(SECRET, 'i', '1', 'b'), new Webhook(SECRET).sign('i', new Date(1000), 'b'));
  });

  it('does not retry a 400 (the publisher sends the batch again later)', async () => {
    const hook = await receiver(() => 400);
    try {
      const sink = createWebhookSink({
        url: hook.url,
        retry: { minTimeoutMilliseconds: 5, maxTimeoutMilliseconds: 20 },
      });
      await assert.rejects(sink.send(await someChanges()), /webhook answered 400/);
      assert.equal(hook.requests.length, 1);
      assert.equal(hook.requests[0]!.headers['webhook-signature'], undefined);
    } finally {
      await hook.close();
    }
  });
});

describe('publication across a crash (real processes, sqlite)', () => {
  it('delivers every change at least once, in order per graph, when the publisher is killed and another started', async () => {
    const hook = await receiver();
    const target = await storeTarget('sqlite');
    const config = loadConfig(target.env);
    const runtime = await openRuntime(config, silentLogger());
    const children: ApiProcess[] = [];
    const env = {
      ...target.env,
      LINEAGE_SVC_LEASE_SECONDS: '2',
      LINEAGE_SVC_PUBLISH_WEBHOOK_URL: hook.url,
      LINEAGE_SVC_PUBLISH_WEBHOOK_SECRET: SECRET,
    };
    try {
      const graphs: string[] = [];
      for (const name of ['a', 'b', 'c'])
        graphs.push((await createGraph(runtime.commands, { name }, { actor: 'test' })).graphId);
      const first = await startApiProcess(env);
      children.push(first);
      let written = 0;
      const write = async (count: number) => {
        for (let index = 0; index < count; index += 1, written += 1) {
          await addNode(runtime, graphs[written % graphs.length]!, `n${written}`);
        }
      };
      await write(30);
      await eventually('some changes at the receiver', () => (hook.delivered().length >= 10 ? true : undefined));
      await first.kill();
      await write(30); // while no one publishes
      const second = await startApiProcess(env);
      children.push(second);
      await write(30);
      const expected = await expectedPerSubject(runtime);
      const total = [...expected.values()].reduce((sum, ids) => sum + ids.length, 0);
      await eventually(
        'every change at the receiver',
        () =>
          firstArrivals(hook.delivered()).perSubject.size === expected.size &&
          [...firstArrivals(hook.delivered()).perSubject.values()].reduce((sum, ids) => sum + ids.length, 0) >= total
            ? true
            : undefined,
        { timeoutMs: 60_000 },
      );
      const { perSubject, duplicates } = firstArrivals(hook.delivered());
      // Every change, and in each graph in the store's order.
      assert.deepEqual(perSubject, expected);
      console.log(
        `# publication across a crash: ${total} changes, ${duplicates} delivered twice, ${hook.requests.length} requests`,
      );
      for (const entry of hook.requests) verifyWithReference(SECRET, entry.body, entry.headers);
      const claims = (await runtime.store.readStream(streams.publisherCheckpoint)).filter(
        (event) => event.type === 'PublisherClaimed',
      );
      assert.equal(claims.length, 2, 'the first process, then the second after the first one’s lease expired');
    } finally {
      await Promise.all(children.map((child) => child.kill()));
      await runtime.close();
      await hook.close();
      await target.remove();
    }
  });
});

const kafkaSkipReason = await kafkaSkip();
const broker = useKafkaBroker(kafkaSkipReason);

describe('the Kafka sink against a real broker', { skip: kafkaSkipReason }, () => {
  it('fails over between two API processes sharing a store: every change on the topic, in order per graph', async () => {
    const topicName = `lineage-svc-changes-${randomUUID()}`;
    const target = await storeTarget('sqlite');
    const runtime = await openRuntime(loadConfig(target.env), silentLogger());
    const env = {
      ...target.env,
      LINEAGE_SVC_LEASE_SECONDS: '2',
      LINEAGE_SVC_PUBLISH_KAFKA_BROKERS: broker().bootstrap,
      LINEAGE_SVC_PUBLISH_KAFKA_TOPIC: topicName,
    };
    const children: ApiProcess[] = [];
    // Read from the start; when the topic does not exist yet, a reader is started once it does.
    let reader = await recordTopic(kafkaClient(broker()), topicName).catch(() => undefined);
    try {
      const graphs: string[] = [];
      for (const name of ['a', 'b', 'c'])
        graphs.push((await createGraph(runtime.commands, { name }, { actor: 'test' })).graphId);
      children.push(await startApiProcess(env), await startApiProcess(env));
      let written = 0;
      const write = async (count: number) => {
        for (let index = 0; index < count; index += 1, written += 1)
          await addNode(runtime, graphs[written % graphs.length]!, `n${written}`);
      };
      await write(30);
      const claimedBy = async () =>
        (await runtime.store.readStream(streams.publisherCheckpoint))
          .filter((event) => event.type === 'PublisherClaimed')
          .map((event) => (event.data as { process_id: string; pid?: number }).process_id);
      await eventually('a publisher claim', async () => ((await claimedBy()).length > 0 ? true : undefined), {
        timeoutMs: 60_000,
      });
      const holder = await holderChild(runtime, children);
      await holder.kill();
      await write(30);
      await eventually('the other process to claim', async () => ((await claimedBy()).length >= 2 ? true : undefined), {
        timeoutMs: 60_000,
      });
      await write(30);
      reader ??= await recordTopic(kafkaClient(broker()), topicName);
      const { total, duplicates } = await everyChangeInOrder(runtime, reader.received);
      console.log(`# Kafka publication failover: ${total} changes, ${duplicates} sent twice`);
    } finally {
      await reader?.stop();
      await Promise.all(children.map((child) => child.kill()));
      await runtime.close();
      await target.remove();
    }
  });

  it('says why it cannot publish: brokers down at start, a wrong password, no right on the topic', async () => {
    const port = await freePort();
    const tls = { ca: [broker().certificatePem] };
    const cases = [
      {
        options: { brokers: [`127.0.0.1:${port}`] },
        error: /^Kafka brokers unreachable: .*ECONNREFUSED.*; check LINEAGE_SVC_PUBLISH_KAFKA_BROKERS/,
      },
      {
        options: {
          brokers: [broker().saslBootstrap],
          ssl: true,
          tls,
          sasl: { mechanism: 'plain' as const, username: SASL_USER.username, password: 'wrong-password' },
        },
        error: /^Kafka authentication failed: .*; check LINEAGE_SVC_PUBLISH_KAFKA_SASL_MECHANISM/,
      },
      {
        options: {
          brokers: [broker().saslBootstrap],
          ssl: true,
          tls,
          sasl: { mechanism: 'plain' as const, ...OUTSIDER_USER },
        },
        error: /^Kafka refused (access to topic|a cluster operation)/,
      },
    ];
    const runtime = await openRuntime(loadConfig({ LINEAGE_SVC_STORAGE__BACKEND: 'memory' }), silentLogger());
    try {
      const graph = (await createGraph(runtime.commands, { name: 'g' }, { actor: 'test' })).graphId;
      await addNode(runtime, graph, 'orders');
      const batch = (await allEvents(runtime.store)).flatMap((event) => toChangeEvent(decodeTrustedEvent(event)) ?? []);
      for (const { options, error } of cases) {
        const sink = await createKafkaSink({ topic: `lineage-svc-changes-${randomUUID()}`, ...options });
        await assert.rejects(sink.send(batch), { message: error });
        // And again: the next send connects anew and fails the same way (nothing stalls).
        await assert.rejects(sink.send(batch), { message: error });
        await sink.close();
      }
    } finally {
      await runtime.close();
    }
  });
});

/** The child whose process holds the publisher claim (the last `PublisherClaimed`), by its pid. */
async function holderChild(runtime: LineageRuntime, children: ApiProcess[]): Promise<ApiProcess> {
  const claims = (await runtime.store.readStream(streams.publisherCheckpoint)).filter(
    (event) => event.type === 'PublisherClaimed',
  );
  const processId = (claims.at(-1)!.data as { process_id: string }).process_id;
  for (const child of children) if ((await processIdOf(runtime.store, child.pid)) === processId) return child;
  throw new Error(`no child holds the claim of ${processId}`);
}
