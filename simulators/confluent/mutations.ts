/**
 * Changing the served estate while the simulator runs (for the watcher's tests and demos): a list of
 * operations applied to the scenario, which is then validated again and served from the next request
 * on. Through code: `simulator.mutate(ops)` (or `simulator.mutate((scenario) => { ... })` for
 * anything else); over HTTP: `POST /_simulator/scenario` with one operation or an array.
 *
 * The operations (`op` with its fields: effect):
 *
 * - `add_topic` with `environment_id`, `cluster_id`, `topic` (a scenario topic): adds the topic (400 when it
 *   exists)
 * - `remove_topic` with `environment_id`, `cluster_id`, `name`: removes it (and its Tableflow entry)
 * - `put_connector` with `environment_id`, `cluster_id`, `connector` (a scenario connector): adds it, or
 *   replaces the one of the same name (an update)
 * - `remove_connector` with `environment_id`, `cluster_id`, `name`: removes it
 * - `put_statement` with `environment_id`, `statement` (a scenario Flink statement): adds it, or replaces the
 *   one of the same name
 * - `remove_statement` with `environment_id`, `name`: removes it
 * - `put_ksqldb_cluster` with `environment_id`, `cluster` (a scenario ksqlDB cluster): adds it, or replaces
 *   the one of the same id
 * - `remove_ksqldb_cluster` with `environment_id`, `id`: removes it
 * - `register_schema` with `environment_id`, `subject`, `schema`, `schema_type?`: registers a new version of
 *   the subject (version 1 for a new subject) with a fresh schema id
 *
 * An unknown environment, cluster or resource, or a scenario that no longer validates, is a
 * `ValidationError` and changes nothing.
 */
import { z } from 'zod';
import { ValidationError } from '../../src/errors.js';
import type { World } from './model.js';
import { parseScenario, type EnvironmentDef, type KafkaClusterDef, type Scenario } from './scenario.js';

const env = z.string().min(1);
const record = z.record(z.string(), z.unknown());

/** One operation (see the table above). Resource bodies use the scenario's own format. */
export const scenarioOpSchema = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('add_topic'), environment_id: env, cluster_id: z.string().min(1), topic: record }),
  z.strictObject({
    op: z.literal('remove_topic'),
    environment_id: env,
    cluster_id: z.string().min(1),
    name: z.string().min(1),
  }),
  z.strictObject({
    op: z.literal('put_connector'),
    environment_id: env,
    cluster_id: z.string().min(1),
    connector: record,
  }),
  z.strictObject({
    op: z.literal('remove_connector'),
    environment_id: env,
    cluster_id: z.string().min(1),
    name: z.string().min(1),
  }),
  z.strictObject({ op: z.literal('put_statement'), environment_id: env, statement: record }),
  z.strictObject({ op: z.literal('remove_statement'), environment_id: env, name: z.string().min(1) }),
  z.strictObject({ op: z.literal('put_ksqldb_cluster'), environment_id: env, cluster: record }),
  z.strictObject({ op: z.literal('remove_ksqldb_cluster'), environment_id: env, id: z.string().min(1) }),
  z.strictObject({
    op: z.literal('register_schema'),
    environment_id: env,
    subject: z.string().min(1),
    schema: z.union([z.string().min(1), record]),
    schema_type: z.enum(['AVRO', 'JSON', 'PROTOBUF']).optional(),
  }),
]);
export type ScenarioOp = z.infer<typeof scenarioOpSchema>;

function invalid(message: string): never {
  throw new ValidationError(`invalid scenario operation: ${message}`, [{ path: '(op)', message }]);
}

/**
 * Parses one operation or an array of them.
 * @throws ValidationError naming the first problem.
 */
export function parseScenarioOps(input: unknown): ScenarioOp[] {
  const list = Array.isArray(input) ? input : [input];
  return list.map((item, index) => {
    const parsed = scenarioOpSchema.safeParse(item);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      invalid(`#${index}: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}`);
    }
    return parsed.data;
  });
}

/** One operation of the given kind. */
type OpOf<K extends ScenarioOp['op']> = Extract<ScenarioOp, { op: K }>;

/** The scenario being changed, with what schema registrations need: the served estate and the next free schema id. */
interface ScenarioDraft {
  scenario: Scenario;
  world: World;
  nextSchemaId: number;
}

/** The environment `id` of the draft. @throws ValidationError when there is none. */
function draftEnvironment(draft: ScenarioDraft, id: string): EnvironmentDef {
  return draft.scenario.environments.find((candidate) => candidate.id === id) ?? invalid(`unknown environment ${id}`);
}

/** The Kafka cluster `clusterId` of environment `envId`. @throws ValidationError when there is none. */
function draftCluster(draft: ScenarioDraft, envId: string, clusterId: string): KafkaClusterDef {
  return (
    draftEnvironment(draft, envId).kafka_clusters.find((candidate) => candidate.id === clusterId) ??
    invalid(`unknown cluster ${clusterId} in ${envId}`)
  );
}

/** Adds `item` to `list`, or replaces the item with the same `key`. */
function putByKey<T extends { [key: string]: unknown }>(list: T[], item: T, key: keyof T): void {
  const at = list.findIndex((candidate) => candidate[key] === item[key]);
  if (at < 0) list.push(item);
  else list[at] = item;
}

/** `list` without the items that match. @throws ValidationError naming `what` when none matches. */
function removeMatching<T>(list: T[], match: (item: T) => boolean, what: string): T[] {
  const kept = list.filter((item) => !match(item));
  if (kept.length === list.length) invalid(`unknown ${what}`);
  return kept;
}

/** `add_topic`: adds the topic to its cluster. @throws ValidationError when it exists. */
function addTopic(draft: ScenarioDraft, op: OpOf<'add_topic'>): void {
  const target = draftCluster(draft, op.environment_id, op.cluster_id);
  if (target.topics.some((topic) => topic.name === op.topic.name))
    invalid(`topic ${String(op.topic.name)} exists in ${op.cluster_id}`);
  target.topics.push(op.topic as never);
}

/** `remove_topic`: removes the topic and its Tableflow entry. */
function removeTopic(draft: ScenarioDraft, op: OpOf<'remove_topic'>): void {
  const target = draftCluster(draft, op.environment_id, op.cluster_id);
  target.topics = removeMatching(
    target.topics,
    (topic) => topic.name === op.name,
    `topic ${op.name} in ${op.cluster_id}`,
  );
  target.tableflow.topics = target.tableflow.topics.filter((table) => table.topic !== op.name);
}

/** `put_connector`: adds the connector, or replaces the one of the same name. */
function putConnector(draft: ScenarioDraft, op: OpOf<'put_connector'>): void {
  putByKey(
    draftCluster(draft, op.environment_id, op.cluster_id).connectors as unknown as Array<Record<string, unknown>>,
    op.connector,
    'name',
  );
}

/** `remove_connector`: removes the connector. */
function removeConnector(draft: ScenarioDraft, op: OpOf<'remove_connector'>): void {
  const target = draftCluster(draft, op.environment_id, op.cluster_id);
  target.connectors = removeMatching(
    target.connectors,
    (connector) => connector.name === op.name,
    `connector ${op.name} in ${op.cluster_id}`,
  );
}

/** `put_statement`: adds the Flink statement, or replaces the one of the same name. */
function putStatement(draft: ScenarioDraft, op: OpOf<'put_statement'>): void {
  putByKey(
    draftEnvironment(draft, op.environment_id).flink.statements as unknown as Array<Record<string, unknown>>,
    op.statement,
    'name',
  );
}

/** `remove_statement`: removes the Flink statement. */
function removeStatement(draft: ScenarioDraft, op: OpOf<'remove_statement'>): void {
  const flink = draftEnvironment(draft, op.environment_id).flink;
  flink.statements = removeMatching(
    flink.statements,
    (statement) => statement.name === op.name,
    `statement ${op.name}`,
  );
}

/** `put_ksqldb_cluster`: adds the ksqlDB cluster, or replaces the one of the same id. */
function putKsqldbCluster(draft: ScenarioDraft, op: OpOf<'put_ksqldb_cluster'>): void {
  putByKey(
    draftEnvironment(draft, op.environment_id).ksqldb_clusters as unknown as Array<Record<string, unknown>>,
    op.cluster,
    'id',
  );
}

/** `remove_ksqldb_cluster`: removes the ksqlDB cluster. */
function removeKsqldbCluster(draft: ScenarioDraft, op: OpOf<'remove_ksqldb_cluster'>): void {
  const target = draftEnvironment(draft, op.environment_id);
  target.ksqldb_clusters = removeMatching(
    target.ksqldb_clusters,
    (candidate) => candidate.id === op.id,
    `ksqlDB cluster ${op.id}`,
  );
}

/** The topic schema field that declares `subject` inline (`key_schema`/`value_schema`), if any topic of `target` does. */
function inlineSubject(target: EnvironmentDef, subject: string) {
  return target.kafka_clusters
    .flatMap((candidate) => candidate.topics)
    .flatMap((topic) => [
      {
        topic,
        field: 'key_schema' as const,
        subject: topic.key_schema?.subject ?? `${topic.name}-key`,
        present: topic.key_schema !== undefined,
      },
      {
        topic,
        field: 'value_schema' as const,
        subject: topic.value_schema?.subject ?? `${topic.name}-value`,
        present: topic.value_schema !== undefined,
      },
    ])
    .find((candidate) => candidate.present && candidate.subject === subject);
}

/** `register_schema`: a new version of the subject with a fresh schema id. @throws ValidationError without a Schema Registry. */
function registerSchema(draft: ScenarioDraft, op: OpOf<'register_schema'>): void {
  const target = draftEnvironment(draft, op.environment_id);
  const registry = target.schema_registry ?? invalid(`environment ${op.environment_id} has no Schema Registry`);
  const served = draft.world.envById.get(op.environment_id)?.sr?.bySubject.get(op.subject);
  const declared = registry.subjects.find((subject) => subject.subject === op.subject);
  const version = Math.max(served?.version ?? 0, declared?.version ?? 0) + 1;
  const schemaType = op.schema_type ?? declared?.schema_type ?? served?.schemaType ?? 'AVRO';
  const entry = {
    subject: op.subject,
    schema_type: schemaType,
    schema: op.schema,
    version,
    id: draft.nextSchemaId++,
    references: [],
  };
  // A subject declared inline on a topic (`value_schema`/`key_schema`) is updated there, where the simulator reads it.
  const inline = inlineSubject(target, op.subject);
  if (inline) inline.topic[inline.field] = entry as never;
  else putByKey(registry.subjects as unknown as Array<Record<string, unknown>>, entry, 'subject');
}

/** Applies one operation to the draft. */
function applyScenarioOp(draft: ScenarioDraft, op: ScenarioOp): void {
  switch (op.op) {
    case 'add_topic':
      return addTopic(draft, op);
    case 'remove_topic':
      return removeTopic(draft, op);
    case 'put_connector':
      return putConnector(draft, op);
    case 'remove_connector':
      return removeConnector(draft, op);
    case 'put_statement':
      return putStatement(draft, op);
    case 'remove_statement':
      return removeStatement(draft, op);
    case 'put_ksqldb_cluster':
      return putKsqldbCluster(draft, op);
    case 'remove_ksqldb_cluster':
      return removeKsqldbCluster(draft, op);
    case 'register_schema':
      return registerSchema(draft, op);
  }
}

/**
 * Applies operations to a copy of `scenario` and validates the result. `world` (the estate served
 * now) gives the current versions and ids of schemas.
 * @throws ValidationError when an operation names something unknown or the result is invalid.
 */
export function applyScenarioOps(scenario: Scenario, ops: readonly ScenarioOp[], world: World): Scenario {
  const draft: ScenarioDraft = {
    scenario: structuredClone(scenario) as Scenario,
    world,
    nextSchemaId: Math.max(100_000, ...[...world.schemaRegistries.values()].flatMap((sr) => [...sr.byId.keys()])) + 1,
  };
  for (const op of ops) applyScenarioOp(draft, op);
  return parseScenario(draft.scenario, 'mutation');
}
