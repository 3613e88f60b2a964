/**
 * Dataset lineage of the OpenLineage projection (docs/openlineage.md, "Queries"; docs/api.md,
 * "OpenLineage"; `GET /lineage/datasets/lineage`).
 *
 * `depth` counts dataset hops. From the origin, one hop goes through every job that writes the
 * dataset (upstream) or reads it (downstream) to that job's inputs (upstream) or outputs
 * (downstream); `both` is the union of the upstream and downstream walks (no siblings). Edges
 * accumulate over every run of a job. `events` holds the whole events of every job reached: all
 * events of the job's latest run (or its latest JobEvent for a run-less job), ordered by eventTime.
 * Identities joined into one dataset (symlinks, `kafka://` aliases) are walked and counted as one.
 *
 * The jobs of the extracted graphs are walked with the ingested ones (`extracted.ts`): a job of a live
 * graph stands for the one COMPLETE RunEvent `graphToRunEvents` gives for it, built when the walk
 * reaches it, so lineage crosses from a producer's events into our topics and jobs with nothing stored.
 * A job both ingested events and a graph name counts once; its events are the ingested ones, then the graph's.
 */
import { datasetKey } from '../../src/openlineage/identity.js';
import type { IngestedEvent } from '../../src/openlineage/model.js';
import { findDataset } from './datasets.js';
import { graphJoin, type GraphJoin } from './extracted.js';
import { latestEventsOfJob } from './jobs.js';
import { datasetNode, keyOfNode, type OpenLineageState } from './state.js';

/** Lineage directions of `datasetLineage`. */
export const LINEAGE_DIRECTIONS = ['upstream', 'downstream', 'both'] as const;
/** `upstream`, `downstream` or `both`. */
export type LineageDirection = (typeof LINEAGE_DIRECTIONS)[number];
/** Dataset hops walked when the query names none. */
export const DEFAULT_LINEAGE_DEPTH = 5;
/** Most dataset hops the API lets a query walk. */
export const MAX_LINEAGE_DEPTH = 50;

/** What `datasetLineage` walks from. */
export interface DatasetLineageQuery {
  namespace: string;
  name: string;
  /** Default `upstream`. */
  direction?: LineageDirection | undefined;
  /** Dataset hops, default `DEFAULT_LINEAGE_DEPTH` (the route allows 1 to `MAX_LINEAGE_DEPTH`). */
  depth?: number | undefined;
}

/** Result of `datasetLineage`. */
export interface DatasetLineageResult {
  origin: { namespace: string; name: string };
  direction: LineageDirection;
  /** Dataset hops walked. */
  depth: number;
  /** Whole events of the jobs reached (see the module comment), job by job in the order reached. */
  events: IngestedEvent[];
  /** Distinct datasets reached, the origin included (datasets joined by identity count once). */
  datasets_visited: number;
  /** Distinct jobs reached. */
  jobs_visited: number;
}

/** What the walks reached: dataset class representatives, job keys in the order reached, and the graph events of each. */
interface Reached {
  datasets: Set<string>;
  jobs: string[];
  jobSet: Set<string>;
  /** RunEvents of the extracted graphs' jobs, by job key, then runId (one per distinct job definition). */
  graphEvents: Map<string, Map<string, IngestedEvent>>;
}

/**
 * Walks dataset lineage from `(namespace, name)`, over the ingested events and (through `join`) the
 * jobs of the extracted graphs.
 * @throws NotFoundError when neither an event nor an extracted graph's job mentions the dataset under any of its identities.
 */
export function datasetLineage(
  state: OpenLineageState,
  query: DatasetLineageQuery,
  join: GraphJoin = graphJoin(state),
): DatasetLineageResult {
  const direction = query.direction ?? 'upstream';
  const depth = query.depth ?? DEFAULT_LINEAGE_DEPTH;
  const { key } = findDataset(state, query.namespace, query.name, join);
  const reached: Reached = { datasets: new Set(), jobs: [], jobSet: new Set(), graphEvents: new Map() };
  if (direction !== 'downstream') walk(state, join, key, true, depth, reached);
  if (direction !== 'upstream') walk(state, join, key, false, depth, reached);
  return {
    origin: { namespace: query.namespace, name: query.name },
    direction,
    depth,
    events: reached.jobs.flatMap((jobKey) => [
      ...latestEventsOfJob(state, jobKey).map((record) => record.event),
      ...(reached.graphEvents.get(jobKey)?.values() ?? []),
    ]),
    datasets_visited: reached.datasets.size,
    jobs_visited: reached.jobs.length,
  };
}

/** One breadth-first walk of `depth` dataset hops, upstream or downstream, adding to `reached`. */
function walk(
  state: OpenLineageState,
  join: GraphJoin,
  originKey: string,
  upstream: boolean,
  depth: number,
  reached: Reached,
): void {
  const { graph, identities } = state;
  const visited = new Set<string>([identities.find(originKey)]);
  let frontier = [originKey];
  let next: string[] = [];
  const reachJob = (jobKey: string) => {
    if (reached.jobSet.has(jobKey)) return;
    reached.jobSet.add(jobKey);
    reached.jobs.push(jobKey);
  };
  const reachDataset = (key: string) => {
    const root = identities.find(key);
    if (visited.has(root)) return;
    visited.add(root);
    next.push(key);
  };
  for (let hop = 0; hop < depth && frontier.length > 0; hop += 1) {
    next = [];
    for (const dataset of frontier) {
      for (const member of identities.members(dataset)) {
        const node = datasetNode(member);
        if (graph.hasNode(node)) {
          for (const job of upstream ? graph.inNeighbors(node) : graph.outNeighbors(node)) {
            reachJob(keyOfNode(job));
            for (const around of upstream ? graph.inNeighbors(job) : graph.outNeighbors(job))
              reachDataset(keyOfNode(around));
          }
        }
        for (const { jobKey, event } of join.jobsAround(member, upstream)) {
          reachJob(jobKey);
          let events = reached.graphEvents.get(jobKey);
          if (!events) reached.graphEvents.set(jobKey, (events = new Map()));
          events.set(event.run.runId, event as unknown as IngestedEvent);
          for (const around of (upstream ? event.inputs : event.outputs) ?? [])
            reachDataset(datasetKey(around.namespace, around.name));
        }
      }
    }
    frontier = next;
  }
  for (const root of visited) reached.datasets.add(root);
}
