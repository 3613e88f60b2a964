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
 * Prints one table row per part and exits 1 when any part has errors or lost writes.
 * `LINEAGE_SVC_SOAK_PARTS` (default `load,kill,disk`) picks the parts.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { topicId } from '../src/graph/ids.js';
import { startApiProcess } from '../test/scaling/helpers.js';

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

async function main(): Promise<number> {
  const rows: Row[] = [];
  const notices: string[] = [];
  const parts = (process.env.LINEAGE_SVC_SOAK_PARTS ?? 'load,kill,disk').split(',');
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

  console.log('\n| part | requests | acknowledged writes | errors | acknowledged writes lost | notes |');
  console.log('|---|---:|---:|---:|---:|---|');
  for (const row of rows)
    console.log(`| ${row.part} | ${row.requests} | ${row.acknowledged} | ${row.errors} | ${row.lost} | ${row.note} |`);
  for (const notice of notices) console.log(notice);
  return rows.every((row) => row.errors === 0 && row.lost === 0) ? 0 : 1;
}

process.exit(await main());
