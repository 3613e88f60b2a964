/**
 * The extracted graphs as the OpenLineage queries see them (docs/openlineage.md, "The extracted
 * graphs in the queries"): every live graph of the graph projection stands for one COMPLETE RunEvent
 * per job, the RunEvents `graphToRunEvents` gives for it without a systems filter
 * (`src/openlineage/fromGraph.ts`), so that ingested events reading our topics join our jobs without
 * anything being stored.
 *
 * Nothing of a graph is copied: the fold keeps only where each dataset and job sits
 * (`OpenLineageState.graphDatasets` by OpenLineage identity, `graphJobs` by job name), and a query builds the RunEvents of the
 * jobs it reaches from the graph projection's graphology graph (`createRunEventBuilder`), one job at
 * a time. A graph's events carry the time of its last change (`GraphState.updatedAt`) as `eventTime`,
 * so the same graph always gives the same events.
 *
 * A `GraphJoin` lives for one query. What it builds (a graph's datasets and its jobs' RunEvents) is
 * kept in a `GraphJoinCache` for the graph's current revision, so that later queries reuse it: derived
 * state, like the traversal indexes, dropped as soon as the graph changes, never written anywhere.
 */
import type { Dataset, RunEvent } from '../../src/openlineage/model.js';
import { datasetKey } from '../../src/openlineage/identity.js';
import {
  createRunEventBuilder,
  residentGraphLookup,
  jobsReading,
  jobsWriting,
  transformsJobRef,
  type GraphJobRef,
  type GraphLookup,
  type RunEventBuilder,
} from '../../src/openlineage/fromGraph.js';
import type { GraphState } from '../graphProjection.js';
import type { GraphNodeIndex } from './graphNodeIndex.js';
import type { OpenLineageState } from './state.js';

/** The live graphs the queries join (the graph projection); undefined for an unknown or deleted graph. */
export interface ExtractedGraphs {
  get(graphId: string): GraphState | undefined;
}

/** A job of an extracted graph and its RunEvent. */
export interface ExtractedJob {
  graphId: string;
  ref: GraphJobRef;
  event: RunEvent;
  /** `datasetKey(job namespace, job name)` of the event. */
  jobKey: string;
}

/** A dataset of an extracted graph as its jobs' events list it, with the time of the graph's last change. */
export interface ExtractedDataset {
  dataset: Dataset;
  /** Milliseconds since the epoch. */
  timeMs: number;
}

/** What the queries ask of the extracted graphs; see the module comment. */
export interface GraphJoin {
  /** The jobs whose events list the dataset identity `key` as an output (`upstream`) or an input. */
  jobsAround(key: string, upstream: boolean): ExtractedJob[];
  /** The dataset of identity `key` when a job of a live graph reads or writes it, else null. */
  dataset(key: string): ExtractedDataset | null;
  /** Every dataset identity some job of a live graph reads or writes, with its dataset (first graph wins). */
  datasets(): Map<string, ExtractedDataset>;
  /** The jobs of identity `(namespace, name)` in the live graphs (one per graph holding it). */
  jobsNamed(namespace: string, name: string): ExtractedJob[];
  /** Every job of every live graph, transforms jobs included. */
  jobs(): ExtractedJob[];
}

/** What one graph revision's RunEvents are built with, and the events built so far (by job ref; null: not a job). */
interface GraphReader {
  graph: GraphState;
  revision: number;
  lookup: GraphLookup;
  builder: RunEventBuilder;
  /** Milliseconds since the epoch of the graph's last change (its events' `eventTime`). */
  timeMs: number;
  jobs: Map<GraphJobRef, ExtractedJob | null>;
  /** The jobs around a dataset node: `u{node id}` the jobs writing it, `d{node id}` the jobs reading it. */
  around: Map<string, ExtractedJob[]>;
}

/** Built RunEvents by graph id, each for one revision of its graph (see the module comment). */
export type GraphJoinCache = Map<string, GraphReader>;

/** A new, empty `GraphJoinCache`. */
export const createGraphJoinCache = (): GraphJoinCache => new Map();

/** A join that finds nothing: the projection without a graph projection (benches, fold tests). */
const NO_GRAPHS: ExtractedGraphs = { get: () => undefined };

/** Nodes of live graphs indexed under `key` in `index`, as `[graphId, nodeId]` pairs. */
function* nodesUnder(index: GraphNodeIndex, graphs: ExtractedGraphs, key: string): Generator<[string, string]> {
  for (const pair of index.nodesUnder(key)) if (graphs.get(pair[0])) yield pair;
}

/**
 * A join of `state`'s graph index with the live graphs of `graphs` for one query; `cache` keeps what it
 * builds for later queries (default: a cache of its own, dropped with it).
 */
export function graphJoin(
  state: OpenLineageState,
  graphs: ExtractedGraphs = NO_GRAPHS,
  cache: GraphJoinCache = createGraphJoinCache(),
): GraphJoin {
  // What was built for a graph that changed or was deleted since is dropped here, read or not.
  for (const [graphId, cached] of cache) {
    const graph = graphs.get(graphId);
    if (graph !== cached.graph || graph.revision !== cached.revision) cache.delete(graphId);
  }
  const reader = (graphId: string): GraphReader | null => {
    const graph = graphs.get(graphId);
    const cached = cache.get(graphId);
    if (!graph) {
      cache.delete(graphId);
      return null;
    }
    if (cached && cached.graph === graph && cached.revision === graph.revision) return cached;
    const eventTime = graph.updatedAt ?? new Date(0).toISOString();
    const lookup = residentGraphLookup(graph.graph);
    const fresh: GraphReader = {
      graph,
      revision: graph.revision,
      lookup,
      builder: createRunEventBuilder(lookup, { eventTime }),
      timeMs: Date.parse(eventTime),
      jobs: new Map(),
      around: new Map(),
    };
    cache.set(graphId, fresh);
    return fresh;
  };

  const job = (graphId: string, ref: GraphJobRef): ExtractedJob | null => {
    const found = reader(graphId);
    if (!found) return null;
    let extracted = found.jobs.get(ref);
    if (extracted === undefined) {
      const event = found.builder.event(ref);
      extracted = event && { graphId, ref, event, jobKey: datasetKey(event.job.namespace, event.job.name) };
      found.jobs.set(ref, extracted);
    }
    return extracted;
  };

  /** The dataset of one node when a job reads or writes it. */
  const datasetOfNode = (graphId: string, nodeId: string): ExtractedDataset | null => {
    const found = reader(graphId);
    if (!found) return null;
    if (jobsWriting(found.lookup, nodeId).length === 0 && jobsReading(found.lookup, nodeId).length === 0) return null;
    const dataset = found.builder.dataset(nodeId);
    return dataset && { dataset, timeMs: found.timeMs };
  };

  return {
    jobsAround(key, upstream) {
      const jobs: ExtractedJob[] = [];
      for (const [graphId, nodeId] of nodesUnder(state.graphDatasets, graphs, key)) {
        const found = reader(graphId)!;
        const memo = `${upstream ? 'u' : 'd'}${nodeId}`;
        let around = found.around.get(memo);
        if (!around) {
          around = [];
          for (const ref of upstream ? jobsWriting(found.lookup, nodeId) : jobsReading(found.lookup, nodeId)) {
            const extracted = job(graphId, ref);
            if (extracted) around.push(extracted);
          }
          found.around.set(memo, around);
        }
        jobs.push(...around);
      }
      return jobs;
    },
    dataset(key) {
      for (const [graphId, nodeId] of nodesUnder(state.graphDatasets, graphs, key)) {
        const found = datasetOfNode(graphId, nodeId);
        if (found) return found;
      }
      return null;
    },
    datasets() {
      const all = new Map<string, ExtractedDataset>();
      for (const key of state.graphDatasets.indexedKeys()) {
        for (const [graphId, nodeId] of nodesUnder(state.graphDatasets, graphs, key)) {
          const found = datasetOfNode(graphId, nodeId);
          if (found) {
            all.set(key, found);
            break;
          }
        }
      }
      return all;
    },
    jobsNamed(namespace, name) {
      const found: ExtractedJob[] = [];
      const keep = (extracted: ExtractedJob | null) => {
        if (extracted && extracted.event.job.namespace === namespace) found.push(extracted);
      };
      for (const [graphId, nodeId] of nodesUnder(state.graphJobs, graphs, name)) keep(job(graphId, nodeId));
      if (name.startsWith('transforms:')) {
        const target = datasetKey(namespace, name.slice('transforms:'.length));
        for (const [graphId, nodeId] of nodesUnder(state.graphDatasets, graphs, target)) {
          keep(job(graphId, transformsJobRef(nodeId)));
        }
      }
      return found;
    },
    jobs() {
      const all: ExtractedJob[] = [];
      for (const [index, isJob] of [
        [state.graphJobs, true],
        [state.graphDatasets, false],
      ] as const) {
        for (const key of index.indexedKeys()) {
          for (const [graphId, nodeId] of nodesUnder(index, graphs, key)) {
            const found = job(graphId, isJob ? nodeId : transformsJobRef(nodeId));
            if (found) all.push(found);
          }
        }
      }
      return all;
    },
  };
}
