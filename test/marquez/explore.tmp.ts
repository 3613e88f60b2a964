import { startMarquezStack } from './helpers.js';
import { buildMarquezWebServer } from '../../infra/ui/marquezWeb.js';
import { launchChromium } from '../../infra/ui/browser.js';
const stack = await startMarquezStack();
const web = await buildMarquezWebServer('/work/shared/marquez-web/dist', {
  settings: { apiUrl: stack.api.base, apiKey: 'marquez-test-key-7b21' },
});
await web.listen({ host: '127.0.0.1', port: 0 });
const url = `http://127.0.0.1:${(web.server.address() as any).port}`;
const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
page.on('console', (m) => {
  if (m.type() === 'error' && !m.text().includes('fonts.googleapis'))
    console.log('CONSOLE', m.text().slice(0, 300), m.location().url);
});
page.on('pageerror', (e) => console.log('PAGEERROR', e.message.slice(0, 500)));
page.on('response', (r) => {
  if (r.url().includes('/api/') || r.status() >= 400)
    console.log('RESP', r.status(), decodeURIComponent(r.url().replace(url, '')).slice(0, 200));
});
await page.route('**/*', (route) => (route.request().url().startsWith(url) ? route.continue() : route.abort()));
const ns = encodeURIComponent(stack.topic.namespace),
  nm = encodeURIComponent(stack.topic.name);

const jobId = 'job:spark://analytics:orders_daily_report';
await page.goto(
  url +
    `/lineage/job/${encodeURIComponent('spark://analytics')}/orders_daily_report?tableLevelNode=${encodeURIComponent(jobId)}`,
);
await page.waitForTimeout(3000);
await page.screenshot({ path: '/tmp/h25-jobdrawer.png' });
const drawer = page.locator('.MuiDrawer-paperAnchorRight');
console.log('DRAWER', (await drawer.innerText()).slice(0, 1500).replace(/\n+/g, ' | '));
console.log(
  'DRAWER BUTTONS',
  (
    await drawer
      .locator('button')
      .evaluateAll((els) => els.map((e) => (e.getAttribute('aria-label') ?? '') + ':' + e.textContent))
  ).join(' / '),
);
const dsId = `dataset:${stack.topic.namespace}:${stack.topic.name}`;
await page.goto(url + `/lineage/dataset/${ns}/${nm}?tableLevelNode=${encodeURIComponent(dsId)}`);
await page.waitForTimeout(3000);
await page.screenshot({ path: '/tmp/h25-dsdrawer.png' });
console.log('DRAWER', (await drawer.innerText()).slice(0, 1500).replace(/\n+/g, ' | '));
console.log(
  'DRAWER BUTTONS',
  (
    await drawer
      .locator('button')
      .evaluateAll((els) => els.map((e) => (e.getAttribute('aria-label') ?? '') + ':' + e.textContent))
  ).join(' / '),
);
console.log('=== search');
await page.locator('#searchBar').click();
await page.keyboard.type('orders_daily');
await page.waitForTimeout(2500);
await page.screenshot({ path: '/tmp/h25-search.png' });
console.log((await page.locator('body').innerText()).slice(0, 900).replace(/\n+/g, ' | '));
await browser.close();
await web.close();
await stack.close();
