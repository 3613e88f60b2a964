/**
 * The deployment files (`infra/deploy/`), checked as far as a machine without Docker or Kubernetes
 * allows (nothing here builds an image or starts a container):
 *
 * - every YAML parses with the `yaml` package;
 * - `compose.yaml` validates against the Compose Specification JSON schema (the copy shipped by
 *   `dclint`, draft-07, read with ajv) and passes dclint's own rules; its lineage-svc services get
 *   settings that `loadConfig` / `loadUiSettings` accept, point at services that exist, and probe an
 *   endpoint of the API's OpenAPI document on the default port;
 * - the Kubernetes manifests validate against the Kubernetes OpenAPI schemas shipped by
 *   `kubernetes-models` (which, like the API server's non-strict mode, do not reject unknown
 *   fields, so the fields that matter are checked one by one): probes on endpoints of the OpenAPI
 *   document, ports matching the defaults, ConfigMap and Secret keys that the configuration knows,
 *   resource limits and a non-root security context on every container;
 * - the Dockerfile, read with `dockerfile-ast`: two stages, `npm ci`, the native build toolchain
 *   and `make build` in the first, and a final stage that copies only the runtime files from it,
 *   runs as a numeric non-root user and starts a bin of package.json.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { DCLinter } from 'dclint';
import { DockerfileParser, type Copy, type Instruction } from 'dockerfile-ast';
import { Deployment } from 'kubernetes-models/apps/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { EnvironmentSchema, loadConfig, SECRET_VARIABLES } from '../../src/config.js';
import { loadUiSettings } from '../../infra/ui/server.js';
import { call, startApi, type TestApi } from '../http/helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEPLOY = join(ROOT, 'infra/deploy');
const KUBERNETES = join(DEPLOY, 'kubernetes');
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
const CONFIG_VARIABLES = new Set(Object.keys(EnvironmentSchema.shape));
const API_PORT = loadConfig({}).api.port;
const UI_PORT = loadUiSettings({}).port;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/**
 * Every YAML file under infra/deploy, relative to the repository root; the Helm chart's templates,
 * which are Go templates until Helm renders them, are checked by test/deploy/helmChart.test.ts.
 */
function yamlFiles(folder = DEPLOY): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return path.endsWith('/templates') ? [] : yamlFiles(path);
    return /\.ya?ml$/.test(entry.name) ? [relative(ROOT, path)] : [];
  });
}

/**
 * A variable is a UI setting when `loadUiSettings` reads it: setting it to a probe value changes
 * what it returns, or is refused with a message that names it.
 */
function isUiVariable(name: string): boolean {
  const unset = JSON.stringify(loadUiSettings({}));
  return ['1234', 'http://probe.example:1234', 'probe'].some((value) => {
    try {
      return JSON.stringify(loadUiSettings({ [name]: value })) !== unset;
    } catch (error) {
      return String((error as Error).message).includes(name);
    }
  });
}

/** Asserts that every LINEAGE_SVC_* name is a setting of src/config.ts or of the UI server. */
function assertKnownVariables(env: Record<string, string>, where: string): void {
  for (const name of Object.keys(env)) {
    if (!name.startsWith('LINEAGE_SVC_')) {
      assert.match(name, /^NODE_/, `${where}: ${name} is not a lineage-svc setting`);
      continue;
    }
    assert.ok(
      CONFIG_VARIABLES.has(name) || isUiVariable(name),
      `${where}: ${name} is not read by src/config.ts nor by the UI server`,
    );
  }
}

/**
 * Compose's interpolation of `${NAME}`, `${NAME:-default}`, `${NAME-default}` and `${NAME:?error}`
 * (innermost first, so that defaults may hold variables), from `env`.
 */
function interpolate(text: string, env: Record<string, string>): string {
  let result = text;
  const innermost = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])((?:(?!\$\{)[^}])*))?\}/;
  for (let match = innermost.exec(result); match; match = innermost.exec(result)) {
    const [whole, name, colon, operator, argument] = match as unknown as [string, string, string, string, string];
    const value = env[name];
    const unset = value === undefined || (colon === ':' && value === '');
    if (unset && operator === '?') throw new Error(`${name} is required: ${argument}`);
    const replacement = unset ? (operator === '-' ? (argument ?? '') : '') : value;
    result = result.slice(0, match.index) + replacement + result.slice(match.index + whole.length);
  }
  return result;
}

/** The paths of the API's OpenAPI document (an API on the memory store, asked over a socket). */
let apiPaths: Record<string, Record<string, unknown>>;
let api: TestApi;

before(async () => {
  api = await startApi();
  apiPaths = (await call(api.base, 'GET', '/openapi.json')).body.paths;
});
after(async () => api.dispose());

/** Asserts that `GET path` is an operation of the OpenAPI document. */
function assertApiEndpoint(path: string, where: string): void {
  assert.ok(apiPaths[path]?.get, `${where}: GET ${path} is not in the API's OpenAPI document`);
}

/** Asserts that a probe's command runs the image's node on an inline script. */
function assertRunsNode(command: string[]): void {
  assert.deepEqual(command.slice(0, 2), ['node', '-e']);
}

/** Asserts that `command` runs a bin of package.json (`node dist/commands/x.js`). */
function assertRunsBin(command: string[], where: string): void {
  assert.equal(command[0], 'node', where);
  assert.ok(
    Object.values(PACKAGE.bin).includes(command[1] ?? ''),
    `${where}: ${command[1]} is not a bin of package.json`,
  );
}

describe('deployment files', () => {
  it('parse as YAML, every document of every file', () => {
    const files = yamlFiles();
    assert.ok(files.includes('infra/deploy/compose.yaml'));
    assert.ok(files.filter((file) => file.startsWith('infra/deploy/kubernetes/')).length >= 4);
    for (const file of files) {
      for (const document of parseAllDocuments(readFileSync(join(ROOT, file), 'utf8'))) {
        assert.deepEqual(
          document.errors.map((error) => error.message),
          [],
          file,
        );
      }
    }
  });
});

describe('compose.yaml', () => {
  const path = join(DEPLOY, 'compose.yaml');
  const text = readFileSync(path, 'utf8');
  // Compose interpolates the whole file, every profile included, before it does anything.
  const compose = parseYaml(interpolate(text, {}), { merge: true }) as Json;
  const services = compose.services as Record<string, Json>;
  const lineageServices = ['api', 'watcher', 'ui', 'simulator', 'demo-watcher'];

  /**
   * A service's environment as Compose gives it: its env_file entries in order (a later file wins;
   * `lineage-svc.env` stands in as `operatorFile` when given), then `environment:`, which wins.
   */
  function serviceEnvironment(name: string, operatorFile: Record<string, string> = {}): Record<string, string> {
    const service = services[name];
    const merged: Record<string, string> = {};
    for (const entry of (service.env_file ?? []) as Array<{ path: string; required: boolean }>) {
      const file = join(DEPLOY, entry.path);
      if (entry.path === './lineage-svc.env') Object.assign(merged, operatorFile);
      else if (existsSync(file)) Object.assign(merged, parseEnvExample(file));
      else assert.equal(entry.required, false, `${name}: ${entry.path} is required but not in the repository`);
    }
    return { ...merged, ...((service.environment ?? {}) as Record<string, string>) };
  }

  it('interpolates without any variable set: down, ps and config need no LINEAGE_SVC_WATCH_ENVIRONMENT', () => {
    assert.doesNotThrow(() => interpolate(text, {}));
    assert.doesNotMatch(text, /\$\{[A-Z_]+:?\?/, 'no variable is required by interpolation');
  });

  it('validates against the Compose Specification schema', () => {
    const schemaPath = join(
      dirname(createRequire(import.meta.url).resolve('dclint/package.json')),
      'schemas/compose.schema.json',
    );
    // ajv knows draft-07 by its http:// id; the copy names it https://, so its $schema is dropped.
    const { $schema: draft, ...schema } = JSON.parse(readFileSync(schemaPath, 'utf8')) as Json;
    assert.match(draft, /draft-07/);
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(schema);
    const valid = validate(compose);
    assert.ok(valid, ajv.errorsText(validate.errors, { separator: '\n' }));
  });

  it("passes dclint's rules", () => {
    const linter = new DCLinter({ rules: {}, quiet: true, debug: false, exclude: [] });
    // dclint's declarations do not resolve under nodenext (extensionless imports): its result shape, as documented.
    const results = linter.lintFiles([path], false) as Array<{
      messages: Array<{ type: string; rule: string; line: number; message: string }>;
    }>;
    const messages = results.flatMap((result) => result.messages);
    assert.deepEqual(
      messages.map((message) => `${message.type} ${message.rule} line ${message.line}: ${message.message}`),
      [],
    );
  });

  it('runs PostgreSQL, two API replicas and the UI; demo, watcher, Kafka and EventStoreDB as profiles; one image built once', () => {
    const always = Object.keys(services).filter((name) => !services[name].profiles);
    assert.deepEqual(always.sort(), ['api', 'postgres', 'ui']);
    assert.deepEqual(services.simulator.profiles, ['demo']);
    assert.deepEqual(services['demo-watcher'].profiles, ['demo']);
    assert.deepEqual(services.watcher.profiles, ['watcher']);
    assert.deepEqual(services.kafka.profiles, ['kafka']);
    assert.deepEqual(services.eventstoredb.profiles, ['eventstoredb']);
    assert.equal(services.api.deploy.replicas, 2);
    const built = Object.keys(services).filter((name) => services[name].build);
    assert.deepEqual(built, ['api'], 'one service builds the image');
    const build = services.api.build;
    assert.equal(resolve(DEPLOY, build.context), resolve(ROOT), 'the image builds from the repository root');
    assert.equal(build.dockerfile, 'infra/deploy/Dockerfile');
    assert.ok(existsSync(join(ROOT, build.dockerfile)));
    for (const name of lineageServices) {
      assert.equal(services[name].image, services.api.image, `${name} runs the image the api service builds`);
      assert.equal(
        services[name].pull_policy,
        name === 'api' ? 'build' : 'never',
        `${name}: that image is in no registry`,
      );
      assertRunsBin(services[name].command, name);
      assert.ok(services[name].deploy.resources.limits.memory, `${name} has a memory limit`);
    }
    for (const [name, service] of Object.entries(services)) {
      if (service.image) assert.match(service.image, /:[\w.-]+$/, `${name} pins a tag`);
      for (const tmpfs of service.tmpfs ?? []) assert.match(tmpfs, /:size=\d+[kmg]$/, `${name}: ${tmpfs} has a size`);
    }
  });

  it('gives the API and the watchers settings that loadConfig accepts, with the store in the postgres service', () => {
    for (const name of ['api', 'watcher', 'demo-watcher']) {
      const env = serviceEnvironment(name);
      assertKnownVariables(env, `compose ${name}`);
      const config = loadConfig(env);
      assert.equal(config.storage.backend, 'postgres');
      assert.equal(new URL(config.storage.url!).hostname, 'postgres');
      assert.ok(services.postgres, 'the store URL names a service');
      assert.equal(config.api.port, API_PORT);
    }
    const example = parseEnvExample(join(DEPLOY, 'lineage-svc.env.example'));
    assertKnownVariables(
      Object.fromEntries(Object.keys(example).map((name) => [name, 'x'])),
      'lineage-svc.env.example',
    );
  });

  it('lets lineage-svc.env override every setting but the container layout (issue 28: none silently overridden)', () => {
    const operatorFile = {
      LINEAGE_SVC_LOG_LEVEL: 'DEBUG',
      LINEAGE_SVC_STORAGE__BACKEND: 'eventstoredb',
      LINEAGE_SVC_STORAGE__URL: 'esdb://eventstoredb:2113?tls=false',
      LINEAGE_SVC_API_CORS_ORIGINS: 'https://lineage.example.com',
      LINEAGE_SVC_OPENLINEAGE_KAFKA_BROKERS: 'kafka:9092',
    };
    for (const name of ['api', 'watcher']) {
      const layout = Object.keys(services[name].environment);
      assert.deepEqual(layout.sort(), ['LINEAGE_SVC_API_HOST', 'LINEAGE_SVC_API_PORT', 'LINEAGE_SVC_GRAPH_FILE']);
      const config = loadConfig(serviceEnvironment(name, operatorFile));
      assert.equal(config.logLevel, 'debug', name);
      assert.equal(config.storage.backend, 'eventstoredb', name);
      assert.equal(config.storage.url, operatorFile.LINEAGE_SVC_STORAGE__URL, name);
      assert.deepEqual(config.api.corsOrigins, ['https://lineage.example.com'], name);
      assert.deepEqual(config.openLineageKafka.brokers, ['kafka:9092'], name);
    }
  });

  it("points the demo watcher at the simulator service with the demo scenario's keys and environments", async () => {
    const { loadScenario, simulatorClientEnvironment } = await import('../../simulators/confluent/index.js');
    const scenario = await loadScenario('demo');
    const command = services.simulator.command as string[];
    const advertised = command[command.indexOf('--advertised-url') + 1]!;
    const url = new URL(advertised);
    assert.equal(url.hostname, 'simulator');
    assert.equal(command[command.indexOf('--port') + 1], url.port);
    assert.equal(command[command.indexOf('--host') + 1], '0.0.0.0');
    const env = serviceEnvironment('demo-watcher');
    const expected = simulatorClientEnvironment(advertised, scenario);
    for (const [name, value] of Object.entries(expected)) assert.equal(env[name], value, name);
    const watched = (services['demo-watcher'].command as string[]).flatMap((part, index, all) =>
      all[index - 1] === '--env' ? [part] : [],
    );
    assert.deepEqual(
      watched,
      scenario.environments.map((environment) => environment.id),
    );
    assert.equal(services['demo-watcher'].depends_on.simulator.condition, 'service_healthy');
  });

  it('probes the API readiness endpoint, the UI and the watchers; points the UI at the API service with no key of every role', () => {
    const url = (service: string) => {
      const test = services[service].healthcheck.test as string[];
      const found = /fetch\('([^']+)'\)/.exec(test.join(' '));
      assert.ok(found, `${service} healthcheck fetches a URL`);
      return new URL(found[1]!);
    };
    const apiProbe = url('api');
    assert.equal(Number(apiProbe.port), API_PORT);
    assert.equal(apiProbe.pathname, '/api/v1/ready');
    assertApiEndpoint(apiProbe.pathname, 'compose api healthcheck');
    assert.deepEqual(services.api.ports, [`127.0.0.1:${API_PORT}-${API_PORT + 1}:${API_PORT}`]);
    const uiProbe = url('ui');
    assert.equal(Number(uiProbe.port), UI_PORT);
    assert.deepEqual(services.ui.ports, [`127.0.0.1:${UI_PORT}:${UI_PORT}`]);
    for (const name of ['watcher', 'demo-watcher']) {
      const command = services[name].command as string[];
      const heartbeat = command[command.indexOf('--heartbeat-file') + 1]!;
      assert.ok(command.includes('--heartbeat-file'), `${name} touches a heartbeat file`);
      assert.ok((services[name].healthcheck.test as string[]).join(' ').includes(heartbeat), `${name} probes it`);
    }
    const uiEnv = serviceEnvironment('ui');
    assert.deepEqual(
      services.ui.env_file.map((entry: Json) => entry.path),
      ['./ui.env'],
      'the UI never reads lineage-svc.env',
    );
    assert.deepEqual(Object.keys(parseEnvExample(join(DEPLOY, 'ui.env.example'))), ['LINEAGE_SVC_API_KEY']);
    assert.equal(uiEnv.LINEAGE_SVC_API_KEY, undefined, 'no key in the UI by default');
    assertKnownVariables(uiEnv, 'compose ui');
    const settings = loadUiSettings(uiEnv);
    assert.equal(settings.port, UI_PORT);
    const apiUrl = new URL(settings.apiUrl);
    assert.ok(services[apiUrl.hostname], `the UI's API URL names the ${apiUrl.hostname} service`);
    assert.equal(Number(apiUrl.port), API_PORT);
  });
});

/** The variables of a dotenv file (names and values). */
function parseEnvExample(path: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

/** The documents of YAML files, each with the name of its file. */
function yamlDocuments(folder: string, files: string[]): Json[] {
  return files.flatMap((file) =>
    parseAllDocuments(readFileSync(join(folder, file), 'utf8')).map((document) => ({
      ...(document.toJS() as Json),
      file,
    })),
  );
}

describe('Kubernetes manifests', () => {
  const applied: Json[] = yamlDocuments(
    KUBERNETES,
    readdirSync(KUBERNETES).filter((file) => file.endsWith('.yaml')),
  );
  // The Secrets are created out of band; their example lives outside the folder that is applied.
  const secrets: Json[] = yamlDocuments(DEPLOY, ['secret.example.yaml']);
  const documents = [...applied, ...secrets];
  const ofKind = (kind: string) => documents.filter((document) => document.kind === kind);
  const named = (kind: string, name: string) => ofKind(kind).find((document) => document.metadata.name === name);
  const MODELS: Record<string, new (data: Json) => { validate(): void }> = {
    'apps/v1 Deployment': Deployment,
    'v1 Service': Service,
    'v1 ConfigMap': ConfigMap,
    'v1 Secret': Secret,
    'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
    'networking.k8s.io/v1 NetworkPolicy': NetworkPolicy,
  };

  it('validate against the Kubernetes schemas of kubernetes-models; `kubectl apply -f kubernetes/` applies no Secret', () => {
    assert.deepEqual(applied.map((document) => `${document.kind} ${document.metadata.name}`).sort(), [
      'ConfigMap lineage-svc-config',
      'Deployment lineage-svc-api',
      'Deployment lineage-svc-ui',
      'Deployment lineage-svc-watcher',
      'NetworkPolicy lineage-svc-api',
      'NetworkPolicy lineage-svc-ui',
      'NetworkPolicy lineage-svc-watcher',
      'PodDisruptionBudget lineage-svc-api',
      'Service lineage-svc-api',
      'Service lineage-svc-ui',
    ]);
    assert.deepEqual(secrets.map((document) => `${document.kind} ${document.metadata.name}`).sort(), [
      'Secret lineage-svc-secrets',
      'Secret lineage-svc-ui',
    ]);
    for (const { file, ...document } of documents) {
      const Model = MODELS[`${document.apiVersion} ${document.kind}`];
      assert.ok(Model, `${file}: no schema for ${document.apiVersion} ${document.kind}`);
      assert.doesNotThrow(() => new Model(document).validate(), `${file}: ${document.kind} ${document.metadata.name}`);
    }
  });

  it('hold only settings the configuration knows, which loadConfig accepts together once the placeholders are replaced', () => {
    const config = named('ConfigMap', 'lineage-svc-config');
    const example = named('Secret', 'lineage-svc-secrets');
    assert.throws(
      () => loadConfig({ ...config.data, ...example.stringData }),
      /LINEAGE_SVC_API_KEY is the placeholder "change-me"/,
      'the API refuses the example key',
    );
    const secret = {
      ...example,
      stringData: Object.fromEntries(
        Object.entries(example.stringData as Record<string, string>).map(([name, value]) => [
          name,
          value.replaceAll('change-me', `real-${name.toLowerCase()}`),
        ]),
      ),
    };
    assertKnownVariables(config.data, 'ConfigMap');
    assertKnownVariables(secret.stringData, 'Secret');
    for (const name of Object.keys(secret.stringData)) {
      assert.ok(
        SECRET_VARIABLES.has(name) || /_KEY$/.test(name),
        `Secret holds ${name}, which is not a secret setting`,
      );
    }
    for (const name of Object.keys(config.data))
      assert.ok(!SECRET_VARIABLES.has(name), `ConfigMap holds the secret ${name}`);
    const settings = loadConfig({ ...config.data, ...secret.stringData });
    assert.equal(settings.storage.backend, 'postgres');
    assert.equal(settings.api.port, API_PORT);
    assert.equal(new URL(settings.api.url).hostname, named('Service', 'lineage-svc-api').metadata.name);
    assert.equal(loadUiSettings({ ...config.data }).port, UI_PORT);
  });

  it('probe /api/v1/health for liveness and /api/v1/ready for readiness on the API port', () => {
    const container = named('Deployment', 'lineage-svc-api').spec.template.spec.containers[0];
    const port = container.ports.find((entry: Json) => entry.name === 'http');
    assert.equal(port.containerPort, API_PORT);
    assert.equal(container.livenessProbe.httpGet.path, '/api/v1/health');
    assert.equal(container.readinessProbe.httpGet.path, '/api/v1/ready');
    assert.equal(container.startupProbe.httpGet.path, '/api/v1/health');
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
      assert.equal(container[probe].httpGet.port, 'http', probe);
      assertApiEndpoint(container[probe].httpGet.path, `api ${probe}`);
    }
    assert.ok(
      container.readinessProbe.timeoutSeconds > 4,
      'the readiness check may take up to 4 s (store and catch-up)',
    );
    const ui = named('Deployment', 'lineage-svc-ui').spec.template.spec.containers[0];
    assert.equal(ui.ports[0].containerPort, UI_PORT);
    assert.equal(ui.readinessProbe.httpGet.port, 'http');
  });

  it('run bins of package.json as non-root with limits, from ConfigMap and Secret entries that exist', () => {
    for (const deployment of ofKind('Deployment')) {
      const pod = deployment.spec.template.spec;
      assert.deepEqual(
        deployment.spec.selector.matchLabels,
        pick(deployment.spec.template.metadata.labels, deployment.spec.selector.matchLabels),
      );
      assert.equal(pod.securityContext.runAsNonRoot, true, deployment.metadata.name);
      assert.ok(pod.securityContext.runAsUser > 0, deployment.metadata.name);
      for (const container of pod.containers) {
        const where = `${deployment.metadata.name}/${container.name}`;
        assert.match(container.image, /^lineage-svc:/, where);
        assertRunsBin(container.command, where);
        for (const resource of ['cpu', 'memory']) {
          assert.ok(container.resources.requests[resource], `${where} requests ${resource}`);
          assert.ok(container.resources.limits[resource], `${where} limits ${resource}`);
        }
        assert.equal(container.securityContext.allowPrivilegeEscalation, false, where);
        for (const source of container.envFrom ?? []) {
          if (source.configMapRef) assert.ok(named('ConfigMap', source.configMapRef.name), where);
          if (source.secretRef) assert.ok(named('Secret', source.secretRef.name), where);
        }
        for (const variable of container.env ?? []) {
          const ref = variable.valueFrom?.configMapKeyRef ?? variable.valueFrom?.secretKeyRef;
          const kind = variable.valueFrom?.configMapKeyRef ? 'ConfigMap' : 'Secret';
          const target = named(kind, ref.name);
          assert.ok(target, `${where}: ${kind} ${ref.name}`);
          assert.ok(ref.key in (target.data ?? target.stringData), `${where}: ${kind} ${ref.name} has no ${ref.key}`);
          assertKnownVariables({ [variable.name]: 'x' }, where);
        }
      }
    }
    assert.ok(named('Deployment', 'lineage-svc-watcher').spec.template.spec.containers[0].args.includes('--env'));
    assert.equal(named('Deployment', 'lineage-svc-watcher').spec.strategy.type, 'Recreate');
  });

  it('give the UI only its own read key, never the Secret with the key of every role', () => {
    const ui = named('Deployment', 'lineage-svc-ui').spec.template.spec.containers[0];
    assert.equal(ui.envFrom, undefined);
    const fromSecrets = (ui.env as Json[]).filter((variable) => variable.valueFrom?.secretKeyRef);
    assert.deepEqual(
      fromSecrets.map((variable) => [variable.name, variable.valueFrom.secretKeyRef.name]),
      [['LINEAGE_SVC_API_KEY', 'lineage-svc-ui']],
    );
    assert.equal(fromSecrets[0].valueFrom.secretKeyRef.optional, true);
    const readKey = named('Secret', 'lineage-svc-ui').stringData.LINEAGE_SVC_API_KEY;
    assert.match(
      named('Secret', 'lineage-svc-secrets').stringData.LINEAGE_SVC_API_KEYS,
      new RegExp(`(^|,)${readKey}=read($|,)`),
    );
  });

  it('probe the watcher on the heartbeat file it touches, and bound every emptyDir', () => {
    const watcher = named('Deployment', 'lineage-svc-watcher').spec.template.spec.containers[0];
    const heartbeat = watcher.args[watcher.args.indexOf('--heartbeat-file') + 1];
    assert.ok(watcher.args.includes('--heartbeat-file'));
    for (const probe of ['startupProbe', 'livenessProbe']) {
      assert.ok(watcher[probe].exec.command.join(' ').includes(heartbeat), `watcher ${probe} reads ${heartbeat}`);
      assertRunsNode(watcher[probe].exec.command);
    }
    for (const deployment of ofKind('Deployment')) {
      for (const volume of deployment.spec.template.spec.volumes ?? []) {
        if ('emptyDir' in volume)
          assert.match(String(volume.emptyDir.sizeLimit), /^\d+Mi$/, `${deployment.metadata.name}: ${volume.name}`);
      }
    }
  });

  it('keep an API replica through voluntary disruptions, and let each pod take connections only on its own port', () => {
    const api = named('Deployment', 'lineage-svc-api');
    const budget = named('PodDisruptionBudget', 'lineage-svc-api');
    assert.deepEqual(budget.spec.selector.matchLabels, api.spec.selector.matchLabels);
    assert.ok(budget.spec.minAvailable >= 1 && budget.spec.minAvailable < api.spec.replicas);
    for (const deployment of ofKind('Deployment')) {
      const policy = ofKind('NetworkPolicy').find(
        (candidate) =>
          JSON.stringify(candidate.spec.podSelector.matchLabels) ===
          JSON.stringify(deployment.spec.selector.matchLabels),
      );
      assert.ok(policy, `${deployment.metadata.name} has a NetworkPolicy`);
      assert.deepEqual(policy.spec.policyTypes, ['Ingress']);
      const named = new Set(
        deployment.spec.template.spec.containers.flatMap((container: Json) =>
          (container.ports ?? []).map((port: Json) => port.name),
        ),
      );
      const allowed = (policy.spec.ingress ?? []).flatMap((rule: Json) => rule.ports.map((port: Json) => port.port));
      assert.deepEqual(allowed, [...named], `${deployment.metadata.name}: ingress only on its own ports`);
    }
  });

  it('route each Service to a named port of the pods it selects', () => {
    for (const service of ofKind('Service')) {
      const deployment = ofKind('Deployment').find((candidate) =>
        Object.entries(service.spec.selector).every(
          ([key, value]) => candidate.spec.template.metadata.labels[key] === value,
        ),
      );
      assert.ok(deployment, `Service ${service.metadata.name} selects a Deployment`);
      const ports = deployment.spec.template.spec.containers.flatMap((container: Json) => container.ports ?? []);
      for (const port of service.spec.ports) {
        const target = ports.find((candidate: Json) => candidate.name === port.targetPort);
        assert.ok(target, `Service ${service.metadata.name}: no container port named ${port.targetPort}`);
        assert.equal(port.port, target.containerPort);
      }
    }
  });
});

function pick(labels: Record<string, string>, keys: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(keys).map((key) => [key, labels[key]!]));
}

describe('Dockerfile', () => {
  const text = readFileSync(join(DEPLOY, 'Dockerfile'), 'utf8');
  const dockerfile = DockerfileParser.parse(text);
  /** Instructions per stage, in order, keyed by stage name. */
  const stages = new Map<string, Instruction[]>();
  let current: Instruction[] | undefined;
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === 'FROM') {
      current = [];
      const name = dockerfile
        .getFROMs()
        .find((from) => from.getRange().start.line === instruction.getRange().start.line);
      stages.set(name?.getBuildStage() ?? `stage-${stages.size}`, current);
    }
    current?.push(instruction);
  }
  const of = (stage: string, keyword: string) =>
    (stages.get(stage) ?? [])
      .filter((instruction) => instruction.getKeyword() === keyword)
      .map((instruction) => instruction.getArgumentsContent() ?? '');

  it('names no frontend image (# syntax=) and declares no anonymous VOLUME', () => {
    assert.doesNotMatch(
      text,
      /^#\s*syntax\s*=/im,
      'a frontend image fails every build where its registry is unreachable',
    );
    assert.deepEqual(
      dockerfile.getInstructions().filter((instruction) => instruction.getKeyword() === 'VOLUME'),
      [],
    );
  });

  it('keeps only the compiled module of better-sqlite3, none of its build leftovers', () => {
    const runs = of('build', 'RUN').join('\n');
    const prune = runs.indexOf('npm prune');
    const cleanup = runs.slice(prune);
    assert.match(cleanup, /rm -rf build deps src/);
    assert.match(cleanup, /build\/Release\/better_sqlite3\.node/);
  });

  it('has a build stage and a runtime stage, the last one', () => {
    assert.deepEqual([...stages.keys()], ['build', 'runtime']);
    for (const from of dockerfile.getFROMs()) assert.match(from.getImageName() ?? '', /^node$/);
  });

  it('installs with npm ci, builds better-sqlite3 from source with its toolchain, and runs make build in the build stage', () => {
    const runs = of('build', 'RUN').join('\n');
    assert.match(runs, /apt-get install[^\n]*\bpython3\b[^\n]*\bmake\b[^\n]*\bg\+\+/);
    assert.match(runs, /npm_config_build_from_source=true npm ci\b/);
    assert.match(runs, /\bmake build\b/);
    assert.match(runs, /npm prune --omit=dev/);
    assert.ok(
      of('runtime', 'RUN').every((run) => !/npm (ci|install)|make build/.test(run)),
      'nothing is built in the runtime stage',
    );
  });

  it('copies only runtime files from the build stage: every compiled folder but tests and benchmarks, the UI, the scenarios', () => {
    const copies = (stages.get('runtime') ?? []).filter((instruction) => instruction.getKeyword() === 'COPY') as Copy[];
    const sources = copies.flatMap((copy) => {
      assert.equal(
        copy.getFromFlag()?.getValue(),
        'build',
        `COPY ${copy.getArgumentsContent()} takes from the build stage`,
      );
      return copy
        .getArguments()
        .slice(0, -1)
        .map((argument) => argument.getValue());
    });
    const compiled = sources
      .filter((source) => source.startsWith('/app/dist/'))
      .map((source) => source.slice('/app/dist/'.length));
    const tsconfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] };
    assert.deepEqual(
      compiled.sort(),
      [...tsconfig.include.filter((folder) => !['test', 'bench'].includes(folder)), 'ui'].sort(),
    );
    for (const bin of Object.values(PACKAGE.bin))
      assert.ok(compiled.includes(bin.split('/')[1]!), `the bin ${bin} is copied`);
    for (const source of sources.filter(
      (source) => !source.startsWith('/app/dist/') && source !== '/app/node_modules',
    )) {
      const path = source.replace(/^\/app\//, '');
      assert.ok(['package.json', 'package-lock.json'].includes(path) || existsSync(join(ROOT, path)), `${path} exists`);
    }
    assert.ok(sources.includes('/app/node_modules'), 'the production node_modules (better-sqlite3 built) are copied');
  });

  it('holds everything the bins import: folders copied, packages among the production dependencies', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const copied = new Set(
      of('runtime', 'COPY')
        .map((copy) => /\/app\/dist\/(\S+)/.exec(copy)?.[1])
        .filter((folder): folder is string => folder !== undefined),
    );
    // Value imports and re-exports (type-only ones vanish at build) and dynamic imports.
    const importPattern =
      /(?:^|\n)\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
    const seen = new Set<string>();
    const packages = new Set<string>();
    const queue = Object.values(PACKAGE.bin).map((bin) =>
      join(ROOT, bin.replace(/^dist\//, '').replace(/\.js$/, '.ts')),
    );
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      const folder = relative(ROOT, file).split('/')[0]!;
      assert.ok(copied.has(folder), `${relative(ROOT, file)} is imported by a bin but ${folder}/ is not in the image`);
      for (const match of readFileSync(file, 'utf8').matchAll(importPattern)) {
        const specifier = (match[1] ?? match[2])!;
        if (specifier.startsWith('.')) queue.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
        else if (!specifier.startsWith('node:'))
          packages.add(
            specifier
              .split('/')
              .slice(0, specifier.startsWith('@') ? 2 : 1)
              .join('/'),
          );
      }
    }
    assert.ok(seen.size > 50, `followed ${seen.size} files`);
    const missing = [...packages].filter((name) => !(name in pkg.dependencies));
    assert.deepEqual(missing, [], 'packages the bins import that npm prune --omit=dev removes');
  });

  it('runs as a numeric non-root user and starts lineage-svc-api on the default port', () => {
    const users = of('runtime', 'USER');
    assert.equal(users.length, 1);
    const [user, group] = users[0]!.split(':');
    assert.match(user!, /^\d+$/, 'numeric, so that runAsNonRoot can check it');
    assert.notEqual(Number(user), 0);
    assert.notEqual(Number(group ?? 1), 0);
    const cmd = JSON.parse(of('runtime', 'CMD')[0]!) as string[];
    assert.equal(cmd[1], PACKAGE.bin['lineage-svc-api']);
    assertRunsBin(cmd, 'CMD');
    assert.deepEqual(of('runtime', 'EXPOSE')[0]!.split(/\s+/).map(Number), [API_PORT, UI_PORT]);
  });

  it('sets only settings that loadConfig and the UI server accept', () => {
    const env = Object.fromEntries(
      (stages.get('runtime') ?? [])
        .filter((instruction) => instruction.getKeyword() === 'ENV')
        .flatMap((instruction) =>
          (
            instruction as unknown as { getProperties(): Array<{ getName(): string; getValue(): string | null }> }
          ).getProperties(),
        )
        .map((property) => [property.getName(), property.getValue() ?? '']),
    );
    assertKnownVariables(env, 'Dockerfile ENV');
    const config = loadConfig(env);
    assert.equal(config.api.port, API_PORT);
    assert.equal(config.storage.backend, 'sqlite');
    assert.equal(loadUiSettings(env).port, UI_PORT);
  });

  it('is built from a context that leaves out dependencies, builds, stores and .env files', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['node_modules', 'dist', '.lineage-svc', '.env', '.git'])
      assert.ok(ignored.includes(entry), entry);
  });
});
