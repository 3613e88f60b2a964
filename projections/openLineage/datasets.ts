/**
 * Dataset queries of the OpenLineage projection (docs/openlineage.md, "Queries" and "Identity";
 * docs/api.md, "OpenLineage"): `GET /lineage/datasets` (`listDatasets`) and
 * `GET /lineage/datasets/detail` (`datasetDetail`). Pure reads of the state.
 */
import { NotFoundError } from '../../src/errors.js';
import { datasetKey, splitDatasetKey } from '../../src/openlineage/identity.js';
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
  /** Jobs that wrote it (under any of its identities), over every run. */
  produced_by: Array<{ namespace: string; name: string }>;
  /** Jobs that read it (under any of its identities), over every run. */
  consumed_by: Array<{ namespace: string; name: string }>;
}

/** Datasets, optionally of one namespace (exact), sorted by namespace then name. */
export function listDatasets(
  state: OpenLineageState,
  query: { namespace?: string | undefined } = {},
): DatasetSummary[] {
  const keys =
    query.namespace !== undefined
      ? [...(state.datasetsByNamespace.get(query.namespace) ?? [])]
      : [...state.datasets.keys()];
  return keys
    .map((key) => state.datasets.get(key)!)
    .sort(byNamespaceThenName)
    .map(summaryOf);
}

/**
 * A dataset known under `(namespace, name)` or any identity joined with it: its key (the one of
 * `(namespace, name)` when an event named it so, else the first joined identity an event named) and state.
 * @throws NotFoundError when no event mentioned it under any of its identities.
 */
export function findDataset(
  state: OpenLineageState,
  namespace: string,
  name: string,
): { key: string; dataset: DatasetState } {
  const key = datasetKey(namespace, name);
  const own = state.datasets.get(key);
  if (own) return { key, dataset: own };
  if (state.identities.has(key)) {
    for (const member of state.identities.members(key)) {
      const dataset = state.datasets.get(member);
      if (dataset) return { key: member, dataset };
    }
  }
  throw new NotFoundError(`dataset "${name}" in namespace "${namespace}" is not known`);
}

/**
 * One dataset, with its identities and the jobs that write and read it under any of them.
 * @throws NotFoundError when unknown (see `findDataset`).
 */
export function datasetDetail(state: OpenLineageState, query: { namespace: string; name: string }): DatasetDetail {
  const { key, dataset } = findDataset(state, query.namespace, query.name);
  const produced = new Map<string, { namespace: string; name: string }>();
  const consumed = new Map<string, { namespace: string; name: string }>();
  for (const member of state.identities.members(key)) {
    const node = datasetNode(member);
    if (!state.graph.hasNode(node)) continue;
    for (const job of state.graph.inNeighbors(node)) produced.set(job, refOfNode(job));
    for (const job of state.graph.outNeighbors(node)) consumed.set(job, refOfNode(job));
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
