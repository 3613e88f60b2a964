/**
 * Use cases of the web UI's two reads about nodes (`docs/api.md`, "Graphs"; issue 11):
 *
 * - `GET /graphs/{graph_id}/path?from=&to=[&as_of=]`: the shortest path between two nodes
 *   (`graphPath`, over `shortestPath` in `projections/traversal/path.ts`).
 * - `GET /graphs/{graph_id}/nodes/{node_id}/openlineage[?as_of=]`: one node in its OpenLineage form
 *   (`nodeOpenLineage`): a job as the COMPLETE RunEvent that `GET /graphs/enriched/view` lists for
 *   it, a dataset with its facets and the runs that wrote and read it. The mapping is the one of
 *   `src/openlineage/fromGraph.ts` (`createRunEventBuilder`, `jobsWriting`, `jobsReading`); the runs
 *   of ingested OpenLineage events come from the OpenLineage projection, as `GET /lineage/datasets/detail`
 *   and `GET /lineage/jobs/detail` answer them.
 *
 * Both only read. They throw our errors only: NotFoundError (404) for an unknown graph or node,
 * ValidationError (400) for a malformed `as_of`.
 */
import { NotFoundError } from '../src/errors.js';
import { DATASET_NODE_TYPES, JOB_NODE_TYPES, type Edge, type Node } from '../src/graph/model.js';
import {
  createRunEventBuilder,
  residentGraphLookup,
  jobsReading,
  jobsWriting,
  type GraphJobRef,
  type RunEventBuilder,
} from '../src/openlineage/fromGraph.js';
import type { Dataset, RunEvent } from '../src/openlineage/model.js';
import { shortestPath, type PathDirection } from '../projections/traversal/index.js';
import type { LineageRuntime } from './runtime.js';
import { readGraph, type GraphRuntime } from './graphs.js';

/** The answer of `GET /graphs/{graph_id}/path`. */
export interface PathAnswer {
  graph_id: string;
  from: string;
  to: string;
  /** `downstream`: the edges run from `from` to `to`; `upstream`: from `to` to `from`; null: not connected. */
  direction: PathDirection | null;
  /** The nodes in order from `from` to `to` (both included); empty when not connected. */
  nodes: Node[];
  /** One edge per hop in the order of `nodes`, each as stored. */
  edges: Edge[];
}

/**
 * The shortest path between `from` and `to` in a graph now, or as of `asOf`: following edge
 * directions from `from`, else from `to` (see `shortestPath`).
 * @throws NotFoundError for an unknown graph, or naming the node (`from` or `to`) that is not in it;
 *   ValidationError for a malformed `asOf`.
 */
export async function graphPath(
  runtime: GraphRuntime,
  graphId: string,
  from: string,
  to: string,
  asOf?: string,
): Promise<PathAnswer> {
  const state = await readGraph(runtime, graphId, asOf);
  const path = shortestPath(state.graph, from, to);
  return { graph_id: state.graphId, from, to, direction: path.direction, nodes: path.nodes, edges: path.edges };
}

/** The runtime `nodeOpenLineage` reads: the graphs, and the OpenLineage projection for ingested runs. */
export type NodeOpenLineageRuntime = GraphRuntime & Pick<LineageRuntime, 'openLineage'>;

/** A run that wrote or read a dataset: its job and, when known, its latest run. */
export interface RunReference {
  /** The job's OpenLineage namespace and name. */
  namespace: string;
  name: string;
  /** The runId of the job's latest run (for a job of this graph, the runId of its RunEvent); null when unknown. */
  run_id: string | null;
  /** eventType of that run's last event (`COMPLETE` for a job of this graph). */
  event_type: string | null;
  /** eventTime of that event, ISO 8601. */
  event_time: string | null;
  /** `graph`: a job of this graph (as `/graphs/enriched/view` emits it); `ingested`: from OpenLineage events received. */
  source: 'graph' | 'ingested';
}

/** The answer of `GET /graphs/{graph_id}/nodes/{node_id}/openlineage`. */
export interface NodeOpenLineageAnswer {
  graph_id: string;
  node_id: string;
  /** `job` (connector, query, stream job, consumer group, catalog job), `dataset`, or null (a schema). */
  kind: 'job' | 'dataset' | null;
  /** For a job: its COMPLETE RunEvent, as `GET /graphs/enriched/view` lists it; else null. */
  event: RunEvent | null;
  /** For a dataset: its namespace, name and facets as the RunEvents list it; else null. */
  dataset: Dataset | null;
  /** For a dataset: the runs that wrote it and those that read it (empty for a job or a schema). */
  runs: { written_by: RunReference[]; read_by: RunReference[] };
}

/**
 * One node of a graph now, or as of `asOf`, in its OpenLineage form (see `NodeOpenLineageAnswer`).
 * The runs of ingested events are those known now, whatever `asOf`.
 * @throws NotFoundError for an unknown graph or a node that is not in it; ValidationError for a malformed `asOf`.
 */
export async function nodeOpenLineage(
  runtime: NodeOpenLineageRuntime,
  graphId: string,
  nodeId: string,
  asOf?: string,
): Promise<NodeOpenLineageAnswer> {
  const state = await readGraph(runtime, graphId, asOf);
  if (!state.graph.hasNode(nodeId)) throw new NotFoundError(`node "${nodeId}" is not in the graph`);
  const node = state.graph.getNodeAttributes(nodeId);
  const lookup = residentGraphLookup(state.graph);
  const builder = createRunEventBuilder(lookup);
  const answer: NodeOpenLineageAnswer = {
    graph_id: state.graphId,
    node_id: nodeId,
    kind: null,
    event: null,
    dataset: null,
    runs: { written_by: [], read_by: [] },
  };
  if (JOB_NODE_TYPES.has(node.node_type)) return { ...answer, kind: 'job', event: builder.jobEvent(nodeId) };
  if (!DATASET_NODE_TYPES.has(node.node_type)) return answer;
  const dataset = builder.dataset(nodeId);
  const written = graphRuns(builder, jobsWriting(lookup, nodeId));
  const read = graphRuns(builder, jobsReading(lookup, nodeId));
  if (dataset) addIngestedRuns(runtime, dataset, written, read);
  return { ...answer, kind: 'dataset', dataset, runs: { written_by: written, read_by: read } };
}

/** The RunEvents of a graph's jobs as run references. */
function graphRuns(builder: RunEventBuilder, jobs: GraphJobRef[]): RunReference[] {
  return jobs
    .map((ref) => builder.event(ref))
    .filter((event): event is RunEvent => event !== null)
    .map((event) => ({
      namespace: event.job.namespace,
      name: event.job.name,
      run_id: event.run.runId,
      event_type: event.eventType ?? null,
      event_time: event.eventTime,
      source: 'graph',
    }));
}

/**
 * Adds the jobs the OpenLineage projection knows to write and read `dataset` (ingested events, under
 * any of its identities) that are not listed yet, each with its latest run. A dataset the projection
 * does not know adds nothing.
 */
function addIngestedRuns(
  runtime: NodeOpenLineageRuntime,
  dataset: Dataset,
  written: RunReference[],
  read: RunReference[],
): void {
  let detail: ReturnType<NodeOpenLineageRuntime['openLineage']['datasetDetail']>;
  try {
    detail = runtime.openLineage.datasetDetail({ namespace: dataset.namespace, name: dataset.name });
  } catch (error) {
    if (error instanceof NotFoundError) return;
    throw error;
  }
  for (const [jobs, into] of [
    [detail.produced_by, written],
    [detail.consumed_by, read],
  ] as const) {
    for (const job of jobs) {
      if (into.some((run) => run.namespace === job.namespace && run.name === job.name)) continue;
      into.push({ ...job, ...latestRun(runtime, job), source: 'ingested' });
    }
  }
}

/** The latest run of an ingested job, or nulls when the projection has none. */
function latestRun(
  runtime: NodeOpenLineageRuntime,
  job: { namespace: string; name: string },
): Pick<RunReference, 'run_id' | 'event_type' | 'event_time'> {
  try {
    const run = runtime.openLineage.jobDetail(job).latest_run;
    if (run) return { run_id: run.run_id, event_type: run.event_type, event_time: run.event_time };
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  return { run_id: null, event_type: null, event_time: null };
}
