/**
 * `lineage-svc-extract --format`: the graph file in GraphML, GEXF, DOT or Mermaid instead of JSON,
 * with every node and edge; `--enrich-only` keeps to JSON (it reads the file back).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MultiDirectedGraph } from 'graphology';
import * as graphml from 'graphology-graphml';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import { cliEnv, PROD, runExtractCommand } from '../extraction/helpers.js';

describe('lineage-svc-extract --format', () => {
  let sim: PlatformSimulator;
  let folder: string;
  before(async () => {
    sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
    folder = mkdtempSync(join(tmpdir(), 'lineage-svc-format-'));
  });
  after(async () => {
    await sim.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('writes GraphML with every node and edge of the JSON graph, and Mermaid that renders as a flowchart', async () => {
    const env = cliEnv(sim, join(folder, 'store'));
    const json = await runExtractCommand(['--env', PROD, '--output', join(folder, 'graph.json')], env);
    assert.equal(json.code, 0, json.stderr);
    const graph = JSON.parse(readFileSync(join(folder, 'graph.json'), 'utf8')) as {
      nodes: { id: string }[];
      edges: unknown[];
    };

    const xml = await runExtractCommand(
      ['--env', PROD, '--format', 'graphml', '--output', join(folder, 'graph.graphml')],
      env,
    );
    assert.equal(xml.code, 0, xml.stderr);
    const parsed = graphml.parse(MultiDirectedGraph, readFileSync(join(folder, 'graph.graphml'), 'utf8'));
    assert.deepEqual(parsed.nodes().sort(), graph.nodes.map((node) => node.id).sort());
    assert.equal(parsed.size, graph.edges.length);

    const mermaid = await runExtractCommand(
      ['--env', PROD, '--format', 'mermaid', '--output', join(folder, 'graph.mmd')],
      env,
    );
    assert.equal(mermaid.code, 0, mermaid.stderr);
    assert.match(readFileSync(join(folder, 'graph.mmd'), 'utf8'), /^flowchart LR$/m);
  });

  it('refuses --enrich-only with a format other than json, and an unknown format, with one line and exit 2', async () => {
    const env = cliEnv(sim, join(folder, 'store'));
    for (const args of [
      ['--env', PROD, '--enrich-only', '--format', 'dot', '--output', join(folder, 'graph.json')],
      ['--env', PROD, '--format', 'svg', '--output', join(folder, 'graph.svg')],
    ]) {
      const run = await runExtractCommand(args, env);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
      assert.match(run.stderr, /^lineage-svc-extract: .*(--format|svg)/);
    }
  });
});
