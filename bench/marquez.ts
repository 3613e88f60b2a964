/**
 * Marquez lineage benchmark (issue 25 item 4): `GET /api/v1/lineage?nodeId=dataset:...&depth=20`
 * p50/p99 on the 100,000-node / 300,000-edge synthetic graph (`bench/syntheticGraph.ts`), over
 * loopback HTTP against the same server process as `bench/api.ts` (sqlite store, graph recorded by a
 * process of its own, traversal indexes built), measured by a client in a process of its own
 * (`bench/httpClient.ts`). Target: p99 < 15 ms (Marquez: 10-15 s on such shapes, MarquezProject/marquez#3058).
 *
 * Origins: the topics among `bench/api.ts`'s spread origins, named by their OpenLineage identity
 * (`openLineageIdentity`). Baseline, from the same run and the same origins: our own traversal
 * endpoint (`/graphs/{id}/query/{direction}/{node}`) at 20 hops, upstream and downstream.
 *
 * Depths 2 (Marquez Web's default) and 5: a first pass over the origins in this process (after the
 * graph was recorded, the extracted jobs' RunEvents are built as the walks reach them,
 * `projections/openLineage/extracted.ts`) keeps the answers' sizes and the origins answered (a walk
 * over `MAX_MARQUEZ_LINEAGE_NODES` is refused with 400 and counted), then the measured pass (the
 * steady state until the graph changes). Depth 20 reaches most of this graph (each topic is read by
 * many jobs): ten origins, timed in this process, most refused with 400 at `MAX_MARQUEZ_LINEAGE_NODES`.
 * Returns rows; prints nothing (`bench/run.ts` prints).
 * Alone: `node --expose-gc --import tsx bench/marquez.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Node } from '../src/graph/model.js';
import { openLineageIdentity } from '../src/openlineage/fromGraph.js';
import { latencies, recordInChildProcess, startServer, type ApiBenchRow } from './api.js';

const BIG_GRAPH = '00000000-0000-4000-8000-00000000a100';

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const row = (measure: string, value: number, samples: number, nodes: number | null): ApiBenchRow => ({
  measure,
  value,
  unit: 'ms',
  samples,
  nodes_per_answer: nodes,
});

/** p50 and p99 of GETs of `urls` (answers' `graph` sizes from `sizes`). */
async function rows(label: string, urls: string[], sizes: number[] | null): Promise<ApiBenchRow[]> {
  const samples = await latencies(urls, 0);
  if (samples.length === 0) return [];
  const sorted = samples.map((sample) => sample.ms).sort((a, b) => a - b);
  const nodes = sizes
    ? sizes.reduce((sum, size) => sum + size, 0) / sizes.length
    : samples.reduce((sum, s) => sum + (s.nodeCount ?? 0), 0) / samples.length;
  return [50, 99].map((p) => row(`${label} p${p}`, percentile(sorted, p), sorted.length, nodes));
}

/**
 * Runs the benchmark: records the graphs, starts the server, measures, stops it.
 * @param options.origins how many origins of `bench/api.ts` to consider (default 600; about a third are topics).
 */
export async function benchMarquez(options: { origins?: number } = {}): Promise<ApiBenchRow[]> {
  const folder = mkdtempSync(join(tmpdir(), 'lineage-svc-bench-marquez-'));
  try {
    await recordInChildProcess(folder);
    const server = await startServer(options.origins ?? 600, folder);
    try {
      const { base, origins } = server.ready;
      const topics: Array<{ id: string; nodeId: string }> = [];
      for (const id of origins) {
        const node = (await (
          await fetch(`${base}/graphs/${BIG_GRAPH}/nodes/${encodeURIComponent(id)}`)
        ).json()) as Node;
        if (node.node_type !== 'TOPIC') continue;
        const identity = openLineageIdentity(node);
        topics.push({
          id,
          nodeId: `dataset:${encodeURIComponent(identity.namespace)}:${encodeURIComponent(identity.name)}`,
        });
      }
      const marquezUrl = (nodeId: string, depth: number) => `${base}/lineage?nodeId=${nodeId}&depth=${depth}`;
      // Topics no job reads or writes are no Marquez dataset (404): kept out, as Marquez would not know them.
      const measured: typeof topics = [];
      for (const topic of topics) {
        if (measured.length === 100) break;
        if ((await fetch(marquezUrl(topic.nodeId, 0))).status === 200) measured.push(topic);
      }
      const answered: ApiBenchRow[] = [];
      for (const depth of [2, 5]) {
        // Origins whose walk at this depth holds more than MAX_MARQUEZ_LINEAGE_NODES are refused (400): counted, not timed.
        const urls: string[] = [];
        const sizes: number[] = [];
        for (const topic of measured) {
          const answer = await fetch(marquezUrl(topic.nodeId, depth));
          const body = (await answer.json()) as { graph?: unknown[]; detail?: string };
          if (answer.status !== 200) {
            if (answer.status !== 400) throw new Error(`depth ${depth}: ${answer.status} ${body.detail}`);
            continue;
          }
          urls.push(marquezUrl(topic.nodeId, depth));
          sizes.push(body.graph?.length ?? 0);
        }
        const refused = measured.length - urls.length;
        answered.push(
          ...(await rows(
            `Marquez GET /lineage depth ${depth} (${refused} of ${measured.length} refused)`,
            urls,
            sizes,
          )),
        );
      }
      // Depth 20 reaches most of this graph: the walk stops at MAX_MARQUEZ_LINEAGE_NODES and answers 400.
      const deep: number[] = [];
      let refused = 0;
      for (const topic of measured.slice(0, 10)) {
        const started = performance.now();
        const answer = await fetch(marquezUrl(topic.nodeId, 20));
        await answer.arrayBuffer();
        deep.push(performance.now() - started);
        if (answer.status === 400) refused += 1;
      }
      deep.sort((a, b) => a - b);
      answered.push(
        row(
          `Marquez GET /lineage depth 20, median (${refused} of ${deep.length} refused: over the node limit)`,
          percentile(deep, 50),
          deep.length,
          null,
        ),
      );
      const baseline: ApiBenchRow[] = [];
      for (const direction of ['upstream', 'downstream'] as const) {
        const url = (id: string) => `${base}/graphs/${BIG_GRAPH}/query/${direction}/${encodeURIComponent(id)}?hops=20`;
        baseline.push(
          ...(await rows(
            `baseline: traversal ${direction} 20 hops`,
            measured.map((topic) => url(topic.id)),
            null,
          )),
        );
      }
      return [...answered, ...baseline];
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename)
  process.stdout.write(`${JSON.stringify(await benchMarquez(), null, 2)}\n`);
