/**
 * Schema Registry and Stream Catalog, served below the srcm cluster's `spec.http_endpoint` (and
 * `spec.catalog_http_endpoint`) = `{url}/schema-registry/{lsrc}`; Schema Registry API key (the
 * registry's own `api_key` or the scenario's `schema_registry` key). Answers use
 * `application/vnd.schemaregistry.v1+json`; `schemaType` is omitted for AVRO and `references` when
 * empty, as Schema Registry does.
 *
 * | API name | route below `{url}/schema-registry/{lsrc}` |
 * |---|---|
 * | `schema-registry.subjects` | `GET /subjects` (`subjectPrefix`, `deleted`, `offset`, `limit`; default limit -1 = all) -> string array |
 * | `schema-registry.subject-versions` | `GET /subjects/{subject}/versions` -> number array |
 * | `schema-registry.subject-version` | `GET /subjects/{subject}/versions/{version or latest}` |
 * | `schema-registry.schemas` | `GET /schemas` (`subjectPrefix`, `latestOnly`, `offset`, `limit`) -> every subject's schema in one call |
 * | `schema-registry.schema` | `GET /schemas/ids/{id}` |
 * | `catalog.search` | `GET /catalog/v1/search/basic?type=kafka_topic&query=&tag=&attr=&limit=&offset=` (limit default 100, capped at 500) |
 * | `catalog.search` | `GET /catalog/v1/search/attribute` (same answer; `attrName`/`attrValuePrefix` filter) |
 * | `catalog.entity` | `GET /catalog/v1/entity/type/kafka_topic/name/{qualifiedName}` (`<lsrc>:<lkc>:<topic>` or `<lkc>:<topic>`) |
 * | `catalog.entity-tags` | `GET /catalog/v1/entity/type/kafka_topic/name/{qualifiedName}/tags` |
 * | `catalog.entity-businessmetadata` | `GET /catalog/v1/entity/type/kafka_topic/name/{qualifiedName}/businessmetadata` |
 * | `catalog.tagdefs` | `GET /catalog/v1/types/tagdefs`, `GET /catalog/v1/types/tagdefs/{name}` |
 * | `catalog.businessmetadatadefs` | `GET /catalog/v1/types/businessmetadatadefs`, `.../{name}` |
 *
 * Entity attributes keep int64 numbers exact in the JSON text (e.g. `"flushMs":9223372036854775807`),
 * as the real service does; a client must not parse them with plain `JSON.parse` if it needs them.
 */
import type { FastifyReply } from 'fastify';
import { HttpError } from '../errors.js';
import type { SrModel, SubjectModel, TopicModel } from '../model.js';
import type { Registrar, RouteMeta } from '../server.js';
import { q1, uuidFrom, type Query } from '../util.js';
import { effectiveTopicConfigs } from './kafkaRest.js';

const meta = (api: string): RouteMeta => ({ api, family: 'schema-registry', auth: 'schema-registry' });
const SR_TYPE = 'application/vnd.schemaregistry.v1+json';

/** Marks an integer to be written as an exact JSON number (beyond 2^53). */
class Int64 {
  constructor(readonly digits: string) {}
  toJSON(): string {
    return `@@int64:${this.digits}@@`;
  }
}

function exactJson(value: unknown): string {
  return JSON.stringify(value).replace(/"@@int64:(-?\d+)@@"/g, '$1');
}

function numberOrInt64(text: string): number | Int64 {
  const n = Number(text);
  return Number.isSafeInteger(n) || (!Number.isInteger(n) && Number.isFinite(n)) ? n : new Int64(text);
}

function camel(name: string): string {
  return name.replace(/\.([a-z])/g, (_, c: string) => c.toUpperCase());
}

function renderSubjectVersion(s: SubjectModel): Record<string, unknown> {
  return {
    subject: s.subject,
    version: s.version,
    id: s.id,
    ...(s.schemaType !== 'AVRO' ? { schemaType: s.schemaType } : {}),
    schema: s.schema,
    ...(s.references.length > 0 ? { references: s.references } : {}),
  };
}

function sliceOffsetLimit<T>(items: readonly T[], query: Query): T[] {
  const offset = Math.max(0, Number(q1(query, 'offset') ?? 0) || 0);
  const limitText = q1(query, 'limit');
  const limit = limitText === undefined ? -1 : Number(limitText);
  return limit < 0 || Number.isNaN(limit) ? items.slice(offset) : items.slice(offset, offset + limit);
}

/** Registers the Schema Registry and Stream Catalog routes. */
export function registerSchemaRegistry(r: Registrar): void {
  const { world } = r;
  const prefix = '/schema-registry/:lsrc';
  const srOf = (params: unknown): SrModel => {
    const sr = world.schemaRegistries.get((params as { lsrc: string }).lsrc);
    if (sr === undefined) throw new HttpError(404, 'schema-registry', 'HTTP 404 Not Found');
    return sr;
  };
  const subjectOf = (params: unknown): [SrModel, SubjectModel] => {
    const sr = srOf(params);
    const name = (params as { subject: string }).subject;
    const s = sr.bySubject.get(name);
    if (s === undefined)
      throw new HttpError(404, 'schema-registry', `Subject '${name}' not found.`, { errorCode: 40401 });
    return [sr, s];
  };
  const send = (reply: FastifyReply, body: unknown, type = SR_TYPE): string => {
    void reply.type(type);
    return exactJson(body);
  };

  r.get(`${prefix}/subjects`, meta('schema-registry.subjects'), (req, reply) => {
    const sr = srOf(req.params);
    const query = req.query as Query;
    const prefixText = q1(query, 'subjectPrefix') ?? '';
    const names = sr.subjects.filter((s) => s.subject.startsWith(prefixText)).map((s) => s.subject);
    return send(reply, sliceOffsetLimit(names, query));
  });
  r.get(`${prefix}/subjects/:subject/versions`, meta('schema-registry.subject-versions'), (req, reply) => {
    const [, s] = subjectOf(req.params);
    return send(reply, [s.version]);
  });
  r.get(`${prefix}/subjects/:subject/versions/:version`, meta('schema-registry.subject-version'), (req, reply) => {
    const [, s] = subjectOf(req.params);
    const v = (req.params as { version: string }).version;
    if (v !== 'latest' && v !== '-1' && Number(v) !== s.version) {
      if (!/^\d+$/.test(v))
        throw new HttpError(
          422,
          'schema-registry',
          `The specified version '${v}' is not a valid version id. Allowed values are between [1, 2^31-1] and the string "latest"`,
          { errorCode: 42202 },
        );
      throw new HttpError(404, 'schema-registry', `Version ${v} not found.`, { errorCode: 40402 });
    }
    return send(reply, renderSubjectVersion(s));
  });
  r.get(`${prefix}/schemas`, meta('schema-registry.schemas'), (req, reply) => {
    const sr = srOf(req.params);
    const query = req.query as Query;
    const prefixText = q1(query, 'subjectPrefix') ?? '';
    const all = sr.subjects.filter((s) => s.subject.startsWith(prefixText)).map(renderSubjectVersion);
    return send(reply, sliceOffsetLimit(all, query));
  });
  r.get(`${prefix}/schemas/ids/:id`, meta('schema-registry.schema'), (req, reply) => {
    const sr = srOf(req.params);
    const id = Number((req.params as { id: string }).id);
    const s = sr.byId.get(id);
    if (s === undefined)
      throw new HttpError(404, 'schema-registry', `Schema ${String((req.params as { id: string }).id)} not found`, {
        errorCode: 40403,
      });
    return send(reply, {
      ...(s.schemaType !== 'AVRO' ? { schemaType: s.schemaType } : {}),
      schema: s.schema,
      ...(s.references.length > 0 ? { references: s.references } : {}),
    });
  });

  // ---- Stream Catalog ----
  const created = world.createdAt;
  const guidOf = (sr: SrModel, t: TopicModel): string => uuidFrom(`${sr.id}/${t.cluster.id}/${t.name}/guid`);
  const qualifiedName = (sr: SrModel, t: TopicModel): string => `${sr.id}:${t.cluster.id}:${t.name}`;
  const classifications = (sr: SrModel, t: TopicModel): Record<string, unknown>[] =>
    t.def.tags.map((tag) => ({
      typeName: tag,
      attributes: {},
      entityGuid: guidOf(sr, t),
      entityStatus: 'ACTIVE',
      propagate: false,
      removePropagationsOnEntityDelete: false,
    }));
  const fullAttributes = (sr: SrModel, t: TopicModel): Record<string, unknown> => {
    const attrs: Record<string, unknown> = {};
    for (const [name, value] of effectiveTopicConfigs(t)) {
      if (name.startsWith('confluent.') || name.endsWith('throttled.replicas')) continue;
      const key = camel(name);
      if (value === 'true' || value === 'false') attrs[key] = value === 'true';
      else if (/^-?\d+(\.\d+)?$/.test(value)) attrs[key] = numberOrInt64(value);
      else if (name === 'cleanup.policy' || name === 'compression.type') attrs[key] = value.toUpperCase();
      else attrs[key] = value;
    }
    return {
      ...attrs,
      replicationFactor: t.def.replication_factor,
      partitionsCount: t.def.partitions,
      followerReplicationThrottledReplicas: null,
      leaderReplicationThrottledReplicas: null,
      id: Buffer.from(uuidFrom(`${t.cluster.id}/${t.name}/topic-id`).replace(/-/g, ''), 'hex').toString('base64url'),
      tenant: sr.id,
      externalSourceTopicName: null,
      qualifiedName: qualifiedName(sr, t),
      isInternal: t.isInternal,
      name: t.name,
      nameLower: t.name.toLowerCase(),
      doc: null,
      mirrorTopicState: null,
      replicatedFrom: null,
      replicatedTo: null,
      displayName: null,
      description: t.def.description ?? null,
      userDescription: null,
      owner: t.def.owner ?? null,
      ownerEmail: t.def.owner_email ?? null,
      valueSchemaValidation: false,
      keySchemaValidation: false,
      deprecatedTime: 0,
      externalSourceTopicId: null,
      mirrorTopicUpdateTime: null,
      createTime: created,
      updateTime: created + 60_000,
    };
  };
  const entityHeader = (sr: SrModel, t: TopicModel, extraAttrs: string[]): Record<string, unknown> => {
    const attributes: Record<string, unknown> = {
      createTime: created,
      qualifiedName: qualifiedName(sr, t),
      name: t.name,
      nameLower: t.name.toLowerCase(),
    };
    if (t.def.owner !== undefined) attributes.owner = t.def.owner;
    if (t.def.owner_email !== undefined) attributes.ownerEmail = t.def.owner_email;
    if (t.def.description !== undefined) attributes.description = t.def.description;
    if (extraAttrs.length > 0) {
      const full = fullAttributes(sr, t);
      for (const a of extraAttrs) if (a in full) attributes[a] = full[a];
    }
    return {
      typeName: 'kafka_topic',
      attributes,
      guid: guidOf(sr, t),
      status: 'ACTIVE',
      displayText: t.name,
      classificationNames: [...t.def.tags],
      classifications: classifications(sr, t),
      meaningNames: [],
      meanings: [],
      isIncomplete: false,
      labels: [],
    };
  };
  const listParam = (query: Query, ...names: string[]): string[] =>
    names
      .flatMap((n) => {
        const v = query[n];
        return v === undefined ? [] : (Array.isArray(v) ? v : [v]).flatMap((x) => x.split(','));
      })
      .filter((x) => x !== '');
  const search = (sr: SrModel, query: Query, attributeFilter?: (t: TopicModel) => boolean): Record<string, unknown> => {
    const types = listParam(query, 'type', 'types');
    const text = (q1(query, 'query') ?? '').toLowerCase().replace(/\*/g, '');
    const tag = q1(query, 'tag');
    const limitText = q1(query, 'limit');
    const limit = Math.min(500, Math.max(0, limitText === undefined ? 100 : Number(limitText) || 0));
    const offset = Math.max(0, Number(q1(query, 'offset') ?? 0) || 0);
    const wantsTopics = types.length === 0 || types.includes('kafka_topic');
    const matches = wantsTopics
      ? sr.catalogTopics.filter(
          (t) =>
            (text === '' || t.name.toLowerCase().includes(text)) &&
            (tag === undefined || tag === '' || t.def.tags.includes(tag)) &&
            (attributeFilter === undefined || attributeFilter(t)),
        )
      : [];
    const attrs = listParam(query, 'attr', 'attrs');
    return {
      searchParameters: { includeDeleted: q1(query, 'deleted') === 'true', limit, offset },
      types: types.length === 0 ? ['kafka_topic'] : types,
      entities: matches.slice(offset, offset + limit).map((t) => entityHeader(sr, t, attrs)),
    };
  };
  const catalogTopicOf = (params: unknown): [SrModel, TopicModel] => {
    const sr = srOf(params);
    const { typeName, qn } = params as { typeName: string; qn: string };
    const t = typeName === 'kafka_topic' ? sr.topicByQualifiedName.get(qn) : undefined;
    if (t === undefined) {
      throw new HttpError(
        404,
        'schema-registry',
        `Instance ${typeName} with unique attribute {qualifiedName=${qn}} does not exist`,
        { errorCode: 404 },
      );
    }
    return [sr, t];
  };

  r.get(`${prefix}/catalog/v1/search/basic`, { ...meta('catalog.search') }, (req, reply) => {
    const sr = srOf(req.params);
    return send(reply, search(sr, req.query as Query), 'application/json');
  });
  r.get(`${prefix}/catalog/v1/search/attribute`, { ...meta('catalog.search') }, (req, reply) => {
    const sr = srOf(req.params);
    const query = req.query as Query;
    const names = listParam(query, 'attrName');
    const prefixes = listParam(query, 'attrValuePrefix');
    const filter = (t: TopicModel): boolean => {
      const attrs = fullAttributes(sr, t);
      return names.every((n, i) => String(attrs[n] ?? '').startsWith(prefixes[i] ?? ''));
    };
    return send(reply, search(sr, query, filter), 'application/json');
  });
  r.get(`${prefix}/catalog/v1/entity/type/:typeName/name/:qn`, meta('catalog.entity'), (req, reply) => {
    const [sr, t] = catalogTopicOf(req.params);
    const bm = t.def.business_metadata;
    const entity: Record<string, unknown> = {
      typeName: 'kafka_topic',
      attributes: fullAttributes(sr, t),
      guid: guidOf(sr, t),
      isIncomplete: false,
      status: 'ACTIVE',
      createTime: created + 5_000,
      updateTime: created + 120_000,
      version: 0,
      relationshipAttributes: {
        inputToProcesses: [],
        connectors: [],
        mirror_topics: [],
        source_topic: null,
        logical_cluster: {
          guid: uuidFrom(`${sr.id}/${t.cluster.id}/guid`),
          typeName: 'kafka_logical_cluster',
          entityStatus: 'ACTIVE',
          displayText: t.cluster.def.display_name,
          relationshipType: 'kafka_logical_cluster_topics',
          relationshipGuid: uuidFrom(`${sr.id}/${t.cluster.id}/${t.name}/rel`),
          relationshipStatus: 'ACTIVE',
          relationshipAttributes: { typeName: 'kafka_logical_cluster_topics' },
        },
        input_for_pipelines: [],
        output_for_pipelines: [],
        activated_for_pipelines: [],
        meanings: [],
        outputFromProcesses: [],
        cluster_link: null,
      },
      classifications: classifications(sr, t),
      labels: [],
    };
    if (Object.keys(bm).length > 0) entity.businessAttributes = bm;
    return send(reply, { referredEntities: {}, entity }, 'application/json');
  });
  r.get(`${prefix}/catalog/v1/entity/type/:typeName/name/:qn/tags`, meta('catalog.entity-tags'), (req, reply) => {
    const [sr, t] = catalogTopicOf(req.params);
    return send(
      reply,
      t.def.tags.map((tag) => ({
        typeName: tag,
        entityStatus: 'ACTIVE',
        propagate: false,
        removePropagationsOnEntityDelete: false,
        entityType: 'kafka_topic',
        entityName: qualifiedName(sr, t),
      })),
      'application/json',
    );
  });
  r.get(
    `${prefix}/catalog/v1/entity/type/:typeName/name/:qn/businessmetadata`,
    meta('catalog.entity-businessmetadata'),
    (req, reply) => {
      const [sr, t] = catalogTopicOf(req.params);
      return send(
        reply,
        Object.entries(t.def.business_metadata).map(([name, attributes]) => ({
          typeName: name,
          attributes,
          entityType: 'kafka_topic',
          entityName: qualifiedName(sr, t),
        })),
        'application/json',
      );
    },
  );
  /** The fields every Stream Catalog type definition has (tag and business metadata definitions alike). */
  const typeDefBase = (category: 'CLASSIFICATION' | 'BUSINESS_METADATA', d: { name: string; description: string }) => ({
    category,
    createdBy: 'root',
    updatedBy: 'root',
    createTime: created,
    updateTime: created,
    version: 1,
    name: d.name,
    description: d.description,
    typeVersion: '1.0',
  });
  const tagDef = (d: { name: string; description: string }): Record<string, unknown> => ({
    ...typeDefBase('CLASSIFICATION', d),
    attributeDefs: [],
    superTypes: [],
    entityTypes: ['cf_entity'],
  });
  const bmDef = (d: { name: string; description: string; attributes: string[] }): Record<string, unknown> => ({
    ...typeDefBase('BUSINESS_METADATA', d),
    attributeDefs: d.attributes.map((a) => ({
      name: a,
      typeName: 'string',
      isOptional: true,
      cardinality: 'SINGLE',
      valuesMinCount: 0,
      valuesMaxCount: 1,
      isUnique: false,
      isIndexable: false,
      includeInNotification: false,
      searchWeight: -1,
      options: { applicableEntityTypes: '["cf_entity"]', maxStrLength: '5000' },
    })),
  });
  r.get(`${prefix}/catalog/v1/types/tagdefs`, meta('catalog.tagdefs'), (req, reply) =>
    send(reply, srOf(req.params).tagDefs.map(tagDef), 'application/json'),
  );
  r.get(`${prefix}/catalog/v1/types/tagdefs/:name`, meta('catalog.tagdefs'), (req, reply) => {
    const name = (req.params as { name: string }).name;
    const d = srOf(req.params).tagDefs.find((x) => x.name === name);
    if (d === undefined) throw new HttpError(404, 'schema-registry', `Type ${name} not found`, { errorCode: 404 });
    return send(reply, tagDef(d), 'application/json');
  });
  r.get(`${prefix}/catalog/v1/types/businessmetadatadefs`, meta('catalog.businessmetadatadefs'), (req, reply) =>
    send(reply, srOf(req.params).bmDefs.map(bmDef), 'application/json'),
  );
  r.get(`${prefix}/catalog/v1/types/businessmetadatadefs/:name`, meta('catalog.businessmetadatadefs'), (req, reply) => {
    const name = (req.params as { name: string }).name;
    const d = srOf(req.params).bmDefs.find((x) => x.name === name);
    if (d === undefined) throw new HttpError(404, 'schema-registry', `Type ${name} not found`, { errorCode: 404 });
    return send(reply, bmDef(d), 'application/json');
  });
}
