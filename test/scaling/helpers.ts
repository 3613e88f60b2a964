/**
 * Helpers of the several-processes tests (issue 12): real `lineage-svc-api` child processes on one
 * store, a fresh PostgreSQL schema per test (skipped with a printed notice when no PostgreSQL
 * answers), a platform that never answers (so that tasks stay pending and watchers keep watching),
 * and the store opened from the test itself to check what was recorded.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createEventStore } from '../../infra/eventStore/createEventStore.js';
import type { EventStore, RecordedEvent } from '../../src/eventStore.js';
import { eventually } from '../helpers/wait.js';

const root = join(import.meta.dirname, '..', '..');
/** tsx resolved from here, so that commands run from any working directory. */
export const API_COMMAND = ['--import', import.meta.resolve('tsx'), join(root, 'commands', 'api.ts')];

const postgresUrlFromEnv = process.env.LINEAGE_SVC_TEST_POSTGRES_URL;
/** `LINEAGE_SVC_TEST_POSTGRES_URL`, else the local default. */
export const POSTGRES_URL = postgresUrlFromEnv ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Why the PostgreSQL tests are skipped (printed once), or false to run them. */
export async function postgresSkipReason(): Promise<string | false> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return false;
  } catch (error) {
    if (postgresUrlFromEnv !== undefined) return false; // asked for explicitly: let the tests fail loudly
    const reason =
      `no PostgreSQL at ${POSTGRES_URL} (${error instanceof Error ? error.message : String(error)}); ` +
      'set LINEAGE_SVC_TEST_POSTGRES_URL to run these tests';
    console.log(`# postgres tests skipped: ${reason}`);
    return reason;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Where a test's store lives: the environment variables naming it, and how to remove it. */
export interface StoreTarget {
  backend: 'memory' | 'file' | 'sqlite' | 'postgres';
  env: Record<string, string>;
  open(): Promise<EventStore>;
  remove(): Promise<void>;
}

/** A fresh store of `backend`: a temporary folder, or a fresh PostgreSQL schema. */
export async function storeTarget(backend: StoreTarget['backend']): Promise<StoreTarget> {
  const folder = mkdtempSync(join(tmpdir(), 'lineage-scaling-'));
  if (backend !== 'postgres') {
    const env = { LINEAGE_SVC_STORAGE__BACKEND: backend, LINEAGE_SVC_STORAGE__PATH: folder };
    return {
      backend,
      env,
      open: () => createEventStore({ backend, path: folder, url: undefined }),
      remove: async () => rmSync(folder, { recursive: true, force: true }),
    };
  }
  const schema = `lineage_test_${randomUUID().replaceAll('-', '')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const env = { LINEAGE_SVC_STORAGE__BACKEND: 'postgres', LINEAGE_SVC_STORAGE__URL: url.toString() };
  return {
    backend,
    env,
    open: () => createEventStore({ backend: 'postgres', path: folder, url: url.toString() }),
    async remove() {
      rmSync(folder, { recursive: true, force: true });
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

/** A running `lineage-svc-api` child. */
export interface ApiProcess {
  child: ChildProcess;
  pid: number;
  /** `http://127.0.0.1:{port}`. */
  base: string;
  /** Everything it printed so far. */
  output(): string;
  /** Resolves with the exit code (null when ended by a signal) once the process has exited. */
  exited: Promise<number | null>;
  /** SIGKILL, and waits for the exit. */
  kill(): Promise<void>;
  /** SIGTERM, and waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts `lineage-svc-api` on an ephemeral port of 127.0.0.1 with `env` (over a minimal
 * environment: no graph file, warnings only) and waits until it listens.
 */
export async function startApiProcess(env: Record<string, string>): Promise<ApiProcess> {
  const child = spawn(process.execPath, API_COMMAND, {
    cwd: tmpdir(),
    env: {
      PATH: process.env.PATH ?? '',
      LINEAGE_SVC_API_HOST: '127.0.0.1',
      LINEAGE_SVC_API_PORT: '0',
      LINEAGE_SVC_LOG_LEVEL: 'INFO',
      LINEAGE_SVC_MIN_POLL_INTERVAL_SECONDS: '0.1',
      LINEAGE_SVC_API_RATE_LIMIT_PER_MINUTE: '0',
      LINEAGE_SVC_GRAPH_FILE: join(tmpdir(), `absent-${randomUUID()}.json`),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  const base = await eventually(
    'lineage-svc-api to listen',
    () => {
      if (gone) throw new Error(`lineage-svc-api exited before listening:\n${output}`);
      return /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    },
    { timeoutMs: 60_000 },
  );
  return {
    child,
    pid: child.pid!,
    base,
    output: () => output,
    exited,
    async kill() {
      if (!gone) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (!gone) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A TCP server on 127.0.0.1 that accepts connections and never answers: requests to it hang. */
export async function silentPlatform(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Platform settings pointing every API at `url`, with credentials, so that extractions and polls hang there. */
export function platformEnv(url: string): Record<string, string> {
  return {
    LINEAGE_SVC_STREAM_CLOUD_API_KEY: 'key',
    LINEAGE_SVC_STREAM_CLOUD_API_SECRET: 'secret',
    LINEAGE_SVC_STREAM_CLOUD_API_URL: url,
    LINEAGE_SVC_STREAM_TELEMETRY_API_URL: url,
    LINEAGE_SVC_SCHEMA_REGISTRY_URL: url,
    LINEAGE_SVC_STREAM_FLINK_API_URL: url,
  };
}

/** Every event of the store, oldest first. */
export async function allEvents(store: EventStore): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for (;;) {
    const page = await store.readAll({ after: events.at(-1)?.position ?? 0, maxCount: 1000 });
    events.push(...page);
    if (page.length < 1000) return events;
  }
}

/** The process id a child recorded in its `ProcessStarted`. */
export async function processIdOf(store: EventStore, pid: number): Promise<string> {
  return eventually('the ProcessStarted of the child', async () => {
    const started = (await allEvents(store)).find(
      (event) => event.type === 'ProcessStarted' && (event.data as { pid: number }).pid === pid,
    );
    return started ? (started.data as { process_id: string }).process_id : undefined;
  });
}

/** JSON over HTTP. */
export async function request(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text) };
}
