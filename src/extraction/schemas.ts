/**
 * Schema Registry (`GET /schemas?latestOnly=true`: every subject's latest version in one call;
 * `confluent-apis.md` section 7). One SCHEMA node per subject, `stream:schema:{env}:{subject}`,
 * with attributes `schema_type` (AVRO when the registry omits it), `version`, `schema_id`,
 * `fields` (`{name, type, description?}` of the top-level record/object/message), `field_count`,
 * `references` and `registry_id`.
 *
 * Links (`topic -> schema` HAS_SCHEMA with attribute `role`):
 * - TopicNameStrategy: `{topic}-key` / `{topic}-value` -> role `key` / `value`;
 * - TopicRecordNameStrategy: `{topic}-{record full name}` (the suffix equals the schema's record
 *   full name) -> role `value`, when the topic is known.
 * A subject under plain RecordNameStrategy names no topic and gets no edge. The registry is shared
 * by the environment's clusters, so a subject links to the topic of that name in each cluster.
 */
import { schemaId, topicId } from '../graph/ids.js';
import { makeEdge, makeNode, type Fragment } from './graphBuilder.js';
import type { SchemaBody } from './platformTypes.js';

/** One field of a schema. */
export interface SchemaField {
  name: string;
  type: string;
  description?: string;
}

function typeName(type: unknown): string {
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.map(typeName).join('|');
  if (type && typeof type === 'object') {
    const t = type as { type?: unknown; logicalType?: unknown; name?: unknown; items?: unknown; values?: unknown };
    if (typeof t.logicalType === 'string') return `${typeName(t.type)}(${t.logicalType})`;
    if (t.type === 'array') return `array<${typeName(t.items)}>`;
    if (t.type === 'map') return `map<${typeName(t.values)}>`;
    if ((t.type === 'record' || t.type === 'enum' || t.type === 'fixed') && typeof t.name === 'string') return t.name;
    return typeName(t.type);
  }
  return 'unknown';
}

/** Top-level fields of an Avro record schema (JSON text); [] when it is not a record or does not parse. */
export function avroFields(schema: string): SchemaField[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(schema);
  } catch {
    return [];
  }
  const fields = (parsed as { fields?: unknown }).fields;
  if (!Array.isArray(fields)) return [];
  return fields.flatMap((field: { name?: unknown; type?: unknown; doc?: unknown }) =>
    typeof field.name === 'string'
      ? [
          {
            name: field.name,
            type: typeName(field.type),
            ...(typeof field.doc === 'string' ? { description: field.doc } : {}),
          },
        ]
      : [],
  );
}

/** Top-level `properties` of a JSON Schema object; [] when there are none. */
export function jsonSchemaFields(schema: string): SchemaField[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(schema);
  } catch {
    return [];
  }
  const properties = (parsed as { properties?: unknown }).properties;
  if (!properties || typeof properties !== 'object') return [];
  return Object.entries(properties as Record<string, { type?: unknown; description?: unknown; $ref?: unknown }>).map(
    ([name, property]) => ({
      name,
      type: Array.isArray(property?.type)
        ? property.type.join('|')
        : typeof property?.type === 'string'
          ? property.type
          : typeof property?.$ref === 'string'
            ? property.$ref
            : 'unknown',
      ...(typeof property?.description === 'string' ? { description: property.description } : {}),
    }),
  );
}

/**
 * Fields of the first top-level message of a Protobuf schema (`type name = number;` lines, with
 * `repeated`/`optional` and map types); nested messages and oneofs are not descended into.
 */
export function protobufFields(schema: string): SchemaField[] {
  const text = schema.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
  const start = /\bmessage\s+\w+\s*\{/.exec(text);
  if (!start) return [];
  let depth = 1;
  let index = start.index + start[0].length;
  let body = '';
  for (; index < text.length && depth > 0; index += 1) {
    const char = text[index];
    if (char === '{') depth += 1;
    if (char === '}') depth -= 1;
    if (depth === 1 && char !== '}') body += char;
    else if (depth > 1) body += ' ';
  }
  const fields: SchemaField[] = [];
  const pattern = /(?:^|;|\s)(repeated\s+|optional\s+)?(map\s*<[^>]+>|[\w.]+)\s+(\w+)\s*=\s*\d+/g;
  for (let match = pattern.exec(body); match; match = pattern.exec(body)) {
    const [, modifier, type, name] = match;
    if (!type || !name || ['message', 'enum', 'oneof', 'reserved', 'option'].includes(type)) continue;
    fields.push({ name, type: `${modifier?.trim() === 'repeated' ? 'repeated ' : ''}${type.replace(/\s+/g, '')}` });
  }
  return fields;
}

/** The fields of a schema by its type; null for types we do not read. */
export function schemaFields(schemaType: string, schema: string): SchemaField[] | null {
  if (schemaType === 'AVRO') return avroFields(schema);
  if (schemaType === 'JSON') return jsonSchemaFields(schema);
  if (schemaType === 'PROTOBUF') return protobufFields(schema);
  return null;
}

/** The full name (`namespace.name`) of an Avro record, or the Protobuf/JSON title, when there is one. */
export function recordFullName(schemaType: string, schema: string): string | undefined {
  if (schemaType === 'PROTOBUF') {
    const pkg = /\bpackage\s+([\w.]+)\s*;/.exec(schema)?.[1];
    const message = /\bmessage\s+(\w+)/.exec(schema)?.[1];
    return message ? (pkg ? `${pkg}.${message}` : message) : undefined;
  }
  try {
    const parsed = JSON.parse(schema) as { name?: unknown; namespace?: unknown; title?: unknown };
    if (typeof parsed.name === 'string') {
      return typeof parsed.namespace === 'string' && parsed.namespace !== '' && !parsed.name.includes('.')
        ? `${parsed.namespace}.${parsed.name}`
        : parsed.name;
    }
    return typeof parsed.title === 'string' ? parsed.title : undefined;
  } catch {
    return undefined;
  }
}

/** Which topic and role a subject names, given the topic names known in the environment. */
export function subjectTopic(
  subject: string,
  fullName: string | undefined,
  knownTopics: ReadonlySet<string>,
): { topic: string; role: 'key' | 'value' } | undefined {
  if (subject.endsWith('-value')) return { topic: subject.slice(0, -'-value'.length), role: 'value' };
  if (subject.endsWith('-key')) return { topic: subject.slice(0, -'-key'.length), role: 'key' };
  if (fullName && subject.endsWith(`-${fullName}`)) {
    const topic = subject.slice(0, -(fullName.length + 1));
    if (knownTopics.has(topic)) return { topic, role: 'value' };
  }
  return undefined;
}

/**
 * SCHEMA nodes of one environment's registry and HAS_SCHEMA edges to the topics of the given
 * clusters (`topicsByCluster`: cluster id -> topic names listed there).
 */
export function schemaFragment(
  environmentId: string,
  registryId: string | null,
  schemas: readonly SchemaBody[],
  topicsByCluster: ReadonlyMap<string, ReadonlySet<string>>,
): Fragment {
  const known = new Set<string>();
  for (const topics of topicsByCluster.values()) for (const topic of topics) known.add(topic);
  const fragment: Fragment = { nodes: [], edges: [] };
  for (const schema of [...schemas].sort((a, b) => (a.subject < b.subject ? -1 : 1))) {
    const type = (schema.schemaType ?? 'AVRO').toUpperCase();
    const fields = schemaFields(type, schema.schema);
    const id = schemaId(environmentId, schema.subject);
    fragment.nodes.push(
      makeNode({
        id,
        nodeType: 'SCHEMA',
        system: 'STREAM',
        qualifiedName: schema.subject,
        displayName: schema.subject,
        environmentId,
        clusterId: null,
        attributes: {
          schema_type: type,
          version: schema.version,
          schema_id: schema.id,
          fields,
          field_count: fields === null ? null : fields.length,
          references: (schema.references ?? []).map((ref) => ({
            name: ref.name ?? null,
            subject: ref.subject ?? null,
            version: ref.version ?? null,
          })),
          registry_id: registryId,
        },
      }),
    );
    const link = subjectTopic(schema.subject, recordFullName(type, schema.schema), known);
    if (!link) continue;
    for (const [clusterId, topics] of topicsByCluster) {
      if (topics.has(link.topic))
        fragment.edges.push(
          makeEdge(topicId(environmentId, clusterId, link.topic), 'HAS_SCHEMA', id, { role: link.role }),
        );
    }
  }
  return fragment;
}
