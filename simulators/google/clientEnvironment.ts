/**
 * The configuration that points lineage-svc's warehouse provider at the Google simulator: the
 * `LINEAGE_SVC_WAREHOUSE_*` variables of `src/config.ts` (`docs/contract.md` section 3).
 */
import type { GoogleScenario } from './scenario.js';

/**
 * The warehouse variables for a Google simulator listening at `url` and serving `scenario`: its
 * project, its first Data Lineage location (`us` when it lists none), its token, and `url` for
 * BigQuery, Data Lineage and Dataplex alike. In a stable order (`lineage-svc-simulator` prints them).
 */
export function googleClientEnvironment(
  url: string,
  scenario: Pick<GoogleScenario, 'project_id' | 'locations' | 'token'>,
): Record<string, string> {
  return {
    LINEAGE_SVC_WAREHOUSE_PROJECT_ID: scenario.project_id,
    LINEAGE_SVC_WAREHOUSE_LOCATION: scenario.locations[0] ?? 'us',
    LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN: scenario.token,
    LINEAGE_SVC_WAREHOUSE_BIGQUERY_API_URL: url,
    LINEAGE_SVC_WAREHOUSE_LINEAGE_API_URL: url,
    LINEAGE_SVC_WAREHOUSE_DATAPLEX_API_URL: url,
  };
}
