/**
 * How a command shows an extraction's progress (issue 17, item 1; `docs/extraction.md`, "Progress"):
 * the extraction only reports (`ExtractionProgress` values from `src/extraction/runContext.ts`, and
 * the HTTP client's `onRequest` and `onRetry`); this module renders them on stderr.
 *
 * - `live` (stderr is a terminal): one line redrawn in place by cli-progress: a bar of the steps,
 *   the step, the requests sent so far, and the wait before a retry
 *   (`retrying cmk.clusters in 2 s ...`);
 * - `lines` (stderr is a file or a pipe): one plain line per step (`Phase 1/4: topic inventory ...`)
 *   and per retry wait (`Retrying: ...`);
 * - `off`: nothing (`--quiet`, or `LINEAGE_SVC_LOG_LEVEL` WARNING or ERROR).
 */
import cliProgress from 'cli-progress';
import type { RetryNotice } from '../infra/confluent/httpClient.js';
import type { ProgressListener } from '../services/extraction.js';

/** How progress is shown. */
export type ProgressMode = 'live' | 'lines' | 'off';

/**
 * The mode for a run: `off` with `--quiet`, with a log level above INFO (`warn`, `error`: the pino
 * levels of `Config.logLevel`), or when `logsSteps` (the command's logger already writes each step
 * as a log line: `LINEAGE_SVC_LOG_LEVEL` set to INFO or DEBUG), else `live` when `stream` is a
 * terminal, else `lines`.
 */
export function progressMode(input: {
  quiet: boolean;
  logLevel: string;
  logsSteps?: boolean;
  stream: { isTTY?: boolean | undefined };
}): ProgressMode {
  const above = input.logLevel === 'warn' || input.logLevel === 'error' || input.logLevel === 'silent';
  if (input.quiet || above || input.logsSteps === true) return 'off';
  return input.stream.isTTY === true ? 'live' : 'lines';
}

/** What a command feeds the display with. */
export interface ProgressDisplay {
  /** A step of the extraction or of the enrichment (pass as `onProgress`). */
  readonly step: ProgressListener;
  /** An attempt sent to the platform (pass as the HTTP client's `onRequest`). */
  request(api: string): void;
  /** A wait before the next attempt (pass as the HTTP client's `onRetry`). */
  retry(notice: RetryNotice): void;
  /** Ends the display; a live one leaves its last state on its line. Idempotent. */
  stop(): void;
}

/**
 * The retry wait in words: `retrying cmk.clusters in 2 s (connection refused; attempt 2 of 4 failed;
 * Confluent Cloud API at {url})`.
 */
export function retryText(notice: RetryNotice): string {
  const seconds = notice.delayMs >= 1000 ? `${Math.round(notice.delayMs / 100) / 10} s` : `${notice.delayMs} ms`;
  return (
    `retrying ${notice.api} in ${seconds} (${notice.problem}; attempt ${notice.attempt} of ${notice.attempts} failed; ` +
    `${notice.service} at ${notice.url})`
  );
}

/** A display that shows nothing. */
function silentDisplay(): ProgressDisplay {
  return { step: () => {}, request: () => {}, retry: () => {}, stop: () => {} };
}

/** One line per step and per retry wait. */
function lineDisplay(stream: NodeJS.WritableStream): ProgressDisplay {
  return {
    step: (step) => stream.write(`${step.label}: ${step.message}\n`),
    request: () => {},
    retry: (notice) => stream.write(`Retrying: ${retryText(notice)}\n`),
    stop: () => {},
  };
}

/** The payload of the live line. */
interface LivePayload {
  label: string;
  message: string;
  requests: number;
}

/**
 * One line redrawn in place (cli-progress). `totalSteps` is the number of steps expected (discovery
 * and four or five phases per environment, plus done); steps beyond it keep the bar full.
 */
function liveDisplay(stream: NodeJS.WritableStream, totalSteps: number): ProgressDisplay {
  const bar = new cliProgress.SingleBar(
    {
      stream,
      // No warning count: the catalogs' enrichment warns after the bar stops, and the summary counts them all once.
      format: '{bar} {label} | {requests} requests | {message}',
      barsize: 20,
      hideCursor: false,
      clearOnComplete: false,
      linewrap: false,
      fps: 10,
      noTTYOutput: false,
      gracefulExit: false,
    },
    cliProgress.Presets.shades_classic,
  );
  const payload: LivePayload = { label: 'Starting', message: '', requests: 0 };
  let stepMessage = '';
  /** The API whose retry wait is shown, until its next attempt is sent. */
  let waitingApi: string | undefined;
  let steps = 0;
  let started = false;
  let stopped = false;
  // Drawn from the first report on, so that lines written before the extraction starts stay whole.
  // Steps and retry waits are drawn at once; request counts at the bar's 10 frames a second.
  const redraw = (now: boolean): void => {
    if (stopped) return;
    if (!started) bar.start(totalSteps, 0, payload);
    started = true;
    bar.update(Math.min(steps, totalSteps), payload);
    if (now) bar.render();
  };
  return {
    step(step) {
      steps = step.phase === 6 ? totalSteps : steps + 1;
      payload.label = step.label;
      payload.message = stepMessage = step.message;
      waitingApi = undefined;
      if (step.requests !== undefined) payload.requests = Math.max(payload.requests, step.requests);
      redraw(true);
    },
    request(api) {
      payload.requests += 1;
      if (api === waitingApi) {
        payload.message = stepMessage;
        waitingApi = undefined;
      }
      redraw(false);
    },
    retry(notice) {
      payload.message = retryText(notice);
      waitingApi = notice.api;
      redraw(true);
    },
    stop() {
      if (stopped) return;
      if (started) bar.stop();
      stopped = true;
    },
  };
}

/**
 * The display of one run on `stream` in `mode`.
 * @param totalSteps the steps expected, for the live bar (`expectedSteps`).
 */
export function createProgressDisplay(
  mode: ProgressMode,
  stream: NodeJS.WritableStream,
  totalSteps: number,
): ProgressDisplay {
  if (mode === 'off') return silentDisplay();
  if (mode === 'lines') return lineDisplay(stream);
  return liveDisplay(stream, Math.max(1, totalSteps));
}

/**
 * The steps an extraction reports: per environment, discovery and phases 1-4; then phase 5 with
 * metrics; then done.
 */
export function expectedSteps(environments: number, metrics: boolean): number {
  return environments * 5 + (metrics ? 1 : 0) + 1;
}
