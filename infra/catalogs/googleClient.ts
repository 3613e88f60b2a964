/**
 * The warehouse catalog's HTTP client: BigQuery `tables.get`, the Data Lineage API's
 * `processOpenLineageRunEvent`, `searchLinks`, `batchSearchLinkProcesses` and `processes.get`, and
 * Dataplex Catalog, implementing `WarehouseCatalogPort` (`src/catalogs/warehouse/port.ts`).
 * Reference: `docs/catalog-apis.md` B1
 * (`GET /bigquery/v2/projects/{p}/datasets/{d}/tables/{t}`), B2
 * (`POST /v1/projects/{p}/locations/{l}:processOpenLineageRunEvent?requestId=`), B3
 * (`POST /v1/projects/{p}/locations/{l}:searchLinks` and `:batchSearchLinkProcesses` with
 * `pageSize` 100 and `pageToken`, `GET /v1/projects/{p}/locations/{l}/processes/{id}`), B4 (Dataplex:
 * `GET`/`POST /v1/projects/{p}/locations/{l}/{entryGroups|entryTypes|aspectTypes}` with the
 * long-running operation polled at `GET /v1/{operation}` every 2 s, at most 30 times;
 * `POST .../entryGroups/{g}/entries?entryId=`, `PATCH .../entries/{id}?updateMask=aspects&aspectKeys=`).
 *
 * Rules (`docs/specification.md`, "Errors", "Limits"):
 * - `Authorization: Bearer <token>`: `LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN` when set, else an access
 *   token from application-default credentials through `google-auth-library` (loaded on first use;
 *   scope `cloud-platform`; asked again for every request, the library caches and refreshes it).
 *   No token and no ADC -> `WarehouseCredentialsError` with a one-line message naming what to set.
 *   The token never appears in errors or logs;
 * - base URLs from `LINEAGE_SVC_WAREHOUSE_BIGQUERY_API_URL` / `_LINEAGE_API_URL` (`http://` allowed,
 *   a path prefix is kept), so a simulator can stand in;
 * - 30 s timeout per request (`timeoutMs`); a timeout is not retried;
 * - 429, 500, 502, 503, 504, network errors, and BigQuery's 403 with reason `rateLimitExceeded`
 *   (Google's guidance) are retried at most 3 times (4 attempts) with 1, 2, 4 s delays,
 *   `Retry-After` honored; the backoff helpers are those of `infra/confluent/httpClient.ts`;
 * - every failure is a `CatalogApiError` with the HTTP status and Google's error `status`
 *   (`NOT_FOUND`, `PERMISSION_DENIED`, ...) or BigQuery's `reason` (`notFound`, `accessDenied`);
 *   callers turn 404/401/403 into skipped tables.
 */
import { CatalogApiError } from '../../src/catalogs/provider.js';
import {
  WarehouseCredentialsError,
  type BatchSearchLinkProcessesPage,
  type BigQueryTable,
  type DataplexCollection,
  type LineageProcess,
  type ProcessOpenLineageResponse,
  type SearchLinksPage,
  type WarehouseCatalogPort,
} from '../../src/catalogs/warehouse/index.js';
import type { Logger } from '../../src/logger.js';
import type { RunEvent } from '../../src/openlineage/model.js';
import { joinUrl } from '../confluent/httpClient.js';
import { createJsonRequester, realSleep } from './jsonRequester.js';
import type { ServiceSettings } from '../confluent/failureAdvice.js';

/** The Google credentials, as error messages name them. */
const GOOGLE_CREDENTIALS = {
  credentialVariables: 'LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN',
  credentialFallback: 'application-default credentials (GOOGLE_APPLICATION_CREDENTIALS or gcloud auth)',
  credentialNoun: 'access token',
  holder: 'the account',
  permission: 'an IAM permission',
};

/**
 * The Google service of an API name (`warehouse.bigquery.*`, `warehouse.lineage.*`,
 * `warehouse.dataplex.*`), as error messages name it, with the variable of its base URL.
 */
export function googleService(api: string): ServiceSettings {
  if (api.startsWith('warehouse.lineage.'))
    return {
      name: 'Google Data Lineage API',
      urlVariable: 'LINEAGE_SVC_WAREHOUSE_LINEAGE_API_URL',
      roles: 'for example roles/datalineage.producer on the project',
      ...GOOGLE_CREDENTIALS,
    };
  if (api.startsWith('warehouse.dataplex.'))
    return {
      name: 'Dataplex',
      urlVariable: 'LINEAGE_SVC_WAREHOUSE_DATAPLEX_API_URL',
      roles: 'for example roles/dataplex.catalogEditor on the project',
      ...GOOGLE_CREDENTIALS,
    };
  return {
    name: 'BigQuery',
    urlVariable: 'LINEAGE_SVC_WAREHOUSE_BIGQUERY_API_URL',
    roles: 'for example roles/bigquery.dataViewer, or roles/bigquery.dataEditor to push',
    ...GOOGLE_CREDENTIALS,
  };
}

/** The OAuth scope asked of application-default credentials. */
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** Where a token comes from: a fixed string or a function (ADC). */
export type AccessTokenProvider = () => Promise<string>;

/** Options of `createGoogleClient`. */
export interface GoogleClientOptions {
  projectId: string;
  location: string;
  /** BigQuery base URL; default `https://bigquery.googleapis.com`. */
  bigQueryApiUrl?: string;
  /** Data Lineage base URL; default `https://datalineage.googleapis.com`. */
  lineageApiUrl?: string;
  /** Dataplex base URL; default `https://dataplex.googleapis.com`. */
  dataplexApiUrl?: string;
  /** Delay between polls of a Dataplex long-running operation, in ms; default 2,000. */
  operationPollMs?: number;
  /** Polls of one operation before giving up; default 30. */
  maxOperationPolls?: number;
  /** A bearer token (`LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN`); when absent, `tokenProvider`, else ADC. */
  accessToken?: string | undefined;
  /** Token source used when `accessToken` is absent; default application-default credentials. */
  tokenProvider?: AccessTokenProvider;
  /** Per-request timeout in ms; default 30,000. */
  timeoutMs?: number;
  /** First retry delay in ms (1x, 2x, 4x); default 1,000. */
  retryBaseDelayMs?: number;
  /** Upper bound on one honored `Retry-After`, in ms; default 60,000. */
  maxRetryAfterMs?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  logger?: Logger | undefined;
}

/** The client, with its request accounting. */
export interface GoogleClient extends WarehouseCatalogPort {
  /** Requests (attempts) per API name. */
  counts(): Record<string, number>;
}

/** BigQuery `reason`s that are retried although the status is 403. */
const RETRIED_REASONS = new Set(['rateLimitExceeded', 'backendError']);

/**
 * Reads a googleapis error body: `{error: {code, message, status, errors: [{reason}]}}` (AIP-193
 * and BigQuery's older variant). `errorCode` is `status` (e.g. `NOT_FOUND`), `reason` the first
 * `errors[].reason` (BigQuery, e.g. `notFound`).
 */
export function parseGoogleError(text: string): {
  errorCode: string | undefined;
  reason: string | undefined;
  message: string;
} {
  try {
    const body = JSON.parse(text) as {
      error?: { message?: unknown; status?: unknown; errors?: Array<{ reason?: unknown }> };
    };
    const error = body?.error;
    if (error && typeof error === 'object') {
      const reason =
        Array.isArray(error.errors) && typeof error.errors[0]?.reason === 'string' ? error.errors[0].reason : undefined;
      return {
        errorCode: typeof error.status === 'string' ? error.status : reason,
        reason,
        message: typeof error.message === 'string' ? error.message.slice(0, 200) : '',
      };
    }
  } catch {
    // not JSON
  }
  return { errorCode: undefined, reason: undefined, message: text.replace(/\s+/g, ' ').slice(0, 200) };
}

/** The one-line message when no credentials can be found. */
export const NO_CREDENTIALS_MESSAGE =
  'no Google credentials: set LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN or configure application-default credentials ' +
  '(GOOGLE_APPLICATION_CREDENTIALS or `gcloud auth application-default login`)';

/** A token provider over application-default credentials (`google-auth-library`, loaded on first use). */
export function applicationDefaultTokenProvider(): AccessTokenProvider {
  let auth: Promise<{ getAccessToken(): Promise<string | null | undefined> }> | undefined;
  return async () => {
    try {
      auth ??= import('google-auth-library').then(
        ({ GoogleAuth }) => new GoogleAuth({ scopes: [CLOUD_PLATFORM_SCOPE] }),
      );
      const token = await (await auth).getAccessToken();
      if (!token) throw new Error('no token');
      return token;
    } catch (error) {
      auth = undefined;
      const why = error instanceof Error ? error.message.split('\n')[0]!.slice(0, 160) : String(error);
      throw new WarehouseCredentialsError(`${NO_CREDENTIALS_MESSAGE} (${why})`);
    }
  };
}

/** Creates the client. */
export function createGoogleClient(options: GoogleClientOptions): GoogleClient {
  const bigQueryBase = (options.bigQueryApiUrl ?? 'https://bigquery.googleapis.com').replace(/\/+$/, '');
  const lineageBase = (options.lineageApiUrl ?? 'https://datalineage.googleapis.com').replace(/\/+$/, '');
  const dataplexBase = (options.dataplexApiUrl ?? 'https://dataplex.googleapis.com').replace(/\/+$/, '');
  const pollMs = options.operationPollMs ?? 2000;
  const maxPolls = options.maxOperationPolls ?? 30;
  const fixed = options.accessToken;
  const tokenOf: AccessTokenProvider =
    fixed !== undefined && fixed !== ''
      ? async () => fixed
      : (options.tokenProvider ?? applicationDefaultTokenProvider());
  const sleep = options.sleep ?? realSleep;
  const requester = createJsonRequester({
    token: tokenOf,
    parseErrorBody: parseGoogleError,
    service: googleService,
    alsoRetried: (status, body) => status === 403 && body.reason !== undefined && RETRIED_REASONS.has(body.reason),
    retryLogMessage: 'Warehouse:Retrying',
    logger: options.logger,
    timeoutMs: options.timeoutMs,
    retryBaseDelayMs: options.retryBaseDelayMs,
    maxRetryAfterMs: options.maxRetryAfterMs,
    fetch: options.fetch,
    sleep: options.sleep,
  });
  /** Sends one request under the shared retry rules; resolves with the parsed JSON body. */
  const request = (api: string, method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown): Promise<unknown> =>
    requester.request(api, method, url, body);

  const asObject = requester.asObject;
  const segment = encodeURIComponent;
  const parent = `/v1/projects/${segment(options.projectId)}/locations/${segment(options.location)}`;
  const idParameter: Record<DataplexCollection, string> = {
    entryGroups: 'entryGroupId',
    entryTypes: 'entryTypeId',
    aspectTypes: 'aspectTypeId',
  };
  const isConflict = (error: unknown) =>
    error instanceof CatalogApiError && error.failure === 'status' && error.status === 409;

  /** Waits for a Dataplex long-running operation (`{name, done, error}`). */
  const awaitOperation = async (api: string, operation: Record<string, unknown>): Promise<void> => {
    let current = operation;
    for (let poll = 0; current.done !== true; poll += 1) {
      if (typeof current.name !== 'string')
        throw new CatalogApiError(api, 'invalid_response', 200, `${api}: operation without a name`);
      if (poll >= maxPolls)
        throw new CatalogApiError(
          api,
          'timeout',
          undefined,
          `${api}: operation ${current.name} not done after ${maxPolls} polls`,
        );
      await sleep(pollMs);
      current = asObject(
        `${api}.operation`,
        await request(`${api}.operation`, 'GET', joinUrl(dataplexBase, `/v1/${current.name}`)),
      );
    }
    const error = current.error as { code?: unknown; message?: unknown; status?: unknown } | undefined;
    if (error && typeof error === 'object') {
      throw new CatalogApiError(
        api,
        'status',
        undefined,
        `${api}: operation failed: ${typeof error.message === 'string' ? error.message : JSON.stringify(error).slice(0, 200)}`,
        typeof error.status === 'string' ? error.status : undefined,
      );
    }
  };

  return {
    projectId: options.projectId,
    location: options.location,
    async authenticate() {
      await tokenOf();
    },
    async getTable(ref) {
      const api = 'warehouse.bigquery.tables.get';
      const path = `/bigquery/v2/projects/${segment(ref.project)}/datasets/${segment(ref.dataset)}/tables/${segment(ref.table)}`;
      return asObject(api, await request(api, 'GET', joinUrl(bigQueryBase, path))) as BigQueryTable;
    },
    async searchLinks(sourceFqn, pageToken) {
      const api = 'warehouse.lineage.searchLinks';
      const body = { source: { fullyQualifiedName: sourceFqn }, pageSize: 100, ...(pageToken ? { pageToken } : {}) };
      return asObject(
        api,
        await request(api, 'POST', joinUrl(lineageBase, `${parent}:searchLinks`), body),
      ) as SearchLinksPage;
    },
    async batchSearchLinkProcesses(links, pageToken) {
      const api = 'warehouse.lineage.batchSearchLinkProcesses';
      const body = { links: [...links], pageSize: 100, ...(pageToken ? { pageToken } : {}) };
      const url = joinUrl(lineageBase, `${parent}:batchSearchLinkProcesses`);
      return asObject(api, await request(api, 'POST', url, body)) as BatchSearchLinkProcessesPage;
    },
    async getProcess(name) {
      const api = 'warehouse.lineage.processes.get';
      if (!/^projects\/[^/]+\/locations\/[^/]+\/processes\/[^/]+$/.test(name))
        throw new CatalogApiError(
          api,
          'invalid_response',
          undefined,
          `${api}: not a process name: ${name.slice(0, 200)}`,
        );
      const path = `/v1/${name.split('/').map(segment).join('/')}`;
      return asObject(api, await request(api, 'GET', joinUrl(lineageBase, path))) as LineageProcess;
    },
    async processOpenLineageRunEvent(event: RunEvent, requestId: string) {
      const api = 'warehouse.lineage.processOpenLineageRunEvent';
      const path = `${parent}:processOpenLineageRunEvent?requestId=${segment(requestId)}`;
      return asObject(api, await request(api, 'POST', joinUrl(lineageBase, path), event)) as ProcessOpenLineageResponse;
    },
    async ensureDataplexResource(collection, id, body) {
      const api = `warehouse.dataplex.${collection}`;
      try {
        await request(`${api}.get`, 'GET', joinUrl(dataplexBase, `${parent}/${collection}/${segment(id)}`));
        return 'exists';
      } catch (error) {
        if (!(error instanceof CatalogApiError && error.failure === 'status' && error.status === 404)) throw error;
      }
      try {
        await awaitOperation(
          `${api}.create`,
          asObject(
            `${api}.create`,
            await request(
              `${api}.create`,
              'POST',
              joinUrl(dataplexBase, `${parent}/${collection}?${idParameter[collection]}=${segment(id)}`),
              body,
            ),
          ),
        );
        return 'created';
      } catch (error) {
        if (isConflict(error)) return 'exists';
        throw error;
      }
    },
    async createDataplexEntry(entryGroup, entryId, entry) {
      const api = 'warehouse.dataplex.entries.create';
      try {
        await request(
          api,
          'POST',
          joinUrl(dataplexBase, `${parent}/entryGroups/${segment(entryGroup)}/entries?entryId=${segment(entryId)}`),
          entry,
        );
        return 'created';
      } catch (error) {
        if (isConflict(error)) return 'exists';
        throw error;
      }
    },
    async updateDataplexEntryAspects(entryGroup, entryId, aspects) {
      const api = 'warehouse.dataplex.entries.patch';
      const keys = Object.keys(aspects)
        .map((key) => `aspectKeys=${segment(key)}`)
        .join('&');
      await request(
        api,
        'PATCH',
        joinUrl(
          dataplexBase,
          `${parent}/entryGroups/${segment(entryGroup)}/entries/${segment(entryId)}?updateMask=aspects&${keys}`,
        ),
        { aspects },
      );
    },
    counts: requester.counts,
  };
}
