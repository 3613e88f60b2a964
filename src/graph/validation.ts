/**
 * Parsing and checking of lineage graphs as they arrive from files and API bodies. Pure: no I/O.
 *
 * A graph is accepted only when every node and edge matches its schema, every node id agrees with
 * the node's system, type and qualified name, ids are unique, every edge joins two nodes of the
 * graph, and every edge goes in its type's direction (`docs/contract.md` section 2).
 */
import { z } from 'zod';
import { ValidationError, type ValidationIssue } from '../errors.js';
import { parseNodeId } from './ids.js';
import {
  EDGE_RULES,
  EdgeSchema,
  LineageGraphSchema,
  NodeSchema,
  PRE_0_5_0_NODE_TYPES,
  edgeKey,
  type Edge,
  type LineageGraph,
  type Node,
} from './model.js';

/** Turns zod issues into our `{path, message}` list, prefixing each path. */
export function zodIssues(error: z.ZodError, prefix = ''): ValidationIssue[] {
  return error.issues.map((issue) => zodIssue(issue, prefix));
}

/** One zod issue as our `{path, message}`, its path prefixed. */
function zodIssue(issue: z.core.$ZodIssue, prefix: string): ValidationIssue {
  const path = [prefix, ...issue.path.map(String)].filter((part) => part !== '').join('.');
  return { path: path || '(root)', message: issue.message };
}

/** Most problems one validation lists (issue 23): past it, problems are only counted. */
export const MAX_LISTED_ISSUES = 1000;

/**
 * The problems of one validation: the first `limit` (default `MAX_LISTED_ISSUES`) are listed, every
 * one is counted, so that what a body costs to answer is bounded by the listed ones, whatever the
 * number of problems it holds (a 30 MB body of invalid nodes has about 600,000).
 */
export class IssueList {
  /** The first problems found, at most `limit`. */
  readonly listed: ValidationIssue[] = [];
  /** Every problem found, listed or not. */
  count = 0;

  constructor(readonly limit: number = MAX_LISTED_ISSUES) {}

  /** Adds problems: listed while there is room, counted always. */
  add(...issues: ValidationIssue[]): void {
    for (const issue of issues) {
      this.count += 1;
      if (this.listed.length < this.limit) this.listed.push(issue);
    }
  }

  /** Adds a zod error's issues, their paths prefixed; those past the limit are counted, never formatted. */
  addZod(error: z.ZodError, prefix = ''): void {
    const room = Math.min(this.limit - this.listed.length, error.issues.length);
    for (let index = 0; index < room; index += 1) this.listed.push(zodIssue(error.issues[index]!, prefix));
    this.count += error.issues.length;
  }

  /**
   * The error to throw: `summary: {first path}: {first message} (and N more)`, the listed problems
   * and the count (`ValidationError.issueCount`).
   */
  error(summary: string): ValidationError {
    const first = this.listed[0];
    const more = this.count > 1 ? ` (and ${this.count - 1} more)` : '';
    const message = first ? `${summary}: ${first.path}: ${first.message}${more}` : summary;
    return new ValidationError(message, this.listed, { issueCount: this.count });
  }
}

/**
 * Rejects graphs written before 0.5.0, which used one node type per catalog.
 * @throws ValidationError naming the first offending node.
 */
export function assertNotPre050Graph(input: unknown): void {
  if (typeof input !== 'object' || input === null) return;
  const nodes = (input as { nodes?: unknown }).nodes;
  if (!Array.isArray(nodes)) return;
  for (const [index, node] of nodes.entries()) {
    if (typeof node !== 'object' || node === null) continue;
    const type = (node as { node_type?: unknown }).node_type;
    if (typeof type === 'string' && PRE_0_5_0_NODE_TYPES.has(type.toUpperCase())) {
      const record = node as { id?: unknown; node_id?: unknown };
      const name = String(record.id ?? record.node_id ?? `#${index}`);
      throw new ValidationError(
        `graph file predates 0.5.0: node "${name}" has node type "${type}"; per-catalog table types were ` +
          'replaced by CATALOG_TABLE with a catalog_type, and there is no migration: extract the graph again',
        [{ path: `nodes.${index}.node_type`, message: `pre-0.5.0 node type "${type}"` }],
      );
    }
  }
}

/**
 * Characters refused in ids and names (issue 15): C0 and C1 control characters (NUL, CR, LF, TAB,
 * ...), zero-width characters (U+200B-U+200D, U+2060, U+FEFF), directional marks and overrides
 * (U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) and the invisible operators U+2061-U+2064; and
 * (issue 23) unpaired UTF-16 surrogates (U+D800-U+DFFF not part of a pair), which JSON escapes
 * (`"\ud800"`) can carry but UTF-8 cannot encode, so that they would be written as U+FFFD and
 * two ids could become one. In identifiers they can only do harm: split log lines and headers,
 * or make two different ids look the same. Used for node ids, graph names, environment and cluster
 * ids, and OpenLineage job namespaces, job names and runIds.
 */
export const UNSAFE_ID_CHARACTERS =
  /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\p{Cs}/u;

/** Why `value` is refused as an id or name, or undefined when it holds no `UNSAFE_ID_CHARACTERS`. */
export function unsafeCharacterMessage(value: string): string | undefined {
  const found = UNSAFE_ID_CHARACTERS.exec(value);
  if (!found) return undefined;
  const code = found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  if (found[0].length === 1 && code >= 'D800' && code <= 'DFFF')
    return `contains U+${code}, an unpaired surrogate, which ids and names may not hold (UTF-8 cannot encode it)`;
  return `contains U+${code}, a control or invisible formatting character, which ids and names may not hold`;
}

/** Problems with one node's id: it must agree with the node's system, type and qualified name. */
export function nodeIdIssues(node: Node, path: string): ValidationIssue[] {
  const unsafe = unsafeCharacterMessage(node.id);
  if (unsafe !== undefined) return [{ path: `${path}.id`, message: unsafe }];
  let parsed;
  try {
    parsed = parseNodeId(node.id);
  } catch (error) {
    return [{ path: `${path}.id`, message: (error as Error).message }];
  }
  const issues: ValidationIssue[] = [];
  if (parsed.system !== node.system) {
    issues.push({
      path: `${path}.id`,
      message: `id says system "${parsed.system}" but the node's system is "${node.system}"`,
    });
  }
  if (parsed.nodeType !== node.node_type) {
    issues.push({
      path: `${path}.id`,
      message: `id says type "${parsed.nodeType}" but the node's node_type is "${node.node_type}"`,
    });
  }
  if (parsed.qualifiedName !== node.qualified_name) {
    issues.push({
      path: `${path}.id`,
      message: `id ends in qualified name "${parsed.qualifiedName}" but the node's qualified_name is "${node.qualified_name}"`,
    });
  }
  if (node.node_type === 'CATALOG_TABLE' && !node.catalog_type) {
    issues.push({ path: `${path}.catalog_type`, message: 'a CATALOG_TABLE needs a catalog_type' });
  }
  return issues;
}

/** Problems with one edge given the nodes it may join (looked up by id). */
export function edgeIssues(edge: Edge, path: string, lookup: (id: string) => Node | undefined): ValidationIssue[] {
  const source = lookup(edge.src_id);
  const target = lookup(edge.dst_id);
  const issues: ValidationIssue[] = [];
  if (!source) issues.push({ path: `${path}.src_id`, message: `no node "${edge.src_id}" in the graph` });
  if (!target) issues.push({ path: `${path}.dst_id`, message: `no node "${edge.dst_id}" in the graph` });
  if (source && target) {
    const rule = EDGE_RULES[edge.edge_type];
    if (!rule.from.has(source.node_type) || !rule.to.has(target.node_type)) {
      issues.push({
        path: `${path}.edge_type`,
        message: `${edge.edge_type} cannot go from a ${source.node_type} to a ${target.node_type}: ${rule.meaning}`,
      });
    }
  }
  return issues;
}

/**
 * Parses and checks a whole graph (a parsed JSON value), validating each node and edge once, by its
 * zod schema.
 *
 * With `options.inPlace` (imports of files and request bodies, issue 16 item 2), each parsed item is
 * put in place of the given one in the input's own arrays, so that the given items become garbage as
 * the parse goes and a 400,000-item graph is never held twice; the input is then changed (even when
 * invalid), so pass a value nothing else reads afterwards. Otherwise the input is left as it is.
 * @param existing nodes already stored that edges may also point to (for merges); none by default.
 * @throws ValidationError listing the first `MAX_LISTED_ISSUES` problems, with the count of all
 *   (`issueCount`).
 */
export function parseLineageGraph(
  input: unknown,
  existing?: (id: string) => Node | undefined,
  options: { inPlace?: boolean } = {},
): LineageGraph {
  return validateLineageGraph(input, { ...options, ...(existing ? { existing } : {}) }).graph;
}

/** A graph that passed `validateLineageGraph`, and the edges whose check waits for the stored nodes. */
export interface ValidatedGraph {
  graph: LineageGraph;
  /**
   * With `deferUnknownEndpoints`: positions in `graph.edges` of the edges that join a node absent
   * from the graph, in order; check them with `checkDeferredEdges` against the stored nodes. Else empty.
   */
  deferredEdges: number[];
}

/**
 * `parseLineageGraph` for callers that cannot look the stored nodes up where they validate (a worker
 * thread: `infra/http/graphImportWorker.ts`): with `deferUnknownEndpoints`, an edge joining a node
 * absent from the graph is not a problem yet but listed in `deferredEdges`.
 * @throws ValidationError listing the first `MAX_LISTED_ISSUES` problems, with the count of all.
 */
export function validateLineageGraph(
  input: unknown,
  options: { inPlace?: boolean; existing?: (id: string) => Node | undefined; deferUnknownEndpoints?: boolean } = {},
): ValidatedGraph {
  assertNotPre050Graph(input);
  const graph = parseItemsInPlace(input, options.inPlace ?? false);
  const issues = new IssueList();
  const nodes = new Map<string, Node>();
  graph.nodes.forEach((node, index) => {
    issues.add(...nodeIdIssues(node, `nodes.${index}`));
    if (nodes.has(node.id)) issues.add({ path: `nodes.${index}.id`, message: `duplicate node id "${node.id}"` });
    nodes.set(node.id, node);
  });
  const lookup = (id: string) => nodes.get(id) ?? options.existing?.(id);
  const edges = new Set<string>();
  const deferredEdges: number[] = [];
  graph.edges.forEach((edge, index) => {
    if (options.deferUnknownEndpoints && (!nodes.has(edge.src_id) || !nodes.has(edge.dst_id)))
      deferredEdges.push(index);
    else issues.add(...edgeIssues(edge, `edges.${index}`, lookup));
    const key = edgeKey(edge);
    if (edges.has(key))
      issues.add({
        path: `edges.${index}`,
        message: `duplicate ${edge.edge_type} edge ${edge.src_id} -> ${edge.dst_id}`,
      });
    edges.add(key);
  });
  if (issues.count > 0) throw issues.error('invalid lineage graph');
  return { graph, deferredEdges };
}

/**
 * Checks the edges `validateLineageGraph` deferred against the nodes that `lookup` finds (the graph's
 * own and the stored ones; none for a replace).
 * @throws ValidationError listing the first `MAX_LISTED_ISSUES` problems, with the count of all.
 */
export function checkDeferredEdges(validated: ValidatedGraph, lookup: (id: string) => Node | undefined): void {
  const issues = new IssueList();
  for (const index of validated.deferredEdges) {
    issues.add(...edgeIssues(validated.graph.edges[index]!, `edges.${index}`, lookup));
  }
  if (issues.count > 0) throw issues.error('invalid lineage graph');
}

/** The top level of a graph, its items not yet parsed. */
const GraphShellSchema = LineageGraphSchema.extend({
  nodes: z.array(z.unknown()).optional(),
  edges: z.array(z.unknown()).optional(),
});

/**
 * The schema checks of `parseLineageGraph`: the top level first, then each item by `NodeSchema` or
 * `EdgeSchema`, written back over the given item (in the input's arrays when `inPlace`, else in
 * copies of them). The same issues as `LineageGraphSchema` on the whole value, in the same order.
 * @throws ValidationError listing the first `MAX_LISTED_ISSUES` schema issues, with the count of all.
 */
function parseItemsInPlace(input: unknown, inPlace: boolean): LineageGraph {
  const shell = GraphShellSchema.safeParse(input);
  if (!shell.success) {
    const issues = new IssueList();
    issues.addZod(shell.error);
    throw issues.error('invalid lineage graph');
  }
  const record = input as { nodes?: unknown[]; edges?: unknown[] };
  const nodes = inPlace ? (record.nodes ?? []) : [...(record.nodes ?? [])];
  const edges = inPlace ? (record.edges ?? []) : [...(record.edges ?? [])];
  const issues = new IssueList();
  const parseEach = (items: unknown[], schema: typeof NodeSchema | typeof EdgeSchema, name: string) => {
    for (let index = 0; index < items.length; index += 1) {
      const parsed = schema.safeParse(items[index]);
      if (parsed.success) items[index] = parsed.data;
      else issues.addZod(parsed.error, `${name}.${index}`);
    }
  };
  parseEach(nodes, NodeSchema, 'nodes');
  parseEach(edges, EdgeSchema, 'edges');
  if (issues.count > 0) throw issues.error('invalid lineage graph');
  const graph = { nodes: nodes as Node[], edges: edges as Edge[] };
  return shell.data.metadata === undefined ? graph : { ...graph, metadata: shell.data.metadata };
}

/**
 * Parses one node (an API body).
 * @throws ValidationError listing every problem.
 */
export function parseNode(input: unknown): Node {
  const parsed = NodeSchema.safeParse(input);
  if (!parsed.success) throw new ValidationError('invalid node', zodIssues(parsed.error));
  const issues = nodeIdIssues(parsed.data, '');
  if (issues.length > 0) throw new ValidationError(`invalid node: ${issues[0]!.message}`, issues.map(trimPath));
  return parsed.data;
}

/**
 * Parses one edge (an API body) and checks it against the nodes it joins.
 * @throws ValidationError listing every problem.
 */
export function parseEdge(input: unknown, lookup: (id: string) => Node | undefined): Edge {
  const parsed = EdgeSchema.safeParse(input);
  if (!parsed.success) throw new ValidationError('invalid edge', zodIssues(parsed.error));
  const issues = edgeIssues(parsed.data, '', lookup);
  if (issues.length > 0) throw new ValidationError(`invalid edge: ${issues[0]!.message}`, issues.map(trimPath));
  return parsed.data;
}

function trimPath(issue: ValidationIssue): ValidationIssue {
  return { ...issue, path: issue.path.replace(/^\./, '') };
}
