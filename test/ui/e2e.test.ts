/**
 * End-to-end tests of the web UI in headless Chromium (Debian's `chromium`, driven by
 * playwright-core) against a real API serving the demo graph, through `lineage-svc-ui`'s server:
 * search, focus, filter, open a node, travel back in history, diff two points, start an extraction
 * and see it complete, start and stop a watcher, sign in with the user's own key when an operation
 * needs it (or take it from the URL's fragment), and an accessibility check with axe-core. Each
 * test fails on a console error, on any request that leaves the loopback address, on the UI
 * server's key seen in the browser and on a key sent with a read. Screenshots are saved under
 * `.tmp/ui-test-output/`.
 * No timing assertions: every wait is for a condition in the page, with a bounded deadline.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { call } from '../http/helpers.js';
import {
  browserOrSkipReason,
  importSyntheticGraph,
  NEW_TOPIC,
  openGuardedPage,
  screenshot,
  TEST_API_KEY,
  useUiSession,
  waitForRender,
  type GuardedPage,
  type UiStack,
} from './helpers.js';

const probe = await browserOrSkipReason();
const skip = 'skip' in probe ? probe.skip : false;
if (skip) console.log(`test/ui/e2e: ${skip}`);

/** The current page URL's query, parsed. */
const query = (page: Page) => new URL(page.url()).searchParams;

describe('web UI in headless Chromium', { skip }, () => {
  let browser: Browser;
  let stack: UiStack;
  let guarded: GuardedPage;
  let page: Page;

  useUiSession(probe, (session) => ({ browser, stack, guarded, page } = session));

  it('draws the demo graph with a legend, search first, schemas hidden', async () => {
    await page.goto(`${stack.uiUrl}/`);
    const rendered = await waitForRender(page);
    assert.ok(rendered > 20, `nodes drawn: ${rendered}`);
    const firstTextInput = await page
      .locator('input:not([type=checkbox]):not([type=range]):not([type=number]):not([type=file])')
      .first()
      .getAttribute('id');
    assert.equal(firstTextInput, 'search');
    assert.match(await page.locator('#legend').innerText(), /topic/);
    const total = await page.evaluate(
      "window.__lineageUi.view.graph.nodes().filter((id) => id.includes(':schema:')).length",
    );
    assert.equal(total, 0, 'schemas are hidden by default');
    const webgl = await page.locator('#graph canvas').count();
    assert.ok(webgl >= 2, 'sigma drew its canvases');
    await screenshot(page, 'overview');
    guarded.assertClean();
  });

  it('finds a node by search, lists suggestions as text and opens its panel by keyboard', async () => {
    await page.locator('#search').fill('orders_enr');
    const options = page.locator('#suggestions [role=option]');
    await options.first().waitFor();
    assert.match(await page.locator('#suggestions').innerText(), /orders_enriched/);
    // Arrow down to the topic (a lakehouse table has the same name), then Enter.
    const topicIndex = (await options.allInnerTexts()).findIndex((text) => /topic/.test(text));
    assert.ok(topicIndex >= 0);
    for (let step = 0; step <= topicIndex; step++) await page.locator('#search').press('ArrowDown');
    assert.match(await page.locator('#suggestions [aria-selected=true]').innerText(), /topic/);
    await page.locator('#search').press('Enter');
    await page.locator('#panel-title').waitFor();
    assert.equal(await page.locator('#panel-title').innerText(), 'orders_enriched');
    assert.match(query(page).get('node') ?? '', /orders_enriched$/);
    // Every attribute, schema fields, and links into the platform.
    const panel = await page.locator('#node-panel').innerText();
    assert.match(panel, /partitions/);
    assert.match(panel, /Schema orders_enriched-value/);
    assert.match(panel, /Topic in Confluent Cloud/);
    await screenshot(page, 'search-and-panel'); // docs/ui-screenshot.png is this picture
    guarded.assertClean();
  });

  it('focuses on a node with N hops, and the URL reproduces the view', async () => {
    await waitForRender(page);
    const whole = Number(await page.locator('body').getAttribute('data-rendered-nodes'));
    await page.getByRole('button', { name: 'Focus here' }).click();
    await page.waitForURL((url) => url.searchParams.has('focus'));
    const focused = await waitForRender(page);
    assert.ok(focused < whole, `focus shows fewer nodes (${focused} < ${whole})`);
    await page.locator('#focus-hops').fill('1');
    await page.locator('#focus-hops').press('Enter');
    await page.waitForURL((url) => url.searchParams.get('hops') === '1');
    const oneHop = await waitForRender(page);
    assert.ok(oneHop <= focused, `one hop shows no more than two (${oneHop} <= ${focused})`);
    await screenshot(page, 'focus');
    // A fresh page with the same URL shows the same view.
    const again = await openGuardedPage(browser);
    await again.page.goto(page.url());
    assert.equal(await waitForRender(again.page), oneHop);
    assert.match(await again.page.locator('#focus-node').innerText(), /orders_enriched/);
    again.assertClean();
    await again.page.context().close();
    await page.getByRole('button', { name: 'Show the whole graph' }).click();
    await page.waitForURL((url) => !url.searchParams.has('focus'));
    assert.equal(await waitForRender(page), whole);
    guarded.assertClean();
  });

  it('filters by node type and shows schemas on demand', async () => {
    const before_ = await waitForRender(page);
    await page.locator('label[for="filter-type-CONNECTOR"]').click();
    await page.waitForURL((url) => url.searchParams.has('type'));
    const withoutGroups = await waitForRender(page);
    assert.ok(withoutGroups < before_, `${withoutGroups} < ${before_}`);
    assert.doesNotMatch(query(page).get('type') ?? '', /CONNECTOR/);
    await page.locator('#show-schemas').check();
    await page.waitForURL((url) => url.searchParams.get('schemas') === '1');
    const withSchemas = await waitForRender(page);
    assert.ok(withSchemas > withoutGroups);
    await page.locator('#show-schemas').uncheck();
    await page.locator('label[for="filter-type-CONNECTOR"]').click();
    await page.waitForURL((url) => !url.searchParams.has('type'));
    assert.equal(await waitForRender(page), before_);
    guarded.assertClean();
  });

  it('opens a job and shows its column lineage and its OpenLineage form', async () => {
    await page.locator('#search').fill('CSAS_CHECKOUT_CLICKS');
    await page.locator('#suggestions [role=option][data-node-id*=":sql_query:"]').first().click();
    await page.locator('#panel-title').filter({ hasText: 'CSAS_CHECKOUT_CLICKS' }).waitFor();
    const lineage = page.locator('table.column-lineage');
    await lineage.first().waitFor();
    assert.match(await lineage.first().innerText(), /USER_ID/);
    await page.getByRole('button', { name: /Show the job as OpenLineage/ }).click();
    await page.locator('.openlineage pre').waitFor();
    assert.match(await page.locator('.openlineage pre').innerText(), /"runId"/);
    await screenshot(page, 'node-panel');
    guarded.assertClean();
  });

  it("shows a dataset's OpenLineage form and runs from the node's openlineage endpoint", async () => {
    await page.locator('#search').fill('orders_enr');
    await page.locator('#suggestions [role=option][data-node-id*=":topic:"]').first().click();
    await page.locator('#panel-title').filter({ hasText: 'orders_enriched' }).waitFor();
    const asked = page.waitForRequest((request) =>
      /\/api\/v1\/graphs\/[^/]+\/nodes\/[^/]+\/openlineage/.test(request.url()),
    );
    await page.getByRole('button', { name: /Show the dataset as OpenLineage/ }).click();
    assert.match((await asked).url(), /orders_enriched\/openlineage$/);
    await page.locator('.openlineage pre').waitFor();
    assert.match(await page.locator('.openlineage pre').innerText(), /"namespace": "stream:\/\//);
    await page.locator('.runs h4').first().waitFor();
    assert.match(await page.locator('.runs').innerText(), /Runs that wrote it[\s\S]*Runs that read it/);
    guarded.assertClean();
  });

  it("shows a node's history: when it appeared and the write that added it", async () => {
    await page.locator('#search').fill('orders_enr');
    await page.locator('#suggestions [role=option][data-node-id*=":topic:"]').first().click();
    await page.locator('#panel-title').filter({ hasText: 'orders_enriched' }).waitFor();
    const asked = page.waitForRequest((request) =>
      /\/api\/v1\/graphs\/[^/]+\/nodes\/[^/]+\/history/.test(request.url()),
    );
    await page.getByRole('button', { name: /Show when it appeared/ }).click();
    assert.match((await asked).url(), /orders_enriched\/history$/);
    await page.locator('.provenance-changes li').first().waitFor();
    assert.match(await page.locator('.provenance').innerText(), /First seen .*present as of[\s\S]*added by /);
    guarded.assertClean();
  });

  it('keeps the suggestions open when the search box is left and typed in again at once', async () => {
    // Leaving the search box closes the list; typing again right away must open it for good (a close
    // delayed past the new input once hid the list under the pointer).
    await page.locator('#search').fill('orders');
    await page.locator('#suggestions').waitFor({ state: 'visible' });
    await page.locator('#graph').focus();
    assert.equal(await page.locator('#suggestions').isVisible(), false, 'the list closes with the focus');
    await page.locator('#search').fill('orders_enr');
    await page.locator('#suggestions').waitFor({ state: 'visible' });
    // Long past any delayed close, the list is still open and its option is still under the pointer.
    await page.waitForTimeout(400);
    assert.equal(await page.locator('#suggestions').isVisible(), true, 'the list stays open');
    await page.locator('#suggestions [role=option][data-node-id*=":topic:"]').first().click({ timeout: 2_000 });
    await page.locator('#panel-title').filter({ hasText: 'orders_enriched' }).waitFor();
    guarded.assertClean();
  });

  it('pans a large graph by moving the drawn layers, redraws at rest, then a click opens the node under the pointer', async () => {
    // A graph above the large-graph threshold (2,000 nodes), which pans over a stage with a margin;
    // deleted at the end so that the other tests see the demo graph by default.
    const headers = { 'x-api-key': TEST_API_KEY };
    const graphId = await importSyntheticGraph(stack, headers, 'pan-test', { nodes: 2_500, edges: 3_750, seed: 11 });
    try {
      await page.goto(`${stack.uiUrl}/?graph=${graphId}&schemas=1&internal=1&groups=1&collapsed=`);
      assert.equal(await waitForRender(page), 2_500);
      await zoomEndsSharp(page);
      await panThenClick(page);
    } finally {
      await page.goto('about:blank');
      await call(stack.api.base, 'DELETE', `/api/v1/graphs/${graphId}`, { headers });
      await page.goto(`${stack.uiUrl}/`);
    }
    assert.ok((await waitForRender(page)) < 100, 'the demo graph is the default again');
    guarded.assertClean();
  });

  it('draws the path between two nodes from the path endpoint, either way round', async () => {
    await waitForRender(page);
    // Two nodes two hops apart along the edges, taken from the drawn graph (not through an edge
    // that stands for a folded consumer group: the API's path goes through the group).
    const [from, to] = (await page.evaluate(`(() => {
      const graph = window.__lineageUi.view.graph;
      const stored = (edge) => !graph.getEdgeAttribute(edge, 'folded');
      for (const first of graph.edges().filter(stored)) {
        const [a, b] = graph.extremities(first);
        const next = graph.outEdges(b).filter(stored).map((edge) => graph.target(edge)).find((c) => c !== a && !graph.hasEdge(a, c));
        if (next) return [a, next];
      }
      return [];
    })()`)) as string[];
    assert.ok(from && to, 'the demo graph has a path of two hops');
    for (const [start, end, direction] of [
      [from, to, 'downstream'],
      [to, from, 'upstream'],
    ] as const) {
      const asked = page.waitForRequest((request) => request.url().includes('/path?'));
      await page.goto(`${stack.uiUrl}/?path_from=${encodeURIComponent(start)}&path_to=${encodeURIComponent(end)}`);
      const url = new URL((await asked).url());
      assert.deepEqual([url.searchParams.get('from'), url.searchParams.get('to')], [start, end]);
      await waitForRender(page);
      assert.match(await page.locator('#path-direction').innerText(), new RegExp(direction));
      assert.equal(await page.locator('#path-nodes li').count(), 3);
      // The path's two edges are drawn wider and on top (found by their keys in the view).
      const widened = await page.evaluate(`(() => {
        const { view } = window.__lineageUi;
        return view.graph.edges().filter((edge) => view.renderer.getEdgeDisplayData(edge)?.size === 2.5).length;
      })()`);
      assert.equal(widened, 2, 'both edges of the path are emphasized');
    }
    await screenshot(page, 'path');
    guarded.assertClean();
  });

  it('travels back in history with the slider (keyboard) and diffs two points', async () => {
    await page.goto(`${stack.uiUrl}/`);
    const now = await waitForRender(page);
    const slider = page.locator('#history-slider');
    await slider.focus();
    await slider.press('ArrowLeft');
    await page.waitForURL((url) => url.searchParams.has('as_of'));
    const earlier = await waitForRender(page);
    assert.equal(query(page).get('as_of'), String(stack.revisions.first));
    assert.equal(earlier, now - 1, 'the topic added by the second extraction is not there yet');
    assert.match(await page.locator('#history-label').innerText(), new RegExp(`revision ${stack.revisions.first}`));
    await screenshot(page, 'history');

    await page.getByRole('button', { name: 'Now' }).click();
    await page.waitForURL((url) => !url.searchParams.has('as_of'));
    await page.locator('#diff-from').selectOption(String(stack.revisions.first));
    await page.locator('#diff-to').selectOption('now');
    await page.locator('#diff-show').click();
    await page.waitForURL((url) => url.searchParams.has('diff_from'));
    await waitForRender(page);
    const changes = await page.locator('#changes-panel').innerText();
    assert.match(changes, /Nodes added \(1\)/);
    assert.match(changes, new RegExp(NEW_TOPIC.replace('.', '\\.')));
    await screenshot(page, 'diff');
    guarded.assertClean();
  });

  it("asks for the user's key when an operation needs it, refuses a wrong one, then runs it with the key kept for the tab", async () => {
    await page.goto(`${stack.uiUrl}/?tab=operations`);
    await waitForRender(page);
    const kept = () => page.evaluate("sessionStorage.getItem('lineage-svc.api-key')") as Promise<string | null>;
    assert.equal(await kept(), null);
    assert.match(await page.locator('#sign-in-state').innerText(), /asks for your API key/);
    const dialog = page.locator('dialog#sign-in');
    await page.locator('#extract-environments').fill('env-q7m2k9');
    // Cancelled: nothing is sent.
    await page.getByRole('button', { name: 'Start extraction' }).click();
    await dialog.waitFor({ state: 'visible' });
    assert.match(await dialog.innerText(), /This action changes something: sign in with your API key/);
    await screenshot(page, 'sign-in');
    const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    await page.evaluate(axeSource);
    const violations = (await page.evaluate(
      "axe.run('#sign-in', { resultTypes: ['violations'] }).then((result) => result.violations.map((violation) => violation.id + ': ' + violation.help))",
    )) as string[];
    assert.deepEqual(violations, [], 'the sign-in dialog is accessible');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // The page writes the refusal once the cancelled sign-in settles: wait for it, do not read at once.
    await page
      .locator('#task-status')
      .filter({ hasText: /could not start: 401: not signed in/ })
      .waitFor();
    // A wrong key: the API's refusal is shown in the dialog, which asks again.
    await page.getByRole('button', { name: 'Start extraction' }).click();
    await dialog.waitFor({ state: 'visible' });
    await page.locator('#sign-in-key').fill('not-the-key');
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await dialog
      .locator('#sign-in-message')
      .filter({ hasText: /API key is invalid/ })
      .waitFor();
    assert.equal(await kept(), null, 'a refused key is not kept');
    // Chromium reports the refused request (403) on the console: that one is expected.
    const refused = guarded.consoleErrors.filter((message) => /status of 403/.test(message));
    assert.equal(refused.length, 1, guarded.consoleErrors.join('\n'));
    guarded.consoleErrors.splice(guarded.consoleErrors.indexOf(refused[0]!), 1);
    await page.locator('#sign-in-key').fill(TEST_API_KEY);
    await page.locator('#sign-in-key').press('Enter');
    await page.locator('#task-status[data-task-status=completed], #task-status[data-task-status=failed]').waitFor({
      timeout: 60_000,
    });
    assert.equal(await page.locator('#task-status').getAttribute('data-task-status'), 'completed');
    assert.equal(await kept(), TEST_API_KEY, 'kept in this tab');
    assert.match(await page.locator('#sign-in-state').innerText(), /Signed in/);
    guarded.assertClean();
  });

  it("takes a key handed over in the URL's fragment into the tab and off the address bar, and forgets it on demand", async () => {
    const fresh = await openGuardedPage(browser);
    try {
      const requested: string[] = [];
      fresh.page.on('request', (request) => requested.push(request.url()));
      await fresh.page.goto(`${stack.uiUrl}/?tab=operations#api_key=${encodeURIComponent(TEST_API_KEY)}`);
      await waitForRender(fresh.page);
      assert.equal(new URL(fresh.page.url()).hash, '', 'the key left the address bar');
      assert.deepEqual(
        requested.filter((url) => url.includes(TEST_API_KEY)),
        [],
        'the fragment is never sent',
      );
      assert.equal(await fresh.page.evaluate("sessionStorage.getItem('lineage-svc.api-key')"), TEST_API_KEY);
      // A write runs without asking.
      await fresh.page.locator('#watch-environments').fill('env-x2n4c6');
      await fresh.page.locator('#watch-cooldown').fill('0.2');
      await fresh.page.locator('#watch-poll').fill('0.2');
      await fresh.page.getByRole('button', { name: 'Start watcher' }).click();
      const running = fresh.page.locator('article.watcher:not([data-state=STOPPED])').first();
      await running.waitFor();
      const watcherId = await running.getAttribute('data-watcher-id');
      const card = fresh.page.locator(`article.watcher[data-watcher-id="${watcherId}"]`);
      await card.getByRole('button', { name: 'Stop watcher' }).click();
      await card.and(fresh.page.locator('[data-state=STOPPED]')).waitFor({ timeout: 30_000 });
      // Removed (a DELETE, with the key too), so that the next tests see only their own watcher.
      await card.getByRole('button', { name: 'Remove watcher' }).click();
      await card.waitFor({ state: 'detached' });
      assert.equal(await fresh.page.locator('dialog#sign-in').count(), 0, 'the sign-in dialog was never built');
      await fresh.page.getByRole('button', { name: 'Forget my key' }).click();
      assert.equal(await fresh.page.evaluate("sessionStorage.getItem('lineage-svc.api-key')"), null);
      assert.match(await fresh.page.locator('#sign-in-button').innerText(), /Sign in/);
      fresh.assertClean();
    } finally {
      await fresh.page.context().close();
    }
  });

  it('starts an extraction and follows the task to completion', async () => {
    await page.goto(`${stack.uiUrl}/?tab=operations`);
    await waitForRender(page);
    await page.locator('#extract-environments').fill('env-q7m2k9, env-x2n4c6');
    await page.getByRole('button', { name: 'Start extraction' }).click();
    await page.locator('#task-status[data-task-status=completed], #task-status[data-task-status=failed]').waitFor({
      timeout: 60_000,
    });
    assert.equal(await page.locator('#task-status').getAttribute('data-task-status'), 'completed');
    assert.match(await page.locator('#task-status').innerText(), /done/);
    guarded.assertClean();
  });

  it('starts a watcher, sees its state, and stops it', async () => {
    await page.locator('#watch-environments').fill('env-x2n4c6');
    await page.locator('#watch-cooldown').fill('0.2');
    await page.locator('#watch-poll').fill('0.2');
    await page.getByRole('button', { name: 'Start watcher' }).click();
    const card = page.locator('article.watcher').first();
    await card.waitFor();
    await page.locator('article.watcher:not([data-state=STOPPED])').first().waitFor();
    await screenshot(page, 'operations');
    await card.getByRole('button', { name: 'Stop watcher' }).click();
    await page.locator('article.watcher[data-state=STOPPED]').first().waitFor({ timeout: 30_000 });
    assert.match(await card.innerText(), /STOPPED/);
    guarded.assertClean();
  });

  it('has no serious or critical accessibility violation (axe-core)', async () => {
    const require = createRequire(import.meta.url);
    const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    for (const url of [
      `${stack.uiUrl}/`,
      `${stack.uiUrl}/?tab=operations`,
      `${stack.uiUrl}/?diff_from=${stack.revisions.first}&tab=changes`,
    ]) {
      await page.goto(url);
      await waitForRender(page);
      await page.evaluate(axeSource); // through DevTools, which the page's CSP does not govern
      const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
        result.violations.map((violation) => ({
          id: violation.id,
          impact: violation.impact,
          help: violation.help,
          targets: violation.nodes.slice(0, 3).map((node) => node.target.join(' ')),
        })))`)) as { id: string; impact: string; help: string; targets: string[] }[];
      const serious = violations.filter(
        (violation) => violation.impact === 'serious' || violation.impact === 'critical',
      );
      assert.deepEqual(serious, [], `${url}: ${JSON.stringify(serious, null, 2)}`);
    }
    guarded.assertClean();
  });
});

/** Pan counters of the page's graph view (`ui/src/panCache.ts`). */
const panCounts = (page: Page) =>
  page.evaluate('({ ...window.__lineageUi.view.panCounts })') as Promise<{ moved: number; redrawn: number }>;
/** The CSS transforms on the graph's canvases (empty when the view is drawn in place). */
const layerTransforms = (page: Page) =>
  page.evaluate(
    "[...document.querySelectorAll('#graph canvas')].map((canvas) => canvas.style.transform).filter(Boolean)",
  ) as Promise<string[]>;

/** Waits (bounded) until the view is redrawn in place, and asserts it is. */
async function waitForRest(page: Page): Promise<void> {
  for (let attempt = 0; attempt < 200 && (await layerTransforms(page)).length > 0; attempt++)
    await page.waitForTimeout(25);
  assert.deepEqual(await layerTransforms(page), [], 'at rest the view is redrawn in place');
}

/**
 * An animated zoom (the buttons', the wheel's) scales the drawn layers while it runs and ends with
 * the view redrawn in place on the next frame after its last step: not a magnified, slightly
 * blurred bitmap until the camera has been still for a while (`SETTLE_MILLISECONDS`).
 */
async function zoomEndsSharp(page: Page): Promise<void> {
  const outcome = (await page.evaluate(`(async () => {
    const view = window.__lineageUi.view;
    const camera = view.renderer.getCamera();
    const before = { ...view.panCounts };
    let scaledWhileRunning = false;
    const watch = () => {
      if ([...document.querySelectorAll('#graph canvas')].some((canvas) => canvas.style.transform.includes('scale')))
        scaledWhileRunning = true;
    };
    camera.on('updated', watch);
    // The promise resolves in the animation's callback, called right after its last step.
    await camera.animate({ ratio: camera.ratio * 0.6 }, { duration: 400 });
    camera.off('updated', watch);
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    return {
      scaled: view.panCounts.scaled - before.scaled,
      scaledWhileRunning,
      transforms: [...document.querySelectorAll('#graph canvas')].map((canvas) => canvas.style.transform).filter(Boolean),
    };
  })()`)) as { scaled: number; scaledWhileRunning: boolean; transforms: string[] };
  assert.ok(outcome.scaled > 0 && outcome.scaledWhileRunning, 'the zoom scaled the drawn layers while it ran');
  assert.deepEqual(outcome.transforms, [], 'redrawn in place as soon as the zoom ended');
}

/**
 * A camera pan and a mouse drag move the drawn layers without drawing; at rest the view is
 * redrawn in place; a click then opens the node under the pointer (sigma's picking is up to date).
 */
async function panThenClick(page: Page): Promise<void> {
  const before_ = await panCounts(page);
  await page.evaluate(`(() => {
    const camera = window.__lineageUi.view.renderer.getCamera();
    camera.setState({ x: camera.x + 0.05 });
  })()`);
  const moved = await panCounts(page);
  assert.equal(moved.moved, before_.moved + 1, 'a small pan moves the layers');
  assert.equal(moved.redrawn, before_.redrawn, 'and draws nothing');
  assert.ok((await layerTransforms(page)).length >= 2, 'the drawn layers are moved');
  await waitForRest(page);
  assert.ok((await panCounts(page)).redrawn > moved.redrawn, 'redrawn at rest');
  // A drag with the mouse goes the same way (sigma's mouse captor moves the camera).
  const area = (await page.locator('#graph').boundingBox())!;
  const dragged = await panCounts(page);
  await page.mouse.move(area.x + area.width / 2, area.y + area.height - 40);
  await page.mouse.down();
  for (let step = 1; step <= 5; step++)
    await page.mouse.move(area.x + area.width / 2 + step * 20, area.y + area.height - 40 - step * 10);
  await page.mouse.up();
  assert.ok((await panCounts(page)).moved > dragged.moved, 'a drag moves the layers');
  await waitForRest(page);
  // The node farthest from its nearest neighbor, zoomed in on (a redraw), then clicked where it is drawn.
  const chosen = (await page.evaluate(`(() => {
    const renderer = window.__lineageUi.view.renderer;
    const placed = renderer.getGraph().nodes().map((node) => ({ node, ...renderer.getNodeDisplayData(node) }));
    let best = null;
    for (const p of placed) {
      let nearest = Infinity;
      for (const q of placed) if (q !== p) nearest = Math.min(nearest, Math.hypot(q.x - p.x, q.y - p.y));
      if (!best || nearest > best.nearest) best = { node: p.node, x: p.x, y: p.y, nearest };
    }
    return best;
  })()`)) as { node: string; x: number; y: number };
  const zoomed = await panCounts(page);
  await page.evaluate(
    `window.__lineageUi.view.renderer.getCamera().setState({ x: ${chosen.x}, y: ${chosen.y}, ratio: 0.03 })`,
  );
  for (let attempt = 0; attempt < 200 && (await panCounts(page)).redrawn === zoomed.redrawn; attempt++)
    await page.waitForTimeout(25);
  const target = (await page.evaluate(`(() => {
    const renderer = window.__lineageUi.view.renderer;
    const stage = renderer.getContainer().getBoundingClientRect();
    const at = renderer.framedGraphToViewport(renderer.getNodeDisplayData(${JSON.stringify(chosen.node)}));
    return { node: ${JSON.stringify(chosen.node)}, x: stage.left + at.x, y: stage.top + at.y };
  })()`)) as { node: string; x: number; y: number } | null;
  assert.ok(target, 'the node is drawn');
  await page.mouse.click(target.x, target.y);
  await page.waitForURL((url) => url.searchParams.get('node') === target.node);
}
