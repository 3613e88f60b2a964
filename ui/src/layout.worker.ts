/**
 * The layout web worker: receives a `LayoutInput` (typed arrays, transferred), answers a
 * `LayoutResult` (typed arrays, transferred) or `{ error }`, so that laying out 100,000 nodes never
 * blocks the page.
 */
import { layoutGraph, type LayoutInput } from './layout';

self.onmessage = (event: MessageEvent<LayoutInput & { requestId: number }>) => {
  const { requestId, ...input } = event.data;
  try {
    const result = layoutGraph(input);
    (self as unknown as Worker).postMessage({ requestId, ...result }, [
      result.x.buffer,
      result.y.buffer,
      result.layer.buffer,
    ]);
  } catch (error) {
    (self as unknown as Worker).postMessage({
      requestId,
      error: error instanceof Error ? error.message : String(error),
    });
  }
};
