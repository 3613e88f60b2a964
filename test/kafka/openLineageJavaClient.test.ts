/**
 * OpenLineage producers that are not ours (issue 24, item 3): the official OpenLineage Java client
 * (io.openlineage:openlineage-java, jars from Maven Central by `test/java/openlineage/pom.xml`) runs
 * `test/java/openlineage/EmitOpenLineage.java` from source and emits a run of a job that reads and
 * writes Kafka topics, through its own transports, configured by the YAML file its users write:
 *
 * - the HTTP transport, to `POST /api/v1/lineage` of the API;
 * - the Kafka transport, over SASL_SSL (SASL/PLAIN) to the topic the API's Kafka consumer reads.
 *
 * Their events must be accepted, valid (the official JSON Schemas, when the recorded schemas are
 * beside the checkout) and join the extracted graph: their `kafka://{bootstrap}` datasets land on our
 * topic nodes (`stream://{env}/{cluster}`) through the cluster's bootstrap endpoint.
 * Skipped with a message without `java` and `mvn`.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { SASL_USER } from '../../infra/kafka/broker.js';
import { mavenClasspath } from '../../infra/kafka/maven.js';
import { startOpenLineageConsumer } from '../../infra/kafka/openLineageConsumer.js';
import { eventually } from '../helpers/wait.js';
import { startApi, type TestApi } from '../http/helpers.js';
import { FIXTURES } from '../openlineage/helpers.js';
import { loadValidator } from '../openlineage/validator.js';
import { createTopics, kafkaClient, kafkaSkip, seedExtractedGraph, useKafkaBroker } from './helpers.js';

const run = promisify(execFile);
const JAVA_FOLDER = join(import.meta.dirname, '..', 'java', 'openlineage');
const ENV = 'env-q7m2k9';
const CLUSTER = 'lkc-7x9m2p';

const skip = await kafkaSkip();
const broker = useKafkaBroker(skip);

/** Runs EmitOpenLineage.java with the client configured by `yaml`; answers the runId it printed. */
async function emitWithJavaClient(yaml: string, args: string[]): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), 'openlineage-java-'));
  try {
    const config = join(folder, 'openlineage.yml');
    writeFileSync(config, yaml);
    const classpath = (await mavenClasspath(join(JAVA_FOLDER, 'pom.xml'))).join(':');
    const { stdout } = await run(
      'java',
      ['-XX:TieredStopAtLevel=1', '-cp', classpath, join(JAVA_FOLDER, 'EmitOpenLineage.java'), ...args],
      { env: { PATH: process.env.PATH ?? '', OPENLINEAGE_CONFIG: config }, timeout: 120_000 },
    );
    return stdout.trim().split('\n').at(-1)!;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The stored events of a run, through the API. */
async function runEvents(api: TestApi, runId: string): Promise<Array<Record<string, unknown>>> {
  const response = await fetch(`${api.base}/api/v1/lineage/events/${runId}`);
  if (response.status !== 200) return [];
  return ((await response.json()) as { events: Array<Record<string, unknown>> }).events;
}

describe('the official OpenLineage Java client as a producer', { skip }, () => {
  it('sends through its HTTP and Kafka transports; its events are stored, valid, and join our topic nodes', async () => {
    const api = await startApi();
    const topic = `openlineage-${randomUUID().slice(0, 8)}`;
    await createTopics(kafkaClient(broker()), [{ topic }]);
    const consumer = await startOpenLineageConsumer(
      {
        brokers: [broker().bootstrap],
        topic,
        groupId: `lineage-svc-${topic}`,
        deadLetterTopic: `${topic}.dlq`,
        sasl: null,
        ssl: false,
      },
      { ingestor: api.runtime.openLineageIngestor },
    );
    try {
      await seedExtractedGraph(api, {
        environment: ENV,
        cluster: CLUSTER,
        bootstrap: broker().bootstrap,
        topics: ['orders', 'orders-enriched'],
      });
      const kafkaNamespace = `kafka://${broker().bootstrap}`;
      const args = (job: string) => ['java-client', job, kafkaNamespace, 'orders', 'orders-enriched'];
      const jaas =
        'org.apache.kafka.common.security.plain.PlainLoginModule required ' +
        `username="${SASL_USER.username}" password="${SASL_USER.password}";`;
      // The two JVM runs side by side (each compiles the program and starts the client: seconds).
      const [httpRun, kafkaRun] = await Promise.all([
        emitWithJavaClient(
          ['transport:', '  type: http', `  url: ${api.base}`, '  endpoint: /api/v1/lineage', ''].join('\n'),
          args('enrich-over-http'),
        ),
        emitWithJavaClient(
          [
            'transport:',
            '  type: kafka',
            `  topicName: ${topic}`,
            '  properties:',
            `    bootstrap.servers: ${broker().saslBootstrap}`,
            '    security.protocol: SASL_SSL',
            '    sasl.mechanism: PLAIN',
            `    sasl.jaas.config: '${jaas}'`,
            `    ssl.truststore.location: ${broker().trustStore}`,
            '    ssl.truststore.type: PKCS12',
            `    ssl.truststore.password: ${broker().trustStorePassword}`,
            '    key.serializer: org.apache.kafka.common.serialization.StringSerializer',
            '    value.serializer: org.apache.kafka.common.serialization.StringSerializer',
            '',
          ].join('\n'),
          args('enrich-over-kafka'),
        ),
      ]);
      const validator = existsSync(join(FIXTURES, 'spec')) ? loadValidator() : undefined;
      if (!validator)
        console.log('# the recorded OpenLineage schemas are absent: events checked by our ingestion only');
      for (const runId of [httpRun, kafkaRun]) {
        const events = await eventually(`the two events of run ${runId}`, async () => {
          const stored = await runEvents(api, runId);
          return stored.length === 2 ? stored : undefined;
        });
        assert.deepEqual(events.map((event) => event.eventType).sort(), ['COMPLETE', 'START']);
        for (const event of events) {
          assert.match(String(event.producer), /OpenLineage\/tree\/main\/client\/java/);
          if (validator) assert.deepEqual(validator.errors(event), [], 'valid against the OpenLineage schemas');
        }
      }
      // The Java client's kafka:// datasets are our topics: the identities join them, and the jobs are found from them.
      const detail = await (
        await fetch(
          `${api.base}/api/v1/lineage/datasets/detail?namespace=${encodeURIComponent(kafkaNamespace)}&name=orders-enriched`,
        )
      ).json();
      const text = JSON.stringify(detail);
      assert.ok(text.includes(`stream://${ENV}/${CLUSTER}`), `joined with our topic node: ${text.slice(0, 400)}`);
      assert.ok(text.includes('enrich-over-http') && text.includes('enrich-over-kafka'), 'both jobs write it');
    } finally {
      await consumer.stop();
      await api.dispose();
    }
  });
});
