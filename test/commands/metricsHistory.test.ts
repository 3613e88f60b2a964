/**
 * Metrics apart from lineage (issue 14, item 2): `lineage-svc-extract --metrics` records throughput
 * figures as `MetricsSampled` samples in `metrics-{graph_id}`, never as node changes. With the default
 * store (sqlite in a temporary folder), the demo extraction is run twice without metrics (the second
 * run records no change), then twice with `--metrics`: the graph's history gains no change, while each
 * node with metrics gains one sample per run, recorded with its extraction's correlation id, and the
 * graph file still carries the metric attributes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openRuntime } from '../../infra/runtime.js';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import { loadConfig } from '../../src/config.js';
import type { LineageGraph } from '../../src/graph/model.js';
import { DEFAULT_GRAPH_NAME, graphIdForName } from '../../src/graphCommands.js';
import { createLogger } from '../../src/logger.js';
import { cliEnv, DEV, PROD, runExtractCommand } from '../extraction/helpers.js';

const NO_CHANGE = /\(sqlite store\): 0 node\(s\) added, 0 changed, 0 removed; 0 edge\(s\) added, 0 changed, 0 removed/;

/** The extraction id the command's summary names. */
function extractionIdOf(stdout: string): string {
  const match = /Recorded extraction (\S+) in graph/.exec(stdout);
  assert.ok(match, stdout);
  return match[1]!;
}

describe('lineage-svc-extract --metrics records samples, not graph changes', () => {
  let sim: PlatformSimulator;
  let folder: string;
  before(async () => {
    sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
    folder = mkdtempSync(join(tmpdir(), 'lineage-svc-metrics-history-'));
  });
  after(async () => {
    await sim.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('twice without metrics, then twice with: no new graph change, two samples per node with metrics', async () => {
    const store = join(folder, 'store');
    const output = join(folder, 'graph.json');
    const env = cliEnv(sim, store);
    const args = ['--env', PROD, '--env', DEV, '--output', output];

    const first = await runExtractCommand(args, env);
    assert.equal(first.code, 0, first.stderr);
    const second = await runExtractCommand(args, env);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, NO_CHANGE);

    const graphId = graphIdForName(DEFAULT_GRAPH_NAME);
    const config = loadConfig({ LINEAGE_SVC_STORAGE__PATH: store });
    const logger = createLogger({ level: 'silent' });
    const without = await openRuntime(config, logger);
    const historyBefore = without.graphs.get(graphId)?.history.length;
    assert.ok(historyBefore !== undefined && historyBefore >= 1);
    // Without --metrics only the observations are sampled: consumer and mirror lag (never graph changes).
    const observed = without.metrics.graph(graphId);
    assert.ok(observed && observed.size > 0, 'lag is sampled on every run');
    for (const series of observed.values())
      for (const point of series)
        for (const name of Object.keys(point.metrics))
          assert.match(name, /^metrics_(total_lag|lag\..+|mirror_lag)$/, 'only lag without --metrics');
    const lagged = [...observed.keys()];
    const runsWithout = observed.get(lagged[0]!)!.length;
    assert.equal(runsWithout, 2, 'one lag sample per run');
    await without.close();

    const extractionIds: string[] = [];
    for (let run = 0; run < 2; run += 1) {
      const withMetrics = await runExtractCommand([...args, '--metrics'], env);
      assert.equal(withMetrics.code, 0, withMetrics.stderr);
      assert.match(withMetrics.stdout, NO_CHANGE, 'metric samples are no node change');
      extractionIds.push(extractionIdOf(withMetrics.stdout));
    }

    const runtime = await openRuntime(config, logger);
    try {
      const state = runtime.graphs.get(graphId)!;
      assert.equal(state.history.length, historyBefore, 'the graph history has no new change');
      const sampled = runtime.metrics.graph(graphId);
      assert.ok(sampled && sampled.size >= 10, `nodes with metrics: ${sampled?.size}`);
      for (const [nodeId, series] of sampled) {
        assert.ok(state.graph.hasNode(nodeId), `${nodeId} is a node of the graph`);
        // Lagging nodes also have the two samples of the runs without --metrics before.
        const withMetrics = series.slice(lagged.includes(nodeId) ? runsWithout : 0);
        assert.deepEqual(
          withMetrics.map((point) => point.correlation_id),
          extractionIds,
          `${nodeId}: one sample per --metrics run, with its extraction's correlation id`,
        );
        assert.equal(withMetrics[1]!.window_end > withMetrics[0]!.window_start, true);
      }
      const stored = state.graph.nodeValues();
      assert.ok(
        stored.every((node) => Object.keys(node.attributes ?? {}).every((name) => !name.startsWith('metrics_'))),
        'no stored node carries a metric attribute',
      );

      const file = JSON.parse(readFileSync(output, 'utf8')) as LineageGraph;
      const withAttributes = file.nodes.filter((node) => node.attributes?.metrics_window_hours === 1);
      assert.equal(
        withAttributes.length,
        sampled.size,
        'the graph file carries the metric attributes of every sampled node',
      );
      for (const node of withAttributes) {
        const latest = runtime.metrics.latest(graphId, node.id);
        assert.ok(latest, node.id);
        for (const [name, value] of Object.entries(latest.metrics))
          assert.deepEqual(node.attributes?.[name], value, `${node.id} ${name}`);
      }
    } finally {
      await runtime.close();
    }
  });
});
