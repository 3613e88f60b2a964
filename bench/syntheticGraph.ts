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

/**
 * Builds a graph of about `nodes` nodes and `edges` edges (exact when `edges` is at least twice the
 * number of jobs). Node mix: 40% topics, 10% schemas, 10% external datasets, 15% stream jobs,
 * 5% SQL queries, 10% connectors, 10% consumer groups. See `SyntheticGraphOptions` for its shape.
 */
export function syntheticGraph(options: SyntheticGraphOptions): LineageGraph {
  const next = seededRandom(options.seed ?? 42);
  const environments = options.environments ?? 10;
  const count = (share: number) => Math.max(1, Math.floor(options.nodes * share));
  const nodes: Node[] = [];
  const edges: Edge[] = [];
  const edgeKeys = new Set<string>();
  const env = (index: number) => `env-${String(index % environments).padStart(5, '0')}`;
  const cluster = (index: number) => `lkc-${String(index % (environments * 10)).padStart(5, '0')}`;
  const make = (
    id: string,
    nodeType: NodeType,
    system: System,
    qualifiedName: string,
    index: number,
    attributes: Node['attributes'],
  ): Node => ({
    id,
    node_type: nodeType,
    system,
    qualified_name: qualifiedName,
    display_name: qualifiedName.split('/').pop() ?? qualifiedName,
    environment_id: env(index),
    cluster_id: cluster(index),
    attributes,
  });
  const add = (src: string, type: Edge['edge_type'], dst: string) => {
    const key = `${src}\t${type}\t${dst}`;
    if (edgeKeys.has(key) || src === dst) return false;
    edgeKeys.add(key);
    edges.push({ src_id: src, dst_id: dst, edge_type: type, attributes: null });
    return true;
  };

  const topics: string[] = [];
  for (let i = 0; i < count(0.4); i += 1) {
    const name = `domain${i % 97}.entity${i}.v1`;
    const node = make(topicId(env(i), cluster(i), name), 'TOPIC', 'STREAM', `${cluster(i)}/${name}`, i, {
      partitions: 6,
      replication_factor: 3,
    });
    nodes.push(node);
    topics.push(node.id);
  }
  for (let i = 0; i < count(0.1); i += 1) {
    const subject = `domain${i % 97}.entity${i}.v1-value`;
    nodes.push(
      make(schemaId(env(i), subject), 'SCHEMA', 'STREAM', subject, i, {
        schema_type: 'AVRO',
        version: 1,
        schema_id: 100000 + i,
      }),
    );
    add(topics[i % topics.length]!, 'HAS_SCHEMA', nodes[nodes.length - 1]!.id);
  }
  const externals: string[] = [];
  for (let i = 0; i < count(0.1); i += 1) {
    const uri = i % 2 === 0 ? `s3://lake-${i % 50}/raw/entity${i}` : `postgres://db${i % 40}:5432/app.public.table${i}`;
    const node = make(externalDatasetId(env(i), uri), 'EXTERNAL_DATASET', 'EXTERNAL', uri, i, null);
    node.cluster_id = null;
    nodes.push(node);
    externals.push(node.id);
  }
  const jobs: Array<{ id: string; kind: 'connector' | 'transform' | 'group' }> = [];
  for (let i = 0; i < count(0.15); i += 1) {
    const node = make(streamJobId(env(i), `statement-${i}`), 'STREAM_JOB', 'STREAM', `statement-${i}`, i, {
      phase: 'RUNNING',
      sql: `INSERT INTO t${i} SELECT * FROM s${i}`,
    });
    nodes.push(node);
    jobs.push({ id: node.id, kind: 'transform' });
  }
  for (let i = 0; i < count(0.05); i += 1) {
    const name = `lksqlc-${i % 100}/CSAS_QUERY_${i}`;
    nodes.push(
      make(sqlQueryId(env(i), `lksqlc-${i % 100}`, `CSAS_QUERY_${i}`), 'SQL_QUERY', 'STREAM', name, i, {
        sql: 'CREATE STREAM x AS SELECT * FROM y;',
      }),
    );
    jobs.push({ id: nodes[nodes.length - 1]!.id, kind: 'transform' });
  }
  for (let i = 0; i < count(0.1); i += 1) {
    const name = `connector-${i}`;
    nodes.push(
      make(connectorId(env(i), cluster(i), name), 'CONNECTOR', 'STREAM', `${cluster(i)}/${name}`, i, {
        connector_class: i % 2 ? 'S3_SINK' : 'PostgresCdcSourceV2',
        connector_type: i % 2 ? 'sink' : 'source',
      }),
    );
    jobs.push({ id: nodes[nodes.length - 1]!.id, kind: 'connector' });
  }
  for (let i = 0; i < count(0.1); i += 1) {
    const name = `app-group-${i}`;
    nodes.push(
      make(consumerGroupId(env(i), cluster(i), name), 'CONSUMER_GROUP', 'STREAM', `${cluster(i)}/${name}`, i, {
        metrics_total_lag: i % 1000,
      }),
    );
    jobs.push({ id: nodes[nodes.length - 1]!.id, kind: 'group' });
  }

  // Domains: each kind of node is split into `domains` contiguous ranges; a job belongs to the domain
  // of its position among jobs and mostly reads and writes the topics of that domain.
  const domains = Math.max(1, Math.round(options.nodes / (options.domainSize ?? 200)));
  const crossDomainShare = options.crossDomainShare ?? 0.02;
  const inDomain = <T>(items: readonly T[], domain: number): T => {
    const size = items.length / domains;
    return items[Math.min(items.length - 1, Math.floor(domain * size + next() * size))]!;
  };
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const domainOf = (index: number) => Math.floor((index * domains) / jobs.length);
  const input = (items: readonly string[], domain: number) =>
    next() < crossDomainShare ? pick(items) : inDomain(items, domain);

  // Every job reads one topic and (but groups) writes one, then edges are spread until the target.
  for (const [index, job] of jobs.entries()) {
    const domain = domainOf(index);
    if (job.kind === 'connector' && index % 2 === 0) add(inDomain(externals, domain), 'CONSUMES', job.id);
    else add(input(topics, domain), 'CONSUMES', job.id);
    if (job.kind === 'group') continue;
    if (job.kind === 'connector' && index % 2 === 1) add(job.id, 'PRODUCES', inDomain(externals, domain));
    else add(job.id, 'PRODUCES', inDomain(topics, domain));
  }
  let guard = 0;
  while (edges.length < options.edges && guard < options.edges * 10) {
    guard += 1;
    const index = Math.floor(next() * jobs.length);
    const job = jobs[index]!;
    const domain = domainOf(index);
    if (next() < 0.55 || job.kind === 'group') add(input(topics, domain), 'CONSUMES', job.id);
    else add(job.id, 'PRODUCES', inDomain(topics, domain));
  }
  return { nodes, edges };
}
