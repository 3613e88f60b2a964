/**
 * Every platform service's failures say what to change (issue 17, item 1), as `lineage-svc-extract`
 * reports them: the service as a user knows it, the URL called, and the variables to set, with a
 * rejected credential (401: wrong or expired) told from a missing permission (403: a role binding),
 * and an address that does not answer (unreachable, or no answer in time) naming the URL variable.
 * test/commands/progressAndErrors.test.ts covers the Confluent Cloud API, whose failures end the
 * run; here each other service fails alone and the run goes on with a warning for it.
 *
 * Runs `runExtract` in this process (fast retries, a short client timeout) against the platform
 * simulator with injected faults, and reads the warnings from the `--json` summary.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { runExtract, type ExtractArgs, type ExtractSummary } from '../../commands/shared.js';
import type { Fault } from '../../simulators/confluent/faults.js';
import { loadConfig } from '../../src/config.js';
import { freePort } from '../helpers/ports.js';
import { cliEnv, demoSimulatorFixture, PROD } from '../extraction/helpers.js';

/** The client timeout of these runs, in ms (a `timeout` fault holds its request longer). */
const TIMEOUT_MS = 400;

/** One failure and what its warning must say. */
interface Case {
  /** What fails, in the test's name. */
  what: string;
  fault: Fault;
  /** The warning's text from the service on: service, what happened, the URL (`{url}`: any URL of the simulator). */
  says: string;
  /** The variables it must name. */
  variables: string[];
  /** What it must not say (a 401 is not a missing role binding, a 403 not a wrong key). */
  not?: RegExp;
  /** Extraction flags this failure needs (metrics). */
  metrics?: boolean;
}

const URL_PATTERN = String.raw`http://127\.0\.0\.1:\d+/\S+`;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const CASES: Case[] = [
  {
    what: 'Kafka REST refuses the cluster key (403)',
    fault: { api: 'kafka-rest.consumer-groups', kind: 'status', status: 403 },
    says: 'Kafka REST refused the request at {url} (HTTP 403): the credentials are valid but the key lacks a role binding',
    variables: ['LINEAGE_SVC_CLUSTER_API_KEY', 'LINEAGE_SVC_CLUSTER_API_SECRET'],
    not: /wrong or expired/,
  },
  {
    what: 'Schema Registry rejects its key (401)',
    fault: { api: 'schema-registry.schemas', kind: 'unauthorized' },
    says: 'Schema Registry rejected the credentials at {url} (HTTP 401): the key or secret is wrong or expired',
    variables: ['LINEAGE_SVC_SCHEMA_REGISTRY_API_KEY', 'LINEAGE_SVC_SCHEMA_REGISTRY_API_SECRET'],
    not: /role binding/,
  },
  {
    what: 'Flink SQL refuses its key (403)',
    fault: { api: 'flink.statements', kind: 'status', status: 403 },
    says: 'Flink SQL refused the request at {url} (HTTP 403): the credentials are valid but the key lacks a role binding',
    variables: ['LINEAGE_SVC_FLINK_API_KEY', 'LINEAGE_SVC_FLINK_API_SECRET'],
    not: /wrong or expired/,
  },
  {
    what: 'ksqlDB rejects its key (401)',
    fault: { api: 'ksqldb.ksql', kind: 'unauthorized' },
    says: 'ksqlDB rejected the credentials at {url} (HTTP 401): the key or secret is wrong or expired',
    variables: ['LINEAGE_SVC_KSQLDB_API_KEY', 'LINEAGE_SVC_KSQLDB_API_SECRET'],
  },
  {
    what: 'Tableflow rejects its key (401)',
    fault: { api: 'tableflow.topics', kind: 'unauthorized' },
    says: 'Confluent Cloud API (Tableflow) rejected the credentials at {url} (HTTP 401): the key or secret is wrong or expired',
    variables: ['LINEAGE_SVC_TABLEFLOW_API_KEY', 'LINEAGE_SVC_TABLEFLOW_API_SECRET'],
  },
  {
    what: 'the Metrics API refuses the cloud key (403)',
    fault: { api: 'metrics.query', kind: 'status', status: 403 },
    says: 'Confluent Cloud Metrics API refused the request at {url} (HTTP 403): the credentials are valid but the key lacks a role binding',
    variables: ['LINEAGE_SVC_STREAM_CLOUD_API_KEY', 'LINEAGE_SVC_STREAM_CLOUD_API_SECRET', 'MetricsViewer'],
    metrics: true,
  },
  {
    what: 'Connect gives no answer in time',
    fault: { api: 'connect.connectors', kind: 'timeout' },
    says: `Confluent Cloud API gave no answer within ${TIMEOUT_MS / 1000} s at {url}: check LINEAGE_SVC_STREAM_CLOUD_API_URL`,
    variables: ['LINEAGE_SVC_STREAM_CLOUD_API_URL'],
  },
];

/** The pattern of a case's warning. */
const warningPattern = (says: string) => new RegExp(escape(says).replace(escape('{url}'), URL_PATTERN));

describe('lineage-svc-extract: each service failing names itself, the URL and the variables to change', () => {
  const demo = demoSimulatorFixture('lineage-svc-service-errors-');

  /** One extraction of the production environment with `env` added: exit code and the `--json` summary's warnings. */
  async function extract(env: Record<string, string> = {}, metrics = false): Promise<string[]> {
    const variables = { ...cliEnv(demo.simulator, join(demo.folder, 'store')), ...env };
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const args: ExtractArgs = {
      env: [PROD],
      cluster: [],
      output: join(demo.folder, 'graph.json'),
      noEnrich: true,
      enrichOnly: false,
      pushLineage: false,
      metrics,
      metricsLookbackHours: 1,
      json: true,
      quiet: true,
    };
    const code = await runExtract(
      'lineage-svc-extract',
      args,
      loadConfig(variables),
      variables,
      { stdout, stderr },
      {
        retryBaseDelayMs: 1,
        timeoutMs: TIMEOUT_MS,
      },
    );
    assert.equal(code, 0, err);
    return (JSON.parse(out) as ExtractSummary).warnings;
  }

  for (const failure of CASES) {
    it(`${failure.what}: ${failure.variables.join(', ')}`, async () => {
      demo.simulator.injectFault(failure.fault);
      const warnings = await extract({}, failure.metrics === true);
      const pattern = warningPattern(failure.says);
      const warning = warnings.find((text) => pattern.test(text));
      assert.ok(warning, `no warning matches ${pattern}:\n${warnings.join('\n')}`);
      for (const variable of failure.variables) assert.ok(warning.includes(variable), `${variable} in ${warning}`);
      if (failure.not) assert.doesNotMatch(warning, failure.not);
    });
  }

  it('an unreachable LINEAGE_SVC_SCHEMA_REGISTRY_URL names that variable, not the discovered endpoint', async () => {
    const port = await freePort();
    const warnings = await extract({ LINEAGE_SVC_SCHEMA_REGISTRY_URL: `http://127.0.0.1:${port}` });
    const warning = warnings.find((text) =>
      text.includes(`Schema Registry is unreachable at http://127.0.0.1:${port}/`),
    );
    assert.ok(warning, warnings.join('\n'));
    assert.match(warning, /\(connection refused; gave up after 4 attempts\): check LINEAGE_SVC_SCHEMA_REGISTRY_URL /);
  });

  it('Kafka REST rejecting the key when listing topics (401) names the service and the URL too', async () => {
    demo.simulator.injectFault({ api: 'kafka-rest.topics', kind: 'unauthorized' });
    const warnings = await extract();
    const pattern = warningPattern(
      'kafka-rest.topics answered 401: listing topics needs a cluster-scoped API key; ' +
        'Kafka REST rejected the credentials at {url} (HTTP 401): the key or secret is wrong or expired',
    );
    const warning = warnings.find((text) => pattern.test(text));
    assert.ok(warning, `no warning matches ${pattern}:\n${warnings.join('\n')}`);
    assert.ok(warning.includes('LINEAGE_SVC_CLUSTER_API_KEY and LINEAGE_SVC_CLUSTER_API_SECRET'), warning);
    assert.doesNotMatch(warning, /role binding/);
  });
});
