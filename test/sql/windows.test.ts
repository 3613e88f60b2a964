/**
 * Window columns are INDIRECT inputs (issue 26, item 6: they were never reported): the time
 * attribute of a Flink window TVF (DESCRIPTOR), of a group window (`GROUP BY TUMBLE(ts, ...)`) and of
 * a ksqlDB `WINDOW` (the record timestamp: ROWTIME, or the stream's TIMESTAMP column), SESSION's
 * PARTITION BY keys, and an OVER window's PARTITION BY / ORDER BY, with kind `window`
 * (OpenLineage INDIRECT/WINDOW). window_start / window_end / WINDOWSTART / WINDOWEND stay DIRECT
 * transformations of the time attribute.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { columnEntries } from '../helpers/columnLineage.js';
import { COLUMN_TRANSFORMATIONS } from '../../src/openlineage/fromGraph.js';

describe('window columns are indirect inputs', () => {
  it('maps kind window to OpenLineage INDIRECT/WINDOW', () => {
    assert.deepEqual(COLUMN_TRANSFORMATIONS.window, { type: 'INDIRECT', subtype: 'WINDOW' });
  });

  it('a TUMBLE TVF: the DESCRIPTOR column windows every output (GROUP BY window_start, window_end too); the bounds derive from it', () => {
    assert.deepEqual(
      columnEntries(
        'INSERT INTO revenue_1m SELECT window_start, window_end, currency, SUM(amount) AS revenue ' +
          "FROM TABLE(TUMBLE(TABLE payments, DESCRIPTOR(paid_at), INTERVAL '1' MINUTES)) " +
          'GROUP BY window_start, window_end, currency',
      ),
      [
        ['window_start', 'transformation', ['payments.paid_at']],
        ['window_start', 'group_by', ['payments.currency']],
        ['window_start', 'window', ['payments.paid_at']],
        ['window_end', 'transformation', ['payments.paid_at']],
        ['window_end', 'group_by', ['payments.currency']],
        ['window_end', 'window', ['payments.paid_at']],
        ['currency', 'identity', ['payments.currency']],
        ['currency', 'group_by', ['payments.currency']],
        ['currency', 'window', ['payments.paid_at']],
        ['revenue', 'aggregation', ['payments.amount']],
        ['revenue', 'group_by', ['payments.currency']],
        ['revenue', 'window', ['payments.paid_at']],
      ],
    );
  });

  it('HOP and CUMULATE with named arguments, SESSION with its PARTITION BY keys', () => {
    for (const call of [
      "HOP(DATA => TABLE views, TIMECOL => DESCRIPTOR(viewed_at), SLIDE => INTERVAL '1' MINUTES, SIZE => INTERVAL '5' MINUTES)",
      "CUMULATE(TABLE views, DESCRIPTOR(viewed_at), INTERVAL '1' MINUTES, INTERVAL '1' HOURS)",
    ])
      assert.deepEqual(
        columnEntries(`INSERT INTO counts SELECT window_time, page FROM TABLE(${call})`).filter(
          ([, kind]) => kind === 'window',
        ),
        [
          ['window_time', 'window', ['views.viewed_at']],
          ['page', 'window', ['views.viewed_at']],
        ],
      );
    assert.deepEqual(
      columnEntries(
        'INSERT INTO sessions SELECT user_id, window_end, COUNT(*) AS clicks ' +
          "FROM TABLE(SESSION(TABLE clicks PARTITION BY user_id, DESCRIPTOR(clicked_at), INTERVAL '10' MINUTES)) " +
          'GROUP BY user_id, window_start, window_end',
      ).filter(([, kind]) => kind === 'window'),
      [
        ['user_id', 'window', ['clicks.clicked_at', 'clicks.user_id']],
        ['window_end', 'window', ['clicks.clicked_at', 'clicks.user_id']],
        ['clicks', 'window', ['clicks.clicked_at', 'clicks.user_id']],
      ],
    );
  });

  it('a group window: GROUP BY TUMBLE(ts, ...) windows on ts, not groups; TUMBLE_START derives from ts', () => {
    assert.deepEqual(
      columnEntries(
        "INSERT INTO hourly SELECT TUMBLE_START(ts, INTERVAL '1' HOUR) AS hour_start, sensor, AVG(reading) AS mean " +
          "FROM readings GROUP BY TUMBLE(ts, INTERVAL '1' HOUR), sensor",
      ),
      [
        ['hour_start', 'transformation', ['readings.ts']],
        ['hour_start', 'group_by', ['readings.sensor']],
        ['hour_start', 'window', ['readings.ts']],
        ['sensor', 'identity', ['readings.sensor']],
        ['sensor', 'group_by', ['readings.sensor']],
        ['sensor', 'window', ['readings.ts']],
        ['mean', 'aggregation', ['readings.reading']],
        ['mean', 'group_by', ['readings.sensor']],
        ['mean', 'window', ['readings.ts']],
      ],
    );
  });

  it("an OVER window's PARTITION BY and ORDER BY are window inputs of its column only, inline or named", () => {
    const expected: Array<[string, string, string[]]> = [
      ['trade_id', 'identity', ['trades.trade_id']],
      ['moving_sum', 'aggregation', ['trades.price']],
      ['moving_sum', 'window', ['trades.symbol', 'trades.traded_at']],
    ];
    assert.deepEqual(
      columnEntries(
        'INSERT INTO moving SELECT trade_id, SUM(price) OVER (PARTITION BY symbol ORDER BY traded_at ' +
          "RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) AS moving_sum FROM trades",
      ),
      expected,
    );
    assert.deepEqual(
      columnEntries(
        'INSERT INTO moving SELECT trade_id, SUM(price) OVER w AS moving_sum FROM trades ' +
          'WINDOW w AS (PARTITION BY symbol ORDER BY traded_at ROWS BETWEEN 5 PRECEDING AND CURRENT ROW)',
      ),
      expected,
    );
  });

  it('Top-N: the ranking window composes through the subquery and its filter', () => {
    assert.deepEqual(
      columnEntries(
        'INSERT INTO top3 SELECT item, rn FROM (SELECT item, ROW_NUMBER() OVER (PARTITION BY shop ORDER BY sold DESC) AS rn ' +
          'FROM sales) WHERE rn <= 3',
      ),
      [
        ['item', 'identity', ['sales.item']],
        ['item', 'filter', ['sales.shop', 'sales.sold']],
        ['rn', 'filter', ['sales.shop', 'sales.sold']],
        ['rn', 'window', ['sales.shop', 'sales.sold']],
      ],
    );
  });

  it('ksqlDB WINDOW TUMBLING: ROWTIME windows every output; WINDOWSTART/WINDOWEND derive from it', () => {
    assert.deepEqual(
      columnEntries(
        'CREATE TABLE logins_per_hour AS SELECT user_id, WINDOWSTART AS hour_start, WINDOWEND, COUNT(*) AS logins ' +
          'FROM logins WINDOW TUMBLING (SIZE 1 HOUR, GRACE PERIOD 5 MINUTES) GROUP BY user_id EMIT CHANGES;',
        'ksql',
      ),
      [
        ['USER_ID', 'identity', ['LOGINS.USER_ID']],
        ['USER_ID', 'group_by', ['LOGINS.USER_ID']],
        ['USER_ID', 'window', ['LOGINS.ROWTIME']],
        ['HOUR_START', 'transformation', ['LOGINS.ROWTIME']],
        ['HOUR_START', 'group_by', ['LOGINS.USER_ID']],
        ['HOUR_START', 'window', ['LOGINS.ROWTIME']],
        ['WINDOWEND', 'transformation', ['LOGINS.ROWTIME']],
        ['WINDOWEND', 'group_by', ['LOGINS.USER_ID']],
        ['WINDOWEND', 'window', ['LOGINS.ROWTIME']],
        ['LOGINS', 'group_by', ['LOGINS.USER_ID']],
        ['LOGINS', 'window', ['LOGINS.ROWTIME']],
      ],
    );
  });

  it("ksqlDB HOPPING and SESSION over a stream declaring TIMESTAMP: the window's time is that column", () => {
    const declare =
      "CREATE STREAM meter (meter_id VARCHAR KEY, read_at BIGINT, kwh DOUBLE) WITH (KAFKA_TOPIC='meter', TIMESTAMP='read_at', VALUE_FORMAT='JSON');";
    for (const window of ['HOPPING (SIZE 1 HOUR, ADVANCE BY 10 MINUTES)', 'SESSION (30 MINUTES)'])
      assert.deepEqual(
        columnEntries(
          `${declare} CREATE TABLE usage AS SELECT meter_id, SUM(kwh) AS kwh FROM meter WINDOW ${window} GROUP BY meter_id;`,
          'ksql',
        ),
        [
          ['METER_ID', 'identity', ['METER.METER_ID']],
          ['METER_ID', 'group_by', ['METER.METER_ID']],
          ['METER_ID', 'window', ['METER.READ_AT']],
          ['KWH', 'aggregation', ['METER.KWH']],
          ['KWH', 'group_by', ['METER.METER_ID']],
          ['KWH', 'window', ['METER.READ_AT']],
        ],
      );
  });

  it("a ksqlDB CREATE's WITH properties are not columns", () => {
    assert.deepEqual(
      columnEntries(
        "CREATE STREAM raw WITH (KAFKA_TOPIC='raw', VALUE_FORMAT='AVRO'); INSERT INTO copy SELECT * FROM raw;",
        'ksql',
      ),
      [['*', 'identity', ['RAW.*']]],
    );
  });
});
