/**
 * The lineage-svc web UI: a graph picker, search with suggestions listed as text, filters, focus
 * (N hops up and down from the traversal endpoints), the path between two nodes, a node panel,
 * a time slider over the graph's history with a diff between two points, operations, and pages
 * of their own for a node's details and for the impact of a field or a node (`pages.ts`).
 * The keyboard reaches the graph at the third Tab stop; arrow keys move between connected nodes
 * and Enter opens the node's page. Light and dark themes. Every view state is in the URL
 * (`viewState.ts`); the last graph shown is remembered for the next visit.
 */
import './app.css';
import {
  api,
  ApiError,
  type GraphDiff,
  type GraphDocument,
  type GraphDrawing,
  type GraphGroups,
  type GraphPath,
  type GraphSummary,
  type HistoryChange,
  type LineageEdge,
  type LineageNode,
  type OverviewGroup,
  type Traversal,
} from './api';
import { formatTime, h, replaceChildren } from './dom';
import {
  collapseGroups,
  collapseIntoTopics,
  describeCollapsed,
  diffScene,
  documentOfDrawing,
  groupPath,
  passesFilters,
  withDetails,
} from './graphData';
import { refreshCardColors } from './cards';
import { renderImpactPage, renderNodePage, type PageContext } from './pages';
import { edgeKey, GraphView, startLayoutWorker, type GraphScene } from './graphView';
import { buildOperations } from './operations';
import { renderNodePanel } from './panel';
import { EDGE_TYPE_COLORS, NODE_TYPE_COLORS, SYSTEM_COLORS, humanize, DIFF_COLORS, theme } from './styles';
import { takeKeyFromFragment } from './signIn';
import { readViewState, writeViewState, type ViewState } from './viewState';

takeKeyFromFragment(); // first: a key handed over in the URL's fragment leaves the address bar at once
let state: ViewState = readViewState(location.search);
/** The `localStorage` entries: the graph shown last, and the theme chosen (`light` or `dark`). */
const REMEMBERED_GRAPH = 'lineage-svc.graph';
const CHOSEN_THEME = 'lineage-svc.theme';
const stored = (key: string) => {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
};
const store = (key: string, value: string) => {
  try {
    localStorage.setItem(key, value);
  } catch {
    // storage refused: nothing is remembered
  }
};
// The layout worker first: its script is asked for before the API's answers, which the server of a
// large graph's document may keep busy for a second or more.
startLayoutWorker();
/** The first list of graphs, asked for before the page is built (the answer is needed first). */
let graphsPrefetch: Promise<{ graphs: GraphSummary[] }> | undefined = api('GET', '/graphs');
graphsPrefetch.catch(() => undefined); // a failure is reported by the refresh that awaits it

/** At most this many cards in the grouped overview: more groups are merged (clusters first, then environments). */
const OVERVIEW_GROUPS = 200;
/** The grouped overview of a graph at a point (null: now), at most `OVERVIEW_GROUPS` groups (the API merges the rest). */
const requestGroups = (graphId: string, asOf: string | null) =>
  api<GraphGroups>('GET', `/graphs/${encodeURIComponent(graphId)}/groups`, {
    as_of: asOf,
    max_groups: OVERVIEW_GROUPS,
  });
/**
 * A whole graph at a point (null: now), read from its drawing (`GET /graphs/{id}/drawing`: about a
 * fifth of the whole graph's JSON, 11 MB against 55 MB at 100,000 nodes), with only the attributes
 * drawing reads; a node's full record and its edges' attributes are read when a panel or a page
 * needs them (`loadDetails`).
 */
const requestDocument = (graphId: string, asOf: string | null) =>
  api<GraphDrawing>('GET', `/graphs/${encodeURIComponent(graphId)}/drawing`, { as_of: asOf }).then(documentOfDrawing);

/** Hops of the neighbourhood whose records `loadDetails` reads: upstream, and downstream (column lineage of the jobs that read a dataset). */
const DETAIL_HOPS = { upstream: 1, downstream: 2 } as const;
/** The nodes whose neighbourhood was read for the document shown (`documentKey`), and the index of its edges. */
let detailed = new Set<string>();
let edgeIndex: Map<string, number> | null = null;

/**
 * Reads the full records a node's panel and pages show, once per node and document: the node, its
 * neighbours up to `DETAIL_HOPS` and the edges between them, with their attributes (schemas and
 * their fields, column lineage, metrics), from the traversal routes at the point shown; they replace
 * the light records of the drawing. A node not in the graph at that point is left as it is; when
 * the API fails, the light records stay (a warning in the console) and the next call asks again.
 */
async function loadDetails(graphId: string, asOf: string | null, nodeId: string): Promise<void> {
  if (detailed.has(nodeId) || !graphDocument || !nodesById.has(nodeId)) return;
  const key = documentKey;
  const path = (direction: 'upstream' | 'downstream') =>
    `/graphs/${encodeURIComponent(graphId)}/query/${direction}/${encodeURIComponent(nodeId)}`;
  let answers: Traversal[];
  try {
    answers = await Promise.all(
      (['upstream', 'downstream'] as const).map((direction) =>
        api<Traversal>('GET', path(direction), { hops: DETAIL_HOPS[direction], as_of: asOf }),
      ),
    );
  } catch (error) {
    // The graph drawn stays: the panel or page shows the light record, and the next refresh asks again.
    if (error instanceof ApiError) {
      if (error.status !== 404) console.warn(`the records around ${nodeId} could not be read: ${error.message}`);
      return;
    }
    throw error;
  }
  if (key !== documentKey || !graphDocument) return;
  const nodes = [answers[0]!.origin, ...answers.flatMap((answer) => answer.nodes.map(({ hop: _, ...node }) => node))];
  edgeIndex = withDetails(
    nodesById,
    graphDocument.edges,
    { nodes, edges: answers.flatMap((answer) => answer.edges) },
    edgeIndex,
  );
  detailed.add(nodeId);
}

/**
 * The graph the URL names, asked for with the list of graphs, before the page is built: its grouped
 * overview first (for the first picture of a large graph; the API answers it from counts kept per
 * revision), then the whole graph. The first refresh
 * takes them when it wants that graph at that point (`key`, as `documentKey`); else they are dropped.
 * The groups are asked for only when the page may draw the overview (the graph page, no focus, no
 * diff); a graph too small for the overview does not use them.
 */
let graphPrefetch: { key: string; groups?: Promise<GraphGroups>; document: Promise<GraphDocument> } | undefined =
  (() => {
    // The URL's graph only: the one shown last may have been deleted since (a 404 in the console).
    const graphId = state.graph;
    if (!graphId) return undefined;
    const pointInTime = state.diffFrom ? state.diffTo : state.asOf;
    const groups =
      state.page === 'graph' && !state.focus && !state.diffFrom ? requestGroups(graphId, pointInTime) : undefined;
    const document = requestDocument(graphId, pointInTime);
    // Failures are reported by the refresh that takes them (or by its own requests).
    groups?.catch(() => undefined);
    document.catch(() => undefined);
    return { key: `${graphId}@${pointInTime ?? 'now'}`, ...(groups ? { groups } : {}), document };
  })();
let graphs: GraphSummary[] = [];
let documentKey = '';
let graphDocument: GraphDocument | null = null;
let nodesById = new Map<string, LineageNode>();
let history: HistoryChange[] = [];
let historyKey = '';
let diff: GraphDiff | null = null;
let visibleNodes: LineageNode[] = [];

// ---- Page structure ----------------------------------------------------------------------------
const searchInput = h('input', {
  id: 'search',
  type: 'search',
  role: 'combobox',
  autocomplete: 'off',
  placeholder: 'topic, connector, job…',
  'aria-autocomplete': 'list',
  'aria-expanded': 'false',
  'aria-controls': 'suggestions',
});
const suggestions = h('ul', { id: 'suggestions', role: 'listbox', 'aria-label': 'Matching nodes', hidden: true });
const graphPicker = h('select', { id: 'graph-picker' });
const statusLine = h('p', { id: 'status', role: 'status', 'aria-live': 'polite' });
const filters = h('div', { id: 'filters' });
const focusBox = h('div', { id: 'focus-box' });
const pathBox = h('div', { id: 'path-box' });
const legend = h('section', { id: 'legend', 'aria-labelledby': 'legend-title' });
const KEYS_HELP =
  'Arrow keys move between connected nodes (right: downstream, left: upstream, up and down: same column), ' +
  'Enter opens the node’s page, Space selects it; Shift with an arrow pans, plus and minus zoom, 0 fits.';
const canvas = h('div', {
  id: 'graph',
  tabindex: '0',
  role: 'application',
  'aria-roledescription': 'lineage graph',
  'aria-label': 'Lineage graph',
  'aria-describedby': 'graph-keys',
});
/** The full name of the node under the pointer or the keyboard cursor. */
const tooltip = h('div', { id: 'node-tooltip', role: 'tooltip', hidden: true });
/** What the keyboard cursor is on, read by screen readers. */
const cursorLine = h('p', { id: 'graph-cursor', class: 'visually-hidden', 'aria-live': 'polite' });
/** The graph area's state when there is nothing to draw: the API down, no graph, an empty graph. */
const stateMessage = h('div', { id: 'state-message', hidden: true });
const pageView = h('main', { id: 'page-view', hidden: true, tabindex: '-1' });
const themeButton = h('button', { type: 'button', id: 'theme-toggle', 'aria-pressed': 'false' }, 'Dark theme');
const nodePanel = h('div', { id: 'node-panel', role: 'tabpanel', 'aria-labelledby': 'tab-node' });
const changesPanel = h('div', { id: 'changes-panel', role: 'tabpanel', 'aria-labelledby': 'tab-changes' });
const operationsPanel = h('div', { id: 'operations-panel', role: 'tabpanel', 'aria-labelledby': 'tab-operations' });
const slider = h('input', { id: 'history-slider', type: 'range', min: '0', max: '0', step: '1', value: '0' });
const sliderLabel = h('output', { id: 'history-label', for: 'history-slider' });
const diffFrom = h('select', { id: 'diff-from' });
const diffTo = h('select', { id: 'diff-to' });

const tabs = (['node', 'changes', 'operations'] as const).map((tab) =>
  h(
    'button',
    {
      id: `tab-${tab}`,
      role: 'tab',
      type: 'button',
      'aria-controls': `${tab}-panel`,
      onclick: () => setState({ tab }),
      onkeydown: (event: KeyboardEvent) => {
        const order = ['node', 'changes', 'operations'] as const;
        const index = order.indexOf(tab);
        if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
          const next = order[(index + (event.key === 'ArrowRight' ? 1 : 2)) % 3]!;
          setState({ tab: next });
          document.getElementById(`tab-${next}`)?.focus();
        }
      },
    },
    { node: 'Node', changes: 'Changes', operations: 'Operations' }[tab],
  ),
);

const app = document.getElementById('app')!;
app.append(
  h(
    'header',
    { class: 'top' },
    h('h1', {}, 'lineage-svc'),
    h(
      'div',
      { class: 'search', role: 'search' },
      h('label', { for: 'search' }, 'Find a node'),
      searchInput,
      suggestions,
    ),
    h('div', { class: 'picker' }, h('label', { for: 'graph-picker' }, 'Graph'), graphPicker),
    statusLine,
  ),
  h(
    'main',
    { class: 'layout', id: 'graph-view' },
    h(
      'section',
      { class: 'canvas-area', 'aria-label': 'Graph view' },
      canvas,
      h('p', { id: 'graph-keys', class: 'visually-hidden' }, KEYS_HELP),
      cursorLine,
      tooltip,
      stateMessage,
      h(
        'div',
        { class: 'camera', role: 'group', 'aria-label': 'Camera' },
        h('button', { type: 'button', onclick: () => view.zoom(1 / 1.5), 'aria-label': 'Zoom in' }, '+'),
        h('button', { type: 'button', onclick: () => view.zoom(1.5), 'aria-label': 'Zoom out' }, '−'),
        h('button', { type: 'button', onclick: () => view.fit() }, 'Fit'),
        themeButton,
      ),
    ),
    h(
      'nav',
      { class: 'sidebar', 'aria-label': 'Legend, focus, path and filters' },
      legend,
      h('h2', {}, 'Focus'),
      focusBox,
      h('h2', {}, 'Path'),
      pathBox,
      h('h2', {}, 'Filters'),
      filters,
    ),
    h(
      'aside',
      { class: 'side', 'aria-label': 'Details' },
      h('div', { role: 'tablist', 'aria-label': 'Details' }, ...tabs),
      nodePanel,
      changesPanel,
      operationsPanel,
    ),
  ),
  pageView,
  h(
    'footer',
    { class: 'history', 'aria-label': 'History' },
    h('label', { for: 'history-slider' }, 'Graph as of'),
    slider,
    sliderLabel,
    h('button', { type: 'button', onclick: () => setState({ asOf: null }) }, 'Now'),
    h(
      'div',
      { class: 'diff', role: 'group', 'aria-label': 'Compare two points' },
      h('label', { for: 'diff-from' }, 'Compare from'),
      diffFrom,
      h('label', { for: 'diff-to' }, 'to'),
      diffTo,
      h(
        'button',
        {
          type: 'button',
          id: 'diff-show',
          onclick: () =>
            setState({
              diffFrom: diffFrom.value,
              diffTo: diffTo.value === 'now' ? null : diffTo.value,
              tab: 'changes',
            }),
        },
        'Show changes',
      ),
      h('button', { type: 'button', onclick: () => setState({ diffFrom: null, diffTo: null }) }, 'Clear'),
    ),
  ),
);

const view = new GraphView(canvas, (nodeId) =>
  nodeId.startsWith('group:')
    ? setState({ collapsed: collapsedNow.filter((path) => `group:${path}` !== nodeId) })
    : setState({ node: nodeId, tab: 'node' }),
);
view.onEmphasis = showTooltip;
const operations = buildOperations({
  graphId: () => state.graph,
  environmentIds: () => [
    ...new Set((graphDocument?.nodes ?? []).map((node) => node.environment_id).filter((id): id is string => !!id)),
  ],
  reload: async () => {
    documentKey = '';
    historyKey = '';
    await refresh();
  },
  announce,
});
operationsPanel.append(operations.element);

/** Test and benchmark hook: the renderer and the figures of the last render. */
(window as unknown as { __lineageUi: unknown }).__lineageUi = { view, state: () => state };

function announce(message: string) {
  statusLine.textContent = message;
}

// ---- State -------------------------------------------------------------------------------------
/** Changes the view state, writes it into the URL (a new history entry) and redraws. */
function setState(patch: Partial<ViewState>) {
  state = { ...state, ...patch };
  const search = writeViewState(state);
  if (search !== location.search) history_push(search);
  void refresh();
}
function history_push(search: string) {
  window.history.pushState(null, '', `${location.pathname}${search}`);
}
window.addEventListener('popstate', () => {
  state = readViewState(location.search);
  void refresh();
});

// ---- Data --------------------------------------------------------------------------------------
async function loadGraphs() {
  const request = graphsPrefetch ?? api<{ graphs: GraphSummary[] }>('GET', '/graphs');
  graphsPrefetch = undefined;
  graphs = (await request).graphs;
  replaceChildren(
    graphPicker,
    ...graphs.map((graph) =>
      h('option', { value: graph.graph_id }, `${graph.name ?? graph.graph_id} (${graph.node_count} nodes)`),
    ),
  );
}

let refreshing: Promise<void> = Promise.resolve();
let refreshWanted = false;
/** Loads what the state needs and redraws; calls made meanwhile are merged into one more run. */
function refresh(): Promise<void> {
  document.body.dataset.graphState = 'loading';
  if (state.page !== 'graph') document.body.dataset.pageState = 'loading';
  if (refreshWanted) return refreshing;
  refreshWanted = true;
  refreshing = refreshing.then(async () => {
    refreshWanted = false;
    try {
      await refreshNow();
    } catch (error) {
      document.body.dataset.graphState = 'error';
      const message = error instanceof ApiError || error instanceof Error ? error.message : String(error);
      announce(message);
      const down = error instanceof ApiError && (error.status === 0 || error.status >= 502);
      // Nothing to show then: say why, and offer to try again (never a blank page).
      if (down || !graphDocument) {
        documentKey = '';
        showState(
          down ? 'The lineage API does not answer' : 'The graph could not be loaded',
          down
            ? `The UI server could not reach the API (${error instanceof ApiError ? error.detail : message}). ` +
                'Check that lineage-svc-api is running, then try again.'
            : message,
          h('button', { type: 'button', onclick: () => void refresh() }, 'Try again'),
        );
      }
    }
  });
  return refreshing;
}

async function refreshNow() {
  document.body.dataset.graphState = 'loading';
  // The first refresh only: what was asked for before the page was built.
  const prefetch = graphPrefetch;
  graphPrefetch = undefined;
  showTab();
  if (graphs.length === 0 || documentKey === '') await loadGraphs();
  if (graphs.length === 0) {
    document.body.dataset.graphState = 'empty';
    announce('No graph yet: start an extraction in Operations.');
    showState(
      'No lineage graph yet',
      'Start an extraction of your environments in Operations (on the right): the graph appears here when it completes.',
      null,
    );
    setState_silent({ tab: 'operations' });
    showTab();
    return;
  }
  // The graph asked for, else the one this browser showed last, else the most recently changed.
  const remembered = stored(REMEMBERED_GRAPH);
  const known = (id: string | null): id is string => !!id && graphs.some((graph) => graph.graph_id === id);
  const graphId = known(state.graph) ? state.graph : known(remembered) ? remembered : graphs[0]!.graph_id;
  graphPicker.value = graphId;
  const pointInTime = state.diffFrom ? state.diffTo : state.asOf;
  const key = `${graphId}@${pointInTime ?? 'now'}`;
  // The graph and its history are fetched together.
  const summary = graphs.find((graph) => graph.graph_id === graphId)!;
  const nextHistoryKey = `${graphId}#${summary.revision}`;
  const historyRequest =
    nextHistoryKey !== historyKey
      ? api<{ changes: HistoryChange[] }>('GET', `/graphs/${encodeURIComponent(graphId)}/history`)
      : undefined;
  if (key !== documentKey) {
    announce('Loading the graph…');
    const prefetched = prefetch?.key === key ? prefetch : undefined;
    // The overview's small request goes first: the API answers it before it serializes the whole graph.
    const arrived = { done: false };
    if (summary.node_count > OVERVIEW_NODES && state.page === 'graph' && !state.focus && !state.diffFrom)
      void showOverview(prefetched?.groups ?? requestGroups(graphId, pointInTime), summary.node_count, arrived);
    const request = prefetched?.document ?? requestDocument(graphId, pointInTime);
    try {
      graphDocument = await request;
    } finally {
      arrived.done = true;
    }
    performance.mark('lineage:document-loaded');
    nodesById = new Map(graphDocument.nodes.map((node) => [node.id, node]));
    detailed = new Set();
    edgeIndex = null;
    documentKey = key;
  }
  if (historyRequest) {
    history = (await historyRequest).changes;
    historyKey = nextHistoryKey;
  }
  diff = state.diffFrom
    ? await api<GraphDiff>('GET', `/graphs/${encodeURIComponent(graphId)}/diff`, {
        from: state.diffFrom,
        to: state.diffTo,
      })
    : null;
  const document_ = graphDocument!;
  if (state.page !== 'graph') {
    if (state.node) await loadDetails(graphId, pointInTime, state.node);
    renderPage(graphId, pointInTime);
    renderHistory();
    return;
  }
  showPage(false);

  // Focus: N hops upstream and downstream, from the traversal endpoints.
  let focusIds: Set<string> | null = null;
  if (state.focus) {
    const query = { hops: state.hops, as_of: pointInTime };
    const path = (direction: string) =>
      `/graphs/${encodeURIComponent(graphId)}/query/${direction}/${encodeURIComponent(state.focus!)}`;
    try {
      const [up, down] = await Promise.all([
        api<Traversal>('GET', path('upstream'), query),
        api<Traversal>('GET', path('downstream'), query),
      ]);
      focusIds = new Set([state.focus, ...up.nodes.map((node) => node.id), ...down.nodes.map((node) => node.id)]);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
      announce(`The focused node is not in the graph at this point.`);
      focusIds = new Set();
    }
  }

  // The scene: filters, focus, diff, path.
  let nodes = document_.nodes;
  let edges = document_.edges;
  let marks: GraphScene['marks'];
  let collapsed: Map<string, string> | undefined;
  // Consumer groups and schemas folded into their topics, unless asked for (or a diff is shown).
  if (!diff && (!state.showGroups || !state.showSchemas)) {
    const folded = collapseIntoTopics(nodes, edges, { consumerGroups: !state.showGroups, schemas: !state.showSchemas });
    nodes = folded.nodes;
    edges = folded.edges;
    collapsed = new Map([...folded.collapsed].map(([id, entry]) => [id, describeCollapsed(entry)]));
  }
  if (diff) {
    const scene = diffScene(nodes, edges, diff);
    nodes = scene.nodes;
    edges = scene.edges;
    marks = scene.marks;
  }
  const filterState = {
    systems: state.systems,
    types: state.types,
    environments: state.environments,
    clusters: state.clusters,
    showSchemas: state.showSchemas,
    showInternal: state.showInternal,
  };
  nodes = nodes.filter(
    (node) =>
      (focusIds ? focusIds.has(node.id) : true) &&
      (passesFilters(node, filterState) || node.id === state.focus || node.id === state.node),
  );
  // Collapsed environments, clusters and systems: one node each (a click expands it).
  // Automatic: a graph too large to read whole opens with every environment and system collapsed.
  collapsedNow =
    state.collapsed ??
    (nodes.length > AUTO_COLLAPSE_NODES && !diff ? [...new Set(nodes.map((node) => groupPath(node)[0]!))] : []);
  if (collapsedNow.length > 0 && !diff) {
    const grouped = collapseGroups(nodes, edges, collapsedNow);
    nodes = grouped.nodes;
    edges = grouped.edges;
    collapsed ??= new Map();
    for (const [id, count] of grouped.counts) collapsed.set(id, `${count} node${count === 1 ? '' : 's'}`);
  }
  let pathSet: Set<string> | undefined;
  const path =
    state.pathFrom && state.pathTo ? await findPath(graphId, state.pathFrom, state.pathTo, pointInTime) : null;
  if (path?.direction) {
    pathSet = new Set([...path.nodes.map((node) => node.id), ...path.edges.map(edgeKey)]);
    const shown = new Set(nodes.map((node) => node.id));
    for (const node of path.nodes) if (!shown.has(node.id)) nodes.push(nodesById.get(node.id) ?? node);
  }
  visibleNodes = nodes;
  const figures = await view.show({
    nodes,
    edges,
    ...(marks ? { marks } : {}),
    ...(pathSet ? { path: pathSet } : {}),
    ...(collapsed ? { collapsed } : {}),
  });
  store(REMEMBERED_GRAPH, graphId);
  if (document_.nodes.length === 0)
    showState(
      'This graph is empty',
      'It holds no node at this point. Start an extraction in Operations, import a graph file, or pick another point in its history below.',
      h('button', { type: 'button', onclick: () => setState({ tab: 'operations' }) }, 'Open Operations'),
    );
  else if (nodes.length === 0)
    showState('Nothing to show', 'The filters or the focus leave no node: change them on the left.', null);
  else showState(null);
  // Milliseconds since navigation start when the graph was first drawn (read by the bench).
  if (figures) document.body.dataset.firstReadyAt ??= String(Math.round(performance.now()));
  if (figures) document.body.dataset.firstPictureAt ??= document.body.dataset.firstReadyAt;
  view.select(state.node);
  if (state.node && state.node === centerWanted) view.centerOn(state.node);
  centerWanted = null;

  performance.mark('lineage:drawn');
  if (state.node) await loadDetails(graphId, pointInTime, state.node);
  renderFilters(document_.nodes);
  renderFocus();
  renderPath(path);
  renderLegend();
  renderHistory();
  renderChanges();
  renderNodePanel(nodePanel, state.node ? (nodesById.get(state.node) ?? diffNode(state.node)) : null, {
    graphId,
    asOf: pointInTime,
    nodesById,
    edges: document_.edges,
    focus: (nodeId) => setState({ focus: nodeId, node: nodeId }),
    pathEnd: (end, nodeId) => setState(end === 'from' ? { pathFrom: nodeId } : { pathTo: nodeId }),
    openPage: (page, nodeId) => setState({ page, node: nodeId, field: null }),
  });
  if (figures) {
    canvas.setAttribute('aria-label', `Lineage graph: ${figures.nodes} nodes, ${figures.edges} edges shown`);
    const asOf = pointInTime ? ` as of ${describePoint(pointInTime)}` : '';
    announce(`${figures.nodes} of ${document_.nodes.length} nodes shown${asOf}${diff ? ', changes colored' : ''}.`);
    document.body.dataset.graphState = 'ready';
    document.body.dataset.renderedNodes = String(figures.nodes);
    document.body.dataset.renderMilliseconds = String(Math.round(figures.renderMilliseconds));
  }
}

/** Shows the graph area's state (a title, why, and what to do), or hides it (null). */
function showState(title: string | null, detail?: string, action?: HTMLElement | null) {
  stateMessage.hidden = title === null;
  document.body.dataset.viewMessage = title ?? '';
  if (title === null) return;
  replaceChildren(stateMessage, h('h2', {}, title), h('p', {}, detail ?? ''), action ?? null);
  stateMessage.setAttribute('role', 'alert');
}

/** Shows a page (node details, impact) instead of the graph view, or the graph view again. */
function showPage(visible: boolean) {
  pageView.hidden = !visible;
  document.getElementById('graph-view')!.hidden = visible;
}

/** The context the pages need: the graph, the point in time, links to other views. */
function pageContext(graphId: string, asOf: string | null): PageContext {
  const toPatch = (patch: Record<string, string | null>): Partial<ViewState> => {
    const next: Partial<ViewState> = {};
    for (const [key, value] of Object.entries(patch)) {
      if (key === 'page') next.page = (value ?? 'graph') as ViewState['page'];
      else if (key === 'node') next.node = value;
      else if (key === 'field') next.field = value;
      else if (key === 'focus') next.focus = value;
      else if (key === 'as_of') next.asOf = value;
      else if (key === 'direction') next.direction = value === 'upstream' ? 'upstream' : 'downstream';
      else if (key === 'depth') next.depth = value === null ? null : Number(value);
    }
    return next;
  };
  return {
    graphId,
    asOf,
    nodesById,
    edges: graphDocument?.edges ?? [],
    href: (patch) => `${location.pathname}${writeViewState({ ...state, ...toPatch(patch) })}`,
    go: (patch) => {
      const next = toPatch(patch);
      if (next.page === 'graph' && next.node) centerWanted = next.node;
      setState(next);
    },
  };
}

let pageKey = '';
/** Renders the page of the state (node details or impact), once per state. */
function renderPage(graphId: string, asOf: string | null) {
  showPage(true);
  showState(null);
  const key = `${graphId}@${asOf}|${writeViewState(state)}`;
  document.body.dataset.graphState = 'ready';
  if (key === pageKey) {
    document.body.dataset.pageState = 'ready';
    return;
  }
  pageKey = key;
  document.body.dataset.pageState = 'loading';
  const node = state.node ? (nodesById.get(state.node) ?? null) : null;
  const context = pageContext(graphId, asOf);
  if (state.page === 'impact' && state.node) {
    renderImpactPage(
      pageView,
      node,
      { node: state.node, field: state.field, direction: state.direction, depth: state.depth },
      context,
    );
    document.title = `Impact of ${node?.display_name ?? state.node} · lineage-svc`;
  } else {
    renderNodePage(pageView, node, state.node ?? '', context);
    document.title = `${node?.display_name ?? 'Node'} · lineage-svc`;
    document.body.dataset.pageState = 'ready';
  }
  announce(document.title.replace(' · lineage-svc', ''));
  pageView.focus();
}

/** Above this many nodes to draw, environments and systems open collapsed (unless `collapsed` is in the URL). */
const AUTO_COLLAPSE_NODES = 600;
/** The groups collapsed in the drawing shown (the URL's, or the automatic ones). */
let collapsedNow: string[] = [];

/** Above this many nodes, a grouped overview is drawn while the whole graph is fetched. */
const OVERVIEW_NODES = 20_000;

/** `words` for `count` things: `sql query` becomes `sql queries`, `topic` `topics`. */
const plural = (words: string, count: number) =>
  count === 1 ? words : words.endsWith('y') ? `${words.slice(0, -1)}ies` : `${words}s`;

/**
 * The first useful picture of a large graph: one card per environment, cluster and node type with
 * its count, in the swimlanes of its environment and cluster, and one edge per pair of groups of an
 * environment that edges join, from `GET /graphs/{id}/groups` (`groupsRequest`: a few kilobytes, at
 * most `OVERVIEW_GROUPS` groups, the API merging clusters into their environment, then
 * environments), drawn while the whole graph (tens of megabytes) is fetched and parsed; the graph
 * replaces it when it arrives.
 */
async function showOverview(groupsRequest: Promise<GraphGroups>, total: number, arrived: { done: boolean }) {
  try {
    const answer = await groupsRequest;
    if (arrived.done) return;
    const keyOf = (group: OverviewGroup) =>
      `${group.environment_id ?? ''}/${group.cluster_id ?? ''}/${group.node_type}`;
    const cardOf = answer.groups.map(keyOf);
    const merged = new Map(answer.groups.map((group) => [keyOf(group), group]));
    const nodes: LineageNode[] = [...merged.entries()].map(([key, group]) => ({
      id: `overview:${key}`,
      node_type: group.node_type,
      system: group.environment_id ? 'STREAM' : `${total.toLocaleString('en')} nodes`,
      qualified_name: key,
      display_name: `${group.node_count.toLocaleString('en')} ${plural(humanize(group.node_type), group.node_count)}`,
      environment_id: group.environment_id,
      cluster_id: group.cluster_id,
      attributes: null,
    }));
    const edges = new Map<string, LineageEdge>();
    for (const link of answer.links) {
      const source = `overview:${cardOf[link.source]}`;
      const target = `overview:${cardOf[link.target]}`;
      // Edges within an environment only: links across environments would stretch the layout's
      // layers over the whole width, and the picture is for finding one's way, not for paths.
      if (
        source === target ||
        merged.get(cardOf[link.source]!)?.environment_id !== merged.get(cardOf[link.target]!)?.environment_id
      )
        continue;
      const key = `${source} ${target}`;
      const known = edges.get(key);
      if (known) (known.attributes as { edge_count: number }).edge_count += link.edge_count;
      else
        edges.set(key, {
          src_id: source,
          dst_id: target,
          edge_type: 'GROUPED',
          attributes: { edge_count: link.edge_count },
        });
    }
    const figures = await view.show({ nodes, edges: [...edges.values()] });
    if (!figures || arrived.done) return;
    document.body.dataset.firstPictureAt ??= String(Math.round(performance.now()));
    document.body.dataset.graphState = 'overview';
    announce(
      `Overview: ${total.toLocaleString('en')} nodes in ${nodes.length} groups by environment, cluster and type; the whole graph is loading.`,
    );
  } catch {
    // The overview is a courtesy: the whole graph follows, or its error is shown.
  }
}

function setState_silent(patch: Partial<ViewState>) {
  state = { ...state, ...patch };
}

function diffNode(nodeId: string): LineageNode | null {
  return diff?.nodes.removed.find((node) => node.id === nodeId) ?? null;
}

function describePoint(point: string): string {
  const change = history.find((item) => String(item.revision) === point);
  return change ? `revision ${change.revision} (${formatTime(change.time)})` : point;
}

// ---- Side parts --------------------------------------------------------------------------------
function checkboxGroup(
  legendText: string,
  name: string,
  values: string[],
  selected: string[],
  key: 'systems' | 'types' | 'environments' | 'clusters',
) {
  return h(
    'fieldset',
    {},
    h('legend', {}, legendText),
    ...values.map((value) => {
      const id = `filter-${name}-${value}`;
      return labelledCheckbox(
        id,
        name === 'system' || name === 'type' ? humanize(value) : value || '(none)',
        selected.length === 0 || selected.includes(value),
        (checked) => {
          const current = selected.length === 0 ? values : selected;
          const next = checked ? [...new Set([...current, value])] : current.filter((item) => item !== value);
          setState({ [key]: next.length === values.length ? [] : next });
        },
      );
    }),
  );
}

/** A checkbox `id` labelled `label`, ticked when `checked`; `onToggle` is told its new state. */
function labelledCheckbox(id: string, label: string, checked: boolean, onToggle: (checked: boolean) => void) {
  return h(
    'div',
    { class: 'check' },
    h('input', {
      id,
      type: 'checkbox',
      checked,
      onchange: (event: Event) => onToggle((event.target as HTMLInputElement).checked),
    }),
    h('label', { for: id }, label),
  );
}

function renderFilters(allNodes: LineageNode[]) {
  const distinct = (pick: (node: LineageNode) => string | null) =>
    [...new Set(allNodes.map(pick).filter((value): value is string => value !== null))].sort();
  replaceChildren(
    filters,
    labelledCheckbox('show-schemas', 'Show schemas', state.showSchemas, (checked) =>
      setState({ showSchemas: checked }),
    ),
    labelledCheckbox('show-groups', 'Show consumer groups', state.showGroups, (checked) =>
      setState({ showGroups: checked }),
    ),
    labelledCheckbox('show-internal', 'Show internal topics', state.showInternal, (checked) =>
      setState({ showInternal: checked }),
    ),
    groupToggles(allNodes),
    checkboxGroup(
      'System',
      'system',
      distinct((node) => node.system),
      state.systems,
      'systems',
    ),
    checkboxGroup(
      'Node type',
      'type',
      distinct((node) => node.node_type),
      state.types,
      'types',
    ),
    checkboxGroup(
      'Environment',
      'env',
      distinct((node) => node.environment_id),
      state.environments,
      'environments',
    ),
    checkboxGroup(
      'Cluster',
      'cluster',
      distinct((node) => node.cluster_id),
      state.clusters,
      'clusters',
    ),
  );
}

/** Checkboxes that collapse an environment, a cluster or a system into one node. */
function groupToggles(allNodes: LineageNode[]) {
  const paths = new Set<string>();
  for (const node of allNodes) {
    const path = groupPath(node);
    for (let depth = 1; depth <= path.length; depth++) paths.add(path.slice(0, depth).join('/'));
  }
  return h(
    'fieldset',
    { id: 'collapse-groups' },
    h('legend', {}, 'Collapse into one node'),
    ...[...paths].sort().map((path) => {
      const id = `collapse-${path.replace(/[^\w-]+/g, '_')}`;
      const label = path.includes('/')
        ? `cluster ${path.split('/')[1]} (in ${path.split('/')[0]})`
        : path in SYSTEM_COLORS
          ? humanize(path)
          : `environment ${path}`;
      return labelledCheckbox(id, label, collapsedNow.includes(path), (checked) =>
        setState({ collapsed: checked ? [...collapsedNow, path] : collapsedNow.filter((item) => item !== path) }),
      );
    }),
  );
}

function renderFocus() {
  const hops = h('input', { id: 'focus-hops', type: 'number', min: '1', max: '100', value: String(state.hops) });
  hops.addEventListener('change', () => {
    const value = Number(hops.value);
    if (Number.isInteger(value) && value >= 1 && value <= 100) setState({ hops: value });
  });
  const focused = state.focus ? nodesById.get(state.focus) : undefined;
  replaceChildren(
    focusBox,
    h(
      'p',
      { id: 'focus-node' },
      state.focus
        ? `Focused on ${focused?.display_name ?? state.focus}`
        : 'Whole graph (select a node, then “Focus here”).',
    ),
    h('label', { for: 'focus-hops' }, 'Hops upstream and downstream'),
    hops,
    state.focus
      ? h('button', { type: 'button', onclick: () => setState({ focus: null }) }, 'Show the whole graph')
      : null,
  );
}

/**
 * The shortest path between two nodes at the point shown, from `GET /graphs/{id}/path`: along the
 * edges from `from` (downstream), else against them (upstream). A node not in the graph at that
 * point is announced and answers no path.
 */
async function findPath(graphId: string, from: string, to: string, asOf: string | null): Promise<GraphPath | null> {
  try {
    return await api<GraphPath>('GET', `/graphs/${encodeURIComponent(graphId)}/path`, { from, to, as_of: asOf });
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
    announce(`No path: ${error.detail}.`);
    return null;
  }
}

function renderPath(path: GraphPath | null) {
  const name = (id: string | null) => (id ? (nodesById.get(id)?.display_name ?? id) : '—');
  const how = {
    downstream: 'Along the edges (downstream):',
    upstream: 'Against the edges (upstream):',
  };
  replaceChildren(
    pathBox,
    h('p', {}, `From ${name(state.pathFrom)} to ${name(state.pathTo)}`),
    state.pathFrom && state.pathTo
      ? path?.direction
        ? h(
            'div',
            {},
            h('p', { id: 'path-direction' }, how[path.direction]),
            h(
              'ol',
              { id: 'path-nodes', 'aria-label': 'Path' },
              ...path.nodes.map((node) => h('li', {}, name(node.id))),
            ),
          )
        : h('p', { role: 'alert' }, 'These two nodes are not connected.')
      : h('p', { class: 'hint' }, 'Choose “Path from here” and “Path to here” in a node panel.'),
    state.pathFrom || state.pathTo
      ? h('button', { type: 'button', onclick: () => setState({ pathFrom: null, pathTo: null }) }, 'Clear path')
      : null,
  );
}

function renderLegend() {
  const present = new Set(visibleNodes.map((node) => node.node_type));
  const systems = new Set(visibleNodes.map((node) => node.system));
  const swatch = (color: string, border?: string) =>
    h('span', {
      class: 'swatch',
      style: `background:${color};${border ? `border:3px solid ${border}` : ''}`,
      'aria-hidden': 'true',
    });
  replaceChildren(
    legend,
    h('h2', { id: 'legend-title' }, 'Legend'),
    h(
      'p',
      { class: 'hint' },
      'Data flows left to right; boxes are environments and clusters; wider edges carry more bytes.',
    ),
    h(
      'ul',
      {},
      ...Object.entries(NODE_TYPE_COLORS)
        .filter(([type]) => present.has(type))
        .map(([type, color]) => h('li', {}, swatch(color), humanize(type))),
    ),
    h(
      'ul',
      {},
      ...Object.entries(SYSTEM_COLORS)
        .filter(([system]) => systems.has(system))
        .map(([system, color]) => h('li', {}, swatch('#fff', color), `${humanize(system)} (border)`)),
    ),
    h(
      'ul',
      {},
      ...Object.entries(EDGE_TYPE_COLORS).map(([type, color]) =>
        h('li', {}, h('span', { class: 'line', style: `background:${color}`, 'aria-hidden': 'true' }), humanize(type)),
      ),
    ),
    diff
      ? h('ul', {}, ...Object.entries(DIFF_COLORS).map(([kind, color]) => h('li', {}, swatch('#fff', color), kind)))
      : null,
  );
}

function renderHistory() {
  slider.max = String(Math.max(0, history.length - 1));
  const index = state.asOf ? history.findIndex((change) => String(change.revision) === state.asOf) : history.length - 1;
  slider.value = String(index >= 0 ? index : history.length - 1);
  const current = history[Number(slider.value)];
  sliderLabel.textContent = state.asOf
    ? current && String(current.revision) === state.asOf
      ? `revision ${current.revision}, ${formatTime(current.time)} (${current.cause})`
      : state.asOf
    : `now (revision ${history.at(-1)?.revision ?? '—'})`;
  slider.setAttribute('aria-valuetext', sliderLabel.textContent);
  const options = (selected: string | null, withNow: boolean) => [
    ...(withNow ? [h('option', { value: 'now', selected: selected === null }, 'now')] : []),
    ...history.map((change) =>
      h(
        'option',
        { value: String(change.revision), selected: selected === String(change.revision) },
        `rev ${change.revision} · ${formatTime(change.time)} · ${change.cause}`,
      ),
    ),
  ];
  replaceChildren(diffFrom, ...options(state.diffFrom ?? String(history[0]?.revision ?? ''), false));
  replaceChildren(diffTo, ...options(state.diffTo, true));
}

let sliderTimer: ReturnType<typeof setTimeout> | undefined;
slider.addEventListener('input', () => {
  const change = history[Number(slider.value)];
  if (!change) return;
  sliderLabel.textContent = `revision ${change.revision}, ${formatTime(change.time)} (${change.cause})`;
  clearTimeout(sliderTimer);
  sliderTimer = setTimeout(() => {
    const last = Number(slider.value) === history.length - 1;
    setState({ asOf: last ? null : String(change.revision) });
  }, 250);
});

function renderChanges() {
  if (!diff) {
    replaceChildren(
      changesPanel,
      h('p', { class: 'hint' }, 'Choose two points under “Compare from … to” and press “Show changes”.'),
    );
    return;
  }
  const name = (id: string) =>
    nodesById.get(id)?.display_name ?? diff!.nodes.removed.find((node) => node.id === id)?.display_name ?? id;
  const section = (title: string, kind: keyof typeof DIFF_COLORS, items: { id: string; text: string }[]) =>
    h(
      'section',
      { class: `changes ${kind}` },
      h('h3', {}, `${title} (${items.length})`),
      items.length > 0
        ? h(
            'ul',
            {},
            ...items.map((item) =>
              h(
                'li',
                {},
                h(
                  'button',
                  { type: 'button', class: 'link', onclick: () => setState({ node: item.id, tab: 'node' }) },
                  item.text,
                ),
              ),
            ),
          )
        : h('p', {}, 'none'),
    );
  const edgeText = (edge: { src_id: string; dst_id: string; edge_type: string }) =>
    `${name(edge.src_id)} → ${humanize(edge.edge_type)} → ${name(edge.dst_id)}`;
  replaceChildren(
    changesPanel,
    h('h2', {}, `Changes from revision ${diff.from.revision} to ${diff.to.revision}`),
    section(
      'Nodes added',
      'added',
      diff.nodes.added.map((node) => ({ id: node.id, text: `${node.display_name} (${humanize(node.node_type)})` })),
    ),
    section(
      'Nodes removed',
      'removed',
      diff.nodes.removed.map((node) => ({ id: node.id, text: `${node.display_name} (${humanize(node.node_type)})` })),
    ),
    section(
      'Nodes changed',
      'changed',
      diff.nodes.changed.map((change) => ({
        id: change.id,
        text: `${change.after.display_name}: ${changedFields(change.before, change.after)}`,
      })),
    ),
    section(
      'Edges added',
      'added',
      diff.edges.added.map((edge) => ({ id: edge.src_id, text: edgeText(edge) })),
    ),
    section(
      'Edges removed',
      'removed',
      diff.edges.removed.map((edge) => ({ id: edge.src_id, text: edgeText(edge) })),
    ),
    section(
      'Edges changed',
      'changed',
      diff.edges.changed.map((change) => ({ id: change.after.src_id, text: `${edgeText(change.after)}` })),
    ),
  );
}

function changedFields(before: LineageNode, after: LineageNode): string {
  const fields = new Set<string>();
  for (const key of Object.keys({ ...before, ...after }) as (keyof LineageNode)[]) {
    if (key === 'attributes') continue;
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) fields.add(key);
  }
  const a = before.attributes ?? {};
  const b = after.attributes ?? {};
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)]))
    if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) fields.add(key);
  return [...fields].join(', ') || 'attributes';
}

function showTab() {
  for (const button of tabs) {
    const selected = button.id === `tab-${state.tab}`;
    button.setAttribute('aria-selected', String(selected));
    button.tabIndex = selected ? 0 : -1;
  }
  nodePanel.hidden = state.tab !== 'node';
  changesPanel.hidden = state.tab !== 'changes';
  operationsPanel.hidden = state.tab !== 'operations';
  if (state.tab === 'operations') operations.refresh();
  else operations.stop();
}

// ---- Search ------------------------------------------------------------------------------------
let activeSuggestion = -1;
let suggestionNodes: LineageNode[] = [];
function renderSuggestions() {
  const text = searchInput.value.trim().toLowerCase();
  if (text === '' || !graphDocument) {
    suggestions.hidden = true;
    searchInput.setAttribute('aria-expanded', 'false');
    return;
  }
  // Exact names first, then names that start with the text, then the rest; stream nodes first.
  const ranked: { node: LineageNode; rank: number }[] = [];
  for (const node of graphDocument.nodes) {
    const name = node.display_name.toLowerCase();
    if (!name.includes(text) && !node.qualified_name.toLowerCase().includes(text)) continue;
    const closeness = name === text ? 0 : name.startsWith(text) ? 1 : 2;
    ranked.push({ node, rank: closeness * 2 + (node.system === 'STREAM' ? 0 : 1) });
  }
  ranked.sort((a, b) => a.rank - b.rank || a.node.display_name.localeCompare(b.node.display_name));
  suggestionNodes = ranked.slice(0, 20).map((item) => item.node);
  activeSuggestion = Math.min(activeSuggestion, suggestionNodes.length - 1);
  replaceChildren(
    suggestions,
    ...(suggestionNodes.length > 0
      ? suggestionNodes.map((node, index) =>
          h(
            'li',
            {
              id: `suggestion-${index}`,
              role: 'option',
              'aria-selected': String(index === activeSuggestion),
              'data-node-id': node.id,
              onmousedown: (event: Event) => {
                event.preventDefault();
                choose(node);
              },
            },
            h('span', { class: 'name' }, node.display_name),
            h(
              'span',
              { class: 'meta' },
              ` ${humanize(node.node_type)} · ${humanize(node.system)}${node.environment_id ? ` · ${node.environment_id}` : ''}`,
            ),
          ),
        )
      : [h('li', { role: 'option', 'aria-disabled': 'true', 'aria-selected': 'false' }, 'No node matches')]),
  );
  suggestions.hidden = false;
  searchInput.setAttribute('aria-expanded', 'true');
  if (activeSuggestion >= 0) searchInput.setAttribute('aria-activedescendant', `suggestion-${activeSuggestion}`);
  else searchInput.removeAttribute('aria-activedescendant');
}
/** A node to bring into view once drawn (one chosen in the search results). */
let centerWanted: string | null = null;

function choose(node: LineageNode) {
  centerWanted = node.id;
  suggestions.hidden = true;
  searchInput.setAttribute('aria-expanded', 'false');
  searchInput.value = node.display_name;
  setState({ node: node.id, tab: 'node' });
}
searchInput.addEventListener('input', () => {
  activeSuggestion = -1;
  renderSuggestions();
});
searchInput.addEventListener('keydown', (event) => {
  if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
    event.preventDefault();
    const count = suggestionNodes.length;
    if (count === 0) return;
    activeSuggestion = (activeSuggestion + (event.key === 'ArrowDown' ? 1 : count - 1)) % count;
    renderSuggestions();
  } else if (event.key === 'Enter') {
    event.preventDefault();
    const node = suggestionNodes[Math.max(0, activeSuggestion)];
    if (node && !suggestions.hidden) choose(node);
  } else if (event.key === 'Escape') {
    suggestions.hidden = true;
    searchInput.setAttribute('aria-expanded', 'false');
  }
});
// A press anywhere on the list (an option, its scroll bar) keeps the focus in the search box, so the list
// closes at once when the focus leaves: a delayed close could fire after the list had been opened again.
suggestions.addEventListener('mousedown', (event) => event.preventDefault());
searchInput.addEventListener('blur', () => {
  suggestions.hidden = true;
  searchInput.setAttribute('aria-expanded', 'false');
});

// ---- Keyboard on the graph ---------------------------------------------------------------------
canvas.addEventListener('keydown', (event) => {
  const moves: Record<string, [number, number]> = {
    ArrowLeft: [-0.1, 0],
    ArrowRight: [0.1, 0],
    ArrowUp: [0, 0.1],
    ArrowDown: [0, -0.1],
  };
  const directions = { ArrowLeft: 'left', ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down' } as const;
  const move = moves[event.key];
  if (move && event.shiftKey) view.pan(move[0], move[1]);
  else if (move) {
    const cursor = view.moveCursor(view.cursor ? directions[event.key as keyof typeof directions] : 'start');
    describeCursor(cursor);
  } else if (event.key === 'Enter' && view.cursor?.startsWith('group:')) {
    const group = view.cursor.slice('group:'.length);
    setState({ collapsed: collapsedNow.filter((path) => path !== group) });
  } else if (event.key === 'Enter' && view.cursor) setState({ page: 'node', node: view.cursor, field: null });
  else if (event.key === ' ' && view.cursor) setState({ node: view.cursor, tab: 'node' });
  else if (event.key === 'Escape') {
    view.clearCursor();
    describeCursor(null);
  } else if (event.key === '+' || event.key === '=') view.zoom(1 / 1.5);
  else if (event.key === '-') view.zoom(1.5);
  else if (event.key === '0') view.fit();
  else return;
  event.preventDefault();
});

canvas.addEventListener('blur', () => {
  view.clearCursor();
});

/** Says what the keyboard cursor is on: name, type, neighbors, and what Enter does. */
function describeCursor(nodeId: string | null) {
  if (!nodeId) {
    cursorLine.textContent = '';
    return;
  }
  const node = nodesById.get(nodeId);
  const graph = view.graph;
  const upstream = graph.inDegree(nodeId);
  const downstream = graph.outDegree(nodeId);
  const folded = graph.getNodeAttribute(nodeId, 'collapsedText');
  const name = `${node?.display_name ?? nodeId}, ${humanize(node?.node_type ?? '')}${folded ? ` with ${folded}` : ''}`;
  cursorLine.textContent = `${name}; ${upstream} upstream, ${downstream} downstream. Enter opens its page.`;
}

/** Shows the full name of the node under the pointer or the keyboard cursor next to it. */
function showTooltip(nodeId: string | null) {
  const box = nodeId ? view.nodeBox(nodeId) : null;
  const node = nodeId ? nodesById.get(nodeId) : undefined;
  if (!nodeId || !box || !node) {
    tooltip.hidden = true;
    return;
  }
  const area = canvas.getBoundingClientRect();
  replaceChildren(
    tooltip,
    h('strong', {}, node.display_name),
    h('span', {}, `${humanize(node.node_type)} · ${humanize(node.system)}`),
    node.qualified_name !== node.display_name ? h('span', { class: 'qualified' }, node.qualified_name) : null,
  );
  tooltip.hidden = false;
  const below = view.cardsShown() ? box.height / 2 + 6 : 12;
  tooltip.style.left = `${Math.max(4, Math.min(area.width - 280, box.x - area.left - 40))}px`;
  tooltip.style.top = `${Math.max(4, box.y - area.top + below)}px`;
  tooltip.dataset.nodeId = nodeId;
}

// ---- Theme -------------------------------------------------------------------------------------
/** Applies a theme (`light`, `dark`, or null to follow the system's `prefers-color-scheme`). */
function applyTheme(chosen: string | null) {
  const dark = chosen ? chosen === 'dark' : matchMedia('(prefers-color-scheme: dark)').matches;
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  themeButton.setAttribute('aria-pressed', String(dark));
  theme.faded = dark ? '#30363d' : '#e4e6ea';
  refreshCardColors();
  const labelColor = { color: dark ? '#e6edf3' : '#1b1f24' };
  if (view.renderer.getSetting('labelColor').color !== labelColor.color)
    view.renderer.setSetting('labelColor', labelColor);
  else view.renderer.refresh({ skipIndexation: true });
}
themeButton.addEventListener('click', () => {
  const next = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark';
  store(CHOSEN_THEME, next);
  applyTheme(next);
});
matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => applyTheme(stored(CHOSEN_THEME)));
applyTheme(stored(CHOSEN_THEME));

graphPicker.addEventListener('change', () =>
  setState({
    graph: graphPicker.value,
    asOf: null,
    focus: null,
    node: null,
    diffFrom: null,
    diffTo: null,
    pathFrom: null,
    pathTo: null,
    page: 'graph',
  }),
);

void refresh();
