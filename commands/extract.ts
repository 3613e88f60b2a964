#!/usr/bin/env node
/**
 * `lineage-svc-extract`: extracts the lineage graph of one or more Confluent Cloud environments,
 * records it in the store and writes it as a graph file, JSON unless `--format` says otherwise
 * (`docs/specification.md`, "Command-line tools"; `docs/extraction.md`).
 *
 * Flags: `--env ENV_ID` (required, repeatable), `--cluster CLUSTER_ID` (repeatable; default every
 * cluster), `--output PATH` (default `./lineage_graph.json`), `--no-enrich`, `--enrich-only`,
 * `--push-lineage [LIST]` (every configured catalog, or the comma-separated `lakehouse`, `datalake`,
 * `warehouse`, `data_governance`; `--push-lineage-catalogs LIST` is the same list spelled as an
 * option), `--metrics`, `--metrics-lookback-hours N` (default 1), `--format F`, `--strict` (a scope
 * not read completely fails the run and records nothing; by default its recorded state is kept and
 * the run succeeds, listing it), `--quiet` (nothing but errors: no progress, warnings, push lines,
 * summary, nor the AWS SDK's Node version notice), `--verbose` (the summary lists the requests per
 * API), `--json` (the summary as one JSON object on stdout, nothing else there: `ExtractSummary` in
 * `./shared.ts`).
 * Progress goes to stderr: live on a terminal, plain lines otherwise, none with `--quiet` or
 * `LINEAGE_SVC_LOG_LEVEL` WARNING or ERROR (`./progress.ts`).
 * Configuration: `LINEAGE_SVC_*` variables (`src/config.ts`); the cloud key is required.
 *
 * Exit codes: 0 success; 1 interrupted (SIGINT/SIGTERM); 2 bad flags or configuration, or the
 * extraction failed. Errors are one line on stderr (`lineage-svc-extract: ...`), never a stack trace.
 */
import './environment.js'; // first: .env settings before anything reads the environment
import { keepYoungGenerationSmall, limitHeapGrowth } from '../infra/v8Heap.js';
import { array, command, flag, multioption, oneOf, option, optional, string, type Type } from 'cmd-ts';
import { EXPORT_FORMATS } from '../src/export/index.js';
import { parseArguments, reportError } from './arguments.js';
import { loadConfig } from '../src/config.js';
import type { CatalogType } from '../src/graph/model.js';
import { expandPushLineageArgument, parsePushLineageCatalogs, runExtract, type ExtractArgs } from './shared.js';

const NAME = 'lineage-svc-extract';

const positiveHours: Type<string, number> = {
  displayName: 'hours',
  async from(text: string): Promise<number> {
    const value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value) || value <= 0 || value > 24 * 31) {
      throw new Error(`--metrics-lookback-hours must be a number of hours above 0 and at most 744, got "${text}"`);
    }
    return value;
  },
};

/** A comma-separated list of catalog providers (`parsePushLineageCatalogs`). */
const catalogList: Type<string, CatalogType[]> = {
  displayName: 'catalogs',
  async from(text: string): Promise<CatalogType[]> {
    return parsePushLineageCatalogs(text);
  },
};

/** The command-line interface (cmd-ts); the handler returns the parsed flags. */
export const extractCli = command({
  name: NAME,
  description:
    'Extract the lineage graph of Confluent Cloud environments, record it in the store and write it as a graph file ' +
    '(JSON, or --format).',
  args: {
    env: multioption({
      long: 'env',
      type: array(string),
      description: 'environment to scan (env-...); required, repeatable',
    }),
    cluster: multioption({
      long: 'cluster',
      type: array(string),
      description: 'cluster filter (lkc-...); repeatable; default every cluster',
    }),
    output: option({
      long: 'output',
      type: string,
      defaultValue: () => './lineage_graph.json',
      defaultValueIsSerializable: true,
      description: 'output file',
    }),
    format: option({
      long: 'format',
      type: oneOf(EXPORT_FORMATS),
      defaultValue: () => 'json' as const,
      defaultValueIsSerializable: true,
      description: `format of the output file: ${EXPORT_FORMATS.join(', ')} (json is what --enrich-only and the API read)`,
    }),
    noEnrich: flag({ long: 'no-enrich', description: 'skip catalog and metrics enrichment' }),
    enrichOnly: flag({
      long: 'enrich-only',
      description: 'enrich the existing graph file at --output instead of extracting',
    }),
    pushLineage: flag({
      long: 'push-lineage',
      description:
        'push lineage to every configured catalog after extraction; or to a list: --push-lineage lakehouse,warehouse',
    }),
    pushLineageCatalogs: option({
      long: 'push-lineage-catalogs',
      type: optional(catalogList),
      description:
        'the catalogs --push-lineage pushes to (what --push-lineage LIST sets): lakehouse, datalake, warehouse, data_governance',
    }),
    metrics: flag({ long: 'metrics', description: 'include throughput metrics' }),
    strict: flag({
      long: 'strict',
      description:
        'fail (exit 2) and record nothing when a scope could not be read completely, instead of keeping its recorded state',
    }),
    quiet: flag({
      long: 'quiet',
      short: 'q',
      description:
        'print nothing but errors (no progress, warnings, push lines or summary; --json still prints its object)',
    }),
    verbose: flag({
      long: 'verbose',
      short: 'v',
      description: 'list the platform requests per API in the summary',
    }),
    json: flag({
      long: 'json',
      description:
        'print the summary as one JSON object on stdout (graph id, counts, changes, warnings, duration, output)',
    }),
    metricsLookbackHours: option({
      long: 'metrics-lookback-hours',
      type: positiveHours,
      defaultValue: () => 1,
      defaultValueIsSerializable: true,
      description: 'metrics window in hours',
    }),
  },
  handler: (args) => args,
});

async function main(argv: string[]): Promise<number> {
  const parsed = await parseArguments(extractCli, NAME, expandPushLineageArgument(argv));
  if ('exitCode' in parsed) return parsed.exitCode;
  const args = parsed.args as ExtractArgs;
  if (args.pushLineageCatalogs && !args.pushLineage) args.pushLineage = true;
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    return reportError(process, NAME, error);
  }
  limitHeapGrowth(config.heapGrowthPercent);
  // --quiet: the AWS SDK's multi-line notice about future Node versions (a process warning on
  // stderr, when a datalake or data governance catalog is called) is not an error either.
  if (args.quiet) process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  return runExtract(NAME, args, config, process.env, process);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  // `on`, not `once`: a second signal while exiting must not fall back to the default action.
  process.on(signal, () => {
    process.stderr.write(`${NAME}: interrupted\n`);
    process.exit(1);
  });
}

// A batch command: memory over allocation throughput (infra/v8Heap.ts).
keepYoungGenerationSmall();

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  process.exitCode = reportError(process, NAME, error);
}
