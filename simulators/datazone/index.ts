/**
 * The data governance (AWS DataZone) simulator: a real HTTP server answering `PostLineageEvent`
 * with the real request and answer shapes, recording what it receives. See `./server.ts` and
 * `docs/catalogs.md`, "Data governance".
 *
 * ```ts
 * const sim = await startDataZoneSimulator();
 * // AWS_ENDPOINT_URL_DATAZONE = sim.url, LINEAGE_SVC_DATA_GOVERNANCE_DOMAIN_ID = DEMO_DATAZONE_DOMAIN
 * sim.injectFault({ status: 403, job: 'bq-revenue-sink' });
 * sim.lineageEvents();
 * await sim.close();
 * ```
 */
export { DEMO_DATAZONE_DOMAIN, DEMO_DATAZONE_PROJECT, startDataZoneSimulator } from './server.js';
export type { DataZoneFault, DataZoneSimulator, DataZoneSimulatorOptions, ReceivedDataZoneEvent } from './server.js';
