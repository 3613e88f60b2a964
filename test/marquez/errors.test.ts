/**
 * The errors of the Marquez-compatible API carry Marquez's members (`withMarquezMembers` of
 * `infra/http/problem.ts`; docs/marquez.md): on a real socket (memory store, authentication on, a
 * write rate limit), every kind of error a Marquez client can meet on the Marquez routes (a 400 of
 * schema validation, a 400 `ValidationError` thrown by a handler, a 400 of the body parser, a 404,
 * a 403 of the key check on a read and on a write, a 429 of the write rate limit) is our problem
 * document, unchanged, plus `code` (the status), `message` (the detail) and `details`; the API's
 * own routes, `POST /api/v1/lineage` among them, answer without those members. The OpenAPI document
 * says so (`MarquezProblem`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MARQUEZ_DETAILS_ISSUES, withMarquezMembers } from '../../infra/http/problem.js';
import { assertProblem, call, startApi, type Answer, type TestApi } from '../http/helpers.js';

const WRITE_KEY = 'marquez-errors-all-5d3e';
const READ_KEY = 'marquez-errors-read-8a1b';
const LIMITED_KEY = 'marquez-errors-limited-2c7f';
/** Writes a minute per key: the limited key's fourth write is refused. */
const RATE_LIMIT = 3;
const NS = 'file://lake';
const JOB_NS = 'spark://etl';
const producer = 'https://example.com/marquez-errors-test';
const write = { 'x-api-key': WRITE_KEY };
const read = { 'x-api-key': READ_KEY };
const enc = encodeURIComponent;
const MARQUEZ_MEMBERS = ['code', 'message', 'details'];

/** Asserts a problem+json answer with Marquez's members added, and returns its body. */
function assertMarquezProblem(answer: Answer, status: number, detail?: string | RegExp): Record<string, unknown> {
  const body = assertProblem(answer, status, detail);
  assert.equal(body.code, status);
  assert.equal(body.message, body.detail);
  assert.equal(typeof body.details, 'string');
  assert.doesNotMatch(String(body.details), /undefined/);
  // Ours are kept as they are: the document is exactly ours plus the three members.
  const { code: _code, message: _message, details: _details, ...ours } = body;
  assert.deepEqual(withMarquezMembers(ours as Parameters<typeof withMarquezMembers>[0]), body);
  return body;
}

/** Asserts a problem+json answer of our own API: no Marquez member. */
function assertOwnProblem(answer: Answer, status: number): void {
  const body = assertProblem(answer, status);
  for (const member of MARQUEZ_MEMBERS) assert.ok(!(member in body), `${member} on ${answer.text.slice(0, 200)}`);
}

describe('the Marquez API answers errors with Marquez members', () => {
  let api: TestApi;
  const get = (path: string, headers: Record<string, string> = read) => call(api.base, 'GET', path, { headers });

  before(async () => {
    api = await startApi({
      env: {
        LINEAGE_SVC_API_KEY: WRITE_KEY,
        LINEAGE_SVC_API_KEYS: `${READ_KEY}=read,${LIMITED_KEY}=read+write`,
        LINEAGE_SVC_API_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
      },
    });
    const event = {
      eventType: 'COMPLETE',
      eventTime: new Date().toISOString(),
      producer,
      schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
      run: { runId: '01940000-0000-7000-8000-0000000e0001' },
      job: { namespace: JOB_NS, name: 'build_users' },
      inputs: [{ namespace: NS, name: 'raw_users' }],
      outputs: [{ namespace: NS, name: 'users' }],
    };
    const ingested = await call(api.base, 'POST', '/api/v1/lineage', { json: [event], headers: write });
    assert.equal(ingested.status, 200, ingested.text);
  });
  after(async () => api?.dispose());

  it('a 400 of schema validation: details names the first issue, errors stay', async () => {
    const body = assertMarquezProblem(
      await get(`/api/v1/lineage?nodeId=dataset:${enc(NS)}:users&depth=-1`),
      400,
      /querystring\.depth/,
    );
    assert.equal(body.type, 'urn:lineage-svc:problem:validation-failed');
    assert.equal((body.errors as Array<{ path: string }>)[0]!.path, 'querystring.depth');
    assert.match(String(body.details), /^querystring\.depth: /);
    assertMarquezProblem(await get('/api/v1/stats/everything'), 400, /params\.asset/);
    assertMarquezProblem(await get('/api/v1/jobs?lastRunStates=SLEEPING'), 400, /lastRunStates/);
  });

  it('a 400 of schema validation with more issues than details lists: the count of the others', async () => {
    const states = Array.from({ length: MARQUEZ_DETAILS_ISSUES + 2 }, (_, index) => `STATE${index}`).join(',');
    const body = assertMarquezProblem(await get(`/api/v1/jobs?lastRunStates=${states}`), 400);
    assert.equal((body.errors as unknown[]).length, MARQUEZ_DETAILS_ISSUES + 2);
    assert.match(String(body.details), /; and 2 more$/);
    assert.equal(String(body.details).split('; ').length, MARQUEZ_DETAILS_ISSUES + 1);
  });

  it('a 400 ValidationError thrown by a handler (a refused nodeId, a column lineage of a job)', async () => {
    const refused = assertMarquezProblem(
      await get('/api/v1/lineage?nodeId=table:a:b'),
      400,
      /must start with dataset:, job: or datasetField:/,
    );
    assert.equal(refused.type, 'urn:lineage-svc:problem:validation-failed');
    assert.ok(Array.isArray(refused.errors) && refused.errors.length > 0);
    assertMarquezProblem(await get(`/api/v1/column-lineage?nodeId=job:${enc(JOB_NS)}:build_users`), 400, /not a job/);
  });

  it('a 400 of the body parser on a write (malformed JSON)', async () => {
    const answer = await call(api.base, 'PUT', '/api/v1/tags/PII', {
      body: '{"description":',
      headers: { ...write, 'content-type': 'application/json' },
    });
    assertMarquezProblem(answer, 400);
  });

  it('a 404: details is the title and the type', async () => {
    const body = assertMarquezProblem(
      await get('/api/v1/lineage?nodeId=dataset:nowhere:nothing'),
      404,
      'dataset "nothing" in namespace "nowhere" is not known',
    );
    assert.equal(body.details, 'Not Found (urn:lineage-svc:problem:not-found)');
    assertMarquezProblem(await get(`/api/v1/namespaces/${enc(JOB_NS)}/jobs/nothing`), 404);
    assertMarquezProblem(await get('/api/v1/namespaces/nothing'), 404);
  });

  it('a 403 of the key check: a read without a key, a write with a read key', async () => {
    assertMarquezProblem(await get('/api/v1/namespaces', {}), 403, 'API key is missing');
    assertMarquezProblem(await get('/api/v1/search?q=users', { 'x-api-key': 'not-a-key' }), 403, 'API key is invalid');
    const body = assertMarquezProblem(
      await call(api.base, 'POST', `/api/v1/namespaces/${enc(NS)}/datasets/users/tags/PII`, { headers: read }),
      403,
      'API key lacks the "write" role',
    );
    assert.equal(body.details, 'Forbidden (urn:lineage-svc:problem:forbidden)');
  });

  it('a 429 of the write rate limit on a Marquez write', async () => {
    const limited = { 'x-api-key': LIMITED_KEY };
    for (let index = 0; index < RATE_LIMIT; index++) {
      const answer = await call(api.base, 'PUT', `/api/v1/tags/limited-${index}`, { json: {}, headers: limited });
      assert.equal(answer.status, 200, answer.text);
    }
    const refused = await call(api.base, 'PUT', '/api/v1/tags/limited-over', { json: {}, headers: limited });
    assertMarquezProblem(refused, 429, /writes a minute from this client/);
    assert.ok(refused.headers.get('retry-after'));
  });

  it('the OpenAPI document: MarquezProblem on the Marquez routes, with its example; Problem elsewhere', async () => {
    const document = (await get('/openapi.json')).body;
    const problemOf = (path: string, method: string, status: number) =>
      document.paths[path][method].responses[status].content['application/problem+json'];
    for (const status of [400, 403, 404]) {
      assert.equal(problemOf('/api/v1/lineage', 'get', status).schema.$ref, '#/components/schemas/MarquezProblem');
      assert.equal(problemOf('/api/v1/lineage', 'post', status).schema.$ref, '#/components/schemas/Problem');
    }
    const schema = document.components.schemas.MarquezProblem;
    for (const member of MARQUEZ_MEMBERS) assert.ok(schema.required.includes(member), member);
    const example = problemOf('/api/v1/tags/{tag}', 'put', 403).example;
    assert.deepEqual(example, withMarquezMembers(problemOf('/api/v1/graphs', 'get', 403).example));
  });

  it("the API's own routes and POST /api/v1/lineage answer without Marquez's members", async () => {
    assertOwnProblem(await get('/api/v1/graphs/nothing'), 404);
    assertOwnProblem(await get('/api/v1/graphs', {}), 403);
    assertOwnProblem(await get('/api/v1/lineage/events?limit=0'), 400);
    assertOwnProblem(await call(api.base, 'POST', '/api/v1/lineage', { json: { eventType: 3 }, headers: write }), 400);
    assertOwnProblem(await call(api.base, 'POST', '/api/v1/lineage', { json: [], headers: read }), 403);
    assertOwnProblem(await get('/api/v1/no-such-route'), 404);
  });
});
