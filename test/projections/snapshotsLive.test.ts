/**
 * `followGraphSnapshots` (`projections/snapshots.ts`): the live projection's snapshots are taken at
 * their points, only for events applied live and only for graphs seen from revision 0, and the
 * states they hold equal the fold from the start. Also: taking a snapshot deletes the older-format
 * ones up to it, never those of a format this code cannot order (a newer build's).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { createMemoryEventStore } from '../../infra/eventStore/memoryEventStore.js';
import { streams, toAppend, type LineageEvent } from '../../src/events.js';
import { topicId } from '../../src/graph/ids.js';
import type { Node } from '../../src/graph/model.js';
import { createGraphProjection, foldGraphAsOf, toLineageGraph } from '../../projections/graphProjection.js';
import { createProjector } from '../../projections/projector.js';
import {
  GRAPH_SNAPSHOT_FORMAT,
  decodeSnapshot,
  followGraphSnapshots,
  graphSnapshotKey,
  isOlderFormat,
  snapshotWritesSettled,
  writeGraphSnapshots,
} from '../../projections/snapshots.js';

const node = (index: number, version: number): Node => ({
  id: topicId('env-1', 'lkc-1', `topic-${index}`),
  node_type: 'TOPIC',
  system: 'STREAM',
  qualified_name: `topic-${index}`,
  display_name: `topic-${index}`,
  environment_id: 'env-1',
  cluster_id: 'lkc-1',
  attributes: { version },
});

/** Appends `count` one-node changes to graph `graphId` (created first when `create`). */
async function changes(
  store: ReturnType<typeof createMemoryEventStore>,
  graphId: string,
  count: number,
  create = false,
) {
  const events: LineageEvent[] = create
    ? [{ type: 'GraphCreated', data: { graph_id: graphId, name: 'live', description: null } }]
    : [];
  for (let index = 0; index < count; index += 1) {
    events.push({ type: 'NodesAdded', data: { graph_id: graphId, nodes: [node(index % 4, index)] } });
  }
  const context = { correlation_id: randomUUID(), cause: 'api' };
  return store.append(streams.graph(graphId), toAppend(events, context));
}

describe('followGraphSnapshots', () => {
  it('takes the snapshots of live events at every point, equal to the fold from the start', async () => {
    const store = createMemoryEventStore();
    const [early, late] = [randomUUID(), randomUUID()];
    await changes(store, early, 4, true); // revisions 0..4, folded while catching up
    const projection = createGraphProjection();
    const projector = createProjector({ store, projections: [projection] });
    const stop = followGraphSnapshots({ projector, projection, store, interval: 3 });
    await projector.start();
    await changes(store, early, 5); // revisions 5..9: points 5 and 8 are live
    const last = await changes(store, late, 6, true); // revisions 0..6: points 2 and 5
    await projector.waitFor(last.position);
    await snapshotWritesSettled();
    const revisions = async (graphId: string) =>
      (await store.snapshots.list(graphSnapshotKey(graphId))).map((row) => row.revision);
    assert.deepEqual(await revisions(early), [5, 8], 'point 2 was passed while catching up');
    assert.deepEqual(await revisions(late), [2, 5]);
    for (const row of await store.snapshots.list(graphSnapshotKey(late))) {
      const restored = decodeSnapshot((await store.snapshots.read(row.key, row.format, row.revision))!);
      const folded = await foldGraphAsOf(store, late, { revision: row.revision });
      assert.deepEqual(toLineageGraph(restored), toLineageGraph(folded));
      assert.equal(restored.position, folded.position);
      assert.equal(row.format, GRAPH_SNAPSHOT_FORMAT);
    }
    stop();
    await projector.stop();
    await store.close();
  });

  it('leaves alone a graph the projector delivered from the middle of its stream', async () => {
    const store = createMemoryEventStore();
    const graphId = randomUUID();
    const first = await changes(store, graphId, 2, true);
    const projection = createGraphProjection();
    // The projector starts after revision 2 (as if its checkpoint were there): revisions 0..2 are never seen.
    Object.defineProperty(projection, 'position', { value: first.position });
    const projector = createProjector({ store, projections: [projection] });
    const stop = followGraphSnapshots({ projector, projection, store, interval: 3 });
    await projector.start();
    const last = await changes(store, graphId, 6);
    await projector.waitFor(last.position);
    await snapshotWritesSettled();
    assert.deepEqual(await store.snapshots.list(graphSnapshotKey(graphId)), []);
    stop();
    await projector.stop();
    await store.close();
  });

  it('deletes older-format snapshots up to the one it takes, and keeps newer or foreign ones', async () => {
    const store = createMemoryEventStore();
    const graphId = randomUUID();
    await changes(store, graphId, 6, true); // revisions 0..6
    const key = graphSnapshotKey(graphId);
    const versions = GRAPH_SNAPSHOT_FORMAT.split(';')[1]!;
    const layout = Number(/^graph-(\d+);/.exec(GRAPH_SNAPSHOT_FORMAT)![1]);
    const bumped = versions.split('.').map((version, at) => (at === 0 ? Number(version) + 1 : Number(version)));
    const formats = {
      olderLayout: `graph-${layout - 1};${versions}`,
      newerLayout: `graph-${layout + 1};${versions}`,
      newerEvents: `graph-${layout};${bumped.join('.')}`,
      foreign: 'graph-0;stale',
    };
    assert.equal(isOlderFormat(formats.olderLayout), true);
    assert.equal(isOlderFormat(GRAPH_SNAPSHOT_FORMAT), false);
    assert.equal(isOlderFormat(formats.newerLayout), false);
    assert.equal(isOlderFormat(formats.newerEvents), false);
    assert.equal(isOlderFormat(formats.foreign), false);
    const put = (format: string, revision: number) =>
      store.snapshots.put(
        { key, format, revision, position: 1, recorded_at: '2026-01-01T00:00:00.000Z' },
        new Uint8Array([1]),
      );
    for (const format of Object.values(formats)) await put(format, 2);
    await put(formats.olderLayout, 100);
    await writeGraphSnapshots(store, graphId, { interval: 3 });
    const rows = (await store.snapshots.list(key)).map((row) => `${row.format}@${row.revision}`).sort();
    const expected = [
      `${GRAPH_SNAPSHOT_FORMAT}@2`,
      `${GRAPH_SNAPSHOT_FORMAT}@5`,
      `${formats.newerLayout}@2`,
      `${formats.newerEvents}@2`,
      `${formats.foreign}@2`,
      `${formats.olderLayout}@100`,
    ].sort();
    assert.deepEqual(rows, expected);
    await store.close();
  });
});
