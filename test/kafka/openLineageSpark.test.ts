/**
 * A real integration that is not ours (issue 24, item 3): Apache Spark 3.5 in local mode with the
 * OpenLineage Spark listener (`io.openlineage:openlineage-spark`), both from Maven Central
 * (`test/java/spark/pom.xml`), runs `test/java/spark/SparkKafkaJob.java`: a batch job that reads a
 * topic of the test broker and writes to another. The listener sends its RunEvents to the API over
 * HTTP (`spark.openlineage.transport.*`); they must be accepted and join the extracted graph: the
 * job's `kafka://{bootstrap}` input and output land on our topic nodes.
 *
 * Opt-in: `LINEAGE_SVC_TEST_SPARK=1` (Spark's jars are about 300 MB and its local start takes tens of
 * seconds), and skipped with a message without `java` and `mvn`.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { mavenClasspath } from '../../infra/kafka/maven.js';
import { eventually } from '../helpers/wait.js';
import { startApi } from '../http/helpers.js';
import { FIXTURES } from '../openlineage/helpers.js';
import { loadValidator } from '../openlineage/validator.js';
import { kafkaClient, kafkaSkip, produceJson, seedExtractedGraph, useKafkaBroker } from './helpers.js';

const run = promisify(execFile);
const SPARK_FOLDER = join(import.meta.dirname, '..', 'java', 'spark');
const ENV = 'env-s3k8p2';
const CLUSTER = 'lkc-s9p4r1';
/** Spark 3.5 on Java 17 opens these JDK packages (what its own launcher passes). */
const JAVA_17_OPENS = [
  'java.base/java.lang',
  'java.base/java.lang.invoke',
  'java.base/java.lang.reflect',
  'java.base/java.io',
  'java.base/java.net',
  'java.base/java.nio',
  'java.base/java.util',
  'java.base/java.util.concurrent',
  'java.base/java.util.concurrent.atomic',
  'java.base/sun.nio.ch',
  'java.base/sun.nio.cs',
  'java.base/sun.security.action',
  'java.base/sun.util.calendar',
].map((module) => `--add-opens=${module}=ALL-UNNAMED`);

const skip =
  process.env.LINEAGE_SVC_TEST_SPARK === '1'
    ? await kafkaSkip()
    : 'Spark with openlineage-spark is opt-in: set LINEAGE_SVC_TEST_SPARK=1 (about 300 MB of jars from Maven Central, once)';
if (skip && process.env.LINEAGE_SVC_TEST_SPARK !== '1') console.log(`# ${skip}`);
const broker = useKafkaBroker(skip);

describe('Apache Spark with the OpenLineage Spark listener as a producer', { skip }, () => {
  it('reports a Kafka-to-Kafka job whose datasets join our topic nodes', async () => {
    const api = await startApi();
    const suffix = randomUUID().slice(0, 8);
    const [input, output] = [`spark-in-${suffix}`, `spark-out-${suffix}`];
    const kafka = kafkaClient(broker());
    const admin = kafka.admin();
    const producer = kafka.producer();
    await Promise.all([admin.connect(), producer.connect()]);
    try {
      await admin.createTopics({ topics: [{ topic: input }, { topic: output }], waitForLeaders: true });
      await produceJson(producer, input, [{ order: 1 }, { order: 2 }, { order: 3 }]);
      await seedExtractedGraph(api, {
        environment: ENV,
        cluster: CLUSTER,
        bootstrap: broker().bootstrap,
        topics: [input, output],
      });
      const classpath = (await mavenClasspath(join(SPARK_FOLDER, 'pom.xml'))).join(':');
      await run(
        'java',
        [
          '-Xmx1g',
          ...JAVA_17_OPENS,
          '-cp',
          classpath,
          join(SPARK_FOLDER, 'SparkKafkaJob.java'),
          broker().bootstrap,
          input,
          output,
          api.base,
          'spark-test',
        ],
        { env: { PATH: process.env.PATH ?? '' }, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 },
      );
      // The job ran: its output topic holds the three values, upper-cased.
      const { high } = (await admin.fetchTopicOffsets(output))[0]!;
      assert.equal(high, '3', 'Spark wrote the three records');

      const kafkaNamespace = `kafka://${broker().bootstrap}`;
      const detail = await eventually('the output dataset, joined with our topic node', async () => {
        const response = await fetch(
          `${api.base}/api/v1/lineage/datasets/detail?namespace=${encodeURIComponent(kafkaNamespace)}&name=${output}`,
        );
        if (response.status !== 200) return undefined;
        const text = await response.text();
        // Joined with our topic node, and written by the Spark job.
        return text.includes(`stream://${ENV}/${CLUSTER}`) && text.includes('lineage_svc_spark_kafka')
          ? text
          : undefined;
      });
      const { events } = (await (
        await fetch(`${api.base}/api/v1/lineage/events?namespace=spark-test&limit=100`)
      ).json()) as { events: Array<Record<string, unknown>> };
      assert.ok(events.length > 0, 'the Spark listener sent events');
      for (const event of events)
        assert.match(
          String(event.producer),
          /OpenLineage\/tree\/1\.53\.0\/integration\/spark$/,
          'from openlineage-spark',
        );
      const validator = existsSync(join(FIXTURES, 'spec')) ? loadValidator() : undefined;
      if (validator)
        for (const event of events)
          assert.deepEqual(validator.errors(event), [], 'valid against the OpenLineage schemas');
      else console.log('# the recorded OpenLineage schemas are absent: events checked by our ingestion only');
      // The write's COMPLETE names the topic read and the topic written, in the broker's kafka:// namespace.
      const datasets = (event: Record<string, unknown>, side: 'inputs' | 'outputs') =>
        ((event[side] ?? []) as Array<{ namespace: string; name: string }>).map(
          ({ namespace, name }) => `${namespace}/${name}`,
        );
      const write = events.find(
        (event) => event.eventType === 'COMPLETE' && datasets(event, 'outputs').includes(`${kafkaNamespace}/${output}`),
      );
      assert.ok(
        write,
        `a COMPLETE writing ${output}: ${JSON.stringify(events.map((event) => [event.eventType, event.job]))}`,
      );
      assert.deepEqual(datasets(write, 'inputs'), [`${kafkaNamespace}/${input}`]);
      console.log(`# Spark with openlineage-spark: ${events.length} events; ${detail.length} bytes of dataset detail`);
    } finally {
      await producer.disconnect();
      await admin.disconnect();
      await api.dispose();
    }
  });
});
