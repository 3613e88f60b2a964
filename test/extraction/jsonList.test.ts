/**
 * Reading list answers item by item (`infra/confluent/jsonList.ts`): on random JSON objects whose
 * `data` holds random items (objects, arrays, strings with brackets, quotes, escapes and non-ASCII
 * text, numbers, literals), cut into random chunks of bytes (inside strings, escapes and multi-byte
 * characters too), `parseJsonList` answers `JSON.parse` of the whole text with `data` filtered by
 * `keep`; a `data` below the top level is left whole; broken JSON is a SyntaxError. Then through the
 * platform adapter against the simulator: `listAllTopicConfigs` answers only the rows
 * `keepsTopicConfig` keeps, and the same rows as a plain parse of the same answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { JsonListScanner, parseJsonList } from '../../infra/confluent/jsonList.js';
import { loadScenario, startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import type { TopicConfigBody } from '../../src/extraction/platformTypes.js';
import { configsByTopic, keepsTopicConfig } from '../../src/extraction/topics.js';
import { DEDICATED, PROD, fastApi } from './helpers.js';

/** Strings that try to confuse the scanner. */
const trickyString = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('"', '\\', '\\"', '[', ']', '{', '}', ',', '"data":[', 'é', '😀', '\u2028', ''),
);
const item = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    trickyString,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(trickyString, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** An envelope: members before and after `data`, one of them possibly holding a nested `data`. */
const answer = fc.record({
  before: fc.dictionary(fc.constantFrom('kind', 'metadata', 'x"[', 'é'), item, { maxKeys: 3 }),
  data: fc.array(item, { maxLength: 12 }),
  after: fc.dictionary(fc.constantFrom('next', 'nested', '}]'), item, { maxKeys: 2 }),
  nested: fc.boolean(),
  spaced: fc.boolean(),
});

/** Cuts `bytes` at the given fractions. */
function cut(bytes: Buffer, fractions: number[]): Buffer[] {
  const points = [...new Set(fractions.map((fraction) => Math.floor(fraction * bytes.length)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(from, point));
    from = point;
  }
  chunks.push(bytes.subarray(from));
  return chunks;
}

async function* iterate(chunks: Buffer[]): AsyncGenerator<Uint8Array> {
  for (const chunk of chunks) yield chunk;
}

/** Keeps every other kind of item: objects with an even number of keys, strings, and numbers. */
const keep = (value: unknown) =>
  typeof value === 'string' ||
  typeof value === 'number' ||
  (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length % 2 === 0);

describe('reading a list answer item by item', () => {
  it('equals JSON.parse with data filtered, however the bytes are cut', async () => {
    await fc.assert(
      fc.asyncProperty(
        answer,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 20 }),
        async ({ before, data, after, nested, spaced }, fractions) => {
          const value = { ...before, data, ...after, ...(nested ? { inner: { data: [1, 'x'] } } : {}) };
          const text = JSON.stringify(value, null, spaced ? 2 : undefined);
          const parsed = await parseJsonList(iterate(cut(Buffer.from(text, 'utf8'), fractions)), 'data', keep);
          const expected = JSON.parse(text) as Record<string, unknown>;
          expected.data = (expected.data as unknown[]).filter(keep);
          assert.deepEqual(parsed, expected);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('leaves an object without the list as it is, and an empty body is null', async () => {
    assert.deepEqual(await parseJsonList(iterate([Buffer.from('{"kind":"x","data":null}')]), 'data', keep), {
      kind: 'x',
      data: null,
    });
    assert.deepEqual(await parseJsonList(iterate([Buffer.from('{"other":[1,2]}')]), 'data', () => false), {
      other: [1, 2],
    });
    assert.equal(await parseJsonList(iterate([]), 'data', keep), null);
  });

  it('throws a SyntaxError on broken JSON (an item, the envelope, or an early end)', async () => {
    for (const text of ['{"data":[{"a":1},{"b":}]}', '{"data":[1,2]', '{"data":[{"a":"b}]}', '{"data":[1] x}']) {
      await assert.rejects(parseJsonList(iterate([Buffer.from(text)]), 'data', keep), SyntaxError, text);
    }
    const scanner = new JsonListScanner('data', keep);
    scanner.push('{"data":[{"a":');
    assert.throws(() => scanner.end(), SyntaxError);
  });
});

describe('listAllTopicConfigs reads its answer row by row', () => {
  let sim: PlatformSimulator;
  before(async () => {
    sim = await startPlatformSimulator({ scenario: await loadScenario('demo') });
  });
  after(async () => {
    await sim.close();
  });

  it('answers only the rows a topic keeps, the same as a plain parse of the whole answer', async () => {
    const clusters = await fastApi(sim).listKafkaClusters(PROD);
    const restEndpoint = clusters.find((cluster) => cluster.id === DEDICATED)?.spec?.http_endpoint;
    assert.ok(restEndpoint);
    const cluster = { clusterId: DEDICATED, environmentId: PROD, restEndpoint };
    let body = '';
    const recording: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      body = await response.clone().text();
      return response;
    };
    const rows = await fastApi(sim, { fetch: recording }).listAllTopicConfigs(cluster);
    const all = (JSON.parse(body) as { data: TopicConfigBody[] }).data;
    assert.ok(all.length > rows.length && rows.length > 0, `${rows.length} of ${all.length} rows kept`);
    assert.ok(rows.every((row) => keepsTopicConfig(row)));
    assert.deepEqual(configsByTopic(rows), configsByTopic(all));
    assert.deepEqual(
      rows,
      all.filter((row) => keepsTopicConfig(row)),
    );
  });
});
