/**
 * The compact answers of the MCP tools (`docs/mcp.md`, "Answers"): what the services answer, cut to
 * what an assistant reads (names beside ids, counts) and bounded by a node budget, so that no answer
 * runs to megabytes whatever the graph. Pure functions over the services' values; the tools
 * (`./server.ts`) call a service, then one of these.
 *
 * Budget: every list of nodes (or of jobs, or of changes) holds at most `NODE_BUDGET` items; when
 * more matched, the answer says how many in `total` and tells how to narrow the question in `more`
 * (absent when everything is shown). Edges are listed only between nodes shown, at most twice the
 * budget. Strings in node attributes are cut at `MAX_ATTRIBUTE_CHARACTERS`, lists at the budget.
 */
import type { Edge, Node } from '../../src/graph/model.js';
import type { IngestedEvent } from '../../src/openlineage/model.js';
import type { DatasetLineageResult } from '../../projections/openLineage/index.js';
import type { TraversalResult } from '../../projections/traversal/index.js';
import type { GraphDiff, GraphSummary } from '../../services/graphs.js';
import type { ImpactAnswer } from '../../services/impact.js';
import type { PathAnswer } from '../../services/paths.js';

/** Most nodes (or jobs, or changes) one answer lists. */
export const NODE_BUDGET = 50;
/** Most edges one answer lists. */
export const EDGE_BUDGET = 2 * NODE_BUDGET;
/** Longest string value of a node attribute kept whole, in characters; longer ones are cut with a note. */
export const MAX_ATTRIBUTE_CHARACTERS = 1_000;

/** A node as the tools list it: its id (what the other tools take), name, type and system. */
export interface CompactNode {
  id: string;
  /** `display_name`. */
  name: string;
  /** `node_type`, e.g. `TOPIC`, `CONNECTOR`, `FLINK_STATEMENT`. */
  type: string;
  /** `STREAM`, `LAKEHOUSE`, `DATALAKE`, `WAREHOUSE` or `EXTERNAL`. */
  system: string;
  /** Distance from the origin of a traversal (1 for a neighbor); only in traversals. */
  hop?: number;
}

/** An edge as the tools list it: the names of its ends, its type and the ends' ids. */
export interface CompactEdge {
  /** `{source name} -[{EDGE_TYPE}]-> {destination name}`. */
  line: string;
  src_id: string;
  edge_type: string;
  dst_id: string;
}

/** A node as the tools list it. */
export function compactNode(node: Node & { hop?: number }): CompactNode {
  const compact: CompactNode = { id: node.id, name: node.display_name, type: node.node_type, system: node.system };
  if (node.hop !== undefined) compact.hop = node.hop;
  return compact;
}

/** An edge as the tools list it; `nameOf` gives a node's name by id (the id itself when unknown). */
export function compactEdge(edge: Edge, nameOf: (id: string) => string): CompactEdge {
  return {
    line: `${nameOf(edge.src_id)} -[${edge.edge_type}]-> ${nameOf(edge.dst_id)}`,
    src_id: edge.src_id,
    edge_type: edge.edge_type,
    dst_id: edge.dst_id,
  };
}

/** The first `budget` items and the hint for the rest (`undefined` when none was left out). */
export function bounded<T>(items: readonly T[], budget: number, hint: string): { shown: T[]; more?: string } {
  if (items.length <= budget) return { shown: [...items] };
  return { shown: items.slice(0, budget), more: `${items.length - budget} more not shown: ${hint}` };
}

/** A name lookup over nodes. */
function namesOf(nodes: Iterable<Node>): (id: string) => string {
  const names = new Map<string, string>();
  for (const node of nodes) names.set(node.id, node.display_name);
  return (id) => names.get(id) ?? id;
}

/** The edges between the nodes kept, at most `EDGE_BUDGET`, with their ends' names. */
function edgesBetween(edges: readonly Edge[], kept: readonly Node[]): { edges: CompactEdge[]; edges_more?: string } {
  const ids = new Set(kept.map((node) => node.id));
  const nameOf = namesOf(kept);
  const inside = edges.filter((edge) => ids.has(edge.src_id) && ids.has(edge.dst_id));
  const { shown, more } = bounded(inside, EDGE_BUDGET, 'ask about fewer nodes');
  return { edges: shown.map((edge) => compactEdge(edge, nameOf)), ...(more ? { edges_more: more } : {}) };
}

/** The answer of `upstream` and `downstream`: the origin, the nodes reached by hop, the edges between them. */
export function traversalAnswer(graphId: string, result: TraversalResult) {
  const { shown, more } = bounded(
    result.nodes,
    NODE_BUDGET,
    `ask with fewer hops (${result.hops} asked), or walk on from one of the nodes shown`,
  );
  return {
    graph_id: graphId,
    origin: compactNode(result.origin),
    direction: result.direction,
    hops: result.hops,
    total_nodes: result.node_count,
    total_edges: result.edge_count,
    nodes: shown.map(compactNode),
    ...edgesBetween(result.edges, [result.origin, ...shown]),
    ...(more ? { more } : {}),
  };
}

/** The answer of `path`: the nodes in order and one line per hop. */
export function pathAnswer(path: PathAnswer) {
  const { shown, more } = bounded(
    path.nodes,
    NODE_BUDGET,
    'the path is longer than an answer holds: ask from a node on it',
  );
  return {
    graph_id: path.graph_id,
    from: path.from,
    to: path.to,
    connected: path.direction !== null,
    direction: path.direction,
    length: path.edges.length,
    nodes: shown.map(compactNode),
    ...edgesBetween(path.edges, shown),
    ...(more ? { more } : {}),
  };
}

/**
 * Cuts long strings and long lists in a node's attributes (recursively): strings at
 * `MAX_ATTRIBUTE_CHARACTERS`, lists at `NODE_BUDGET` items, each noting how much was cut.
 */
function cutStrings(value: unknown): unknown {
  if (typeof value === 'string' && value.length > MAX_ATTRIBUTE_CHARACTERS)
    return `${value.slice(0, MAX_ATTRIBUTE_CHARACTERS)}... (${value.length - MAX_ATTRIBUTE_CHARACTERS} more characters)`;
  if (Array.isArray(value) && value.length > NODE_BUDGET)
    return [...value.slice(0, NODE_BUDGET).map(cutStrings), `... (${value.length - NODE_BUDGET} more items)`];
  if (Array.isArray(value)) return value.map(cutStrings);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cutStrings(item)]));
  return value;
}

/** The answer of `get_node`: the node whole (long strings cut) and its direct neighbors by name. */
export function nodeAnswer(graphId: string, node: Node, upstream: TraversalResult, downstream: TraversalResult) {
  const neighbors = (result: TraversalResult) => {
    const { shown, more } = bounded(result.nodes, NODE_BUDGET, `use the ${result.direction} tool for all of them`);
    return {
      nodes: shown.map(({ hop: _hop, ...neighbor }) => compactNode(neighbor)),
      total: result.node_count,
      ...(more ? { more } : {}),
    };
  };
  return {
    graph_id: graphId,
    node: {
      ...compactNode(node),
      qualified_name: node.qualified_name,
      environment_id: node.environment_id,
      cluster_id: node.cluster_id,
    },
    attributes: cutStrings(node.attributes ?? {}),
    upstream: neighbors(upstream),
    downstream: neighbors(downstream),
  };
}

/** The answer of `search_nodes`: the nodes matching, at most the budget. */
export function searchAnswer(graphId: string, query: string, page: { nodes: Node[]; total: number }) {
  return {
    graph_id: graphId,
    query,
    total: page.total,
    nodes: page.nodes.map(compactNode),
    ...(page.total > page.nodes.length
      ? { more: `${page.total - page.nodes.length} more not shown: use a longer query` }
      : {}),
  };
}

/** Counts of values by key, sorted by key. */
function countBy<T>(items: Iterable<T>, key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

/** The answer of `graph_as_of` and of a graph resource: the summary, counts by type, the first nodes. */
export function graphAnswer(
  summary: GraphSummary,
  asOf: string | null,
  nodes: readonly Node[],
  edges: readonly Edge[],
) {
  const { shown, more } = bounded(
    nodes,
    NODE_BUDGET,
    'use search_nodes (with as_of) for particular nodes, and upstream or downstream (with as_of) to follow them',
  );
  return {
    ...summary,
    as_of: asOf,
    nodes_by_type: countBy(nodes, (node) => node.node_type),
    nodes_by_system: countBy(nodes, (node) => node.system),
    edges_by_type: countBy(edges, (edge) => edge.edge_type),
    nodes: shown.map(compactNode),
    ...(more ? { more } : {}),
  };
}

/** The names of the fields whose values differ between two objects (`attributes.partitions`, one level into attributes). */
function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const fields: string[] = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (key === 'attributes') {
      const [a, b] = [
        (before.attributes ?? {}) as Record<string, unknown>,
        (after.attributes ?? {}) as Record<string, unknown>,
      ];
      for (const name of new Set([...Object.keys(a), ...Object.keys(b)]))
        if (JSON.stringify(a[name]) !== JSON.stringify(b[name])) fields.push(`attributes.${name}`);
    } else if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) fields.push(key);
  }
  return fields.sort();
}

/** The answer of `diff`: counts, then the nodes and edges added, removed and changed (with the fields that changed), bounded. */
export function diffAnswer(diff: GraphDiff) {
  const nameOf = namesOf([
    ...diff.nodes.added,
    ...diff.nodes.removed,
    ...diff.nodes.changed.map((change) => change.after),
  ]);
  const hint = 'ask about a shorter span of time';
  const list = <T, U>(items: readonly T[], map: (item: T) => U) => {
    const { shown, more } = bounded(items, NODE_BUDGET, hint);
    return { total: items.length, items: shown.map(map), ...(more ? { more } : {}) };
  };
  const edgeItem = (edge: Edge) => compactEdge(edge, nameOf);
  // The added, removed and changed items of the nodes or the edges, each one as `item` shows it.
  const changes = <T extends Record<string, unknown>, U extends object>(
    part: { added: readonly T[]; removed: readonly T[]; changed: readonly { before: T; after: T }[] },
    item: (value: T) => U,
  ) => ({
    added: list(part.added, item),
    removed: list(part.removed, item),
    changed: list(part.changed, (change) => ({
      ...item(change.after),
      fields: changedFields(change.before, change.after),
    })),
  });
  return {
    graph_id: diff.graph_id,
    from: diff.from,
    to: diff.to,
    nodes: changes(diff.nodes, compactNode),
    edges: changes(diff.edges, edgeItem),
  };
}

/** A dataset or job of OpenLineage: its namespace and name. */
interface Named {
  namespace: string;
  name: string;
}

/** A job of a dataset lineage answer: the datasets its latest run read and wrote, and that run's last event. */
export interface LineageJob extends Named {
  inputs: Named[];
  outputs: Named[];
  /** eventType and eventTime of the job's last event. */
  event_type: string | null;
  event_time: string | null;
}

/** The jobs of dataset lineage events, one per job in the order reached, with the union of their inputs and outputs. */
function lineageJobs(events: readonly IngestedEvent[]): LineageJob[] {
  const jobs = new Map<string, LineageJob>();
  const add = (into: Named[], datasets: readonly Named[] | undefined) => {
    for (const { namespace, name } of datasets ?? [])
      if (!into.some((known) => known.namespace === namespace && known.name === name)) into.push({ namespace, name });
  };
  for (const event of events) {
    const job = (event as { job?: Named }).job;
    if (!job) continue;
    const key = `${job.namespace}\t${job.name}`;
    let entry = jobs.get(key);
    if (!entry)
      jobs.set(
        key,
        (entry = {
          namespace: job.namespace,
          name: job.name,
          inputs: [],
          outputs: [],
          event_type: null,
          event_time: null,
        }),
      );
    const { inputs, outputs, eventType, eventTime } = event as {
      inputs?: Named[];
      outputs?: Named[];
      eventType?: string;
      eventTime?: string;
    };
    add(entry.inputs, inputs);
    add(entry.outputs, outputs);
    if (eventTime !== undefined && (entry.event_time === null || eventTime >= entry.event_time)) {
      entry.event_time = eventTime;
      entry.event_type = eventType ?? null;
    }
  }
  return [...jobs.values()];
}

/** The answer of `dataset_lineage`: the jobs reached with their inputs and outputs, bounded. */
export function datasetLineageAnswer(result: DatasetLineageResult) {
  const { shown, more } = bounded(
    lineageJobs(result.events),
    NODE_BUDGET,
    `ask with a smaller depth (${result.depth} asked)`,
  );
  return {
    origin: result.origin,
    direction: result.direction,
    depth: result.depth,
    datasets_visited: result.datasets_visited,
    jobs_visited: result.jobs_visited,
    jobs: shown,
    ...(more ? { more } : {}),
  };
}

/**
 * The answer of `impact`: the origin field, then the columns reached (nearest first) with their
 * dataset's name, the field, the hops and the jobs between by name, and the jobs; each list bounded.
 * `nameOf` gives a node's name by id (the id itself when unknown).
 */
export function impactAnswer(graphId: string, impact: ImpactAnswer, nameOf: (id: string) => string) {
  const hint = 'ask with a smaller depth, or from one of the columns shown';
  const columns = bounded(impact.columns, NODE_BUDGET, hint);
  const jobs = bounded(impact.jobs, NODE_BUDGET, hint);
  return {
    graph_id: graphId,
    origin: { ...impact.origin, name: nameOf(impact.origin.node_id) },
    direction: impact.direction,
    node_count: impact.node_count,
    total_columns: impact.columns.length,
    columns: columns.shown.map((column) => ({
      node_id: column.node_id,
      name: nameOf(column.node_id),
      field: column.field,
      hops: column.hops,
      via: column.via.map(nameOf),
      subtype: column.subtype,
    })),
    ...(columns.more ? { more: columns.more } : {}),
    total_jobs: impact.jobs.length,
    jobs: jobs.shown.map((id) => ({ id, name: nameOf(id) })),
    ...(jobs.more ? { jobs_more: jobs.more } : {}),
  };
}
