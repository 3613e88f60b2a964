/**
 * Kafka benchmark (issue 24), against a real Apache Kafka 3.9.1 broker the bench starts
 * (`infra/kafka/broker.ts`; skipped with a note without `java` and `mvn`):
 *
 * 1. **Ingest through Kafka** into the durable sqlite store, by the API's OpenLineage consumer in
 *    the API's process (in-process runtime and HTTP app, as `lineage-svc-api` wires them):
 *    - throughput: `events` RunEvents produced to the topic first, then the consumer started; events
 *      per second between its first and its last commit (the group's committed offset, read from
 *      the broker every 20 ms, so that watching costs the API process nothing), and until the
 *      projections had folded the last one (readable through the API); CPU time per event;
 *    - visibility: events produced while the consumer runs, paced at `liveRate` events/s in sends of
 *      500 (by default `sustainedLiveRate`: 60% of the rate the consumer just caught up at, at most
 *      20,000/s, so that what is measured is the delay at a rate it keeps up with, not a growing lag),
 *      once the backlog is folded; the last event of each send is looked up through `GET /api/v1/lineage/events/{run_id}`
 *      (one reader, oldest send first, every 5 ms until it answers); the time from the producer's
 *      acknowledgement to that answer, p50 and p99; the largest
 *      `lineage_svc_openlineage_kafka_consumer_lag` read on `/metrics` (every 200 ms) meanwhile.
 * 2. **HTTP batch ingest** beside it, the baseline: `POST /api/v1/lineage/events` with 1,000 events
 *    per request, one request after the other, on the same kind of store.
 * 3. **Publication** of `changes` graph changes (NodesAdded events over 100 graphs, written before)
 *    by `lineage-svc-api` child processes to Kafka and a webhook at once; the publishing process is
 *    SIGKILLed once a third arrived and another one takes over (lease 2 s). The receivers check
 *    order per graph key and count what was lost (must be 0) and sent twice.
 *
 * The events are produced by a process of its own (`bench/kafkaProducer.ts`), so that the API
 * process is measured alone, as in production.
 *
 * Run alone: `node --import tsx bench/kafka.ts` (prints the result as JSON); the ingest part alone on a
 * running broker: `KAFKA_BOOTSTRAP=127.0.0.1:PORT node --import tsx bench/kafka.ts ingest [events] [liveEvents] [liveRate]`.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { kafkaBrokerSkipReason, startKafkaBroker, type KafkaBroker } from '../infra/kafka/broker.js';
import { startOpenLineageConsumer } from '../infra/kafka/openLineageConsumer.js';
import { buildApp } from '../infra/http/app.js';
import { openRuntime } from '../infra/runtime.js';
import { loadConfig } from '../src/config.js';
import { decodeTrustedEvent, streams } from '../src/events.js';
import { createGraph, recordGraph } from '../src/graphCommands.js';
import { silentLogger } from '../src/logger.js';
import { toChangeEvent } from '../services/publisher.js';
import { createTopics } from '../test/kafka/helpers.js';
import { startBenchProducer, runEvent, uuidOf } from './kafkaProducer.js';
import { startApi, stopApi, type Child } from './mixedLoad.js';

/** What `benchKafka` measured (or why it could not). */
export interface KafkaBenchResult {
  skipped?: string;
  /** Events stored durably per second by the Kafka consumer (sqlite), catching up a produced backlog. */
  kafka_ingest_events_per_second?: number;
  /**
   * The same backlog, per second until the projections had folded it all (readable through the API):
   * from the first commit to the projector reaching the store's head.
   */
  kafka_ingest_visible_events_per_second?: number;
  /**
   * CPU time of the API's process (all its threads: event loop, prepare workers, sqlite append worker)
   * per event while catching up the backlog, in microseconds: less noisy than the rate on a shared machine.
   */
  kafka_ingest_cpu_microseconds_per_event?: number;
  /**
   * CPU time of the API's event loop thread alone per event meanwhile, in microseconds (Linux:
   * `/proc/self/task/{pid}/stat`, 10 ms ticks; absent elsewhere): what caps the rate once the other
   * threads have cores of their own.
   */
  kafka_ingest_event_loop_cpu_microseconds_per_event?: number;
  /** The rate events were produced at while visibility was measured (paced), events per second. */
  kafka_live_events_per_second?: number;
  /** Time from the producer's acknowledgement to the event answering through the API, in milliseconds. */
  kafka_visibility_p50_ms?: number;
  kafka_visibility_p99_ms?: number;
  /** Largest consumer lag read on /metrics while events were produced live, in messages. */
  kafka_max_lag_on_metrics?: number;
  /** Events stored per second through `POST /api/v1/lineage/events` (1,000 per request): the baseline. */
  http_ingest_events_per_second?: number;
  /** Publication across a SIGKILL of the publishing process. */
  publication?: {
    changes: number;
    seconds: number;
    changes_per_second: number;
    kafka_lost: number;
    kafka_duplicates: number;
    kafka_out_of_order_keys: number;
    webhook_lost: number;
    webhook_duplicates: number;
    webhook_out_of_order_keys: number;
  };
  note: string;
}

/** CPU time of this process's main thread in microseconds (Linux), or undefined. */
function eventLoopCpuMicroseconds(): number | undefined {
  try {
    // Fields 14 and 15 (utime, stime) in clock ticks, after the command name in parentheses.
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / 100;
  } catch {
    return undefined;
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/**
 * The default live rate of the visibility measurement: 60% of the rate the consumer caught up a
 * backlog at (`caughtUp`, events/s), in steps of 500, from 500 to 20,000 events/s.
 */
export function sustainedLiveRate(caughtUp: number): number {
  return Math.min(20_000, Math.max(500, Math.floor((0.6 * caughtUp) / 500) * 500));
}

/** Events per send of the live phase. */
const LIVE_SEND = 500;

/** A metric's value for the topic on a /metrics page, or undefined. */
function metric(text: string, name: string, topic: string): number | undefined {
  const match = new RegExp(`^${name}\\{topic="${topic}",partition="0"\\} (\\d+)$`, 'm').exec(text);
  return match ? Number(match[1]) : undefined;
}

/** Part 1 and 2: ingest through Kafka and through HTTP into sqlite. */
export async function benchIngest(
  broker: Pick<KafkaBroker, 'bootstrap'>,
  events: number,
  liveEvents: number,
  liveRate: number | undefined,
  prepareWorkers?: number,
) {
  const folder = mkdtempSync(join(tmpdir(), 'lineage-bench-kafka-'));
  const config = loadConfig({
    LINEAGE_SVC_STORAGE__BACKEND: 'sqlite',
    LINEAGE_SVC_STORAGE__PATH: folder,
    LINEAGE_SVC_API_RATE_LIMIT_PER_MINUTE: '0',
    LINEAGE_SVC_MIN_POLL_INTERVAL_SECONDS: '0.1',
  });
  const logger = silentLogger();
  const runtime = await openRuntime(config, logger);
  const app = await buildApp({ config, logger, runtime });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const kafka = new Kafka({ clientId: 'bench', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  const topic = `openlineage-bench-${randomUUID().slice(0, 8)}`;
  await createTopics(kafka, [{ topic }]);
  // The producer runs in a process of its own: the API process is measured alone, as in production.
  const producer = await startBenchProducer(broker.bootstrap, topic);
  const consumer = { stop: async () => undefined } as { stop(): Promise<void> };
  try {
    // Throughput: a backlog, then the consumer. Its progress is read from the broker (the group's
    // committed offset), so that watching costs the API process nothing.
    await producer.backlog(1, 0, events);
    const groupId = `bench-${topic}`;
    const watcher = kafka.admin();
    await watcher.connect();
    const committedOffset = async () => {
      const [entry] = await watcher.fetchOffsets({ groupId, topics: [topic] });
      return Math.max(0, Number(entry?.partitions[0]?.offset ?? -1));
    };
    const started = await startOpenLineageConsumer(
      {
        brokers: [broker.bootstrap],
        topic,
        groupId,
        deadLetterTopic: `${topic}.dlq`,
        sasl: null,
        ssl: false,
      },
      { ingestor: runtime.openLineageIngestor, ...(prepareWorkers === undefined ? {} : { prepareWorkers }) },
    );
    consumer.stop = () => started.stop();
    let first: { at: number; offset: number; cpu: NodeJS.CpuUsage; eventLoop: number | undefined } | undefined;
    let eventLoopCpu: number | undefined;
    let last = 0;
    let cpu: NodeJS.CpuUsage | undefined;
    for (;;) {
      const offset = await committedOffset();
      if (offset > 0 && !first)
        first = { at: performance.now(), offset, cpu: process.cpuUsage(), eventLoop: eventLoopCpuMicroseconds() };
      if (offset === events) {
        last = performance.now();
        cpu = process.cpuUsage(first!.cpu);
        const eventLoop = eventLoopCpuMicroseconds();
        if (eventLoop !== undefined && first!.eventLoop !== undefined) eventLoopCpu = eventLoop - first!.eventLoop;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await watcher.disconnect();
    // The projections fold on the same event loop, after the appends: the backlog is readable through
    // the API once they reach the store's head. The live phase starts then, so that it measures the
    // live path, not the end of the backlog's fold.
    const head = await runtime.store.headPosition();
    while (runtime.projector.position < head) await new Promise((resolve) => setTimeout(resolve, 5));
    const folded = performance.now();
    const ingestPerSecond = (events - first!.offset) / ((last - first!.at) / 1000);
    const visiblePerSecond = (events - first!.offset) / ((folded - first!.at) / 1000);
    const paced = liveRate ?? sustainedLiveRate(ingestPerSecond);
    const cpuPerEvent = (cpu!.user + cpu!.system) / (events - first!.offset);

    // Visibility: events produced live at `liveRate` events/s (sends of 500); one reader asks the API
    // for the last event of the oldest send not seen yet (a partition is folded in order, so the
    // events before it are visible too), every 5 ms while it is not. The consumer lag is read on
    // /metrics every 200 ms meanwhile.
    const latencies: number[] = [];
    const pending: Array<{ lastIndex: number; acked: number }> = [];
    let maxLag = 0;
    let producing = true;
    const lagSampler = (async () => {
      while (producing) {
        const lag = metric(
          await (await fetch(`${base}/metrics`)).text(),
          'lineage_svc_openlineage_kafka_consumer_lag',
          topic,
        );
        maxLag = Math.max(maxLag, lag ?? 0);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const reader = (async () => {
      while (producing || pending.length > 0) {
        const oldest = pending[0];
        if (oldest) {
          const response = await fetch(`${base}/api/v1/lineage/events/${uuidOf(2, oldest.lastIndex)}`);
          await response.arrayBuffer();
          if (response.status === 200) {
            latencies.push(performance.now() - oldest.acked);
            pending.shift();
            continue;
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const liveStarted = performance.now();
    await producer.live(2, 0, liveEvents, LIVE_SEND, paced, (lastIndex, acked) => pending.push({ lastIndex, acked }));
    const liveSeconds = (performance.now() - liveStarted) / 1000;
    producing = false;
    await Promise.all([reader, lagSampler]);
    latencies.sort((a, b) => a - b);

    // The baseline: HTTP batch ingest, 1,000 events per request.
    const httpEvents = Math.min(events, 50_000);
    const httpStarted = performance.now();
    for (let start = 0; start < httpEvents; start += 1000) {
      const body = JSON.stringify(Array.from({ length: 1000 }, (_, offset) => runEvent(3, start + offset)));
      const response = await fetch(`${base}/api/v1/lineage/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`HTTP ingest answered ${response.status}`);
    }
    const httpPerSecond = httpEvents / ((performance.now() - httpStarted) / 1000);
    return {
      kafka_ingest_events_per_second: ingestPerSecond,
      kafka_ingest_visible_events_per_second: visiblePerSecond,
      kafka_ingest_cpu_microseconds_per_event: cpuPerEvent,
      ...(eventLoopCpu === undefined
        ? {}
        : { kafka_ingest_event_loop_cpu_microseconds_per_event: eventLoopCpu / (events - first!.offset) }),
      kafka_live_events_per_second: liveEvents / liveSeconds,
      kafka_visibility_p50_ms: percentile(latencies, 50),
      kafka_visibility_p99_ms: percentile(latencies, 99),
      kafka_max_lag_on_metrics: maxLag,
      http_ingest_events_per_second: httpPerSecond,
    };
  } finally {
    await consumer.stop();
    await producer.stop();
    await app.close();
    await runtime.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Ids per key in first-arrival order, and the duplicates. */
function arrivals(received: ReadonlyArray<{ id: string; key: string }>) {
  const seen = new Set<string>();
  const perKey = new Map<string, string[]>();
  let duplicates = 0;
  for (const { id, key } of received) {
    if (seen.has(id)) {
      duplicates += 1;
      continue;
    }
    seen.add(id);
    perKey.set(key, [...(perKey.get(key) ?? []), id]);
  }
  return { perKey, duplicates, distinct: seen.size };
}

/** Lost changes and keys whose first arrivals are out of the store's order. */
function compare(expected: Map<string, string[]>, received: ReadonlyArray<{ id: string; key: string }>) {
  const { perKey, duplicates, distinct } = arrivals(received);
  let lost = 0;
  let outOfOrder = 0;
  for (const [key, ids] of expected) {
    const got = perKey.get(key) ?? [];
    const gotSet = new Set(got);
    lost += ids.filter((id) => !gotSet.has(id)).length;
    if (got.join() !== ids.filter((id) => gotSet.has(id)).join()) outOfOrder += 1;
  }
  return { lost, duplicates, outOfOrder, distinct };
}

/** Part 3: publication to Kafka and a webhook across a SIGKILL of the publishing process. */
export async function benchPublication(broker: KafkaBroker, changes: number) {
  const folder = mkdtempSync(join(tmpdir(), 'lineage-bench-publish-'));
  const env = { LINEAGE_SVC_STORAGE__BACKEND: 'sqlite', LINEAGE_SVC_STORAGE__PATH: folder };
  const runtime = await openRuntime(loadConfig(env), silentLogger());
  const topic = `lineage-svc-changes-bench-${randomUUID().slice(0, 8)}`;
  const webhook: Array<{ id: string; key: string }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      for (const event of JSON.parse(Buffer.concat(chunks).toString('utf8')) as Array<{ id: string; subject: string }>)
        webhook.push({ id: event.id, key: event.subject });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const kafka = new Kafka({ clientId: 'bench', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  await createTopics(kafka, [{ topic, numPartitions: 3 }]);
  const onTopic: Array<{ id: string; key: string }> = [];
  const reader = kafka.consumer({ groupId: `bench-reader-${topic}`, sessionTimeout: 6_000, rebalanceTimeout: 6_000 });
  await reader.connect();
  await reader.subscribe({ topic, fromBeginning: true });
  await reader.run({
    eachMessage: async ({ message }) => {
      onTopic.push({ id: JSON.parse(message.value!.toString('utf8')).id, key: message.key!.toString('utf8') });
    },
  });
  const children: Child[] = [];
  try {
    const graphs: string[] = [];
    for (let index = 0; index < 100; index += 1)
      graphs.push((await createGraph(runtime.commands, { name: `g${index}` }, { actor: 'bench' })).graphId);
    await Promise.all(
      graphs.map(async (graphId, at) => {
        for (let index = 0; index < changes / graphs.length; index += 1) {
          const name = `t${at}-${index}`;
          const node = {
            id: `stream:topic:env-bench:lkc-bench/${name}`,
            node_type: 'TOPIC',
            system: 'STREAM',
            qualified_name: `lkc-bench/${name}`,
            display_name: name,
            environment_id: 'env-bench',
            cluster_id: 'lkc-bench',
            attributes: {},
          };
          await recordGraph(
            runtime.commands,
            graphId,
            { nodes: [node] as never, edges: [] },
            { mode: 'merge' },
            { actor: 'bench' },
          );
        }
      }),
    );
    const expected = new Map<string, string[]>();
    for (let after = 0; ;) {
      const page = await runtime.store.readAll({ after, maxCount: 1000 });
      for (const recorded of page) {
        const change = toChangeEvent(decodeTrustedEvent(recorded));
        if (change) expected.set(String(change.subject), [...(expected.get(String(change.subject)) ?? []), change.id]);
      }
      if (page.length < 1000) break;
      after = page.at(-1)!.position;
    }
    const total = [...expected.values()].reduce((sum, ids) => sum + ids.length, 0);
    const childEnv = {
      ...env,
      LINEAGE_SVC_LEASE_SECONDS: '2',
      LINEAGE_SVC_PUBLISH_WEBHOOK_URL: `http://127.0.0.1:${port}/hook`,
      LINEAGE_SVC_PUBLISH_KAFKA_BROKERS: broker.bootstrap,
      LINEAGE_SVC_PUBLISH_KAFKA_TOPIC: topic,
    };
    const started = performance.now();
    children.push(await startApi(childEnv));
    const distinct = (list: ReadonlyArray<{ id: string }>) => new Set(list.map((entry) => entry.id)).size;
    while (distinct(webhook) < total / 3) await new Promise((resolve) => setTimeout(resolve, 5));
    children[0]!.process.kill('SIGKILL');
    children.push(await startApi(childEnv));
    while (distinct(webhook) < total || distinct(onTopic) < total)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const seconds = (performance.now() - started) / 1000;
    const claims = (await runtime.store.readStream(streams.publisherCheckpoint)).filter(
      (event) => event.type === 'PublisherClaimed',
    );
    if (claims.length < 2) throw new Error('the second process never claimed the publication');
    const kafkaSide = compare(expected, onTopic);
    const webhookSide = compare(expected, webhook);
    return {
      changes: total,
      seconds,
      changes_per_second: total / seconds,
      kafka_lost: kafkaSide.lost,
      kafka_duplicates: kafkaSide.duplicates,
      kafka_out_of_order_keys: kafkaSide.outOfOrder,
      webhook_lost: webhookSide.lost,
      webhook_duplicates: webhookSide.duplicates,
      webhook_out_of_order_keys: webhookSide.outOfOrder,
    };
  } finally {
    // The SIGKILLed child has exited already (its exitCode stays null: stopApi would wait for it).
    for (const child of children) if (child.process.signalCode === null) await stopApi(child).catch(() => undefined);
    await reader.disconnect();
    server.close();
    await runtime.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Runs the three parts on one broker (started and stopped here). */
export async function benchKafka(
  options: { events?: number; liveEvents?: number; liveRate?: number; changes?: number } = {},
): Promise<KafkaBenchResult> {
  const skipped = await kafkaBrokerSkipReason();
  if (skipped) return { skipped, note: 'no broker could be started' };
  const events = options.events ?? 200_000;
  const liveEvents = options.liveEvents ?? 100_000;
  const liveRate = options.liveRate;
  const changes = options.changes ?? 10_000;
  const broker = await startKafkaBroker({ heap: '1g' });
  try {
    const ingest = await benchIngest(broker, events, liveEvents, liveRate);
    const publication = await benchPublication(broker, changes);
    return {
      ...ingest,
      publication,
      note:
        `Apache Kafka 3.9.1 on 127.0.0.1, one partition; ${events} events backlog, ${liveEvents} produced live ` +
        `at ${ingest.kafka_live_events_per_second.toFixed(0)} events/s ` +
        `(500 per send), visibility sampled on the last event of each send; HTTP: 1,000 events per request; publication: ${changes} changes over 100 graphs, ` +
        'SIGKILL of the publishing lineage-svc-api after a third',
    };
  } finally {
    await broker.stop();
  }
}

if (process.argv[1] === import.meta.filename) {
  // `KAFKA_BOOTSTRAP=127.0.0.1:PORT node --import tsx bench/kafka.ts ingest [events] [liveEvents] [liveRate] [prepareWorkers]`:
  // the ingest part alone (default 200,000, 100,000, `sustainedLiveRate` and `defaultPrepareWorkers()`),
  // on a running broker (`make kafka`), e.g. under `--cpu-prof`.
  const bootstrap = process.env.KAFKA_BOOTSTRAP;
  const [events = 200_000, liveEvents = 100_000, liveRate, prepareWorkers] = process.argv.slice(3).map(Number);
  if (process.argv[2] === 'ingest' && bootstrap)
    console.log(
      JSON.stringify(await benchIngest({ bootstrap }, events, liveEvents, liveRate, prepareWorkers), null, 2),
    );
  else console.log(JSON.stringify(await benchKafka(), null, 2));
}
