/**
 * Marquez Web, unchanged, against lineage-svc (issue 25, "Done when"): the production build of
 * Marquez's web UI (`../shared/marquez-web/dist`) served by `lineage-svc-ui`'s Marquez Web server
 * (`infra/ui/marquezWeb.ts`) against `lineage-svc-api` on the demo estate (the platform simulator)
 * plus ingested OpenLineage runs (`helpers.ts`), driven in headless Chromium through the home page,
 * jobs, datasets, events, a job's and a dataset's lineage page with their drawers (runs, run facets,
 * versions), a column-level page and a search. Every answer to the UI's API requests must be 2xx and
 * no uncaught error may reach the page. Requests that would leave the machine (Google Fonts, which
 * the build's `index.html` links) are aborted; the build's missing `img/` icons are not API calls.
 * Skipped with a notice when `../shared/marquez-web/dist` or Chromium is absent.
 *
 * Last, a refused lineage request (a node that does not exist, 404): Marquez Web's fetch wrapper
 * builds its error text from Marquez's error members (`code`, `message`, `details`), which our
 * problem document carries on the Marquez routes. This build's sagas catch that text and show a
 * fixed one ("Something went wrong while fetching lineage"), so the text the wrapper threw is read
 * from Chromium's debugger (paused on caught exceptions), and the visible toast is checked beside it.
 * The page is the one the tests before left open, sent to the lineage page as its own links do.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page, Response } from 'playwright-core';
import { findChromium, launchChromium } from '../../infra/ui/browser.js';
import { buildMarquezWebServer } from '../../infra/ui/marquezWeb.js';
import {
  MARQUEZ_TEST_KEY,
  REPORT_DATASET,
  REPORT_NAMESPACE,
  SPARK_JOB,
  SPARK_NAMESPACE,
  startMarquezStack,
  type MarquezStack,
} from './helpers.js';

const MARQUEZ_WEB_DIST = resolve(import.meta.dirname, '..', '..', '..', 'shared', 'marquez-web', 'dist');
const skip = !existsSync(join(MARQUEZ_WEB_DIST, 'index.html'))
  ? 'SKIPPED: ../shared/marquez-web/dist not found; Marquez Web not run'
  : !findChromium()
    ? 'SKIPPED: no Chromium (apt-get install chromium); Marquez Web not run'
    : false;

describe('Marquez Web, unchanged, against lineage-svc', { skip }, () => {
  let stack: MarquezStack;
  let web: FastifyInstance;
  let browser: Browser;
  let page: Page;
  let base = '';
  const apiErrors: string[] = [];
  const pageErrors: string[] = [];
  const apiCalls: string[] = [];

  before(async () => {
    stack = await startMarquezStack();
    web = await buildMarquezWebServer(MARQUEZ_WEB_DIST, {
      settings: { apiUrl: stack.api.base, apiKey: MARQUEZ_TEST_KEY },
    });
    await web.listen({ host: '127.0.0.1', port: 0 });
    const address = web.server.address();
    assert.ok(address && typeof address === 'object');
    base = `http://127.0.0.1:${address.port}`;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 }, timezoneId: 'UTC' });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('response', (response) => {
      const path = decodeURIComponent(response.url().slice(base.length));
      if (!path.startsWith('/api/')) return;
      apiCalls.push(path);
      if (response.status() >= 400) apiErrors.push(`${response.status()} ${response.request().method()} ${path}`);
    });
    await page.route('**/*', (route) =>
      route.request().url().startsWith(base) ? route.continue() : route.abort('blockedbyclient'),
    );
  });

  after(async () => {
    await browser?.close();
    await web?.close();
    await stack?.close();
  });

  /** Opens `path` and waits for the API answer whose path starts with `apiPath`. */
  async function open(path: string, apiPath: string): Promise<Response> {
    const answer = page.waitForResponse((response) =>
      decodeURIComponent(response.url()).startsWith(`${base}${apiPath}`),
    );
    await page.goto(`${base}${path}`);
    return answer;
  }

  const drawer = () => page.locator('.MuiDrawer-paperAnchorRight');
  const enc = encodeURIComponent;

  it('shows the home page: statistics and the latest jobs', async () => {
    const jobs = await open('/', '/api/v1/jobs?');
    assert.equal(jobs.status(), 200);
    await page.getByText(SPARK_JOB).first().waitFor();
    assert.ok(apiCalls.some((call) => call.startsWith('/api/v1/stats/lineage-events?period=DAY')));
  });

  it('lists jobs, datasets and events', async () => {
    assert.equal((await open('/jobs', '/api/v1/namespaces/')).status(), 200);
    assert.equal((await open('/datasets', '/api/v1/namespaces/')).status(), 200);
    const events = await open('/events', '/api/v1/events/lineage?');
    assert.equal(events.status(), 200);
    await page.getByText('FAIL', { exact: true }).first().waitFor();
    await page.getByText(SPARK_JOB).first().waitFor();
  });

  it("draws a job's lineage and opens its drawer: latest run, run facets, run history", async () => {
    const nodeId = `job:${SPARK_NAMESPACE}:${SPARK_JOB}`;
    const runs = page.waitForResponse((response) =>
      decodeURIComponent(response.url()).includes(`/jobs/${SPARK_JOB}/runs?`),
    );
    const facets = page.waitForResponse((response) => response.url().includes('/facets?type=job'));
    const lineage = await open(
      `/lineage/job/${enc(SPARK_NAMESPACE)}/${SPARK_JOB}?tableLevelNode=${enc(nodeId)}`,
      '/api/v1/lineage?',
    );
    assert.equal(lineage.status(), 200);
    const graph = (await lineage.json()) as { graph: Array<{ id: string }> };
    assert.ok(
      graph.graph.some((node) => node.id === nodeId) &&
        graph.graph.some((node) => node.id === `dataset:s3://reports:${REPORT_DATASET}`),
    );
    assert.equal((await runs).status(), 200);
    assert.equal((await facets).status(), 200);
    // The lineage is drawn: a node per graph node, edges between them.
    await page.getByText('orders_daily_rep').first().waitFor();
    assert.ok((await page.locator('svg path').count()) > 0, 'edges drawn');
    await drawer().getByText('RUNNING STATUS').waitFor();
    await drawer().getByText('FAILED').first().waitFor();
    await drawer().getByText('nominalTime').first().waitFor();
    await drawer().getByText('RUN HISTORY').click();
    await drawer().getByText('COMPLETED').first().waitFor();
  });

  it("draws a dataset's lineage and opens its drawer: schema and version history", async () => {
    const { namespace, name } = stack.topic;
    const nodeId = `dataset:${namespace}:${name}`;
    const detail = page.waitForResponse((response) => decodeURIComponent(response.url()).endsWith(`/datasets/${name}`));
    const lineage = await open(
      `/lineage/dataset/${enc(namespace)}/${enc(name)}?tableLevelNode=${enc(nodeId)}`,
      '/api/v1/lineage?',
    );
    assert.equal(lineage.status(), 200);
    const graph = (await lineage.json()) as { graph: Array<{ id: string; type: string }> };
    // One graph: the extracted jobs around the topic and the ingested Spark job that reads it.
    assert.ok(graph.graph.some((node) => node.id === `job:${SPARK_NAMESPACE}:${SPARK_JOB}`));
    assert.ok(graph.graph.filter((node) => node.type === 'JOB').length >= 3);
    assert.equal((await detail).status(), 200);
    await drawer().getByText('LATEST SCHEMA').waitFor();
    const versions = page.waitForResponse((response) => response.url().includes('/versions?'));
    await drawer().getByText('VERSION HISTORY').click();
    const answer = await versions;
    assert.equal(answer.status(), 200);
    const body = (await answer.json()) as { versions: unknown[] };
    assert.ok(body.versions.length >= 1, 'a version per history entry');
  });

  it('draws the column lineage of a dataset', async () => {
    const answer = await open(
      `/datasets/column-level/${enc(REPORT_NAMESPACE)}/${enc(REPORT_DATASET)}`,
      '/api/v1/column-lineage?',
    );
    assert.equal(answer.status(), 200);
    const graph = (await answer.json()) as { graph: Array<{ id: string; inEdges: unknown[] }> };
    assert.ok(
      graph.graph.some((node) => node.inEdges.length > 0),
      'a field with its inputs',
    );
    await page.getByText(`${stack.topicField}_daily`).first().waitFor();
    await page.getByText(stack.topic.name).first().waitFor();
  });

  it('searches and lists the result', async () => {
    await open('/', '/api/v1/jobs?');
    // The report dataset is named nowhere on the home page: only the search's result list shows it.
    assert.equal(await page.getByText(REPORT_DATASET).count(), 0);
    const search = page.waitForResponse((response) => response.url().includes('/api/v1/search?'));
    await page.locator('#searchBar').fill('daily');
    const answer = await search;
    assert.equal(answer.status(), 200);
    const body = (await answer.json()) as { results: Array<{ name: string }> };
    assert.ok(body.results.some((result) => result.name === REPORT_DATASET));
    await page.getByText(REPORT_DATASET).first().waitFor();
  });

  it('answered every API request of the UI with 2xx and raised no page error', () => {
    assert.ok(apiCalls.length >= 20, `the UI called the API (${apiCalls.length} calls)`);
    assert.deepEqual(apiErrors, []);
    assert.deepEqual(pageErrors, []);
  });

  // After the check above: this one's API request is refused on purpose.
  it('builds its error text of a refused lineage request from our message, and shows its own toast', async () => {
    const debug = await page.context().newCDPSession(page);
    const thrown: string[] = [];
    debug.on('Debugger.paused', (event) => {
      const exception = event.data as { value?: unknown } | undefined;
      if (event.reason === 'exception' && typeof exception?.value === 'string') thrown.push(exception.value);
      void debug.send('Debugger.resume');
    });
    await debug.send('Debugger.enable');
    await debug.send('Debugger.setPauseOnExceptions', { state: 'caught' });
    try {
      // Navigated inside the page already open, as its links do (a reload would parse the bundle under the debugger).
      const lineage = page.waitForResponse((response) => response.url().startsWith(`${base}/api/v1/lineage?`));
      await page.evaluate(
        (path) => {
          history.pushState(null, '', path);
          dispatchEvent(new PopStateEvent('popstate'));
        },
        `/lineage/dataset/nowhere/nothing?tableLevelNode=${enc('dataset:nowhere:nothing')}`,
      );
      assert.equal((await lineage).status(), 404);
      await page.getByText('Something went wrong while fetching lineage').waitFor();
    } finally {
      await debug.send('Debugger.setPauseOnExceptions', { state: 'none' });
      await debug.detach();
    }
    const text = thrown.find((value) => value.startsWith('fetchLineage responded with error code'));
    assert.equal(
      text,
      'fetchLineage responded with error code 404: dataset "nothing" in namespace "nowhere" is not known.  ' +
        'Here are the details: Not Found (urn:lineage-svc:problem:not-found)',
    );
  });
});
