/**
 * The measuring client of the API benchmark, run in a process of its own that loads nothing but
 * `node:http` (and autocannon for throughput): latencies then measure the server and the loopback,
 * not the client's garbage collections. (Run inside the bench process, which has the whole
 * service's modules loaded, the same requests had a p99 three times higher: 15 to 19 ms against 5
 * to 7 ms, with the same server.)
 *
 * Protocol: one JSON job on standard input, `LatencyJob` or `ThroughputJob`; one JSON result on
 * standard output, `LatencyResult` or `ThroughputResult`. Latency requests are sequential, over one
 * kept-alive connection, after `warmup` unmeasured ones.
 */
import http from 'node:http';
import autocannon from 'autocannon';

/** Requests per second to one URL with many connections (autocannon). */
export interface ThroughputJob {
  throughput: { url: string; connections: number; durationSeconds: number };
}

/** Mean requests per second over the run, and the requests it counted. */
export interface ThroughputResult {
  requestsPerSecond: number;
  requests: number;
  non2xx: number;
  errors: number;
}

/** Runs a throughput job. */
export async function runThroughputJob(job: ThroughputJob): Promise<ThroughputResult> {
  const { url, connections, durationSeconds } = job.throughput;
  const result = await autocannon({ url, connections, duration: durationSeconds });
  return {
    requestsPerSecond: result.requests.average,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** What to measure. */
export interface LatencyJob {
  urls: string[];
  /** Requests sent first, from the start of `urls`, and not measured (default 5). */
  warmup?: number;
}

/** One measured request. */
export interface LatencySample {
  /** From sending the request to the last byte of the answer, in milliseconds. */
  ms: number;
  status: number;
  bytes: number;
  /** `node_count` read from the end of the answer, when it has one (traversals). */
  nodeCount: number | null;
}

/** The samples, in the order of `urls`. */
export interface LatencyResult {
  samples: LatencySample[];
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One GET; keeps the last 200 bytes of the answer only, so that the client allocates little. */
function measure(url: string): Promise<LatencySample> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (response) => {
        let bytes = 0;
        let tail = '';
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          tail = (tail + chunk.subarray(-200).toString('latin1')).slice(-200);
        });
        response.on('end', () => {
          const ms = performance.now() - started;
          const nodeCount = /"node_count":(\d+)/.exec(tail);
          resolve({ ms, status: response.statusCode ?? 0, bytes, nodeCount: nodeCount ? Number(nodeCount[1]) : null });
        });
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

/** Runs a job (also usable in-process, for tests). */
export async function runLatencyJob(job: LatencyJob): Promise<LatencyResult> {
  for (const url of job.urls.slice(0, job.warmup ?? 5)) await measure(url);
  const samples: LatencySample[] = [];
  for (const url of job.urls) samples.push(await measure(url));
  return { samples };
}

if (process.argv[1] === import.meta.filename) {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const job = JSON.parse(Buffer.concat(chunks).toString('utf8')) as LatencyJob | ThroughputJob;
  const result = 'throughput' in job ? await runThroughputJob(job) : await runLatencyJob(job);
  agent.destroy();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
