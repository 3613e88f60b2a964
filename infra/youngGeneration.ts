/**
 * V8's young generation for batch commands (`lineage-svc-extract`, `lineage-svc-watch`).
 *
 * V8 doubles its young generation (the semi-spaces where new objects live until a scavenge) up to
 * 16 MB each while much survives the scavenges, and keeps it at that size. An extraction allocates
 * its answers in bursts of concurrent requests, so the young generation grows to its largest within
 * the first second and stays there: on issue 16's 2,000-topic estate it was 32 MB of the 150 MB
 * peak resident memory, while the objects alive at any time were about 21 MB. Keeping the
 * semi-spaces at their initial size costs more scavenges, each shorter: measured with
 * `bench/extraction.ts` (five runs each), peak RSS 150-154 MB -> 126-138 MB for 1.9-2.2 s -> 2.2-2.3 s
 * of wall time (docs/benchmarks.md, "Extraction memory").
 *
 * `--semi-space-growth-factor` is read each time V8 considers growing the young generation, so
 * setting it once the process runs takes effect (`v8.setFlagsFromString`); `--max-semi-space-size`
 * is fixed when the heap is set up and cannot be changed this way. Servers do not call this: a
 * larger young generation serves their request throughput better.
 */
import { setFlagsFromString } from 'node:v8';

/** Keeps V8's young generation at its initial size for the rest of the process. Call it once, early. */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
