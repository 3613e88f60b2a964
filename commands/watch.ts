#!/usr/bin/env node
/**
 * `lineage-svc-watch`: polls Confluent Cloud for lineage-relevant changes and re-extracts after a
 * quiet period (`docs/specification.md`, "Command-line tools" and "States and transitions" ->
 * "Watcher"; `docs/watcher.md`).
 *
 * Flags: `--env ENV_ID` (required, repeatable), `--cluster CLUSTER_ID` (repeatable; default every
 * cluster), `--cooldown SECONDS` (float, default 30.0), `--poll-interval SECONDS` (float, default
 * 10.0), `--push-lakehouse`, `--push-datalake`, `--push-warehouse`, `--push-data-governance`, and
 * `--output PATH` (default `./lineage_graph.json`), `--heartbeat-file PATH` (touched after each poll,
 * whether it succeeded or not, for a container's liveness probe).
 * Configuration: `LINEAGE_SVC_*` variables (`src/config.ts`); the cloud key is required.
 *
 * It extracts once at start, then after each cooldown; every extraction is recorded in the event
 * store (actor `watcher:{id}`) and written to the output file. State transitions, detected changes
 * and extractions are printed one line each on stdout; warnings on stderr. It runs until SIGINT or
 * SIGTERM, records the STOPPED state, and exits 0. Bad flags or configuration: one line on stderr,
 * exit 2. An environment the platform does not know (`GET /org/v2/environments/{id}` answers 404 or
 * 403 at start): one line on stderr, exit 3, so that a wrong `--env` stops the watcher instead of
 * polling nothing.
 */
import './environment.js'; // first: .env settings before anything reads the environment
import { keepYoungGenerationSmall, limitHeapGrowth } from '../infra/v8Heap.js';
import { randomUUID } from 'node:crypto';
import { array, command, flag, multioption, option, optional, string, type Type } from 'cmd-ts';
import { parseArguments } from './arguments.js';
import { openRuntime, type LineageRuntime } from '../infra/runtime.js';
import { createServiceContext } from '../infra/serviceContext.js';
import { catalogPushers, type CatalogPush } from '../services/push.js';
import { hostname } from 'node:os';
import { createProcessLease, newProcessIdentity, type ProcessLease } from '../services/ownership.js';
import type { ServiceContext } from '../services/context.js';
import { checkWatchedEnvironments, UnknownEnvironmentError, watcherEngineDeps } from '../services/watcherEngine.js';
import { closeSync, openSync, utimesSync } from 'node:fs';
import { loadConfig, type Config } from '../src/config.js';
import { ConfigurationError } from '../src/errors.js';
import { streams, toAppend } from '../src/events.js';
import { createWatcher, type WatcherEngine, type WatcherSettings } from '../src/watcher/watcher.js';
import { oneLine, reportError } from './arguments.js';
import { commandLogger, storeLine, type CommandIo } from './shared.js';

const NAME = 'lineage-svc-watch';

/** A number of seconds: finite, at least `min`, at most one day. */
function seconds(flagName: string, min: number): Type<string, number> {
  return {
    displayName: 'seconds',
    async from(text: string): Promise<number> {
      const value = Number(text);
      if (text.trim() === '' || !Number.isFinite(value) || value < min || value > 86_400) {
        throw new Error(`${flagName} must be a number of seconds from ${min} to 86400, got "${text}"`);
      }
      return value;
    },
  };
}

/** The command-line interface (cmd-ts); the handler returns the parsed flags. */
export const watchCli = command({
  name: NAME,
  description:
    'Poll Confluent Cloud for lineage-relevant changes and re-extract after a quiet period. Runs until interrupted (exit 0).',
  args: {
    env: multioption({
      long: 'env',
      type: array(string),
      description: 'environment to monitor (env-...); required, repeatable',
    }),
    cluster: multioption({
      long: 'cluster',
      type: array(string),
      description: 'cluster filter (lkc-...); repeatable; default every cluster',
    }),
    cooldown: option({
      long: 'cooldown',
      type: seconds('--cooldown', 0),
      defaultValue: () => 30.0,
      defaultValueIsSerializable: true,
      description: 'quiet time in seconds after the last change before extraction',
    }),
    pollInterval: option({
      long: 'poll-interval',
      type: seconds('--poll-interval', 0.1),
      defaultValue: () => 10.0,
      defaultValueIsSerializable: true,
      description: 'seconds between REST polls',
    }),
    pushLakehouse: flag({ long: 'push-lakehouse', description: 'push to the lakehouse catalog after each extraction' }),
    pushDatalake: flag({ long: 'push-datalake', description: 'push to the data-lake catalog after each extraction' }),
    pushWarehouse: flag({ long: 'push-warehouse', description: 'push to the warehouse catalog after each extraction' }),
    pushDataGovernance: flag({
      long: 'push-data-governance',
      description: 'push to the data governance catalog after each extraction',
    }),
    output: option({
      long: 'output',
      type: string,
      defaultValue: () => './lineage_graph.json',
      defaultValueIsSerializable: true,
      description: 'graph file written after each extraction',
    }),
    heartbeatFile: option({
      long: 'heartbeat-file',
      type: optional(string),
      description: 'file touched after each poll, for a liveness probe that checks its age (default none)',
    }),
  },
  handler: (args) => args,
});

/** The parsed flags. */
export interface WatchArgs {
  env: string[];
  cluster: string[];
  /** Seconds. */
  cooldown: number;
  /** Seconds. */
  pollInterval: number;
  pushLakehouse: boolean;
  pushDatalake: boolean;
  pushWarehouse?: boolean | undefined;
  pushDataGovernance?: boolean | undefined;
  output: string;
  /** `--heartbeat-file`: touched after each poll. */
  heartbeatFile?: string | undefined;
}

/** The exit code of a watched environment that the platform does not know. */
export const UNKNOWN_ENVIRONMENT_EXIT_CODE = 3;

/** Sets the modification time of `path` to now, creating it empty when missing. */
function touch(path: string): void {
  const now = new Date();
  try {
    utimesSync(path, now, now);
  } catch {
    closeSync(openSync(path, 'a'));
  }
}

/**
 * The catalog types to push to, or the error that stops the command: a push flag needs its
 * catalog's configuration and a push implementation.
 */
export function pushTargets(
  args: Pick<WatchArgs, 'pushLakehouse' | 'pushDatalake' | 'pushWarehouse' | 'pushDataGovernance'>,
  config: Config,
  pushers: Readonly<Record<string, CatalogPush>>,
): string[] | Error {
  const targets: string[] = [];
  const wanted: Array<[boolean, string, string, boolean, string]> = [
    [
      args.pushLakehouse,
      '--push-lakehouse',
      'LAKEHOUSE_CATALOG',
      Boolean(config.lakehouse.workspaceUrl && config.lakehouse.token),
      'LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL and LINEAGE_SVC_LAKEHOUSE_TOKEN',
    ],
    [
      args.pushDatalake,
      '--push-datalake',
      'DATALAKE_CATALOG',
      Boolean(config.datalake.region),
      'LINEAGE_SVC_DATALAKE_REGION',
    ],
    [
      args.pushWarehouse === true,
      '--push-warehouse',
      'WAREHOUSE_LINEAGE',
      Boolean(config.warehouse.projectId && config.warehouse.location),
      'LINEAGE_SVC_WAREHOUSE_PROJECT_ID and LINEAGE_SVC_WAREHOUSE_LOCATION',
    ],
    [
      args.pushDataGovernance === true,
      '--push-data-governance',
      'DATA_GOVERNANCE',
      Boolean(config.dataGovernance.domainId && config.dataGovernance.projectId),
      'LINEAGE_SVC_DATA_GOVERNANCE_DOMAIN_ID and LINEAGE_SVC_DATA_GOVERNANCE_PROJECT_ID',
    ],
  ];
  for (const [asked, flagName, catalogType, configured, settings] of wanted) {
    if (!asked) continue;
    if (!configured) return new ConfigurationError(`${flagName} needs ${settings}`);
    if (!pushers[catalogType])
      return new ConfigurationError(`${flagName}: pushing to the ${catalogType} is not available in this release`);
    targets.push(catalogType);
  }
  return targets;
}

/** What to do about an empty `--env` (Compose passes the unset variable as an empty value). */
const EMPTY_ENVIRONMENT_HINT = 'name an environment (env-...); in Compose, set LINEAGE_SVC_WATCH_ENVIRONMENT';

/** The reason the flags or configuration cannot start a watcher, or null when they can. */
function watchPreconditionError(args: WatchArgs, config: Config): Error | null {
  if (args.env.length === 0) return new Error('--env is required (repeat it for several environments)');
  if (args.env.some((environmentId) => environmentId.trim() === '')) {
    return new Error(`--env is empty: ${EMPTY_ENVIRONMENT_HINT}`);
  }
  if (!config.stream.credentials.cloud) {
    return new ConfigurationError(
      'LINEAGE_SVC_STREAM_CLOUD_API_KEY and LINEAGE_SVC_STREAM_CLOUD_API_SECRET are required',
    );
  }
  return null;
}

/**
 * This process's lease (services/ownership.ts): the watcher is its own, so API processes on the same
 * store leave it alone while it runs, and interrupt it (or resume it) once the lease expires.
 */
function watchProcessLease(
  runtime: LineageRuntime,
  config: Config,
  logger: ReturnType<typeof commandLogger>,
  io: CommandIo,
): ProcessLease {
  return createProcessLease({
    store: runtime.store,
    processes: runtime.processes,
    projector: runtime.projector,
    logger,
    identity: newProcessIdentity('watch', hostname(), process.pid),
    leaseSeconds: config.processes.leaseSeconds,
    onLost: () => io.stderr.write(`${NAME}: this process lost its lease; another process takes the watcher over\n`),
  });
}

/** What the watcher engine is built from. */
interface WatchEngineParts {
  args: WatchArgs;
  context: ServiceContext;
  runtime: LineageRuntime;
  pushers: Record<string, CatalogPush>;
  settings: WatcherSettings;
  watcherId: string;
  ownerProcessId: string;
  io: CommandIo;
}

/** The watcher engine: it records its events in the store, writes each graph to the output file and logs to `io`. */
function createWatchEngine(parts: WatchEngineParts): WatcherEngine {
  const { args, context, runtime, pushers, settings, watcherId, ownerProcessId, io } = parts;
  const time = () => new Date().toISOString();
  const deps = watcherEngineDeps(context, { watcherId, settings, pushers, output: args.output });
  const heartbeat = args.heartbeatFile;
  return createWatcher({
    watcherId,
    settings,
    ownerProcessId,
    ...deps,
    poll: heartbeat
      ? async () => {
          try {
            return await deps.poll();
          } finally {
            touch(heartbeat);
          }
        }
      : deps.poll,
    record: async (events) => {
      await runtime.store.append(
        streams.watcher(watcherId),
        toAppend(events, { correlation_id: watcherId, cause: 'watcher', actor: `watcher:${watcherId}` }),
      );
    },
    onLog: (entry) => (entry.level === 'warn' ? io.stderr : io.stdout).write(`${time()} ${oneLine(entry.message)}\n`),
  });
}

/** Prints what is watched, runs `engine` until `stopSignal` resolves and stops it; resolves with the exit code. */
async function watchUntilStopped(
  engine: WatcherEngine,
  args: WatchArgs,
  settings: WatcherSettings,
  watcherId: string,
  io: CommandIo,
  stopSignal: Promise<string>,
): Promise<number> {
  io.stdout.write(
    `Watching ${settings.environmentIds.join(', ')}${settings.clusterIds.length > 0 ? ` (clusters ${settings.clusterIds.join(', ')})` : ''}: ` +
      `polling every ${args.pollInterval} s (cooldown: ${args.cooldown} s); graph written to ${args.output}; watcher ${watcherId}\n`,
  );
  io.stdout.write('Press Ctrl+C to stop\n');
  await engine.start();
  const reason = await stopSignal;
  await engine.stop(reason);
  io.stdout.write('Stopped\n');
  return 0;
}

/** Runs the watcher until `stopSignal` resolves; resolves with the exit code. Never throws. */
export async function runWatch(
  args: WatchArgs,
  config: Config,
  env: Record<string, string | undefined>,
  io: CommandIo,
  stopSignal: Promise<string>,
): Promise<number> {
  const precondition = watchPreconditionError(args, config);
  if (precondition) return reportError(io, NAME, precondition);
  const logger = commandLogger(config, env);
  io.stdout.write(`${storeLine(config)}\n`);
  let runtime: LineageRuntime;
  try {
    runtime = await openRuntime(config, logger);
  } catch (error) {
    return reportError(io, NAME, error);
  }
  const context = createServiceContext({ config, runtime, logger });
  const pushers = catalogPushers(context);
  const push = pushTargets(args, config, pushers);
  if (push instanceof Error) {
    await runtime.close().catch(() => undefined);
    return reportError(io, NAME, push);
  }
  try {
    await checkWatchedEnvironments(context, args.env);
  } catch (error) {
    await runtime.close().catch(() => undefined);
    return reportError(io, NAME, error, error instanceof UnknownEnvironmentError ? UNKNOWN_ENVIRONMENT_EXIT_CODE : 2);
  }
  const lease = watchProcessLease(runtime, config, logger, io);
  try {
    await lease.start();
  } catch (error) {
    await runtime.close().catch(() => undefined);
    return reportError(io, NAME, error);
  }
  const watcherId = randomUUID();
  const settings: WatcherSettings = {
    environmentIds: [...new Set(args.env)],
    clusterIds: [...new Set(args.cluster)],
    cooldownSeconds: args.cooldown,
    pollIntervalSeconds: args.pollInterval,
    push,
  };
  const ownerProcessId = lease.identity.processId;
  const engine = createWatchEngine({ args, context, runtime, pushers, settings, watcherId, ownerProcessId, io });
  try {
    return await watchUntilStopped(engine, args, settings, watcherId, io, stopSignal);
  } catch (error) {
    return reportError(io, NAME, error);
  } finally {
    await lease.stop('interrupted').catch(() => undefined);
    await runtime.close().catch(() => undefined);
  }
}

async function main(argv: string[], stopSignal: Promise<string>): Promise<number> {
  const parsed = await parseArguments(watchCli, NAME, argv, { '--env': EMPTY_ENVIRONMENT_HINT });
  if ('exitCode' in parsed) return parsed.exitCode;
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    return reportError(process, NAME, error);
  }
  limitHeapGrowth(config.heapGrowthPercent);
  return runWatch(parsed.args as WatchArgs, config, process.env, process, stopSignal);
}

let interrupted = false;
const stopSignal = new Promise<string>((resolve) => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    // `on`, not `once`: a second signal while stopping exits at once (still 0: interrupting is the normal end).
    process.on(signal, () => {
      if (interrupted) process.exit(0);
      interrupted = true;
      resolve(`interrupted (${signal})`);
    });
  }
});

// A batch command: memory over allocation throughput (infra/v8Heap.ts).
keepYoungGenerationSmall();

try {
  const code = await main(process.argv.slice(2), stopSignal);
  // An extraction that was running when interrupted is not waited for.
  process.exit(code);
} catch (error) {
  process.exit(reportError(process, NAME, error));
}
