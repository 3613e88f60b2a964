/**
 * The Helm chart (`infra/deploy/helm/lineage-svc`), checked by Helm itself: helm-java runs Helm's own
 * Go code from a native library on Maven Central (Debian packages no Helm), through
 * `test/java/helm/HelmCheck.java`. Skipped, saying so, without `java` and `mvn`.
 *
 * - `helm lint --strict` passes;
 * - `helm template` with values set (replicas, the PostgreSQL URL, a watcher, the UI's read-key
 *   Secret) renders manifests that validate against the Kubernetes schemas of `kubernetes-models`,
 *   carry the values, probe the API's endpoints, ship no Secret, and keep the settings `loadConfig`
 *   accepts;
 * - without `existingSecret`, Helm refuses to render, naming the value.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { before, describe, it } from 'node:test';
import { Deployment } from 'kubernetes-models/apps/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Service } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';
import { javaToolsMissing, mavenClasspath } from '../../infra/kafka/maven.js';
import { loadConfig } from '../../src/config.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CHART = join(ROOT, 'infra/deploy/helm/lineage-svc');
const HELM = join(ROOT, 'test/java/helm');
const run = promisify(execFile);
const missing = await javaToolsMissing();

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const MODELS: Record<string, new (data: Json) => { validate(): void }> = {
  'apps/v1 Deployment': Deployment,
  'v1 Service': Service,
  'v1 ConfigMap': ConfigMap,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1 NetworkPolicy': NetworkPolicy,
};

describe(
  'Helm chart',
  { concurrency: true, skip: missing ? `${missing}: the Helm chart is not checked` : false },
  () => {
    let classpath: string;
    /** HelmCheck.java with `args`: its exit code and output. */
    const helm = async (...args: string[]) => {
      try {
        const { stdout, stderr } = await run('java', ['-cp', classpath, join(HELM, 'HelmCheck.java'), ...args], {
          maxBuffer: 16 * 1024 * 1024,
          timeout: 120_000,
        });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failed = error as { code: number; stdout: string; stderr: string };
        return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    };
    before(async () => {
      classpath = (await mavenClasspath(join(HELM, 'pom.xml'))).join(':');
    });

    it('passes helm lint --strict', async () => {
      const lint = await helm('lint', CHART);
      assert.equal(lint.code, 0, lint.stdout + lint.stderr);
      assert.doesNotMatch(lint.stdout, /\[(WARNING|ERROR)\]/);
    });

    it('renders valid manifests that carry the values: replicas, PostgreSQL URL, watcher, UI read key, no Secret', async () => {
      const rendered = await helm(
        'template',
        CHART,
        'api.replicas=3',
        'postgresql.url=postgres://lineage@postgres.databases:5432/lineage',
        'existingSecret=team-lineage-keys',
        'ui.existingSecret=team-lineage-ui',
        'watcher.environments[0]=env-q7m2k9',
      );
      assert.equal(rendered.code, 0, rendered.stderr);
      const documents: Json[] = parseAllDocuments(rendered.stdout)
        .map((document) => document.toJS() as Json)
        .filter((document) => document !== null);
      const kinds = documents.map((document) => `${document.kind} ${document.metadata.name}`).sort();
      assert.deepEqual(kinds, [
        'ConfigMap lineage-config',
        'Deployment lineage-api',
        'Deployment lineage-ui',
        'Deployment lineage-watcher-env-q7m2k9',
        'NetworkPolicy lineage-api',
        'NetworkPolicy lineage-ui',
        'NetworkPolicy lineage-watcher-env-q7m2k9',
        'PodDisruptionBudget lineage-api',
        'Service lineage-api',
        'Service lineage-ui',
      ]);
      for (const document of documents) {
        const Model = MODELS[`${document.apiVersion} ${document.kind}`];
        assert.ok(Model, `no schema for ${document.apiVersion} ${document.kind}`);
        assert.doesNotThrow(() => new Model(document).validate(), `${document.kind} ${document.metadata.name}`);
      }
      const find = (kind: string, name: string) =>
        documents.find((document) => document.kind === kind && document.metadata.name === name);
      const api = find('Deployment', 'lineage-api');
      assert.equal(api.spec.replicas, 3);
      const container = api.spec.template.spec.containers[0];
      assert.deepEqual(container.envFrom.map((source: Json) => source.secretRef?.name).filter(Boolean), [
        'team-lineage-keys',
      ]);
      assert.equal(container.livenessProbe.httpGet.path, '/api/v1/health');
      assert.equal(container.readinessProbe.httpGet.path, '/api/v1/ready');
      assert.equal(api.spec.template.spec.volumes[0].emptyDir.sizeLimit, '64Mi');
      const config = find('ConfigMap', 'lineage-config').data;
      const settings = loadConfig(config);
      assert.equal(settings.storage.backend, 'postgres');
      assert.equal(settings.storage.url, 'postgres://lineage@postgres.databases:5432/lineage');
      assert.equal(new URL(settings.api.url).hostname, 'lineage-api', 'the UI reaches the API Service');
      const ui = find('Deployment', 'lineage-ui').spec.template.spec.containers[0];
      assert.equal(ui.envFrom, undefined, 'the UI never gets the Secret of every key');
      const key = ui.env.find((variable: Json) => variable.name === 'LINEAGE_SVC_API_KEY');
      assert.equal(key.valueFrom.secretKeyRef.name, 'team-lineage-ui');
      const watcher = find('Deployment', 'lineage-watcher-env-q7m2k9').spec.template.spec.containers[0];
      assert.deepEqual(watcher.args.slice(0, 2), ['--env', 'env-q7m2k9']);
      assert.ok(watcher.livenessProbe.exec.command.join(' ').includes('/tmp/heartbeat'));
      assert.ok(watcher.args.includes('/tmp/heartbeat'));
      const budget = find('PodDisruptionBudget', 'lineage-api');
      assert.deepEqual(budget.spec.selector.matchLabels, api.spec.selector.matchLabels);
    });

    it('refuses to render without existingSecret, naming the value', async () => {
      const refused = await helm('template', CHART, 'existingSecret=');
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /existingSecret: name the Secret/);
    });
  },
);
