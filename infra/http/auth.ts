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
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AnyFastifyInstance } from './problem.js';
import { LineageError } from '../../src/errors.js';

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

/**
 * Installs the check as an `onRequest` hook of `app` (the root instance, so that it also covers
 * unknown routes under `/api/v1`). Does nothing when `apiKey` is undefined (authentication off).
 */
export function registerApiKeyAuth(app: AnyFastifyInstance, apiKey: string | undefined): void {
  if (apiKey === undefined) return;
  const expected = digest(apiKey);
  app.addHook('onRequest', async (request) => {
    if (!needsKey(request)) return;
    const header = request.headers['x-api-key'];
    const given = Array.isArray(header) ? header[0] : header;
    if (given === undefined || given === '') throw new ForbiddenError('API key is missing');
    if (!keyMatches(given, expected)) throw new ForbiddenError('API key is invalid');
  });
}
