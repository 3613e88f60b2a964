/**
 * Helpers of the web UI tests: the whole stack on real sockets (127.0.0.1, ephemeral ports) — the
 * platform simulator with the demo scenario, the REST API with an API key over the memory store,
 * the demo estate extracted into it (twice, with a topic added in between, so that the graph has a
 * history to travel and diff), and `lineage-svc-ui`'s server proxying to the API — plus a headless
 * Chromium page that records console errors and every request leaving the loopback address.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import {
  loadScenario,
  simulatorClientEnvironment,
  startPlatformSimulator,
  type PlatformSimulator,
} from '../../simulators/confluent/index.js';
import { findChromium, launchChromium } from '../../infra/ui/browser.js';
import { buildUiServer, defaultAssetFolder } from '../../infra/ui/server.js';
import { call, startApi, waitForTask, type TestApi } from '../http/helpers.js';
import { syntheticGraph } from '../../bench/syntheticGraph.js';

/** The API key of the test stack, every role: what a user signs in with in the page. */
export const TEST_API_KEY = 'ui-test-key-4f1c9a';

/** The UI server's own key, read only (the browser must never see it). */
export const TEST_UI_KEY = 'ui-server-read-key-8e2d';

/** Where the UI tests save their screenshots. */
export const SCREENSHOT_FOLDER = join(process.cwd(), '.tmp', 'ui-test-output');

/** The demo scenario's environments and the cluster that gets a new topic between extractions. */
export const DEMO_ENVIRONMENTS = ['env-q7m2k9', 'env-x2n4c6'];
export const NEW_TOPIC = 'ui_test.new_topic';
/** An environment the platform simulator lists but no test extracts (offered by name, "not extracted yet"). */
export const UNEXTRACTED_ENVIRONMENT = { id: 'env-u7t3s1', display_name: 'sandbox' };

/** A running stack. */
export interface UiStack {
  simulator: PlatformSimulator;
  api: TestApi;
  ui: FastifyInstance;
  /** Base URL of the UI server, e.g. `http://127.0.0.1:41234`. */
  uiUrl: string;
  graphId: string;
  /** Revisions of the graph after the first and the second extraction. */
  revisions: { first: number; second: number };
  close(): Promise<void>;
}

/** The newest modification time (ms) of the files under `folder`. */
function newestChange(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * Builds the UI into `dist/ui` with Vite when it is not built, or when a file under `ui/` changed
 * since (`make test` builds it first; `make test-file` may not have).
 */
export function ensureUiBuilt(): void {
  const index = join(defaultAssetFolder(), 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newestChange(join(process.cwd(), 'ui'))) return;
  execFileSync('npx', ['vite', 'build', '--config', 'ui/vite.config.ts'], { stdio: 'inherit' });
}

async function extract(api: TestApi): Promise<{ graphId: string; revision: number }> {
  const headers = { 'x-api-key': TEST_API_KEY };
  const started = await call(api.base, 'POST', '/api/v1/tasks/extract', {
    json: { environment_ids: DEMO_ENVIRONMENTS },
    headers,
  });
  assert.equal(started.status, 202, started.text);
  const task = await waitForTask(api.base, started.body.task_id, headers, 60_000);
  assert.equal(task.body.status, 'completed', task.text);
  const graphs = await call(api.base, 'GET', '/api/v1/graphs', { headers });
  const graph = graphs.body.graphs.find((item: { graph_id: string }) => item.graph_id === task.body.result.graph_id);
  return { graphId: task.body.result.graph_id, revision: graph.revision };
}

/** Starts the simulator, the API (with an API key), two extractions and the UI server. */
export async function startUiStack(): Promise<UiStack> {
  ensureUiBuilt();
  const scenario = await loadScenario('demo');
  scenario.environments.push({ ...UNEXTRACTED_ENVIRONMENT, kafka_clusters: [], ksqldb_clusters: [] } as never);
  const simulator = await startPlatformSimulator({ scenario, host: '127.0.0.1', port: 0 });
  const api = await startApi({
    env: {
      ...simulatorClientEnvironment(simulator.url, scenario),
      LINEAGE_SVC_API_KEY: TEST_API_KEY,
      LINEAGE_SVC_API_KEYS: `${TEST_UI_KEY}=read`,
    },
  });
  const first = await extract(api);
  const cluster = scenario.environments[0]!.kafka_clusters[0]!;
  simulator.mutate([
    {
      op: 'add_topic',
      environment_id: scenario.environments[0]!.id,
      cluster_id: cluster.id,
      topic: { name: NEW_TOPIC, partitions: 1 },
    },
  ]);
  const second = await extract(api);
  const ui = await buildUiServer({ settings: { apiUrl: api.base, apiKey: TEST_UI_KEY } });
  await ui.listen({ host: '127.0.0.1', port: 0 });
  const address = ui.server.address();
  assert.ok(address && typeof address === 'object');
  return {
    simulator,
    api,
    ui,
    uiUrl: `http://127.0.0.1:${address.port}`,
    graphId: second.graphId,
    revisions: { first: first.revision, second: second.revision },
    async close() {
      await ui.close();
      await api.dispose();
      await simulator.close();
    },
  };
}

/** Whether a URL stays on this machine (loopback, or the page's own data and blob URLs). */
export function isLocalUrl(url: string): boolean {
  if (url.startsWith('data:') || url.startsWith('blob:') || url === 'about:blank') return true;
  const host = new URL(url).hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]' || /^127\./.test(host);
}

/** A browser page that records what a UI test must not see. */
export interface GuardedPage {
  page: Page;
  /** Console errors and uncaught page errors. */
  consoleErrors: string[];
  /** Requests that would have left the loopback address (they are aborted). */
  remoteRequests: string[];
  /** API keys the page sent where it must not: the UI server's key anywhere, any key on a read. */
  sentApiKeys: string[];
  /** Asserts that nothing above was recorded. */
  assertClean(): void;
}

/** Opens a page that aborts and records non-local requests and records console errors. */
export async function openGuardedPage(browser: Browser): Promise<GuardedPage> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const guarded: GuardedPage = {
    page,
    consoleErrors: [],
    remoteRequests: [],
    sentApiKeys: [],
    assertClean() {
      assert.deepEqual(guarded.consoleErrors, [], 'console errors');
      assert.deepEqual(guarded.remoteRequests, [], 'requests that left the loopback address');
      assert.deepEqual(guarded.sentApiKeys, [], 'the browser sent an API key');
    },
  };
  page.on('console', (message) => {
    if (message.type() === 'error') guarded.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => guarded.consoleErrors.push(`page error: ${error.message}`));
  await context.route('**/*', async (route) => {
    const request = route.request();
    if (!isLocalUrl(request.url())) {
      guarded.remoteRequests.push(request.url());
      await route.abort('blockedbyclient');
      return;
    }
    const key = request.headers()['x-api-key'];
    // The user's own key goes with the actions that change something, and nowhere else.
    const read = request.method() === 'GET' || request.method() === 'HEAD';
    if (key !== undefined && (key === TEST_UI_KEY || read)) guarded.sentApiKeys.push(`${request.method()} ${key}`);
    await route.continue();
  });
  return guarded;
}

/** What the tests of a UI test file share: the browser, the stack and one guarded page. */
export interface UiSession {
  browser: Browser;
  stack: UiStack;
  guarded: GuardedPage;
  /** The guarded page (`guarded.page`). */
  page: Page;
}

/**
 * Registers, in the calling `describe`, a `before` that starts the UI stack and opens a guarded page
 * in the probed browser, handing them to `started`, and an `after` that closes the browser and the stack.
 */
export function useUiSession(
  probe: { browser: Browser } | { skip: string },
  started: (session: UiSession) => void,
): void {
  let browser: Browser | undefined;
  let stack: UiStack | undefined;
  before(async () => {
    browser = (probe as { browser: Browser }).browser;
    stack = await startUiStack();
    const guarded = await openGuardedPage(browser);
    started({ browser, stack, guarded, page: guarded.page });
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
  });
}

/**
 * Sends a request with exactly the headers given (`Host` included, or left out: fetch sets its own)
 * and answers its status, headers and body; rejects when the request fails.
 */
export function requestWithExactHeaders(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ hostname, port, method, path, headers, setHost: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * Creates the graph `name` through the API and imports the synthetic graph of `nodes` nodes and
 * `edges` edges (`seed`) into it, with `headers` (a write key).
 *
 * @returns the new graph's id; delete it at the end so that the other tests see the demo graph by default.
 * @throws AssertionError when the import is not answered 200.
 */
export async function importSyntheticGraph(
  stack: UiStack,
  headers: Record<string, string>,
  name: string,
  shape: { nodes: number; edges: number; seed: number },
): Promise<string> {
  const created = await call(stack.api.base, 'POST', '/api/v1/graphs', { json: { name }, headers });
  const graphId = created.body.graph_id as string;
  const graph = syntheticGraph(shape);
  assert.equal(
    (await call(stack.api.base, 'POST', `/api/v1/graphs/${graphId}/import`, { json: graph, headers })).status,
    200,
  );
  return graphId;
}

/** Saves a screenshot of the page under `SCREENSHOT_FOLDER` and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_FOLDER, { recursive: true });
  const path = join(SCREENSHOT_FOLDER, `${name}.png`);
  await page.screenshot({ path });
  console.log(`screenshot saved: ${path}`);
  return path;
}

/**
 * Launches Chromium, or returns a reason to skip when none is installed and none can be (the
 * notice is printed by the caller through `it(..., { skip })`).
 */
export async function browserOrSkipReason(): Promise<{ browser: Browser } | { skip: string }> {
  if (!findChromium()) {
    try {
      execFileSync('bash', ['infra/ui/ensureBrowser.sh'], { stdio: 'inherit' });
    } catch {
      // reported below
    }
  }
  if (!findChromium()) {
    return { skip: 'SKIPPED: no Chromium and it could not be installed (apt-get install chromium); UI tests not run' };
  }
  return { browser: await launchChromium() };
}

/** Waits until the graph view has drawn the current state (`data-graph-state="ready"` after `since`). */
export async function waitForRender(page: Page): Promise<number> {
  await page.locator('body[data-graph-state=ready]').waitFor({ state: 'attached', timeout: 60_000 });
  return Number(await page.locator('body').getAttribute('data-rendered-nodes'));
}
