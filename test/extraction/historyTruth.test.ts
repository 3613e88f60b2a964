/**
 * History that tells the truth (issue 22, item 7): the demo estate with every catalog the demo
 * configures (lakehouse, warehouse, data governance on their simulators), recorded through every
 * entry point in turn, then a fault on each platform API in turn (a 401, a 503 storm, a timeout).
 * Asserted on one store:
 *
 * - identical input records nothing: no event in the graph's stream, whichever entry point runs
 *   (the CLI's `runExtract`, the API's extract task, a watcher's extraction);
 * - a call that fails never records a removal or a change: the graph's stream does not move, the
 *   failed scopes are listed on `ExtractionCompleted` (`incomplete_scopes`), and the graph the run
 *   answers (what the graph file gets) is the recorded one;
 * - after the fault is cleared, the next run records nothing either.
 *
 * Every fault is checked to have hit at least one request, so that a case cannot pass by not
 * touching the API it names.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runExtract, type ExtractSummary } from '../../commands/shared.js';
import { openRuntime, type LineageRuntime } from '../../infra/runtime.js';
import { createServiceContext } from '../../infra/serviceContext.js';
import { runExtraction } from '../../services/extraction.js';
import { edgeProvenance, nodeProvenance } from '../../services/provenance.js';
import { createTaskRunners } from '../../services/taskRunners.js';
import { watcherEngineDeps } from '../../services/watcherEngine.js';
import {
  loadScenario,
  simulatorClientEnvironment,
  startPlatformSimulator,
  type Fault,
  type PlatformSimulator,
} from '../../simulators/confluent/index.js';
import { startDemoCatalogSimulators, type DemoCatalogSimulators } from '../../simulators/demoCatalogs.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { ServiceContext } from '../../services/context.js';
import type { RecordedEvent } from '../../src/eventStore.js';
import { streams, type EventOf } from '../../src/events.js';
import { graphIdForName, DEFAULT_GRAPH_NAME } from '../../src/graphCommands.js';
import { silentLogger } from '../../src/logger.js';
import { openLineageIdentity } from '../../src/openlineage/fromGraph.js';

const GRAPH_ID = graphIdForName(DEFAULT_GRAPH_NAME);
const HTTP_OPTIONS = { retryBaseDelayMs: 1, rateLimit: false as const, timeoutMs: 1500 };

let simulator: PlatformSimulator;
let catalogs: DemoCatalogSimulators;
let folder: string;
let environment: Record<string, string>;
let config: Config;
let runtime: LineageRuntime;
let context: ServiceContext;
let environmentIds: string[];

/** Events of the graph's stream so far. */
async function graphEvents(): Promise<RecordedEvent[]> {
  return runtime.store.readStream(streams.graph(GRAPH_ID));
}

/** The data of the store's last `ExtractionCompleted`. */
async function lastCompleted(): Promise<EventOf<'ExtractionCompleted'>['data']> {
  const events = await runtime.store.readAll();
  const found = events.filter((event) => event.type === 'ExtractionCompleted').at(-1);
  assert.ok(found, 'an extraction completed');
  return found.data as EventOf<'ExtractionCompleted'>['data'];
}

/** One extraction through the service, as the CLI, the task and the watcher all run it. */
function extractOnce() {
  return runExtraction(context, {
    environmentIds,
    clusterIds: [],
    enableMetrics: false,
    actor: 'test',
    enrichCatalogs: true,
  });
}

before(async () => {
  const scenario = await loadScenario('demo');
  simulator = await startPlatformSimulator({ scenario });
  catalogs = await startDemoCatalogSimulators('127.0.0.1');
  folder = mkdtempSync(join(tmpdir(), 'lineage-svc-history-truth-'));
  environment = {
    PATH: process.env.PATH ?? '',
    ...simulatorClientEnvironment(simulator.url, scenario),
    ...catalogs.environment,
    LINEAGE_SVC_STORAGE__BACKEND: 'sqlite',
    LINEAGE_SVC_STORAGE__PATH: folder,
  };
  config = loadConfig(environment);
  runtime = await openRuntime(config, silentLogger());
  context = createServiceContext({ config, runtime, logger: silentLogger(), httpOptions: HTTP_OPTIONS });
  environmentIds = scenario.environments.map((entry) => entry.id);
});

after(async () => {
  await runtime?.close();
  await simulator?.close();
  await catalogs?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('history that tells the truth', () => {
  it('records the demo once, then nothing for identical input through every entry point', async () => {
    const first = await extractOnce();
    assert.ok(first.changes.nodesAdded.length > 70, 'the first run records the estate');
    assert.ok(
      first.graph.nodes.some((node) => node.attributes?.derived === true),
      'the catalogs derived tables in the same write',
    );
    const recorded = await graphEvents();
    const correlations = new Set(recorded.map((event) => event.metadata.correlation_id));
    assert.equal(correlations.size, 1, 'extraction and enrichment are one write (one history entry)');

    // The CLI, in this process, on the same sqlite store.
    const output = join(folder, 'graph.json');
    let stdout = '';
    const io = { stdout: { write: (text: string) => ((stdout += text), true) }, stderr: { write: () => true } };
    const args = {
      env: environmentIds,
      cluster: [],
      output,
      noEnrich: false,
      enrichOnly: false,
      pushLineage: false,
      metrics: false,
      metricsLookbackHours: 1,
      json: true,
    };
    const code = await runExtract('lineage-svc-extract', args, config, environment, io as never, HTTP_OPTIONS);
    assert.equal(code, 0, stdout);
    const summary = JSON.parse(stdout) as ExtractSummary;
    assert.deepEqual(Object.values(summary.changes), [0, 0, 0, 0, 0, 0], 'the CLI records nothing new');
    // A failed read is printed; a catalog that is not configured (the datalake here) is not.
    stdout = '';
    simulator.injectFault({ kind: 'unauthorized', api: 'kafka-rest.topics' } as Fault);
    const faulted = await runExtract(
      'lineage-svc-extract',
      { ...args, json: false },
      config,
      environment,
      io as never,
      HTTP_OPTIONS,
    ).finally(() => simulator.clearFaults());
    assert.equal(faulted, 0, stdout);
    assert.match(stdout, /^Not read completely \(kept as recorded\): topics of cluster lkc-/m);
    assert.doesNotMatch(stdout, /DATALAKE_CATALOG catalog/);
    const file = JSON.parse(readFileSync(output, 'utf8')) as { nodes: unknown[] };
    assert.equal(
      file.nodes.length,
      first.graph.nodes.length,
      'the graph file holds the recorded graph, catalogs included',
    );

    // The API's extract task and a watcher's extraction.
    await createTaskRunners(context).extract(
      { environment_ids: environmentIds, cluster_ids: [], enable_metrics: false, metrics_lookback_hours: 1 } as never,
      () => undefined,
    );
    const watcher = watcherEngineDeps(context, {
      watcherId: 'history-truth',
      settings: { environmentIds, clusterIds: [], cooldownSeconds: 1, pollIntervalSeconds: 1, push: [] },
    });
    const watched = await watcher.extract();
    assert.equal(watched.nodeCount, first.graph.nodes.length, 'the watcher enriches like every entry point');
    await runtime.close();
    runtime = await openRuntime(config, silentLogger());
    context = createServiceContext({ config, runtime, logger: silentLogger(), httpOptions: HTTP_OPTIONS });
    assert.equal((await graphEvents()).length, recorded.length, 'no entry point recorded anything for identical input');
  });

  it('gives every lakehouse and warehouse node its catalog namespace, never an environment id', async () => {
    const stored = runtime.graphs.get(GRAPH_ID);
    assert.ok(stored);
    const namespaces = new Map<string, Set<string>>();
    stored.graph.forEachNode((node) => {
      if (node.system !== 'LAKEHOUSE' && node.system !== 'WAREHOUSE') return;
      const { namespace } = openLineageIdentity(node);
      assert.doesNotMatch(namespace, /env-|unknown/, `${node.id} has a catalog namespace`);
      if (!namespaces.has(node.system)) namespaces.set(node.system, new Set());
      namespaces.get(node.system)!.add(namespace);
    });
    // The workspace the Tableflow catalog integration names: the tables found downstream of its tables live there too.
    const tableflowTable = [...namespaces.get('LAKEHOUSE')!];
    assert.equal(tableflowTable.length, 1, `one lakehouse, one namespace: ${tableflowTable.join(', ')}`);
    assert.match(tableflowTable[0]!, /^lakehouse:\/\/dbc-[a-z0-9-]+\.cloud\.databricks\.com$/);
    for (const namespace of namespaces.get('WAREHOUSE')!)
      assert.match(namespace, /^warehouse:\/\/[a-z0-9-]+(\/[A-Za-z0-9_]+)?$/);
  });

  it('keeps consumer lag out of lineage: a moved lag is a metric sample, never a graph change', async () => {
    const before = (await graphEvents()).length;
    simulator.mutate((draft) => {
      for (const environment of draft.environments)
        for (const cluster of environment.kafka_clusters)
          for (const group of cluster.consumer_groups ?? []) for (const topic of group.topics ?? []) topic.lag = 999;
    });
    const outcome = await extractOnce();
    assert.equal((await graphEvents()).length, before, 'lag 999 recorded no graph change');
    const group = 'stream:consumer_group:env-q7m2k9:lkc-7x9m2p/connect-lcc-os9d3m';
    const sample = outcome.metrics?.samples.find((entry) => entry.node_id === group);
    assert.equal(sample?.metrics['metrics_lag.clickstream'], 999, 'the lag per topic is sampled');
    assert.equal(sample?.metrics.metrics_total_lag, 999 * 3, 'the group total is sampled');
    const lagged = outcome.graph.nodes.find((node) => node.id === group);
    assert.equal(lagged?.attributes?.metrics_total_lag, 999 * 3, 'the graph file shows the latest lag');
    assert.ok(
      !outcome.graph.edges.some((edge) => edge.attributes && 'lag' in edge.attributes),
      'no edge carries lag as lineage',
    );
    await runtime.commands.state.catchUp();
    const series = runtime.metrics.series(GRAPH_ID, group);
    assert.equal(series?.at(-1)?.metrics.metrics_total_lag, 999 * 3, 'the metrics series has the latest lag');
  });

  it('records a true removal once, and its provenance says which extraction did not list it', async () => {
    const connector = 'stream:connector:env-q7m2k9:lkc-7x9m2p/opensearch-clicks';
    simulator.mutate([
      { op: 'remove_connector', environment_id: 'env-q7m2k9', cluster_id: 'lkc-7x9m2p', name: 'opensearch-clicks' },
    ]);
    const outcome = await extractOnce();
    // The connector, the dataset it alone wrote to and its dead-letter placeholder: the one true change.
    assert.ok(outcome.changes.nodesRemoved.includes(connector), 'the connector is recorded as removed');
    assert.equal(outcome.changes.nodesAdded.length + outcome.changes.nodesChanged.length, 0);
    const provenance = await nodeProvenance(runtime, GRAPH_ID, connector);
    assert.equal(provenance.present, false);
    assert.deepEqual(
      provenance.changes.map((change) => [change.change, change.cause]),
      [
        ['added', 'extraction'],
        ['removed', 'extraction'],
      ],
    );
    assert.match(
      provenance.changes[1]!.reason,
      /^not listed by the extraction of environment env-q7m2k9, env-x2n4c6 at revision \d+ \(extraction [0-9a-f-]{36}\)$/,
    );
    assert.equal(provenance.changes[1]!.correlation_id, outcome.extractionId);
    const read = outcome.changes.edgesRemoved.find((edge) => edge.src_id === connector || edge.dst_id === connector);
    assert.ok(read, 'its edges went with it');
    const edge = await edgeProvenance(runtime, GRAPH_ID, read);
    assert.match(edge.changes.at(-1)!.reason, /its nodes? .*opensearch-clicks.* (was|were) removed/);
    assert.equal((await extractOnce()).changes.nodesRemoved.length, 0, 'recorded once');
  });

  const faults: { api: string; kinds: Fault['kind'][] }[] = [
    { api: 'cmk.clusters', kinds: ['unauthorized', 'status'] },
    { api: 'kafka-rest.topics', kinds: ['unauthorized', 'status', 'timeout'] },
    { api: 'kafka-rest.all-topic-configs', kinds: ['unauthorized', 'status'] },
    { api: 'kafka-rest.consumer-groups', kinds: ['unauthorized', 'status'] },
    { api: 'kafka-rest.mirrors', kinds: ['unauthorized', 'status'] },
    { api: 'metrics.query', kinds: ['unauthorized', 'status', 'timeout'] },
    { api: 'connect.connectors', kinds: ['unauthorized', 'status'] },
    { api: 'ksqldbcm.clusters', kinds: ['unauthorized', 'status'] },
    { api: 'ksqldb.ksql', kinds: ['unauthorized', 'status'] },
    { api: 'fcpm.compute-pools', kinds: ['unauthorized', 'status'] },
    { api: 'flink.statements', kinds: ['unauthorized', 'status', 'timeout'] },
    { api: 'srcm.clusters', kinds: ['unauthorized', 'status'] },
    { api: 'schema-registry.schemas', kinds: ['unauthorized', 'status', 'timeout'] },
    { api: 'catalog.search', kinds: ['unauthorized', 'status'] },
    { api: 'tableflow.topics', kinds: ['unauthorized', 'status', 'timeout'] },
  ];
  for (const { api, kinds } of faults) {
    for (const kind of kinds) {
      it(`records no removal and no change when ${api} fails (${kind === 'status' ? '503 storm' : kind})`, async () => {
        const before = (await graphEvents()).length;
        const spec = (kind === 'status' ? { kind, api, status: 503 } : { kind, api }) as Fault;
        const fault = simulator.injectFault(spec);
        let outcome;
        try {
          outcome = await extractOnce();
        } catch (error) {
          // Every environment unreadable: the extraction fails and records nothing of the graph.
          assert.match(String(error), /no environment could be read/);
        } finally {
          simulator.clearFaults();
        }
        assert.ok(fault.hits > 0, `the fault on ${api} hit a request`);
        assert.equal((await graphEvents()).length, before, 'the failed call recorded nothing in the graph');
        if (outcome) {
          assert.ok(outcome.incompleteScopes.length > 0, 'the run names the scopes it could not read');
          const completed = await lastCompleted();
          assert.deepEqual(completed.incomplete_scopes, outcome.incompleteScopes, 'the scopes are recorded');
          const stored = runtime.graphs.get(GRAPH_ID);
          assert.equal(outcome.graph.nodes.length, stored?.graph.order, 'the answered graph is the recorded one');
        }
        const healed = await extractOnce();
        assert.deepEqual(
          healed.incompleteScopes.filter((scope) => scope.kind !== 'catalog'),
          [],
        );
        assert.equal((await graphEvents()).length, before, 'the run after the fault records nothing either');
      });
    }
  }
});
