/**
 * `lineage-svc-ui`'s Marquez Web server (`infra/ui/marquezWeb.ts`): Marquez Web's own routes answer
 * its `index.html`, both API bases its build calls are proxied, and the UI server's guards hold
 * (issue 23): a foreign `Host` or `Origin` is refused, the server's key goes with reads only, a write
 * without the user's own key is refused before it reaches the API. Real sockets on 127.0.0.1: the
 * "API" is an HTTP server that records what reaches it. Settings: a folder without a build is refused.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildMarquezWebServer, loadMarquezWebSettings } from '../../infra/ui/marquezWeb.js';

const SERVER_KEY = 'marquez-web-read-key';
const INDEX = '<!doctype html><html><head><base href="/"/></head><body><div id="root"></div></body></html>';

describe("lineage-svc-ui's Marquez Web server", () => {
  let folder: string;
  let api: Server;
  let web: FastifyInstance;
  let base = '';
  const reached: Array<{ method: string; url: string; headers: IncomingHttpHeaders }> = [];

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'lineage-marquez-web-'));
    writeFileSync(join(folder, 'index.html'), INDEX);
    writeFileSync(join(folder, 'bundle.js'), 'console.log("marquez web")');
    api = createServer((request, response) => {
      reached.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"namespaces":[]}');
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const apiUrl = `http://127.0.0.1:${(api.address() as { port: number }).port}`;
    web = await buildMarquezWebServer(folder, { settings: { apiUrl, apiKey: SERVER_KEY } });
    await web.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(web.server.address() as { port: number }).port}`;
  });

  after(async () => {
    await web?.close();
    await new Promise((resolve) => api?.close(resolve));
    rmSync(folder, { recursive: true, force: true });
  });

  it("answers Marquez Web's own routes with its index.html, and 404 elsewhere", async () => {
    for (const path of [
      '/',
      '/jobs',
      '/datasets',
      '/events',
      '/lineage/job/ns/name',
      '/datasets/column-level/a%3A%2F%2Fb/c',
    ]) {
      const answer = await fetch(`${base}${path}`);
      assert.equal(answer.status, 200, path);
      assert.equal(await answer.text(), INDEX, path);
    }
    assert.equal((await fetch(`${base}/bundle.js`)).status, 200);
    const missing = await fetch(`${base}/nothing-here`);
    assert.equal(missing.status, 404);
    assert.match(missing.headers.get('content-type') ?? '', /^application\/problem\+json/);
  });

  it('proxies both API bases, lending its key to reads only', async () => {
    reached.length = 0;
    assert.equal(
      (await fetch(`${base}/api/v1/namespaces`, { headers: { 'x-api-key': 'from-the-browser' } })).status,
      200,
    );
    assert.equal((await fetch(`${base}/api/v2beta/search?q=a`)).status, 200);
    assert.deepEqual(
      reached.map((entry) => [entry.method, entry.url, entry.headers['x-api-key']]),
      [
        ['GET', '/api/v1/namespaces', SERVER_KEY],
        ['GET', '/api/v2beta/search?q=a', SERVER_KEY],
      ],
    );
  });

  it('refuses a foreign Host, a foreign Origin and a write without the user’s key', async () => {
    reached.length = 0;
    // fetch cannot send another Host: node:http can.
    const foreignHost = await new Promise<number>((resolve, reject) => {
      request(`${base}/api/v1/namespaces`, { headers: { host: 'attacker.example' } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    assert.equal(foreignHost, 403);
    const foreignOrigin = await fetch(`${base}/api/v1/tags/PII`, {
      method: 'PUT',
      headers: { origin: 'https://attacker.example' },
    });
    assert.equal(foreignOrigin.status, 403);
    const anonymousWrite = await fetch(`${base}/api/v1/namespaces/a/datasets/b`, {
      method: 'DELETE',
      headers: { origin: base },
    });
    assert.equal(anonymousWrite.status, 401);
    assert.equal((await anonymousWrite.json()).type, 'urn:lineage-svc:problem:api-key-missing');
    assert.deepEqual(reached, [], 'nothing refused reached the API');
    const userWrite = await fetch(`${base}/api/v1/namespaces/a/datasets/b`, {
      method: 'DELETE',
      headers: { origin: base, 'x-api-key': 'user-key' },
    });
    assert.equal(userWrite.status, 200);
    assert.equal(
      (reached as Array<{ headers: IncomingHttpHeaders }>)[0]?.headers['x-api-key'],
      'user-key',
      "a write carries the user's key, never the server's",
    );
  });

  it('reads its settings: off by default, port 3000, a folder without a build refused', () => {
    assert.deepEqual(loadMarquezWebSettings({}), { folder: undefined, port: 3000 });
    assert.deepEqual(
      loadMarquezWebSettings({ LINEAGE_SVC_MARQUEZ_WEB_DIR: folder, LINEAGE_SVC_MARQUEZ_WEB_PORT: '0' }),
      { folder, port: 0 },
    );
    assert.throws(
      () => loadMarquezWebSettings({ LINEAGE_SVC_MARQUEZ_WEB_DIR: tmpdir() }),
      /LINEAGE_SVC_MARQUEZ_WEB_DIR: .*index\.html is missing/,
    );
    assert.throws(() => loadMarquezWebSettings({ LINEAGE_SVC_MARQUEZ_WEB_PORT: 'x' }), /LINEAGE_SVC_MARQUEZ_WEB_PORT/);
  });
});
