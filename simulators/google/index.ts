/**
 * The warehouse (Google) simulator: a real HTTP server answering the BigQuery `tables.get` and
 * Data Lineage `processOpenLineageRunEvent` calls of `infra/catalogs/googleClient.ts` from a
 * scenario, recording the lineage events it receives. See `docs/catalogs.md`.
 *
 * ```ts
 * const sim = await startGoogleSimulator({ scenario: await loadGoogleScenario('demo') });
 * // LINEAGE_SVC_WAREHOUSE_BIGQUERY_API_URL = LINEAGE_SVC_WAREHOUSE_LINEAGE_API_URL = sim.url,
 * // LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN = sim.scenario.token, LINEAGE_SVC_WAREHOUSE_PROJECT_ID = sim.scenario.project_id
 * sim.injectFault({ api: 'warehouse.bigquery.tables.get', status: 503, times: 2 });
 * sim.lineageEvents(); // every event received, with Google's FQNs of its inputs and outputs
 * await sim.close();
 * ```
 */
export { startGoogleSimulator, googleFqn } from './server.js';
export { googleClientEnvironment } from './clientEnvironment.js';
export type { GoogleSimulator, GoogleSimulatorOptions, ReceivedLineageEvent, GoogleRequestLogEntry } from './server.js';
export { loadGoogleScenario, parseGoogleScenario, googleScenarioSchema, builtInGoogleScenarioDir } from './scenario.js';
export type {
  GoogleScenario,
  GoogleScenarioInput,
  GoogleFault,
  GoogleScenarioTable,
  GoogleScenarioLink,
  GoogleScenarioProcess,
  SimulatedColumn,
} from './scenario.js';
