/**
 * Recording extractions in the event store (memory backend) and the `lineage-svc-extract` command:
 * exit codes, one-line errors, the written file, the summary.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openRuntime } from '../../infra/runtime.js';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import { streams } from '../../src/events.js';
import { extract } from '../../src/extraction/extract.js';
import { recordExtraction } from '../../src/extraction/record.js';
import { DEFAULT_GRAPH_NAME, graphIdForName } from '../../src/graphCommands.js';
import { silentLogger } from '../../src/logger.js';
import { DEV, PROD, cliEnv, fastApi, runExtractCommand } from './helpers.js';

let sim: PlatformSimulator;
let folder: string;
before(async () => {
  sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
  folder = mkdtempSync(join(tmpdir(), 'lineage-svc-extract-test-'));
});
after(async () => {
  await sim.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('recordExtraction', () => {
  it('records Started, the graph and Completed, and a re-extraction appends no node or edge event', async () => {
    const runtime = await openRuntime({ storage: { backend: 'memory', path: '', url: undefined } }, silentLogger());
    try {
      const api = fastApi(sim);
      const once = () =>
        recordExtraction(runtime, { environmentIds: [PROD, DEV], enableMetrics: false }, () =>
          extract({ platform: api, logger: silentLogger() }, { environmentIds: [PROD, DEV] }),
        );
      const first = await once();
      assert.equal(first.graphId, graphIdForName(DEFAULT_GRAPH_NAME));
      assert.equal(first.record.changes.nodesAdded.length, first.result.graph.nodes.length);
      const events = await runtime.store.readStream(streams.extraction(first.extractionId));
      assert.deepEqual(
        events.map((e) => e.type),
        ['ExtractionStarted', 'ExtractionCompleted'],
      );
      const completed = events[1]!.data as { node_count: number; requests: Record<string, number> };
      assert.equal(completed.node_count, first.result.graph.nodes.length);
      assert.ok(completed.requests['kafka-rest.topics']! > 0);
      const graphEventsBefore = (await runtime.store.readStream(`graph-${first.graphId}`)).length;

      const second = await once();
      assert.equal(second.record.appended, 0);
      const graphEvents = await runtime.store.readStream(`graph-${first.graphId}`);
      assert.equal(graphEvents.length, graphEventsBefore, 'no node or edge event on an unchanged estate');
      assert.equal(runtime.graphs.get(first.graphId)?.graph.order, first.result.graph.nodes.length);
    } finally {
      await runtime.close();
    }
  });

  it('records ExtractionFailed when extraction throws', async () => {
    const runtime = await openRuntime({ storage: { backend: 'memory', path: '', url: undefined } }, silentLogger());
    try {
      const api = fastApi(sim, {}, { cloud: { key: 'WRONG', secret: 'wrong' } });
      await assert.rejects(
        recordExtraction(runtime, { environmentIds: [PROD], enableMetrics: false, extractionId: 'x1' }, () =>
          extract({ platform: api, logger: silentLogger() }, { environmentIds: [PROD] }),
        ),
        /no environment could be read/,
      );
      const events = await runtime.store.readStream(streams.extraction('x1'));
      assert.deepEqual(
        events.map((e) => e.type),
        ['ExtractionStarted', 'ExtractionFailed'],
      );
    } finally {
      await runtime.close();
    }
  });
});

describe('lineage-svc-extract', () => {
  it('prints its flags with --help and exits 0', async () => {
    const { code, stdout } = await runExtractCommand(['--help'], { PATH: process.env.PATH ?? '' });
    assert.equal(code, 0);
    for (const flag of [
      '--env',
      '--cluster',
      '--output',
      '--no-enrich',
      '--enrich-only',
      '--push-lineage',
      '--metrics',
      '--metrics-lookback-hours',
    ])
      assert.ok(stdout.includes(flag), flag);
  });

  it('exits 2 with one line when the cloud key is missing', async () => {
    const { code, stderr } = await runExtractCommand(['--env', 'env-abc'], { PATH: process.env.PATH ?? '' });
    assert.equal(code, 2);
    assert.equal(
      stderr,
      'lineage-svc-extract: extraction needs LINEAGE_SVC_STREAM_CLOUD_API_KEY and LINEAGE_SVC_STREAM_CLOUD_API_SECRET, which are not set\n',
    );
  });

  it('exits 2 with one line on a bad flag, a bad lookback and --push-lineage without lakehouse configuration', async () => {
    const env = cliEnv(sim);
    for (const args of [
      ['--env', PROD, '--bogus'],
      ['--env', PROD, '--metrics-lookback-hours', 'soon'],
      ['--env', PROD, '--push-lineage'],
    ]) {
      const { code, stderr } = await runExtractCommand(args, env);
      assert.equal(code, 2, args.join(' '));
      assert.equal(stderr.trim().split('\n').length, 1, stderr);
      assert.match(stderr, /^lineage-svc-extract: /);
    }
  });

  it('exits 2 with one line when the extraction fails', async () => {
    const { code, stderr } = await runExtractCommand(['--env', PROD, '--output', join(folder, 'x.json')], {
      ...cliEnv(sim),
      LINEAGE_SVC_STREAM_CLOUD_API_KEY: 'WRONG',
    });
    assert.equal(code, 2);
    assert.match(stderr.trim().split('\n').at(-1)!, /^lineage-svc-extract: no environment could be read: .*401/);
    assert.ok(!stderr.includes('    at '), 'no stack trace');
  });

  it('extracts, writes the graph file and prints the summary; --enrich-only --metrics enriches it', async () => {
    const output = join(folder, 'graph.json');
    const { code, stdout, stderr } = await runExtractCommand(
      ['--env', PROD, '--env', DEV, '--output', output, '--verbose'],
      cliEnv(sim),
    );
    assert.equal(code, 0, stderr);
    assert.match(stderr, /Phase 1\/4: /);
    assert.match(stdout, /Extraction summary \(.* s\): \d+ nodes, \d+ edges/);
    assert.match(stdout, /kafka-rest\.topics +3/);
    assert.match(stdout, /Warnings: 0/);
    const graph = JSON.parse(readFileSync(output, 'utf8')) as {
      nodes: { id: string; attributes: Record<string, unknown> | null }[];
    };
    assert.ok(graph.nodes.length > 50);
    assert.ok(graph.nodes.every((n) => n.attributes?.metrics_active === undefined));

    const enriched = await runExtractCommand(
      ['--env', PROD, '--output', output, '--enrich-only', '--metrics'],
      cliEnv(sim),
    );
    assert.equal(enriched.code, 0, enriched.stderr);
    assert.match(enriched.stderr, /catalog enrichment .* not available/);
    const after = JSON.parse(readFileSync(output, 'utf8')) as typeof graph;
    assert.ok(after.nodes.some((n) => n.attributes?.metrics_active === true));
  });

  it('exits 2 with one line when --enrich-only finds no readable graph file', async () => {
    const output = join(folder, 'broken.json');
    writeFileSync(output, '{not json');
    const { code, stderr } = await runExtractCommand(['--env', PROD, '--output', output, '--enrich-only'], cliEnv(sim));
    assert.equal(code, 2);
    assert.equal(
      stderr
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('lineage-svc-extract: ')).length,
      1,
      stderr,
    );
  });

  it('exits 1 when interrupted', async () => {
    sim.injectFault({ api: 'cmk.clusters', kind: 'latency', ms: 5000, times: 1 });
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'commands/extract.ts', '--env', DEV, '--output', join(folder, 'i.json')],
      { env: cliEnv(sim) },
    );
    let stderr = '';
    let sent = false;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!sent && stderr.includes('Discovery:')) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    sim.clearFaults();
    assert.equal(code, 1);
    assert.match(stderr, /lineage-svc-extract: interrupted/);
  });
});
