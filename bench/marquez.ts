/**
 * Marquez lineage benchmark (issue 25 item 4): `GET /api/v1/lineage?nodeId=dataset:...&depth=N`
 * p50/p99 at depths 2 (Marquez Web's default), 5 and 20 (Marquez's default) on a 100,000-node /
 * 300,000-edge graph, over loopback HTTP against the same server process as `bench/api.ts` (sqlite
 * store, graphs recorded by a process of its own, traversal indexes built), measured by a client in a
 * process of its own (`bench/httpClient.ts`). Target: depth 20 p99 < 15 ms (Marquez: 10-15 s on such
 * shapes, MarquezProject/marquez#3058).
 *
 * Two shapes of the 100k-node graph (`bench/syntheticGraph.ts`, `BigGraphShape` of `bench/api.ts`),
 * each in a server of its own, one after the other:
 * - the synthetic graph of every bench (domains of 200 nodes, 2% of job inputs read across domains):
 *   20 job hops from a topic reach most of the graph (about 18,000 nodes each way);
 * - the sparse cross-domain graph (0.2% across domains): the lineage of a topic stays within a few
 *   domains, as a real estate's lineage from one dataset does.
 *
 * Origins: the topics among `bench/api.ts`'s spread origins that some job reads or writes (100 at
 * most), named by their OpenLineage identity (`openLineageIdentity`). At each depth, a first pass in
 * this process keeps the answers' sizes and times the origins refused (400: a walk over
 * `DEFAULT_MARQUEZ_MAX_LINEAGE_NODES`; the median is a row), which also fills the Marquez lineage index of the
 * server (`services/marquezLineageIndex.ts`); then the client times the answered ones, and the refused
 * ones apart, each origin `MARQUEZ_ROUNDS` times (the steady state until the store moves), and a row
 * gives every request of those together, as a user of the API meets them. Baseline, from the same run
 * and the same origins: our own traversal endpoint (`/graphs/{id}/query/{direction}/{node}`) at 20
 * hops, upstream and downstream, once each.
 * Returns rows; prints nothing (`bench/run.ts` prints).
 * Alone: `node --expose-gc --import tsx bench/marquez.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Node } from '../src/graph/model.js';
import { openLineageIdentity } from '../src/openlineage/fromGraph.js';
import { latencies, recordInChildProcess, startServer, type ApiBenchRow, type BigGraphShape } from './api.js';

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

/** p50 and p99 of `samples` (milliseconds), with the mean answer size `nodes`. */
function percentileRows(label: string, samples: readonly number[], nodes: number | null): ApiBenchRow[] {
  if (samples.length === 0) return [];
  const sorted = [...samples].sort((a, b) => a - b);
  return [50, 99].map((p) => row(`${label} p${p}`, percentile(sorted, p), sorted.length, nodes));
}

/**
 * Rounds of the Marquez requests the client times: each URL asked this many times (the whole list
 * again each round), so that a p99 is not the single slowest of 100 requests.
 */
const MARQUEZ_ROUNDS = 5;

/**
 * The client's milliseconds for GETs of `urls`, each answered `status` (`bench/httpClient.ts`, a
 * process of its own), `rounds` times each, and the mean answer size: `sizes` (answers' `graph`
 * lengths) or the answers' `node_count`.
 */
async function timed(
  urls: string[],
  sizes: number[] | null,
  status = 200,
  rounds = MARQUEZ_ROUNDS,
): Promise<{ samples: number[]; nodes: number | null }> {
  if (urls.length === 0) return { samples: [], nodes: null };
  const measured = await latencies(Array.from({ length: rounds }, () => urls).flat(), 0, status);
  const nodes = sizes
    ? sizes.reduce((sum, size) => sum + size, 0) / Math.max(1, sizes.length)
    : measured.reduce((sum, s) => sum + (s.nodeCount ?? 0), 0) / measured.length;
  return { samples: measured.map((sample) => sample.ms), nodes };
}

/** p50 and p99 of GETs of `urls`, once each (answers' `graph` sizes from `sizes`): the baseline. */
async function rows(label: string, urls: string[], sizes: number[] | null): Promise<ApiBenchRow[]> {
  const { samples, nodes } = await timed(urls, sizes, 200, 1);
  return percentileRows(label, samples, nodes);
}

/**
 * Measures one shape of the 100k-node graph: records the graphs, starts the server, measures at
 * depths 2, 5 and 20 and the baseline, stops it. Row labels start with `label`.
 */
async function benchShape(label: string, shape: BigGraphShape, originCount: number): Promise<ApiBenchRow[]> {
  const folder = mkdtempSync(join(tmpdir(), 'lineage-svc-bench-marquez-'));
  try {
    await recordInChildProcess(folder, shape);
    const server = await startServer(originCount, folder);
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
      for (const depth of [2, 5, 20]) {
        // A first pass: the answers' sizes, and the origins refused (400: over the node limit),
        // counted and timed here (the median), not by the client.
        const urls: string[] = [];
        const sizes: number[] = [];
        const refusedUrls: string[] = [];
        const refusedMs: number[] = [];
        for (const topic of measured) {
          const started = performance.now();
          const answer = await fetch(marquezUrl(topic.nodeId, depth));
          const body = (await answer.json()) as { graph?: unknown[]; detail?: string };
          if (answer.status !== 200) {
            if (answer.status !== 400) throw new Error(`depth ${depth}: ${answer.status} ${body.detail}`);
            refusedMs.push(performance.now() - started);
            refusedUrls.push(marquezUrl(topic.nodeId, depth));
            continue;
          }
          urls.push(marquezUrl(topic.nodeId, depth));
          sizes.push(body.graph?.length ?? 0);
        }
        const refused = `${refusedMs.length} of ${measured.length} refused`;
        const ok = await timed(urls, sizes);
        answered.push(
          ...percentileRows(`${label}: Marquez GET /lineage depth ${depth} (${refused})`, ok.samples, ok.nodes),
        );
        if (refusedMs.length > 0) {
          // The refusals, first pass (the walks that filled the index) and steady state (the client),
          // and every request of the steady state, answered or refused, as a user of the API meets them.
          refusedMs.sort((a, b) => a - b);
          answered.push(
            row(
              `${label}: Marquez GET /lineage depth ${depth}, refused (400: over the node limit), first pass median`,
              percentile(refusedMs, 50),
              refusedMs.length,
              null,
            ),
          );
          const no = await timed(refusedUrls, null, 400);
          answered.push(
            ...percentileRows(`${label}: Marquez GET /lineage depth ${depth}, refused (400), steady`, no.samples, null),
            ...percentileRows(
              `${label}: Marquez GET /lineage depth ${depth}, every request (answered or refused), steady`,
              [...ok.samples, ...no.samples],
              null,
            ),
          );
        }
      }
      const baseline: ApiBenchRow[] = [];
      for (const direction of ['upstream', 'downstream'] as const) {
        const url = (id: string) => `${base}/graphs/${BIG_GRAPH}/query/${direction}/${encodeURIComponent(id)}?hops=20`;
        baseline.push(
          ...(await rows(
            `${label}: baseline: traversal ${direction} 20 hops`,
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

/**
 * Runs the benchmark on both shapes of the 100k-node graph (see the module comment), one after the other.
 * @param options.origins how many origins of `bench/api.ts` to consider (default 600; about a third are topics).
 */
export async function benchMarquez(options: { origins?: number } = {}): Promise<ApiBenchRow[]> {
  const origins = options.origins ?? 600;
  return [
    ...(await benchShape('synthetic graph', 'default', origins)),
    ...(await benchShape('sparse cross-domain graph', 'sparse', origins)),
  ];
}

if (process.argv[1] === import.meta.filename)
  process.stdout.write(`${JSON.stringify(await benchMarquez(), null, 2)}\n`);
