/**
 * Left-to-right layouts for lineage graphs (sources left, sinks right), run in a web worker.
 *
 * Up to `CARD_LAYOUT_LIMIT` nodes, `layoutGraph` uses dagre's layered (Sugiyama) algorithm
 * (`@dagrejs/dagre`): nodes are cards of a fixed size, so that their labels never overlap, and
 * environments and clusters are compound groups whose boxes dagre computes. Above it, dagre's
 * crossing minimization is too slow, and `layeredLayout` below is used:
 *
 * A layered left-to-right layout linear in the size of the graph, so that it stays under a second
 * at 100,000 nodes in a web worker:
 *
 * 1. cycles are broken by a depth-first search that ignores its back edges;
 * 2. each node's layer is its longest path from a source (Kahn's order), so every source is in
 *    layer 0 and every edge points right;
 * 3. nodes within a layer start in the caller's order (e.g. by system and type) and are reordered
 *    by a few barycenter sweeps (left to right on predecessors, then right to left on successors),
 *    which untangles most crossings of a pipeline-shaped graph;
 * 4. a layer taller than `maxRows` is laid out in several sub-columns, row by row, so that its
 *    vertical order is kept and the drawing keeps a readable aspect ratio.
 *
 * Sugiyama implementations with full crossing minimization (dagre, ELK) are super-linear and are
 * used below `CARD_LAYOUT_LIMIT` nodes; this one trades a few crossings for scale.
 */
import dagre from '@dagrejs/dagre';

/** What the layout needs: nodes are numbered 0..nodeCount-1; edge i goes sources[i] -> targets[i]. */
export interface LayoutInput {
  nodeCount: number;
  sources: Int32Array;
  targets: Int32Array;
  /** Initial order within a layer (lower first), e.g. a rank by system, type and name; default the node number. */
  order?: Float64Array;
  /**
   * The group path of each node, outermost first (e.g. `[environment, cluster]`), for the card
   * layout's compound groups; nodes without a group have an empty path.
   */
  groups?: string[][];
}

/** A group's box (an environment or a cluster) in graph units, centre and size. */
export interface GroupBox {
  /** The group path joined with ` / `, e.g. `env-1 / lkc-1`. */
  label: string;
  depth: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A layout and the size of a node's card in graph units (cards of neighbours never overlap). */
export interface CardLayoutResult extends LayoutResult {
  cardWidth: number;
  cardHeight: number;
  groups: GroupBox[];
  /** `dagre` or `layered`. */
  algorithm: 'dagre' | 'layered';
}

/** Graphs up to this many nodes are laid out by dagre (cards and groups); larger ones by `layeredLayout`. */
export const CARD_LAYOUT_LIMIT = 600;

/** A card of the dagre layout, in graph units: wide enough for about 24 characters at 12 px. */
export const CARD_SIZE = { width: 190, height: 38 } as const;

/**
 * Lays out the graph for the view: dagre with cards and groups up to `CARD_LAYOUT_LIMIT` nodes,
 * else `layeredLayout` (cards sized to its spacing, no group boxes).
 */
export function layoutGraph(input: LayoutInput): CardLayoutResult {
  if (input.nodeCount <= CARD_LAYOUT_LIMIT) return dagreLayout(input);
  const result = layeredLayout(input);
  // Rows are 1 apart; layers at least 2 apart (sub-columns 3): a card fits in 1.8 by 0.7.
  return { ...result, cardWidth: 1.8, cardHeight: 0.7, groups: [], algorithm: 'layered' };
}

/**
 * dagre's layered layout, left to right, with fixed-size cards, then in swimlanes: each distinct
 * group path (environment, then cluster) is a horizontal band, in the order of the paths; within
 * a band and a layer, nodes keep dagre's vertical order. (dagre's own compound groups fail on
 * some graphs, "Not possible to find intersection inside of the rectangle", and cost several
 * times more.) y is turned upwards (sigma's axis).
 */
export function dagreLayout(input: LayoutInput): CardLayoutResult {
  const { nodeCount, sources, targets } = input;
  const graph = new dagre.graphlib.Graph({ multigraph: false });
  const rowGap = 14;
  graph.setGraph({ rankdir: 'LR', nodesep: rowGap, ranksep: 70, marginx: 0, marginy: 0 });
  graph.setDefaultEdgeLabel(() => ({}));
  const order = input.order;
  const numbers = Array.from({ length: nodeCount }, (_, v) => v);
  if (order) numbers.sort((a, b) => order[a]! - order[b]! || a - b);
  for (const v of numbers) graph.setNode(String(v), { width: CARD_SIZE.width, height: CARD_SIZE.height });
  for (let i = 0; i < sources.length; i++) {
    if (sources[i] === targets[i]) continue;
    graph.setEdge(String(sources[i]), String(targets[i]));
  }
  dagre.layout(graph);
  const x = new Float32Array(nodeCount);
  const dagreY = new Float64Array(nodeCount);
  for (let v = 0; v < nodeCount; v++) {
    const placed = graph.node(String(v)) as { x: number; y: number };
    x[v] = placed.x;
    dagreY[v] = placed.y;
  }
  const ranks = [...new Set(x)].sort((a, b) => a - b);
  const rankOf = new Map(ranks.map((value, index) => [value, index]));
  const layer = Int32Array.from(x, (value) => rankOf.get(value)!);

  // Swimlanes: one per group path, sorted; a node's row within its lane and layer follows dagre's y.
  const pathOf = (v: number) => input.groups?.[v] ?? [];
  const laneKeys = [...new Set(numbers.map((v) => pathOf(v).join('\u0000')))].sort();
  const laneOf = new Map(laneKeys.map((key, index) => [key, index]));
  const cells = new Map<string, number[]>(); // lane:layer -> nodes
  for (const v of numbers) {
    const key = `${laneOf.get(pathOf(v).join('\u0000'))}:${layer[v]}`;
    let cell = cells.get(key);
    if (!cell) cells.set(key, (cell = []));
    cell.push(v);
  }
  const rowsOfLane = new Int32Array(laneKeys.length);
  for (const [key, members] of cells) {
    const lane = Number(key.split(':')[0]);
    rowsOfLane[lane] = Math.max(rowsOfLane[lane]!, members.length);
  }
  const pitch = CARD_SIZE.height + rowGap;
  const header = 26; // room for a group's name above its first row
  const laneTop = new Float64Array(laneKeys.length);
  const paths = laneKeys.map((key) => (key === '' ? [] : key.split('\u0000')));
  const boxes = new Map<string, { path: string[]; top: number; bottom: number }>();
  let top = 0;
  paths.forEach((path, lane) => {
    const previous = paths[lane - 1] ?? [];
    // A header for each group that starts with this lane (an environment, then its cluster).
    for (let depth = 1; depth <= path.length; depth++) {
      const prefix = path.slice(0, depth).join('\u0000');
      if (previous.slice(0, depth).join('\u0000') === prefix) continue;
      top += depth === 1 ? rowGap : 0;
      boxes.set(prefix, { path: path.slice(0, depth), top, bottom: top });
      top += header;
    }
    laneTop[lane] = top;
    top += rowsOfLane[lane]! * pitch;
    for (let depth = 1; depth <= path.length; depth++) boxes.get(path.slice(0, depth).join('\u0000'))!.bottom = top;
  });
  const y = new Float32Array(nodeCount);
  for (const [key, members] of cells) {
    const lane = Number(key.split(':')[0]);
    members.sort((a, b) => dagreY[a]! - dagreY[b]!);
    // Centre the members of a short cell within its lane.
    const offset = ((rowsOfLane[lane]! - members.length) * pitch) / 2;
    members.forEach((v, row) => (y[v] = -(laneTop[lane]! + offset + row * pitch + CARD_SIZE.height / 2)));
  }
  const left = ranks[0] ?? 0;
  const right = ranks.at(-1) ?? 0;
  const groups: GroupBox[] = [];
  for (const { path, top: boxTop, bottom } of boxes.values()) {
    const inset = 10 * (path.length - 1);
    groups.push({
      label: path.join(' / '),
      depth: path.length - 1,
      x: (left + right) / 2,
      y: -(boxTop + bottom) / 2,
      width: right - left + CARD_SIZE.width + 40 - 2 * inset,
      height: bottom - boxTop + 6 - 3 * (path.length - 1),
    });
  }
  return {
    x,
    y,
    layer,
    layerCount: ranks.length,
    cardWidth: CARD_SIZE.width,
    cardHeight: CARD_SIZE.height,
    groups,
    algorithm: 'dagre',
  };
}

/** Coordinates per node number (graph units: one row is 1, one layer is `layerGap`). */
export interface LayoutResult {
  x: Float32Array;
  y: Float32Array;
  /** The layer of each node (0 = sources). */
  layer: Int32Array;
  layerCount: number;
}

/** Tuning of `layeredLayout`. */
export interface LayoutOptions {
  /** Barycenter sweeps (each one left-to-right plus right-to-left); default 3. */
  sweeps?: number;
  /** Horizontal distance between layers, in rows; default: what makes the drawing about 1.6 times as wide as tall. */
  layerGap?: number;
  /** Horizontal distance between sub-columns of a tall layer, in rows; default 3. */
  subColumnGap?: number;
  /** Most rows in one column; default max(40, 2 * sqrt(nodeCount)). */
  maxRows?: number;
}

/** Compressed adjacency: the neighbors of node v are entries[offsets[v]..offsets[v+1]). */
interface Adjacency {
  offsets: Int32Array;
  entries: Int32Array;
}

function adjacency(nodeCount: number, from: Int32Array, to: Int32Array, keep: Uint8Array): Adjacency {
  const offsets = new Int32Array(nodeCount + 1);
  for (let i = 0; i < from.length; i++) if (keep[i]) offsets[from[i]! + 1]!++;
  for (let v = 0; v < nodeCount; v++) offsets[v + 1]! += offsets[v]!;
  const fill = offsets.slice(0, nodeCount);
  const entries = new Int32Array(offsets[nodeCount]!);
  for (let i = 0; i < from.length; i++) if (keep[i]) entries[fill[from[i]!]!++] = to[i]!;
  return { offsets, entries };
}

/** Marks the edges that close a cycle (back edges of an iterative depth-first search) with 0 in `keep`. */
function breakCycles(nodeCount: number, sources: Int32Array, targets: Int32Array): Uint8Array {
  const keep = new Uint8Array(sources.length).fill(1);
  // Out-adjacency by edge index, so that back edges can be marked.
  const offsets = new Int32Array(nodeCount + 1);
  for (let i = 0; i < sources.length; i++) offsets[sources[i]! + 1]!++;
  for (let v = 0; v < nodeCount; v++) offsets[v + 1]! += offsets[v]!;
  const fill = offsets.slice(0, nodeCount);
  const edgeAt = new Int32Array(sources.length);
  for (let i = 0; i < sources.length; i++) edgeAt[fill[sources[i]!]!++] = i;
  const state = new Uint8Array(nodeCount); // 0 unseen, 1 on the stack, 2 done
  const stack = new Int32Array(nodeCount);
  const cursor = new Int32Array(nodeCount);
  for (let root = 0; root < nodeCount; root++) {
    if (state[root] !== 0) continue;
    let depth = 0;
    stack[0] = root;
    state[root] = 1;
    cursor[root] = offsets[root]!;
    while (depth >= 0) {
      const v = stack[depth]!;
      if (cursor[v]! < offsets[v + 1]!) {
        const edge = edgeAt[cursor[v]!++]!;
        const w = targets[edge]!;
        if (state[w] === 1) keep[edge] = 0;
        else if (state[w] === 0) {
          state[w] = 1;
          cursor[w] = offsets[w]!;
          stack[++depth] = w;
        }
      } else {
        state[v] = 2;
        depth--;
      }
    }
  }
  return keep;
}

/**
 * Lays out a directed graph in layers from left to right. Throws a RangeError when an edge names a
 * node number outside 0..nodeCount-1 or when `sources` and `targets` differ in length.
 */
export function layeredLayout(input: LayoutInput, options: LayoutOptions = {}): LayoutResult {
  const { nodeCount, sources, targets } = input;
  if (sources.length !== targets.length) throw new RangeError('sources and targets must have the same length');
  for (let i = 0; i < sources.length; i++) {
    const s = sources[i]!;
    const t = targets[i]!;
    if (s < 0 || s >= nodeCount || t < 0 || t >= nodeCount) {
      throw new RangeError(`edge ${i} (${s} -> ${t}) names a node outside 0..${nodeCount - 1}`);
    }
  }
  const sweeps = options.sweeps ?? 3;
  const subColumnGap = options.subColumnGap ?? 3;
  const maxRows = options.maxRows ?? Math.max(40, Math.ceil(2 * Math.sqrt(nodeCount)));

  const keep = breakCycles(nodeCount, sources, targets);
  const out = adjacency(nodeCount, sources, targets, keep);
  const into = adjacency(nodeCount, targets, sources, keep);

  // Longest path from a source, in Kahn's order.
  const layer = new Int32Array(nodeCount);
  const pending = new Int32Array(nodeCount);
  for (let v = 0; v < nodeCount; v++) pending[v] = into.offsets[v + 1]! - into.offsets[v]!;
  const queue = new Int32Array(nodeCount);
  let head = 0;
  let tail = 0;
  for (let v = 0; v < nodeCount; v++) if (pending[v] === 0) queue[tail++] = v;
  while (head < tail) {
    const v = queue[head++]!;
    for (let k = out.offsets[v]!; k < out.offsets[v + 1]!; k++) {
      const w = out.entries[k]!;
      if (layer[v]! + 1 > layer[w]!) layer[w] = layer[v]! + 1;
      if (--pending[w]! === 0) queue[tail++] = w;
    }
  }
  let layerCount = 0;
  for (let v = 0; v < nodeCount; v++) if (layer[v]! + 1 > layerCount) layerCount = layer[v]! + 1;

  // Members of each layer, in the initial order.
  const order = input.order;
  const byLayer: number[][] = Array.from({ length: layerCount }, () => []);
  for (let v = 0; v < nodeCount; v++) byLayer[layer[v]!]!.push(v);
  if (order) for (const members of byLayer) members.sort((a, b) => order[a]! - order[b]! || a - b);

  // Relative position within its layer, in [0, 1].
  const position = new Float64Array(nodeCount);
  const place = (members: number[]) => {
    const span = Math.max(1, members.length - 1);
    members.forEach((v, index) => (position[v] = index / span));
  };
  byLayer.forEach(place);
  const barycenter = new Float64Array(nodeCount);
  const reorder = (members: number[], adjacent: Adjacency) => {
    for (const v of members) {
      const start = adjacent.offsets[v]!;
      const end = adjacent.offsets[v + 1]!;
      if (start === end) {
        barycenter[v] = position[v]!;
        continue;
      }
      let sum = 0;
      for (let k = start; k < end; k++) sum += position[adjacent.entries[k]!]!;
      barycenter[v] = sum / (end - start);
    }
    members.sort((a, b) => barycenter[a]! - barycenter[b]! || position[a]! - position[b]!);
    place(members);
  };
  for (let sweep = 0; sweep < sweeps; sweep++) {
    for (let l = 1; l < layerCount; l++) reorder(byLayer[l]!, into);
    for (let l = layerCount - 2; l >= 0; l--) reorder(byLayer[l]!, out);
  }

  // Coordinates: tall layers take several sub-columns, filled row by row. Without a layer gap
  // given, the gap makes the drawing about 1.6 times as wide as it is tall (between 2 and 12 rows).
  const x = new Float32Array(nodeCount);
  const y = new Float32Array(nodeCount);
  const columnsOf = byLayer.map((members) => Math.max(1, Math.ceil(members.length / maxRows)));
  const height = byLayer.reduce(
    (tallest, members, l) => Math.max(tallest, Math.ceil(members.length / columnsOf[l]!)),
    1,
  );
  const subColumnsWidth = columnsOf.reduce((sum, columns) => sum + (columns - 1) * subColumnGap, 0);
  const gap =
    options.layerGap ?? Math.min(12, Math.max(2, (1.6 * height - subColumnsWidth) / Math.max(1, layerCount - 1)));
  let left = 0;
  for (const [l, members] of byLayer.entries()) {
    const columns = columnsOf[l]!;
    const rows = Math.ceil(members.length / columns);
    members.forEach((v, index) => {
      const row = Math.floor(index / columns);
      x[v] = left + (index % columns) * subColumnGap;
      y[v] = (rows - 1) / 2 - row;
    });
    left += (columns - 1) * subColumnGap + gap;
  }
  return { x, y, layer, layerCount };
}
