/**
 * Marquez's dataset and job versions from our history (issue 25 item 2; docs/marquez.md,
 * "Versions"). A version is one history entry of the element:
 *
 * - for a dataset or job of an extracted graph, each change of its graph node (added, changed,
 *   removed) from the provenance index (`services/provenance.ts`): the version id is a UUIDv5 of
 *   (graph id, node id, revision), `createdAt` the time it was recorded, and the custom facet
 *   `lineage_svc_history` says what made it (revision, change, cause, actor, correlation id, reason);
 * - for an ingested dataset, each run that wrote it (its RunEvents listing it as an output), with
 *   that output's facets and the run as `createdByRun`; for an ingested job, each distinct
 *   definition (facets, inputs, outputs) its runs had, at the first run that had it.
 *
 * Newest first, paged with `limit`/`offset`, with `totalCount`. Only reads (the provenance index is
 * derived state: indexing a graph's stream on first use appends nothing).
 */
import { NotFoundError } from '../src/errors.js';
import { datasetKey } from '../src/openlineage/identity.js';
import { LINEAGE_SVC_PRODUCER } from '../src/openlineage/model.js';
import type { EventRecord } from '../projections/openLineage/index.js';
import { jobNode, marquezKey } from '../projections/openLineage/state.js';
import { findCatalogDataset, jobSource, type MarquezRuntime, type Page } from './marquez.js';
import {
  datasetType,
  fieldsOf,
  jobVersionOf,
  runDatasetVersion,
  toMarquezDataset,
  toMarquezRun,
  versionId,
  type MarquezRun,
} from './marquezShapes.js';
import { nodeProvenance, type ProvenanceChange } from './provenance.js';

/** The `_schemaURL` of the `lineage_svc_history` facet. */
const HISTORY_FACET_SCHEMA = `${LINEAGE_SVC_PRODUCER}/docs/marquez.md#versions`;

/** One version, newest first in the answers; `ms` orders them. */
interface Version {
  ms: number;
  value: Record<string, unknown>;
}

/** The history facet of one change of a graph node. */
function historyFacet(graphId: string, nodeId: string, change: ProvenanceChange): Record<string, unknown> {
  return {
    _producer: LINEAGE_SVC_PRODUCER,
    _schemaURL: HISTORY_FACET_SCHEMA,
    graph_id: graphId,
    node_id: nodeId,
    revision: change.revision,
    change: change.change,
    cause: change.cause,
    actor: change.actor,
    correlation_id: change.correlation_id,
    reason: change.reason,
  };
}

/** What each write of the Marquez API is called in the history facet. */
const WRITE_CHANGES = {
  MarquezTagAdded: 'tag_added',
  MarquezTagRemoved: 'tag_removed',
  MarquezElementDeleted: 'deleted',
} as const;

/**
 * The writes of the Marquez API on a dataset or job (`services/marquezWrites.ts`), one version each:
 * `base` with the version's id and time, then `shown` (what the version shows of the element now),
 * its facets with the history facet saying what made it: the change (`tag_added`, `tag_removed`), the
 * tag and field, the store position, and the events' cause, actor and correlation id.
 */
function marquezWriteVersions(
  runtime: MarquezRuntime,
  element: 'dataset' | 'job',
  id: { namespace: string; name: string },
  base: Record<string, unknown>,
  shown: { facets: Record<string, unknown> } & Record<string, unknown>,
): Version[] {
  const key = marquezKey(element, datasetKey(id.namespace, id.name));
  return (runtime.openLineage.state.marquez.history.get(key) ?? []).map((write) => {
    const version = versionId('marquez-write', key, String(write.position));
    const facet = {
      _producer: LINEAGE_SVC_PRODUCER,
      _schemaURL: HISTORY_FACET_SCHEMA,
      position: write.position,
      change: WRITE_CHANGES[write.type],
      tag: write.tag,
      field: write.field,
      cause: write.cause,
      actor: write.actor,
      correlation_id: write.correlation_id,
    };
    const value = {
      ...base,
      id: { ...id, version },
      version,
      createdAt: write.recorded_at,
      ...shown,
      facets: { ...shown.facets, lineage_svc_history: facet },
    };
    return { ms: Date.parse(write.recorded_at), value };
  });
}

/** Marquez's lifecycle state of a change: CREATE, ALTER or DROP. */
const LIFECYCLE = { added: 'CREATE', changed: 'ALTER', removed: 'DROP' } as const;

/** The changes of the graph nodes of identity `key` (any graph), as `[graphId, nodeId, change]`. */
async function nodeChanges(
  runtime: MarquezRuntime,
  holders: Iterable<[string, string]>,
): Promise<Array<[string, string, ProvenanceChange]>> {
  const changes: Array<[string, string, ProvenanceChange]> = [];
  for (const [graphId, nodeId] of holders) {
    if (!runtime.graphs.get(graphId)) continue;
    try {
      const provenance = await nodeProvenance(runtime, graphId, nodeId, 500);
      for (const change of provenance.changes) changes.push([graphId, nodeId, change]);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  return changes;
}

/** The page of versions, newest first. */
function answer(versions: Version[], page: Page): { versions: Array<Record<string, unknown>>; totalCount: number } {
  versions.sort((a, b) => b.ms - a.ms);
  return {
    versions: versions.slice(page.offset, page.offset + page.limit).map((entry) => entry.value),
    totalCount: versions.length,
  };
}

/**
 * `GET /namespaces/{namespace}/datasets/{dataset}/versions`: the dataset's history entries and the
 * runs that wrote it, newest first. @throws NotFoundError for an unknown dataset.
 */
export async function marquezDatasetVersions(
  runtime: MarquezRuntime,
  namespace: string,
  name: string,
  page: Page,
): Promise<{ versions: Array<Record<string, unknown>>; totalCount: number }> {
  const source = findCatalogDataset(runtime, namespace, name);
  const current = toMarquezDataset(source);
  const { state } = runtime.openLineage;
  const key = datasetKey(namespace, name);
  const members = state.identities.has(key) ? state.identities.members(key) : [key];
  const base = {
    type: datasetType(namespace),
    name,
    physicalName: name,
    namespace,
    sourceName: current.sourceName,
    tags: current.tags,
    description: current.description ?? '',
  };
  const versions: Version[] = [];
  for (const member of members) {
    for (const [graphId, nodeId, change] of await nodeChanges(runtime, state.graphDatasets.nodesUnder(member))) {
      const version = versionId('graph-node', graphId, nodeId, change.revision);
      versions.push({
        ms: Date.parse(change.recorded_at),
        value: {
          ...base,
          id: { namespace, name, version },
          version,
          createdAt: change.recorded_at,
          fields: current.fields,
          lifecycleState: LIFECYCLE[change.change],
          facets: { ...current.facets, lineage_svc_history: historyFacet(graphId, nodeId, change) },
        },
      });
    }
  }
  versions.push(...ingestedDatasetVersions(runtime, members, base, { namespace, name }));
  versions.push(
    ...marquezWriteVersions(runtime, 'dataset', { namespace, name }, base, {
      fields: current.fields,
      lifecycleState: 'ALTER',
      facets: current.facets,
    }),
  );
  return answer(versions, page);
}

/** One version per ingested run that wrote the dataset (under any of its identities). */
function ingestedDatasetVersions(
  runtime: MarquezRuntime,
  members: readonly string[],
  base: Record<string, unknown>,
  id: { namespace: string; name: string },
): Version[] {
  const { state } = runtime.openLineage;
  const memberSet = new Set(members);
  const versions: Version[] = [];
  const seenRuns = new Set<string>();
  for (const member of members) {
    const node = `d\u0000${member}`;
    if (!state.graph.hasNode(node)) continue;
    for (const job of state.graph.inNeighbors(node)) {
      for (const record of state.byJob.get(job.slice(2)) ?? []) {
        if (record.runId === null || seenRuns.has(`${record.runId}\u0000${record.seq}`)) continue;
        const output = outputNamed(record, memberSet);
        if (!output) continue;
        seenRuns.add(`${record.runId}\u0000${record.seq}`);
        const facets = (output.facets ?? {}) as Record<string, unknown>;
        const version = runDatasetVersion(record.runId, id.namespace, id.name);
        versions.push({
          ms: record.timeMs,
          value: {
            ...base,
            id: { ...id, version },
            version,
            createdAt: new Date(record.timeMs).toISOString(),
            fields: fieldsOf(facets),
            facets,
            createdByRun: runOf(runtime, record),
          },
        });
      }
    }
  }
  return versions;
}

/** The output of a RunEvent whose identity is one of `members`. */
function outputNamed(record: EventRecord, members: ReadonlySet<string>): { facets?: unknown } | undefined {
  const outputs = Array.isArray(record.event.outputs) ? record.event.outputs : [];
  return outputs.find((output) => {
    const entry = output as { namespace?: unknown; name?: unknown };
    return (
      typeof entry.namespace === 'string' &&
      typeof entry.name === 'string' &&
      members.has(datasetKey(entry.namespace, entry.name))
    );
  }) as { facets?: unknown } | undefined;
}

/** The Marquez run of a record's run. */
function runOf(runtime: MarquezRuntime, record: EventRecord): MarquezRun {
  const { state } = runtime.openLineage;
  const events = (state.byRun.get(record.runId!) ?? [])
    .filter((other) => other.jobKey === record.jobKey)
    .sort((a, b) => a.timeMs - b.timeMs);
  const job = state.jobs.get(record.jobKey!)!;
  return toMarquezRun(record.runId!, job, events);
}

/**
 * `GET /namespaces/{namespace}/jobs/{job}/versions`: the job node's history entries (extracted jobs)
 * and the distinct definitions of its runs (ingested jobs), newest first. @throws NotFoundError.
 */
export async function marquezJobVersions(
  runtime: MarquezRuntime,
  namespace: string,
  name: string,
  page: Page,
): Promise<{ versions: Array<Record<string, unknown>>; totalCount: number }> {
  const source = jobSource(runtime, namespace, name);
  const base = { name, namespace, inputs: source.inputs, outputs: source.outputs, facets: source.facets };
  const versions: Version[] = [];
  const holders: Array<[string, string]> = runtime.openLineage
    .graphJoin()
    .jobsNamed(namespace, name)
    .map((extracted) => [
      extracted.graphId,
      extracted.ref.startsWith('transforms:') ? extracted.ref.slice('transforms:'.length) : extracted.ref,
    ]);
  for (const [graphId, nodeId, change] of await nodeChanges(runtime, holders)) {
    const version = versionId('graph-node', graphId, nodeId, change.revision);
    versions.push({
      ms: Date.parse(change.recorded_at),
      value: {
        ...base,
        id: { namespace, name, version },
        version,
        createdAt: change.recorded_at,
        facets: { ...source.facets, lineage_svc_history: historyFacet(graphId, nodeId, change) },
        ...(source.runs[0] ? { latestRun: source.runs[0] } : {}),
      },
    });
  }
  const { state } = runtime.openLineage;
  const key = datasetKey(namespace, name);
  if (state.graph.hasNode(jobNode(key))) {
    const seen = new Set<string>();
    for (const run of [...source.runs].reverse()) {
      const events = (state.byRun.get(run.id) ?? [])
        .filter((record) => record.jobKey === key)
        .sort((a, b) => a.timeMs - b.timeMs);
      const version = jobVersionOf({ namespace, name }, events);
      if (seen.has(version)) continue;
      seen.add(version);
      versions.push({
        ms: Date.parse(run.createdAt),
        value: { ...base, id: { namespace, name, version }, version, createdAt: run.createdAt, latestRun: run },
      });
    }
  }
  versions.push(
    ...marquezWriteVersions(runtime, 'job', { namespace, name }, base, {
      facets: source.facets,
      ...(source.runs[0] ? { latestRun: source.runs[0] } : {}),
    }),
  );
  return answer(versions, page);
}
