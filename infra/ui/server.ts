/**
 * The web UI server of `lineage-svc-ui`: serves the single-page app built by Vite from `ui/` (every
 * asset from this package: no CDN, no font service) and proxies `/api/v1/*` to the REST API. It
 * lends its own key to reads only (`docs/ui.md`, "Who may do what"; issue 23).
 *
 * - Every request: its `Host` must be one of the allowed hosts (`LINEAGE_SVC_UI_ALLOWED_HOSTS`,
 *   default `defaultAllowedHosts`), else 403 problem+json `host-not-allowed`: a page of another site
 *   whose name was rebound to this address (DNS rebinding) reads nothing. A request that carries an
 *   `Origin` must come from the UI's own origin (`http(s)://` + its `Host`), and every request with
 *   a method other than GET and HEAD must carry one, else 403 `origin-not-allowed`: no other site's
 *   page can start anything through a visitor's browser.
 * - `GET /` and the built assets: `@fastify/static` over the build folder (default `dist/ui`).
 * - `/api/v1/*`: `@fastify/http-proxy` to `{apiUrl}/api/v1/*`. GET and HEAD carry the configured
 *   key (`LINEAGE_SVC_API_KEY`, meant to be a read key; none when unset) in place of any sent by the
 *   browser. Every other method carries the browser's own `X-API-Key` (the user's key, asked by the
 *   page's sign-in dialog) and never the configured key; without one it is refused here with 401
 *   problem+json `api-key-missing`. Cookies are never forwarded. When the API does not answer: 502
 *   problem+json naming the API URL.
 * - Anything else: 404 problem+json. Every answer carries a Content-Security-Policy that allows
 *   nothing off the page's own origin.
 */
import { existsSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { networkInterfaces } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyHttpProxy from '@fastify/http-proxy';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerHelmet } from '../http/hardening.js';
import { z } from 'zod';

/** The media type of every error answer of the UI server. */
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/**
 * The page may load scripts, styles, workers and data from its own origin only; `blob:` and `data:`
 * images are for exported files and the canvas.
 */
const CONTENT_SECURITY_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:', 'blob:'],
  workerSrc: ["'self'", 'blob:'],
  connectSrc: ["'self'"],
  fontSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  frameAncestors: ["'none'"],
};

/** The content security policy of every answer, as the header reads. */
export const CONTENT_SECURITY_POLICY = Object.entries(CONTENT_SECURITY_DIRECTIVES)
  .map(([name, sources]) => `${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)} ${sources.join(' ')}`)
  .join(';');

/** Settings of `lineage-svc-ui`, read from the environment by `loadUiSettings`. */
export interface UiSettings {
  /** Address to listen on (`LINEAGE_SVC_UI_HOST`, default `127.0.0.1`). */
  host: string;
  /** Port to listen on (`LINEAGE_SVC_UI_PORT`, default 8501; 0 picks a free one). */
  port: number;
  /** Base URL of the REST API, without `/api/v1` (`LINEAGE_SVC_API_URL`, default `http://127.0.0.1:8000`). */
  apiUrl: string;
  /**
   * Sent as `X-API-Key` on proxied GET and HEAD requests only (`LINEAGE_SVC_API_KEY`; give it a key
   * with the `read` role); none when unset. Never added to a request that can change something.
   */
  apiKey: string | undefined;
  /**
   * The names a request's `Host` may give (`LINEAGE_SVC_UI_ALLOWED_HOSTS`: comma-separated `host`
   * or `host:port` entries, IPv6 addresses in brackets, lowercase; an entry without a port allows
   * any port). Undefined: `defaultAllowedHosts(host)`.
   */
  allowedHosts: string[] | undefined;
}

const blankToUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

const UiEnvironmentSchema = z.object({
  LINEAGE_SVC_UI_HOST: z.preprocess(blankToUndefined, z.string().default('127.0.0.1')),
  LINEAGE_SVC_UI_PORT: z.preprocess(
    blankToUndefined,
    z.coerce.number().int('must be a whole number').min(0).max(65535, 'must be a port, 0 to 65535').default(8501),
  ),
  LINEAGE_SVC_API_URL: z.preprocess(
    blankToUndefined,
    z
      .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
      .default('http://127.0.0.1:8000')
      .transform((value) => value.replace(/\/+$/, '')),
  ),
  LINEAGE_SVC_API_KEY: z.preprocess(blankToUndefined, z.string().optional()),
  LINEAGE_SVC_UI_ALLOWED_HOSTS: z.preprocess(
    blankToUndefined,
    z
      .string()
      .transform((value) => value.split(',').map((entry) => entry.trim()))
      .refine(
        (entries) => entries.every((entry) => parseHost(entry) !== undefined),
        'must be comma-separated host or host:port entries (IPv6 addresses in brackets), e.g. lineage.example.com,localhost',
      )
      .transform((entries) => entries.map((entry) => parseHost(entry)!.host))
      .optional(),
  ),
});

/**
 * A `Host` header value or an allowed-hosts entry, parsed by WHATWG URL rules: `hostname` lowercase
 * (IPv6 in brackets), `port` empty for the scheme's default, `host` both. Undefined when `value`
 * is not a bare `host[:port]` (a path, user, query, fragment or an empty name).
 */
export function parseHost(value: string): { host: string; hostname: string; port: string } | undefined {
  if (value === '' || /[/?#@\\\s]/.test(value)) return undefined;
  try {
    const url = new URL(`http://${value}`);
    if (url.hostname === '' || url.pathname !== '/') return undefined;
    return { host: url.host, hostname: url.hostname, port: url.port };
  } catch {
    return undefined;
  }
}

/**
 * The hosts allowed when `LINEAGE_SVC_UI_ALLOWED_HOSTS` is unset, each on any port: `localhost`,
 * `127.0.0.1`, `[::1]` and the bind address (an IPv6 one in brackets); for a wildcard bind
 * (`0.0.0.0`, `::`), also every address of this machine's network interfaces (what a container's
 * probes and a LAN client use). An address cannot be rebound by another site (only names can), and
 * a port mapping (`docker -p`, `kubectl port-forward`) changes the port the browser names, so no
 * port is required.
 */
export function defaultAllowedHosts(bindHost: string): string[] {
  const hosts = new Set(['localhost', '127.0.0.1', '[::1]']);
  const addHost = (address: string) => {
    const parsed = parseHost(address.includes(':') && !address.startsWith('[') ? `[${address}]` : address);
    if (parsed) hosts.add(parsed.hostname);
  };
  addHost(bindHost);
  if (['0.0.0.0', '::', '[::]'].includes(bindHost)) {
    for (const address of Object.values(networkInterfaces()).flat()) if (address) addHost(address.address);
  }
  return [...hosts];
}

/**
 * Reads the UI settings from `env`. Throws an Error naming every bad variable (e.g.
 * `LINEAGE_SVC_UI_PORT: must be a port, 0 to 65535`).
 */
export function loadUiSettings(env: Record<string, string | undefined> = process.env): UiSettings {
  const parsed = UiEnvironmentSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`invalid settings: ${problems.join('; ')}`);
  }
  const value = parsed.data;
  return {
    host: value.LINEAGE_SVC_UI_HOST,
    port: value.LINEAGE_SVC_UI_PORT,
    apiUrl: value.LINEAGE_SVC_API_URL,
    apiKey: value.LINEAGE_SVC_API_KEY,
    allowedHosts: value.LINEAGE_SVC_UI_ALLOWED_HOSTS,
  };
}

/**
 * The folder of the built app: `dist/ui` of this package, whether this module runs compiled (from
 * `dist/infra/ui/`) or from source through tsx (from `infra/ui/`).
 */
export function defaultAssetFolder(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const packageLevel = resolve(here, '..', '..');
  return basename(packageLevel) === 'dist' ? join(packageLevel, 'ui') : join(packageLevel, 'dist', 'ui');
}

/** Options of `buildUiServer`. */
export interface UiServerOptions {
  /** `host` (default `127.0.0.1`) gives the default allowed hosts when `allowedHosts` is undefined. */
  settings: Pick<UiSettings, 'apiUrl' | 'apiKey'> & Partial<Pick<UiSettings, 'host' | 'allowedHosts'>>;
  /** The built app (holding `index.html`); default `defaultAssetFolder()`. */
  assetFolder?: string;
  /** Fastify's logger option (default off). */
  logger?: boolean | { level: string };
  /**
   * Path prefixes of a single-page app's own routes (e.g. Marquez Web's `/jobs`, `/lineage/`): a GET
   * of one that is no asset answers the app's `index.html`. Default none (our UI keeps its state in the query).
   */
  spaRoutes?: readonly string[];
  /** Path prefixes proxied to the API, each to the same path there (default `['/api/v1']`). */
  proxiedPrefixes?: readonly string[];
}

/** The path prefix proxied to the API. */
const PROXIED_PREFIX = '/api/v1';

/** A problem+json body (RFC 9457) as the UI server sends it. */
function problem(status: number, title: string, detail: string, type: string) {
  return { type: `urn:lineage-svc:problem:${type}`, title, status, detail };
}

/** The methods that change nothing: the only ones the UI server adds its own key to. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

/** Why a request is refused before it reaches the app or the API: status, problem type and detail. */
export interface Refusal {
  status: 401 | 403;
  type: 'host-not-allowed' | 'origin-not-allowed' | 'api-key-missing';
  detail: string;
}

/** True when `host` (parsed) is named by one of `allowedHosts` (`host` entries allow any port). */
function isAllowedHost(host: { host: string; hostname: string }, allowedHosts: readonly string[]): boolean {
  return allowedHosts.some((entry) => entry === host.host || entry === host.hostname);
}

/** True when `origin` is `http://` or `https://` followed by exactly `host` (the page's own origin). */
function isOwnOrigin(origin: string, host: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host === host && url.origin === origin;
  } catch {
    return false;
  }
}

/** A header's single value; undefined when absent or repeated. */
const single = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);

/**
 * Decides whether the UI server refuses a request (pure; `buildUiServer` runs it on every request):
 * 403 `host-not-allowed` when `Host` is missing or not allowed; 403 `origin-not-allowed` when an
 * `Origin` is not the page's own, or when a method other than GET and HEAD carries none; 401
 * `api-key-missing` when such a method is proxied to the API (`proxied`) without an `X-API-Key`.
 * Undefined: the request goes on.
 */
export function refusalOf(
  method: string,
  headers: IncomingHttpHeaders,
  allowedHosts: readonly string[],
  proxied: boolean,
): Refusal | undefined {
  const hostHeader = single(headers.host);
  const host = hostHeader === undefined ? undefined : parseHost(hostHeader);
  if (host === undefined || !isAllowedHost(host, allowedHosts)) {
    return {
      status: 403,
      type: 'host-not-allowed',
      detail:
        // The allowed hosts are not listed: a rebound page reads this answer, and they may name internal addresses.
        `the Host ${JSON.stringify(hostHeader ?? '')} is not one of this UI's hosts; ` +
        'open the UI by its address, or add this name to LINEAGE_SVC_UI_ALLOWED_HOSTS',
    };
  }
  const origin = single(headers.origin);
  const safe = SAFE_METHODS.has(method);
  if ((origin !== undefined || !safe) && (origin === undefined || !isOwnOrigin(origin, host.host))) {
    return {
      status: 403,
      type: 'origin-not-allowed',
      detail:
        origin === undefined
          ? `a ${method} through the UI must come from its own page (no Origin header): call the API directly instead`
          : `a request from ${JSON.stringify(origin)} is refused: only the UI's own page (http(s)://${host.host}) may call it`,
    };
  }
  if (!safe && proxied && single(headers['x-api-key']) === undefined) {
    return {
      status: 401,
      type: 'api-key-missing',
      detail: `a ${method} changes something and needs your own API key in X-API-Key (the web UI asks for it); this server adds its key to reads only`,
    };
  }
  return undefined;
}

/**
 * Builds (does not start) the UI server. Throws when the asset folder holds no `index.html` (the
 * message says to run `make build`).
 */
export async function buildUiServer(options: UiServerOptions): Promise<FastifyInstance> {
  const assetFolder = options.assetFolder ?? defaultAssetFolder();
  if (!existsSync(join(assetFolder, 'index.html'))) {
    throw new Error(`the web UI is not built: ${join(assetFolder, 'index.html')} is missing (run make build)`);
  }
  const { apiUrl, apiKey } = options.settings;
  const allowedHosts = options.settings.allowedHosts ?? defaultAllowedHosts(options.settings.host ?? '127.0.0.1');
  // Connections are closed at once on close: browsers keep theirs open, and Ctrl-C should not wait for them.
  // A request without Host reaches the hook below, which answers it in problem+json (Node's own check would answer 400 in plain text).
  const app = Fastify({
    logger: options.logger ?? false,
    forceCloseConnections: true,
    http: { requireHostHeader: false },
  });

  // Security headers from helmet (nosniff, frame and referrer policies, ...) with the page's own policy.
  registerHelmet(app, {
    contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_DIRECTIVES },
    referrerPolicy: { policy: 'no-referrer' },
  });

  // Host, Origin and the user's key are checked before anything is served or proxied.
  const proxiedPrefixes = options.proxiedPrefixes ?? [PROXIED_PREFIX];
  app.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.url;
    const proxied = route !== undefined && proxiedPrefixes.some((prefix) => route.startsWith(prefix));
    const refusal = refusalOf(request.method, request.headers, allowedHosts, proxied);
    if (refusal === undefined) return;
    if (refusal.status === 401) reply.header('www-authenticate', 'APIKey header="X-API-Key"');
    return reply
      .code(refusal.status)
      .type(PROBLEM_MEDIA_TYPE)
      .send(
        problem(refusal.status, refusal.status === 401 ? 'Unauthorized' : 'Forbidden', refusal.detail, refusal.type),
      );
  });

  for (const prefix of proxiedPrefixes) await registerApiProxy(app, prefix, apiUrl, apiKey);

  await app.register(fastifyStatic, { root: assetFolder, index: ['index.html'] });

  const spaRoutes = options.spaRoutes ?? [];
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (request.method === 'GET' && spaRoutes.some((route) => path === route || path.startsWith(`${route}/`)))
      return reply.type('text/html').sendFile('index.html');
    return reply
      .code(404)
      .type(PROBLEM_MEDIA_TYPE)
      .send(problem(404, 'Not Found', `no such page or asset: ${request.method} ${request.url}`, 'route-not-found'));
  });
  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    const detail = status === 500 ? 'internal error of the UI server' : error.message;
    if (status === 500) app.log.error({ err: error }, 'Ui:Error');
    reply
      .code(status)
      .type(PROBLEM_MEDIA_TYPE)
      .send(problem(status, status === 500 ? 'Internal Server Error' : 'Bad Request', detail, 'ui-server-error'));
  });
  return app;
}

/**
 * Proxies `{prefix}/*` to `{apiUrl}{prefix}/*`: reads carry `apiKey` in place of any key the browser
 * sent, every other method the browser's own key only; cookies are dropped; 502 problem+json when
 * the API does not answer.
 */
async function registerApiProxy(
  app: FastifyInstance,
  prefix: string,
  apiUrl: string,
  apiKey: string | undefined,
): Promise<void> {
  await app.register(fastifyHttpProxy, {
    upstream: apiUrl,
    prefix,
    rewritePrefix: prefix,
    replyOptions: {
      rewriteRequestHeaders: (request, headers) => {
        const forwarded = { ...headers };
        const browserKey = single(forwarded['x-api-key']);
        delete forwarded['x-api-key'];
        delete forwarded['cookie'];
        // Reads carry this server's key; anything else only the user's own, never this server's.
        const key = SAFE_METHODS.has(request.method) ? apiKey : browserKey;
        if (key !== undefined) forwarded['x-api-key'] = key;
        return forwarded;
      },
      onError: (reply, { error }) => {
        reply
          .code(502)
          .type(PROBLEM_MEDIA_TYPE)
          .send(
            problem(
              502,
              'Bad Gateway',
              `the lineage-svc API at ${apiUrl} does not answer (${error.message}); start lineage-svc-api or set LINEAGE_SVC_API_URL`,
              'api-unreachable',
            ),
          );
      },
    },
  });
}
