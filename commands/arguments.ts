/**
 * Command-line parsing shared by every command: `--help` prints the flags and exits 0, and
 * `--version` prints `{command} {version}` and exits 0, both before anything runs; bad flags print
 * one line (`{command}: {problem} (see --help)`) and exit 2; no stack trace either way.
 */
import { parse, runSafely } from 'cmd-ts';
import { packageInfo } from '../infra/http/routes/meta.js';

/** A cmd-ts command, as `command({...})` returns it. */
type Command = Parameters<typeof parse>[0] & Parameters<typeof runSafely>[0];

/** Collapses a message to one line (cmd-ts messages may carry newlines and color codes). */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text
    .replace(/\u001b\[[0-9;]*m/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Writes `{name}: {message}` as one line on stderr and returns the exit code to use (default 2). */
export function reportError(
  io: { stderr: { write(text: string): unknown } },
  name: string,
  error: unknown,
  exitCode = 2,
): number {
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`${name}: ${oneLine(message)}\n`);
  return exitCode;
}

/**
 * Answers `--version` (and `-V`): prints `{name} {version}` on stdout and returns true; false when
 * `argv` does not ask for it.
 */
export function printVersionIfAsked(name: string, argv: readonly string[]): boolean {
  if (!argv.includes('--version') && !argv.includes('-V')) return false;
  process.stdout.write(`${name} ${packageInfo().version}\n`);
  return true;
}

/**
 * Parses `argv` for `cli`. Returns the parsed arguments, or the exit code after printing help or
 * the version (0) or a one-line error on stderr (2).
 */
export async function parseArguments<T>(
  cli: Command,
  name: string,
  argv: string[],
): Promise<{ args: T } | { exitCode: number }> {
  if (printVersionIfAsked(name, argv)) return { exitCode: 0 };
  if (argv.includes('--help') || argv.includes('-h')) {
    const result = await runSafely(cli, argv);
    if (result._tag === 'error') {
      const out = result.error.config.into === 'stdout' ? process.stdout : process.stderr;
      out.write(`${result.error.config.message}\n`);
      return { exitCode: result.error.config.exitCode === 0 ? 0 : 2 };
    }
    return { exitCode: 0 };
  }
  const parsed = await parse(cli, argv);
  if (parsed._tag === 'error') {
    const first = parsed.error.errors[0];
    const raw = (first?.nodes ?? []).map((node) => node.raw).join(' ');
    const message = oneLine(first?.message ?? 'invalid arguments');
    process.stderr.write(`${name}: ${message}${raw !== '' && !message.includes(raw) ? `: ${raw}` : ''} (see --help)\n`);
    return { exitCode: 2 };
  }
  return { args: parsed.value as T };
}
