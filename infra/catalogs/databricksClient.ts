/**
 * The lakehouse catalog's HTTP client: Databricks Unity Catalog, table lineage and SQL Statement
 * Execution, implementing `LakehouseCatalogPort` (`src/catalogs/lakehouse.ts`). Reference:
 * `docs/catalog-apis.md` A1 (`GET /api/2.1/unity-catalog/tables/{full_name}`), A4
 * (`GET /api/2.0/lineage-tracking/table-lineage?table_name=&include_entity_lineage=true`), A6
 * (`POST /api/2.0/sql/statements`, polling `GET /api/2.0/sql/statements/{id}` while PENDING or
 * RUNNING, `POST .../cancel` when the wait runs out), A7 (`GET /api/2.0/sql/warehouses`, paged).
 *
 * Rules (`docs/specification.md`, "Errors", "Limits"):
 * - `Authorization: Bearer <token>`; the token never appears in errors or logs;
 * - 30 s timeout per request (`timeoutMs`); a timeout is not retried;
 * - 429, 500, 502, 503, 504 and network errors are retried at most 3 times (4 attempts) with
 *   1, 2, 4 s delays (`retryBaseDelayMs * 2^retry`), `Retry-After` honored (the larger wins,
 *   capped at `maxRetryAfterMs`): the loop is `createJsonRequester` (`infra/catalogs/jsonRequester.ts`),
 *   shared with the other catalog clients;
 * - every failure is a `CatalogApiError` with the HTTP status and the Databricks `error_code` of
 *   the body `{error_code, message, details}`; callers turn 404/401/403 into skipped tables.
 *
 * A statement retried after a 5xx may in rare cases run twice; the statements the provider sends
 * are idempotent except the bridge `INSERT`, which follows a `DELETE` of the table's earlier rows.
 */
import { CatalogApiError } from '../../src/catalogs/provider.js';
import type {
  LakehouseCatalogPort,
  LakehouseTableInfo,
  LakehouseTableLineage,
  LakehouseWarehouse,
  StatementOutcome,
} from '../../src/catalogs/lakehouse.js';
import type { Logger } from '../../src/logger.js';
import { joinUrl } from '../confluent/httpClient.js';
import { createJsonRequester, realSleep } from './jsonRequester.js';
import type { ServiceSettings } from '../confluent/failureAdvice.js';

/** Databricks as error messages name it, with the variables that set its URL and token. */
export const DATABRICKS_SERVICE: ServiceSettings = {
  name: 'Databricks',
  urlVariable: 'LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL',
  credentialVariables: 'LINEAGE_SVC_LAKEHOUSE_TOKEN',
  credentialNoun: 'token',
  holder: "the token's user",
  permission: 'a Unity Catalog privilege',
  roles: 'for example USE CATALOG, USE SCHEMA, SELECT and MODIFY on the tables, and CAN USE on the SQL warehouse',
};

/** Options of `createDatabricksClient`. */
export interface DatabricksClientOptions {
  /** Workspace URL, e.g. `https://dbc-1234.cloud.databricks.com` (or a simulator's `http://127.0.0.1:PORT`). */
  workspaceUrl: string;
  token: string;
  /** Per-request timeout in ms; default 30,000. */
  timeoutMs?: number;
  /** First retry delay in ms (1x, 2x, 4x); default 1,000. */
  retryBaseDelayMs?: number;
  /** Upper bound on one honored `Retry-After`, in ms; default 60,000. */
  maxRetryAfterMs?: number;
  /** `wait_timeout` sent with a statement, in seconds (0 or 5 to 50); default 30. */
  statementWaitSeconds?: number;
  /** Delay between polls of a PENDING or RUNNING statement, in ms; default 2,000. */
  pollIntervalMs?: number;
  /** Longest time to wait for one statement, in ms, before cancelling it; default 300,000. */
  maxStatementMs?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  logger?: Logger;
}

/** The client, with its request accounting. */
export interface DatabricksClient extends LakehouseCatalogPort {
  /** Requests (attempts) per API name. */
  counts(): Record<string, number>;
}

const TERMINAL_STATES = new Set(['SUCCEEDED', 'FAILED', 'CANCELED', 'CLOSED']);

/** Reads `{error_code, message}` from a Databricks error body (JSON, or plain `CODE: message`). */
export function parseErrorBody(text: string): { errorCode: string | undefined; message: string } {
  try {
    const body = JSON.parse(text) as { error_code?: unknown; message?: unknown };
    if (body && typeof body === 'object') {
      return {
        errorCode: typeof body.error_code === 'string' ? body.error_code : undefined,
        message: typeof body.message === 'string' ? body.message : text.slice(0, 200),
      };
    }
  } catch {
    // plain text
  }
  const match = /^([A-Z_]{3,}):\s*(.*)$/s.exec(text.trim());
  return match
    ? { errorCode: match[1], message: (match[2] ?? '').slice(0, 200) }
    : { errorCode: undefined, message: text.replace(/\s+/g, ' ').slice(0, 200) };
}

/** Creates the client. */
export function createDatabricksClient(options: DatabricksClientOptions): DatabricksClient {
  const base = options.workspaceUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 30_000;
  const baseDelay = options.retryBaseDelayMs ?? 1000;
  const maxRetryAfter = options.maxRetryAfterMs ?? 60_000;
  const waitSeconds = options.statementWaitSeconds ?? 30;
  const pollMs = options.pollIntervalMs ?? 2000;
  const maxStatementMs = options.maxStatementMs ?? 300_000;
  const sleep = options.sleep ?? realSleep;
  const requester = createJsonRequester({
    token: () => options.token,
    parseErrorBody,
    service: DATABRICKS_SERVICE,
    retryLogMessage: 'Lakehouse:Retrying',
    logger: options.logger,
    timeoutMs,
    retryBaseDelayMs: baseDelay,
    maxRetryAfterMs: maxRetryAfter,
    fetch: options.fetch,
    sleep: options.sleep,
  });
  /** Sends one request under the shared retry rules; resolves with the parsed JSON body. */
  const request = (api: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> =>
    requester.request(api, method, joinUrl(base, path), body);

  const asObject = requester.asObject;

  const statementOutcome = (api: string, body: unknown): StatementOutcome & { pending: boolean } => {
    const object = asObject(api, body);
    const id = object.statement_id;
    const status = object.status as { state?: unknown; error?: StatementOutcome['error'] } | undefined;
    if (typeof id !== 'string' || typeof status?.state !== 'string')
      throw new CatalogApiError(api, 'invalid_response', 200, `${api}: answer has no statement_id or status.state`);
    return {
      statement_id: id,
      state: status.state,
      error: status.error ?? null,
      pending: !TERMINAL_STATES.has(status.state),
    };
  };

  return {
    workspaceUrl: base,
    async getTable(fullName) {
      return asObject(
        'lakehouse.tables.get',
        await request('lakehouse.tables.get', 'GET', `/api/2.1/unity-catalog/tables/${encodeURIComponent(fullName)}`),
      ) as LakehouseTableInfo;
    },
    async getTableLineage(fullName) {
      const api = 'lakehouse.lineage.table';
      const body = asObject(
        api,
        await request(
          api,
          'GET',
          `/api/2.0/lineage-tracking/table-lineage?table_name=${encodeURIComponent(fullName)}&include_entity_lineage=true`,
        ),
      );
      const list = (value: unknown) => (Array.isArray(value) ? value : []);
      return { upstreams: list(body.upstreams), downstreams: list(body.downstreams) } as LakehouseTableLineage;
    },
    async listWarehouses() {
      const api = 'lakehouse.warehouses.list';
      const warehouses: LakehouseWarehouse[] = [];
      let token: string | undefined;
      for (let page = 0; page < 100; page += 1) {
        const body = asObject(
          api,
          await request(
            api,
            'GET',
            `/api/2.0/sql/warehouses${token ? `?page_token=${encodeURIComponent(token)}` : ''}`,
          ),
        );
        for (const item of Array.isArray(body.warehouses) ? body.warehouses : []) {
          if (item && typeof item === 'object' && typeof (item as { id?: unknown }).id === 'string')
            warehouses.push(item as LakehouseWarehouse);
        }
        token =
          typeof body.next_page_token === 'string' && body.next_page_token !== '' && body.next_page_token !== token
            ? body.next_page_token
            : undefined;
        if (!token) break;
      }
      return warehouses;
    },
    async executeStatement(warehouseId, statement) {
      const api = 'lakehouse.sql.statements';
      const started = Date.now();
      let outcome = statementOutcome(
        api,
        await request(api, 'POST', '/api/2.0/sql/statements', {
          statement,
          warehouse_id: warehouseId,
          wait_timeout: `${waitSeconds}s`,
          on_wait_timeout: 'CONTINUE',
          disposition: 'INLINE',
          format: 'JSON_ARRAY',
        }),
      );
      while (outcome.pending) {
        if (Date.now() - started > maxStatementMs) {
          await request(
            'lakehouse.sql.statements.cancel',
            'POST',
            `/api/2.0/sql/statements/${encodeURIComponent(outcome.statement_id)}/cancel`,
          ).catch(() => undefined);
          return {
            statement_id: outcome.statement_id,
            state: 'CANCELED',
            error: {
              error_code: 'DEADLINE_EXCEEDED',
              message: `still ${outcome.state} after ${maxStatementMs / 1000} s; cancelled`,
            },
          };
        }
        await sleep(pollMs);
        outcome = statementOutcome(
          `${api}.get`,
          await request(`${api}.get`, 'GET', `/api/2.0/sql/statements/${encodeURIComponent(outcome.statement_id)}`),
        );
      }
      const { pending: _pending, ...result } = outcome;
      return result;
    },
    counts: requester.counts,
  };
}
