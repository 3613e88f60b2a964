/**
 * `as_of` on Marquez's `GET /lineage` and `GET /column-lineage` (our extension; issue 25 item 2;
 * docs/marquez.md, "Lineage as of a point"): the lineage as it was at a point of the store's history.
 *
 * The point is parsed as every `as_of` of our API is (`parseAsOf`, `projections/graphProjection.ts`):
 * an integer or an ISO 8601 time. Marquez's graph spans every stream (ingested OpenLineage events and
 * every extracted graph), so an integer here is a global store position (the `position` of our
 * history entries, `GET /api/v1/history`), not one graph stream's revision; a time keeps the events
 * recorded at or before it. The answer comes from a fresh graph projection and OpenLineage projection
 * folded from the store's events up to that point, the same folds the live projections run, so the
 * walk (`marquezLineage.ts`) is the one the live answer uses.
 *
 * The fold reads the store from its start, so the first answer at a point costs a read of the store
 * up to it. The folded projection is then kept per point (`MAX_KEPT_POINTS`, the most recently asked),
 * derived state never written anywhere: a point the fold stopped short of the store's end (an event
 * after it was read) is fixed forever, as the store only grows at its end; a point at or past the
 * store's end (a time in the future, a position not reached yet) is kept while the store's head has
 * not moved. Requests at one point while it is folded share the fold. The projections of a 100k-node
 * graph weigh about 100 MB: few points are kept. Only reads.
 */
import { decodeTrustedEvent } from '../src/events.js';
import { createGraphProjection, parseAsOf } from '../projections/graphProjection.js';
import { createOpenLineageProjection } from '../projections/openLineage/index.js';
import type { MarquezRuntime } from './marquez.js';

/** Events read from the store per page while folding. */
const PAGE = 1_000;

/** Points whose folded projection is kept, per store (the most recently asked). */
const MAX_KEPT_POINTS = 2;

/** A projection folded up to a point. */
interface Folded {
  openLineage: MarquezRuntime['openLineage'];
  /** The graph projection it joins (the column lineage walks its graphs). */
  graphs: MarquezRuntime['graphs'];
  /** The store's head position when the fold read the store's end; null when it stopped before (fixed). */
  headPosition: number | null;
}

/** Folds (done or under way) by store, then by point (`r{position}` or `t{milliseconds}`), oldest asked first. */
const foldsByStore = new WeakMap<MarquezRuntime['store'], Map<string, Promise<Folded>>>();

/**
 * The Marquez runtime with its OpenLineage projection and the graph projection it joins (all the
 * lineage walks read) as of `asOf`: an integer (a global store position: events at or before it) or
 * an ISO 8601 time (events recorded at or before it). The other parts stay the live ones.
 * @throws ValidationError (400) for a malformed `asOf`.
 */
export async function marquezRuntimeAsOf(runtime: MarquezRuntime, asOf: string): Promise<MarquezRuntime> {
  const point = parseAsOf(asOf);
  const limitMs = 'time' in point ? Date.parse(point.time) : Infinity;
  const limitPosition = 'revision' in point ? point.revision : Infinity;
  const key = 'time' in point ? `t${limitMs}` : `r${limitPosition}`;
  let folds = foldsByStore.get(runtime.store);
  if (!folds) foldsByStore.set(runtime.store, (folds = new Map()));
  const known = folds.get(key);
  if (known) {
    folds.delete(key);
    folds.set(key, known);
    const folded = await known.catch(() => null);
    if (folded && (folded.headPosition === null || folded.headPosition === (await runtime.store.headPosition())))
      return { ...runtime, openLineage: folded.openLineage, graphs: folded.graphs };
    if (folds.get(key) === known) folds.delete(key);
  }
  const fold = foldUpTo(runtime, limitPosition, limitMs);
  folds.set(key, fold);
  while (folds.size > MAX_KEPT_POINTS) folds.delete(folds.keys().next().value!);
  fold.catch(() => {
    if (folds.get(key) === fold) folds.delete(key);
  });
  const { openLineage, graphs } = await fold;
  return { ...runtime, openLineage, graphs };
}

/** A fresh OpenLineage projection (and the graph projection it joins) folded from the store's start up to a point. */
async function foldUpTo(runtime: MarquezRuntime, limitPosition: number, limitMs: number): Promise<Folded> {
  const graphs = createGraphProjection();
  const openLineage = createOpenLineageProjection({ graphs });
  let after = 0;
  for (;;) {
    const headPosition = await runtime.store.headPosition();
    const page = await runtime.store.readAll({ after, maxCount: PAGE });
    for (const recorded of page) {
      if (recorded.position > limitPosition || Date.parse(recorded.recorded_at) > limitMs)
        return { openLineage, graphs, headPosition: null };
      const event = decodeTrustedEvent(recorded);
      graphs.apply(event);
      openLineage.apply(event);
    }
    if (page.length < PAGE) return { openLineage, graphs, headPosition };
    after = page.at(-1)!.position;
  }
}
