/**
 * The platform simulator: a real HTTP server that answers the Confluent Cloud REST APIs a lineage
 * extractor calls, with the real paths, response shapes, pagination, credentials and error bodies,
 * from a scenario. See `docs/simulator.md` for the path scheme, the scenario format, fault
 * injection and request accounting.
 *
 * ```ts
 * const sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
 * // LINEAGE_SVC_STREAM_CLOUD_API_URL = sim.url ...
 * sim.injectFault({ api: 'kafka-rest.topics', kind: 'status', status: 503, times: 1 });
 * sim.requestCounts(); // { 'cmk.clusters': 2, 'kafka-rest.topics': 3, ... }
 * await sim.close();
 * ```
 */
export { startPlatformSimulator, systemClock } from './server.js';
export type { PlatformSimulator, PlatformSimulatorOptions, RequestLogEntry, SimulatorClock } from './server.js';
export { loadScenario, parseScenario, parseScenarioText, builtInScenarioDir, scenarioSchema } from './scenario.js';
export type { Scenario, ScenarioInput, FaultSpec } from './scenario.js';
export type { Fault, ActiveFault } from './faults.js';
export { largeEstateScenario } from './largeEstate.js';
export type { LargeEstateOptions } from './largeEstate.js';
export { simulatorClientEnvironment } from './clientEnvironment.js';
