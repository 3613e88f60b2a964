/**
 * The HTTP side every catalog client shares: JSON over HTTPS with a bearer token, the retries of
 * `docs/specification.md`, "Errors" (429/500/502/503/504, delays 1, 2, 4 s, `Retry-After` honored,
 * 4 attempts in all, plus any vendor-specific retryable answer), a per-request timeout (30 s by
 * default) and request counts per API. Vendors differ only in how their error bodies read, which
 * each client passes in.
 *
 * Failures are `CatalogApiError`s: `timeout`, `status` (a non-retried HTTP status), `invalid_response`
 * (not JSON, or not the object expected) and `retries_exhausted`. Network errors, timeouts, 401 and 403
 * also name the service, the URL and the variable to change (`options.service`,
 * `infra/confluent/failureAdvice.ts`): a 401 says the token is wrong or expired, a 403 that it lacks
 * a permission.
 */
import { CatalogApiError } from '../../src/catalogs/provider.js';
import type { Logger } from '../../src/logger.js';
import { MAX_ATTEMPTS, RETRIED_STATUSES, retryAfterMs, retryDelayMs } from '../confluent/httpClient.js';
import {
  credentialsRejected,
  networkCause,
  noAnswer,
  notPermitted,
  unreachable,
  type ServiceSettings,
} from '../confluent/failureAdvice.js';

/** What an error body says: a vendor code, an optional reason, and a short message. */
export interface ErrorBody {
  errorCode: string | undefined;
  reason?: string | undefined;
  message: string;
}

export interface JsonRequesterOptions {
  /** The bearer token, fetched before each attempt (so that refreshed tokens are used). */
  token: () => Promise<string> | string;
  /** Reads a vendor's error body. */
  parseErrorBody: (text: string) => ErrorBody;
  /** A retryable answer beyond the statuses of `docs/specification.md` (e.g. Google's 403 `rateLimitExceeded`). */
  alsoRetried?: (status: number, body: ErrorBody) => boolean;
  /**
   * Who answers and which variables set its URL and credentials, for error messages; a function when
   * one requester reaches several services (Google: BigQuery, Data Lineage, Dataplex), given the API name.
   */
  service: ServiceSettings | ((api: string) => ServiceSettings);
  /** Message of the debug log line written before each retry, e.g. `Lakehouse:Retrying`. */
  retryLogMessage: string;
  logger?: Pick<Logger, 'debug'> | undefined;
  /** Per-request timeout in milliseconds (default 30,000). */
  timeoutMs?: number | undefined;
  /** Base of the exponential backoff in milliseconds (default 1,000: 1, 2, 4 s). Tests shorten it. */
  retryBaseDelayMs?: number | undefined;
  /** Longest `Retry-After` honored, in milliseconds (default 60,000). */
  maxRetryAfterMs?: number | undefined;
  fetch?: typeof fetch | undefined;
  sleep?: ((ms: number) => Promise<void>) | undefined;
}

/** Sends requests under the rules above. */
export interface JsonRequester {
  /** One request; resolves with the parsed JSON body (`{}` for an empty body). */
  request(
    api: string,
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    url: string,
    body?: unknown,
  ): Promise<unknown>;
  /** The body as a JSON object. @throws CatalogApiError `invalid_response` otherwise. */
  asObject(api: string, value: unknown): Record<string, unknown>;
  /** Requests sent per API name (every attempt counts), sorted by name. */
  counts(): Record<string, number>;
}

/** Waits `ms` milliseconds (the default `sleep`; tests inject their own). */
export const realSleep = (ms: number): Promise<void> => new Promise<void>((resolve) => setTimeout(resolve, ms));

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

/** The URL without its query string, for messages. */
function withoutQuery(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/** What to change after a 401 or a 403 (`; {advice}`), else nothing. */
function statusAdvice(service: ServiceSettings, status: number, url: string): string {
  if (status === 401) return `; ${credentialsRejected(service, withoutQuery(url))}`;
  if (status === 403) return `; ${notPermitted(service, withoutQuery(url))}`;
  return '';
}

/** Creates a requester. */
export function createJsonRequester(options: JsonRequesterOptions): JsonRequester {
  const serviceOf = (api: string): ServiceSettings =>
    typeof options.service === 'function' ? options.service(api) : options.service;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const baseDelay = options.retryBaseDelayMs ?? 1000;
  const maxRetryAfter = options.maxRetryAfterMs ?? 60_000;
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? realSleep;
  const counts = new Map<string, number>();

  return {
    async request(api, method, url, body) {
      const shown = `${method} ${new URL(url).pathname}`;
      let lastProblem = '';
      let lastStatus: number | undefined;
      let lastWasNetwork = false;
      for (let tryNumber = 0; tryNumber < MAX_ATTEMPTS; tryNumber += 1) {
        const token = await options.token();
        counts.set(api, (counts.get(api) ?? 0) + 1);
        let response: Response;
        let text: string;
        try {
          response = await doFetch(url, {
            method,
            headers: {
              authorization: `Bearer ${token}`,
              accept: 'application/json',
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            },
            body: body === undefined ? undefined : JSON.stringify(body),
            signal: AbortSignal.timeout(timeoutMs),
          });
          text = await response.text();
        } catch (error) {
          if (isTimeout(error))
            throw new CatalogApiError(
              api,
              'timeout',
              undefined,
              `${api}: ${noAnswer(serviceOf(api), withoutQuery(url), timeoutMs / 1000)}`,
            );
          lastProblem = networkCause(error);
          lastWasNetwork = true;
          if (tryNumber + 1 < MAX_ATTEMPTS) await sleep(retryDelayMs(tryNumber, baseDelay, undefined, maxRetryAfter));
          continue;
        }
        if (response.ok) {
          try {
            return text === '' ? {} : JSON.parse(text);
          } catch {
            throw new CatalogApiError(
              api,
              'invalid_response',
              response.status,
              `${api}: answer is not JSON (${shown})`,
            );
          }
        }
        const parsed = options.parseErrorBody(text);
        lastStatus = response.status;
        lastWasNetwork = false;
        const code = parsed.errorCode ? ` ${parsed.errorCode}` : '';
        if (!RETRIED_STATUSES.has(response.status) && !options.alsoRetried?.(response.status, parsed)) {
          throw new CatalogApiError(
            api,
            'status',
            response.status,
            `${api}: HTTP ${response.status}${code} (${shown})${parsed.message ? `: ${parsed.message}` : ''}` +
              statusAdvice(serviceOf(api), response.status, url),
            parsed.errorCode,
          );
        }
        lastProblem = `HTTP ${response.status}${code}`;
        if (tryNumber + 1 < MAX_ATTEMPTS) {
          const delay = retryDelayMs(
            tryNumber,
            baseDelay,
            retryAfterMs(response.headers.get('retry-after')),
            maxRetryAfter,
          );
          options.logger?.debug({ api, status: response.status, delay_ms: delay }, options.retryLogMessage);
          await sleep(delay);
        }
      }
      throw new CatalogApiError(
        api,
        'retries_exhausted',
        lastStatus,
        lastWasNetwork
          ? `${api}: ${unreachable(serviceOf(api), withoutQuery(url), lastProblem, MAX_ATTEMPTS)}`
          : `${api}: gave up after ${MAX_ATTEMPTS} attempts (${lastProblem}) (${shown})`,
      );
    },
    asObject(api, value) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new CatalogApiError(api, 'invalid_response', 200, `${api}: answer is not a JSON object`);
      }
      return value as Record<string, unknown>;
    },
    counts() {
      return Object.fromEntries([...counts.entries()].sort(([a], [b]) => a.localeCompare(b)));
    },
  };
}
