/**
 * The MCP server of lineage-svc (issue 29; `docs/mcp.md`): lineage, history and impact as tools for
 * AI assistants, on the official TypeScript SDK (`@modelcontextprotocol/sdk`, `McpServer`), over any
 * of its transports (stdio and Streamable HTTP: `commands/mcp.ts`, `./http.ts`).
 *
 * Every tool is a thin call of the use case the REST API calls for the same question (the services
 * in `services/`), then a compact answer (`./answers.ts`); nothing here reads the store or the
 * projections by itself, and no tool writes. Tools, their arguments and the routes they answer like:
 *
 * | tool | arguments | service (REST route) |
 * |---|---|---|
 * | `search_nodes` | graph_id?, query, as_of? | `listNodes` (GET /graphs/{id}/nodes?search) |
 * | `get_node` | graph_id?, node_id, as_of? | `getNode`, `traverseGraph` 1 hop each way |
 * | `upstream`, `downstream` | graph_id?, node_id, hops (1-50, default 2), as_of? | `traverseGraph` (GET /graphs/{id}/query/{direction}/{node_id}) |
 * | `path` | graph_id?, from, to, as_of? | `graphPath` (GET /graphs/{id}/path) |
 * | `graph_as_of` | graph_id?, as_of | `readGraphView`, `summarize` (GET /graphs/{id}?as_of) |
 * | `diff` | graph_id?, from, to? | `diffGraphHistory` (GET /graphs/{id}/diff) |
 * | `impact` | graph_id?, node_id, field, direction (downstream, upstream), depth (1-50, default 10), as_of? | `fieldImpact` (GET /graphs/{id}/impact) |
 * | `dataset_lineage` | namespace, name, direction (upstream, downstream, both), depth (1-50, default 5) | `lineageOfDataset` (GET /lineage/datasets/lineage) |
 *
 * `graph_id` is a graph's id or unique name, as in the API's paths; absent, the default graph: the
 * most recently changed live graph (`defaultGraph`, what the OpenLineage views and pushes use), so
 * that on a store with one graph (what `lineage-svc-extract` records) no assistant needs to know it.
 *
 * Errors: an argument outside its schema (a hop count of 0 or 51, a missing `node_id`) is a tool
 * error from the SDK's validation, naming the argument and the bound; an error the service throws is
 * a tool error (`isError: true`) with exactly the `detail` the API's problem document gives for it
 * (`problemFor` of `infra/http/problem.ts`): "graph ... not found", "node ... not found in graph ...",
 * a malformed `as_of`. Never a protocol failure.
 *
 * Resources: `lineage://graphs` (the graphs), `lineage://graphs/{graph_id}` (a graph's summary and
 * counts now), `lineage://graphs/{graph_id}/nodes/{node_id}` (a node with its neighbors; the node id
 * percent-encoded). Prompts: `field_impact`, `changes_between`, `explain_pipeline`.
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Logger } from '../../src/logger.js';
import type { Edge, Node } from '../../src/graph/model.js';
import {
  defaultGraph,
  diffGraphHistory,
  getNode,
  listGraphs,
  listNodes,
  readGraphView,
  resolveGraphId,
  summarize,
  traverseGraph,
} from '../../services/graphs.js';
import { graphPath } from '../../services/paths.js';
import { lineageOfDataset } from '../../services/openLineage.js';
import {
  DEFAULT_IMPACT_DEPTH,
  fieldImpact,
  IMPACT_DIRECTIONS,
  MAX_IMPACT_DEPTH,
  MIN_IMPACT_DEPTH,
} from '../../services/impact.js';
import type { LineageRuntime } from '../../services/runtime.js';
import { LINEAGE_DIRECTIONS } from '../../projections/openLineage/index.js';
import { problemFor } from '../http/problem.js';
import { packageInfo } from '../http/routes/meta.js';
import { impactDepth } from '../http/routes/impact.js';
import { datasetLineageDepth } from '../http/routes/openLineage.js';
import {
  datasetLineageAnswer,
  diffAnswer,
  graphAnswer,
  impactAnswer,
  NODE_BUDGET,
  nodeAnswer,
  pathAnswer,
  searchAnswer,
  traversalAnswer,
} from './answers.js';

/** Default hops of `upstream` and `downstream`. */
export const DEFAULT_MCP_HOPS = 2;
/** Most hops `upstream` and `downstream` take (fewer than the API's 100: an answer stays readable). */
export const MAX_MCP_HOPS = 50;

/** What the tools need: the runtime the services read (the same one as the API's or a command's). */
export interface LineageMcpOptions {
  runtime: LineageRuntime;
  /** Where failures of our own (5xx) are logged; the assistant gets the API's generic message. */
  logger?: Logger | undefined;
}

const graphId = z
  .string()
  .min(1)
  .max(2048)
  .optional()
  .describe('A graph id or unique name; absent: the default graph (the most recently changed one)');
const nodeId = z.string().min(1).max(2048).describe('A node id, as the other tools answer it (e.g. from search_nodes)');
const asOf = z
  .string()
  .min(1)
  .max(64)
  .describe(
    'A point of the graph history: an ISO 8601 time (e.g. 2026-01-31T12:00:00Z) or a stream revision (an integer)',
  );
const hops = z
  .number()
  .int()
  .min(1)
  .max(MAX_MCP_HOPS)
  .default(DEFAULT_MCP_HOPS)
  .describe(`Hops to walk, 1 to ${MAX_MCP_HOPS} (default ${DEFAULT_MCP_HOPS})`);

/** The read-only annotations of every tool: nothing is written, answers come from this service's store alone. */
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** The graph a tool reads: `graph_id` resolved as the API's paths resolve it, else the default graph. */
function graphOf(runtime: LineageRuntime, id: string | undefined): string {
  return id === undefined ? defaultGraph(runtime).graphId : resolveGraphId(runtime, id);
}

/**
 * Runs a tool's work: its answer as JSON text and as structured content, or a tool error carrying
 * the API's problem detail for what the service threw.
 */
async function answer(
  work: () => Promise<Record<string, unknown>>,
  logger: Logger | undefined,
): Promise<CallToolResult> {
  try {
    const value = await work();
    return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
  } catch (error) {
    const { problem, internal } = problemFor(error);
    if (internal) logger?.error({ err: error }, 'Mcp:ToolFailed');
    return { content: [{ type: 'text', text: problem.detail }], isError: true };
  }
}

/** `search_nodes`, `get_node`, `upstream` and `downstream`. */
function registerNodeTools(server: McpServer, { runtime, logger }: LineageMcpOptions): void {
  server.registerTool(
    'search_nodes',
    {
      title: 'Search nodes',
      description:
        `Nodes whose name or qualified name contains the query (case-insensitive): topics, connectors, Flink statements, ` +
        `ksqlDB queries, tables... At most ${NODE_BUDGET}; each with the id the other tools take.`,
      inputSchema: {
        graph_id: graphId,
        query: z.string().min(1).max(256).describe('Text to find in node names'),
        as_of: asOf.optional(),
      },
      annotations: READ_ONLY,
    },
    (args) =>
      answer(async () => {
        const id = graphOf(runtime, args.graph_id);
        const page = await listNodes(runtime, id, {
          search: args.query,
          limit: NODE_BUDGET,
          offset: 0,
          as_of: args.as_of,
        });
        return searchAnswer(id, args.query, page);
      }, logger),
  );
  server.registerTool(
    'get_node',
    {
      title: 'Get a node',
      description:
        'One node with its attributes (long values cut) and its direct upstream and downstream neighbors by name.',
      inputSchema: { graph_id: graphId, node_id: nodeId, as_of: asOf.optional() },
      annotations: READ_ONLY,
    },
    (args) =>
      answer(async () => {
        const id = graphOf(runtime, args.graph_id);
        const node = await getNode(runtime, id, args.node_id, args.as_of);
        const upstream = await traverseGraph(runtime, id, args.node_id, 'upstream', 1, args.as_of);
        const downstream = await traverseGraph(runtime, id, args.node_id, 'downstream', 1, args.as_of);
        return nodeAnswer(id, node, upstream.toResult(), downstream.toResult());
      }, logger),
  );
  for (const direction of ['upstream', 'downstream'] as const) {
    server.registerTool(
      direction,
      {
        title: direction === 'upstream' ? 'What feeds a node' : 'What a node feeds',
        description:
          `The nodes ${direction} of a node within the hops asked, nearest first, with the edges between them ` +
          `(at most ${NODE_BUDGET} nodes; "more" says how many were left out).`,
        inputSchema: { graph_id: graphId, node_id: nodeId, hops, as_of: asOf.optional() },
        annotations: READ_ONLY,
      },
      (args) =>
        answer(async () => {
          const id = graphOf(runtime, args.graph_id);
          const traversal = await traverseGraph(runtime, id, args.node_id, direction, args.hops, args.as_of);
          return traversalAnswer(id, traversal.toResult());
        }, logger),
    );
  }
}

/** The nodes and edges of a graph view (read at once: a view is valid until the next macrotask). */
function viewContent(view: Awaited<ReturnType<typeof readGraphView>>): { nodes: Node[]; edges: Edge[] } {
  const nodes: Node[] = [];
  const edges: Edge[] = [];
  view.forEachNode((node) => nodes.push(node));
  view.forEachEdge((edge) => edges.push(edge));
  return { nodes, edges };
}

/** A graph's answer now or as of a point: summary, counts by type, the first nodes. */
async function graphSummaryAnswer(runtime: LineageRuntime, id: string, at: string | undefined) {
  const view = await readGraphView(runtime, id, at);
  const summary = summarize(view);
  const { nodes, edges } = viewContent(view);
  return graphAnswer(summary, at ?? null, nodes, edges);
}

/** `path`, `graph_as_of` and `diff`. */
function registerHistoryTools(server: McpServer, { runtime, logger }: LineageMcpOptions): void {
  server.registerTool(
    'path',
    {
      title: 'Path between two nodes',
      description:
        'The shortest path between two nodes following the data (direction downstream: from feeds to; upstream: to feeds from), ' +
        'node by node; connected false when there is none.',
      inputSchema: {
        graph_id: graphId,
        from: nodeId.describe('The node the path starts at'),
        to: nodeId.describe('The node it ends at'),
        as_of: asOf.optional(),
      },
      annotations: READ_ONLY,
    },
    (args) =>
      answer(
        async () =>
          pathAnswer(await graphPath(runtime, graphOf(runtime, args.graph_id), args.from, args.to, args.as_of)),
        logger,
      ),
  );
  server.registerTool(
    'graph_as_of',
    {
      title: 'The graph at a point in time',
      description:
        'The graph as it was at a time or revision: node and edge counts, counts by type and system, and its first ' +
        `${NODE_BUDGET} nodes. Follow up with search_nodes, upstream or downstream given the same as_of.`,
      inputSchema: { graph_id: graphId, as_of: asOf },
      annotations: READ_ONLY,
    },
    (args) => answer(async () => graphSummaryAnswer(runtime, graphOf(runtime, args.graph_id), args.as_of), logger),
  );
  server.registerTool(
    'diff',
    {
      title: 'What changed between two points',
      description:
        'The nodes and edges added, removed and changed (with the fields that changed) between two points of the graph history ' +
        `(ISO 8601 times or revisions; to defaults to now). At most ${NODE_BUDGET} of each list.`,
      inputSchema: {
        graph_id: graphId,
        from: asOf.describe('The earlier point: an ISO 8601 time or a revision'),
        to: asOf.optional().describe('The later point; default now'),
      },
      annotations: READ_ONLY,
    },
    (args) =>
      answer(
        async () => diffAnswer(await diffGraphHistory(runtime, graphOf(runtime, args.graph_id), args.from, args.to)),
        logger,
      ),
  );
}

/** `impact`: the field-level impact service (issue 26), names read from the same point of the graph. */
function registerImpactTool(server: McpServer, { runtime, logger }: LineageMcpOptions): void {
  server.registerTool(
    'impact',
    {
      title: 'Impact of a field',
      description:
        'Every column, job and table downstream of one field of a dataset (what breaks if it changes or is dropped), or ' +
        'upstream of it (where it comes from), through Flink SQL, ksqlDB, connectors, Tableflow and mirror topics; ' +
        `nearest first, at most ${NODE_BUDGET} columns and jobs.`,
      inputSchema: {
        graph_id: graphId,
        node_id: nodeId.describe('The dataset (topic, table, external dataset) that holds the field'),
        field: z
          .string()
          .min(1)
          .max(1024)
          .describe('The field: a schema field, a column, or a nested field (after.order_id)'),
        direction: z
          .enum(IMPACT_DIRECTIONS)
          .default('downstream')
          .describe('downstream (default): what the field feeds; upstream: what feeds it'),
        depth: impactDepth(z.number()).describe(
          `Jobs between the field and a column, ${MIN_IMPACT_DEPTH} to ${MAX_IMPACT_DEPTH} (default ${DEFAULT_IMPACT_DEPTH})`,
        ),
        as_of: asOf.optional(),
      },
      annotations: READ_ONLY,
    },
    (args) =>
      answer(async () => {
        const id = graphOf(runtime, args.graph_id);
        const { node_id, field, direction, depth, as_of } = args;
        const impact = await fieldImpact({ runtime }, id, { node_id, field, direction, depth, as_of });
        const view = await readGraphView(runtime, id, args.as_of);
        return impactAnswer(id, impact, (node) => view.getNode(node)?.display_name ?? node);
      }, logger),
  );
}

/** `dataset_lineage`. */
function registerOpenLineageTools(server: McpServer, { runtime, logger }: LineageMcpOptions): void {
  server.registerTool(
    'dataset_lineage',
    {
      title: 'OpenLineage dataset lineage',
      description:
        'The jobs around an OpenLineage dataset (namespace and name, e.g. kafka://host:9092 and a topic), over ingested ' +
        'OpenLineage events and the extracted graphs, with the datasets each job reads and writes.',
      inputSchema: {
        namespace: z
          .string()
          .min(1)
          .max(2048)
          .describe('The dataset namespace, e.g. kafka://pkc-xxxx.us-east-1.aws.confluent.cloud:9092'),
        name: z.string().min(1).max(2048).describe('The dataset name, e.g. a topic name'),
        direction: z.enum(LINEAGE_DIRECTIONS).default('upstream').describe('upstream (default), downstream or both'),
        depth: datasetLineageDepth(z.number()),
      },
      annotations: READ_ONLY,
    },
    (args) => answer(async () => datasetLineageAnswer(lineageOfDataset(runtime, args)), logger),
  );
}

/** A resource's JSON content. */
const jsonResource = (uri: URL, value: unknown): ReadResourceResult => ({
  contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(value) }],
});

/** One template variable, percent-decoded. */
const variable = (value: string | string[] | undefined): string => decodeURIComponent([value ?? ''].flat()[0] ?? '');

/** The graph list, a graph, and a node as resources. */
function registerResources(server: McpServer, { runtime }: LineageMcpOptions): void {
  server.registerResource(
    'graphs',
    'lineage://graphs',
    {
      title: 'Lineage graphs',
      description: 'Every live graph, most recently changed first',
      mimeType: 'application/json',
    },
    async (uri) => jsonResource(uri, { graphs: listGraphs(runtime) }),
  );
  server.registerResource(
    'graph',
    new ResourceTemplate('lineage://graphs/{graph_id}', {
      list: async () => ({
        resources: listGraphs(runtime).map((graph) => ({
          uri: `lineage://graphs/${encodeURIComponent(graph.graph_id)}`,
          name: graph.name ?? graph.graph_id,
          mimeType: 'application/json',
        })),
      }),
    }),
    {
      title: 'A lineage graph',
      description: 'A graph now: summary, counts by type and system, its first nodes',
      mimeType: 'application/json',
    },
    async (uri, variables) =>
      jsonResource(
        uri,
        await graphSummaryAnswer(runtime, resolveGraphId(runtime, variable(variables.graph_id)), undefined),
      ),
  );
  server.registerResource(
    'node',
    new ResourceTemplate('lineage://graphs/{graph_id}/nodes/{node_id}', { list: undefined }),
    {
      title: 'A node',
      description: 'A node now, with its direct neighbors (the node id percent-encoded)',
      mimeType: 'application/json',
    },
    async (uri, variables) => {
      const id = resolveGraphId(runtime, variable(variables.graph_id));
      const node = variable(variables.node_id);
      const upstream = await traverseGraph(runtime, id, node, 'upstream', 1);
      const downstream = await traverseGraph(runtime, id, node, 'downstream', 1);
      return jsonResource(
        uri,
        nodeAnswer(id, await getNode(runtime, id, node), upstream.toResult(), downstream.toResult()),
      );
    },
  );
}

/** A prompt of one user message. */
const userPrompt = (description: string, text: string): GetPromptResult => ({
  description,
  messages: [{ role: 'user', content: { type: 'text', text } }],
});

/** In which graph, for a prompt's text. */
const inGraph = (id: string | undefined) => (id ? ` in graph "${id}"` : '');

/** The prompts of the common questions. */
function registerPrompts(server: McpServer): void {
  const optionalGraph = z.string().optional().describe('A graph id or name; default the most recently changed graph');
  server.registerPrompt(
    'field_impact',
    {
      title: 'Impact of a field',
      description: 'What breaks downstream if a field of a topic or table changes or is dropped',
      argsSchema: {
        node_id: z.string().describe('The node (topic, table) that holds the field'),
        field: z.string().describe('The field'),
        graph_id: optionalGraph,
      },
    },
    ({ node_id, field, graph_id }) =>
      userPrompt(
        'Impact of a field',
        `What breaks if the field "${field}" of node "${node_id}"${inGraph(graph_id)} is changed or dropped? ` +
          'Call the impact tool (direction downstream) for the columns and jobs that depend on it, then get_node on the jobs ' +
          'it names to say how each uses the field. Answer with the affected jobs and columns by name, nearest first.',
      ),
  );
  server.registerPrompt(
    'changes_between',
    {
      title: 'What changed between two times',
      description: 'The lineage changes between two points of history, summarized',
      argsSchema: {
        from: z.string().describe('The earlier point: an ISO 8601 time or a revision'),
        to: z.string().optional().describe('The later point; default now'),
        graph_id: optionalGraph,
      },
    },
    ({ from, to, graph_id }) =>
      userPrompt(
        'What changed between two times',
        `What changed in the lineage${inGraph(graph_id)} between ${from} and ${to ?? 'now'}? Call the diff tool with from "${from}"` +
          `${to ? ` and to "${to}"` : ''}; group the changes by pipeline (use upstream and downstream on the nodes that changed ` +
          'to see which pipelines they belong to) and say what was added, removed and changed, by name.',
      ),
  );
  server.registerPrompt(
    'explain_pipeline',
    {
      title: 'Explain a pipeline',
      description: 'How data reaches a node and where it goes from there',
      argsSchema: {
        node_id: z.string().describe('A node of the pipeline (topic, connector, Flink statement, table)'),
        graph_id: optionalGraph,
      },
    },
    ({ node_id, graph_id }) =>
      userPrompt(
        'Explain a pipeline',
        `Explain the pipeline around node "${node_id}"${inGraph(graph_id)}: call get_node on it, then upstream and downstream ` +
          '(a few hops), and describe, in order, the sources, each processing step (connectors, Flink statements, ksqlDB queries) ' +
          'and the sinks, by name, with what each step does.',
      ),
  );
}

/** Instructions the server gives an assistant when it connects. */
const INSTRUCTIONS =
  'lineage-svc holds the lineage of a Confluent Cloud estate (topics, connectors, Flink and ksqlDB, schemas, catalog tables) ' +
  'with its whole history. Find nodes with search_nodes; follow the data with upstream, downstream and path; read the past ' +
  'with graph_as_of and diff (as_of: an ISO 8601 time or a revision); dataset_lineage answers by OpenLineage namespace and name. ' +
  'graph_id is optional: the default is the most recently changed graph.';

/**
 * A new MCP server over `options.runtime` with the lineage tools, resources and prompts registered.
 * Connect it to one transport (`server.connect(transport)`); a stateless HTTP endpoint makes one per request.
 */
export function createLineageMcpServer(options: LineageMcpOptions): McpServer {
  const server = new McpServer(
    { name: 'lineage-svc', title: 'lineage-svc', version: packageInfo().version },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS },
  );
  registerNodeTools(server, options);
  registerHistoryTools(server, options);
  registerImpactTool(server, options);
  registerOpenLineageTools(server, options);
  registerResources(server, options);
  registerPrompts(server);
  return server;
}
