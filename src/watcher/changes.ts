/**
 * Change detection of the watcher (`docs/specification.md`, "Command-line tools": the
 * lineage-relevant changes it detects). Pure: an estate inventory (what one poll read through the platform's list calls,
 * `./poll.ts`) becomes a fingerprint per resource, and two fingerprints are compared.
 *
 * Detected, and nothing else:
 *
 * | resource_type | created | updated | deleted | fingerprint (what "updated" compares) |
 * |---|---|---|---|---|
 * | `topic` | yes | - | yes | none (a topic's configs or partitions do not change lineage) |
 * | `connector` | yes | yes | yes | hash of the connector's config (class, topics, ...); state changes are not updates |
 * | `sql_cluster` (ksqlDB) | yes | - | yes | none |
 * | `stream_job` (Flink statement) | yes | yes | yes | hash of the SQL text, properties and `stopped`, plus the phase |
 * | `schema` (per subject) | yes (first registration) | yes (a new version registered) | - | latest version and schema id |
 *
 * Resource ids: `{cluster_id}/{topic}` for topics, `{cluster_id}/{connector name}` for connectors,
 * the ksqlDB cluster id, the statement name, and `{registry id}/{subject}` for schemas; each change
 * also names its environment.
 *
 * A poll may fail for part of the estate (one cluster's topic listing, one environment's Schema
 * Registry...). The inventory lists those parts as failed scopes; resources inside a failed scope
 * are carried over from the previous fingerprint instead of being reported deleted (`reconcile`).
 */
import { createHash } from 'node:crypto';

/** The resource types the watcher reports. */
export const WATCHED_RESOURCE_TYPES = ['topic', 'connector', 'sql_cluster', 'stream_job', 'schema'] as const;
export type WatchedResourceType = (typeof WATCHED_RESOURCE_TYPES)[number];

/** One detected change: the shape of `WatcherChangesDetected.changes[]` (`src/events.ts`). */
export interface WatcherChange {
  kind: 'created' | 'updated' | 'deleted';
  resource_type: WatchedResourceType;
  resource_id: string;
  environment_id: string | null;
}

/** What one poll read, per environment; every list may be partial (see `failedScopes`). */
export interface EstateInventory {
  topics: Array<{ environmentId: string; clusterId: string; name: string }>;
  connectors: Array<{
    environmentId: string;
    clusterId: string;
    name: string;
    config: Record<string, string | null | undefined>;
  }>;
  sqlClusters: Array<{ environmentId: string; id: string }>;
  statements: Array<{
    environmentId: string;
    name: string;
    sql: string | null;
    properties: Record<string, string | null | undefined>;
    stopped: boolean | null;
    phase: string | null;
  }>;
  schemas: Array<{ environmentId: string; registryId: string; subject: string; version: number; id: number }>;
  /** Parts of the estate the poll could not read (`scopeOf` names them); their resources are kept as they were. */
  failedScopes: string[];
}

/** The fingerprint of one resource. */
export interface ResourceFingerprint {
  resource_type: WatchedResourceType;
  resource_id: string;
  environment_id: string;
  /** The part of the estate it was read from (a `scopeOf` value). */
  scope: string;
  /** What "updated" compares: a hash, a version, or `''` for types that are never updated. */
  fingerprint: string;
}

/** Fingerprints of a whole estate, by resource key (`{type}|{environment}|{id}`), plus the scopes a poll could not read. */
export interface EstateFingerprint {
  resources: Map<string, ResourceFingerprint>;
  failedScopes: Set<string>;
}

/**
 * The scope names of a poll: `environment:{env}` (discovery of the environment failed: everything in
 * it is unknown), `topics:{env}/{cluster}`, `connectors:{env}/{cluster}`, `sql_clusters:{env}`,
 * `statements:{env}`, `schemas:{env}`.
 */
export const scopeOf = {
  environment: (environmentId: string) => `environment:${environmentId}`,
  topics: (environmentId: string, clusterId: string) => `topics:${environmentId}/${clusterId}`,
  connectors: (environmentId: string, clusterId: string) => `connectors:${environmentId}/${clusterId}`,
  sqlClusters: (environmentId: string) => `sql_clusters:${environmentId}`,
  statements: (environmentId: string) => `statements:${environmentId}`,
  schemas: (environmentId: string) => `schemas:${environmentId}`,
} as const;

/** A stable hash of a JSON-like value (object keys sorted), hex sha-256. */
export function stableHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, entry]) => entry !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
}

/** The key of a resource in `EstateFingerprint.resources`. */
export function resourceKey(type: WatchedResourceType, environmentId: string, resourceId: string): string {
  return `${type}|${environmentId}|${resourceId}`;
}

/** Fingerprints every resource of an inventory. Duplicates (the same resource listed twice) keep the last one. */
export function fingerprintEstate(inventory: EstateInventory): EstateFingerprint {
  const resources = new Map<string, ResourceFingerprint>();
  const put = (
    type: WatchedResourceType,
    environmentId: string,
    resourceId: string,
    scope: string,
    fingerprint: string,
  ) => {
    resources.set(resourceKey(type, environmentId, resourceId), {
      resource_type: type,
      resource_id: resourceId,
      environment_id: environmentId,
      scope,
      fingerprint,
    });
  };
  for (const topic of inventory.topics)
    put(
      'topic',
      topic.environmentId,
      `${topic.clusterId}/${topic.name}`,
      scopeOf.topics(topic.environmentId, topic.clusterId),
      '',
    );
  for (const connector of inventory.connectors) {
    put(
      'connector',
      connector.environmentId,
      `${connector.clusterId}/${connector.name}`,
      scopeOf.connectors(connector.environmentId, connector.clusterId),
      stableHash(connector.config),
    );
  }
  for (const cluster of inventory.sqlClusters)
    put('sql_cluster', cluster.environmentId, cluster.id, scopeOf.sqlClusters(cluster.environmentId), '');
  for (const statement of inventory.statements) {
    const spec = stableHash({
      sql: statement.sql,
      properties: statement.properties,
      stopped: statement.stopped ?? false,
    });
    put(
      'stream_job',
      statement.environmentId,
      statement.name,
      scopeOf.statements(statement.environmentId),
      `${spec}:${statement.phase ?? ''}`,
    );
  }
  for (const schema of inventory.schemas) {
    put(
      'schema',
      schema.environmentId,
      `${schema.registryId}/${schema.subject}`,
      scopeOf.schemas(schema.environmentId),
      `${schema.version}:${schema.id}`,
    );
  }
  return { resources, failedScopes: new Set(inventory.failedScopes) };
}

/** True when `resource` lies in a part of the estate that `estate` could not read (or, for a baseline, has never read). */
function unknownIn(estate: EstateFingerprint, resource: ResourceFingerprint): boolean {
  return (
    estate.failedScopes.has(resource.scope) || estate.failedScopes.has(scopeOf.environment(resource.environment_id))
  );
}

/** The environment id inside a scope name (`topics:env-1/lkc-1` -> `env-1`). */
function environmentOfScope(scope: string): string {
  return scope.slice(scope.indexOf(':') + 1).split('/')[0] ?? '';
}

const KIND_ORDER = { created: 0, updated: 1, deleted: 2 } as const;

/**
 * The lineage-relevant changes from `before` to `after` (see the table above), sorted by kind,
 * resource type and id. Resources in a scope `after` failed to read are never reported deleted.
 * Resources of a scope `before` has never read (a baseline whose first read of that part failed)
 * are not reported created: they are adopted silently. Topic and ksqlDB-cluster fingerprints never
 * change, so neither is ever "updated"; schemas are never "deleted" (deletion is not a registration).
 */
export function detectChanges(before: EstateFingerprint, after: EstateFingerprint): WatcherChange[] {
  const changes: WatcherChange[] = [];
  const change = (kind: WatcherChange['kind'], resource: ResourceFingerprint): WatcherChange => ({
    kind,
    resource_type: resource.resource_type,
    resource_id: resource.resource_id,
    environment_id: resource.environment_id,
  });
  for (const [key, resource] of after.resources) {
    const previous = before.resources.get(key);
    if (previous === undefined) {
      if (!unknownIn(before, resource)) changes.push(change('created', resource));
    } else if (previous.fingerprint !== resource.fingerprint) changes.push(change('updated', resource));
  }
  for (const [key, resource] of before.resources) {
    if (after.resources.has(key) || resource.resource_type === 'schema' || unknownIn(after, resource)) continue;
    changes.push(change('deleted', resource));
  }
  return changes.sort(
    (a, b) =>
      KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
      a.resource_type.localeCompare(b.resource_type) ||
      (a.environment_id ?? '').localeCompare(b.environment_id ?? '') ||
      a.resource_id.localeCompare(b.resource_id),
  );
}

/**
 * The baseline to compare the next poll with: `after`, plus the resources of `before` that lie in a
 * scope `after` could not read (so that a failed listing followed by a good one reports nothing).
 * Its `failedScopes` are the scopes never read yet: those `after` failed to read that `before` had
 * not read either (the very first poll's failed scopes stay unknown until a poll reads them).
 */
export function reconcile(before: EstateFingerprint, after: EstateFingerprint): EstateFingerprint {
  const resources = new Map(after.resources);
  for (const [key, resource] of before.resources) {
    if (!resources.has(key) && unknownIn(after, resource)) resources.set(key, resource);
  }
  const neverRead = [...after.failedScopes].filter(
    (scope) =>
      before.failedScopes.has(scope) || before.failedScopes.has(scopeOf.environment(environmentOfScope(scope))),
  );
  return { resources, failedScopes: new Set(neverRead) };
}
