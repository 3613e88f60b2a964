/**
 * The lakehouse simulator: a fastify server standing in for a Databricks workspace, answering the
 * calls of `infra/catalogs/databricksClient.ts` with the real paths and shapes (`docs/catalog-apis.md`
 * A1, A4, A6, A7):
 *
 * - `lakehouse.tables.get`: `GET /api/2.1/unity-catalog/tables/{full_name}` -> `TableInfo` (empty fields
 *   omitted, as SaaS does)
 * - `lakehouse.lineage.table`:
 *   `GET /api/2.0/lineage-tracking/table-lineage?table_name=&include_entity_lineage=` ->
 *   `{upstreams, downstreams}` of `{tableInfo}`
 * - `lakehouse.warehouses.list`: `GET /api/2.0/sql/warehouses` -> `{warehouses: [EndpointInfo]}`
 * - `lakehouse.sql.statements`: `POST /api/2.0/sql/statements` -> `StatementResponse`
 * - `lakehouse.sql.statements.get`: `GET /api/2.0/sql/statements/{id}`
 * - `lakehouse.sql.statements.cancel`: `POST /api/2.0/sql/statements/{id}/cancel`
 *
 * Every request: accounting -> faults (`{api, status, times, retry_after}`) -> bearer token (401
 * `UNAUTHENTICATED`) -> handler. Errors use the envelope `{error_code, message, details}`.
 * Statements are parsed (`./sql.ts`) and applied to the simulated tables: properties, comments, and
 * tables created by `CREATE TABLE` with their rows; execution failures answer HTTP 200 with
 * `status.state` FAILED like a real warehouse (`PERMISSION_DENIED`-style messages for forbidden
 * tables, `modify_denied` tables and schemas in `principal.create_table_denied`). Tests read the
 * effects through `statements()`, `table()` and `rows()`.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { parseStatement, SqlSyntaxError, type ParsedStatement, type SqlValue } from './sql.js';
import { createBearerApiHarness, type SimulatorRequestLogEntry } from '../shared/bearerApiHarness.js';
import {
  parseLakehouseScenario,
  type LakehouseFault,
  type LakehouseScenario,
  type LakehouseScenarioInput,
} from './scenario.js';

/** A simulated table (scenario tables and tables created by statements). */
export interface SimulatedTable {
  full_name: string;
  table_type: string;
  data_source_format: string;
  owner: string | null;
  storage_location: string | null;
  comment: string | null;
  created_at: number;
  updated_at: number;
  columns: Array<{
    name: string;
    type_text: string;
    type_name?: string | undefined;
    comment?: string | null | undefined;
    nullable: boolean;
  }>;
  properties: Record<string, string>;
  access: 'ok' | 'forbidden' | 'unauthorized';
  modify_denied: boolean;
  /** Rows of tables created by `CREATE TABLE`, keyed by column name. */
  rows: Array<Record<string, SqlValue>>;
}

/** One statement as executed. */
export interface ExecutedStatement {
  statement_id: string;
  warehouse_id: string;
  statement: string;
  /** Final state: SUCCEEDED, FAILED or CANCELED. */
  state: string;
  error: { error_code: string; message: string } | null;
  parsed: ParsedStatement | null;
}

/** One request as the simulator saw it. */
export type LakehouseRequestLogEntry = SimulatorRequestLogEntry;

/** A running lakehouse simulator. */
export interface LakehouseSimulator {
  /** Base URL (the workspace URL to configure), no trailing slash. */
  url: string;
  scenario: LakehouseScenario;
  close(): Promise<void>;
  /** Installs a fault answering the next `times` requests of `api` with `status`. */
  injectFault(fault: LakehouseFault): void;
  clearFaults(): void;
  /** Every statement executed, in order (copies). */
  statements(): ExecutedStatement[];
  /** A table by full name (case-insensitive), undefined when absent. */
  table(fullName: string): SimulatedTable | undefined;
  /** Rows of a table created by statements (e.g. the bridge table); [] when absent. */
  rows(fullName: string): Array<Record<string, SqlValue>>;
  requestLog(): LakehouseRequestLogEntry[];
  requestCounts(): Record<string, number>;
  resetRequestLog(): void;
}

/** Options of `startLakehouseSimulator`. */
export interface LakehouseSimulatorOptions {
  scenario: LakehouseScenario | LakehouseScenarioInput;
  host?: string;
  port?: number;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const STANDARD_CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'RESOURCE_ALREADY_EXISTS',
  429: 'REQUEST_LIMIT_EXCEEDED',
  500: 'INTERNAL_ERROR',
  502: 'BAD_GATEWAY',
  503: 'TEMPORARILY_UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const key = (name: string) => name.toLowerCase();

/** Drops null and undefined fields (SaaS answers omit empty fields). */
function omitEmpty(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== null && value !== undefined));
}

/** Starts the simulator on `host:port` (default 127.0.0.1, an ephemeral port). @throws ValidationError for a bad scenario */
export async function startLakehouseSimulator(options: LakehouseSimulatorOptions): Promise<LakehouseSimulator> {
  const scenario = parseLakehouseScenario(options.scenario);
  const tables = new Map<string, SimulatedTable>();
  for (const t of scenario.tables)
    tables.set(key(t.full_name), {
      ...t,
      columns: t.columns.map((c) => ({ ...c })),
      properties: { ...t.properties },
      rows: [],
    });
  const executed: ExecutedStatement[] = [];
  const pending = new Map<string, { record: ExecutedStatement; polls: number; body: Record<string, unknown> }>();

  const app: FastifyInstance = Fastify({
    logger: false,
    forceCloseConnections: true,
    routerOptions: { maxParamLength: 2048 },
  });

  const harness = createBearerApiHarness(app, {
    token: scenario.token,
    faults: scenario.faults,
    faultError: (fault) =>
      new ApiError(
        fault.status,
        STANDARD_CODES[fault.status] ?? 'UNKNOWN',
        fault.status === 503 ? 'Service temporarily unavailable' : `Simulated HTTP ${fault.status}`,
        fault.retry_after === undefined ? {} : { 'retry-after': String(fault.retry_after) },
      ),
    unauthorizedError: () => new ApiError(401, 'UNAUTHENTICATED', 'Invalid access token.'),
  });
  const route = harness.route;

  app.setErrorHandler((error: unknown, _request, reply) => {
    const apiError =
      error instanceof ApiError
        ? error
        : new ApiError(
            (error as { statusCode?: number }).statusCode ?? 500,
            'INVALID_PARAMETER_VALUE',
            error instanceof Error ? error.message : 'error',
          );
    void reply
      .code(apiError.status)
      .headers(apiError.headers)
      .send({ error_code: apiError.errorCode, message: apiError.message, details: [] });
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({
      error_code: 'ENDPOINT_NOT_FOUND',
      message: `No API found for '${request.method} ${request.url.split('?')[0]}'`,
    });
  });

  const tableInfo = (t: SimulatedTable) => {
    const [catalog, schema, name] = t.full_name.split('.');
    return omitEmpty({
      name,
      catalog_name: catalog,
      schema_name: schema,
      full_name: t.full_name,
      table_type: t.table_type,
      data_source_format: t.data_source_format,
      columns: t.columns.map((c, position) =>
        omitEmpty({
          name: c.name,
          type_text: c.type_text,
          type_name: c.type_name ?? c.type_text.toUpperCase(),
          position,
          comment: c.comment,
          nullable: c.nullable,
        }),
      ),
      storage_location: t.storage_location,
      comment: t.comment,
      properties: Object.keys(t.properties).length > 0 ? t.properties : undefined,
      owner: t.owner,
      created_at: t.created_at,
      created_by: t.owner,
      updated_at: t.updated_at,
      updated_by: t.owner,
      table_id: randomUUIDFor(t.full_name),
      metastore_id: '11a4f2c8-7e3d-4b9a-8c61-5f0e2d9b7a31',
    });
  };

  route('GET', '/api/2.1/unity-catalog/tables/:full_name', 'lakehouse.tables.get', (request) => {
    const fullName = (request.params as { full_name: string }).full_name;
    const t = tables.get(key(fullName));
    if (!t) throw new ApiError(404, 'TABLE_DOES_NOT_EXIST', `Table '${fullName}' does not exist.`);
    if (t.access === 'forbidden')
      throw new ApiError(
        403,
        'PERMISSION_DENIED',
        `User does not have USE SCHEMA on Schema '${t.full_name.split('.').slice(0, 2).join('.')}'.`,
      );
    if (t.access === 'unauthorized')
      throw new ApiError(401, 'UNAUTHENTICATED', 'Token is not authorized for this resource.');
    return tableInfo(t);
  });

  route('GET', '/api/2.0/lineage-tracking/table-lineage', 'lakehouse.lineage.table', (request) => {
    if (!scenario.lineage_tracking)
      throw new ApiError(404, 'ENDPOINT_NOT_FOUND', "No API found for 'GET /lineage-tracking/table-lineage'");
    const tableName = (request.query as { table_name?: string }).table_name;
    if (!tableName) throw new ApiError(400, 'INVALID_PARAMETER_VALUE', 'Missing required field: table_name');
    const at = '2024-12-01 09:11:40.0';
    const entities = (edge: (typeof scenario.lineage)[number]) => {
      const info = (field: string, value: unknown) =>
        value === undefined
          ? {}
          : { [field]: [{ workspace_id: scenario.workspace_id, ...value!, lineage_timestamp: at }] };
      return {
        ...info('notebookInfos', edge.notebook_id === undefined ? undefined : { notebook_id: edge.notebook_id }),
        ...info('jobInfos', edge.job_id === undefined ? undefined : { job_id: edge.job_id }),
        ...info('pipelineInfos', edge.pipeline_id === undefined ? undefined : { pipeline_id: edge.pipeline_id }),
        ...info('queryInfos', edge.query_id === undefined ? undefined : { query_id: edge.query_id }),
      };
    };
    const entryOf = (fullName: string, edge: (typeof scenario.lineage)[number]) => {
      const [catalog, schema, name] = fullName.split('.');
      const t = tables.get(key(fullName));
      return {
        tableInfo: omitEmpty({
          workspace_id: scenario.workspace_id,
          catalog_name: catalog,
          schema_name: schema,
          name,
          table_type: t?.table_type ?? 'TABLE',
          lineage_timestamp: at,
        }),
        ...entities(edge),
      };
    };
    const upstreams = scenario.lineage
      .filter((l) => key(l.downstream) === key(tableName))
      .map((l) => entryOf(l.upstream, l));
    const downstreams = scenario.lineage
      .filter((l) => key(l.upstream) === key(tableName))
      .map((l) => entryOf(l.downstream, l));
    return omitEmpty({
      upstreams: upstreams.length > 0 ? upstreams : undefined,
      downstreams: downstreams.length > 0 ? downstreams : undefined,
    });
  });

  route('GET', '/api/2.0/sql/warehouses', 'lakehouse.warehouses.list', () => ({
    warehouses: scenario.warehouses.map((w) => ({
      id: w.id,
      name: w.name,
      state: w.state,
      cluster_size: w.cluster_size,
      warehouse_type: w.warehouse_type,
      enable_serverless_compute: w.enable_serverless_compute,
      auto_stop_mins: 10,
      min_num_clusters: 1,
      max_num_clusters: 1,
      num_clusters: w.state === 'RUNNING' ? 1 : 0,
      num_active_sessions: 0,
      creator_name: scenario.principal.name,
      jdbc_url: `jdbc:spark://simulator:443/default;transportMode=http;ssl=1;AuthMech=3;httpPath=/sql/1.0/warehouses/${w.id};`,
      odbc_params: { hostname: 'simulator', path: `/sql/1.0/warehouses/${w.id}`, port: 443, protocol: 'https' },
      channel: { name: 'CHANNEL_NAME_CURRENT' },
      health: { status: 'HEALTHY' },
      spot_instance_policy: 'COST_OPTIMIZED',
    })),
  }));

  const failure = (errorCode: string, message: string) => ({ error_code: errorCode, message });
  const permissionDenied = (privilege: string, kind: string, name: string) =>
    failure(
      'BAD_REQUEST',
      `[INSUFFICIENT_PERMISSIONS] Insufficient privileges: User does not have ${privilege} on ${kind} '${name}'. SQLSTATE: 42501`,
    );
  const notFound = (name: string) =>
    failure('BAD_REQUEST', `[TABLE_OR_VIEW_NOT_FOUND] The table or view \`${name}\` cannot be found. SQLSTATE: 42P01`);

  /** Applies a parsed statement; returns an error or null. */
  const apply = (parsed: ParsedStatement): { error_code: string; message: string } | null => {
    if (parsed.kind === 'select') return null;
    const fullName = parsed.table.join('.');
    if (parsed.table.length !== 3)
      return failure(
        'BAD_REQUEST',
        `[REQUIRES_SINGLE_PART_NAMESPACE] ${fullName} must be catalog.schema.table in this simulator`,
      );
    const t = tables.get(key(fullName));
    switch (parsed.kind) {
      case 'set_properties':
      case 'comment':
        if (!t) return notFound(fullName);
        if (t.access !== 'ok') return permissionDenied('USE SCHEMA', 'Schema', parsed.table.slice(0, 2).join('.'));
        if (t.modify_denied) return permissionDenied('MODIFY', 'Table', t.full_name);
        if (parsed.kind === 'set_properties') Object.assign(t.properties, parsed.properties);
        else t.comment = parsed.comment;
        t.updated_at = Date.now();
        return null;
      case 'create_table': {
        const schema = parsed.table.slice(0, 2).join('.');
        if (scenario.principal.create_table_denied.some((denied) => key(denied) === key(schema)))
          return permissionDenied('CREATE TABLE', 'Schema', schema);
        if (t)
          return parsed.ifNotExists
            ? null
            : failure('BAD_REQUEST', `[TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create table ${fullName}. SQLSTATE: 42P07`);
        tables.set(key(fullName), {
          full_name: fullName,
          table_type: 'MANAGED',
          data_source_format: 'DELTA',
          owner: scenario.principal.name,
          storage_location: null,
          comment: null,
          created_at: Date.now(),
          updated_at: Date.now(),
          columns: parsed.columns.map((c) => ({
            name: c.name,
            type_text: c.type.toLowerCase(),
            type_name: c.type,
            nullable: true,
          })),
          properties: {},
          access: 'ok',
          modify_denied: false,
          rows: [],
        });
        return null;
      }
      case 'delete':
        if (!t) return notFound(fullName);
        t.rows = t.rows.filter((row) => row[parsed.column] !== parsed.value);
        return null;
      case 'insert': {
        if (!t) return notFound(fullName);
        const columns = parsed.columns ?? t.columns.map((c) => c.name);
        for (const row of parsed.rows) {
          if (row.length !== columns.length)
            return failure(
              'BAD_REQUEST',
              `[INSERT_COLUMN_ARITY_MISMATCH] ${row.length} values for ${columns.length} columns. SQLSTATE: 21S01`,
            );
          t.rows.push(Object.fromEntries(columns.map((c, i) => [c, row[i] ?? null])));
        }
        return null;
      }
    }
  };

  const statementBody = (record: ExecutedStatement, state: string) =>
    state === 'SUCCEEDED'
      ? {
          statement_id: record.statement_id,
          status: { state },
          manifest: {
            format: 'JSON_ARRAY',
            schema: { column_count: 0, columns: [] },
            total_chunk_count: 0,
            total_row_count: 0,
            truncated: false,
          },
          result: { chunk_index: 0, row_offset: 0, row_count: 0, data_array: [] },
        }
      : state === 'FAILED' || state === 'CANCELED'
        ? { statement_id: record.statement_id, status: { state, ...(record.error ? { error: record.error } : {}) } }
        : { statement_id: record.statement_id, status: { state } };

  route('POST', '/api/2.0/sql/statements', 'lakehouse.sql.statements', (request) => {
    const body = (request.body ?? {}) as { statement?: unknown; warehouse_id?: unknown };
    if (typeof body.statement !== 'string' || body.statement.trim() === '')
      throw new ApiError(400, 'INVALID_PARAMETER_VALUE', 'statement is required');
    if (typeof body.warehouse_id !== 'string' || body.warehouse_id === '')
      throw new ApiError(400, 'INVALID_PARAMETER_VALUE', 'warehouse_id is required');
    const warehouse = scenario.warehouses.find((w) => w.id === body.warehouse_id);
    if (!warehouse || warehouse.state === 'DELETED')
      throw new ApiError(404, 'RESOURCE_DOES_NOT_EXIST', `SQL warehouse ${body.warehouse_id} does not exist.`);
    const record: ExecutedStatement = {
      statement_id: randomUUID(),
      warehouse_id: body.warehouse_id,
      statement: body.statement,
      state: 'RUNNING',
      error: null,
      parsed: null,
    };
    try {
      record.parsed = parseStatement(body.statement);
      record.error = apply(record.parsed);
    } catch (error) {
      if (!(error instanceof SqlSyntaxError)) throw error;
      record.error = failure('BAD_REQUEST', `[PARSE_SYNTAX_ERROR] Syntax error: ${error.message}. SQLSTATE: 42601`);
    }
    record.state = record.error ? 'FAILED' : 'SUCCEEDED';
    executed.push(record);
    if (scenario.statement_pending_polls > 0) {
      pending.set(record.statement_id, { record, polls: scenario.statement_pending_polls, body: {} });
      return statementBody(record, 'RUNNING');
    }
    return statementBody(record, record.state);
  });

  route('GET', '/api/2.0/sql/statements/:id', 'lakehouse.sql.statements.get', (request) => {
    const id = (request.params as { id: string }).id;
    const held = pending.get(id);
    if (held) {
      held.polls -= 1;
      if (held.polls > 0) return statementBody(held.record, 'RUNNING');
      pending.delete(id);
      return statementBody(held.record, held.record.state);
    }
    const record = executed.find((s) => s.statement_id === id);
    if (!record) throw new ApiError(404, 'RESOURCE_DOES_NOT_EXIST', `Statement ${id} does not exist.`);
    return statementBody(record, record.state);
  });

  route('POST', '/api/2.0/sql/statements/:id/cancel', 'lakehouse.sql.statements.cancel', (request) => {
    const id = (request.params as { id: string }).id;
    const held = pending.get(id);
    if (held) {
      held.record.state = 'CANCELED';
      pending.delete(id);
    }
    return {};
  });

  await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://${options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1'}:${port}`,
    scenario,
    close: () => app.close(),
    injectFault: harness.injectFault,
    clearFaults: harness.clearFaults,
    statements: () => executed.map((s) => ({ ...s })),
    table: (fullName) => tables.get(key(fullName)),
    rows: (fullName) => [...(tables.get(key(fullName))?.rows ?? [])],
    requestLog: harness.requestLog,
    requestCounts: harness.requestCounts,
    resetRequestLog: harness.resetRequestLog,
  };
}

/** A stable UUID-like table id from a name (the simulator has no metastore). */
function randomUUIDFor(name: string): string {
  let hash = 0x811c9dc5;
  const hex: string[] = [];
  for (let round = 0; round < 4; round += 1) {
    for (const char of `${round}${name}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
    hex.push(hash.toString(16).padStart(8, '0'));
  }
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}
