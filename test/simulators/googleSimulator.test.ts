/**
 * The Google simulator's Data Lineage link search (`simulators/google/lineageLinks.ts`), over real
 * sockets: `searchLinks` by source or target with pagination (`pageSize`, `nextPageToken`, a token
 * bound to its request), request checks (exactly one of source/target, the project),
 * `batchSearchLinkProcesses` grouping links by process (at most 100 links), `processes.get`, the
 * other custom methods beside them, and the demo scenario's links.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadGoogleScenario, startGoogleSimulator, type GoogleSimulator } from '../../simulators/google/index.js';

const TOKEN = 'ya29.test';
const SOURCE = 'bigquery:p1.d.source';
const PARENT = '/v1/projects/p1/locations/us';

describe('Google simulator: Data Lineage link search', () => {
  let sim: GoogleSimulator;
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${sim.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  const get = async (path: string) => {
    const response = await fetch(`${sim.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  before(async () => {
    sim = await startGoogleSimulator({
      scenario: {
        token: TOKEN,
        project_id: 'p1',
        project_number: 42,
        locations: ['us', 'eu'],
        links: [
          { source: SOURCE, target: 'bigquery:p1.d.a', process: 'job-1' },
          { source: SOURCE, target: 'bigquery:p1.d.b', process: 'job-1' },
          { source: SOURCE, target: 'bigquery:p1.d.b', process: 'job-2' },
          { source: SOURCE, target: 'bigquery:p1.d.c' },
          { source: SOURCE, target: 'bigquery:p1.d.elsewhere', location: 'eu' },
        ],
        processes: [
          { id: 'job-1', display_name: 'Nightly job', source_type: 'BIGQUERY', attributes: { owner: 'x' } },
          { id: 'job-2' },
        ],
      },
    });
  });
  after(() => sim.close());

  it('pages through the links of a source with nextPageToken, in its location only', async () => {
    const first = await post(`${PARENT}:searchLinks`, { source: { fullyQualifiedName: SOURCE }, pageSize: 2 });
    assert.equal(first.status, 200);
    assert.equal(first.body.links.length, 2);
    assert.equal(typeof first.body.nextPageToken, 'string');
    const second = await post(`${PARENT}:searchLinks`, {
      source: { fullyQualifiedName: SOURCE },
      pageSize: 2,
      pageToken: first.body.nextPageToken,
    });
    assert.equal(second.status, 200);
    assert.equal(second.body.nextPageToken, undefined, 'the last page has no token');
    const links = [...first.body.links, ...second.body.links];
    assert.deepEqual(
      links.map((link) => link.target.fullyQualifiedName),
      ['bigquery:p1.d.a', 'bigquery:p1.d.b', 'bigquery:p1.d.c'],
    );
    for (const link of links) {
      assert.match(link.name, /^projects\/42\/locations\/us\/links\/[0-9a-f]{32}$/);
      assert.equal(link.source.fullyQualifiedName, SOURCE);
      assert.ok(!Number.isNaN(Date.parse(link.startTime)) && !Number.isNaN(Date.parse(link.endTime)));
    }
    const byTarget = await post(`${PARENT}:searchLinks`, { target: { fullyQualifiedName: 'bigquery:p1.d.b' } });
    assert.deepEqual(
      byTarget.body.links.map((link: { name: string }) => link.name),
      [links[1].name],
    );
    const none = await post(`${PARENT}:searchLinks`, { source: { fullyQualifiedName: 'bigquery:p1.d.nothing' } });
    assert.deepEqual(none, { status: 200, body: {} }, 'empty fields are left out');
    const eu = await post('/v1/projects/p1/locations/eu:searchLinks', { source: { fullyQualifiedName: SOURCE } });
    assert.deepEqual(
      eu.body.links.map((link: { target: { fullyQualifiedName: string } }) => link.target.fullyQualifiedName),
      ['bigquery:p1.d.elsewhere'],
    );
  });

  it('refuses malformed searches, foreign page tokens and other projects', async () => {
    const both = await post(`${PARENT}:searchLinks`, {
      source: { fullyQualifiedName: SOURCE },
      target: { fullyQualifiedName: SOURCE },
    });
    assert.equal(both.status, 400);
    assert.equal(both.body.error.status, 'INVALID_ARGUMENT');
    assert.equal((await post(`${PARENT}:searchLinks`, {})).status, 400);
    const first = await post(`${PARENT}:searchLinks`, { source: { fullyQualifiedName: SOURCE }, pageSize: 1 });
    const foreign = await post(`${PARENT}:searchLinks`, {
      target: { fullyQualifiedName: SOURCE },
      pageToken: first.body.nextPageToken,
    });
    assert.equal(foreign.status, 400);
    const other = await post('/v1/projects/p2/locations/us:searchLinks', { source: { fullyQualifiedName: SOURCE } });
    assert.equal(other.status, 403);
    assert.equal(other.body.error.status, 'PERMISSION_DENIED');
    const unknown = await post(`${PARENT}:searchSomething`, {});
    assert.equal(unknown.status, 404);
  });

  it('groups the links asked by the processes that created them, one page at a time', async () => {
    const links = (await post(`${PARENT}:searchLinks`, { source: { fullyQualifiedName: SOURCE } })).body
      .links as Array<{
      name: string;
    }>;
    const names = links.map((link) => link.name);
    const all = await post(`${PARENT}:batchSearchLinkProcesses`, { links: names });
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.body.processLinks.map((entry: { process: string; links: Array<{ link: string }> }) => [
        entry.process,
        entry.links.map((link) => link.link),
      ]),
      [
        ['projects/42/locations/us/processes/job-1', [names[0], names[1]]],
        ['projects/42/locations/us/processes/job-2', [names[1]]],
      ],
      'the link without a process is in no entry',
    );
    const paged = await post(`${PARENT}:batchSearchLinkProcesses`, { links: names, pageSize: 1 });
    assert.equal(paged.body.processLinks.length, 1);
    const rest = await post(`${PARENT}:batchSearchLinkProcesses`, {
      links: names,
      pageSize: 1,
      pageToken: paged.body.nextPageToken,
    });
    assert.equal(rest.body.processLinks[0].process, 'projects/42/locations/us/processes/job-2');
    assert.equal(rest.body.nextPageToken, undefined);
    const tooMany = await post(`${PARENT}:batchSearchLinkProcesses`, {
      links: Array.from({ length: 101 }, (_, i) => `projects/42/locations/us/links/${i}`),
    });
    assert.equal(tooMany.status, 400);
    assert.equal((await post(`${PARENT}:batchSearchLinkProcesses`, { links: [] })).status, 400);
  });

  it('reads processes by name, with their origin and attributes; 404 for an unknown one', async () => {
    const process = await get('/v1/projects/42/locations/us/processes/job-1');
    assert.deepEqual(process, {
      status: 200,
      body: {
        name: 'projects/42/locations/us/processes/job-1',
        displayName: 'Nightly job',
        attributes: { owner: 'x' },
        origin: { sourceType: 'BIGQUERY' },
      },
    });
    assert.deepEqual((await get('/v1/projects/42/locations/us/processes/job-2')).body.origin, { sourceType: 'CUSTOM' });
    const missing = await get('/v1/projects/42/locations/us/processes/nope');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.status, 'NOT_FOUND');
    assert.equal(sim.requestCounts()['warehouse.lineage.processes.get'], 3);
  });

  it('injects faults into the link search by API name', async () => {
    sim.injectFault({ api: 'warehouse.lineage.searchLinks', status: 503 });
    assert.equal((await post(`${PARENT}:searchLinks`, { source: { fullyQualifiedName: SOURCE } })).status, 503);
    assert.equal((await post(`${PARENT}:searchLinks`, { source: { fullyQualifiedName: SOURCE } })).status, 200);
  });

  it('serves the demo scenario: a view, a scheduled query and a Dataflow job downstream of the sink tables', async () => {
    const demo = await startGoogleSimulator({ scenario: await loadGoogleScenario('demo') });
    try {
      const response = await fetch(`${demo.url}/v1/projects/acme-analytics/locations/us:searchLinks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${demo.scenario.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          source: { fullyQualifiedName: 'bigquery:acme-analytics.retail_reporting.order_revenue_1m' },
        }),
      });
      const body = (await response.json()) as { links: Array<{ target: { fullyQualifiedName: string } }> };
      assert.deepEqual(body.links.map((link) => link.target.fullyQualifiedName).sort(), [
        'bigquery:acme-analytics.retail_reporting.revenue_daily',
        'bigquery:acme-analytics.retail_reporting.revenue_monthly',
      ]);
      assert.deepEqual(demo.scenario.processes.map((process) => process.source_type).sort(), ['BIGQUERY', 'DATAFLOW']);
    } finally {
      await demo.close();
    }
  });
});
