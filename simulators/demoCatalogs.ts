/**
 * The demo's catalog simulators together: Databricks Unity Catalog (lakehouse), Google BigQuery with
 * Data Lineage and Dataplex (warehouse) and AWS DataZone (data governance), each on an ephemeral port
 * of one host with its `demo` scenario, and the variables that point lineage-svc at them
 * (`docs/simulator.md`). `lineage-svc-simulator`, `make demo` and `make serve` start them through this
 * one function, so the three agree on what the demo's catalogs are.
 */
import { loadLakehouseScenario, startLakehouseSimulator } from './databricks/index.js';
import { DEMO_DATAZONE_DOMAIN, DEMO_DATAZONE_PROJECT, startDataZoneSimulator } from './datazone/index.js';
import { googleClientEnvironment, loadGoogleScenario, startGoogleSimulator } from './google/index.js';

/** One catalog simulator's variables, under a line that names it. */
export interface CatalogSimulatorSection {
  /** e.g. `Lakehouse (Databricks Unity Catalog, scenario demo) on http://127.0.0.1:PORT`. */
  title: string;
  /** Variable name -> value, in the order a user would read them. */
  variables: Array<[string, string]>;
}

/** The running catalog simulators. */
export interface DemoCatalogSimulators {
  sections: CatalogSimulatorSection[];
  /** Every section's variables in one object, to merge into a child's environment. */
  environment: Record<string, string>;
  /** Stops all three. */
  close(): Promise<void>;
}

/**
 * Starts the three catalog simulators on `host` with their demo scenarios.
 * @throws when a port cannot be bound (the simulators already started are closed first).
 */
export async function startDemoCatalogSimulators(host = '127.0.0.1'): Promise<DemoCatalogSimulators> {
  const started: Array<{ close(): Promise<void> }> = [];
  const close = async () => void (await Promise.all(started.map((simulator) => simulator.close())));
  try {
    const lakehouse = await startLakehouseSimulator({ scenario: await loadLakehouseScenario('demo'), host });
    started.push(lakehouse);
    const google = await startGoogleSimulator({ scenario: await loadGoogleScenario('demo'), host });
    started.push(google);
    const dataZone = await startDataZoneSimulator({ host });
    started.push(dataZone);
    const sections: CatalogSimulatorSection[] = [
      {
        title: `Lakehouse (Databricks Unity Catalog, scenario demo) on ${lakehouse.url}`,
        variables: [
          ['LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL', lakehouse.url],
          ['LINEAGE_SVC_LAKEHOUSE_TOKEN', lakehouse.scenario.token],
        ],
      },
      {
        title: `Warehouse (Google BigQuery, Data Lineage, Dataplex, scenario demo) on ${google.url}`,
        variables: Object.entries(googleClientEnvironment(google.url, google.scenario)),
      },
      {
        title: `Data governance (AWS DataZone) on ${dataZone.url}; the credentials are AWS's documentation examples`,
        variables: [
          ['LINEAGE_SVC_DATA_GOVERNANCE_DOMAIN_ID', DEMO_DATAZONE_DOMAIN],
          ['LINEAGE_SVC_DATA_GOVERNANCE_PROJECT_ID', DEMO_DATAZONE_PROJECT],
          ['AWS_ENDPOINT_URL_DATAZONE', dataZone.url],
          ['AWS_REGION', 'eu-west-1'],
          ['AWS_ACCESS_KEY_ID', 'AKIAIOSFODNN7EXAMPLE'],
          ['AWS_SECRET_ACCESS_KEY', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
        ],
      },
    ];
    return {
      sections,
      environment: Object.fromEntries(sections.flatMap((section) => section.variables)),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
