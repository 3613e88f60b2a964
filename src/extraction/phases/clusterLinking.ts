/**
 * Cluster Linking, the end of phase 1's work (`docs/extraction.md`, "Phases", item 1): after the
 * last environment, the `source topic -TRANSFORMS-> mirror topic` edges of the mirror topics phase 1
 * read. A link's source cluster may belong to an environment extracted later, and only once every
 * environment is done is it known whether the source is one of this run's topics or an external
 * `kafka://{cluster}/{topic}` dataset (`src/extraction/clusterLinks.ts`). No request, no progress line.
 */
import { clusterLinkFragment } from '../clusterLinks.js';
import type { DiscoveredEnvironment, ExtractionRun, TopicInventory } from '../runContext.js';

/**
 * Adds the TRANSFORMS edges (and external `kafka://` datasets) of every environment's mirror topics
 * to `run.builder`; a mirror whose link is not listed or names no source cluster is skipped with a warning.
 * @param environments every environment extracted in this run (their clusters are "extracted clusters", in any environment).
 */
export function linkMirrorTopics(
  run: ExtractionRun,
  environments: readonly (DiscoveredEnvironment & Pick<TopicInventory, 'clusterLinking'>)[],
): void {
  const extractedClusters = new Map<string, string>();
  for (const environment of environments)
    for (const cluster of environment.clusters) extractedClusters.set(cluster.clusterId, environment.environmentId);
  for (const environment of environments) {
    for (const { cluster, inventory } of environment.clusterLinking)
      run.builder.add(clusterLinkFragment(cluster, inventory, extractedClusters, run.warn));
  }
}
