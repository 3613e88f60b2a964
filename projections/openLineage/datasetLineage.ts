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
 */
import type { IngestedEvent } from '../../src/openlineage/model.js';
import { findDataset } from './datasets.js';
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

/** What the walks reached: dataset class representatives, and job keys in the order reached. */
interface Reached {
  datasets: Set<string>;
  jobs: string[];
  jobSet: Set<string>;
}

/**
 * Walks dataset lineage from `(namespace, name)`.
 * @throws NotFoundError when no event mentioned the dataset under any of its identities.
 */
export function datasetLineage(state: OpenLineageState, query: DatasetLineageQuery): DatasetLineageResult {
  const direction = query.direction ?? 'upstream';
  const depth = query.depth ?? DEFAULT_LINEAGE_DEPTH;
  const { key } = findDataset(state, query.namespace, query.name);
  const reached: Reached = { datasets: new Set(), jobs: [], jobSet: new Set() };
  if (direction !== 'downstream') walk(state, key, true, depth, reached);
  if (direction !== 'upstream') walk(state, key, false, depth, reached);
  return {
    origin: { namespace: query.namespace, name: query.name },
    direction,
    depth,
    events: reached.jobs.flatMap((jobKey) => latestEventsOfJob(state, jobKey).map((record) => record.event)),
    datasets_visited: reached.datasets.size,
    jobs_visited: reached.jobs.length,
  };
}

/** One breadth-first walk of `depth` dataset hops, upstream or downstream, adding to `reached`. */
function walk(state: OpenLineageState, originKey: string, upstream: boolean, depth: number, reached: Reached): void {
  const { graph, identities } = state;
  const visited = new Set<string>([identities.find(originKey)]);
  let frontier = [originKey];
  for (let hop = 0; hop < depth && frontier.length > 0; hop += 1) {
    const next: string[] = [];
    for (const dataset of frontier) {
      for (const member of identities.members(dataset)) {
        const node = datasetNode(member);
        if (!graph.hasNode(node)) continue;
        for (const job of upstream ? graph.inNeighbors(node) : graph.outNeighbors(node)) {
          const jobKey = keyOfNode(job);
          if (!reached.jobSet.has(jobKey)) {
            reached.jobSet.add(jobKey);
            reached.jobs.push(jobKey);
          }
          for (const datasetAround of upstream ? graph.inNeighbors(job) : graph.outNeighbors(job)) {
            const key = keyOfNode(datasetAround);
            const root = identities.find(key);
            if (visited.has(root)) continue;
            visited.add(root);
            next.push(key);
          }
        }
      }
    }
    frontier = next;
  }
  for (const root of visited) reached.datasets.add(root);
}
