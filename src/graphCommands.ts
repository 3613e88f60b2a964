/**
 * The write side of graphs: create, delete, and record a new version of a graph (from an
 * extraction, an import or an API call). Each command decides its events against the graph's
 * current state, then appends them to `graph-{graph_id}` with that state's revision as the expected
 * revision; when another writer got there first (a conflict), it waits for the projection to catch
 * up and decides again, up to `MAX_ATTEMPTS` times. This is the only way graphs change.
 */
import { randomUUID } from 'node:crypto';
import { v5 as uuidV5 } from 'uuid';
import { ExpectedRevisionConflictError, NotFoundError, ValidationError } from './errors.js';
import type { EventStore } from './eventStore.js';
import { streams, toAppend, type EventContext, type LineageEvent } from './events.js';
import { changeEvents, diffGraph, type DiffOptions, type GraphChanges, type GraphReader } from './graph/changes.js';
import type { LineageGraph } from './graph/model.js';

/** A graph's current state as the write side needs it. */
export interface GraphSnapshot {
  /** Revision of the graph stream (-1 when it has no events). */
  revision: number;
  deleted: boolean;
  reader: GraphReader;
}

/** Where commands read current state from: the projection, kept in step with the store. */
export interface GraphStateSource {
  /** The graph's state as far as the projection has read, or undefined when it has never existed. */
  snapshot(graphId: string): GraphSnapshot | undefined;
  /** Resolves once the projection has applied everything up to `position`. */
  waitFor(position: number): Promise<void>;
  /** Resolves once the projection has applied everything in the store now. */
  catchUp(): Promise<void>;
}

export interface GraphCommandDeps {
  store: EventStore;
  state: GraphStateSource;
}

/** How many times a command decides again after a conflict before giving up with 409. */
export const MAX_ATTEMPTS = 5;

/** Namespace of name-based graph ids (UUID v5), so that a graph name always maps to the same id. */
const GRAPH_ID_NAMESPACE = '6f1c2a4e-8e0b-5d39-9a57-3c1f0b7d2e11';

/** The id of the graph with this name: a UUID v5, stable across runs and machines. */
export function graphIdForName(name: string): string {
  return uuidV5(name, GRAPH_ID_NAMESPACE);
}

/** The graph extractions write to unless told otherwise. */
export const DEFAULT_GRAPH_NAME = 'default';

/** The result of a command that appended (or found nothing to append). */
export interface CommandResult {
  graphId: string;
  /** Revision of the graph stream afterwards. */
  revision: number;
  /** Global position of the last event appended (or the store's head when nothing was appended). */
  position: number;
  appended: number;
}

/** The result of recording a new version of a graph. */
export interface RecordResult extends CommandResult {
  changes: GraphChanges;
  created: boolean;
}

/**
 * Runs `decide` against the current state and appends what it returns, retrying on conflicts.
 * `decide` returns `[]` when there is nothing to record. Every write carries a correlation id (the
 * caller's, else a fresh one), so that the graph's history shows one entry per write.
 */
async function handle(
  deps: GraphCommandDeps,
  graphId: string,
  decide: (snapshot: GraphSnapshot | undefined) => LineageEvent[],
  given: EventContext,
): Promise<CommandResult> {
  const stream = streams.graph(graphId);
  const context: EventContext = { ...given, correlation_id: given.correlation_id ?? randomUUID() };
  for (let attempt = 1; ; attempt += 1) {
    const snapshot = deps.state.snapshot(graphId);
    const events = decide(snapshot);
    if (events.length === 0) {
      return { graphId, revision: snapshot?.revision ?? -1, position: await deps.store.headPosition(), appended: 0 };
    }
    try {
      const result = await deps.store.append(stream, toAppend(events, context), {
        expectedRevision: snapshot?.revision ?? -1,
      });
      await deps.state.waitFor(result.position);
      return { graphId, revision: result.next_expected_revision, position: result.position, appended: events.length };
    } catch (error) {
      if (!(error instanceof ExpectedRevisionConflictError) || attempt >= MAX_ATTEMPTS) throw error;
      await deps.state.catchUp();
    }
  }
}

/**
 * Creates an empty graph.
 * @throws ValidationError when a graph with that id exists already.
 */
export async function createGraph(
  deps: GraphCommandDeps,
  input: { graphId?: string; name?: string | null; description?: string | null },
  context: EventContext,
): Promise<CommandResult> {
  const graphId = input.graphId ?? randomUUID();
  return handle(
    deps,
    graphId,
    (snapshot) => {
      if (snapshot && !snapshot.deleted) throw new ValidationError(`graph "${graphId}" exists already`);
      return [
        {
          type: 'GraphCreated',
          data: { graph_id: graphId, name: input.name ?? null, description: input.description ?? null },
        },
      ];
    },
    context,
  );
}

/**
 * Deletes a graph (its history stays readable).
 * @throws NotFoundError when there is no such live graph.
 */
export async function deleteGraph(
  deps: GraphCommandDeps,
  graphId: string,
  context: EventContext,
): Promise<CommandResult> {
  return handle(
    deps,
    graphId,
    (snapshot) => {
      if (!snapshot || snapshot.deleted) throw new NotFoundError(`graph "${graphId}" not found`);
      return [{ type: 'GraphDeleted', data: { graph_id: graphId } }];
    },
    context,
  );
}

/**
 * Records a new version of a graph as the difference against its current state. With
 * `createIfMissing`, a graph that does not exist (or was deleted) is created first, named `name`.
 * Nothing is appended when nothing changed.
 * @throws NotFoundError when the graph does not exist and `createIfMissing` is false.
 */
export async function recordGraph(
  deps: GraphCommandDeps,
  graphId: string,
  next: LineageGraph,
  options: DiffOptions & { createIfMissing?: boolean; name?: string | null },
  context: EventContext,
): Promise<RecordResult> {
  let changes: GraphChanges | undefined;
  let created = false;
  const result = await handle(
    deps,
    graphId,
    (snapshot) => {
      const missing = !snapshot || snapshot.deleted;
      if (missing && !options.createIfMissing) throw new NotFoundError(`graph "${graphId}" not found`);
      const current = missing ? emptyReader : snapshot.reader;
      changes = diffGraph(current, next, options);
      created = missing;
      const events = changeEvents(graphId, changes);
      return missing
        ? [
            { type: 'GraphCreated', data: { graph_id: graphId, name: options.name ?? null, description: null } },
            ...events,
          ]
        : events;
    },
    context,
  );
  return { ...result, changes: changes!, created };
}

const emptyReader: GraphReader = {
  getNode: () => undefined,
  getEdge: () => undefined,
  nodes: () => [],
  edges: () => [],
};
