/**
 * A private PostgreSQL server for tests that stop and start the database (issue 23, item 3): its own
 * data folder in a temporary folder, on a free port of 127.0.0.1, with trust authentication, so that
 * taking it down never touches the machine's shared server. Built from the binaries of the
 * installed PostgreSQL (`/usr/lib/postgresql/{version}/bin`: `initdb`, `pg_ctl`); PostgreSQL refuses
 * to run as root, so when the tests run as root the binaries run as the `postgres` user through
 * `runuser`, with the folder handed to that user.
 *
 * `privatePostgresSkipReason` says why it cannot be had here (no binaries, no `postgres` user), so
 * that the tests that need it are skipped with a printed notice instead of failing.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

/** Where the PostgreSQL packages put their binaries, one folder per major version. */
const INSTALL_ROOT = '/usr/lib/postgresql';

/** The binary folder of the newest installed PostgreSQL, or undefined. */
function binaries(): string | undefined {
  if (!existsSync(INSTALL_ROOT)) return undefined;
  const versions = readdirSync(INSTALL_ROOT)
    .filter((name) => existsSync(join(INSTALL_ROOT, name, 'bin', 'pg_ctl')))
    .sort((first, second) => Number(second) - Number(first));
  return versions[0] === undefined ? undefined : join(INSTALL_ROOT, versions[0], 'bin');
}

/** The uid and gid of the `postgres` user (from /etc/passwd), or undefined. */
function postgresUser(): { uid: number; gid: number } | undefined {
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('postgres:'));
    const fields = line?.split(':');
    return fields ? { uid: Number(fields[2]), gid: Number(fields[3]) } : undefined;
  } catch {
    return undefined;
  }
}

const asRoot = userInfo().uid === 0;

/** Why a private PostgreSQL cannot be started here, or false when it can. */
export function privatePostgresSkipReason(): string | false {
  if (binaries() === undefined) return `no PostgreSQL binaries under ${INSTALL_ROOT}/*/bin`;
  if (asRoot && postgresUser() === undefined)
    return 'running as root, and there is no postgres user to run PostgreSQL as';
  if (asRoot && !existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser'))
    return 'running as root, and runuser is missing';
  return false;
}

/** A running private PostgreSQL. */
export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:{port}/postgres`. */
  url: string;
  port: number;
  /** Stops the server (`pg_ctl stop -m fast`: connections are cut at once) and waits until it is down. */
  stop(): void;
  /** Starts it again on the same port and data, and waits until it accepts connections. */
  start(): void;
  /** Stops it (immediately) if running and removes its folder. */
  remove(): void;
}

/**
 * Creates a data folder (`initdb`, trust authentication, no fsync: a test database) and starts the
 * server on a free port of 127.0.0.1.
 * @throws Error when a binary fails (with its output); call `privatePostgresSkipReason` first.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binaries();
  if (bin === undefined) throw new Error(`no PostgreSQL binaries under ${INSTALL_ROOT}`);
  const folder = mkdtempSync(join(tmpdir(), 'lineage-private-postgres-'));
  const data = join(folder, 'data');
  if (asRoot) {
    const owner = postgresUser()!;
    chownSync(folder, owner.uid, owner.gid);
  }
  const run = (binary: string, args: string[]): void => {
    const command = asRoot ? 'runuser' : join(bin, binary);
    const commandArgs = asRoot ? ['-u', 'postgres', '--', join(bin, binary), ...args] : args;
    execFileSync(command, commandArgs, { stdio: 'pipe', cwd: folder });
  };
  const port = await freePort();
  const options = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  const server = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop: () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']),
    start: () =>
      run('pg_ctl', ['-D', data, '-o', options, '-l', join(folder, 'server.log'), '-w', '-t', '60', 'start']),
    remove() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // already stopped
      }
      rmSync(folder, { recursive: true, force: true });
    },
  };
  try {
    run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
    server.start();
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    const output = (error as { stderr?: Buffer }).stderr?.toString('utf8') ?? '';
    throw new Error(`cannot start a private PostgreSQL: ${(error as Error).message}\n${output}`, { cause: error });
  }
  return server;
}
