/**
 * Control-plane APIs (`https://api.confluent.cloud`, cloud API key), v2-style lists
 * (`page_size` default 10, max 100; opaque `page_token`; `metadata.next`):
 *
 * - `org.organizations`: `GET /org/v2/organizations`
 * - `org.environments` / `org.environment`: `GET /org/v2/environments`, `GET /org/v2/environments/{id}`
 * - `cmk.clusters` / `cmk.cluster`: `GET /cmk/v2/clusters?environment=` (required),
 *   `GET /cmk/v2/clusters/{id}?environment=`
 * - `srcm.clusters` / `srcm.cluster`: `GET /srcm/v3/clusters?environment=`,
 *   `GET /srcm/v3/clusters/{id}?environment=` (also `/srcm/v2/...`)
 * - `ksqldbcm.clusters` / `ksqldbcm.cluster`: `GET /ksqldbcm/v2/clusters?environment=`, `.../{id}`
 * - `fcpm.compute-pools` / `fcpm.compute-pool`: `GET /fcpm/v2/compute-pools?environment=`, `.../{id}`
 * - `fcpm.regions`: `GET /fcpm/v2/regions?cloud=&region_name=`
 * - `iam.service-accounts`, `iam.users`: `GET /iam/v2/service-accounts`, `GET /iam/v2/users`
 * - `tableflow.topics` / `tableflow.topic`:
 *   `GET /tableflow/v1/tableflow-topics?environment=&spec.kafka_cluster=` (both required), `.../{display_name}`
 * - `tableflow.catalog-integrations` / `tableflow.catalog-integration`:
 *   `GET /tableflow/v1/catalog-integrations?environment=&spec.kafka_cluster=`, `.../{id}`
 *
 * Quirks reproduced: empty lists answer `data: null` (org, cmk, srcm, fcpm, ksqldbcm, iam); the last
 * page omits `next` except fcpm which sends `"next": ""`; an unknown/deleted cmk or ksqlDB cluster
 * answers 403 `forbidden_access`; a missing required `environment` answers 400; an environment the key
 * cannot see answers 403. The compute pool's `spec.http_endpoint` keeps the platform's legacy
 * `/sql/v1alpha1` URL on the real Flink host (not served): use `fcpm/v2/regions`.
 */
import { HttpError } from '../errors.js';
import type { ClusterModel, EnvModel, KsqlModel, PoolModel, SrModel, World } from '../model.js';
import type { Registrar, RouteMeta } from '../server.js';
import type { CatalogIntegrationDef, TableflowTopicDef } from '../scenario.js';
import { isoSeconds, paginateV2, q1, token, uuidFrom, type Query } from '../util.js';

const cp = (api: string, auth: RouteMeta['auth'] = 'cloud'): RouteMeta => ({ api, family: 'v2', auth });

function requireEnv(world: World, query: Query): EnvModel {
  const id = q1(query, 'environment');
  if (id === undefined || id === '') {
    throw new HttpError(400, 'v2', "Missing required query parameter 'environment'", {
      code: 'missing_parameter',
      parameter: 'environment',
    });
  }
  const env = world.envById.get(id);
  if (env === undefined) throw new HttpError(403, 'v2', 'Forbidden Access', { code: 'forbidden_access' });
  return env;
}

function requireCluster(env: EnvModel, query: Query): ClusterModel {
  const id = q1(query, 'spec.kafka_cluster');
  if (id === undefined || id === '') {
    throw new HttpError(400, 'v2', "Missing required query parameter 'spec.kafka_cluster'", {
      code: 'missing_parameter',
      parameter: 'spec.kafka_cluster',
    });
  }
  const cluster = env.clusters.find((c) => c.id === id);
  if (cluster === undefined) throw new HttpError(403, 'v2', 'Forbidden Access', { code: 'forbidden_access' });
  return cluster;
}

/** Registers the control-plane routes. */
export function registerControlPlane(r: Registrar): void {
  const { world } = r;
  const org = world.scenario.organization;
  const created = isoSeconds(world.createdAt);
  const updated = isoSeconds(world.createdAt + 3_600_000);

  const envRef = (env: EnvModel): Record<string, unknown> => ({
    api_version: 'org/v2',
    id: env.id,
    kind: 'Environment',
    related: `${r.base()}/org/v2/environments/${env.id}`,
    resource_name: env.crn,
  });
  const clusterRef = (c: ClusterModel): Record<string, unknown> => ({
    id: c.id,
    environment: c.env.id,
    related: `${r.base()}/cmk/v2/clusters/${c.id}`,
    resource_name: `${c.env.crn}/cloud-cluster=${c.id}`,
    api_version: 'cmk/v2',
    kind: 'Cluster',
  });

  // ---- org/v2 ----
  const renderEnv = (env: EnvModel): Record<string, unknown> => {
    const pkg = env.def.stream_governance_package ?? env.sr?.def.package;
    return {
      api_version: 'org/v2',
      display_name: env.def.display_name,
      id: env.id,
      kind: 'Environment',
      metadata: {
        created_at: created,
        resource_name: env.crn,
        self: `${r.base()}/org/v2/environments/${env.id}`,
        updated_at: updated,
      },
      ...(pkg !== undefined ? { stream_governance_config: { package: pkg } } : {}),
    };
  };
  r.get('/org/v2/organizations', cp('org.organizations'), (req) =>
    paginateV2(
      [org],
      (o) => ({
        api_version: 'org/v2',
        display_name: o.display_name,
        id: o.id,
        jit_enabled: false,
        kind: 'Organization',
        metadata: {
          created_at: created,
          resource_name: `crn://confluent.cloud/organization=${o.id}`,
          self: `${r.base()}/org/v2/organizations/${o.id}`,
          updated_at: updated,
        },
      }),
      req.query as Query,
      `${r.base()}/org/v2/organizations`,
      {},
      { api_version: 'org/v2', kind: 'OrganizationList' },
      {},
    ),
  );
  r.get('/org/v2/environments', cp('org.environments'), (req) =>
    paginateV2(
      world.environments,
      renderEnv,
      req.query as Query,
      `${r.base()}/org/v2/environments`,
      {},
      { api_version: 'org/v2', kind: 'EnvironmentList' },
      { firstAndTotal: true },
    ),
  );
  r.get('/org/v2/environments/:id', cp('org.environment'), (req) => {
    const env = world.envById.get((req.params as { id: string }).id);
    if (env === undefined) throw new HttpError(404, 'v2', 'Resource Not Found', { code: 'resource_not_found' });
    return renderEnv(env);
  });

  // ---- cmk/v2 ----
  const renderCluster = (c: ClusterModel): Record<string, unknown> => {
    const d = c.def;
    const config: Record<string, unknown> = { kind: d.kind };
    if (d.kind === 'Dedicated') config.cku = d.cku ?? 1;
    else if (d.kind !== 'Freight') config.max_ecku = d.kind === 'Basic' ? 5 : 10;
    return {
      api_version: 'cmk/v2',
      id: c.id,
      kind: 'Cluster',
      metadata: {
        created_at: created,
        resource_name: `${c.env.crn}/cloud-cluster=${c.id}/kafka=${c.id}`,
        self: `${r.base()}/cmk/v2/clusters/${c.id}`,
        updated_at: updated,
      },
      spec: {
        api_endpoint: '',
        availability: d.availability,
        cloud: d.cloud,
        config,
        deletion_protection: false,
        display_name: d.display_name,
        environment: envRef(c.env),
        network: { api_version: 'networking/v1', id: `n-${token(`${c.id}/network`, 6)}`, kind: 'Network' },
        http_endpoint: `${r.base()}/kafka-rest/${c.id}`,
        kafka_bootstrap_endpoint: `SASL_SSL://${c.bootstrapHost}.${d.region}.${c.cloudLower}.confluent.cloud:9092`,
        region: d.region,
      },
      status: { phase: 'PROVISIONED', ...(d.kind === 'Dedicated' ? { cku: d.cku ?? 1 } : {}) },
    };
  };
  r.get('/cmk/v2/clusters', cp('cmk.clusters'), (req) => {
    const query = req.query as Query;
    const env = requireEnv(world, query);
    return paginateV2(
      env.clusters,
      renderCluster,
      query,
      `${r.base()}/cmk/v2/clusters`,
      { environment: env.id },
      { api_version: 'cmk/v2', kind: 'ClusterList' },
    );
  });
  r.get('/cmk/v2/clusters/:id', cp('cmk.cluster'), (req) => {
    const env = requireEnv(world, req.query as Query);
    const c = world.clusters.get((req.params as { id: string }).id);
    if (c === undefined || c.env !== env)
      throw new HttpError(403, 'v2', 'Forbidden Access', { code: 'forbidden_access' });
    return renderCluster(c);
  });

  // ---- srcm/v3 and srcm/v2 ----
  const renderSr = (sr: SrModel, version: 'v2' | 'v3'): Record<string, unknown> => {
    const d = sr.def;
    const endpoint = `${r.base()}/schema-registry/${sr.id}`;
    const spec: Record<string, unknown> =
      version === 'v3'
        ? {
            display_name: d.display_name,
            environment: envRef(sr.env),
            http_endpoint: endpoint,
            private_http_endpoint: '',
            private_networking_config: {},
            catalog_http_endpoint: endpoint,
            package: d.package,
            region: d.region,
            cloud: d.cloud,
          }
        : {
            display_name: d.display_name,
            package: d.package,
            http_endpoint: endpoint,
            environment: envRef(sr.env),
            region: {
              id: `sgreg-${token(`${d.cloud}/${d.region}`, 3)}`,
              related: `${r.base()}/srcm/v2/regions/sgreg-${token(`${d.cloud}/${d.region}`, 3)}`,
              resource_name: `crn://confluent.cloud/schema-registry-region=sgreg-${token(`${d.cloud}/${d.region}`, 3)}`,
            },
          };
    return {
      api_version: `srcm/${version}`,
      id: sr.id,
      kind: 'Cluster',
      metadata: {
        created_at: created,
        resource_name: `${sr.env.crn}/schema-registry=${sr.id}`,
        self: `${r.base()}/srcm/${version}/clusters/${sr.id}`,
        updated_at: updated,
      },
      spec,
      status: { phase: 'PROVISIONED' },
    };
  };
  for (const version of ['v3', 'v2'] as const) {
    r.get(`/srcm/${version}/clusters`, cp('srcm.clusters'), (req) => {
      const query = req.query as Query;
      const env = requireEnv(world, query);
      return paginateV2(
        env.sr !== undefined ? [env.sr] : [],
        (sr) => renderSr(sr, version),
        query,
        `${r.base()}/srcm/${version}/clusters`,
        { environment: env.id },
        { api_version: `srcm/${version}`, kind: 'ClusterList' },
      );
    });
    r.get(`/srcm/${version}/clusters/:id`, cp('srcm.cluster'), (req) => {
      const env = requireEnv(world, req.query as Query);
      const sr = world.schemaRegistries.get((req.params as { id: string }).id);
      if (sr === undefined || sr.env !== env)
        throw new HttpError(404, 'v2', 'Resource Not Found', { code: 'resource_not_found' });
      return renderSr(sr, version);
    });
  }

  // ---- ksqldbcm/v2 ----
  const renderKsql = (k: KsqlModel): Record<string, unknown> => ({
    api_version: 'ksqldbcm/v2',
    kind: 'Cluster',
    id: k.id,
    metadata: {
      self: `${r.base()}/ksqldbcm/v2/clusters/${k.id}`,
      resource_name: `${k.env.crn}/cloud-cluster=${k.kafkaCluster.id}/ksql=${k.def.display_name}`,
      created_at: created,
      updated_at: updated,
    },
    spec: {
      display_name: k.def.display_name,
      use_detailed_processing_log: true,
      csu: k.def.csu,
      kafka_cluster: clusterRef(k.kafkaCluster),
      credential_identity: {
        id: `sa-${token(`${k.id}/identity`, 6)}`,
        environment: k.env.id,
        related: `${r.base()}/iam/v2/service-accounts/sa-${token(`${k.id}/identity`, 6)}`,
        resource_name: `crn://confluent.cloud/organization=${org.id}/service-account=sa-${token(`${k.id}/identity`, 6)}`,
        api_version: 'iam/v2',
        kind: 'ServiceAccount',
      },
      environment: envRef(k.env),
    },
    status: {
      phase: k.def.phase,
      topic_prefix: k.topicPrefix,
      storage: 125,
      http_endpoint: `${r.base()}/ksqldb/${k.id}`,
    },
  });
  r.get('/ksqldbcm/v2/clusters', cp('ksqldbcm.clusters'), (req) => {
    const query = req.query as Query;
    const env = requireEnv(world, query);
    return paginateV2(
      env.ksql,
      renderKsql,
      query,
      `${r.base()}/ksqldbcm/v2/clusters`,
      { environment: env.id },
      { api_version: 'ksqldbcm/v2', kind: 'ClusterList' },
    );
  });
  r.get('/ksqldbcm/v2/clusters/:id', cp('ksqldbcm.cluster'), (req) => {
    const env = requireEnv(world, req.query as Query);
    const k = world.ksqlClusters.get((req.params as { id: string }).id);
    if (k === undefined || k.env !== env)
      throw new HttpError(403, 'v2', 'Forbidden Access', { code: 'forbidden_access' });
    return renderKsql(k);
  });

  // ---- fcpm/v2 ----
  const renderPool = (p: PoolModel): Record<string, unknown> => {
    const d = p.def;
    const cloudLower = d.cloud.toLowerCase();
    return {
      api_version: 'fcpm/v2',
      id: p.id,
      kind: 'ComputePool',
      metadata: {
        created_at: created,
        resource_name: `${p.env.crn}/flink-region=${cloudLower}.${d.region}/compute-pool=${p.id}`,
        self: `${r.base()}/fcpm/v2/compute-pools/${p.id}`,
        updated_at: updated,
      },
      spec: {
        cloud: d.cloud,
        config: { kind: 'Standard' },
        display_name: d.display_name,
        environment: { id: p.env.id, related: `${r.base()}/org/v2/environments/${p.env.id}`, resource_name: p.env.crn },
        // The platform still reports this legacy URL on the real Flink host; it is not the SQL endpoint.
        http_endpoint: `https://flink.${d.region}.${cloudLower}.confluent.cloud/sql/v1alpha1/environments/${p.env.id}`,
        max_cfu: d.max_cfu,
        ...(d.default_pool ? { default_pool: true } : {}),
        region: d.region,
      },
      status: { current_cfu: d.current_cfu, phase: 'PROVISIONED' },
    };
  };
  r.get('/fcpm/v2/compute-pools', cp('fcpm.compute-pools'), (req) => {
    const query = req.query as Query;
    const env = requireEnv(world, query);
    const region = q1(query, 'spec.region');
    const pools = region === undefined || region === '' ? env.pools : env.pools.filter((p) => p.def.region === region);
    return paginateV2(
      pools,
      renderPool,
      query,
      `${r.base()}/fcpm/v2/compute-pools`,
      { environment: env.id, 'spec.region': region },
      { api_version: 'fcpm/v2', kind: 'ComputePoolList' },
      { firstAndTotal: true, lastNext: 'empty' },
    );
  });
  r.get('/fcpm/v2/compute-pools/:id', cp('fcpm.compute-pool'), (req) => {
    const env = requireEnv(world, req.query as Query);
    const p = world.pools.get((req.params as { id: string }).id);
    if (p === undefined || p.env !== env)
      throw new HttpError(404, 'v2', 'Resource Not Found', { code: 'resource_not_found' });
    return renderPool(p);
  });
  r.get('/fcpm/v2/regions', cp('fcpm.regions'), (req) => {
    const query = req.query as Query;
    const cloud = q1(query, 'cloud');
    const regionName = q1(query, 'region_name');
    const regions = world.regions.filter(
      (g) =>
        (cloud === undefined || cloud === '' || g.cloud === cloud.toUpperCase()) &&
        (regionName === undefined || regionName === '' || g.region === regionName),
    );
    return paginateV2(
      regions,
      (g) => ({
        api_version: 'fcpm/v2',
        cloud: g.cloud,
        display_name: `${g.cloud} ${g.region}`,
        http_endpoint: `${r.base()}/flink/${g.key}`,
        private_http_endpoint: `https://flink.${g.region}.${g.cloud.toLowerCase()}.private.confluent.cloud`,
        id: `${g.cloud.toLowerCase()}.${g.region}`,
        kind: 'Region',
        metadata: { self: `${r.base()}/fcpm/v2/regions/${g.cloud.toLowerCase()}.${g.region}` },
        region_name: g.region,
      }),
      query,
      `${r.base()}/fcpm/v2/regions`,
      { cloud, region_name: regionName },
      { api_version: 'fcpm/v2', kind: 'RegionList' },
      { firstAndTotal: true, lastNext: 'empty' },
    );
  });

  // ---- iam/v2 ----
  const serviceAccounts = (() => {
    const list = world.scenario.service_accounts.map((s) => ({ ...s }));
    const known = new Set(list.map((s) => s.id));
    for (const env of world.environments) {
      for (const st of env.statements) {
        const p = st.def.principal;
        if (p.startsWith('sa-') && !known.has(p)) {
          known.add(p);
          list.push({ id: p, display_name: p.slice(3), description: 'Flink statement principal' });
        }
      }
    }
    return list;
  })();
  r.get('/iam/v2/service-accounts', cp('iam.service-accounts'), (req) =>
    paginateV2(
      serviceAccounts,
      (s) => ({
        api_version: 'iam/v2',
        kind: 'ServiceAccount',
        id: s.id,
        metadata: {
          self: `${r.base()}/iam/v2/service-accounts/${s.id}`,
          created_at: created,
          updated_at: updated,
          resource_name: `crn://confluent.cloud/organization=${org.id}/service-account=${s.id}`,
        },
        description: s.description,
        display_name: s.display_name,
      }),
      req.query as Query,
      `${r.base()}/iam/v2/service-accounts`,
      {},
      { api_version: 'iam/v2', kind: 'ServiceAccountList' },
      {},
    ),
  );
  r.get('/iam/v2/users', cp('iam.users'), (req) =>
    paginateV2(
      [{ id: 'u-sim0001', email: 'platform-admin@example.com', full_name: 'Platform Admin' }],
      (u) => ({
        api_version: 'iam/v2',
        email: u.email,
        full_name: u.full_name,
        id: u.id,
        kind: 'User',
        metadata: {
          created_at: created,
          resource_name: `crn://confluent.cloud/organization=${org.id}/user=${u.id}`,
          self: `${r.base()}/iam/v2/users/${u.id}`,
          updated_at: updated,
        },
      }),
      req.query as Query,
      `${r.base()}/iam/v2/users`,
      {},
      { api_version: 'iam/v2', kind: 'UserList' },
      {},
    ),
  );

  // ---- tableflow/v1 ----
  const catalogType: Record<CatalogIntegrationDef['config']['kind'], string> = {
    Unity: 'UNITY',
    AwsGlue: 'AWS_GLUE',
    Snowflake: 'SNOWFLAKE',
  };
  const formatOf: Record<CatalogIntegrationDef['config']['kind'], 'DELTA' | 'ICEBERG'> = {
    Unity: 'DELTA',
    AwsGlue: 'ICEBERG',
    Snowflake: 'ICEBERG',
  };
  const renderTableflowTopic = (c: ClusterModel, t: TableflowTopicDef): Record<string, unknown> => {
    const tablePath = (root: string): string =>
      `${root}/${token(org.id, 8)}/${c.env.id}/${c.id}/v1/${uuidFrom(`${c.id}/${t.topic}/table`)}`;
    const s = t.storage;
    let storage: Record<string, unknown>;
    if (s.kind === 'ByobAws') {
      const bucket = s.bucket_name ?? `${c.env.id}-tableflow`;
      storage = {
        kind: 'ByobAws',
        bucket_name: bucket,
        bucket_region: s.bucket_region ?? c.def.region,
        provider_integration_id: s.provider_integration_id ?? `cspi-${token(`${c.id}/cspi`, 8)}`,
        table_path: s.table_path ?? tablePath(`s3://${bucket}`),
      };
    } else if (s.kind === 'AzureDataLakeStorageGen2') {
      storage = {
        kind: 'AzureDataLakeStorageGen2',
        provider_integration_id: s.provider_integration_id ?? `cspi-${token(`${c.id}/cspi`, 8)}`,
        container_name: s.container_name ?? 'tableflow',
        storage_account_name: s.storage_account_name ?? `tf${token(c.id, 10)}`,
        storage_region: c.def.region,
        table_path: s.table_path ?? tablePath(`abfss://tableflow@tf${token(c.id, 10)}.dfs.core.windows.net`),
      };
    } else {
      storage = { kind: 'Managed', table_path: s.table_path ?? tablePath(`s3://confluent-tableflow-${c.def.region}`) };
    }
    const errorHandling: Record<string, unknown> = { mode: t.error_handling.mode };
    if (t.error_handling.target !== undefined) errorHandling.target = t.error_handling.target;
    return {
      api_version: 'tableflow/v1',
      kind: 'TableflowTopic',
      metadata: {
        created_at: created,
        resource_name: `${c.env.crn}/cloud-cluster=${c.id}/tableflow-topic=${t.topic}`,
        self: `${r.base()}/tableflow/v1/tableflow-topics/${encodeURIComponent(t.topic)}`,
        updated_at: updated,
      },
      spec: {
        display_name: t.topic,
        suspended: t.suspended,
        environment: envRef(c.env),
        kafka_cluster: clusterRef(c),
        config: {
          enable_compaction: true,
          enable_partitioning: true,
          retention_ms: '604800000',
          data_retention_ms: '2592000000',
          ...(t.error_handling.mode !== 'LOG' ? { record_failure_strategy: t.error_handling.mode } : {}),
          metadata_column_naming_scheme: 'DEFAULT',
          error_handling: errorHandling,
        },
        storage,
        table_formats: t.table_formats,
      },
      status: {
        phase: t.phase,
        write_mode: t.write_mode,
        catalog_sync_statuses: c.catalogIntegrations
          .filter((ci) => t.table_formats.includes(formatOf[ci.config.kind]))
          .map((ci) => ({
            catalog_integration_id: ci.id,
            catalog_type: catalogType[ci.config.kind],
            sync_status: ci.suspended ? 'DISCONNECTED' : 'SYNCED',
          })),
        failing_table_formats: [],
      },
    };
  };
  const renderCatalogIntegration = (c: ClusterModel, ci: CatalogIntegrationDef): Record<string, unknown> => ({
    api_version: 'tableflow/v1',
    kind: 'CatalogIntegration',
    id: ci.id,
    metadata: {
      created_at: created,
      resource_name: `${c.env.crn}/cloud-cluster=${c.id}/catalog-integration=${ci.id}`,
      self: `${r.base()}/tableflow/v1/catalog-integrations/${ci.id}`,
      updated_at: updated,
    },
    spec: {
      display_name: ci.display_name,
      suspended: ci.suspended,
      environment: envRef(c.env),
      kafka_cluster: clusterRef(c),
      config: ci.config,
    },
    status: { phase: ci.phase, last_sync_at: updated },
  });
  r.get('/tableflow/v1/tableflow-topics', cp('tableflow.topics', 'tableflow'), (req) => {
    const query = req.query as Query;
    const env = requireEnv(world, query);
    const c = requireCluster(env, query);
    const formats = q1(query, 'spec.table_formats');
    const topics =
      formats === undefined || formats === ''
        ? c.tableflowTopics
        : c.tableflowTopics.filter((t) => t.table_formats.includes(formats as 'DELTA'));
    return paginateV2(
      topics,
      (t) => renderTableflowTopic(c, t),
      query,
      `${r.base()}/tableflow/v1/tableflow-topics`,
      { environment: env.id, 'spec.kafka_cluster': c.id },
      { api_version: 'tableflow/v1', kind: 'TableflowTopicList' },
      { firstAndTotal: true, emptyData: 'array' },
    );
  });
  r.get('/tableflow/v1/tableflow-topics/:name', cp('tableflow.topic', 'tableflow'), (req) => {
    const query = req.query as Query;
    const env = requireEnv(world, query);
    const c = requireCluster(env, query);
    const t = c.tableflowByTopic.get((req.params as { name: string }).name);
    if (t === undefined) throw new HttpError(404, 'v2', 'Resource Not Found', { code: 'resource_not_found' });
    return renderTableflowTopic(c, t);
  });
  r.get('/tableflow/v1/catalog-integrations', cp('tableflow.catalog-integrations', 'tableflow'), (req) => {
    const query = req.query as Query;
    const env = requireEnv(world, query);
    const c = requireCluster(env, query);
    return paginateV2(
      c.catalogIntegrations,
      (ci) => renderCatalogIntegration(c, ci),
      query,
      `${r.base()}/tableflow/v1/catalog-integrations`,
      { environment: env.id, 'spec.kafka_cluster': c.id },
      { api_version: 'tableflow/v1', kind: 'CatalogIntegrationList' },
      { firstAndTotal: true, emptyData: 'array' },
    );
  });
  r.get('/tableflow/v1/catalog-integrations/:id', cp('tableflow.catalog-integration', 'tableflow'), (req) => {
    const query = req.query as Query;
    const env = requireEnv(world, query);
    const c = requireCluster(env, query);
    const ci = c.catalogIntegrations.find((x) => x.id === (req.params as { id: string }).id);
    if (ci === undefined) throw new HttpError(404, 'v2', 'Resource Not Found', { code: 'resource_not_found' });
    return renderCatalogIntegration(c, ci);
  });
}
