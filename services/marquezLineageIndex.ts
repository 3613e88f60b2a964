/**
 * The lineage Marquez's `GET /lineage` walks (issue 25 item 4; docs/marquez.md, "Lineage"),
 * numbered and kept for one state of the store, so that a walk is integer work over arrays and an
 * answer a copy of UTF-8 JSON fragments serialized once into one pooled buffer.
 *
 * A `MarquezLineageIndex` belongs to one lineage position of the OpenLineage projection
 * (`state.lineagePosition`, the store position of the last graph, OpenLineage or Marquez event folded:
 * a process's lease renewal every 10 s, a task's progress, leave it, and so the index)
 * and one state of its dataset identities (`DatasetIdentities.unionCount`). It fills itself as walks
 * reach datasets and jobs: each dataset identity class and each job gets a number the first time a
 * walk meets it, with its neighbours (a class's writing and reading jobs, a job's input and output
 * classes, read once through `LineageReader`) and its JSON as UTF-8 fragments (a dataset's node up to
 * its edges, and its `{namespace, name}`; a job's node cut around its data's `inputs` and `outputs`,
 * which depend on what each walk reached). It is
 * derived state, like the traversal indexes (`projections/traversal/`): never written anywhere,
 * dropped as soon as the store moves on (the next walk starts a new one).
 *
 * The JSON kept is capped (`MAX_CACHED_JSON_BYTES`): past it, the fragments of the nodes met later
 * are serialized for each answer instead of kept. The node ids are always kept (with the numbers). The neighbours are always kept (a few numbers a node).
 *
 * A class is shown under one key for the index's life: the first of its keys that is known
 * (`findDatasetKey`: ingested, or held by an extracted graph), whatever key a job lists. Only the
 * origin is shown under the key it was asked by.
 */
import { ValidationError } from '../src/errors.js';
import { splitDatasetKey } from '../src/openlineage/identity.js';
import type { OpenLineageState } from '../projections/openLineage/index.js';
import { answerBuffers, type PooledBytes } from '../projections/traversal/index.js';
import { isDeleted, type MarquezRuntime } from './marquez.js';
import { findDatasetKey, LineageReader } from './marquezLineageReader.js';
import { marquezNodeId } from './marquezShapes.js';

/**
 * Bytes of node JSON (UTF-8) one index keeps (64 MB): the datasets and jobs a
 * depth-20 walk reaches on the 100,000-node benchmark graph (18,000 nodes, about 1.5 KB each) fit.
 */
export const MAX_CACHED_JSON_BYTES = 64 * 2 ** 20;

/** A dataset identity class of the index. */
interface DatasetEntry {
  /** The key it is shown under (see the module comment). */
  shown: string;
  /** Deleted through the Marquez API: walked through, not shown. */
  hidden: boolean;
  /** UTF-8 JSON of its node id, `"dataset:{namespace}:{name}"`. */
  id: Buffer;
  /** Its fragments (`datasetFragments`), once built (null past the cap, or before). */
  fragments: { head: Buffer; ref: Buffer } | null;
  /** Jobs writing it, once read. */
  writers: number[] | null;
  /** Jobs reading it, once read. */
  readers: number[] | null;
}

/** A job of the index. */
interface JobEntry {
  key: string;
  hidden: boolean;
  /** UTF-8 JSON of its node id, `"job:{namespace}:{name}"`. */
  id: Buffer;
  /** Input and output classes (each once, in the order the job lists them), once read. */
  inputs: number[] | null;
  outputs: number[] | null;
  /** Its fragments (`jobFragments`), once built (null past the cap, or before). */
  fragments: { head: Buffer; tail: Buffer } | null;
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

/** `text` as UTF-8 bytes. */
const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');

/** The constant parts of an answer, as UTF-8 bytes. */
const GRAPH_OPEN = utf8('{"graph":[');
const GRAPH_CLOSE = utf8(']}');
const COMMA = utf8(',');
/** Between a job's data's `inputs` and `outputs`. */
const MIDDLE = utf8('],"outputs":[');
/** Between a node's `inEdges` and `outEdges`. */
const EDGES_BETWEEN = utf8('],"outEdges":[');
/** After a node's `outEdges`. */
const NODE_CLOSE = utf8(']}');
const EDGE_ORIGIN = utf8('{"origin":');
const EDGE_DESTINATION = utf8(',"destination":');
const EDGE_CLOSE = utf8('}');

/** Bytes of an edge `{"origin":...,"destination":...}` between two nodes of those id JSONs. */
const edgeLength = (a: Buffer, b: Buffer): number =>
  EDGE_ORIGIN.length + a.length + EDGE_DESTINATION.length + b.length + EDGE_CLOSE.length;

/** Commas between `count` items of a JSON array. */
const separators = (count: number): number => Math.max(0, count - 1);

/**
 * Copies fragments one after the other into a buffer sized for them. Short fragments (ids, the
 * constant parts, most refs) are copied byte by byte, which costs less than a native copy's call.
 */
class FragmentWriter {
  /** Bytes written so far. */
  at = 0;
  constructor(private readonly target: Buffer) {}

  put(fragment: Buffer): void {
    const length = fragment.length;
    if (length < SHORT_FRAGMENT_BYTES) {
      const target = this.target;
      const at = this.at;
      for (let index = 0; index < length; index += 1) target[at + index] = fragment[index]!;
    } else this.target.set(fragment, this.at);
    this.at += length;
  }
}

/** Fragments shorter than this are copied byte by byte (`FragmentWriter`). */
const SHORT_FRAGMENT_BYTES = 64;

/** See the module comment. */
export class MarquezLineageIndex {
  /** The lineage position it was built for (`OpenLineageState.lineagePosition`). */
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
  /** Stamped with the walk direction's `seenGeneration` once a dataset's jobs were looked at. */
  private readonly datasetExpanded: number[] = [];
  private generation = 0;
  private seenGeneration = 0;
  /** Per dataset, stamped with `generation` when the last answer shows it, and its slot in that answer's plan. */
  private readonly datasetShown: number[] = [];
  private readonly datasetSlot: number[] = [];
  private cachedBytes = 0;

  constructor(private readonly runtime: MarquezRuntime) {
    const { state } = runtime.openLineage;
    this.position = state.lineagePosition;
    this.unionCount = state.identities.unionCount;
    this.reader = new LineageReader(state, runtime.openLineage.graphJoin());
  }

  /** True while the index is the one for `state` (same lineage position, same identity classes). */
  isCurrentFor(state: OpenLineageState): boolean {
    return (
      state === this.reader.state &&
      state.lineagePosition === this.position &&
      state.identities.unionCount === this.unionCount
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
        id: utf8(JSON.stringify(marquezNodeId('dataset', namespace, name))),
        fragments: null,
        writers: null,
        readers: null,
      });
      this.datasetReached.push(0);
      this.datasetShown.push(0);
      this.datasetExpanded.push(0);
      this.datasetSlot.push(0);
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
        id: utf8(JSON.stringify(marquezNodeId('job', namespace, name))),
        inputs: null,
        outputs: null,
        fragments: null,
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
   * @throws ValidationError as soon as the walk reaches more than `maxNodes` datasets and jobs (it stops there).
   */
  walk(
    origin: { dataset: number; key: string } | { job: number },
    depth: number,
    maxNodes: number,
  ): MarquezLineageWalk {
    const generation = ++this.generation;
    const reached: MarquezLineageWalk = { datasets: [], jobs: [], origin: null };
    const limit = { depth, maxNodes };
    if ('dataset' in origin) {
      reached.origin = origin;
      this.reachDataset(origin.dataset, generation, reached, limit);
      this.walkJobs(this.jobsAround(origin.dataset, true), true, depth, generation, reached, limit);
      this.walkJobs(this.jobsAround(origin.dataset, false), false, depth, generation, reached, limit);
      return reached;
    }
    this.reachJob(origin.job, generation, reached, limit);
    for (const dataset of this.datasetsAround(origin.job, true)) this.reachDataset(dataset, generation, reached, limit);
    for (const dataset of this.datasetsAround(origin.job, false))
      this.reachDataset(dataset, generation, reached, limit);
    this.walkJobs([origin.job], true, Math.max(depth, 1), generation, reached, limit);
    this.walkJobs([origin.job], false, Math.max(depth, 1), generation, reached, limit);
    return reached;
  }

  /**
   * Walks `hops` job hops from `start` upstream or downstream, adding what it reaches to `reached`.
   * A dataset's jobs are looked at once per direction, however many jobs lead to it (a dataset
   * shared by many jobs was looked at once per job before).
   */
  private walkJobs(
    start: number[],
    upstream: boolean,
    hops: number,
    generation: number,
    reached: MarquezLineageWalk,
    limit: { depth: number; maxNodes: number },
  ): void {
    const seen = ++this.seenGeneration;
    const jobSeen = this.jobSeen;
    const datasetExpanded = this.datasetExpanded;
    for (const job of start) jobSeen[job] = seen;
    let frontier = start;
    for (let hop = 1; hop <= hops && frontier.length > 0; hop += 1) {
      const next: number[] = [];
      for (const job of frontier) {
        this.reachJob(job, generation, reached, limit);
        for (const dataset of this.datasetsAround(job, upstream)) {
          this.reachDataset(dataset, generation, reached, limit);
          if (hop === hops || datasetExpanded[dataset] === seen) continue;
          datasetExpanded[dataset] = seen;
          for (const around of this.jobsAround(dataset, upstream)) {
            if (jobSeen[around] === seen) continue;
            jobSeen[around] = seen;
            next.push(around);
          }
        }
      }
      frontier = next;
    }
  }

  /** Adds a dataset to the walk's once. @throws ValidationError as soon as the walk holds more than `maxNodes`. */
  private reachDataset(
    dataset: number,
    generation: number,
    reached: MarquezLineageWalk,
    limit: { depth: number; maxNodes: number },
  ): void {
    reachOnce(this.datasetReached, reached.datasets, dataset, generation, reached, limit);
  }

  /** Adds a job to the walk's once. @throws ValidationError as soon as the walk holds more than `maxNodes`. */
  private reachJob(
    job: number,
    generation: number,
    reached: MarquezLineageWalk,
    limit: { depth: number; maxNodes: number },
  ): void {
    reachOnce(this.jobReached, reached.jobs, job, generation, reached, limit);
  }

  /**
   * Marquez's `LineageGraph` (`{"graph": [...]}`) of the last walk (`walk` must be the last walk of
   * this index), written as UTF-8 JSON into one pooled buffer (`answerBuffers`) from the UTF-8
   * fragments the index keeps: its datasets, then its jobs, in the order reached, but those deleted
   * through the Marquez API; each job with edges to its inputs and outputs the walk reached, each
   * dataset with the same edges. Byte for byte what `JSON.stringify` writes of the objects. No JSON
   * text is built per answer (only the fragments of nodes past `MAX_CACHED_JSON_BYTES` are encoded).
   * @returns the bytes (call `release` once sent) and the number of nodes in `graph`.
   */
  answer(walk: MarquezLineageWalk): { bytes: PooledBytes; nodeCount: number } {
    const generation = this.generation;
    const origin = walk.origin;
    // The origin is shown under the key it was asked by (its class's other keys elsewhere).
    const originShown = origin && this.datasets[origin.dataset]!.shown !== origin.key ? this.originEntry(origin) : null;
    const entryOf = (dataset: number) =>
      originShown !== null && dataset === origin!.dataset ? originShown : this.datasets[dataset]!;
    // The plan: the datasets shown (slots), each with its fragments and the jobs of its edges; the
    // jobs shown, each with its fragments and the slots of its inputs and outputs.
    const slotIds: Buffer[] = [];
    const slotHeads: Buffer[] = [];
    const slotRefs: Buffer[] = [];
    const slotWriters: number[][] = [];
    const slotReaders: number[][] = [];
    for (const dataset of walk.datasets) {
      const entry = entryOf(dataset);
      if (this.datasetReached[dataset] !== generation || entry.hidden) continue;
      this.datasetShown[dataset] = generation;
      this.datasetSlot[dataset] = slotIds.length;
      const { head, ref } = this.datasetFragments(entry);
      slotIds.push(entry.id);
      slotHeads.push(head);
      slotRefs.push(ref);
      slotWriters.push([]);
      slotReaders.push([]);
    }
    const shownJobs: number[] = [];
    const jobFragments: Array<{ head: Buffer; tail: Buffer }> = [];
    const jobInputs: number[][] = [];
    const jobOutputs: number[][] = [];
    let length = GRAPH_OPEN.length + GRAPH_CLOSE.length;
    for (const job of walk.jobs) {
      const entry = this.jobs[job]!;
      if (entry.hidden) continue;
      const at = shownJobs.length;
      const fragments = this.jobFragments(entry);
      const inputs = this.shownSlots(job, true, generation);
      const outputs = this.shownSlots(job, false, generation);
      length +=
        fragments.head.length + MIDDLE.length + fragments.tail.length + EDGES_BETWEEN.length + NODE_CLOSE.length;
      // Commas between the job's refs and between its edges.
      length += 2 * (separators(inputs.length) + separators(outputs.length));
      // Each edge is written twice: in the job's edges and in the dataset's.
      for (const slot of inputs) {
        length += slotRefs[slot]!.length + 2 * edgeLength(slotIds[slot]!, entry.id);
        slotReaders[slot]!.push(at);
      }
      for (const slot of outputs) {
        length += slotRefs[slot]!.length + 2 * edgeLength(slotIds[slot]!, entry.id);
        slotWriters[slot]!.push(at);
      }
      shownJobs.push(job);
      jobFragments.push(fragments);
      jobInputs.push(inputs);
      jobOutputs.push(outputs);
    }
    for (let slot = 0; slot < slotIds.length; slot += 1)
      length +=
        slotHeads[slot]!.length +
        EDGES_BETWEEN.length +
        NODE_CLOSE.length +
        separators(slotWriters[slot]!.length) +
        separators(slotReaders[slot]!.length);
    const nodeCount = slotIds.length + shownJobs.length;
    length += separators(nodeCount);
    const { buffer, release } = answerBuffers.take(length);
    const out = new FragmentWriter(buffer);
    out.put(GRAPH_OPEN);
    let first = true;
    const edges = (from: Buffer, to: readonly number[], ids: (at: number) => Buffer, fromIsOrigin: boolean) => {
      for (let at = 0; at < to.length; at += 1) {
        if (at > 0) out.put(COMMA);
        out.put(EDGE_ORIGIN);
        out.put(fromIsOrigin ? from : ids(to[at]!));
        out.put(EDGE_DESTINATION);
        out.put(fromIsOrigin ? ids(to[at]!) : from);
        out.put(EDGE_CLOSE);
      }
    };
    const jobId = (at: number) => this.jobs[shownJobs[at]!]!.id;
    const slotId = (slot: number) => slotIds[slot]!;
    for (let slot = 0; slot < slotIds.length; slot += 1) {
      if (!first) out.put(COMMA);
      first = false;
      out.put(slotHeads[slot]!);
      edges(slotIds[slot]!, slotWriters[slot]!, jobId, false);
      out.put(EDGES_BETWEEN);
      edges(slotIds[slot]!, slotReaders[slot]!, jobId, true);
      out.put(NODE_CLOSE);
    }
    for (let at = 0; at < shownJobs.length; at += 1) {
      if (!first) out.put(COMMA);
      first = false;
      const id = jobId(at);
      const { head, tail } = jobFragments[at]!;
      const inputs = jobInputs[at]!;
      const outputs = jobOutputs[at]!;
      out.put(head);
      for (let i = 0; i < inputs.length; i += 1) {
        if (i > 0) out.put(COMMA);
        out.put(slotRefs[inputs[i]!]!);
      }
      out.put(MIDDLE);
      for (let i = 0; i < outputs.length; i += 1) {
        if (i > 0) out.put(COMMA);
        out.put(slotRefs[outputs[i]!]!);
      }
      out.put(tail);
      edges(id, inputs, slotId, false);
      out.put(EDGES_BETWEEN);
      edges(id, outputs, slotId, true);
      out.put(NODE_CLOSE);
    }
    out.put(GRAPH_CLOSE);
    if (out.at !== length) throw new Error(`the Marquez lineage answer is ${out.at} bytes, ${length} expected`);
    return { bytes: { bytes: buffer.subarray(0, length), release }, nodeCount };
  }

  /** The slots (in the last answer's plan) of a job's input (`inputs`) or output classes shown, in its order. */
  private shownSlots(job: number, inputs: boolean, generation: number): number[] {
    const slots: number[] = [];
    for (const dataset of this.datasetsAround(job, inputs))
      if (this.datasetShown[dataset] === generation) slots.push(this.datasetSlot[dataset]!);
    return slots;
  }

  /** An entry, not kept, for the origin's class shown under the key it was asked by. */
  private originEntry(origin: { dataset: number; key: string }): DatasetEntry {
    const { namespace, name } = splitDatasetKey(origin.key);
    return {
      ...this.datasets[origin.dataset]!,
      shown: origin.key,
      hidden: isDeleted(this.runtime, 'dataset', namespace, name),
      id: utf8(JSON.stringify(marquezNodeId('dataset', namespace, name))),
      fragments: null,
    };
  }

  /** Whether `bytes` more of JSON may be kept (and counts them when so). */
  private keep(bytes: number): boolean {
    if (this.cachedBytes + bytes > MAX_CACHED_JSON_BYTES) return false;
    this.cachedBytes += bytes;
    return true;
  }

  /**
   * A dataset's fragments: `head`, its node up to its `inEdges` (`{"id":...,"type":"DATASET","data":
   * {...},"inEdges":[`), and `ref`, its `{namespace, name}` as a job's `inputs` and `outputs` list it.
   */
  private datasetFragments(entry: DatasetEntry): { head: Buffer; ref: Buffer } {
    if (entry.fragments !== null) return entry.fragments;
    const data = this.reader.dataset(entry.shown);
    const fragments = {
      head: utf8(`{"id":${entry.id.toString('utf8')},"type":"DATASET","data":${JSON.stringify(data)},"inEdges":[`),
      ref: utf8(JSON.stringify(data.id)),
    };
    if (this.keep(fragments.head.length + fragments.ref.length)) entry.fragments = fragments;
    return fragments;
  }

  /**
   * A job's fragments: `head`, its node up to its data's `inputs` (`{"id":...,"type":"JOB","data":
   * {...,"inputs":[`), and `tail`, from the end of its data's `outputs` to its `inEdges`
   * (`],...},"inEdges":[`); its data's `inputs` and `outputs` depend on what each walk reached.
   */
  private jobFragments(entry: JobEntry): { head: Buffer; tail: Buffer } {
    if (entry.fragments !== null) return entry.fragments;
    const json = JSON.stringify(this.reader.job(entry.key, [], []));
    const at = json.indexOf(EMPTY_INPUTS_OUTPUTS);
    if (at < 0) throw new Error(`the Marquez data of job ${entry.key} has no adjacent inputs and outputs`);
    const fragments = {
      head: utf8(`{"id":${entry.id.toString('utf8')},"type":"JOB","data":${json.slice(0, at)},"inputs":[`),
      tail: utf8(`],${json.slice(at + EMPTY_INPUTS_OUTPUTS.length)},"inEdges":[`),
    };
    if (this.keep(fragments.head.length + fragments.tail.length)) entry.fragments = fragments;
    return fragments;
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

/**
 * Adds `element` (a dataset's or a job's number) to `list` unless `marks` says this walk (`generation`)
 * reached it already. @throws ValidationError as soon as the walk holds more than `limit.maxNodes`.
 */
function reachOnce(
  marks: number[],
  list: number[],
  element: number,
  generation: number,
  reached: MarquezLineageWalk,
  limit: { depth: number; maxNodes: number },
): void {
  if (marks[element] === generation) return;
  marks[element] = generation;
  list.push(element);
  if (reached.datasets.length + reached.jobs.length > limit.maxNodes) tooLarge(limit.depth, limit.maxNodes);
}
