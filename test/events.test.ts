import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValidationError } from '../src/errors.js';
import type { RecordedEvent } from '../src/eventStore.js';
import {
  CURRENT_VERSIONS,
  EVENT_TYPES,
  decodeEvent,
  decodeTrustedEvent,
  streams,
  toAppend,
  upcast,
  type LineageEvent,
} from '../src/events.js';
import { sampleGraph } from './helpers/sampleGraph.js';

const graphId = '7d9f0c1e-0000-4000-8000-000000000001';

function recorded(event: { type: string; version: number; data: unknown }, revision = 0): RecordedEvent {
  return {
    ...event,
    metadata: { event_id: 'e1', cause: 'api' },
    stream: streams.graph(graphId),
    revision,
    position: revision + 1,
    recorded_at: '2026-11-22T10:00:00.000Z',
  };
}

describe('events', () => {
  it('declares every event once, each at a known version', () => {
    assert.equal(new Set(EVENT_TYPES).size, EVENT_TYPES.length);
    for (const required of [
      'GraphCreated',
      'GraphDeleted',
      'NodesAdded',
      'NodesChanged',
      'NodesRemoved',
      'EdgesAdded',
      'EdgesChanged',
      'EdgesRemoved',
      'ExtractionStarted',
      'ExtractionCompleted',
      'ExtractionFailed',
      'OpenLineageEventIngested',
      'TaskCreated',
      'TaskCompleted',
      'TaskFailed',
      'WatcherStarted',
      'WatcherStateChanged',
    ]) {
      assert.ok(EVENT_TYPES.includes(required as never), `${required} is declared`);
      // Version 2 of TaskCreated and WatcherStarted added their owner process (issue 12).
      assert.equal(
        CURRENT_VERSIONS[required as LineageEvent['type']],
        ['TaskCreated', 'WatcherStarted'].includes(required) ? 2 : 1,
      );
    }
  });

  it('stamps events for appending with version, fresh ids and the context', () => {
    const [first, second] = toAppend(
      [
        { type: 'GraphCreated', data: { graph_id: graphId, name: 'prod', description: null } },
        { type: 'NodesAdded', data: { graph_id: graphId, nodes: sampleGraph().nodes } },
      ],
      { correlation_id: 'c-1', cause: 'import', actor: 'cli', causation_id: undefined },
    );
    assert.equal(first!.version, 1);
    assert.notEqual(first!.metadata.event_id, second!.metadata.event_id);
    assert.deepEqual(
      { ...first!.metadata, event_id: 'x' },
      { event_id: 'x', correlation_id: 'c-1', cause: 'import', actor: 'cli' },
    );
  });

  it('refuses to append an event that breaks its schema', () => {
    assert.throws(
      () => toAppend([{ type: 'NodesAdded', data: { graph_id: graphId, nodes: [] } }], {}),
      (error: unknown) => error instanceof ValidationError && error.issues.some((issue) => issue.path === 'data.nodes'),
    );
  });

  it('decodes stored events and rejects damaged ones', () => {
    const good = decodeEvent(recorded({ type: 'GraphDeleted', version: 1, data: { graph_id: graphId } }));
    assert.equal(good.type, 'GraphDeleted');
    assert.equal(good.recorded_at, '2026-11-22T10:00:00.000Z');
    assert.throws(
      () => decodeEvent(recorded({ type: 'GraphDeleted', version: 1, data: {} })),
      /GraphDeleted\) is invalid/,
    );
    assert.throws(
      () => decodeEvent(recorded({ type: 'Nonsense', version: 1, data: {} })),
      /unknown event type "Nonsense"/,
    );
    assert.throws(
      () => decodeEvent(recorded({ type: 'GraphDeleted', version: 9, data: { graph_id: graphId } })),
      /newer than this build knows/,
    );
  });

  it('upcasts old versions step by step to the current one', () => {
    // A registry in which GraphCreated is at version 3: v1 had `title`, v2 renamed it `name`, v3 added `description`.
    const registry = {
      versions: { ...CURRENT_VERSIONS, GraphCreated: 3 },
      upcasters: new Map<string, (data: unknown) => unknown>([
        [
          'GraphCreated@1',
          (data: unknown) => {
            const { title, ...rest } = data as { title: string };
            return { ...rest, name: title };
          },
        ],
        ['GraphCreated@2', (data: unknown) => ({ ...(data as object), description: null })],
      ]),
    };
    assert.deepEqual(upcast('GraphCreated', 1, { graph_id: graphId, title: 'prod' }, registry), {
      graph_id: graphId,
      name: 'prod',
      description: null,
    });
    const decoded = decodeEvent(
      recorded({ type: 'GraphCreated', version: 1, data: { graph_id: graphId, title: 'prod' } }),
      registry,
    );
    assert.deepEqual(decoded.data, { graph_id: graphId, name: 'prod', description: null });
    assert.throws(
      () => upcast('GraphCreated', 1, {}, { versions: registry.versions, upcasters: new Map() }),
      /no upcaster for event "GraphCreated" from version 1/,
    );
  });

  it('decodes trusted events without re-validating them', () => {
    const event = decodeTrustedEvent(
      recorded({ type: 'NodesRemoved', version: 1, data: { graph_id: graphId, node_ids: ['a'] } }, 4),
    );
    assert.equal(event.revision, 4);
    assert.deepEqual(event.data, { graph_id: graphId, node_ids: ['a'] });
  });
});
