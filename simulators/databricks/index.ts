/**
 * The lakehouse (Databricks) simulator: a real HTTP server answering the Unity Catalog, table
 * lineage, SQL warehouse and SQL Statement Execution calls of `infra/catalogs/databricksClient.ts`
 * from a scenario, recording the SQL statements it executes. See `docs/catalogs.md`.
 *
 * ```ts
 * const sim = await startLakehouseSimulator({ scenario: await loadLakehouseScenario('demo') });
 * // LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL = sim.url, LINEAGE_SVC_LAKEHOUSE_TOKEN = sim.scenario.token
 * sim.injectFault({ api: 'lakehouse.tables.get', status: 503, times: 2 });
 * sim.statements(); // every statement executed, parsed
 * await sim.close();
 * ```
 */
export { startLakehouseSimulator } from './server.js';
export type {
  LakehouseSimulator,
  LakehouseSimulatorOptions,
  ExecutedStatement,
  SimulatedTable,
  LakehouseRequestLogEntry,
} from './server.js';
export {
  loadLakehouseScenario,
  parseLakehouseScenario,
  lakehouseScenarioSchema,
  builtInLakehouseScenarioDir,
} from './scenario.js';
export type { LakehouseScenario, LakehouseScenarioInput, LakehouseFault } from './scenario.js';
export { parseStatement, tokenize, SqlSyntaxError } from './sql.js';
export type { ParsedStatement, SqlValue } from './sql.js';
