/**
 * A batch of 10,000 OpenLineage events does not hold the process (issue 23: "valid 10k-event
 * OpenLineage batches stall the process 15 s"): a `/health` request sent while the batch is read is
 * answered before the batch is.
 *
 * The batch is a redelivery (an HTTP client's retry, or a Kafka producer's): its 10,000 valid events
 * were ingested once before, so the second call normalizes all of them and appends nothing. Nothing in
 * it then waits for I/O: before normalizing was sliced (`NORMALIZE_SLICE_MILLISECONDS` in
 * `src/openlineage/ingestion.ts`), the whole call was one task of the event loop and the batch's answer
 * was written before the health request was even read. The health request is written on an open
 * connection in the same tick as the batch's last byte, so the server reads the batch's end first.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { runEvent } from '../openlineage/helpers.js';
import { call, startApi, type TestApi } from './helpers.js';

/** Events in the batch. */
const EVENTS = 10_000;

/** `EVENTS` distinct valid RunEvents, each reading one topic and writing another. */
function batch(): Buffer {
  const events = Array.from({ length: EVENTS }, (_, index) =>
    runEvent({
      job: `job-${index}`,
      runId: `01940000-0000-7000-8000-${String(index).padStart(12, '0')}`,
      inputs: [{ namespace: 'kafka://broker:9092', name: `in-${index}` }],
      outputs: [{ namespace: 'kafka://broker:9092', name: `out-${index}` }],
    }),
  );
  return Buffer.from(JSON.stringify(events));
}

/** What one request came back with. */
interface Exchange {
  status: number;
  body: string;
}

/** Starts a request; `onResponse` is called when its status line and headers arrived. */
function send(
  agent: http.Agent,
  base: string,
  method: string,
  path: string,
  body: Buffer | undefined,
  onResponse: () => void,
): { request: http.ClientRequest; answered: Promise<Exchange> } {
  let request!: http.ClientRequest;
  const answered = new Promise<Exchange>((resolve, reject) => {
    request = http.request(
      `${base}${path}`,
      {
        method,
        agent,
        headers: body ? { 'content-type': 'application/json', 'content-length': body.length } : {},
      },
      (response) => {
        onResponse();
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
  });
  return { request, answered };
}

describe('a 10,000-event OpenLineage batch', () => {
  let api: TestApi;
  const healthAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const batchAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  before(async () => {
    api = await startApi({ backend: 'sqlite' });
  });
  after(async () => {
    healthAgent.destroy();
    batchAgent.destroy();
    await api.dispose();
  });

  it('lets /health be answered while it is read', async () => {
    const body = batch();
    const first = await call(api.base, 'POST', '/api/v1/lineage/events', {
      body: body.toString('utf8'),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(first.status, 200, first.text.slice(0, 500));
    const firstResults = (first.body as { results: Array<{ status: string }> }).results;
    assert.equal(firstResults.filter((result) => result.status === 'accepted').length, EVENTS);

    const order: string[] = [];
    // The redelivered batch, all but its last byte.
    const redelivery = send(batchAgent, api.base, 'POST', '/api/v1/lineage/events', body, () => order.push('batch'));
    redelivery.request.write(body.subarray(0, body.length - 1));
    // A first health request opens the health connection (and lets the server read the batch so far).
    const opening = send(healthAgent, api.base, 'GET', '/api/v1/health', undefined, () => order.push('opening'));
    opening.request.end();
    assert.equal((await opening.answered).status, 200);

    // The batch's last byte, then at once a health request on the open connection.
    redelivery.request.end(body.subarray(body.length - 1));
    const health = send(healthAgent, api.base, 'GET', '/api/v1/health', undefined, () => order.push('health'));
    health.request.end();

    const [healthAnswer, batchAnswer] = await Promise.all([health.answered, redelivery.answered]);
    assert.equal(healthAnswer.status, 200);
    assert.equal(batchAnswer.status, 200, batchAnswer.body.slice(0, 500));
    const results = (JSON.parse(batchAnswer.body) as { results: Array<{ status: string }> }).results;
    assert.equal(results.length, EVENTS);
    assert.ok(
      results.every((result) => result.status === 'duplicate'),
      'the redelivered events are reported duplicate',
    );
    assert.deepEqual(order, ['opening', 'health', 'batch'], 'the health request is answered before the batch');
  });
});
