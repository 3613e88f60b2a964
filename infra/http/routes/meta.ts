/**
 * Meta endpoints under `/api/v1` (`docs/specification.md`, "Endpoints" -> "Meta"): `GET /health`
 * (liveness, always open), `GET /version` (from package.json), `GET /catalogs` (the catalog providers
 * and whether each is configured). `GET /openapi.yaml` is registered by `../app.ts` beside the other documents.
 *
 * Liveness stays cheap (two flags read, no I/O) and fails only when the process cannot get well by
 * itself, so that Kubernetes restarts it (`docs/operations.md`, "Readiness and recovery"): 503
 * problem+json (code `NOT_LIVE`) once this process's lease was recorded expired by another process
 * (its tasks and watchers were taken over: a restart takes a new lease), or once the projector failed
 * (a projection threw applying an event). A store outage is not such a case: the projector and the
 * lease retry and recover, and restarting every replica while the database is down would not help;
 * readiness (`GET /api/v1/ready`) takes the process out of service meanwhile. A process whose event
 * loop is blocked does not answer at all, and the probe's own timeout fails it.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../../src/config.js';
import type { Projector } from '../../../projections/projector.js';
import type { ProcessLease } from '../../../services/ownership.js';
import { CATALOG_REGISTRY } from '../../../src/catalogs/registry.js';
import { CATALOG_TYPES, type CatalogType } from '../../../src/graph/model.js';
import { ProblemSchema, problem, problemResponses, sendProblem } from '../problem.js';
import { PROBE_LOG_LEVEL } from './operations.js';

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
  /** This process's lease: liveness fails once it is lost. */
  lease?: Pick<ProcessLease, 'lost'>;
  /** The projector: liveness fails once it failed. */
  projector?: Pick<Projector, 'status'>;
}

/**
 * Why the process is not live (it cannot recover without a restart), or undefined while it is. Reads
 * two flags: no I/O.
 */
export function notLiveReason(options: Pick<MetaRoutesOptions, 'lease' | 'projector'>): string | undefined {
  if (options.lease?.lost)
    return 'this process lost its lease (another process recorded it expired and took its work over): restart it';
  if (options.projector?.status === 'failed')
    return 'the projections stopped on an event they could not apply (see the server log): restart the process';
  return undefined;
}

const tags = ['meta'];

/** Registers the meta routes (register with `{ prefix: '/api/v1' }`). */
export const metaRoutes: FastifyPluginAsyncZod<MetaRoutesOptions> = async (app, { config, lease, projector }) => {
  const info = packageInfo();
  const catalogs = catalogProviders(config);

  app.get(
    '/health',
    {
      // The liveness probe: logged like the other probes, warnings only.
      logLevel: PROBE_LOG_LEVEL,
      schema: {
        tags,
        summary: 'Liveness; never needs a key',
        security: [],
        response: {
          200: z.object({ status: z.literal('ok') }),
          503: ProblemSchema.describe('Not live: the process cannot recover by itself and should be restarted'),
        },
      },
    },
    async (request, reply) => {
      const reason = notLiveReason({ lease, projector });
      if (reason === undefined) return { status: 'ok' as const };
      request.log.error({ reason }, 'Health:NotLive');
      return sendProblem(reply, problem(503, reason, { code: 'NOT_LIVE' }));
    },
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
