/**
 * The lineage Marquez's `GET /lineage` walks (issue 25 item 4; docs/marquez.md, "Lineage"),
 * numbered and kept for one state of the store, so that a walk is integer work over arrays and an
 * answer a join of JSON strings serialized once.
 *
 * A `MarquezLineageIndex` belongs to one position of the OpenLineage projection (`state.position`,
 * the store position of the last event folded, of any type: ingested events and graph events alike)
 * and one state of its dataset identities (`DatasetIdentities.unionCount`). It fills itself as walks
 * reach datasets and jobs: each dataset identity class and each job gets a number the first time a
 * walk meets it, with its neighbours (a class's writing and reading jobs, a job's input and output
 * classes, read once through `LineageReader`) and its JSON (a dataset's Marquez data; a job's,
 * serialized around its `inputs` and `outputs`, which depend on what each walk reached). It is
 * derived state, like the traversal indexes (`projections/traversal/`): never written anywhere,
 * dropped as soon as the store moves on (the next walk starts a new one).
 *
 * The JSON kept is capped (`MAX_CACHED_JSON_CHARACTERS`): past it, the JSON of the nodes met later is
 * serialized for each answer instead of kept. The neighbours are always kept (a few numbers a node).
 *
 * A class is shown under one key for the index's life: the first of its keys that is known
 * (`findDatasetKey`: ingested, or held by an extracted graph), whatever key a job lists. Only the
 * origin is shown under the key it was asked by.
 */
import { ValidationError } from '../src/errors.js';
import { splitDatasetKey } from '../src/openlineage/identity.js';
import type { OpenLineageState } from '../projections/openLineage/index.js';
import { isDeleted, type MarquezRuntime } from './marquez.js';
import { findDatasetKey, LineageReader } from './marquezLineageReader.js';
import { marquezNodeId } from './marquezShapes.js';

/**
 * Characters of node JSON one index keeps (about one byte each: 64 MB): the datasets and jobs a
 * depth-20 walk reaches on the 100,000-node benchmark graph (18,000 nodes, about 1.5 KB each) fit.
 */
export const MAX_CACHED_JSON_CHARACTERS = 64 * 2 ** 20;

/** A dataset identity class of the index. */
interface DatasetEntry {
  /** The key it is shown under (see the module comment). */
  shown: string;
  /** Deleted through the Marquez API: walked through, not shown. */
  hidden: boolean;
  /** JSON of its node id, `"dataset:{namespace}:{name}"`. */
  idJson: string;
  /** JSON of its `{namespace, name}` (a job's `inputs` and `outputs` list it so), once serialized. */
  refJson: string | null;
  /** JSON of its Marquez data, once serialized (null past the cap, or before). */
  dataJson: string | null;
  /** Jobs writing it, once read. */
  writers: number[] | null;
  /** Jobs reading it, once read. */
  readers: number[] | null;
}

/** A job of the index. */
interface JobEntry {
  key: string;
  hidden: boolean;
  idJson: string;
  /** Input and output classes (each once, in the order the job lists them), once read. */
  inputs: number[] | null;
  outputs: number[] | null;
  /** JSON of its Marquez data cut around `inputs` and `outputs`: head + inputs + middle + outputs + tail. */
  data: { head: string; middle: string; tail: string } | null;
}

/** What one walk reached, in the order reached. */
export interface MarquezLineageWalk {
  datasets: number[];
  jobs: number[];
  /** The origin's class, when the origin is a dataset, and the key it was asked by. */
  origin: { dataset: number; key: string } | null;
}

/** `"inputs":[],"outputs":[]` as `JSON.stringify` writes a job's empty inputs and outputs (keys adjacent). */
const EMPTY_INPUTS_OUTPUTS = ',"inputs":[],"outputs":[],';

/** See the module comment. */
export class MarquezLineageIndex {
  /** The store position it was built for (`OpenLineageState.position`). */
  readonly position: number;
  /** `DatasetIdentities.unionCount` it was built for. */
  readonly unionCount: number;
  private readonly reader: LineageReader;
  private readonly datasets: DatasetEntry[] = [];
  private readonly jobs: JobEntry[] = [];
  private readonly datasetNumbers = new Map<string, number>();
  private readonly jobNumbers = new Map<string, number>();
  /** Generation stamps: `datasetReached[c] === generation` when the current walk reached class `c`. */
  private readonly datasetReached: number[] = [];
  private readonly jobReached: number[] = [];
  private readonly jobSeen: number[] = [];
  private generation = 0;
  private seenGeneration = 0;
  private cachedCharacters = 0;

  constructor(private readonly runtime: MarquezRuntime) {
    const { state } = runtime.openLineage;
    this.position = state.position;
    this.unionCount = state.identities.unionCount;
    this.reader = new LineageReader(state, runtime.openLineage.graphJoin());
  }

  /** True while the index is the one for `state` (same position, same identity classes). */
  isCurrentFor(state: OpenLineageState): boolean {
    return (
      state === this.reader.state && state.position === this.position && state.identities.unionCount === this.unionCount
    );
  }

  /** The number of the identity class of dataset `key`. */
  datasetNumber(key: string): number {
    const cls = this.reader.classOf(key);
    let number = this.datasetNumbers.get(cls);
    if (number === undefined) {
      const shown = findDatasetKey(this.reader.state, this.reader.join, key) ?? key;
      const { namespace, name } = splitDatasetKey(shown);
      number = this.datasets.length;
      this.datasets.push({
        shown,
        hidden: isDeleted(this.runtime, 'dataset', namespace, name),
        idJson: JSON.stringify(marquezNodeId('dataset', namespace, name)),
        refJson: null,
        dataJson: null,
        writers: null,
        readers: null,
      });
      this.datasetReached.push(0);
      this.datasetNumbers.set(cls, number);
    }
    return number;
  }

  /** The number of job `jobKey` (`datasetKey(namespace, name)`). */
  jobNumber(jobKey: string): number {
    let number = this.jobNumbers.get(jobKey);
    if (number === undefined) {
      const { namespace, name } = splitDatasetKey(jobKey);
      number = this.jobs.length;
      this.jobs.push({
        key: jobKey,
        hidden: isDeleted(this.runtime, 'job', namespace, name),
        idJson: JSON.stringify(marquezNodeId('job', namespace, name)),
        inputs: null,
        outputs: null,
        data: null,
      });
      this.jobReached.push(0);
      this.jobSeen.push(0);
      this.jobNumbers.set(jobKey, number);
    }
    return number;
  }

  /** Jobs writing (`upstream`) or reading class `dataset`, under any of its keys. */
  jobsAround(dataset: number, upstream: boolean): number[] {
    const entry = this.datasets[dataset]!;
    let jobs = upstream ? entry.writers : entry.readers;
    if (jobs === null) {
      jobs = this.reader.jobsOf(entry.shown, upstream).map((jobKey) => this.jobNumber(jobKey));
      if (upstream) entry.writers = jobs;
      else entry.readers = jobs;
    }
    return jobs;
  }

  /** The input (`upstream`) or output classes of a job, each once, in the order it lists them. */
  private datasetsAround(job: number, upstream: boolean): number[] {
    const entry = this.jobs[job]!;
    let datasets = upstream ? entry.inputs : entry.outputs;
    if (datasets === null) {
      datasets = [...new Set(this.reader.datasetsOf(entry.key, upstream).map((key) => this.datasetNumber(key)))];
      if (upstream) entry.inputs = datasets;
      else entry.outputs = datasets;
    }
    return datasets;
  }

  /**
   * Walks the lineage of a dataset class or a job as `marquezLineage` documents it: from a dataset,
   * `depth` job hops upstream from its writers and downstream from its readers; from a job, at least
   * one hop each way, with all its inputs and outputs.
   * @throws ValidationError when the walk reaches more than `maxNodes` datasets and jobs.
   */
  walk(
    origin: { dataset: number; key: string } | { job: number },
    depth: number,
    maxNodes: number,
  ): MarquezLineageWalk {
    const generation = ++this.generation;
    const datasets: number[] = [];
    const jobs: number[] = [];
    const reachDataset = (dataset: number) => {
      if (this.datasetReached[dataset] === generation) return;
      this.datasetReached[dataset] = generation;
      datasets.push(dataset);
    };
    const reachJob = (job: number) => {
      if (this.jobReached[job] === generation) return;
      this.jobReached[job] = generation;
      jobs.push(job);
    };
    const walkJobs = (start: number[], upstream: boolean, hops: number) => {
      const seen = ++this.seenGeneration;
      for (const job of start) this.jobSeen[job] = seen;
      let frontier = start;
      for (let hop = 1; hop <= hops && frontier.length > 0; hop += 1) {
        const next: number[] = [];
        for (const job of frontier) {
          if (jobs.length + datasets.length > maxNodes) tooLarge(depth, maxNodes);
          reachJob(job);
          for (const dataset of this.datasetsAround(job, upstream)) {
            reachDataset(dataset);
            if (hop === hops) continue;
            for (const around of this.jobsAround(dataset, upstream)) {
              if (this.jobSeen[around] === seen) continue;
              this.jobSeen[around] = seen;
              next.push(around);
            }
          }
        }
        frontier = next;
      }
    };
    if ('dataset' in origin) {
      reachDataset(origin.dataset);
      walkJobs(this.jobsAround(origin.dataset, true), true, depth);
      walkJobs(this.jobsAround(origin.dataset, false), false, depth);
      return { datasets, jobs, origin };
    }
    reachJob(origin.job);
    for (const dataset of this.datasetsAround(origin.job, true)) reachDataset(dataset);
    for (const dataset of this.datasetsAround(origin.job, false)) reachDataset(dataset);
    walkJobs([origin.job], true, Math.max(depth, 1));
    walkJobs([origin.job], false, Math.max(depth, 1));
    return { datasets, jobs, origin: null };
  }

  /**
   * The JSON of Marquez's `LineageGraph` (`{"graph": [...]}`) of the last walk (`walk` must be the
   * last walk of this index): its datasets, then its jobs, in the order reached, but those deleted
   * through the Marquez API; each job with edges to its inputs and outputs the walk reached, each
   * dataset with the same edges. Byte for byte what `JSON.stringify` writes of the objects.
   */
  answerJson(walk: MarquezLineageWalk): { json: string; nodeCount: number } {
    const generation = this.generation;
    const origin = walk.origin;
    // The origin is shown under the key it was asked by (its class's other keys elsewhere).
    const originShown = origin && this.datasets[origin.dataset]!.shown !== origin.key ? this.originEntry(origin) : null;
    const entryOf = (dataset: number) =>
      originShown !== null && dataset === origin!.dataset ? originShown : this.datasets[dataset]!;
    const shownHere = (dataset: number) => this.datasetReached[dataset] === generation && !entryOf(dataset).hidden;
    const slots = new Map<number, { inEdges: string[]; outEdges: string[] }>();
    for (const dataset of walk.datasets) if (shownHere(dataset)) slots.set(dataset, { inEdges: [], outEdges: [] });
    const parts: string[] = [];
    const jobParts: string[] = [];
    // A job's inputs (edges dataset -> job) or outputs (job -> dataset) among the datasets shown.
    const around = (job: number, jobId: string, inputs: boolean) => {
      const refs: string[] = [];
      const edges: string[] = [];
      for (const dataset of this.datasetsAround(job, inputs)) {
        const slot = slots.get(dataset);
        if (!slot) continue;
        const shown = entryOf(dataset);
        refs.push(this.refJson(shown));
        const edge = inputs
          ? `{"origin":${shown.idJson},"destination":${jobId}}`
          : `{"origin":${jobId},"destination":${shown.idJson}}`;
        edges.push(edge);
        (inputs ? slot.outEdges : slot.inEdges).push(edge);
      }
      return { refs, edges };
    };
    for (const job of walk.jobs) {
      const entry = this.jobs[job]!;
      if (entry.hidden) continue;
      const { refs: inRefs, edges: inEdges } = around(job, entry.idJson, true);
      const { refs: outRefs, edges: outEdges } = around(job, entry.idJson, false);
      const data = this.jobData(entry);
      const json = `${data.head}${inRefs.join(',')}${data.middle}${outRefs.join(',')}${data.tail}`;
      jobParts.push(
        `{"id":${entry.idJson},"type":"JOB","data":${json},"inEdges":[${inEdges.join(',')}],"outEdges":[${outEdges.join(',')}]}`,
      );
    }
    for (const [dataset, slot] of slots) {
      const entry = entryOf(dataset);
      parts.push(
        `{"id":${entry.idJson},"type":"DATASET","data":${this.dataJson(entry)},"inEdges":[${slot.inEdges.join(',')}],"outEdges":[${slot.outEdges.join(',')}]}`,
      );
    }
    for (const part of jobParts) parts.push(part);
    return { json: `{"graph":[${parts.join(',')}]}`, nodeCount: parts.length };
  }

  /** An entry, not kept, for the origin's class shown under the key it was asked by. */
  private originEntry(origin: { dataset: number; key: string }): DatasetEntry {
    const { namespace, name } = splitDatasetKey(origin.key);
    return {
      ...this.datasets[origin.dataset]!,
      shown: origin.key,
      hidden: isDeleted(this.runtime, 'dataset', namespace, name),
      idJson: JSON.stringify(marquezNodeId('dataset', namespace, name)),
      refJson: null,
      dataJson: null,
    };
  }

  /** Whether `characters` more of JSON may be kept (and counts them when so). */
  private keep(characters: number): boolean {
    if (this.cachedCharacters + characters > MAX_CACHED_JSON_CHARACTERS) return false;
    this.cachedCharacters += characters;
    return true;
  }

  private dataJson(entry: DatasetEntry): string {
    if (entry.dataJson !== null) return entry.dataJson;
    const data = this.reader.dataset(entry.shown);
    const json = JSON.stringify(data);
    const refJson = JSON.stringify(data.id);
    if (this.keep(json.length + refJson.length)) {
      entry.dataJson = json;
      entry.refJson = refJson;
    }
    return json;
  }

  private refJson(entry: DatasetEntry): string {
    if (entry.refJson !== null) return entry.refJson;
    const refJson = JSON.stringify(this.reader.dataset(entry.shown).id);
    if (this.keep(refJson.length)) entry.refJson = refJson;
    return refJson;
  }

  private jobData(entry: JobEntry): { head: string; middle: string; tail: string } {
    if (entry.data !== null) return entry.data;
    const json = JSON.stringify(this.reader.job(entry.key, [], []));
    const at = json.indexOf(EMPTY_INPUTS_OUTPUTS);
    if (at < 0) throw new Error(`the Marquez data of job ${entry.key} has no adjacent inputs and outputs`);
    const data = {
      head: `${json.slice(0, at)},"inputs":[`,
      middle: '],"outputs":[',
      tail: `],${json.slice(at + EMPTY_INPUTS_OUTPUTS.length)}`,
    };
    if (this.keep(json.length)) entry.data = data;
    return data;
  }
}

/** @throws ValidationError: the lineage within `depth` holds more than `maxNodes` nodes. */
function tooLarge(depth: number, maxNodes: number): never {
  throw new ValidationError(
    `the lineage within depth ${depth} holds more than ${maxNodes} datasets and jobs; ask for a smaller depth`,
    [{ path: 'querystring.depth', message: `more than ${maxNodes} nodes within this depth` }],
  );
}

/** The index of each OpenLineage state (live, or folded for an `as_of`), while it is current. */
const indexes = new WeakMap<OpenLineageState, MarquezLineageIndex>();

/** The Marquez lineage index for the runtime's OpenLineage state now (kept while the state does not move). */
export function marquezLineageIndex(runtime: MarquezRuntime): MarquezLineageIndex {
  const { state } = runtime.openLineage;
  const known = indexes.get(state);
  if (known?.isCurrentFor(state)) return known;
  const fresh = new MarquezLineageIndex(runtime);
  indexes.set(state, fresh);
  return fresh;
}
