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
 * Roles (issue 15): `LINEAGE_SVC_API_KEYS` gives further keys, each with roles (`requiredRole` says
 * which role a request needs): `read` for every GET and HEAD; `operate` for the writes of tasks,
 * extraction, watchers and catalog pushes; `write` for every other write (graphs, OpenLineage
 * ingestion). The single `LINEAGE_SVC_API_KEY` keeps every role. A known key without the needed
 * role gets 403 `API key lacks the "ROLE" role`. Authentication is on when either variable is set.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AnyFastifyInstance } from './problem.js';
import { LineageError } from '../../src/errors.js';
import { API_ROLES, type ApiKeyEntry, type ApiRole } from '../../src/config.js';

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

/** True when the request needs a key: it is under `/api/v1` (matched or not) and not an open route. */
export function needsKey(request: FastifyRequest): boolean {
  const route = request.routeOptions.url;
  const path = route ?? request.url.split('?')[0] ?? '';
  if (!path.startsWith(PROTECTED_PREFIX)) return false;
  return !(route !== undefined && OPEN_ROUTES.has(`${request.method} ${route}`));
}

/** Paths (below `/api/v1`) whose writes need the `operate` role: tasks, extraction, watchers, catalog pushes. */
const OPERATE_PATHS = /^\/api\/v1\/(tasks|extract|watchers|push|lineage\/push)(\/|$)/;

/**
 * The role a request needs: `read` for GET, HEAD and OPTIONS; `operate` for writes to tasks,
 * `/extract`, watchers, `/push/...` and `/lineage/push`; `write` for every other write.
 */
export function requiredRole(method: string, path: string): ApiRole {
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return 'read';
  return OPERATE_PATHS.test(path) ? 'operate' : 'write';
}

/**
 * Installs the check as an `onRequest` hook of `app` (the root instance, so that it also covers
 * unknown routes under `/api/v1`). Does nothing when there is no key at all (authentication off).
 *
 * @param apiKey `LINEAGE_SVC_API_KEY`, which holds every role.
 * @param keys `LINEAGE_SVC_API_KEYS`: further keys with their roles.
 * @throws ForbiddenError (403) from the hook: key missing, invalid, or lacking the request's role.
 */
export function registerApiKeyAuth(
  app: AnyFastifyInstance,
  apiKey: string | undefined,
  keys: readonly ApiKeyEntry[] = [],
): void {
  const entries = [
    ...(apiKey === undefined ? [] : [{ key: apiKey, roles: [...API_ROLES] }]),
    ...keys.map((entry) => ({ key: entry.key, roles: entry.roles })),
  ].map((entry) => ({ digest: digest(entry.key), roles: new Set<ApiRole>(entry.roles) }));
  if (entries.length === 0) return;
  app.addHook('onRequest', async (request) => {
    if (!needsKey(request)) return;
    const header = request.headers['x-api-key'];
    const given = Array.isArray(header) ? header[0] : header;
    if (given === undefined || given === '') throw new ForbiddenError('API key is missing');
    // Every entry is compared (no early exit), so the time does not tell which key matched.
    let roles: Set<ApiRole> | undefined;
    for (const entry of entries) if (keyMatches(given, entry.digest) && roles === undefined) roles = entry.roles;
    if (roles === undefined) throw new ForbiddenError('API key is invalid');
    const role = requiredRole(request.method, (request.url.split('?')[0] ?? '').replace(/\/+$/, ''));
    if (!roles.has(role)) throw new ForbiddenError(`API key lacks the "${role}" role`);
  });
}
