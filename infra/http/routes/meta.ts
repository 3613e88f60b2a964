/**
 * Meta endpoints under `/api/v1` (`docs/specification.md`, "Endpoints" -> "Meta"): `GET /health`
 * (always open), `GET /version` (from package.json), `GET /catalogs` (the catalog providers and
 * whether each is configured). `GET /openapi.yaml` is registered by `../app.ts` beside the other documents.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../../src/config.js';
import { CATALOG_REGISTRY } from '../../../src/catalogs/registry.js';
import { CATALOG_TYPES, type CatalogType } from '../../../src/graph/model.js';
import { problemResponses } from '../problem.js';

/** Name and version of the running package. */
export interface PackageInfo {
  name: string;
  version: string;
}

/**
 * Reads name and version from the nearest package.json above this file (the sources run from the
 * repository, the build from `dist/`, so the depth differs).
 */
export function packageInfo(from: string = import.meta.dirname): PackageInfo {
  for (let folder = from; ; folder = dirname(folder)) {
    try {
      const json = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Partial<PackageInfo>;
      if (typeof json.name === 'string' && typeof json.version === 'string')
        return { name: json.name, version: json.version };
    } catch {
      // no package.json here: keep walking up
    }
    if (dirname(folder) === folder) return { name: 'lineage-svc', version: '0.0.0' };
  }
}

/** One catalog provider as `GET /catalogs` lists it. */
export interface CatalogProvider {
  catalog_type: CatalogType;
  /** The node `system` of its tables (`null` for push-only providers). */
  system: 'lakehouse' | 'datalake' | 'warehouse' | null;
  /** What it does: enrich tables, push lineage, or both. */
  capabilities: Array<'enrich' | 'push'>;
  /** True when every setting it needs is present. */
  configured: boolean;
  /** The variables it needs (names only, never values). */
  settings: string[];
}

/**
 * The registered catalog providers (`docs/contract.md` sections 1 and 2: the catalog words and the
 * `catalog_type` values), read from the registry
 * (`src/catalogs/registry.ts`): `configured` when none of its required variables is missing;
 * `capabilities` empty for providers listed but not implemented yet.
 */
export function catalogProviders(config: Config): CatalogProvider[] {
  return CATALOG_REGISTRY.map((entry) => ({
    catalog_type: entry.catalogType,
    system: entry.system === null ? null : (entry.system.toLowerCase() as 'lakehouse' | 'datalake' | 'warehouse'),
    capabilities: entry.provider ? (entry.system === null ? ['push'] : ['enrich', 'push']) : [],
    configured: entry.missingSettings(config).length === 0,
    settings: [...entry.settings],
  }));
}

/** Options of the meta routes. */
export interface MetaRoutesOptions {
  config: Config;
}

const tags = ['meta'];

/** Registers the meta routes (register with `{ prefix: '/api/v1' }`). */
export const metaRoutes: FastifyPluginAsyncZod<MetaRoutesOptions> = async (app, { config }) => {
  const info = packageInfo();
  const catalogs = catalogProviders(config);

  app.get(
    '/health',
    {
      schema: {
        tags,
        summary: 'Liveness; never needs a key',
        security: [],
        response: { 200: z.object({ status: z.literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/version',
    {
      schema: {
        tags,
        summary: 'Service name and version',
        response: { 200: z.object({ name: z.string(), version: z.string() }), 403: problemResponses[403] },
      },
    },
    async () => info,
  );

  app.get(
    '/catalogs',
    {
      schema: {
        tags,
        summary: 'Registered catalog providers and whether each is configured',
        response: {
          200: z.object({
            catalogs: z.array(
              z.object({
                catalog_type: z.enum(CATALOG_TYPES),
                system: z.enum(['lakehouse', 'datalake', 'warehouse']).nullable(),
                capabilities: z.array(z.enum(['enrich', 'push'])),
                configured: z.boolean(),
                settings: z.array(z.string()),
              }),
            ),
          }),
          403: problemResponses[403],
        },
      },
    },
    async () => ({ catalogs }),
  );
};
