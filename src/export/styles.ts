/**
 * How the drawing formats tell nodes apart: a fill color per system (DOT, Mermaid, GEXF's
 * `viz:color`) and a shape per kind of node type (DOT and Mermaid). Datasets are cylinders, jobs
 * rounded boxes, consumer groups hexagons, schemas notes (DOT) or parallelograms (Mermaid).
 */
import type { NodeType, System } from '../graph/model.js';

/** Colors of a system: `fill` and `stroke` as `#rrggbb`. */
export interface SystemColors {
  readonly fill: string;
  readonly stroke: string;
}

/** The colors of each system (Tailwind's 100 and 700 shades). */
export const SYSTEM_COLORS: Readonly<Record<System, SystemColors>> = {
  STREAM: { fill: '#dbeafe', stroke: '#1d4ed8' },
  LAKEHOUSE: { fill: '#dcfce7', stroke: '#15803d' },
  DATALAKE: { fill: '#fef9c3', stroke: '#a16207' },
  WAREHOUSE: { fill: '#f3e8ff', stroke: '#7e22ce' },
  EXTERNAL: { fill: '#f3f4f6', stroke: '#374151' },
};

/** The kind of shape of a node type. */
export type ShapeKind = 'dataset' | 'job' | 'group' | 'schema';

/** The kind of shape of each node type. */
export const NODE_SHAPES: Readonly<Record<NodeType, ShapeKind>> = {
  TOPIC: 'dataset',
  MATERIALIZED_TABLE: 'dataset',
  CATALOG_TABLE: 'dataset',
  EXTERNAL_DATASET: 'dataset',
  CONNECTOR: 'job',
  SQL_QUERY: 'job',
  STREAM_JOB: 'job',
  CATALOG_JOB: 'job',
  CONSUMER_GROUP: 'group',
  SCHEMA: 'schema',
};

/** The colors of a system, or undefined for a value that is not a known system. */
export function systemColors(system: string): SystemColors | undefined {
  return Object.hasOwn(SYSTEM_COLORS, system) ? SYSTEM_COLORS[system as System] : undefined;
}

/** The shape kind of a node type, `job` for a value that is not a known node type. */
export function shapeKind(nodeType: string): ShapeKind {
  return Object.hasOwn(NODE_SHAPES, nodeType) ? NODE_SHAPES[nodeType as NodeType] : 'job';
}
