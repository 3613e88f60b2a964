/**
 * Stream Catalog (`GET /catalog/v1/search/basic?type=kafka_topic`, and business metadata per topic;
 * `docs/platform-apis.md` section 8). Enrichment only: it adds attributes to topics already extracted,
 * never creates nodes. Attributes: `tags` (the entity's classification names, sorted),
 * `business_metadata` (`{definition name: {attribute: value}}`), `owner`, `owner_email`,
 * `description`.
 *
 * A catalog entity's `qualifiedName` is `{lsrc}:{lkc}:{topic}` (or `{lkc}:{topic}`); the topic part
 * is kept whole, colons included.
 */
import { topicId } from '../graph/ids.js';
import type { BusinessMetadataBody, CatalogEntityBody } from './platformTypes.js';

/** Attributes to merge into one existing node. */
export interface Enrichment {
  nodeId: string;
  attributes: Record<string, unknown>;
}

/** Splits a catalog topic qualified name into cluster and topic; undefined when it names no cluster. */
export function parseCatalogTopicName(qualifiedName: string): { clusterId: string; topic: string } | undefined {
  const match = /^(?:lsrc-[A-Za-z0-9]+:)?(lkc-[A-Za-z0-9]+):(.+)$/.exec(qualifiedName);
  return match?.[1] && match[2] ? { clusterId: match[1], topic: match[2] } : undefined;
}

/**
 * Topic enrichments from catalog search results and the business metadata fetched per entity
 * (`businessMetadata`: catalog qualified name -> its business metadata list).
 */
export function catalogEnrichments(
  environmentId: string,
  entities: readonly CatalogEntityBody[],
  businessMetadata: ReadonlyMap<string, readonly BusinessMetadataBody[]> = new Map(),
): Enrichment[] {
  const result: Enrichment[] = [];
  for (const entity of entities) {
    if (entity.typeName !== 'kafka_topic') continue;
    const name = parseCatalogTopicName(entity.attributes.qualifiedName);
    if (!name) continue;
    const metadata = businessMetadata.get(entity.attributes.qualifiedName) ?? [];
    const attributes: Record<string, unknown> = { tags: [...new Set(entity.classificationNames ?? [])].sort() };
    if (metadata.length > 0) {
      attributes.business_metadata = Object.fromEntries(
        [...metadata]
          .sort((a, b) => (a.typeName < b.typeName ? -1 : 1))
          .map((entry) => [entry.typeName, entry.attributes ?? {}]),
      );
    }
    if (entity.attributes.owner) attributes.owner = entity.attributes.owner;
    if (entity.attributes.ownerEmail) attributes.owner_email = entity.attributes.ownerEmail;
    if (entity.attributes.description) attributes.description = entity.attributes.description;
    result.push({ nodeId: topicId(environmentId, name.clusterId, name.topic), attributes });
  }
  return result;
}
