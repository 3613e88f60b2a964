/**
 * No import stalls the process (issue 23, item 4): problems are capped at the first 1,000 with a
 * count of all; a large invalid import is answered 400 with that cap and leaves the graph as it was;
 * large bodies are parsed and validated in a worker thread (`infra/http/graphImport.ts`), so that
 * `/health` is answered while one is checked; the body reaches it as the chunks it was received in,
 * with fastify's limits and errors; a merge's edges to stored nodes are checked after the worker,
 * against the graph.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { after, before, describe, it } from 'node:test';
import { ValidationError } from '../../src/errors.js';
import { MAX_LISTED_ISSUES, validateLineageGraph } from '../../src/graph/validation.js';
import { readImportBody, validateGraphImportBody } from '../../infra/http/graphImport.js';
import { BACKGROUND_THREAD_NICENESS } from '../../infra/threadPriority.js';
import { IMPORT_BODY_LIMIT } from '../../infra/http/routes/graphs.js';
import { importValidatedGraph } from '../../services/graphs.js';
import { invalidImportBody, validImportBody } from '../../bench/importStall.js';
import { sampleGraph } from '../helpers/sampleGraph.js';
import { call, startApi, type TestApi } from './helpers.js';

/** The nice value of each thread of this process, by thread id (Linux: `/proc/self/task/{tid}/stat`). */
function threadNiceness(): Map<number, number> {
  const niceness = new Map<number, number>();
  for (const threadId of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${threadId}/stat`, 'utf8');
    // The fields after the command name (in parentheses): state is field 3, nice field 19.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    niceness.set(Number(threadId), Number(fields[16]));
  }
  return niceness;
}

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
  options: { chunked?: boolean } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${base}${path}`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(options.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': body.length }),
        },
      },
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
    if (!options.chunked) {
      request.end(body);
      return;
    }
    // Several writes, each sent as an HTTP chunk of its own.
    for (let start = 0; start < body.length; start += 100_000) request.write(body.subarray(start, start + 100_000));
    request.end();
  });
}

/** Pieces of `body`: alternately of 3,000 bytes (copies from Node's shared pool) and of 200,000 (owning their memory). */
function piecesOf(body: Buffer): Buffer[] {
  const pieces: Buffer[] = [];
  for (let start = 0, small = true; start < body.length; small = !small) {
    const end = Math.min(body.length, start + (small ? 3000 : 200_000));
    pieces.push(Buffer.from(body.subarray(start, end)));
    start = end;
  }
  return pieces;
}

/** The request `readImportBody` reads: a route body limit and maybe a Content-Length. */
function bodyRequest(bodyLimit: number, contentLength?: number): FastifyRequest {
  const headers = contentLength === undefined ? {} : { 'content-length': String(contentLength) };
  return { routeOptions: { bodyLimit }, headers } as unknown as FastifyRequest;
}

/** Sends raw HTTP/1.1 text on a socket of its own; resolves with what came back once the server closed it. */
function rawExchange(base: string, text: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(text));
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
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
    const inWorker = await validateGraphImportBody([Buffer.from(valid)], {
      deferUnknownEndpoints: false,
      workerThresholdBytes: 0,
    });
    assert.deepEqual(inWorker, inPlace);

    await assert.rejects(
      validateGraphImportBody([Buffer.from(JSON.stringify(invalidNodes(600)))], {
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
      validateGraphImportBody([Buffer.from('{"nodes": [')], { deferUnknownEndpoints: false, workerThresholdBytes: 0 }),
      (thrown: unknown) => thrown instanceof ValidationError && /body is not valid JSON/.test(thrown.message),
    );
  });

  it('takes the body as the chunks it was received in, pooled or not, in place or in the worker', async () => {
    const valid = validImportBody(0.3);
    const inPlace = validateLineageGraph(JSON.parse(valid.toString('utf8')), { inPlace: true });
    const pieces = piecesOf(valid);
    assert.ok(
      pieces.some((piece) => piece.byteLength < piece.buffer.byteLength),
      'some pieces share a pool',
    );
    for (const workerThresholdBytes of [0, valid.length + 1]) {
      const validated = await validateGraphImportBody(piecesOf(valid), {
        deferUnknownEndpoints: false,
        workerThresholdBytes,
      });
      assert.deepEqual(validated, inPlace, `threshold ${workerThresholdBytes}`);
    }
    // A multi-byte character split across two chunks is joined before it is decoded.
    const accented = Buffer.from(JSON.stringify({ nodes: [], metadata: { name: 'café' } }));
    const split = accented.indexOf(Buffer.from('é')) + 1;
    const joined = await validateGraphImportBody([accented.subarray(0, split), accented.subarray(split)], {
      deferUnknownEndpoints: false,
      workerThresholdBytes: 0,
    });
    assert.deepEqual(joined.graph.metadata, { name: 'café' });
  });

  it(
    'validates at a lower scheduling priority than the event loop (Linux)',
    { skip: process.platform !== 'linux' },
    async (context) => {
      const eventLoop = threadNiceness().get(process.pid)!;
      // Under `nice -n 10 make test` every thread starts there already: nothing would tell the worker apart.
      if (eventLoop >= BACKGROUND_THREAD_NICENESS) {
        context.skip(`the tests run at nice ${eventLoop} already`);
        return;
      }
      await validateGraphImportBody([Buffer.from(JSON.stringify({ nodes: [] }))], {
        deferUnknownEndpoints: false,
        workerThresholdBytes: 0,
      });
      // The worker stays up between bodies: one thread of this process now runs at the background nice value.
      const niceness = threadNiceness();
      assert.equal(niceness.get(process.pid), eventLoop, 'the event loop keeps its priority');
      assert.equal(
        [...niceness.values()].filter((value) => value === BACKGROUND_THREAD_NICENESS).length,
        1,
        `one thread (the import worker) at ${BACKGROUND_THREAD_NICENESS}: ${JSON.stringify([...niceness])}`,
      );
    },
  );
});

describe('reading the import body', () => {
  it('keeps the chunks as they came', async () => {
    const chunks = [Buffer.from('{"nodes"'), Buffer.from(':[]}')];
    const read = await readImportBody(bodyRequest(100, 12), Readable.from(chunks));
    assert.deepEqual(read, chunks);
    assert.deepEqual(await readImportBody(bodyRequest(100), Readable.from(chunks)), chunks);
    // Behind a decompressing stream, Content-Length counts the bytes as sent (`receivedEncodedLength`).
    const decompressed = Object.assign(Readable.from(chunks), { receivedEncodedLength: 5 });
    assert.deepEqual(await readImportBody(bodyRequest(100, 5), decompressed), chunks);
  });

  it("answers as fastify's own body reading: 413 past the limit, 400 when Content-Length differs", async () => {
    const chunks = [Buffer.from('{"nodes"'), Buffer.from(':[]}')];
    const tooLarge = (thrown: unknown) =>
      (thrown as { code?: string; statusCode?: number }).code === 'FST_ERR_CTP_BODY_TOO_LARGE' &&
      (thrown as { statusCode?: number }).statusCode === 413;
    await assert.rejects(readImportBody(bodyRequest(11), Readable.from(chunks)), tooLarge);
    await assert.rejects(readImportBody(bodyRequest(11, 12), Readable.from(chunks)), tooLarge);
    await assert.rejects(
      readImportBody(bodyRequest(100, 13), Readable.from(chunks)),
      (thrown: unknown) =>
        (thrown as { code?: string }).code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH' &&
        (thrown as { statusCode?: number }).statusCode === 400,
    );
    const failing = new Readable({ read() {} });
    const reading = readImportBody(bodyRequest(100), failing);
    failing.destroy(new Error('the client went away'));
    await assert.rejects(reading, (thrown: unknown) => (thrown as { statusCode?: number }).statusCode === 400);
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

  it('takes a chunked body through the worker, and answers a Content-Length over 128 MiB 413 without reading it', async () => {
    const graphId = await createGraph('large-chunked');
    const body = validImportBody(2);
    const answer = await postBytes(api.base, `/api/v1/graphs/${graphId}/import?mode=replace`, body, { chunked: true });
    assert.equal(answer.status, 200);
    const sent = JSON.parse(body.toString('utf8')) as { nodes: unknown[]; edges: unknown[] };
    assert.equal(answer.body.node_count, sent.nodes.length);
    assert.equal(answer.body.edge_count, sent.edges.length);

    const reply = await rawExchange(
      api.base,
      `POST /api/v1/graphs/${graphId}/import HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${IMPORT_BODY_LIMIT + 1}\r\n\r\n{"nodes":[`,
    );
    assert.match(reply, /^HTTP\/1\.1 413 /);
    assert.match(reply, /content-type: application\/problem\+json/i);
    assert.match(reply, /"status":413/);
    const graph = await v1('GET', `/graphs/${graphId}`);
    assert.equal(graph.body.nodes.length, sent.nodes.length, 'the graph is as the first import left it');
  });

  it("checks a merge's edges to stored nodes after the worker, against the graph", async () => {
    const graphId = await createGraph('large-merge');
    const graph = sampleGraph();
    const [first, ...rest] = graph.nodes;
    assert.ok(first);
    assert.equal((await v1('POST', `/graphs/${graphId}/import`, { nodes: [first], edges: [] })).status, 200);
    // Edges to `first`, which only the store holds.
    const validated = await validateGraphImportBody(
      [Buffer.from(JSON.stringify({ nodes: rest, edges: graph.edges }))],
      {
        deferUnknownEndpoints: true,
        workerThresholdBytes: 0,
      },
    );
    const touching = graph.edges.filter((edge) => edge.src_id === first.id || edge.dst_id === first.id).length;
    assert.ok(touching > 0);
    assert.equal(validated.deferredEdges.length, touching);
    const imported = await importValidatedGraph(api.runtime, graphId, validated, 'merge');
    assert.equal(imported.node_count, graph.nodes.length);
    assert.equal(imported.edge_count, graph.edges.length);

    // The same body against a graph that lacks `first`: those edges join no node.
    const other = await createGraph('large-merge-missing');
    const again = await validateGraphImportBody([Buffer.from(JSON.stringify({ nodes: rest, edges: graph.edges }))], {
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
