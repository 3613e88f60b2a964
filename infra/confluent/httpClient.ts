/**
 * The HTTP side of extraction: one client per extraction run that talks to every Confluent Cloud
 * host with HTTP basic credentials (`docs/platform-apis.md` section 0), and applies the rules of
 * `docs/specification.md` ("Errors" and "Limits"):
 *
 * - a 30 s client timeout per request (`timeoutMs`); a timeout is not retried;
 * - 429, 500, 502, 503 and 504 (and network errors such as a reset connection, but not a host name that
 *   does not resolve or a port fetch refuses, which only a new address mends) are retried with
 *   delays of 1, 2 and 4 s (`retryBaseDelayMs * 2^retry`), 4 attempts in all; a `Retry-After`
 *   header (seconds or an HTTP date) is honored: the wait is the larger of the two, capped at
 *   `maxRetryAfterMs`. Other statuses (400, 401, 403, 404, ...) are not retried;
 * - every failure becomes a `PlatformApiError` (`src/extraction/port.ts`) naming the API; network
 *   errors, timeouts, 401 and 403 also name the service, the URL and the variable to change
 *   (`./failureAdvice.ts`, from the target's `service`), and tell a rejected key (401) from a key
 *   without the role binding (403);
 * - `onRequest` and `onRetry` report each attempt and each wait between attempts, so that a command
 *   can show them while they happen;
 * - `page_size=100` and `metadata.next` / `page_token` pagination (`getPages`);
 * - a request budget per credential and base URL ("target"): at most `maxConcurrentPerTarget`
 *   requests in flight and a token bucket of `rateLimit.burst` requests refilled at
 *   `rateLimit.perHour`, plus `maxConcurrent` in flight overall. The defaults (4 in flight per
 *   target, burst 1,000, 1,000 per hour, 16 overall) keep one extraction inside the platform's
 *   published budget of about 1,000 requests per hour per key for the control plane and per cluster
 *   for Kafka REST and Schema Registry, because a target is exactly such a key + host pair;
 * - request accounting per API name (`counts()`), every attempt counted.
 *
 * The retry loop is written here rather than taken from a library: undici's RetryAgent retries
 * network errors and honors Retry-After, but its backoff, attempt count and the rule that timeouts
 * are not retried differ from `docs/specification.md`, and the loop is a dozen lines under test.
 */
import pLimit, { type LimitFunction } from 'p-limit';
import type { z } from 'zod';
import type { Credentials } from '../../src/config.js';
import type { Logger } from '../../src/logger.js';
import { PlatformApiError } from '../../src/extraction/port.js';
import {
  credentialsRejected,
  keyAndSecret,
  isPermanentNetworkFailure,
  networkCause,
  noAnswer,
  notPermitted,
  unreachable,
  type ServiceSettings,
} from './failureAdvice.js';
import { parseJsonList } from './jsonList.js';

/** Statuses retried with backoff (`docs/specification.md`, "Errors"). */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);
/** Attempts in all: the first plus 3 retries (`docs/specification.md`, "Limits": not configurable). */
export const MAX_ATTEMPTS = 4;
/** Items per page requested from paginated lists (`docs/specification.md`, "Limits"; `docs/platform-apis.md` section 0). */
export const PAGE_SIZE = 100;

/** Options of `createHttpClient`; every field has a default. */
export interface HttpClientOptions {
  /** Per-request client timeout in ms; default 30,000. */
  timeoutMs?: number;
  /** First retry delay in ms; retries wait 1x, 2x, 4x this. Default 1,000 (tests pass a few ms). */
  retryBaseDelayMs?: number;
  /** Upper bound in ms on one honored `Retry-After`; default 60,000. */
  maxRetryAfterMs?: number;
  /** Requests in flight per credential + base URL; default 4. */
  maxConcurrentPerTarget?: number;
  /** Requests in flight overall; default 16. */
  maxConcurrent?: number;
  /** Items per page of v2-style lists; default 100 (`docs/specification.md`, "Limits"); tests use small pages. */
  pageSize?: number;
  /** Token bucket per credential + base URL; `false` turns it off. Default `{ burst: 1000, perHour: 1000 }`. */
  rateLimit?: { burst: number; perHour: number } | false;
  /**
   * Token buckets shared with other clients (`createPlatformBudgets`), so that every task and watcher
   * of a process draws on one budget per credential + base URL. Default: this client's own.
   */
  budgets?: PlatformBudgets;
  /** The fetch implementation (default the global one). */
  fetch?: typeof fetch;
  /** How to wait (default `setTimeout`); tests may replace it. */
  sleep?: (ms: number) => Promise<void>;
  logger?: Logger;
  /** Called as each attempt is sent (after its budget allowed it), with the API name. */
  onRequest?: ((api: string) => void) | undefined;
  /** Called before each wait between attempts: what failed and how long the wait is. */
  onRetry?: ((retry: RetryNotice) => void) | undefined;
}

/** A wait before the next attempt of a request (`HttpClientOptions.onRetry`). */
export interface RetryNotice {
  /** API name, e.g. `cmk.clusters`. */
  api: string;
  /** The service, e.g. `Confluent Cloud API`. */
  service: string;
  /** The URL without its query string. */
  url: string;
  /** The attempt that failed, from 1. */
  attempt: number;
  /** Attempts in all (`MAX_ATTEMPTS`). */
  attempts: number;
  /** The wait before the next attempt, in milliseconds. */
  delayMs: number;
  /** What failed, e.g. `connection refused` or `HTTP 503`. */
  problem: string;
}

/** The service of a target without one: the control plane with the cloud key. */
const DEFAULT_SERVICE: ServiceSettings = {
  name: 'Confluent Cloud API',
  urlVariable: 'LINEAGE_SVC_STREAM_CLOUD_API_URL',
  credentialVariables: keyAndSecret('LINEAGE_SVC_STREAM_CLOUD_API'),
};

/** Where a request goes: a base URL (joined by string concatenation, so path prefixes survive) and its key. */
export interface Target {
  base: string;
  credentials: Credentials | undefined;
  /** Who answers there and which variables set it, for error messages; default the control plane. */
  service?: ServiceSettings | undefined;
}

/** One request. */
export interface HttpRequest {
  /** API name for accounting and errors, e.g. `kafka-rest.topics`. */
  api: string;
  target: Target;
  /** Path below the base, starting with `/`, with its query string. */
  path: string;
  method?: 'GET' | 'POST';
  body?: unknown;
  accept?: string;
}

/** The HTTP client of one extraction. */
export interface HttpClient {
  /**
   * Sends a request (with retries) and parses the JSON body with `schema`. With `options.list`, the
   * body is read item by item and only the items kept are held (`JsonListReading`; e.g.
   * `listAllTopicConfigs`, whose answers are megabytes of default configs).
   */
  getJson<T>(request: HttpRequest, schema: z.ZodType<T>, options?: { list?: JsonListReading }): Promise<T>;
  /**
   * Follows a v2-style list: adds `page_size=100`, reads `data` (null = empty), and follows
   * `metadata.next` by its `page_token` until `next` is missing, empty or null.
   */
  getPages<T>(request: HttpRequest, item: z.ZodType<T>): Promise<T[]>;
  /** Requests made per API name (every attempt). */
  counts(): Record<string, number>;
}

/** A token bucket: `take()` resolves when a token is available. */
export class TokenBucket {
  private tokens: number;
  private last = Date.now();
  constructor(
    private readonly burst: number,
    private readonly perMs: number,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {
    this.tokens = burst;
  }
  async take(): Promise<void> {
    for (;;) {
      const now = Date.now();
      this.tokens = Math.min(this.burst, this.tokens + (now - this.last) * this.perMs);
      this.last = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await this.sleep(Math.ceil((1 - this.tokens) / this.perMs));
    }
  }
}

/**
 * The request budgets of a process: one token bucket per credential + base URL, shared by every
 * client created with it (each extraction task, each watcher), so that the configured rate applies to
 * all of them together.
 */
export interface PlatformBudgets {
  /** The bucket of `key` (credential and base URL), created with `rate` on first use. */
  bucket(key: string, rate: { burst: number; perHour: number }, sleep: (ms: number) => Promise<void>): TokenBucket;
}

/** A new, empty set of shared budgets (one per process: `infra/serviceContext.ts`). */
export function createPlatformBudgets(): PlatformBudgets {
  const buckets = new Map<string, TokenBucket>();
  return {
    bucket(key, rate, sleep) {
      let bucket = buckets.get(key);
      if (!bucket) {
        bucket = new TokenBucket(rate.burst, rate.perHour / 3_600_000, sleep);
        buckets.set(key, bucket);
      }
      return bucket;
    },
  };
}

/** Parses `Retry-After` (delta seconds or an HTTP date) into ms; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const text = header.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The delay before retry number `retry` (0-based): `base * 2^retry`, or longer when `Retry-After` says so. */
export function retryDelayMs(
  retry: number,
  baseMs: number,
  retryAfter: number | undefined,
  maxRetryAfterMs: number,
): number {
  const backoff = baseMs * 2 ** retry;
  return retryAfter === undefined ? backoff : Math.max(backoff, Math.min(retryAfter, maxRetryAfterMs));
}

function basicAuth(credentials: Credentials): string {
  return `Basic ${Buffer.from(`${credentials.key}:${credentials.secret}`).toString('base64')}`;
}

/** The URL without its query string, for messages (never carries credentials: they go in a header). */
function shownUrl(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/** Joins a base URL and a path by concatenation (keeps a simulator's or proxy's path prefix). */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

/** The service a request goes to (the control plane when its target names none). */
function serviceOf(request: HttpRequest): ServiceSettings {
  return request.target.service ?? DEFAULT_SERVICE;
}

/** No answer within the client timeout: names the service, the URL and the variable to check. */
function timeoutError(request: HttpRequest, url: string, timeoutMs: number): PlatformApiError {
  const advice = noAnswer(serviceOf(request), shownUrl(url), timeoutMs / 1000);
  return new PlatformApiError(
    request.api,
    'timeout',
    undefined,
    `${request.api}: no answer within ${timeoutMs / 1000} s from ${shownUrl(url)} (${advice})`,
    advice,
  );
}

/**
 * A status that is not retried. A 401 says the credentials were rejected and names their variables;
 * a 403 says the key lacks a role binding; both carry that as `advice`.
 */
function statusError(request: HttpRequest, url: string, status: number, detail: string): PlatformApiError {
  const shown = shownUrl(url);
  const advice =
    status === 401
      ? credentialsRejected(serviceOf(request), shown)
      : status === 403
        ? notPermitted(serviceOf(request), shown)
        : undefined;
  const message = advice
    ? `${request.api}: ${advice}${detail ? ` (the answer: ${detail})` : ''}`
    : `${request.api}: HTTP ${status} from ${shown}${detail ? `: ${detail}` : ''}`;
  return new PlatformApiError(request.api, 'status', status, message, advice);
}

/**
 * How to read a large list answer without holding it whole (`parseJsonList` in `./jsonList.ts`):
 * the top-level member `key` is a list, and only the items that `keep` accepts are kept.
 */
export interface JsonListReading {
  key: string;
  keep: (item: unknown) => boolean;
}

/**
 * Reads a 2xx body as JSON (empty: null); with `list`, item by item (`JsonListReading`).
 * @throws PlatformApiError `timeout` or `invalid_response`.
 */
async function readJson(
  request: HttpRequest,
  url: string,
  response: Response,
  timeoutMs: number,
  list?: JsonListReading,
): Promise<unknown> {
  if (list !== undefined) return readJsonList(request, url, response, timeoutMs, list);
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (isTimeout(error)) throw timeoutError(request, url, timeoutMs);
    throw error;
  }
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    throw new PlatformApiError(
      request.api,
      'invalid_response',
      response.status,
      `${request.api}: answer from ${shownUrl(url)} is not JSON`,
    );
  }
}

/** `readJson` of a list answer read item by item (`parseJsonList`). */
async function readJsonList(
  request: HttpRequest,
  url: string,
  response: Response,
  timeoutMs: number,
  list: JsonListReading,
): Promise<unknown> {
  if (response.body === null) return null;
  try {
    return await parseJsonList(response.body, list.key, list.keep);
  } catch (error) {
    if (isTimeout(error)) throw timeoutError(request, url, timeoutMs);
    if (!(error instanceof SyntaxError)) throw error;
    throw new PlatformApiError(
      request.api,
      'invalid_response',
      response.status,
      `${request.api}: answer from ${shownUrl(url)} is not JSON`,
    );
  }
}

/** Creates the client of one extraction run. */
export function createHttpClient(options: HttpClientOptions = {}): HttpClient {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const baseDelay = options.retryBaseDelayMs ?? 1000;
  const maxRetryAfter = options.maxRetryAfterMs ?? 60_000;
  const perTarget = options.maxConcurrentPerTarget ?? 4;
  const pageSize = options.pageSize ?? PAGE_SIZE;
  const rate = options.rateLimit ?? { burst: 1000, perHour: 1000 };
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const global = pLimit(options.maxConcurrent ?? 16);
  const limits = new Map<string, { limit: LimitFunction; bucket: TokenBucket | undefined }>();
  const budgets = options.budgets ?? createPlatformBudgets();
  const counts = new Map<string, number>();

  const budgetOf = (target: Target) => {
    const key = `${target.credentials?.key ?? '-'} ${target.base}`;
    let budget = limits.get(key);
    if (!budget) {
      budget = {
        limit: pLimit(perTarget),
        bucket: rate === false ? undefined : budgets.bucket(key, rate, sleep),
      };
      limits.set(key, budget);
    }
    return budget;
  };

  /** One attempt: returns the response (body unread) or throws a timeout/network error. */
  const attempt = async (request: HttpRequest, url: string): Promise<Response> => {
    const budget = budgetOf(request.target);
    return budget.limit(() =>
      global(async () => {
        await budget.bucket?.take();
        counts.set(request.api, (counts.get(request.api) ?? 0) + 1);
        options.onRequest?.(request.api);
        const headers: Record<string, string> = { accept: request.accept ?? 'application/json' };
        if (request.target.credentials) headers.authorization = basicAuth(request.target.credentials);
        if (request.body !== undefined) headers['content-type'] = 'application/json';
        const response = await doFetch(url, {
          method: request.method ?? 'GET',
          headers,
          body: request.body === undefined ? undefined : JSON.stringify(request.body),
          signal: AbortSignal.timeout(timeoutMs),
        });
        return response;
      }),
    );
  };

  /** Waits before the next attempt, after telling `onRetry` and the debug log. */
  const waitToRetry = async (request: HttpRequest, url: string, tryNumber: number, delay: number, problem: string) => {
    const service = serviceOf(request);
    options.logger?.debug({ api: request.api, problem, delay_ms: delay }, 'Platform:Retrying');
    options.onRetry?.({
      api: request.api,
      service: service.name,
      url: shownUrl(url),
      attempt: tryNumber + 1,
      attempts: MAX_ATTEMPTS,
      delayMs: delay,
      problem,
    });
    await sleep(delay);
  };

  const send = async (request: HttpRequest, url: string, list?: JsonListReading): Promise<unknown> => {
    let lastStatus: number | undefined;
    let lastProblem = '';
    let lastWasNetwork = false;
    let attempts = 0;
    for (let tryNumber = 0; tryNumber < MAX_ATTEMPTS; tryNumber += 1) {
      let response: Response;
      attempts = tryNumber + 1;
      try {
        response = await attempt(request, url);
      } catch (error) {
        if (isTimeout(error)) throw timeoutError(request, url, timeoutMs);
        lastProblem = networkCause(error);
        lastWasNetwork = true;
        if (isPermanentNetworkFailure(error)) break;
        if (tryNumber + 1 < MAX_ATTEMPTS)
          await waitToRetry(
            request,
            url,
            tryNumber,
            retryDelayMs(tryNumber, baseDelay, undefined, maxRetryAfter),
            lastProblem,
          );
        continue;
      }
      if (response.ok) return readJson(request, url, response, timeoutMs, list);
      lastStatus = response.status;
      lastWasNetwork = false;
      const detail = (await response.text().catch(() => '')).replace(/\s+/g, ' ').slice(0, 200);
      if (!RETRIED_STATUSES.has(response.status)) throw statusError(request, url, response.status, detail);
      lastProblem = `HTTP ${response.status}`;
      if (tryNumber + 1 < MAX_ATTEMPTS) {
        const retryAfter = retryAfterMs(response.headers.get('retry-after'));
        await waitToRetry(
          request,
          url,
          tryNumber,
          retryDelayMs(tryNumber, baseDelay, retryAfter, maxRetryAfter),
          lastProblem,
        );
      }
    }
    const message = lastWasNetwork
      ? `${request.api}: ${unreachable(serviceOf(request), shownUrl(url), lastProblem, attempts)}`
      : `${request.api}: gave up after ${MAX_ATTEMPTS} attempts (${lastProblem}) at ${shownUrl(url)}`;
    throw new PlatformApiError(request.api, 'retries_exhausted', lastStatus, message);
  };

  const parse = <T>(request: HttpRequest, schema: z.ZodType<T>, body: unknown): T => {
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new PlatformApiError(
        request.api,
        'invalid_response',
        undefined,
        `${request.api}: unexpected answer (${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'})`,
      );
    }
    return parsed.data;
  };

  return {
    async getJson(request, schema, options) {
      return parse(request, schema, await send(request, joinUrl(request.target.base, request.path), options?.list));
    },
    async getPages(request, item) {
      const items: z.infer<typeof item>[] = [];
      const separator = request.path.includes('?') ? '&' : '?';
      const seen = new Set<string>();
      let token: string | undefined;
      for (let page = 0; page < 10_000; page += 1) {
        const path = `${request.path}${separator}page_size=${pageSize}${token === undefined ? '' : `&page_token=${encodeURIComponent(token)}`}`;
        const body = (await send(request, joinUrl(request.target.base, path))) as {
          data?: unknown;
          metadata?: { next?: unknown };
        } | null;
        const data = body?.data;
        if (data !== null && data !== undefined) {
          if (!Array.isArray(data))
            throw new PlatformApiError(
              request.api,
              'invalid_response',
              undefined,
              `${request.api}: "data" is not a list`,
            );
          for (const entry of data) items.push(parse(request, item, entry));
        }
        const next = body?.metadata?.next;
        if (typeof next !== 'string' || next === '') break;
        const nextToken = new URL(next, 'http://placeholder').searchParams.get('page_token');
        if (nextToken === null || nextToken === '' || seen.has(nextToken)) break;
        seen.add(nextToken);
        token = nextToken;
      }
      return items;
    },
    counts() {
      return Object.fromEntries([...counts.entries()].sort(([a], [b]) => a.localeCompare(b)));
    },
  };
}
