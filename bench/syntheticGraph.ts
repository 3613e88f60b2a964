/**
 * A deterministic synthetic lineage graph of any size, shaped like a large streaming estate: topics
 * with schemas, connectors reading external datasets into topics and topics into external datasets,
 * Flink statements and ksqlDB queries between topics, and consumer groups reading topics, every edge
 * in its contract direction. Used by the projection and traversal benchmarks.
 */
import {
  connectorId,
  consumerGroupId,
  externalDatasetId,
  schemaId,
  sqlQueryId,
  streamJobId,
  topicId,
} from '../src/graph/ids.js';
import type { Edge, LineageGraph, Node, NodeType, System } from '../src/graph/model.js';
import { randomUUID } from 'node:crypto';
import type { EventStore, EventToAppend } from '../src/eventStore.js';
import { CURRENT_VERSIONS, streams, toAppend } from '../src/events.js';
import { changeEvents, diffGraph } from '../src/graph/changes.js';

/** Mulberry32: a small seeded PRNG, so that every run builds the same data. Numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Shape of a synthetic graph. */
export interface SyntheticGraphOptions {
  nodes: number;
  edges: number;
  seed?: number;
  environments?: number;
  /**
   * Nodes per domain (default 200). A domain is a team's set of pipelines: its jobs read and write
   * its own topics, as in real estates, where lineage is many pipelines rather than one random web.
   * Set it to `nodes` for a single domain (edges anywhere: the worst case for traversals).
   */
  domainSize?: number;
  /** Share of job inputs read from another domain's topics (shared core topics; default 0.02). */
  crossDomainShare?: number;
}

/** A job: a node that reads topics (or external datasets) and, but consumer groups, writes them. */
interface Job {
  id: string;
  kind: 'connector' | 'transform' | 'group';
}

/** The graph being built: its nodes and edges (each edge once), and the node ids by role. */
interface GraphUnderConstruction {
  nodes: Node[];
  edges: Edge[];
  edgeKeys: Set<string>;
  topics: string[];
  externals: string[];
  jobs: Job[];
  environments: number;
}

/** The environment of the node at `index`. */
function envOf(graph: GraphUnderConstruction, index: number): string {
  return `env-${String(index % graph.environments).padStart(5, '0')}`;
}

/** The Kafka cluster of the node at `index` (ten per environment). */
function clusterOf(graph: GraphUnderConstruction, index: number): string {
  return `lkc-${String(index % (graph.environments * 10)).padStart(5, '0')}`;
}

/** A node of the graph; its display name is the last segment of its qualified name. */
function makeNode(
  graph: GraphUnderConstruction,
  id: string,
  nodeType: NodeType,
  system: System,
  qualifiedName: string,
  index: number,
  attributes: Node['attributes'],
): Node {
  return {
    id,
    node_type: nodeType,
    system,
    qualified_name: qualifiedName,
    display_name: qualifiedName.split('/').pop() ?? qualifiedName,
    environment_id: envOf(graph, index),
    cluster_id: clusterOf(graph, index),
    attributes,
  };
}

/** Adds an edge unless it exists or is a loop; true when added. */
function addEdge(graph: GraphUnderConstruction, src: string, type: Edge['edge_type'], dst: string): boolean {
  const key = `${src}\t${type}\t${dst}`;
  if (graph.edgeKeys.has(key) || src === dst) return false;
  graph.edgeKeys.add(key);
  graph.edges.push({ src_id: src, dst_id: dst, edge_type: type, attributes: null });
  return true;
}

/** Adds `count` topics. */
function addTopics(graph: GraphUnderConstruction, count: number): void {
  for (let i = 0; i < count; i += 1) {
    const name = `domain${i % 97}.entity${i}.v1`;
    const cluster = clusterOf(graph, i);
    const node = makeNode(graph, topicId(envOf(graph, i), cluster, name), 'TOPIC', 'STREAM', `${cluster}/${name}`, i, {
      partitions: 6,
      replication_factor: 3,
    });
    graph.nodes.push(node);
    graph.topics.push(node.id);
  }
}

/** Adds `count` value schemas, each with the HAS_SCHEMA edge of a topic. */
function addSchemas(graph: GraphUnderConstruction, count: number): void {
  for (let i = 0; i < count; i += 1) {
    const subject = `domain${i % 97}.entity${i}.v1-value`;
    const node = makeNode(graph, schemaId(envOf(graph, i), subject), 'SCHEMA', 'STREAM', subject, i, {
      schema_type: 'AVRO',
      version: 1,
      schema_id: 100000 + i,
    });
    graph.nodes.push(node);
    addEdge(graph, graph.topics[i % graph.topics.length]!, 'HAS_SCHEMA', node.id);
  }
}

/** Adds `count` external datasets, S3 and Postgres alternately (they belong to no cluster). */
function addExternalDatasets(graph: GraphUnderConstruction, count: number): void {
  for (let i = 0; i < count; i += 1) {
    const uri = i % 2 === 0 ? `s3://lake-${i % 50}/raw/entity${i}` : `postgres://db${i % 40}:5432/app.public.table${i}`;
    const node = makeNode(graph, externalDatasetId(envOf(graph, i), uri), 'EXTERNAL_DATASET', 'EXTERNAL', uri, i, null);
    node.cluster_id = null;
    graph.nodes.push(node);
    graph.externals.push(node.id);
  }
}

/** Adds a job node. */
function addJob(graph: GraphUnderConstruction, node: Node, kind: Job['kind']): void {
  graph.nodes.push(node);
  graph.jobs.push({ id: node.id, kind });
}

/** Adds the transforms: `statements` Flink statements, then `queries` ksqlDB queries. */
function addTransforms(graph: GraphUnderConstruction, statements: number, queries: number): void {
  for (let i = 0; i < statements; i += 1) {
    const env = envOf(graph, i);
    const node = makeNode(graph, streamJobId(env, `statement-${i}`), 'STREAM_JOB', 'STREAM', `statement-${i}`, i, {
      phase: 'RUNNING',
      sql: `INSERT INTO t${i} SELECT * FROM s${i}`,
    });
    addJob(graph, node, 'transform');
  }
  for (let i = 0; i < queries; i += 1) {
    const name = `lksqlc-${i % 100}/CSAS_QUERY_${i}`;
    const id = sqlQueryId(envOf(graph, i), `lksqlc-${i % 100}`, `CSAS_QUERY_${i}`);
    addJob(
      graph,
      makeNode(graph, id, 'SQL_QUERY', 'STREAM', name, i, { sql: 'CREATE STREAM x AS SELECT * FROM y;' }),
      'transform',
    );
  }
}

/** Adds `connectors` connectors (CDC sources and S3 sinks alternately), then `groups` consumer groups. */
function addConnectorsAndGroups(graph: GraphUnderConstruction, connectors: number, groups: number): void {
  for (let i = 0; i < connectors; i += 1) {
    const name = `connector-${i}`;
    const cluster = clusterOf(graph, i);
    const id = connectorId(envOf(graph, i), cluster, name);
    const node = makeNode(graph, id, 'CONNECTOR', 'STREAM', `${cluster}/${name}`, i, {
      connector_class: i % 2 ? 'S3_SINK' : 'PostgresCdcSourceV2',
      connector_type: i % 2 ? 'sink' : 'source',
    });
    addJob(graph, node, 'connector');
  }
  for (let i = 0; i < groups; i += 1) {
    const name = `app-group-${i}`;
    const cluster = clusterOf(graph, i);
    const id = consumerGroupId(envOf(graph, i), cluster, name);
    addJob(
      graph,
      makeNode(graph, id, 'CONSUMER_GROUP', 'STREAM', `${cluster}/${name}`, i, { metrics_total_lag: i % 1000 }),
      'group',
    );
  }
}

/** Picks nodes for a job's edges: mostly from its own domain, sometimes (`crossDomainShare`) from anywhere. */
interface DomainPicker {
  /** The domain of the job at `index`. */
  domainOf: (index: number) => number;
  /** A random item of `domain`'s range of `items`. */
  inDomain: <T>(items: readonly T[], domain: number) => T;
  /** A job input: from `domain`, or from anywhere with probability `crossDomainShare`. */
  input: (items: readonly string[], domain: number) => string;
}

/**
 * Domains: each kind of node is split into `domains` contiguous ranges; a job belongs to the domain
 * of its position among jobs and mostly reads and writes the topics of that domain.
 */
function domainPicker(options: SyntheticGraphOptions, jobCount: number, next: () => number): DomainPicker {
  const domains = Math.max(1, Math.round(options.nodes / (options.domainSize ?? 200)));
  const crossDomainShare = options.crossDomainShare ?? 0.02;
  const inDomain = <T>(items: readonly T[], domain: number): T => {
    const size = items.length / domains;
    return items[Math.min(items.length - 1, Math.floor(domain * size + next() * size))]!;
  };
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const domainOf = (index: number) => Math.floor((index * domains) / jobCount);
  const input = (items: readonly string[], domain: number) =>
    next() < crossDomainShare ? pick(items) : inDomain(items, domain);
  return { domainOf, inDomain, input };
}

/** Every job reads one topic (even-numbered connectors an external dataset) and, but groups, writes one. */
function wireJobs(graph: GraphUnderConstruction, picker: DomainPicker): void {
  const { topics, externals } = graph;
  const { domainOf, inDomain, input } = picker;
  for (const [index, job] of graph.jobs.entries()) {
    const domain = domainOf(index);
    if (job.kind === 'connector' && index % 2 === 0) addEdge(graph, inDomain(externals, domain), 'CONSUMES', job.id);
    else addEdge(graph, input(topics, domain), 'CONSUMES', job.id);
    if (job.kind === 'group') continue;
    if (job.kind === 'connector' && index % 2 === 1) addEdge(graph, job.id, 'PRODUCES', inDomain(externals, domain));
    else addEdge(graph, job.id, 'PRODUCES', inDomain(topics, domain));
  }
}

/** Adds random job reads and writes until there are `target` edges (or too many attempts failed). */
function spreadEdges(graph: GraphUnderConstruction, picker: DomainPicker, target: number, next: () => number): void {
  const { topics, jobs } = graph;
  let guard = 0;
  while (graph.edges.length < target && guard < target * 10) {
    guard += 1;
    const index = Math.floor(next() * jobs.length);
    const job = jobs[index]!;
    const domain = picker.domainOf(index);
    if (next() < 0.55 || job.kind === 'group') addEdge(graph, picker.input(topics, domain), 'CONSUMES', job.id);
    else addEdge(graph, job.id, 'PRODUCES', picker.inDomain(topics, domain));
  }
}

/**
 * Builds a graph of about `nodes` nodes and `edges` edges (exact when `edges` is at least twice the
 * number of jobs). Node mix: 40% topics, 10% schemas, 10% external datasets, 15% stream jobs,
 * 5% SQL queries, 10% connectors, 10% consumer groups. See `SyntheticGraphOptions` for its shape.
 */
export function syntheticGraph(options: SyntheticGraphOptions): LineageGraph {
  const next = seededRandom(options.seed ?? 42);
  const count = (share: number) => Math.max(1, Math.floor(options.nodes * share));
  const graph: GraphUnderConstruction = {
    nodes: [],
    edges: [],
    edgeKeys: new Set(),
    topics: [],
    externals: [],
    jobs: [],
    environments: options.environments ?? 10,
  };
  addTopics(graph, count(0.4));
  addSchemas(graph, count(0.1));
  addExternalDatasets(graph, count(0.1));
  addTransforms(graph, count(0.15), count(0.05));
  addConnectorsAndGroups(graph, count(0.1), count(0.1));
  const picker = domainPicker(options, graph.jobs.length, next);
  wireJobs(graph, picker);
  spreadEdges(graph, picker, options.edges, next);
  return { nodes: graph.nodes, edges: graph.edges };
}

/** Events per append of `recordSyntheticHistory`'s changes. */
const HISTORY_BATCH = 5000;

/**
 * Records `graph` as graph `graphId` in one append (the events `recordGraph` would write, cause
 * `import`), then `changes` changes in appends of 5,000 events, one event per change with its own
 * correlation id (cause `cause`, actor `bench`): nine in ten change one node's attributes, one in ten
 * an edge's, picked with the seeded `random`.
 * @returns the revision of the graph's stream after the import.
 */
export async function recordSyntheticHistory(
  store: EventStore,
  graphId: string,
  graph: LineageGraph,
  options: { changes: number; random: () => number; cause: string },
): Promise<number> {
  const empty = { getNode: () => undefined, getEdge: () => undefined, nodes: () => [], edges: () => [] };
  const imported = [
    { type: 'GraphCreated' as const, data: { graph_id: graphId, name: 'history', description: null } },
    ...changeEvents(graphId, diffGraph(empty, graph, { mode: 'merge' })),
  ];
  const stream = streams.graph(graphId);
  const result = await store.append(stream, toAppend(imported, { cause: 'import', correlation_id: randomUUID() }));
  const next = options.random;
  for (let start = 0; start < options.changes; start += HISTORY_BATCH) {
    const batch: EventToAppend[] = [];
    for (let index = start; index < Math.min(options.changes, start + HISTORY_BATCH); index += 1) {
      const metadata = { event_id: randomUUID(), correlation_id: randomUUID(), cause: options.cause, actor: 'bench' };
      if (index % 10 === 9) {
        const edge = graph.edges[Math.floor(next() * graph.edges.length)]!;
        const data = { graph_id: graphId, edges: [{ ...edge, attributes: { change: index } }] };
        batch.push({ type: 'EdgesChanged', version: CURRENT_VERSIONS.EdgesChanged, data, metadata });
      } else {
        const node = graph.nodes[Math.floor(next() * graph.nodes.length)]!;
        const data = { graph_id: graphId, nodes: [{ ...node, attributes: { ...node.attributes, change: index } }] };
        batch.push({ type: 'NodesChanged', version: CURRENT_VERSIONS.NodesChanged, data, metadata });
      }
    }
    await store.append(stream, batch);
  }
  return result.next_expected_revision;
}
