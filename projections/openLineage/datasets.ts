/**
 * Dataset queries of the OpenLineage projection (docs/openlineage.md, "Queries" and "Identity";
 * docs/api.md, "OpenLineage"): `GET /lineage/datasets` (`listDatasets`) and
 * `GET /lineage/datasets/detail` (`datasetDetail`). Pure reads of the state and of the extracted
 * graphs (`extracted.ts`): a dataset that ingested events name is answered from them, one that only a
 * job of an extracted graph reads or writes is answered from the graph (its facets as the graph's
 * events list them, `first_seen` and `last_seen` the graph's last change).
 */
import { NotFoundError } from '../../src/errors.js';
import { datasetKey, splitDatasetKey } from '../../src/openlineage/identity.js';
import { graphJoin, type GraphJoin } from './extracted.js';
import { byNamespaceThenName, datasetNode, iso, keyOfNode, type DatasetState, type OpenLineageState } from './state.js';

/** A dataset as listed. */
export interface DatasetSummary {
  namespace: string;
  name: string;
  /** Facets merged over the events that mentioned it (the latest eventTime wins per facet). */
  facets: Record<string, unknown>;
  /** ISO eventTime of the first and the last event that mentioned it. */
  first_seen: string;
  last_seen: string;
}

/** A dataset with its identities and the jobs around it. */
export interface DatasetDetail extends DatasetSummary {
  /** Every `(namespace, name)` joined with this dataset (symlinks, Kafka aliases), itself included. */
  identities: Array<{ namespace: string; name: string }>;
  /** Jobs that wrote it (under any of its identities), over every run; then the extracted graphs' jobs that write it. */
  produced_by: Array<{ namespace: string; name: string }>;
  /** Jobs that read it (under any of its identities), over every run; then the extracted graphs' jobs that read it. */
  consumed_by: Array<{ namespace: string; name: string }>;
}

/**
 * Datasets, optionally of one namespace (exact), sorted by namespace then name: those ingested events
 * name, and those the jobs of the extracted graphs read or write (`join`; once per identity).
 */
export function listDatasets(
  state: OpenLineageState,
  query: { namespace?: string | undefined } = {},
  join: GraphJoin = graphJoin(state),
): DatasetSummary[] {
  const keys =
    query.namespace !== undefined
      ? [...(state.datasetsByNamespace.get(query.namespace) ?? [])]
      : [...state.datasets.keys()];
  const datasets = keys.map((key) => state.datasets.get(key)!);
  for (const [key, extracted] of join.datasets()) {
    if (state.datasets.has(key)) continue;
    if (query.namespace === undefined || extracted.dataset.namespace === query.namespace)
      datasets.push(extractedState(extracted));
  }
  return datasets.sort(byNamespaceThenName).map(summaryOf);
}

/** A dataset of an extracted graph as a `DatasetState` (seen at the graph's last change). */
function extractedState(extracted: {
  dataset: { namespace: string; name: string; facets?: unknown };
  timeMs: number;
}): DatasetState {
  const { dataset, timeMs } = extracted;
  const facets = (dataset.facets ?? {}) as Record<string, unknown>;
  return { namespace: dataset.namespace, name: dataset.name, facets, firstMs: timeMs, lastMs: timeMs };
}

/**
 * A dataset known under `(namespace, name)` or any identity joined with it: its key and state. The
 * key is the one of `(namespace, name)` when an event named it so, else the first joined identity an
 * event named, else (through `join`) the first identity a job of an extracted graph reads or writes.
 * @throws NotFoundError when neither an event nor an extracted graph's job mentions it under any of its identities.
 */
export function findDataset(
  state: OpenLineageState,
  namespace: string,
  name: string,
  join: GraphJoin = graphJoin(state),
): { key: string; dataset: DatasetState } {
  const key = datasetKey(namespace, name);
  const own = state.datasets.get(key);
  if (own) return { key, dataset: own };
  const members = state.identities.has(key) ? state.identities.members(key) : [key];
  for (const member of members) {
    const dataset = state.datasets.get(member);
    if (dataset) return { key: member, dataset };
  }
  for (const member of [key, ...members]) {
    const extracted = join.dataset(member);
    if (extracted) return { key: member, dataset: extractedState(extracted) };
  }
  throw new NotFoundError(`dataset "${name}" in namespace "${namespace}" is not known`);
}

/**
 * One dataset, with its identities and the jobs that write and read it under any of them.
 * @throws NotFoundError when unknown (see `findDataset`).
 */
export function datasetDetail(
  state: OpenLineageState,
  query: { namespace: string; name: string },
  join: GraphJoin = graphJoin(state),
): DatasetDetail {
  const { key, dataset } = findDataset(state, query.namespace, query.name, join);
  const produced = new Map<string, { namespace: string; name: string }>();
  const consumed = new Map<string, { namespace: string; name: string }>();
  for (const member of state.identities.members(key)) {
    const node = datasetNode(member);
    if (!state.graph.hasNode(node)) continue;
    for (const job of state.graph.inNeighbors(node)) produced.set(keyOfNode(job), refOfNode(job));
    for (const job of state.graph.outNeighbors(node)) consumed.set(keyOfNode(job), refOfNode(job));
  }
  for (const member of state.identities.members(key)) {
    for (const [into, upstream] of [
      [produced, true],
      [consumed, false],
    ] as const) {
      for (const { jobKey, event } of join.jobsAround(member, upstream))
        if (!into.has(jobKey)) into.set(jobKey, { namespace: event.job.namespace, name: event.job.name });
    }
  }
  return {
    ...summaryOf(dataset),
    identities: state.identities.members(key).map(splitDatasetKey),
    produced_by: [...produced.values()],
    consumed_by: [...consumed.values()],
  };
}

/** A dataset's summary (facets shared with the state, not copied). */
export function summaryOf(dataset: DatasetState): DatasetSummary {
  return {
    namespace: dataset.namespace,
    name: dataset.name,
    facets: dataset.facets,
    first_seen: iso(dataset.firstMs),
    last_seen: iso(dataset.lastMs),
  };
}

/** `{namespace, name}` of a lineage graph node. */
function refOfNode(node: string): { namespace: string; name: string } {
  const { namespace, name } = splitDatasetKey(keyOfNode(node));
  return { namespace, name };
}
