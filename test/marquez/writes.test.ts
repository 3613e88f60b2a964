/**
 * The writes of Marquez's API that Marquez Web makes (issue 25 item 3; `services/marquezWrites.ts`),
 * through HTTP on a real socket (memory store): tags on a dataset, a field and a job, `PUT /tags/{tag}`,
 * deleting a dataset and a job. Each needs the `write` role (403 with a read key, nothing recorded);
 * the read after it shows the change; the versions (our history) say what made it; repeating a write
 * records nothing; bad names are 404 or 400 problem+json and leave the store as it was; a deleted job
 * or dataset is gone from the Marquez reads and shows again when a new OpenLineage event names it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertProblem, call, startApi, type TestApi } from '../http/helpers.js';

const WRITE_KEY = 'marquez-writes-all-4f2a';
const READ_KEY = 'marquez-writes-read-9c1d';
const NS = 'file://lake';
const JOB_NS = 'spark://etl';
const producer = 'https://example.com/marquez-writes-test';
const write = { 'x-api-key': WRITE_KEY };
const read = { 'x-api-key': READ_KEY };
const enc = encodeURIComponent;
const datasetPath = (name: string) => `/api/v1/namespaces/${enc(NS)}/datasets/${enc(name)}`;
const jobPath = (name: string) => `/api/v1/namespaces/${enc(JOB_NS)}/jobs/${enc(name)}`;

let runs = 0;
/** A COMPLETE RunEvent of `job` reading `input` and writing `output` (fields `id`, `email`). */
const runEvent = (job: string, input: string, output: string) => ({
  eventType: 'COMPLETE',
  eventTime: new Date().toISOString(),
  producer,
  schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
  run: { runId: `01940000-0000-7000-8000-0000000d${String((runs += 1)).padStart(4, '0')}` },
  job: { namespace: JOB_NS, name: job },
  inputs: [{ namespace: NS, name: input }],
  outputs: [
    {
      namespace: NS,
      name: output,
      facets: {
        schema: {
          _producer: producer,
          _schemaURL: 'https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet',
          fields: [
            { name: 'id', type: 'string' },
            { name: 'email', type: 'string' },
          ],
        },
      },
    },
  ],
});

describe('Marquez API writes', () => {
  let api: TestApi;
  const head = () => api.runtime.store.headPosition();

  before(async () => {
    api = await startApi({ env: { LINEAGE_SVC_API_KEY: WRITE_KEY, LINEAGE_SVC_API_KEYS: `${READ_KEY}=read` } });
    const events = [runEvent('build_users', 'raw_users', 'users'), runEvent('build_mail', 'users', 'mailing')];
    assert.equal((await call(api.base, 'POST', '/api/v1/lineage', { json: events, headers: write })).status, 200);
  });
  after(async () => api?.dispose());

  it('refuses every write with a read key (403), recording nothing', async () => {
    const before = await head();
    const writes: Array<[string, string]> = [
      ['POST', `${datasetPath('users')}/tags/PII`],
      ['DELETE', `${datasetPath('users')}/tags/PII`],
      ['POST', `${datasetPath('users')}/fields/email/tags/PII`],
      ['DELETE', `${datasetPath('users')}/fields/email/tags/PII`],
      ['POST', `${jobPath('build_users')}/tags/nightly`],
      ['DELETE', `${jobPath('build_users')}/tags/nightly`],
      ['PUT', '/api/v1/tags/PII'],
      ['DELETE', datasetPath('users')],
      ['DELETE', jobPath('build_users')],
    ];
    for (const [method, path] of writes) {
      const answer = await call(
        api.base,
        method,
        path,
        method === 'PUT' ? { json: { description: 'x' }, headers: read } : { headers: read },
      );
      assertProblem(answer, 403, 'API key lacks the "write" role');
    }
    assert.equal(await head(), before);
  });

  it('tags a dataset and a field: the answer and the reads show them, the versions say what made them', async () => {
    const tagged = await call(api.base, 'POST', `${datasetPath('users')}/tags/PII`, { headers: write });
    assert.equal(tagged.status, 200, tagged.text);
    assert.deepEqual(tagged.body.tags, ['PII']);
    assert.deepEqual(tagged.body.id, { namespace: NS, name: 'users' });
    const field = await call(api.base, 'POST', `${datasetPath('users')}/fields/email/tags/Sensitive`, {
      headers: write,
    });
    assert.equal(field.status, 200, field.text);
    const email = (field.body.fields as Array<{ name: string; tags: string[] }>).find(
      (entry) => entry.name === 'email',
    );
    assert.deepEqual(email?.tags, ['Sensitive']);

    const dataset = await call(api.base, 'GET', datasetPath('users'), { headers: read });
    assert.deepEqual(dataset.body.tags, ['PII']);
    const listed = await call(api.base, 'GET', `/api/v1/namespaces/${enc(NS)}/datasets`, { headers: read });
    const users = (listed.body.datasets as Array<{ name: string; tags: string[] }>).find(
      (entry) => entry.name === 'users',
    );
    assert.deepEqual(users?.tags, ['PII']);
    const tags = await call(api.base, 'GET', '/api/v1/tags', { headers: read });
    const names = (tags.body.tags as Array<{ name: string }>).map((tag) => tag.name);
    assert.ok(names.includes('PII') && names.includes('Sensitive'), tags.text);

    const lineage = await call(api.base, 'GET', `/api/v1/lineage?nodeId=dataset:${enc(NS)}:users&depth=1`, {
      headers: read,
    });
    const node = (
      lineage.body.graph as Array<{
        id: string;
        data: { tags: string[]; fields: Array<{ name: string; tags: string[] }> };
      }>
    ).find((entry) => entry.id === `dataset:${NS}:users`);
    assert.deepEqual(node?.data.tags, ['PII'], lineage.text);
    assert.deepEqual(node?.data.fields.find((entry) => entry.name === 'email')?.tags, ['Sensitive']);

    const versions = await call(api.base, 'GET', `${datasetPath('users')}/versions`, { headers: read });
    assert.equal(versions.status, 200, versions.text);
    const history = (versions.body.versions as Array<{ facets: { lineage_svc_history?: Record<string, unknown> } }>)
      .map((version) => version.facets.lineage_svc_history)
      .filter((facet) => facet !== undefined && facet.cause === 'marquez-api');
    assert.deepEqual(
      history.map((facet) => [facet!.change, facet!.tag, facet!.field, facet!.actor]),
      [
        ['tag_added', 'Sensitive', 'email', 'api'],
        ['tag_added', 'PII', null, 'api'],
      ],
    );
    assert.equal(typeof history[0]!.correlation_id, 'string');
    const events = await api.runtime.store.readStream('marquez-annotations');
    assert.deepEqual(
      events.map((event) => [event.type, event.metadata.cause, event.metadata.actor]),
      [
        ['MarquezTagAdded', 'marquez-api', 'api'],
        ['MarquezTagAdded', 'marquez-api', 'api'],
      ],
    );
  });

  it('records nothing when a write changes nothing, and removes a tag', async () => {
    const before = await head();
    assert.equal((await call(api.base, 'POST', `${datasetPath('users')}/tags/PII`, { headers: write })).status, 200);
    assert.equal(
      (await call(api.base, 'DELETE', `${datasetPath('users')}/tags/Absent`, { headers: write })).status,
      200,
    );
    assert.equal(await head(), before);
    const untagged = await call(api.base, 'DELETE', `${datasetPath('users')}/fields/email/tags/Sensitive`, {
      headers: write,
    });
    assert.equal(untagged.status, 200, untagged.text);
    const email = (untagged.body.fields as Array<{ name: string; tags: string[] }>).find(
      (entry) => entry.name === 'email',
    );
    assert.deepEqual(email?.tags, []);
    assert.equal(await head(), before + 1);
  });

  it('tags a job and takes the tag off', async () => {
    const tagged = await call(api.base, 'POST', `${jobPath('build_users')}/tags/nightly`, { headers: write });
    assert.equal(tagged.status, 200, tagged.text);
    assert.deepEqual(tagged.body.tags, ['nightly']);
    assert.deepEqual((await call(api.base, 'GET', jobPath('build_users'), { headers: read })).body.tags, ['nightly']);
    const lineage = await call(api.base, 'GET', `/api/v1/lineage?nodeId=job:${enc(JOB_NS)}:build_users&depth=1`, {
      headers: read,
    });
    const node = (lineage.body.graph as Array<{ id: string; data: { tags: string[] } }>).find(
      (entry) => entry.id === `job:${JOB_NS}:build_users`,
    );
    assert.deepEqual(node?.data.tags, ['nightly'], lineage.text);
    const versions = await call(api.base, 'GET', `${jobPath('build_users')}/versions`, { headers: read });
    const facets = (
      versions.body.versions as Array<{ facets: { lineage_svc_history?: { change: string; tag: string } } }>
    )
      .map((version) => version.facets.lineage_svc_history)
      .filter((facet) => facet !== undefined);
    assert.deepEqual(
      facets.map((facet) => [facet!.change, facet!.tag]),
      [['tag_added', 'nightly']],
    );
    const untagged = await call(api.base, 'DELETE', `${jobPath('build_users')}/tags/nightly`, { headers: write });
    assert.equal(untagged.status, 200, untagged.text);
    assert.deepEqual(untagged.body.tags, []);
  });

  it('PUT /tags/{tag} creates a tag with its description or none, and the same description records nothing', async () => {
    const put = await call(api.base, 'PUT', '/api/v1/tags/Finance', {
      json: { description: 'Money data' },
      headers: write,
    });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(
      (put.body.tags as Array<{ name: string; description: string }>).find((tag) => tag.name === 'Finance'),
      { name: 'Finance', description: 'Money data' },
    );
    const before = await head();
    assert.equal(
      (await call(api.base, 'PUT', '/api/v1/tags/Finance', { json: { description: 'Money data' }, headers: write }))
        .status,
      200,
    );
    assert.equal(await head(), before);
    const tags = await call(api.base, 'GET', '/api/v1/tags', { headers: read });
    assert.ok((tags.body.tags as Array<{ name: string }>).some((tag) => tag.name === 'Finance'));
    // No body at all (the description is optional, as in Marquez): a tag without a description.
    const bare = await call(api.base, 'PUT', '/api/v1/tags/Bare', { headers: write });
    assert.equal(bare.status, 200, bare.text);
    assert.ok((bare.body.tags as Array<{ name: string }>).some((tag) => tag.name === 'Bare'));
  });

  it('answers bad names with 404 or 400 problem+json, recording nothing', async () => {
    const before = await head();
    assertProblem(await call(api.base, 'POST', `${datasetPath('nope')}/tags/PII`, { headers: write }), 404);
    assertProblem(
      await call(api.base, 'POST', `${datasetPath('users')}/fields/nope/tags/PII`, { headers: write }),
      404,
    );
    assertProblem(await call(api.base, 'POST', `${jobPath('nope')}/tags/PII`, { headers: write }), 404);
    assertProblem(await call(api.base, 'DELETE', datasetPath('nope'), { headers: write }), 404);
    assertProblem(await call(api.base, 'DELETE', jobPath('nope'), { headers: write }), 404);
    assertProblem(await call(api.base, 'POST', `${datasetPath('users')}/tags/${enc('  ')}`, { headers: write }), 400);
    assertProblem(
      await call(api.base, 'POST', `${datasetPath('users')}/tags/${enc('a\u0001b')}`, { headers: write }),
      400,
    );
    assertProblem(await call(api.base, 'PUT', `/api/v1/tags/${'x'.repeat(300)}`, { json: {}, headers: write }), 400);
    assertProblem(await call(api.base, 'PUT', '/api/v1/tags/Ok', { json: { description: 42 }, headers: write }), 400);
    assert.equal(await head(), before);
  });

  it('deletes a job and a dataset: gone from the Marquez reads until a new event names them', async () => {
    const beforeDelete = await head();
    const job = await call(api.base, 'DELETE', jobPath('build_mail'), { headers: write });
    assert.equal(job.status, 200, job.text);
    assert.equal(job.body.name, 'build_mail');
    const dataset = await call(api.base, 'DELETE', datasetPath('mailing'), { headers: write });
    assert.equal(dataset.status, 200, dataset.text);
    assert.equal(dataset.body.deleted, true);

    assertProblem(await call(api.base, 'GET', jobPath('build_mail'), { headers: read }), 404);
    assertProblem(await call(api.base, 'GET', datasetPath('mailing'), { headers: read }), 404);
    assertProblem(await call(api.base, 'DELETE', jobPath('build_mail'), { headers: write }), 404);
    const jobs = await call(api.base, 'GET', `/api/v1/namespaces/${enc(JOB_NS)}/jobs`, { headers: read });
    assert.deepEqual(
      (jobs.body.jobs as Array<{ name: string }>).map((entry) => entry.name),
      ['build_users'],
    );
    const datasets = await call(api.base, 'GET', `/api/v1/namespaces/${enc(NS)}/datasets`, { headers: read });
    assert.ok(!(datasets.body.datasets as Array<{ name: string }>).some((entry) => entry.name === 'mailing'));
    const search = await call(api.base, 'GET', '/api/v1/search?q=mail', { headers: read });
    assert.equal(search.body.totalCount, 0, search.text);
    const lineage = await call(api.base, 'GET', `/api/v1/lineage?nodeId=dataset:${enc(NS)}:users&depth=3`, {
      headers: read,
    });
    assert.equal(lineage.status, 200, lineage.text);
    const ids = (lineage.body.graph as Array<{ id: string }>).map((node) => node.id);
    assert.ok(ids.includes(`dataset:${NS}:users`) && ids.includes(`job:${JOB_NS}:build_users`), lineage.text);
    assert.ok(!ids.some((id) => id.includes('mail')), lineage.text);
    assertProblem(
      await call(api.base, 'GET', `/api/v1/lineage?nodeId=job:${enc(JOB_NS)}:build_mail`, { headers: read }),
      404,
    );
    // The lineage as of before the delete still has the job.
    const then = await call(
      api.base,
      'GET',
      `/api/v1/lineage?nodeId=job:${enc(JOB_NS)}:build_mail&as_of=${beforeDelete}`,
      { headers: read },
    );
    assert.equal(then.status, 200, then.text);
    // Our own OpenLineage API keeps them: the delete is the Marquez API's.
    const own = await call(api.base, 'GET', `/api/v1/lineage/jobs/detail?namespace=${enc(JOB_NS)}&name=build_mail`, {
      headers: read,
    });
    assert.equal(own.status, 200, own.text);

    // A new run of the job names both again: they show again, as in Marquez.
    const again = runEvent('build_mail', 'users', 'mailing');
    assert.equal((await call(api.base, 'POST', '/api/v1/lineage', { json: again, headers: write })).status, 200);
    assert.equal((await call(api.base, 'GET', jobPath('build_mail'), { headers: read })).status, 200);
    assert.equal((await call(api.base, 'GET', datasetPath('mailing'), { headers: read })).status, 200);
  });
});
