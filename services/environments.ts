/**
 * The platform's environments, for the web UI's operations page (issue 27): every Confluent Cloud
 * environment the cloud API key can see (`GET /org/v2/environments`, every page, through the same
 * platform client and credentials as the extraction: `ServiceContext.platform`), each with the live
 * graphs that hold nodes of it. The answer of the platform is kept `ENVIRONMENTS_CACHE_MILLISECONDS`
 * (a failure `ENVIRONMENTS_FAILURE_CACHE_MILLISECONDS`), and callers arriving while a listing is under
 * way share it, so that no number of pages open on the UI asks the platform more than about twice a
 * minute. The graphs are read from the projections at each call (never cached): an extraction that
 * just finished shows at once.
 *
 * Reading only: nothing is appended to the store.
 */
import { PlatformUnavailableError, errorMessage } from '../src/errors.js';
import { PlatformApiError } from '../src/extraction/port.js';
import type { ServiceContext } from './context.js';

/** How long a listing of the platform's environments is reused, in milliseconds (30 s). */
export const ENVIRONMENTS_CACHE_MILLISECONDS = 30_000;
/** How long a failed listing is answered again without asking the platform, in milliseconds (5 s). */
export const ENVIRONMENTS_FAILURE_CACHE_MILLISECONDS = 5_000;

/** One platform environment as the API answers it (`GET /api/v1/environments`). */
export interface PlatformEnvironment {
  /** The environment id, e.g. `env-q7m2k9`. */
  id: string;
  /** Its display name on the platform; null when the platform gives none. */
  display_name: string | null;
  /** Live graphs holding at least one node of this environment, most recently changed first (empty: never extracted). */
  graph_ids: string[];
}

/** The answer of `list`: the environments sorted by display name then id, and when the platform was asked. */
export interface PlatformEnvironmentListing {
  environments: PlatformEnvironment[];
  total: number;
  /** ISO 8601 time at which the platform answered this listing (it may be up to the cache's age old). */
  listed_at: string;
}

/** What the environment listing needs: the configuration, the projections and the platform client. */
export type EnvironmentCatalogContext = Pick<ServiceContext, 'config' | 'runtime' | 'platform'>;

/** Options of `createEnvironmentCatalog`. */
export interface EnvironmentCatalogOptions {
  /** Clock in milliseconds since the epoch (default `Date.now`); tests move it. */
  now?: () => number;
}

/** The platform's environments with a short cache. */
export interface EnvironmentCatalog {
  /**
   * Every environment the cloud key can see, with the graphs holding each.
   * @throws PlatformUnavailableError: 503 without cloud credentials (`PLATFORM_NOT_CONFIGURED`) or
   *   when the platform does not answer (`PLATFORM_UNREACHABLE`), 502 when it answers with an error
   *   (`PLATFORM_FAILED`, for example a 401 for a wrong key).
   */
  list(): Promise<PlatformEnvironmentListing>;
}

interface Listed {
  at: number;
  outcome: { environments: { id: string; display_name: string | null }[] } | { error: PlatformUnavailableError };
}

/** The environment listing over `context` (one platform client, kept for the catalog's life). */
export function createEnvironmentCatalog(
  context: EnvironmentCatalogContext,
  options: EnvironmentCatalogOptions = {},
): EnvironmentCatalog {
  const now = options.now ?? Date.now;
  let platform: ReturnType<EnvironmentCatalogContext['platform']> | undefined;
  let listed: Listed | undefined;
  let pending: Promise<Listed> | undefined;
  /** Environment ids per graph, computed once per graph revision. */
  const environmentsOfGraph = new Map<string, { revision: number; ids: Set<string> }>();

  async function askPlatform(): Promise<Listed> {
    try {
      platform ??= context.platform();
      const bodies = await platform.listEnvironments();
      return {
        at: now(),
        outcome: { environments: bodies.map((body) => ({ id: body.id, display_name: body.display_name ?? null })) },
      };
    } catch (error) {
      return { at: now(), outcome: { error: unavailable(error) } };
    }
  }

  function graphsOf(): Map<string, string[]> {
    const byEnvironment = new Map<string, string[]>();
    for (const state of context.runtime.graphs.list()) {
      let known = environmentsOfGraph.get(state.graphId);
      if (!known || known.revision !== state.revision) {
        const ids = new Set<string>();
        state.graph.forEachNode((node) => {
          if (node.environment_id) ids.add(node.environment_id);
        });
        known = { revision: state.revision, ids };
        environmentsOfGraph.set(state.graphId, known);
      }
      for (const id of known.ids) {
        const graphs = byEnvironment.get(id) ?? [];
        graphs.push(state.graphId);
        byEnvironment.set(id, graphs);
      }
    }
    return byEnvironment;
  }

  return {
    async list() {
      if (!context.config.stream.credentials.cloud)
        throw new PlatformUnavailableError(
          'listing the platform’s environments needs LINEAGE_SVC_STREAM_CLOUD_API_KEY and LINEAGE_SVC_STREAM_CLOUD_API_SECRET, which are not set',
          'not_configured',
        );
      const fresh = (entry: Listed | undefined) =>
        entry !== undefined &&
        now() - entry.at <
          ('error' in entry.outcome ? ENVIRONMENTS_FAILURE_CACHE_MILLISECONDS : ENVIRONMENTS_CACHE_MILLISECONDS);
      if (!fresh(listed)) {
        pending ??= askPlatform().finally(() => (pending = undefined));
        listed = await pending;
      }
      const entry = listed!;
      if ('error' in entry.outcome) throw entry.outcome.error;
      const graphs = graphsOf();
      const environments = entry.outcome.environments
        .map((environment) => ({ ...environment, graph_ids: graphs.get(environment.id) ?? [] }))
        .sort((a, b) => (a.display_name ?? a.id).localeCompare(b.display_name ?? b.id) || a.id.localeCompare(b.id));
      return { environments, total: environments.length, listed_at: new Date(entry.at).toISOString() };
    },
  };
}

/**
 * The API's error for a failed platform listing: 502 when the platform answered an error, 503 when
 * nothing answered. The platform client's message names the URL and what to change (`failureAdvice.ts`).
 */
function unavailable(error: unknown): PlatformUnavailableError {
  const answered =
    error instanceof PlatformApiError && (error.failure === 'status' || error.failure === 'invalid_response');
  return new PlatformUnavailableError(
    `the platform’s environments could not be listed: ${errorMessage(error)}`,
    answered ? 'failed' : 'unreachable',
    { cause: error },
  );
}
