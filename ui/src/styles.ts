/**
 * Colors of the graph: a node's fill is its type, its border its system; an edge's color is its
 * type. The legend is drawn from these tables, so the two cannot disagree.
 */

/** Fill color per node type. */
export const NODE_TYPE_COLORS: Record<string, string> = {
  TOPIC: '#2f6fdf',
  CONSUMER_GROUP: '#8a8f98',
  CONNECTOR: '#e07b00',
  SQL_QUERY: '#b04fd1',
  STREAM_JOB: '#d6336c',
  SCHEMA: '#5bb5a2',
  MATERIALIZED_TABLE: '#1f9e5a',
  EXTERNAL_DATASET: '#6b5b3e',
  CATALOG_TABLE: '#0d8f8f',
  CATALOG_JOB: '#7d6bd8',
};

/** Border color per system. */
export const SYSTEM_COLORS: Record<string, string> = {
  STREAM: '#0b3d91',
  LAKEHOUSE: '#ff5f1f',
  DATALAKE: '#7a3db8',
  WAREHOUSE: '#188038',
  EXTERNAL: '#505050',
};

/** Color per edge type. */
export const EDGE_TYPE_COLORS: Record<string, string> = {
  CONSUMES: '#7aa2e3',
  PRODUCES: '#e3a07a',
  TRANSFORMS: '#9c7ae3',
  MATERIALIZES: '#55b07f',
  HAS_SCHEMA: '#9fd3c7',
  MEMBER_OF: '#c4c4c4',
};

/** Colors of a diff: what was added, removed and changed. */
export const DIFF_COLORS = { added: '#1a9e3a', removed: '#d93025', changed: '#f2a600' } as const;

/** Color of nodes and edges pushed to the back (not hovered, not on the path). */
export const FADED_COLOR = '#e4e6ea';

/** Colors that follow the page's theme (light or dark), set by the page when the theme changes. */
export const theme = { faded: FADED_COLOR };

/** Color of unknown types and systems. */
export const FALLBACK_COLOR = '#999999';

/** Size of a node on screen by type: jobs a little smaller than datasets, schemas smallest. */
export function nodeSize(nodeType: string): number {
  if (nodeType === 'SCHEMA') return 3;
  if (nodeType === 'CONSUMER_GROUP') return 4;
  if (nodeType.endsWith('JOB') || nodeType === 'CONNECTOR' || nodeType === 'SQL_QUERY') return 5;
  return 6;
}

/** Readable name of an enum value: `CONSUMER_GROUP` -> `consumer group`. */
export function humanize(value: string): string {
  return value.toLowerCase().replaceAll('_', ' ');
}
