/**
 * Dataplex asset registration, step 0 of the warehouse push (`docs/catalogs.md`, "Warehouse" ->
 * "Push"; `docs/catalog-apis.md` B4): the entry group `lineage-svc`, the aspect type
 * `lineage-svc-schema` and the entry type `lineage-svc-topic`, created when missing; one entry
 * `{cluster}-{topic}` per topic with the FQN `kafka:{cluster}.{topic}` the lineage events resolve
 * to, and the topic's schema fields as an aspect; an existing entry gets its aspect by PATCH.
 * Failures are collected, never thrown.
 */
import pLimit from 'p-limit';
import type { LineageGraph, Node } from '../../graph/model.js';
import {
  describeFailure,
  ENRICH_CONCURRENCY,
  nonEmpty,
  type DataplexCollection,
  type DataplexEntry,
  type WarehouseCatalogPort,
} from './port.js';

/** The entry group of the topic entries. */
export const ENTRY_GROUP_ID = 'lineage-svc';
/** The entry type of a topic entry. */
export const TOPIC_ENTRY_TYPE_ID = 'lineage-svc-topic';
/** The aspect type carrying a topic's schema fields. */
export const SCHEMA_ASPECT_TYPE_ID = 'lineage-svc-schema';
/** `entrySource.system` of the entries. */
export const ENTRY_SYSTEM = 'Confluent Cloud';

/** One segment of a Dataplex FQN: backtick-quoted when it holds `.`, `:`, a backtick or whitespace (backticks doubled). */
export function fqnSegment(segment: string): string {
  return /[.:`\s]/.test(segment) ? `\`${segment.replaceAll('`', '``')}\`` : segment;
}

/** The FQN of a Kafka topic, `kafka:{cluster}.{topic}`: what Google derives for namespace `kafka://{cluster}` + the topic. */
export function kafkaTopicFqn(clusterId: string, topic: string): string {
  return `kafka:${fqnSegment(clusterId)}.${fqnSegment(topic)}`;
}

/** The entry id of a topic, `{cluster}-{topic}` (characters other than letters, digits, `.`, `_`, `-` become `_`). */
export function topicEntryId(clusterId: string, topic: string): string {
  return `${clusterId}-${topic}`.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** The key of the schema aspect in an entry's `aspects`: `{project}.{location}.lineage-svc-schema`. */
export function schemaAspectKey(project: string, location: string): string {
  return `${project}.${location}.${SCHEMA_ASPECT_TYPE_ID}`;
}

/** The bodies of the entry group, entry type and aspect type (created once, in this order). */
export function dataplexBootstrap(
  project: string,
  location: string,
): Array<{ collection: DataplexCollection; id: string; body: Record<string, unknown> }> {
  const text = (name: string, index: number, description: string) => ({
    name,
    type: 'string',
    index,
    annotations: { description },
  });
  return [
    {
      collection: 'entryGroups',
      id: ENTRY_GROUP_ID,
      body: {
        displayName: 'lineage-svc',
        description: 'Kafka topics registered by lineage-svc so that lineage events resolve to catalog entries',
      },
    },
    {
      collection: 'aspectTypes',
      id: SCHEMA_ASPECT_TYPE_ID,
      body: {
        displayName: 'lineage-svc schema',
        description: 'Schema fields of a Kafka topic (from its Schema Registry subject)',
        metadataTemplate: {
          name: 'lineage-svc-schema',
          type: 'record',
          recordFields: [
            {
              name: 'fields',
              type: 'array',
              index: 1,
              annotations: { description: 'Top-level fields of the value schema' },
              arrayItems: {
                name: 'field',
                type: 'record',
                recordFields: [
                  text('name', 1, 'Field name'),
                  text('type', 2, 'Field type'),
                  text('description', 3, 'Field documentation'),
                ],
              },
            },
          ],
        },
      },
    },
    {
      collection: 'entryTypes',
      id: TOPIC_ENTRY_TYPE_ID,
      body: {
        displayName: 'Kafka topic (lineage-svc)',
        description: 'A Kafka topic of Confluent Cloud',
        platform: 'kafka',
        system: ENTRY_SYSTEM,
        typeAliases: ['TABLE'],
        requiredAspects: [{ type: `projects/${project}/locations/${location}/aspectTypes/${SCHEMA_ASPECT_TYPE_ID}` }],
      },
    },
  ];
}

/** Schema fields `{name, type, description}` of a SCHEMA node's `fields` attribute (top level). */
function schemaFieldsOf(schema: Node | undefined): Array<{ name: string; type: string; description: string }> {
  const fields = schema?.attributes?.fields;
  if (!Array.isArray(fields)) return [];
  return fields.flatMap((field) => {
    if (typeof field !== 'object' || field === null || !nonEmpty((field as { name?: unknown }).name)) return [];
    const { name, type, doc, description } = field as Record<string, unknown>;
    return [
      {
        name: name as string,
        type: typeof type === 'string' ? type : type === undefined || type === null ? '' : JSON.stringify(type),
        description: nonEmpty(doc) ? doc : nonEmpty(description) ? description : '',
      },
    ];
  });
}

/** One topic entry to register. */
export interface TopicEntry {
  entryId: string;
  entry: DataplexEntry;
}

/**
 * The entries of the graph's topics (pure): one per TOPIC node with a cluster id (placeholders
 * without one are left out), sorted by entry id, with the schema aspect from the node's HAS_SCHEMA
 * schema (the `value` role first; no fields when it has none).
 */
export function topicEntries(graph: LineageGraph, project: string, location: string): TopicEntry[] {
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
  const entries = new Map<string, TopicEntry>();
  for (const topic of graph.nodes) {
    if (topic.node_type !== 'TOPIC' || !topic.cluster_id) continue;
    const name = topic.qualified_name.startsWith(`${topic.cluster_id}/`)
      ? topic.qualified_name.slice(topic.cluster_id.length + 1)
      : topic.qualified_name;
    const schemaEdges = graph.edges.filter((e) => e.src_id === topic.id && e.edge_type === 'HAS_SCHEMA');
    schemaEdges.sort((a, b) => (a.attributes?.role === 'value' ? -1 : 0) - (b.attributes?.role === 'value' ? -1 : 0));
    const fields = schemaEdges.map((e) => schemaFieldsOf(nodes.get(e.dst_id))).find((list) => list.length > 0) ?? [];
    const entryId = topicEntryId(topic.cluster_id, name);
    const description = nonEmpty(topic.attributes?.description) ? topic.attributes.description : undefined;
    entries.set(entryId, {
      entryId,
      entry: {
        entryType: `projects/${project}/locations/${location}/entryTypes/${TOPIC_ENTRY_TYPE_ID}`,
        fullyQualifiedName: kafkaTopicFqn(topic.cluster_id, name),
        entrySource: {
          system: ENTRY_SYSTEM,
          platform: 'kafka',
          displayName: name,
          ...(description ? { description } : {}),
        },
        aspects: { [schemaAspectKey(project, location)]: { data: { fields } } },
      },
    });
  }
  return [...entries.values()].sort((a, b) => (a.entryId < b.entryId ? -1 : 1));
}

/** What asset registration did. */
export interface RegistrationOutcome {
  created: number;
  updated: number;
  errors: string[];
}

/**
 * Registers the graph's topics in Dataplex Catalog (idempotent): the entry group, aspect type and
 * entry type when missing, then per topic a create (`created`), or on 409 a PATCH of the schema
 * aspect (`updated`). Failures are collected, never thrown; a failed bootstrap stops registration.
 */
export async function registerTopicAssets(
  graph: LineageGraph,
  port: WarehouseCatalogPort,
): Promise<RegistrationOutcome> {
  const outcome: RegistrationOutcome = { created: 0, updated: 0, errors: [] };
  const entries = topicEntries(graph, port.projectId, port.location);
  if (entries.length === 0) return outcome;
  for (const { collection, id, body } of dataplexBootstrap(port.projectId, port.location)) {
    try {
      await port.ensureDataplexResource(collection, id, body);
    } catch (error) {
      outcome.errors.push(`dataplex: ${collection}/${id} not created, no topic registered: ${describeFailure(error)}`);
      return outcome;
    }
  }
  const limit = pLimit(ENRICH_CONCURRENCY);
  await Promise.all(
    entries.map(({ entryId, entry }) =>
      limit(async () => {
        try {
          if ((await port.createDataplexEntry(ENTRY_GROUP_ID, entryId, entry)) === 'created') outcome.created += 1;
          else {
            await port.updateDataplexEntryAspects(ENTRY_GROUP_ID, entryId, entry.aspects);
            outcome.updated += 1;
          }
        } catch (error) {
          outcome.errors.push(`dataplex: entry ${entryId} not registered: ${describeFailure(error)}`);
        }
      }),
    ),
  );
  outcome.errors.sort();
  return outcome;
}
