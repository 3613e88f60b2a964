/**
 * `GET /api/v1/environments` (issue 27): the Confluent Cloud environments the configured cloud API key
 * can see, each with the live graphs holding nodes of it, so that the web UI offers them to extract
 * and watch without anyone typing an id. Answered by `services/environments.ts` (the platform's
 * `GET /org/v2/environments`, every page, cached 30 s).
 *
 * Role: `read`, like every GET. Environment ids and names are in every extracted graph a read key
 * already sees, the platform is asked with the operator's key at most about twice a minute whoever
 * calls, and nothing is started: extracting or watching one still needs `operate`.
 *
 * | status | when |
 * |---|---|
 * | 200 | `{environments: [{id, display_name, graph_ids}], total, listed_at}` |
 * | 502 | the platform answered with an error (`PLATFORM_FAILED`: a wrong key's 401, a 403, ...) |
 * | 503 | no cloud credentials (`PLATFORM_NOT_CONFIGURED`), or no answer (`PLATFORM_UNREACHABLE`), with `Retry-After` |
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { count } from './schemas.js';
import { ProblemSchema, problemResponses } from '../problem.js';
import type { EnvironmentCatalog } from '../../../services/environments.js';

/** Options of the environment routes. */
export interface EnvironmentRoutesOptions {
  environments: EnvironmentCatalog;
}

/** One platform environment in the answer. */
export const PlatformEnvironmentSchema = z.object({
  id: z.string().describe('Environment id (env-...)'),
  display_name: z.string().nullable().describe('Display name on the platform; null when it has none'),
  graph_ids: z
    .array(z.string())
    .describe('Live graphs holding nodes of this environment, most recently changed first; empty when never extracted'),
});

/** The environment routes. */
export const environmentRoutes: FastifyPluginAsyncZod<EnvironmentRoutesOptions> = async (app, options) => {
  app.get(
    '/environments',
    {
      schema: {
        tags: ['tasks'],
        summary: 'The platform’s environments (to extract or watch), each with the graphs that hold it',
        response: {
          200: z.object({
            environments: z.array(PlatformEnvironmentSchema),
            total: count('Environments listed'),
            listed_at: z.string().describe('When the platform answered (ISO 8601); up to 30 s old'),
          }),
          ...problemResponses,
          502: ProblemSchema,
          503: ProblemSchema,
        },
      },
    },
    async () => options.environments.list(),
  );
};
