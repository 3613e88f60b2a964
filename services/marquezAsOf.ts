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
 * walk (`marquezLineage.ts`) is the one the live answer uses. The fold reads the store from its start:
 * its cost grows with the store (a past point is read, never cached). Only reads.
 */
import { decodeTrustedEvent } from '../src/events.js';
import { createGraphProjection, parseAsOf } from '../projections/graphProjection.js';
import { createOpenLineageProjection } from '../projections/openLineage/index.js';
import type { MarquezRuntime } from './marquez.js';

/** Events read from the store per page while folding. */
const PAGE = 1_000;

/**
 * The Marquez runtime with its OpenLineage projection (all the lineage walks read) as of `asOf`: an
 * integer (a global store position: events at or before it) or an ISO 8601 time (events recorded at
 * or before it). The other parts stay the live ones.
 * @throws ValidationError (400) for a malformed `asOf`.
 */
export async function marquezRuntimeAsOf(runtime: MarquezRuntime, asOf: string): Promise<MarquezRuntime> {
  const point = parseAsOf(asOf);
  const graphs = createGraphProjection();
  const openLineage = createOpenLineageProjection({ graphs });
  const limitMs = 'time' in point ? Date.parse(point.time) : Infinity;
  const limitPosition = 'revision' in point ? point.revision : Infinity;
  let after = 0;
  for (;;) {
    const page = await runtime.store.readAll({ after, maxCount: PAGE });
    for (const recorded of page) {
      if (recorded.position > limitPosition || Date.parse(recorded.recorded_at) > limitMs)
        return { ...runtime, openLineage };
      const event = decodeTrustedEvent(recorded);
      graphs.apply(event);
      openLineage.apply(event);
    }
    if (page.length < PAGE) return { ...runtime, openLineage };
    after = page.at(-1)!.position;
  }
}
