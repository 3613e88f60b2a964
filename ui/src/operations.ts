/**
 * Operations: start an extraction of environments picked from a list and follow its task; the
 * past extraction and enrichment tasks with their phases and warnings; start and stop watchers
 * and see their state live, detected changes and extractions; push to a catalog and see the result
 * per table; import and export graph JSON.
 *
 * The environments offered are the platform's (`GET /api/v1/environments`: every environment the
 * service's cloud key can see, with its display name and whether a graph holds it), beside those the
 * current graph holds and those earlier tasks and watchers were asked for. When the platform cannot
 * be asked (no credentials, no answer: a problem+json 503 or 502), the page says why and offers the
 * others; an environment known to neither can still be typed.
 */
import {
  api,
  type Catalog,
  type PlatformEnvironment,
  type PushResult,
  type Task,
  type Watcher,
  type WatcherChange,
  type WatcherExtraction,
} from './api';
import { formatTime, formatValue, h, keyValueTable, replaceChildren } from './dom';
import { askForApiKey, onSignInChange, storeApiKey } from './signIn';

/** What the operations panel needs from the app. */
export interface OperationsContext {
  graphId(): string | null;
  /** Environment ids of the current graph, offered in the forms. */
  environmentIds(): string[];
  /** Reloads the graph list and the graph after something changed it. */
  reload(): Promise<void>;
  /** Shows a message in the page's status line. */
  announce(message: string): void;
}

/** One line per watcher extraction: when, status, nodes, error. */
function describeExtraction(run: WatcherExtraction): string {
  const nodes = run.node_count !== null ? `, ${run.node_count} nodes` : '';
  const error = run.error ? `: ${run.error}` : '';
  return `${formatTime(run.started_at)} ${run.status}${nodes}${error}`;
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
const splitIds = (text: string) => text.split(/[\s,]+/).filter((id) => id !== '');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Builds the operations panel; `refresh` re-reads watchers (called when the tab is shown). */
export function buildOperations(context: OperationsContext): { element: HTMLElement; refresh(): void; stop(): void } {
  /** Environments known from the platform, the graph, past tasks and watchers, offered as checkboxes. */
  const known = new Set<string>();
  /** What the platform says of its environments (display name, graphs holding it), by id. */
  const platform = new Map<string, PlatformEnvironment>();
  /** Why the platform's environments could not be listed (null: listed, or not asked yet). */
  let platformProblem: string | null = null;
  const chosen = { extract: new Set<string>(), watch: new Set<string>() };
  const extractChoices = h('fieldset', { class: 'environment-choices', id: 'extract-choices' });
  const watchChoices = h('fieldset', { class: 'environment-choices', id: 'watch-choices' });
  /** The label of an environment's checkbox: its display name and id, and whether a graph holds it. */
  function choiceLabel(id: string): (string | HTMLElement)[] {
    const listed = platform.get(id);
    const name = listed?.display_name ? `${listed.display_name} ` : '';
    const inGraph = listed ? listed.graph_ids.length > 0 : true;
    return [
      name ? h('span', { class: 'environment-name' }, name) : '',
      h('span', { class: 'environment-id' }, name ? `(${id})` : id),
      listed && !inGraph ? h('span', { class: 'hint' }, ' not extracted yet') : '',
    ];
  }
  function renderChoices() {
    const ids = [...known].sort((a, b) => {
      const nameOf = (id: string) => platform.get(id)?.display_name ?? id;
      return nameOf(a).localeCompare(nameOf(b)) || a.localeCompare(b);
    });
    for (const [form, box] of [
      ['extract', extractChoices],
      ['watch', watchChoices],
    ] as const) {
      replaceChildren(
        box,
        h('legend', {}, 'Environments'),
        ...(platformProblem !== null
          ? [
              h(
                'p',
                { class: 'hint platform-problem' },
                `The platform’s environments could not be listed (${platformProblem}); those below come from the graph, tasks and watchers.`,
              ),
            ]
          : []),
        ...(ids.length > 0
          ? ids.map((id) => {
              const inputId = `${form}-environment-${id}`;
              return h(
                'span',
                { class: 'check', 'data-environment-id': id },
                h('input', {
                  id: inputId,
                  type: 'checkbox',
                  value: id,
                  checked: chosen[form].has(id),
                  onchange: (event: Event) => {
                    if ((event.target as HTMLInputElement).checked) chosen[form].add(id);
                    else chosen[form].delete(id);
                  },
                }),
                h('label', { for: inputId }, ...choiceLabel(id)),
              );
            })
          : [h('p', { class: 'hint' }, 'No environment known yet: type its id below.')]),
      );
    }
  }
  /** Adds environments to the offer (none is chosen until the user checks it). */
  function offer(ids: string[]) {
    const size = known.size;
    for (const id of ids) known.add(id);
    if (known.size !== size || size === 0) renderChoices();
  }
  /** Asks the API for the platform's environments (cached there for 30 s) and offers them with their names. */
  async function loadPlatformEnvironments() {
    try {
      const { environments } = await api<{ environments: PlatformEnvironment[] }>('GET', '/environments');
      platformProblem = null;
      for (const environment of environments) {
        platform.set(environment.id, environment);
        known.add(environment.id);
      }
    } catch (error) {
      platformProblem = errorText(error);
    }
    renderChoices();
  }
  const idsOf = (form: 'extract' | 'watch', typed: string) => [...new Set([...chosen[form], ...splitIds(typed)])];

  // Past tasks (extraction and enrichment), newest first.
  const taskList = h('div', { id: 'task-list', class: 'task-list', 'aria-live': 'polite' });
  async function refreshTasks() {
    try {
      const { tasks } = await api<{
        tasks: (Task & { parameters?: { environment_ids?: string[] }; completed_at?: string | null })[];
      }>('GET', '/tasks', { limit: 10 });
      offer(tasks.flatMap((task) => task.parameters?.environment_ids ?? []));
      replaceChildren(
        taskList,
        tasks.length > 0
          ? h(
              'table',
              { class: 'grid' },
              h('caption', {}, 'Past extractions and enrichments, newest first'),
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  h('th', { scope: 'col' }, 'Task'),
                  h('th', { scope: 'col' }, 'Status and phase'),
                  h('th', { scope: 'col' }, 'Result'),
                ),
              ),
              h(
                'tbody',
                {},
                ...tasks.map((task) => {
                  const warnings = Array.isArray(task.result?.warnings)
                    ? (task.result!.warnings as unknown[]).map(String)
                    : [];
                  const seconds =
                    task.completed_at && task.created_at
                      ? ` in ${((Date.parse(task.completed_at) - Date.parse(task.created_at)) / 1000).toFixed(1)} s`
                      : '';
                  return h(
                    'tr',
                    { 'data-task-id': task.task_id, 'data-status': task.status },
                    h(
                      'td',
                      {},
                      `${task.task_type} ${formatTime(task.created_at)}`,
                      h('br'),
                      (task.parameters?.environment_ids ?? []).join(', '),
                    ),
                    h(
                      'td',
                      { class: `task-${task.status}` },
                      `${task.status}${seconds}`,
                      h('br'),
                      `phase ${task.phase ?? '—'}`,
                    ),
                    h(
                      'td',
                      {},
                      task.error
                        ? h('span', { class: 'error' }, task.error)
                        : task.result
                          ? `${formatValue(task.result.node_count)} nodes, ${formatValue(task.result.edge_count)} edges`
                          : (task.message ?? ''),
                      warnings.length > 0
                        ? h(
                            'details',
                            {},
                            h('summary', {}, `${warnings.length} warning${warnings.length === 1 ? '' : 's'}`),
                            h('ul', {}, ...warnings.map((warning) => h('li', {}, warning))),
                          )
                        : null,
                    ),
                  );
                }),
              ),
            )
          : h('p', {}, 'No task yet.'),
      );
    } catch (error) {
      replaceChildren(taskList, h('p', { role: 'alert' }, `Tasks could not be read: ${errorText(error)}`));
    }
  }

  // Extraction.
  const extractEnvironments = h('input', { id: 'extract-environments', type: 'text', autocomplete: 'off' });
  const extractMetrics = h('input', { id: 'extract-metrics', type: 'checkbox' });
  const taskStatus = h('div', { id: 'task-status', role: 'status', 'aria-live': 'polite' });
  const extractForm = h(
    'form',
    {
      'aria-labelledby': 'ops-extract',
      onsubmit: (event: Event) => {
        event.preventDefault();
        void startExtraction();
      },
    },
    h('h3', { id: 'ops-extract' }, 'Extraction'),
    extractChoices,
    h('label', { for: 'extract-environments' }, 'Other environment ids (comma-separated)'),
    extractEnvironments,
    h('label', { class: 'inline' }, extractMetrics, ' include throughput metrics'),
    h('button', { type: 'submit' }, 'Start extraction'),
    taskStatus,
  );
  async function startExtraction() {
    const environmentIds = idsOf('extract', extractEnvironments.value);
    if (environmentIds.length === 0) {
      replaceChildren(taskStatus, h('p', { role: 'alert' }, 'Choose or type at least one environment id (env-...).'));
      return;
    }
    try {
      const started = await api<{ task_id: string }>(
        'POST',
        '/tasks/extract',
        {},
        {
          environment_ids: environmentIds,
          enable_metrics: extractMetrics.checked,
        },
      );
      for (;;) {
        const task = await api<Task>('GET', `/tasks/${started.task_id}`);
        replaceChildren(
          taskStatus,
          keyValueTable('Extraction task', [
            ['task', task.task_id],
            ['status', task.status],
            ['phase', task.phase],
            ['message', task.message],
            ...(task.result
              ? ([
                  ['nodes', task.result.node_count],
                  ['edges', task.result.edge_count],
                  ['changes', task.result.changes],
                ] as [string, unknown][])
              : []),
            ...(task.error ? ([['error', task.error]] as [string, unknown][]) : []),
          ]),
        );
        taskStatus.dataset.taskStatus = task.status;
        if (task.status !== 'pending') {
          context.announce(`Extraction ${task.status}`);
          void refreshTasks();
          if (task.status === 'completed') await context.reload();
          return;
        }
        await sleep(400);
      }
    } catch (error) {
      replaceChildren(taskStatus, h('p', { role: 'alert' }, `Extraction could not start: ${errorText(error)}`));
    }
  }

  // Watchers.
  const watchEnvironments = h('input', { id: 'watch-environments', type: 'text', autocomplete: 'off' });
  const watchCooldown = h('input', { id: 'watch-cooldown', type: 'number', min: '0', step: '0.1', value: '30' });
  const watchPoll = h('input', { id: 'watch-poll', type: 'number', min: '0.1', step: '0.1', value: '10' });
  const watcherList = h('div', { id: 'watchers', 'aria-live': 'polite' });
  const watcherMessage = h('div', { role: 'status' });
  const watchForm = h(
    'form',
    {
      'aria-labelledby': 'ops-watchers',
      onsubmit: (event: Event) => {
        event.preventDefault();
        void startWatcher();
      },
    },
    h('h3', { id: 'ops-watchers' }, 'Watchers'),
    watchChoices,
    h('label', { for: 'watch-environments' }, 'Other environment ids to watch'),
    watchEnvironments,
    h('label', { for: 'watch-cooldown' }, 'Cooldown (seconds)'),
    watchCooldown,
    h('label', { for: 'watch-poll' }, 'Poll interval (seconds)'),
    watchPoll,
    h('button', { type: 'submit' }, 'Start watcher'),
    watcherMessage,
    watcherList,
  );
  async function startWatcher() {
    const environmentIds = idsOf('watch', watchEnvironments.value);
    if (environmentIds.length === 0) {
      replaceChildren(watcherMessage, h('p', { role: 'alert' }, 'Give at least one environment id to watch.'));
      return;
    }
    try {
      const started = await api<{ watcher_id: string }>(
        'POST',
        '/watchers',
        {},
        {
          environment_ids: environmentIds,
          cooldown_seconds: Number(watchCooldown.value),
          poll_interval_seconds: Number(watchPoll.value),
        },
      );
      replaceChildren(watcherMessage, h('p', {}, `Watcher ${started.watcher_id} started.`));
      await refreshWatchers();
    } catch (error) {
      replaceChildren(watcherMessage, h('p', { role: 'alert' }, `Watcher could not start: ${errorText(error)}`));
    }
  }
  async function refreshWatchers() {
    try {
      const { watchers } = await api<{ watchers: Watcher[] }>('GET', '/watchers', { limit: 20 });
      offer(watchers.flatMap((watcher) => watcher.environment_ids));
      const cards = await Promise.all(
        watchers.map(async (watcher) => {
          const [events, history] = await Promise.all([
            api<{ events: WatcherChange[] }>('GET', `/watchers/${encodeURIComponent(watcher.watcher_id)}/events`, {
              limit: 10,
            }),
            api<{ extractions: WatcherExtraction[] }>(
              'GET',
              `/watchers/${encodeURIComponent(watcher.watcher_id)}/history`,
              { limit: 5 },
            ),
          ]);
          const running = watcher.state !== 'STOPPED';
          return h(
            'article',
            {
              class: 'watcher',
              'data-watcher-id': watcher.watcher_id,
              'data-state': watcher.state,
              'aria-label': `Watcher ${watcher.watcher_id}`,
            },
            h('h4', {}, `${watcher.environment_ids.join(', ')} — `, h('span', { class: 'state' }, watcher.state)),
            keyValueTable('Watcher', [
              ['id', watcher.watcher_id],
              ['reason', watcher.reason],
              ['started', formatTime(watcher.started_at)],
              ['changes detected', watcher.change_count],
              ['extractions', watcher.extraction_count],
              ['last change', formatTime(watcher.last_change_at)],
              ['last extraction', formatTime(watcher.last_extraction_at)],
            ]),
            h('h5', {}, 'Detected changes'),
            events.events.length > 0
              ? h(
                  'ul',
                  {},
                  ...events.events.map((change) =>
                    h(
                      'li',
                      {},
                      `${formatTime(change.detected_at)} ${change.kind} ${change.resource_type} ${change.resource_id}`,
                    ),
                  ),
                )
              : h('p', {}, 'none yet'),
            h('h5', {}, 'Extractions'),
            history.extractions.length > 0
              ? h('ul', {}, ...history.extractions.map((run) => h('li', {}, describeExtraction(run))))
              : h('p', {}, 'none yet'),
            running
              ? h('button', { type: 'button', onclick: () => void stopWatcher(watcher.watcher_id) }, 'Stop watcher')
              : h(
                  'button',
                  { type: 'button', onclick: () => void forgetWatcher(watcher.watcher_id) },
                  'Remove watcher',
                ),
          );
        }),
      );
      replaceChildren(watcherList, ...(cards.length > 0 ? cards : [h('p', {}, 'No watcher.')]));
    } catch (error) {
      replaceChildren(watcherList, h('p', { role: 'alert' }, `Watchers could not be read: ${errorText(error)}`));
    }
  }
  async function stopWatcher(watcherId: string) {
    try {
      await api('POST', `/watchers/${encodeURIComponent(watcherId)}/stop`);
      context.announce(`Watcher ${watcherId} stopped`);
    } catch (error) {
      replaceChildren(watcherMessage, h('p', { role: 'alert' }, `Could not stop: ${errorText(error)}`));
    }
    await refreshWatchers();
  }
  async function forgetWatcher(watcherId: string) {
    try {
      await api('DELETE', `/watchers/${encodeURIComponent(watcherId)}`);
    } catch (error) {
      replaceChildren(watcherMessage, h('p', { role: 'alert' }, `Could not remove: ${errorText(error)}`));
    }
    await refreshWatchers();
  }

  // Push.
  const pushCatalog = h('select', { id: 'push-catalog' });
  const pushResult = h('div', { role: 'status', 'aria-live': 'polite' });
  const pushForm = h(
    'form',
    {
      'aria-labelledby': 'ops-push',
      onsubmit: (event: Event) => {
        event.preventDefault();
        void push();
      },
    },
    h('h3', { id: 'ops-push' }, 'Push to a catalog'),
    h('label', { for: 'push-catalog' }, 'Catalog'),
    pushCatalog,
    h('button', { type: 'submit' }, 'Push lineage'),
    pushResult,
  );
  async function loadCatalogs() {
    try {
      const { catalogs } = await api<{ catalogs: Catalog[] }>('GET', '/catalogs');
      replaceChildren(
        pushCatalog,
        ...catalogs.map((catalog) =>
          h(
            'option',
            { value: catalog.catalog_type },
            `${catalog.catalog_type}${catalog.configured ? '' : ' (not configured)'}`,
          ),
        ),
      );
    } catch (error) {
      replaceChildren(pushResult, h('p', { role: 'alert' }, `Catalogs could not be read: ${errorText(error)}`));
    }
  }
  async function push() {
    replaceChildren(pushResult, h('p', {}, 'Pushing…'));
    try {
      const result = await api<PushResult>(
        'POST',
        '/lineage/push',
        {},
        { catalog_type: pushCatalog.value, graph_id: context.graphId() },
      );
      replaceChildren(
        pushResult,
        keyValueTable('Push result', [
          ['catalog', result.catalog_type],
          ['tables updated', result.tables_updated],
          ['properties set', result.properties_set],
          ['comments set', result.comments_set],
          ['bridge rows inserted', result.bridge_rows_inserted],
        ]),
        h('h4', {}, 'Per table'),
        result.errors.length + result.skipped.length > 0
          ? h(
              'ul',
              {},
              ...result.errors.map((line) => h('li', { class: 'error' }, `error: ${line}`)),
              ...result.skipped.map((line) => h('li', {}, `skipped: ${line}`)),
            )
          : h('p', {}, `every table updated (${result.tables_updated})`),
      );
    } catch (error) {
      replaceChildren(pushResult, h('p', { role: 'alert' }, `Push failed: ${errorText(error)}`));
    }
  }

  // Import and export.
  const importFile = h('input', { id: 'import-file', type: 'file', accept: 'application/json,.json' });
  const importMode = h(
    'select',
    { id: 'import-mode' },
    h('option', { value: 'merge' }, 'merge'),
    h('option', { value: 'replace' }, 'replace'),
  );
  const transferStatus = h('div', { role: 'status', 'aria-live': 'polite' });
  const transfer = h(
    'form',
    {
      'aria-labelledby': 'ops-transfer',
      onsubmit: (event: Event) => {
        event.preventDefault();
        void importGraph();
      },
    },
    h('h3', { id: 'ops-transfer' }, 'Import and export'),
    h('label', { for: 'import-file' }, 'Graph JSON file'),
    importFile,
    h('label', { for: 'import-mode' }, 'Mode'),
    importMode,
    h('button', { type: 'submit' }, 'Import into this graph'),
    h('button', { type: 'button', onclick: () => void exportGraph() }, 'Export this graph'),
    transferStatus,
  );
  async function importGraph() {
    const file = importFile.files?.[0];
    let graphId = context.graphId();
    if (!file) {
      replaceChildren(transferStatus, h('p', { role: 'alert' }, 'Choose a graph JSON file first.'));
      return;
    }
    try {
      const text = await file.text();
      if (!graphId) graphId = (await api<{ graph_id: string }>('POST', '/graphs', {}, { name: file.name })).graph_id;
      const result = await api<{ changes: Record<string, number>; node_count: number; edge_count: number }>(
        'POST',
        `/graphs/${encodeURIComponent(graphId)}/import`,
        { mode: importMode.value },
        text,
      );
      replaceChildren(
        transferStatus,
        keyValueTable('Imported', [
          ['nodes', result.node_count],
          ['edges', result.edge_count],
          ['changes', result.changes],
        ]),
      );
      await context.reload();
    } catch (error) {
      replaceChildren(transferStatus, h('p', { role: 'alert' }, `Import failed: ${errorText(error)}`));
    }
  }
  async function exportGraph() {
    const graphId = context.graphId();
    if (!graphId) return;
    try {
      const graph = await api<unknown>('GET', `/graphs/${encodeURIComponent(graphId)}/export`);
      const link = h('a', {
        href: URL.createObjectURL(new Blob([JSON.stringify(graph, null, 2)], { type: 'application/json' })),
        download: `lineage_graph-${graphId}.json`,
      });
      document.body.append(link);
      link.click();
      link.remove();
      replaceChildren(transferStatus, h('p', {}, 'Exported.'));
    } catch (error) {
      replaceChildren(transferStatus, h('p', { role: 'alert' }, `Export failed: ${errorText(error)}`));
    }
  }

  // Who acts: the user's own key, asked for by the first action that needs it (signIn.ts).
  const signInState = h('span', { id: 'sign-in-state' });
  const signInButton = h('button', { type: 'button', id: 'sign-in-button' });
  let signedIn = false;
  signInButton.addEventListener('click', () => {
    if (signedIn) storeApiKey(null);
    else void askForApiKey('Sign in with your API key to run the operations below.');
  });
  onSignInChange((isSignedIn) => {
    signedIn = isSignedIn;
    signInState.textContent = isSignedIn
      ? 'Signed in: the operations below use your API key, kept in this tab only. '
      : 'The operations below change things: the first one asks for your API key. ';
    signInButton.textContent = isSignedIn ? 'Forget my key' : 'Sign in';
  });
  const signInLine = h('p', { class: 'sign-in-line' }, signInState, signInButton);

  const tasksSection = h(
    'section',
    { 'aria-labelledby': 'ops-tasks' },
    h('h3', { id: 'ops-tasks' }, 'Past tasks'),
    taskList,
  );
  const element = h(
    'div',
    { class: 'operations' },
    signInLine,
    extractForm,
    tasksSection,
    watchForm,
    pushForm,
    transfer,
  );
  let timer: ReturnType<typeof setInterval> | undefined;
  return {
    element,
    refresh() {
      offer(context.environmentIds());
      void loadPlatformEnvironments();
      void loadCatalogs();
      void refreshWatchers();
      void refreshTasks();
      // Watchers live: their state, changes and extractions every 2 s while the tab is open.
      timer ??= setInterval(() => void refreshWatchers(), 2000);
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
