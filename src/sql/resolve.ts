/**
 * Name resolution for Flink SQL on Confluent Cloud (`docs/sql-lineage.md` section 3;
 * `docs/platform-apis.md` section 5): catalog = environment (id or display name), database = Kafka
 * cluster (id or display name), table = topic. One- and two-part names are completed with the
 * statement's `sql.current-catalog` / `sql.current-database`. A name that reaches no known
 * environment or cluster stays unresolved with a reason: no topic is invented.
 */
import { formatTableRef, type TableRef } from './types.js';

/** A Kafka cluster a statement may name. */
export interface CatalogCluster {
  id: string;
  name?: string | null | undefined;
}
/** An environment (Flink catalog) and its clusters (Flink databases). */
export interface CatalogEnvironment {
  id: string;
  name?: string | null | undefined;
  clusters: readonly CatalogCluster[];
}

/** A table name resolved to a topic. */
export interface ResolvedTopic {
  environmentId: string;
  clusterId: string;
  topic: string;
}

/** The outcome of resolving one name: a topic, or the reason there is none. */
export type Resolution = ({ resolved: true } & ResolvedTopic) | { resolved: false; reason: string };

const matches = (value: string, id: string, name: string | null | undefined) =>
  value === id || (name != null && value === name) || (name != null && value.toLowerCase() === name.toLowerCase());

/**
 * Resolves `ref` against `environments` with the statement's current catalog and database.
 * Three parts: catalog.database.table; two: database.table in the current catalog; one: table in the
 * current catalog and database. Returns `{ resolved: false, reason }` when a part names nothing known.
 */
export function resolveTableRef(
  ref: TableRef,
  context: { currentCatalog?: string | undefined; currentDatabase?: string | undefined },
  environments: readonly CatalogEnvironment[],
): Resolution {
  const parts = ref.parts;
  const topic = parts[parts.length - 1];
  if (!topic || parts.length > 3)
    return { resolved: false, reason: `${formatTableRef(ref)}: not a catalog.database.table name` };
  const catalog = parts.length === 3 ? parts[0] : context.currentCatalog;
  const database = parts.length >= 2 ? parts[parts.length - 2] : context.currentDatabase;
  let environment: CatalogEnvironment | undefined;
  if (catalog === undefined) {
    environment = environments.length === 1 ? environments[0] : undefined;
    if (!environment)
      return { resolved: false, reason: `${formatTableRef(ref)}: no catalog given and no sql.current-catalog` };
  } else {
    environment = environments.find((env) => matches(catalog, env.id, env.name));
    if (!environment)
      return { resolved: false, reason: `${formatTableRef(ref)}: catalog ${catalog} is no known environment` };
  }
  if (database === undefined)
    return { resolved: false, reason: `${formatTableRef(ref)}: no database given and no sql.current-database` };
  const cluster = environment.clusters.find((c) => matches(database, c.id, c.name));
  if (!cluster)
    return {
      resolved: false,
      reason: `${formatTableRef(ref)}: database ${database} is no known Kafka cluster of ${environment.id}`,
    };
  return { resolved: true, environmentId: environment.id, clusterId: cluster.id, topic };
}
