/**
 * The composition root shared by the commands and the API: opens the configured event store,
 * builds the graph projection, catches it up, and wires the graph commands to it. When traversal
 * indexes are enabled, it also runs their background work (`startTraversalIndexing` in
 * `projections/traversal/scheduler.ts`) until it is closed.
 */
import type { Config } from '../src/config.js';
import type { LineageRuntime as RuntimePort } from '../services/runtime.js';
import type { Logger } from '../src/logger.js';
import { existsSync } from 'node:fs';
import { DEFAULT_GRAPH_NAME, graphIdForName, importNewGraph } from '../src/graphCommands.js';
import { readGraphFile } from './graphFile.js';
import { createOpenLineageIngestor } from '../src/openlineage/ingestion.js';
import { createGraphProjection, graphStateSource } from '../projections/graphProjection.js';
import { startTraversalIndexing } from '../projections/traversal/index.js';
import { createProjector } from '../projections/projector.js';
import { createTaskProjection } from '../projections/taskProjection.js';
import { createOpenLineageProjection } from '../projections/openLineage/index.js';
import { createWatcherProjection } from '../projections/watcherProjection.js';
import { createProcessProjection } from '../projections/processProjection.js';
import { createMetricsProjection } from '../projections/metricsProjection.js';
import { createProvenanceIndex } from '../projections/provenanceIndex.js';
import { followGraphSnapshots } from '../projections/snapshots.js';
import { DEFAULT_HISTORY_INDEX_VERSIONS } from '../projections/historyIndex.js';
import { createEventStore } from './eventStore/createEventStore.js';
import { monitorWrites, type StoreWriteHealth } from './eventStore/writeHealth.js';

/**
 * The runtime the use cases take (`services/runtime.ts`), plus what only the adapters read: whether
 * the store can take writes (readiness).
 */
export interface LineageRuntime extends RuntimePort {
  /** Whether the store can take writes, as its last append told (`infra/eventStore/writeHealth.ts`); read by readiness. */
  writeHealth: StoreWriteHealth;
}

/**
 * How long a graph must stay unchanged before the API indexes it for traversals (milliseconds): long
 * enough that a burst of changes (an extraction, a stream of OpenLineage events) builds one index at
 * its end, not one per change.
 */
export const TRAVERSAL_INDEX_QUIET_MILLISECONDS = 2_000;

/** What a process needs beyond the store. */
export interface RuntimeOptions {
  /**
   * Enables traversal indexes with this quiet period (see `GraphProjectionOptions`), built
   * in the background, in slices between requests, from `openRuntime` until `close`; the API sets
   * `TRAVERSAL_INDEX_QUIET_MILLISECONDS`. Unset: graphs are walked directly (commands that never traverse).
   */
  traversalIndexQuietMilliseconds?: number;
  /**
   * The clock the store stamps `recorded_at` with, in milliseconds since the epoch (default
   * `Date.now`; EventStoreDB stamps its own). Tests hand a controlled clock, so that a graph "as of a
   * time" is asked for without waiting for time to pass.
   */
  now?: () => number;
  /**
   * Node and edge versions each graph keeps in memory for `as_of` and diffs (the history index,
   * `projections/historyIndex.ts`); default `DEFAULT_HISTORY_INDEX_VERSIONS` (250,000), 0 disables it.
   */
  historyIndexVersions?: number;
}

/**
 * Opens the store named by the configuration and catches the projections up with it.
 * @throws ConfigurationError or StorageError (one-line messages) when the store cannot be opened.
 */
export async function openRuntime(
  config: Pick<Config, 'storage'>,
  logger: Logger,
  options: RuntimeOptions = {},
): Promise<LineageRuntime> {
  const now = options.now;
  const { store, health: writeHealth } = monitorWrites(
    await createEventStore(config.storage, now === undefined ? { logger } : { logger, now: () => new Date(now()) }),
  );
  const graphs = createGraphProjection({
    ...(options.traversalIndexQuietMilliseconds === undefined
      ? {}
      : { traversalIndexQuietMilliseconds: options.traversalIndexQuietMilliseconds }),
    historyIndexVersions: options.historyIndexVersions ?? DEFAULT_HISTORY_INDEX_VERSIONS,
  });
  const tasks = createTaskProjection();
  const openLineage = createOpenLineageProjection({ graphs });
  const watchers = createWatcherProjection();
  const processes = createProcessProjection();
  const metrics = createMetricsProjection();
  const provenance = createProvenanceIndex();
  const projector = createProjector({
    store,
    projections: [graphs, tasks, openLineage, watchers, processes, metrics, provenance],
    logger,
  });
  try {
    await projector.start();
  } catch (error) {
    await store.close();
    throw error;
  }
  const stopIndexing =
    options.traversalIndexQuietMilliseconds === undefined
      ? () => {}
      : startTraversalIndexing({
          prepare: (milliseconds) => graphs.prepareTraversalIndexes(milliseconds),
          onBuilt: (built) => logger.debug({ graphs: built }, 'TraversalIndex:Built'),
        });
  // Graph snapshots (projections/snapshots.ts) are taken as live graphs reach their points, so that
  // `as_of` and diffs fold from the nearest one; a failed write only costs a longer fold later.
  const stopSnapshots = followGraphSnapshots({
    projector,
    projection: graphs,
    store,
    onWriteError: (error) =>
      logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'Snapshot:WriteFailed'),
  });
  return {
    store,
    writeHealth,
    graphs,
    provenance,
    tasks,
    openLineage,
    openLineageIngestor: createOpenLineageIngestor({ store, dedupeIndex: openLineage, logger }),
    watchers,
    processes,
    metrics,
    projector,
    commands: { store, state: graphStateSource(graphs, projector, store) },
    async close() {
      stopIndexing();
      stopSnapshots();
      await projector.stop();
      await store.close();
    },
  };
}

/**
 * Imports the graph file into the graph named `default` when the store holds no graph and the file
 * exists. A file that cannot be read or is invalid is logged and skipped (the API still starts), and
 * nothing is stored for it. The file is read and validated whole first, each item once, then
 * appended in parts that the projection folds as they come (`importNewGraph`), so that the file's
 * graph and the projection are never both whole in memory (issue 16, item 2).
 * Resolves with what happened.
 */
export async function importGraphFileIfEmpty(
  runtime: LineageRuntime,
  path: string,
  logger: Logger,
): Promise<'imported' | 'store-not-empty' | 'no-file' | 'invalid-file'> {
  if (runtime.graphs.list().length > 0) return 'store-not-empty';
  if (!existsSync(path)) return 'no-file';
  try {
    const result = await importNewGraph(
      runtime.commands,
      graphIdForName(DEFAULT_GRAPH_NAME),
      await readGraphFile(path),
      { name: DEFAULT_GRAPH_NAME },
      { cause: 'import', actor: 'api' },
    );
    logger.info({ path, graph_id: result.graphId, nodes: result.nodes, edges: result.edges }, 'GraphFile:Imported');
    return 'imported';
  } catch (error) {
    logger.error({ path, err: error instanceof Error ? error.message : String(error) }, 'GraphFile:ImportFailed');
    return 'invalid-file';
  }
}
