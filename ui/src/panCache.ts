/**
 * Panning by moving what is already drawn. Sigma redraws every node and edge on every camera
 * change; with software WebGL (SwiftShader, on the CPU) a frame of 20,000 nodes and 30,000 edges
 * then costs about 100 ms, nearly all of it in the GPU process rasterizing points and lines. A pan
 * does not change the picture, only where it sits: so sigma draws a stage larger than the visible
 * view (by `PAN_MARGIN` pixels on each side) and, while the camera only translates by less than
 * that margin, its layers are moved with a CSS transform (the compositor's work, a few milliseconds
 * whatever the graph's size). Nothing is hidden: the frame shown is the last full frame, moved by
 * a whole number of pixels. A full redraw happens when the camera zooms or rotates, when the pan
 * leaves the margin, when anything else asks sigma to render (hover, selection, new graph), and
 * once the camera has been still for `SETTLE_MILLISECONDS` (so that hovering and clicking, which
 * read sigma's picking layer, see the current position).
 *
 * The margin is only worth it for large graphs: a larger stage makes the first frame slower (about
 * 130 ms more on the demo graph, measured in turn with and without it), while a small graph redraws
 * in a few milliseconds. `setMargin` sets it per graph, 0 drawing the visible view only.
 */
import type Sigma from 'sigma';
import type { CameraState } from 'sigma/types';

/**
 * Zooming goes the same way: while the camera's ratio stays within `ZOOM_SPAN` of the drawn one
 * and what is visible was drawn, the layers are scaled (and moved) with a CSS transform; the view is
 * redrawn sharp once the camera rests. A zoom-in shows part of the drawn frame magnified, a zoom-out
 * the frame shrunk, whose hidden margin fills the sides.
 *
 * A scaled frame is a magnified bitmap, so it looks slightly blurred: the camera's animations (the
 * mouse wheel, the zoom buttons, the keyboard) therefore end with a full redraw on their last frame,
 * instead of `SETTLE_MILLISECONDS` later, when the camera no longer moves. Moves that are not
 * animations (a drag, a pinch) still wait for the camera to be still that long.
 */

/** How far the camera's ratio may go from the drawn one (either way) before a redraw: a frame scaled by 2 is still legible. */
export const ZOOM_SPAN = 2;

/** Pixels drawn beyond each side of the visible view for a large graph: a pan within this distance only moves the layers. */
export const PAN_MARGIN = 320;
/** Milliseconds without a camera change after which the view is redrawn in place (exact, picking up to date). */
export const SETTLE_MILLISECONDS = 150;

/** How many camera changes were shown by moving the layers and how many by redrawing (read by the tests and the bench). */
export interface PanCacheCounts {
  moved: number;
  redrawn: number;
  /** Camera changes shown by scaling the drawn layers (zooming). */
  scaled: number;
}

/** What `attach` hands back: the controls of the pan cache over one renderer. */
export interface PanCacheControls {
  /** Shows or leaves out the layers of hovered and highlighted nodes (show them while there are any). */
  showHoverLayers(visible: boolean): void;
  /**
   * Pixels of stage hidden beyond each side of the view (0 or more). Set it, and a sigma
   * `stagePadding` of this much plus the usual padding, before sigma's next render (with no graph
   * drawn, as `GraphView.show` does): the stage takes its size from its container at each render.
   */
  setMargin(margin: number): void;
}

/** Options of `attach`. */
export interface PanCacheOptions {
  /**
   * Called before each full redraw with true when the redraw is a moving camera's (a pan past what
   * was drawn, not at an animation's end) and sigma's picking pass (the hidden frame hovering and
   * clicking read) may be left out of it, false otherwise (a zoom's redraws keep it: a jump of the
   * camera's ratio is often its last change). A redraw without picking is followed by one with it
   * once the camera rests (`SETTLE_MILLISECONDS`).
   */
  skipPicking?: (skip: boolean) => void;
}

/**
 * Puts sigma's stage inside `container` (with no margin until `setMargin`), and answers pure camera
 * translations by moving the drawn layers. Call before creating the renderer with the returned
 * `stage` as its container, then call `attach` with the renderer.
 */
export function createPanCache(container: HTMLElement): {
  stage: HTMLElement;
  counts: PanCacheCounts;
  attach: (renderer: Sigma, options?: PanCacheOptions) => PanCacheControls;
} {
  container.style.overflow = 'hidden';
  const stage = document.createElement('div');
  Object.assign(stage.style, { position: 'absolute', inset: '0' });
  container.append(stage);
  const counts: PanCacheCounts = { moved: 0, redrawn: 0, scaled: 0 };
  const attach = (renderer: Sigma, options: PanCacheOptions = {}) => attachPanCache(renderer, stage, counts, options);
  return { stage, counts, attach };
}

/**
 * Hooks the pan cache into `renderer`. Returns `showHoverLayers`: the layers of hovered and
 * highlighted nodes (sigma's `hovers` and `hoverNodes`) are left out of the page while they are
 * empty, and the edge label layer always (edge labels are never drawn): an empty layer still costs
 * the compositor a pass over the whole view on every frame (measured: 20,000 nodes panned at 25 to
 * 28 frames per second with them, 38 to 47 without, at a load average of 9 to 11).
 */
function attachPanCache(
  renderer: Sigma,
  stage: HTMLElement,
  counts: PanCacheCounts,
  options: PanCacheOptions,
): PanCacheControls {
  const camera = renderer.getCamera();
  let margin = 0;
  const setMargin = (pixels: number) => {
    margin = pixels;
    stage.style.inset = `-${pixels}px`;
  };
  const canvases = renderer.getCanvases();
  if (canvases.edgeLabels) canvases.edgeLabels.style.display = 'none';
  const showHoverLayers = (visible: boolean) => {
    for (const name of ['hovers', 'hoverNodes']) {
      const layer = canvases[name];
      if (layer) layer.style.display = visible ? '' : 'none';
    }
  };
  showHoverLayers(false);
  // Every layer but the mouse layer, which must stay put so that drags are measured against the page.
  const layers = Object.entries(renderer.getCanvases())
    .filter(([name]) => name !== 'mouse')
    .map(([, canvas]) => canvas);
  let drawn: CameraState | null = null;
  let moved = false;
  /** Whether the last camera change came from one of the camera's animations (its first frame excepted). */
  let animating = false;
  let settle: ReturnType<typeof setTimeout> | undefined;
  /** Camera changes so far: a settle redraw is skipped when one came after its timer was set. */
  let changes = 0;
  /**
   * Redraws in place once the camera has been still `SETTLE_MILLISECONDS`, checked on the next
   * animation frame: a frame longer than that (a redraw of a large graph, a loaded machine) lets the
   * timer fire before the change already waiting for that frame, which then cancels it.
   */
  const settleLater = () => {
    clearTimeout(settle);
    const seen = changes;
    settle = setTimeout(
      () =>
        requestAnimationFrame(() => {
          if (changes === seen) renderer.scheduleRender();
        }),
      SETTLE_MILLISECONDS,
    );
  };
  const center = { x: 0.5, y: 0.5 };

  /** Whether the next redraw is a moving camera's (its picking pass may be left out). */
  let movingRedraw = false;
  /** Whether the last redraw left picking out. */
  let pickingLeftOut = false;

  renderer.on('beforeRender', () => {
    drawn = camera.getState();
    counts.redrawn++;
    if (moved) for (const layer of layers) layer.style.transform = '';
    moved = false;
    pickingLeftOut = movingRedraw && margin > 0 && options.skipPicking !== undefined;
    movingRedraw = false;
    options.skipPicking?.(pickingLeftOut);
  });
  renderer.on('afterRender', () => {
    if (!pickingLeftOut) return;
    options.skipPicking?.(false);
    settleLater();
  });
  // Sigma's own handler (the only one so far) schedules a full render on every camera change; this
  // one does so only when needed.
  camera.removeAllListeners('updated');
  camera.on('updated', () => {
    changes++;
    const state = camera.getState();
    // Sigma's camera (3.0) is animated until the change that puts it at the animation's end, which
    // is made with the animation's callback still pending (it is called right after): that change,
    // or the first still one after animated ones, ends the animation.
    const animated = camera.isAnimated();
    const callbackPending = (camera as unknown as { animationCallback?: unknown }).animationCallback !== undefined;
    const ended = !animated && (animating || callbackPending);
    animating = animated;
    if (!drawn || margin === 0 || state.angle !== drawn.angle) {
      renderer.scheduleRender();
      return;
    }
    if (state.ratio === drawn.ratio) {
      const offset = pixelOffset(state);
      if (Math.abs(offset.x) > margin || Math.abs(offset.y) > margin) {
        // The settle timer of an earlier change would fire after the redraw, which takes longer than
        // `SETTLE_MILLISECONDS` on a large graph, and ask for a second one.
        clearTimeout(settle);
        movingRedraw = !ended;
        renderer.scheduleRender();
        return;
      }
      const transform = offset.x === 0 && offset.y === 0 ? '' : `translate(${offset.x}px, ${offset.y}px)`;
      for (const layer of layers) layer.style.transform = transform;
      counts.moved++;
    } else {
      const scale = drawn.ratio / state.ratio;
      const shift = scaleShift(state, scale);
      if (scale > ZOOM_SPAN || scale < 1 / ZOOM_SPAN || !shift) {
        renderer.scheduleRender();
        return;
      }
      for (const layer of layers) {
        layer.style.transformOrigin = '0 0';
        layer.style.transform = `translate(${shift.x}px, ${shift.y}px) scale(${scale})`;
      }
      counts.scaled++;
    }
    moved = true;
    clearTimeout(settle);
    if (ended) renderer.scheduleRender();
    else settleLater();
  });

  return { showHoverLayers, setMargin };

  /**
   * The shift (stage pixels) that, with the drawn frame scaled by `scale` from the stage's corner,
   * puts every point where the camera `state` shows it; null when part of the visible view lies
   * outside what was drawn (a zoom-out past the margin).
   */
  function scaleShift(state: CameraState, scale: number) {
    const now = renderer.framedGraphToViewport(center, { cameraState: state });
    const then = renderer.framedGraphToViewport(center, { cameraState: drawn! });
    const shift = { x: now.x - scale * then.x, y: now.y - scale * then.y };
    const { width, height } = renderer.getDimensions();
    // The visible view is the stage less its margin; in the drawn frame it spans (v - shift) / scale.
    const inside = (low: number, high: number, offset: number, size: number) =>
      (low - offset) / scale >= 0 && (high - offset) / scale <= size;
    return inside(margin, width - margin, shift.x, width) && inside(margin, height - margin, shift.y, height)
      ? shift
      : null;
  }

  /** Whole pixels by which the drawn picture must move to show the graph as seen from `state`. */
  function pixelOffset(state: CameraState) {
    const now = renderer.framedGraphToViewport(center, { cameraState: state });
    const then = renderer.framedGraphToViewport(center, { cameraState: drawn! });
    return { x: Math.round(now.x - then.x), y: Math.round(now.y - then.y) };
  }
}
