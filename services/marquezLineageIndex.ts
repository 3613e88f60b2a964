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

/**
 * Bytes of edges (`JobEdges`, UTF-8) one index keeps (32 MB); past it, an answer writes the edges
 * of the jobs met later from their ids (five copies an edge instead of one).
 */
export const MAX_CACHED_EDGE_BYTES = 32 * 2 ** 20;

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
  /** Its edges (`JobEdges`), once an answer showed it (null past the index's edge cap, or before). */
  edges: JobEdges | null;
}

/**
 * A job's edges as an answer writes them, `{"origin":...,"destination":...}` (UTF-8): one from each
 * of its input classes to the job, then one from the job to each of its output classes, in the
 * order of its `inputs` and `outputs`, each a view of one buffer per job (a view, not a range: a
 * range copied with `Buffer.copy` makes a view per copy, garbage per answer). An answer copies those
 * whose dataset it shows, twice (in the job's `inEdges` or `outEdges` and in the dataset's).
 */
type JobEdges = Buffer[];

/**
 * A walk's limit and where it is: the depth asked for, the most nodes it may reach, the hop it is in
 * (0 while it reaches the origin, and a job's inputs and outputs), and the nodes it had reached when
 * that hop began.
 */
interface WalkLimit {
  depth: number;
  maxNodes: number;
  hop: number;
  fromJob: boolean;
  before: number;
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

/**
 * The plan of an answer (`MarquezLineageIndex.answer`), in arrays an index keeps from answer to
 * answer, grown when an answer needs more and never shrunk: slots (the datasets shown), their edges
 * grouped per slot, and the jobs shown. Only the first entries, as many as the answer being written
 * uses, are meaningful.
 */
class AnswerPlan {
  /** Per slot: the dataset's node id, its fragments up to its edges, its ref. */
  readonly slotIds: Buffer[] = [];
  readonly slotHeads: Buffer[] = [];
  readonly slotRefs: Buffer[] = [];
  /** Per slot: its writers' edges, then (a cursor while planned) its writers' and readers' edges. */
  writerCounts = new Int32Array(0);
  readerCounts = new Int32Array(0);
  /** Per slot: where its edges start in `edgeJobs` and `edgeNumbers`. */
  edgeStarts = new Int32Array(0);
  /** Per edge of a slot: the job's place among the jobs shown, and the edge's number in its `JobEdges`. */
  edgeJobs = new Int32Array(0);
  edgeNumbers = new Int32Array(0);
  /** Per job shown: its number, its fragments, its edges (null: written from the ids). */
  jobs = new Int32Array(0);
  readonly jobFragments: Array<{ head: Buffer; tail: Buffer }> = [];
  readonly jobEdges: Array<JobEdges | null> = [];

  /** Room for `datasets` slots and `jobs` jobs. */
  reserveNodes(datasets: number, jobs: number): void {
    if (this.writerCounts.length < datasets) {
      const size = grownSize(datasets);
      this.writerCounts = new Int32Array(size);
      this.readerCounts = new Int32Array(size);
      this.edgeStarts = new Int32Array(size);
    }
    if (this.jobs.length < jobs) this.jobs = new Int32Array(grownSize(jobs));
    // Filled in order, so these grow by appending (a length set ahead would make their elements a dictionary).
    while (this.jobFragments.length < jobs) {
      this.jobFragments.push(NO_FRAGMENTS);
      this.jobEdges.push(null);
    }
  }

  /** Room for `edges` edges of slots. */
  reserveEdges(edges: number): void {
    if (this.edgeJobs.length >= edges) return;
    const size = grownSize(edges);
    this.edgeJobs = new Int32Array(size);
    this.edgeNumbers = new Int32Array(size);
  }
}

/** A placeholder in `AnswerPlan.jobFragments`. */
const NO_FRAGMENTS = { head: Buffer.alloc(0), tail: Buffer.alloc(0) };

/** A size at least `needed`, with room to grow (so that a few answers each a little larger do not reallocate each time). */
const grownSize = (needed: number): number => Math.max(1024, 2 ** Math.ceil(Math.log2(needed)));

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
  /** Per direction (upstream, downstream), stamped with `generation` once a job is in the walk's frontier. */
  private readonly jobSeen: [number[], number[]] = [[], []];
  /** Per direction (upstream, downstream), stamped with `generation` once a dataset's jobs were looked at. */
  private readonly datasetExpanded: [number[], number[]] = [[], []];
  private generation = 0;
  /** Per dataset, stamped with `generation` when the last answer shows it, and its slot in that answer's plan. */
  private readonly datasetShown: number[] = [];
  private readonly datasetSlot: number[] = [];
  private cachedBytes = 0;
  private cachedEdgeBytes = 0;
  /** The plan of the answer being written (`answer`), reused. */
  private readonly plan = new AnswerPlan();

  /** Bytes of edges this index keeps (`MAX_CACHED_EDGE_BYTES` unless told). */
  private readonly maxCachedEdgeBytes: number;

  /**
   * @param options.maxCachedEdgeBytes bytes of edges (`JobEdges`) to keep (default
   * `MAX_CACHED_EDGE_BYTES`; 0: every edge written from its ids, as past the cap).
   */
  constructor(
    private readonly runtime: MarquezRuntime,
    options: { maxCachedEdgeBytes?: number } = {},
  ) {
    this.maxCachedEdgeBytes = options.maxCachedEdgeBytes ?? MAX_CACHED_EDGE_BYTES;
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
      for (const expanded of this.datasetExpanded) expanded.push(0);
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
        edges: null,
      });
      this.jobReached.push(0);
      for (const seen of this.jobSeen) seen.push(0);
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
   * one hop each way, with all its inputs and outputs. The two directions advance a hop at a time in
   * turn (upstream hop 1, downstream hop 1, upstream hop 2, ...), so that when the walk passes
   * `maxNodes` in hop `h`, every node within `h - 1` hops was reached already: the refusal can say
   * which depth fits.
   * @throws LineageTooLargeError as soon as the walk reaches more than `maxNodes` datasets and jobs
   * (it stops there), with the deepest depth whose walk holds at most `maxNodes`.
   */
  walk(
    origin: { dataset: number; key: string } | { job: number },
    depth: number,
    maxNodes: number,
  ): MarquezLineageWalk {
    const generation = ++this.generation;
    const reached: MarquezLineageWalk = { datasets: [], jobs: [], origin: null };
    const limit: WalkLimit = { depth, maxNodes, hop: 0, fromJob: !('dataset' in origin), before: 0 };
    let upstream: number[];
    let downstream: number[];
    let hops = depth;
    if ('dataset' in origin) {
      reached.origin = origin;
      this.reachDataset(origin.dataset, generation, reached, limit);
      upstream = this.jobsAround(origin.dataset, true);
      downstream = this.jobsAround(origin.dataset, false);
    } else {
      this.reachJob(origin.job, generation, reached, limit);
      for (const dataset of this.datasetsAround(origin.job, true))
        this.reachDataset(dataset, generation, reached, limit);
      for (const dataset of this.datasetsAround(origin.job, false))
        this.reachDataset(dataset, generation, reached, limit);
      upstream = [origin.job];
      downstream = [origin.job];
      hops = Math.max(depth, 1);
    }
    const [upJobSeen, downJobSeen] = this.jobSeen;
    for (const job of upstream) upJobSeen![job] = generation;
    for (const job of downstream) downJobSeen![job] = generation;
    for (let hop = 1; hop <= hops && (upstream.length > 0 || downstream.length > 0); hop += 1) {
      limit.hop = hop;
      limit.before = reached.datasets.length + reached.jobs.length;
      upstream = this.walkHop(upstream, true, hop === hops, generation, reached, limit);
      downstream = this.walkHop(downstream, false, hop === hops, generation, reached, limit);
    }
    return reached;
  }

  /**
   * One job hop upstream or downstream: reaches the jobs of `frontier` and their input (`upstream`)
   * or output datasets, and returns the next hop's jobs (none after the `last` hop). A dataset's
   * jobs are looked at once per direction and walk, however many jobs lead to it.
   */
  private walkHop(
    frontier: number[],
    upstream: boolean,
    last: boolean,
    generation: number,
    reached: MarquezLineageWalk,
    limit: WalkLimit,
  ): number[] {
    const direction = upstream ? 0 : 1;
    const jobSeen = this.jobSeen[direction]!;
    const datasetExpanded = this.datasetExpanded[direction]!;
    const next: number[] = [];
    for (const job of frontier) {
      this.reachJob(job, generation, reached, limit);
      for (const dataset of this.datasetsAround(job, upstream)) {
        this.reachDataset(dataset, generation, reached, limit);
        if (last || datasetExpanded[dataset] === generation) continue;
        datasetExpanded[dataset] = generation;
        for (const around of this.jobsAround(dataset, upstream)) {
          if (jobSeen[around] === generation) continue;
          jobSeen[around] = generation;
          next.push(around);
        }
      }
    }
    return next;
  }

  /** Adds a dataset to the walk's once. @throws ValidationError as soon as the walk holds more than `maxNodes`. */
  private reachDataset(dataset: number, generation: number, reached: MarquezLineageWalk, limit: WalkLimit): void {
    reachOnce(this.datasetReached, reached.datasets, dataset, generation, reached, limit);
  }

  /** Adds a job to the walk's once. @throws ValidationError as soon as the walk holds more than `maxNodes`. */
  private reachJob(job: number, generation: number, reached: MarquezLineageWalk, limit: WalkLimit): void {
    reachOnce(this.jobReached, reached.jobs, job, generation, reached, limit);
  }

  /**
   * Marquez's `LineageGraph` (`{"graph": [...]}`) of the last walk (`walk` must be the last walk of
   * this index), written as UTF-8 JSON into one pooled buffer (`answerBuffers`) from the UTF-8
   * fragments the index keeps: its datasets, then its jobs, in the order reached, but those deleted
   * through the Marquez API; each job with edges to its inputs and outputs the walk reached, each
   * dataset with the same edges. Byte for byte what `JSON.stringify` writes of the objects. No JSON
   * text is built per answer (only the fragments of nodes past `MAX_CACHED_JSON_BYTES` are encoded);
   * each edge is one copy of the bytes its job keeps (`JobEdges`), written twice (in the job's
   * edges and in the dataset's); the plan is kept in arrays reused from answer to answer
   * (`AnswerPlan`), so an answer leaves little garbage.
   * @returns the bytes (call `release` once sent) and the number of nodes in `graph`.
   */
  answer(walk: MarquezLineageWalk): { bytes: PooledBytes; nodeCount: number } {
    const generation = this.generation;
    const origin = walk.origin;
    // The origin is shown under the key it was asked by (its class's other keys elsewhere); its
    // edges are then written from its ids, not copied from its jobs' (`originSlot`).
    const originShown = origin && this.datasets[origin.dataset]!.shown !== origin.key ? this.originEntry(origin) : null;
    let originSlot = -1;
    const plan = this.plan;
    plan.reserveNodes(walk.datasets.length, walk.jobs.length);
    // The datasets shown, each a slot; then the jobs shown, counting each slot's edges.
    let slots = 0;
    let length = GRAPH_OPEN.length + GRAPH_CLOSE.length;
    for (const dataset of walk.datasets) {
      const isOrigin = originShown !== null && dataset === origin!.dataset;
      const entry = isOrigin ? originShown : this.datasets[dataset]!;
      if (this.datasetReached[dataset] !== generation || entry.hidden) continue;
      if (isOrigin) originSlot = slots;
      this.datasetShown[dataset] = generation;
      this.datasetSlot[dataset] = slots;
      const { head, ref } = this.datasetFragments(entry);
      plan.slotIds[slots] = entry.id;
      plan.slotHeads[slots] = head;
      plan.slotRefs[slots] = ref;
      plan.writerCounts[slots] = 0;
      plan.readerCounts[slots] = 0;
      length += head.length + EDGES_BETWEEN.length + NODE_CLOSE.length;
      slots += 1;
    }
    const { slotIds, slotRefs, writerCounts, readerCounts } = plan;
    let shown = 0;
    let edgeCount = 0;
    for (const job of walk.jobs) {
      const entry = this.jobs[job]!;
      if (entry.hidden) continue;
      const fragments = this.jobFragments(entry);
      const inputs = this.datasetsAround(job, true);
      const outputs = this.datasetsAround(job, false);
      plan.jobs[shown] = job;
      plan.jobFragments[shown] = fragments;
      plan.jobEdges[shown] = this.jobEdges(entry, inputs, outputs);
      shown += 1;
      length +=
        fragments.head.length + MIDDLE.length + fragments.tail.length + EDGES_BETWEEN.length + NODE_CLOSE.length;
      // Each edge is written twice: in the job's edges and in the dataset's; each ref once. Commas
      // between the job's refs and between its edges, as many of each.
      // The job's edges as `JobEdges` numbers them: its inputs, then its outputs.
      let shownInputs = 0;
      let shownOutputs = 0;
      for (let index = 0; index < inputs.length + outputs.length; index += 1) {
        const isOutput = index >= inputs.length;
        const dataset = isOutput ? outputs[index - inputs.length]! : inputs[index]!;
        if (this.datasetShown[dataset] !== generation) continue;
        const slot = this.datasetSlot[dataset]!;
        length += slotRefs[slot]!.length + 2 * edgeLength(slotIds[slot]!, entry.id);
        if (isOutput) {
          writerCounts[slot]! += 1;
          shownOutputs += 1;
        } else {
          readerCounts[slot]! += 1;
          shownInputs += 1;
        }
      }
      length += 2 * (separators(shownInputs) + separators(shownOutputs));
      edgeCount += shownInputs + shownOutputs;
    }
    // Each slot's edges, in the order of the jobs: its writers, then its readers, from `edgeStarts[slot]`.
    plan.reserveEdges(edgeCount);
    const { edgeStarts, edgeJobs, edgeNumbers } = plan;
    let start = 0;
    for (let slot = 0; slot < slots; slot += 1) {
      edgeStarts[slot] = start;
      start += writerCounts[slot]! + readerCounts[slot]!;
      length += separators(writerCounts[slot]!) + separators(readerCounts[slot]!);
      // From here on, the counts are the slot's cursors: writers from its start, readers after them.
      readerCounts[slot] = writerCounts[slot]!;
      writerCounts[slot] = 0;
    }
    for (let at = 0; at < shown; at += 1) {
      const job = plan.jobs[at]!;
      const inputs = this.datasetsAround(job, true);
      const outputs = this.datasetsAround(job, false);
      for (let index = 0; index < inputs.length + outputs.length; index += 1) {
        const isOutput = index >= inputs.length;
        const dataset = isOutput ? outputs[index - inputs.length]! : inputs[index]!;
        if (this.datasetShown[dataset] !== generation) continue;
        const slot = this.datasetSlot[dataset]!;
        const cursors = isOutput ? writerCounts : readerCounts;
        const cursor = edgeStarts[slot]! + cursors[slot]!;
        cursors[slot]! += 1;
        edgeJobs[cursor] = at;
        edgeNumbers[cursor] = index;
      }
    }
    // Now `writerCounts[slot]` is the slot's writers, `readerCounts[slot]` its writers and readers.
    const nodeCount = slots + shown;
    length += separators(nodeCount);
    const { buffer, release } = answerBuffers.take(length);
    const out = new FragmentWriter(buffer);
    /** Edge `edge` of shown job `at` (`JobEdges` numbering: inputs, then outputs), to or from slot `slot`. */
    const writeEdge = (at: number, edge: number, slot: number) => {
      const edges = plan.jobEdges[at]!;
      if (edges !== null && slot !== originSlot) {
        out.put(edges[edge]!);
        return;
      }
      const job = plan.jobs[at]!;
      const jobId = this.jobs[job]!.id;
      const input = edge < this.datasetsAround(job, true).length;
      out.put(EDGE_ORIGIN);
      out.put(input ? slotIds[slot]! : jobId);
      out.put(EDGE_DESTINATION);
      out.put(input ? jobId : slotIds[slot]!);
      out.put(EDGE_CLOSE);
    };
    out.put(GRAPH_OPEN);
    for (let slot = 0; slot < slots; slot += 1) {
      if (slot > 0) out.put(COMMA);
      out.put(plan.slotHeads[slot]!);
      const first = edgeStarts[slot]!;
      const writersEnd = first + writerCounts[slot]!;
      const readersEnd = first + readerCounts[slot]!;
      for (let at = first; at < writersEnd; at += 1) {
        if (at > first) out.put(COMMA);
        writeEdge(edgeJobs[at]!, edgeNumbers[at]!, slot);
      }
      out.put(EDGES_BETWEEN);
      for (let at = writersEnd; at < readersEnd; at += 1) {
        if (at > writersEnd) out.put(COMMA);
        writeEdge(edgeJobs[at]!, edgeNumbers[at]!, slot);
      }
      out.put(NODE_CLOSE);
    }
    for (let at = 0; at < shown; at += 1) {
      if (at > 0 || slots > 0) out.put(COMMA);
      const job = plan.jobs[at]!;
      const { head, tail } = plan.jobFragments[at]!;
      const inputs = this.datasetsAround(job, true);
      const outputs = this.datasetsAround(job, false);
      out.put(head);
      this.writeRefs(out, inputs, generation);
      out.put(MIDDLE);
      this.writeRefs(out, outputs, generation);
      out.put(tail);
      let written = 0;
      for (let index = 0; index < inputs.length; index += 1) {
        const dataset = inputs[index]!;
        if (this.datasetShown[dataset] !== generation) continue;
        if (written++ > 0) out.put(COMMA);
        writeEdge(at, index, this.datasetSlot[dataset]!);
      }
      out.put(EDGES_BETWEEN);
      written = 0;
      for (let index = 0; index < outputs.length; index += 1) {
        const dataset = outputs[index]!;
        if (this.datasetShown[dataset] !== generation) continue;
        if (written++ > 0) out.put(COMMA);
        writeEdge(at, inputs.length + index, this.datasetSlot[dataset]!);
      }
      out.put(NODE_CLOSE);
    }
    out.put(GRAPH_CLOSE);
    if (out.at !== length) throw new Error(`the Marquez lineage answer is ${out.at} bytes, ${length} expected`);
    return { bytes: { bytes: buffer.subarray(0, length), release }, nodeCount };
  }

  /** Writes the refs (`{namespace, name}`) of the datasets of `list` the last answer shows, comma-separated, in its order. */
  private writeRefs(out: FragmentWriter, list: readonly number[], generation: number): void {
    let written = 0;
    for (let at = 0; at < list.length; at += 1) {
      const dataset = list[at]!;
      if (this.datasetShown[dataset] !== generation) continue;
      if (written++ > 0) out.put(COMMA);
      out.put(this.plan.slotRefs[this.datasetSlot[dataset]!]!);
    }
  }

  /**
   * A job's edges (`JobEdges`), written once, or null when they would pass `maxCachedEdgeBytes`
   * (the answer then writes them from the ids).
   */
  private jobEdges(entry: JobEntry, inputs: readonly number[], outputs: readonly number[]): JobEdges | null {
    if (entry.edges !== null) return entry.edges;
    let bytes = 0;
    for (const dataset of inputs) bytes += edgeLength(this.datasets[dataset]!.id, entry.id);
    for (const dataset of outputs) bytes += edgeLength(this.datasets[dataset]!.id, entry.id);
    if (this.cachedEdgeBytes + bytes > this.maxCachedEdgeBytes) return null;
    this.cachedEdgeBytes += bytes;
    const all = Buffer.allocUnsafe(bytes);
    const out = new FragmentWriter(all);
    const edges: JobEdges = [];
    const add = (origin: Buffer, destination: Buffer) => {
      const start = out.at;
      out.put(EDGE_ORIGIN);
      out.put(origin);
      out.put(EDGE_DESTINATION);
      out.put(destination);
      out.put(EDGE_CLOSE);
      edges.push(all.subarray(start, out.at));
    };
    for (const dataset of inputs) add(this.datasets[dataset]!.id, entry.id);
    for (const dataset of outputs) add(entry.id, this.datasets[dataset]!.id);
    entry.edges = edges;
    return edges;
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

/**
 * A lineage walk refused because it reaches more than `maxNodes` datasets and jobs within `depth`
 * (HTTP 400, `VALIDATION_FAILED`, on `querystring.depth`). The message names the deepest depth that
 * fits, and how many datasets and jobs it holds, or says that none does (a job whose own inputs and
 * outputs are already too many).
 */
export class LineageTooLargeError extends ValidationError {
  /**
   * @param depth the depth asked for.
   * @param maxNodes the most datasets and jobs one answer may hold.
   * @param fits the deepest depth whose walk holds at most `maxNodes`, with its node count; null when none does.
   */
  constructor(
    readonly depth: number,
    readonly maxNodes: number,
    readonly fits: { depth: number; nodes: number } | null,
  ) {
    const limit = maxNodes.toLocaleString('en-US');
    super(
      `the lineage within depth ${depth} holds more than ${limit} datasets and jobs, the most one answer holds; ` +
        (fits === null
          ? 'even the smallest depth does (the job with its inputs and outputs)'
          : `depth ${fits.depth} holds ${fits.nodes.toLocaleString('en-US')}: ask for depth=${fits.depth} or less`),
      [
        {
          path: 'querystring.depth',
          message:
            fits === null
              ? `no depth holds at most ${limit} nodes`
              : `at most ${fits.depth} (more than ${limit} nodes within ${depth})`,
        },
      ],
    );
  }
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
 * reached it already. @throws LineageTooLargeError as soon as the walk holds more than `limit.maxNodes`.
 */
function reachOnce(
  marks: number[],
  list: number[],
  element: number,
  generation: number,
  reached: MarquezLineageWalk,
  limit: WalkLimit,
): void {
  if (marks[element] === generation) return;
  marks[element] = generation;
  list.push(element);
  if (reached.datasets.length + reached.jobs.length > limit.maxNodes)
    throw new LineageTooLargeError(limit.depth, limit.maxNodes, fittingDepth(limit));
}

/**
 * The deepest depth whose walk held at most `maxNodes` when the walk passed it in hop `limit.hop`:
 * `hop - 1` (the nodes within it, `limit.before`), but for a job, whose depths 0 and 1 are the same
 * walk, nothing before hop 2; null when there is none.
 */
function fittingDepth(limit: WalkLimit): { depth: number; nodes: number } | null {
  if (limit.hop < (limit.fromJob ? 2 : 1)) return null;
  return { depth: limit.hop - 1, nodes: limit.before };
}
