/**
 * What every exporter shares: the graph shape they accept, text in chunks, and the checks made
 * before the first chunk (unique node ids, edges between known nodes, and for the formats that
 * write node ids, ids they can write as they are).
 */
import { ValidationError } from '../errors.js';
import type { Edge, LineageGraph, Node } from '../graph/model.js';

/**
 * What the exporters read: a LineageGraph, or any graph-shaped value such as a traversal's origin
 * and nodes with its edges. Nodes may carry fields beyond the model (a traversal's `hop`): the
 * formats with columns export every field they find. The arrays are read more than once.
 */
export interface ExportableGraph {
  readonly nodes: readonly Node[];
  readonly edges: readonly Edge[];
  readonly metadata?: LineageGraph['metadata'];
}

/**
 * Size of the text chunks the exporters yield: at least 64 Ki UTF-16 code units (64 to 192 KiB of
 * UTF-8), the last one shorter; a chunk ends after the piece (one node or edge) that reaches it.
 */
export const CHUNK_LENGTH = 64 * 1024;

/**
 * Joins small pieces of text into chunks of at least `length` UTF-16 code units (the last one may
 * be shorter; no chunk is empty), so that a consumer handles a few large strings rather than millions
 * of small ones. Lazy: pieces are read as chunks are asked for.
 */
export function* chunked(pieces: Iterable<string>, length: number = CHUNK_LENGTH): Generator<string, void, undefined> {
  let buffer = '';
  for (const piece of pieces) {
    buffer += piece;
    if (buffer.length >= length) {
      yield buffer;
      buffer = '';
    }
  }
  if (buffer.length > 0) yield buffer;
}

/**
 * The number of every node (its position in `graph.nodes`), checking that every edge joins two of
 * them. Called by the exporters before their first chunk, so that a bad graph fails before anything
 * is sent rather than in the middle of a response.
 * @throws ValidationError when two nodes share an id, or an edge names a node the graph does not have.
 */
export function numberNodes(graph: ExportableGraph): Map<string, number> {
  const numbers = new Map<string, number>();
  graph.nodes.forEach((node, index) => {
    if (numbers.has(node.id)) throw new ValidationError(`cannot export the graph: two nodes have the id "${node.id}"`);
    numbers.set(node.id, index);
  });
  for (const edge of graph.edges) {
    for (const end of [edge.src_id, edge.dst_id]) {
      if (!numbers.has(end)) {
        throw new ValidationError(
          `cannot export the graph: the ${edge.edge_type} edge from "${edge.src_id}" to "${edge.dst_id}" names "${end}", which is not one of its nodes`,
        );
      }
    }
  }
  return numbers;
}

/**
 * Characters that DOT, GraphML and GEXF cannot write as they are: C0 control characters other than
 * tab, line feed and carriage return, DEL, C1 control characters, unpaired surrogates, and the
 * noncharacters U+FFFE and U+FFFF. In values they are replaced (DOT, and XML where it cannot
 * carry them) or written as character references (DEL and C1 in XML); an id cannot be changed
 * without merging it with another, so a node id holding one is refused (`assertWritableIds`).
 * No valid node has one in its id (`src/graph/validation.ts`).
 */
export const UNWRITABLE_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]|\p{Cs}/u;

/**
 * Checks, before the first chunk, that no node id holds an `UNWRITABLE_CHARACTER` (exporters that
 * write node ids: DOT, GraphML, GEXF).
 * @param format the format's name, for the message.
 * @throws ValidationError naming the first such id (as JSON text) and the character's code point.
 */
export function assertWritableIds(graph: ExportableGraph, format: string): void {
  for (const node of graph.nodes) {
    const found = UNWRITABLE_CHARACTER.exec(node.id);
    if (found === null) continue;
    const code = found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    throw new ValidationError(
      `cannot export the graph as ${format}: the node id ${JSON.stringify(node.id)} holds U+${code}, a control ` +
        `character, unpaired surrogate or noncharacter, which ${format} cannot write`,
    );
  }
}
