/**
 * Every view state lives in the page's URL query, so that a link reproduces the view:
 *
 * | parameter | meaning |
 * |---|---|
 * | `graph` | graph id (default: the most recently changed graph) |
 * | `as_of` | a revision or an ISO 8601 time (default: now) |
 * | `focus`, `hops` | node id to focus on, and hops upstream and downstream (default 2) |
 * | `path_from`, `path_to` | show the path between two nodes |
 * | `system`, `type`, `env`, `cluster` | filters, comma-separated (e.g. `system=STREAM,LAKEHOUSE`) |
 * | `schemas`, `internal` | `1` shows schemas, internal topics (hidden by default) |
 * | `diff_from`, `diff_to` | color the difference between two points (revisions or times; `diff_to` default now) |
 * | `node` | the node whose panel is open |
 * | `tab` | the side panel's tab: `node`, `changes` or `operations` |
 * | `page` | `node` (the node's detail page) or `impact` (what depends on it); the graph when absent |
 * | `field`, `direction`, `depth` | the impact page: a field of the node, `upstream` (default downstream), hops at most |
 * | `collapsed` | environments, clusters (`env/cluster`) or systems drawn as one node each, comma-separated; |
 * | | empty: none; absent: every environment and system when more than 600 nodes would be drawn |
 * | `groups` | `1` shows consumer groups (and schemas) as their own nodes instead of folded into their topic |
 */

/** The state of the view. */
export interface ViewState {
  graph: string | null;
  asOf: string | null;
  focus: string | null;
  hops: number;
  pathFrom: string | null;
  pathTo: string | null;
  systems: string[];
  types: string[];
  environments: string[];
  clusters: string[];
  showSchemas: boolean;
  showInternal: boolean;
  diffFrom: string | null;
  diffTo: string | null;
  node: string | null;
  tab: 'node' | 'changes' | 'operations';
  page: 'graph' | 'node' | 'impact';
  field: string | null;
  direction: 'downstream' | 'upstream';
  depth: number | null;
  showGroups: boolean;
  /** Null: automatic (every top-level group collapsed when the graph is too large to read whole). */
  collapsed: string[] | null;
}

/** Default hops of a focus (upstream and downstream). */
export const DEFAULT_HOPS = 2;

const list = (value: string | null) => (value ? value.split(',').filter((item) => item !== '') : []);

/** Reads the state from a query string (`location.search`); unknown or bad values fall back to defaults. */
export function readViewState(search: string): ViewState {
  const query = new URLSearchParams(search);
  const hops = Number(query.get('hops'));
  const tab = query.get('tab');
  const page = query.get('page');
  const depth = Number(query.get('depth'));
  return {
    graph: query.get('graph'),
    asOf: query.get('as_of'),
    focus: query.get('focus'),
    hops: Number.isInteger(hops) && hops >= 1 && hops <= 100 ? hops : DEFAULT_HOPS,
    pathFrom: query.get('path_from'),
    pathTo: query.get('path_to'),
    systems: list(query.get('system')),
    types: list(query.get('type')),
    environments: list(query.get('env')),
    clusters: list(query.get('cluster')),
    showSchemas: query.get('schemas') === '1',
    showInternal: query.get('internal') === '1',
    diffFrom: query.get('diff_from'),
    diffTo: query.get('diff_to'),
    node: query.get('node'),
    tab: tab === 'changes' || tab === 'operations' ? tab : 'node',
    page: page === 'node' || page === 'impact' ? page : 'graph',
    field: query.get('field'),
    direction: query.get('direction') === 'upstream' ? 'upstream' : 'downstream',
    depth: query.get('depth') !== null && Number.isInteger(depth) && depth >= 1 && depth <= 50 ? depth : null,
    showGroups: query.get('groups') === '1',
    collapsed: query.has('collapsed') ? list(query.get('collapsed')) : null,
  };
}

/** Writes the state as a query string (leading `?`, or empty); defaults are left out. */
export function writeViewState(state: ViewState): string {
  const query = new URLSearchParams();
  const set = (key: string, value: string | null | undefined) => {
    if (value) query.set(key, value);
  };
  set('graph', state.graph);
  set('as_of', state.asOf);
  set('focus', state.focus);
  if (state.focus && state.hops !== DEFAULT_HOPS) query.set('hops', String(state.hops));
  set('path_from', state.pathFrom);
  set('path_to', state.pathTo);
  set('system', state.systems.join(','));
  set('type', state.types.join(','));
  set('env', state.environments.join(','));
  set('cluster', state.clusters.join(','));
  if (state.showSchemas) query.set('schemas', '1');
  if (state.showInternal) query.set('internal', '1');
  set('diff_from', state.diffFrom);
  set('diff_to', state.diffTo);
  set('node', state.node);
  if (state.tab !== 'node') query.set('tab', state.tab);
  if (state.page !== 'graph') query.set('page', state.page);
  set('field', state.field);
  if (state.direction !== 'downstream') query.set('direction', state.direction);
  if (state.depth !== null) query.set('depth', String(state.depth));
  if (state.showGroups) query.set('groups', '1');
  if (state.collapsed !== null) query.set('collapsed', state.collapsed.join(','));
  const text = query.toString();
  return text ? `?${text}` : '';
}
