/**
 * Hostile input, slow clients and abusive callers (issue 15): the pieces `buildApp` installs on the
 * API, kept apart so that other servers (the web UI's) can reuse them.
 *
 * - `parseJsonBody`: the JSON body parser. It answers 400 (problem+json) for a body that is not valid
 *   UTF-8 (`body is not valid UTF-8`), nests deeper than `MAX_BODY_DEPTH` levels, is empty, is not
 *   JSON, or holds a `__proto__` or `constructor.prototype` key (named in the message). JSON.parse
 *   has no depth option, so depth is checked after parsing, iteratively (V8's parser itself does not
 *   overflow on deep input; what overflowed was later recursive code, such as JSON.stringify).
 * - `redactedRequestUrl`: the `url` of request logs, with the value of every query parameter not in
 *   `LOGGED_QUERY_PARAMETERS` replaced by `[redacted]`.
 * - `strictWriteQuerystrings`: an `onRoute` hook that makes every write route's querystring schema
 *   strict, so that unknown query parameters on POST, PUT, PATCH and DELETE are a 400.
 * - `registerSecurityHeaders`: helmet with a content security policy that the Swagger UI,
 *   ReDoc and the web UI pages work under.
 * - `registerWriteRateLimit`: `@fastify/rate-limit` on every write (GET, HEAD and OPTIONS are free),
 *   per client (the API key the request was authenticated with, else the address; never a key that
 *   was only sent), answered 429 problem+json with `Retry-After`.
 */
import helmet, { type HelmetOptions } from 'helmet';
import rateLimit from '@fastify/rate-limit';
import type { FastifyRequest, RouteOptions } from 'fastify';
import secureJson from 'secure-json-parse';
import { z } from 'zod';
import { ValidationError } from '../../src/errors.js';
import { exceedsJsonDepth } from '../../src/openlineage/ingest.js';
import type { AnyFastifyInstance } from './problem.js';

/**
 * Deepest nesting of objects and arrays accepted in a request body. Bodies deeper than this are a
 * 400 as a whole; each OpenLineage event has its own, smaller limit (`MAX_JSON_DEPTH`, 64) checked
 * per item, so that one deep event in a batch is rejected alone.
 */
export const MAX_BODY_DEPTH = 512;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A 400 about the body as a whole. */
function badBody(message: string): ValidationError {
  return new ValidationError(message, [{ path: 'body', message }]);
}

/**
 * Parses a JSON request body (a buffer of at most the route's body limit).
 * @throws ValidationError (400) for invalid UTF-8, an empty body, invalid JSON, a forbidden key or
 *   nesting deeper than `MAX_BODY_DEPTH`.
 */
export function parseJsonBody(body: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw badBody('body is not valid UTF-8');
  }
  if (text.trim() === '') throw badBody('body is empty; send a JSON document');
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/prototype property/i.test(message))
      throw badBody('body holds the key "__proto__" or "constructor.prototype", which is not accepted');
    throw badBody(`body is not valid JSON: ${message.slice(0, 200)}`);
  }
  if (exceedsJsonDepth(value, MAX_BODY_DEPTH))
    throw badBody(`body nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels`);
  return value;
}

/**
 * Replaces fastify's JSON parser on `app` (before routes are registered, so that every route inherits
 * it). A DELETE whose body is empty has no body, whatever its `Content-Type` says: generated clients
 * send `Content-Type: application/json` on every request, and no DELETE of this API takes a body. The
 * graph import has a parser of its own (`registerImportBodyParser`, `infra/http/graphImport.ts`).
 */
export function registerJsonBodyParser(app: AnyFastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    if (request.method === 'DELETE' && (body as Buffer).length === 0) return done(null, undefined);
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/** Query parameters whose values are logged as sent: the API's own, none of which carries a secret. */
export const LOGGED_QUERY_PARAMETERS: ReadonlySet<string> = new Set([
  'as_of',
  'mode',
  'hops',
  'limit',
  'offset',
  'node_type',
  'system',
  'systems',
  'from',
  'to',
  'type',
  'status',
  'edge_type',
  'direction',
  'depth',
  'format',
  'event_type',
  'since',
  'until',
  'graph_id',
  'namespace',
  'name',
  'job',
  'run_id',
  'node_id',
  'cluster_id',
  'environment_ids',
]);

/**
 * The path of `url` with its query string, where the value of every parameter not in
 * `LOGGED_QUERY_PARAMETERS` (e.g. `api_secret`) is `[redacted]`. A query that cannot be split is
 * replaced whole.
 */
export function redactedRequestUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const parts = url
    .slice(at + 1)
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const equals = part.indexOf('=');
      const rawName = equals < 0 ? part : part.slice(0, equals);
      let name: string;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        return '[redacted]';
      }
      return LOGGED_QUERY_PARAMETERS.has(name) ? part : `${rawName.slice(0, 64)}=[redacted]`;
    });
  return `${url.slice(0, at)}?${parts.join('&')}`;
}

/** The `req` serializer of request logs: fastify's fields, with `redactedRequestUrl`; other values are kept as they are. */
export function serializeRequest(request: FastifyRequest): unknown {
  if (request === null || typeof request !== 'object' || typeof request.url !== 'string' || !('socket' in request))
    return request;
  return {
    method: request.method,
    url: redactedRequestUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** The methods that write: their querystrings are strict, and the per-client write limit counts them. */
export const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * `onRoute` hook: a write route's querystring schema becomes strict (a zod object gets `.strict()`,
 * a route without one gets an empty strict object), so unknown query parameters are a 400 that names
 * them. Routes with another kind of querystring schema are left alone.
 */
export function strictWriteQuerystrings(route: RouteOptions): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (!methods.some((method) => WRITE_METHODS.has(method))) return;
  const schema = (route.schema ?? {}) as { querystring?: unknown; hide?: boolean };
  if (schema.querystring === undefined) route.schema = { ...schema, querystring: z.strictObject({}) };
  else if (schema.querystring instanceof z.ZodObject)
    route.schema = { ...schema, querystring: (schema.querystring as z.ZodObject).strict() };
}

/**
 * Security headers (helmet) on every answer of `app`: a content security policy allowing only
 * same-origin scripts, inline styles (ReDoc and Swagger UI), `data:` images and `blob:` workers
 * (ReDoc), plus helmet's defaults (`X-Content-Type-Options: nosniff`, `X-Frame-Options`, `Referrer-Policy`,
 * ...). Exported for the web UI server (`infra/ui/`), which may call it on its own instance.
 *
 * helmet's middleware is built once and run in an `onRequest` hook; `@fastify/helmet` builds a new
 * one for every request (its policy parsed again each time: about 8 KB of garbage per answer).
 */
export function registerSecurityHeaders(app: AnyFastifyInstance): void {
  registerHelmet(app, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'", 'https:'],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'", 'https:', 'data:'],
        workerSrc: ["'self'", 'blob:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        frameAncestors: ["'self'"],
        upgradeInsecureRequests: null,
      },
    },
    // Same-origin API calls from other origins are governed by CORS (`LINEAGE_SVC_API_CORS_ORIGINS`).
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  });
}

/**
 * helmet's headers with `options` on every answer of `app`: the middleware built once, run in an
 * `onRequest` hook (the API's `registerSecurityHeaders`, and the web UI server with its own policy).
 */
export function registerHelmet(app: AnyFastifyInstance, options: HelmetOptions): void {
  const setHeaders = helmet(options);
  app.addHook('onRequest', (request, reply, done) =>
    setHeaders(request.raw, reply.raw, (error?: unknown) => done(error instanceof Error ? error : undefined)),
  );
}

/** Options of `registerWriteRateLimit`. */
export interface WriteRateLimitOptions {
  /**
   * The identity of the API key the request was authenticated with (e.g. `authenticatedKeyId` of
   * `auth.ts`), or undefined when it was not authenticated by a key. Never the raw `X-API-Key` header:
   * a client that sends a new made-up key with every request must not get a new count each time.
   * Default: no request has one, so every write counts per address.
   */
  clientKey?: (request: FastifyRequest) => string | undefined;
}

/**
 * A per-client limit of `perMinute` writes a minute (`@fastify/rate-limit`): every POST, PUT, PATCH
 * and DELETE counts, per authenticated API key (`options.clientKey`) when there is one, else per
 * client address (`request.ip`). Over the limit: 429 problem+json with `Retry-After` (seconds).
 * `perMinute` 0 installs nothing. Register it after the key check, whose `onRequest` hook must have
 * run when the limit's (a route-level `onRequest` hook) asks for the key.
 */
export async function registerWriteRateLimit(
  app: AnyFastifyInstance,
  perMinute: number,
  options: WriteRateLimitOptions = {},
): Promise<void> {
  if (perMinute <= 0) return;
  const clientKey = options.clientKey ?? (() => undefined);
  await app.register(rateLimit, {
    global: true,
    max: perMinute,
    timeWindow: 60_000,
    allowList: (request) => !WRITE_METHODS.has(request.method),
    keyGenerator: (request) => {
      const key = clientKey(request);
      return key === undefined ? `ip:${request.ip}` : `key:${key}`;
    },
    errorResponseBuilder: (_request, context) =>
      Object.assign(
        new Error(
          `more than ${context.max} writes a minute from this client; retry in ${Math.ceil(context.ttl / 1000)} s`,
        ),
        { statusCode: 429 },
      ),
  });
}
