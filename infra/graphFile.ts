/**
 * Reading and writing the graph JSON file (`{"nodes": [...], "edges": [...], "metadata"?: {...}}`).
 * Files are written atomically (a temporary file renamed over the target) with nodes sorted by id and
 * edges by key, so that two extractions of the same estate write byte-identical files.
 */
import { constants, createWriteStream } from 'node:fs';
import { access, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { dirname, basename, join } from 'node:path';
import { StorageError, ValidationError } from '../src/errors.js';
import { edgeKey, type LineageGraph } from '../src/graph/model.js';
import { parseLineageGraph } from '../src/graph/validation.js';
import { exportGraph } from '../src/export/index.js';
import type { GraphFileWriter } from '../services/context.js';

/**
 * Reads and validates a graph file, holding one copy of the graph at a time (issue 16, item 2): the
 * file's text is dropped once parsed, and each node and edge is validated once and put in place of
 * its parsed JSON (`parseLineageGraph` with `inPlace`).
 * @throws StorageError when the file cannot be read; ValidationError (naming the file) when it is
 *   not JSON, not a valid graph, or predates 0.5.0.
 */
export async function readGraphFile(path: string): Promise<LineageGraph> {
  const json = await readJsonFile(path);
  try {
    return parseLineageGraph(json, undefined, { inPlace: true });
  } catch (error) {
    if (error instanceof ValidationError) throw new ValidationError(`${path}: ${error.message}`, error.issues);
    throw error;
  }
}

/**
 * The parsed JSON of a file (its text is garbage once this returns).
 * @throws StorageError when the file cannot be read; ValidationError when it is not JSON.
 */
async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new StorageError(
      `cannot read graph file ${path}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
      { cause: error },
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`graph file ${path} is not JSON: ${(error as Error).message}`);
  }
}

/** The canonical text of a graph: sorted, two-space indented, with a final newline. */
export function serializeLineageGraph(graph: LineageGraph): string {
  const nodes = [...graph.nodes].sort((a, b) => compare(a.id, b.id));
  const edges = [...graph.edges].sort((a, b) => compare(edgeKey(a), edgeKey(b)));
  const output: LineageGraph = graph.metadata ? { nodes, edges, metadata: graph.metadata } : { nodes, edges };
  return `${JSON.stringify(output, null, 2)}\n`;
}

/**
 * Writes a graph file atomically.
 * @throws StorageError when the folder is missing or not writable.
 */
export async function writeGraphFile(path: string, graph: LineageGraph): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    await writeFile(temporary, serializeLineageGraph(graph), 'utf8');
    await rename(temporary, path);
  } catch (error) {
    throw new StorageError(`cannot write graph file ${path}: ${(error as Error).message}`, { cause: error });
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Writes an export (`src/export/`: GraphML, GEXF, DOT, Mermaid or JSON chunks) atomically, chunk by
 * chunk, so that a large graph is never one string in memory.
 * @throws StorageError when the folder is missing or not writable.
 */
export async function writeGraphExport(path: string, chunks: Iterable<string>): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    await pipeline(Readable.from(chunks), createWriteStream(temporary, { encoding: 'utf8' }));
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw new StorageError(`cannot write graph file ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Checks, before any work, that `writeGraphFile(path, ...)` can succeed: `path` is not a folder and
 * its folder exists and is writable (the file is written to a temporary file there, then renamed).
 * @throws StorageError naming the path and what is wrong.
 */
export async function checkGraphFileWritable(path: string): Promise<void> {
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new StorageError(`cannot write graph file ${path}: it is a folder`);
  const folder = dirname(path);
  try {
    await access(folder, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? `the folder ${folder} does not exist` : `the folder ${folder} is not writable`;
    throw new StorageError(`cannot write graph file ${path}: ${why}`, { cause: error });
  }
}

/**
 * The graph file writer of the use cases (`GraphFileWriter`, `services/context.ts`): JSON through
 * `writeGraphFile`, any other format through `exportGraph` and `writeGraphExport`, both atomic.
 * @param graphName the graph's name in the formats that carry one (GraphML, GEXF, DOT, Mermaid).
 */
export function graphFileWriter(graphName: string): GraphFileWriter {
  return {
    write: (path, graph, format) =>
      format === 'json'
        ? writeGraphFile(path, graph)
        : writeGraphExport(path, exportGraph(graph, format, { graphName })),
  };
}
