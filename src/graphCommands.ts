/**
 * The write side of graphs: create, delete, and record a new version of a graph (from an
 * extraction, an import or an API call). Each command decides its events against the graph's
 * current state, then appends them to `graph-{graph_id}` with that state's revision as the expected
 * revision. This is the only way graphs change.
 *
 * Under contention (issue 12, item 2; docs/architecture.md "The write path"):
 * - within one process, commands on the same graph run one after the other (decide, append, wait
 *   for the projection), so they never conflict with each other; commands on other graphs are not
 *   held up;
 * - across processes, a command that loses the race (another process appended first) waits for the
 *   projection to catch up and decides again, after a short random pause (p-retry: up to
 *   `CONFLICT_RETRIES` times within `CONFLICT_RETRY_MILLISECONDS`), so that writes of distinct
 *   nodes and edges all succeed;
 * - a caller that names the revision it decided on (`expectedRevision`) gets
 *   `ExpectedRevisionConflictError` (409) at once when the graph moved on: that is a true conflict.
 */
import { randomUUID } from 'node:crypto';
import pRetry from 'p-retry';
import { v5 as uuidV5 } from 'uuid';
import { ExpectedRevisionConflictError, NotFoundError, ValidationError } from './errors.js';
import type { EventStore, EventToAppend } from './eventStore.js';
import { streams, toAppend, toAppendTrusted, type EventContext, type LineageEvent } from './events.js';
import {
  changeEvents,
  diffGraphSteps,
  MAX_ITEMS_PER_EVENT,
  RECORDED_ITEMS_PER_EVENT,
  type DiffOptions,
  type GraphChanges,
  type GraphReader,
} from './graph/changes.js';
import { edgeKey, type Edge, type LineageGraph, type Node } from './graph/model.js';

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

/** How many times a command decides again after losing a race to another process, at most. */
export const CONFLICT_RETRIES = 100;
/** How long a command keeps deciding again after losing races, at most, in milliseconds. */
export const CONFLICT_RETRY_MILLISECONDS = 30_000;

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

/** The tail of the commands queued per graph, per store: one command at a time per graph in a process. */
const graphQueues = new WeakMap<EventStore, Map<string, Promise<unknown>>>();

/** Runs `work` after the commands already queued on the same graph of the same store. */
function serialized<T>(store: EventStore, graphId: string, work: () => Promise<T>): Promise<T> {
  let queues = graphQueues.get(store);
  if (!queues) graphQueues.set(store, (queues = new Map()));
  const previous = queues.get(graphId) ?? Promise.resolve();
  const result = previous.then(work, work);
  const tail = result.then(
    () => undefined,
    () => undefined,
  );
  queues.set(graphId, tail);
  void tail.then(() => {
    if (queues.get(graphId) === tail) queues.delete(graphId);
  });
  return result;
}

/**
 * A command's decision against the graph's state: the events to append (`[]` for nothing). A large
 * one may pause in between (a promise), on the event loop; the state it reads does not move meanwhile
 * unless another process appends, which the expected revision then refuses.
 */
type Decide = (snapshot: GraphSnapshot | undefined) => LineageEvent[] | Promise<LineageEvent[]>;

/** One command waiting for its graph's turn in this process. */
interface PendingCommand {
  decide: Decide;
  context: EventContext;
  expectedRevision: number | undefined;
  trusted: boolean;
  /** May share an append with the commands queued beside it (`handle`, "group commit"). */
  batchable: boolean;
  /** The projection was caught up once already for a "not found" of this command. */
  caughtUp: boolean;
  settle: (outcome: { result: CommandResult } | { error: unknown }) => void;
}

/** The commands queued per graph, per store, not yet taken by a batch. */
const pendingCommands = new WeakMap<EventStore, Map<string, PendingCommand[]>>();

/**
 * Most commands one append takes together, and most events: a batch stops growing at either, so
 * that an append stays small on every backend.
 */
export const MAX_COMMANDS_PER_APPEND = 256;
const MAX_EVENTS_PER_BATCH = 256;

/**
 * The keys a command's events touch (`n:` node id, `e:` edge key; an edge touches its ends too), or
 * undefined when it creates or deletes the graph or removes anything: such a command is decided
 * against a state that holds every command before it, so it never shares an append.
 */
function touchedKeys(events: readonly LineageEvent[]): string[] | undefined {
  const keys: string[] = [];
  for (const event of events) {
    switch (event.type) {
      case 'NodesAdded':
      case 'NodesChanged':
        for (const node of event.data.nodes) keys.push(`n:${node.id}`);
        break;
      case 'EdgesAdded':
      case 'EdgesChanged':
        for (const edge of event.data.edges) keys.push(`e:${edgeKey(edge)}`, `n:${edge.src_id}`, `n:${edge.dst_id}`);
        break;
      default:
        return undefined;
    }
  }
  return keys;
}

/**
 * Runs `decide` against the current state and appends what it returns: one append at a time per
 * graph in this process, deciding again after a conflict with another process (unless the caller
 * named the revision it expects). `decide` returns `[]` when there is nothing to record. Every write
 * carries a correlation id (the caller's, else a fresh one), so that the graph's history shows one
 * entry per write.
 *
 * Group commit (issue 23: a hot graph on PostgreSQL took 43 upserts/s from two processes, one
 * append and one projection wait per upsert): the `batchable` commands queued on the graph while an
 * append is in flight are decided against the same state and appended together, each with its own
 * correlation id, as long as they touch disjoint nodes and edges and only add or change (a command
 * that overlaps an earlier one of the batch, or removes, creates or deletes, waits for the next
 * append, so that it is decided against a state holding the commands before it). One conflict with
 * another process then costs one catch-up for the whole batch, and the batch grows while it waits.
 * @throws ExpectedRevisionConflictError when `expectedRevision` is given and the graph is at another
 *   revision, or when the races are still lost after `CONFLICT_RETRIES` attempts.
 */
function handle(
  deps: GraphCommandDeps,
  graphId: string,
  decide: Decide,
  given: EventContext,
  options: { expectedRevision?: number | undefined; trusted?: boolean | undefined; batchable?: boolean } = {},
): Promise<CommandResult> {
  const context: EventContext = { ...given, correlation_id: given.correlation_id ?? randomUUID() };
  return new Promise<CommandResult>((resolve, reject) => {
    const command: PendingCommand = {
      decide,
      context,
      expectedRevision: options.expectedRevision,
      trusted: options.trusted ?? false,
      batchable: (options.batchable ?? false) && options.expectedRevision === undefined,
      caughtUp: false,
      settle: (outcome) => ('result' in outcome ? resolve(outcome.result) : reject(outcome.error)),
    };
    let queues = pendingCommands.get(deps.store);
    if (!queues) pendingCommands.set(deps.store, (queues = new Map()));
    const queue = queues.get(graphId);
    if (queue) {
      queue.push(command);
      return;
    }
    const fresh = [command];
    queues.set(graphId, fresh);
    void serialized(deps.store, graphId, () => drain(deps, graphId, fresh, queues));
  });
}

/** The command's events as appended: parsed by their schemas unless the command says they were already. */
function wrap(command: PendingCommand, events: LineageEvent[]): EventToAppend[] {
  if (events.length === 0) return [];
  return command.trusted ? toAppendTrusted(events, command.context) : toAppend(events, command.context);
}

/** Appends the queued commands of one graph, a batch at a time, until none is left. */
async function drain(
  deps: GraphCommandDeps,
  graphId: string,
  queue: PendingCommand[],
  queues: Map<string, PendingCommand[]>,
): Promise<void> {
  const stream = streams.graph(graphId);
  while (queue.length > 0) {
    let members: PendingCommand[] = [];
    const counts = new Map<PendingCommand, number>();
    const decideAndAppend = async (): Promise<CommandResult> => {
      members = [];
      counts.clear();
      const head = queue[0]!;
      const snapshot = deps.state.snapshot(graphId);
      const revision = snapshot?.revision ?? -1;
      if (head.expectedRevision !== undefined && head.expectedRevision !== revision) {
        // The projection may lag behind the store: only a revision the store confirms is a conflict.
        await deps.state.catchUp();
        const current = deps.state.snapshot(graphId)?.revision ?? -1;
        if (head.expectedRevision !== current)
          throw new ExpectedRevisionConflictError(stream, `revision ${head.expectedRevision}`, current);
        return decideAndAppend();
      }
      let events: LineageEvent[];
      try {
        events = await head.decide(snapshot);
      } catch (error) {
        // A graph another process created a moment ago may not be projected here yet: "not found" only
        // holds against a projection caught up with the store.
        if (!(error instanceof NotFoundError) || head.caughtUp) throw error;
        head.caughtUp = true;
        await deps.state.catchUp();
        return decideAndAppend();
      }
      members = [head];
      counts.set(head, events.length);
      const wrapped = wrap(head, events);
      const headKeys = head.batchable ? touchedKeys(events) : undefined;
      if (headKeys) {
        const touched = new Set(headKeys);
        for (const next of queue.slice(1, MAX_COMMANDS_PER_APPEND)) {
          if (!next.batchable || wrapped.length >= MAX_EVENTS_PER_BATCH) break;
          let nextEvents: LineageEvent[];
          try {
            nextEvents = await next.decide(snapshot);
          } catch {
            break; // decided again, and answered, as the head of the next batch
          }
          const keys = touchedKeys(nextEvents);
          if (!keys || keys.some((key) => touched.has(key))) break;
          for (const key of keys) touched.add(key);
          members.push(next);
          counts.set(next, nextEvents.length);
          wrapped.push(...wrap(next, nextEvents));
        }
      }
      if (wrapped.length === 0) {
        return { graphId, revision, position: await deps.store.headPosition(), appended: 0 };
      }
      const result = await deps.store.append(stream, wrapped, { expectedRevision: revision });
      return { graphId, revision: result.next_expected_revision, position: result.position, appended: wrapped.length };
    };
    // Under the stream's lock (where the store has one) no other process appends between the
    // catch-up and the append; the expected revision still guards stores without it.
    const attempt = async (): Promise<CommandResult> => {
      const result = deps.store.withStreamLock
        ? await deps.store.withStreamLock(stream, async (head) => {
            await deps.state.waitFor(head);
            return decideAndAppend();
          })
        : await decideAndAppend();
      if (result.appended > 0) await deps.state.waitFor(result.position);
      return result;
    };
    let outcome: { result: CommandResult } | { error: unknown };
    try {
      outcome = {
        result: await pRetry(attempt, {
          retries: queue[0]!.expectedRevision === undefined ? CONFLICT_RETRIES : 0,
          maxRetryTime: CONFLICT_RETRY_MILLISECONDS,
          minTimeout: 2,
          maxTimeout: 100,
          factor: 1.5,
          randomize: true,
          shouldRetry: ({ error }) => error instanceof ExpectedRevisionConflictError,
          // Another process appended first: read what it wrote before deciding again.
          onFailedAttempt: async ({ error }) => {
            if (error instanceof ExpectedRevisionConflictError) await deps.state.catchUp();
          },
        }),
      };
    } catch (error) {
      outcome = { error };
    }
    // A failure before the batch formed is the head's alone.
    const settled = members.length > 0 ? members : [queue[0]!];
    queue.splice(0, settled.length);
    for (const member of settled) {
      member.settle(
        'result' in outcome ? { result: { ...outcome.result, appended: counts.get(member) ?? 0 } } : outcome,
      );
    }
  }
  queues.delete(graphId);
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
 * @throws ExpectedRevisionConflictError when `options.expectedRevision` is stale.
 */
export async function recordGraph(
  deps: GraphCommandDeps,
  graphId: string,
  next: LineageGraph,
  options: DiffOptions & {
    createIfMissing?: boolean;
    name?: string | null;
    /**
     * The revision of the graph stream the caller based this version on: when the graph is at
     * another revision, nothing is recorded and `ExpectedRevisionConflictError` (409) is thrown.
     * Unset: the change is decided against whatever the current state is (upserts never conflict).
     */
    expectedRevision?: number;
    /**
     * `next`'s items were parsed by their schemas already (`validateLineageGraph`): the events are
     * appended without a second parse (`toAppendTrusted`; issue 23: 150,000 items took seconds).
     */
    trusted?: boolean;
  },
  context: EventContext,
): Promise<RecordResult> {
  let changes: GraphChanges | undefined;
  let created = false;
  const result = await handle(
    deps,
    graphId,
    async (snapshot) => {
      const missing = !snapshot || snapshot.deleted;
      if (missing && !options.createIfMissing) throw new NotFoundError(`graph "${graphId}" not found`);
      const current = missing ? emptyReader : snapshot.reader;
      changes = await inSlices(diffGraphSteps(current, next, options));
      created = missing;
      const events = changeEvents(graphId, changes, RECORDED_ITEMS_PER_EVENT);
      return missing
        ? [
            { type: 'GraphCreated', data: { graph_id: graphId, name: options.name ?? null, description: null } },
            ...events,
          ]
        : events;
    },
    context,
    {
      expectedRevision: options.expectedRevision,
      trusted: options.trusted,
      // Small merges (API upserts) share appends; a resolved or replacing version is decided alone.
      batchable:
        options.mode === 'merge' &&
        options.resolve === undefined &&
        next.nodes.length + next.edges.length <= MAX_ITEMS_PER_EVENT,
    },
  );
  return { ...result, changes: changes!, created };
}

/**
 * Runs a generator that pauses (`diffGraphSteps`) to its end, letting the event loop run between its
 * slices (`setImmediate`: requests and timers due meanwhile go first), and answers what it returns.
 */
async function inSlices<T>(steps: Generator<void, T, void>): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const emptyReader: GraphReader = {
  getNode: () => undefined,
  getEdge: () => undefined,
  nodes: () => [],
  edges: () => [],
};

/** Events per append of `importNewGraph`: 25 events of up to 1,000 items, about 6 MB of JSON. */
export const IMPORT_EVENTS_PER_APPEND = 25;

/** What `importNewGraph` recorded. */
export interface ImportNewGraphResult extends CommandResult {
  /** Nodes and edges added. */
  nodes: number;
  edges: number;
}

/**
 * Records a whole, validated graph as a new graph (`graphId` absent or deleted): GraphCreated, then
 * NodesAdded and EdgesAdded, appended `IMPORT_EVENTS_PER_APPEND` events at a time with one
 * correlation id (one history entry), each append waiting for the projection (issue 16, item 2: the
 * start-up import of `LINEAGE_SVC_GRAPH_FILE`). It takes the graph over: each item is dropped from
 * `graph`'s arrays once appended, so that the given graph shrinks as the projection grows and the
 * two are never whole at once. The graph must come from `parseLineageGraph` (`readGraphFile`): its
 * events are appended without a second parse (`toAppendTrusted`), and nothing is appended for a
 * graph that fails that validation.
 *
 * Unlike `recordGraph`, the import is not one append: a process that stops in the middle leaves the
 * graph with the items appended so far, and a writer that appends to the same graph meanwhile makes
 * the next append fail.
 * @throws ValidationError when the graph exists already; ExpectedRevisionConflictError when another
 *   writer appended to it during the import.
 */
export async function importNewGraph(
  deps: GraphCommandDeps,
  graphId: string,
  graph: LineageGraph,
  options: { name?: string | null; eventsPerAppend?: number },
  given: EventContext,
): Promise<ImportNewGraphResult> {
  const snapshot = deps.state.snapshot(graphId);
  if (snapshot && !snapshot.deleted) throw new ValidationError(`graph "${graphId}" exists already`);
  const context: EventContext = { ...given, correlation_id: given.correlation_id ?? randomUUID() };
  const perAppend = (options.eventsPerAppend ?? IMPORT_EVENTS_PER_APPEND) * MAX_ITEMS_PER_EVENT;
  const counts = { nodes: graph.nodes.length, edges: graph.edges.length };
  let revision = snapshot?.revision ?? -1;
  let position = 0;
  let appended = 0;
  const append = async (events: LineageEvent[]) => {
    const result = await deps.store.append(streams.graph(graphId), toAppendTrusted(events, context), {
      expectedRevision: revision,
    });
    await deps.state.waitFor(result.position);
    [revision, position, appended] = [result.next_expected_revision, result.position, appended + events.length];
  };
  const created: LineageEvent = {
    type: 'GraphCreated',
    data: { graph_id: graphId, name: options.name ?? null, description: null },
  };
  await serialized(deps.store, graphId, async () => {
    let pending: LineageEvent[] = [created];
    for (const [items, type] of [
      [graph.nodes, 'nodes'],
      [graph.edges, 'edges'],
    ] as const) {
      for (let start = 0; start < items.length; start += perAppend) {
        const batch = items.slice(start, start + perAppend);
        items.fill(undefined as never, start, start + batch.length);
        const changes =
          type === 'nodes'
            ? { ...noChanges(), nodesAdded: batch as Node[] }
            : { ...noChanges(), edgesAdded: batch as Edge[] };
        await append([...pending, ...changeEvents(graphId, changes)]);
        pending = [];
      }
      items.length = 0;
    }
    if (pending.length > 0) await append(pending);
  });
  return { graphId, revision, position, appended, ...counts };
}

/** A `GraphChanges` with nothing in it. */
function noChanges(): GraphChanges {
  return { nodesAdded: [], nodesChanged: [], nodesRemoved: [], edgesAdded: [], edgesChanged: [], edgesRemoved: [] };
}
