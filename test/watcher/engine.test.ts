/**
 * The watcher engine (`src/watcher/watcher.ts`) on a fake clock: baseline poll, initial extraction,
 * detection, batching in one extraction, changes during an extraction, pushes, stop, and the
 * events it records.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LineageEvent } from '../../src/events.js';
import type { EstateInventory } from '../../src/watcher/changes.js';
import { createWatcher, type ExtractionSummary } from '../../src/watcher/watcher.js';
import { ManualClock } from '../helpers/clock.js';

const ENV = 'env-1';
function inventory(topics: string[], connectorTopic = 'orders'): EstateInventory {
  return {
    topics: topics.map((name) => ({ environmentId: ENV, clusterId: 'lkc-1', name })),
    connectors: [{ environmentId: ENV, clusterId: 'lkc-1', name: 'sink', config: { topics: connectorTopic } }],
    sqlClusters: [],
    statements: [],
    schemas: [],
    failedScopes: [],
  };
}

function harness(
  options: {
    cooldownSeconds?: number;
    pollIntervalSeconds?: number;
    push?: string[];
    extractGate?: () => Promise<void>;
  } = {},
) {
  const timers = new ManualClock();
  let estate = inventory(['orders']);
  const events: LineageEvent[] = [];
  const logs: string[] = [];
  const pushed: string[] = [];
  let extractions = 0;
  const engine = createWatcher({
    watcherId: 'w-1',
    settings: {
      environmentIds: [ENV],
      clusterIds: [],
      cooldownSeconds: options.cooldownSeconds ?? 30,
      pollIntervalSeconds: options.pollIntervalSeconds ?? 10,
      push: options.push ?? [],
    },
    poll: async () => structuredClone(estate),
    extract: async (): Promise<ExtractionSummary> => {
      extractions += 1;
      await options.extractGate?.();
      return { extractionId: `x-${extractions}`, graphId: 'g', nodeCount: 1, edgeCount: 0, graphRevision: extractions };
    },
    push: async (catalogType) => {
      if (catalogType === 'DATALAKE_CATALOG') throw new Error('datalake down');
      pushed.push(catalogType);
    },
    record: async (batch) => {
      events.push(...batch);
    },
    timers,
    onLog: (entry) => logs.push(`${entry.type}: ${entry.message}`),
  });
  return {
    timers,
    engine,
    events,
    logs,
    pushed,
    get extractions() {
      return extractions;
    },
    setEstate(next: EstateInventory) {
      estate = next;
    },
    transitions: () =>
      events.flatMap((event) => (event.type === 'WatcherStateChanged' ? [`${event.data.from}->${event.data.to}`] : [])),
  };
}

describe('watcher engine', () => {
  it('records WatcherStarted, extracts once at start, and then waits for changes', async () => {
    const h = harness();
    await h.engine.start();
    assert.equal(h.events[0]?.type, 'WatcherStarted');
    await h.timers.advance(0);
    assert.equal(h.extractions, 1);
    assert.deepEqual(h.transitions(), ['WATCHING->EXTRACTING', 'EXTRACTING->WATCHING']);
    await h.timers.advance(60_000);
    assert.equal(h.extractions, 1, 'no change, no extraction');
    assert.equal(h.engine.state, 'WATCHING');
  });

  it('batches changes of several polls into one extraction after the cooldown since the last change', async () => {
    const h = harness({ cooldownSeconds: 30, pollIntervalSeconds: 10 });
    await h.engine.start();
    await h.timers.advance(0);
    h.setEstate(inventory(['orders', 'payments']));
    await h.timers.advance(10_000); // poll 1 finds the topic
    assert.equal(h.engine.state, 'COOLDOWN');
    await h.timers.advance(10_000); // poll 2 (20 s): nothing new
    h.setEstate(inventory(['orders', 'payments'], 'payments'));
    await h.timers.advance(10_000); // poll 3 (30 s) finds the connector update: the timer restarts
    assert.equal(h.engine.state, 'COOLDOWN');
    await h.timers.advance(29_000); // 59 s: 29 s after the last change
    assert.equal(h.extractions, 1);
    await h.timers.advance(1_000); // 60 s: cooldown elapsed
    assert.equal(h.extractions, 2);
    assert.equal(h.engine.state, 'WATCHING');
    assert.deepEqual(h.transitions(), [
      'WATCHING->EXTRACTING',
      'EXTRACTING->WATCHING',
      'WATCHING->COOLDOWN',
      'COOLDOWN->EXTRACTING',
      'EXTRACTING->WATCHING',
    ]);
    const detected = h.events.flatMap((event) =>
      event.type === 'WatcherChangesDetected'
        ? event.data.changes.map((c) => `${c.kind} ${c.resource_type} ${c.resource_id}`)
        : [],
    );
    assert.deepEqual(detected, ['created topic lkc-1/payments', 'updated connector lkc-1/sink']);
    assert.ok(
      h.logs.some((line) => /COOLDOWN -> EXTRACTING: cooldown of 30 s elapsed; 2 change\(s\) batched/.test(line)),
      h.logs.join('\n'),
    );
  });

  it('goes to COOLDOWN after an extraction during which changes arrived', async () => {
    let release!: () => void;
    let gated = false;
    const h = harness({
      cooldownSeconds: 5,
      pollIntervalSeconds: 1,
      extractGate: () => (gated ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve()),
    });
    await h.engine.start();
    await h.timers.advance(0);
    gated = true;
    h.setEstate(inventory(['orders', 'a']));
    await h.timers.advance(1_000); // change
    await h.timers.advance(5_000); // cooldown elapsed: extraction 2 starts and hangs
    assert.equal(h.engine.state, 'EXTRACTING');
    h.setEstate(inventory(['orders', 'a', 'b']));
    await h.timers.advance(1_000); // change during the extraction
    assert.equal(h.engine.state, 'EXTRACTING');
    release();
    await h.timers.advance(0);
    assert.equal(h.engine.state, 'COOLDOWN');
    gated = false;
    await h.timers.advance(5_000);
    assert.equal(h.extractions, 3);
    assert.equal(h.engine.state, 'WATCHING');
  });

  it('pushes after each extraction; a failed push is logged and does not stop the watcher', async () => {
    const h = harness({ push: ['LAKEHOUSE_CATALOG', 'DATALAKE_CATALOG'] });
    await h.engine.start();
    await h.timers.advance(0);
    assert.deepEqual(h.pushed, ['LAKEHOUSE_CATALOG']);
    assert.ok(h.logs.includes('push: push to DATALAKE_CATALOG failed: datalake down'));
    assert.equal(h.engine.state, 'WATCHING');
  });

  it('stops: STOPPED is recorded, no more polls or extractions', async () => {
    const h = harness({ pollIntervalSeconds: 1, cooldownSeconds: 1 });
    await h.engine.start();
    await h.timers.advance(0);
    h.setEstate(inventory(['orders', 'x']));
    await h.timers.advance(1_000);
    assert.equal(h.engine.state, 'COOLDOWN');
    await h.engine.stop('interrupted');
    await h.timers.advance(10_000);
    assert.equal(h.extractions, 1);
    const last = h.events.at(-1);
    assert.deepEqual(last, {
      type: 'WatcherStateChanged',
      data: { watcher_id: 'w-1', from: 'COOLDOWN', to: 'STOPPED', reason: 'interrupted' },
    });
    await h.engine.stop('again');
    assert.equal(h.events.at(-1), last, 'stopping twice records nothing more');
  });

  it('keeps watching when a poll or the extraction fails', async () => {
    const timers = new ManualClock();
    const events: LineageEvent[] = [];
    let polls = 0;
    const engine = createWatcher({
      watcherId: 'w-2',
      settings: { environmentIds: [ENV], clusterIds: [], cooldownSeconds: 1, pollIntervalSeconds: 1, push: [] },
      poll: async () => {
        polls += 1;
        if (polls === 2) throw new Error('network down');
        return inventory(polls >= 3 ? ['orders', 'new'] : ['orders']);
      },
      extract: async () => {
        throw new Error('platform unreachable');
      },
      record: async (batch) => {
        events.push(...batch);
      },
      timers,
    });
    await engine.start();
    await timers.advance(0);
    await timers.advance(3_000);
    const reasons = events.flatMap((event) => (event.type === 'WatcherStateChanged' ? [event.data.reason] : []));
    assert.equal(reasons[1], 'extraction failed: platform unreachable');
    assert.ok(events.some((event) => event.type === 'WatcherChangesDetected'));
    assert.ok(polls >= 3);
    await engine.stop('done');
  });
});
