/**
 * The errors of lineage-svc. Each has a stable `code`, and the HTTP `status` it maps to, so that the
 * API's problem+json handler (and the commands' exit codes) translate them in exactly one place.
 *
 * Messages name what was wrong in words a user can act on; they never contain a secret.
 */

/** Base class: every error we raise on purpose is a LineageError. */
export class LineageError extends Error {
  /** Stable machine-readable code, e.g. `NOT_FOUND`. */
  readonly code: string;
  /** HTTP status this error maps to (4xx for the caller's mistakes, 5xx for ours). */
  readonly status: number;

  constructor(message: string, code: string, status: number, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.status = status;
  }
}

/** One problem found in an input, addressed by a path such as `nodes.3.node_type`. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/**
 * The input is malformed or out of range (HTTP 400). `issues` lists each problem found, or the first
 * ones when there were more (`issueCount`, from `options.issueCount`, counts them all).
 */
export class ValidationError extends LineageError {
  readonly issues: ValidationIssue[];
  /** Every problem found: `issues.length`, or more when the list was capped. */
  readonly issueCount: number;

  constructor(message: string, issues: ValidationIssue[] = [], options?: ErrorOptions & { issueCount?: number }) {
    super(message, 'VALIDATION_FAILED', 400, options);
    this.issues = issues;
    this.issueCount = Math.max(options?.issueCount ?? 0, issues.length);
  }
}

/** A graph, node, dataset, job, run, task, watcher or stream that does not exist (HTTP 404). */
export class NotFoundError extends LineageError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, 'NOT_FOUND', 404, options);
  }
}

/** A request that would break a uniqueness rule, such as a second graph with a name in use (HTTP 409). */
export class ConflictError extends LineageError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, 'CONFLICT', 409, options);
  }
}

/**
 * An append whose expected stream revision did not match the stream's actual revision (HTTP 409):
 * someone else wrote first. Read again and retry the decision.
 */
export class ExpectedRevisionConflictError extends LineageError {
  readonly stream: string;
  readonly expected: string;
  readonly actual: number;

  constructor(stream: string, expected: string, actual: number) {
    super(
      `stream "${stream}" is at revision ${actual === -1 ? '(no stream)' : actual}, expected ${expected}`,
      'EXPECTED_REVISION_CONFLICT',
      409,
    );
    this.stream = stream;
    this.expected = expected;
    this.actual = actual;
  }
}

/** Configuration that cannot be used (a command exits 2 with this one-line message). */
export class ConfigurationError extends LineageError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, 'CONFIGURATION_INVALID', 500, options);
  }
}

/** The event store cannot be opened, read or written (a broken file, a database that is down). */
export class StorageError extends LineageError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, 'STORAGE_FAILED', 503, options);
  }
}

/** Why the platform could not answer a read made on a caller's behalf (`PlatformUnavailableError`). */
export type PlatformUnavailableReason =
  /** The service has no cloud API key and secret (HTTP 503). */
  | 'not_configured'
  /** No answer: the connection failed, timed out, or retried statuses persisted through every attempt (HTTP 503). */
  | 'unreachable'
  /** The platform answered with an error status (401, 403, ...) or a body that does not parse (HTTP 502). */
  | 'failed';

/**
 * The platform (Confluent Cloud) could not answer a read the API makes for a caller, such as the list
 * of environments: 503 (`PLATFORM_NOT_CONFIGURED`, `PLATFORM_UNREACHABLE`) when the service has no
 * credentials or gets no answer, 502 (`PLATFORM_FAILED`) when the platform answered with an error.
 * The message says what to change and never contains a credential.
 */
export class PlatformUnavailableError extends LineageError {
  constructor(
    message: string,
    readonly reason: PlatformUnavailableReason,
    options?: ErrorOptions,
  ) {
    super(
      message,
      reason === 'not_configured'
        ? 'PLATFORM_NOT_CONFIGURED'
        : reason === 'unreachable'
          ? 'PLATFORM_UNREACHABLE'
          : 'PLATFORM_FAILED',
      reason === 'failed' ? 502 : 503,
      options,
    );
  }
}

/** True for any error raised on purpose by lineage-svc. */
export function isLineageError(error: unknown): error is LineageError {
  return error instanceof LineageError;
}

/** The message of anything thrown, for one-line reports. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
