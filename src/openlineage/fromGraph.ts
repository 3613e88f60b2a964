/**
 * Graph -> OpenLineage (pure): one COMPLETE RunEvent per job node, following the "OpenLineage
 * mapping" table of `docs/specification.md` and the edge directions of `docs/contract.md` section 2.
 *
 * - Jobs: CONNECTOR, SQL_QUERY, STREAM_JOB, CONSUMER_GROUP, CATALOG_JOB (`JOB_NODE_TYPES`).
 * - Inputs: datasets with a CONSUMES edge into the job (a source connector's external dataset, a
 *   consumer group's topics, a stream job's topics).
 * - Outputs: datasets with a PRODUCES edge from the job (a sink connector's external dataset and its
 *   dead-letter topic), plus everything reachable from those outputs through MATERIALIZES
 *   (topic -> materialized table -> catalog table: Tableflow).
 * - TRANSFORMS (dataset -> dataset, no job known): one synthetic job per target dataset, named
 *   `transforms:{target name}`, whose inputs are the TRANSFORMS sources.
 * - Namespaces: `stream://{env}/{cluster}` (stream nodes), `lakehouse://{workspace}`,
 *   `datalake://{region}/{database}`, `warehouse://{project}/{dataset}`, external datasets: their
 *   URI's scheme and authority, name = path (OpenLineage naming conventions).
 * - Facets: `schema` (HAS_SCHEMA), `dataSource`, `documentation`, `sql`, `columnLineage` (on a job's
 *   output, from the PRODUCES edge attribute `column_lineage`, see `columnLineageFacet`; or when a
 *   node carries a `column_lineage` attribute already in facet form), `jobType`, `symlinks` (the `kafka://` form of a topic whose
 *   bootstrap endpoint is known) and the custom `stream_topic` / `stream_connector`.
 * - runId: a UUIDv5 of the job id and a hash of its definition, inputs and outputs, so it is stable
 *   while the job is unchanged and changes when it changes.
 */
import { createHash } from 'node:crypto';
import { v5 as uuidv5 } from 'uuid';
import {
  DATASET_NODE_TYPES,
  JOB_NODE_TYPES,
  type Edge,
  type LineageGraph,
  type Node,
  type System,
} from '../graph/model.js';
import { mappedColumnLineage, type SinkFieldMapping } from '../extraction/connectorFields.js';
import { hasPositionalOutputs, namePositionalOutputs, sinkColumnCandidates } from '../extraction/starColumns.js';
import { schemaEdgesValueFirst, storedSchemaFields } from '../graph/schemas.js';
import { kafkaNamespace, nodeBootstrap, streamNamespace } from './identity.js';
import {
  EVENT_SCHEMA_URLS,
  LINEAGE_SVC_PRODUCER,
  facet,
  type BaseFacet,
  type Dataset,
  type RunEvent,
  type SchemaField,
} from './model.js';

/** UUIDv5 namespace of lineage-svc runIds (a fixed random UUID). */
export const RUN_ID_NAMESPACE = '6f1c0b9e-3a52-4d8e-9b7a-2c4e5f6a7b8c';

/** What `graphToRunEvents` reads: a LineageGraph, or anything holding a resident graph (GraphState). */
export type GraphSource =
  | LineageGraph
  | {
      graph: {
        forEachNode(callback: (node: Node) => void): void;
        forEachEdge(callback: (edge: Edge) => void): void;
      };
    };

/** Options of `graphToRunEvents`. */
export interface GraphToRunEventsOptions {
  /** Keep only nodes of these systems (upper-case, e.g. `STREAM`, `LAKEHOUSE`); all when absent. */
  systems?: ReadonlySet<System>;
  /** The `confluent` view: stream nodes only (jobs and datasets). */
  streamOnly?: boolean;
  /** `eventTime` of every event (ISO 8601 with a timezone, or a Date). Default: now. */
  eventTime?: string | Date;
  /** Bootstrap endpoints (`host:port`) by cluster id, for topics without a `bootstrap_endpoint` attribute. */
  bootstrapByCluster?: ReadonlyMap<string, string>;
}

/**
 * Read access to a lineage graph by node id: all that the RunEvent of one job needs (its node, its
 * edges, the nodes around them). `graphToRunEvents` reads a whole graph through one; the OpenLineage
 * projection reads the graph projection's resident graphs through `residentGraphLookup`, one job at a
 * time (`createRunEventBuilder`).
 */
export interface GraphLookup {
  /** The node, or undefined when the graph has none with this id. */
  node(id: string): Node | undefined;
  /** The edges leaving the node (empty for an unknown node). */
  outEdges(id: string): readonly Edge[];
  /** The edges entering the node (empty for an unknown node). */
  inEdges(id: string): readonly Edge[];
}

/** The part of a resident graph (`GraphState.graph`, `projections/residentGraph.ts`) that `residentGraphLookup` reads. */
export interface ResidentGraphReader {
  node(id: string): Node | undefined;
  forEachOutgoing(id: string, callback: (edge: Edge) => void): void;
  forEachIncoming(id: string, callback: (edge: Edge) => void): void;
}

/** A `GraphLookup` over a resident graph; it copies nothing. */
export function residentGraphLookup(graph: ResidentGraphReader): GraphLookup {
  return {
    node: (id) => graph.node(id),
    outEdges: (id) => {
      const edges: Edge[] = [];
      graph.forEachOutgoing(id, (edge) => edges.push(edge));
      return edges;
    },
    inEdges: (id) => {
      const edges: Edge[] = [];
      graph.forEachIncoming(id, (edge) => edges.push(edge));
      return edges;
    },
  };
}

interface Index {
  nodes: Map<string, Node>;
  out: Map<string, Edge[]>;
  in: Map<string, Edge[]>;
}

function indexGraph(source: GraphSource): Index {
  const index: Index = { nodes: new Map(), out: new Map(), in: new Map() };
  const addEdge = (edge: Edge) => {
    const outs = index.out.get(edge.src_id);
    if (outs) outs.push(edge);
    else index.out.set(edge.src_id, [edge]);
    const ins = index.in.get(edge.dst_id);
    if (ins) ins.push(edge);
    else index.in.set(edge.dst_id, [edge]);
  };
  if ('nodes' in source) {
    for (const node of source.nodes) index.nodes.set(node.id, node);
    for (const edge of source.edges) addEdge(edge);
  } else {
    source.graph.forEachNode((node) => index.nodes.set(node.id, node));
    source.graph.forEachEdge((edge) => addEdge(edge));
  }
  return index;
}

/** Node types whose qualified name is `{cluster_id}/{rest}`. */
const CLUSTER_SCOPED = new Set(['TOPIC', 'CONSUMER_GROUP', 'CONNECTOR', 'MATERIALIZED_TABLE']);

/**
 * The OpenLineage name of a node: its qualified name without the cluster prefix (`{cluster}/` is
 * dropped when it is the node's own cluster id; a ksqlDB query keeps its ksqlDB cluster prefix, which
 * is not the Kafka cluster, so that query ids of two ksqlDB clusters never collide).
 */
function olName(node: Node): string {
  const qualified = node.qualified_name;
  if (node.system === 'STREAM' && node.cluster_id && qualified.startsWith(`${node.cluster_id}/`)) {
    return qualified.slice(node.cluster_id.length + 1);
  }
  if (node.system === 'STREAM' && CLUSTER_SCOPED.has(node.node_type) && qualified.includes('/')) {
    return qualified.slice(qualified.indexOf('/') + 1);
  }
  return qualified;
}

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const int = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) ? value : null);

/** Host of a workspace URL without scheme and trailing slash. */
function hostOf(url: string): string {
  return url.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//, '').replace(/\/+$/, '');
}

/**
 * `uri` as an RFC 3986 URI (the `uri` format of the OpenLineage schema): every character a URI may
 * not hold (spaces, non-ASCII, `[]"<>\\^`{|}`, controls, a second `#`) is percent-encoded as UTF-8; a lone surrogate
 * becomes U+FFFD; a `%` not followed by two hex digits becomes `%25`; valid escapes and reserved
 * characters are kept.
 */
export function encodeUriForOpenLineage(uri: string): string {
  return uri
    .replace(/%(?![0-9A-Fa-f]{2})/g, '%25')
    .replace(/[^A-Za-z0-9\-._~:/?#@!$&'()*+,;=%]/gu, (character) =>
      encodeURIComponent(/^[\uD800-\uDFFF]$/.test(character) ? '\ufffd' : character),
    )
    .replace(/(?<=#.*)#/g, '%23');
}

/**
 * Splits a URI into OpenLineage namespace (scheme + authority) and name (path without the leading
 * slash). Returns null for a string that is not `scheme://...`.
 */
export function splitUri(uri: string): { namespace: string; name: string } | null {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/]*)(?:\/(.*))?$/.exec(uri);
  if (!match) return null;
  const [, scheme, authority, path] = match;
  const namespace = `${scheme!.toLowerCase()}://${authority}`;
  return { namespace, name: path && path !== '' ? path : '/' };
}

/** The lakehouse namespace's authority for a node that cannot know its workspace. */
const UNKNOWN_WORKSPACE = 'unknown-workspace';
/** The warehouse namespace's authority for a catalog job that cannot know its project. */
const UNKNOWN_PROJECT = 'unknown-project';

/**
 * The OpenLineage `(namespace, name)` of a dataset or job node (`docs/specification.md`,
 * "OpenLineage mapping"). A Flink statement (STREAM_JOB) is in the namespace of its own cluster
 * (`sql.current-database`), else of its own compute pool (`stream://{env}/{compute pool}`), else of
 * its environment: never of the topics it reads or writes, which may be another cluster's or another
 * environment's. `clusterHint` stands in for another stream node's missing cluster id (a ksqlDB
 * query whose Kafka cluster is not known takes that of the topics it touches).
 */
export function openLineageIdentity(node: Node, clusterHint?: string | null): { namespace: string; name: string } {
  switch (node.system) {
    case 'STREAM':
      if (node.node_type === 'STREAM_JOB' && !node.cluster_id)
        return {
          namespace: streamNamespace(node.environment_id, str(node.attributes?.compute_pool_id)),
          name: olName(node),
        };
      return {
        namespace: streamNamespace(node.environment_id, node.cluster_id ?? clusterHint ?? null),
        name: olName(node),
      };
    case 'LAKEHOUSE': {
      // Every lakehouse dataset and catalog job names its workspace (`workspace_url`); a node that
      // cannot know it (recorded before its catalog reported one) is `lakehouse://unknown-workspace`.
      const workspace = str(node.attributes?.workspace_url) ?? str(node.attributes?.workspace);
      return {
        namespace: `lakehouse://${workspace ? hostOf(workspace) : UNKNOWN_WORKSPACE}`,
        name: node.qualified_name,
      };
    }
    case 'DATALAKE': {
      // datalake:catalog_table:{region}:{database}/{table}
      const region = str(node.attributes?.region) ?? node.id.split(':')[2] ?? 'unknown';
      const slash = node.qualified_name.indexOf('/');
      if (node.node_type === 'CATALOG_TABLE' && slash > 0) {
        return {
          namespace: `datalake://${region}/${node.qualified_name.slice(0, slash)}`,
          name: node.qualified_name.slice(slash + 1),
        };
      }
      return { namespace: `datalake://${region}`, name: node.qualified_name };
    }
    case 'WAREHOUSE': {
      const parts = node.qualified_name.split('.');
      if (node.node_type === 'CATALOG_TABLE' && parts.length >= 3) {
        return { namespace: `warehouse://${parts[0]}/${parts[1]}`, name: parts.slice(2).join('.') };
      }
      // A catalog job spans datasets: `warehouse://{project}`; one that cannot know its project, `warehouse://unknown-project`.
      return {
        namespace: `warehouse://${str(node.attributes?.project_id) ?? UNKNOWN_PROJECT}`,
        name: node.qualified_name,
      };
    }
    case 'EXTERNAL': {
      const split = splitUri(node.qualified_name);
      return split ?? { namespace: `external://${node.environment_id ?? 'unknown'}`, name: node.qualified_name };
    }
  }
}

function schemaFields(schemaNode: Node): SchemaField[] {
  const convert = (field: unknown): SchemaField | null => {
    if (typeof field !== 'object' || field === null) return null;
    const record = field as Record<string, unknown>;
    const name = str(record.name);
    if (name === null) return null;
    const out: SchemaField = { name };
    const type = record.type;
    if (typeof type === 'string') out.type = type;
    else if (type !== undefined && type !== null) out.type = JSON.stringify(type);
    const description = str(record.doc) ?? str(record.description);
    if (description !== null) out.description = description;
    if (Array.isArray(record.fields)) {
      const nested = record.fields.map(convert).filter((entry): entry is SchemaField => entry !== null);
      if (nested.length > 0) out.fields = nested;
    }
    return out;
  };
  return storedSchemaFields(schemaNode)
    .map(convert)
    .filter((entry): entry is SchemaField => entry !== null);
}

function tagsOf(node: Node): string[] {
  const tags = node.attributes?.tags;
  if (!Array.isArray(tags)) return [];
  return tags.map((tag) =>
    typeof tag === 'string'
      ? tag
      : typeof tag === 'object' && tag !== null && 'name' in tag
        ? String((tag as { name: unknown }).name)
        : String(tag),
  );
}

interface Built {
  dataset: Dataset;
  nodeId: string;
}

/**
 * Converts a lineage graph into OpenLineage RunEvents: one COMPLETE RunEvent per job node kept by the
 * options (plus one per TRANSFORMS target), in node order. Every event validates against the
 * OpenLineage 2-0-2 core schema and its facets' schemas (tested with ajv).
 *
 * The `confluent` view is `{ streamOnly: true }`; the `enriched` view is `{ systems }` (all systems
 * when `systems` is absent). A job whose own node is filtered out is not emitted; datasets filtered
 * out are dropped from the inputs and outputs of the jobs that remain.
 */
export function graphToRunEvents(source: GraphSource, options: GraphToRunEventsOptions = {}): RunEvent[] {
  const index = indexGraph(source);
  const lookup: GraphLookup = {
    node: (id) => index.nodes.get(id),
    outEdges: (id) => index.out.get(id) ?? [],
    inEdges: (id) => index.in.get(id) ?? [],
  };
  const builder = createRunEventBuilder(lookup, options);
  const events: RunEvent[] = [];
  for (const node of index.nodes.values()) {
    const event = JOB_NODE_TYPES.has(node.node_type) ? builder.jobEvent(node.id) : null;
    if (event) events.push(event);
  }
  // TRANSFORMS: dataset -> dataset with no job known; one synthetic job per target.
  for (const node of index.nodes.values()) {
    const event = DATASET_NODE_TYPES.has(node.node_type) ? builder.transformsEvent(node.id) : null;
    if (event) events.push(event);
  }
  return events;
}

/**
 * A job of a graph as `graphToRunEvents` emits it: the id of a job node, or `transforms:{dataset node
 * id}` for the synthetic job of a TRANSFORMS target (`transformsJobRef`).
 */
export type GraphJobRef = string;

const TRANSFORMS_REF = 'transforms:';

/** The `GraphJobRef` of the synthetic TRANSFORMS job of a dataset node. */
export const transformsJobRef = (datasetNodeId: string): GraphJobRef => `${TRANSFORMS_REF}${datasetNodeId}`;

/** Builds the RunEvents of single jobs of one graph, exactly as `graphToRunEvents` builds them all. */
export interface RunEventBuilder {
  /** The RunEvent of a job node kept by the options; null for another node or an unknown id. */
  jobEvent(nodeId: string): RunEvent | null;
  /** The RunEvent of the synthetic job of a dataset node with TRANSFORMS sources; null otherwise. */
  transformsEvent(datasetNodeId: string): RunEvent | null;
  /** `jobEvent` or `transformsEvent`, by the form of the ref. */
  event(ref: GraphJobRef): RunEvent | null;
  /** A dataset node as the events list it (namespace, name, facets; without a job's `columnLineage`); null for another node. */
  dataset(nodeId: string): Dataset | null;
}

/**
 * A builder of single RunEvents over `graph` (see `RunEventBuilder`), with the options of
 * `graphToRunEvents`. It remembers the datasets it built, so build the events of one graph revision with it.
 */
export function createRunEventBuilder(graph: GraphLookup, options: GraphToRunEventsOptions = {}): RunEventBuilder {
  const eventTime =
    options.eventTime === undefined
      ? new Date().toISOString()
      : typeof options.eventTime === 'string'
        ? options.eventTime
        : options.eventTime.toISOString();
  const keep = (node: Node | undefined): node is Node =>
    node !== undefined &&
    (!options.streamOnly || node.system === 'STREAM') &&
    (!options.systems || options.systems.has(node.system));

  const datasetCache = new Map<string, Dataset>();
  const toDataset = (node: Node): Dataset => {
    const cached = datasetCache.get(node.id);
    if (cached) return cached;
    const identity = openLineageIdentity(node);
    const facets: NonNullable<Dataset['facets']> = {};
    for (const edge of schemaEdgesValueFirst(graph.outEdges(node.id))) {
      const schemaNode = graph.node(edge.dst_id);
      if (!schemaNode) continue;
      const fields = schemaFields(schemaNode);
      if (fields.length > 0) {
        facets.schema = facet('schema', { fields });
        break;
      }
    }
    if (node.node_type === 'EXTERNAL_DATASET') {
      facets.dataSource = facet('dataSource', {
        name: identity.namespace,
        uri: encodeUriForOpenLineage(
          /^[A-Za-z][A-Za-z0-9+.-]*:/.test(node.qualified_name) ? node.qualified_name : identity.namespace,
        ),
      });
    } else {
      facets.dataSource = facet('dataSource', {
        name: identity.namespace,
        uri: encodeUriForOpenLineage(identity.namespace),
      });
    }
    const description = str(node.attributes?.description) ?? str(node.attributes?.comment);
    if (description !== null) facets.documentation = facet('datasetDocumentation', { description });
    const columnLineage = node.attributes?.column_lineage;
    if (typeof columnLineage === 'object' && columnLineage !== null && 'fields' in columnLineage) {
      facets.columnLineage = facet('columnLineage', columnLineage as { fields: Record<string, unknown> });
    }
    if (node.node_type === 'TOPIC') {
      facets.stream_topic = facet('stream_topic', {
        cluster_id: node.cluster_id,
        environment_id: node.environment_id,
        partitions: int(node.attributes?.partitions) ?? int(node.attributes?.partitions_count),
        replication_factor: int(node.attributes?.replication_factor),
        tags: tagsOf(node),
      });
      const bootstrap =
        nodeBootstrap(node) ?? (node.cluster_id ? (options.bootstrapByCluster?.get(node.cluster_id) ?? null) : null);
      const kafka = bootstrap === null ? null : kafkaNamespace(bootstrap);
      if (kafka !== null)
        facets.symlinks = facet('symlinks', {
          identifiers: [{ namespace: kafka, name: identity.name, type: 'TOPIC' }],
        });
    }
    const dataset: Dataset = { namespace: identity.namespace, name: identity.name, facets };
    datasetCache.set(node.id, dataset);
    return dataset;
  };

  const materialized = (topicId: string, into: Map<string, Built>) => {
    const stack = [topicId];
    const seen = new Set<string>([topicId]);
    while (stack.length > 0) {
      const at = stack.pop()!;
      for (const edge of graph.outEdges(at)) {
        if (edge.edge_type !== 'MATERIALIZES' || seen.has(edge.dst_id)) continue;
        seen.add(edge.dst_id);
        stack.push(edge.dst_id);
        const target = graph.node(edge.dst_id);
        if (keep(target) && !into.has(target.id))
          into.set(target.id, { nodeId: target.id, dataset: toDataset(target) });
      }
    }
  };

  const emit = (
    jobIdentity: { namespace: string; name: string },
    jobKey: string,
    jobFacets: Record<string, unknown>,
    inputs: Built[],
    outputs: Built[],
  ): RunEvent => {
    // A Tableflow table shares its topic's identity (same namespace, same name): list it once.
    const unique = (list: Built[]) => {
      const seen = new Set<string>();
      return list
        .filter((entry) => {
          const key = `${entry.dataset.namespace}\u0000${entry.dataset.name}`;
          if (seen.has(key)) return false;
          seen.add(key);
          return true;
        })
        .sort((a, b) =>
          a.dataset.namespace + '\u0000' + a.dataset.name < b.dataset.namespace + '\u0000' + b.dataset.name ? -1 : 1,
        );
    };
    inputs = unique(inputs);
    outputs = unique(outputs);
    const definition = JSON.stringify({
      job: jobIdentity,
      facets: jobFacets,
      inputs: inputs.map((entry) => entry.dataset),
      outputs: outputs.map((entry) => entry.dataset),
    });
    const hash = createHash('sha256').update(definition).digest('hex');
    return {
      eventTime,
      producer: LINEAGE_SVC_PRODUCER,
      schemaURL: EVENT_SCHEMA_URLS.RunEvent,
      eventType: 'COMPLETE',
      run: { runId: uuidv5(`${jobKey}\n${hash}`, RUN_ID_NAMESPACE) },
      job: { namespace: jobIdentity.namespace, name: jobIdentity.name, facets: jobFacets as Dataset['facets'] },
      inputs: inputs.map((entry) => entry.dataset),
      outputs: outputs.map((entry) => entry.dataset),
    };
  };

  const jobEvent = (nodeId: string): RunEvent | null => {
    const node = graph.node(nodeId);
    if (!node || !JOB_NODE_TYPES.has(node.node_type) || !keep(node)) return null;
    const inputs = new Map<string, Built>();
    const outputs = new Map<string, Built>();
    for (const edge of graph.inEdges(node.id)) {
      if (edge.edge_type !== 'CONSUMES') continue;
      const source = graph.node(edge.src_id);
      if (keep(source) && DATASET_NODE_TYPES.has(source.node_type))
        inputs.set(source.id, { nodeId: source.id, dataset: toDataset(source) });
    }
    for (const edge of graph.outEdges(node.id)) {
      if (edge.edge_type !== 'PRODUCES') continue;
      const target = graph.node(edge.dst_id);
      if (!keep(target) || !DATASET_NODE_TYPES.has(target.node_type)) continue;
      const dataset = toDataset(target);
      // Column inputs are named only when the view keeps their dataset (a view may drop a system).
      const columnLineage = columnLineageFacet(
        positionalNamed(graph, edge) ?? connectorColumnLineage(graph, node, edge, [...inputs.keys()]),
        (id) => {
          const input = graph.node(id);
          return input && keep(input) ? input : undefined;
        },
        schemaFieldNames(dataset),
      );
      // The facet describes this job's write: it goes on this event's copy of the output only.
      outputs.set(target.id, {
        nodeId: target.id,
        dataset: columnLineage ? { ...dataset, facets: { ...dataset.facets, columnLineage } } : dataset,
      });
    }
    for (const output of [...outputs.values()]) materialized(output.nodeId, outputs);

    // A job without a cluster id (a ksqlDB query, not a Flink statement) takes the cluster of the topics it touches.
    const clusterHint =
      [...outputs.values(), ...inputs.values()]
        .map((entry) => graph.node(entry.nodeId))
        .find((entry) => entry?.system === 'STREAM' && entry.cluster_id)?.cluster_id ?? null;
    const identity = openLineageIdentity(node, clusterHint);
    return emit(identity, node.id, jobFacets(node, graph), [...inputs.values()], [...outputs.values()]);
  };

  const transformsEvent = (datasetNodeId: string): RunEvent | null => {
    const node = graph.node(datasetNodeId);
    if (!keep(node) || !DATASET_NODE_TYPES.has(node.node_type)) return null;
    const sources = graph
      .inEdges(node.id)
      .filter((edge) => edge.edge_type === 'TRANSFORMS')
      .map((edge) => graph.node(edge.src_id))
      .filter(keep);
    if (sources.length === 0) return null;
    const target = toDataset(node);
    const jobFacetsOfTransform = {
      documentation: facet('jobDocumentation', {
        description: `Derivation of ${target.name} inside its catalog (TRANSFORMS edge, no job known)`,
      }),
      jobType: facet('jobType', { processingType: 'BATCH', integration: 'LINEAGE_SVC', jobType: 'TRANSFORMS' }),
    };
    return emit(
      { namespace: target.namespace, name: `transforms:${target.name}` },
      transformsJobRef(node.id),
      jobFacetsOfTransform,
      sources.map((source) => ({ nodeId: source.id, dataset: toDataset(source) })),
      [{ nodeId: node.id, dataset: target }],
    );
  };

  return {
    jobEvent,
    transformsEvent,
    event: (ref) =>
      ref.startsWith(TRANSFORMS_REF) ? transformsEvent(ref.slice(TRANSFORMS_REF.length)) : jobEvent(ref),
    dataset: (nodeId) => {
      const node = graph.node(nodeId);
      return keep(node) && DATASET_NODE_TYPES.has(node.node_type) ? toDataset(node) : null;
    },
  };
}

/**
 * The jobs whose RunEvent (`graphToRunEvents` without a systems filter) lists the dataset node
 * `nodeId` among its outputs: the jobs that PRODUCE it, the jobs that PRODUCE a dataset it is
 * MATERIALIZED from (directly or through a chain), and its own TRANSFORMS job. Empty for another node.
 */
export function jobsWriting(graph: GraphLookup, nodeId: string): GraphJobRef[] {
  const node = graph.node(nodeId);
  if (!node || !DATASET_NODE_TYPES.has(node.node_type)) return [];
  const jobs = new Set<GraphJobRef>();
  const producers = (datasetId: string) => {
    for (const edge of graph.inEdges(datasetId)) {
      if (edge.edge_type !== 'PRODUCES') continue;
      const job = graph.node(edge.src_id);
      if (job && JOB_NODE_TYPES.has(job.node_type)) jobs.add(job.id);
    }
  };
  producers(nodeId);
  // Every dataset this one is materialized from, at any distance.
  const stack = [nodeId];
  const seen = new Set<string>([nodeId]);
  while (stack.length > 0) {
    const at = stack.pop()!;
    for (const edge of graph.inEdges(at)) {
      if (edge.edge_type !== 'MATERIALIZES' || seen.has(edge.src_id)) continue;
      seen.add(edge.src_id);
      stack.push(edge.src_id);
      const source = graph.node(edge.src_id);
      if (source && DATASET_NODE_TYPES.has(source.node_type)) producers(source.id);
    }
  }
  if (graph.inEdges(nodeId).some((edge) => edge.edge_type === 'TRANSFORMS' && graph.node(edge.src_id)))
    jobs.add(transformsJobRef(nodeId));
  return [...jobs];
}

/**
 * The jobs whose RunEvent (`graphToRunEvents` without a systems filter) lists the dataset node
 * `nodeId` among its inputs: the jobs it is CONSUMED by, and the TRANSFORMS jobs of the datasets it
 * TRANSFORMS into. Empty for another node.
 */
export function jobsReading(graph: GraphLookup, nodeId: string): GraphJobRef[] {
  const node = graph.node(nodeId);
  if (!node) return [];
  const jobs = new Set<GraphJobRef>();
  for (const edge of graph.outEdges(nodeId)) {
    const target = graph.node(edge.dst_id);
    if (!target) continue;
    if (edge.edge_type === 'CONSUMES' && DATASET_NODE_TYPES.has(node.node_type) && JOB_NODE_TYPES.has(target.node_type))
      jobs.add(target.id);
    if (edge.edge_type === 'TRANSFORMS' && DATASET_NODE_TYPES.has(target.node_type))
      jobs.add(transformsJobRef(target.id));
  }
  return [...jobs];
}

/**
 * The column lineage of a sink connector's write, from its `field_mapping` attribute
 * (`src/extraction/connectorFields.ts`) over the value-schema fields of the topics it reads (only
 * the table's `source_topic` when the output names one); undefined for another job, a dead-letter
 * topic, or a connector without a mapping.
 */
function connectorColumnLineage(graph: GraphLookup, job: Node, edge: Edge, inputs: readonly string[]): unknown {
  const mapping = job.attributes?.field_mapping as SinkFieldMapping | undefined;
  if (job.node_type !== 'CONNECTOR' || edge.attributes?.role === 'dlq' || !Array.isArray(mapping?.fields))
    return undefined;
  const sourceTopic = graph.node(edge.dst_id)?.attributes?.source_topic;
  const topics = inputs
    .map((id) => graph.node(id))
    .filter((topic): topic is Node => topic?.node_type === 'TOPIC')
    .filter((topic) => typeof sourceTopic !== 'string' || topic.display_name === sourceTopic)
    .map((topic) => ({
      dataset: topic.id,
      fields: graph
        .outEdges(topic.id)
        .filter((schema) => schema.edge_type === 'HAS_SCHEMA' && schema.attributes?.role !== 'key')
        .flatMap((schema) => {
          const fields = graph.node(schema.dst_id)?.attributes?.fields;
          return Array.isArray(fields)
            ? fields.flatMap((field: { name?: unknown }) => (typeof field?.name === 'string' ? [field.name] : []))
            : [];
        }),
    }));
  return mappedColumnLineage(mapping!, topics);
}

/**
 * An edge's `column_lineage` attribute, the outputs of a Flink INSERT without a column list named
 * after the sink's columns by position (`namePositionalOutputs`: its value-schema fields, or its key
 * then value fields); the attribute as it is when no entry has a position.
 */
function positionalNamed(graph: GraphLookup, edge: Edge): unknown {
  const attribute = edge.attributes?.column_lineage;
  if (!hasPositionalOutputs(attribute)) return attribute;
  const value: string[] = [];
  const key: string[] = [];
  for (const schema of graph.outEdges(edge.dst_id))
    if (schema.edge_type === 'HAS_SCHEMA')
      (schema.attributes?.role === 'key' ? key : value).push(
        ...storedSchemaFields(graph.node(schema.dst_id)).map((field) => field.name),
      );
  return namePositionalOutputs(attribute, sinkColumnCandidates(value, key));
}

/** Transformation `type` and `subtype` of each `column_lineage` kind (OpenLineage column lineage 1-2-0). */
export const COLUMN_TRANSFORMATIONS: Readonly<Record<string, { type: 'DIRECT' | 'INDIRECT'; subtype: string }>> = {
  identity: { type: 'DIRECT', subtype: 'IDENTITY' },
  transformation: { type: 'DIRECT', subtype: 'TRANSFORMATION' },
  aggregation: { type: 'DIRECT', subtype: 'AGGREGATION' },
  filter: { type: 'INDIRECT', subtype: 'FILTER' },
  join_key: { type: 'INDIRECT', subtype: 'JOIN' },
  group_by: { type: 'INDIRECT', subtype: 'GROUP_BY' },
  window: { type: 'INDIRECT', subtype: 'WINDOW' },
};

/** One input field of the columnLineage facet (1-2-0 `InputField`). */
export interface InputField {
  namespace: string;
  name: string;
  field: string;
  transformations: Array<{ type: 'DIRECT' | 'INDIRECT'; subtype: string }>;
}

/** Names of the top-level fields of a dataset's `schema` facet (empty when it has none). */
function schemaFieldNames(dataset: Dataset): Set<string> {
  const fields = (dataset.facets?.schema as { fields?: unknown } | undefined)?.fields;
  return new Set(
    Array.isArray(fields)
      ? fields.flatMap((field) =>
          typeof field === 'object' && field !== null && typeof (field as { name?: unknown }).name === 'string'
            ? [(field as { name: string }).name]
            : [],
        )
      : [],
  );
}

/**
 * The `columnLineage` facet (ColumnLineageDatasetFacet 1-2-0) of a job's output, from the PRODUCES
 * edge attribute `column_lineage: [{ output, kind, inputs: [{ dataset: <node id>, column }] }]`
 * (`src/extraction/streamProcessing.ts`).
 *
 * - `kind` maps to a transformation: identity -> DIRECT/IDENTITY, transformation -> DIRECT/TRANSFORMATION,
 *   aggregation -> DIRECT/AGGREGATION, filter -> INDIRECT/FILTER, join_key -> INDIRECT/JOIN,
 *   group_by -> INDIRECT/GROUP_BY, window -> INDIRECT/WINDOW. An unknown kind is skipped.
 * - `fields[output].inputFields` lists each input column once, with the transformations of every
 *   entry that names it. Indirect entries (filter, join) stay on a field only when `output` is a real
 *   column: one a direct entry produces, or one of the output's schema fields.
 * - The facet's dataset-level `dataset` list holds every indirect input once: a filter or a join
 *   affects the whole output dataset.
 * - Inputs name a graph node (`nodeOf` finds it); an input whose node is not in the graph (an unresolved name) is
 *   skipped, since it has no OpenLineage namespace.
 *
 * @returns the facet, or undefined when the attribute is absent or yields no field at all.
 */
export function columnLineageFacet(
  attribute: unknown,
  nodeOf: (id: string) => Node | undefined,
  schemaColumns: ReadonlySet<string> = new Set(),
): (BaseFacet & { fields: Record<string, { inputFields: InputField[] }>; dataset?: InputField[] }) | undefined {
  if (!Array.isArray(attribute)) return undefined;
  type Entry = {
    output: string;
    kind: string;
    transformation: { type: 'DIRECT' | 'INDIRECT'; subtype: string };
    inputs: Array<{ namespace: string; name: string; field: string }>;
  };
  const entries: Entry[] = [];
  for (const raw of attribute) {
    if (typeof raw !== 'object' || raw === null) continue;
    const entry = raw as { output?: unknown; kind?: unknown; inputs?: unknown };
    const output = str(entry.output);
    const transformation = typeof entry.kind === 'string' ? COLUMN_TRANSFORMATIONS[entry.kind] : undefined;
    if (output === null || !transformation || !Array.isArray(entry.inputs)) continue;
    const inputs = entry.inputs.flatMap((input: unknown) => {
      if (typeof input !== 'object' || input === null) return [];
      const { dataset, column } = input as { dataset?: unknown; column?: unknown };
      const source = typeof dataset === 'string' ? nodeOf(dataset) : undefined;
      const field = str(column);
      if (!source || field === null) return [];
      const identity = openLineageIdentity(source, null);
      return [{ namespace: identity.namespace, name: identity.name, field }];
    });
    if (inputs.length > 0) entries.push({ output, kind: entry.kind as string, transformation, inputs });
  }
  const realColumns = new Set([
    ...schemaColumns,
    ...entries.filter((entry) => entry.transformation.type === 'DIRECT').map((entry) => entry.output),
  ]);
  const fieldKey = (input: { namespace: string; name: string; field: string }) =>
    `${input.namespace}\u0000${input.name}\u0000${input.field}`;
  const addTo = (
    list: Map<string, InputField>,
    input: { namespace: string; name: string; field: string },
    transformation: InputField['transformations'][number],
  ) => {
    const key = fieldKey(input);
    let known = list.get(key);
    if (!known) list.set(key, (known = { ...input, transformations: [] }));
    if (
      !known.transformations.some(
        (entry) => entry.type === transformation.type && entry.subtype === transformation.subtype,
      )
    )
      known.transformations.push({ ...transformation });
  };
  const fields = new Map<string, Map<string, InputField>>();
  const datasetLevel = new Map<string, InputField>();
  for (const entry of entries) {
    const indirect = entry.transformation.type === 'INDIRECT';
    for (const input of entry.inputs) {
      if (indirect) addTo(datasetLevel, input, entry.transformation);
      if (indirect && !realColumns.has(entry.output)) continue;
      let inputs = fields.get(entry.output);
      if (!inputs) fields.set(entry.output, (inputs = new Map()));
      addTo(inputs, input, entry.transformation);
    }
  }
  if (fields.size === 0 && datasetLevel.size === 0) return undefined;
  const body: { fields: Record<string, { inputFields: InputField[] }>; dataset?: InputField[] } = { fields: {} };
  for (const [output, inputs] of fields) body.fields[output] = { inputFields: [...inputs.values()] };
  if (datasetLevel.size > 0) body.dataset = [...datasetLevel.values()];
  return facet('columnLineage', body);
}

function jobFacets(node: Node, graph: GraphLookup): Record<string, unknown> {
  const facets: Record<string, unknown> = {};
  const sql = str(node.attributes?.sql) ?? str(node.attributes?.query);
  if (sql !== null) facets.sql = facet('sql', { query: sql });
  const description = str(node.attributes?.description);
  facets.documentation = facet('jobDocumentation', {
    description: description ?? `${node.node_type}: ${node.display_name || node.qualified_name}`,
  });
  facets.jobType = facet('jobType', {
    processingType: node.system === 'STREAM' ? 'STREAMING' : 'BATCH',
    integration: node.system === 'STREAM' ? 'STREAM' : node.system,
    jobType: node.node_type,
  });
  if (node.node_type === 'CONNECTOR') {
    facets.stream_connector = facet('stream_connector', {
      connector_class: str(node.attributes?.connector_class) ?? str(node.attributes?.['connector.class']),
      connector_type: str(node.attributes?.connector_type) ?? str(node.attributes?.direction),
      cluster_id: node.cluster_id,
      environment_id: node.environment_id,
    });
  }
  if (node.node_type === 'CONSUMER_GROUP') {
    // MEMBER_OF: name the job that owns the group in the documentation.
    const owner = graph.outEdges(node.id).find((edge) => edge.edge_type === 'MEMBER_OF');
    const ownerNode = owner ? graph.node(owner.dst_id) : undefined;
    if (ownerNode && description === null) {
      facets.documentation = facet('jobDocumentation', {
        description:
          `CONSUMER_GROUP: ${node.display_name || node.qualified_name} ` +
          `(member of ${ownerNode.node_type} ${ownerNode.display_name || ownerNode.qualified_name})`,
      });
    }
  }
  return facets;
}
