/**
 * Changing the simulator's estate at run time (`simulators/confluent/mutations.ts`): through
 * `simulator.mutate` and through `POST /_simulator/scenario`, seen by the next platform request.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ValidationError } from '../../src/errors.js';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';

const ENV = 'env-q7m2k9';
const CLUSTER = 'lkc-7x9m2p';

describe('simulator scenario mutations', () => {
  let sim: PlatformSimulator;
  const auth = (credential: { key: string; secret: string }) => ({
    authorization: `Basic ${Buffer.from(`${credential.key}:${credential.secret}`).toString('base64')}`,
  });
  const topics = async () => {
    const response = await fetch(`${sim.url}/kafka-rest/${CLUSTER}/kafka/v3/clusters/${CLUSTER}/topics`, {
      headers: auth(sim.scenario.credentials.kafka),
    });
    assert.equal(response.status, 200);
    return ((await response.json()) as { data: Array<{ topic_name: string }> }).data.map((topic) => topic.topic_name);
  };
  const connectors = async () => {
    const response = await fetch(
      `${sim.url}/connect/v1/environments/${ENV}/clusters/${CLUSTER}/connectors?expand=info`,
      { headers: auth(sim.scenario.credentials.cloud) },
    );
    assert.equal(response.status, 200);
    return (await response.json()) as Record<string, { info: { config: Record<string, string> } }>;
  };
  const admin = (body: unknown) =>
    fetch(`${sim.url}/_simulator/scenario`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  before(async () => {
    sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
  });
  after(async () => sim.close());

  it('adds and removes a topic through mutate()', async () => {
    assert.ok(!(await topics()).includes('watcher.probe'));
    sim.mutate([
      { op: 'add_topic', environment_id: ENV, cluster_id: CLUSTER, topic: { name: 'watcher.probe', partitions: 1 } },
    ]);
    assert.ok((await topics()).includes('watcher.probe'));
    sim.mutate([{ op: 'remove_topic', environment_id: ENV, cluster_id: CLUSTER, name: 'watcher.probe' }]);
    assert.ok(!(await topics()).includes('watcher.probe'));
  });

  it('updates a connector and registers a schema version over HTTP', async () => {
    const existing = sim.scenario.environments
      .find((env) => env.id === ENV)!
      .kafka_clusters.find((c) => c.id === CLUSTER)!.connectors[0]!;
    const response = await admin([
      {
        op: 'put_connector',
        environment_id: ENV,
        cluster_id: CLUSTER,
        connector: {
          ...existing,
          config: { ...existing.config, 'table.include.list': 'public.orders,public.refunds' },
        },
      },
      {
        op: 'register_schema',
        environment_id: ENV,
        subject: 'watcher.probe-value',
        schema: { type: 'record', name: 'Probe', fields: [] },
      },
    ]);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { applied: 2 });
    const config = (await connectors())[existing.name]?.info.config;
    assert.equal(config?.['table.include.list'], 'public.orders,public.refunds');
    const first = sim.scenario.environments
      .find((env) => env.id === ENV)!
      .schema_registry!.subjects.find((s) => s.subject === 'watcher.probe-value');
    assert.equal(first?.version, 1);
    sim.mutate([
      {
        op: 'register_schema',
        environment_id: ENV,
        subject: 'watcher.probe-value',
        schema: { type: 'record', name: 'Probe', fields: [{ name: 'a', type: 'string' }] },
      },
    ]);
    const second = sim.scenario.environments
      .find((env) => env.id === ENV)!
      .schema_registry!.subjects.find((s) => s.subject === 'watcher.probe-value');
    assert.equal(second?.version, 2);
    assert.notEqual(second?.id, first?.id);
  });

  it('adds and removes Flink statements and ksqlDB clusters, and accepts a function', () => {
    const env = () => sim.scenario.environments.find((candidate) => candidate.id === ENV)!;
    const statement = env().flink.statements[0]!;
    sim.mutate([{ op: 'put_statement', environment_id: ENV, statement: { ...statement, name: 'probe-statement' } }]);
    assert.ok(env().flink.statements.some((s) => s.name === 'probe-statement'));
    sim.mutate([{ op: 'remove_statement', environment_id: ENV, name: 'probe-statement' }]);
    assert.ok(!env().flink.statements.some((s) => s.name === 'probe-statement'));
    const ksql = env().ksqldb_clusters[0]!;
    sim.mutate([{ op: 'remove_ksqldb_cluster', environment_id: ENV, id: ksql.id }]);
    assert.equal(env().ksqldb_clusters.length, 0);
    sim.mutate((draft) => {
      draft.environments.find((candidate) => candidate.id === ENV)!.ksqldb_clusters.push(ksql);
    });
    assert.equal(env().ksqldb_clusters[0]?.id, ksql.id);
  });

  it('refuses unknown targets and invalid operations, changing nothing', async () => {
    const before = JSON.stringify(sim.scenario);
    assert.throws(
      () => sim.mutate([{ op: 'remove_topic', environment_id: ENV, cluster_id: CLUSTER, name: 'no-such-topic' }]),
      ValidationError,
    );
    assert.throws(
      () => sim.mutate([{ op: 'add_topic', environment_id: 'env-nope', cluster_id: CLUSTER, topic: { name: 'x' } }]),
      ValidationError,
    );
    const response = await admin({ op: 'explode' });
    assert.equal(response.status, 400);
    assert.match(((await response.json()) as { error: string }).error, /invalid scenario operation/);
    assert.equal(
      (await admin({ op: 'add_topic', environment_id: ENV, cluster_id: CLUSTER, topic: { partitions: 1 } })).status,
      400,
    );
    assert.equal(JSON.stringify(sim.scenario), before);
  });
});
