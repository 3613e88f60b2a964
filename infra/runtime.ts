/**
 * The composition root shared by the commands and the API: opens the configured event store,
 * builds the graph projection, catches it up, and wires the graph commands to it. When traversal
 * indexes are enabled, it also runs their background work (`startTraversalIndexing` in
 * `projections/traversal/scheduler.ts`) until it is closed.
 */
import type { Config } from '../src/config.js';
import type { EventStore } from '../src/eventStore.js';
import type { GraphCommandDeps } from '../src/graphCommands.js';
import type { Logger } from '../src/logger.js';
import { existsSync } from 'node:fs';
import { DEFAULT_GRAPH_NAME, graphIdForName, importNewGraph } from '../src/graphCommands.js';
import { readGraphFile } from './graphFile.js';
import { createOpenLineageIngestor, type OpenLineageIngestor } from '../src/openlineage/ingestion.js';
import { createGraphProjection, graphStateSource, type GraphProjection } from '../projections/graphProjection.js';
import { startTraversalIndexing } from '../projections/traversal/index.js';
import { createProjector, type Projector } from '../projections/projector.js';
import { createTaskProjection, type TaskProjection } from '../projections/taskProjection.js';
import { createOpenLineageProjection, type OpenLineageProjection } from '../projections/openLineage/index.js';
import { createWatcherProjection, type WatcherProjection } from '../projections/watcherProjection.js';
import { createProcessProjection, type ProcessProjection } from '../projections/processProjection.js';
import { createMetricsProjection, type MetricsProjection } from '../projections/metricsProjection.js';
import { followGraphSnapshots } from '../projections/snapshots.js';
import { DEFAULT_HISTORY_INDEX_VERSIONS } from '../projections/historyIndex.js';
import { createEventStore } from './eventStore/createEventStore.js';
import { monitorWrites, type StoreWriteHealth } from './eventStore/writeHealth.js';

/** Everything a command or the API needs to read and write lineage. */
export interface LineageRuntime {
  /** The configured store, its appends watched by `writeHealth`. */
  store: EventStore;
  /** Whether the store can take writes, as its last append told (`infra/eventStore/writeHealth.ts`); read by readiness. */
  writeHealth: StoreWriteHealth;
  graphs: GraphProjection;
  /** Tasks started through the API (`task-{id}` streams). */
  tasks: TaskProjection;
  /** Ingested OpenLineage events (`openlineage-{key}` streams), joined with the live graphs of `graphs`: the `/lineage/...` queries. */
  openLineage: OpenLineageProjection;
  /** Appends OpenLineage events to `store`, deduped against `openLineage` and its own recent keys (one per store). */
  openLineageIngestor: OpenLineageIngestor;
  /** Watchers (`watcher-{id}` streams and the extractions they ran): the `/watchers` queries. */
  watchers: WatcherProjection;
  /** Processes sharing the store and their leases (`process-{id}` streams): who owns live work. */
  processes: ProcessProjection;
  /** Metric samples of graphs' nodes (`metrics-{graph_id}` streams): latest values and bounded series. */
  metrics: MetricsProjection;
  projector: Projector;
  /** Dependencies of `src/graphCommands.ts`. */
  commands: GraphCommandDeps;
  /** Stops the traversal indexes' background work and the projector, and closes the store. */
  close(): Promise<void>;
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
  const projector = createProjector({
    store,
    projections: [graphs, tasks, openLineage, watchers, processes, metrics],
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
