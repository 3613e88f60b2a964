/**
 * Schema Registry (`GET /schemas?latestOnly=true`: every subject's latest version in one call;
 * `docs/platform-apis.md` section 7). One SCHEMA node per subject, `stream:schema:{env}:{subject}`,
 * with attributes `schema_type` (AVRO when the registry omits it), `version`, `schema_id`,
 * `fields` (`{name, type, description?}` of the top-level record/object/message), `field_count`,
 * `references` and `registry_id`.
 *
 * Links (`topic -> schema` HAS_SCHEMA with attribute `role`), `subjectLinks`:
 * - TopicNameStrategy: `{topic}-key` / `{topic}-value` -> role `key` / `value`;
 * - TopicRecordNameStrategy: `{topic}-{record full name}` (the suffix equals the schema's record
 *   full name) -> role `value`, when the topic is known;
 * - RecordNameStrategy (the subject is the record full name and names no topic): from the references
 *   of a topic's union subject, a record namespace that is a topic name (CDC envelopes), or the
 *   record name of a topic's own subject; other such subjects get no edge.
 * The registry is shared by the environment's clusters, so a subject links to the topic of that
 * name in each cluster.
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

/** Why a subject is linked to a topic: its name (`TopicNameStrategy`, `TopicRecordNameStrategy`) or RecordNameStrategy evidence. */
export type SubjectEvidence = 'subject_name' | 'reference' | 'record_namespace' | 'record_name';

/** A subject linked to a topic name (in every cluster of the environment that lists it). */
export interface SubjectLink {
  subject: string;
  topic: string;
  role: 'key' | 'value';
  evidence: SubjectEvidence;
  /** With evidence `reference`: the subject whose schema references this one. */
  referencedBy?: string;
}

/** What `subjectLinks` needs of a subject: its name, its record full name, its id and the subjects it references. */
export interface SubjectSummary {
  subject: string;
  fullName: string | undefined;
  schemaId: number;
  references: readonly string[];
  /** True when the schema is a union of other types (`isUnionSchema`): a multi-type topic's subject. */
  union: boolean;
}

/**
 * True for a schema that is a union at its top level, the form a topic carrying several record types
 * takes under its own subject: an Avro array (`["com.acme.OrderCreated", "com.acme.OrderShipped"]`)
 * or a JSON Schema whose top level is a `oneOf` / `anyOf`. Protobuf schemas are never unions here.
 */
export function isUnionSchema(schemaType: string, schema: string): boolean {
  if (schemaType !== 'AVRO' && schemaType !== 'JSON') return false;
  try {
    const parsed = JSON.parse(schema) as unknown;
    if (schemaType === 'AVRO') return Array.isArray(parsed);
    const object = parsed as { oneOf?: unknown; anyOf?: unknown } | null;
    return Array.isArray(object?.oneOf) || Array.isArray(object?.anyOf);
  } catch {
    return false;
  }
}

/**
 * The topics each subject of a registry describes (`docs/extraction.md`, "Schemas"):
 *
 * - by name: `{topic}-key` / `{topic}-value` (TopicNameStrategy) and `{topic}-{record full name}`
 *   (TopicRecordNameStrategy) when the topic is known;
 * - RecordNameStrategy subjects (named by their record, naming no topic), from the registry's own evidence:
 *   1. `reference`: a subject that a topic's union subject references (`isUnionSchema`: a multi-type
 *      topic) describes that topic, with the same role; references from a record (nested types such
 *      as an address field) are parts of the topic's record, not its records, and give no link;
 *   2. `record_namespace`: a record whose namespace is a known topic (`{topic}.Envelope`,
 *      `{topic}.Value`, `{topic}.Key`: the records Debezium and Confluent CDC connectors write) describes
 *      that topic, role `key` for a record named `Key`, else `value`;
 *   3. `record_name`: a subject whose record full name is that of a topic's key or value subject describes
 *      that topic, with that role, when one topic only has it or the schema ids are the same.
 *   Any other RecordNameStrategy subject is left unlinked.
 * Pure.
 * @param knownTopics topic names listed in the environment's extracted clusters.
 * @returns links sorted by subject, then topic; a subject linked by name gets no RecordNameStrategy link.
 */
export function subjectLinks(subjects: readonly SubjectSummary[], knownTopics: ReadonlySet<string>): SubjectLink[] {
  const links: SubjectLink[] = [];
  const byName = new Map<string, SubjectLink>();
  for (const summary of subjects) {
    const link = subjectTopic(summary.subject, summary.fullName, knownTopics);
    if (!link) continue;
    const named: SubjectLink = { subject: summary.subject, ...link, evidence: 'subject_name' };
    byName.set(summary.subject, named);
    links.push(named);
  }
  const registered = new Map(subjects.map((summary) => [summary.subject, summary]));
  const unnamed = subjects.filter((summary) => !byName.has(summary.subject));
  links.push(
    ...referenceLinks(byName, registered),
    ...recordNameLinks(unnamed, [...byName.values()], registered, knownTopics),
  );
  const seen = new Set<string>();
  return links
    .filter((link) => {
      const key = `${link.subject}\t${link.topic}\t${link.role}`;
      return !seen.has(key) && (seen.add(key), true);
    })
    .sort((a, b) => compareKeys([a.subject, a.topic, a.role], [b.subject, b.topic, b.role]));
}

/** Orders tuples of strings element by element. */
function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let index = 0; index < a.length; index += 1) {
    const [x, y] = [a[index] ?? '', b[index] ?? ''];
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Rule 1: the subjects a union subject linked by name references (never one linked by name itself). */
function referenceLinks(
  byName: ReadonlyMap<string, SubjectLink>,
  registered: ReadonlyMap<string, SubjectSummary>,
): SubjectLink[] {
  const links: SubjectLink[] = [];
  for (const named of byName.values()) {
    const referrer = registered.get(named.subject);
    if (!referrer?.union) continue;
    for (const referenced of referrer.references) {
      if (byName.has(referenced) || !registered.has(referenced)) continue;
      links.push({
        subject: referenced,
        topic: named.topic,
        role: named.role,
        evidence: 'reference',
        referencedBy: named.subject,
      });
    }
  }
  return links;
}

/** Rules 2 and 3, for subjects that name no topic and are named by their record (subject = record full name). */
function recordNameLinks(
  unnamed: readonly SubjectSummary[],
  named: readonly SubjectLink[],
  registered: ReadonlyMap<string, SubjectSummary>,
  knownTopics: ReadonlySet<string>,
): SubjectLink[] {
  const links: SubjectLink[] = [];
  for (const summary of unnamed) {
    const fullName = summary.fullName;
    if (fullName === undefined || summary.subject !== fullName) continue;
    const dot = fullName.lastIndexOf('.');
    const namespace = dot > 0 ? fullName.slice(0, dot) : undefined;
    if (namespace !== undefined && knownTopics.has(namespace)) {
      const role = fullName.slice(dot + 1) === 'Key' ? 'key' : 'value';
      links.push({ subject: summary.subject, topic: namespace, role, evidence: 'record_namespace' });
      continue;
    }
    const sameRecord = named.filter((link) => registered.get(link.subject)?.fullName === fullName);
    const topics = new Set(sameRecord.map((link) => link.topic));
    const sameSchema = sameRecord.filter((link) => registered.get(link.subject)?.schemaId === summary.schemaId);
    for (const link of topics.size === 1 ? sameRecord : sameSchema)
      links.push({ subject: summary.subject, topic: link.topic, role: link.role, evidence: 'record_name' });
  }
  return links;
}

/**
 * SCHEMA nodes of one environment's registry and HAS_SCHEMA edges to the topics of the given
 * clusters (`topicsByCluster`: cluster id -> topic names listed there), by `subjectLinks`. Edge
 * attributes: `role`, and for RecordNameStrategy subjects `strategy: "RecordNameStrategy"`,
 * `evidence` (`reference`, `record_namespace`, `record_name`) and, for references, `referenced_by`.
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
  const summaries: SubjectSummary[] = [];
  for (const schema of [...schemas].sort((a, b) => (a.subject < b.subject ? -1 : 1))) {
    const type = (schema.schemaType ?? 'AVRO').toUpperCase();
    fragment.nodes.push(schemaNode(environmentId, registryId, schema, type));
    summaries.push({
      subject: schema.subject,
      fullName: recordFullName(type, schema.schema),
      schemaId: schema.id,
      references: (schema.references ?? []).flatMap((ref) => (ref.subject ? [ref.subject] : [])),
      union: isUnionSchema(type, schema.schema),
    });
  }
  for (const link of subjectLinks(summaries, known)) {
    const attributes =
      link.evidence === 'subject_name'
        ? { role: link.role }
        : {
            role: link.role,
            strategy: 'RecordNameStrategy',
            evidence: link.evidence,
            referenced_by: link.referencedBy,
          };
    for (const [clusterId, topics] of topicsByCluster) {
      if (topics.has(link.topic))
        fragment.edges.push(
          makeEdge(
            topicId(environmentId, clusterId, link.topic),
            'HAS_SCHEMA',
            schemaId(environmentId, link.subject),
            attributes,
          ),
        );
    }
  }
  return fragment;
}

/** The SCHEMA node of a subject's latest version. */
function schemaNode(environmentId: string, registryId: string | null, schema: SchemaBody, type: string) {
  const fields = schemaFields(type, schema.schema);
  return makeNode({
    id: schemaId(environmentId, schema.subject),
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
  });
}
