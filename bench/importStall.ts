/**
 * Large imports against a live process (issue 23, item 4): does any request stall the process?
 *
 * One `lineage-svc-api` process on a fresh sqlite store. Two imports of about 30 MB each are sent at
 * the same time (`POST /api/v1/graphs/{id}/import`): a valid graph (the synthetic estate of
 * `syntheticGraph.ts`, 37,000 nodes and 111,000 edges) and an invalid one (about 330,000 nodes, each
 * with an unknown `node_type` and no `qualified_name`: two problems per node). Meanwhile `GET
 * /api/v1/health` is sampled open-loop: one request is scheduled every `intervalMs` whether or not the
 * previous ones were answered, and each latency is counted from its scheduled send time, so a stalled
 * event loop shows as the whole stall (no coordinated omission). Sampling starts before the imports
 * and ends once both are answered.
 *
 * Figures: the health latencies (p50, p99, max, in milliseconds, and how many), each import's status,
 * time and answer size (bytes; the invalid one's `errors` length and the count it reports), and the
 * server's peak resident memory (`VmHWM` of `/proc/{pid}/status`, MiB, Linux only; NaN elsewhere).
 * Targets (issue 23): health p99 < 50 ms and max < 250 ms, both imports answered (200 and 400, no
 * 413), peak RSS < 1.5 GB. Run it alone with `node --import tsx bench/importStall.ts`.
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApi, stopApi, type Child } from './mixedLoad.js';
import { syntheticGraph } from './syntheticGraph.js';

/** What one run measured. */
export interface ImportStallResult {
  /** Health samples answered while the imports ran. */
  health_samples: number;
  /** Health requests that failed or answered something else than 200. */
  health_errors: number;
  /** Milliseconds from each scheduled send to the end of its answer. */
  health_p50_ms: number;
  health_p99_ms: number;
  health_max_ms: number;
  /** Bytes of each import body. */
  valid_body_bytes: number;
  invalid_body_bytes: number;
  valid_status: number;
  invalid_status: number;
  /** Seconds from sending to the end of the answer. */
  valid_seconds: number;
  invalid_seconds: number;
  /** Bytes of the invalid import's answer, the problems it lists and the total it reports. */
  invalid_answer_bytes: number;
  invalid_errors_listed: number;
  invalid_errors_total: number | null;
  /** Peak resident memory of the API process, MiB. */
  server_peak_rss_mb: number;
}

/** Options of `benchImportStall`. */
export interface ImportStallOptions {
  /** Milliseconds between scheduled health requests. Default 10. */
  intervalMs?: number;
  /** Approximate size of each body, in MB (10^6 bytes). Default 30. */
  bodyMegabytes?: number;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** A valid graph body of about `megabytes` MB: the synthetic estate, three edges per node. */
export function validImportBody(megabytes: number): Buffer {
  // The synthetic estate is about 810 bytes per node with its three edges.
  const nodes = Math.round((megabytes * 1e6) / 810);
  return Buffer.from(JSON.stringify(syntheticGraph({ nodes, edges: nodes * 3, seed: 23 })));
}

/** An invalid graph body of about `megabytes` MB: nodes with an unknown type and no qualified name. */
export function invalidImportBody(megabytes: number): Buffer {
  const parts: string[] = [];
  let bytes = 12;
  for (let index = 0; bytes < megabytes * 1e6; index += 1) {
    const part = `{"id":"stream:topic:env-1:lkc-1/t${index}","node_type":"NOPE","system":"STREAM","display_name":"t"}`;
    parts.push(part);
    bytes += part.length + 1;
  }
  return Buffer.from(`{"nodes":[${parts.join(',')}]}`);
}

/** One HTTP request; resolves with the status and the answer's bytes (status 0 when it failed). */
function request(
  agent: http.Agent,
  base: string,
  method: string,
  path: string,
  body?: Buffer,
): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve) => {
    const outgoing = http.request(
      `${base}${path}`,
      {
        method,
        agent,
        headers: body ? { 'content-type': 'application/json', 'content-length': body.length } : {},
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
        response.on('error', () => resolve({ status: 0, body: Buffer.alloc(0) }));
      },
    );
    outgoing.on('error', () => resolve({ status: 0, body: Buffer.alloc(0) }));
    outgoing.end(body);
  });
}

/** Peak resident memory of a process in MiB (`VmHWM`), NaN when /proc cannot tell. */
function peakRssMb(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /VmHWM:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Creates a graph; resolves with its id. @throws Error when the API does not answer 201. */
async function createGraph(agent: http.Agent, base: string, name: string): Promise<string> {
  const answer = await request(agent, base, 'POST', '/api/v1/graphs', Buffer.from(JSON.stringify({ name })));
  if (answer.status !== 201) throw new Error(`creating graph ${name} answered ${answer.status}: ${answer.body}`);
  return (JSON.parse(answer.body.toString('utf8')) as { graph_id: string }).graph_id;
}

/** Runs the two imports against `base` while sampling its health; resolves with the figures. */
export async function measureImportStall(
  child: Child,
  bodies: { valid: Buffer; invalid: Buffer },
  intervalMs: number,
): Promise<ImportStallResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  try {
    const [validGraph, invalidGraph] = await Promise.all([
      createGraph(agent, child.base, 'import-stall-valid'),
      createGraph(agent, child.base, 'import-stall-invalid'),
    ]);
    const latencies: number[] = [];
    let healthErrors = 0;
    const pending = new Set<Promise<void>>();
    let sampling = true;
    const started = performance.now();
    const sampler = (async () => {
      for (let index = 0; sampling; index += 1) {
        const scheduled = started + index * intervalMs;
        const wait = scheduled - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const sample = request(agent, child.base, 'GET', '/api/v1/health').then((answer) => {
          if (answer.status !== 200) healthErrors += 1;
          latencies.push(performance.now() - scheduled);
          pending.delete(sample);
        });
        pending.add(sample);
      }
    })();
    // Let a few samples through before the imports start.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const timed = async (graphId: string, body: Buffer) => {
      const sent = performance.now();
      const answer = await request(agent, child.base, 'POST', `/api/v1/graphs/${graphId}/import?mode=replace`, body);
      return { ...answer, seconds: (performance.now() - sent) / 1000 };
    };
    const [valid, invalid] = await Promise.all([timed(validGraph, bodies.valid), timed(invalidGraph, bodies.invalid)]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    sampling = false;
    await sampler;
    await Promise.all([...pending]);
    latencies.sort((a, b) => a - b);
    let problem: { errors?: unknown[]; error_count?: number } = {};
    try {
      problem = JSON.parse(invalid.body.toString('utf8')) as typeof problem;
    } catch {
      // reported through invalid_errors_listed = 0
    }
    return {
      health_samples: latencies.length,
      health_errors: healthErrors,
      health_p50_ms: percentile(latencies, 50),
      health_p99_ms: percentile(latencies, 99),
      health_max_ms: latencies[latencies.length - 1] ?? Number.NaN,
      valid_body_bytes: bodies.valid.length,
      invalid_body_bytes: bodies.invalid.length,
      valid_status: valid.status,
      invalid_status: invalid.status,
      valid_seconds: valid.seconds,
      invalid_seconds: invalid.seconds,
      invalid_answer_bytes: invalid.body.length,
      invalid_errors_listed: problem.errors?.length ?? 0,
      invalid_errors_total: problem.error_count ?? null,
      server_peak_rss_mb: peakRssMb(child.process.pid),
    };
  } finally {
    agent.destroy();
  }
}

/** Starts an API on a fresh sqlite store, runs `measureImportStall` once, stops it. */
export async function benchImportStall(options: ImportStallOptions = {}): Promise<ImportStallResult> {
  const megabytes = options.bodyMegabytes ?? 30;
  const bodies = { valid: validImportBody(megabytes), invalid: invalidImportBody(megabytes) };
  const folder = mkdtempSync(join(tmpdir(), 'lineage-bench-import-stall-'));
  let child: Child | undefined;
  try {
    child = await startApi({ LINEAGE_SVC_STORAGE__BACKEND: 'sqlite', LINEAGE_SVC_STORAGE__PATH: folder });
    return await measureImportStall(child, bodies, options.intervalMs ?? 10);
  } finally {
    if (child) await stopApi(child);
    rmSync(folder, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) {
  const megabytes = Number(process.env.LINEAGE_SVC_BENCH_IMPORT_MB ?? 30);
  console.log(JSON.stringify(await benchImportStall({ bodyMegabytes: megabytes }), null, 2));
}
