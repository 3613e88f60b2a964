/**
 * Traversals, behind one boundary: everything other folders use of them is exported here.
 *
 * | file | holds |
 * |---|---|
 * | `walk.ts` | the walk over a resident graph (any revision; what `as_of` uses), its checks and its result |
 * | `answers.ts` | `Traversal` and `WholeGraph` answers as values, their JSON in pooled buffers, cached JSON fragments |
 * | `traversalIndex.ts` | one index of a graph's revision (typed-array adjacency): build (in steps), walk |
 * | `scheduler.ts` | which graphs have an index, staleness, and the sliced background work |
 */
export {
  AnswerBufferPool,
  answerBuffers,
  jsonArrayParts,
  plainWholeGraph,
  pooledText,
  serializeJson,
  walkedTraversal,
  WHOLE_GRAPH_PART_ITEMS,
  type PooledBytes,
  type Traversal,
  type WholeGraph,
} from './answers.js';
export {
  createTraversalIndexes,
  startTraversalIndexing,
  TRAVERSAL_INDEX_SLICE_MS,
  TRAVERSAL_INDEX_SWEEP_MS,
  type TraversalIndexes,
  type TraversalIndexingOptions,
} from './scheduler.js';
export { shortestPath, type PathDirection, type PathResult } from './path.js';
export { TraversalIndex } from './traversalIndex.js';
export {
  checkTraversal,
  MAX_TRAVERSAL_HOPS,
  reached,
  traverse,
  type ReachedNode,
  type TraversalDirection,
  type TraversalResult,
} from './walk.js';
