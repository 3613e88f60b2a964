/**
 * Phase 3 (`Phase 3/4`): Schema Registry and Stream Catalog of an environment, in parallel, then
 * column lineage through `SELECT *` (`docs/extraction.md`, "Phases", item 3). Requests:
 * `srcm.clusters` (unless a Schema Registry URL is configured); per registry
 * `schema-registry.schemas` (`latestOnly=true`: every subject in one call), `catalog.search` (500
 * per page) and `catalog.businessmetadatadefs`, and `catalog.entity-businessmetadata` per topic only
 * when the registry defines business metadata. Environments without Schema Registry are skipped
 * with a progress line.
 */
import { catalogEnrichments } from '../catalog.js';
import { failureWarning } from '../failures.js';
import type { GraphBuilder } from '../graphBuilder.js';
import type { BusinessMetadataBody, CatalogEntityBody } from '../platformTypes.js';
import type { DiscoveredEnvironment, ExtractionRun, TopicInventory } from '../runContext.js';
import { schemaFragment } from '../schemas.js';
import { expandStarColumns, hasStarColumns, isEdgeColumnLineage, valueSchemaFields } from '../starColumns.js';

/** A Schema Registry of an environment: its id (null when configured by URL), its URL and its Stream Catalog URL. */
export interface SchemaRegistryEndpoint {
  id: string | null;
  url: string;
  catalogUrl: string;
}

/**
 * Runs phase 3 on one environment: `SchemaRegistry:{env}` and `StreamCatalog:{env}` per registry as
 * guarded extractors in parallel (SCHEMA nodes, HAS_SCHEMA edges, topic enrichments: tags, business
 * metadata, owner, description), then `expandStarLineage`.
 * @param environment with the topics phase 1 listed (subjects and catalog entities of other topics are left out).
 * Never rejects for a platform failure.
 */
export async function extractSchemasAndCatalog(
  run: ExtractionRun,
  environment: DiscoveredEnvironment & TopicInventory,
): Promise<void> {
  const env = environment.environmentId;
  run.progress(3, 'Phase 3/4', `schemas and catalog metadata in ${env}`);
  const registries = await schemaRegistriesOf(run, env);
  if (registries.length === 0) {
    run.logger.info({ environment_id: env }, 'Extraction:NoSchemaRegistry');
    run.progress(3, 'Phase 3/4', `no Schema Registry in ${env}: schemas and catalog skipped`);
  }
  await Promise.all(
    registries.flatMap((registry) => [
      run.guarded(
        `SchemaRegistry:${env}`,
        env,
        async () => {
          const schemas = await run.platform.listLatestSchemas(registry.url);
          run.builder.add(schemaFragment(env, registry.id, schemas, environment.topicsByCluster));
        },
        undefined,
        [{ kind: 'schema_registry', environment_id: env }],
      ),
      run.guarded(
        `StreamCatalog:${env}`,
        env,
        () => readStreamCatalog(run, environment, registry.catalogUrl),
        undefined,
        [{ kind: 'stream_catalog', environment_id: env }],
      ),
    ]),
  );
  expandStarLineage(run.builder, env);
}

/**
 * The environment's Schema Registries: the configured URL (`schemaRegistryUrl`, also its catalog
 * URL), else those `srcm.clusters` lists with an endpoint (guarded as `SchemaRegistry:{env}`: a
 * failure is a warning and no registry).
 */
export async function schemaRegistriesOf(run: ExtractionRun, env: string): Promise<SchemaRegistryEndpoint[]> {
  const configured = run.settings.schemaRegistryUrl;
  if (configured) return [{ id: null, url: configured, catalogUrl: configured }];
  return run.guarded(
    `SchemaRegistry:${env}`,
    env,
    async () =>
      (await run.platform.listSchemaRegistries(env)).flatMap((registry): SchemaRegistryEndpoint[] => {
        const url = registry.spec?.http_endpoint || registry.status?.http_endpoint;
        return url ? [{ id: registry.id, url, catalogUrl: registry.spec?.catalog_http_endpoint || url }] : [];
      }),
    [],
    [
      { kind: 'schema_registry', environment_id: env },
      { kind: 'stream_catalog', environment_id: env },
    ],
  );
}

/**
 * Stream Catalog: the topic entities of the environment's extracted clusters that phase 1 listed
 * (or of clusters whose listing failed), with their business metadata when the registry defines
 * some, as enrichments of the topic nodes. A failed definitions listing or business metadata read
 * is a warning; the rest still applies.
 * @throws PlatformApiError when the catalog search fails.
 */
async function readStreamCatalog(
  run: ExtractionRun,
  environment: DiscoveredEnvironment & TopicInventory,
  catalogUrl: string,
): Promise<void> {
  const env = environment.environmentId;
  const wanted = new Set(environment.clusters.map((cluster) => cluster.clusterId));
  const [entities, definitions] = await Promise.all([
    run.platform.searchCatalogTopics(catalogUrl),
    run.platform.listBusinessMetadataDefs(catalogUrl).catch((error: unknown) => {
      const reason = failureWarning(`StreamCatalog:${env}`, error, env);
      run.warn(reason);
      run.incomplete({ kind: 'stream_catalog', environment_id: env, reason });
      return [];
    }),
  ]);
  const inScope = entities.filter((entity) => {
    const match = /(lkc-[A-Za-z0-9]+):/.exec(entity.attributes.qualifiedName);
    return (
      match?.[1] !== undefined &&
      wanted.has(match[1]) &&
      environment.topicsByCluster.get(match[1])?.has(entity.attributes.name ?? '') !== false
    );
  });
  // Business metadata is only readable per entity; fetched only when the registry defines some.
  const businessMetadata = definitions.length > 0 ? await businessMetadataOf(run, env, catalogUrl, inScope) : new Map();
  for (const enrichment of catalogEnrichments(env, inScope, businessMetadata))
    run.builder.enrich(enrichment.nodeId, enrichment.attributes);
}

/** Business metadata per qualified name (one request per entity, in parallel; entities without any are absent). */
async function businessMetadataOf(
  run: ExtractionRun,
  env: string,
  catalogUrl: string,
  entities: readonly CatalogEntityBody[],
): Promise<Map<string, BusinessMetadataBody[]>> {
  const businessMetadata = new Map<string, BusinessMetadataBody[]>();
  const failures: unknown[] = [];
  await Promise.all(
    entities.map((entity) =>
      run.platform.getTopicBusinessMetadata(catalogUrl, entity.attributes.qualifiedName).then(
        (metadata) => {
          if (metadata.length > 0) businessMetadata.set(entity.attributes.qualifiedName, metadata);
        },
        (error: unknown) => failures.push(error),
      ),
    ),
  );
  if (failures.length > 0) {
    const reason = `${failureWarning(`StreamCatalog:${env}`, failures[0], env)} (business metadata of ${failures.length} topic(s) unavailable)`;
    run.warn(reason);
    run.incomplete({ kind: 'stream_catalog', environment_id: env, reason });
  }
  return businessMetadata;
}

/**
 * After phase 3: column lineage through `SELECT *` on the environment's PRODUCES edges, expanded with
 * the value-schema fields of the input topics (`src/extraction/starColumns.ts`). Phase 2 parses the
 * SQL before the schemas are read, so this is a pass of its own over what `builder` holds. A
 * connector's edges are left as they are (`connectorFields.ts`).
 */
export function expandStarLineage(builder: GraphBuilder, environmentId: string): void {
  const edges = [...builder.allEdges()];
  const fieldsOfDataset = valueSchemaFields(edges, (id) => builder.node(id));
  for (const edge of edges) {
    const source = builder.node(edge.src_id);
    if (edge.edge_type !== 'PRODUCES' || source?.environment_id !== environmentId) continue;
    // A connector's stars stay stars (the walk reads them field for field): expanded, its edge would
    // change whenever the topics' schemas could not be read.
    if (source.node_type === 'CONNECTOR') continue;
    const columns = edge.attributes?.column_lineage;
    if (!isEdgeColumnLineage(columns) || !hasStarColumns(columns)) continue;
    const expanded = expandStarColumns(columns, fieldsOfDataset);
    // An edge added again merges its attributes key by key: this replaces `column_lineage` only.
    if (expanded !== columns) builder.addEdge({ ...edge, attributes: { column_lineage: expanded } });
  }
}
