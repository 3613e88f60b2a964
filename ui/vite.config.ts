/**
 * Vite builds the web UI from `ui/` into `dist/ui/` (served by `lineage-svc-ui`). Every asset is
 * bundled: no CDN, no web font. The layout runs in a module web worker, inlined into the page's bundle (`graphView.ts`).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 1024,
  },
  worker: { format: 'es' },
});
