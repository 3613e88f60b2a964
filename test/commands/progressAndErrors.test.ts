/**
 * `lineage-svc-extract` for daily use (issue 17, item 1): progress on stderr (plain lines when not on
 * a terminal, a live line on one, none with `--quiet` or `LINEAGE_SVC_LOG_LEVEL=ERROR`), the `--json`
 * summary, and errors that name the service, the URL and the variable to change, with 401 told from
 * 403. Runs the real command (spawned with pipes, or in a pseudo-terminal through `script`) against
 * the platform simulator, or `runExtract` in this process where retries must be fast.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { createProgressDisplay, progressMode, retryText } from '../../commands/progress.js';
import { runExtract, type ExtractArgs, type ExtractSummary } from '../../commands/shared.js';
import { freePort } from '../helpers/ports.js';
import { cliEnv, demoSimulatorFixture, PROD, runExtractCommand } from '../extraction/helpers.js';

/** The flags of a plain extraction of `environments` into `output`. */
function extractArgs(environments: string[], output: string, extra: Partial<ExtractArgs> = {}): ExtractArgs {
  return {
    env: environments,
    cluster: [],
    output,
    noEnrich: false,
    enrichOnly: false,
    pushLineage: false,
    metrics: false,
    metricsLookbackHours: 1,
    ...extra,
  };
}

/** A stream that collects what is written to it, as text. */
function collector(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

// eslint-disable-next-line no-control-regex
const ESCAPE = /\u001b\[/;

describe('lineage-svc-extract progress', () => {
  const demo = demoSimulatorFixture('lineage-svc-progress-');

  it('prints plain progress lines when stderr is a pipe, numbered over the phases that run', async () => {
    const run = await runExtractCommand(
      ['--env', PROD, '--metrics', '--output', join(demo.folder, 'plain.json')],
      cliEnv(demo.simulator, join(demo.folder, 'store')),
    );
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stderr.trim().split('\n');
    for (const expected of ['Discovery: ', 'Phase 1/5: ', 'Phase 2/5: ', 'Phase 4/5: ', 'Phase 5/5: ', 'Done: '])
      assert.ok(
        lines.some((line) => line.startsWith(expected)),
        `${expected} in\n${run.stderr}`,
      );
    assert.ok(!/Phase \d\/4/.test(run.stderr), 'no phase numbered out of 4 when 5 run');
    assert.ok(!ESCAPE.test(run.stderr), 'no terminal control sequences on a pipe');
    assert.match(run.stdout, /^Extraction summary /);
    // The counts are printed once, in the summary (issue 28: the Done line had the platform's alone).
    assert.doesNotMatch(run.stderr, /\d+ nodes/);
    assert.equal(run.stdout.match(/\d+ nodes, \d+ edges/g)?.length, 1, run.stdout);
    // The requests per API only with --verbose.
    assert.match(run.stdout, /^Requests: \d+ in all \(--verbose lists them per API\)$/m);
    assert.doesNotMatch(run.stdout, /^ {2}kafka-rest\.topics +\d+$/m);
    const verbose = await runExtractCommand(
      ['--env', PROD, '--verbose', '--output', join(demo.folder, 'verbose.json')],
      cliEnv(demo.simulator, join(demo.folder, 'store')),
    );
    assert.equal(verbose.code, 0, verbose.stderr);
    assert.match(verbose.stdout, /^Requests: \d+ in all$/m);
    assert.match(verbose.stdout, /^ {2}kafka-rest\.topics +\d+$/m);
  });

  it('prints nothing but errors with --quiet, and no progress with LINEAGE_SVC_LOG_LEVEL=ERROR', async () => {
    demo.simulator.injectFault({ api: 'kafka-rest.mirrors', kind: 'status', status: 403 });
    const quiet = await runExtractCommand(
      ['--env', PROD, '--quiet', '--output', join(demo.folder, 'quiet.json')],
      cliEnv(demo.simulator, join(demo.folder, 'store')),
    );
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(quiet.stderr, '', 'nothing on stderr: no store line, no progress, no warning lines');
    assert.equal(quiet.stdout, '', 'nothing on stdout: no summary');
    const failing = await runExtractCommand(
      ['--env', PROD, '--quiet', '--output', join(demo.folder, 'no-such-folder', 'quiet.json')],
      cliEnv(demo.simulator, join(demo.folder, 'store')),
    );
    assert.equal(failing.code, 2);
    assert.equal(failing.stdout, '');
    assert.match(failing.stderr, /^lineage-svc-extract: [^\n]+\n$/, 'an error is still one line');

    const silent = await runExtractCommand(['--env', PROD, '--output', join(demo.folder, 'silent.json')], {
      ...cliEnv(demo.simulator, join(demo.folder, 'store')),
      LINEAGE_SVC_LOG_LEVEL: 'ERROR',
    });
    assert.equal(silent.code, 0, silent.stderr);
    assert.ok(!/^(Discovery|Phase|Done|Store|Enrichment)/m.test(silent.stderr), silent.stderr);
    assert.ok(!silent.stderr.includes('warning:'), 'the log level ERROR hides warning lines too');
    assert.match(silent.stdout, /^Extraction summary /);
  });

  it('with LINEAGE_SVC_LOG_LEVEL=INFO tells each step once, as a log line, not also as a progress line', async () => {
    const run = await runExtractCommand(['--env', PROD, '--output', join(demo.folder, 'logged.json')], {
      ...cliEnv(demo.simulator, join(demo.folder, 'store')),
      LINEAGE_SVC_LOG_LEVEL: 'INFO',
    });
    assert.equal(run.code, 0, run.stderr);
    const logged = run.stderr.split('\n').filter((line) => line.startsWith('{') && line.includes('"phase"'));
    assert.ok(logged.length >= 4, `the steps as log lines:\n${run.stderr}`);
    assert.ok(!/^Phase \d/m.test(run.stderr), `no plain progress line besides the logs:\n${run.stderr}`);
  });

  it('--json prints one JSON summary on stdout and nothing else there', async () => {
    demo.simulator.injectFault({ api: 'kafka-rest.mirrors', kind: 'status', status: 403 });
    const output = join(demo.folder, 'scripted.json');
    const run = await runExtractCommand(
      ['--env', PROD, '--json', '--output', output],
      cliEnv(demo.simulator, join(demo.folder, 'store')),
    );
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout) as ExtractSummary;
    assert.equal(run.stdout.trim().split('\n').length, 1, 'one line');
    assert.match(summary.graph_id, /^[0-9a-f-]{36}$/);
    assert.match(summary.extraction_id!, /^[0-9a-f-]{36}$/);
    assert.ok(summary.nodes > 0 && summary.edges > 0);
    assert.equal(
      Object.values(summary.nodes_by_type).reduce((a, b) => a + b, 0),
      summary.nodes,
    );
    assert.equal(
      Object.values(summary.edges_by_type).reduce((a, b) => a + b, 0),
      summary.edges,
    );
    assert.ok(summary.nodes_by_type.TOPIC! > 0);
    for (const key of [
      'nodes_added',
      'nodes_changed',
      'nodes_removed',
      'edges_added',
      'edges_changed',
      'edges_removed',
    ])
      assert.equal(typeof summary.changes[key as keyof typeof summary.changes], 'number', key);
    assert.ok(summary.warnings.length > 0);
    assert.ok(
      summary.warnings.some((w) => /Kafka REST refused .* \(HTTP 403\).*LINEAGE_SVC_CLUSTER_API_KEY/.test(w)),
      summary.warnings.join('\n'),
    );
    assert.equal(typeof summary.duration_seconds, 'number');
    assert.ok(summary.duration_seconds >= 0);
    assert.equal(summary.output, output);
    assert.equal(summary.format, 'json');
    assert.ok(summary.requests['cmk.clusters']! >= 1);
  });

  it('draws a live line on a terminal (a pseudo-terminal through script)', async (t) => {
    if (spawnSync('script', ['--version']).status !== 0) {
      t.skip('script (util-linux) is not installed');
      return;
    }
    const env = cliEnv(demo.simulator, join(demo.folder, 'store'));
    const command = `'${process.execPath}' --import tsx commands/extract.ts --env ${PROD} --output '${join(demo.folder, 'tty.json')}'`;
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { ...env, TERM: 'xterm' },
      cwd: process.cwd(),
    });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, text);
    assert.ok(ESCAPE.test(text), 'redrawn in place with control sequences');
    assert.match(text, /Done \| \d+ requests \| the platform is read/);
    assert.doesNotMatch(text, /\d+ warnings/, 'the summary counts the warnings, once');
    assert.ok(!/^Phase 1\/4: /m.test(text), 'no plain progress lines on a terminal');
    assert.match(text, /Extraction summary /);
  });
});

describe('the progress display', () => {
  it('is live on a terminal, plain lines elsewhere, and off with --quiet or a log level above INFO', () => {
    assert.equal(progressMode({ quiet: false, logLevel: 'info', stream: { isTTY: true } }), 'live');
    assert.equal(progressMode({ quiet: false, logLevel: 'debug', stream: {} }), 'lines');
    assert.equal(progressMode({ quiet: true, logLevel: 'info', stream: { isTTY: true } }), 'off');
    assert.equal(progressMode({ quiet: false, logLevel: 'warn', stream: { isTTY: true } }), 'off');
    assert.equal(progressMode({ quiet: false, logLevel: 'error', stream: {} }), 'off');
  });

  it('redraws one line on a terminal stream: steps, requests and the retry wait', async () => {
    let written = '';
    const terminal = Object.assign(
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          written += chunk.toString();
          done();
        },
      }),
      { isTTY: true, columns: 200 },
    );
    const display = createProgressDisplay('live', terminal, 3);
    display.step({ phase: 0, label: 'Discovery', message: 'clusters in env-1', phases: 4, requests: 0, warnings: 0 });
    display.request('cmk.clusters');
    const notice = {
      api: 'cmk.clusters',
      service: 'Confluent Cloud API',
      url: 'http://127.0.0.1:1/cmk/v2/clusters',
      attempt: 1,
      attempts: 4,
      delayMs: 2000,
      problem: 'connection refused',
    };
    display.retry(notice);
    display.step({ phase: 1, label: 'Phase 1/4', message: 'topics', phases: 4, requests: 5, warnings: 2 });
    display.step({ phase: 6, label: 'Done', message: '3 nodes, 2 edges', phases: 4, requests: 7, warnings: 2 });
    display.stop();
    assert.ok(ESCAPE.test(written), 'control sequences');
    assert.equal(written.split('\n').length, 2, 'one line, ended once when stopped');
    assert.match(written, /Discovery \| 0 requests \| clusters in env-1/);
    assert.ok(written.includes(retryText(notice)));
    assert.match(retryText(notice), /^retrying cmk.clusters in 2 s \(connection refused; attempt 1 of 4 failed/);
    assert.match(written, /Done \| 7 requests \| 3 nodes, 2 edges/);
    assert.doesNotMatch(written, /warnings/);
  });

  it('writes plain lines, retries included, on a stream that is not a terminal', () => {
    const { stream, text } = collector();
    const display = createProgressDisplay('lines', stream, 3);
    display.step({ label: 'Phase 2/4', message: 'connectors' });
    display.retry({
      api: 'connect.connectors',
      service: 'Confluent Cloud API',
      url: 'http://x/connectors',
      attempt: 2,
      attempts: 4,
      delayMs: 2000,
      problem: 'HTTP 503',
    });
    display.stop();
    assert.equal(
      text(),
      'Phase 2/4: connectors\n' +
        'Retrying: retrying connect.connectors in 2 s (HTTP 503; attempt 2 of 4 failed; Confluent Cloud API at http://x/connectors)\n',
    );
  });
});

describe('lineage-svc-extract errors say what to change', () => {
  const demo = demoSimulatorFixture('lineage-svc-errors-');

  it('an unreachable platform URL: shows each retry wait, then one line naming the URL and the variable; exit 2', async () => {
    const port = await freePort();
    const env = {
      ...cliEnv(demo.simulator, join(demo.folder, 'store')),
      LINEAGE_SVC_STREAM_CLOUD_API_URL: `http://127.0.0.1:${port}`,
    };
    const stdout = collector();
    const stderr = collector();
    const code = await runExtract(
      'lineage-svc-extract',
      extractArgs([PROD], join(demo.folder, 'unreachable.json')),
      loadConfig(env),
      env,
      { stdout: stdout.stream, stderr: stderr.stream },
      { retryBaseDelayMs: 1 },
    );
    assert.equal(code, 2);
    assert.equal(stdout.text(), '');
    const lines = stderr.text().trim().split('\n');
    assert.equal(
      lines.filter((line) => line.startsWith('Retrying: retrying cmk.clusters in ')).length,
      3,
      stderr.text(),
    );
    const last = lines.at(-1)!;
    assert.match(last, /^lineage-svc-extract: /);
    assert.ok(last.includes(`Confluent Cloud API is unreachable at http://127.0.0.1:${port}/cmk/v2/clusters`), last);
    assert.match(last, /connection refused; gave up after 4 attempts/);
    assert.match(last, /check LINEAGE_SVC_STREAM_CLOUD_API_URL/);
  });

  it('a port fetch refuses (1) is not retried: only a new address mends it', async () => {
    const env = {
      ...cliEnv(demo.simulator, join(demo.folder, 'store')),
      LINEAGE_SVC_STREAM_CLOUD_API_URL: 'http://127.0.0.1:1',
    };
    const stdout = collector();
    const stderr = collector();
    const code = await runExtract(
      'lineage-svc-extract',
      extractArgs([PROD], join(demo.folder, 'bad-port.json')),
      loadConfig(env),
      env,
      { stdout: stdout.stream, stderr: stderr.stream },
      { retryBaseDelayMs: 1 },
    );
    assert.equal(code, 2);
    assert.ok(!stderr.text().includes('Retrying:'), stderr.text());
    const last = stderr.text().trim().split('\n').at(-1)!;
    assert.match(last, /unreachable at http:\/\/127\.0\.0\.1:1\/cmk\/v2\/clusters \(bad port; not retried\)/);
    assert.match(last, /LINEAGE_SVC_STREAM_CLOUD_API_URL/);
  });

  it('a rejected key (401) says the key or secret is wrong or expired and names the key variables', async () => {
    const env = {
      ...cliEnv(demo.simulator, join(demo.folder, 'store')),
      LINEAGE_SVC_STREAM_CLOUD_API_SECRET: 'not-the-secret',
    };
    const run = await runExtractCommand(['--env', PROD, '--output', join(demo.folder, 'rejected.json')], env);
    assert.equal(run.code, 2, run.stderr);
    const last = run.stderr.trim().split('\n').at(-1)!;
    assert.match(
      last,
      /^lineage-svc-extract: .*Confluent Cloud API rejected the credentials at http:\/\/127\.0\.0\.1:\d+\//,
    );
    assert.match(last, /\(HTTP 401\): the key or secret is wrong or expired/);
    assert.match(last, /set LINEAGE_SVC_STREAM_CLOUD_API_KEY and LINEAGE_SVC_STREAM_CLOUD_API_SECRET/);
    assert.ok(!last.includes('role binding'));
  });

  it('a key without permission (403) says it lacks a role binding and names the key variables', async () => {
    demo.simulator.injectFault({ api: 'cmk.clusters', kind: 'status', status: 403 });
    const run = await runExtractCommand(
      ['--env', PROD, '--output', join(demo.folder, 'refused.json')],
      cliEnv(demo.simulator, join(demo.folder, 'store')),
    );
    assert.equal(run.code, 2, run.stderr);
    const last = run.stderr.trim().split('\n').at(-1)!;
    assert.match(
      last,
      /Confluent Cloud API refused the request at http:\/\/127\.0\.0\.1:\d+\/cmk\/v2\/clusters \(HTTP 403\)/,
    );
    assert.match(last, /the credentials are valid but the key lacks a role binding/);
    assert.match(last, /LINEAGE_SVC_STREAM_CLOUD_API_KEY and LINEAGE_SVC_STREAM_CLOUD_API_SECRET/);
    assert.ok(!last.includes('wrong or expired'));
  });
});
