/**
 * Discovery (progress phase 0, `Discovery`): an environment's name and Kafka clusters
 * (`org.environment`, `cmk.clusters`), the clusters filtered by `--cluster` (`docs/extraction.md`,
 * "Phases"). An environment whose cluster listing fails is unreadable (a warning); extraction
 * fails only when every requested environment is.
 */
import { clustersOfEnvironment } from '../environments.js';
import { failureWarning } from '../failures.js';
import type { DiscoveredEnvironment, ExtractionRun } from '../runContext.js';

/**
 * What discovery made of an environment: `unreadable` (its clusters could not be listed: warned as
 * `Discovery:{env}: ...`), `no_clusters` (readable, but no cluster, or none matching the filter:
 * warned), or `found` with the environment to extract.
 */
export type EnvironmentDiscovery =
  { status: 'unreadable' } | { status: 'no_clusters' } | { status: 'found'; environment: DiscoveredEnvironment };

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
  try {
    const [environment, clusters] = await Promise.all([
      platform.getEnvironment(environmentId).catch(() => undefined),
      platform.listKafkaClusters(environmentId),
    ]);
    environmentName = environment?.display_name ?? null;
    clusterBodies = clusters;
  } catch (error) {
    run.warn(failureWarning(`Discovery:${environmentId}`, error, environmentId));
    return { status: 'unreadable' };
  }
  const clusters = clustersOfEnvironment(environmentId, environmentName, clusterBodies, settings.clusterIds);
  if (clusters.length === 0) {
    const filter = settings.clusterIds.length ? ` matching ${settings.clusterIds.join(', ')}` : '';
    run.warn(`Discovery:${environmentId}: no Kafka clusters found${filter}`);
    return { status: 'no_clusters' };
  }
  return { status: 'found', environment: { environmentId, environmentName, clusters } };
}
