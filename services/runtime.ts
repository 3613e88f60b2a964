/**
 * The runtime the use cases are given, as a port (issue 22, item 6): the store, the projections the
 * reads use, the projector and the graph commands' dependencies. `infra/runtime.ts` opens one over
 * the configured store (`openRuntime`) and adds what only the adapters read (the store's write
 * health, for readiness); services depend on this interface alone, never on `infra/`.
 */
import type { EventStore } from '../src/eventStore.js';
import type { GraphCommandDeps } from '../src/graphCommands.js';
import type { OpenLineageIngestor } from '../src/openlineage/ingestion.js';
import type { GraphProjection } from '../projections/graphProjection.js';
import type { MetricsProjection } from '../projections/metricsProjection.js';
import type { OpenLineageProjection } from '../projections/openLineage/index.js';
import type { ProcessProjection } from '../projections/processProjection.js';
import type { Projector } from '../projections/projector.js';
import type { ProvenanceIndex } from '../projections/provenanceIndex.js';
import type { TaskProjection } from '../projections/taskProjection.js';
import type { WatcherProjection } from '../projections/watcherProjection.js';

/** Everything a use case needs to read and write lineage. */
export interface LineageRuntime {
  /** The configured store. */
  store: EventStore;
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
  /** Which writes added, changed and removed each node and edge of the graphs asked about (`/history` of nodes and edges). */
  provenance: ProvenanceIndex;
  projector: Projector;
  /** Dependencies of `src/graphCommands.ts`. */
  commands: GraphCommandDeps;
  /** Stops the traversal indexes' background work and the projector, and closes the store. */
  close(): Promise<void>;
}
