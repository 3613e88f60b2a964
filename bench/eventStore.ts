/**
 * Event store benchmark: for each adapter, append N events (default 100,000) in batches (default
 * 1,000) of realistic `NodesAdded`-like events, then replay the whole store with `iterateAll`
 * (pages of 500, `iterateAll`'s default). The bench runner prints and records the rows; this module prints nothing.
 *
 * Adapters: memory, file and sqlite always (in temp dirs, removed afterwards); postgres when
 * `LINEAGE_SVC_TEST_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/test`) answers, in a
 * schema of its own that is dropped afterwards.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { iterateAll, type EventStore, type EventToAppend } from '../src/eventStore.js';
import { createFileEventStore } from '../infra/eventStore/fileEventStore.js';
import { createMemoryEventStore } from '../infra/eventStore/memoryEventStore.js';
import { createPostgresEventStore } from '../infra/eventStore/postgresEventStore.js';
import { createSqliteEventStore } from '../infra/eventStore/sqliteEventStore.js';

/** One adapter's result. Rates are per second of wall-clock time. */
export interface EventStoreBenchRow {
  /** `memory`, `file`, `sqlite` or `postgres`. */
  adapter: string;
  /** Events appended per second (batches of `batchSize`, each durable before the next starts). */
  appends_per_second: number;
  /** Events read back per second by a full `iterateAll` replay with its default pages (500): the median of three replays. */
  replay_events_per_second: number;
  /** Events appended and replayed. */
  events: number;
}

export interface EventStoreBenchOptions {
  /** Events to append. Default 100,000. */
  events?: number;
  /** Events per append. Default 1,000. */
  batchSize?: number;
  /** PostgreSQL to use; default `LINEAGE_SVC_TEST_POSTGRES_URL` or the local test database. */
  postgresUrl?: string;
}

/** A store to measure, and how to get rid of it. */
interface Subject {
  adapter: string;
  open(): Promise<{ store: EventStore; dispose(): Promise<void> }>;
}

const NODE_TYPES = ['TOPIC', 'CONSUMER_GROUP', 'CONNECTOR', 'SCHEMA', 'KSQL_QUERY', 'FLINK_JOB'] as const;

/** A realistic event: one node with the identity fields and ~8 attributes a NodesAdded carries. */
function nodesAdded(graphId: string, index: number): EventToAppend {
  const nodeType = NODE_TYPES[index % NODE_TYPES.length]!;
  const name = `orders.${['eu', 'us', 'apac'][index % 3]}.payments-${index}`;
  return {
    type: 'NodesAdded',
    version: 1,
    data: {
      graph_id: graphId,
      nodes: [
        {
          id: `${nodeType.toLowerCase()}:lkc-prod-01:${name}`,
          node_type: nodeType,
          system: 'confluent-cloud',
          qualified_name: `lkc-prod-01/${name}`,
          display_name: name,
          environment_id: 'env-7x9q2',
          cluster_id: 'lkc-prod-01',
          attributes: {
            partitions: 6 + (index % 12),
            replication_factor: 3,
            retention_ms: 604_800_000,
            cleanup_policy: index % 5 === 0 ? 'compact' : 'delete',
            owner: `team-${index % 17}`,
            tags: ['pii', 'tier-1'].slice(0, index % 3),
            created_at: '2025-06-01T12:00:00.000Z',
            schema_subject: `${name}-value`,
          },
        },
      ],
    },
    metadata: {
      event_id: randomUUID(),
      correlation_id: `bench-${Math.floor(index / 1000)}`,
      actor: 'bench',
      cause: 'extraction',
    },
  };
}

async function measure(subject: Subject, events: number, batchSize: number): Promise<EventStoreBenchRow> {
  const streams = 10;
  const batches: Array<{ stream: string; events: EventToAppend[] }> = [];
  for (let start = 0; start < events; start += batchSize) {
    const stream = `graph-bench-${batches.length % streams}`;
    batches.push({
      stream,
      events: Array.from({ length: Math.min(batchSize, events - start) }, (_, i) => nodesAdded(stream, start + i)),
    });
  }
  const { store, dispose } = await subject.open();
  try {
    const revisions = new Map<string, number>();
    const appendStart = performance.now();
    for (const batch of batches) {
      const result = await store.append(batch.stream, batch.events, {
        expectedRevision: revisions.get(batch.stream) ?? 'no_stream',
      });
      revisions.set(batch.stream, result.next_expected_revision);
    }
    const appendSeconds = (performance.now() - appendStart) / 1000;
    // The appended events are garbage now: collect them (when --expose-gc allows) so the replay
    // is not charged for the append phase's heap.
    batches.length = 0;
    (globalThis as { gc?: () => void }).gc?.();

    // Three full replays, the median reported: a single replay's rate swings with where the
    // collector happens to run (108k to 230k events/s seen on sqlite here).
    const replayRates: number[] = [];
    let replayed = 0;
    for (let round = 0; round < 3; round += 1) {
      (globalThis as { gc?: () => void }).gc?.();
      replayed = 0;
      const replayStart = performance.now();
      for await (const event of iterateAll(store)) {
        if (event.position !== replayed + 1)
          throw new Error(`${subject.adapter}: replay saw position ${event.position} after ${replayed}`);
        replayed += 1;
      }
      replayRates.push(replayed / ((performance.now() - replayStart) / 1000));
    }
    const replayRate = replayRates.sort((a, b) => a - b)[1]!;
    if (replayed !== events) throw new Error(`${subject.adapter}: replayed ${replayed} of ${events} events`);
    return {
      adapter: subject.adapter,
      appends_per_second: Math.round(events / appendSeconds),
      replay_events_per_second: Math.round(replayRate),
      events,
    };
  } finally {
    await dispose();
  }
}

function inTempDir(adapter: string, create: (dir: string) => EventStore): Subject {
  return {
    adapter,
    async open() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), `lineage-svc-bench-${adapter}-`));
      const store = create(dir);
      return {
        store,
        async dispose() {
          await store.close();
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

/** The postgres subject, or undefined when the server does not answer. */
async function postgresSubject(url: string): Promise<Subject | undefined> {
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  admin.on('error', () => undefined);
  try {
    await admin.connect();
  } catch {
    await admin.end().catch(() => undefined);
    return undefined;
  }
  return {
    adapter: 'postgres',
    async open() {
      const schema = `lineage_bench_${randomUUID().replaceAll('-', '')}`;
      await admin.query(`CREATE SCHEMA ${schema}`);
      const withSchema = new URL(url);
      withSchema.searchParams.set('options', `-c search_path=${schema}`);
      try {
        const store = await createPostgresEventStore({ url: withSchema.toString() });
        return {
          store,
          async dispose() {
            try {
              await store.close();
            } finally {
              await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
              await admin.end();
            }
          },
        };
      } catch (error) {
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await admin.end();
        throw error;
      }
    },
  };
}

/**
 * Measures every available adapter, one after the other.
 * @returns one row per adapter, in the order memory, file, sqlite, postgres (when reachable).
 * @throws Error when a replay does not return exactly what was appended.
 */
export async function benchEventStores(options: EventStoreBenchOptions = {}): Promise<EventStoreBenchRow[]> {
  const events = options.events ?? 100_000;
  const batchSize = options.batchSize ?? 1000;
  const subjects: Subject[] = [
    {
      adapter: 'memory',
      async open() {
        const store = createMemoryEventStore();
        return { store, dispose: () => store.close() };
      },
    },
    inTempDir('file', (dir) => createFileEventStore({ path: dir })),
    inTempDir('sqlite', (dir) => createSqliteEventStore({ path: dir })),
  ];
  const postgres = await postgresSubject(
    options.postgresUrl ?? process.env.LINEAGE_SVC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  );
  if (postgres !== undefined) subjects.push(postgres);
  const rows: EventStoreBenchRow[] = [];
  for (const subject of subjects) rows.push(await measure(subject, events, batchSize));
  return rows;
}
