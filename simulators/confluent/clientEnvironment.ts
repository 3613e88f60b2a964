/**
 * The configuration that points lineage-svc at a simulator: base URLs and the scenario's keys, as
 * the `LINEAGE_SVC_*` variables of `src/config.ts` (`docs/contract.md` section 3).
 */
import type { Scenario } from './scenario.js';

/**
 * The `LINEAGE_SVC_*` variables for a simulator listening at `url` and serving `scenario`, in a
 * stable order (the simulator command prints them as `export` lines).
 */
export function simulatorClientEnvironment(
  url: string,
  scenario: Pick<Scenario, 'credentials'>,
): Record<string, string> {
  const c = scenario.credentials;
  const tableflow = c.tableflow ?? c.cloud;
  return {
    LINEAGE_SVC_STREAM_CLOUD_API_URL: url,
    LINEAGE_SVC_STREAM_TELEMETRY_API_URL: url,
    LINEAGE_SVC_STREAM_CLOUD_API_KEY: c.cloud.key,
    LINEAGE_SVC_STREAM_CLOUD_API_SECRET: c.cloud.secret,
    LINEAGE_SVC_CLUSTER_API_KEY: c.kafka.key,
    LINEAGE_SVC_CLUSTER_API_SECRET: c.kafka.secret,
    LINEAGE_SVC_SCHEMA_REGISTRY_API_KEY: c.schema_registry.key,
    LINEAGE_SVC_SCHEMA_REGISTRY_API_SECRET: c.schema_registry.secret,
    LINEAGE_SVC_FLINK_API_KEY: c.flink.key,
    LINEAGE_SVC_FLINK_API_SECRET: c.flink.secret,
    LINEAGE_SVC_KSQLDB_API_KEY: c.ksqldb.key,
    LINEAGE_SVC_KSQLDB_API_SECRET: c.ksqldb.secret,
    LINEAGE_SVC_TABLEFLOW_API_KEY: tableflow.key,
    LINEAGE_SVC_TABLEFLOW_API_SECRET: tableflow.secret,
  };
}
