/**
 * Issue 15, one test per defect found by the hostile probe of the API: deep nesting, batches with a
 * bad item, malformed URLs, invalid UTF-8, control and invisible characters, prototype keys, secrets in
 * query strings, unknown query parameters on writes, key roles, the poll interval floor, the write rate
 * limit, security headers, stalled uploads, and the shared platform budget. Real sockets on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createHttpClient, createPlatformBudgets } from '../../infra/confluent/httpClient.js';
import { z } from 'zod';
import { assertProblem, call, startApi, type TestApi } from './helpers.js';
import { sampleGraph } from '../helpers/sampleGraph.js';
import { startApiProcess } from '../scaling/helpers.js';

const RUN_EVENT = (runId: string, name = 'job') => ({
  eventType: 'COMPLETE',
  eventTime: '2024-01-01T00:00:00Z',
  producer: 'https://example.com/p',
  schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
  run: { runId },
  job: { namespace: 'ns', name },
  inputs: [],
  outputs: [],
});

/** `{"a":{"a":...}}` nested `depth` levels, as text (JSON.stringify itself would overflow). */
const deepObject = (depth: number, inner = '1') => '{"a":'.repeat(depth) + inner + '}'.repeat(depth);

/** Sends raw bytes as a request body and answers the status and body text. */
async function rawPost(base: string, path: string, body: Buffer, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; type: string; text: string }>((resolve, reject) => {
    const req = httpRequest(
      `${base}${path}`,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length, ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends a raw request line (no URL normalization by a client library). */
async function rawGet(base: string, path: string): Promise<{ status: number; type: string; text: string }> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`),
    );
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(data)?.[1] ?? 0);
      const type = /content-type: ([^\r\n]+)/i.exec(data)?.[1] ?? '';
      resolve({ status, type, text: data.slice(data.indexOf('\r\n\r\n') + 4) });
    });
  });
}

describe('hardening: hostile input', () => {
  let api: TestApi;
  before(async () => {
    api = await startApi({ env: { LINEAGE_SVC_API_KEY: 'k-all' } });
  });
  after(async () => api.dispose());
  const key = { 'x-api-key': 'k-all' };

  it('rejects one deeply nested event in a batch with a 400 item and stores the valid ones', async () => {
    const valid = JSON.stringify(RUN_EVENT('deep-batch-ok'));
    const deep =
      '{"eventType":"COMPLETE","eventTime":"2024-01-01T00:00:00Z","run":{"runId":"r-deep"},' +
      `"job":{"namespace":"n","name":"j","facets":${deepObject(100)}}}`;
    const body = Buffer.from(`[${valid},${deep}]`);
    const answer = await rawPost(api.base, '/api/v1/lineage/events', body, key);
    assert.equal(answer.status, 200, answer.text.slice(0, 300));
    const results = (
      JSON.parse(answer.text) as { results: Array<{ status: string; errors?: Array<{ message: string }> }> }
    ).results;
    assert.equal(results[0]!.status, 'accepted');
    assert.equal(results[1]!.status, 'rejected');
    assert.match(results[1]!.errors![0]!.message, /deeper than 64 levels/);
    const stored = await call(api.base, 'GET', '/api/v1/lineage/events?run_id=deep-batch-ok', { headers: key });
    assert.equal(stored.status, 200);
    assert.equal(stored.body.events.length, 1);
  });

  it('answers a body nested deeper than the parser allows with a 400, whatever the route', async () => {
    for (const path of ['/api/v1/lineage', '/api/v1/graphs', '/api/v1/watchers']) {
      const answer = await rawPost(api.base, path, Buffer.from(deepObject(20_000)), key);
      assert.equal(answer.status, 400, `${path}: ${answer.text.slice(0, 200)}`);
      assert.match(answer.type, /^application\/problem\+json/);
      assert.match(answer.text, /deeper than 512 levels/);
    }
  });

  it('answers malformed percent-encodings with problem+json 400, before authentication', async () => {
    for (const path of ['/api/v1/graphs/%E0%A4%A', '/api/v1/graphs/%zz/nodes', '/api/v1/graphs/x/nodes/%C0%AF']) {
      const answer = await rawGet(api.base, path);
      assert.equal(answer.status, 400, `${path}: ${answer.text}`);
      assert.match(answer.type, /^application\/problem\+json/);
      assert.match(answer.text, /malformed/);
    }
  });

  it('refuses a body that is not valid UTF-8 instead of storing U+FFFD', async () => {
    const body = Buffer.concat([Buffer.from('{"name":"bad'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const answer = await rawPost(api.base, '/api/v1/graphs', body, key);
    assert.equal(answer.status, 400);
    assert.match(answer.type, /^application\/problem\+json/);
    assert.match(answer.text, /not valid UTF-8/);
  });

  it('names a __proto__ key instead of calling the body invalid JSON', async () => {
    const answer = await rawPost(api.base, '/api/v1/graphs', Buffer.from('{"name":"x","__proto__":{"a":1}}'), key);
    assert.equal(answer.status, 400);
    assert.match(answer.text, /__proto__/);
    assert.doesNotMatch(answer.text, /not valid JSON/);
  });

  it('rejects NUL, CR and LF in OpenLineage job names and runIds', async () => {
    for (const [runId, name] of [
      ['r\u0000nul', 'job'],
      ['ok-run', 'job\r\nInjected: yes'],
    ] as const) {
      const answer = await call(api.base, 'POST', '/api/v1/lineage', { json: RUN_EVENT(runId, name), headers: key });
      assertProblem(answer, 400);
      assert.match(answer.text, /control or invisible formatting character/);
    }
  });

  it('rejects control characters in graph names and environment ids', async () => {
    assertProblem(
      await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'line\nbreak' }, headers: key }),
      400,
      /control or invisible/,
    );
    assertProblem(
      await call(api.base, 'POST', '/api/v1/watchers', {
        json: { environment_ids: ['env-1\u0000'], poll_interval_seconds: 60 },
        headers: key,
      }),
      400,
    );
    assertProblem(
      await call(api.base, 'POST', '/api/v1/tasks/extract', { json: { environment_ids: ['env\r\n1'] }, headers: key }),
      400,
    );
  });

  it('rejects bidirectional overrides and zero-width characters in node ids', async () => {
    const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'bidi' }, headers: key });
    const graph = created.body.graph_id as string;
    for (const name of ['\u202egpj.exe', '\u200bx']) {
      const topic = sampleGraph().nodes.find((node) => node.node_type === 'TOPIC')!;
      const node = { ...topic, id: `${topic.id}${name}`, qualified_name: `${topic.qualified_name}${name}` };
      const answer = await call(api.base, 'POST', `/api/v1/graphs/${graph}/nodes`, { json: node, headers: key });
      assertProblem(answer, 400, /control or invisible/);
    }
  });

  it('rejects unpaired UTF-16 surrogates in ids and names like control characters, and stores nothing', async () => {
    // JSON escapes are the only way to send them: UTF-8 cannot encode a lone surrogate.
    const post = (path: string, body: string) =>
      call(api.base, 'POST', path, { body, headers: { ...key, 'content-type': 'application/json' } });
    for (const surrogate of ['\\ud800', '\\udfff', '\\udc00\\ud800']) {
      assertProblem(await post('/api/v1/graphs', `{"name":"lone${surrogate}"}`), 400, /control or invisible|surrogate/);
      assertProblem(await post('/api/v1/tasks/extract', `{"environment_ids":["env-1${surrogate}"]}`), 400);
      const topic = sampleGraph().nodes.find((node) => node.node_type === 'TOPIC')!;
      const node = JSON.stringify({
        ...topic,
        id: `${topic.id}SURROGATE`,
        qualified_name: `${topic.qualified_name}SURROGATE`,
      });
      const created = await call(api.base, 'POST', '/api/v1/graphs', {
        json: { name: `surrogates ${surrogate}` },
        headers: key,
      });
      const graph = created.body.graph_id as string;
      const nodeAnswer = await post(`/api/v1/graphs/${graph}/nodes`, node.replaceAll('SURROGATE', surrogate));
      assertProblem(nodeAnswer, 400, /U\+D[89A-F][0-9A-F]{2}, an unpaired surrogate/);
      const imported = await post(
        `/api/v1/graphs/${graph}/import`,
        JSON.stringify({ nodes: [JSON.parse(node)], edges: [] }).replaceAll('SURROGATE', surrogate),
      );
      assertProblem(imported, 400, /unpaired surrogate/);
      const event = JSON.stringify(RUN_EVENT('surrogate-run', 'jobSURROGATE')).replace('SURROGATE', surrogate);
      const ingested = await post('/api/v1/lineage', event);
      assert.ok(ingested.status === 400 || ingested.body.rejected === 1, ingested.text);
      const nodes = await call(api.base, 'GET', `/api/v1/graphs/${graph}/nodes`, { headers: key });
      assert.deepEqual(nodes.body.nodes, []);
    }
    const graphs = await call(api.base, 'GET', '/api/v1/graphs', { headers: key });
    assert.ok(graphs.body.graphs.every((graph: { name: string }) => !graph.name.startsWith('lone')));
    // Paired surrogates (emoji, written raw or as JSON escapes) are characters like any other.
    assert.equal((await post('/api/v1/graphs', '{"name":"paired \\ud83d\\ude00 😀"}')).status, 201);
  });

  it('answers unknown query parameters on writes with a 400 naming them', async () => {
    const answer = await call(api.base, 'POST', '/api/v1/graphs?api_secret=s3cr3t', { json: {}, headers: key });
    assertProblem(answer, 400, /api_secret/);
  });

  it('never logs the value of an unknown query parameter, and keeps the path and known ones', async () => {
    await call(api.base, 'GET', '/api/v1/graphs?limit=5&api_secret=TOPSECRET123', { headers: key });
    const lines = api.logs.filter((line) => line.includes('/api/v1/graphs?limit=5'));
    assert.ok(lines.length > 0, 'the request is logged with its path and its known parameter');
    assert.ok(api.logs.every((line) => !line.includes('TOPSECRET123')));
    assert.ok(lines.some((line) => line.includes('api_secret=[redacted]')));
  });

  it('puts security headers on the docs pages', async () => {
    for (const path of ['/docs/', '/redoc']) {
      const response = await fetch(`${api.base}${path}`);
      await response.arrayBuffer();
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', path);
      assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'self'/, path);
    }
  });
});

describe('hardening: key roles, poll floor and write rate limit', () => {
  let api: TestApi;
  before(async () => {
    api = await startApi({
      env: {
        LINEAGE_SVC_API_KEY: 'k-all',
        LINEAGE_SVC_API_KEYS: 'k-read=read,k-write=read+write,k-op=read+operate',
        LINEAGE_SVC_MIN_POLL_INTERVAL_SECONDS: '10',
        LINEAGE_SVC_API_RATE_LIMIT_PER_MINUTE: '20',
      },
    });
  });
  after(async () => api.dispose());

  it('gives each key its roles; the single LINEAGE_SVC_API_KEY keeps every role', async () => {
    const as = (key: string) => ({ 'x-api-key': key });
    assert.equal((await call(api.base, 'GET', '/api/v1/graphs', { headers: as('k-read') })).status, 200);
    assertProblem(
      await call(api.base, 'POST', '/api/v1/graphs', { json: {}, headers: as('k-read') }),
      403,
      'API key lacks the "write" role',
    );
    assert.equal((await call(api.base, 'POST', '/api/v1/graphs', { json: {}, headers: as('k-write') })).status, 201);
    assertProblem(
      await call(api.base, 'POST', '/api/v1/lineage/push', {
        json: { catalog_type: 'LAKEHOUSE' },
        headers: as('k-write'),
      }),
      403,
      'API key lacks the "operate" role',
    );
    assertProblem(
      await call(api.base, 'POST', '/api/v1/graphs', { json: {}, headers: as('k-op') }),
      403,
      'API key lacks the "write" role',
    );
    const watcher = await call(api.base, 'POST', '/api/v1/watchers', {
      json: { environment_ids: ['env-1'], poll_interval_seconds: 5 },
      headers: as('k-op'),
    });
    assertProblem(watcher, 400, /at least 10/);
    assert.equal((await call(api.base, 'POST', '/api/v1/graphs', { json: {}, headers: as('k-all') })).status, 201);
  });

  it('limits writes per client and answers 429 problem+json with Retry-After', async () => {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 25; i += 1) {
      last = await call(api.base, 'POST', '/api/v1/graphs', { json: {}, headers: { 'x-api-key': 'k-write' } });
      statuses.push(last.status);
    }
    assert.ok(statuses.includes(429), `statuses: ${statuses.join(',')}`);
    assertProblem(last!, 429, /writes a minute/);
    assert.ok(last!.headers.get('retry-after'));
    // Reads are not limited.
    assert.equal((await call(api.base, 'GET', '/api/v1/graphs', { headers: { 'x-api-key': 'k-write' } })).status, 200);
  });
});

describe('hardening: the write rate limit counts per valid key, else per address (issue 23)', () => {
  const randomKey = () => `k-${Math.random().toString(36).slice(2)}`;
  const createGraph = (api: TestApi, key: string) =>
    call(api.base, 'POST', '/api/v1/graphs', { json: {}, headers: { 'x-api-key': key } });

  it('with authentication off, a new X-API-Key on every write does not reset the limit', async () => {
    const api = await startApi({ env: { LINEAGE_SVC_API_RATE_LIMIT_PER_MINUTE: '5' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 8; i += 1) statuses.push((await createGraph(api, randomKey())).status);
      assert.deepEqual(statuses, [201, 201, 201, 201, 201, 429, 429, 429]);
    } finally {
      await api.dispose();
    }
  });

  it('with authentication on, each valid key has its own count and unknown keys are refused before counting', async () => {
    const api = await startApi({
      env: { LINEAGE_SVC_API_KEYS: 'k-one=write,k-two=write', LINEAGE_SVC_API_RATE_LIMIT_PER_MINUTE: '3' },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await createGraph(api, randomKey())).status);
      for (let i = 0; i < 4; i += 1) statuses.push((await createGraph(api, 'k-one')).status);
      for (let i = 0; i < 2; i += 1) statuses.push((await createGraph(api, 'k-two')).status);
      assert.deepEqual(statuses, [403, 403, 403, 201, 201, 201, 429, 201, 201]);
    } finally {
      await api.dispose();
    }
  });
});

describe('hardening: header fields too large', () => {
  it('answers 431 as problem+json', async () => {
    const api = await startApi();
    try {
      const { port } = new URL(api.base);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () =>
          socket.write(`GET /api/v1/graphs HTTP/1.1\r\nHost: x\r\nx-padding: ${'a'.repeat(64 * 1024)}\r\n\r\n`),
        );
        let data = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (data += chunk));
        socket.on('error', (error: NodeJS.ErrnoException) =>
          error.code === 'ECONNRESET' ? resolve(data) : reject(error),
        );
        socket.on('close', () => resolve(data));
      });
      assert.match(answer, /^HTTP\/1\.1 431 /);
      const head = answer.slice(0, answer.indexOf('\r\n\r\n'));
      assert.match(head, /\r\ncontent-type: application\/problem\+json/i);
      const body = JSON.parse(answer.slice(head.length + 4));
      assert.equal(body.status, 431);
      assert.equal(body.title, 'Request Header Fields Too Large');
      assert.equal(body.type, 'urn:lineage-svc:problem:request-header-fields-too-large');
      assert.match(body.detail, /header fields .* larger than .* bytes/);
      // The server still answers.
      assert.equal((await call(api.base, 'GET', '/api/v1/health')).status, 200);
    } finally {
      await api.dispose();
    }
  });
});

describe('hardening: slow clients', () => {
  it('closes a stalled upload after the request timeout', async () => {
    const api = await startApi({ env: { LINEAGE_SVC_API_REQUEST_TIMEOUT_SECONDS: '1' } });
    try {
      const { port } = new URL(api.base);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () =>
          socket.write(
            'POST /api/v1/lineage HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"a":',
          ),
        );
        let data = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (data += chunk));
        socket.on('error', reject);
        socket.on('close', () => resolve(data));
      });
      // Closed by the server (the promise resolves only on close); a 408 when it had time to answer.
      assert.ok(answer === '' || /^HTTP\/1\.1 408/.test(answer), answer);
    } finally {
      await api.dispose();
    }
  });

  it('closes stalled connections when the app closes', async () => {
    const api = await startApi();
    const { port } = new URL(api.base);
    const socket = await stalledUpload(port);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await api.dispose(); // would hang on the stalled upload before the fix
    await closed;
    assert.ok(socket.destroyed);
  });
});

/**
 * A keep-alive connection the server knows (one answered request), then an upload that stalls after
 * its first byte of 1,000: what a slow or dead client leaves open.
 */
async function stalledUpload(port: string): Promise<Socket> {
  const socket = connect(Number(port), '127.0.0.1');
  socket.setEncoding('utf8');
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write('GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n');
  await new Promise<void>((resolve) => socket.once('data', () => resolve()));
  socket.write(
    'POST /api/v1/lineage HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{',
  );
  return socket;
}

describe('hardening: shutdown', () => {
  it('exits 0 on SIGTERM while an upload is stalled', async () => {
    const child = await startApiProcess({ LINEAGE_SVC_STORAGE__BACKEND: 'memory' });
    const { port } = new URL(child.base);
    await stalledUpload(port);
    await child.stop();
    assert.equal(child.child.exitCode, 0, child.output().slice(-2000));
    assert.doesNotMatch(child.output(), /killed by timeout/);
  });
});

describe('hardening: one platform budget per credential', () => {
  it('shares the token bucket of a credential between clients', async () => {
    const budgets = createPlatformBudgets();
    const waits: number[] = [];
    const options = {
      budgets,
      rateLimit: { burst: 2, perHour: 3600 },
      sleep: async (ms: number) => {
        waits.push(ms);
        await new Promise((resolve) => setImmediate(resolve));
        throw new Error('budget exhausted');
      },
      fetch: (async () => new Response('{}', { status: 200 })) as typeof fetch,
      retryBaseDelayMs: 0,
    };
    const target = { base: 'http://platform.invalid', credentials: { key: 'K', secret: 'S' } };
    const first = createHttpClient(options);
    const second = createHttpClient(options);
    await first.getJson({ api: 'a', target, path: '/x' }, z.object({}));
    await second.getJson({ api: 'a', target, path: '/x' }, z.object({}));
    assert.deepEqual(waits, [], 'two requests fit in the burst of 2');
    await assert.rejects(second.getJson({ api: 'a', target, path: '/x' }, z.object({})));
    assert.ok(waits.length >= 1 && waits[0]! > 0, 'the third request, from either client, waits on the shared bucket');
    // A client with budgets of its own does not wait.
    waits.length = 0;
    await createHttpClient({ ...options, budgets: createPlatformBudgets() }).getJson(
      { api: 'a', target, path: '/x' },
      z.object({}),
    );
    assert.deepEqual(waits, []);
  });
});
