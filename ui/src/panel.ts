/**
 * The node panel: every attribute, schema fields, column-level lineage, metrics, tags and business
 * metadata, deep links into the platform and the catalogs, the node's OpenLineage form and the
 * OpenLineage runs that touched a dataset.
 */
import { api, type LineageEdge, type LineageNode, type NodeOpenLineage, type RunReference } from './api';
import { breakable, formatValue, h, keyValueTable, replaceChildren } from './dom';
import { humanize } from './styles';

/** What the panel needs from the app. */
export interface PanelContext {
  graphId: string;
  /** The point in time shown (`as_of`: a revision or an ISO 8601 time), null for now. */
  asOf: string | null;
  nodesById: Map<string, LineageNode>;
  edges: LineageEdge[];
  /** Focus on the node (with the current hops). */
  focus(nodeId: string): void;
  /** Set one end of a path. */
  pathEnd(end: 'from' | 'to', nodeId: string): void;
  /** Opens the node's detail page or its impact page. */
  openPage(page: 'node' | 'impact', nodeId: string): void;
}

interface SchemaField {
  name: string;
  type?: string;
  doc?: string;
}

interface ColumnLineageEntry {
  output: string;
  kind?: string;
  inputs: { dataset: string; column: string }[];
}

const JOB_TYPES = new Set(['CONNECTOR', 'SQL_QUERY', 'STREAM_JOB', 'CONSUMER_GROUP', 'CATALOG_JOB']);

/** Links into the platform and the catalogs, by what the node holds. */
export function deepLinks(node: LineageNode): { label: string; href: string }[] {
  const links: { label: string; href: string }[] = [];
  const attributes = node.attributes ?? {};
  const environment = node.environment_id;
  const cluster = node.cluster_id;
  const base = 'https://confluent.cloud';
  if (node.system === 'STREAM' && environment) {
    if (node.node_type === 'TOPIC' && cluster) {
      links.push({
        label: 'Topic in Confluent Cloud',
        href: `${base}/environments/${environment}/clusters/${cluster}/topics/${encodeURIComponent(node.display_name)}/overview`,
      });
    } else if (node.node_type === 'CONNECTOR' && cluster) {
      links.push({
        label: 'Connector in Confluent Cloud',
        href: `${base}/environments/${environment}/clusters/${cluster}/connectors/details/${encodeURIComponent(node.display_name)}/overview`,
      });
    } else if (node.node_type === 'CONSUMER_GROUP' && cluster) {
      links.push({
        label: 'Consumer group in Confluent Cloud',
        href: `${base}/environments/${environment}/clusters/${cluster}/clients/consumer-lag/${encodeURIComponent(node.display_name)}`,
      });
    } else if (node.node_type === 'STREAM_JOB') {
      links.push({
        label: 'Flink statement in Confluent Cloud',
        href: `${base}/environments/${environment}/flink/statements/${encodeURIComponent(node.display_name)}`,
      });
    } else if (node.node_type === 'SCHEMA') {
      links.push({
        label: 'Schema in Stream Governance',
        href: `${base}/environments/${environment}/schema-registry/schemas/${encodeURIComponent(node.display_name)}`,
      });
    } else if (node.node_type === 'SQL_QUERY') {
      links.push({ label: 'ksqlDB cluster in Confluent Cloud', href: `${base}/environments/${environment}/ksqldb` });
    }
    links.push({
      label: 'Stream Lineage in Confluent Cloud',
      href: `${base}/environments/${environment}/stream-lineage`,
    });
  }
  const workspace = typeof attributes.workspace_url === 'string' ? attributes.workspace_url : null;
  if (workspace && node.node_type === 'CATALOG_TABLE') {
    links.push({
      label: 'Table in Unity Catalog',
      href: `${workspace.replace(/\/+$/, '')}/explore/data/${node.qualified_name.split('.').map(encodeURIComponent).join('/')}`,
    });
  }
  for (const key of ['catalog_url', 'console_url', 'table_url', 'url']) {
    const value = attributes[key];
    if (typeof value === 'string' && /^https?:\/\//.test(value)) links.push({ label: humanize(key), href: value });
  }
  if (node.node_type === 'EXTERNAL_DATASET' && typeof attributes.uri === 'string') {
    links.push({ label: 'Dataset URI', href: attributes.uri });
  }
  return links;
}

/** Renders the panel of `node` into `container`. */
export function renderNodePanel(container: HTMLElement, node: LineageNode | null, context: PanelContext) {
  if (!node) {
    replaceChildren(
      container,
      h('p', { class: 'hint' }, 'Select a node in the graph or in the search results to see its details.'),
    );
    return;
  }
  const attributes = node.attributes ?? {};
  const metricEntries = Object.entries(attributes).filter(([key]) => key.startsWith('metrics_'));
  // Objects (a connector's or a topic's configs) get a table of their own, not JSON in a cell.
  const otherEntries = Object.entries(attributes).filter(
    ([key, value]) =>
      !key.startsWith('metrics_') &&
      key !== 'tags' &&
      key !== 'business_metadata' &&
      !(value && typeof value === 'object' && !Array.isArray(value)),
  );
  const objectEntries = Object.entries(attributes).filter(
    ([key, value]) =>
      !key.startsWith('metrics_') &&
      key !== 'business_metadata' &&
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value),
  );
  const sections: (HTMLElement | null)[] = [];

  sections.push(
    keyValueTable('Node', [
      ['id', node.id],
      ['type', node.node_type],
      ['system', node.system],
      ['qualified name', node.qualified_name],
      ['environment', node.environment_id],
      ['cluster', node.cluster_id],
      ...(node.catalog_type ? ([['catalog type', node.catalog_type]] as [string, unknown][]) : []),
    ]),
  );
  if (otherEntries.length > 0) sections.push(keyValueTable('Attributes', otherEntries));
  for (const [key, value] of objectEntries)
    sections.push(keyValueTable(humanize(key), Object.entries(value as Record<string, unknown>)));
  if (metricEntries.length > 0)
    sections.push(
      keyValueTable(
        'Metrics',
        metricEntries.map(([key, value]) => [key.slice(8), value]),
      ),
    );

  const tags = Array.isArray(attributes.tags) ? (attributes.tags as unknown[]).map(String) : [];
  const business = attributes.business_metadata;
  if (tags.length > 0 || (business && typeof business === 'object')) {
    sections.push(
      h(
        'section',
        { 'aria-labelledby': 'panel-tags' },
        h('h3', { id: 'panel-tags' }, 'Tags and business metadata'),
        tags.length > 0
          ? h('ul', { class: 'tags', 'aria-label': 'Tags' }, ...tags.map((tag) => h('li', {}, tag)))
          : null,
        ...(business && typeof business === 'object'
          ? Object.entries(business as Record<string, unknown>).map(([type, values]) =>
              keyValueTable(type, Object.entries((values ?? {}) as Record<string, unknown>)),
            )
          : []),
      ),
    );
  }

  // Schema fields: the node's own (a schema) or those of its schemas (a topic).
  const schemaNodes =
    node.node_type === 'SCHEMA'
      ? [node]
      : context.edges
          .filter((edge) => edge.edge_type === 'HAS_SCHEMA' && edge.src_id === node.id)
          .map((edge) => context.nodesById.get(edge.dst_id))
          .filter((schema): schema is LineageNode => schema !== undefined);
  for (const schema of schemaNodes) {
    const fields = Array.isArray(schema.attributes?.fields) ? (schema.attributes!.fields as SchemaField[]) : [];
    if (fields.length === 0) continue;
    sections.push(
      h(
        'table',
        { class: 'grid' },
        h(
          'caption',
          {},
          `Schema ${schema.display_name} (${formatValue(schema.attributes?.schema_type)}, version ${formatValue(schema.attributes?.version)})`,
        ),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'field'), h('th', { scope: 'col' }, 'type'))),
        h(
          'tbody',
          {},
          ...fields.map((field) => h('tr', {}, h('td', {}, field.name), h('td', {}, formatValue(field.type)))),
        ),
      ),
    );
  }

  // Column lineage: PRODUCES edges of a job, or into a dataset.
  const produces = context.edges.filter(
    (edge) =>
      edge.edge_type === 'PRODUCES' &&
      (edge.src_id === node.id || edge.dst_id === node.id) &&
      Array.isArray(edge.attributes?.column_lineage),
  );
  for (const edge of produces) {
    const entries = edge.attributes!.column_lineage as ColumnLineageEntry[];
    const nameOf = (id: string) => context.nodesById.get(id)?.display_name ?? id;
    const title =
      node.id === edge.src_id
        ? `Column lineage into ${nameOf(edge.dst_id)}`
        : `Column lineage from ${nameOf(edge.src_id)}`;
    sections.push(
      h(
        'table',
        { class: 'grid column-lineage' },
        h('caption', {}, title),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'output column'),
            h('th', { scope: 'col' }, 'kind'),
            h('th', { scope: 'col' }, 'input columns'),
          ),
        ),
        h(
          'tbody',
          {},
          ...entries.map((entry) =>
            h(
              'tr',
              {},
              h('td', {}, breakable(entry.output)),
              h('td', {}, breakable(entry.kind ?? 'identity')),
              h(
                'td',
                {},
                breakable(entry.inputs.map((input) => `${nameOf(input.dataset)}.${input.column}`).join(', ')),
              ),
            ),
          ),
        ),
      ),
    );
  }

  const links = deepLinks(node);
  if (links.length > 0) {
    sections.push(
      h(
        'section',
        { 'aria-labelledby': 'panel-links' },
        h('h3', { id: 'panel-links' }, 'Open in'),
        h(
          'ul',
          {},
          ...links.map((link) =>
            h('li', {}, h('a', { href: link.href, target: '_blank', rel: 'noopener noreferrer' }, link.label)),
          ),
        ),
      ),
    );
  }

  const openLineage = h('div', { class: 'openlineage' });
  const runs = h('div', { class: 'runs' });
  const isJob = JOB_TYPES.has(node.node_type);
  sections.push(
    h(
      'section',
      { 'aria-labelledby': 'panel-openlineage' },
      h('h3', { id: 'panel-openlineage' }, 'OpenLineage'),
      h(
        'button',
        {
          type: 'button',
          onclick: () => void showOpenLineage(node, context, openLineage, runs),
        },
        isJob ? 'Show the job as OpenLineage' : 'Show the dataset as OpenLineage, and its runs',
      ),
      openLineage,
      runs,
    ),
  );

  const provenance = h('div', { class: 'provenance' });
  sections.push(
    h(
      'section',
      { 'aria-labelledby': 'panel-provenance' },
      h('h3', { id: 'panel-provenance' }, 'History'),
      h(
        'button',
        { type: 'button', onclick: () => void showProvenance(node, context, provenance) },
        'Show when it appeared, each change and why',
      ),
      provenance,
    ),
  );

  replaceChildren(
    container,
    h('h2', { id: 'panel-title' }, node.display_name),
    h('p', { class: 'subtitle' }, `${humanize(node.node_type)} · ${humanize(node.system)}`),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', onclick: () => context.openPage('node', node.id) }, 'Open its page'),
      h('button', { type: 'button', onclick: () => context.openPage('impact', node.id) }, 'Impact'),
      h('button', { type: 'button', onclick: () => context.focus(node.id) }, 'Focus here'),
      h('button', { type: 'button', onclick: () => context.pathEnd('from', node.id) }, 'Path from here'),
      h('button', { type: 'button', onclick: () => context.pathEnd('to', node.id) }, 'Path to here'),
    ),
    ...sections,
  );
}

/** A node's provenance as `GET /graphs/{id}/nodes/{node_id}/history` answers it (the fields the panel shows). */
interface NodeProvenance {
  present: boolean;
  first_seen: string;
  last_seen: string;
  total: number;
  changes: { recorded_at: string; change: string; reason: string; revision: number }[];
}

/**
 * Shows the node's provenance: when it was first and last seen, and each change (newest last) with
 * the write that made it and, for a removal, why, from `GET /graphs/{id}/nodes/{node_id}/history`.
 */
async function showProvenance(node: LineageNode, context: PanelContext, target: HTMLElement) {
  replaceChildren(target, h('p', { role: 'status' }, 'Loading the history…'));
  try {
    const path = `/graphs/${encodeURIComponent(context.graphId)}/nodes/${encodeURIComponent(node.id)}/history`;
    const provenance = await api<NodeProvenance>('GET', path);
    const shown = provenance.changes.length < provenance.total ? ` (the newest ${provenance.changes.length})` : '';
    replaceChildren(
      target,
      h(
        'p',
        {},
        `First seen ${provenance.first_seen}; ${provenance.present ? 'present as of' : 'removed'} ${provenance.last_seen}. ` +
          `${provenance.total} change(s)${shown}:`,
      ),
      h(
        'ol',
        { class: 'provenance-changes', 'aria-label': 'Changes, oldest first' },
        ...provenance.changes.map((change) =>
          h('li', {}, `${change.recorded_at} (revision ${change.revision}): ${change.reason}`),
        ),
      ),
    );
  } catch (error) {
    replaceChildren(
      target,
      h(
        'p',
        { role: 'alert' },
        `Could not load the history: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  }
}

/**
 * Shows the node's OpenLineage form and, for a dataset, the runs that wrote and read it, from
 * `GET /graphs/{id}/nodes/{node_id}/openlineage` at the point in time shown.
 */
async function showOpenLineage(node: LineageNode, context: PanelContext, target: HTMLElement, runs: HTMLElement) {
  replaceChildren(target, h('p', { role: 'status' }, 'Loading the OpenLineage form…'));
  replaceChildren(runs);
  try {
    const path = `/graphs/${encodeURIComponent(context.graphId)}/nodes/${encodeURIComponent(node.id)}/openlineage`;
    const form = await api<NodeOpenLineage>('GET', path, { as_of: context.asOf });
    if (form.kind === 'job') {
      replaceChildren(
        target,
        h(
          'pre',
          { tabindex: '0', 'aria-label': 'OpenLineage run event of the job' },
          JSON.stringify(form.event, null, 2),
        ),
      );
      return;
    }
    if (form.kind !== 'dataset' || !form.dataset) {
      replaceChildren(target, h('p', {}, 'This node is neither an OpenLineage job nor a dataset.'));
      return;
    }
    replaceChildren(
      target,
      h('pre', { tabindex: '0', 'aria-label': 'OpenLineage dataset' }, JSON.stringify(form.dataset, null, 2)),
    );
    const runList = (title: string, items: RunReference[]) =>
      h(
        'section',
        {},
        h('h4', {}, title),
        items.length > 0 ? h('ul', {}, ...items.map((item) => h('li', {}, describeRun(item)))) : h('p', {}, 'none'),
      );
    replaceChildren(
      runs,
      runList('Runs that wrote it', form.runs.written_by),
      runList('Runs that read it', form.runs.read_by),
    );
  } catch (error) {
    replaceChildren(
      target,
      h(
        'p',
        { role: 'alert' },
        `Could not load OpenLineage: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  }
}

/** One run as a line: job, runId, eventType, eventTime, and whether it came from ingested events. */
function describeRun(run: RunReference): string {
  const parts = [`${run.namespace} ${run.name}`, run.run_id, run.event_type, run.event_time];
  if (run.source === 'ingested') parts.push('ingested');
  return parts.filter(Boolean).join(' · ');
}
