/**
 * GROUP BY and ksqlDB PARTITION BY keys are INDIRECT inputs of every output column (issue 26,
 * item 6: they were never reported): kind `group_by`, OpenLineage INDIRECT/GROUP_BY.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { columnEntries } from '../helpers/columnLineage.js';
import { COLUMN_TRANSFORMATIONS } from '../../src/openlineage/fromGraph.js';

describe('group-by keys are indirect inputs', () => {
  it('gives every output of a Flink GROUP BY its keys', () => {
    assert.deepEqual(
      columnEntries(
        'INSERT INTO totals SELECT customer_id, SUM(amount) AS total FROM orders WHERE status <> 1 GROUP BY customer_id',
        'flink',
      ),
      [
        ['customer_id', 'identity', ['orders.customer_id']],
        ['customer_id', 'filter', ['orders.status']],
        ['customer_id', 'group_by', ['orders.customer_id']],
        ['total', 'aggregation', ['orders.amount']],
        ['total', 'filter', ['orders.status']],
        ['total', 'group_by', ['orders.customer_id']],
      ],
    );
    assert.deepEqual(COLUMN_TRANSFORMATIONS.group_by, { type: 'INDIRECT', subtype: 'GROUP_BY' });
  });

  it('does the same for ksqlDB GROUP BY and PARTITION BY', () => {
    assert.deepEqual(
      columnEntries(
        'CREATE TABLE per_user AS SELECT user_id, COUNT(*) AS clicks FROM clicks GROUP BY user_id EMIT CHANGES;',
        'ksql',
      ),
      [
        ['USER_ID', 'identity', ['CLICKS.USER_ID']],
        ['USER_ID', 'group_by', ['CLICKS.USER_ID']],
        ['CLICKS', 'group_by', ['CLICKS.USER_ID']],
      ],
    );
    assert.deepEqual(
      columnEntries(
        'CREATE STREAM by_page AS SELECT page, user_id FROM clicks PARTITION BY page EMIT CHANGES;',
        'ksql',
      ).filter(([, kind]) => kind === 'group_by'),
      [
        ['PAGE', 'group_by', ['CLICKS.PAGE']],
        ['USER_ID', 'group_by', ['CLICKS.PAGE']],
      ],
    );
  });
});
