/**
 * `lineage-svc-extract --format`: the graph file in GraphML, GEXF, DOT or Mermaid instead of JSON,
 * with every node and edge of the JSON graph, each read back by a parser of its format
 * (`test/export/readBack.ts`; DOT skipped, with a notice, where Graphviz is not installed);
 * `--enrich-only` keeps to JSON (it reads the file back).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import { EXPORT_FORMATS, EXPORT_MEDIA } from '../../src/export/index.js';
import type { LineageGraph } from '../../src/graph/model.js';
import type { ExtractSummary } from '../../commands/shared.js';
import {
  expectedReadBack,
  HAS_DOT,
  NO_DOT_NOTICE,
  openMermaidParser,
  readBack,
  type MermaidParser,
} from '../export/readBack.js';
import { cliEnv, PROD, runExtractCommand } from '../extraction/helpers.js';

describe('lineage-svc-extract --format', () => {
  let sim: PlatformSimulator;
  let folder: string;
  let mermaid: MermaidParser;
  before(async () => {
    sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
    folder = mkdtempSync(join(tmpdir(), 'lineage-svc-format-'));
    mermaid = await openMermaidParser();
  });
  after(async () => {
    mermaid.close();
    await sim.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('writes every format with every node and edge of the JSON graph, each read back by its parser', async () => {
    const env = cliEnv(sim, join(folder, 'store'));
    const json = await runExtractCommand(['--env', PROD, '--output', join(folder, 'graph.json')], env);
    assert.equal(json.code, 0, json.stderr);
    const graph = JSON.parse(readFileSync(join(folder, 'graph.json'), 'utf8')) as LineageGraph;
    assert.ok(graph.nodes.length > 20 && graph.edges.length > 20);
    for (const format of EXPORT_FORMATS.filter((name) => name !== 'json')) {
      if (format === 'dot' && !HAS_DOT) {
        console.log(NO_DOT_NOTICE);
        continue;
      }
      const output = join(folder, `graph.${EXPORT_MEDIA[format].extension}`);
      const run = await runExtractCommand(['--env', PROD, '--format', format, '--output', output, '--json'], env);
      assert.equal(run.code, 0, run.stderr);
      assert.equal((JSON.parse(run.stdout) as ExtractSummary).format, format);
      const text = readFileSync(output, 'utf8');
      assert.deepEqual(await readBack(format, text, { mermaid }), expectedReadBack(graph, format), format);
    }
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
