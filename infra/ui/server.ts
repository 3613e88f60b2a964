/**
 * The web UI server of `lineage-svc-ui`: serves the single-page app built by Vite from `ui/` (every
 * asset from this package: no CDN, no font service) and proxies `/api/v1/*` to the REST API,
 * adding the API key itself so that the key never reaches the browser.
 *
 * - `GET /` and the built assets: `@fastify/static` over the build folder (default `dist/ui`).
 * - `/api/v1/*` (every method): `@fastify/http-proxy` to `{apiUrl}/api/v1/*`; the browser's own
 *   `X-API-Key` header, if any, is dropped and replaced by the configured key. When the API does not
 *   answer: 502 problem+json naming the API URL.
 * - Anything else: 404 problem+json. Every answer carries a Content-Security-Policy that allows
 *   nothing off the page's own origin.
 */
import { existsSync } from 'node:fs';
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
  /** Sent as `X-API-Key` on every proxied request (`LINEAGE_SVC_API_KEY`); none when unset. */
  apiKey: string | undefined;
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
});

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
  settings: Pick<UiSettings, 'apiUrl' | 'apiKey'>;
  /** The built app (holding `index.html`); default `defaultAssetFolder()`. */
  assetFolder?: string;
  /** Fastify's logger option (default off). */
  logger?: boolean | { level: string };
}

/** A problem+json body (RFC 9457) as the UI server sends it. */
function problem(status: number, title: string, detail: string, type: string) {
  return { type: `urn:lineage-svc:problem:${type}`, title, status, detail };
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
  // Connections are closed at once on close: browsers keep theirs open, and Ctrl-C should not wait for them.
  const app = Fastify({ logger: options.logger ?? false, forceCloseConnections: true });

  // Security headers from helmet (nosniff, frame and referrer policies, ...) with the page's own policy.
  registerHelmet(app, {
    contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_DIRECTIVES },
    referrerPolicy: { policy: 'no-referrer' },
  });

  await app.register(fastifyHttpProxy, {
    upstream: apiUrl,
    prefix: '/api/v1',
    rewritePrefix: '/api/v1',
    replyOptions: {
      rewriteRequestHeaders: (_request, headers) => {
        const forwarded = { ...headers };
        delete forwarded['x-api-key'];
        delete forwarded['cookie'];
        if (apiKey !== undefined) forwarded['x-api-key'] = apiKey;
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

  await app.register(fastifyStatic, { root: assetFolder, index: ['index.html'] });

  app.setNotFoundHandler((request, reply) => {
    reply
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
