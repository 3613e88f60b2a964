/**
 * The graph view: sigma.js (WebGL) over a graphology graph. Positions come from the layout,
 * computed in a web worker (`layout.worker.ts`: dagre up to a few hundred nodes, with swimlanes
 * per environment and cluster drawn behind the graph). At a readable zoom nodes are cards
 * (`cards.ts`), below it dots. Hovering a node, or moving the keyboard cursor onto it, fades
 * everything but the node, its neighbors and their edges; a diff colors added, removed and changed
 * nodes and edges; a path is drawn on top of a faded graph; edges are as wide as their throughput
 * when the metrics have it. Pan and zoom with the mouse, the buttons or the keyboard.
 */
import Graph from 'graphology';
import Sigma from 'sigma';
import { createNodeBorderProgram } from '@sigma/node-border';
import { EdgeLineProgram, NodePointProgram, drawDiscNodeHover } from 'sigma/rendering';
import type { RenderParams } from 'sigma/types';
import { cardScreen, CARD_MIN_HEIGHT_PIXELS, drawCard } from './cards';
import { edgeThroughputBetween, groupPath } from './graphData';
import type { LineageEdge, LineageNode } from './api';
import type { CardLayoutResult, GroupBox, LayoutInput } from './layout';
import LayoutWorker from './layout.worker?worker&inline';
import { createPanCache, PAN_MARGIN, type PanCacheControls, type PanCacheCounts } from './panCache';
import {
  DIFF_COLORS,
  EDGE_TYPE_COLORS,
  FALLBACK_COLOR,
  theme,
  NODE_TYPE_COLORS,
  SYSTEM_COLORS,
  nodeSize,
} from './styles';

/** What a diff says of a node or an edge. */
export type DiffMark = 'added' | 'removed' | 'changed';

/** What to draw: nodes, edges, and the marks of a diff and a path. */
export interface GraphScene {
  nodes: LineageNode[];
  edges: LineageEdge[];
  /** Diff mark per node id and per edge key (`edgeKey`). */
  marks?: Map<string, DiffMark>;
  /** Node ids and edge keys of a path to emphasize. */
  path?: Set<string>;
  /** Words per node id for what is folded into it (e.g. `2 consumer groups`). */
  collapsed?: Map<string, string>;
}

/** Figures of the last render, read by the tests and the benchmark. */
export interface RenderFigures {
  nodes: number;
  edges: number;
  /** Milliseconds from `show` to the first frame drawn (layout included). */
  renderMilliseconds: number;
  layoutMilliseconds: number;
}

/** A plain label as drawn: its text and its box in viewport pixels (top left corner, size). */
export interface LabelBox {
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Characters kept of a label shortened to fit beside the labels already placed (then an ellipsis). */
export const SHORT_LABEL_CHARACTERS = 12;
/** Pixels of space kept after a label, so that two labels on one line never touch. */
const LABEL_GAP_PIXELS = 4;
/** The plain labels' color (sigma's `labelColor` setting). */
const LABEL_COLOR = '#1b1f24';

/** The key of an edge in the view: its source, type and target. */
export const edgeKey = (edge: Pick<LineageEdge, 'src_id' | 'dst_id' | 'edge_type'>) =>
  `${edge.src_id} -[${edge.edge_type}]-> ${edge.dst_id}`;

interface NodeAttributes {
  x: number;
  y: number;
  size: number;
  label: string;
  color: string;
  borderColor: string;
  nodeType: string;
  /** Sigma's program: `bordered` (fill and border), or `point` for large graphs. */
  type: string;
  collapsedText?: string;
  faded?: boolean;
}

interface EdgeAttributes {
  /** Sigma's program: `arrow`, or `thin` (one-pixel lines) for large graphs. */
  type: string;
  size: number;
  color: string;
  edgeType: string;
  /** Bytes per metrics window, when the metrics have it. */
  throughput?: number;
  /** An edge standing for a folded consumer group (topic to the group's job). */
  folded?: boolean;
}

/**
 * Above these counts the graph is drawn with sigma's cheapest programs (square points without a
 * border, one-pixel lines without arrowheads): at that scale borders and arrowheads are a pixel or
 * two wide, and the simpler programs keep panning fluid with software WebGL.
 */
export const LARGE_GRAPH_NODES = 2_000;
export const LARGE_GRAPH_EDGES = 4_000;
/** Sigma's default padding, in pixels, between the fitted graph and the visible edge of the view. */
const STAGE_PADDING = 30;
/** Up to this many nodes, the layout is dagre's with swimlanes (the layout module's `CARD_LAYOUT_LIMIT`). */
const CARD_LAYOUT_NODES = 600;

/** Renderers whose current frame leaves out the points' picking pass (the pan cache's `skipPicking`). */
const withoutPicking = new WeakSet<object>();

/**
 * Sigma's point program (large graphs) whose picking pass, the hidden frame that hovering and
 * clicking read, is left out of a moving camera's redraws: with software WebGL it draws every
 * point a second time (measured at 100,000 nodes: 70 of a redraw's 450 ms of GPU-process CPU), and
 * the pan cache redraws with picking once the camera rests.
 */
class PointProgram extends NodePointProgram<NodeAttributes, EdgeAttributes> {
  override render(params: RenderParams): void {
    const picking = this.pickProgram;
    if (withoutPicking.has(this.renderer)) this.pickProgram = null;
    try {
      super.render(params);
    } finally {
      this.pickProgram = picking;
    }
  }
}

let layoutWorker: Worker | undefined;
let layoutRequests = 0;

/**
 * Starts the layout web worker (once); returns it. Its script is bundled into the page's (Vite's
 * inline worker, started from a `blob:` URL, which the UI server's `worker-src` allows), not fetched:
 * a fetch of its own was answered after the API's answers, and in the bench, where one Node process
 * serves the UI and the API, after the serialization of a large graph's whole document (the grouped
 * overview's layout waited 300 to 600 ms for the worker's script; see docs/ui.md).
 */
export function startLayoutWorker(): Worker {
  layoutWorker ??= new LayoutWorker({ name: 'layout' });
  return layoutWorker;
}

/** Runs the layered layout in the web worker; rejects with the worker's error message. */
export function layoutInWorker(input: LayoutInput): Promise<CardLayoutResult> {
  const worker = startLayoutWorker();
  const requestId = ++layoutRequests;
  return new Promise((resolve, reject) => {
    const onMessage = (
      event: MessageEvent<(CardLayoutResult & { requestId: number }) | { requestId: number; error: string }>,
    ) => {
      if (event.data.requestId !== requestId) return;
      worker.removeEventListener('message', onMessage);
      if ('error' in event.data) reject(new Error(`layout failed: ${event.data.error}`));
      else resolve(event.data);
    };
    worker.addEventListener('message', onMessage);
    const transfer = [input.sources.buffer, input.targets.buffer, ...(input.order ? [input.order.buffer] : [])];
    worker.postMessage({ requestId, ...input }, transfer as Transferable[]);
  });
}

/**
 * Rank of a node in its layer before the barycenter sweeps: by system, then type (in the order of
 * the legend), then as the API listed them.
 */
function initialOrder(nodes: LineageNode[]): Float64Array {
  const systems = Object.keys(SYSTEM_COLORS);
  const types = Object.keys(NODE_TYPE_COLORS);
  const order = new Float64Array(nodes.length);
  nodes.forEach((node, index) => {
    const system = systems.indexOf(node.system);
    const type = types.indexOf(node.node_type);
    order[index] =
      ((system < 0 ? systems.length : system) * 16 + (type < 0 ? types.length : type)) * nodes.length + index;
  });
  return order;
}

/** The graph view: one sigma renderer in `container`, redrawn by `show`. */
export class GraphView {
  /**
   * The drawn graph; `show` builds a new one and hands it to sigma whole. Its edges are keyed by
   * their index in the scene's edges (short keys: graphology and sigma index every edge by key);
   * `edgeKey` names them in diff marks and paths, which `show` translates.
   */
  graph = GraphView.emptyGraph();
  readonly renderer: Sigma<NodeAttributes, EdgeAttributes>;
  private hovered: string | null = null;
  private neighbors = new Set<string>();
  private marks = new Map<string, DiffMark>();
  private path = new Set<string>();
  /** The diff marks and the path's edges by the graph's edge keys (see `graph`). */
  private edgeMarks = new Map<string, DiffMark>();
  private edgePath = new Set<string>();
  private selected: string | null = null;
  /** The keyboard cursor: the node the arrow keys move from. */
  cursor: string | null = null;
  private generation = 0;
  /** Size of a card in graph units (from the layout) and the swimlanes' boxes. */
  private card = { width: 1, height: 1 };
  private groupBoxes: GroupBox[] = [];
  private readonly groupCanvas: HTMLCanvasElement;
  /** Plain labels sigma asked for in the frame being drawn (viewport pixels), placed by `placeLabels`. */
  private labelCandidates: { key: string; label: string; x: number; y: number; size: number }[] = [];
  private placedLabels: LabelBox[] = [];
  /** Called when the node under the pointer or the cursor changes (null: none). */
  onEmphasis: (nodeId: string | null) => void = () => undefined;
  /** Figures of the last render (undefined before the first). */
  figures: RenderFigures | undefined;
  /** Camera changes shown by moving the drawn layers, and full redraws (`panCache.ts`). */
  readonly panCounts: PanCacheCounts;
  /** The pan cache's margin and hover layers (`panCache.ts`). */
  private readonly panCache: PanCacheControls;

  private static emptyGraph() {
    return new Graph<NodeAttributes, EdgeAttributes>({ type: 'directed', multi: true, allowSelfLoops: true });
  }

  constructor(
    container: HTMLElement,
    private readonly onNodeClick: (nodeId: string) => void,
  ) {
    const panCache = createPanCache(container);
    this.panCounts = panCache.counts;
    this.renderer = new Sigma<NodeAttributes, EdgeAttributes>(this.graph, panCache.stage, {
      defaultNodeType: 'bordered',
      nodeProgramClasses: {
        bordered: createNodeBorderProgram({
          borders: [
            { size: { value: 0.28 }, color: { attribute: 'borderColor' } },
            { size: { fill: true }, color: { attribute: 'color' } },
          ],
        }),
        point: PointProgram,
      },
      // Large graphs use the cheapest programs: square points without a border, one-pixel lines.
      edgeProgramClasses: { thin: EdgeLineProgram },
      defaultEdgeType: 'arrow',
      renderEdgeLabels: false,
      // Labels are cards (cards.ts), drawn when readable whatever the node's dot size.
      labelRenderedSizeThreshold: 0,
      labelDensity: 0.6,
      labelGridCellSize: 160,
      // Below the cards' zoom, a large graph keeps plain labels, a few per cell of sigma's label grid,
      // so that a graph of thousands of nodes is named at a glance; they are placed once the frame
      // has asked for them all, in priority order, never overlapping (`placeLabels`).
      defaultDrawNodeLabel: (context, data) => {
        if (cardScreen.height >= CARD_MIN_HEIGHT_PIXELS) drawCard(context, data as never);
        else if (this.graph.order > CARD_LAYOUT_NODES && !(data as { faded?: boolean }).faded && data.label)
          this.labelCandidates.push({ key: data.key, label: data.label, x: data.x, y: data.y, size: data.size });
      },
      defaultDrawNodeHover: (context, data, settings) => {
        if (cardScreen.height >= CARD_MIN_HEIGHT_PIXELS) drawCard(context, data as never, 'hovered');
        else drawDiscNodeHover(context, data, settings);
      },
      labelFont: 'system-ui, sans-serif',
      labelColor: { color: LABEL_COLOR },
      zIndex: true,
      stagePadding: STAGE_PADDING,
      // Nothing is hidden while moving: a pan moves what is drawn, so edges and labels stay.
      hideEdgesOnMove: false,
      hideLabelsOnMove: false,
      // The page view hides the graph (no size) while a node's page is shown.
      allowInvalidContainer: true,
      minCameraRatio: 0.002,
      maxCameraRatio: 20,
      nodeReducer: (node, data) => this.reduceNode(node, data),
      edgeReducer: (edge, data) => this.reduceEdge(edge, data),
    });
    this.renderer.on('enterNode', ({ node }) => this.hover(node));
    this.renderer.on('leaveNode', () => this.hover(this.cursor));
    this.renderer.on('clickNode', ({ node }) => this.onNodeClick(node));
    // Swimlanes behind the edges, moved with the other layers by the pan cache.
    this.groupCanvas = this.renderer.createCanvas('groups', { beforeLayer: 'edges' });
    Object.assign(this.groupCanvas.style, { position: 'absolute', inset: '0', width: '100%', height: '100%' });
    this.renderer.on('beforeRender', () => {
      this.labelCandidates = [];
      this.measureCards();
    });
    // Sigma processes a new graph after 'beforeRender' (its normalization changes): measure again.
    this.renderer.on('afterProcess', () => this.measureCards());
    this.renderer.on('afterRender', () => {
      this.placeLabels();
      this.drawGroups();
    });
    this.panCache = panCache.attach(this.renderer as unknown as Sigma, {
      skipPicking: (skip) => (skip ? withoutPicking.add(this.renderer) : withoutPicking.delete(this.renderer)),
    });
  }

  /** The card's size on screen at the camera's zoom; above the level of detail, cards hide the hovered dot. */
  private measureCards() {
    // With the camera's state given, sigma computes its matrix afresh (its own is updated after this event).
    const now = { cameraState: this.renderer.getCamera().getState() };
    const origin = this.renderer.graphToViewport({ x: 0, y: 0 }, now);
    const corner = this.renderer.graphToViewport({ x: this.card.width, y: this.card.height }, now);
    cardScreen.width = Math.abs(corner.x - origin.x);
    cardScreen.height = Math.abs(corner.y - origin.y);
    const hoverNodes = this.renderer.getCanvases().hoverNodes;
    if (hoverNodes && cardScreen.height >= CARD_MIN_HEIGHT_PIXELS) hoverNodes.style.display = 'none';
  }

  /**
   * Draws the plain labels sigma asked for in this frame (its label grid's picks, in viewport
   * pixels), so that no two overlap: in priority order (larger dots first, then nodes with more
   * edges, then by id), each label is drawn whole when its box touches none placed before it, else
   * shortened to `SHORT_LABEL_CHARACTERS` and an ellipsis when that fits, else left out.
   */
  private placeLabels() {
    const placed: LabelBox[] = [];
    this.placedLabels = placed;
    if (this.labelCandidates.length === 0) return;
    const context = this.renderer.getCanvases().labels?.getContext('2d');
    if (!context) return;
    const { labelSize, labelFont, labelWeight } = this.renderer.getSettings();
    const degree = (key: string) => (this.graph.hasNode(key) ? this.graph.degree(key) : 0);
    const candidates = this.labelCandidates
      .map((candidate) => ({ ...candidate, degree: degree(candidate.key) }))
      .sort((a, b) => b.size - a.size || b.degree - a.degree || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.labelCandidates = [];
    context.font = `${labelWeight} ${labelSize}px ${labelFont}`;
    context.fillStyle = LABEL_COLOR;
    const overlaps = (box: LabelBox) =>
      placed.some(
        (other) =>
          box.x < other.x + other.width &&
          other.x < box.x + box.width &&
          box.y < other.y + other.height &&
          other.y < box.y + box.height,
      );
    for (const candidate of candidates) {
      const boxOf = (text: string): LabelBox => ({
        text,
        x: candidate.x + candidate.size + 3,
        y: candidate.y - labelSize / 2 - 1,
        width: context.measureText(text).width + LABEL_GAP_PIXELS,
        height: labelSize + 2,
      });
      let box = boxOf(candidate.label);
      if (overlaps(box)) {
        if (candidate.label.length <= SHORT_LABEL_CHARACTERS + 1) continue;
        box = boxOf(`${candidate.label.slice(0, SHORT_LABEL_CHARACTERS)}…`);
        if (overlaps(box)) continue;
      }
      placed.push(box);
      context.fillText(box.text, box.x, candidate.y + labelSize / 3);
    }
  }

  /** The plain labels drawn in the last frame (viewport pixels; none while cards are drawn), for the tests. */
  labelBoxes(): readonly LabelBox[] {
    return this.placedLabels;
  }

  /** Draws the swimlanes (environments, clusters, other systems) behind the graph, with their names. */
  private drawGroups() {
    const canvas = this.groupCanvas;
    const ratio = window.devicePixelRatio || 1;
    const width = canvas.clientWidth;
    const height = canvas.clientHeight;
    if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
      canvas.width = Math.round(width * ratio);
      canvas.height = Math.round(height * ratio);
    }
    const context = canvas.getContext('2d')!;
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, width, height);
    if (this.groupBoxes.length === 0) return;
    const style = getComputedStyle(document.documentElement);
    const fills = [
      style.getPropertyValue('--lane').trim() || '#f3f5f8',
      style.getPropertyValue('--lane-inner').trim() || '#e9eef5',
    ];
    context.font = '600 12px system-ui, sans-serif';
    context.textBaseline = 'top';
    for (const box of this.groupBoxes) {
      const topLeft = this.renderer.graphToViewport({ x: box.x - box.width / 2, y: box.y + box.height / 2 });
      const bottomRight = this.renderer.graphToViewport({ x: box.x + box.width / 2, y: box.y - box.height / 2 });
      context.fillStyle = fills[Math.min(box.depth, 1)]!;
      context.strokeStyle = style.getPropertyValue('--line').trim() || '#d4d8dd';
      context.lineWidth = 1;
      context.beginPath();
      context.roundRect(topLeft.x, topLeft.y, bottomRight.x - topLeft.x, bottomRight.y - topLeft.y, 6);
      context.fill();
      context.stroke();
      if (bottomRight.y - topLeft.y > 18) {
        context.fillStyle = style.getPropertyValue('--muted').trim() || '#5b636e';
        context.fillText(box.label.split(' / ').at(-1)!, Math.max(topLeft.x, 0) + 6, topLeft.y + 4);
      }
    }
  }

  private reduceNode(
    node: string,
    data: NodeAttributes,
  ): Partial<NodeAttributes & { zIndex: number; highlighted: boolean }> {
    if (this.hovered === null && this.selected !== node && this.marks.size === 0 && this.path.size === 0) return data;
    const mark = this.marks.get(node);
    const result: Partial<NodeAttributes & { zIndex: number; highlighted: boolean }> = { ...data };
    if (mark) {
      result.borderColor = DIFF_COLORS[mark];
      result.size = data.size * 1.5;
      result.zIndex = 1;
    }
    if (this.path.size > 0 && !this.path.has(node)) {
      result.color = theme.faded;
      result.borderColor = theme.faded;
      result.faded = true;
    }
    if (this.hovered !== null && node !== this.hovered && !this.neighbors.has(node)) {
      result.color = theme.faded;
      result.borderColor = theme.faded;
      result.faded = true;
      result.zIndex = 0;
    } else if (this.hovered !== null) {
      result.zIndex = 2;
      result.highlighted = node === this.hovered;
    }
    if (node === this.selected) {
      result.highlighted = true;
      result.zIndex = 3;
    }
    return result;
  }

  private reduceEdge(
    edge: string,
    data: EdgeAttributes,
  ): Partial<EdgeAttributes & { hidden: boolean; zIndex: number }> {
    if (this.hovered === null && this.marks.size === 0 && this.path.size === 0) return data;
    const mark = this.edgeMarks.get(edge);
    const result: Partial<EdgeAttributes & { hidden: boolean; zIndex: number }> = { ...data };
    if (mark) {
      result.color = DIFF_COLORS[mark];
      result.size = 2;
      result.zIndex = 1;
    }
    if (this.path.size > 0 && !this.edgePath.has(edge)) result.color = theme.faded;
    if (this.edgePath.has(edge)) {
      result.size = 2.5;
      result.zIndex = 2;
    }
    if (this.hovered !== null) {
      const [source, target] = this.graph.extremities(edge);
      if (source !== this.hovered && target !== this.hovered) result.hidden = true;
      else {
        result.zIndex = 3;
        result.size = (data.size ?? 1) + 1;
      }
    }
    return result;
  }

  private hover(node: string | null) {
    if (node !== this.hovered) this.onEmphasis(node);
    this.hovered = node;
    this.panCache.showHoverLayers(this.hovered !== null || this.selected !== null);
    this.neighbors = node === null ? new Set() : new Set(this.graph.neighbors(node));
    this.renderer.refresh({ skipIndexation: true });
  }

  /** Marks a node as selected (drawn highlighted), or none. */
  select(nodeId: string | null) {
    const selected = nodeId !== null && this.graph.hasNode(nodeId) ? nodeId : null;
    if (selected === this.selected) return;
    this.selected = selected;
    this.panCache.showHoverLayers(this.hovered !== null || this.selected !== null);
    this.renderer.refresh({ skipIndexation: true });
  }

  /**
   * Replaces the drawing with `scene`: lays it out in the worker, fills the graph, fits the camera
   * and resolves with the render figures once the first frame is drawn. A call made while an
   * earlier one is laying out supersedes it (the earlier one resolves with undefined).
   */
  async show(scene: GraphScene): Promise<RenderFigures | undefined> {
    const started = performance.now();
    const generation = ++this.generation;
    // Node indexes per edge, built once: the worker's input (its arrays are handed over, so emptied
    // here) and, below, each edge's ends (source then target, kept in `ends`).
    const nodes = scene.nodes;
    const indexOf = new Map<string, number>();
    for (let index = 0; index < nodes.length; index++) indexOf.set(nodes[index]!.id, index);
    const edges: LineageEdge[] = [];
    const ends: number[] = [];
    for (const edge of scene.edges) {
      const source = indexOf.get(edge.src_id);
      const target = indexOf.get(edge.dst_id);
      if (source === undefined || target === undefined) continue;
      edges.push(edge);
      ends.push(source, target);
    }
    const sources = new Int32Array(edges.length);
    const targets = new Int32Array(edges.length);
    for (let index = 0; index < edges.length; index++) {
      sources[index] = ends[2 * index]!;
      targets[index] = ends[2 * index + 1]!;
    }
    const layout = await layoutInWorker({
      nodeCount: scene.nodes.length,
      sources,
      targets,
      order: initialOrder(scene.nodes),
      ...(scene.nodes.length <= CARD_LAYOUT_NODES ? { groups: scene.nodes.map(groupPath) } : {}),
    });
    const layoutMilliseconds = performance.now() - started;
    performance.mark('lineage:layout-done');
    if (generation !== this.generation) return undefined;
    // A new graph filled offline: sigma would otherwise handle one event per node and edge added.
    const graph = GraphView.emptyGraph();
    this.hovered = null;
    this.cursor = null;
    this.card = { width: layout.cardWidth, height: layout.cardHeight };
    this.groupBoxes = layout.groups;
    this.panCache.showHoverLayers(this.selected !== null);
    this.neighbors = new Set();
    this.marks = scene.marks ?? new Map();
    this.path = scene.path ?? new Set();
    const big = scene.nodes.length > 20_000;
    const small = scene.nodes.length <= 1_000;
    const scale = big ? 0.5 : small ? 1.5 : 1;
    const nodeProgram = nodes.length > LARGE_GRAPH_NODES ? 'point' : 'bordered';
    const edgeProgram = edges.length > LARGE_GRAPH_EDGES ? 'thin' : 'arrow';
    const collapsed = scene.collapsed;
    for (let index = 0; index < nodes.length; index++) {
      const node = nodes[index]!;
      const attributes: NodeAttributes = {
        x: layout.x[index]!,
        y: layout.y[index]!,
        size: Math.max(1.5, nodeSize(node.node_type) * scale),
        label: node.display_name,
        color: NODE_TYPE_COLORS[node.node_type] ?? FALLBACK_COLOR,
        borderColor: SYSTEM_COLORS[node.system] ?? FALLBACK_COLOR,
        nodeType: node.node_type,
        type: nodeProgram,
      };
      const collapsedText = collapsed?.get(node.id);
      if (collapsedText !== undefined) attributes.collapsedText = collapsedText;
      graph.addNode(node.id, attributes);
    }
    performance.mark('lineage:nodes-added');
    // Edge width by throughput (log scale, 1 to 6 pixels) when the metrics have it; the ends are
    // found by index, not by id.
    const throughputs = new Array<number | null>(edges.length);
    let most = 0;
    for (let index = 0; index < edges.length; index++) {
      const value = edgeThroughputBetween(edges[index]!, nodes[ends[2 * index]!], nodes[ends[2 * index + 1]!]);
      throughputs[index] = value;
      if (value !== null && value > most) most = value;
    }
    const logMost = Math.log1p(most);
    this.edgeMarks = new Map();
    this.edgePath = new Set();
    const translate = this.marks.size > 0 || this.path.size > 0;
    // A repeated edge (same ends and type) is drawn once; recognized by its node indexes and a
    // code per edge type, not by its long `edgeKey`.
    const typeCodes = new Map<string, number>();
    const seen = new Set<number>();
    for (let index = 0; index < edges.length; index++) {
      const edge = edges[index]!;
      let typeCode = typeCodes.get(edge.edge_type);
      if (typeCode === undefined) typeCodes.set(edge.edge_type, (typeCode = typeCodes.size));
      const identity = (typeCode * nodes.length + ends[2 * index]!) * nodes.length + ends[2 * index + 1]!;
      if (seen.has(identity)) continue;
      seen.add(identity);
      const key = String(index);
      if (translate) {
        const named = edgeKey(edge);
        const mark = this.marks.get(named);
        if (mark) this.edgeMarks.set(key, mark);
        if (this.path.has(named)) this.edgePath.add(key);
      }
      const throughput = throughputs[index];
      const attributes: EdgeAttributes = {
        size:
          throughput != null && most > 0
            ? 1 + (5 * Math.log1p(throughput)) / logMost
            : edge.edge_type === 'HAS_SCHEMA' || edge.edge_type === 'MEMBER_OF'
              ? 0.6
              : 1,
        color: EDGE_TYPE_COLORS[edge.edge_type] ?? FALLBACK_COLOR,
        edgeType: edge.edge_type,
        type: edgeProgram,
      };
      if (throughput != null) attributes.throughput = throughput;
      if (edge.attributes?.through_consumer_group) attributes.folded = true;
      graph.addDirectedEdgeWithKey(key, edge.src_id, edge.dst_id, attributes);
    }
    performance.mark('lineage:graph-built');
    // Sigma re-indexes its whole graph on every setting change: change settings over an empty
    // graph, then hand over the new graph, which indexes and draws it once.
    this.renderer.setGraph(GraphView.emptyGraph());
    const settings = {
      // Sorting by z-index costs a sort of every node and edge per refresh: only for small graphs.
      zIndex: scene.nodes.length <= LARGE_GRAPH_NODES,
      // Every card of a small graph may be drawn (they never overlap); a large graph's labels go
      // through sigma's label grid, so that a frame never considers every node.
      labelDensity: scene.nodes.length <= LARGE_GRAPH_NODES ? 1_000 : 0.6,
    } as const;
    for (const [name, value] of Object.entries(settings) as [keyof typeof settings, never][]) {
      if (this.renderer.getSetting(name) !== value) this.renderer.setSetting(name, value);
    }
    // A large graph pans by moving what is drawn, over a stage wider than the view (panCache.ts),
    // and sigma fits the graph in the visible part; a small one redraws, and its first frame, on a
    // stage the size of the view, comes sooner.
    const margin = scene.nodes.length > LARGE_GRAPH_NODES || edges.length > LARGE_GRAPH_EDGES ? PAN_MARGIN : 0;
    this.panCache.setMargin(margin);
    if (this.renderer.getSetting('stagePadding') !== margin + STAGE_PADDING)
      this.renderer.setSetting('stagePadding', margin + STAGE_PADDING);
    this.renderer.getCamera().setState({ x: 0.5, y: 0.5, ratio: 1, angle: 0 });
    this.graph = graph;
    this.renderer.setGraph(graph);
    // A small graph opens at a zoom where its cards are readable (its left part, sources first,
    // when the whole graph would only show dots); a large one opens whole (the overview).
    if (scene.nodes.length <= CARD_LAYOUT_NODES && graph.order > 0) {
      this.measureCards();
      const wanted = CARD_MIN_HEIGHT_PIXELS + 12;
      if (cardScreen.height > 0 && cardScreen.height < wanted) {
        const ratio = cardScreen.height / wanted;
        const { width } = this.renderer.getDimensions();
        let leftmost = Infinity;
        graph.forEachNode((_, data) => (leftmost = Math.min(leftmost, data.x)));
        const anchor = this.renderer.viewportToFramedGraph(
          this.renderer.graphToViewport({ x: leftmost - this.card.width * 0.65, y: 0 }),
        );
        const halfView =
          (this.renderer.viewportToFramedGraph({ x: width, y: 0 }).x -
            this.renderer.viewportToFramedGraph({ x: 0, y: 0 }).x) /
          2;
        this.renderer.getCamera().setState({ x: anchor.x + halfView * ratio, y: 0.5, ratio });
      }
    }
    await new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
    this.figures = {
      nodes: this.graph.order,
      edges: this.graph.size,
      renderMilliseconds: performance.now() - started,
      layoutMilliseconds,
    };
    return this.figures;
  }

  /**
   * Moves the keyboard cursor: with no cursor, to the node nearest the view's centre; `right` to
   * the nearest downstream neighbor, `left` upstream, `up` and `down` to the next node above or
   * below in the same column. Emphasizes it like a hover and brings it into view. Answers the
   * cursor (null for an empty graph).
   */
  moveCursor(direction: 'start' | 'left' | 'right' | 'up' | 'down'): string | null {
    const graph = this.graph;
    if (graph.order === 0) return null;
    const at = (id: string) => graph.getNodeAttributes(id);
    let next: string | null = null;
    if (this.cursor === null || !graph.hasNode(this.cursor) || direction === 'start') {
      const camera = this.renderer.getCamera().getState();
      const centre = this.renderer.viewportToGraph(this.renderer.framedGraphToViewport({ x: camera.x, y: camera.y }));
      let best = Infinity;
      graph.forEachNode((id, data) => {
        const distance = (data.x - centre.x) ** 2 + (data.y - centre.y) ** 2;
        if (distance < best) [best, next] = [distance, id];
      });
    } else {
      const here = at(this.cursor);
      const candidates =
        direction === 'right'
          ? graph.outNeighbors(this.cursor)
          : direction === 'left'
            ? graph.inNeighbors(this.cursor)
            : graph.filterNodes(
                (id, data) =>
                  id !== this.cursor &&
                  Math.abs(data.x - here.x) < 1e-6 &&
                  (direction === 'up' ? data.y > here.y : data.y < here.y),
              );
      let best = Infinity;
      for (const id of candidates) {
        const distance = Math.abs(at(id).y - here.y) + Math.abs(at(id).x - here.x) / 1000;
        if (distance < best) [best, next] = [distance, id];
      }
      next ??= this.cursor;
    }
    this.cursor = next;
    this.hover(next);
    if (next) this.bringIntoView(next);
    return next;
  }

  /** Drops the keyboard cursor (when the graph loses the focus). */
  clearCursor() {
    this.cursor = null;
    this.hover(null);
  }

  /** Pans to a node when it lies outside the middle 80 % of the view. */
  private bringIntoView(nodeId: string) {
    const display = this.renderer.getNodeDisplayData(nodeId);
    if (!display) return;
    const point = this.renderer.framedGraphToViewport(display);
    const { width, height } = this.renderer.getDimensions();
    const margin = this.panCacheMargin();
    const inside =
      point.x > margin + width * 0.1 - margin * 1.2 &&
      point.y > height * 0.1 &&
      point.x < width * 0.9 &&
      point.y < height * 0.9;
    if (!inside) void this.renderer.getCamera().animate({ x: display.x, y: display.y }, { duration: 200 });
  }
  private panCacheMargin() {
    return 0;
  }

  /** A node's position in the page (client pixels) and its card's size, or null when not drawn. */
  nodeBox(nodeId: string): { x: number; y: number; width: number; height: number } | null {
    const display = this.graph.hasNode(nodeId) ? this.renderer.getNodeDisplayData(nodeId) : undefined;
    if (!display) return null;
    const point = this.renderer.framedGraphToViewport(display);
    const stage = this.renderer.getContainer().getBoundingClientRect();
    return {
      x: stage.left + point.x,
      y: stage.top + point.y,
      width: cardScreen.width,
      height: cardScreen.height,
    };
  }

  /** The swimlanes drawn behind the graph (environments, clusters, other systems). */
  groups(): readonly GroupBox[] {
    return this.groupBoxes;
  }

  /** Whether the cards are drawn at the current zoom (else dots). */
  cardsShown(): boolean {
    return cardScreen.height >= CARD_MIN_HEIGHT_PIXELS;
  }

  /** Zooms in (factor below 1) or out (above 1) around the center, animated. */
  zoom(factor: number) {
    const camera = this.renderer.getCamera();
    void camera.animate({ ratio: camera.ratio * factor }, { duration: 200 });
  }

  /** Fits the whole graph in the view. */
  fit() {
    void this.renderer.getCamera().animatedReset({ duration: 200 });
  }

  /** Pans by a fraction of the view (e.g. 0.1 to the right). */
  pan(dx: number, dy: number) {
    const camera = this.renderer.getCamera();
    void camera.animate({ x: camera.x + dx * camera.ratio, y: camera.y + dy * camera.ratio }, { duration: 150 });
  }

  /** Centers the camera on a node; in a large graph, zooms in far enough to see it among its neighbors. */
  centerOn(nodeId: string) {
    if (!this.graph.hasNode(nodeId)) return;
    const display = this.renderer.getNodeDisplayData(nodeId);
    if (!display) return;
    const camera = this.renderer.getCamera();
    const ratio = this.graph.order > 1_000 ? Math.min(camera.ratio, 0.1) : camera.ratio;
    void camera.animate({ x: display.x, y: display.y, ratio }, { duration: 300 });
  }
}
