/**
 * Node ids: `{system}:{type}:{scope}:{qualified_name}`, system and type lower-case, scope the
 * environment id (the region for data-lake tables). The qualified name is everything after the third
 * colon, so it may itself contain colons and slashes (`postgres://db:5432/app.public.orders`).
 *
 * Source: `docs/specification.md`, "Node" (`{system}:{type}:{env_id}:{qualified_name}`) and `docs/contract.md` section 2.
 */
import { ValidationError } from '../errors.js';
import { NODE_TYPES, SYSTEMS, type NodeType, type System } from './model.js';

/** The four parts of a node id. */
export interface ParsedNodeId {
  system: System;
  nodeType: NodeType;
  /** Environment id, or the region for data-lake catalog tables. */
  scope: string;
  qualifiedName: string;
}

/** Builds a node id from its parts. */
export function nodeId(system: System, nodeType: NodeType, scope: string, qualifiedName: string): string {
  return `${system.toLowerCase()}:${nodeType.toLowerCase()}:${scope}:${qualifiedName}`;
}

/**
 * Parses a node id.
 * @throws ValidationError when it does not have four parts or names an unknown system or type.
 */
export function parseNodeId(id: string): ParsedNodeId {
  const first = id.indexOf(':');
  const second = first < 0 ? -1 : id.indexOf(':', first + 1);
  const third = second < 0 ? -1 : id.indexOf(':', second + 1);
  if (third < 0) {
    throw new ValidationError(`node id "${id}" is not of the form {system}:{type}:{environment}:{qualified_name}`);
  }
  const system = id.slice(0, first).toUpperCase();
  const nodeType = id.slice(first + 1, second).toUpperCase();
  if (!(SYSTEMS as readonly string[]).includes(system)) {
    throw new ValidationError(`node id "${id}" names an unknown system "${id.slice(0, first)}"`);
  }
  if (!(NODE_TYPES as readonly string[]).includes(nodeType)) {
    throw new ValidationError(`node id "${id}" names an unknown node type "${id.slice(first + 1, second)}"`);
  }
  return {
    system: system as System,
    nodeType: nodeType as NodeType,
    scope: id.slice(second + 1, third),
    qualifiedName: id.slice(third + 1),
  };
}

/** `stream:topic:{env}:{cluster_id}/{topic}`; the topic name is kept whole, dots and all. */
export function topicId(environmentId: string, clusterId: string, topic: string): string {
  return nodeId('STREAM', 'TOPIC', environmentId, `${clusterId}/${topic}`);
}

/** `stream:consumer_group:{env}:{cluster_id}/{group_id}` */
export function consumerGroupId(environmentId: string, clusterId: string, groupId: string): string {
  return nodeId('STREAM', 'CONSUMER_GROUP', environmentId, `${clusterId}/${groupId}`);
}

/** `stream:connector:{env}:{cluster_id}/{connector_name}` */
export function connectorId(environmentId: string, clusterId: string, connectorName: string): string {
  return nodeId('STREAM', 'CONNECTOR', environmentId, `${clusterId}/${connectorName}`);
}

/** `stream:sql_query:{env}:{sql_cluster_id}/{query_id}` (a ksqlDB persistent query). */
export function sqlQueryId(environmentId: string, sqlClusterId: string, queryId: string): string {
  return nodeId('STREAM', 'SQL_QUERY', environmentId, `${sqlClusterId}/${queryId}`);
}

/** `stream:stream_job:{env}:{statement_name}` (a Flink SQL statement). */
export function streamJobId(environmentId: string, statementName: string): string {
  return nodeId('STREAM', 'STREAM_JOB', environmentId, statementName);
}

/** `stream:schema:{env}:{subject}` */
export function schemaId(environmentId: string, subject: string): string {
  return nodeId('STREAM', 'SCHEMA', environmentId, subject);
}

/** `stream:materialized_table:{env}:{cluster_id}/{topic}` (a Tableflow table). */
export function materializedTableId(environmentId: string, clusterId: string, topic: string): string {
  return nodeId('STREAM', 'MATERIALIZED_TABLE', environmentId, `${clusterId}/${topic}`);
}

/** `external:external_dataset:{env}:{uri}`, e.g. `s3://bucket/prefix`. */
export function externalDatasetId(environmentId: string, uri: string): string {
  return nodeId('EXTERNAL', 'EXTERNAL_DATASET', environmentId, uri);
}

/** `lakehouse:catalog_table:{env}:{catalog}.{schema}.{table}` */
export function lakehouseTableId(environmentId: string, catalog: string, schema: string, table: string): string {
  return nodeId('LAKEHOUSE', 'CATALOG_TABLE', environmentId, `${catalog}.${schema}.${table}`);
}

/** `warehouse:catalog_table:{env}:{project}.{dataset}.{table}` */
export function warehouseTableId(environmentId: string, project: string, dataset: string, table: string): string {
  return nodeId('WAREHOUSE', 'CATALOG_TABLE', environmentId, `${project}.${dataset}.${table}`);
}

/** `datalake:catalog_table:{region}:{database}/{table}` */
export function datalakeTableId(region: string, database: string, table: string): string {
  return nodeId('DATALAKE', 'CATALOG_TABLE', region, `${database}/${table}`);
}

/** `{system}:catalog_job:{env}:{job_id}`: a notebook, scheduled query or process inside a catalog. */
export function catalogJobId(system: System, environmentId: string, jobId: string): string {
  return nodeId(system, 'CATALOG_JOB', environmentId, jobId);
}

/** Lakehouse table names: the topic name with dots replaced by underscores (`docs/specification.md`, "Lakehouse catalog (table nodes)"). */
export function lakehouseTableName(topic: string): string {
  return topic.replaceAll('.', '_');
}

/** Warehouse table names: the topic name with dots and hyphens replaced by underscores (`docs/specification.md`, "Warehouse (table nodes)"). */
export function warehouseTableName(topic: string): string {
  return topic.replace(/[.-]/g, '_');
}
