/**
 * Logging: pino, JSON lines on stderr so that stdout stays free for a command's own output.
 * Messages follow `Noun:Verb` (`Extraction:Started`); untrusted payloads go under an `untrusted` key.
 * Secrets are redacted by path (`LOG_REDACT_PATHS`).
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import { LOG_REDACT_PATHS } from './config.js';

export type { Logger };

export interface LoggerOptions {
  /** pino level; default `info`. */
  level?: string;
  /** Where lines go; default stderr. Tests pass a sink to read them. */
  destination?: DestinationStream;
  name?: string;
}

/** Creates the process logger. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      name: options.name ?? 'lineage-svc',
      redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' },
      base: undefined,
    },
    options.destination ?? pino.destination(2),
  );
}

/** A logger that writes nothing (for tests and benchmarks that do not read logs). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
