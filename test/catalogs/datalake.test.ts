/**
 * The datalake provider (AWS Glue Data Catalog).
 *
 * Pure parts: node region and names, console deep links by partition, attributes from a Glue
 * `Table` (the GetTables fixture), `TableInput` without read-only fields, parameter and description
 * merging within Glue's limits, SDK error mapping, the retry of a concurrent modification.
 *
 * End to end against moto (`python3 -m moto.server`, started on a free port, skipped when moto is
 * not installed): the demo platform scenario plus a Tableflow `AwsGlue` integration is extracted,
 * its datalake table is created in moto with the SDK, enriched, pushed (parameters and description
 * read back with GetTable, Iceberg parameters and the user's description kept, `lineage_svc.*`
 * keys of earlier pushes dropped), a missing table is skipped with a warning; the SDK's standard
 * retries against an endpoint that always fails; `POST /api/v1/push/datalake` over a real socket;
 * the watcher's `--push-datalake` pusher; access denials of one table (on read, or on update only,
 * answered by a front that forwards every other call to moto) and a missing table reported per
 * table while the others are enriched and written, and a second push that writes nothing.
 */
import assert from 'node:assert/strict';
import { motoInstalled, startMoto } from '../helpers/moto.js';
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { sharedFixture } from '../helpers/sharedFixtures.js';
import {
  CreateDatabaseCommand,
  CreateTableCommand,
  GetTableCommand,
  GlueClient,
  type Table,
} from '@aws-sdk/client-glue';
import { catalogProviders } from '../../infra/http/routes/meta.js';
import { createGlueClient, toCatalogApiError } from '../../infra/catalogs/glueClient.js';
import { startPlatformSimulator, type PlatformSimulator } from '../../simulators/confluent/index.js';
import { catalogPushers } from '../../services/push.js';
import { createServiceContext } from '../../infra/serviceContext.js';
import {
  COMMENT_MARKER,
  datalakeDeepLink,
  datalakeProvider,
  datalakeTableParts,
  GLUE_DESCRIPTION_MAX_CHARS,
  glueTableRef,
  isSkippableGlueError,
  mergeDescription,
  mergeParameters,
  nodeRegion,
  tableAttributes,
  toTableInput,
  type DatalakeCatalogPort,
  type GlueTable,
  type GlueTableInput,
} from '../../src/catalogs/datalake.js';
import { applyEnrichment, CatalogApiError, DEFAULT_PUSH_OPTIONS } from '../../src/catalogs/provider.js';
import { CHAIN_MAX_BYTES, indexGraph, upstreamChain, type ChainEntry } from '../../src/catalogs/upstreamChain.js';
import { loadConfig } from '../../src/config.js';
import { extract } from '../../src/extraction/extract.js';
import { tableflowFragment } from '../../src/extraction/tableflow.js';
import { datalakeTableId, materializedTableId, topicId } from '../../src/graph/ids.js';
import type { LineageGraph, Node } from '../../src/graph/model.js';
import { silentLogger } from '../../src/logger.js';
import type { ExtractionSummary } from '../../src/watcher/watcher.js';
import { DEDICATED, PROD, demoScenarioWithGlue, fastApi } from '../extraction/helpers.js';
import { call, startApi } from '../http/helpers.js';

const REGION = 'eu-west-1';
const DATABASE = 'retail_lake';
const TABLE_ID = datalakeTableId(REGION, DATABASE, 'orders_enriched');
const GHOST_ID = datalakeTableId(REGION, DATABASE, 'ghost_table');
const FIXTURE = 'catalogs/glue/get-tables-response.aws-cli-example.json';

function datalakeNode(id: string, qualifiedName: string, attributes: Record<string, unknown> = {}): Node {
  return {
    id,
    node_type: 'CATALOG_TABLE',
    system: 'DATALAKE',
    qualified_name: qualifiedName,
    display_name: qualifiedName.split('/')[1] ?? qualifiedName,
    environment_id: PROD,
    cluster_id: DEDICATED,
    attributes,
    catalog_type: 'DATALAKE_CATALOG',
  };
}

/** A long chain: `n` topics in a line upstream of the table (for the size limits). */
function longChain(n: number): { graph: LineageGraph; table: Node; chain: ChainEntry[] } {
  const table = datalakeNode(TABLE_ID, `${DATABASE}/orders_enriched`, { region: REGION });
  const nodes: Node[] = [table];
  const edges: LineageGraph['edges'] = [];
  let previous = table.id;
  for (let i = 0; i < n; i += 1) {
    const id = topicId(PROD, DEDICATED, `topic_${i}_${'x'.repeat(200)}`);
    nodes.push({
      id,
      node_type: 'TOPIC',
      system: 'STREAM',
      qualified_name: `${DEDICATED}/topic_${i}_${'x'.repeat(200)}`,
      display_name: `topic_${i}_${'x'.repeat(200)}`,
      environment_id: PROD,
      cluster_id: DEDICATED,
      attributes: {},
    });
    edges.push({ src_id: id, dst_id: previous, edge_type: 'TRANSFORMS', attributes: {} });
    previous = id;
  }
  const graph: LineageGraph = { nodes, edges };
  return { graph, table, chain: upstreamChain(indexGraph(graph), table.id) };
}

describe('datalake: pure parts', () => {
  it('reads region, database and table from a node, lower-casing names for Glue', () => {
    const node = datalakeNode(datalakeTableId('us-gov-west-1', 'Lkc-1', 'Orders.V1'), 'Lkc-1/Orders.V1', {
      region: 'us-gov-west-1',
    });
    assert.equal(nodeRegion(node), 'us-gov-west-1');
    assert.deepEqual(datalakeTableParts(node), { database: 'Lkc-1', table: 'Orders.V1' });
    assert.deepEqual(glueTableRef(node, REGION), { region: 'us-gov-west-1', database: 'lkc-1', table: 'orders.v1' });
    const unknown = datalakeNode(datalakeTableId('unknown', 'db', 't'), 'db/t', { region: 'unknown' });
    assert.equal(nodeRegion(unknown), undefined);
    assert.equal(glueTableRef(unknown, REGION).region, REGION);
    assert.equal(nodeRegion(datalakeNode(datalakeTableId('ap-south-2', 'db', 't'), 'db/t')), 'ap-south-2');
    assert.deepEqual(datalakeTableParts(datalakeNode('x', 'ignored/x', { database: 'd', table_name: 'a/b' })), {
      database: 'd',
      table: 'a/b',
    });
  });

  it('builds the console deep link by region partition, and none without a region', () => {
    assert.equal(
      datalakeDeepLink('eu-west-1', 'lkc-1', 'orders.v1'),
      'https://eu-west-1.console.aws.amazon.com/glue/home?region=eu-west-1#/v2/data-catalog/tables/view/orders.v1?database=lkc-1',
    );
    assert.match(
      datalakeDeepLink('cn-north-1', 'd', 't')!,
      /^https:\/\/cn-north-1\.console\.amazonaws\.cn\/glue\/home\?region=cn-north-1#/,
    );
    assert.match(
      datalakeDeepLink('us-gov-west-1', 'd', 't')!,
      /^https:\/\/us-gov-west-1\.console\.amazonaws-us-gov\.com\//,
    );
    assert.match(datalakeDeepLink('eu-west-1', 'a b', 'c#d')!, /view\/c%23d\?database=a%20b$/);
    assert.equal(datalakeDeepLink(undefined, 'd', 't'), null);
    assert.equal(datalakeDeepLink('unknown', 'd', 't'), null);
    assert.equal(datalakeDeepLink('us-iso-east-1', 'd', 't'), null);
  });

  it('turns a Glue Table (the GetTables fixture, epoch seconds) into attributes', (t) => {
    const fixture = sharedFixture<{ TableList: Array<Record<string, unknown>> }>(t, FIXTURE);
    if (!fixture) return;
    const table = fixture.TableList[0]! as GlueTable;
    const attributes = tableAttributes(table, 'us-east-1', 'tempdb', 'my-s3-sink');
    assert.deepEqual(attributes.columns, [
      { name: 'sensorid', type: 'int', comment: null },
      { name: 'currenttemperature', type: 'int', comment: null },
      { name: 'status', type: 'string', comment: null },
    ]);
    assert.equal(attributes.storage_location, 's3://janetst-bucket-01/test-s3-output/');
    assert.equal(attributes.updated_at, '2020-10-15T02:55:39.000Z');
    assert.deepEqual(attributes.parameters, { classification: 'json' });
    assert.equal(attributes.owner, null);
    assert.match(String(attributes.url), /tables\/view\/my-s3-sink\?database=tempdb$/);
  });

  it('copies only writable fields into the TableInput', (t) => {
    const fixture = sharedFixture<{ TableList: Array<Record<string, unknown>> }>(t, FIXTURE);
    if (!fixture) return;
    const table = {
      ...fixture.TableList[0]!,
      VersionId: '7',
      ViewDefinition: { IsProtected: false, Representations: [{ Dialect: 'ATHENA', IsStale: true }] },
    } as GlueTable;
    const input = toTableInput(table, 'fallback') as unknown as Record<string, unknown>;
    for (const readOnly of [
      'DatabaseName',
      'CreateTime',
      'UpdateTime',
      'CreatedBy',
      'IsRegisteredWithLakeFormation',
      'CatalogId',
      'VersionId',
    ])
      assert.equal(readOnly in input, false, readOnly);
    assert.equal(input.Name, 'my-s3-sink');
    assert.equal(input.Retention, 0);
    assert.deepEqual(input.StorageDescriptor, table.StorageDescriptor);
    assert.deepEqual(input.ViewDefinition, { IsProtected: false, Representations: [{ Dialect: 'ATHENA' }] });
    assert.notEqual(input.Parameters, table.Parameters);
  });

  it('replaces earlier lineage parameters and keeps every other parameter', () => {
    const merged = mergeParameters(
      {
        table_type: 'ICEBERG',
        metadata_location: 's3://b/m.json',
        'lineage_svc.upstream_truncated': 'true',
        'lineage_svc.cluster_id': 'old',
      },
      { 'lineage_svc.cluster_id': 'lkc-1', 'lineage_svc.pipeline_type': 'tableflow' },
    );
    assert.deepEqual(merged, {
      table_type: 'ICEBERG',
      metadata_location: 's3://b/m.json',
      'lineage_svc.cluster_id': 'lkc-1',
      'lineage_svc.pipeline_type': 'tableflow',
    });
  });

  it('keeps the user description, replaces the earlier tree, and fits 2,048 characters', () => {
    const { table, chain } = longChain(40);
    assert.ok(JSON.stringify(chain).length > CHAIN_MAX_BYTES);
    const first = mergeDescription('Orders, enriched.\u0001', table, chain, '2025-01-01T00:00:00Z');
    assert.ok(first.length <= GLUE_DESCRIPTION_MAX_CHARS, String(first.length));
    assert.ok(first.startsWith(`Orders, enriched.\n\n${COMMENT_MARKER}\n`), first.slice(0, 80));
    assert.match(first, /omitted to fit/);
    assert.match(first, /Last synced: 2025-01-01T00:00:00Z$/);
    const second = mergeDescription(first, table, chain.slice(0, 1), '2025-01-02T00:00:00Z');
    assert.equal(second.split(COMMENT_MARKER).length, 2);
    assert.ok(second.startsWith('Orders, enriched.\n\n'));
    assert.match(second, /Last synced: 2025-01-02T00:00:00Z$/);
    const crowded = mergeDescription('u'.repeat(5000), table, chain, 'now');
    assert.equal(crowded.length <= GLUE_DESCRIPTION_MAX_CHARS, true);
    assert.match(crowded, /Last synced: now$/);
  });

  it('maps SDK failures to CatalogApiError and knows which are skipped', () => {
    const notFound = toCatalogApiError(
      'datalake.GetTable',
      'db/t',
      Object.assign(new Error('Table t not found.'), {
        name: 'EntityNotFoundException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400, attempts: 1 },
      }),
    );
    assert.equal(notFound.failure, 'status');
    assert.equal(notFound.errorCode, 'EntityNotFoundException');
    assert.equal(isSkippableGlueError(notFound), true);
    const denied = toCatalogApiError(
      'datalake.UpdateTable',
      'db/t',
      Object.assign(new Error('no'), {
        name: 'AccessDeniedException',
        $metadata: { httpStatusCode: 400, attempts: 1 },
      }),
    );
    assert.equal(isSkippableGlueError(denied), true);
    const throttled = toCatalogApiError(
      'datalake.GetTable',
      'db/t',
      Object.assign(new Error('slow'), {
        name: 'ThrottlingException',
        $retryable: { throttling: true },
        $metadata: { httpStatusCode: 400, attempts: 4 },
      }),
    );
    assert.equal(throttled.failure, 'retries_exhausted');
    assert.equal(isSkippableGlueError(throttled), false);
    const refused = toCatalogApiError(
      'datalake.GetTable',
      'db/t',
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', $metadata: { attempts: 2 } }),
    );
    assert.equal(refused.failure, 'network');
    assert.equal(
      toCatalogApiError('datalake.GetTable', 'db/t', Object.assign(new Error('slow'), { name: 'TimeoutError' }))
        .failure,
      'timeout',
    );
  });

  it('reads the table again and retries when Glue reports a concurrent modification', async () => {
    const { graph } = longChain(2);
    const updates: GlueTableInput[] = [];
    let version = 1;
    const port: DatalakeCatalogPort = {
      region: REGION,
      async getTable() {
        return {
          Name: 'orders_enriched',
          DatabaseName: DATABASE,
          VersionId: String(version),
          Parameters: { metadata_location: `s3://b/v${version}.json` },
        };
      },
      async updateTable(_ref, input, options) {
        updates.push(input);
        if (options.versionId === '1') {
          version = 2; // a Tableflow commit landed between our read and our write
          throw new CatalogApiError(
            'datalake.UpdateTable',
            'status',
            400,
            'conflict',
            'ConcurrentModificationException',
          );
        }
      },
    };
    const result = await datalakeProvider.push(graph, DEFAULT_PUSH_OPTIONS, { port });
    assert.equal(result.tables_updated, 1);
    assert.equal(updates.length, 2);
    assert.equal(updates[1]!.Parameters?.metadata_location, 's3://b/v2.json');
    assert.deepEqual(result.errors, []);
  });

  it('produces the contract id for Glue integrations, honoring custom_database', () => {
    const cluster = { environmentId: PROD, clusterId: DEDICATED, region: 'us-east-2' } as Parameters<
      typeof tableflowFragment
    >[0];
    const tables = [
      { spec: { display_name: 'orders.v1', kafka_cluster: { id: DEDICATED }, table_formats: ['ICEBERG'] } },
    ];
    const plain = tableflowFragment(cluster, tables, [
      { id: 'tci-g', spec: { kafka_cluster: { id: DEDICATED }, config: { kind: 'AwsGlue' } } },
    ]);
    assert.ok(plain.nodes.some((n) => n.id === 'datalake:catalog_table:us-east-2:lkc-7x9m2p/orders.v1'));
    const custom = tableflowFragment(
      cluster,
      tables,
      [
        {
          id: 'tci-g',
          spec: { kafka_cluster: { id: DEDICATED }, config: { kind: 'AwsGlue', custom_database: 'lake' } },
        },
      ],
      { datalakeRegion: REGION },
    );
    const node = custom.nodes.find((n) => n.node_type === 'CATALOG_TABLE')!;
    assert.equal(node.id, 'datalake:catalog_table:eu-west-1:lake/orders.v1');
    assert.equal(node.qualified_name, 'lake/orders.v1');
    assert.equal(node.catalog_type, 'DATALAKE_CATALOG');
    const edge = custom.edges.at(-1)!;
    assert.deepEqual(
      [edge.src_id, edge.edge_type, edge.dst_id],
      [materializedTableId(PROD, DEDICATED, 'orders.v1'), 'MATERIALIZES', node.id],
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Against moto.

const ORIGINAL_TABLE = {
  Name: 'orders_enriched',
  Description: 'Orders enriched with customer data.',
  Owner: 'data-platform',
  TableType: 'EXTERNAL_TABLE',
  Parameters: {
    table_type: 'ICEBERG',
    metadata_location: 's3://acme-lake/orders_enriched/metadata/00001.metadata.json',
    'lineage_svc.retired_key': 'from an older release',
  },
  StorageDescriptor: {
    Columns: [
      { Name: 'order_id', Type: 'string', Comment: 'order key' },
      { Name: 'amount', Type: 'decimal(12,2)' },
    ],
    Location: 's3://acme-lake/orders_enriched',
  },
  PartitionKeys: [{ Name: 'order_date', Type: 'date' }],
};

/** A Glue operation as the SDK sends it: the `X-Amz-Target` operation and the table it names. */
interface GlueCall {
  operation: string;
  database: string | undefined;
  table: string | undefined;
}

/**
 * A front for moto on 127.0.0.1 that answers `AccessDeniedException` (HTTP 400, AWS JSON 1.1, the
 * message IAM gives) for the calls `denied` picks and forwards every other call to moto unchanged.
 * moto authorizes Glue actions against the resource `*` only, so a denial of one table (an IAM or
 * Lake Formation policy on its ARN) cannot be set up in moto itself. `calls` lists what reached it.
 */
async function startGlueAccessFront(
  target: string,
  denied: (call: GlueCall) => boolean,
): Promise<{ url: string; calls: GlueCall[]; close(): Promise<void> }> {
  const calls: GlueCall[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const input = JSON.parse(body.toString('utf8') || '{}') as {
          DatabaseName?: string;
          Name?: string;
          TableInput?: { Name?: string };
        };
        const operation = String(req.headers['x-amz-target'] ?? '').replace(/^AWSGlue\./, '');
        const call = { operation, database: input.DatabaseName, table: input.Name ?? input.TableInput?.Name };
        calls.push(call);
        if (denied(call)) {
          res.writeHead(400, {
            'content-type': 'application/x-amz-json-1.1',
            'x-amzn-errortype': 'AccessDeniedException',
            'x-amzn-requestid': '7e1c5a52-5f0e-4b8e-9d3b-2f1f8c6a9b10',
          });
          res.end(
            JSON.stringify({
              __type: 'AccessDeniedException',
              Message:
                `User: arn:aws:iam::123456789012:user/lineage-svc is not authorized to perform: glue:${operation} ` +
                `on resource: arn:aws:glue:${REGION}:123456789012:table/${call.database}/${call.table} ` +
                `because no identity-based policy allows the glue:${operation} action`,
            }),
          );
          return;
        }
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)),
        ) as Record<string, string>;
        const answer = await fetch(`${target}${req.url ?? '/'}`, { method: req.method, headers, body });
        res.writeHead(answer.status, {
          'content-type': answer.headers.get('content-type') ?? 'application/x-amz-json-1.1',
          ...(answer.headers.get('x-amzn-errortype')
            ? { 'x-amzn-errortype': answer.headers.get('x-amzn-errortype')! }
            : {}),
        });
        res.end(Buffer.from(await answer.arrayBuffer()));
      })().catch((error: unknown) => {
        res.writeHead(502);
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe(
  'datalake against moto',
  { skip: motoInstalled ? false : 'moto not installed: Glue integration not tested' },
  () => {
    let moto: { url: string; child: ChildProcess };
    let platform: PlatformSimulator;
    let sdk: GlueClient;
    let graph: LineageGraph;
    const ENV = {
      AWS_ACCESS_KEY_ID: 'testing',
      AWS_SECRET_ACCESS_KEY: 'testing',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };

    before(async () => {
      moto = await startMoto();
      // The provider's client finds moto and the credentials the standard way, from the environment.
      Object.assign(process.env, ENV, { AWS_ENDPOINT_URL_GLUE: moto.url });
      sdk = new GlueClient({
        region: REGION,
        endpoint: moto.url,
        credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
      });
      await sdk.send(new CreateDatabaseCommand({ DatabaseInput: { Name: DATABASE } }));
      await sdk.send(new CreateTableCommand({ DatabaseName: DATABASE, TableInput: ORIGINAL_TABLE }));
      // The demo estate plus a Tableflow AwsGlue integration on the dedicated cluster.
      platform = await startPlatformSimulator({ scenario: await demoScenarioWithGlue(DATABASE) });
      const extracted = (
        await extract(
          { platform: fastApi(platform), logger: silentLogger() },
          { environmentIds: [PROD], datalakeRegion: REGION },
        )
      ).graph;
      // A second Glue table that the graph knows but Glue does not.
      const ghost = datalakeNode(GHOST_ID, `${DATABASE}/ghost_table`, { region: REGION });
      graph = {
        nodes: [...extracted.nodes, ghost],
        edges: [
          ...extracted.edges,
          {
            src_id: materializedTableId(PROD, DEDICATED, 'orders_enriched'),
            dst_id: GHOST_ID,
            edge_type: 'MATERIALIZES',
            attributes: {},
          },
        ],
      };
    });
    after(async () => {
      sdk?.destroy();
      await platform?.close();
      if (moto?.child.exitCode === null) {
        const exited = new Promise((resolve) => moto.child.once('exit', resolve));
        moto.child.kill('SIGTERM');
        await exited;
      }
      for (const name of [...Object.keys(ENV), 'AWS_ENDPOINT_URL_GLUE']) delete process.env[name];
    });

    const readBack = async (): Promise<Table> =>
      (await sdk.send(new GetTableCommand({ DatabaseName: DATABASE, Name: 'orders_enriched' }))).Table!;

    it('extraction produces the datalake table with the contract id', () => {
      const node = graph.nodes.find((n) => n.id === TABLE_ID);
      assert.ok(
        node,
        graph.nodes
          .filter((n) => n.system === 'DATALAKE')
          .map((n) => n.id)
          .join(', '),
      );
      assert.equal(node.catalog_type, 'DATALAKE_CATALOG');
      assert.equal(node.attributes?.region, REGION);
      assert.ok(graph.edges.some((e) => e.dst_id === TABLE_ID && e.edge_type === 'MATERIALIZES'));
    });

    it('enriches the table from GetTable and skips the missing one with a warning', async () => {
      const port = createGlueClient({ region: REGION });
      try {
        const result = await datalakeProvider.enrich(graph, { port });
        assert.deepEqual(
          result.enrichments.map((e) => e.node_id),
          [TABLE_ID],
        );
        assert.equal(result.warnings.length, 1);
        assert.match(result.warnings[0]!, /ghost_table \(eu-west-1\) skipped: .*EntityNotFoundException/);
        const node = applyEnrichment(graph, result).nodes.find((n) => n.id === TABLE_ID)!;
        assert.equal(node.attributes?.owner, 'data-platform');
        assert.equal(node.attributes?.table_type, 'EXTERNAL_TABLE');
        assert.deepEqual(node.attributes?.columns, [
          { name: 'order_id', type: 'string', comment: 'order key' },
          { name: 'amount', type: 'decimal(12,2)', comment: null },
        ]);
        assert.deepEqual(node.attributes?.partition_keys, [{ name: 'order_date', type: 'date', comment: null }]);
        assert.equal(node.attributes?.storage_location, 's3://acme-lake/orders_enriched');
        assert.match(String(node.attributes?.created_at), /^\d{4}-\d\d-\d\dT/);
        assert.equal((node.attributes?.parameters as Record<string, string>).table_type, 'ICEBERG');
        assert.equal(
          node.attributes?.url,
          `https://${REGION}.console.aws.amazon.com/glue/home?region=${REGION}#/v2/data-catalog/tables/view/orders_enriched?database=${DATABASE}`,
        );
        assert.equal(port.counts()['datalake.GetTable'], 2);
      } finally {
        port.destroy();
      }
    });

    it('pushes lineage as table parameters and description, keeping the rest of the table', async () => {
      const port = createGlueClient({ region: REGION });
      try {
        const now = new Date('2025-06-01T12:00:00.123Z');
        const result = await datalakeProvider.push(graph, DEFAULT_PUSH_OPTIONS, { port, now });
        assert.equal(result.tables_updated, 1);
        assert.equal(result.comments_set, 1);
        assert.deepEqual(result.errors, []);
        assert.equal(result.skipped.length, 1);
        assert.match(result.skipped[0]!, /retail_lake\/ghost_table: not read: .*EntityNotFoundException/);
        const table = await readBack();
        const parameters = table.Parameters ?? {};
        assert.equal(result.properties_set, Object.keys(parameters).filter((k) => k.startsWith('lineage_svc.')).length);
        assert.equal(parameters['lineage_svc.last_synced'], '2025-06-01T12:00:00Z');
        assert.equal(parameters['lineage_svc.environment_id'], PROD);
        assert.equal(parameters['lineage_svc.cluster_id'], DEDICATED);
        assert.equal(parameters['lineage_svc.pipeline_type'], 'tableflow');
        assert.ok(parameters['lineage_svc.source_topics']!.split(',').includes(`${DEDICATED}/orders_enriched`));
        const chain = JSON.parse(parameters['lineage_svc.upstream_chain']!) as Array<{ hop: number; kind: string }>;
        assert.deepEqual(
          chain.slice(0, 2).map((h) => h.kind),
          ['materialized_table', 'topic'],
        );
        assert.equal('lineage_svc.retired_key' in parameters, false);
        assert.equal(parameters.metadata_location, ORIGINAL_TABLE.Parameters.metadata_location);
        assert.equal(parameters.table_type, 'ICEBERG');
        assert.equal(table.Owner, 'data-platform');
        assert.equal(table.TableType, 'EXTERNAL_TABLE');
        assert.deepEqual(table.StorageDescriptor?.Columns, ORIGINAL_TABLE.StorageDescriptor.Columns);
        assert.equal(table.StorageDescriptor?.Location, ORIGINAL_TABLE.StorageDescriptor.Location);
        assert.deepEqual(table.PartitionKeys, ORIGINAL_TABLE.PartitionKeys);
        assert.ok(
          table.Description!.startsWith(`${ORIGINAL_TABLE.Description}\n\n${COMMENT_MARKER}\n`),
          table.Description,
        );
        assert.match(
          table.Description!,
          new RegExp(
            String.raw`- materialized_table: orders_enriched \(tableflow\)\n *-> retail_lake\/orders_enriched\n` +
              String.raw`(\(farther upstream hops omitted[^\n]*\n)?Environment: env-q7m2k9\nLast synced: 2025-06-01T12:00:00Z$`,
          ),
        );
        assert.ok(table.Description!.length <= GLUE_DESCRIPTION_MAX_CHARS);

        // Pushing again replaces the tree instead of appending a second one.
        const again = await datalakeProvider.push(
          graph,
          { set_properties: false, set_comments: true, create_bridge_table: true },
          { port },
        );
        // Nothing but the time changed: no UpdateTable, the table is reported unchanged.
        assert.equal(again.tables_updated, 0);
        assert.deepEqual(
          again.results.map((r) => r.status),
          ['skipped', 'unchanged'],
        );
        assert.equal(again.properties_set, 0);
        assert.ok(again.skipped.some((s) => /bridge table: not supported/.test(s)));
        const description = (await readBack()).Description!;
        assert.equal(description.split(COMMENT_MARKER).length, 2);
        assert.ok(description.startsWith(ORIGINAL_TABLE.Description));
      } finally {
        port.destroy();
      }
    });

    it('retries failures with the SDK standard mode, 4 attempts, then reports them', async () => {
      let requests = 0;
      const failing: Server = createServer((req, res) => {
        requests += 1;
        req.resume();
        res.writeHead(500, {
          'content-type': 'application/x-amz-json-1.1',
          'x-amzn-errortype': 'InternalServiceException',
        });
        res.end(JSON.stringify({ __type: 'InternalServiceException', Message: 'try later' }));
      });
      await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
      const port = createGlueClient({
        region: REGION,
        endpoint: `http://127.0.0.1:${(failing.address() as { port: number }).port}`,
        credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
      });
      try {
        const result = await datalakeProvider.enrich(graph, { port });
        assert.equal(result.enrichments.length, 0);
        assert.match(result.warnings[0]!, /not enriched: .*InternalServiceException.*gave up after 4 attempts/);
        assert.equal(requests, 8);
        await assert.rejects(
          port.getTable({ region: REGION, database: DATABASE, table: 'orders_enriched' }),
          (error: unknown) =>
            error instanceof CatalogApiError && error.failure === 'retries_exhausted' && error.status === 500,
        );
      } finally {
        port.destroy();
        await new Promise((resolve) => failing.close(resolve));
      }
    });

    it('pushes through POST /api/v1/push/datalake and lists the provider on GET /catalogs', async () => {
      const api = await startApi({ env: { LINEAGE_SVC_DATALAKE_REGION: REGION } });
      try {
        const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'datalake' } });
        const graphId = created.body.graph_id as string;
        assert.equal((await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import`, { json: graph })).status, 200);
        const catalogs = (await call(api.base, 'GET', '/api/v1/catalogs')).body.catalogs as Array<{
          catalog_type: string;
          configured: boolean;
          capabilities: string[];
        }>;
        const datalake = catalogs.find((c) => c.catalog_type === 'DATALAKE_CATALOG')!;
        assert.deepEqual([datalake.configured, datalake.capabilities], [true, ['enrich', 'push']]);
        const pushed = await call(api.base, 'POST', '/api/v1/push/datalake', { json: { set_comments: false } });
        assert.equal(pushed.status, 200, pushed.text);
        assert.equal(pushed.body.catalog_type, 'DATALAKE_CATALOG');
        assert.equal(pushed.body.graph_id, graphId);
        // The previous test pushed the same lineage: the table already holds it.
        assert.equal(pushed.body.tables_updated, 0);
        assert.deepEqual(
          (pushed.body.results as Array<{ kind: string; status: string }>).map((r) => [r.kind, r.status]),
          [
            ['table', 'skipped'],
            ['table', 'unchanged'],
          ],
        );
        assert.equal(pushed.body.comments_set, 0);
        assert.equal(pushed.body.skipped.length, 1);
        assert.ok((await readBack()).Parameters?.['lineage_svc.last_synced']);
      } finally {
        await api.dispose();
      }
    });

    it('gives the watcher a --push-datalake pusher when the region is set', async () => {
      const config = loadConfig({ LINEAGE_SVC_DATALAKE_REGION: REGION });
      assert.equal(catalogProviders(config).find((c) => c.catalog_type === 'DATALAKE_CATALOG')?.configured, true);
      const api = await startApi({ env: { LINEAGE_SVC_DATALAKE_REGION: REGION } });
      try {
        const created = await call(api.base, 'POST', '/api/v1/graphs', { json: { name: 'watched' } });
        const graphId = created.body.graph_id as string;
        await call(api.base, 'POST', `/api/v1/graphs/${graphId}/import`, { json: graph });
        const pushers = catalogPushers(
          createServiceContext({ config: api.config, runtime: api.runtime, logger: silentLogger() }),
        );
        // `lineage-svc-watch --push-datalake` (commands/watch.ts pushTargets) needs exactly this entry.
        assert.deepEqual(Object.keys(pushers), ['DATALAKE_CATALOG']);
        await sdk.send(
          new CreateTableCommand({
            DatabaseName: DATABASE,
            TableInput: { Name: 'ghost_table', Parameters: { note: 'kept' } },
          }),
        );
        await pushers.DATALAKE_CATALOG!({ graphId } as ExtractionSummary);
        const ghost = (await sdk.send(new GetTableCommand({ DatabaseName: DATABASE, Name: 'ghost_table' }))).Table!;
        assert.equal(ghost.Parameters?.note, 'kept');
        assert.equal(ghost.Parameters?.['lineage_svc.environment_id'], PROD);
      } finally {
        await api.dispose();
      }
    });

    it('reports an access denial and a missing table per table, writes the others, and a second push changes nothing', async () => {
      // Four tables materialized from the same stream table: one writable, one the principal may not
      // read, one it may read but not update, one Glue does not have.
      const names = ['fresh_orders', 'restricted_orders', 'readonly_orders', 'missing_orders'];
      for (const name of ['fresh_orders', 'restricted_orders', 'readonly_orders'])
        await sdk.send(
          new CreateTableCommand({
            DatabaseName: DATABASE,
            TableInput: { ...ORIGINAL_TABLE, Name: name, Parameters: { table_type: 'ICEBERG' } },
          }),
        );
      const source = materializedTableId(PROD, DEDICATED, 'orders_enriched');
      const ids = names.map((name) => datalakeTableId(REGION, DATABASE, name));
      const local: LineageGraph = {
        nodes: [
          ...graph.nodes.filter((n) => n.system !== 'DATALAKE'),
          ...names.map((name, i) => datalakeNode(ids[i]!, `${DATABASE}/${name}`, { region: REGION })),
        ],
        edges: [
          ...graph.edges.filter((e) => !e.dst_id.startsWith('datalake:')),
          ...ids.map((id) => ({ src_id: source, dst_id: id, edge_type: 'MATERIALIZES' as const, attributes: {} })),
        ],
      };
      const front = await startGlueAccessFront(
        moto.url,
        (call) =>
          call.table === 'restricted_orders' || (call.table === 'readonly_orders' && call.operation === 'UpdateTable'),
      );
      const port = createGlueClient({ region: REGION, endpoint: front.url });
      const read = async (name: string) =>
        (await sdk.send(new GetTableCommand({ DatabaseName: DATABASE, Name: name }))).Table!;
      try {
        const enriched = await datalakeProvider.enrich(local, { port });
        assert.deepEqual(enriched.enrichments.map((e) => e.node_id).sort(), [ids[0], ids[2]].sort());
        const warnings = [...enriched.warnings].sort();
        assert.equal(warnings.length, 2, warnings.join('\n'));
        assert.match(warnings[0]!, /missing_orders \(eu-west-1\) skipped: .*EntityNotFoundException/);
        assert.match(warnings[1]!, /restricted_orders \(eu-west-1\) skipped: .*AccessDeniedException/);

        const first = await datalakeProvider.push(applyEnrichment(local, enriched), DEFAULT_PUSH_OPTIONS, {
          port,
          now: new Date('2025-07-01T08:00:00Z'),
        });
        const statuses = (result: typeof first) => Object.fromEntries(result.results.map((r) => [r.name, r.status]));
        assert.deepEqual(statuses(first), {
          [`${DATABASE}/fresh_orders`]: 'updated',
          [`${DATABASE}/missing_orders`]: 'skipped',
          [`${DATABASE}/readonly_orders`]: 'skipped',
          [`${DATABASE}/restricted_orders`]: 'skipped',
        });
        const reasons = Object.fromEntries(first.results.map((r) => [r.name, r.reason ?? '']));
        assert.match(reasons[`${DATABASE}/missing_orders`]!, /^not read: .*EntityNotFoundException/);
        assert.match(reasons[`${DATABASE}/restricted_orders`]!, /^not read: .*AccessDeniedException.*glue:GetTable/);
        assert.match(
          reasons[`${DATABASE}/readonly_orders`]!,
          /^not updated: .*AccessDeniedException.*glue:UpdateTable/,
        );
        assert.deepEqual([first.tables_updated, first.errors, first.skipped.length], [1, [], 3]);
        assert.equal((await read('fresh_orders')).Parameters?.['lineage_svc.last_synced'], '2025-07-01T08:00:00Z');
        assert.equal((await read('readonly_orders')).Parameters?.['lineage_svc.last_synced'], undefined);

        // The same push a day later: Glue already holds that lineage, so nothing is written.
        const before = await Promise.all(names.slice(0, 3).map(read));
        const updatesBefore = front.calls.filter((call) => call.operation === 'UpdateTable').length;
        const second = await datalakeProvider.push(applyEnrichment(local, enriched), DEFAULT_PUSH_OPTIONS, {
          port,
          now: new Date('2025-07-02T08:00:00Z'),
        });
        assert.deepEqual(statuses(second), { ...statuses(first), [`${DATABASE}/fresh_orders`]: 'unchanged' });
        assert.deepEqual([second.tables_updated, second.properties_set, second.comments_set], [0, 0, 0]);
        assert.equal(
          front.calls.filter((call) => call.operation === 'UpdateTable').length,
          updatesBefore + 1,
          'only the update the read-only table is refused',
        );
        const after = await Promise.all(names.slice(0, 3).map(read));
        assert.deepEqual(
          after.map((t) => [t.VersionId, t.Parameters, t.Description]),
          before.map((t) => [t.VersionId, t.Parameters, t.Description]),
          'the catalog is left as it was',
        );
      } finally {
        port.destroy();
        await front.close();
      }
    });
  },
);
