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
 * The first flag of `argv` given an empty value (`--flag ''` or `--flag=`, as an unset variable in
 * `command: [--env, '${VARIABLE:-}']` gives), or undefined. cmd-ts cannot take an empty value and
 * would say "found a flag", which names neither the flag's value nor the fix.
 */
function flagWithEmptyValue(argv: readonly string[]): string | undefined {
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index]!;
    if (!argument.startsWith('--')) continue;
    if (argument.endsWith('=') && argument.indexOf('=') === argument.length - 1) return argument.slice(0, -1);
    if (!argument.includes('=') && argv[index + 1] === '') return argument;
  }
  return undefined;
}

/**
 * Parses `argv` for `cli`. Returns the parsed arguments, or the exit code after printing help or
 * the version (0) or a one-line error on stderr (2). A flag given an empty value prints
 * `{name}: {flag} is empty: {hint}`, the hint from `emptyValueHints` (by flag) or a general one.
 */
export async function parseArguments<T>(
  cli: Command,
  name: string,
  argv: string[],
  emptyValueHints: Readonly<Record<string, string>> = {},
): Promise<{ args: T } | { exitCode: number }> {
  if (printVersionIfAsked(name, argv)) return { exitCode: 0 };
  const emptyFlag = flagWithEmptyValue(argv);
  if (emptyFlag !== undefined) {
    process.stderr.write(
      `${name}: ${emptyFlag} is empty: ${emptyValueHints[emptyFlag] ?? 'give it a value'} (see --help)\n`,
    );
    return { exitCode: 2 };
  }
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
