/**
 * The warehouse simulator: a fastify server standing in for Google BigQuery and the Data Lineage
 * API, answering the calls of `infra/catalogs/googleClient.ts` with the real paths and shapes
 * (`docs/catalog-apis.md` B1, B2, B4):
 *
 * - `warehouse.bigquery.tables.get`: `GET /bigquery/v2/projects/{p}/datasets/{d}/tables/{t}` -> `Table`
 *   (int64s and times as JSON strings)
 * - `warehouse.lineage.processOpenLineageRunEvent`:
 *   `POST /v1/projects/{p}/locations/{l}:processOpenLineageRunEvent?requestId=` ->
 *   `{process, run, lineageEvents}`
 * - `warehouse.lineage.searchLinks`, `warehouse.lineage.batchSearchLinkProcesses` (`POST
 *   /v1/projects/{p}/locations/{l}:searchLinks`, `...:batchSearchLinkProcesses`, paginated) and
 *   `warehouse.lineage.processes.get` (`GET /v1/projects/{p}/locations/{l}/processes/{id}`), over the
 *   scenario's links and processes (`lineageLinks.ts`)
 * - `warehouse.dataplex.{entryGroups,entryTypes,aspectTypes}.get`:
 *   `GET /v1/projects/{p}/locations/{l}/{collection}/{id}` -> the resource, or 404
 * - `warehouse.dataplex.{entryGroups,entryTypes,aspectTypes}.create`:
 *   `POST /v1/projects/{p}/locations/{l}/{collection}?{x}Id=` -> a long-running `Operation` (`done: false`; 409
 *   `ALREADY_EXISTS` when present)
 * - `warehouse.dataplex.operations.get`: `GET /v1/projects/{p}/locations/{l}/operations/{id}` ->
 *   `{done: true, response}`
 * - `warehouse.dataplex.entries.create`:
 *   `POST /v1/projects/{p}/locations/{l}/entryGroups/{g}/entries?entryId=` -> `Entry` (409 when present; 404
 *   unknown group, 400 unknown entry type)
 * - `warehouse.dataplex.entries.patch`:
 *   `PATCH /v1/projects/{p}/locations/{l}/entryGroups/{g}/entries/{id}?updateMask=aspects&aspectKeys=` ->
 *   `Entry`
 *
 * Every request: accounting -> faults (`{api, status, times, retry_after}`) -> bearer token (401
 * `UNAUTHENTICATED`) -> handler. Errors use the googleapis envelope
 * `{error: {code, message, status, errors?|details}}` (BigQuery's variant carries
 * `errors: [{message, domain, reason}]`). Received lineage events are recorded with the
 * fully qualified names Google would derive (`bigquery:{name}` for namespace `bigquery`,
 * `kafka:{cluster}.{topic}` for `kafka://{cluster}`, the topic backtick-quoted when it holds a `.`,
 * null for anything else); a repeated `requestId` answers the first response again without
 * recording the event twice (the API's idempotency).
 */
import {
  createBearerApiHarness,
  type BearerApiHarness,
  type SimulatorRequestLogEntry,
} from '../shared/bearerApiHarness.js';
import { createHash, randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import {
  parseGoogleScenario,
  type GoogleFault,
  type GoogleScenario,
  type GoogleScenarioInput,
  type GoogleScenarioTable,
  type SimulatedColumn,
} from './scenario.js';
import { lineageLinkRoutes } from './lineageLinks.js';

/** One lineage event as received. */
export interface ReceivedLineageEvent {
  project: string;
  location: string;
  requestId: string | null;
  event: Record<string, unknown>;
  /** Google's FQNs of the inputs and outputs (null where no predefined format applies). */
  sources: Array<string | null>;
  targets: Array<string | null>;
  response: { process: string; run: string; lineageEvents: string[] };
}

/** One request as the simulator saw it. */
export type GoogleRequestLogEntry = SimulatorRequestLogEntry;

/** A running warehouse simulator. */
export interface GoogleSimulator {
  /** Base URL (both `LINEAGE_SVC_WAREHOUSE_BIGQUERY_API_URL` and `_LINEAGE_API_URL`), no trailing slash. */
  url: string;
  scenario: GoogleScenario;
  close(): Promise<void>;
  /** Installs a fault answering the next `times` requests of `api` with `status`. */
  injectFault(fault: GoogleFault): void;
  clearFaults(): void;
  /** Lineage events accepted, in order (copies). */
  lineageEvents(): ReceivedLineageEvent[];
  /** Dataplex resources (entry groups, entry types, aspect types) by `{collection}/{id}` (copies). */
  dataplexResources(): Record<string, Record<string, unknown>>;
  /** Dataplex entries by `{entryGroup}/{entryId}` (copies). */
  dataplexEntries(): Record<string, Record<string, unknown>>;
  requestLog(): GoogleRequestLogEntry[];
  requestCounts(): Record<string, number>;
  resetRequestLog(): void;
}

/** Options of `startGoogleSimulator`. */
export interface GoogleSimulatorOptions {
  scenario: GoogleScenario | GoogleScenarioInput;
  host?: string;
  port?: number;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly googleStatus: string,
    message: string,
    /** BigQuery's `errors[].reason`; undefined for the Data Lineage envelope. */
    readonly reason?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ALREADY_EXISTS',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};
const BIGQUERY_REASONS: Record<number, string> = {
  400: 'invalid',
  401: 'authError',
  403: 'accessDenied',
  404: 'notFound',
  429: 'rateLimitExceeded',
  500: 'backendError',
  503: 'backendError',
};

/** Google's FQN of an OpenLineage dataset identity (`docs/catalog-apis.md` B2, B4), or null. */
export function googleFqn(namespace: string, name: string): string | null {
  const quote = (segment: string) => (/[.:\s`]/.test(segment) ? `\`${segment.replaceAll('`', '``')}\`` : segment);
  if (namespace === 'bigquery') return `bigquery:${name}`;
  const kafka = /^kafka:\/\/(.+)$/.exec(namespace);
  if (kafka) return `kafka:${kafka[1]}.${quote(name)}`;
  return null;
}

const hashOf = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);
const key = (project: string, dataset: string, table: string) => `${project}\u0000${dataset}\u0000${table}`;

function fieldsOf(columns: readonly SimulatedColumn[]): Array<Record<string, unknown>> {
  return columns.map((c) => ({
    name: c.name,
    type: c.type,
    mode: c.mode ?? 'NULLABLE',
    ...(c.description === undefined ? {} : { description: c.description }),
    ...(c.fields ? { fields: fieldsOf(c.fields) } : {}),
  }));
}

type Route = BearerApiHarness['route'];

/** The Dataplex Catalog's state: resources (entry groups, entry types, aspect types), entries and operations. */
interface DataplexState {
  scenario: GoogleScenario;
  resources: Map<string, Record<string, unknown>>;
  entries: Map<string, Record<string, unknown>>;
  operations: Map<string, Record<string, unknown>>;
}

/** The lineage API's state: the events received, and by request id (for idempotent retries). */
interface LineageState {
  received: ReceivedLineageEvent[];
  byRequestId: Map<string, ReceivedLineageEvent>;
}

const now = () => new Date().toISOString();

/** The BigQuery error reason of a status, for the BigQuery APIs only. */
function bigQueryReason(api: string, status: number): string | undefined {
  return api.startsWith('warehouse.bigquery') ? (BIGQUERY_REASONS[status] ?? 'backendError') : undefined;
}

/** The token and fault checks in front of every route, answering with Google's errors. */
function createGoogleHarness(app: FastifyInstance, scenario: GoogleScenario): BearerApiHarness {
  return createBearerApiHarness(app, {
    token: scenario.token,
    faults: scenario.faults,
    faultError: (fault, api) =>
      new ApiError(
        fault.status,
        STATUS_NAMES[fault.status] ?? 'UNKNOWN',
        fault.status === 503 ? 'The service is currently unavailable.' : `Simulated HTTP ${fault.status}`,
        bigQueryReason(api, fault.status),
        fault.retry_after === undefined ? {} : { 'retry-after': String(fault.retry_after) },
      ),
    unauthorizedError: (api) =>
      new ApiError(
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
        bigQueryReason(api, 401),
      ),
  });
}

/** Google's error bodies: Google RPC errors, BigQuery's own shape when the error has a reason; 404 for unknown URLs. */
function setGoogleErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, _request, reply) => {
    const apiError =
      error instanceof ApiError
        ? error
        : new ApiError(
            (error as { statusCode?: number }).statusCode ?? 500,
            STATUS_NAMES[(error as { statusCode?: number }).statusCode ?? 500] ?? 'INTERNAL',
            error instanceof Error ? error.message : 'error',
          );
    const body =
      apiError.reason === undefined
        ? {
            code: apiError.status,
            message: apiError.message,
            status: apiError.googleStatus,
            details: [
              {
                '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
                reason: apiError.googleStatus,
                domain: 'datalineage.googleapis.com',
              },
            ],
          }
        : {
            code: apiError.status,
            message: apiError.message,
            errors: [{ message: apiError.message, domain: 'global', reason: apiError.reason }],
            status: apiError.googleStatus,
          };
    void reply.code(apiError.status).headers(apiError.headers).send({ error: body });
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({
      error: {
        code: 404,
        message: `The requested URL ${request.url.split('?')[0]} was not found on this server.`,
        status: 'NOT_FOUND',
      },
    });
  });
}

/** BigQuery `tables.get` over the scenario's tables; `baseUrl` gives the simulator's URL for `selfLink`. */
function bigQueryRoutes(route: Route, tables: ReadonlyMap<string, GoogleScenarioTable>, baseUrl: () => string): void {
  route(
    'GET',
    '/bigquery/v2/projects/:project/datasets/:dataset/tables/:table',
    'warehouse.bigquery.tables.get',
    (request) => {
      const { project, dataset, table } = request.params as { project: string; dataset: string; table: string };
      const t = tables.get(key(project, dataset, table));
      if (!t) throw new ApiError(404, 'NOT_FOUND', `Not found: Table ${project}:${dataset}.${table}`, 'notFound');
      if (t.access === 'forbidden') {
        throw new ApiError(
          403,
          'PERMISSION_DENIED',
          `Access Denied: Table ${project}:${dataset}.${table}: ` +
            `Permission bigquery.tables.get denied on table ${project}:${dataset}.${table} (or it may not exist).`,
          'accessDenied',
        );
      }
      if (t.access === 'unauthorized')
        throw new ApiError(
          401,
          'UNAUTHENTICATED',
          'Request is missing required authentication credential.',
          'authError',
        );
      const view = t.type === 'VIEW';
      return {
        kind: 'bigquery#table',
        etag: createHash('md5').update(JSON.stringify(t)).digest('base64'),
        id: `${t.project}:${t.dataset}.${t.table}`,
        selfLink: `${baseUrl()}/bigquery/v2/projects/${t.project}/datasets/${t.dataset}/tables/${t.table}`,
        tableReference: { projectId: t.project, datasetId: t.dataset, tableId: t.table },
        ...(t.description === null ? {} : { description: t.description }),
        ...(Object.keys(t.labels).length === 0 ? {} : { labels: t.labels }),
        schema: { fields: fieldsOf(t.columns) },
        ...(view ? { view: { query: t.view_query ?? '', useLegacySql: false } } : {}),
        numBytes: String(view ? 0 : t.num_bytes),
        numLongTermBytes: '0',
        numRows: String(view ? 0 : t.num_rows),
        creationTime: String(t.creation_time),
        lastModifiedTime: String(t.last_modified_time),
        type: t.type,
        location: t.location,
      };
    },
  );
}

/** The Data Lineage API's `processOpenLineageRunEvent`, recording each event in `state`. */
function lineageRoutes(route: Route, scenario: GoogleScenario, state: LineageState): void {
  const { received, byRequestId } = state;
  route(
    'POST',
    '/v1/projects/:project/locations/:location(^[^:/]+)::processOpenLineageRunEvent',
    'warehouse.lineage.processOpenLineageRunEvent',
    (request) => {
      const { project, location } = request.params as { project: string; location: string };
      if (project !== scenario.project_id && project !== String(scenario.project_number)) {
        throw new ApiError(
          403,
          'PERMISSION_DENIED',
          "Permission 'datalineage.events.create' denied on resource " +
            `'//datalineage.googleapis.com/projects/${project}/locations/${location}' (or it may not exist).`,
        );
      }
      if (!scenario.locations.includes(location))
        throw new ApiError(400, 'INVALID_ARGUMENT', `Location ${location} is not supported.`);
      const requestId = (request.query as { requestId?: string }).requestId ?? null;
      if (requestId !== null && requestId.length > 36)
        throw new ApiError(400, 'INVALID_ARGUMENT', 'request_id must be at most 36 characters.');
      const previous = requestId === null ? undefined : byRequestId.get(requestId);
      if (previous) return previous.response;
      const event = request.body as Record<string, unknown> | null;
      const job = event?.job as { namespace?: unknown; name?: unknown } | undefined;
      const run = event?.run as { runId?: unknown } | undefined;
      const problems = [
        typeof event?.eventTime !== 'string' || Number.isNaN(Date.parse(event.eventTime)) ? 'eventTime' : null,
        typeof event?.producer !== 'string' ? 'producer' : null,
        typeof job?.namespace !== 'string' || job.namespace === '' ? 'job.namespace' : null,
        typeof job?.name !== 'string' || job.name === '' ? 'job.name' : null,
        typeof run?.runId !== 'string' || run.runId === '' ? 'run.runId' : null,
      ].filter((problem): problem is string => problem !== null);
      if (problems.length > 0)
        throw new ApiError(
          400,
          'INVALID_ARGUMENT',
          `Invalid OpenLineage RunEvent: missing or invalid ${problems.join(', ')}.`,
        );
      const datasets = (value: unknown) =>
        (Array.isArray(value) ? value : []) as Array<{ namespace?: unknown; name?: unknown }>;
      const fqns = (list: Array<{ namespace?: unknown; name?: unknown }>) =>
        list.map((d) =>
          typeof d.namespace === 'string' && typeof d.name === 'string' ? googleFqn(d.namespace, d.name) : null,
        );
      const sources = fqns(datasets(event!.inputs));
      const targets = fqns(datasets(event!.outputs));
      const parent = `projects/${scenario.project_number}/locations/${location}`;
      const process = `${parent}/processes/${hashOf(`${String(job!.namespace)}\n${String(job!.name)}`)}`;
      const runName = `${process}/runs/${hashOf(String(run!.runId))}`;
      const links = sources.length + targets.length > 0 ? [`${runName}/lineageEvents/${randomUUID()}`] : [];
      const record: ReceivedLineageEvent = {
        project,
        location,
        requestId,
        event: event!,
        sources,
        targets,
        response: { process, run: runName, lineageEvents: links },
      };
      received.push(record);
      if (requestId !== null) byRequestId.set(requestId, record);
      return record.response;
    },
  );
}

/** The `projects/{project}/locations/{location}` parent of a Dataplex request. @throws ApiError 403 for another project */
function dataplexParent(scenario: GoogleScenario, request: FastifyRequest): string {
  const { project, location } = request.params as { project: string; location: string };
  if (project !== scenario.project_id && project !== String(scenario.project_number)) {
    throw new ApiError(403, 'PERMISSION_DENIED', `Permission denied on resource project ${project}.`);
  }
  return `projects/${project}/locations/${location}`;
}

/** Dataplex `get` and `create` of entry groups, entry types and aspect types (creation answers a long-running operation). */
function dataplexCollectionRoutes(route: Route, state: DataplexState): void {
  const { resources, operations } = state;
  const parentOf = (request: FastifyRequest) => dataplexParent(state.scenario, request);
  for (const collection of ['entryGroups', 'entryTypes', 'aspectTypes'] as const) {
    const idParameter = `${collection.slice(0, -1)}Id`;
    route(
      'GET',
      `/v1/projects/:project/locations/:location/${collection}/:id`,
      `warehouse.dataplex.${collection}.get`,
      (request) => {
        parentOf(request);
        const { id } = request.params as { id: string };
        const resource = resources.get(`${collection}/${id}`);
        if (!resource) throw new ApiError(404, 'NOT_FOUND', `${collection.slice(0, -1)} ${id} not found.`);
        return resource;
      },
    );
    route(
      'POST',
      `/v1/projects/:project/locations/:location/${collection}`,
      `warehouse.dataplex.${collection}.create`,
      (request) => {
        const parent = parentOf(request);
        const id = (request.query as Record<string, string | undefined>)[idParameter];
        if (!id || !/^[a-z][a-z0-9-]{0,62}$/.test(id))
          throw new ApiError(400, 'INVALID_ARGUMENT', `${idParameter} must match [a-z][a-z0-9-]{0,62}.`);
        if (resources.has(`${collection}/${id}`))
          throw new ApiError(409, 'ALREADY_EXISTS', `${collection.slice(0, -1)} ${id} already exists.`);
        if (collection === 'entryTypes') {
          for (const required of (request.body as { requiredAspects?: Array<{ type?: string }> })?.requiredAspects ??
            []) {
            if (!resources.has(`aspectTypes/${String(required.type).split('/').pop()}`))
              throw new ApiError(400, 'INVALID_ARGUMENT', `Required aspect type ${required.type} does not exist.`);
          }
        }
        const name = `${parent}/${collection}/${id}`;
        resources.set(`${collection}/${id}`, {
          ...(request.body as object),
          name,
          uid: randomUUID(),
          createTime: now(),
          updateTime: now(),
          etag: hashOf(name),
        });
        const operation = `${parent}/operations/operation-${randomUUID()}`;
        operations.set(operation.split('/').pop()!, {
          name: operation,
          done: true,
          response: {
            '@type': `type.googleapis.com/google.cloud.dataplex.v1.${collection.slice(0, 1).toUpperCase()}${collection.slice(1, -1)}`,
            ...resources.get(`${collection}/${id}`),
          },
        });
        return {
          name: operation,
          metadata: {
            '@type': 'type.googleapis.com/google.cloud.dataplex.v1.OperationMetadata',
            createTime: now(),
            target: name,
            verb: 'create',
          },
          done: false,
        };
      },
    );
  }
}

/** Dataplex `operations.get`. */
function dataplexOperationRoutes(route: Route, state: DataplexState): void {
  const { operations } = state;
  const parentOf = (request: FastifyRequest) => dataplexParent(state.scenario, request);
  route(
    'GET',
    '/v1/projects/:project/locations/:location/operations/:id',
    'warehouse.dataplex.operations.get',
    (request) => {
      parentOf(request);
      const operation = operations.get((request.params as { id: string }).id);
      if (!operation) throw new ApiError(404, 'NOT_FOUND', 'Operation not found.');
      return operation;
    },
  );
}

/** Dataplex `entries.create` and `entries.patch` (aspects only). */
function dataplexEntryRoutes(route: Route, state: DataplexState): void {
  const { resources, entries } = state;
  const parentOf = (request: FastifyRequest) => dataplexParent(state.scenario, request);
  route(
    'POST',
    '/v1/projects/:project/locations/:location/entryGroups/:group/entries',
    'warehouse.dataplex.entries.create',
    (request) => {
      const parent = parentOf(request);
      const { group } = request.params as { group: string };
      const entryId = (request.query as { entryId?: string }).entryId;
      if (!resources.has(`entryGroups/${group}`))
        throw new ApiError(404, 'NOT_FOUND', `Entry group ${group} not found.`);
      if (!entryId) throw new ApiError(400, 'INVALID_ARGUMENT', 'entryId is required.');
      const body = (request.body ?? {}) as {
        entryType?: string;
        fullyQualifiedName?: string;
        aspects?: Record<string, unknown>;
      };
      if (!resources.has(`entryTypes/${String(body.entryType).split('/').pop()}`))
        throw new ApiError(400, 'INVALID_ARGUMENT', `Entry type ${body.entryType} does not exist.`);
      for (const key of Object.keys(body.aspects ?? {})) {
        if (!resources.has(`aspectTypes/${key.split('.').pop()}`))
          throw new ApiError(400, 'INVALID_ARGUMENT', `Aspect type of key ${key} does not exist.`);
      }
      if (entries.has(`${group}/${entryId}`))
        throw new ApiError(409, 'ALREADY_EXISTS', `Entry ${entryId} already exists.`);
      const entry = {
        ...body,
        name: `${parent}/entryGroups/${group}/entries/${entryId}`,
        createTime: now(),
        updateTime: now(),
      };
      entries.set(`${group}/${entryId}`, entry);
      return entry;
    },
  );
  route(
    'PATCH',
    '/v1/projects/:project/locations/:location/entryGroups/:group/entries/:entry',
    'warehouse.dataplex.entries.patch',
    (request) => {
      parentOf(request);
      const { group, entry: entryId } = request.params as { group: string; entry: string };
      const query = request.query as { updateMask?: string; aspectKeys?: string | string[] };
      const current = entries.get(`${group}/${entryId}`);
      if (!current) throw new ApiError(404, 'NOT_FOUND', `Entry ${entryId} not found.`);
      if (query.updateMask !== 'aspects')
        throw new ApiError(400, 'INVALID_ARGUMENT', 'Only updateMask=aspects is simulated.');
      const keys =
        query.aspectKeys === undefined ? [] : Array.isArray(query.aspectKeys) ? query.aspectKeys : [query.aspectKeys];
      const aspects = { ...(current.aspects as Record<string, unknown>) };
      const sent = ((request.body ?? {}) as { aspects?: Record<string, unknown> }).aspects ?? {};
      for (const key of keys.length > 0 ? keys : Object.keys(sent)) {
        if (sent[key] === undefined) delete aspects[key];
        else aspects[key] = sent[key];
      }
      const updated = { ...current, aspects, updateTime: now() };
      entries.set(`${group}/${entryId}`, updated);
      return updated;
    },
  );
}

/** Starts the simulator on `host:port` (default 127.0.0.1, an ephemeral port). @throws ValidationError for a bad scenario */
export async function startGoogleSimulator(options: GoogleSimulatorOptions): Promise<GoogleSimulator> {
  const scenario = parseGoogleScenario(options.scenario);
  const tables = new Map<string, GoogleScenarioTable>(
    scenario.tables.map((t) => [key(t.project, t.dataset, t.table), t]),
  );
  const lineage: LineageState = { received: [], byRequestId: new Map() };
  const { received } = lineage;
  let url = '';

  const app: FastifyInstance = Fastify({
    logger: false,
    forceCloseConnections: true,
    bodyLimit: 5 * 1024 * 1024,
    routerOptions: { maxParamLength: 2048 },
  });
  const harness = createGoogleHarness(app, scenario);
  const route = harness.route;
  setGoogleErrorHandlers(app);

  bigQueryRoutes(route, tables, () => url);
  lineageRoutes(route, scenario, lineage);
  lineageLinkRoutes(route, scenario, (status, googleStatus, message) => new ApiError(status, googleStatus, message));
  // Dataplex Catalog.
  const dataplex: DataplexState = { scenario, resources: new Map(), entries: new Map(), operations: new Map() };
  const { resources, entries } = dataplex;
  dataplexCollectionRoutes(route, dataplex);
  dataplexOperationRoutes(route, dataplex);
  dataplexEntryRoutes(route, dataplex);

  await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  url = `http://${options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1'}:${port}`;
  return {
    url,
    scenario,
    close: () => app.close(),
    injectFault: harness.injectFault,
    clearFaults: harness.clearFaults,
    lineageEvents: () => received.map((entry) => structuredClone(entry)),
    dataplexResources: () =>
      Object.fromEntries([...resources.entries()].map(([id, resource]) => [id, structuredClone(resource)])),
    dataplexEntries: () =>
      Object.fromEntries([...entries.entries()].map(([id, entry]) => [id, structuredClone(entry)])),
    requestLog: harness.requestLog,
    requestCounts: harness.requestCounts,
    resetRequestLog: harness.resetRequestLog,
  };
}
