/**
 * API-key authentication (`docs/specification.md`, "Authentication"; `docs/contract.md` section 4).
 *
 * When `LINEAGE_SVC_API_KEY` is set, every route under `/api/v1` except `GET /api/v1/health` and
 * `GET /api/v1/ready` (probes carry no key) needs the header `X-API-Key` with that key; the doc pages
 * (`/docs`, `/redoc`, `/openapi.json`) and `GET /metrics` stay open. A request without the header
 * gets 403 `API key is missing`, with a wrong one 403 `API key is invalid`. Keys are compared in
 * constant time: both are hashed with SHA-256 and the equal-length digests compared with
 * `crypto.timingSafeEqual`, so neither the key's content nor its length leaks through timing. The
 * key is never logged (`req.headers["x-api-key"]` is a redacted path of the logger,
 * `LOG_REDACT_PATHS`).
 *
 * Roles (issue 15): `LINEAGE_SVC_API_KEYS` gives further keys, each with roles: `read` for every GET
 * and HEAD; `operate` for the writes of tasks, extraction, watchers and catalog pushes; `write` for
 * every other write (graphs, OpenLineage ingestion). The single `LINEAGE_SVC_API_KEY` keeps every
 * role. A known key without the needed role gets 403 `API key lacks the "ROLE" role`. Authentication
 * is on when either variable is set.
 *
 * The role comes from the route fastify matched (issue 23 item 1), never from the request's URL:
 * `requiredRole` takes the method and the matched route's pattern (`request.routeOptions.url`, e.g.
 * `/api/v1/tasks/extract`), and every write route under `/api/v1` has its role declared in
 * `WRITE_ROUTE_ROLES`. So a path spelled differently (`/api/v1/%74asks/extract`, `/%61pi/v1/...`)
 * needs the role of the route it reaches; spellings that reach no route (other letter case, doubled
 * or trailing slashes, dot segments) are answered 404 by the router. A write route registered under
 * `/api/v1` without a declared role is refused when it is registered (`UndeclaredRouteRoleError`),
 * so that no new route falls back to a weaker role.
 *
 * The MCP endpoint (`POST /mcp`, `infra/mcp/http.ts`) is protected like the routes under `/api/v1`:
 * it needs a key when authentication is on, and the `read` role, declared in `WRITE_ROUTE_ROLES`
 * (its method is POST, but every MCP tool only reads), so that a read key works for assistants.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AnyFastifyInstance } from './problem.js';
import { LineageError } from '../../src/errors.js';
import { API_ROLES, type ApiKeyEntry, type ApiRole } from '../../src/config.js';
import { MCP_PATH } from '../mcp/http.js';

/** Missing or wrong API key (HTTP 403). */
export class ForbiddenError extends LineageError {
  constructor(message: string) {
    super(message, 'FORBIDDEN', 403);
  }
}

/** The prefix whose routes are protected. */
export const PROTECTED_PREFIX = '/api/v1';

/** Routes under the protected prefix that stay open, as `METHOD path`. */
export const OPEN_ROUTES: ReadonlySet<string> = new Set([
  'GET /api/v1/health',
  'HEAD /api/v1/health',
  'GET /api/v1/ready',
  'HEAD /api/v1/ready',
]);

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** True when `candidate` equals the expected key's digest, compared in constant time. */
export function keyMatches(candidate: string, expectedDigest: Buffer): boolean {
  return timingSafeEqual(digest(candidate), expectedDigest);
}

/**
 * True when the request needs a key: it is under `/api/v1` (matched or not) and not an open route,
 * or it reached the MCP endpoint.
 */
export function needsKey(request: FastifyRequest): boolean {
  const route = request.routeOptions.url;
  if (route === MCP_PATH) return true;
  const path = route ?? request.url.split('?')[0] ?? '';
  if (!path.startsWith(PROTECTED_PREFIX)) return false;
  return !(route !== undefined && OPEN_ROUTES.has(`${request.method} ${route}`));
}

/** `METHOD url` of a route, with its fastify URL pattern (`POST /api/v1/push/:provider`). */
export type RouteKey = `${string} /${string}`;

/**
 * The role of every write route under `/api/v1`, by method and fastify URL pattern: `operate` for
 * those that act with the operator's platform and catalog credentials (tasks, extraction, watchers,
 * catalog pushes), `write` for graph writes, OpenLineage ingestion and the Marquez API's writes (tags,
 * deleting a dataset or job), `read` for the MCP endpoint
 * (a POST whose tools only read). Reads (GET, HEAD, OPTIONS) need `read` and are not listed.
 */
export const WRITE_ROUTE_ROLES: Readonly<Record<RouteKey, ApiRole>> = {
  'POST /api/v1/graphs': 'write',
  'DELETE /api/v1/graphs/:graph_id': 'write',
  'POST /api/v1/graphs/:graph_id/import': 'write',
  'POST /api/v1/graphs/:graph_id/nodes': 'write',
  'POST /api/v1/graphs/:graph_id/edges': 'write',
  'POST /api/v1/lineage': 'write',
  'POST /api/v1/lineage/events': 'write',
  'POST /api/v1/namespaces/:namespace/datasets/:dataset/tags/:tag': 'write',
  'DELETE /api/v1/namespaces/:namespace/datasets/:dataset/tags/:tag': 'write',
  'POST /api/v1/namespaces/:namespace/datasets/:dataset/fields/:field/tags/:tag': 'write',
  'DELETE /api/v1/namespaces/:namespace/datasets/:dataset/fields/:field/tags/:tag': 'write',
  'POST /api/v1/namespaces/:namespace/jobs/:job/tags/:tag': 'write',
  'DELETE /api/v1/namespaces/:namespace/jobs/:job/tags/:tag': 'write',
  'PUT /api/v1/tags/:tag': 'write',
  'DELETE /api/v1/namespaces/:namespace/datasets/:dataset': 'write',
  'DELETE /api/v1/namespaces/:namespace/jobs/:job': 'write',
  'POST /api/v1/tasks/extract': 'operate',
  'POST /api/v1/extract': 'operate',
  'POST /api/v1/tasks/enrich': 'operate',
  'POST /api/v1/lineage/push': 'operate',
  'POST /api/v1/push/:provider': 'operate',
  'POST /api/v1/watchers': 'operate',
  'DELETE /api/v1/watchers/:watcher_id': 'operate',
  'POST /api/v1/watchers/:watcher_id/stop': 'operate',
  [`POST ${MCP_PATH}`]: 'read',
};

const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The role a request needs, from its method and the URL pattern of the route it matched
 * (`request.routeOptions.url`; undefined when it matched none): `read` for GET, HEAD and OPTIONS;
 * for a write, the route's entry in `WRITE_ROUTE_ROLES`, else `write` (only unmatched requests and
 * routes outside `/api/v1` have no entry, and those are answered without reaching a handler that
 * needs a role: 404, or open).
 */
export function requiredRole(method: string, route: string | undefined): ApiRole {
  if (READ_METHODS.has(method)) return 'read';
  if (route === undefined) return 'write';
  return WRITE_ROUTE_ROLES[`${method} ${route}` as RouteKey] ?? 'write';
}

/** A write route under `/api/v1` was registered without a role in `WRITE_ROUTE_ROLES`. */
export class UndeclaredRouteRoleError extends Error {
  constructor(route: string) {
    super(
      `${route} is a write route under ${PROTECTED_PREFIX} without a role: declare it in WRITE_ROUTE_ROLES (infra/http/auth.ts)`,
    );
    this.name = 'UndeclaredRouteRoleError';
  }
}

/**
 * `onRoute` check: every write method of a route under `/api/v1` has its role declared in
 * `WRITE_ROUTE_ROLES`.
 * @throws UndeclaredRouteRoleError for the first write method of `route` without a declared role.
 */
export function assertRouteRoleDeclared(route: { method: string | string[]; url: string }): void {
  if (!route.url.startsWith(`${PROTECTED_PREFIX}/`) && route.url !== MCP_PATH) return;
  for (const method of [route.method].flat()) {
    if (READ_METHODS.has(method)) continue;
    const key = `${method} ${route.url}` as RouteKey;
    if (WRITE_ROUTE_ROLES[key] === undefined) throw new UndeclaredRouteRoleError(key);
  }
}

/**
 * Installs the check as an `onRequest` hook of `app` (the root instance, so that it also covers
 * unknown routes under `/api/v1`), and, whether authentication is on or off, the `onRoute` check
 * `assertRouteRoleDeclared` (so call it before the routes are registered). With no key at all
 * (authentication off) there is no `onRequest` hook.
 *
 * @param apiKey `LINEAGE_SVC_API_KEY`, which holds every role.
 * @param keys `LINEAGE_SVC_API_KEYS`: further keys with their roles.
 * @throws ForbiddenError (403) from the hook: key missing, invalid, or lacking the role of the matched route.
 * @throws UndeclaredRouteRoleError when a write route under `/api/v1` without a declared role is registered.
 */
export function registerApiKeyAuth(
  app: AnyFastifyInstance,
  apiKey: string | undefined,
  keys: readonly ApiKeyEntry[] = [],
): void {
  const entries = [
    ...(apiKey === undefined ? [] : [{ key: apiKey, roles: [...API_ROLES] }]),
    ...keys.map((entry) => ({ key: entry.key, roles: entry.roles })),
  ].map((entry) => ({
    digest: digest(entry.key),
    id: digest(entry.key).toString('hex'),
    roles: new Set<ApiRole>(entry.roles),
  }));
  app.addHook('onRoute', assertRouteRoleDeclared);
  if (entries.length === 0) return;
  app.addHook('onRequest', async (request) => {
    if (!needsKey(request)) return;
    const header = request.headers['x-api-key'];
    const given = Array.isArray(header) ? header[0] : header;
    if (given === undefined || given === '') throw new ForbiddenError('API key is missing');
    // Every entry is compared (no early exit), so the time does not tell which key matched.
    let matched: (typeof entries)[number] | undefined;
    for (const entry of entries) if (keyMatches(given, entry.digest) && matched === undefined) matched = entry;
    if (matched === undefined) throw new ForbiddenError('API key is invalid');
    const role = requiredRole(request.method, request.routeOptions.url);
    if (!matched.roles.has(role)) throw new ForbiddenError(`API key lacks the "${role}" role`);
    AUTHENTICATED_KEYS.set(request, matched.id);
  });
}

/** The identity of the key each request was authenticated with (set by the hook of `registerApiKeyAuth`). */
const AUTHENTICATED_KEYS = new WeakMap<FastifyRequest, string>();

/**
 * The identity of the API key `request` was authenticated with: the hex SHA-256 of a configured key
 * (never the key itself), the same for every request made with that key. Undefined when
 * authentication is off, the route needs no key, or the request was refused. For the write rate
 * limit (`registerWriteRateLimit` of `hardening.ts`), which must not count per key a client merely
 * sent.
 */
export function authenticatedKeyId(request: FastifyRequest): string | undefined {
  return AUTHENTICATED_KEYS.get(request);
}
