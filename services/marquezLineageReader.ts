/**
 * One read of the lineage Marquez's `GET /lineage` and `GET /column-lineage` walk
 * (`marquezLineage.ts`): the OpenLineage projection's ingested dataset -> job -> dataset edges
 * (accumulated over every run) joined with the extracted graphs' jobs
 * (`projections/openLineage/extracted.ts`), datasets joined by identity (symlinks, `kafka://` <->
 * `stream://`), and the Marquez data of each dataset and job. Only reads.
 */
import { datasetKey, splitDatasetKey } from '../src/openlineage/identity.js';
import type { IngestedEvent } from '../src/openlineage/model.js';
import type { GraphJoin, OpenLineageState } from '../projections/openLineage/index.js';
import { datasetNode, jobNode, keyOfNode } from '../projections/openLineage/state.js';
import { tagsInState } from './marquez.js';
import {
  datasetIdsOf,
  toMarquezDataset,
  toMarquezJob,
  toMarquezRun,
  type MarquezDataset,
  type MarquezId,
  type MarquezJob,
  type TimedEvent,
} from './marquezShapes.js';

/** The known key of a dataset identity or of one joined with it (ingested or extracted), else null. */
export function findDatasetKey(state: OpenLineageState, join: GraphJoin, key: string): string | null {
  for (const member of state.identities.has(key) ? state.identities.members(key) : [key]) {
    if (state.datasets.has(member) || join.dataset(member)) return member;
  }
  return null;
}

/** One read of the joined lineage: the neighbours of datasets and jobs, and their Marquez data. */
export class LineageReader {
  private readonly extractedEvents = new Map<string, IngestedEvent[]>();
  private readonly namedEvents = new Map<string, IngestedEvent[]>();
  constructor(
    readonly state: OpenLineageState,
    readonly join: GraphJoin,
  ) {}

  /** The identity class of a dataset key (its keys joined by symlinks and aliases). */
  classOf(key: string): string {
    return this.state.identities.find(key);
  }

  /** Jobs writing (`upstream`) or reading a dataset, under any of its identities. */
  jobsOf(key: string, upstream: boolean): string[] {
    const { graph, identities } = this.state;
    const jobs = new Set<string>();
    for (const member of identities.members(key)) {
      const node = datasetNode(member);
      if (graph.hasNode(node))
        for (const job of upstream ? graph.inNeighbors(node) : graph.outNeighbors(node)) jobs.add(keyOfNode(job));
      for (const extracted of this.join.jobsAround(member, upstream)) {
        jobs.add(extracted.jobKey);
        this.rememberExtracted(extracted.jobKey, extracted.event as unknown as IngestedEvent);
      }
    }
    return [...jobs];
  }

  private rememberExtracted(jobKey: string, event: IngestedEvent): void {
    const known = this.extractedEvents.get(jobKey);
    if (!known) this.extractedEvents.set(jobKey, [event]);
    else if (!known.includes(event)) known.push(event);
  }

  /**
   * The RunEvents of an extracted job: those of every job of that identity in the live graphs (a job
   * named alike in two graphs is one Marquez job), and any other met through `jobsOf`. (Until
   * November 2026, only those the walk had met when some were: the job's inputs and outputs then
   * depended on the graph the walk came through.)
   */
  private extractedOf(jobKey: string): IngestedEvent[] {
    let named = this.namedEvents.get(jobKey);
    if (!named) {
      const { namespace, name } = splitDatasetKey(jobKey);
      named = this.join.jobsNamed(namespace, name).map((extracted) => extracted.event as unknown as IngestedEvent);
      this.namedEvents.set(jobKey, named);
    }
    const met = this.extractedEvents.get(jobKey);
    return met ? [...named, ...met.filter((event) => !named.includes(event))] : named;
  }

  /** Inputs (`upstream`) or outputs of a job: ingested edges over every run, and its extracted events'. */
  datasetsOf(jobKey: string, upstream: boolean): string[] {
    const { graph } = this.state;
    const datasets = new Set<string>();
    const node = jobNode(jobKey);
    if (graph.hasNode(node))
      for (const dataset of upstream ? graph.inNeighbors(node) : graph.outNeighbors(node))
        datasets.add(keyOfNode(dataset));
    for (const event of this.extractedOf(jobKey)) {
      for (const id of datasetIdsOf([{ event, timeMs: 0, eventType: null }], upstream ? 'inputs' : 'outputs'))
        datasets.add(datasetKey(id.namespace, id.name));
    }
    return [...datasets];
  }

  /** A dataset's Marquez data (without facets: `GET /namespaces/{namespace}/datasets/{dataset}` has them). */
  dataset(key: string): MarquezDataset {
    const ingested = this.state.datasets.get(key);
    const extracted = this.extractedDataset(key);
    const source = ingested ? { ...ingested, facets: { ...extracted.facets, ...ingested.facets } } : extracted;
    return { ...toMarquezDataset(source, tagsInState(this.state, 'dataset', key)), facets: {} };
  }

  private extractedDataset(key: string) {
    const { namespace, name } = splitDatasetKey(key);
    const extracted = this.join.dataset(key);
    const facets = (extracted?.dataset.facets ?? {}) as Record<string, unknown>;
    const timeMs = extracted?.timeMs ?? 0;
    return { namespace, name, facets, firstMs: timeMs, lastMs: timeMs };
  }

  /** A job's Marquez data: its latest run only (`GET .../jobs/{job}/runs` has them all), the inputs and outputs walked. */
  job(jobKey: string, inputs: MarquezId[], outputs: MarquezId[]): MarquezJob {
    const { namespace, name } = splitDatasetKey(jobKey);
    const ingested = this.state.jobs.get(jobKey);
    let events: TimedEvent[];
    let facets: Record<string, unknown>;
    if (ingested) {
      const runEvents = ingested.latestRunId === null ? [] : (this.state.byRun.get(ingested.latestRunId) ?? []);
      events = runEvents.filter((record) => record.jobKey === jobKey).sort((a, b) => a.timeMs - b.timeMs);
      facets = ingested.facets;
    } else {
      const event = this.extractedOf(jobKey)[0];
      events = event ? [{ event, timeMs: Date.parse(String(event.eventTime)), eventType: 'COMPLETE' }] : [];
      const job = event?.job as { facets?: Record<string, unknown> } | undefined;
      facets = job?.facets ?? {};
    }
    const runId = events[0] ? String((events[0].event.run as { runId?: unknown } | undefined)?.runId ?? '') : '';
    const runs = runId === '' ? [] : [toMarquezRun(runId, { namespace, name }, events)];
    const lastMs = events.at(-1)?.timeMs ?? 0;
    const firstMs = events[0]?.timeMs ?? lastMs;
    const { tags } = tagsInState(this.state, 'job', jobKey);
    const job = toMarquezJob({ namespace, name, facets, firstMs, lastMs, inputs, outputs, runs, tags });
    // The latest run's state and times; its dataset versions and the other runs are in `/jobs/{job}/runs`.
    const latestRun = job.latestRun && {
      ...job.latestRun,
      inputDatasetVersions: [],
      outputDatasetVersions: [],
      facets: {},
    };
    return { ...job, ...(latestRun ? { latestRun } : {}), latestRuns: [], facets: {} };
  }
}
