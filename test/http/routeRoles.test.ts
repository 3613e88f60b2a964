/**
 * Issue 23 item 1: the role a request needs comes from the route fastify matched, never from the
 * spelling of its URL. Every operation of the OpenAPI document is sent, on one real server
 * (127.0.0.1, ephemeral port), with every kind of key (none, an unknown one, `read`, `write`,
 * `operate`, the all-roles `LINEAGE_SVC_API_KEY`) and with many spellings of its path: the canonical
 * one, percent-encoded letters (`/api/v1/%74asks/extract`), doubled slashes, a trailing slash,
 * upper case, dot segments (plain and percent-encoded), an encoded slash, a backslash, a semicolon
 * and an encoded NUL. Requests go out through `node:http` with the path as written, so that no client
 * normalizes it first.
 *
 * The expected role of each operation is written here, independently of `infra/http/auth.ts`: the 8
 * operations that act with the operator's credentials need `operate`, the other writes `write`, every
 * GET and HEAD `read`; health, readiness and metrics are open. Asserted:
 * - a key that lacks the role (or no key, or an unknown key) never reaches the route: every answer is
 *   403 `forbidden`, 404 `route-not-found` or 400 `bad-url` problem+json, never 2xx and never a
 *   validation error or a conflict from the route itself;
 * - the canonical path with a key that has the role reaches the route (neither 403 nor
 *   `route-not-found`);
 * - no request gets a 5xx (the platform's environments come from a stand-in: no platform is asked).
 */
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import pLimit from 'p-limit';
import { buildApp, type LineageApp } from '../../infra/http/app.js';
import { registerApiKeyAuth, UndeclaredRouteRoleError, WRITE_ROUTE_ROLES } from '../../infra/http/auth.js';
import { OPERATION_DOCS } from '../../infra/http/openApiOperations.js';
import { openRuntime, type LineageRuntime } from '../../infra/runtime.js';
import { loadConfig } from '../../src/config.js';
import { capturingLogger, fastRunners } from './helpers.js';

/** The keys sent: the header value, and the roles it holds (`open` is no key at all). */
const KEYS = {
  none: { header: undefined, roles: [] },
  unknown: { header: 'k-unknown', roles: [] },
  read: { header: 'k-read', roles: ['read'] },
  write: { header: 'k-write', roles: ['write'] },
  operate: { header: 'k-operate', roles: ['operate'] },
  all: { header: 'k-all', roles: ['read', 'write', 'operate'] },
} as const satisfies Record<string, { header: string | undefined; roles: readonly string[] }>;
type KeyName = keyof typeof KEYS;

/** The operations that act with the operator's platform and catalog credentials: `operate`. */
const OPERATE = new Set([
  'POST /api/v1/tasks/extract',
  'POST /api/v1/extract',
  'POST /api/v1/tasks/enrich',
  'POST /api/v1/lineage/push',
  'POST /api/v1/push/{provider}',
  'POST /api/v1/watchers',
  'DELETE /api/v1/watchers/{watcher_id}',
  'POST /api/v1/watchers/{watcher_id}/stop',
]);

/** Probes and scrapers carry no key. */
const OPEN = new Set(['GET /api/v1/health', 'GET /api/v1/ready', 'GET /metrics']);

/** The role an operation needs, by this test's reading of docs/api.md ("Roles"). */
function expectedRole(method: string, path: string): 'open' | 'read' | 'write' | 'operate' {
  const key = `${method === 'HEAD' ? 'GET' : method} ${path}`;
  if (OPEN.has(key)) return 'open';
  if (method === 'GET' || method === 'HEAD') return 'read';
  return OPERATE.has(key) ? 'operate' : 'write';
}

/** A percent-encoded character, upper-case hex. */
const encoded = (character: string) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;

/**
 * Spellings of a path given as segments (the first is empty: the path starts with `/`), where
 * `isStatic[i]` says whether segment `i` is a literal of the route (parameters are never respelled).
 */
function spellings(segments: readonly string[], isStatic: readonly boolean[]): Map<string, string> {
  const join = (parts: readonly string[]) => parts.join('/');
  const map = (transform: (segment: string, index: number) => string) =>
    segments.map((segment, index) => (isStatic[index] && segment !== '' ? transform(segment, index) : segment));
  const result = new Map<string, string>([['canonical', join(segments)]]);
  const last = segments.length - 1;
  segments.forEach((segment, index) => {
    if (!isStatic[index] || segment === '') return;
    result.set(
      `first letter of segment ${index} encoded`,
      join(map((s, i) => (i === index ? encoded(s[0]!) + s.slice(1) : s))),
    );
    result.set(`segment ${index} upper case`, join(map((s, i) => (i === index ? s.toUpperCase() : s))));
  });
  result.set('every static letter encoded', join(map((s) => [...s].map(encoded).join(''))));
  result.set('all upper case', join(map((s) => s.toUpperCase())));
  result.set('first letters encoded, lower-case hex', join(map((s) => encoded(s[0]!).toLowerCase() + s.slice(1))));
  result.set('first letters capitalized', join(map((s) => s[0]!.toUpperCase() + s.slice(1))));
  for (let index = 0; index < last; index += 1) {
    result.set(
      `slash ${index + 1} doubled`,
      `${join(segments.slice(0, index + 1))}//${join(segments.slice(index + 1))}`,
    );
  }
  result.set('trailing slash', `${join(segments)}/`);
  result.set('trailing dot segment', `${join(segments)}/.`);
  result.set('dot segment after /api/v1', join([...segments.slice(0, 3), '.', ...segments.slice(3)]));
  result.set('dot-dot segment after /api/v1', join([...segments.slice(0, 3), 'x', '..', ...segments.slice(3)]));
  result.set('encoded dot segment after /api/v1', join([...segments.slice(0, 3), '%2e', ...segments.slice(3)]));
  result.set(
    'encoded dot-dot segment after /api/v1',
    join([...segments.slice(0, 3), 'x', '%2E%2E', ...segments.slice(3)]),
  );
  result.set('dot-dot from the root', `/x/..${join(segments)}`);
  result.set('encoded slash after /api/v1', `${join(segments.slice(0, 3))}%2F${join(segments.slice(3))}`);
  result.set('backslash after /api', `${join(segments.slice(0, 2))}\\${join(segments.slice(2))}`);
  result.set('semicolon at the end', `${join(segments)};x`);
  result.set('encoded NUL at the end', `${join(segments)}%00`);
  result.set('last segment doubled', join([...segments, segments[last]!]));
  return result;
}

/** The spellings sent to HEAD and with an unknown key. */
const ENCODED_SPELLINGS = new Set([
  'canonical',
  'every static letter encoded',
  'first letters encoded, lower-case hex',
]);

/** One answer: status and, for problem+json, its `type` slug. */
interface Answer {
  status: number;
  problemType: string | undefined;
  text: string;
}

/** Sends `method path` as written (no client-side normalization). */
function send(
  agent: Agent,
  port: number,
  method: string,
  path: string,
  key: string | undefined,
  body?: unknown,
): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = {};
  if (key !== undefined) headers['x-api-key'] = key;
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        let problemType: string | undefined;
        if (text !== '' && String(response.headers['content-type']).startsWith('application/problem+json')) {
          problemType = String((JSON.parse(text) as { type: string }).type).replace('urn:lineage-svc:problem:', '');
        }
        resolve({ status: response.statusCode ?? 0, problemType, text: text.slice(0, 300) });
      });
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/** Answers that show the request did not reach the route. */
const NOT_REACHED = new Set(['forbidden', 'route-not-found', 'bad-url']);

describe('roles come from the matched route, whatever the spelling of the path', () => {
  let folder: string;
  let runtime: LineageRuntime;
  let app: LineageApp;
  let port: number;
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const values: Record<string, string> = {};
  /** The query naming the ingested run's output, for the OpenLineage dataset reads. */
  let datasetQuery = '';

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'lineage-roles-'));
    const config = loadConfig({
      LINEAGE_SVC_STORAGE__BACKEND: 'memory',
      LINEAGE_SVC_STORAGE__PATH: folder,
      LINEAGE_SVC_API_RATE_LIMIT_PER_MINUTE: '0',
      LINEAGE_SVC_API_KEY: KEYS.all.header,
      LINEAGE_SVC_API_KEYS: `${KEYS.read.header}=read,${KEYS.write.header}=write,${KEYS.operate.header}=operate`,
    });
    const logger = capturingLogger([]);
    runtime = await openRuntime(config, logger);
    const unreachable = async (): Promise<never> => {
      throw new Error('no platform in this test');
    };
    app = await buildApp({
      config,
      logger,
      runtime,
      runners: fastRunners(),
      environments: { list: async () => ({ environments: [], total: 0, listed_at: new Date(0).toISOString() }) },
      watchers: { engineDeps: () => ({ poll: unreachable, extract: unreachable }), pushers: {} },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;

    // The things path parameters name: a graph with the example's content, a task, a run, a watcher.
    const all = KEYS.all.header;
    const created = await send(agent, port, 'POST', '/api/v1/graphs', all, {});
    assert.equal(created.status, 201, created.text);
    values.graph_id = JSON.parse(created.text).graph_id as string;
    const imported = await send(
      agent,
      port,
      'POST',
      `/api/v1/graphs/${values.graph_id}/import`,
      all,
      docs('POST /api/v1/graphs/:graph_id/import'),
    );
    assert.equal(imported.status, 200, imported.text);
    const node = docs('POST /api/v1/graphs/:graph_id/nodes') as { id: string };
    values.node_id = encodeURIComponent(node.id);
    const task = await send(agent, port, 'POST', '/api/v1/tasks/extract', all, docs('POST /api/v1/tasks/extract'));
    assert.equal(task.status, 202, task.text);
    values.task_id = JSON.parse(task.text).task_id as string;
    const run = docs('POST /api/v1/lineage') as {
      run: { runId: string };
      outputs: Array<{ namespace: string; name: string }>;
    };
    assert.equal((await send(agent, port, 'POST', '/api/v1/lineage', all, run)).status, 200);
    values.run_id = run.run.runId;
    datasetQuery = `namespace=${encodeURIComponent(run.outputs[0]!.namespace)}&name=${encodeURIComponent(run.outputs[0]!.name)}`;
    // The Marquez routes' parameters: the run's output dataset, its namespace, the run, a statistic.
    values.namespace = encodeURIComponent(run.outputs[0]!.namespace);
    values.dataset = encodeURIComponent(run.outputs[0]!.name);
    values.job = 'orders-job';
    values.id = run.run.runId;
    values.asset = 'jobs';
    // The Marquez writes' parameters: a tag, and a field (unknown to the dataset: answered 404 by the route).
    values.tag = 'PII';
    values.field = 'order_id';
    const watcher = await send(agent, port, 'POST', '/api/v1/watchers', all, docs('POST /api/v1/watchers'));
    assert.equal(watcher.status, 201, watcher.text);
    values.watcher_id = JSON.parse(watcher.text).watcher_id as string;
    values.provider = 'lakehouse';
  });

  after(async () => {
    agent.destroy();
    await app.close();
    await runtime.close();
    rmSync(folder, { recursive: true, force: true });
  });

  /** The request example of an operation (fastify URL), from the OpenAPI document's source. */
  function docs(operation: string): unknown {
    return OPERATION_DOCS[operation]?.requestExample;
  }

  /** The query string a read needs to be valid. */
  function query(path: string): string {
    if (path.endsWith('/diff')) return '?from=0';
    if (path.endsWith('/path')) return `?from=${values.node_id}&to=${values.node_id}`;
    if (/\/lineage\/(datasets|jobs)\/(detail|lineage)$/.test(path)) return `?${datasetQuery}`;
    if (path === '/api/v1/lineage' || path === '/api/v1/column-lineage')
      return `?nodeId=dataset:${values.namespace}:${values.dataset}`;
    if (path === '/api/v1/search') return '?q=orders';
    return '';
  }

  it('never lets a key without the role reach a route, and lets the right key reach it', async () => {
    const document = app.swagger() as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).flatMap((method) => {
        const upper = method.toUpperCase();
        return upper === 'GET'
          ? [
              { method: upper, path },
              { method: 'HEAD', path },
            ]
          : [{ method: upper, path }];
      }),
    );
    // Every operation the document lists is walked; the operate ones are the 8 above.
    assert.ok(operations.length >= 60, `${operations.length} operations`);
    const operateFound = operations.filter(({ method, path }) => expectedRole(method, path) === 'operate');
    assert.equal(operateFound.length, OPERATE.size, JSON.stringify(operateFound));
    // Deletions last, so that the others find what their parameters name.
    operations.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));

    const failures: string[] = [];
    let sent = 0;
    const limit = pLimit(8);
    for (const { method, path } of operations) {
      const role = expectedRole(method, path);
      const fastifyUrl = path.replace(/\{(\w+)\}/g, ':$1');
      const body = method === 'POST' ? (docs(`${method} ${fastifyUrl}`) ?? {}) : undefined;
      const templateSegments = path.split('/');
      const isStatic = templateSegments.map((segment) => !segment.startsWith('{'));
      const segments = templateSegments.map((segment) => {
        const name = /^\{(\w+)\}$/.exec(segment)?.[1];
        if (name === undefined) return segment;
        assert.ok(values[name] !== undefined, `no value for ${name} in ${path}`);
        return values[name]!;
      });
      const suffix = method === 'GET' || method === 'HEAD' ? query(path) : '';
      const requests: Array<Promise<void>> = [];
      for (const [spelling, spelled] of spellings(segments, isStatic)) {
        for (const [keyName, key] of Object.entries(KEYS) as Array<[KeyName, (typeof KEYS)[KeyName]]>) {
          const hasRole = role === 'open' || (key.roles as readonly string[]).includes(role);
          // A key with the role is sent the canonical path only: the other spellings are for keys without it.
          // An unknown key, and HEAD (answered by the GET route), get the canonical and the encoded spellings.
          if (hasRole && spelling !== 'canonical') continue;
          if ((keyName === 'unknown' || method === 'HEAD') && !ENCODED_SPELLINGS.has(spelling)) continue;
          requests.push(
            limit(async () => {
              const answer = await send(agent, port, method, spelled + suffix, key.header, body);
              sent += 1;
              const where = `${method} ${spelled}${suffix} (${spelling}) with key ${keyName}: ${answer.status} ${answer.text}`;
              if (answer.status >= 500) failures.push(`5xx: ${where}`);
              if (!hasRole) {
                if (answer.status >= 200 && answer.status < 300)
                  failures.push(`2xx without the "${role}" role: ${where}`);
                else if (method !== 'HEAD' && !NOT_REACHED.has(answer.problemType ?? ''))
                  failures.push(`reached the route without the "${role}" role: ${where}`);
                else if (method === 'HEAD' && ![400, 403, 404].includes(answer.status))
                  failures.push(`HEAD answered without the "${role}" role: ${where}`);
              } else if (spelling === 'canonical') {
                const refused =
                  method === 'HEAD' ? [403].includes(answer.status) : NOT_REACHED.has(answer.problemType ?? '');
                if (refused) failures.push(`the "${role}" key did not reach the route: ${where}`);
              }
            }),
          );
        }
      }
      await Promise.all(requests);
    }
    assert.ok(sent > 3_000, `${sent} requests`);
    assert.deepEqual(failures.slice(0, 40), [], `${failures.length} failures`);
  });
});

describe('every write route under /api/v1 declares its role', () => {
  it("declares the operate role on exactly the 8 operations that act with the operator's credentials", () => {
    const operate = Object.entries(WRITE_ROUTE_ROLES)
      .filter(([, role]) => role === 'operate')
      .map(([route]) => route.replace(/:(\w+)/g, '{$1}'));
    assert.deepEqual(new Set(operate), OPERATE);
  });

  it('refuses to register a write route without a declared role, with authentication on or off', async () => {
    for (const keys of [[], [{ key: 'k', roles: ['read' as const] }]]) {
      const app = Fastify();
      registerApiKeyAuth(app, undefined, keys);
      app.get('/api/v1/tasks/new', async () => ({}));
      app.post('/other/tasks/new', async () => ({}));
      assert.throws(() => app.post('/api/v1/tasks/new', async () => ({})), UndeclaredRouteRoleError);
      assert.throws(
        () => app.route({ method: ['GET', 'PUT'], url: '/api/v1/graphs/:graph_id', handler: async () => ({}) }),
        /PUT \/api\/v1\/graphs\/:graph_id is a write route under \/api\/v1 without a role/,
      );
      await app.close();
    }
  });
});
