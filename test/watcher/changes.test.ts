/**
 * Change detection (`src/watcher/changes.ts`): every change kind the specification lists, nothing
 * else, and failed scopes never turning into deletions or creations.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  detectChanges,
  fingerprintEstate,
  reconcile,
  scopeOf,
  type EstateInventory,
} from '../../src/watcher/changes.js';

const ENV = 'env-1';
function estate(patch: Partial<EstateInventory> = {}): EstateInventory {
  return {
    topics: [{ environmentId: ENV, clusterId: 'lkc-1', name: 'orders' }],
    connectors: [
      {
        environmentId: ENV,
        clusterId: 'lkc-1',
        name: 'pg-source',
        config: { 'connector.class': 'PostgresCdcSource', 'kafka.topic': 'orders' },
      },
    ],
    sqlClusters: [{ environmentId: ENV, id: 'lksqlc-1' }],
    statements: [
      {
        environmentId: ENV,
        name: 'enrich',
        sql: 'INSERT INTO b SELECT * FROM a',
        properties: { 'sql.current-database': 'c1' },
        stopped: false,
        phase: 'RUNNING',
      },
    ],
    schemas: [{ environmentId: ENV, registryId: 'lsrc-1', subject: 'orders-value', version: 1, id: 100001 }],
    failedScopes: [],
    ...patch,
  };
}
const detect = (before: EstateInventory, after: EstateInventory) =>
  detectChanges(fingerprintEstate(before), fingerprintEstate(after));

describe('detectChanges', () => {
  it('reports nothing for the same estate, whatever the listing order', () => {
    const base = estate();
    const reordered = estate({
      connectors: [
        { ...base.connectors[0]!, config: { 'kafka.topic': 'orders', 'connector.class': 'PostgresCdcSource' } },
      ],
    });
    assert.deepEqual(detect(base, reordered), []);
  });

  it('detects topic create and delete, never a topic update', () => {
    const created = detect(
      estate(),
      estate({ topics: [...estate().topics, { environmentId: ENV, clusterId: 'lkc-1', name: 'payments' }] }),
    );
    assert.deepEqual(created, [
      { kind: 'created', resource_type: 'topic', resource_id: 'lkc-1/payments', environment_id: ENV },
    ]);
    assert.deepEqual(detect(estate(), estate({ topics: [] })), [
      { kind: 'deleted', resource_type: 'topic', resource_id: 'lkc-1/orders', environment_id: ENV },
    ]);
  });

  it('detects connector create, update (config) and delete, not state changes', () => {
    const extra = { environmentId: ENV, clusterId: 'lkc-1', name: 's3-sink', config: { topics: 'orders' } };
    assert.deepEqual(
      detect(estate(), estate({ connectors: [...estate().connectors, extra] })).map((c) => [c.kind, c.resource_id]),
      [['created', 'lkc-1/s3-sink']],
    );
    const updated = estate({
      connectors: [
        { ...estate().connectors[0]!, config: { 'connector.class': 'PostgresCdcSource', 'kafka.topic': 'orders_v2' } },
      ],
    });
    assert.deepEqual(detect(estate(), updated), [
      { kind: 'updated', resource_type: 'connector', resource_id: 'lkc-1/pg-source', environment_id: ENV },
    ]);
    assert.deepEqual(
      detect(estate(), estate({ connectors: [] })).map((c) => c.kind),
      ['deleted'],
    );
  });

  it('detects ksqlDB cluster create and delete', () => {
    assert.deepEqual(detect(estate({ sqlClusters: [] }), estate()), [
      { kind: 'created', resource_type: 'sql_cluster', resource_id: 'lksqlc-1', environment_id: ENV },
    ]);
    assert.deepEqual(detect(estate(), estate({ sqlClusters: [] })), [
      { kind: 'deleted', resource_type: 'sql_cluster', resource_id: 'lksqlc-1', environment_id: ENV },
    ]);
  });

  it('detects Flink statement create, update (SQL or phase) and delete', () => {
    const statement = estate().statements[0]!;
    assert.deepEqual(
      detect(estate({ statements: [] }), estate()).map((c) => [c.kind, c.resource_type]),
      [['created', 'stream_job']],
    );
    assert.deepEqual(
      detect(estate(), estate({ statements: [{ ...statement, sql: 'INSERT INTO c SELECT * FROM a' }] })).map(
        (c) => c.kind,
      ),
      ['updated'],
    );
    assert.deepEqual(
      detect(estate(), estate({ statements: [{ ...statement, phase: 'STOPPED' }] })).map((c) => c.kind),
      ['updated'],
    );
    assert.deepEqual(
      detect(estate(), estate({ statements: [] })).map((c) => [c.kind, c.resource_id]),
      [['deleted', 'enrich']],
    );
  });

  it('detects schema registration (new subject, new version) but not schema deletion', () => {
    const schema = estate().schemas[0]!;
    assert.deepEqual(
      detect(estate(), estate({ schemas: [schema, { ...schema, subject: 'payments-value', id: 100002 }] })),
      [{ kind: 'created', resource_type: 'schema', resource_id: 'lsrc-1/payments-value', environment_id: ENV }],
    );
    assert.deepEqual(
      detect(estate(), estate({ schemas: [{ ...schema, version: 2, id: 100009 }] })).map((c) => [
        c.kind,
        c.resource_id,
      ]),
      [['updated', 'lsrc-1/orders-value']],
    );
    assert.deepEqual(detect(estate(), estate({ schemas: [] })), []);
  });

  it('never reports resources of a failed scope as deleted, and keeps them in the baseline', () => {
    const before = fingerprintEstate(estate());
    const failed = fingerprintEstate(
      estate({
        topics: [],
        connectors: [],
        failedScopes: [scopeOf.topics(ENV, 'lkc-1'), scopeOf.connectors(ENV, 'lkc-1')],
      }),
    );
    assert.deepEqual(detectChanges(before, failed), []);
    const baseline = reconcile(before, failed);
    assert.equal(baseline.resources.size, before.resources.size);
    assert.deepEqual(detectChanges(baseline, fingerprintEstate(estate())), []);
    const envFailed = fingerprintEstate({
      ...estate({ topics: [], connectors: [], sqlClusters: [], statements: [], schemas: [] }),
      failedScopes: [scopeOf.environment(ENV)],
    });
    assert.deepEqual(detectChanges(before, envFailed), []);
  });

  it('adopts silently what a first poll could not read', () => {
    const first = fingerprintEstate(estate({ topics: [], failedScopes: [scopeOf.topics(ENV, 'lkc-1')] }));
    assert.deepEqual(detectChanges(first, fingerprintEstate(estate())), []);
    const stillFailing = reconcile(
      first,
      fingerprintEstate(estate({ topics: [], failedScopes: [scopeOf.topics(ENV, 'lkc-1')] })),
    );
    assert.deepEqual([...stillFailing.failedScopes], [scopeOf.topics(ENV, 'lkc-1')]);
    const read = reconcile(first, fingerprintEstate(estate()));
    assert.deepEqual([...read.failedScopes], []);
    assert.deepEqual(
      detectChanges(read, fingerprintEstate(estate({ topics: [] }))).map((c) => c.kind),
      ['deleted'],
    );
  });
});
