/**
 * Web UI benchmark (`make bench`): time to first render and frames per second while panning, in
 * headless Chromium with software WebGL (SwiftShader), for the demo graph and synthetic graphs of
 * 5,000, 20,000 and 100,000 nodes (1.5 edges per node, `syntheticGraph`), every node drawn
 * (schemas and internal topics shown).
 *
 * The whole path is measured as a user gets it: an in-process API on the memory store serves the
 * graph, `lineage-svc-ui`'s server proxies it, and the page fetches it, lays it out in its web
 * worker and draws it. Time to first render: from navigation start to the first frame of the graph
 * (`data-first-ready-at`). Panning: the camera moves a little on every animation frame for 3 s, with
 * the product's settings (edges and labels drawn; nothing is hidden while moving), and the frames
 * the page got are counted, with the number of full redraws among them.
 */
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../infra/http/app.js';
import { launchChromium, findChromium } from '../infra/ui/browser.js';
import { buildUiServer, defaultAssetFolder } from '../infra/ui/server.js';
import { openRuntime } from '../infra/runtime.js';
import { loadScenario, simulatorClientEnvironment, startPlatformSimulator } from '../simulators/confluent/index.js';
import { loadConfig } from '../src/config.js';
import { graphIdForName, recordGraph } from '../src/graphCommands.js';
import { createLogger } from '../src/logger.js';
import { syntheticGraph } from './syntheticGraph.js';

/** One measured graph. */
export interface UiBenchRow {
  graph: string;
  nodes_drawn: number;
  edges_drawn: number;
  /** Milliseconds from navigation start to the first frame of the graph. */
  first_render_ms: number;
  /**
   * Milliseconds from navigation start to the first useful picture: the grouped overview (counts
   * per node type, from the API's node listing) of a graph too large to fetch at once, else the graph.
   */
  first_picture_ms: number;
  /** Milliseconds from navigation start until the graph (its drawing, `GET /graphs/{id}/drawing`) was fetched and parsed (part of the first render). */
  document_ms: number;
  /** Milliseconds of the layout in the web worker (part of the above). */
  layout_ms: number;
  /** Frames per second while panning. */
  pan_fps: number;
  /**
   * Full redraws of the graph during the pan (each time the pan leaves the margin drawn beyond the
   * view, `ui/src/panCache.ts`); the other frames move what was drawn.
   */
  pan_redraws: number;
  /** Frames per second while zooming in and out (a factor of 4 each way, as with the mouse wheel). */
  zoom_fps: number;
  /** Full redraws during the zoom (the other frames scale what was drawn). */
  zoom_redraws: number;
  /** The machine's one-minute load average when this graph was measured (software WebGL runs on the CPU). */
  load_average: number;
}

const PAN_SECONDS = 3;
/**
 * The pan: the camera's center runs along a figure eight of these half-widths (in the graph's normalized
 * coordinates, where the fitted graph spans about 1) at one radian a second, so it crosses the
 * hidden margin around the view several times in `PAN_SECONDS` and the count includes the redraws.
 */
const PAN_AMPLITUDE = { x: 0.6, y: 0.3 };

type Browser = Awaited<ReturnType<typeof launchChromium>>;
type Page = Awaited<ReturnType<Browser['newPage']>>;
type Scenario = Awaited<ReturnType<typeof loadScenario>>;

/** What the benchmark runs against: the simulator, the API on the memory store, the UI server and Chromium. */
interface UiBenchServers {
  scenario: Scenario;
  simulator: Awaited<ReturnType<typeof startPlatformSimulator>>;
  runtime: Awaited<ReturnType<typeof openRuntime>>;
  api: Awaited<ReturnType<typeof buildApp>>;
  apiUrl: string;
  ui: Awaited<ReturnType<typeof buildUiServer>>;
  uiUrl: string;
  browser: Browser;
}

/** Starts the demo simulator, an API on the memory store extracting from it, the UI server in front, and Chromium. */
async function startUiBenchServers(): Promise<UiBenchServers> {
  const scenario = await loadScenario('demo');
  const simulator = await startPlatformSimulator({ scenario, host: '127.0.0.1', port: 0 });
  const config = loadConfig({
    LINEAGE_SVC_STORAGE__BACKEND: 'memory',
    ...simulatorClientEnvironment(simulator.url, scenario),
  });
  const logger = createLogger({ level: 'error' });
  const runtime = await openRuntime(config, logger);
  const api = await buildApp({ config, logger, runtime });
  await api.listen({ host: '127.0.0.1', port: 0 });
  const apiUrl = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
  const ui = await buildUiServer({ settings: { apiUrl, apiKey: undefined } });
  await ui.listen({ host: '127.0.0.1', port: 0 });
  const uiUrl = `http://127.0.0.1:${(ui.server.address() as AddressInfo).port}`;
  const browser = await launchChromium();
  return { scenario, simulator, runtime, api, apiUrl, ui, uiUrl, browser };
}

/** Stops everything `startUiBenchServers` started, browser first. */
async function stopUiBenchServers(servers: UiBenchServers): Promise<void> {
  await servers.browser.close();
  await servers.ui.close();
  await servers.api.close();
  await servers.runtime.close();
  await servers.simulator.close();
}

/** Extracts the demo graph from the simulator through the API's task; resolves with its graph id. */
async function extractDemoGraph(apiUrl: string, scenario: Scenario): Promise<string> {
  const started = (await (
    await fetch(`${apiUrl}/api/v1/tasks/extract`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ environment_ids: scenario.environments.map((environment) => environment.id) }),
    })
  ).json()) as { task_id: string };
  let demoGraphId = '';
  for (let attempt = 0; attempt < 600 && demoGraphId === ''; attempt++) {
    const task = (await (await fetch(`${apiUrl}/api/v1/tasks/${started.task_id}`)).json()) as {
      status: string;
      result?: { graph_id: string };
      error?: string;
    };
    if (task.status === 'failed') throw new Error(`demo extraction failed: ${task.error}`);
    if (task.status === 'completed') demoGraphId = task.result!.graph_id;
    else await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return demoGraphId;
}

/** Records one synthetic graph per size (1.5 edges per node, seed 11) in the store; resolves with their names and ids. */
async function recordSyntheticGraphs(
  runtime: UiBenchServers['runtime'],
  sizes: readonly number[],
): Promise<{ name: string; graphId: string }[]> {
  const graphs: { name: string; graphId: string }[] = [];
  for (const size of sizes) {
    const name = `synthetic-${size}`;
    const graphId = graphIdForName(name);
    await recordGraph(
      runtime.commands,
      graphId,
      syntheticGraph({ nodes: size, edges: Math.round(size * 1.5), seed: 11 }),
      { mode: 'replace', createIfMissing: true, name },
      { cause: 'import', actor: 'bench' },
    );
    graphs.push({ name, graphId });
  }
  return graphs;
}

/**
 * Sets the camera to `cameraState` (a JavaScript expression of `t`, the seconds since the start) on
 * every animation frame for `PAN_SECONDS`; answers the frames drawn, the seconds they took and how
 * many times the view redrew meanwhile.
 */
async function moveCameraEveryFrame(
  page: Page,
  cameraState: string,
): Promise<{ frames: number; seconds: number; redraws: number }> {
  return (await page.evaluate(`new Promise((resolve) => {
    const view = window.__lineageUi.view;
    const camera = view.renderer.getCamera();
    const redrawnBefore = view.panCounts.redrawn;
    const start = performance.now();
    let frames = 0;
    const step = (now) => {
      frames++;
      const t = (now - start) / 1000;
      camera.setState(${cameraState});
      if (now - start < ${PAN_SECONDS * 1000}) requestAnimationFrame(step);
      else resolve({ frames, seconds: (now - start) / 1000, redraws: view.panCounts.redrawn - redrawnBefore });
    };
    requestAnimationFrame(step);
  })`)) as { frames: number; seconds: number; redraws: number };
}

/** Opens one graph in a fresh page, waits for its first frame, then pans for `PAN_SECONDS` counting frames. */
async function measureGraph(browser: Browser, uiUrl: string, name: string, graphId: string): Promise<UiBenchRow> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${uiUrl}/?graph=${graphId}&schemas=1&internal=1&groups=1&collapsed=`);
  await page.locator('body[data-graph-state=ready]').waitFor({ state: 'attached', timeout: 300_000 });
  const figures = (await page.evaluate(`(() => {
    const ui = window.__lineageUi;
    return {
      ...ui.view.figures,
      readyAt: Number(document.body.dataset.firstReadyAt),
      pictureAt: Number(document.body.dataset.firstPictureAt ?? document.body.dataset.firstReadyAt),
      documentAt: Math.round(performance.getEntriesByName('lineage:document-loaded')[0]?.startTime ?? 0),
    };
  })()`)) as {
    nodes: number;
    edges: number;
    layoutMilliseconds: number;
    readyAt: number;
    pictureAt: number;
    documentAt: number;
  };
  const frames = await moveCameraEveryFrame(
    page,
    `{ x: 0.5 + ${PAN_AMPLITUDE.x} * Math.sin(t), y: 0.5 + ${PAN_AMPLITUDE.y} * Math.sin(2 * t) }`,
  );
  // Zoom: the camera's ratio goes from the fitted graph to a quarter of it and back, on every frame.
  await page.evaluate('window.__lineageUi.view.renderer.getCamera().setState({ x: 0.5, y: 0.5, ratio: 1 })');
  await page.waitForTimeout(400);
  const zoom = await moveCameraEveryFrame(page, '{ ratio: Math.pow(2, -1 + Math.cos(t * 2)) }');
  const row: UiBenchRow = {
    graph: name,
    nodes_drawn: figures.nodes,
    edges_drawn: figures.edges,
    first_render_ms: figures.readyAt,
    first_picture_ms: figures.pictureAt,
    document_ms: figures.documentAt,
    layout_ms: Math.round(figures.layoutMilliseconds),
    pan_fps: Number((frames.frames / frames.seconds).toFixed(1)),
    pan_redraws: frames.redraws,
    zoom_fps: Number((zoom.frames / zoom.seconds).toFixed(1)),
    zoom_redraws: zoom.redraws,
    load_average: Number(loadavg()[0]!.toFixed(1)),
  };
  await context.close();
  return row;
}

/**
 * Runs the UI benchmark. Resolves with one row per graph, or with a reason when Chromium or the
 * built UI is missing (nothing is measured then).
 */
export async function benchUi(
  sizes: number[] = [5_000, 20_000, 100_000],
): Promise<{ rows: UiBenchRow[] } | { skipped: string }> {
  if (!findChromium()) return { skipped: 'no Chromium (make browser installs it)' };
  if (!existsSync(join(defaultAssetFolder(), 'index.html'))) return { skipped: 'the UI is not built (make build)' };
  const servers = await startUiBenchServers();
  const rows: UiBenchRow[] = [];
  try {
    // The demo graph, extracted from the simulator through the API, then the synthetic graphs.
    const demoGraphId = await extractDemoGraph(servers.apiUrl, servers.scenario);
    const graphs = [{ name: 'demo', graphId: demoGraphId }, ...(await recordSyntheticGraphs(servers.runtime, sizes))];
    for (const { name, graphId } of graphs)
      rows.push(await measureGraph(servers.browser, servers.uiUrl, name, graphId));
  } finally {
    await stopUiBenchServers(servers);
  }
  return { rows };
}

// `node --import tsx bench/ui.ts` runs this part alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await benchUi();
  if ('skipped' in result) console.log(`UI bench skipped: ${result.skipped}`);
  else console.table(result.rows);
}
