/**
 * Field-level impact (issue 26, item 3: p99 under 100 ms downstream of a field on a 100,000-node
 * graph with 1,000,000 columns): `fieldImpact` (`services/impact.ts`, what
 * `GET /graphs/{id}/impact` answers) on a synthetic streaming estate recorded into a memory store
 * and folded by the projection, as the API holds it.
 *
 * The estate, seeded: 45,000 topics, each with a value schema of 22 fields (990,000 columns, plus the
 * columns the statements name), and 10,000 Flink statements; statement `j` reads two topics among the
 * 8,000 below its output topic (35,000 + j), so the graph is a deep DAG, and writes that topic
 * with `column_lineage`: 16 fields IDENTITY from its first input, 4 TRANSFORMATION of one field of
 * each input, one AGGREGATION, and a FILTER on a field of the first input. 100,000 nodes in all.
 *
 * Measured: p50 and p99 of `SAMPLES` downstream questions (depth 10) from a random field of a random
 * topic among 27,000-34,999 (topics the statements read), after one warm-up pass over other
 * origins; the columns and jobs reached. Baseline, from the same origins in the same run: the
 * dataset-level downstream traversal (`traverseGraph`, 10 hops), what one can ask without columns.
 *
 * Run alone with `node --import tsx bench/impact.ts`.
 */
import { openRuntime } from '../infra/runtime.js';
import { loadConfig } from '../src/config.js';
import { schemaId, streamJobId, topicId } from '../src/graph/ids.js';
import type { Edge, LineageGraph, Node } from '../src/graph/model.js';
import { recordGraph } from '../src/graphCommands.js';
import { silentLogger } from '../src/logger.js';
import { fieldImpact } from '../services/impact.js';
import { traverseGraph } from '../services/graphs.js';
import { seededRandom } from './syntheticGraph.js';

/** The figures (times in milliseconds). */
export interface ImpactBenchRow {
  nodes: number;
  edges: number;
  /** Schema fields of the topics: the columns of the graph. */
  columns: number;
  samples: number;
  impact_p50_ms: number;
  impact_p99_ms: number;
  /** Mean columns and jobs an answer lists. */
  mean_columns: number;
  mean_jobs: number;
  /** Baseline: the dataset-level downstream traversal (10 hops) from the same topics. */
  traversal_p50_ms: number;
  traversal_p99_ms: number;
}

const ENV = 'env-bench';
const CLUSTER = 'lkc-bench';
const TOPICS = 45_000;
const STATEMENTS = 10_000;
const FIELDS = 22;
const SAMPLES = 300;
/** A statement reads topics at most this far below its output: about 2.5 statements read each topic above 33,000. */
const WINDOW = 2_000;
/** Topics each statement reads. */
const INPUTS = 3;
const GRAPH_ID = '00000000-0000-4000-8000-000000000260';

const quantile = (values: number[], fraction: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(values.length * fraction) - 1)]!;
const field = (index: number) => `field_${index}`;
const topicName = (index: number) => `topic_${index}`;

/** The estate described above. */
export function impactEstate(random = seededRandom(26)): LineageGraph {
  const nodes: Node[] = [];
  const edges: Edge[] = [];
  const base = { environment_id: ENV, cluster_id: CLUSTER, system: 'STREAM' as const };
  for (let index = 0; index < TOPICS; index++) {
    const topic = topicId(ENV, CLUSTER, topicName(index));
    const schema = schemaId(ENV, `${topicName(index)}-value`);
    nodes.push({
      ...base,
      id: topic,
      node_type: 'TOPIC',
      qualified_name: `${CLUSTER}/${topicName(index)}`,
      display_name: topicName(index),
      attributes: {},
    });
    const fields = Array.from({ length: FIELDS }, (_, number) => ({ name: field(number), type: 'string' }));
    nodes.push({
      ...base,
      cluster_id: null,
      id: schema,
      node_type: 'SCHEMA',
      qualified_name: `${topicName(index)}-value`,
      display_name: `${topicName(index)}-value`,
      attributes: { schema_type: 'AVRO', version: 1, fields },
    });
    edges.push({ src_id: topic, dst_id: schema, edge_type: 'HAS_SCHEMA', attributes: { role: 'value' } });
  }
  const sources = TOPICS - STATEMENTS;
  for (let number = 0; number < STATEMENTS; number++) {
    const output = sources + number;
    const inputs = [...new Set(Array.from({ length: INPUTS }, () => output - 1 - Math.floor(random() * WINDOW)))].map(
      (index) => topicId(ENV, CLUSTER, topicName(index)),
    );
    const job = streamJobId(ENV, `statement-${number}`);
    nodes.push({
      ...base,
      id: job,
      node_type: 'STREAM_JOB',
      qualified_name: `statement-${number}`,
      display_name: `statement-${number}`,
      attributes: { phase: 'RUNNING' },
    });
    for (const input of inputs) edges.push({ src_id: input, dst_id: job, edge_type: 'CONSUMES', attributes: null });
    const lineage: Array<{ output: string; kind: string; inputs: Array<{ dataset: string; column: string }> }> = [];
    const pick = () => ({
      dataset: inputs[Math.floor(random() * inputs.length)]!,
      column: field(Math.floor(random() * FIELDS)),
    });
    for (let index = 0; index < 16; index++)
      lineage.push({ output: field(index), kind: 'identity', inputs: [{ dataset: inputs[0]!, column: field(index) }] });
    for (let index = 16; index < 20; index++)
      lineage.push({
        output: field(index),
        kind: 'transformation',
        inputs: inputs.map((dataset) => ({ dataset, column: field(index) })),
      });
    lineage.push({ output: field(20), kind: 'aggregation', inputs: [pick(), pick()] });
    lineage.push({ output: field(21), kind: 'filter', inputs: [pick()] });
    edges.push({
      src_id: job,
      dst_id: topicId(ENV, CLUSTER, topicName(output)),
      edge_type: 'PRODUCES',
      attributes: { column_lineage: lineage },
    });
  }
  return { nodes, edges };
}

/** Runs the bench. */
export async function benchImpact(): Promise<ImpactBenchRow> {
  const estate = impactEstate();
  const runtime = await openRuntime(loadConfig({ LINEAGE_SVC_STORAGE__BACKEND: 'memory' }), silentLogger());
  try {
    await recordGraph(
      runtime.commands,
      GRAPH_ID,
      estate,
      { mode: 'replace', createIfMissing: true, name: 'impact' },
      { cause: 'import', actor: 'bench' },
    );
    const random = seededRandom(261);
    const origin = () => ({
      node_id: topicId(
        ENV,
        CLUSTER,
        topicName(TOPICS - STATEMENTS - WINDOW + Math.floor(random() * (WINDOW + STATEMENTS / 2))),
      ),
      field: field(Math.floor(random() * FIELDS)),
    });
    const context = { runtime };
    for (let index = 0; index < 50; index++) await fieldImpact(context, GRAPH_ID, origin());
    const impact: number[] = [];
    const traversal: number[] = [];
    let columns = 0;
    let jobs = 0;
    for (let index = 0; index < SAMPLES; index++) {
      const question = origin();
      let started = performance.now();
      const answer = await fieldImpact(context, GRAPH_ID, question);
      impact.push(performance.now() - started);
      columns += answer.columns.length;
      jobs += answer.jobs.length;
      started = performance.now();
      const walked = await traverseGraph(runtime, GRAPH_ID, question.node_id, 'downstream', 10);
      walked.serialize();
      traversal.push(performance.now() - started);
    }
    return {
      nodes: estate.nodes.length,
      edges: estate.edges.length,
      columns: TOPICS * FIELDS,
      samples: SAMPLES,
      impact_p50_ms: quantile(impact, 0.5),
      impact_p99_ms: quantile(impact, 0.99),
      mean_columns: columns / SAMPLES,
      mean_jobs: jobs / SAMPLES,
      traversal_p50_ms: quantile(traversal, 0.5),
      traversal_p99_ms: quantile(traversal, 0.99),
    };
  } finally {
    await runtime.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchImpact(), null, 2));
