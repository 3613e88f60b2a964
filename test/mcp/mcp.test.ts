/**
 * The MCP server (issue 29), through the SDK's own client, on the demo estate: the platform
 * simulator (a real HTTP server on 127.0.0.1) extracted by `lineage-svc-extract`'s code into a
 * temporary sqlite store, twice (the production environment, then the development one), so that the
 * store has a history to read "as of" and to diff.
 *
 * Three ways in, each answering the same tool calls:
 * - stdio: `lineage-svc-mcp` spawned through tsx, as an assistant starts it;
 * - Streamable HTTP: `lineage-svc-mcp --http --port 0`, spawned, on its own 127.0.0.1 port;
 * - the API's `/mcp` (authentication on): a read-only key works, no key and a key without `read`
 *   are refused, and the answers match the REST routes' for the same questions, errors included.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { runExtract, type ExtractSummary } from '../../commands/shared.js';
import { loadConfig } from '../../src/config.js';
import {
  loadScenario,
  simulatorClientEnvironment,
  startPlatformSimulator,
  type PlatformSimulator,
} from '../../simulators/confluent/index.js';
import { DEV, PROD } from '../extraction/helpers.js';
import { call, enc, startApi, type TestApi } from '../http/helpers.js';

/** The tools the issue pins, in the order they are exercised. */
const TOOLS = [
  'search_nodes',
  'get_node',
  'upstream',
  'downstream',
  'path',
  'graph_as_of',
  'diff',
  'impact',
  'dataset_lineage',
];
/** The demo's CDC topic of orders, and the topic its Flink statement `enrich-orders` writes. */
const ORDERS = `stream:topic:${PROD}:lkc-7x9m2p/pg.retail.public.orders`;
const ENRICHED = `stream:topic:${PROD}:lkc-7x9m2p/orders_enriched`;

const ALL_KEY = 'mcp-all-key';
const READ_KEY = 'mcp-read-key';
const WRITE_KEY = 'mcp-write-key';

let simulator: PlatformSimulator;
let folder: string;
/** The store's settings, as every command and the API read them. */
let storeEnvironment: Record<string, string>;
/** What the two extractions recorded. */
let first: ExtractSummary;
let second: ExtractSummary;
/** A time between the two extractions. */
let between: string;
/** The tool error for an unknown node, as stdio and `--http` answered it (compared with the API's at the end). */
const unknownNodeErrors: string[] = [];

/** Runs `lineage-svc-extract --env ENV --json` in this process over the test store. */
async function extractEnvironment(environmentId: string): Promise<ExtractSummary> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: { write: (text: string) => ((stdout += text), true) },
    stderr: { write: (text: string) => ((stderr += text), true) },
  };
  const args = {
    env: [environmentId],
    cluster: [],
    output: join(folder, 'lineage_graph.json'),
    noEnrich: true,
    enrichOnly: false,
    pushLineage: false,
    metrics: false,
    metricsLookbackHours: 1,
    json: true,
  };
  const code = await runExtract(
    'lineage-svc-extract',
    args,
    loadConfig(storeEnvironment),
    storeEnvironment,
    io as never,
    {
      retryBaseDelayMs: 1,
      rateLimit: false,
    },
  );
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout) as ExtractSummary;
}

before(async () => {
  const scenario = await loadScenario('demo');
  simulator = await startPlatformSimulator({ scenario, host: '127.0.0.1', port: 0 });
  folder = mkdtempSync(join(tmpdir(), 'lineage-svc-mcp-'));
  storeEnvironment = {
    ...simulatorClientEnvironment(simulator.url, scenario),
    LINEAGE_SVC_STORAGE__BACKEND: 'sqlite',
    LINEAGE_SVC_STORAGE__PATH: folder,
  };
  first = await extractEnvironment(PROD);
  await new Promise((wait) => setTimeout(wait, 20)); // the next write is recorded at a later millisecond
  between = new Date().toISOString();
  await new Promise((wait) => setTimeout(wait, 20));
  second = await extractEnvironment(DEV);
  assert.ok(first.nodes > 10 && second.changes.nodes_added > 0, 'two extractions, the second adding nodes');
});

after(async () => {
  await simulator?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** The structured answer of a tool call that succeeded. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function ok(result: CallToolResult): any {
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  const text = (result.content[0] as { text: string }).text;
  assert.deepEqual(JSON.parse(text), result.structuredContent, 'the text is the structured answer');
  assert.ok(text.length < 64 * 1024, `a compact answer (${text.length} characters)`);
  return result.structuredContent;
}

/** The message of a tool error. */
function toolError(result: CallToolResult): string {
  assert.equal(result.isError, true, JSON.stringify(result.content));
  return (result.content[0] as { text: string }).text;
}

/** What `exercise` found, for comparison with the REST routes. */
interface Exercised {
  graphId: string;
  topic: string;
  upstreamNodeCount: number;
  asOfNodeCount: number;
  datasetJobs: string[];
  unknownNodeError: string;
  impactNodeCount: number;
  unknownFieldError: string;
}

/** Calls every tool on the demo estate through `client` and checks each answer. */
async function exercise(client: Client): Promise<Exercised> {
  const listed = await client.listTools();
  assert.deepEqual(listed.tools.map((tool) => tool.name).sort(), [...TOOLS].sort());
  const upstreamTool = listed.tools.find((tool) => tool.name === 'upstream')!;
  assert.deepEqual(upstreamTool.inputSchema.required, ['node_id'], 'graph_id, hops and as_of are optional');
  assert.equal(upstreamTool.annotations?.readOnlyHint, true);
  const tool = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  const search = ok(await tool('search_nodes', { query: 'orders' }));
  assert.ok(search.total > 0 && search.nodes.length > 0, JSON.stringify(search));
  for (const node of search.nodes) assert.ok(node.id && node.name && node.type && node.system, JSON.stringify(node));
  const graphId: string = search.graph_id;

  // A topic that something writes and something reads: the middle of a pipeline.
  let middle: { node: { id: string; name: string }; upstream: { nodes: Array<{ id: string }> } } | undefined;
  for (const candidate of search.nodes.filter((node: { type: string }) => node.type === 'TOPIC')) {
    const answer = ok(await tool('get_node', { node_id: candidate.id }));
    assert.equal(answer.node.id, candidate.id);
    assert.equal(answer.node.name, candidate.name);
    if (answer.upstream.total > 0 && answer.downstream.total > 0) middle = answer;
    if (middle) break;
  }
  assert.ok(middle, 'a topic with upstream and downstream neighbors');
  const topic = middle.node.id;

  const upstream = ok(await tool('upstream', { node_id: topic, hops: 3 }));
  assert.equal(upstream.origin.id, topic);
  assert.equal(upstream.hops, 3);
  assert.ok(
    upstream.nodes.length > 0 && upstream.nodes.every((node: { hop: number }) => node.hop >= 1 && node.hop <= 3),
  );
  assert.ok(
    upstream.edges.every((edge: { line: string }) => / -\[[A-Z_]+\]-> /.test(edge.line)),
    'edges by name',
  );
  const downstream = ok(await tool('downstream', { node_id: topic }));
  assert.equal(downstream.hops, 2, 'the default of hops');
  assert.ok(downstream.nodes.length > 0);

  const source = middle.upstream.nodes[0]!.id;
  const path = ok(await tool('path', { from: source, to: topic }));
  assert.equal(path.connected, true);
  assert.equal(path.direction, 'downstream');
  assert.equal(path.nodes[0].id, source);
  assert.equal(path.nodes.at(-1).id, topic);

  const past = ok(await tool('graph_as_of', { as_of: between }));
  assert.equal(past.node_count, first.nodes, 'the graph as the first extraction left it');
  assert.equal(past.as_of, between);
  const now = ok(await tool('graph_as_of', { graph_id: graphId, as_of: String(Number.MAX_SAFE_INTEGER) }));
  assert.equal(now.node_count, first.nodes + second.changes.nodes_added - second.changes.nodes_removed);
  assert.ok(now.nodes.length <= 50 && typeof now.more === 'string', 'a node budget, with a "more" hint');

  const diff = ok(await tool('diff', { from: between }));
  assert.equal(diff.nodes.added.total, second.changes.nodes_added);
  assert.equal(diff.nodes.removed.total, second.changes.nodes_removed);
  assert.ok(diff.nodes.added.items.every((node: { id: string; name: string }) => node.id && node.name));

  const impact = ok(await tool('impact', { node_id: ORDERS, field: 'after.customer_id' }));
  assert.deepEqual(impact.origin, { node_id: ORDERS, field: 'after.customer_id', name: 'pg.retail.public.orders' });
  assert.equal(impact.direction, 'downstream');
  const enriched = impact.columns.find((column: { node_id: string }) => column.node_id === ENRICHED);
  assert.ok(enriched, JSON.stringify(impact.columns));
  assert.equal(enriched.field, 'customer_id');
  assert.equal(enriched.name, 'orders_enriched');
  assert.equal(enriched.hops, 1);
  assert.deepEqual(enriched.via, ['enrich-orders'], 'the job between, by name');
  assert.ok(impact.jobs.every((job: { id: string; name: string }) => job.id && job.name));
  const upstreamOfField = ok(
    await tool('impact', { node_id: ENRICHED, field: 'customer_id', direction: 'upstream', depth: 1 }),
  );
  assert.ok(upstreamOfField.columns.some((column: { node_id: string; field: string }) => column.node_id === ORDERS));
  const pastImpact = ok(await tool('impact', { node_id: ORDERS, field: 'after.customer_id', as_of: between }));
  assert.equal(pastImpact.node_count, impact.node_count, 'the development environment added nothing downstream of it');

  const detail = ok(await tool('get_node', { node_id: topic }));
  const bootstrap = detail.attributes.bootstrap_endpoint as string;
  const lineage = ok(
    await tool('dataset_lineage', {
      namespace: `kafka://${bootstrap}`,
      name: middle.node.name,
      direction: 'both',
      depth: 2,
    }),
  );
  assert.ok(lineage.jobs_visited > 0 && lineage.jobs.length > 0, JSON.stringify(lineage));
  assert.ok(lineage.jobs.every((job: { name: string; inputs: unknown[] }) => job.name && Array.isArray(job.inputs)));

  // Bad arguments are tool errors, never protocol failures.
  assert.match(toolError(await tool('upstream', { node_id: topic, hops: 0 })), /hops/);
  assert.match(toolError(await tool('downstream', { node_id: topic, hops: 51 })), /hops/);
  assert.match(toolError(await tool('get_node', {})), /node_id/);
  assert.match(toolError(await tool('impact', { node_id: ORDERS, field: 'after.customer_id', depth: 0 })), /depth/);
  assert.match(toolError(await tool('impact', { node_id: ORDERS, field: 'x', direction: 'sideways' })), /direction/);
  const unknownFieldError = toolError(await tool('impact', { node_id: ORDERS, field: 'no_such_field' }));
  assert.match(unknownFieldError, /^field "no_such_field" is not a known field of node /);
  assert.match(
    toolError(await tool('dataset_lineage', { namespace: 'kafka://x:9092', name: 'y', depth: 51 })),
    /depth/,
  );
  assert.match(
    toolError(await tool('graph_as_of', { as_of: 'last friday' })),
    /^as_of must be a stream revision \(an integer\) or an ISO 8601 time, got "last friday"$/,
  );
  assert.equal(
    toolError(await tool('get_node', { graph_id: 'no such graph', node_id: topic })),
    'graph "no such graph" not found',
  );
  const unknownNodeError = toolError(await tool('upstream', { node_id: 'topic:no-such-node' }));

  return {
    graphId,
    topic,
    upstreamNodeCount: upstream.total_nodes,
    asOfNodeCount: past.node_count,
    datasetJobs: lineage.jobs.map((job: { name: string }) => job.name).sort(),
    unknownNodeError,
    impactNodeCount: impact.node_count,
    unknownFieldError,
  };
}

/** Checks the resources and prompts through `client`. */
async function resourcesAndPrompts(client: Client, exercised: Exercised): Promise<void> {
  const graphs = await client.readResource({ uri: 'lineage://graphs' });
  const listed = JSON.parse((graphs.contents[0] as { text: string }).text) as { graphs: Array<{ graph_id: string }> };
  assert.deepEqual(
    listed.graphs.map((graph) => graph.graph_id),
    [exercised.graphId],
  );
  const resources = await client.listResources();
  assert.ok(resources.resources.some((resource) => resource.uri === `lineage://graphs/${exercised.graphId}`));
  const node = await client.readResource({
    uri: `lineage://graphs/${exercised.graphId}/nodes/${enc(exercised.topic)}`,
  });
  assert.equal(JSON.parse((node.contents[0] as { text: string }).text).node.id, exercised.topic);
  const prompts = await client.listPrompts();
  assert.deepEqual(prompts.prompts.map((prompt) => prompt.name).sort(), [
    'changes_between',
    'explain_pipeline',
    'field_impact',
  ]);
  const prompt = await client.getPrompt({ name: 'explain_pipeline', arguments: { node_id: exercised.topic } });
  assert.match((prompt.messages[0]!.content as { text: string }).text, /get_node/);
}

/** A new client of this test. */
const newClient = () => new Client({ name: 'lineage-svc-test', version: '1.0.0' });

describe('lineage-svc-mcp over stdio', () => {
  it('lists the tools, calls each on the demo estate, serves resources and prompts', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'commands/mcp.ts'],
      env: { PATH: process.env.PATH ?? '', ...storeEnvironment },
      cwd: process.cwd(),
      stderr: 'pipe',
    });
    const client = newClient();
    await client.connect(transport);
    try {
      const exercised = await exercise(client);
      unknownNodeErrors.push(exercised.unknownNodeError);
      await resourcesAndPrompts(client, exercised);
    } finally {
      await client.close();
    }
  });
});

/** Spawns `lineage-svc-mcp --http --port 0` and resolves with its URL once it listens. */
function startHttpCommand(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'commands/mcp.ts', '--http', '--port', '0'], {
    env: { PATH: process.env.PATH ?? '', ...storeEnvironment },
    cwd: process.cwd(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1];
      if (url) resolve({ url, child });
    });
    child.once('exit', (code) => reject(new Error(`lineage-svc-mcp --http exited (${code}): ${stderr}`)));
  });
}

/** A POST to `url` with a `Host` header of our choosing (fetch would send the URL's). */
function postWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const request = httpRequest(
      url,
      {
        method: 'POST',
        headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.once('error', reject);
    request.end(body);
  });
}

describe('lineage-svc-mcp --http (Streamable HTTP on 127.0.0.1)', () => {
  let server: { url: string; child: ChildProcess };
  before(async () => {
    server = await startHttpCommand();
  });
  after(async () => {
    if (server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await new Promise((done) => server.child.once('exit', done));
    }
  });

  it('answers the same tools as stdio, and refuses a Host that is not its own', async () => {
    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    try {
      const exercised = await exercise(client);
      unknownNodeErrors.push(exercised.unknownNodeError);
    } finally {
      await client.close();
    }
    assert.equal(await postWithHost(server.url, 'rebound.example:80'), 403, 'DNS rebinding is refused');
  });

  it('exits 0 on SIGTERM', async () => {
    server.child.kill('SIGTERM');
    const code = await new Promise((done) => server.child.once('exit', done));
    assert.equal(code, 0);
  });
});

describe("the API's /mcp (authentication on)", () => {
  let api: TestApi;
  before(async () => {
    api = await startApi({
      backend: 'sqlite',
      folder,
      env: {
        LINEAGE_SVC_API_KEY: ALL_KEY,
        LINEAGE_SVC_API_KEYS: `${READ_KEY}=read,${WRITE_KEY}=write`,
        // No lease renewal appends while the tools are called: the store's head must not move.
        LINEAGE_SVC_LEASE_SECONDS: '3600',
      },
    });
  });
  after(() => api.close());

  it('refuses no key and a key without the read role', async () => {
    const message = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const headers = { accept: 'application/json, text/event-stream' };
    const none = await call(api.base, 'POST', '/mcp', { json: message, headers });
    assert.equal(none.status, 403, none.text);
    assert.equal(none.body.detail, 'API key is missing');
    const write = await call(api.base, 'POST', '/mcp', {
      json: message,
      headers: { ...headers, 'x-api-key': WRITE_KEY },
    });
    assert.equal(write.status, 403, write.text);
    assert.equal(write.body.detail, 'API key lacks the "read" role');
    // The role comes from the route matched, not from the path's spelling.
    const encoded = await call(api.base, 'POST', '/%6Dcp', { json: message, headers });
    assert.equal(encoded.status, 403, encoded.text);
    const upper = await call(api.base, 'POST', '/MCP', { json: message, headers });
    assert.equal(upper.status, 404, upper.text);
    const stream = await call(api.base, 'GET', '/mcp', { headers: { 'x-api-key': READ_KEY } });
    assert.equal(stream.status, 405, stream.text);
  });

  it('serves the tools to a read key, appends nothing, and answers as the REST routes do', async () => {
    const head = await api.runtime.store.headPosition();
    const client = newClient();
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${api.base}/mcp`), {
        requestInit: { headers: { 'x-api-key': READ_KEY } },
      }),
    );
    let exercised: Exercised;
    try {
      exercised = await exercise(client);
      await resourcesAndPrompts(client, exercised);
    } finally {
      await client.close();
    }
    assert.equal(await api.runtime.store.headPosition(), head, 'the MCP tools only read');

    const rest = (path: string) => call(api.base, 'GET', path, { headers: { 'x-api-key': READ_KEY } });
    const graph = `/api/v1/graphs/${enc(exercised.graphId)}`;
    const upstream = await rest(`${graph}/query/upstream/${enc(exercised.topic)}?hops=3`);
    assert.equal(upstream.body.node_count, exercised.upstreamNodeCount);
    const past = await rest(`${graph}?as_of=${enc(between)}`);
    assert.equal(past.body.node_count, exercised.asOfNodeCount);
    const impact = await rest(`${graph}/impact?node_id=${enc(ORDERS)}&field=after.customer_id`);
    assert.equal(impact.status, 200, impact.text);
    assert.equal(impact.body.node_count, exercised.impactNodeCount);
    const unknownField = await rest(`${graph}/impact?node_id=${enc(ORDERS)}&field=no_such_field`);
    assert.equal(exercised.unknownFieldError, unknownField.body.detail, 'the same message as the API');
    const unknown = await rest(`${graph}/query/upstream/${enc('topic:no-such-node')}`);
    assert.equal(unknown.status, 404);
    assert.equal(unknownNodeErrors.length, 2, 'stdio and --http answered too');
    for (const message of [exercised.unknownNodeError, ...unknownNodeErrors])
      assert.equal(message, unknown.body.detail, 'the same message as the API');
  });
});
