/**
 * Phase 4 (`Phase 4/4`): table materialization, Tableflow topic -> materialized table -> catalog
 * table (`docs/extraction.md`, "Phases", item 4). Requests per cluster, in parallel:
 * `tableflow.topics` and `tableflow.catalog-integrations`.
 */
import type { DiscoveredEnvironment, ExtractionRun } from '../runContext.js';
import { tableflowFragment } from '../tableflow.js';

/**
 * Runs phase 4 on one environment: one guarded extractor `Tableflow:{cluster}` per cluster, all in
 * parallel, adding MATERIALIZED_TABLE and CATALOG_TABLE nodes and MATERIALIZES edges to
 * `run.builder` (data-lake tables in `run.settings.datalakeRegion`, else the cluster's region).
 * Never rejects for a platform failure.
 */
export async function extractTableflow(run: ExtractionRun, environment: DiscoveredEnvironment): Promise<void> {
  const env = environment.environmentId;
  run.progress(4, 'Phase 4/4', `table materialization in ${env}`);
  await Promise.all(
    environment.clusters.map((cluster) =>
      run.guarded(
        `Tableflow:${cluster.clusterId}`,
        env,
        async () => {
          const [tables, integrations] = await Promise.all([
            run.platform.listTableflowTopics(env, cluster.clusterId),
            run.platform.listCatalogIntegrations(env, cluster.clusterId),
          ]);
          run.builder.add(
            tableflowFragment(cluster, tables, integrations, { datalakeRegion: run.settings.datalakeRegion }),
          );
        },
        undefined,
        [{ kind: 'tableflow', environment_id: env, cluster_id: cluster.clusterId }],
      ),
    ),
  );
}
