/**
 * The database outage scenario (issue 23, item 3), shared by `test/scaling/databaseOutage.test.ts`
 * (which asserts on what it reports) and `make soak` (`bench/soak.ts`, which prints it as a row):
 * two real `lineage-svc-api` processes share a private PostgreSQL (`test/helpers/privatePostgres.ts`:
 * its own data folder and port, so the machine's shared server is never touched), writers upsert
 * distinct nodes through both, and the server is stopped (`pg_ctl stop -m fast`) for at least
 * `outageMilliseconds`, then started again; the run then waits (up to `RECOVERY_DEADLINE_MILLISECONDS`)
 * for both replicas to be ready, and for writes acknowledged after the outage on both.
 */
import { createEventStore } from '../../infra/eventStore/createEventStore.js';
import { decodeTrustedEvent } from '../../src/events.js';
import { startPrivatePostgres } from '../helpers/privatePostgres.js';
import { testTopic } from '../helpers/sampleGraph.js';
import { eventually } from '../helpers/wait.js';
import { allEvents, startApiProcess, type ApiProcess } from './helpers.js';

/** The bound the issue sets on recovery once the database is back, in milliseconds. */
export const RECOVERY_DEADLINE_MILLISECONDS = 30_000;

/** One write's outcome. */
export interface OutageWrite {
  replica: number;
  /** The node's display name. */
  node: string;
  /** HTTP status, or 0 when the request itself failed (connection reset, timeout). */
  status: number;
  retryAfter: string | null;
  /** The problem type of the answer, when it was problem+json. */
  type: string | undefined;
  /** The phase of the run the write started in. */
  phase: 'before' | 'outage' | 'after';
}

/** What a run saw. */
export interface OutageReport {
  writes: OutageWrite[];
  /** The display names of the nodes acknowledged (200 or 201). */
  acknowledged: string[];
  /** The bodies of each replica's `/api/v1/ready` 503 during the outage. */
  notReadyBodies: string[];
  /** `/api/v1/health` statuses of both replicas during the outage. */
  livenessDuringOutage: number[];
  /** Milliseconds from the database's start to both replicas being ready. */
  readyAfterMilliseconds: number;
  /** The host, `:port`, `user@` and `/database` of the database URL (none may appear in `/ready`). */
  secrets: string[];
  /** Display names of the graph's nodes in the store, and as each replica lists them. */
  stored: string[];
  listed: string[][];
}

/** GET or POST with a deadline (a hung request is reported as status 0). */
async function send(url: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; text: string }> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(60_000) });
    return { status: response.status, headers: response.headers, text: await response.text() };
  } catch (error) {
    return { status: 0, headers: new Headers(), text: String(error) };
  }
}

/**
 * Runs the scenario with `writers` concurrent writers (writer `i` talks to replica `i % 2`).
 * @throws Error when a phase does not come (the database cannot be started, a replica never answers
 *   503 on `/ready` during the outage or never becomes ready again within the deadline), after
 *   printing the replicas' last output; call `privatePostgresSkipReason` first.
 */
export async function runDatabaseOutage(
  options: { outageMilliseconds?: number; writers?: number } = {},
): Promise<OutageReport> {
  const outageMilliseconds = options.outageMilliseconds ?? 5_000;
  const database = await startPrivatePostgres();
  const replicas: ApiProcess[] = [];
  try {
    const env = { LINEAGE_SVC_STORAGE__BACKEND: 'postgres', LINEAGE_SVC_STORAGE__URL: database.url };
    replicas.push(await startApiProcess(env), await startApiProcess(env));
    const created = await send(`${replicas[0]!.base}/api/v1/graphs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'outage' }),
    });
    if (created.status !== 201) throw new Error(`graph not created: ${created.status} ${created.text}`);
    const graphId = (JSON.parse(created.text) as { graph_id: string }).graph_id;

    let phase: OutageWrite['phase'] = 'before';
    let writing = true;
    const writes: OutageWrite[] = [];
    const writers = Array.from({ length: options.writers ?? 6 }, async (_, writer) => {
      const replica = writer % replicas.length;
      for (let index = 0; writing; index += 1) {
        const node = `w${writer}-n${index}`;
        const started = phase;
        const answer = await send(`${replicas[replica]!.base}/api/v1/graphs/${graphId}/nodes`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(testTopic(node)),
        });
        let type: string | undefined;
        try {
          type = (JSON.parse(answer.text) as { type?: string }).type;
        } catch {
          type = undefined;
        }
        writes.push({
          replica,
          node,
          status: answer.status,
          retryAfter: answer.headers.get('retry-after'),
          type,
          phase: started,
        });
        if (answer.status === 503) await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });
    const acknowledged = () => writes.filter((write) => write.status === 201 || write.status === 200);
    const onBoth = (holds: (write: OutageWrite) => boolean) =>
      [0, 1].every((replica) => writes.some((write) => write.replica === replica && holds(write))) ? true : undefined;

    let notReadyBodies: string[];
    const livenessDuringOutage: number[] = [];
    let readyAfterMilliseconds: number;
    try {
      await eventually('writes acknowledged on both replicas', () =>
        [0, 1].every((replica) => acknowledged().filter((write) => write.replica === replica).length >= 10)
          ? true
          : undefined,
      );
      database.stop();
      const stoppedAt = Date.now();
      phase = 'outage';
      notReadyBodies = await Promise.all(
        replicas.map((replica) =>
          eventually(
            `${replica.base} to answer 503 on /ready`,
            async () => {
              const ready = await send(`${replica.base}/api/v1/ready`);
              return ready.status === 503 ? ready.text : undefined;
            },
            { timeoutMs: 30_000, intervalMs: 100 },
          ),
        ),
      );
      await eventually(
        'writes refused with 503 on both replicas during the outage',
        () => onBoth((write) => write.phase === 'outage' && write.status === 503),
        { timeoutMs: 30_000 },
      );
      for (const replica of replicas) livenessDuringOutage.push((await send(`${replica.base}/api/v1/health`)).status);
      const remaining = outageMilliseconds - (Date.now() - stoppedAt);
      if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
      phase = 'after';
      database.start();
      const restartedAt = Date.now();
      await Promise.all(
        replicas.map((replica) =>
          eventually(
            `${replica.base} to be ready again`,
            async () => ((await send(`${replica.base}/api/v1/ready`)).status === 200 ? true : undefined),
            { timeoutMs: RECOVERY_DEADLINE_MILLISECONDS, intervalMs: 100 },
          ),
        ),
      );
      readyAfterMilliseconds = Date.now() - restartedAt;
      await eventually('writes acknowledged on both replicas after the outage', () =>
        onBoth((write) => write.phase === 'after' && (write.status === 201 || write.status === 200)),
      );
    } catch (error) {
      for (const replica of replicas) {
        const ready = await send(`${replica.base}/api/v1/ready`);
        console.log(`# ${replica.base} /ready ${ready.status} ${ready.text}`);
        console.log(`# ${replica.base} printed:\n${replica.output().split('\n').slice(-30).join('\n')}`);
      }
      console.log(
        `# last writes:\n${writes
          .slice(-5)
          .map((write) => JSON.stringify(write))
          .join('\n')}`,
      );
      throw error;
    } finally {
      writing = false;
      await Promise.all(writers);
    }

    const store = await createEventStore({ backend: 'postgres', path: '', url: database.url });
    let stored: string[];
    try {
      stored = (await allEvents(store))
        .map(decodeTrustedEvent)
        .flatMap((event) =>
          event.type === 'NodesAdded' && event.data.graph_id === graphId
            ? event.data.nodes.map((node) => node.display_name)
            : [],
        );
    } finally {
      await store.close();
    }
    const listed: string[][] = [];
    for (const replica of replicas) {
      const answer = await send(`${replica.base}/api/v1/graphs/${graphId}/nodes?limit=10000`);
      if (answer.status !== 200)
        throw new Error(`${replica.base} listed the nodes with ${answer.status}: ${answer.text}`);
      listed.push(
        (JSON.parse(answer.text) as { nodes: Array<{ display_name: string }> }).nodes.map((node) => node.display_name),
      );
    }
    const url = new URL(database.url);
    return {
      writes,
      acknowledged: acknowledged().map((write) => write.node),
      notReadyBodies,
      livenessDuringOutage,
      readyAfterMilliseconds,
      secrets: [url.hostname, `:${url.port}`, `${url.username}@`, url.pathname],
      stored,
      listed,
    };
  } finally {
    for (const replica of replicas) await replica.kill();
    database.remove();
  }
}
