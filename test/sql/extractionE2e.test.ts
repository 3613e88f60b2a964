/**
 * Extraction end-to-end against the platform simulator (demo scenario): Flink statements become
 * STREAM_JOB nodes with CONSUMES/PRODUCES from the parsed SQL and `column_lineage` on PRODUCES;
 * ksqlDB queries become SQL_QUERY nodes with the same (`docs/sql-lineage.md` section 5).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import { extract } from '../../src/extraction/extract.js';
import { silentLogger } from '../../src/logger.js';
import { DEV, PROD, fastApi } from '../extraction/helpers.js';

let sim: PlatformSimulator;
before(async () => {
  sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
});
after(async () => {
  await sim.close();
});

describe('stream-processing lineage in the demo graph', () => {
  it('links Flink STREAM_JOBs and ksqlDB SQL_QUERYs to their source and sink topics with column lineage', async () => {
    const result = await extract({ platform: fastApi(sim), logger: silentLogger() }, { environmentIds: [PROD, DEV] });
    const graph = result.graph;
    const jobs = graph.nodes.filter((n) => n.node_type === 'STREAM_JOB');
    const queries = graph.nodes.filter((n) => n.node_type === 'SQL_QUERY');
    assert.ok(jobs.length > 0 && queries.length > 0);
    const produces = graph.edges.filter((e) => e.edge_type === 'PRODUCES');
    const jobProduces = produces.filter((e) => jobs.some((j) => j.id === e.src_id));
    const queryProduces = produces.filter((e) => queries.some((q) => q.id === e.src_id));
    assert.ok(jobProduces.length > 0, 'a Flink statement produces to a topic');
    assert.ok(queryProduces.length > 0, 'a ksqlDB query produces to a topic');
    for (const edge of [...jobProduces, ...queryProduces]) assert.match(edge.dst_id, /:topic:/);
    const withColumns = jobProduces.filter((e) => Array.isArray(e.attributes?.column_lineage));
    assert.ok(withColumns.length > 0, 'Flink PRODUCES edges carry column lineage');
    const entries = withColumns.flatMap(
      (e) =>
        e.attributes!.column_lineage as Array<{
          output: string;
          kind: string;
          inputs: Array<{ dataset: string; column: string }>;
        }>,
    );
    assert.ok(entries.some((c) => c.kind === 'identity'));
    assert.ok(
      entries.every((c) =>
        c.inputs.every((input) => typeof input.dataset === 'string' && typeof input.column === 'string'),
      ),
    );
    assert.ok(
      entries.some((c) =>
        c.inputs.some((input) => graph.nodes.some((n) => n.id === input.dataset && n.node_type === 'TOPIC')),
      ),
      'inputs name topic nodes',
    );
    const consumes = graph.edges.filter((e) => e.edge_type === 'CONSUMES' && jobs.some((j) => j.id === e.dst_id));
    assert.ok(consumes.length > 0);
    for (const job of jobs) assert.equal(job.attributes?.parse_error, undefined, `${job.id} parsed`);
    const queryColumns = queryProduces.filter((e) => Array.isArray(e.attributes?.column_lineage));
    assert.ok(queryColumns.length > 0, 'ksqlDB PRODUCES edges carry column lineage');
    assert.ok(graph.nodes.length >= 40 && graph.nodes.length <= 80, `demo graph has ${graph.nodes.length} nodes`);
  });
});

describe('flinkFragment with parsedStatementLineage', () => {
  it('keeps an unparsable statement as a STREAM_JOB with parse_error and a warning, and leaves unknown clusters unresolved', async () => {
    const { flinkFragment, parsedStatementLineage } = await import('../../src/extraction/streamProcessing.js');
    const warnings: string[] = [];
    const directory = {
      byName: new Map([['orders', 'lkc-1']]),
      ids: new Set(['lkc-1']),
      environmentId: 'env-1',
      environmentName: 'prod',
    };
    const fragment = flinkFragment(
      'env-1',
      [
        {
          name: 'broken',
          spec: {
            statement: 'INSERT INTO',
            properties: { 'sql.current-catalog': 'prod', 'sql.current-database': 'orders' },
          },
        },
        {
          name: 'ok',
          spec: {
            statement: 'INSERT INTO `out` SELECT i.a FROM `in` AS i JOIN `prod`.`elsewhere`.`x` ON true',
            properties: { 'sql.current-catalog': 'prod', 'sql.current-database': 'orders' },
          },
        },
      ],
      directory,
      parsedStatementLineage,
      (w) => warnings.push(w),
    );
    const broken = fragment.nodes.find((n) => n.id.endsWith(':broken'));
    assert.equal(typeof broken?.attributes?.parse_error, 'string');
    assert.ok(warnings.some((w) => w.includes('broken')));
    assert.ok(warnings.some((w) => w.includes('elsewhere')));
    const produces = fragment.edges.filter((e) => e.edge_type === 'PRODUCES');
    assert.deepEqual(
      produces.map((e) => e.dst_id),
      ['stream:topic:env-1:lkc-1/out'],
    );
    assert.deepEqual(
      fragment.edges.filter((e) => e.edge_type === 'CONSUMES').map((e) => e.src_id),
      ['stream:topic:env-1:lkc-1/in'],
    );
    assert.deepEqual(
      (produces[0]!.attributes!.column_lineage as Array<{ output: string }>).map((c) => c.output),
      ['a'],
    );
  });
});
