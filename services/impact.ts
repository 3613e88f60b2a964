/**
 * Field-level impact analysis (issue 26): from one field of one dataset, every column, job and table
 * downstream of it (what breaks if it changes) or upstream of it (where it comes from), now or as of
 * a point in the graph's history. The walk is `walkColumns` over the column graph derived from the
 * graph (`projections/columnGraph.ts`); this is the one use case that asks it, called by
 * `GET /api/v1/graphs/{graph_id}/impact` and by the MCP server's `impact` tool.
 *
 * Errors (our errors only): NotFoundError (404) for an unknown graph or node, or a field the node is
 * not known to have (the message lists the known ones); ValidationError (400) for a bad direction,
 * depth or include, a node that is not a dataset, or a malformed `as_of`.
 */
import { NotFoundError, ValidationError } from '../src/errors.js';
import { DATASET_NODE_TYPES } from '../src/graph/model.js';
import {
  ALL_FIELDS,
  columnChanges,
  knownFields,
  stepMemo,
  walkColumns,
  type ColumnChanges,
  type ColumnDirection,
  type ReachedColumn,
} from '../projections/columnGraph.js';
import type { ResidentGraph } from '../projections/residentGraph.js';
import type { ServiceContext } from './context.js';
import { diffGraphHistory, readGraph, resolveGraphId } from './graphs.js';

/** The directions an impact walk takes. */
export const IMPACT_DIRECTIONS = ['downstream', 'upstream'] as const;
/** Jobs between the origin and a column: at least 1, at most `MAX_IMPACT_DEPTH`, `DEFAULT_IMPACT_DEPTH` when not given. */
export const MIN_IMPACT_DEPTH = 1;
export const MAX_IMPACT_DEPTH = 50;
export const DEFAULT_IMPACT_DEPTH = 10;
/** Known fields named in the message of an unknown field, at most. */
const LISTED_FIELDS = 50;

/** The question (the parameters of `GET /graphs/{graph_id}/impact`). */
export interface ImpactQuery {
  /** The dataset node the field belongs to (a topic, a materialized or catalog table, an external dataset). */
  node_id: string;
  /** The field: a schema field, a catalog column, or a nested field (`after.order_id`). */
  field: string;
  /** `downstream` (default): what the field feeds; `upstream`: what feeds it. */
  direction?: string | undefined;
  /** At most this many jobs between the origin and a column (1-50, default 10). */
  depth?: number | undefined;
  /** The graph as of this revision or ISO 8601 time; now when absent. */
  as_of?: string | undefined;
  /** `indirect`: add the columns reached only through INDIRECT lineage (join keys, filters, group-by, window columns). */
  include?: string | undefined;
}

/** One column of the answer: a column the walk reached (`ReachedColumn` of the column graph). */
export type ImpactColumn = ReachedColumn;

/** The answer (contract: `{origin, direction, columns, jobs, node_count}`). */
export interface ImpactAnswer {
  origin: { node_id: string; field: string };
  direction: ColumnDirection;
  /** Every column reached, by hops, then node id, then field. */
  columns: ImpactColumn[];
  /** Every job on the columns' paths, and every job that reads a reached column and writes nothing, nearest first. */
  jobs: string[];
  /** Distinct nodes in the answer: the columns' datasets and the jobs. */
  node_count: number;
}

/** Checks the parameters. @throws ValidationError naming the first bad one. */
function checkQuery(query: ImpactQuery): { direction: ColumnDirection; depth: number; indirect: boolean } {
  const direction = query.direction ?? 'downstream';
  if (!(IMPACT_DIRECTIONS as readonly string[]).includes(direction))
    throw new ValidationError(`direction must be downstream or upstream, not "${direction}"`);
  const depth = query.depth ?? DEFAULT_IMPACT_DEPTH;
  if (!Number.isInteger(depth) || depth < MIN_IMPACT_DEPTH || depth > MAX_IMPACT_DEPTH)
    throw new ValidationError(
      `depth must be a whole number from ${MIN_IMPACT_DEPTH} to ${MAX_IMPACT_DEPTH}, not ${depth}`,
    );
  if (query.include !== undefined && query.include !== 'indirect')
    throw new ValidationError(`include must be "indirect", not "${query.include}"`);
  if (query.field === '') throw new ValidationError('field must not be empty');
  return { direction: direction as ColumnDirection, depth, indirect: query.include === 'indirect' };
}

/**
 * The origin's field as the node spells it. Among the fields its schemas and columns declare, then
 * among those column lineage names on it: the field itself (or a struct it is nested in:
 * `after.order_id` in `after`), else the one field that differs only in case.
 * @throws NotFoundError listing the known fields (the first 50) when the node has no such field.
 */
function originField(graph: ResidentGraph, nodeId: string, field: string): string {
  if (field === ALL_FIELDS) return field;
  const { declared, named } = knownFields(graph, nodeId);
  const structs = field.split('.').map((_, index, parts) => parts.slice(0, index + 1).join('.'));
  const lower = field.toLowerCase();
  for (const known of [declared, named]) {
    if (structs.some((name) => known.includes(name))) return field;
    const sameName = known.filter((name) => name.toLowerCase() === lower);
    if (sameName.length === 1) return sameName[0]!;
  }
  const all = [...declared, ...named];
  if (all.length === 0)
    throw new NotFoundError(
      `field "${field}" is not known: node "${nodeId}" has no known fields (no schema, columns or column lineage)`,
    );
  const listed = all.slice(0, LISTED_FIELDS).join(', ');
  const more = all.length > LISTED_FIELDS ? ` and ${all.length - LISTED_FIELDS} more` : '';
  throw new NotFoundError(
    `field "${field}" is not a known field of node "${nodeId}"; its known fields: ${listed}${more}`,
  );
}

/**
 * The impact of one field (issue 26, item 2): the columns `direction` of `node_id`'s `field`, at most
 * `depth` jobs away, with the jobs between; in the graph now, or as of `as_of`.
 * @param context the service context (only its runtime is read).
 * @param graphId a graph id or unique name.
 * @throws NotFoundError for an unknown graph or node, or an unknown field (listing the known ones);
 *   ValidationError for a bad direction, depth or include, a node that is not a dataset, or a malformed `as_of`.
 */
export async function fieldImpact(
  context: Pick<ServiceContext, 'runtime'>,
  graphId: string,
  query: ImpactQuery,
): Promise<ImpactAnswer> {
  const { direction, depth, indirect } = checkQuery(query);
  const state = await readGraph(context.runtime, graphId, query.as_of);
  const node = state.graph.node(query.node_id);
  if (!node) throw new NotFoundError(`node "${query.node_id}" is not in the graph`);
  if (!DATASET_NODE_TYPES.has(node.node_type))
    throw new ValidationError(
      `node "${query.node_id}" is a ${node.node_type}, not a dataset: ask for a field of a topic, table or external dataset`,
    );
  const origin = { node_id: node.id, field: originField(state.graph, node.id, query.field) };
  const walk = walkColumns(state.graph, origin, direction, depth, indirect, stepMemo(state.graph, state.revision));
  const nodes = new Set(walk.jobs);
  for (const column of walk.columns) nodes.add(column.node_id);
  return { origin, direction, columns: walk.columns, jobs: walk.jobs, node_count: nodes.size };
}

/** The header of the CSV answer; `type` and `subtype` are added with `include=indirect`. */
export function impactCsvHeader(indirect: boolean): string[] {
  return indirect ? ['node_id', 'field', 'hops', 'via', 'type', 'subtype'] : ['node_id', 'field', 'hops', 'via'];
}

/** The CSV rows of an answer, one per column, `via` joined with `;` (header: `impactCsvHeader`). */
export function* impactCsvRows(answer: ImpactAnswer, indirect: boolean): Generator<Array<string | number>> {
  for (const column of answer.columns) {
    const row: Array<string | number> = [column.node_id, column.field, column.hops, column.via.join(';')];
    if (indirect) row.push(column.type, column.subtype);
    yield row;
  }
}

/** The answer of `GET /graphs/{graph_id}/diff/columns`: the graph diff's column-level changes. */
export interface ColumnDiffAnswer extends ColumnChanges {
  graph_id: string;
  from: { as_of: string; revision: number };
  to: { as_of: string | null; revision: number };
}

/**
 * What changed at column level between two points of a graph (issue 26, item 4): fields added to or
 * removed from schemas and catalog tables, and column edges that appeared or went (a statement that
 * stopped reading a column). `to` defaults to now.
 * @throws NotFoundError for an unknown graph; ValidationError for a malformed point.
 */
export async function columnDiff(
  context: Pick<ServiceContext, 'runtime'>,
  graphId: string,
  from: string,
  to?: string,
): Promise<ColumnDiffAnswer> {
  const diff = await diffGraphHistory(context.runtime, resolveGraphId(context.runtime, graphId), from, to);
  return {
    graph_id: diff.graph_id,
    from: { as_of: from, revision: diff.from.revision },
    to: { as_of: to ?? null, revision: diff.to.revision },
    ...columnChanges(diff),
  };
}
