/** The order in which readers trust a topic's schemas (`src/graph/schemas.ts`). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Edge } from '../../src/graph/model.js';
import { schemaEdgesValueFirst } from '../../src/graph/schemas.js';

const edge = (dst: string, attributes: Record<string, unknown>): Edge =>
  ({ src_id: 'topic', dst_id: dst, edge_type: 'HAS_SCHEMA', attributes }) as Edge;

describe('schemaEdgesValueFirst', () => {
  it("puts the topic's own value subject first and RecordNameStrategy links last", () => {
    const ordered = schemaEdgesValueFirst([
      edge('record-value', { role: 'value', strategy: 'RecordNameStrategy' }),
      edge('own-key', { role: 'key' }),
      { src_id: 'topic', dst_id: 'consumer', edge_type: 'CONSUMES', attributes: null } as Edge,
      edge('record-key', { role: 'key', strategy: 'RecordNameStrategy' }),
      edge('own-value', { role: 'value' }),
    ]);
    assert.deepEqual(
      ordered.map((e) => e.dst_id),
      ['own-value', 'own-key', 'record-value', 'record-key'],
    );
  });
});
