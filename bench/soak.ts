/**
 * `make soak` (issue 15): the long adversarial runs, against real `lineage-svc-api` processes on
 * 127.0.0.1. Every write the API acknowledges (2xx) is remembered and looked up again at the end;
 * a write acknowledged and then missing is "lost".
 *
 * 1. Load: 50 clients for 60 s (`LINEAGE_SVC_SOAK_SECONDS`) on one sqlite process (the per-client
 *    write rate limit off: the 50 clients share one address), each sending a
 *    mix of node reads (40%), traversals (20%), node upserts (20%) and OpenLineage ingests (20%).
 *    Errors are failed requests and answers other than 2xx (404 for a read of a node not yet written
 *    is not an error).
 * 2. SIGKILL: on the file, sqlite and PostgreSQL stores (PostgreSQL skipped with a notice when none
 *    answers at `LINEAGE_SVC_TEST_POSTGRES_URL`), `LINEAGE_SVC_SOAK_KILLS` (5) rounds of 8 clients
 *    importing graphs (merge) and ingesting OpenLineage events, killed with SIGKILL at a random moment
 *    and restarted; the acknowledged writes of every round are checked after each restart.
 * 3. Full disk: a 2 MiB tmpfs (needs root and a sandbox that allows `mount`; skipped with a notice
 *    otherwise) holding a file store, then a sqlite store, filled by ingests until writes fail. Every failure must be a
 *    503 problem+json; then the tmpfs is enlarged, the API restarted, and every acknowledged write
 *    must be there (no corruption: the store opens and folds).
 *
 * 4. Database outage (issue 23): two API processes on a private PostgreSQL, writers on both, the
 *    server stopped for 5 s and started again (`test/scaling/databaseOutageRun.ts`). Errors are answers
 *    other than 2xx and 503 problem+json with `Retry-After`, a `/ready` that names the database, a
 *    liveness other than 200, a replica not ready again within 30 s, or one whose nodes differ from
 *    the store's; lost are acknowledged nodes missing on either replica. Skipped with a notice when no
 *    private PostgreSQL can be started.
 * 5. Two 30 MB imports at once, one invalid, on sqlite, `/health` sampled every 10 ms meanwhile
 *    (`bench/importStall.ts`). Errors are a failed or non-200 health sample, the valid import not 200,
 *    the invalid one not 400; lost are the valid import's nodes missing afterwards.
 * 6. UI proxy probes (issue 23): `lineage-svc-ui` in front of an API process whose configured key
 *    holds every role (a careless deployment): an anonymous write and an anonymous extraction through
 *    the UI port, a cross-origin POST, a POST without Origin, a foreign Host and a DNS-rebinding Host
 *    with its own Origin. Errors are probes not refused (401 or 403 problem+json) and anything they
 *    stored; a write with the user's own key is the acknowledged one.
 *
 * Prints one table row per part and exits 1 when any part has errors or lost writes.
 * `LINEAGE_SVC_SOAK_PARTS` (default `load,kill,disk,outage,imports,ui`) picks the parts.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { topicId } from '../src/graph/ids.js';
import type { AddressInfo } from 'node:net';
import { buildUiServer } from '../infra/ui/server.js';
import { privatePostgresSkipReason } from '../test/helpers/privatePostgres.js';
import { runDatabaseOutage } from '../test/scaling/databaseOutageRun.js';
import { startApiProcess } from '../test/scaling/helpers.js';
import { ensureUiBuilt, requestWithExactHeaders } from '../test/ui/helpers.js';
import { startApi, stopApi } from './mixedLoad.js';
import { invalidImportBody, measureImportStall, validImportBody } from './importStall.js';

const SECONDS = Number(process.env.LINEAGE_SVC_SOAK_SECONDS ?? 60);
const KILLS = Number(process.env.LINEAGE_SVC_SOAK_KILLS ?? 5);
const POSTGRES_URL = process.env.LINEAGE_SVC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ENV = 'env-soak';
const CLUSTER = 'lkc-soak';

/** One row of the report. */
interface Row {
  part: string;
  requests: number;
  acknowledged: number;
  errors: number;
  lost: number;
  note: string;
}

/** A topic node named `name`. */
function topic(name: string) {
  return {
    id: topicId(ENV, CLUSTER, name),
    node_type: 'TOPIC',
    system: 'STREAM',
    qualified_name: `${CLUSTER}/${name}`,
    display_name: name,
    environment_id: ENV,
    cluster_id: CLUSTER,
    attributes: null,
  };
}

/** An OpenLineage RunEvent of run `runId`, with `padding` characters of documentation. */
function runEvent(runId: string, padding = 0) {
  return {
    eventType: 'COMPLETE',
    eventTime: new Date().toISOString(),
    producer: 'https://example.com/soak',
    schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
    run: { runId },
    job: {
      namespace: 'soak',
      name: `job-${runId.slice(0, 8)}`,
      facets: padding ? { doc: { text: 'x'.repeat(padding) } } : {},
    },
    inputs: [{ namespace: 'kafka://soak:9092', name: 'in' }],
    outputs: [],
  };
}

/** What the clients of a part wrote and saw. */
class Tally {
  requests = 0;
  errors = 0;
  statuses = new Map<number, number>();
  nodes = new Set<string>();
  runs = new Set<string>();
  count(status: number): void {
    this.requests += 1;
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
  }
  get acknowledged(): number {
    return this.nodes.size + this.runs.size;
  }
}

/** Sends a JSON request; answers the status (0 for a failed request). */
async function send(base: string, method: string, path: string, body?: unknown): Promise<number> {
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

/** Creates the graph the parts write to; answers its id. */
async function createGraph(base: string): Promise<string> {
  const response = await fetch(`${base}/api/v1/graphs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: `soak-${randomUUID().slice(0, 8)}` }),
  });
  if (response.status !== 201) throw new Error(`graph not created: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { graph_id: string }).graph_id;
}

/** Counts the acknowledged nodes and runs that `base` no longer has. */
async function countLost(base: string, graph: string, tally: Tally): Promise<number> {
  const checks = [
    ...[...tally.nodes].map((id) => `/api/v1/graphs/${graph}/nodes/${encodeURIComponent(id)}`),
    ...[...tally.runs].map((runId) => `/api/v1/lineage/events?run_id=${runId}`),
  ];
  let lost = 0;
  for (let at = 0; at < checks.length; at += 32) {
    const statuses = await Promise.all(
      checks.slice(at, at + 32).map(async (path) => {
        const response = await fetch(`${base}${path}`);
        if (path.includes('run_id=')) {
          const body = (await response.json()) as { events?: unknown[] };
          return response.status === 200 && (body.events?.length ?? 0) > 0;
        }
        await response.arrayBuffer();
        return response.status === 200;
      }),
    );
    lost += statuses.filter((present) => !present).length;
  }
  return lost;
}

/** One client of the load part: a random mix until `deadline` (ms since the epoch). */
async function loadClient(base: string, graph: string, client: number, deadline: number, tally: Tally): Promise<void> {
  const own: string[] = [];
  for (let n = 0; Date.now() < deadline; n += 1) {
    const roll = Math.random();
    if (roll < 0.2 || own.length === 0) {
      const node = topic(`c${client}-n${n}`);
      const status = await send(base, 'POST', `/api/v1/graphs/${graph}/nodes`, node);
      tally.count(status);
      if (status >= 200 && status < 300) {
        tally.nodes.add(node.id);
        own.push(node.id);
      } else tally.errors += 1;
    } else if (roll < 0.4) {
      const runId = randomUUID();
      const status = await send(base, 'POST', '/api/v1/lineage', runEvent(runId));
      tally.count(status);
      if (status === 200) tally.runs.add(runId);
      else tally.errors += 1;
    } else {
      const id = encodeURIComponent(own[Math.floor(Math.random() * own.length)]!);
      const path =
        roll < 0.8 ? `/api/v1/graphs/${graph}/nodes/${id}` : `/api/v1/graphs/${graph}/query/downstream/${id}?hops=3`;
      const status = await send(base, 'GET', path);
      tally.count(status);
      if (status !== 200) tally.errors += 1;
    }
  }
}

/** Part 1: 50 clients for `SECONDS` on sqlite. */
async function loadPart(): Promise<Row> {
  const folder = mkdtempSync(join(tmpdir(), 'soak-load-'));
  const api = await startApiProcess({ LINEAGE_SVC_STORAGE__BACKEND: 'sqlite', LINEAGE_SVC_STORAGE__PATH: folder });
  try {
    const graph = await createGraph(api.base);
    const tally = new Tally();
    const deadline = Date.now() + SECONDS * 1000;
    await Promise.all(Array.from({ length: 50 }, (_, client) => loadClient(api.base, graph, client, deadline, tally)));
    const lost = await countLost(api.base, graph, tally);
    return {
      part: `load: 50 clients, ${SECONDS} s, sqlite`,
      requests: tally.requests,
      acknowledged: tally.acknowledged,
      errors: tally.errors,
      lost,
      note: `statuses ${JSON.stringify(Object.fromEntries(tally.statuses))}`,
    };
  } finally {
    api.child.kill('SIGTERM');
    await api.exited;
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Writes (imports and ingests) from 8 clients until `stop()` is true; failures while dying are expected. */
async function writeUntilKilled(base: string, graph: string, tally: Tally, stop: () => boolean): Promise<void> {
  await Promise.all(
    Array.from({ length: 8 }, async (_, client) => {
      for (let n = 0; !stop(); n += 1) {
        if (n % 2 === 0) {
          const nodes = [
            topic(`k${client}-${randomUUID().slice(0, 8)}`),
            topic(`k${client}-${randomUUID().slice(0, 8)}`),
          ];
          const status = await send(base, 'POST', `/api/v1/graphs/${graph}/import?mode=merge`, { nodes, edges: [] });
          tally.count(status);
          if (status >= 200 && status < 300) for (const node of nodes) tally.nodes.add(node.id);
        } else {
          const runId = randomUUID();
          const status = await send(base, 'POST', '/api/v1/lineage/events', [runEvent(runId)]);
          tally.count(status);
          if (status === 200) tally.runs.add(runId);
        }
      }
    }),
  );
}

/** Part 2 on one backend: `KILLS` rounds of writes ended by SIGKILL, checked after each restart. */
async function killPart(backend: string, env: Record<string, string>): Promise<Row> {
  const tally = new Tally();
  let graph: string | undefined;
  let lost = 0;
  let unclean = 0;
  for (let round = 0; round <= KILLS; round += 1) {
    const api = await startApiProcess({ LINEAGE_SVC_STORAGE__BACKEND: backend, ...env });
    graph ??= await createGraph(api.base);
    lost = await countLost(api.base, graph, tally); // everything acknowledged before every kill so far
    if (round === KILLS) {
      api.child.kill('SIGTERM');
      if ((await api.exited) !== 0) unclean += 1;
      break;
    }
    let killed = false;
    const writing = writeUntilKilled(api.base, graph, tally, () => killed);
    await new Promise((resolve) => setTimeout(resolve, 500 + Math.random() * 2000));
    api.child.kill('SIGKILL');
    await api.exited;
    killed = true;
    await writing;
  }
  return {
    part: `SIGKILL x${KILLS} during import and ingest, ${backend}`,
    requests: tally.requests,
    acknowledged: tally.acknowledged,
    errors: unclean,
    lost,
    note: `statuses ${JSON.stringify(Object.fromEntries(tally.statuses))} (0 = connection cut by the kill)`,
  };
}

/** A fresh PostgreSQL database; undefined (with a notice) when none answers. */
async function freshPostgres(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const name = `soak_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  } catch (error) {
    console.log(
      `soak: PostgreSQL not available at ${POSTGRES_URL} (${(error as Error).message}); its SIGKILL part is skipped`,
    );
    await admin.end().catch(() => undefined);
    return undefined;
  }
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    },
  };
}

/** Part 3: a `backend` (file or sqlite) store on a 2 MiB tmpfs, filled until writes fail. */
async function fullDiskPart(backend: string): Promise<Row | string> {
  const mountPoint = mkdtempSync(join(tmpdir(), 'soak-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mountPoint], { stdio: 'pipe' });
  } catch (error) {
    rmSync(mountPoint, { recursive: true, force: true });
    return `soak: full-disk part skipped: cannot mount a tmpfs here (${String((error as Error).message).split('\n')[0]})`;
  }
  const folder = join(mountPoint, 'store');
  mkdirSync(folder);
  const env = {
    LINEAGE_SVC_STORAGE__BACKEND: backend,
    LINEAGE_SVC_STORAGE__PATH: folder,
  };
  const tally = new Tally();
  let serverErrors = 0;
  let problems = 0;
  try {
    let api = await startApiProcess(env);
    let failures = 0;
    for (let n = 0; n < 5000 && failures < 20; n += 1) {
      const runId = randomUUID();
      const response = await fetch(`${api.base}/api/v1/lineage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(runEvent(runId, 4000)),
      }).catch(() => undefined);
      const status = response?.status ?? 0;
      const type = response?.headers.get('content-type') ?? '';
      await response?.arrayBuffer();
      tally.count(status);
      if (status === 200) tally.runs.add(runId);
      else {
        failures += 1;
        if (status !== 503) serverErrors += 1;
        else if (!type.startsWith('application/problem+json')) problems += 1;
      }
    }
    api.child.kill('SIGTERM');
    await api.exited;
    execFileSync('mount', ['-o', 'remount,size=64m', mountPoint]);
    api = await startApiProcess(env);
    const graph = await createGraph(api.base); // the store takes writes again
    const lost = await countLost(api.base, graph, tally);
    api.child.kill('SIGTERM');
    await api.exited;
    return {
      part: `full disk: ${backend} on a 2 MiB tmpfs`,
      requests: tally.requests,
      acknowledged: tally.acknowledged,
      errors: serverErrors + problems,
      lost,
      note: `statuses ${JSON.stringify(Object.fromEntries(tally.statuses))}; failures other than 503 problem+json: ${serverErrors + problems}`,
    };
  } finally {
    try {
      execFileSync('umount', ['-l', mountPoint], { stdio: 'ignore' });
      rmSync(mountPoint, { recursive: true, force: true });
    } catch {
      console.log(`soak: could not unmount ${mountPoint}`);
    }
  }
}

/** Part 4: the database outage under two replicas; a notice when no private PostgreSQL can be had. */
async function outagePart(): Promise<Row | string> {
  const skip = privatePostgresSkipReason();
  if (skip) return `soak: database outage part skipped: ${skip}`;
  const report = await runDatabaseOutage({ outageMilliseconds: 5_000, writers: 8 });
  const refusedRight = (status: number, retryAfter: string | null, type: string | undefined) =>
    status === 503 && retryAfter !== null && /^urn:lineage-svc:problem:/.test(type ?? '');
  const wrong = report.writes.filter(
    (write) =>
      write.status !== 200 && write.status !== 201 && !refusedRight(write.status, write.retryAfter, write.type),
  );
  const named = report.notReadyBodies.filter((body) => report.secrets.some((secret) => body.includes(secret)));
  const stored = [...new Set(report.stored)].sort().join('\n');
  const diverged = report.listed.filter((listed) => [...new Set(listed)].sort().join('\n') !== stored).length;
  const sick = report.livenessDuringOutage.filter((status) => status !== 200).length;
  const lost = Math.max(
    ...report.listed.map((listed) => {
      const present = new Set(listed);
      return report.acknowledged.filter((name) => !present.has(name)).length;
    }),
  );
  const refused = report.writes.filter((write) => write.phase === 'outage' && write.status === 503).length;
  return {
    part: 'database outage: PostgreSQL stopped 5 s under 2 API processes, writes in flight',
    requests: report.writes.length,
    acknowledged: report.acknowledged.length,
    errors: wrong.length + named.length + diverged + sick,
    lost,
    note:
      `${refused} writes refused with 503 during the outage; both ready ${report.readyAfterMilliseconds} ms after the ` +
      `database was back (limit 30,000); /ready naming the database: ${named.length}; liveness other than 200: ${sick}; ` +
      `replicas differing from the store: ${diverged}`,
  };
}

/** Part 5: two 30 MB imports at once (one invalid) on sqlite, `/health` sampled meanwhile. */
async function importsPart(): Promise<Row> {
  const valid = validImportBody(30);
  const expected = (JSON.parse(valid.toString('utf8')) as { nodes: Array<{ id: string }> }).nodes.length;
  const folder = mkdtempSync(join(tmpdir(), 'soak-imports-'));
  const child = await startApi({ LINEAGE_SVC_STORAGE__BACKEND: 'sqlite', LINEAGE_SVC_STORAGE__PATH: folder });
  try {
    const result = await measureImportStall(child, { valid, invalid: invalidImportBody(30) }, 10);
    const graphs = (await (await fetch(`${child.base}/api/v1/graphs?limit=100`)).json()) as {
      graphs: Array<{ name: string | null; graph_id: string }>;
    };
    const graph = graphs.graphs.find((entry) => entry.name === 'import-stall-valid')!;
    const listed = (await (await fetch(`${child.base}/api/v1/graphs/${graph.graph_id}/nodes?limit=1`)).json()) as {
      total: number;
    };
    const importErrors = (result.valid_status === 200 ? 0 : 1) + (result.invalid_status === 400 ? 0 : 1);
    return {
      part: 'two 30 MB imports at once (one invalid), sqlite, /health sampled every 10 ms',
      requests: result.health_samples + 2,
      acknowledged: result.valid_status === 200 ? expected : 0,
      errors: result.health_errors + importErrors,
      lost: result.valid_status === 200 ? expected - listed.total : 0,
      note:
        `imports answered ${result.valid_status} and ${result.invalid_status} (${result.invalid_errors_listed} of ` +
        `${result.invalid_errors_total} problems listed); /health p99 ${result.health_p99_ms.toFixed(1)} ms, max ` +
        `${result.health_max_ms.toFixed(1)} ms (targets < 50, < 250); peak RSS ${result.server_peak_rss_mb.toFixed(0)} MiB (< 1,500)`,
    };
  } finally {
    await stopApi(child);
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * A request with exactly these headers (a `Host` of our choosing included); answers status, content
 * type and body, or status 0 when the request fails.
 */
async function rawRequest(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; type: string; text: string }> {
  try {
    const answer = await requestWithExactHeaders(base, method, path, headers, body);
    return { status: answer.status, type: String(answer.headers['content-type'] ?? ''), text: answer.text };
  } catch {
    return { status: 0, type: '', text: '' };
  }
}

/** Part 6: the UI proxy probes, against an API process whose configured key holds every role. */
async function uiPart(): Promise<Row> {
  const uiKey = `soak-ui-key-${randomUUID()}`;
  const userKey = `soak-user-key-${randomUUID()}`;
  const api = await startApiProcess({
    LINEAGE_SVC_STORAGE__BACKEND: 'memory',
    LINEAGE_SVC_API_KEY: uiKey,
    LINEAGE_SVC_API_KEYS: `${userKey}=read+write+operate`,
  });
  ensureUiBuilt();
  const ui = await buildUiServer({ settings: { apiUrl: api.base, apiKey: uiKey } });
  try {
    await ui.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(ui.server.address() as AddressInfo).port}`;
    const host = new URL(base).host;
    const json = { 'content-type': 'application/json' };
    const graph = (name: string) => JSON.stringify({ name });
    const extraction = JSON.stringify({ environment_ids: ['env-q7m2k9'] });
    const probes: Array<[string, string, string, Record<string, string>, string | undefined, number[]]> = [
      ['anonymous write', 'POST', '/api/v1/graphs', { ...json, host, origin: base }, graph('anonymous'), [401]],
      ['anonymous extraction', 'POST', '/api/v1/tasks/extract', { ...json, host, origin: base }, extraction, [401]],
      [
        'cross-origin POST',
        'POST',
        '/api/v1/graphs',
        { ...json, host, origin: 'http://evil.example', 'x-api-key': userKey },
        graph('cross'),
        [403],
      ],
      [
        'POST without Origin',
        'POST',
        '/api/v1/graphs',
        { ...json, host, 'x-api-key': userKey },
        graph('no-origin'),
        [403],
      ],
      ['foreign Host, page', 'GET', '/', { host: 'attacker.example' }, undefined, [403]],
      [
        'foreign Host, API read',
        'GET',
        '/api/v1/graphs',
        { host: `attacker.example:${new URL(base).port}` },
        undefined,
        [403],
      ],
      [
        'DNS-rebinding write',
        'POST',
        '/api/v1/graphs',
        {
          ...json,
          host: `attacker.example:${new URL(base).port}`,
          origin: `http://attacker.example:${new URL(base).port}`,
          'x-api-key': userKey,
        },
        graph('rebound'),
        [403],
      ],
    ];
    const failed: string[] = [];
    for (const [name, method, path, headers, body, expected] of probes) {
      const answer = await rawRequest(base, method, path, headers, body);
      if (!expected.includes(answer.status) || !answer.type.startsWith('application/problem+json'))
        failed.push(`${name}: ${answer.status}`);
    }
    const signedIn = await rawRequest(
      base,
      'POST',
      '/api/v1/graphs',
      { ...json, host, origin: base, 'x-api-key': userKey },
      graph('signed-in'),
    );
    const listed = await rawRequest(base, 'GET', '/api/v1/graphs', { host });
    const names = (JSON.parse(listed.text) as { graphs: Array<{ name: string | null }> }).graphs.map(
      (entry) => entry.name,
    );
    const stored = names.filter((name) => name !== 'signed-in');
    return {
      part: 'UI proxy probes: anonymous write and extraction, cross-origin POST, no Origin, foreign Host, DNS rebinding',
      requests: probes.length + 2,
      acknowledged: signedIn.status === 201 ? 1 : 0,
      errors: failed.length + stored.length + (signedIn.status === 201 ? 0 : 1),
      lost: signedIn.status === 201 && !names.includes('signed-in') ? 1 : 0,
      note:
        `${probes.length - failed.length} of ${probes.length} probes refused with 401/403 problem+json` +
        (failed.length ? ` (not refused: ${failed.join(', ')})` : '') +
        `; graphs stored by probes: ${stored.length}; the user's own key wrote (${signedIn.status})`,
    };
  } finally {
    await ui.close();
    await api.kill();
  }
}

async function main(): Promise<number> {
  const rows: Row[] = [];
  const notices: string[] = [];
  const parts = (process.env.LINEAGE_SVC_SOAK_PARTS ?? 'load,kill,disk,outage,imports,ui').split(',');
  if (parts.includes('load')) rows.push(await loadPart());
  for (const backend of parts.includes('kill') ? ['file', 'sqlite'] : []) {
    const folder = mkdtempSync(join(tmpdir(), `soak-kill-${backend}-`));
    rows.push(await killPart(backend, { LINEAGE_SVC_STORAGE__PATH: folder }));
    rmSync(folder, { recursive: true, force: true });
  }
  const postgres = parts.includes('kill') ? await freshPostgres() : undefined;
  if (postgres) {
    try {
      rows.push(await killPart('postgres', { LINEAGE_SVC_STORAGE__URL: postgres.url }));
    } finally {
      await postgres.drop();
    }
  } else if (parts.includes('kill')) notices.push('PostgreSQL SIGKILL part skipped');
  for (const backend of parts.includes('disk') ? ['file', 'sqlite'] : []) {
    const disk = await fullDiskPart(backend);
    if (typeof disk === 'string') notices.push(disk);
    else rows.push(disk);
  }
  if (parts.includes('outage')) {
    const outage = await outagePart();
    if (typeof outage === 'string') notices.push(outage);
    else rows.push(outage);
  }
  if (parts.includes('imports')) rows.push(await importsPart());
  if (parts.includes('ui')) rows.push(await uiPart());

  console.log('\n| part | requests | acknowledged writes | errors | acknowledged writes lost | notes |');
  console.log('|---|---:|---:|---:|---:|---|');
  for (const row of rows)
    console.log(`| ${row.part} | ${row.requests} | ${row.acknowledged} | ${row.errors} | ${row.lost} | ${row.note} |`);
  for (const notice of notices) console.log(notice);
  return rows.every((row) => row.errors === 0 && row.lost === 0) ? 0 : 1;
}

process.exit(await main());
