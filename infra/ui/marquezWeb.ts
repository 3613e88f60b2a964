/**
 * Marquez Web served by `lineage-svc-ui` (issue 25 item 5; docs/marquez.md, "Marquez Web"): a
 * production build of Marquez's web UI (its `web/dist`), unchanged, from the folder
 * `LINEAGE_SVC_MARQUEZ_WEB_DIR`, on a port of its own (`LINEAGE_SVC_MARQUEZ_WEB_PORT`, default
 * 3000, where Marquez serves it), beside our own UI. The build names its assets from `/` (`<base
 * href="/">`), so it needs an origin of its own.
 *
 * It is the UI server of `server.ts` with Marquez Web's single-page routes (`/jobs`, `/datasets`,
 * `/events`, `/lineage/...`, `/datasets/column-level/...` answer `index.html`, as upstream's
 * `setupProxy.js` does) and both API bases its build calls (`/api/v1`, `/api/v2beta`) proxied to
 * `LINEAGE_SVC_API_URL`, with the same guards: the `Host` and `Origin` checks, and the configured
 * key lent to reads only (Marquez Web sends no key, so its writes reach an API with keys only when
 * the API needs none).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { buildUiServer, type UiServerOptions } from './server.js';

/** Marquez Web's own routes (path prefixes) that answer its `index.html`. */
export const MARQUEZ_WEB_ROUTES = ['/jobs', '/datasets', '/events', '/lineage', '/datasets/column-level'] as const;

/** The API bases compiled into Marquez Web's build. */
export const MARQUEZ_WEB_API_PREFIXES = ['/api/v1', '/api/v2beta'] as const;

/** Settings of the Marquez Web server. */
export interface MarquezWebSettings {
  /** The folder of the build (holding `index.html` and `bundle.js`): `LINEAGE_SVC_MARQUEZ_WEB_DIR`; undefined: not served. */
  folder: string | undefined;
  /** Port to listen on (`LINEAGE_SVC_MARQUEZ_WEB_PORT`, default 3000; 0 picks a free one), on `LINEAGE_SVC_UI_HOST`. */
  port: number;
}

const blankToUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

const MarquezWebEnvironment = z.object({
  LINEAGE_SVC_MARQUEZ_WEB_DIR: z.preprocess(blankToUndefined, z.string().optional()),
  LINEAGE_SVC_MARQUEZ_WEB_PORT: z.preprocess(
    blankToUndefined,
    z.coerce.number().int('must be a whole number').min(0).max(65535, 'must be a port, 0 to 65535').default(3000),
  ),
});

/**
 * Reads the Marquez Web settings from `env`.
 * @throws Error naming the bad variable, or saying that the folder holds no Marquez Web build.
 */
export function loadMarquezWebSettings(env: Record<string, string | undefined> = process.env): MarquezWebSettings {
  const parsed = MarquezWebEnvironment.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`invalid settings: ${problems.join('; ')}`);
  }
  const folder = parsed.data.LINEAGE_SVC_MARQUEZ_WEB_DIR;
  if (folder !== undefined && !existsSync(join(folder, 'index.html'))) {
    throw new Error(
      `LINEAGE_SVC_MARQUEZ_WEB_DIR: ${join(folder, 'index.html')} is missing; give the folder of a Marquez Web build (web/dist)`,
    );
  }
  return { folder, port: parsed.data.LINEAGE_SVC_MARQUEZ_WEB_PORT };
}

/** Builds (does not start) the server of a Marquez Web build in `folder`, proxying to the API of `settings`. */
export async function buildMarquezWebServer(
  folder: string,
  options: Omit<UiServerOptions, 'assetFolder' | 'spaRoutes' | 'proxiedPrefixes'>,
): Promise<FastifyInstance> {
  return buildUiServer({
    ...options,
    assetFolder: folder,
    spaRoutes: MARQUEZ_WEB_ROUTES,
    proxiedPrefixes: MARQUEZ_WEB_API_PREFIXES,
  });
}
