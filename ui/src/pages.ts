/**
 * Pages with their own URL: a node's detail page (`?page=node&node=ID`: its schema's fields,
 * types and versions, column lineage drawn field to field, configuration and tags as tables,
 * links into the platform and the catalogs, its OpenLineage runs, its history and provenance, its
 * metrics as small charts) and the impact page (`?page=impact&node=ID[&field=F]`: every column,
 * job and table downstream of a field or a node, from the impact endpoint, filtered and exported
 * as CSV). Everything comes from the REST API; nothing is computed here that the API answers.
 */
import { api, ApiError, type LineageEdge, type LineageNode, type NodeOpenLineage, type RunReference } from './api';
import { formatTime, formatValue, h, keyValueTable, replaceChildren } from './dom';
import { deepLinks } from './panel';
import { humanize, NODE_TYPE_COLORS, FALLBACK_COLOR } from './styles';

/** What the pages need from the app. */
export interface PageContext {
  graphId: string;
  /** The point in time shown (`as_of`), null for now. */
  asOf: string | null;
  nodesById: Map<string, LineageNode>;
  edges: LineageEdge[];
  /** The URL (query string) of another view, for links. */
  href(patch: Record<string, string | null>): string;
  /** Goes to another view (as a link would, without reloading the page). */
  go(patch: Record<string, string | null>): void;
}

interface SchemaField {
  name: string;
  type?: unknown;
  doc?: string;
}
interface ColumnLineageEntry {
  output: string;
  kind?: string;
  inputs: { dataset: string; column: string }[];
}

/** `1 column`, `2 columns`. */
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
const nodePath = (context: PageContext, nodeId: string, tail = '') =>
  `/graphs/${encodeURIComponent(context.graphId)}/nodes/${encodeURIComponent(nodeId)}${tail}`;

/** A link to another view that stays in the page (the address changes, the page is not reloaded). */
function viewLink(context: PageContext, patch: Record<string, string | null>, text: string, attributes = {}) {
  return h(
    'a',
    {
      href: context.href(patch),
      ...attributes,
      onclick: (event: MouseEvent) => {
        if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        context.go(patch);
      },
    },
    text,
  );
}

/** A section with a heading whose content loads from the API (a status line, then the content or an alert). */
function loadingSection(id: string, title: string, load: () => Promise<(Node | string | null)[]>): HTMLElement {
  const body = h('div', { class: 'section-body' }, h('p', { role: 'status' }, `Loading ${title.toLowerCase()}…`));
  const section = h(
    'section',
    { class: 'card-section', id, 'aria-labelledby': `${id}-title` },
    h('h2', { id: `${id}-title` }, title),
    body,
  );
  load().then(
    (children) => replaceChildren(body, ...children),
    (error) => replaceChildren(body, h('p', { role: 'alert' }, `${title} could not be loaded: ${errorText(error)}`)),
  );
  return section;
}

/** The schemas of a node: itself (a schema) or those linked by `HAS_SCHEMA` (a topic). */
export function schemasOf(node: LineageNode, context: Pick<PageContext, 'edges' | 'nodesById'>): LineageNode[] {
  if (node.node_type === 'SCHEMA') return [node];
  return context.edges
    .filter((edge) => edge.edge_type === 'HAS_SCHEMA' && edge.src_id === node.id)
    .map((edge) => context.nodesById.get(edge.dst_id))
    .filter((schema): schema is LineageNode => schema !== undefined);
}

/** The fields a node can be asked about in the impact view: its schemas' fields, then its column lineage outputs. */
export function fieldsOf(node: LineageNode, context: Pick<PageContext, 'edges' | 'nodesById'>): string[] {
  const fields = new Set<string>();
  for (const schema of schemasOf(node, context)) {
    const list = Array.isArray(schema.attributes?.fields) ? (schema.attributes!.fields as SchemaField[]) : [];
    for (const field of list) fields.add(field.name);
  }
  for (const edge of context.edges) {
    if (edge.edge_type !== 'PRODUCES' || !Array.isArray(edge.attributes?.column_lineage)) continue;
    for (const entry of edge.attributes!.column_lineage as ColumnLineageEntry[]) {
      if (edge.dst_id === node.id) fields.add(entry.output);
      for (const input of entry.inputs) if (input.dataset === node.id) fields.add(input.column);
    }
  }
  return [...fields];
}

/** The type of a schema field as text (Avro unions and records as compact JSON). */
function typeText(type: unknown): string {
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.map(typeText).join(' | ');
  if (type && typeof type === 'object' && 'type' in type) return typeText((type as { type: unknown }).type);
  return formatValue(type);
}

/** Renders the detail page of `node` into `container`. */
export function renderNodePage(container: HTMLElement, node: LineageNode | null, nodeId: string, context: PageContext) {
  if (!node) {
    replaceChildren(
      container,
      h('h1', { id: 'page-title' }, 'Node not found'),
      h('p', { role: 'alert' }, `The graph has no node ${nodeId} at this point in time.`),
      viewLink(context, { page: null }, 'Back to the graph'),
    );
    return;
  }
  const attributes = node.attributes ?? {};
  const sections: (HTMLElement | null)[] = [];

  // Schema: fields and types of each schema, and the versions seen in its history.
  for (const schema of schemasOf(node, context)) {
    const fields = Array.isArray(schema.attributes?.fields) ? (schema.attributes!.fields as SchemaField[]) : [];
    sections.push(
      h(
        'section',
        { class: 'card-section schema', 'aria-labelledby': `schema-${schema.display_name.replace(/[^\w-]+/g, '_')}` },
        h('h2', { id: `schema-${schema.display_name.replace(/[^\w-]+/g, '_')}` }, `Schema ${schema.display_name}`),
        h(
          'p',
          { class: 'subtitle' },
          `${formatValue(schema.attributes?.schema_type)}, version ${formatValue(schema.attributes?.version)}`,
        ),
        fields.length > 0
          ? h(
              'table',
              { class: 'grid fields' },
              h('caption', {}, `Fields of ${schema.display_name}`),
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  h('th', { scope: 'col' }, 'Field'),
                  h('th', { scope: 'col' }, 'Type'),
                  h('th', { scope: 'col' }, 'Documentation'),
                  h('th', { scope: 'col' }, 'Impact'),
                ),
              ),
              h(
                'tbody',
                {},
                ...fields.map((field) =>
                  h(
                    'tr',
                    {},
                    h('td', {}, h('code', {}, field.name)),
                    h('td', {}, typeText(field.type)),
                    h('td', {}, field.doc ?? ''),
                    h(
                      'td',
                      {},
                      viewLink(context, { page: 'impact', node: node.id, field: field.name }, 'What depends on it', {
                        'aria-label': `What depends on it: ${field.name}`,
                      }),
                    ),
                  ),
                ),
              ),
            )
          : h('p', {}, 'The schema lists no field.'),
        loadingSection(`versions-${schema.display_name.replace(/[^\w-]+/g, '_')}`, 'Versions', async () => {
          const history = await api<NodeHistory>('GET', nodePath(context, schema.id, '/history'));
          const versions = new Map<string, string>();
          for (const change of history.changes) {
            const version = change.state?.attributes?.version;
            if (version !== undefined && !versions.has(String(version)))
              versions.set(String(version), `${formatTime(change.recorded_at)} (revision ${change.revision})`);
          }
          return [
            h(
              'ul',
              { class: 'versions' },
              ...[...versions].map(([version, when]) => h('li', {}, `version ${version}: first seen ${when}`)),
            ),
          ];
        }),
      ),
    );
  }

  // Column lineage, field to field.
  const lineageEdges = context.edges.filter(
    (edge) =>
      edge.edge_type === 'PRODUCES' &&
      (edge.src_id === node.id || edge.dst_id === node.id) &&
      Array.isArray(edge.attributes?.column_lineage),
  );
  if (lineageEdges.length > 0) {
    sections.push(
      h(
        'section',
        { class: 'card-section', 'aria-labelledby': 'column-lineage-title' },
        h('h2', { id: 'column-lineage-title' }, 'Column lineage'),
        ...lineageEdges.map((edge) => columnLineageGraph(edge, context)),
      ),
    );
  }

  // Configuration and other attributes as tables; tags and business metadata.
  const plain: [string, unknown][] = [];
  const tables: HTMLElement[] = [];
  for (const [key, value] of Object.entries(attributes)) {
    if (key.startsWith('metrics_') || key === 'tags' || key === 'business_metadata' || key === 'fields') continue;
    if (value && typeof value === 'object' && !Array.isArray(value))
      tables.push(keyValueTable(humanize(key), Object.entries(value as Record<string, unknown>)));
    else plain.push([humanize(key), value]);
  }
  sections.push(
    h(
      'section',
      { class: 'card-section', 'aria-labelledby': 'configuration-title' },
      h('h2', { id: 'configuration-title' }, 'Configuration'),
      keyValueTable('Properties', [
        ['id', node.id],
        ['qualified name', node.qualified_name],
        ['environment', node.environment_id],
        ['cluster', node.cluster_id],
        ...plain,
      ]),
      ...tables,
    ),
  );
  const tags = Array.isArray(attributes.tags) ? (attributes.tags as unknown[]).map(String) : [];
  const business = attributes.business_metadata;
  sections.push(
    h(
      'section',
      { class: 'card-section', 'aria-labelledby': 'tags-title' },
      h('h2', { id: 'tags-title' }, 'Tags and business metadata'),
      tags.length > 0
        ? h(
            'table',
            { class: 'grid' },
            h('caption', {}, 'Tags'),
            h('tbody', {}, ...tags.map((tag) => h('tr', {}, h('td', {}, tag)))),
          )
        : h('p', {}, 'No tag.'),
      ...(business && typeof business === 'object'
        ? Object.entries(business as Record<string, unknown>).map(([type, values]) =>
            keyValueTable(type, Object.entries((values ?? {}) as Record<string, unknown>)),
          )
        : [h('p', {}, 'No business metadata.')]),
    ),
  );

  const links = deepLinks(node);
  sections.push(
    h(
      'section',
      { class: 'card-section', 'aria-labelledby': 'links-title' },
      h('h2', { id: 'links-title' }, 'Open in'),
      links.length > 0
        ? h(
            'ul',
            {},
            ...links.map((link) =>
              h('li', {}, h('a', { href: link.href, target: '_blank', rel: 'noopener noreferrer' }, link.label)),
            ),
          )
        : h('p', {}, 'No platform or catalog page is known for this node.'),
    ),
  );

  sections.push(edgesSection(node, context));
  sections.push(loadingSection('runs', 'OpenLineage runs', () => runsOf(node, context)));
  sections.push(loadingSection('history', 'History and provenance', () => provenanceOf(node, context)));
  sections.push(loadingSection('metrics', 'Metrics', () => metricsOf(node, context)));

  replaceChildren(
    container,
    h('p', { class: 'breadcrumb' }, viewLink(context, { page: null }, 'Graph'), ' › ', humanize(node.node_type)),
    h(
      'header',
      { class: 'page-header' },
      h(
        'span',
        { class: 'type-badge', style: `background:${NODE_TYPE_COLORS[node.node_type] ?? FALLBACK_COLOR}` },
        humanize(node.node_type),
      ),
      h('h1', { id: 'page-title' }, node.display_name),
      h(
        'p',
        { class: 'subtitle' },
        [humanize(node.system), node.environment_id, node.cluster_id, context.asOf ? `as of ${context.asOf}` : null]
          .filter(Boolean)
          .join(' · '),
      ),
      h(
        'div',
        { class: 'actions' },
        viewLink(context, { page: null, node: node.id }, 'Show in the graph', { class: 'button' }),
        viewLink(context, { page: null, focus: node.id, node: node.id }, 'Focus the graph here', { class: 'button' }),
        viewLink(context, { page: 'impact', node: node.id, field: null }, 'Impact of this node', { class: 'button' }),
      ),
    ),
    h('div', { class: 'page-sections' }, ...sections),
  );
}

/**
 * Column lineage of one `PRODUCES` edge drawn as a field-to-field graph: input columns (grouped by
 * dataset) on the left, output columns on the right, a line per input; the same as a table for
 * screen readers.
 */
function columnLineageGraph(edge: LineageEdge, context: PageContext): HTMLElement {
  const entries = edge.attributes!.column_lineage as ColumnLineageEntry[];
  const nameOf = (id: string) => context.nodesById.get(id)?.display_name ?? id;
  const inputs = [
    ...new Set(entries.flatMap((entry) => entry.inputs.map((input) => `${nameOf(input.dataset)}.${input.column}`))),
  ];
  const outputs = [...new Set(entries.map((entry) => entry.output))];
  const row = 24;
  const height = Math.max(inputs.length, outputs.length) * row + 30;
  const width = 640;
  const svgNs = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(svgNs, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('class', 'field-graph');
  svg.setAttribute('aria-hidden', 'true');
  const add = (tag: string, attributes: Record<string, string | number>, text?: string) => {
    const element = document.createElementNS(svgNs, tag);
    for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
    if (text !== undefined) element.textContent = text;
    svg.append(element);
    return element;
  };
  const yOf = (index: number) => 30 + index * row;
  add('text', { x: 8, y: 14, class: 'field-heading' }, `from ${nameOf(edge.src_id)}'s inputs`);
  add('text', { x: width - 8, y: 14, 'text-anchor': 'end', class: 'field-heading' }, `into ${nameOf(edge.dst_id)}`);
  entries.forEach((entry, outputIndex) => {
    for (const input of entry.inputs) {
      const inputIndex = inputs.indexOf(`${nameOf(input.dataset)}.${input.column}`);
      const y1 = yOf(inputIndex);
      const y2 = yOf(outputs.indexOf(entries[outputIndex]!.output));
      add('path', {
        d: `M 250 ${y1} C 330 ${y1}, 310 ${y2}, 390 ${y2}`,
        class: `field-link kind-${entry.kind ?? 'identity'}`,
      });
    }
  });
  inputs.forEach((input, index) => {
    add('rect', { x: 4, y: yOf(index) - 10, width: 246, height: 20, rx: 4, class: 'field-box' });
    add(
      'text',
      { x: 12, y: yOf(index) + 4, class: 'field-name' },
      input.length > 38 ? `${input.slice(0, 17)}…${input.slice(-20)}` : input,
    );
  });
  outputs.forEach((output, index) => {
    add('rect', { x: 390, y: yOf(index) - 10, width: 246, height: 20, rx: 4, class: 'field-box' });
    add('text', { x: 398, y: yOf(index) + 4, class: 'field-name' }, output);
  });
  return h(
    'figure',
    { class: 'column-lineage' },
    svg,
    h(
      'figcaption',
      {},
      `From ${nameOf(edge.src_id)} into ${nameOf(edge.dst_id)}: ` +
        `${plural(outputs.length, 'output column')} fed by ${plural(inputs.length, 'input column')}.`,
    ),
    h(
      'details',
      {},
      h('summary', {}, 'As a table'),
      h(
        'table',
        { class: 'grid' },
        h('caption', {}, `Column lineage from ${nameOf(edge.src_id)} into ${nameOf(edge.dst_id)}`),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'Output column'),
            h('th', { scope: 'col' }, 'How'),
            h('th', { scope: 'col' }, 'Input columns'),
          ),
        ),
        h(
          'tbody',
          {},
          ...entries.map((entry) =>
            h(
              'tr',
              {},
              h('td', {}, entry.output),
              h('td', {}, entry.kind ?? 'identity'),
              h('td', {}, entry.inputs.map((input) => `${nameOf(input.dataset)}.${input.column}`).join(', ')),
            ),
          ),
        ),
      ),
    ),
  );
}

/** `GET /graphs/{id}/nodes/{node_id}/history` (the fields the page shows). */
interface NodeHistory {
  present: boolean;
  first_seen: string;
  last_seen: string;
  total: number;
  changes: {
    recorded_at: string;
    change: string;
    cause?: string;
    actor?: string;
    reason: string;
    revision: number;
    state?: LineageNode | null;
  }[];
}

async function provenanceOf(node: LineageNode, context: PageContext) {
  const history = await api<NodeHistory>('GET', nodePath(context, node.id, '/history'));
  return [
    h(
      'p',
      {},
      `First seen ${formatTime(history.first_seen)}; ${history.present ? 'present as of' : 'removed'} ` +
        `${formatTime(history.last_seen)}; ${plural(history.total, 'change')}.`,
    ),
    h(
      'table',
      { class: 'grid provenance' },
      h('caption', {}, 'Each change, oldest first'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'When'),
          h('th', { scope: 'col' }, 'Revision'),
          h('th', { scope: 'col' }, 'Change'),
          h('th', { scope: 'col' }, 'Why'),
        ),
      ),
      h(
        'tbody',
        {},
        ...history.changes.map((change) =>
          h(
            'tr',
            {},
            h('td', {}, formatTime(change.recorded_at)),
            h(
              'td',
              {},
              viewLink(context, { as_of: String(change.revision) }, String(change.revision), {
                'aria-label': `Show the node as of revision ${change.revision}`,
              }),
            ),
            h('td', {}, change.change),
            h('td', {}, change.reason),
          ),
        ),
      ),
    ),
  ];
}

/**
 * The node's edges, upstream then downstream, each with a link to the other end and a button that
 * shows the edge's provenance (`GET /graphs/{id}/edges/history`: when it appeared, each change, why).
 */
function edgesSection(node: LineageNode, context: PageContext): HTMLElement {
  const nameOf = (id: string) => context.nodesById.get(id)?.display_name ?? id;
  const touching = context.edges.filter((edge) => edge.src_id === node.id || edge.dst_id === node.id);
  const ordered = [
    ...touching.filter((edge) => edge.dst_id === node.id),
    ...touching.filter((edge) => edge.src_id === node.id),
  ];
  const rows = ordered.map((edge, index) => {
    const upstream = edge.dst_id === node.id;
    const other = upstream ? edge.src_id : edge.dst_id;
    const detail = h('div', { class: 'edge-history', id: `edge-history-${index}` });
    const show = async () => {
      replaceChildren(detail, h('p', { role: 'status' }, 'Loading its history…'));
      try {
        const history = await api<NodeHistory>('GET', `/graphs/${encodeURIComponent(context.graphId)}/edges/history`, {
          src_id: edge.src_id,
          dst_id: edge.dst_id,
          edge_type: edge.edge_type,
        });
        replaceChildren(
          detail,
          h(
            'ol',
            {},
            ...history.changes.map((change) =>
              h('li', {}, `${formatTime(change.recorded_at)} (revision ${change.revision}): ${change.reason}`),
            ),
          ),
        );
      } catch (error) {
        replaceChildren(detail, h('p', { role: 'alert' }, `Its history could not be loaded: ${errorText(error)}`));
      }
    };
    return h(
      'tr',
      {},
      h('td', {}, upstream ? 'from' : 'to'),
      h('td', {}, humanize(edge.edge_type)),
      h('td', {}, viewLink(context, { page: 'node', node: other, field: null }, nameOf(other))),
      h(
        'td',
        {},
        h(
          'button',
          {
            type: 'button',
            'aria-label': `History of the edge ${upstream ? 'from' : 'to'} ${nameOf(other)}`,
            onclick: () => void show(),
          },
          'History',
        ),
        detail,
      ),
    );
  });
  return h(
    'section',
    { class: 'card-section', 'aria-labelledby': 'edges-title' },
    h('h2', { id: 'edges-title' }, 'Edges'),
    rows.length > 0
      ? h(
          'table',
          { class: 'grid edges' },
          h('caption', {}, `${plural(rows.length, 'edge')}, upstream first`),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', { scope: 'col' }, 'Direction'),
              h('th', { scope: 'col' }, 'Type'),
              h('th', { scope: 'col' }, 'Other end'),
              h('th', { scope: 'col' }, 'Provenance'),
            ),
          ),
          h('tbody', {}, ...rows),
        )
      : h('p', {}, 'No edge.'),
  );
}

/** An ingested OpenLineage event as listed by `GET /lineage/events`. */
interface StoredEvent {
  eventType?: string;
  eventTime?: string;
  run?: { runId?: string };
  job?: { namespace?: string; name?: string };
}

/** One run: its id, its first and last event times and its latest state. */
interface RunSummary {
  runId: string;
  started: string | null;
  ended: string | null;
  state: string;
}

/** Runs from events, newest first. */
export function summarizeRuns(events: StoredEvent[]): RunSummary[] {
  const runs = new Map<string, RunSummary>();
  for (const event of events) {
    const runId = event.run?.runId;
    if (!runId) continue;
    const run = runs.get(runId) ?? { runId, started: null, ended: null, state: 'OTHER' };
    const time = event.eventTime ?? null;
    if (time && (!run.started || time < run.started)) run.started = time;
    if (time && (!run.ended || time >= run.ended)) {
      run.ended = time;
      run.state = event.eventType ?? run.state;
    }
    runs.set(runId, run);
  }
  return [...runs.values()].sort((a, b) => (b.ended ?? '').localeCompare(a.ended ?? ''));
}

function runTable(caption: string, runs: RunSummary[]) {
  return h(
    'table',
    { class: 'grid runs' },
    h('caption', {}, caption),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', { scope: 'col' }, 'Run'),
        h('th', { scope: 'col' }, 'State'),
        h('th', { scope: 'col' }, 'Started'),
        h('th', { scope: 'col' }, 'Last event'),
      ),
    ),
    h(
      'tbody',
      {},
      ...runs.map((run) =>
        h(
          'tr',
          {},
          h('td', {}, h('code', {}, run.runId)),
          h('td', { class: `run-state state-${run.state.toLowerCase()}` }, run.state),
          h('td', {}, formatTime(run.started)),
          h('td', {}, formatTime(run.ended)),
        ),
      ),
    ),
  );
}

/** Runs of the jobs that wrote and read a dataset, or of the job itself: from the events the API received. */
async function runsOf(node: LineageNode, context: PageContext) {
  const form = await api<NodeOpenLineage>('GET', nodePath(context, node.id, '/openlineage'), { as_of: context.asOf });
  const eventsOf = async (namespace: string, name: string) =>
    summarizeRuns(
      (await api<{ events: StoredEvent[] }>('GET', '/lineage/events', { namespace, job: name, limit: 200 })).events,
    );
  if (form.kind === 'job') {
    const job = (form.event as { job?: { namespace: string; name: string } } | null)?.job;
    if (!job) return [h('p', {}, 'This job has no OpenLineage form.')];
    const runs = await eventsOf(job.namespace, job.name);
    return [
      h('p', {}, `OpenLineage job ${job.namespace} ${job.name}.`),
      runs.length > 0
        ? runTable('Runs received for this job, newest first', runs)
        : h(
            'p',
            { class: 'hint' },
            'No run received yet: runs appear when the job sends OpenLineage events (POST /api/v1/lineage).',
          ),
    ];
  }
  if (form.kind !== 'dataset') return [h('p', {}, 'This node is neither an OpenLineage job nor a dataset.')];
  const list = (title: string, references: RunReference[]) =>
    h(
      'table',
      { class: 'grid' },
      h('caption', {}, title),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Job'),
          h('th', { scope: 'col' }, 'Latest state'),
          h('th', { scope: 'col' }, 'Latest event'),
          h('th', { scope: 'col' }, 'Source'),
        ),
      ),
      h(
        'tbody',
        {},
        ...(references.length > 0
          ? references.map((run) =>
              h(
                'tr',
                {},
                h('td', {}, `${run.namespace} ${run.name}`),
                h('td', {}, run.source === 'ingested' ? (run.event_type ?? '—') : 'declared by the platform'),
                h('td', {}, run.source === 'ingested' ? formatTime(run.event_time) : '—'),
                h('td', {}, run.source === 'ingested' ? 'OpenLineage events' : 'this graph'),
              ),
            )
          : [h('tr', {}, h('td', { colspan: '4' }, 'none'))]),
      ),
    );
  return [
    h('p', {}, `OpenLineage dataset ${form.dataset?.namespace ?? ''} ${form.dataset?.name ?? ''}.`),
    list('Jobs that write it', form.runs.written_by),
    list('Jobs that read it', form.runs.read_by),
  ];
}

/** `GET /graphs/{id}/nodes/{node_id}/metrics`. */
interface MetricSeries {
  samples: { window_end: string; metrics: Record<string, unknown> }[];
}

/** A small line chart of one metric (SVG), with its name, last value and range as text. */
export function sparkline(name: string, points: { time: string; value: number }[]): HTMLElement {
  const width = 220;
  const height = 48;
  const values = points.map((point) => point.value);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high - low || 1;
  const path = points
    .map((point, index) => {
      const x = points.length === 1 ? width / 2 : (index / (points.length - 1)) * (width - 8) + 4;
      const y = height - 4 - ((point.value - low) / span) * (height - 8);
      return `${index === 0 ? 'M' : 'L'} ${x.toFixed(1)} ${y.toFixed(1)}`;
    })
    .join(' ');
  const svgNs = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(svgNs, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('class', 'sparkline');
  svg.setAttribute('role', 'img');
  const last = values.at(-1)!;
  svg.setAttribute(
    'aria-label',
    `${humanize(name)}: ${points.length} samples from ${formatTime(points[0]!.time)} to ${formatTime(points.at(-1)!.time)}, ` +
      `lowest ${low.toLocaleString('en')}, highest ${high.toLocaleString('en')}, last ${last.toLocaleString('en')}`,
  );
  const line = document.createElementNS(svgNs, 'path');
  line.setAttribute('d', points.length === 1 ? `M 4 ${height / 2} L ${width - 4} ${height / 2}` : path);
  svg.append(line);
  return h(
    'figure',
    { class: 'metric' },
    h('figcaption', {}, h('span', {}, humanize(name)), h('strong', {}, last.toLocaleString('en'))),
    svg,
  );
}

async function metricsOf(node: LineageNode, context: PageContext) {
  const series = await api<MetricSeries>('GET', nodePath(context, node.id, '/metrics'));
  const byName = new Map<string, { time: string; value: number }[]>();
  for (const sample of series.samples) {
    for (const [key, value] of Object.entries(sample.metrics)) {
      if (typeof value !== 'number') continue;
      const name = key.replace(/^metrics_/, '');
      byName.set(name, [...(byName.get(name) ?? []), { time: sample.window_end, value }]);
    }
  }
  if (byName.size === 0)
    return [h('p', { class: 'hint' }, 'No metric sample for this node (extract with metrics to record throughput).')];
  return [h('div', { class: 'metrics' }, ...[...byName].map(([name, points]) => sparkline(name, points)))];
}

/** `GET /graphs/{id}/impact`: what depends on a field or a node. */
export interface ImpactAnswer {
  origin: { node_id: string; field: string | null };
  direction: string;
  columns: { node_id: string; field: string; hops: number; via: string | string[] | null }[];
  jobs: (string | { node_id?: string; id?: string; name?: string; display_name?: string })[];
  node_count: number;
}

/** The query of the impact endpoint for the page's state. */
export function impactQuery(state: {
  node: string;
  field: string | null;
  direction: string;
  depth: number | null;
  asOf: string | null;
}) {
  return {
    node_id: state.node,
    // `*`: every field of the node (the whole node).
    field: state.field ?? '*',
    direction: state.direction,
    depth: state.depth,
    as_of: state.asOf,
  };
}

/** Renders the impact page: pick a field or the whole node, see every column, job and table reached, filter, export. */
export function renderImpactPage(
  container: HTMLElement,
  node: LineageNode | null,
  state: { node: string; field: string | null; direction: string; depth: number | null },
  context: PageContext,
) {
  const nameOf = (id: string) => context.nodesById.get(id)?.display_name ?? id;
  const fieldPicker = h(
    'select',
    { id: 'impact-field' },
    h('option', { value: '' }, '(the whole node)'),
    ...[...new Set([...(node ? fieldsOf(node, context) : []), ...(state.field ? [state.field] : [])])].map((field) =>
      h('option', { value: field, selected: field === state.field }, field),
    ),
  );
  const directionPicker = h(
    'select',
    { id: 'impact-direction' },
    ...['downstream', 'upstream'].map((direction) =>
      h('option', { value: direction, selected: direction === state.direction }, direction),
    ),
  );
  const depthInput = h('input', {
    id: 'impact-depth',
    type: 'number',
    min: '1',
    max: '50',
    value: state.depth ?? '',
    placeholder: 'all',
  });
  const filterInput = h('input', {
    id: 'impact-filter',
    type: 'search',
    placeholder: 'name, field or type',
    autocomplete: 'off',
  });
  const results = h(
    'div',
    { id: 'impact-results', 'aria-live': 'polite' },
    h('p', { role: 'status' }, 'Asking the impact API…'),
  );
  const query = impactQuery({ ...state, asOf: context.asOf });
  const csvHref = `/api/v1/graphs/${encodeURIComponent(context.graphId)}/impact?${new URLSearchParams(
    Object.entries({ ...query, format: 'csv' })
      .filter((entry): entry is [string, string] => entry[1] !== null && entry[1] !== undefined && entry[1] !== '')
      .map(([key, value]) => [key, String(value)]),
  )}`;
  const apply = () =>
    context.go({
      field: fieldPicker.value || null,
      direction: directionPicker.value === 'downstream' ? null : directionPicker.value,
      depth: depthInput.value || null,
    });
  replaceChildren(
    container,
    h(
      'p',
      { class: 'breadcrumb' },
      viewLink(context, { page: null }, 'Graph'),
      ' › ',
      node ? viewLink(context, { page: 'node', node: state.node, field: null }, node.display_name) : state.node,
      ' › impact',
    ),
    h(
      'h1',
      { id: 'page-title' },
      `Impact of ${node?.display_name ?? state.node}${state.field ? `.${state.field}` : ''}`,
    ),
    h(
      'form',
      {
        class: 'impact-form',
        'aria-label': 'What to follow',
        onsubmit: (event: Event) => {
          event.preventDefault();
          apply();
        },
      },
      h('label', { for: 'impact-field' }, 'Field'),
      fieldPicker,
      h('label', { for: 'impact-direction' }, 'Direction'),
      directionPicker,
      h('label', { for: 'impact-depth' }, 'Hops at most'),
      depthInput,
      h('button', { type: 'submit' }, 'Show'),
      h(
        'a',
        {
          id: 'impact-csv',
          class: 'button',
          href: csvHref,
          download: `impact-${(node?.display_name ?? 'node').replace(/[^\w.-]+/g, '_')}.csv`,
        },
        'Export CSV',
      ),
    ),
    h('label', { for: 'impact-filter' }, 'Filter the results'),
    filterInput,
    results,
  );
  api<ImpactAnswer>('GET', `/graphs/${encodeURIComponent(context.graphId)}/impact`, query).then(
    (answer) => {
      const render = () => {
        const text = filterInput.value.trim().toLowerCase();
        const matches = (...values: string[]) =>
          text === '' || values.some((value) => value.toLowerCase().includes(text));
        const columns = answer.columns.filter((column) =>
          matches(nameOf(column.node_id), column.field, context.nodesById.get(column.node_id)?.node_type ?? ''),
        );
        const jobs = answer.jobs
          .map((job) => (typeof job === 'string' ? job : (job.node_id ?? job.id ?? job.name ?? job.display_name ?? '')))
          .filter((id) => matches(nameOf(id), context.nodesById.get(id)?.node_type ?? ''));
        const tables = [...new Set(columns.map((column) => column.node_id))];
        replaceChildren(
          results,
          h(
            'p',
            { id: 'impact-summary' },
            `${plural(columns.length, 'column')} in ${plural(tables.length, 'dataset')}, ${plural(jobs.length, 'job')} ` +
              `${answer.direction} (${answer.node_count} nodes reached)${context.asOf ? `, as of ${context.asOf}` : ''}.`,
          ),
          h(
            'table',
            { class: 'grid', id: 'impact-columns' },
            h('caption', {}, 'Columns reached'),
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', { scope: 'col' }, 'Dataset'),
                h('th', { scope: 'col' }, 'Field'),
                h('th', { scope: 'col' }, 'Hops'),
                h('th', { scope: 'col' }, 'Through'),
              ),
            ),
            h(
              'tbody',
              {},
              ...columns.map((column) =>
                h(
                  'tr',
                  {},
                  h(
                    'td',
                    {},
                    viewLink(context, { page: 'node', node: column.node_id, field: null }, nameOf(column.node_id)),
                  ),
                  h('td', {}, h('code', {}, column.field)),
                  h('td', {}, String(column.hops)),
                  h(
                    'td',
                    {},
                    (Array.isArray(column.via) ? column.via : column.via ? [column.via] : []).map(nameOf).join(', '),
                  ),
                ),
              ),
            ),
          ),
          h(
            'section',
            { 'aria-labelledby': 'impact-jobs-title' },
            h('h2', { id: 'impact-jobs-title' }, 'Jobs'),
            jobs.length > 0
              ? h(
                  'ul',
                  { id: 'impact-jobs' },
                  ...jobs.map((id) =>
                    h('li', {}, viewLink(context, { page: 'node', node: id, field: null }, nameOf(id))),
                  ),
                )
              : h('p', {}, 'none'),
          ),
        );
      };
      filterInput.addEventListener('input', render);
      render();
      document.body.dataset.pageState = 'ready';
    },
    (error) => {
      replaceChildren(
        results,
        h(
          'p',
          { role: 'alert' },
          error instanceof ApiError && error.status === 404 && /^no route/i.test(error.detail)
            ? `This API has no impact endpoint yet (GET /graphs/{graph_id}/impact): ${error.detail}`
            : `The impact could not be computed: ${errorText(error)}`,
        ),
      );
      document.body.dataset.pageState = 'ready';
    },
  );
}
