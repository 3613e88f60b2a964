/**
 * The web UI's modules (`ui/src/`) for tests that run their pure parts in Node, and the wire types
 * those tests hand them. The modules are loaded by URL so that the root tsconfig (no DOM) never
 * compiles ui/; the types restate `ui/src/api.ts`'s for the same reason.
 */

/** Imports `ui/src/{name}.ts` (untyped: the caller states the part it uses). */
export function loadUiModule(name: string): Promise<unknown> {
  return import(new URL(`../../ui/src/${name}.ts`, import.meta.url).href) as Promise<unknown>;
}

/** A node of the lineage graph, as the API sends it (`LineageNode` of `ui/src/api.ts`). */
export interface LineageNode {
  id: string;
  node_type: string;
  system: string;
  qualified_name: string;
  display_name: string;
  environment_id: string | null;
  cluster_id: string | null;
  attributes: Record<string, unknown> | null;
}

/** A directed edge of the lineage graph, as the API sends it (`LineageEdge` of `ui/src/api.ts`). */
export interface LineageEdge {
  src_id: string;
  dst_id: string;
  edge_type: string;
  attributes: Record<string, unknown> | null;
}
