/**
 * How V8's heap grows, set from within the process (`v8.setFlagsFromString`): the two flags here
 * are read each time V8 sizes its heap, so setting them once the process runs takes effect (unlike
 * `--max-semi-space-size` or `--max-old-space-size`, fixed when the heap is set up). Measured in
 * docs/benchmarks.md ("Extraction memory", "Memory and start-up").
 */
import { setFlagsFromString } from 'node:v8';

/**
 * Keeps V8's young generation (the semi-spaces where new objects live until a scavenge) at its
 * initial size for the rest of the process, for batch commands (`lineage-svc-extract`,
 * `lineage-svc-watch`). V8 doubles it up to 16 MB per semi-space while much survives the scavenges
 * and keeps it there; an extraction allocates its answers in bursts of concurrent requests, so it
 * grew to its largest within the first second: 32 MB of the 150 MB peak on issue 16's 2,000-topic
 * estate, while the objects alive were about 21 MB. With it: peak RSS 150-154 -> 126-138 MB, wall
 * time 1.9-2.2 -> 2.2-2.3 s (more scavenges, each shorter; five runs each). The API server does not
 * call it: its request throughput gains from the larger young generation.
 */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}

/**
 * Lets the old generation grow by at most `percent` over what the last full collection kept alive
 * before the next one starts (`--heap-growing-percent`); 0 leaves V8's own factor, which allows up
 * to 4 times and lets a process holding a 200 MB graph reach 500-800 MB of garbage between
 * collections. Applied by the commands that hold the projections (`lineage-svc-api`,
 * `lineage-svc-extract`, `lineage-svc-watch`) from `LINEAGE_SVC_HEAP_GROWTH_PERCENT` (default 50).
 * At 50, on the 100k-node / 300k-edge graph: the start importing it as a graph file peaks at 418
 * instead of 762 MB for 7.6 instead of 6.4 s; an API server with it and a 10k-node graph loaded
 * holds 363 instead of 434 MB, and under 50 connections on `/health` serves 4,747 instead of 4,982
 * requests per second (p99 42 instead of 35 ms). At 25 the memory is a little lower still, but the
 * throughput falls by a third.
 * @param percent an integer from 0 to 1,000.
 */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
