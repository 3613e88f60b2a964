#!/usr/bin/env node
/**
 * `make serve`: the whole stack on this machine, in one command.
 *
 * 1. starts the platform simulator with the demo scenario (127.0.0.1, a free port) and the demo's
 *    catalog simulators (Databricks, Google, DataZone; `simulators/demoCatalogs.ts`);
 * 2. runs `lineage-svc-extract` over every demo environment (with metrics) into the persistent
 *    store (`LINEAGE_SVC_STORAGE__BACKEND`, default sqlite in `./.lineage-svc`), enriching the
 *    lakehouse and warehouse tables from their catalogs;
 * 3. starts `lineage-svc-api` on 127.0.0.1:`LINEAGE_SVC_API_PORT` (default 8000), pointed at the
 *    simulators so that extractions, watchers and catalog pushes started from the UI work, with
 *    authentication on (`demoKeys`): the user's key holds every role, the UI's key reads only;
 * 4. starts `lineage-svc-ui` on `LINEAGE_SVC_UI_HOST:LINEAGE_SVC_UI_PORT` (default 127.0.0.1:8501)
 *    with the read key, so that it lends no visitor the right to change anything;
 * 5. prints the URL to open: when the user's key was made for this run, it rides in the URL's
 *    fragment (`#api_key=...`, which the browser never sends; the page moves it into the tab's
 *    session storage and off the address bar), so the demo's operations need no typing; the key
 *    is printed too, for another tab's sign-in dialog. Ctrl-C (SIGINT) or SIGTERM stops the UI,
 *    the API and the simulators; exit code 0. A step that fails, or a server that exits by itself,
 *    stops the rest; exit code 1.
 *
 * Before anything starts, the API's and the UI's addresses are checked free: a busy port is one line
 * naming it and its variable, exit code 1, before minutes of extraction rather than after.
 *
 * Each server runs as its own command (a child process), exactly as a user would start it.
 */
import './environment.js'; // first: .env settings before anything reads the environment
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { dirname, extname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadScenario, simulatorClientEnvironment, startPlatformSimulator } from '../simulators/confluent/index.js';
import { startDemoCatalogSimulators } from '../simulators/demoCatalogs.js';

const NAME = 'lineage-svc serve';
const here = dirname(fileURLToPath(import.meta.url));
const extension = extname(fileURLToPath(import.meta.url));
/** A command's entry point, compiled (`dist/commands/x.js`) or from source under tsx (`commands/x.ts`). */
const commandPath = (name: string) => resolve(here, `${name}${extension}`);

/** Waits until `url` answers 2xx, polling every 200 ms for at most `timeoutMs`; throws otherwise. */
export async function waitUntilAnswering(url: string, timeoutMs: number, isAlive: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!isAlive()) throw new Error(`the server behind ${url} exited before answering`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
    await new Promise((wait) => setTimeout(wait, 200));
  }
}

/**
 * Resolves when `host:port` can be listened on (it listens and closes at once); rejects with a
 * one-line error naming the address, the variables that set it and the fix when it cannot, so that
 * a busy port is found before the extraction, not after it.
 */
export async function assertAddressFree(host: string, port: number, variables: string): Promise<void> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'EADDRINUSE' ? 'the port is already in use' : error.message;
      const portVariable = variables.split(', ').at(-1)!;
      reject(
        new Error(`cannot listen on ${host}:${port} (${variables}): ${reason}; set ${portVariable} to a free port`),
      );
    });
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve()));
  });
}

/** The keys of a `make serve` run. */
export interface DemoKeys {
  /** The user's key, every role: `LINEAGE_SVC_API_KEY` when set, else made for this run. */
  userKey: string;
  /** True when `userKey` was made for this run (and may be printed: it is no one's configured secret). */
  userKeyMade: boolean;
  /** The UI server's key, `read` role only, made for this run. */
  uiKey: string;
  /** The API's settings: `LINEAGE_SVC_API_KEY` (the user's) and `LINEAGE_SVC_API_KEYS` (the UI's added to any set). */
  apiEnvironment: { LINEAGE_SVC_API_KEY: string; LINEAGE_SVC_API_KEYS: string };
}

/** A random key: 32 bytes, base64url (no `=` or `,`, so it fits `LINEAGE_SVC_API_KEYS`). */
const newKey = () => randomBytes(32).toString('base64url');

/** The keys of a run, from the environment the user started `make serve` in. */
export function demoKeys(env: Record<string, string | undefined>): DemoKeys {
  const configured = env.LINEAGE_SVC_API_KEY?.trim() || undefined;
  const userKey = configured ?? newKey();
  const uiKey = newKey();
  const otherKeys = env.LINEAGE_SVC_API_KEYS?.trim();
  return {
    userKey,
    userKeyMade: configured === undefined,
    uiKey,
    apiEnvironment: {
      LINEAGE_SVC_API_KEY: userKey,
      LINEAGE_SVC_API_KEYS: otherKeys ? `${otherKeys},${uiKey}=read` : `${uiKey}=read`,
    },
  };
}

async function main(): Promise<number> {
  const children: ChildProcess[] = [];
  let stopping = false;
  const apiPort = process.env.LINEAGE_SVC_API_PORT || '8000';
  const uiHost = process.env.LINEAGE_SVC_UI_HOST || '127.0.0.1';
  const uiPort = process.env.LINEAGE_SVC_UI_PORT || '8501';
  try {
    await assertAddressFree('127.0.0.1', Number(apiPort), 'LINEAGE_SVC_API_PORT');
    await assertAddressFree(uiHost, Number(uiPort), 'LINEAGE_SVC_UI_HOST, LINEAGE_SVC_UI_PORT');
  } catch (error) {
    process.stderr.write(`${NAME}: ${(error as Error).message}\n`);
    return 1;
  }
  const scenario = await loadScenario('demo');
  const simulator = await startPlatformSimulator({ scenario, host: '127.0.0.1', port: 0 });
  const catalogs = await startDemoCatalogSimulators('127.0.0.1');
  const env: Record<string, string | undefined> = {
    ...process.env,
    ...simulatorClientEnvironment(simulator.url, scenario),
    ...catalogs.environment,
    LINEAGE_SVC_STORAGE__BACKEND: process.env.LINEAGE_SVC_STORAGE__BACKEND || 'sqlite',
    LINEAGE_SVC_API_HOST: '127.0.0.1',
    LINEAGE_SVC_API_PORT: apiPort,
    LINEAGE_SVC_API_URL: `http://127.0.0.1:${apiPort}`,
    // The API logs each request at INFO: quieter here unless asked.
    LINEAGE_SVC_LOG_LEVEL: process.env.LINEAGE_SVC_LOG_LEVEL || 'WARNING',
  };
  const keys = demoKeys(process.env);
  const environmentOf: Record<string, Record<string, string | undefined>> = {
    api: { ...env, ...keys.apiEnvironment },
    ui: { ...env, LINEAGE_SVC_API_KEY: keys.uiKey, LINEAGE_SVC_API_KEYS: undefined },
  };
  const run = (name: string, args: string[] = []) => {
    const child = spawn(process.execPath, [...process.execArgv, commandPath(name), ...args], {
      env: environmentOf[name] ?? env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    children.push(child);
    return child;
  };
  const stopAll = async () => {
    stopping = true;
    for (const child of [...children].reverse()) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await new Promise((done) => child.once('exit', done));
      }
    }
    await Promise.all([simulator.close(), catalogs.close()]);
  };
  let finish!: (code: number) => void;
  const finished = new Promise<number>((done) => (finish = done));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      process.stdout.write(`\n${NAME}: stopping the UI, the API and the simulators\n`);
      void stopAll().then(() => finish(0));
    });
  }

  try {
    process.stdout.write(`${NAME}: platform simulator (scenario demo) at ${simulator.url}\n`);
    for (const section of catalogs.sections) process.stdout.write(`${NAME}: ${section.title}\n`);
    const environments = scenario.environments.map((environment) => environment.id);
    process.stdout.write(
      `${NAME}: extracting ${environments.join(', ')} into the ${env.LINEAGE_SVC_STORAGE__BACKEND} store\n`,
    );
    const extract = run('extract', [...environments.flatMap((id) => ['--env', id]), '--metrics']);
    const extractCode = await new Promise<number | null>((done) => extract.once('exit', done));
    if (extractCode !== 0) throw new Error(`lineage-svc-extract exited with code ${extractCode}`);

    const api = run('api');
    await waitUntilAnswering(`${env.LINEAGE_SVC_API_URL}/api/v1/health`, 60_000, () => api.exitCode === null);
    const ui = run('ui');
    const uiUrl = `http://${uiHost === '0.0.0.0' ? '127.0.0.1' : uiHost}:${uiPort}/`;
    await waitUntilAnswering(uiUrl, 30_000, () => ui.exitCode === null);
    for (const [name, child] of [
      ['lineage-svc-api', api],
      ['lineage-svc-ui', ui],
    ] as const) {
      child.once('exit', (code) => {
        if (stopping) return;
        process.stderr.write(`${NAME}: ${name} exited (code ${code}); stopping the rest\n`);
        void stopAll().then(() => finish(1));
      });
    }
    const signIn = keys.userKeyMade
      ? `${NAME}: your API key for this run (every role), which the page above already holds; another tab asks for it: ${keys.userKey}\n`
      : `${NAME}: the operations ask for your API key (LINEAGE_SVC_API_KEY) once per tab\n`;
    const openUrl = keys.userKeyMade ? `${uiUrl}#api_key=${keys.userKey}` : uiUrl;
    process.stdout.write(
      `\n${NAME}: open ${openUrl}  (API at ${env.LINEAGE_SVC_API_URL}; Ctrl-C stops everything)\n${signIn}\n`,
    );
  } catch (error) {
    if (!stopping) {
      process.stderr.write(`${NAME}: ${error instanceof Error ? error.message : String(error)}\n`);
      await stopAll();
      return 1;
    }
  }
  return finished;
}

process.exitCode = await main();
