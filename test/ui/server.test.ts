/**
 * The UI server on real sockets: it serves the built app with a strict Content-Security-Policy,
 * proxies /api/v1 to the API adding its key to reads only (and dropping one sent by a browser),
 * answers problem+json for unknown paths and when the API is down, and reads its settings from the
 * environment with clear errors. Then, against a real API with a read key for the UI and a key of
 * every role for the user (issue 23): a write without the user's key is refused (the old server
 * lent its key: 201), a write with it works, a foreign Origin or Host is 403, reads work with the
 * UI's key.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { networkInterfaces } from 'node:os';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  buildUiServer,
  CONTENT_SECURITY_POLICY,
  defaultAllowedHosts,
  loadUiSettings,
  refusalOf,
} from '../../infra/ui/server.js';
import { startApi, type TestApi } from '../http/helpers.js';
import { ensureUiBuilt, requestWithExactHeaders } from './helpers.js';

describe('lineage-svc-ui server', () => {
  let upstream: Server;
  let upstreamUrl: string;
  const seen: { url: string; headers: IncomingHttpHeaders; body: string }[] = [];
  let ui: FastifyInstance;
  let base: string;

  before(async () => {
    ensureUiBuilt();
    upstream = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        seen.push({ url: request.url ?? '', headers: request.headers, body });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ ok: true, url: request.url }));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    ui = await buildUiServer({ settings: { apiUrl: upstreamUrl, apiKey: 'secret-key' } });
    await ui.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(ui.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await ui.close();
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
  });

  it('serves the app with a Content-Security-Policy that keeps everything on its origin', async () => {
    const response = await fetch(`${base}/`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/html/);
    assert.equal(response.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY);
    assert.match(CONTENT_SECURITY_POLICY, /default-src 'self';.*frame-ancestors 'none'/);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
    assert.ok(response.headers.get('strict-transport-security'), 'helmet headers are on');
    const html = await response.text();
    assert.doesNotMatch(html, /https?:\/\//, 'the page names no outside host');
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html);
    assert.ok(script, html);
    const asset = await fetch(`${base}/${script[1]}`);
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('content-type') ?? '', /javascript/);
  });

  it('proxies a read with the configured key, replacing a key sent by the browser, and never forwards cookies', async () => {
    const response = await fetch(`${base}/api/v1/graphs?limit=3`, {
      headers: { 'x-api-key': 'from-the-browser', cookie: 'session=1' },
    });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { ok: true, url: '/api/v1/graphs?limit=3' });
    const request = seen.at(-1)!;
    assert.equal(request.headers['x-api-key'], 'secret-key');
    assert.equal(request.headers.cookie, undefined);
  });

  it("proxies a write with the browser's own key only, never the configured one", async () => {
    const response = await fetch(`${base}/api/v1/graphs?limit=3`, {
      method: 'POST',
      headers: { 'x-api-key': 'from-the-browser', 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ name: 'g' }),
    });
    assert.equal(response.status, 200);
    const request = seen.at(-1)!;
    assert.equal(request.headers['x-api-key'], 'from-the-browser');
    assert.equal(request.body, JSON.stringify({ name: 'g' }));
    const count = seen.length;
    const refused = await fetch(`${base}/api/v1/graphs`, {
      method: 'DELETE',
      headers: { origin: base },
    });
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate') ?? '', /X-API-Key/);
    assert.equal(seen.length, count, 'a write without a key never reaches the API');
  });

  it('answers problem+json 404 for an unknown page', async () => {
    const response = await fetch(`${base}/no/such/page`);
    assert.equal(response.status, 404);
    assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const body = (await response.json()) as { status: number; detail: string };
    assert.equal(body.status, 404);
    assert.match(body.detail, /no such page/);
  });

  it('answers problem+json 502 naming the API when the API does not answer', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const lonely = await buildUiServer({ settings: { apiUrl: deadUrl, apiKey: undefined } });
    try {
      const response = await lonely.inject({ method: 'GET', url: '/api/v1/graphs' });
      assert.equal(response.statusCode, 502);
      assert.match(response.headers['content-type'] as string, /^application\/problem\+json/);
      assert.match(response.json().detail, new RegExp(`API at ${deadUrl} does not answer`));
    } finally {
      await lonely.close();
    }
  });

  it('reads its settings from the environment, with defaults and clear errors', () => {
    assert.deepEqual(loadUiSettings({}), {
      host: '127.0.0.1',
      port: 8501,
      apiUrl: 'http://127.0.0.1:8000',
      apiKey: undefined,
      allowedHosts: undefined,
    });
    assert.deepEqual(
      loadUiSettings({
        LINEAGE_SVC_UI_HOST: '0.0.0.0',
        LINEAGE_SVC_UI_PORT: '9000',
        LINEAGE_SVC_API_URL: 'http://api:8000/',
        LINEAGE_SVC_API_KEY: 'k',
        LINEAGE_SVC_UI_ALLOWED_HOSTS: 'Lineage.Example.com, localhost:9000,[::1]:9000, 10.0.0.7',
      }),
      {
        host: '0.0.0.0',
        port: 9000,
        apiUrl: 'http://api:8000',
        apiKey: 'k',
        allowedHosts: ['lineage.example.com', 'localhost:9000', '[::1]:9000', '10.0.0.7'],
      },
    );
    for (const bad of ['http://lineage.example.com', 'a.example/path', 'a,,b', 'user@host', 'host:99999'])
      assert.throws(
        () => loadUiSettings({ LINEAGE_SVC_UI_ALLOWED_HOSTS: bad }),
        /LINEAGE_SVC_UI_ALLOWED_HOSTS: must be comma-separated host or host:port entries/,
        bad,
      );
    assert.throws(() => loadUiSettings({ LINEAGE_SVC_UI_PORT: '70000' }), /LINEAGE_SVC_UI_PORT: must be a port/);
    assert.throws(() => loadUiSettings({ LINEAGE_SVC_API_URL: 'ftp://x' }), /LINEAGE_SVC_API_URL: must be an http/);
  });

  it('refuses to start when the app is not built', async () => {
    await assert.rejects(
      buildUiServer({ settings: { apiUrl: upstreamUrl, apiKey: undefined }, assetFolder: '/nonexistent' }),
      /the web UI is not built: .*run make build/,
    );
  });
});

describe('lineage-svc-ui server in front of a real API: a UI that does not lend its key', () => {
  /** The UI's key holds every role here (as a careless deployment would give it): it must still lend it to reads only. */
  const UI_KEY = 'ui-server-key-every-role-7d2e';
  const USER_KEY = 'user-own-key-write-3b9a';
  const READ_ONLY_KEY = 'user-read-only-key-5c1f';
  let api: TestApi;
  let ui: FastifyInstance;
  let base: string;
  const json = (extra: Record<string, string> = {}) => ({ 'content-type': 'application/json', ...extra });
  const graphNames = async () => {
    const response = await fetch(`${base}/api/v1/graphs`);
    assert.equal(response.status, 200);
    return ((await response.json()) as { graphs: { name: string | null }[] }).graphs.map((graph) => graph.name);
  };

  before(async () => {
    ensureUiBuilt();
    api = await startApi({
      env: {
        LINEAGE_SVC_API_KEY: UI_KEY,
        LINEAGE_SVC_API_KEYS: `${USER_KEY}=read+write+operate,${READ_ONLY_KEY}=read`,
      },
    });
    ui = await buildUiServer({ settings: { apiUrl: api.base, apiKey: UI_KEY } });
    await ui.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(ui.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await ui?.close();
    await api?.dispose();
  });

  it("refuses a write that carries no key of the user's, even from the UI's own page (the old server answered 201)", async () => {
    const direct = await fetch(`${api.base}/api/v1/graphs`, {
      method: 'POST',
      headers: json(),
      body: JSON.stringify({ name: 'lent' }),
    });
    assert.equal(direct.status, 403, 'the API itself wants a key');
    const throughUi = await fetch(`${base}/api/v1/graphs`, {
      method: 'POST',
      headers: json({ origin: base }),
      body: JSON.stringify({ name: 'lent' }),
    });
    assert.equal(throughUi.status, 401);
    assert.match(throughUi.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const problem = (await throughUi.json()) as { type: string; detail: string };
    assert.equal(problem.type, 'urn:lineage-svc:problem:api-key-missing');
    assert.match(problem.detail, /needs your own API key in X-API-Key/);
    // An operate action (an extraction with the operator's platform credentials) likewise.
    const extraction = await fetch(`${base}/api/v1/tasks/extract`, {
      method: 'POST',
      headers: json({ origin: base }),
      body: JSON.stringify({ environment_ids: ['env-q7m2k9'] }),
    });
    assert.equal(extraction.status, 401);
    assert.deepEqual(await graphNames(), [], 'nothing was stored');
  });

  it("passes a write with the user's own key, and the API's answer to a wrong or read-only key", async () => {
    const created = await fetch(`${base}/api/v1/graphs`, {
      method: 'POST',
      headers: json({ origin: base, 'x-api-key': USER_KEY }),
      body: JSON.stringify({ name: 'signed-in' }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const wrong = await fetch(`${base}/api/v1/graphs`, {
      method: 'POST',
      headers: json({ origin: base, 'x-api-key': 'not-a-key' }),
      body: JSON.stringify({ name: 'wrong' }),
    });
    assert.equal(wrong.status, 403);
    assert.match(((await wrong.json()) as { detail: string }).detail, /API key is invalid/);
    const readOnly = await fetch(`${base}/api/v1/graphs`, {
      method: 'POST',
      headers: json({ origin: base, 'x-api-key': READ_ONLY_KEY }),
      body: JSON.stringify({ name: 'read-only' }),
    });
    assert.equal(readOnly.status, 403);
    assert.match(((await readOnly.json()) as { detail: string }).detail, /lacks the "write" role/);
    assert.deepEqual(await graphNames(), ['signed-in']);
  });

  it('refuses a request from another origin (403), with or without a key, and one with no Origin that changes something', async () => {
    for (const [method, origin] of [
      ['POST', 'http://evil.example'],
      ['POST', 'null'],
      ['POST', base.replace('127.0.0.1', 'localhost')],
      ['GET', 'http://evil.example'],
    ] as const) {
      const response = await fetch(`${base}/api/v1/graphs`, {
        method,
        headers: json({ origin, 'x-api-key': USER_KEY }),
        ...(method === 'POST' ? { body: JSON.stringify({ name: 'cross-site' }) } : {}),
      });
      assert.equal(response.status, 403, `${method} from ${origin}`);
      const problem = (await response.json()) as { type: string; detail: string };
      assert.equal(problem.type, 'urn:lineage-svc:problem:origin-not-allowed');
      assert.match(problem.detail, /only the UI's own page/);
    }
    const noOrigin = await fetch(`${base}/api/v1/graphs`, {
      method: 'POST',
      headers: json({ 'x-api-key': USER_KEY }),
      body: JSON.stringify({ name: 'no-origin' }),
    });
    assert.equal(noOrigin.status, 403);
    assert.match(((await noOrigin.json()) as { detail: string }).detail, /no Origin header/);
    assert.deepEqual(await graphNames(), ['signed-in'], 'nothing more was stored');
  });

  it('refuses a Host that is not one of its hosts (DNS rebinding), for the page and the API alike', async () => {
    const port = new URL(base).port;
    for (const path of ['/', '/api/v1/graphs']) {
      const rebound = await requestWithExactHeaders(base, 'GET', path, { host: `attacker.example:${port}` });
      assert.equal(rebound.status, 403, path);
      assert.match(rebound.headers['content-type'] ?? '', /^application\/problem\+json/);
      assert.equal(JSON.parse(rebound.text).type, 'urn:lineage-svc:problem:host-not-allowed');
      assert.doesNotMatch(rebound.text, /signed-in/);
      assert.doesNotMatch(JSON.parse(rebound.text).detail, /127\.0\.0\.1/, 'the allowed hosts are not told');
    }
    const rebound = await requestWithExactHeaders(
      base,
      'POST',
      '/api/v1/graphs',
      { host: `attacker.example:${port}`, origin: `http://attacker.example:${port}`, 'x-api-key': USER_KEY, ...json() },
      JSON.stringify({ name: 'rebound' }),
    );
    assert.equal(rebound.status, 403);
    assert.equal((await requestWithExactHeaders(base, 'GET', '/', {})).status, 403, 'no Host at all');
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`])
      assert.equal((await requestWithExactHeaders(base, 'GET', '/api/v1/graphs', { host })).status, 200, host);
    assert.deepEqual(await graphNames(), ['signed-in']);
  });

  it("serves reads with the UI's key, and the page of a host named in LINEAGE_SVC_UI_ALLOWED_HOSTS only", async () => {
    const reads = await fetch(`${base}/api/v1/graphs`, { headers: { origin: base } });
    assert.equal(reads.status, 200);
    const head = await fetch(`${base}/api/v1/health`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    const named = await buildUiServer({
      settings: {
        apiUrl: api.base,
        apiKey: UI_KEY,
        allowedHosts: loadUiSettings({ LINEAGE_SVC_UI_ALLOWED_HOSTS: 'lineage.example.com' }).allowedHosts,
      },
    });
    try {
      assert.equal(
        (await named.inject({ method: 'GET', url: '/', headers: { host: 'lineage.example.com' } })).statusCode,
        200,
      );
      assert.equal((await named.inject({ method: 'GET', url: '/', headers: { host: 'localhost' } })).statusCode, 403);
    } finally {
      await named.close();
    }
  });

  it('allows by default loopback names and the bind address, on any port, and every interface address for a wildcard bind', () => {
    assert.deepEqual(defaultAllowedHosts('127.0.0.1'), ['localhost', '127.0.0.1', '[::1]']);
    assert.deepEqual(defaultAllowedHosts('10.1.2.3'), ['localhost', '127.0.0.1', '[::1]', '10.1.2.3']);
    assert.deepEqual(defaultAllowedHosts('fd00::7'), ['localhost', '127.0.0.1', '[::1]', '[fd00::7]']);
    const wildcard = defaultAllowedHosts('0.0.0.0');
    assert.ok(wildcard.includes('0.0.0.0'), 'the address lineage-svc-ui prints');
    for (const address of Object.values(networkInterfaces()).flat())
      if (address?.family === 'IPv4') assert.ok(wildcard.includes(address.address), address.address);
    assert.equal(refusalOf('GET', { host: 'localhost:1234' }, ['localhost'], true), undefined);
    assert.equal(refusalOf('GET', { host: 'localhost:1234' }, ['localhost:99'], true)?.type, 'host-not-allowed');
    assert.equal(refusalOf('GET', { host: 'lineage.example.com:99' }, ['lineage.example.com:99'], true), undefined);
  });
});
