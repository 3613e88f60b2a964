/**
 * Flink SQL statements (`sql/v1`), served below each region's `http_endpoint` from
 * `/fcpm/v2/regions` = `{url}/flink/{cloud}-{region}` (e.g. `{url}/flink/aws-us-east-1`); Flink API
 * key. A region only holds the statements whose compute pool is in that region.
 *
 * - `flink.statements`: `GET /sql/v1/organizations/{org}/environments/{env}/statements` (`page_size` default
 *   10 max 100, `page_token`, `spec.compute_pool_id`, `label_selector`)
 * - `flink.statement`: `GET /sql/v1/organizations/{org}/environments/{env}/statements/{name}`
 * - `flink.statement-exceptions`:
 *   `GET /sql/v1/organizations/{org}/environments/{env}/statements/{name}/exceptions`
 *
 * The list is `{api_version: "sql/v1", kind: "StatementList", metadata: {self, next}, data}` with
 * `next: ""` on the last page. Each statement has `spec.statement`, `spec.properties`
 * (`sql.current-catalog` = environment display name, `sql.current-database` = cluster display
 * name), `spec.compute_pool_id`, `spec.principal`, `status.phase`, `status.traits.sql_kind` and
 * `status.latest_offsets` (source topic -> `partition:N,offset:M;...`).
 */
import { HttpError } from '../errors.js';
import type { StatementModel } from '../model.js';
import type { Registrar, RouteMeta } from '../server.js';
import { isoSeconds, paginateV2, q1, type Query } from '../util.js';

const meta = (api: string): RouteMeta => ({ api, family: 'v2', auth: 'flink' });

/** Registers the Flink SQL routes. */
export function registerFlink(r: Registrar): void {
  const { world } = r;
  const prefix = '/flink/:region/sql/v1/organizations/:org/environments/:env/statements';

  const scope = (params: unknown): { region: string; env: string; statements: StatementModel[] } => {
    const { region, org, env } = params as { region: string; org: string; env: string };
    if (!world.regionByKey.has(region)) throw new HttpError(404, 'v2', 'Not Found');
    if (org !== world.scenario.organization.id)
      throw new HttpError(403, 'v2', `Organization ${org} is not accessible with these credentials`, {
        code: 'forbidden_access',
      });
    if (!world.envById.has(env))
      throw new HttpError(403, 'v2', `Environment ${env} is not accessible with these credentials`, {
        code: 'forbidden_access',
      });
    return { region, env, statements: world.statementsByEnvRegion.get(`${env}/${region}`) ?? [] };
  };
  const selfOf = (region: string, st: StatementModel): string =>
    `${r.base()}/flink/${region}/sql/v1/organizations/${world.scenario.organization.id}/environments/${st.env.id}/statements/${encodeURIComponent(st.name)}`;
  const render = (region: string, st: StatementModel): Record<string, unknown> => {
    const d = st.def;
    const created = d.created_at ?? isoSeconds(world.createdAt + 86_400_000);
    const bounded = st.sqlKind === 'SELECT' && d.phase === 'COMPLETED';
    const status: Record<string, unknown> = {
      detail: d.detail,
      phase: d.phase,
      traits: {
        is_append_only: st.sqlKind === 'INSERT_INTO',
        is_bounded: bounded,
        schema: {
          columns: d.columns.map((col) => {
            const [, base = col.type, precision] = /^([A-Z_ ]+?)(?:\((\d+)\))?$/i.exec(col.type.trim()) ?? [];
            return {
              name: col.name,
              type: {
                nullable: col.nullable,
                ...(precision !== undefined ? { precision: Number(precision) } : {}),
                type: base.toUpperCase().replace(/ /g, '_'),
              },
            };
          }),
        },
        sql_kind: st.sqlKind,
        upsert_columns: null,
      },
      network_kind: 'PUBLIC',
      latest_offsets: st.latestOffsets,
      latest_offsets_timestamp:
        Object.keys(st.latestOffsets).length > 0 ? isoSeconds(world.createdAt + 90_000_000) : '0001-01-01T00:00:00Z',
    };
    return {
      api_version: 'sql/v1',
      environment_id: st.env.id,
      kind: 'Statement',
      metadata: {
        created_at: created,
        labels: d.labels,
        resource_version: '1',
        self: selfOf(region, st),
        uid: st.uid,
        updated_at: created,
      },
      name: st.name,
      organization_id: world.scenario.organization.id,
      spec: {
        compute_pool_id: d.compute_pool_id,
        principal: d.principal,
        properties: st.properties,
        statement: d.sql,
        stopped: d.stopped ?? d.phase === 'STOPPED',
      },
      status,
    };
  };

  r.get(prefix, meta('flink.statements'), (req) => {
    const { region, env, statements } = scope(req.params);
    const query = req.query as Query;
    const pool = q1(query, 'spec.compute_pool_id');
    const selector = q1(query, 'label_selector');
    let items =
      pool === undefined || pool === '' ? statements : statements.filter((s) => s.def.compute_pool_id === pool);
    if (selector !== undefined && selector !== '') {
      const wanted = selector.split(',').map((p) => p.split('=').map((x) => x.trim()) as [string, string | undefined]);
      items = items.filter((s) =>
        wanted.every(([k, v]) => (v === undefined ? k in s.def.labels : s.def.labels[k] === v)),
      );
    }
    return paginateV2(
      items,
      (st) => render(region, st),
      query,
      `${r.base()}/flink/${region}/sql/v1/organizations/${world.scenario.organization.id}/environments/${env}/statements`,
      { 'spec.compute_pool_id': pool, label_selector: selector },
      { api_version: 'sql/v1', kind: 'StatementList' },
      { self: true, lastNext: 'empty', emptyData: 'array' },
    );
  });
  const statementOf = (params: unknown): [string, StatementModel] => {
    const { region, statements } = scope(params);
    const name = (params as { name: string }).name;
    const st = statements.find((s) => s.name === name);
    if (st === undefined) throw new HttpError(404, 'v2', `Statement resource=${name} does not exist`);
    return [region, st];
  };
  r.get(`${prefix}/:name`, meta('flink.statement'), (req) => {
    const [region, st] = statementOf(req.params);
    return render(region, st);
  });
  r.get(`${prefix}/:name/exceptions`, meta('flink.statement-exceptions'), (req) => {
    const [region, st] = statementOf(req.params);
    const failed = st.def.phase === 'FAILED' || st.def.phase === 'FAILING' || st.def.phase === 'DEGRADED';
    return {
      api_version: 'sql/v1',
      data: failed
        ? [
            {
              kind: 'StatementException',
              name: 'org.apache.flink.runtime.JobException',
              message: st.def.detail || 'Recovery is suppressed',
              timestamp: isoSeconds(world.createdAt + 172_800_000),
            },
          ]
        : [],
      kind: 'StatementExceptionList',
      metadata: { self: `${selfOf(region, st)}/exceptions` },
    };
  });
}
