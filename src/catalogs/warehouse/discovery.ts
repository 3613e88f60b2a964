/**
 * Warehouse downstream discovery through the Data Lineage API (`docs/catalogs.md`, "Warehouse" ->
 * "Downstream discovery"; `docs/catalog-apis.md` B3): for one warehouse table,
 *
 * 1. `searchLinks` with `source.fullyQualifiedName` = `bigquery:{project}.{dataset}.{table}`, every
 *    page (100 links a page, `nextPageToken`, at most `MAX_LINK_PAGES` pages);
 * 2. the links whose target is a BigQuery table (`bigquery:{project}.{dataset}.{table}`; other
 *    targets are left out) become downstream tables: CATALOG_TABLE `warehouse:catalog_table:{env}:{p}.{d}.{t}`
 *    with `derived: true` (environment and cluster of the upstream table, `discovered_from`);
 * 3. `batchSearchLinkProcesses` (100 links a request, every page) names the processes that created
 *    each link, and `processes.get` (once per process in one enrichment) reads each one; a process
 *    becomes a CATALOG_JOB `warehouse:catalog_job:{env}:process/{process id}` between the two tables
 *    (CONSUMES upstream -> job, PRODUCES job -> downstream); a link with no process known gives a
 *    TRANSFORMS edge instead (`docs/contract.md` section 2).
 *
 * The recursion, its bounds and the enrichment of discovered tables are the shared walk's
 * (`src/catalogs/downstream.ts`). A 401, 403 or 404 from `searchLinks` (the API disabled or not
 * allowed in the project) turns discovery off for the rest of the enrichment with one warning;
 * other failures are one warning for the table.
 */
import { catalogJobId, warehouseTableId } from '../../graph/ids.js';
import type { Edge, Node } from '../../graph/model.js';
import type { DownstreamEntry } from '../downstream.js';
import { fqnSegment } from './dataplex.js';
import {
  describeFailure,
  isSkippableWarehouseError,
  nonEmpty,
  type BigQueryTableRef,
  type LineageLink,
  type LineageProcess,
  type WarehouseCatalogPort,
} from './port.js';

/** Most `searchLinks` pages read for one table (100 links each). */
export const MAX_LINK_PAGES = 20;
/** Most links one `batchSearchLinkProcesses` request may name (the API's limit). */
export const LINKS_PER_PROCESS_SEARCH = 100;
/** Where the edges of discovered lineage come from (their `source` attribute). */
const EDGE_SOURCE = { source: 'warehouse_search_links' };

/**
 * The FQN of a BigQuery table, `bigquery:{project}.{dataset}.{table}`, as Google derives it from a
 * lineage event's `bigquery` dataset: the project as it is (a domain-scoped `example.com:p` too),
 * dataset and table backtick-quoted only when they hold a reserved character (valid BigQuery ids never do).
 */
export function bigQueryTableFqn(ref: BigQueryTableRef): string {
  return `bigquery:${ref.project}.${fqnSegment(ref.dataset)}.${fqnSegment(ref.table)}`;
}

/**
 * The table a BigQuery FQN names: `bigquery:{project}.{dataset}.{table}` (segments may be
 * backtick-quoted, backticks doubled inside); the last two segments are the dataset and the table,
 * the rest the project (domain-scoped projects hold a dot). Null for any other FQN.
 */
export function parseBigQueryFqn(fqn: string): BigQueryTableRef | null {
  if (!fqn.startsWith('bigquery:')) return null;
  const segments: string[] = [];
  const pattern = /`((?:[^`]|``)*)`|([^.`]+)/gy;
  const body = fqn.slice('bigquery:'.length);
  for (let index = 0; index < body.length;) {
    pattern.lastIndex = index;
    const match = pattern.exec(body);
    if (!match) return null;
    segments.push(match[1] !== undefined ? match[1].replaceAll('``', '`') : match[2]!);
    index = pattern.lastIndex;
    if (index < body.length) {
      if (body[index] !== '.') return null;
      index += 1;
      if (index === body.length) return null;
    }
  }
  if (segments.length < 3 || segments.some((segment) => segment === '')) return null;
  const table = segments.pop()!;
  const dataset = segments.pop()!;
  return { project: segments.join('.'), dataset, table };
}

/** Every link whose source is `fqn` (all pages, at most `MAX_LINK_PAGES`). @throws CatalogApiError */
async function allLinks(port: WarehouseCatalogPort, fqn: string): Promise<LineageLink[]> {
  const links: LineageLink[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_LINK_PAGES; page += 1) {
    const answer = await port.searchLinks(fqn, pageToken);
    links.push(...(answer.links ?? []));
    pageToken = nonEmpty(answer.nextPageToken) ? answer.nextPageToken : undefined;
    if (!pageToken) break;
  }
  return links;
}

/** Link name -> the names of the processes that created it (all pages of every batch). @throws CatalogApiError */
async function processesOfLinks(port: WarehouseCatalogPort, names: readonly string[]): Promise<Map<string, string[]>> {
  const byLink = new Map<string, string[]>();
  for (let start = 0; start < names.length; start += LINKS_PER_PROCESS_SEARCH) {
    const batch = names.slice(start, start + LINKS_PER_PROCESS_SEARCH);
    let pageToken: string | undefined;
    for (let page = 0; page < MAX_LINK_PAGES; page += 1) {
      const answer = await port.batchSearchLinkProcesses(batch, pageToken);
      for (const entry of answer.processLinks ?? []) {
        if (!nonEmpty(entry.process)) continue;
        for (const { link } of entry.links ?? []) {
          if (!nonEmpty(link)) continue;
          const processes = byLink.get(link) ?? [];
          if (!processes.includes(entry.process)) processes.push(entry.process);
          byLink.set(link, processes);
        }
      }
      pageToken = nonEmpty(answer.nextPageToken) ? answer.nextPageToken : undefined;
      if (!pageToken) break;
    }
  }
  return byLink;
}

/** The BigQuery console of a project (processes have no console page of their own). */
function projectConsoleLink(project: string): string {
  return `https://console.cloud.google.com/bigquery?project=${encodeURIComponent(project)}`;
}

/**
 * The CATALOG_JOB of a Data Lineage process between the table read (`upstream`) and the table
 * written (`downstreamId`): id `warehouse:catalog_job:{env}:process/{process id}`, attributes
 * `job_kind` (the origin's source type in lower case, e.g. `bigquery`, `dataflow`; `custom` when
 * none), `entity_id` (the process id), `process_name` (the resource name), `origin_name`,
 * `process_attributes`, `url`, `project_id` (its OpenLineage namespace `warehouse://{project}`), `derived`,
 * `discovered_from`; edges CONSUMES upstream -> job and
 * PRODUCES job -> downstream.
 */
export function warehouseCatalogJob(
  processName: string,
  process: LineageProcess | null,
  upstream: Pick<Node, 'id' | 'environment_id' | 'cluster_id'>,
  downstreamId: string,
  project: string,
): { nodes: Node[]; edges: Edge[] } {
  const processId = processName.split('/').pop() ?? processName;
  const id = catalogJobId('WAREHOUSE', upstream.environment_id ?? 'unknown', `process/${processId}`);
  const job: Node = {
    id,
    node_type: 'CATALOG_JOB',
    system: 'WAREHOUSE',
    qualified_name: `process/${processId}`,
    display_name: nonEmpty(process?.displayName) ? process.displayName : processId,
    environment_id: upstream.environment_id,
    cluster_id: upstream.cluster_id,
    attributes: {
      derived: true,
      job_kind: (process?.origin?.sourceType ?? 'CUSTOM').toLowerCase(),
      entity_id: processId,
      process_name: processName,
      origin_name: process?.origin?.name ?? null,
      process_attributes: process?.attributes && typeof process.attributes === 'object' ? process.attributes : {},
      url: projectConsoleLink(project),
      project_id: project,
      discovered_from: upstream.id,
    },
  };
  return {
    nodes: [job],
    edges: [
      { src_id: upstream.id, dst_id: id, edge_type: 'CONSUMES', attributes: EDGE_SOURCE },
      { src_id: id, dst_id: downstreamId, edge_type: 'PRODUCES', attributes: EDGE_SOURCE },
    ],
  };
}

/** The derived CATALOG_TABLE of a downstream BigQuery table. */
function derivedTable(ref: BigQueryTableRef, upstream: Node): Node {
  return {
    id: warehouseTableId(upstream.environment_id ?? 'unknown', ref.project, ref.dataset, ref.table),
    node_type: 'CATALOG_TABLE',
    system: 'WAREHOUSE',
    qualified_name: `${ref.project}.${ref.dataset}.${ref.table}`,
    display_name: ref.table,
    environment_id: upstream.environment_id,
    cluster_id: upstream.cluster_id,
    catalog_type: 'WAREHOUSE_LINEAGE',
    attributes: {
      derived: true,
      project_id: ref.project,
      dataset_id: ref.dataset,
      table_name: ref.table,
      discovered_from: upstream.id,
    },
  };
}

/** Reads the downstream lineage of warehouse tables for the shared walk, with its own state for one enrichment. */
export interface WarehouseDiscovery {
  /** The downstream entries of one table (see the module comment); [] on failure, with a warning. Never throws. */
  readDownstream(node: Node, ref: BigQueryTableRef): Promise<DownstreamEntry[]>;
}

/**
 * Creates the discovery of one enrichment: processes are read once each, and the first 401/403/404
 * of `searchLinks` turns discovery off with one warning. Warnings go to `warnings`.
 */
export function createWarehouseDiscovery(port: WarehouseCatalogPort, warnings: string[]): WarehouseDiscovery {
  let unavailable = false;
  const processes = new Map<string, Promise<LineageProcess | null>>();
  const processOf = (name: string): Promise<LineageProcess | null> => {
    let pending = processes.get(name);
    if (!pending) {
      pending = port.getProcess(name).catch((error: unknown) => {
        warnings.push(`warehouse: process ${name} not read: ${describeFailure(error)}`);
        return null;
      });
      processes.set(name, pending);
    }
    return pending;
  };

  /** The links of a table, or null when they could not be read (warned). */
  const linksOf = async (ref: BigQueryTableRef): Promise<LineageLink[] | null> => {
    const name = `${ref.project}.${ref.dataset}.${ref.table}`;
    try {
      return await allLinks(port, bigQueryTableFqn(ref));
    } catch (error) {
      if (isSkippableWarehouseError(error)) {
        if (!unavailable) warnings.push(`warehouse: downstream discovery unavailable: ${describeFailure(error)}`);
        unavailable = true;
      } else warnings.push(`warehouse: downstream lineage of ${name} not read: ${describeFailure(error)}`);
      return null;
    }
  };

  /** Link name -> processes; an empty map when the search failed (warned: the links then become TRANSFORMS edges). */
  const processesOf = async (ref: BigQueryTableRef, names: string[]): Promise<Map<string, string[]>> => {
    if (names.length === 0) return new Map();
    try {
      return await processesOfLinks(port, names);
    } catch (error) {
      const name = `${ref.project}.${ref.dataset}.${ref.table}`;
      warnings.push(`warehouse: processes of the links of ${name} not read: ${describeFailure(error)}`);
      return new Map();
    }
  };

  return {
    async readDownstream(node, ref) {
      if (unavailable) return [];
      const links = await linksOf(ref);
      if (links === null) return [];
      const targets = links.flatMap((link) => {
        const target = nonEmpty(link.target?.fullyQualifiedName)
          ? parseBigQueryFqn(link.target.fullyQualifiedName)
          : null;
        return target ? [{ link, target }] : [];
      });
      const byLink = await processesOf(ref, targets.map(({ link }) => link.name).filter(nonEmpty));
      const entries: DownstreamEntry[] = [];
      for (const { link, target } of targets) {
        const table = derivedTable(target, node);
        const jobs = { nodes: [] as Node[], edges: [] as Edge[] };
        for (const processName of (nonEmpty(link.name) ? byLink.get(link.name) : undefined) ?? []) {
          const job = warehouseCatalogJob(processName, await processOf(processName), node, table.id, port.projectId);
          jobs.nodes.push(...job.nodes);
          jobs.edges.push(...job.edges);
        }
        const attributes = nonEmpty(link.name) ? { ...EDGE_SOURCE, link: link.name } : EDGE_SOURCE;
        const transforms: Edge = { src_id: node.id, dst_id: table.id, edge_type: 'TRANSFORMS', attributes };
        entries.push({ table, jobs, transforms });
      }
      return entries;
    },
  };
}
