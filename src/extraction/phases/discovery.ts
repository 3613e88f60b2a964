/**
 * Discovery (progress phase 0, `Discovery`): an environment's name and Kafka clusters
 * (`org.environment`, `cmk.clusters`), the clusters filtered by `--cluster` (`docs/extraction.md`,
 * "Phases"). An environment whose cluster listing fails is unreadable (a warning); extraction
 * fails only when every requested environment is.
 */
import { clustersOfEnvironment } from '../environments.js';
import { failureWarning, isNotFound } from '../failures.js';
import { PlatformApiError } from '../port.js';
import type { DiscoveredEnvironment, ExtractionRun } from '../runContext.js';

/**
 * What discovery made of an environment: `unknown` (the platform says it does not exist: the
 * environment answered 404 and its clusters 403 or 404; not warned, `extract` refuses the request),
 * `unreadable` (its clusters could not be listed: warned as `Discovery:{env}: ...`), `no_clusters`
 * (readable, but no cluster, or none matching the filter: warned), or `found` with the environment to
 * extract. `clusterIds` lists every cluster of a readable environment, before the filter.
 */
export type EnvironmentDiscovery =
  | { status: 'unknown' }
  | { status: 'unreadable' }
  | { status: 'no_clusters'; clusterIds: string[] }
  | { status: 'found'; clusterIds: string[]; environment: DiscoveredEnvironment };

/**
 * Discovers one environment: `getEnvironment` (its display name; a failure leaves the name null and
 * is not warned) and `listKafkaClusters` in parallel, then the cluster filter of `run.settings`.
 * Two requests (more when the cluster listing is paginated). Never rejects for a platform failure.
 */
export async function discoverEnvironment(run: ExtractionRun, environmentId: string): Promise<EnvironmentDiscovery> {
  const { platform, settings } = run;
  run.progress(0, 'Discovery', `clusters in ${environmentId}`);
  let environmentName: string | null = null;
  let clusterBodies;
  let environmentError: unknown;
  try {
    const [environment, clusters] = await Promise.all([
      platform.getEnvironment(environmentId).catch((error: unknown) => {
        environmentError = error;
        return undefined;
      }),
      platform.listKafkaClusters(environmentId),
    ]);
    environmentName = environment?.display_name ?? null;
    clusterBodies = clusters;
  } catch (error) {
    if (isNotFound(environmentError, 'org.environment') && isDenied(error)) return { status: 'unknown' };
    const reason = failureWarning(`Discovery:${environmentId}`, error, environmentId);
    run.warn(reason);
    run.incomplete({ kind: 'environment', environment_id: environmentId, reason });
    return { status: 'unreadable' };
  }
  const clusterIds = clusterBodies.map((cluster) => cluster.id);
  const clusters = clustersOfEnvironment(environmentId, environmentName, clusterBodies, settings.clusterIds);
  if (clusters.length === 0) {
    const filter = settings.clusterIds.length ? ` matching ${settings.clusterIds.join(', ')}` : '';
    run.warn(`Discovery:${environmentId}: no Kafka clusters found${filter}`);
    return { status: 'no_clusters', clusterIds };
  }
  const allClusters = clustersOfEnvironment(environmentId, environmentName, clusterBodies);
  return { status: 'found', clusterIds, environment: { environmentId, environmentName, clusters, allClusters } };
}

/** True for a refusal that an environment the key cannot see answers with: 403 or 404. */
function isDenied(error: unknown): boolean {
  return (
    error instanceof PlatformApiError && error.failure === 'status' && (error.status === 403 || error.status === 404)
  );
}
