/**
 * The UI server on real sockets: it serves the built app with a strict Content-Security-Policy,
 * proxies /api/v1 to the API adding the key (and dropping one sent by a browser), answers
 * problem+json for unknown paths and when the API is down, and reads its settings from the
 * environment with clear errors.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildUiServer, CONTENT_SECURITY_POLICY, loadUiSettings } from '../../infra/ui/server.js';
import { ensureUiBuilt } from './helpers.js';

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

  it('proxies /api/v1 with the configured key, replacing a key sent by the browser', async () => {
    const response = await fetch(`${base}/api/v1/graphs?limit=3`, {
      method: 'POST',
      headers: { 'x-api-key': 'from-the-browser', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'g' }),
    });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { ok: true, url: '/api/v1/graphs?limit=3' });
    const request = seen.at(-1)!;
    assert.equal(request.headers['x-api-key'], 'secret-key');
    assert.equal(request.body, JSON.stringify({ name: 'g' }));
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
    });
    assert.deepEqual(
      loadUiSettings({
        LINEAGE_SVC_UI_HOST: '0.0.0.0',
        LINEAGE_SVC_UI_PORT: '9000',
        LINEAGE_SVC_API_URL: 'http://api:8000/',
        LINEAGE_SVC_API_KEY: 'k',
      }),
      { host: '0.0.0.0', port: 9000, apiUrl: 'http://api:8000', apiKey: 'k' },
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
