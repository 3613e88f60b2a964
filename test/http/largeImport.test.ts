/**
 * No import stalls the process (issue 23, item 4): problems are capped at the first 1,000 with a
 * count of all; a large invalid import is answered 400 with that cap and leaves the graph as it was;
 * large bodies are parsed and validated in a worker thread (`infra/http/graphImport.ts`), so that
 * `/health` is answered while one is checked; a merge's edges to stored nodes are checked after the
 * worker, against the graph.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { ValidationError } from '../../src/errors.js';
import { MAX_LISTED_ISSUES, validateLineageGraph } from '../../src/graph/validation.js';
import { validateGraphImportBody } from '../../infra/http/graphImport.js';
import { importValidatedGraph } from '../../services/graphs.js';
import { invalidImportBody, validImportBody } from '../../bench/importStall.js';
import { sampleGraph } from '../helpers/sampleGraph.js';
import { call, startApi, type TestApi } from './helpers.js';

/** `count` nodes with an unknown node_type and no qualified_name: two problems each. */
function invalidNodes(count: number): { nodes: unknown[] } {
  return {
    nodes: Array.from({ length: count }, (_, index) => ({
      id: `stream:topic:env-1:lkc-1/t${index}`,
      node_type: 'NOPE',
      system: 'STREAM',
      display_name: 't',
    })),
  };
}

/** POSTs raw bytes; resolves with the status and the parsed answer when the whole answer arrived. */
function postBytes(
  base: string,
  path: string,
  body: Buffer,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${base}${path}`,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
          }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe('capped problem lists', () => {
  it('lists the first 1,000 problems and counts them all', () => {
    assert.throws(
      () => validateLineageGraph(invalidNodes(3000), { inPlace: true }),
      (thrown: unknown) => {
        assert.ok(thrown instanceof ValidationError);
        assert.equal(thrown.issues.length, MAX_LISTED_ISSUES);
        assert.equal(thrown.issueCount, 6000);
        assert.equal(thrown.issues[0]!.path, 'nodes.0.node_type');
        assert.equal(thrown.issues[1]!.path, 'nodes.0.qualified_name');
        assert.equal(thrown.issues[999]!.path, 'nodes.499.qualified_name');
        assert.match(thrown.message, /^invalid lineage graph: nodes\.0\.node_type: .* \(and 5999 more\)$/);
        return true;
      },
    );
  });

  it('counts duplicate and dangling items past the cap too', () => {
    const graph = sampleGraph();
    const node = graph.nodes[0]!;
    const copies = Array.from({ length: 1500 }, () => ({ ...node }));
    const dangling = Array.from({ length: 700 }, (_, index) => ({
      src_id: `stream:topic:env-1:lkc-1/missing${index}`,
      dst_id: node.id,
      edge_type: 'PRODUCES',
    }));
    assert.throws(
      () => validateLineageGraph({ nodes: copies, edges: dangling }, { inPlace: true }),
      (thrown: unknown) => {
        assert.ok(thrown instanceof ValidationError);
        assert.equal(thrown.issues.length, MAX_LISTED_ISSUES);
        // 1,499 duplicate nodes, then one missing source per edge.
        assert.equal(thrown.issueCount, 1499 + 700);
        return true;
      },
    );
  });
});

describe('graph import bodies in a worker thread', () => {
  it('answers the same graph, or the same capped problems, as in place', async () => {
    const valid = validImportBody(0.3);
    const inPlace = validateLineageGraph(JSON.parse(valid.toString('utf8')), { inPlace: true });
    const inWorker = await validateGraphImportBody(Buffer.from(valid), {
      deferUnknownEndpoints: false,
      workerThresholdBytes: 0,
    });
    assert.deepEqual(inWorker, inPlace);

    await assert.rejects(
      validateGraphImportBody(Buffer.from(JSON.stringify(invalidNodes(600))), {
        deferUnknownEndpoints: false,
        workerThresholdBytes: 0,
      }),
      (thrown: unknown) => {
        assert.ok(thrown instanceof ValidationError);
        assert.equal(thrown.issues.length, MAX_LISTED_ISSUES);
        assert.equal(thrown.issueCount, 1200);
        return true;
      },
    );
    await assert.rejects(
      validateGraphImportBody(Buffer.from('{"nodes": ['), { deferUnknownEndpoints: false, workerThresholdBytes: 0 }),
      (thrown: unknown) => thrown instanceof ValidationError && /body is not valid JSON/.test(thrown.message),
    );
  });
});

describe('large imports through the API', () => {
  let api: TestApi;
  before(async () => {
    api = await startApi({ backend: 'sqlite' });
  });
  after(async () => api.dispose());

  const v1 = (method: string, path: string, json?: unknown) =>
    call(api.base, method, `/api/v1${path}`, json === undefined ? {} : { json });
  const createGraph = async (name: string) => (await v1('POST', '/graphs', { name })).body.graph_id as string;

  it('answers a large invalid import 400 with the first 1,000 problems and the count, storing nothing', async () => {
    const graphId = await createGraph('large-invalid');
    const seeded = await v1('POST', `/graphs/${graphId}/import`, sampleGraph());
    assert.equal(seeded.status, 200);
    const before = await v1('GET', `/graphs/${graphId}`);

    const body = invalidImportBody(3); // about 30,000 nodes, two problems each: the worker's path
    const nodeCount = body.toString('utf8').match(/"id":/g)!.length;
    const answer = await postBytes(api.base, `/api/v1/graphs/${graphId}/import?mode=replace`, body);
    assert.equal(answer.status, 400);
    assert.equal(answer.body.type, 'urn:lineage-svc:problem:validation-failed');
    assert.equal((answer.body.errors as unknown[]).length, MAX_LISTED_ISSUES);
    assert.equal(answer.body.error_count, nodeCount * 2);
    assert.match(String(answer.body.detail), new RegExp(`\\(and ${nodeCount * 2 - 1} more\\)$`));

    const afterwards = await v1('GET', `/graphs/${graphId}`);
    assert.deepEqual(afterwards.body, before.body, 'the graph is as it was');
  });

  it('answers /health while a large import is validated', async () => {
    const graphId = await createGraph('large-health');
    const body = invalidImportBody(6);
    let importAnswered = false;
    const importing = postBytes(api.base, `/api/v1/graphs/${graphId}/import`, body).then((answer) => {
      importAnswered = true;
      return answer;
    });
    // On the event loop, parsing and validating this body held every other request until its 400.
    let answeredMeanwhile = 0;
    while (!importAnswered) {
      const health = await v1('GET', '/health');
      assert.equal(health.status, 200);
      if (!importAnswered) answeredMeanwhile += 1;
    }
    assert.equal((await importing).status, 400);
    assert.ok(answeredMeanwhile >= 3, `only ${answeredMeanwhile} health answers came before the import's`);
  });

  it("checks a merge's edges to stored nodes after the worker, against the graph", async () => {
    const graphId = await createGraph('large-merge');
    const graph = sampleGraph();
    const [first, ...rest] = graph.nodes;
    assert.ok(first);
    assert.equal((await v1('POST', `/graphs/${graphId}/import`, { nodes: [first], edges: [] })).status, 200);
    // Edges to `first`, which only the store holds.
    const validated = await validateGraphImportBody(Buffer.from(JSON.stringify({ nodes: rest, edges: graph.edges })), {
      deferUnknownEndpoints: true,
      workerThresholdBytes: 0,
    });
    const touching = graph.edges.filter((edge) => edge.src_id === first.id || edge.dst_id === first.id).length;
    assert.ok(touching > 0);
    assert.equal(validated.deferredEdges.length, touching);
    const imported = await importValidatedGraph(api.runtime, graphId, validated, 'merge');
    assert.equal(imported.node_count, graph.nodes.length);
    assert.equal(imported.edge_count, graph.edges.length);

    // The same body against a graph that lacks `first`: those edges join no node.
    const other = await createGraph('large-merge-missing');
    const again = await validateGraphImportBody(Buffer.from(JSON.stringify({ nodes: rest, edges: graph.edges })), {
      deferUnknownEndpoints: true,
      workerThresholdBytes: 0,
    });
    await assert.rejects(
      importValidatedGraph(api.runtime, other, again, 'merge'),
      (thrown: unknown) =>
        thrown instanceof ValidationError && thrown.issueCount === touching && /no node/.test(thrown.message),
    );
  });
});
