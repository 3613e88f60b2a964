/**
 * The stack of the Marquez API tests, on real sockets (127.0.0.1, ephemeral ports): the platform
 * simulator with the demo scenario, the REST API over the memory store with the demo estate extracted
 * into it, and OpenLineage runs ingested beside it: a Spark job that reads one of the demo topics
 * (under its `stream://` identity) and writes a file with a schema and column lineage, started and
 * completed, and a second run that failed.
 */
import assert from 'node:assert/strict';
import {
  loadScenario,
  simulatorClientEnvironment,
  startPlatformSimulator,
  type PlatformSimulator,
} from '../../simulators/confluent/index.js';
import { call, startApi, waitForTask, type TestApi } from '../http/helpers.js';

/** The API key of the stack: every role. */
export const MARQUEZ_TEST_KEY = 'marquez-test-key-7b21';

/** The demo scenario's environments. */
export const DEMO_ENVIRONMENTS = ['env-q7m2k9', 'env-x2n4c6'];

/** The ingested Spark job and its output. */
export const SPARK_NAMESPACE = 'spark://analytics';
export const SPARK_JOB = 'orders_daily_report';
export const REPORT_NAMESPACE = 's3://reports';
export const REPORT_DATASET = 'orders/daily';
export const COMPLETED_RUN = '01940000-0000-7000-8000-0000000b0001';
export const FAILED_RUN = '01940000-0000-7000-8000-0000000b0002';

/** A running stack. */
export interface MarquezStack {
  simulator: PlatformSimulator;
  api: TestApi;
  /** The demo topic the Spark job reads: its OpenLineage identity. */
  topic: { namespace: string; name: string };
  /** The topic's field the Spark job's column lineage reads (its output field is `{field}_daily`). */
  topicField: string;
  /** The Spark RunEvents ingested (their times are fitted into the current UTC day). */
  sparkEvents: Array<Record<string, unknown>>;
  headers: Record<string, string>;
  close(): Promise<void>;
}

const facet = (name: string, body: Record<string, unknown>) => ({
  _producer: 'https://github.com/OpenLineage/OpenLineage/tree/1.24.0/integration/spark',
  _schemaURL: `https://openlineage.io/spec/facets/1-0-0/${name}.json#/$defs/${name}`,
  ...body,
});

/** The RunEvents of the Spark job: START and COMPLETE of one run, START and FAIL of another. */
export function sparkEvents(topic: { namespace: string; name: string }, field: string): Array<Record<string, unknown>> {
  const base = (runId: string, eventType: string, eventTime: string) => ({
    eventType,
    eventTime,
    producer: 'https://github.com/OpenLineage/OpenLineage/tree/1.24.0/integration/spark',
    schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
    run: { runId, facets: { nominalTime: facet('NominalTimeRunFacet', { nominalStartTime: '2026-01-01T00:00:00Z' }) } },
    job: {
      namespace: SPARK_NAMESPACE,
      name: SPARK_JOB,
      facets: { jobType: facet('JobTypeJobFacet', { processingType: 'BATCH', integration: 'SPARK', jobType: 'JOB' }) },
    },
    inputs: [{ namespace: topic.namespace, name: topic.name }],
    outputs: [
      {
        namespace: REPORT_NAMESPACE,
        name: REPORT_DATASET,
        facets: {
          schema: facet('SchemaDatasetFacet', {
            fields: [
              { name: `${field}_daily`, type: 'string' },
              { name: 'total', type: 'double' },
            ],
          }),
          columnLineage: facet('ColumnLineageDatasetFacet', {
            fields: {
              [`${field}_daily`]: {
                inputFields: [
                  {
                    namespace: topic.namespace,
                    name: topic.name,
                    field,
                    transformations: [{ type: 'DIRECT', subtype: 'IDENTITY' }],
                  },
                ],
              },
            },
          }),
        },
      },
    ],
  });
  // Marquez Web's events page lists the current day (in the browser's time zone, UTC in the tests):
  // the runs fall within the last 50 minutes, never before today's midnight.
  const now = Date.now();
  const span = Math.min(50 * 60_000, now - new Date(now).setUTCHours(0, 0, 0, 0));
  const at = (minutesAgo: number) => new Date(now - (span * minutesAgo) / 50).toISOString();
  return [
    base(COMPLETED_RUN, 'START', at(50)),
    base(COMPLETED_RUN, 'COMPLETE', at(40)),
    base(FAILED_RUN, 'START', at(20)),
    base(FAILED_RUN, 'FAIL', at(10)),
  ];
}

/** Starts the simulator and the API, extracts the demo estate and ingests the Spark runs. */
export async function startMarquezStack(env: Record<string, string> = {}): Promise<MarquezStack> {
  const scenario = await loadScenario('demo');
  const simulator = await startPlatformSimulator({ scenario, host: '127.0.0.1', port: 0 });
  const api = await startApi({
    env: { ...simulatorClientEnvironment(simulator.url, scenario), LINEAGE_SVC_API_KEY: MARQUEZ_TEST_KEY, ...env },
  });
  const headers = { 'x-api-key': MARQUEZ_TEST_KEY };
  const started = await call(api.base, 'POST', '/api/v1/tasks/extract', {
    json: { environment_ids: DEMO_ENVIRONMENTS },
    headers,
  });
  assert.equal(started.status, 202, started.text);
  const task = await waitForTask(api.base, started.body.task_id, headers, 60_000);
  assert.equal(task.body.status, 'completed', task.text);
  // A demo topic with a schema that a statement reads: the Spark job reads it too.
  const datasets = await call(api.base, 'GET', '/api/v1/lineage/datasets', { headers });
  const withSchema = (
    datasets.body.datasets as Array<{
      namespace: string;
      name: string;
      facets: { schema?: { fields: Array<{ name: string }> } };
    }>
  ).find((dataset) => dataset.namespace.startsWith('stream://') && (dataset.facets.schema?.fields.length ?? 0) > 0);
  assert.ok(withSchema, 'the demo estate has a topic with a schema');
  const topic = { namespace: withSchema.namespace, name: withSchema.name };
  const topicField = withSchema.facets.schema!.fields[0]!.name;
  const events = sparkEvents(topic, topicField);
  const ingested = await call(api.base, 'POST', '/api/v1/lineage', { json: events, headers });
  assert.equal(ingested.status, 200, ingested.text);
  return {
    simulator,
    api,
    topic,
    topicField,
    sparkEvents: events,
    headers,
    async close() {
      await api.dispose();
      await simulator.close();
    },
  };
}
