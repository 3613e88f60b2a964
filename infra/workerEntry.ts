/**
 * How to start a worker thread on one of our modules, from source or compiled: `workerEntry(url)`
 * gives the `Worker` constructor's first argument and its `eval` option. Compiled (`dist/`, `.js`),
 * the module itself; from source (`.ts`, under tsx: tests, benches, `make serve`), a small script that
 * registers tsx in the worker first, since the loader `node --import tsx` installed does not reach
 * worker threads.
 */
import { extname } from 'node:path';

/** The `Worker` constructor's entry and `eval` option for the module at `url` (a `.ts` or `.js` file URL). */
export function workerEntry(url: URL): { entry: URL | string; eval: boolean } {
  if (extname(url.pathname) !== '.ts') return { entry: url, eval: false };
  const script =
    `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})` +
    `.then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); })` +
    '.catch((error) => { process.nextTick(() => { throw error; }); });';
  return { entry: script, eval: true };
}
