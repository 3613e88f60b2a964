/**
 * Loads `.env` from the current working directory into `process.env` when the module is imported:
 * every command imports it first (`import './environment.js';`), so that its settings are in place
 * before anything reads them.
 *
 * The file is parsed by Node's own `util.parseEnv` (the dotenv format: `NAME=value`, `#` comments,
 * single, double or back quotes, `export ` prefixes). Real environment variables win over the file:
 * a variable already set in the environment, even to an empty value, is left alone. An absent file
 * is fine. A file that exists but cannot be read (a folder, no permission) stops the command with
 * one line on stderr and exit code 2, like any other bad setting.
 */
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { parseEnv } from 'node:util';

/** The file read, relative to the current working directory. */
export const ENV_FILE = '.env';

/** What `loadEnvFile` did: where it looked, whether the file was there, and which variables it set. */
export interface EnvFileResult {
  /** Absolute path of the file. */
  path: string;
  found: boolean;
  /** Names of the variables taken from the file (those not already set in `env`). */
  applied: string[];
}

/**
 * Reads `path` (default `.env` in the current working directory) and sets, in `env` (default
 * `process.env`), each variable of the file that `env` does not already have.
 * @throws Error (a one-line message naming the file) when the file exists but cannot be read.
 */
export function loadEnvFile(
  path: string = ENV_FILE,
  env: Record<string, string | undefined> = process.env,
): EnvFileResult {
  const absolute = resolve(path);
  let text: string;
  try {
    text = readFileSync(absolute, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path: absolute, found: false, applied: [] };
    throw new Error(`cannot read ${absolute}: ${(error as Error).message}`, { cause: error });
  }
  const applied: string[] = [];
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (Object.hasOwn(env, name)) continue;
    env[name] = value;
    applied.push(name);
  }
  return { path: absolute, found: true, applied };
}

try {
  loadEnvFile();
} catch (error) {
  const command = basename(process.argv[1] ?? 'lineage-svc').replace(/\.[cm]?[jt]s$/, '');
  process.stderr.write(`${command}: ${(error as Error).message.replace(/\s+/g, ' ')}\n`);
  process.exit(2);
}
