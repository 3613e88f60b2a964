/**
 * Every event lineage-svc records, declared once as a zod discriminated union on `type`.
 *
 * Events are past-tense facts. Each has a `version` (of its data schema): when a schema changes,
 * the old version keeps being readable through an upcaster registered in `UPCASTERS`, which turns
 * version n into n + 1 until the current version is reached. Metadata (event id, correlation and
 * causation ids, actor, cause) is in `EventMetadata` (`src/eventStore.ts`); the store adds the
 * recorded time, the stream revision and the global position.
 *
 * Streams: `graph-{graph_id}` (graph lifecycle and node/edge changes), `extraction-{extraction_id}`,
 * `task-{task_id}`, `watcher-{watcher_id}`, `openlineage-{key}` (ingested OpenLineage events),
 * `marquez-annotations` (tags and deletions made through the Marquez API),
 * `process-{process_id}` (a process's identity and lease), `publisher-checkpoint` (which process
 * publishes lineage changes, and how far it got), `metrics-{graph_id}` (metric samples of a graph's
 * nodes). See docs/events.md.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ValidationError } from './errors.js';
import type { EventMetadata, EventToAppend, RecordedEvent } from './eventStore.js';
import { EdgeKeySchema, EdgeSchema, NodeSchema } from './graph/model.js';
import { zodIssues } from './graph/validation.js';

const graphId = z.string().min(1);
const isoTime = z.string().min(1);

/** Counts of a change set, in number of nodes and edges. */
export const ChangeCountsSchema = z.object({
  nodes_added: z.number().int().nonnegative(),
  nodes_changed: z.number().int().nonnegative(),
  nodes_removed: z.number().int().nonnegative(),
  edges_added: z.number().int().nonnegative(),
  edges_changed: z.number().int().nonnegative(),
  edges_removed: z.number().int().nonnegative(),
});
export type ChangeCounts = z.infer<typeof ChangeCountsSchema>;

// ---------------------------------------------------------------------------------------------
// Graph streams: `graph-{graph_id}`. Node and edge changes are appended per extraction, import or
// API call as the difference against the graph's current state, in chunks of at most 250 items
// (`RECORDED_ITEMS_PER_EVENT`; 1,000 for the start-up import of a graph file, `MAX_ITEMS_PER_EVENT`).

export const GraphCreated = z.object({
  type: z.literal('GraphCreated'),
  data: z.object({ graph_id: graphId, name: z.string().nullable(), description: z.string().nullable() }),
});
export const GraphDeleted = z.object({
  type: z.literal('GraphDeleted'),
  data: z.object({ graph_id: graphId }),
});
/** New nodes (whole). */
export const NodesAdded = z.object({
  type: z.literal('NodesAdded'),
  data: z.object({ graph_id: graphId, nodes: z.array(NodeSchema).min(1) }),
});
/** Nodes whose fields changed: each carries its whole new state. */
export const NodesChanged = z.object({
  type: z.literal('NodesChanged'),
  data: z.object({ graph_id: graphId, nodes: z.array(NodeSchema).min(1) }),
});
/** Nodes removed, by id; their edges are removed with them by explicit EdgesRemoved events first. */
export const NodesRemoved = z.object({
  type: z.literal('NodesRemoved'),
  data: z.object({ graph_id: graphId, node_ids: z.array(z.string().min(1)).min(1) }),
});
export const EdgesAdded = z.object({
  type: z.literal('EdgesAdded'),
  data: z.object({ graph_id: graphId, edges: z.array(EdgeSchema).min(1) }),
});
/** Edges whose attributes changed: each carries its whole new state. */
export const EdgesChanged = z.object({
  type: z.literal('EdgesChanged'),
  data: z.object({ graph_id: graphId, edges: z.array(EdgeSchema).min(1) }),
});
export const EdgesRemoved = z.object({
  type: z.literal('EdgesRemoved'),
  data: z.object({ graph_id: graphId, edges: z.array(EdgeKeySchema).min(1) }),
});

// ---------------------------------------------------------------------------------------------
// Extraction streams: `extraction-{extraction_id}`.

export const ExtractionStarted = z.object({
  type: z.literal('ExtractionStarted'),
  data: z.object({
    extraction_id: z.string().min(1),
    graph_id: graphId,
    environment_ids: z.array(z.string()),
    cluster_ids: z.array(z.string()),
    enable_metrics: z.boolean(),
  }),
});
/** The kinds of scope an extractor reports as not read completely (`src/extraction/completeness.ts`). */
export const SCOPE_KINDS = [
  'environment',
  'topics',
  'topic_configs',
  'consumer_groups',
  'consumer_lag',
  'cluster_links',
  'connectors',
  'ksqldb',
  'flink',
  'schema_registry',
  'stream_catalog',
  'tableflow',
  'catalog',
] as const;

/**
 * A scope an extraction did not read completely: its stored state was kept (nothing in it recorded as
 * removed). What each kind owns: `src/extraction/completeness.ts`.
 */
export const IncompleteScopeSchema = z.object({
  kind: z.enum(SCOPE_KINDS),
  /** The environment read; null for a catalog. */
  environment_id: z.string().min(1).nullable(),
  /** The Kafka cluster read, for the cluster kinds; null otherwise. */
  cluster_id: z.string().min(1).nullable(),
  /** The ksqlDB cluster (`lksqlc-...`) for `ksqldb`; the catalog type for `catalog`; null otherwise. */
  resource_id: z.string().min(1).nullable(),
  /** For `catalog`: the one table (node id) that was not read; null: the whole catalog. */
  node_id: z.string().min(1).nullable(),
  /** Why: the warning of the failed call, or why the catalog did not run. */
  reason: z.string(),
});
/** A scope that was not read completely. */
export type IncompleteScope = z.infer<typeof IncompleteScopeSchema>;

export const ExtractionCompleted = z.object({
  type: z.literal('ExtractionCompleted'),
  data: z.object({
    extraction_id: z.string().min(1),
    graph_id: graphId,
    node_count: z.number().int().nonnegative(),
    edge_count: z.number().int().nonnegative(),
    changes: ChangeCountsSchema,
    /** Revision of the graph stream after the changes (-1: the graph stream is still empty). */
    graph_revision: z.number().int(),
    warnings: z.array(z.string()),
    /** Requests made per API, e.g. `{"kafka-rest.topics": 10}`. */
    requests: z.record(z.string(), z.number().int().nonnegative()),
    duration_ms: z.number().nonnegative(),
    /** The scopes not read completely, whose stored state was kept (absent before issue 22: none recorded). */
    incomplete_scopes: z.array(IncompleteScopeSchema).optional(),
  }),
});
export const ExtractionFailed = z.object({
  type: z.literal('ExtractionFailed'),
  data: z.object({
    extraction_id: z.string().min(1),
    graph_id: graphId,
    error: z.string(),
    warnings: z.array(z.string()),
    duration_ms: z.number().nonnegative(),
  }),
});

// ---------------------------------------------------------------------------------------------
// Metrics: `metrics-{graph_id}`. Throughput samples of a graph's nodes, apart from the graph's own
// stream, so that they never count as graph changes (history, diff). `projections/metricsProjection.ts`
// folds them; graph reads show each node's latest sample as its `metrics_*` attributes.

/** A metric value: a count (bytes, records, consumer lag in records), a flag (`metrics_active`), or null (unknown). */
export const MetricValueSchema = z.union([z.number(), z.boolean(), z.null()]);
/** One node's metrics over a window, keyed by their attribute names (`metrics_received_bytes`, ...; always `metrics_*`). */
export const NodeMetricSampleSchema = z.object({
  node_id: z.string().min(1),
  metrics: z.record(z.string().regex(/^metrics_/), MetricValueSchema),
});
export type NodeMetricSample = z.infer<typeof NodeMetricSampleSchema>;
/**
 * Metrics of some of a graph's nodes over one window (an extraction's or an enrichment's metrics
 * phase); at most 1,000 samples per event, one node at most once per event.
 */
export const MetricsSampled = z.object({
  type: z.literal('MetricsSampled'),
  data: z.object({
    graph_id: graphId,
    /** ISO 8601 start of the window the values were summed over. */
    window_start: isoTime,
    /** ISO 8601 end of the window. */
    window_end: isoTime,
    samples: z.array(NodeMetricSampleSchema).min(1),
  }),
});

// ---------------------------------------------------------------------------------------------
// OpenLineage: every accepted RunEvent, JobEvent or DatasetEvent, as received (after lenient
// normalization), with the warnings its normalization produced.

export const OpenLineageEventIngested = z.object({
  type: z.literal('OpenLineageEventIngested'),
  data: z.object({
    kind: z.enum(['RunEvent', 'JobEvent', 'DatasetEvent']),
    /** Content key used to store a redelivered event once. */
    dedupe_key: z.string().min(1),
    event: z.record(z.string(), z.unknown()),
    warnings: z.array(z.string()),
  }),
});

// ---------------------------------------------------------------------------------------------
// Marquez API writes: `marquez-annotations` (issue 25 item 3; docs/marquez.md, "Writes"). Tags and
// deletions made through Marquez's API, on a dataset or job named by its OpenLineage identity. They
// are not graph node changes: a Marquez dataset or job may have no graph node (ingested only), and a
// node's attributes are the extraction's, replaced by each extraction, where a user's tag must stay.

/** A dataset or a job of the Marquez API, by its OpenLineage identity. */
const MarquezElementSchema = z.object({
  element: z.enum(['dataset', 'job']),
  namespace: z.string().min(1),
  name: z.string().min(1),
});
/** A tag put on a dataset, a dataset's field (`field`), or a job. */
export const MarquezTagAdded = z.object({
  type: z.literal('MarquezTagAdded'),
  data: MarquezElementSchema.extend({ field: z.string().min(1).nullable(), tag: z.string().min(1) }),
});
/** A tag taken off a dataset, a dataset's field (`field`), or a job. */
export const MarquezTagRemoved = z.object({
  type: z.literal('MarquezTagRemoved'),
  data: MarquezElementSchema.extend({ field: z.string().min(1).nullable(), tag: z.string().min(1) }),
});
/** A tag created, or its description changed (`PUT /api/v1/tags/{tag}`). */
export const MarquezTagDefined = z.object({
  type: z.literal('MarquezTagDefined'),
  data: z.object({ tag: z.string().min(1), description: z.string().nullable() }),
});
/**
 * A dataset or job deleted through Marquez's API: hidden from the Marquez reads until a later
 * OpenLineage event names it (Marquez's soft delete), or a later graph change records its node.
 */
export const MarquezElementDeleted = z.object({
  type: z.literal('MarquezElementDeleted'),
  data: MarquezElementSchema,
});

// ---------------------------------------------------------------------------------------------
// Tasks: `task-{task_id}`. Long-running work started through the API.

export const TASK_TYPES = ['extract', 'enrich'] as const;
export const TaskCreated = z.object({
  type: z.literal('TaskCreated'),
  data: z.object({
    task_id: z.string().min(1),
    task_type: z.enum(TASK_TYPES),
    /** What the task was asked to do; never credentials. */
    parameters: z.record(z.string(), z.unknown()),
    /** The process that runs the task (`process-{id}`); null or absent: no process (recorded before version 2). */
    owner_process_id: z.string().min(1).nullable().optional(),
  }),
});
export const TaskProgressed = z.object({
  type: z.literal('TaskProgressed'),
  data: z.object({ task_id: z.string().min(1), phase: z.string(), message: z.string().nullable() }),
});
export const TaskCompleted = z.object({
  type: z.literal('TaskCompleted'),
  data: z.object({ task_id: z.string().min(1), result: z.record(z.string(), z.unknown()) }),
});
export const TaskFailed = z.object({
  type: z.literal('TaskFailed'),
  data: z.object({ task_id: z.string().min(1), error: z.string() }),
});

// ---------------------------------------------------------------------------------------------
// Watchers: `watcher-{watcher_id}`. States follow the specification's watcher state table.

export const WATCHER_STATES = ['WATCHING', 'COOLDOWN', 'EXTRACTING', 'STOPPED'] as const;
export const WatcherStarted = z.object({
  type: z.literal('WatcherStarted'),
  data: z.object({
    watcher_id: z.string().min(1),
    environment_ids: z.array(z.string()).min(1),
    cluster_ids: z.array(z.string()),
    cooldown_seconds: z.number().nonnegative(),
    poll_interval_seconds: z.number().positive(),
    push: z.array(z.string()),
    /** The process that runs the watcher (`process-{id}`); null or absent: no process (recorded before version 2). */
    owner_process_id: z.string().min(1).nullable().optional(),
  }),
});
/**
 * Another process took over a watcher whose owner's lease expired (`LINEAGE_SVC_WATCHER_RESUME`):
 * the watcher is WATCHING again, run by `process_id`.
 */
export const WatcherClaimed = z.object({
  type: z.literal('WatcherClaimed'),
  data: z.object({
    watcher_id: z.string().min(1),
    process_id: z.string().min(1),
    /** The owner whose lease expired (null: a watcher recorded before owners existed). */
    previous_process_id: z.string().min(1).nullable(),
    reason: z.string(),
  }),
});
export const WatcherStateChanged = z.object({
  type: z.literal('WatcherStateChanged'),
  data: z.object({
    watcher_id: z.string().min(1),
    from: z.enum(WATCHER_STATES),
    to: z.enum(WATCHER_STATES),
    reason: z.string().nullable(),
  }),
});
/** Lineage-relevant changes found by one poll (topic created, connector updated, ...). */
export const WatcherChangesDetected = z.object({
  type: z.literal('WatcherChangesDetected'),
  data: z.object({
    watcher_id: z.string().min(1),
    changes: z
      .array(
        z.object({
          kind: z.enum(['created', 'updated', 'deleted']),
          resource_type: z.string(),
          resource_id: z.string(),
          environment_id: z.string().nullable(),
        }),
      )
      .min(1),
  }),
});
export const WatcherDeregistered = z.object({
  type: z.literal('WatcherDeregistered'),
  data: z.object({ watcher_id: z.string().min(1) }),
});

// ---------------------------------------------------------------------------------------------
// Processes: `process-{process_id}`. Every API or watch process records who it is and renews a lease;
// the tasks and watchers it runs are its own. Work whose owner's lease expired is interrupted (or
// resumed) by another process, once (`services/ownership.ts`, docs/architecture.md "Several processes").

export const PROCESS_KINDS = ['api', 'watch'] as const;
/** A process started and took its lease. */
export const ProcessStarted = z.object({
  type: z.literal('ProcessStarted'),
  data: z.object({
    process_id: z.string().min(1),
    kind: z.enum(PROCESS_KINDS),
    host: z.string(),
    pid: z.number().int().nonnegative(),
    /** ISO 8601 time the process started. */
    started_at: isoTime,
    /** Seconds the lease lasts after each renewal. */
    lease_seconds: z.number().positive(),
    /** ISO 8601 time the lease expires unless renewed. */
    expires_at: isoTime,
  }),
});
/** The process renewed its lease. */
export const ProcessLeaseRenewed = z.object({
  type: z.literal('ProcessLeaseRenewed'),
  data: z.object({ process_id: z.string().min(1), expires_at: isoTime }),
});
/** The process stopped cleanly; its lease is released at once. */
export const ProcessStopped = z.object({
  type: z.literal('ProcessStopped'),
  data: z.object({ process_id: z.string().min(1), reason: z.string() }),
});
/** Another process saw the lease expire (recorded once, by the first process to see it). */
export const ProcessLeaseExpired = z.object({
  type: z.literal('ProcessLeaseExpired'),
  data: z.object({
    process_id: z.string().min(1),
    /** The process that recorded the expiry. */
    detected_by: z.string().min(1),
    /** ISO 8601 time the lease had expired at. */
    expired_at: isoTime,
  }),
});

// ---------------------------------------------------------------------------------------------
// Publication: `publisher-checkpoint`. One process at a time publishes lineage changes; it claims the
// stream, then records how far it has published. Every append there expects the stream's revision,
// so that a process that lost its claim cannot move the checkpoint.

/** A process became the publisher (the previous one stopped, or its lease expired). */
export const PublisherClaimed = z.object({
  type: z.literal('PublisherClaimed'),
  data: z.object({ process_id: z.string().min(1), previous_process_id: z.string().min(1).nullable() }),
});
/** Every change up to `position` (global store position) has been published. */
export const PublisherCheckpointed = z.object({
  type: z.literal('PublisherCheckpointed'),
  data: z.object({
    process_id: z.string().min(1),
    position: z.number().int().nonnegative(),
    /** CloudEvents sent since the previous checkpoint. */
    published: z.number().int().nonnegative(),
  }),
});

/** The union of every event. */
export const LineageEventSchema = z.discriminatedUnion('type', [
  GraphCreated,
  GraphDeleted,
  NodesAdded,
  NodesChanged,
  NodesRemoved,
  EdgesAdded,
  EdgesChanged,
  EdgesRemoved,
  ExtractionStarted,
  ExtractionCompleted,
  ExtractionFailed,
  OpenLineageEventIngested,
  MarquezTagAdded,
  MarquezTagRemoved,
  MarquezTagDefined,
  MarquezElementDeleted,
  TaskCreated,
  TaskProgressed,
  TaskCompleted,
  TaskFailed,
  WatcherStarted,
  WatcherStateChanged,
  WatcherChangesDetected,
  WatcherDeregistered,
  WatcherClaimed,
  ProcessStarted,
  ProcessLeaseRenewed,
  ProcessStopped,
  ProcessLeaseExpired,
  PublisherClaimed,
  PublisherCheckpointed,
  MetricsSampled,
]);

/** Any event: `{ type, data }`. */
export type LineageEvent = z.infer<typeof LineageEventSchema>;
export type LineageEventType = LineageEvent['type'];
/** The event of one type. */
export type EventOf<T extends LineageEventType> = Extract<LineageEvent, { type: T }>;
/** An event as read back from the store: its data plus where and when it was recorded. */
export type StoredLineageEvent = LineageEvent &
  Pick<RecordedEvent, 'stream' | 'revision' | 'position' | 'recorded_at' | 'metadata'>;

/** Every event type, in declaration order. */
export const EVENT_TYPES: readonly LineageEventType[] = LineageEventSchema.options.map(
  (option) => option.shape.type.value,
);

/** The event types of a graph's stream (`graph-{id}`): what folds a graph, in declaration order. */
export const GRAPH_EVENT_TYPES = [
  'GraphCreated',
  'GraphDeleted',
  'NodesAdded',
  'NodesChanged',
  'NodesRemoved',
  'EdgesAdded',
  'EdgesChanged',
  'EdgesRemoved',
] as const satisfies readonly LineageEventType[];

/**
 * The current data-schema version of every event type (1 unless listed). Bump one when its data
 * schema changes. Version 2 of `TaskCreated` and `WatcherStarted` added `owner_process_id`.
 */
export const CURRENT_VERSIONS: Readonly<Record<LineageEventType, number>> = Object.fromEntries(
  EVENT_TYPES.map((type) => [type, ({ TaskCreated: 2, WatcherStarted: 2 } as Record<string, number>)[type] ?? 1]),
) as Record<LineageEventType, number>;

/** Turns the data of version `n` of an event type into version `n + 1`. */
export type Upcaster = (data: unknown) => unknown;

/** Adds `owner_process_id: null` (version 1 had no owner: such work belongs to no live process). */
const withoutOwner: Upcaster = (data) => ({ ...(data as Record<string, unknown>), owner_process_id: null });

/**
 * Upcasters by `"{type}@{version}"`, each lifting that version by one (see docs/events.md,
 * "Changing an event").
 */
export const UPCASTERS: ReadonlyMap<string, Upcaster> = new Map([
  ['TaskCreated@1', withoutOwner],
  ['WatcherStarted@1', withoutOwner],
]);

/** Current versions and the upcasters that reach them (tests pass their own). */
export interface UpcastRegistry {
  versions: Readonly<Record<string, number>>;
  upcasters: ReadonlyMap<string, Upcaster>;
}

const DEFAULT_REGISTRY: UpcastRegistry = { versions: CURRENT_VERSIONS, upcasters: UPCASTERS };

/**
 * Brings a recorded event's data to the current version of its type.
 * @throws ValidationError for an unknown type, a version newer than this build knows, or a missing upcaster.
 */
export function upcast(
  type: string,
  version: number,
  data: unknown,
  registry: UpcastRegistry = DEFAULT_REGISTRY,
): unknown {
  const { versions, upcasters } = registry;
  const current = versions[type as LineageEventType];
  if (current === undefined) throw new ValidationError(`unknown event type "${type}"`);
  if (version > current) {
    throw new ValidationError(`event "${type}" has version ${version}, newer than this build knows (${current})`);
  }
  let lifted = data;
  for (let at = version; at < current; at += 1) {
    const upcaster = upcasters.get(`${type}@${at}`);
    if (!upcaster) throw new ValidationError(`no upcaster for event "${type}" from version ${at}`);
    lifted = upcaster(lifted);
  }
  return lifted;
}

/**
 * Decodes a recorded event: upcasts it and validates it against the union.
 * @throws ValidationError when the stored event does not match its schema.
 */
export function decodeEvent(recorded: RecordedEvent, registry: UpcastRegistry = DEFAULT_REGISTRY): StoredLineageEvent {
  const data = upcast(recorded.type, recorded.version, recorded.data, registry);
  const parsed = LineageEventSchema.safeParse({ type: recorded.type, data });
  if (!parsed.success) {
    throw new ValidationError(
      `stored event ${recorded.stream}@${recorded.revision} (${recorded.type}) is invalid`,
      zodIssues(parsed.error),
    );
  }
  return {
    ...parsed.data,
    stream: recorded.stream,
    revision: recorded.revision,
    position: recorded.position,
    recorded_at: recorded.recorded_at,
    metadata: recorded.metadata,
  } as StoredLineageEvent;
}

/**
 * Decodes a recorded event whose data was validated when it was appended (our own store): upcasts it
 * but skips the schema check, which is what makes replay fast. Use `decodeEvent` for anything read
 * from outside.
 */
export function decodeTrustedEvent(recorded: RecordedEvent): StoredLineageEvent {
  const data =
    recorded.version === CURRENT_VERSIONS[recorded.type as LineageEventType]
      ? recorded.data
      : upcast(recorded.type, recorded.version, recorded.data);
  return {
    type: recorded.type,
    data,
    stream: recorded.stream,
    revision: recorded.revision,
    position: recorded.position,
    recorded_at: recorded.recorded_at,
    metadata: recorded.metadata,
  } as StoredLineageEvent;
}

/** Metadata for events about to be appended; a fresh event id is filled in per event. */
export type EventContext = Omit<EventMetadata, 'event_id'>;

/**
 * Validates events and wraps them for `EventStore.append`, stamping each with the current version
 * of its type and a fresh event id.
 * @throws ValidationError when an event does not match its schema (a bug in the caller).
 */
export function toAppend(events: readonly LineageEvent[], context: EventContext): EventToAppend[] {
  return toAppendTrusted(
    events.map((event) => {
      const parsed = LineageEventSchema.safeParse(event);
      if (!parsed.success) throw new ValidationError(`event ${event.type} is invalid`, zodIssues(parsed.error));
      return parsed.data;
    }),
    context,
  );
}

/**
 * `toAppend` without the parse, for events built only from values their schemas have parsed
 * already: an import's nodes and edges, validated once by `parseLineageGraph` (issue 16: the second
 * parse of a 100k-node graph file's 400,000 items took 270 ms of its start and a copy of each).
 */
export function toAppendTrusted(events: readonly LineageEvent[], context: EventContext): EventToAppend[] {
  const recorded = withoutUndefined(context);
  return events.map((event) => ({
    type: event.type,
    version: CURRENT_VERSIONS[event.type],
    data: event.data,
    metadata: { event_id: randomUUID(), ...recorded },
  }));
}

/** Stream names, one place for their shapes. */
export const streams = {
  graph: (graphId: string) => `graph-${graphId}`,
  extraction: (extractionId: string) => `extraction-${extractionId}`,
  task: (taskId: string) => `task-${taskId}`,
  watcher: (watcherId: string) => `watcher-${watcherId}`,
  openLineage: (key: string) => `openlineage-${key}`,
  /** Tags and deletions made through the Marquez API (one stream for the store). */
  marquez: 'marquez-annotations',
  process: (processId: string) => `process-${processId}`,
  /** A graph's metric samples (`MetricsSampled`), apart from its lineage. */
  metrics: (graphId: string) => `metrics-${graphId}`,
  /** The publisher's claims and checkpoints (one stream for the whole store). */
  publisherCheckpoint: 'publisher-checkpoint',
} as const;

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
