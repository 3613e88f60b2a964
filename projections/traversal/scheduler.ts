/**
 * The scheduler of traversal indexes: which graphs of a projection have one, which are being built,
 * when each graph last changed (`createTraversalIndexes`), and the background work that builds them
 * between requests (`startTraversalIndexing`, started and stopped by `openRuntime` in
 * `infra/runtime.ts`). The graph projection tells the indexes of every change (`changed`) and
 * answers its readers through them (`GraphProjection.traversalIndex`, `prepareTraversalIndexes`).
 *
 * Policy (docs/api.md, "Traversal indexes"):
 * - a graph is indexed only once someone asked for its index ("wanted"), and only after it has not
 *   changed for the quiet period;
 * - a change makes its index stale at once: it is dropped, and so is a build in progress;
 * - `prepare` does the work in slices (build steps), so that a server can run it between requests;
 *   `get` with `build` builds at once (for callers that can wait).
 */
import type { GraphState } from '../graphProjection.js';
import { TraversalIndex } from './traversalIndex.js';

/** What is kept per graph. */
interface IndexEntry {
  /** When the graph last changed, by the clock given. */
  changedAt: number;
  /** The index of the graph's current revision, once built. */
  index: TraversalIndex | undefined;
  /** Whether anyone has asked for the index (only those are prepared). */
  wanted: boolean;
  /** A build in progress, for the revision it started at. */
  building: { revision: number; steps: Generator<undefined, TraversalIndex, void> } | undefined;
}

/** The traversal indexes of one projection. */
export interface TraversalIndexes {
  /** Records that graph `graphId` changed now: its index is stale. */
  changed(graphId: string): void;
  /**
   * The index of `state`'s current revision: the one built, or with `build` one built now when the
   * graph has been quiet; undefined otherwise. Marks the graph as wanted.
   */
  get(state: GraphState, build: boolean): TraversalIndex | undefined;
  /**
   * Works for about `milliseconds` (at least one step) on the wanted, quiet graphs among `states`.
   * Answers the builds completed and whether nothing is left to do for now.
   */
  prepare(states: ReadonlyMap<string, GraphState>, milliseconds: number): { built: number; done: boolean };
  /** Forgets every index and build. */
  reset(): void;
}

/**
 * Creates the indexes of a projection.
 * @param options.quietMilliseconds how long a graph must be unchanged before it is indexed.
 * @param options.now clock for the quiet period, in milliseconds (default `Date.now`).
 */
export function createTraversalIndexes(options: {
  quietMilliseconds: number;
  now?: (() => number) | undefined;
}): TraversalIndexes {
  const quiet = options.quietMilliseconds;
  const now = options.now ?? Date.now;
  const entries = new Map<string, IndexEntry>();
  const entryFor = (graphId: string): IndexEntry => {
    let entry = entries.get(graphId);
    if (!entry) {
      entry = { changedAt: Number.NEGATIVE_INFINITY, index: undefined, wanted: false, building: undefined };
      entries.set(graphId, entry);
    }
    return entry;
  };
  const isCurrent = (entry: IndexEntry, state: GraphState) =>
    entry.index !== undefined && entry.index.revision === state.revision;

  return {
    changed(graphId) {
      const entry = entryFor(graphId);
      entry.changedAt = now();
      // The stale index's fragments go back to the shared budget (a traversal still holding it
      // serializes its objects instead).
      entry.index?.releaseFragments();
      entry.index = undefined;
      entry.building = undefined;
    },
    get(state, build) {
      if (state.deleted) return undefined;
      const entry = entryFor(state.graphId);
      entry.wanted = true;
      if (isCurrent(entry, state)) return entry.index;
      if (!build || now() - entry.changedAt < quiet) return undefined;
      entry.building = undefined;
      entry.index?.releaseFragments();
      entry.index = TraversalIndex.build(state.graph, state.revision);
      return entry.index;
    },
    prepare(states, milliseconds) {
      const deadline = performance.now() + milliseconds;
      let built = 0;
      let done = true;
      // Every call makes progress (a step of a build), however short its time.
      let worked = false;
      for (const [graphId, entry] of entries) {
        const state = states.get(graphId);
        if (!entry.wanted || !state || state.deleted || isCurrent(entry, state)) continue;
        if (worked && performance.now() >= deadline) return { built, done: false };
        if (now() - entry.changedAt < quiet) continue;
        if (entry.building?.revision !== state.revision) {
          entry.building = {
            revision: state.revision,
            steps: TraversalIndex.buildInSteps(state.graph, state.revision),
          };
        }
        worked = true;
        for (;;) {
          const step = entry.building.steps.next();
          if (step.done) {
            entry.index = step.value;
            entry.building = undefined;
            built += 1;
            break;
          }
          if (performance.now() >= deadline) {
            done = false;
            break;
          }
        }
      }
      return { built, done };
    },
    reset() {
      for (const entry of entries.values()) entry.index?.releaseFragments();
      entries.clear();
    },
  };
}

/** How often the background work looks for traversal indexes to build, in milliseconds. */
export const TRAVERSAL_INDEX_SWEEP_MS = 1_000;

/** Longest slice of work on traversal indexes between two turns of the event loop, in milliseconds. */
export const TRAVERSAL_INDEX_SLICE_MS = 5;

/** What `startTraversalIndexing` works with. */
export interface TraversalIndexingOptions {
  /**
   * Works on the indexes for about the given milliseconds; answers the builds completed and whether
   * nothing is left to do for now (`GraphProjection.prepareTraversalIndexes`).
   */
  prepare(milliseconds: number): { built: number; done: boolean };
  /** Told how many builds a slice completed, when it completed any (e.g. to log it). */
  onBuilt?: ((graphs: number) => void) | undefined;
  /** Milliseconds between sweeps (default `TRAVERSAL_INDEX_SWEEP_MS`). */
  sweepMilliseconds?: number | undefined;
  /** Milliseconds of work per slice (default `TRAVERSAL_INDEX_SLICE_MS`). */
  sliceMilliseconds?: number | undefined;
}

/**
 * Starts the background work on traversal indexes: every sweep, and while work is left, slices of
 * a few milliseconds run one per turn of the event loop (`setImmediate`), so that requests are
 * served between them and no request waits for an index. The timer does not keep the process alive.
 * Answers the function that stops it (idempotent).
 */
export function startTraversalIndexing(options: TraversalIndexingOptions): () => void {
  const slice = options.sliceMilliseconds ?? TRAVERSAL_INDEX_SLICE_MS;
  let preparing: NodeJS.Immediate | undefined;
  let stopped = false;
  const prepareSlice = () => {
    preparing = undefined;
    if (stopped) return;
    const { built, done } = options.prepare(slice);
    if (built > 0) options.onBuilt?.(built);
    if (!done) preparing = setImmediate(prepareSlice);
  };
  const sweeping = setInterval(() => {
    if (preparing === undefined) prepareSlice();
  }, options.sweepMilliseconds ?? TRAVERSAL_INDEX_SWEEP_MS).unref();
  return () => {
    stopped = true;
    clearInterval(sweeping);
    if (preparing !== undefined) clearImmediate(preparing);
    preparing = undefined;
  };
}
