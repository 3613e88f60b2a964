import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { REDACTED, loadConfig, redactConfig } from '../src/config.js';
import { ConfigurationError } from '../src/errors.js';
import { createLogger } from '../src/logger.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    assert.equal(config.api.host, '0.0.0.0');
    assert.equal(config.api.port, 8000);
    assert.equal(config.api.url, 'http://127.0.0.1:8000');
    assert.equal(config.storage.backend, 'sqlite');
    assert.equal(config.storage.path, './.lineage-svc');
    assert.equal(config.graphFile, './lineage_graph.json');
    assert.equal(config.stream.cloudApiUrl, 'https://api.confluent.cloud');
    assert.equal(config.stream.telemetryApiUrl, 'https://api.telemetry.confluent.cloud');
    assert.equal(config.enableMetrics, false);
    assert.equal(config.heapGrowthPercent, 50);
    assert.equal(config.logLevel, 'info');
    assert.equal(config.stream.credentials.cloud, undefined);
  });

  it('parses values, strips trailing slashes and lets service keys fall back to the cloud key', () => {
    const config = loadConfig({
      LINEAGE_SVC_STREAM_CLOUD_API_KEY: 'CLOUDKEY',
      LINEAGE_SVC_STREAM_CLOUD_API_SECRET: 'cloud-secret',
      LINEAGE_SVC_FLINK_API_KEY: 'FLINKKEY',
      LINEAGE_SVC_FLINK_API_SECRET: 'flink-secret',
      LINEAGE_SVC_STREAM_CLOUD_API_URL: 'http://127.0.0.1:4010/',
      LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL: 'https://adb-1.azuredatabricks.net/',
      LINEAGE_SVC_ENABLE_METRICS: 'TRUE',
      LINEAGE_SVC_LOG_LEVEL: 'warning',
      LINEAGE_SVC_API_PORT: '9000',
      LINEAGE_SVC_STORAGE__BACKEND: 'SQLite',
      LINEAGE_SVC_CLUSTER_API_KEY: '',
      LINEAGE_SVC_HEAP_GROWTH_PERCENT: '0',
    });
    assert.equal(config.stream.cloudApiUrl, 'http://127.0.0.1:4010');
    assert.equal(config.lakehouse.workspaceUrl, 'https://adb-1.azuredatabricks.net');
    assert.equal(config.enableMetrics, true);
    assert.equal(config.logLevel, 'warn');
    assert.equal(config.api.port, 9000);
    assert.equal(config.heapGrowthPercent, 0, "0 leaves V8's own growth");
    assert.equal(config.storage.backend, 'sqlite');
    assert.deepEqual(config.stream.credentials.flink, { key: 'FLINKKEY', secret: 'flink-secret' });
    assert.deepEqual(config.stream.credentials.ksqldb, { key: 'CLOUDKEY', secret: 'cloud-secret' });
    assert.equal(config.stream.credentials.cluster, undefined, 'an empty value is unset');
  });

  it('names every invalid variable in one message, without echoing secrets', () => {
    try {
      loadConfig({
        LINEAGE_SVC_API_PORT: 'eighty',
        LINEAGE_SVC_STORAGE__BACKEND: 'mongodb',
        LINEAGE_SVC_LOG_LEVEL: 'loud',
        LINEAGE_SVC_STREAM_CLOUD_API_URL: 'api.confluent.cloud',
        LINEAGE_SVC_STREAM_CLOUD_API_SECRET: 'hunter2',
        LINEAGE_SVC_HEAP_GROWTH_PERCENT: '12.5',
      });
      assert.fail('expected a ConfigurationError');
    } catch (error) {
      assert.ok(error instanceof ConfigurationError);
      assert.match(error.message, /LINEAGE_SVC_API_PORT must be an integer from 0 to 65535 \(got "eighty"\)/);
      assert.match(
        error.message,
        /LINEAGE_SVC_STORAGE__BACKEND must be one of memory, file, sqlite, postgres, eventstoredb/,
      );
      assert.match(error.message, /LINEAGE_SVC_LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR/);
      assert.match(error.message, /LINEAGE_SVC_STREAM_CLOUD_API_URL must be an http:\/\/ or https:\/\/ URL/);
      assert.match(error.message, /LINEAGE_SVC_HEAP_GROWTH_PERCENT must be an integer from 0 to 1000 \(got "12.5"\)/);
      assert.doesNotMatch(error.message, /hunter2/);
    }
  });

  it('configures the OpenLineage Kafka transport, off by default', () => {
    assert.deepEqual(loadConfig({}).openLineageKafka.brokers, []);
    const config = loadConfig({
      LINEAGE_SVC_OPENLINEAGE_KAFKA_BROKERS: 'b1:9092, b2:9092',
      LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_MECHANISM: 'PLAIN',
      LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_USERNAME: 'user',
      LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_PASSWORD: 'kafka-pass',
    });
    assert.deepEqual(config.openLineageKafka.brokers, ['b1:9092', 'b2:9092']);
    assert.equal(config.openLineageKafka.topic, 'openlineage.events');
    assert.equal(config.openLineageKafka.sasl?.mechanism, 'plain');
    assert.doesNotMatch(JSON.stringify(redactConfig(config)), /kafka-pass/);
    assert.throws(
      () => loadConfig({ LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_MECHANISM: 'gssapi' }),
      /must be plain, scram-sha-256 or scram-sha-512/,
    );
    assert.throws(
      () => loadConfig({ LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_MECHANISM: 'plain' }),
      /USERNAME and LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_PASSWORD must be set/,
    );
  });

  it('refuses the placeholder change-me of the example files as an API key, naming the variable', () => {
    for (const [name, value] of [
      ['LINEAGE_SVC_API_KEY', 'change-me'],
      ['LINEAGE_SVC_API_KEYS', 'reader-key-1=read,CHANGE-ME=read+write'],
    ] as const) {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (error: Error) =>
          error instanceof ConfigurationError &&
          error.message.includes(`${name} `) &&
          /placeholder/.test(error.message),
        name,
      );
    }
    assert.equal(loadConfig({ LINEAGE_SVC_API_KEY: 'change-me-not' }).api.key, 'change-me-not');
  });

  it('requires key and secret together, and a URL for server backends', () => {
    assert.throws(
      () => loadConfig({ LINEAGE_SVC_CLUSTER_API_KEY: 'K' }),
      /LINEAGE_SVC_CLUSTER_API_KEY and LINEAGE_SVC_CLUSTER_API_SECRET must be set together/,
    );
    assert.throws(
      () => loadConfig({ LINEAGE_SVC_STORAGE__BACKEND: 'postgres' }),
      /LINEAGE_SVC_STORAGE__URL must be set for the postgres backend/,
    );
  });

  it('redacts every secret when printed and in log lines', () => {
    const config = loadConfig({
      LINEAGE_SVC_STREAM_CLOUD_API_KEY: 'CLOUDKEY',
      LINEAGE_SVC_STREAM_CLOUD_API_SECRET: 'cloud-secret',
      LINEAGE_SVC_API_KEY: 'api-key-value',
      LINEAGE_SVC_LAKEHOUSE_TOKEN: 'dapi-token',
      LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN: 'ya29.token',
      LINEAGE_SVC_STORAGE__BACKEND: 'postgres',
      LINEAGE_SVC_STORAGE__URL: 'postgres://lineage:pg-password@db:5432/lineage',
    });
    const printed = JSON.stringify(redactConfig(config));
    for (const secret of ['cloud-secret', 'api-key-value', 'dapi-token', 'ya29.token', 'pg-password'])
      assert.doesNotMatch(printed, new RegExp(secret));
    assert.match(printed, /CLOUDKEY/, 'keys (not secrets) stay visible');
    assert.match(printed, new RegExp(`lineage:\\${REDACTED.slice(0, -1)}`));

    let lines = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines += String(chunk);
        done();
      },
    });
    const logger = createLogger({ destination: sink });
    logger.info({ credentials: { secret: 'cloud-secret' }, headers: { authorization: 'Basic abc' } }, 'Test:Logged');
    logger.flush();
    assert.match(lines, /Test:Logged/);
    assert.doesNotMatch(lines, /cloud-secret|Basic abc/);
  });
});
