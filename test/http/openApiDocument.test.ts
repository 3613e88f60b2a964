/**
 * The OpenAPI document as served at `/openapi.json` (issue 17 item 2; `infra/http/openApi.ts`):
 * every operation has a unique operationId, a summary, tags, described responses and an example;
 * every example validates against the schema it illustrates (ajv, JSON Schema 2020-12, the document's
 * components in scope); the request examples are accepted by a real API; no integer carries the
 * ±2^53 bounds unless its description explains them; every write documents the write limit's 429;
 * `servers` follows the configuration; and the endpoint table of `docs/api.md` is the one `make api-docs` writes.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import swagger from '@fastify/swagger';
import { Ajv2020 } from 'ajv/dist/2020.js';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  endpointTable,
  ENDPOINT_TABLE_MARKERS,
  GENERIC_RESPONSE_DESCRIPTIONS,
  openApiOptions,
  openApiServers,
  type JsonObject,
} from '../../infra/http/openApi.js';
import { ordersTopic } from '../../infra/http/openApiExamples.js';
import { OPERATION_DOCS } from '../../infra/http/openApiOperations.js';
import { ProblemSchema } from '../../infra/http/problem.js';
import { NodeResource } from '../../infra/http/routes/schemas.js';
import { loadConfig } from '../../src/config.js';
import { call, startApi, type TestApi } from './helpers.js';

/** The operations that answer no 4xx (open probes without parameters); `redocly.yaml` names the same. */
const PROBES = new Set(['GET /api/v1/health', 'GET /api/v1/ready', 'GET /metrics']);

/** One operation of the document. */
interface Operation {
  key: string;
  operation: JsonObject;
}

/** One example with the schema it illustrates. */
interface Example {
  where: string;
  schema: JsonObject;
  value: unknown;
}

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function operations(document: JsonObject): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths as JsonObject)) {
    for (const [method, operation] of Object.entries(item as JsonObject)) {
      found.push({ key: `${method.toUpperCase()} ${path}`, operation: operation as JsonObject });
    }
  }
  return found;
}

/** The media types (with their schema and example) of an operation's request body and responses. */
function mediaTypes(operation: JsonObject): Array<{ where: string; media: JsonObject }> {
  const found: Array<{ where: string; media: JsonObject }> = [];
  const body = operation.requestBody as JsonObject | undefined;
  for (const [type, media] of Object.entries((body?.content as JsonObject | undefined) ?? {}))
    found.push({ where: `request body ${type}`, media: media as JsonObject });
  for (const [status, response] of Object.entries(operation.responses as JsonObject)) {
    for (const [type, media] of Object.entries(((response as JsonObject).content as JsonObject | undefined) ?? {}))
      found.push({ where: `response ${status} ${type}`, media: media as JsonObject });
  }
  return found;
}

function examples(operation: JsonObject): Example[] {
  const found: Example[] = [];
  for (const { where, media } of mediaTypes(operation)) {
    const schema = (media.schema as JsonObject | undefined) ?? {};
    if ('example' in media) found.push({ where, schema, value: media.example });
    for (const [name, example] of Object.entries((media.examples as JsonObject | undefined) ?? {}))
      found.push({ where: `${where} (${name})`, schema, value: (example as JsonObject).value });
  }
  return found;
}

/** Paths (JSON pointers) of every schema whose bound is ±(2^53 - 1), with the schema. */
function safeIntegerBounds(value: unknown, path = '', into: Array<{ path: string; schema: JsonObject }> = []) {
  if (Array.isArray(value)) value.forEach((item, index) => safeIntegerBounds(item, `${path}/${index}`, into));
  else if (isObject(value)) {
    if (value.maximum === Number.MAX_SAFE_INTEGER || value.minimum === -Number.MAX_SAFE_INTEGER)
      into.push({ path, schema: value });
    for (const [key, item] of Object.entries(value)) safeIntegerBounds(item, `${path}/${key}`, into);
  }
  return into;
}

describe('the OpenAPI document', () => {
  let api: TestApi;
  let document: JsonObject;
  before(async () => {
    api = await startApi({ backend: 'memory' });
    const answer = await call(api.base, 'GET', '/openapi.json');
    assert.equal(answer.status, 200);
    document = answer.body as JsonObject;
  });
  after(async () => api.dispose());

  it('gives every operation a unique operationId, a summary, tags and described responses', () => {
    const all = operations(document);
    assert.ok(all.length >= 46, `only ${all.length} operations`);
    const ids = all.map(({ operation }) => operation.operationId);
    assert.equal(new Set(ids).size, ids.length, `duplicate operationIds: ${ids.join(', ')}`);
    for (const { key, operation } of all) {
      assert.match(String(operation.operationId), /^[a-z][A-Za-z0-9]+$/, `${key}: operationId`);
      assert.ok(typeof operation.summary === 'string' && operation.summary.length > 5, `${key}: summary`);
      assert.ok(Array.isArray(operation.tags) && operation.tags.length > 0, `${key}: tags`);
      const responses = Object.entries(operation.responses as JsonObject);
      assert.ok(
        responses.some(([status]) => status.startsWith('2')),
        `${key}: no 2xx response`,
      );
      for (const [status, response] of responses) {
        const description = (response as JsonObject).description;
        assert.ok(
          typeof description === 'string' && description !== '' && description !== 'Default Response',
          `${key} ${status}: "${String(description)}"`,
        );
      }
      if (!PROBES.has(key))
        assert.ok(
          responses.some(([status]) => status.startsWith('4')),
          `${key}: no 4xx response`,
        );
    }
  });

  it("documents the write limit on every write: 429 with Retry-After, in the route's own problem schema", () => {
    const problemOf = (response: unknown) =>
      (
        (((response as JsonObject).content as JsonObject)['application/problem+json'] as JsonObject)
          .schema as JsonObject
      ).$ref;
    let writes = 0;
    for (const { key, operation } of operations(document)) {
      const responses = operation.responses as Record<string, JsonObject>;
      if (!/^(POST|PUT|PATCH|DELETE) /.test(key)) {
        assert.equal(responses['429'], undefined, `${key}: a read is not rate-limited`);
        continue;
      }
      writes += 1;
      const limited = responses['429'];
      assert.ok(limited, `${key}: no 429`);
      assert.deepEqual(
        (limited.headers as JsonObject)['Retry-After'],
        { schema: { type: 'integer', minimum: 0 }, description: 'Seconds until the client may write again' },
        `${key}: Retry-After`,
      );
      assert.equal(problemOf(limited), problemOf(responses['400']), `${key}: the 429 in the schema of the 400`);
    }
    assert.ok(writes >= 15, `only ${writes} writes`);
    const marquezTag = ((document.paths as JsonObject)['/api/v1/tags/{tag}'] as JsonObject).put as JsonObject;
    assert.equal(
      problemOf((marquezTag.responses as JsonObject)['429']),
      '#/components/schemas/MarquezProblem',
      "a Marquez write answers 429 with Marquez's members",
    );
  });

  it('uses the specific descriptions of the catalog, e.g. for a graph', () => {
    const responses = ((document.paths as JsonObject)['/api/v1/graphs/{graph_id}'] as JsonObject).get as JsonObject;
    const described = responses.responses as Record<string, JsonObject>;
    assert.equal(described['200']!.description, 'The graph with its nodes and edges');
    assert.match(String(described['404']!.description), /^No graph with that id or name/);
    assert.ok(described['404']!.content && 'application/problem+json' in (described['404']!.content as JsonObject));
  });

  it('has an example for every operation, and every example validates against its own schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    let checked = 0;
    for (const { key, operation } of operations(document)) {
      const found = examples(operation);
      const noContent = Object.keys(operation.responses as JsonObject).every(
        (status) => !status.startsWith('2') || status === '204',
      );
      assert.ok(found.length > 0 || noContent, `${key}: no example`);
      for (const { where, schema, value } of found) {
        // The document's components in scope, so that `#/components/schemas/...` references resolve.
        const validate = ajv.compile({ ...schema, components: document.components });
        assert.ok(validate(value), `${key} ${where}: ${ajv.errorsText(validate.errors)}`);
        checked++;
      }
    }
    assert.ok(checked >= 50, `only ${checked} examples checked`);
  });

  it('has an example an invalid value would fail (the check can fail)', () => {
    const ajv = new Ajv2020({ strict: false });
    const schema = (document.components as { schemas: JsonObject }).schemas.Node as JsonObject;
    const validate = ajv.compile({ ...schema, components: document.components });
    assert.equal(validate({ id: 'x' }), false);
  });

  it('bounds every integer: ±2^53 only where the description says why', () => {
    const bounds = safeIntegerBounds(document);
    for (const { path, schema } of bounds) {
      assert.notEqual(schema.minimum, -Number.MAX_SAFE_INTEGER, `${path}: minimum -2^53`);
      assert.match(String(schema.description), /2\^53/, `${path}: maximum 2^53 - 1 unexplained`);
    }
  });

  it('names the configured address in servers', () => {
    const servers = document.servers as Array<{ url: string }>;
    assert.ok(servers.length > 0);
    assert.equal(servers[0]!.url, 'http://localhost:8000');
    assert.deepEqual(
      openApiServers({ host: '127.0.0.1', port: 9000, publicUrl: undefined }).map((server) => server.url),
      ['http://127.0.0.1:9000'],
    );
    assert.deepEqual(
      openApiServers({ host: '::1', port: 9000, publicUrl: undefined }).map((server) => server.url),
      ['http://[::1]:9000'],
    );
  });

  it('keeps only the component schemas something refers to', () => {
    const text = JSON.stringify(document);
    const names = Object.keys((document.components as { schemas: JsonObject }).schemas);
    assert.ok(names.includes('Node') && names.includes('Problem'));
    for (const name of names) assert.ok(text.includes(`"#/components/schemas/${name}"`), `${name} is unused`);
  });

  it('is what docs/api.md lists (make api-docs)', () => {
    const markdown = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const start = markdown.indexOf(ENDPOINT_TABLE_MARKERS.start);
    const end = markdown.indexOf(ENDPOINT_TABLE_MARKERS.end);
    assert.ok(start >= 0 && end > start, 'docs/api.md has no endpoint table markers');
    const committed = markdown.slice(start + ENDPOINT_TABLE_MARKERS.start.length, end).trim();
    assert.equal(committed, endpointTable(document).trim(), 'docs/api.md is stale: run make api-docs');
  });
});

describe('the OpenAPI request examples, sent to a real API', () => {
  let api: TestApi;
  before(async () => {
    api = await startApi({ backend: 'sqlite' });
  });
  after(async () => api.dispose());

  it('accepts the graph, import, node, edge and OpenLineage examples', async () => {
    const created = await call(api.base, 'POST', '/api/v1/graphs', {
      json: OPERATION_DOCS['POST /api/v1/graphs']!.requestExample,
    });
    assert.equal(created.status, 201, created.text);
    const graph = encodeURIComponent(created.body.graph_id as string);
    const imported = await call(api.base, 'POST', `/api/v1/graphs/${graph}/import`, {
      json: OPERATION_DOCS['POST /api/v1/graphs/:graph_id/import']!.requestExample,
    });
    assert.equal(imported.status, 200, imported.text);
    assert.equal(imported.body.node_count, 4);
    for (const key of ['POST /api/v1/graphs/:graph_id/nodes', 'POST /api/v1/graphs/:graph_id/edges']) {
      const path = key.slice('POST '.length).replace(':graph_id', graph);
      const answer = await call(api.base, 'POST', path, { json: OPERATION_DOCS[key]!.requestExample });
      assert.equal(answer.status, 200, `${key}: ${answer.text}`);
    }
    const example = OPERATION_DOCS['POST /api/v1/graphs/:graph_id/nodes']!.requestExample as { id: string };
    const node = encodeURIComponent(example.id);
    const downstream = await call(api.base, 'GET', `/api/v1/graphs/${graph}/query/downstream/${node}?hops=2`);
    assert.deepEqual(
      downstream.body.nodes.map((reached: { id: string }) => reached.id),
      (
        OPERATION_DOCS['GET /api/v1/graphs/:graph_id/query/downstream/:node_id']!.responseExample as {
          nodes: Array<{ id: string }>;
        }
      ).nodes.map((reached) => reached.id),
    );
    for (const key of ['POST /api/v1/lineage', 'POST /api/v1/lineage/events']) {
      const answer = await call(api.base, 'POST', key.slice('POST '.length), {
        json: OPERATION_DOCS[key]!.requestExample,
      });
      assert.equal(answer.status, 200, `${key}: ${answer.text}`);
      assert.equal(answer.body.rejected, 0, answer.text);
    }
  });
});

describe('inline route metadata', () => {
  it('wins over the catalog, and a route without a catalog entry documents itself', async () => {
    const config = loadConfig({ LINEAGE_SVC_API_PUBLIC_URL: 'https://lineage.example.org/' });
    const app = Fastify().withTypeProvider<ZodTypeProvider>();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await app.register(swagger, openApiOptions(config, '0.0.0'));
    app.get(
      '/api/v1/graphs',
      {
        schema: {
          operationId: 'listGraphsInline',
          summary: 'Graphs',
          tags: ['graphs'],
          description: 'Written in the route',
          response: { 200: z.object({ total: z.number().int().min(0).max(10) }).describe('Written in the route too') },
        },
      },
      async () => ({ total: 1 }),
    );
    app.get(
      '/api/v1/extra/:graph_id',
      {
        schema: {
          operationId: 'getExtra',
          summary: 'A node of a new route',
          tags: ['graphs'],
          params: z.object({ graph_id: z.string().max(256) }),
          response: { 200: NodeResource.meta({ examples: [ordersTopic] }), 404: ProblemSchema.describe('No extra') },
        },
      },
      async () => NodeResource.parse(ordersTopic),
    );
    await app.ready();
    const document = app.swagger() as unknown as JsonObject;
    await app.close();
    const paths = document.paths as Record<string, Record<string, JsonObject>>;
    const graphs = paths['/api/v1/graphs']!.get!;
    assert.equal(graphs.operationId, 'listGraphsInline');
    assert.equal(graphs.description, 'Written in the route');
    const graphsOk = (graphs.responses as Record<string, JsonObject>)['200']!;
    assert.equal(graphsOk.description, 'Written in the route too');
    const extra = paths['/api/v1/extra/{graph_id}']!.get!;
    assert.equal(extra.operationId, 'getExtra');
    const responses = extra.responses as Record<string, JsonObject>;
    assert.equal(responses['200']!.description, GENERIC_RESPONSE_DESCRIPTIONS[200]);
    assert.equal(responses['404']!.description, 'No extra');
    const media = (responses['200']!.content as Record<string, JsonObject>)['application/json']!;
    assert.deepEqual(media.example, ordersTopic);
    assert.equal(JSON.stringify(document).includes('x-lineage-svc-examples'), false);
    assert.deepEqual(document.servers, [
      { url: 'https://lineage.example.org', description: 'Public address (LINEAGE_SVC_API_PUBLIC_URL)' },
    ]);
  });
});
