/**
 * Managed connectors, `connect/v1` on the control plane (cloud API key). Not paginated.
 *
 * - `connect.connectors`: `GET /connect/v1/environments/{env}/clusters/{lkc}/connectors` - a bare array of
 *   names; with `?expand=info,status,id` a map keyed by connector name of `{status, info, id, extensions}`
 *   (only the expanded parts)
 * - `connect.connector`: `GET .../connectors/{name}` -> `{name, config, tasks, type}`
 * - `connect.connector-config`: `GET .../connectors/{name}/config` -> flat string map
 * - `connect.connector-status`: `GET .../connectors/{name}/status`
 * - `connect.connector-tasks`: `GET .../connectors/{name}/tasks`
 * - `connect.connector-offsets`: `GET .../connectors/{name}/offsets`
 *
 * Configs carry the platform's own keys (`cloud.provider`, `kafka.endpoint`, `kafka.region`,
 * `kafka.api.key`...) sorted by key, with secrets masked as `****************`. An unknown
 * connector answers the recorded `{"error_code":404,"message":"resource not found"}`.
 */
import { HttpError } from '../errors.js';
import type { ClusterModel } from '../model.js';
import type { ConnectorDef } from '../scenario.js';
import type { Registrar, RouteMeta } from '../server.js';
import { isSecretKey, MASK, q1, type Query } from '../util.js';

const meta = (api: string): RouteMeta => ({ api, family: 'connect', auth: 'cloud' });

/** The connector's config as the platform answers it (sorted keys, secrets masked). */
export function connectorConfig(cluster: ClusterModel, def: ConnectorDef): Record<string, string> {
  const d = cluster.def;
  const cfg: Record<string, string> = {
    'cloud.environment': 'prod',
    'cloud.provider': cluster.cloudLower,
    'connector.class': def.class,
    'kafka.auth.mode': 'KAFKA_API_KEY',
    'kafka.api.key': MASK,
    'kafka.api.secret': MASK,
    'kafka.endpoint': `SASL_SSL://${cluster.bootstrapHost}.${d.region}.${cluster.cloudLower}.confluent.cloud:9092`,
    'kafka.region': d.region,
    name: def.name,
    'tasks.max': String(Math.max(1, def.tasks)),
  };
  for (const [k, v] of Object.entries(def.config))
    cfg[k] = isSecretKey(k) && k !== 'kafka.auth.mode' ? MASK : String(v);
  if (cfg['kafka.auth.mode'] === 'SERVICE_ACCOUNT') {
    delete cfg['kafka.api.key'];
    delete cfg['kafka.api.secret'];
  }
  return Object.fromEntries(Object.entries(cfg).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function taskState(state: ConnectorDef['state'], index: number): string {
  if (state === 'PROVISIONING') return 'STOPPED';
  if (state === 'DEGRADED') return index === 0 ? 'FAILED' : 'RUNNING';
  return state;
}

function reportedType(def: ConnectorDef): string {
  return def.reported_type ?? def.type;
}

function renderStatus(def: ConnectorDef): Record<string, unknown> {
  return {
    name: def.name,
    connector: { state: def.state, worker_id: def.name, trace: def.trace },
    tasks: Array.from({ length: def.tasks }, (_, i) => ({
      id: i,
      state: taskState(def.state, i),
      worker_id: def.name,
      msg: def.state === 'FAILED' ? def.trace : '',
    })),
    type: reportedType(def),
  };
}

function renderTasks(def: ConnectorDef): { connector: string; task: number }[] {
  return Array.from({ length: def.tasks }, (_, i) => ({ connector: def.name, task: i }));
}

/** Registers the Connect routes. */
export function registerConnect(r: Registrar): void {
  const { world } = r;
  const prefix = '/connect/v1/environments/:env/clusters/:cid/connectors';

  const clusterOf = (params: unknown): ClusterModel => {
    const { env, cid } = params as { env: string; cid: string };
    const cluster = world.clusters.get(cid);
    if (cluster === undefined || cluster.env.id !== env) {
      throw new HttpError(404, 'connect', `Kafka cluster ${cid} not found in environment ${env}`);
    }
    return cluster;
  };
  const connectorOf = (params: unknown): [ClusterModel, ConnectorDef] => {
    const cluster = clusterOf(params);
    const def = cluster.connectorByName.get((params as { name: string }).name);
    if (def === undefined) throw new HttpError(404, 'connect', 'resource not found', { errorCode: 404 });
    return [cluster, def];
  };

  r.get(prefix, meta('connect.connectors'), (req) => {
    const cluster = clusterOf(req.params);
    const expandText = q1(req.query as Query, 'expand');
    if (expandText === undefined || expandText === '') return cluster.connectors.map((c) => c.name);
    const expand = new Set(expandText.split(',').map((s) => s.trim()));
    for (const e of expand) {
      if (!['id', 'info', 'status'].includes(e)) throw new HttpError(400, 'connect', `Invalid expand value: ${e}`);
    }
    const out: Record<string, unknown> = {};
    for (const def of cluster.connectors) {
      const entry: Record<string, unknown> = {};
      if (expand.has('status')) entry.status = renderStatus(def);
      if (expand.has('info')) {
        entry.info = {
          name: def.name,
          type: reportedType(def),
          config: connectorConfig(cluster, def),
          tasks: renderTasks(def),
        };
      }
      if (expand.has('id')) entry.id = { id: def.id, id_type: 'ID' };
      entry.extensions = {};
      out[def.name] = entry;
    }
    return out;
  });
  r.get(`${prefix}/:name`, meta('connect.connector'), (req) => {
    const [cluster, def] = connectorOf(req.params);
    return { name: def.name, config: connectorConfig(cluster, def), tasks: renderTasks(def), type: reportedType(def) };
  });
  r.get(`${prefix}/:name/config`, meta('connect.connector-config'), (req) => {
    const [cluster, def] = connectorOf(req.params);
    return connectorConfig(cluster, def);
  });
  r.get(`${prefix}/:name/status`, meta('connect.connector-status'), (req) => renderStatus(connectorOf(req.params)[1]));
  r.get(`${prefix}/:name/tasks`, meta('connect.connector-tasks'), (req) => {
    const [cluster, def] = connectorOf(req.params);
    const config = connectorConfig(cluster, def);
    return renderTasks(def).map((t) => ({ id: t, config }));
  });
  r.get(`${prefix}/:name/offsets`, meta('connect.connector-offsets'), (req) => {
    const [cluster, def] = connectorOf(req.params);
    const offsets: unknown[] = [];
    if (def.type === 'sink') {
      const group = cluster.groupById.get(`connect-${def.id}`);
      for (const row of group?.lags ?? []) {
        offsets.push({
          partition: { kafka_partition: row.partition, kafka_topic: row.topic },
          offset: { kafka_offset: row.currentOffset },
        });
      }
    }
    return {
      id: def.id,
      name: def.name,
      offsets,
      metadata: { observed_at: new Date(world.createdAt + 7_200_000).toISOString().replace(/\.\d{3}Z$/, 'Z') },
    };
  });
}
