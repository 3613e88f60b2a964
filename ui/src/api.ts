/**
 * The browser's client of the lineage-svc REST API. Every call goes to `/api/v1` on the page's own
 * origin; `lineage-svc-ui` proxies it to the API. Reads carry no key: the UI server adds its own
 * (a read key). A call that changes something carries the user's own key as `X-API-Key`, asked for
 * by the sign-in dialog (`signIn.ts`) when none is kept, or when the API refuses the one kept.
 * Errors are problem+json (RFC 9457): a failed call throws an `ApiError` carrying its detail.
 */
import { askForApiKey, storeApiKey, storedApiKey } from './signIn';

/** One environment of the platform (`GET /api/v1/environments`). */
export interface PlatformEnvironment {
  id: string;
  /** Its display name on the platform; null when it has none. */
  display_name: string | null;
  /** Live graphs holding nodes of it (empty: never extracted). */
  graph_ids: string[];
}

/** A node of the lineage graph (wire form of the API). */
export interface LineageNode {
  id: string;
  node_type: string;
  system: string;
  qualified_name: string;
  display_name: string;
  environment_id: string | null;
  cluster_id: string | null;
  attributes: Record<string, unknown> | null;
  catalog_type?: string | null;
}

/** A directed edge of the lineage graph. */
export interface LineageEdge {
  src_id: string;
  dst_id: string;
  edge_type: string;
  attributes: Record<string, unknown> | null;
}

/** One graph in `GET /graphs`. */
export interface GraphSummary {
  graph_id: string;
  name: string | null;
  description: string | null;
  node_count: number;
  edge_count: number;
  revision: number;
  created_at: string;
  updated_at: string;
}

/** A whole graph (`GET /graphs/{id}`). */
export interface GraphDocument extends GraphSummary {
  nodes: LineageNode[];
  edges: LineageEdge[];
}

/**
 * `GET /graphs/{id}/drawing`: what drawing a whole graph needs, in columns (one array per field, a
 * node's index its position); types, systems, environments and clusters are indexes into the lists
 * of their distinct values. About a fifth of the whole graph's JSON; `documentOfDrawing`
 * (`graphData.ts`) reads it into nodes and edges.
 */
export interface GraphDrawing extends GraphSummary {
  node_types: string[];
  systems: string[];
  edge_types: string[];
  environments: string[];
  clusters: string[];
  nodes: {
    id: string[];
    node_type: number[];
    system: number[];
    display_name: string[];
    /** Null where it equals the display name. */
    qualified_name: (string | null)[];
    environment: (number | null)[];
    cluster: (number | null)[];
  };
  /** Edges as node indexes and an index into `edge_types`. */
  edges: { source: number[]; target: number[]; edge_type: number[] };
  /** Nodes whose attributes mark them internal (`internal: true`). */
  internal: number[];
  /** The bytes of each node's latest metric sample (`metrics_received_bytes`, `metrics_sent_bytes`), for the nodes that have one. */
  throughput: { node: number[]; received_bytes: (number | null)[]; sent_bytes: (number | null)[] };
}

/** A group of the grouped overview: the nodes of one environment, cluster and type (null ids: outside any, or merged). */
export interface OverviewGroup {
  environment_id: string | null;
  cluster_id: string | null;
  node_type: string;
  node_count: number;
}

/**
 * `GET /graphs/{id}/groups`: the grouped overview, nodes counted per environment, cluster and type
 * (merged, with `max_groups`, clusters first, then environments: `merged` says how far), and edges
 * counted per pair of groups (`source` and `target` are indexes into `groups`).
 */
export interface GraphGroups {
  graph_id: string;
  revision: number;
  node_count: number;
  edge_count: number;
  merged: 'none' | 'clusters' | 'environments';
  groups: OverviewGroup[];
  links: { source: number; target: number; edge_count: number }[];
}

/** `GET /graphs/{id}/path`: the shortest path between two nodes, listed from `from`. */
export interface GraphPath {
  from: string;
  to: string;
  /** `downstream`: the edges run from `from` to `to`; `upstream`: from `to` to `from`; null: not connected. */
  direction: 'downstream' | 'upstream' | null;
  nodes: LineageNode[];
  edges: LineageEdge[];
}

/** A run that wrote or read a dataset (`GET /graphs/{id}/nodes/{node_id}/openlineage`). */
export interface RunReference {
  namespace: string;
  name: string;
  run_id: string | null;
  event_type: string | null;
  event_time: string | null;
  /** `graph`: a job of this graph; `ingested`: from OpenLineage events the API received. */
  source: 'graph' | 'ingested';
}

/** `GET /graphs/{id}/nodes/{node_id}/openlineage`: a node in its OpenLineage form. */
export interface NodeOpenLineage {
  kind: 'job' | 'dataset' | null;
  /** A job's COMPLETE RunEvent. */
  event: Record<string, unknown> | null;
  /** A dataset: namespace, name, facets. */
  dataset: { namespace: string; name: string; facets?: Record<string, unknown> } | null;
  runs: { written_by: RunReference[]; read_by: RunReference[] };
}

/** One write in a graph's history. */
export interface HistoryChange {
  revision: number;
  time: string;
  cause: string;
  actor: string;
  kind: 'created' | 'changed' | 'deleted';
  counts: Record<string, number>;
}

/** `GET /graphs/{id}/diff`. */
export interface GraphDiff {
  from: { as_of: string | null; revision: number; time: string | null };
  to: { as_of: string | null; revision: number; time: string | null };
  nodes: {
    added: LineageNode[];
    removed: LineageNode[];
    changed: { id: string; before: LineageNode; after: LineageNode }[];
  };
  edges: {
    added: LineageEdge[];
    removed: LineageEdge[];
    changed: { id: string; before: LineageEdge; after: LineageEdge }[];
  };
}

/** `GET /graphs/{id}/query/{direction}/{node}`. */
export interface Traversal {
  origin: LineageNode;
  nodes: (LineageNode & { hop: number })[];
  edges: LineageEdge[];
}

/** An extraction or enrichment task. */
export interface Task {
  task_id: string;
  task_type: string;
  status: 'pending' | 'completed' | 'failed';
  phase: string | null;
  message: string | null;
  result: Record<string, unknown> | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

/** A watcher (`GET /watchers/{id}`). */
export interface Watcher {
  watcher_id: string;
  state: string;
  reason: string | null;
  environment_ids: string[];
  cluster_ids: string[];
  cooldown_seconds: number;
  poll_interval_seconds: number;
  started_at: string;
  last_change_at: string | null;
  last_extraction_at: string | null;
  change_count: number;
  extraction_count: number;
}

/** A change a watcher detected. */
export interface WatcherChange {
  kind: string;
  resource_type: string;
  resource_id: string;
  environment_id: string | null;
  detected_at: string;
}

/** An extraction a watcher ran. */
export interface WatcherExtraction {
  extraction_id: string;
  status: string;
  started_at: string;
  completed_at: string | null;
  node_count: number | null;
  edge_count: number | null;
  error: string | null;
}

/** A catalog provider (`GET /catalogs`). */
export interface Catalog {
  catalog_type: string;
  system: string;
  capabilities: string[];
  configured: boolean;
  settings: string[];
}

/** The answer of a push. */
export interface PushResult {
  catalog_type: string;
  graph_id: string;
  tables_updated: number;
  properties_set: number;
  comments_set: number;
  bridge_rows_inserted: number;
  errors: string[];
  skipped: string[];
}

/** A failed API call: the HTTP status and the problem's detail. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(`${status}: ${detail}`);
  }
}

/** Query parameters; undefined and empty values are left out. */
export type Query = Record<string, string | number | boolean | undefined | null>;

function url(path: string, query: Query = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return `/api/v1${path}${text ? `?${text}` : ''}`;
}

/** The methods that change nothing: sent without the user's key. */
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * Calls the API and parses its JSON answer. `body` is sent as JSON (or as is when a string).
 * A method other than GET and HEAD is sent with the user's key (`X-API-Key`): when none is kept,
 * or when the answer is 401 or 403 (no key, a wrong key, a key without the role), the sign-in
 * dialog asks for one, saying why, and the call is sent again with it.
 * Throws `ApiError` for any other non-2xx answer (with the problem's `detail`), for a network
 * failure (status 0), or with status 401 when the user cancels the sign-in.
 */
export async function api<T>(method: string, path: string, query: Query = {}, body?: unknown): Promise<T> {
  const needsKey = !SAFE_METHODS.has(method);
  let key = needsKey ? storedApiKey() : null;
  if (needsKey && key === null) key = await askForApiKey('This action changes something: sign in with your API key.');
  for (;;) {
    if (needsKey && key === null) throw new ApiError(401, 'not signed in: this action needs your API key');
    const response = await send(method, url(path, query), body, key);
    const answer = await readAnswer(response);
    if (needsKey && (response.status === 401 || response.status === 403)) {
      storeApiKey(null);
      key = await askForApiKey(`The API refused the key: ${answer.detail}. Sign in with a key that may do this.`);
      continue;
    }
    if (!response.ok) throw new ApiError(response.status, answer.detail);
    return answer.value as T;
  }
}

/** Sends one request; a network failure is an `ApiError` with status 0. */
async function send(method: string, target: string, body: unknown, key: string | null): Promise<Response> {
  const headers: Record<string, string> =
    body === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json' };
  if (key !== null) headers['x-api-key'] = key;
  try {
    return await fetch(target, {
      method,
      headers,
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  } catch (error) {
    throw new ApiError(0, `the UI server does not answer (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** An answer's parsed JSON (undefined for 204 or a body that is not JSON) and the problem's detail (else the body, else the status text). */
async function readAnswer(response: Response): Promise<{ value: unknown; detail: string }> {
  if (response.status === 204) return { value: undefined, detail: '' };
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const detail =
    parsed && typeof parsed === 'object' && 'detail' in parsed ? String((parsed as { detail: unknown }).detail) : text;
  return { value: parsed, detail: detail || response.statusText };
}
