/**
 * Test helpers for the REST API: an app on a real socket (127.0.0.1, ephemeral port) over the
 * memory or sqlite store (in a temporary folder), a `call` that fetches JSON, and quick runners.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { buildApp, type LineageApp } from '../../infra/http/app.js';
import type { TaskRunners } from '../../services/tasks.js';
import { openRuntime, type LineageRuntime } from '../../infra/runtime.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/logger.js';

/** The backends every HTTP suite runs on. */
export const BACKENDS = ['memory', 'sqlite'] as const;
export type Backend = (typeof BACKENDS)[number];

/** A running API. */
export interface TestApi {
  base: string;
  app: LineageApp;
  runtime: LineageRuntime;
  config: Config;
  /** Everything the app logged, one JSON line each. */
  logs: string[];
  folder: string;
  /** Closes the app and the store (idempotent); the folder is removed by `dispose`. */
  close(): Promise<void>;
  dispose(): Promise<void>;
}

/** Options of `startApi`. */
export interface StartOptions {
  backend?: Backend;
  env?: Record<string, string>;
  /** Runners, or a factory of runners given the app's configuration and runtime. */
  runners?: TaskRunners | ((deps: { config: Config; runtime: LineageRuntime }) => TaskRunners);
  /** Reuse this folder (restart tests); default a fresh temporary one. */
  folder?: string;
  /** Turns traversal indexes on with this quiet period (as `lineage-svc-api` does); default off. */
  traversalIndexQuietMilliseconds?: number;
  /** The store's clock for `recorded_at`, in milliseconds since the epoch (e.g. a `ManualClock`'s `now`); default `Date.now`. */
  now?: () => number;
}

/** A logger that keeps every line (at debug level) so that tests can read what was logged. */
export function capturingLogger(lines: string[]): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line !== ''),
      );
      done();
    },
  });
  return createLogger({ level: 'debug', destination: sink });
}

/** Starts the API on 127.0.0.1:0. */
export async function startApi(options: StartOptions = {}): Promise<TestApi> {
  const folder = options.folder ?? mkdtempSync(join(tmpdir(), 'lineage-api-'));
  const config = loadConfig({
    LINEAGE_SVC_STORAGE__BACKEND: options.backend ?? 'memory',
    LINEAGE_SVC_STORAGE__PATH: folder,
    // Tests poll fast and write much from one address; the hardening tests set these themselves.
    LINEAGE_SVC_MIN_POLL_INTERVAL_SECONDS: '0.1',
    LINEAGE_SVC_API_RATE_LIMIT_PER_MINUTE: '0',
    ...options.env,
  });
  const logs: string[] = [];
  const logger = capturingLogger(logs);
  const runtime = await openRuntime(config, logger, {
    ...(options.traversalIndexQuietMilliseconds === undefined
      ? {}
      : { traversalIndexQuietMilliseconds: options.traversalIndexQuietMilliseconds }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const runners = typeof options.runners === 'function' ? options.runners({ config, runtime }) : options.runners;
  const app = await buildApp({ config, logger, runtime, ...(runners ? { runners } : {}) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  assert.ok(address && typeof address === 'object');
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close();
    await runtime.close();
  };
  return {
    base: `http://127.0.0.1:${address.port}`,
    app,
    runtime,
    config,
    logs,
    folder,
    close,
    async dispose() {
      await close();
      if (!options.folder) rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** A response with its body parsed (JSON when it is JSON, else text). */
export interface Answer {
  status: number;
  type: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
  headers: Headers;
}

/** Fetches `path` from the API; `json` becomes a JSON body. */
export async function call(
  base: string,
  method: string,
  path: string,
  init: { json?: unknown; body?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  let parsed: unknown = text;
  if (type.includes('json') && text !== '') parsed = JSON.parse(text);
  return { status: response.status, type, body: parsed, text, headers: response.headers };
}

/** Asserts a problem+json answer with this status, and returns its body. */
export function assertProblem(answer: Answer, status: number, detail?: string | RegExp): Record<string, unknown> {
  assert.equal(answer.status, status, `expected ${status}, got ${answer.status}: ${answer.text.slice(0, 500)}`);
  assert.match(answer.type, /^application\/problem\+json/);
  const body = answer.body as Record<string, unknown>;
  assert.equal(body.status, status);
  assert.equal(typeof body.type, 'string');
  assert.equal(typeof body.title, 'string');
  assert.equal(typeof body.detail, 'string');
  if (typeof detail === 'string') assert.equal(body.detail, detail);
  else if (detail) assert.match(String(body.detail), detail);
  return body;
}

/** Percent-encodes a node id for a path segment. */
export const enc = encodeURIComponent;

/** `waitForTask` lives in `test/helpers/tasks.ts`; re-exported here for the suites that import it from this file. */
export { waitForTask } from '../helpers/tasks.js';

/** Runners that finish at once: extract answers counts, enrich answers the graph id asked for. */
export function fastRunners(): TaskRunners & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async extract(params, progress) {
      calls.push(`extract ${params.environment_ids.join(',')}`);
      progress('Phase 1/4', 'topics');
      return { graph_id: 'g', node_count: 3, edge_count: 2 };
    },
    async enrich(params, progress) {
      calls.push(`enrich ${params.graph_id ?? 'default'}`);
      progress('Metrics', null);
      return { graph_id: params.graph_id ?? 'default', node_count: 0, edge_count: 0 };
    },
  };
}
