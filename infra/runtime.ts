/**
 * The composition root shared by the commands and the API: opens the configured event store,
 * builds the graph projection, catches it up, and wires the graph commands to it.
 */
import type { Config } from '../src/config.js';
import type { EventStore } from '../src/eventStore.js';
import type { GraphCommandDeps } from '../src/graphCommands.js';
import type { Logger } from '../src/logger.js';
import { createGraphProjection, graphStateSource, type GraphProjection } from '../projections/graphProjection.js';
import { createProjector, type Projector } from '../projections/projector.js';
import { createEventStore } from './eventStore/createEventStore.js';

/** Everything a command or the API needs to read and write lineage. */
export interface LineageRuntime {
  store: EventStore;
  graphs: GraphProjection;
  projector: Projector;
  /** Dependencies of `src/graphCommands.ts`. */
  commands: GraphCommandDeps;
  /** Stops the projector and closes the store. */
  close(): Promise<void>;
}

/**
 * Opens the store named by the configuration and catches the projections up with it.
 * @throws ConfigurationError or StorageError (one-line messages) when the store cannot be opened.
 */
export async function openRuntime(config: Pick<Config, 'storage'>, logger: Logger): Promise<LineageRuntime> {
  const store = await createEventStore(config.storage, { logger });
  const graphs = createGraphProjection();
  const projector = createProjector({ store, projections: [graphs], logger });
  try {
    await projector.start();
  } catch (error) {
    await store.close();
    throw error;
  }
  return {
    store,
    graphs,
    projector,
    commands: { store, state: graphStateSource(graphs, projector, store) },
    async close() {
      await projector.stop();
      await store.close();
    },
  };
}
