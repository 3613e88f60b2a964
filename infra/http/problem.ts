/**
 * The one place errors become HTTP responses: every error, and every unknown route, is answered as
 * `application/problem+json` (RFC 9457) `{type, title, status, detail, errors?, error_count?}`
 * (`docs/contract.md` section 4).
 *
 * - request validation failures (zod, through fastify-type-provider-zod) and our `ValidationError`:
 *   400 with `errors: [{path, message}]`, the first `MAX_LISTED_ISSUES` (1,000) when there were more,
 *   then with `error_count`, the number of all;
 * - every `LineageError`: its own `status` (404 not found, 409 conflict, 403 forbidden, ...); a 503 (the
 *   store is down or cannot take writes, the projections are behind) with `Retry-After`; a
 *   `PlatformUnavailableError` (503 or 502: the platform cannot be asked) with its own detail;
 * - fastify's own client errors (unsupported media type 415, body too large 413, malformed JSON 400,
 *   empty JSON body 400, ...): their 4xx status and message;
 * - anything else: 500 with a generic detail; the error itself is logged, never returned.
 *
 * `type` is a URN naming the problem, e.g. `urn:lineage-svc:problem:not-found`.
 *
 * The Marquez-compatible routes (`routes/marquez.ts`) answer the same documents with Marquez's error
 * members added (`withMarquezMembers`: `code`, `message`, `details`), through their own error handler.
 */
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LineageError, PlatformUnavailableError, ValidationError, type ValidationIssue } from '../../src/errors.js';
import { MAX_LISTED_ISSUES } from '../../src/graph/validation.js';
import { MAX_COUNT } from './routes/schemas.js';

/**
 * Any fastify instance, whatever its logger and type provider (the helpers here only add handlers
 * and hooks, which do not depend on either).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyFastifyInstance = FastifyInstance<any, any, any, any, any>;

/**
 * `Retry-After` of a 503 answer (the store is down or the projections are behind), in seconds: the
 * projector retries the store at least this often (`PROJECTOR_MAXIMUM_RETRY_MILLISECONDS`).
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** The media type of every error response. */
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** An RFC 9457 problem document as this API returns it. */
export const ProblemSchema = z
  .object({
    type: z.string().describe('URN naming the kind of problem, e.g. urn:lineage-svc:problem:not-found'),
    title: z.string().describe('Short summary of the kind of problem'),
    status: z.number().int().min(400).max(599).describe('HTTP status code'),
    detail: z.string().describe('What went wrong with this request'),
    errors: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .describe('Validation problems, one per offending field (400 only); the first 1,000 when there were more'),
    error_count: z
      .number()
      .int()
      .min(0)
      .max(MAX_COUNT)
      .optional()
      .describe('Every validation problem found, when `errors` lists only the first 1,000 of them'),
  })
  .meta({ id: 'Problem' });
export type Problem = z.infer<typeof ProblemSchema>;

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** Slugs of the `type` URN for statuses that have no `LineageError` code. */
const SLUGS: Record<number, string> = {
  400: 'bad-request',
  403: 'forbidden',
  404: 'not-found',
  408: 'request-timeout',
  409: 'conflict',
  413: 'content-too-large',
  415: 'unsupported-media-type',
  431: 'request-header-fields-too-large',
  500: 'internal-error',
};

/** Builds a problem document. `code` (e.g. `NOT_FOUND`) names the `type`; the status is used otherwise. */
export function problem(
  status: number,
  detail: string,
  options: { code?: string; errors?: ValidationIssue[]; errorCount?: number } = {},
): Problem {
  const slug = options.code ? options.code.toLowerCase().replace(/_/g, '-') : (SLUGS[status] ?? `http-${status}`);
  const result: Problem = {
    type: `urn:lineage-svc:problem:${slug}`,
    title: TITLES[status] ?? (status < 500 ? 'Client Error' : 'Server Error'),
    status,
    detail,
  };
  if (options.errors && options.errors.length > 0) result.errors = options.errors.slice(0, MAX_LISTED_ISSUES);
  const count = Math.max(options.errorCount ?? 0, options.errors?.length ?? 0);
  if (result.errors && count > result.errors.length) result.error_count = count;
  return result;
}

/**
 * Maps any thrown value to a problem document and says whether it is our fault (to be logged as an
 * error). Pure: used by the error handler and by tests.
 */
export function problemFor(error: unknown): { problem: Problem; internal: boolean } {
  if (hasZodFastifySchemaValidationErrors(error)) {
    const context = (error as { validationContext?: string }).validationContext ?? 'request';
    const errors = error.validation.map((issue) => ({
      path: [context, ...issue.instancePath.split('/').filter((part) => part !== '')].join('.'),
      message: issue.message ?? 'is invalid',
    }));
    const first = errors[0];
    const detail = first
      ? `invalid ${context}: ${first.path}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`
      : `invalid ${context}`;
    return { problem: problem(400, detail, { code: 'VALIDATION_FAILED', errors }), internal: false };
  }
  if (error instanceof ValidationError) {
    return {
      problem: problem(400, error.message, { code: error.code, errors: error.issues, errorCount: error.issueCount }),
      internal: false,
    };
  }
  if (error instanceof PlatformUnavailableError)
    return { problem: problem(error.status, error.message, { code: error.code }), internal: false };
  if (error instanceof LineageError) {
    if (error.status === 503)
      return {
        problem: problem(
          503,
          `the service cannot complete the request now (its store is unreachable or cannot take writes, or its projections are catching up); ` +
            `retry after ${UNAVAILABLE_RETRY_AFTER_SECONDS} s`,
          { code: error.code },
        ),
        internal: true,
      };
    if (error.status >= 500)
      return {
        problem: problem(error.status, 'the service could not complete the request; see the server log', {
          code: error.code,
        }),
        internal: true,
      };
    return { problem: problem(error.status, error.message, { code: error.code }), internal: false };
  }
  if (isResponseSerializationError(error)) {
    return { problem: problem(500, 'internal error; see the server log'), internal: true };
  }
  const status = (error as Partial<FastifyError> | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const message = error instanceof Error ? error.message : String(error);
    return { problem: problem(status, message), internal: false };
  }
  return { problem: problem(500, 'internal error; see the server log'), internal: true };
}

/**
 * The problem document of the Marquez-compatible API (`routes/marquez.ts`, docs/marquez.md): ours, plus
 * the members of Marquez's error answers (Dropwizard's `ErrorMessage`, `{code, message, details}`) as
 * RFC 9457 extension members, because Marquez Web's fetch wrapper and Marquez's clients read those.
 */
export const MarquezProblemSchema = ProblemSchema.extend({
  code: z.number().int().min(400).max(599).describe("Marquez's member: the HTTP status, as status"),
  message: z.string().describe("Marquez's member: what went wrong, the same text as detail"),
  details: z
    .string()
    .describe(
      "Marquez's member: with errors, the listed problems as path: message (the first 10, then how many more); " +
        'otherwise the title and the type',
    ),
}).meta({ id: 'MarquezProblem' });
export type MarquezProblem = z.infer<typeof MarquezProblemSchema>;

/** How many validation problems `details` of a Marquez problem lists (`withMarquezMembers`). */
export const MARQUEZ_DETAILS_ISSUES = 10;

/**
 * `body` with Marquez's error members added (`MarquezProblemSchema`); ours are kept as they are.
 * `code` is `status`, `message` is `detail`. `details` is always there, because Marquez Web prints it
 * whatever it is (an absent one reads "undefined"): with `errors`, the first `MARQUEZ_DETAILS_ISSUES`
 * as `path: message` joined by `; `, then `; and N more` (N from `error_count` when the list was
 * capped); without, `title (type)`, e.g. `Not Found (urn:lineage-svc:problem:not-found)`.
 */
export function withMarquezMembers(body: Problem): MarquezProblem {
  const issues = body.errors ?? [];
  let details = `${body.title} (${body.type})`;
  if (issues.length > 0) {
    const listed = issues.slice(0, MARQUEZ_DETAILS_ISSUES).map((issue) => `${issue.path}: ${issue.message}`);
    const more = Math.max(body.error_count ?? 0, issues.length) - listed.length;
    details = `${listed.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
  }
  return { ...body, code: body.status, message: body.detail, details };
}

/** Sends a problem document (as a string, so that no route's response schema applies to it). */
export function sendProblem(reply: FastifyReply, body: Problem): FastifyReply {
  return reply.code(body.status).type(PROBLEM_MEDIA_TYPE).send(JSON.stringify(body));
}

/**
 * The status and detail of a request Node's HTTP parser refused before fastify saw it: 408 when it
 * did not arrive whole within the request timeout, 431 when its header fields are larger than Node
 * accepts (`http.maxHeaderSize`, 16 KiB by default, `--max-http-header-size`), else 400.
 */
export function clientErrorProblem(error: NodeJS.ErrnoException): Problem {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return problem(408, 'the request did not arrive whole within the request timeout');
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return problem(
      431,
      `the request's header fields are larger than the server accepts (${maxHeaderSize} bytes in all)`,
    );
  return problem(400, 'the request is not valid HTTP/1.1');
}

/**
 * fastify's `clientErrorHandler` (bound to the instance): answers what Node's HTTP parser refused
 * (`clientErrorProblem`) as problem+json, as fastify's default handler does with its own JSON, then
 * closes the connection. Nothing is written on a reset or destroyed socket.
 */
export function problemClientErrorHandler(
  this: { log?: { trace(object: object, message: string): void } } | undefined,
  error: NodeJS.ErrnoException,
  socket: Socket,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const body = clientErrorProblem(error);
  this?.log?.trace({ err: error }, `client error ${body.status}`);
  if (socket.writable) {
    const text = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status]}\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
        `Content-Type: ${PROBLEM_MEDIA_TYPE}\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(error);
}

/** A registered route as the not-found hint matches it: its method and its URL pattern, split at `/`. */
export interface RoutePattern {
  method: string;
  segments: string[];
}

/** The route pattern of a fastify URL such as `/api/v1/graphs/:graph_id`, or undefined for wildcard routes. */
export function routePattern(method: string, url: string): RoutePattern | undefined {
  if (url.includes('*')) return undefined;
  return { method: method === 'HEAD' ? 'GET' : method, segments: url.split('/') };
}

/** Whether a path segment matches a pattern segment: a `:param` matches any non-empty segment. */
function segmentMatches(pattern: string, segment: string): boolean {
  return pattern.startsWith(':') ? segment !== '' : pattern === segment;
}

/** Where a path would match a route had one of its `:param` segments held a `/`. */
interface SpanningMatch {
  route: RoutePattern;
  /** Index of the parameter's segment in the route. */
  index: number;
  /** How many more segments than the route the path has. */
  extra: number;
}

/** The matches of `segments` against `route` with one parameter spanning `extra + 1` segments. */
function spanningMatches(route: RoutePattern, segments: readonly string[]): SpanningMatch[] {
  const extra = segments.length - route.segments.length;
  if (extra < 1) return [];
  const matches: SpanningMatch[] = [];
  for (let index = 0; index < route.segments.length; index++) {
    if (!route.segments[index]!.startsWith(':')) continue;
    const before = route.segments.slice(0, index).every((pattern, at) => segmentMatches(pattern, segments[at]!));
    const after = route.segments
      .slice(index + 1)
      .every((pattern, at) => segmentMatches(pattern, segments[index + 1 + extra + at]!));
    const value = segments.slice(index, index + 1 + extra).join('/');
    // Only values that look like an id: node ids such as `stream:topic:env-1:lkc-1/orders` hold colons.
    if (before && after && /:|%3a/i.test(value)) matches.push({ route, index, extra });
  }
  return matches;
}

/**
 * When `path` (as received, percent-encoded or not) would match one of `routes` of the same method
 * if one of its `:param` segments could hold a `/`, and the value it would then take looks like an id
 * (it holds a colon, as node ids do), the hint to percent-encode it, naming the parameter and the
 * path as it should have been sent; otherwise undefined. The route matching with the fewest extra
 * segments wins (`/graphs/:graph_id/nodes/:node_id` over `/graphs/:graph_id`). Compares segments, no
 * regular expression over the path, so that it stays linear in the path's length per route.
 */
export function percentEncodingHint(method: string, path: string, routes: readonly RoutePattern[]): string | undefined {
  const segments = path.split('/');
  const wanted = method === 'HEAD' ? 'GET' : method;
  const best = routes
    .filter((route) => route.method === wanted)
    .flatMap((route) => spanningMatches(route, segments))
    .sort((first, second) => first.extra - second.extra)[0];
  if (best === undefined) return undefined;
  const { route, index, extra } = best;
  const value = safeDecode(segments.slice(index, index + 1 + extra).join('/'));
  const encoded = [...segments.slice(0, index), encodeURIComponent(value), ...segments.slice(index + 1 + extra)].join(
    '/',
  );
  return (
    `the ${route.segments[index]!.slice(1)} "${value}" holds a "/": percent-encode ids in paths ` +
    `(encodeURIComponent), e.g. ${method} ${encoded}`
  );
}

/** `decodeURIComponent`, or the text as it is when it is not valid percent-encoding. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The error handler of the API (fastify's `setErrorHandler`): every error as its problem document
 * (`problemFor`), with `Retry-After` on a 503; internal errors are logged with the request's method
 * and route, the client only sees a generic detail. `members` may add members to each document
 * before it is sent (e.g. `withMarquezMembers`, set on the Marquez routes' plugin, whose encapsulated
 * handler answers every error of those routes: validation, handlers, hooks such as the key check
 * and the write rate limit, the body parser).
 */
export function problemErrorHandler(
  members: (body: Problem) => Problem = (body) => body,
): (error: unknown, request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  return (error, request, reply) => {
    const { problem: body, internal } = problemFor(error);
    if (body.status === 503) void reply.header('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
    if (internal)
      request.log.error(
        { err: error, request: { method: request.method, route: request.routeOptions.url } },
        'Request:Failed',
      );
    return sendProblem(reply, members(body));
  };
}

/**
 * Installs the error handler (`problemErrorHandler`, without added members) and the not-found
 * handler on the root instance. Internal errors are logged with the request's method and route; the
 * client only sees a generic detail. Unknown routes are a 404 `route-not-found`; when the path would
 * match a route had an id in it been percent-encoded (`percentEncodingHint`), the detail says so. The
 * routes are collected by an `onRoute` hook, so the hint knows every route registered after this
 * call. A plugin may set its own handler for its routes (the Marquez routes do).
 */
export function registerProblemHandling(app: AnyFastifyInstance): void {
  const routes: RoutePattern[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      const pattern = routePattern(method, route.url);
      if (pattern && !routes.some((known) => known.method === pattern.method && known.segments.join('/') === route.url))
        routes.push(pattern);
    }
  });
  app.setErrorHandler(problemErrorHandler());
  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '';
    const hint = percentEncodingHint(request.method, path, routes);
    const detail = `no route ${request.method} ${path}${hint === undefined ? '' : `: ${hint}`}`;
    return sendProblem(reply, problem(404, detail, { code: 'ROUTE_NOT_FOUND' }));
  });
}

/**
 * The error responses every route documents: problem documents for 400, 403 and 404. Their
 * descriptions in the OpenAPI document come from the route's entry in `openApiOperations.ts` (e.g.
 * 404 "No graph with that id or name"), else from `GENERIC_RESPONSE_DESCRIPTIONS` of `openApi.ts`.
 */
export const problemResponses = {
  400: ProblemSchema,
  403: ProblemSchema,
  404: ProblemSchema,
} as const;

/** The error responses of the Marquez-compatible routes: `problemResponses` with Marquez's members (`MarquezProblemSchema`). */
export const marquezProblemResponses = {
  400: MarquezProblemSchema,
  403: MarquezProblemSchema,
  404: MarquezProblemSchema,
} as const;
