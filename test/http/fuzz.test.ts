/**
 * Property: no request, however malformed, gets a 5xx (`docs/contract.md` section 4: "No input gives
 * a 500"). fast-check sends random and malformed bodies, path segments and query strings to every
 * endpoint of a server holding a real graph, and checks that each answer is below 500 and that every
 * 4xx is a problem+json document. Issue 15 added hostile generators: deep nesting (to 5,000 levels,
 * alone and inside OpenLineage batches), invalid UTF-8, control and invisible characters, hostile
 * percent-encodings sent raw, huge numbers and prototype keys; `FUZZ_RUNS` requests (5,000) in all.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { CLUSTER, ENV, ids, sampleGraph } from '../helpers/sampleGraph.js';
import { fastRunners, startApi, type TestApi } from './helpers.js';

/** Every endpoint, with `{g}` for a graph id, `{n}` for a node id and `{t}` for a task id. */
const ENDPOINTS: Array<[string, string]> = [
  ['GET', '/api/v1/health'],
  ['GET', '/api/v1/version'],
  ['GET', '/api/v1/catalogs'],
  ['GET', '/api/v1/openapi.yaml'],
  ['GET', '/api/v1/graphs'],
  ['POST', '/api/v1/graphs'],
  ['GET', '/api/v1/graphs/{g}'],
  ['DELETE', '/api/v1/graphs/{g}'],
  ['POST', '/api/v1/graphs/{g}/import'],
  ['GET', '/api/v1/graphs/{g}/export'],
  ['GET', '/api/v1/graphs/{g}/nodes'],
  ['POST', '/api/v1/graphs/{g}/nodes'],
  ['GET', '/api/v1/graphs/{g}/nodes/{n}'],
  ['GET', '/api/v1/graphs/{g}/edges'],
  ['POST', '/api/v1/graphs/{g}/edges'],
  ['GET', '/api/v1/graphs/{g}/query/upstream/{n}'],
  ['GET', '/api/v1/graphs/{g}/query/downstream/{n}'],
  ['GET', '/api/v1/graphs/{g}/history'],
  ['GET', '/api/v1/graphs/{g}/diff'],
  ['GET', '/api/v1/tasks'],
  ['GET', '/api/v1/tasks/{t}'],
  ['POST', '/api/v1/tasks/extract'],
  ['POST', '/api/v1/extract'],
  ['POST', '/api/v1/tasks/enrich'],
  ['POST', '/api/v1/lineage'],
  ['POST', '/api/v1/lineage/events'],
  ['GET', '/api/v1/lineage/events'],
  ['GET', '/api/v1/lineage/events/{t}'],
  ['GET', '/api/v1/lineage/datasets'],
  ['GET', '/api/v1/lineage/datasets/detail'],
  ['GET', '/api/v1/lineage/datasets/lineage'],
  ['GET', '/api/v1/lineage/jobs'],
  ['GET', '/api/v1/lineage/jobs/detail'],
  ['GET', '/api/v1/graphs/confluent/view'],
  ['GET', '/api/v1/graphs/enriched/view'],
  ['POST', '/api/v1/lineage/push'],
  ['POST', '/api/v1/push/lakehouse'],
  ['POST', '/api/v1/push/{t}'],
  ['GET', '/api/v1/watchers'],
  ['POST', '/api/v1/watchers'],
  ['GET', '/api/v1/watchers/{t}'],
  ['POST', '/api/v1/watchers/{t}/stop'],
  ['GET', '/api/v1/watchers/{t}/events'],
  ['GET', '/api/v1/watchers/{t}/history'],
  ['DELETE', '/api/v1/watchers/{t}'],
  ['GET', '/api/v1/ready'],
  ['GET', '/api/v1/graphs/{g}/nodes/{n}/metrics'],
  ['GET', '/metrics'],
  ['GET', '/openapi.json'],
  ['GET', '/docs'],
  ['GET', '/redoc'],
];

/** Generated requests of the main property (issue 15: at least 5,000). */
const FUZZ_RUNS = 5_000;

/** Percent-encodings a client library would not produce, sent raw in paths and queries. */
const HOSTILE_ENCODINGS = [
  '%',
  '%zz',
  '%E0%A4%A',
  '%C0%AF',
  '%FF',
  '%00',
  '%2F..%2F',
  'a%2',
  '%25%',
  '%F0%9F',
  '%u0041',
];

/** Characters that ids and names refuse (controls, zero-width, directional overrides). */
const NASTY_CHARACTERS = [
  '\u0000',
  '\r',
  '\n',
  '\t',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u200b',
  '\u202e',
  '\u2066',
  '\ufeff',
];

/** `[[[...]]]` or `{"a":{"a":...}}` nested `depth` levels, as text. */
const nested = (depth: number, object: boolean) =>
  object ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + ']'.repeat(depth);

/** An OpenLineage RunEvent with `name` as its job name and `runId`. */
const runEvent = (name: string, runId: string, facets = '{}') =>
  `{"eventType":"COMPLETE","eventTime":"2024-01-01T00:00:00Z","run":{"runId":${JSON.stringify(runId)}},` +
  `"job":{"namespace":"n","name":${JSON.stringify(name)},"facets":${facets}},"inputs":[],"outputs":[]}`;

const QUERY_NAMES = [
  'as_of',
  'mode',
  'hops',
  'limit',
  'offset',
  'node_type',
  'system',
  'search',
  'from',
  'to',
  'type',
  'status',
  'environment_ids',
  'edge_type',
  'node_id',
  'cluster_id',
  'namespace',
  'name',
  'job',
  'run_id',
  'event_type',
  'since',
  'until',
  'direction',
  'depth',
  'systems',
  'graph_id',
];

/**
 * Issue 15's hostile bodies: deep nesting (alone, as a field, as one item of an OpenLineage batch),
 * invalid UTF-8, control and invisible characters in names and ids, huge numbers and prototype keys.
 */
function hostileBodies(): fc.Arbitrary<string | Buffer> {
  const nasty = fc
    .tuple(fc.string({ maxLength: 8 }), fc.constantFrom(...NASTY_CHARACTERS), fc.string({ maxLength: 8 }))
    .map(([before, character, after]) => `${before}${character}${after}`);
  return fc.oneof(
    // Deep nesting, alone, as a field and as one item of an OpenLineage batch.
    fc.tuple(fc.integer({ min: 1, max: 5000 }), fc.boolean()).map(([depth, object]) => nested(depth, object)),
    fc
      .integer({ min: 60, max: 3000 })
      .map((depth) => `[${runEvent('ok', 'r-ok')},${runEvent('deep', 'r-deep', nested(depth, true))}]`),
    fc.integer({ min: 1, max: 3000 }).map((depth) => `{"name":${nested(depth, true)},"environment_ids":["e"]}`),
    // Invalid UTF-8 inside otherwise valid JSON, and raw bytes.
    fc
      .uint8Array({ minLength: 1, maxLength: 8 })
      .map((bytes) =>
        Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc3, 0x28]), Buffer.from(bytes), Buffer.from('"}')]),
      ),
    fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
    // Control and invisible characters in names, ids, runIds and environment ids.
    nasty.map((text) => JSON.stringify({ name: text })),
    nasty.map((text) => runEvent(text, 'r1')),
    nasty.map((text) => runEvent('j', text)),
    nasty.map((text) => JSON.stringify({ environment_ids: [text], poll_interval_seconds: 60 })),
    nasty.map((text) => JSON.stringify({ ...sampleGraph().nodes[0], id: `${sampleGraph().nodes[0]!.id}${text}` })),
    // Huge numbers and prototype keys.
    fc.constantFrom(
      '{"poll_interval_seconds":1e400,"environment_ids":["e"]}',
      '{"limit":123456789012345678901234567890}',
      '{"hops":-1e309}',
      '[1e999999]',
      '{"__proto__":{"admin":true}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '[{"__proto__":null}]',
      `{"eventType":"COMPLETE","run":{"runId":"r"},"job":{"namespace":"n","name":"j"},"__proto__":{}}`,
    ),
  );
}

describe('fuzz: no input yields a 5xx', () => {
  let api: TestApi;
  let graphId: string;
  before(async () => {
    // Traversal indexes on at once (quiet period 0), so that indexed answers are fuzzed too.
    api = await startApi({ runners: fastRunners(), traversalIndexQuietMilliseconds: 0 });
    const created = await fetch(`${api.base}/api/v1/graphs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"fuzz"}',
    });
    graphId = ((await created.json()) as { graph_id: string }).graph_id;
    await fetch(`${api.base}/api/v1/graphs/${graphId}/import`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sampleGraph()),
    });
  });
  after(async () => api.dispose());

  it('answers random requests to every endpoint below 500, 4xx as problem+json', async () => {
    const hostileBody = hostileBodies();
    const segment = fc.oneof(
      fc.constantFrom(ids.orders, ids.postgres, 'x', '', '..', '%', '%zz', '%00', 'a/b', ' ', '\u00e9', '0', '-1'),
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 20 }),
    );
    const queryValue = fc.oneof(
      fc.constantFrom(
        '',
        '0',
        '-1',
        '1',
        '3',
        '999999999999999999999',
        'NaN',
        '1e309',
        'merge',
        'replace',
        'TOPIC',
        'stream',
        'pending',
        '2024-01-01T00:00:00Z',
        'now',
        '[]',
        '{}',
        'upstream',
        'both',
        'COMPLETE',
        'stream,lakehouse',
        `stream://${ENV}/${CLUSTER}`,
        'orders_enriched',
      ),
      fc.string({ maxLength: 30 }),
    );
    const query = fc.array(
      fc.tuple(fc.oneof(fc.constantFrom(...QUERY_NAMES), fc.string({ maxLength: 10 })), queryValue),
      { maxLength: 5 },
    );
    const body = fc.oneof(
      fc.constant(undefined),
      fc.json({ maxDepth: 3 }),
      fc.string({ maxLength: 200 }),
      fc.constantFrom(
        '{',
        '[',
        'null',
        '"x"',
        '{"nodes": 1}',
        '{"nodes":[{"id":null}]}',
        JSON.stringify(sampleGraph()),
        '{"environment_ids":[1]}',
        '{"src_id":"a","dst_id":"b","edge_type":"CONSUMES"}',
        '{"eventType":"START","eventTime":"2024-01-01T00:00:00","run":{"runId":"r1"},' +
          '"job":{"namespace":"n","name":"j"},"inputs":[{"namespace":"kafka://b:9092","name":"t"}]}',
        '[{"job":{}},{"dataset":{"namespace":"n","name":"d"}}]',
        '{"run":{"runId":1},"job":{"namespace":"n","name":"j"},"inputs":"x"}',
      ),
      fc.anything({ maxDepth: 2 }).map((value) => {
        try {
          return JSON.stringify(value) ?? 'undefined';
        } catch {
          return 'unserializable';
        }
      }),
      hostileBody,
    );
    const contentType = fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/xml',
      '',
      'application/problem+json',
    );
    // Request bodies may claim a compression (the OpenLineage ingestion routes decompress gzip and deflate).
    const contentEncoding = fc.constantFrom('', '', '', 'gzip', 'deflate', 'br', 'identity');
    const rawSegment = fc.constantFrom(...HOSTILE_ENCODINGS);
    const request = fc.record({
      endpoint: fc.constantFrom(...ENDPOINTS),
      raw: fc.option(fc.tuple(rawSegment, fc.constantFrom('path', 'query', 'name')), { freq: 6 }),
      graph: fc.oneof(fc.constant('{graph}'), segment),
      node: segment,
      task: segment,
      query,
      body,
      contentType,
      contentEncoding,
      method: fc.option(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'), { freq: 5 }),
    });

    let sent = 0;
    await fc.assert(
      fc.asyncProperty(request, async (input) => {
        sent += 1;
        const [defaultMethod, template] = input.endpoint;
        const method = input.method ?? defaultMethod;
        const path = template
          .replace('{g}', input.graph === '{graph}' ? graphId : encodeURIComponent(input.graph))
          .replace('{n}', encodeURIComponent(input.node))
          .replace('{t}', encodeURIComponent(input.task));
        let search = input.query
          .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
          .join('&');
        let target = path;
        if (input.raw) {
          const [raw, where] = input.raw;
          if (where === 'path') target = path.replace(/\/[^/]*$/, `/${raw}`);
          else search = where === 'query' ? `${search}${search ? '&' : ''}limit=${raw}` : `${raw}=1`;
        }
        const headers: Record<string, string> = {};
        if (input.contentType !== '' && input.body !== undefined) headers['content-type'] = input.contentType;
        if (input.contentEncoding !== '' && input.body !== undefined)
          headers['content-encoding'] = input.contentEncoding;
        const sendsBody = input.body !== undefined && method !== 'GET';
        const response = await fetch(`${api.base}${target}${search ? `?${search}` : ''}`, {
          method,
          headers,
          ...(sendsBody ? { body: typeof input.body === 'string' ? input.body : new Uint8Array(input.body!) } : {}),
        });
        const text = await response.text();
        assert.ok(response.status < 500, `${method} ${target}?${search} -> ${response.status}: ${text.slice(0, 300)}`);
        if (response.status >= 400)
          assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
      }),
      { numRuns: FUZZ_RUNS, seed: 20250101 },
    );
    assert.ok(sent >= FUZZ_RUNS, `${sent} requests sent`);
    // And the server still works.
    const health = await fetch(`${api.base}/api/v1/health`);
    assert.equal(health.status, 200);
  });

  it('answers raw malformed request lines and percent-encodings below 500', async () => {
    const { request } = await import('node:http');
    const paths = [
      '/api/v1/graphs/%',
      '/api/v1/graphs/%E0%A4%A/nodes',
      '/api/v1/graphs/x/nodes/%C0%AF',
      '/api/v1/%2e%2e/health',
      '/api/v1/graphs?limit=%',
      `/api/v1/graphs/x/nodes/${'a'.repeat(9000)}`,
    ];
    for (const path of paths) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(`${api.base}${path}`, { method: 'GET' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      assert.ok(status >= 200 && status < 500, `${path.slice(0, 60)} -> ${status}`);
    }
  });
});
