/**
 * History-length sweep: `as_of` reads and diffs on a 10,000-node / 30,000-edge graph after 1,000,
 * 10,000 and 100,000 changes, against a baseline measured in the same run: the fold of the whole
 * stream from its start (what `as_of` and each side of a diff cost before snapshots). The ratios are
 * what to compare between runs; the absolute times move with the machine's load.
 *
 * Per history length, in a sqlite store of its own: the graph is imported in one append (the events
 * `recordGraph` would write), then the changes are appended in batches of 5,000 events, one event per
 * change with its own correlation id (nine in ten change one node's attributes, one in ten an edge's).
 * Then every snapshot is taken (`writeGraphSnapshots`, timed), and measured in interleaved rounds
 * (each round times every measure once, so that load changes weigh on all alike; medians reported),
 * at points spread over the history (seeded):
 * - `as_of` at a past revision (`readGraphAsOf`, snapshots only read);
 * - a diff across 100 changes (`diffGraphAsOf`: the `from` state from its snapshot, then the 100 events);
 * - a diff from the import to now (wider than a snapshot interval: two states from snapshots, compared whole);
 * - the baseline: the fold from the start to now (`foldGraphAsOf`);
 * - start-up: the projector's catch-up of the whole store (`createProjector`), against restoring the
 *   current state from the latest snapshot (what a snapshot-seeded start-up would fold; not implemented).
 * Also reported: the snapshot count and the size of one snapshot (gzip of JSON) against the graph's JSON.
 * Then the history index (`projections/historyIndex.ts`, what the API answers recent points with): a
 * projection with the index is caught up with the store (timed; its heap after GC compared with one
 * without), and `as_of` (a view at a past revision, read whole), the diff across 100 changes and the
 * diff from the import to now are each taken `INDEX_SAMPLES` times, interleaved: p50 and p99.
 * Run alone with `node --expose-gc --import tsx bench/history.ts [lengths, comma-separated]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteEventStore } from '../infra/eventStore/sqliteEventStore.js';
import type { EventStore } from '../src/eventStore.js';
import { streams } from '../src/events.js';
import type { LineageGraph } from '../src/graph/model.js';
import { createGraphProjection, foldGraphAsOf, toLineageGraph } from '../projections/graphProjection.js';
import { createProjector } from '../projections/projector.js';
import { DEFAULT_HISTORY_INDEX_VERSIONS } from '../projections/historyIndex.js';
import {
  diffGraphAsOf,
  encodeSnapshot,
  graphSnapshotKey,
  readGraphAsOf,
  snapshotPayload,
  writeGraphSnapshots,
} from '../projections/snapshots.js';
import { recordSyntheticHistory, seededRandom, syntheticGraph } from './syntheticGraph.js';

/** One history length's figures. Times in milliseconds (p50 over `repetitions`), sizes in bytes. */
export interface HistoryBenchRow {
  changes: number;
  events: number;
  setup_seconds: number;
  snapshot_backfill_seconds: number;
  snapshots: number;
  snapshot_bytes: number;
  graph_json_bytes: number;
  as_of_p50_ms: number;
  diff_100_changes_p50_ms: number;
  diff_import_to_now_p50_ms: number;
  full_fold_p50_ms: number;
  /** Baseline over `as_of` (how many times faster `as_of` is than the fold from the start). */
  as_of_speedup: number;
  diff_100_changes_speedup: number;
  /** Two folds from the start (what a diff cost before) over the wide diff. */
  diff_import_to_now_speedup: number;
  projector_catch_up_ms: number;
  latest_snapshot_restore_ms: number;
  /** The history index (`projections/historyIndex.ts`): the same reads from memory, p50 and p99 over `INDEX_SAMPLES`. */
  index_as_of_p50_ms: number;
  index_as_of_p99_ms: number;
  index_diff_100_changes_p50_ms: number;
  index_diff_100_changes_p99_ms: number;
  index_diff_import_to_now_p50_ms: number;
  index_diff_import_to_now_p99_ms: number;
  /** The fold from the start over the index's `as_of` (and over its diff import to now, two folds). */
  index_as_of_speedup: number;
  index_diff_import_to_now_speedup: number;
  /** Versions the index holds, and the heap they take (bytes: heap after GC with the index minus without). */
  index_versions: number;
  index_bytes: number;
  /** The projector's catch-up of the whole store with the index on (what a start costs now). */
  index_catch_up_ms: number;
}

const GRAPH_ID = '00000000-0000-4000-8000-000000000160';
/** Samples of each history index measure (enough for a p99). */
const INDEX_SAMPLES = 300;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
/** The `fraction` quantile of `values` (nearest rank). */
const quantile = (values: number[], fraction: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(values.length * fraction) - 1)]!;
const gc = () => (globalThis as { gc?: () => void }).gc?.();

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/**
 * Medians of several measures taken in rounds: each round times every measure once, in the same
 * order, so that a change in the machine's load between rounds weighs on all of them alike and their
 * ratios hold. A measure with `rounds` set runs in only that many rounds (the slow baseline). One
 * warm-up round first.
 */
async function interleaved<K extends string>(
  rounds: number,
  measures: Record<K, { run: () => Promise<unknown>; rounds?: number }>,
): Promise<Record<K, number>> {
  const times = Object.fromEntries(Object.keys(measures).map((key) => [key, [] as number[]])) as Record<K, number[]>;
  for (let round = -1; round < rounds; round += 1) {
    for (const [key, measure] of Object.entries(measures) as Array<
      [K, { run: () => Promise<unknown>; rounds?: number }]
    >) {
      if (round >= (measure.rounds ?? rounds)) continue;
      gc();
      const time = await timed(measure.run);
      if (round >= 0) times[key].push(time);
    }
  }
  return Object.fromEntries(Object.entries(times).map(([key, values]) => [key, median(values as number[])])) as Record<
    K,
    number
  >;
}

/** Appends the import and `changes` one-event changes; answers the stream's last revision after the import. */
/** Heap in use after a full GC, in bytes (needs `--expose-gc` to mean anything). */
function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** A graph projection caught up with the whole store (with a history index when `historyIndexVersions`). */
async function caughtUpProjection(store: EventStore, historyIndexVersions?: number) {
  const projection = createGraphProjection(historyIndexVersions === undefined ? {} : { historyIndexVersions });
  const projector = createProjector({ store, projections: [projection] });
  await projector.start();
  await projector.stop();
  return projection;
}

/**
 * The history index's figures: a projection with the index is caught up with the store (timed, and
 * its heap compared with one without), then `as_of` (a view at a past revision, read whole as the
 * graph route reads it), a diff across 100 changes and a diff from the import to now are each taken
 * `INDEX_SAMPLES` times, interleaved.
 */
async function measureIndex(store: EventStore, imported: number, head: number, seed: number) {
  const plainBefore = heapAfterGc();
  let plain: ReturnType<typeof createGraphProjection> | undefined = await caughtUpProjection(store);
  const plainBytes = heapAfterGc() - plainBefore;
  plain.reset();
  plain = undefined;
  const indexedBefore = heapAfterGc();
  const started = performance.now();
  const projection = await caughtUpProjection(store, DEFAULT_HISTORY_INDEX_VERSIONS);
  const catchUpMilliseconds = performance.now() - started;
  const bytes = heapAfterGc() - indexedBefore - plainBytes;
  const history = projection.history!;
  const state = projection.getIncludingDeleted(GRAPH_ID)!;
  const next = seededRandom(seed);
  const pastRevision = () => imported + 1 + Math.floor(next() * (head - imported - 100));
  const answer = <T>(value: T | null | undefined): T => {
    if (value === undefined || value === null) throw new Error('the point is outside the history index');
    return value;
  };
  const times = { asOf: [] as number[], narrow: [] as number[], wide: [] as number[] };
  const time = (into: number[], run: () => unknown) => {
    const begin = performance.now();
    run();
    into.push(performance.now() - begin);
  };
  for (let sample = 0; sample < INDEX_SAMPLES; sample += 1) {
    time(times.asOf, () => {
      const view = answer(history.view(state, { revision: pastRevision() }));
      const graph: LineageGraph = { nodes: [], edges: [] };
      view.forEachNode((node) => graph.nodes.push(node));
      view.forEachEdge((edge) => graph.edges.push(edge));
      return graph;
    });
    const from = pastRevision();
    time(times.narrow, () => answer(history.diff(state, { revision: from }, { revision: from + 100 })));
    time(times.wide, () => answer(history.diff(state, { revision: imported }, { revision: head })));
  }
  return { times, versions: history.stats().versions, bytes, catchUpMilliseconds };
}

/** Measures one history length in a store of its own. */
async function measureHistory(graph: LineageGraph, changes: number, repetitions: number): Promise<HistoryBenchRow> {
  const folder = mkdtempSync(join(tmpdir(), 'lineage-svc-bench-history-'));
  const store = createSqliteEventStore({ path: folder });
  try {
    const setupStarted = performance.now();
    const imported = await recordSyntheticHistory(store, GRAPH_ID, graph, {
      changes,
      random: seededRandom(16),
      cause: 'watcher',
    });
    const setupSeconds = (performance.now() - setupStarted) / 1000;
    const head = await store.streamRevision(streams.graph(GRAPH_ID));
    const backfillSeconds = (await timed(() => writeGraphSnapshots(store, GRAPH_ID))) / 1000;
    const infos = await store.snapshots.list(graphSnapshotKey(GRAPH_ID));
    gc();
    const next = seededRandom(changes);
    const pastRevision = () => imported + 1 + Math.floor(next() * (head - imported - 100));
    const noWrite = { write: false };
    const now = { revision: Number.MAX_SAFE_INTEGER };
    const catchUp = async () => {
      const projector = createProjector({ store, projections: [createGraphProjection()] });
      await projector.start();
      await projector.stop();
    };
    const slow = Math.max(3, Math.min(repetitions, Math.round(30_000 / changes)));
    const medians = await interleaved(repetitions, {
      asOf: { run: () => readGraphAsOf(store, GRAPH_ID, { revision: pastRevision() }, noWrite) },
      narrow: {
        run: () => {
          const from = pastRevision();
          return diffGraphAsOf(store, GRAPH_ID, { revision: from }, { revision: from + 100 }, noWrite);
        },
      },
      wide: { run: () => diffGraphAsOf(store, GRAPH_ID, { revision: imported }, now, noWrite) },
      restore: { run: () => readGraphAsOf(store, GRAPH_ID, now, noWrite) },
      fullFold: { run: () => foldGraphAsOf(store, GRAPH_ID, now), rounds: slow },
      catchUp: { run: catchUp, rounds: slow },
    });
    const { asOf, narrow, wide, restore, fullFold, catchUp: caughtUp } = medians;
    const index = await measureIndex(store, imported, head, changes + 1);
    const current = (await readGraphAsOf(store, GRAPH_ID, now, noWrite)).state;
    return {
      changes,
      events: head + 1,
      setup_seconds: setupSeconds,
      snapshot_backfill_seconds: backfillSeconds,
      snapshots: infos.length,
      snapshot_bytes: (await encodeSnapshot(snapshotPayload(current))).byteLength,
      graph_json_bytes: Buffer.byteLength(JSON.stringify(toLineageGraph(current))),
      as_of_p50_ms: asOf,
      diff_100_changes_p50_ms: narrow,
      diff_import_to_now_p50_ms: wide,
      full_fold_p50_ms: fullFold,
      as_of_speedup: fullFold / asOf,
      diff_100_changes_speedup: fullFold / narrow,
      diff_import_to_now_speedup: (2 * fullFold) / wide,
      projector_catch_up_ms: caughtUp,
      latest_snapshot_restore_ms: restore,
      index_as_of_p50_ms: quantile(index.times.asOf, 0.5),
      index_as_of_p99_ms: quantile(index.times.asOf, 0.99),
      index_diff_100_changes_p50_ms: quantile(index.times.narrow, 0.5),
      index_diff_100_changes_p99_ms: quantile(index.times.narrow, 0.99),
      index_diff_import_to_now_p50_ms: quantile(index.times.wide, 0.5),
      index_diff_import_to_now_p99_ms: quantile(index.times.wide, 0.99),
      index_as_of_speedup: fullFold / quantile(index.times.asOf, 0.5),
      index_diff_import_to_now_speedup: (2 * fullFold) / quantile(index.times.wide, 0.5),
      index_versions: index.versions,
      index_bytes: index.bytes,
      index_catch_up_ms: index.catchUpMilliseconds,
    };
  } finally {
    await store.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Runs the sweep (1,000, 10,000 and 100,000 changes unless told otherwise) and answers one row per length. */
export async function benchHistory(
  options: { lengths?: number[]; repetitions?: number; nodes?: number; edges?: number } = {},
): Promise<HistoryBenchRow[]> {
  const graph = syntheticGraph({ nodes: options.nodes ?? 10_000, edges: options.edges ?? 30_000, seed: 7 });
  const rows: HistoryBenchRow[] = [];
  for (const changes of options.lengths ?? [1000, 10_000, 100_000]) {
    rows.push(await measureHistory(graph, changes, options.repetitions ?? 9));
    gc();
  }
  return rows;
}

if (process.argv[1] === import.meta.filename) {
  // `node --expose-gc --import tsx bench/history.ts [lengths, comma-separated]`
  const lengths = process.argv[2]?.split(',').map(Number);
  const rows = await benchHistory(lengths ? { lengths } : {});
  console.table(rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v.toFixed(2))]))));
}
