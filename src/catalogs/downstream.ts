/**
 * The downstream walk that catalog enrichment shares (`docs/catalogs.md`, "Lakehouse" ->
 * "Enrichment" and "Warehouse" -> "Downstream discovery"; `docs/specification.md`, "Catalog
 * integrations"): starting from the graph's tables of one catalog, each table's metadata is read,
 * then its downstream lineage; every downstream table not in the graph yet is added (`derived`),
 * linked through the catalog jobs between the two tables (CATALOG_JOB with CONSUMES and PRODUCES,
 * `docs/contract.md` section 2) or, when no job is known, by a TRANSFORMS edge, is enriched in turn,
 * and the walk goes on breadth-first. It is cycle-safe (each table is visited once), bounded in
 * depth (`maxDepth` levels below the graph's tables) and in size (`maxNewTables` new tables, one
 * warning when reached), with `concurrency` tables in flight. The provider supplies the two reads
 * and builds the nodes; the walk never throws for a catalog failure (the reads give warnings).
 */
import pLimit from 'p-limit';
import type { Edge, LineageGraph, Node } from '../graph/model.js';
import type { EnrichmentResult } from './provider.js';

/** Most tables downstream discovery adds in one enrichment (a warning says when it stopped). */
export const MAX_DISCOVERED_TABLES = 500;
/** Most levels the walk goes below the graph's own tables. */
export const MAX_DOWNSTREAM_DEPTH = 10;

/** One downstream table of a table, as the catalog's lineage gives it. */
export interface DownstreamEntry {
  /** The downstream table as it is added when the graph does not hold it yet (`derived: true`). */
  table: Node;
  /** The catalog jobs between the two tables, with their CONSUMES and PRODUCES edges; empty when none is known. */
  jobs: { nodes: Node[]; edges: Edge[] };
  /** The TRANSFORMS edge from the upstream table, added when `jobs` is empty. */
  transforms: Edge;
}

/** What a provider gives the walk. */
export interface DownstreamWalkOptions {
  /** The provider's short name, at the start of the walk's own warnings (`lakehouse`, `warehouse`). */
  catalog: string;
  /** The tables to start from (the walk sorts them by id). */
  roots: readonly Node[];
  /** Reads in flight; one per table. */
  concurrency: number;
  /** Default `MAX_DISCOVERED_TABLES`. */
  maxNewTables?: number;
  /** Default `MAX_DOWNSTREAM_DEPTH`. */
  maxDepth?: number;
  /**
   * Reads one table's metadata: the attributes to set, or null when it could not be read (the
   * provider adds the warning; the table's lineage is then not read). Must not throw.
   */
  readTable(node: Node): Promise<Record<string, unknown> | null>;
  /** Reads one table's downstream lineage; [] when there is none or it could not be read (with a warning). Must not throw. */
  readDownstream(node: Node): Promise<DownstreamEntry[]>;
}

const edgeKey = (edge: Edge) => `${edge.src_id}\t${edge.edge_type}\t${edge.dst_id}`;

/**
 * Walks downstream from `options.roots` (see the module comment), adding to `result`: an
 * enrichment `{node_id, attributes}` per table of the graph read, new nodes (tables discovered, with
 * their attributes read merged in, and catalog jobs) and new edges, each once.
 */
export async function walkDownstream(
  graph: LineageGraph,
  result: EnrichmentResult,
  options: DownstreamWalkOptions,
): Promise<void> {
  const maxNewTables = options.maxNewTables ?? MAX_DISCOVERED_TABLES;
  const maxDepth = options.maxDepth ?? MAX_DOWNSTREAM_DEPTH;
  const known = new Map(graph.nodes.map((node) => [node.id, node]));
  const edgeKeys = new Set(graph.edges.map(edgeKey));
  const visited = new Set<string>();
  const fresh = new Set<string>();
  const limit = pLimit(options.concurrency);
  let newTables = 0;
  let capWarned = false;

  const addEdge = (edge: Edge) => {
    if (edgeKeys.has(edgeKey(edge))) return;
    edgeKeys.add(edgeKey(edge));
    result.newEdges.push(edge);
  };
  const addNode = (node: Node) => {
    known.set(node.id, node);
    fresh.add(node.id);
    result.newNodes.push(node);
  };

  /** Links one downstream entry; the table to visit next, or undefined. */
  const link = (upstream: Node, entry: DownstreamEntry): Node | 'cap' | undefined => {
    const id = entry.table.id;
    if (id === upstream.id) return undefined;
    let target = known.get(id);
    if (!target) {
      if (newTables >= maxNewTables) return 'cap';
      newTables += 1;
      target = entry.table;
      addNode(target);
    }
    for (const job of entry.jobs.nodes) if (!known.has(job.id)) addNode(job);
    for (const edge of entry.jobs.edges.length > 0 ? entry.jobs.edges : [entry.transforms]) addEdge(edge);
    if (visited.has(id)) return undefined;
    visited.add(id);
    return target;
  };

  /** Reads one table, then (when it answered and the depth allows) its downstream tables. */
  const visit = async (node: Node, depth: number): Promise<Node[]> => {
    const attributes = await options.readTable(node);
    if (attributes === null) return [];
    if (fresh.has(node.id)) node.attributes = { ...node.attributes, ...attributes };
    else result.enrichments.push({ node_id: node.id, attributes });
    if (depth >= maxDepth) return [];
    const next: Node[] = [];
    for (const entry of await options.readDownstream(node)) {
      const target = link(node, entry);
      if (target === 'cap') {
        if (!capWarned)
          result.warnings.push(`${options.catalog}: downstream discovery stopped after ${maxNewTables} new tables`);
        capWarned = true;
        break;
      }
      if (target) next.push(target);
    }
    return next;
  };

  let frontier = [...options.roots].sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const node of frontier) visited.add(node.id);
  for (let depth = 0; frontier.length > 0; depth += 1) {
    const levels = await Promise.all(frontier.map((node) => limit(() => visit(node, depth))));
    frontier = levels.flat();
  }
}
