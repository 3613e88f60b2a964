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

/** The commands that read settings. */
export type SettingCommand = 'api' | 'extract' | 'watch' | 'ui' | 'mcp';

/** One setting: its variables, default and meaning, and the commands that read it. */
export interface Setting {
  /** The variables, in full (a key and its secret are one setting). */
  variables: readonly string[];
  /** The default, in words (`none` when unset means off or absent). */
  defaultValue: string;
  meaning: string;
  commands: readonly SettingCommand[];
}

const PLATFORM: readonly SettingCommand[] = ['api', 'extract', 'watch'];
const EVERY: readonly SettingCommand[] = ['api', 'extract', 'watch', 'ui', 'mcp'];
/** The commands that open the store. */
const STORE: readonly SettingCommand[] = [...PLATFORM, 'mcp'];
const API: readonly SettingCommand[] = ['api'];

/** A key and secret pair of variables. */
const pair = (prefix: string): string[] => [`${prefix}_KEY`, `${prefix}_SECRET`];

/**
 * Every setting `loadConfig` (`src/config.ts`) reads, grouped as in `docs/configuration.md`: the one
 * table the commands' help is printed from (`settingsHelp`), so that it cannot drift from what is read
 * (`test/commands/apiHelp.test.ts` checks it).
 */
export const SETTINGS: ReadonlyArray<{ group: string; settings: readonly Setting[] }> = [
  {
    group: "Platform (extraction, the API's extract tasks and watchers)",
    settings: [
      {
        variables: pair('LINEAGE_SVC_STREAM_CLOUD_API'),
        defaultValue: 'none',
        meaning: 'Confluent Cloud API key (control plane, Metrics, Tableflow); required to extract',
        commands: PLATFORM,
      },
      {
        variables: pair('LINEAGE_SVC_CLUSTER_API'),
        defaultValue: 'none',
        meaning: 'Kafka cluster API key (Kafka REST: topics, consumer groups)',
        commands: PLATFORM,
      },
      {
        variables: pair('LINEAGE_SVC_SCHEMA_REGISTRY_API'),
        defaultValue: 'the cloud key',
        meaning: 'Schema Registry and Stream Catalog key',
        commands: PLATFORM,
      },
      {
        variables: pair('LINEAGE_SVC_FLINK_API'),
        defaultValue: 'the cloud key',
        meaning: 'Flink SQL key',
        commands: PLATFORM,
      },
      {
        variables: pair('LINEAGE_SVC_KSQLDB_API'),
        defaultValue: 'the cloud key',
        meaning: 'ksqlDB key',
        commands: PLATFORM,
      },
      {
        variables: pair('LINEAGE_SVC_TABLEFLOW_API'),
        defaultValue: 'the cloud key',
        meaning: 'Tableflow key',
        commands: PLATFORM,
      },
      {
        variables: ['LINEAGE_SVC_STREAM_CLOUD_API_URL'],
        defaultValue: 'https://api.confluent.cloud',
        meaning: 'control plane base URL',
        commands: PLATFORM,
      },
      {
        variables: ['LINEAGE_SVC_STREAM_TELEMETRY_API_URL'],
        defaultValue: 'https://api.telemetry.confluent.cloud',
        meaning: 'Metrics API base URL',
        commands: PLATFORM,
      },
      {
        variables: ['LINEAGE_SVC_STREAM_FLINK_API_URL'],
        defaultValue: 'discovered from fcpm/v2/regions',
        meaning: 'Flink SQL base URL override',
        commands: PLATFORM,
      },
      {
        variables: ['LINEAGE_SVC_SCHEMA_REGISTRY_URL'],
        defaultValue: 'discovered from srcm/v3/clusters',
        meaning: 'Schema Registry base URL override',
        commands: PLATFORM,
      },
      {
        variables: ['LINEAGE_SVC_ENABLE_METRICS'],
        defaultValue: 'false',
        meaning: 'throughput metrics (the default of enable_metrics for extract tasks)',
        commands: PLATFORM,
      },
    ],
  },
  {
    group: 'API',
    settings: [
      {
        variables: ['LINEAGE_SVC_API_HOST', 'LINEAGE_SVC_API_PORT'],
        defaultValue: '0.0.0.0, 8000',
        meaning: 'bind address; checked before the store is opened (in use: exit 2)',
        commands: API,
      },
      {
        variables: ['LINEAGE_SVC_API_KEY'],
        defaultValue: 'none',
        meaning: 'turns on API-key authentication (X-API-Key); this key holds every role; the UI sends it',
        commands: ['api', 'ui'],
      },
      {
        variables: ['LINEAGE_SVC_API_KEYS'],
        defaultValue: 'none',
        meaning:
          'further keys with roles, KEY=ROLE[+ROLE] comma-separated (read, write, operate); turns authentication on',
        commands: API,
      },
      {
        variables: ['LINEAGE_SVC_API_RATE_LIMIT_PER_MINUTE'],
        defaultValue: '1200',
        meaning: 'writes a minute per client (API key, else address); 0 turns the limit off',
        commands: API,
      },
      {
        variables: ['LINEAGE_SVC_API_REQUEST_TIMEOUT_SECONDS'],
        defaultValue: '120',
        meaning: 'seconds a request has to arrive whole, and a connection may stay silent; 0 turns it off',
        commands: API,
      },
      {
        variables: ['LINEAGE_SVC_MIN_POLL_INTERVAL_SECONDS'],
        defaultValue: '10',
        meaning: 'smallest poll_interval_seconds accepted by POST /api/v1/watchers, in seconds',
        commands: API,
      },
      {
        variables: ['LINEAGE_SVC_MARQUEZ_MAX_LINEAGE_NODES'],
        defaultValue: '5000',
        meaning:
          "most datasets and jobs in one answer of Marquez's GET /api/v1/lineage (larger walks: 400 naming the depth that fits); 0 turns the limit off",
        commands: API,
      },
      {
        variables: ['LINEAGE_SVC_API_PUBLIC_URL'],
        defaultValue: 'the bind address',
        meaning: "the base URL clients reach the API at (behind a proxy): the OpenAPI document's servers",
        commands: API,
      },
      {
        variables: ['LINEAGE_SVC_API_CORS_ORIGINS'],
        defaultValue: 'none (CORS off)',
        meaning: 'origins allowed to call the API from a browser, comma-separated, or *',
        commands: API,
      },
      {
        variables: ['LINEAGE_SVC_API_URL'],
        defaultValue: 'http://127.0.0.1:8000',
        meaning: 'where the web UI finds the API',
        commands: ['ui'],
      },
      {
        variables: ['LINEAGE_SVC_HEAP_GROWTH_PERCENT'],
        defaultValue: '50',
        meaning: "how far the JavaScript heap may grow past what the last full collection kept, in %; 0: V8's own",
        commands: ['api', 'extract', 'watch'],
      },
      {
        variables: ['LINEAGE_SVC_LOG_LEVEL'],
        defaultValue: 'INFO',
        meaning: 'DEBUG, INFO, WARNING, ERROR (progress lines of the commands show at INFO and DEBUG)',
        commands: EVERY,
      },
    ],
  },
  {
    group: 'Catalogs (enrichment and push)',
    settings: [
      {
        variables: [
          'LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL',
          'LINEAGE_SVC_LAKEHOUSE_TOKEN',
          'LINEAGE_SVC_LAKEHOUSE_WAREHOUSE_ID',
        ],
        defaultValue: 'none',
        meaning: 'Databricks workspace, token and SQL warehouse',
        commands: PLATFORM,
      },
      {
        variables: ['LINEAGE_SVC_WAREHOUSE_PROJECT_ID', 'LINEAGE_SVC_WAREHOUSE_LOCATION'],
        defaultValue: 'none',
        meaning: 'BigQuery project and location',
        commands: PLATFORM,
      },
      {
        variables: [
          'LINEAGE_SVC_WAREHOUSE_BIGQUERY_API_URL',
          'LINEAGE_SVC_WAREHOUSE_LINEAGE_API_URL',
          'LINEAGE_SVC_WAREHOUSE_DATAPLEX_API_URL',
        ],
        defaultValue: "Google's endpoints",
        meaning: 'BigQuery, Data Lineage and Dataplex base URL overrides',
        commands: PLATFORM,
      },
      {
        variables: ['LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN'],
        defaultValue: 'application-default credentials',
        meaning: 'Google bearer token override',
        commands: PLATFORM,
      },
      {
        variables: ['LINEAGE_SVC_DATALAKE_REGION'],
        defaultValue: 'none',
        meaning: 'AWS Glue region (AWS_ENDPOINT_URL_GLUE is honored)',
        commands: PLATFORM,
      },
      {
        variables: ['LINEAGE_SVC_DATA_GOVERNANCE_DOMAIN_ID', 'LINEAGE_SVC_DATA_GOVERNANCE_PROJECT_ID'],
        defaultValue: 'none',
        meaning: "DataZone domain and project (region AWS_REGION, else the datalake's)",
        commands: PLATFORM,
      },
    ],
  },
  {
    group: 'Store',
    settings: [
      {
        variables: ['LINEAGE_SVC_STORAGE__BACKEND'],
        defaultValue: 'sqlite',
        meaning: 'sqlite, memory, file, postgres, eventstoredb',
        commands: STORE,
      },
      {
        variables: ['LINEAGE_SVC_STORAGE__PATH'],
        defaultValue: './.lineage-svc',
        meaning: 'folder of the file and sqlite stores',
        commands: STORE,
      },
      {
        variables: ['LINEAGE_SVC_STORAGE__URL'],
        defaultValue: 'none',
        meaning: 'connection URL of the postgres and eventstoredb stores (required for them)',
        commands: STORE,
      },
      {
        variables: ['LINEAGE_SVC_GRAPH_FILE'],
        defaultValue: './lineage_graph.json',
        meaning: 'graph file imported as graph "default" when the store holds no graph',
        commands: API,
      },
    ],
  },
  {
    group: 'OpenLineage Kafka transport',
    settings: [
      {
        variables: ['LINEAGE_SVC_OPENLINEAGE_KAFKA_BROKERS'],
        defaultValue: 'none (off)',
        meaning: 'comma-separated host:port list',
        commands: API,
      },
      {
        variables: ['LINEAGE_SVC_OPENLINEAGE_KAFKA_TOPIC'],
        defaultValue: 'openlineage.events',
        meaning: 'topic of OpenLineage events',
        commands: API,
      },
      {
        variables: ['LINEAGE_SVC_OPENLINEAGE_KAFKA_GROUP_ID'],
        defaultValue: 'lineage-svc-openlineage',
        meaning: 'consumer group id',
        commands: API,
      },
      {
        variables: ['LINEAGE_SVC_OPENLINEAGE_KAFKA_DEAD_LETTER_TOPIC'],
        defaultValue: 'openlineage.events.dlq',
        meaning: 'where unparseable messages go',
        commands: API,
      },
      {
        variables: ['LINEAGE_SVC_OPENLINEAGE_KAFKA_SSL'],
        defaultValue: 'false',
        meaning: 'TLS to the brokers',
        commands: API,
      },
      {
        variables: [
          'LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_MECHANISM',
          'LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_USERNAME',
          'LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_PASSWORD',
        ],
        defaultValue: 'none',
        meaning: 'plain, scram-sha-256 or scram-sha-512, with its username and password',
        commands: API,
      },
    ],
  },
  {
    group: 'Several processes and publication',
    settings: [
      {
        variables: ['LINEAGE_SVC_LEASE_SECONDS'],
        defaultValue: '30',
        meaning: "a process's lease in seconds, renewed every third of it",
        commands: ['api', 'watch'],
      },
      {
        variables: ['LINEAGE_SVC_WATCHER_RESUME'],
        defaultValue: 'false',
        meaning: 'take over the watchers of a process whose lease expired, instead of stopping them',
        commands: API,
      },
      {
        variables: ['LINEAGE_SVC_PUBLISH_WEBHOOK_URL', 'LINEAGE_SVC_PUBLISH_WEBHOOK_SECRET'],
        defaultValue: 'none (off), unsigned',
        meaning: 'webhook receiving lineage changes as CloudEvents, and its HMAC-SHA256 key',
        commands: API,
      },
      {
        variables: ['LINEAGE_SVC_PUBLISH_KAFKA_BROKERS', 'LINEAGE_SVC_PUBLISH_KAFKA_TOPIC'],
        defaultValue: 'none (off), lineage-svc.changes',
        meaning: 'Kafka brokers and topic for lineage changes',
        commands: API,
      },
      {
        variables: ['LINEAGE_SVC_PUBLISH_KAFKA_SSL'],
        defaultValue: 'false',
        meaning: 'TLS to the brokers',
        commands: API,
      },
      {
        variables: [
          'LINEAGE_SVC_PUBLISH_KAFKA_SASL_MECHANISM',
          'LINEAGE_SVC_PUBLISH_KAFKA_SASL_USERNAME',
          'LINEAGE_SVC_PUBLISH_KAFKA_SASL_PASSWORD',
        ],
        defaultValue: 'none',
        meaning: 'plain, scram-sha-256 or scram-sha-512, with its username and password',
        commands: API,
      },
    ],
  },
];

/**
 * The settings `command` reads, for its `--help`: per group, the variables on one line, then the
 * meaning and the default indented below.
 */
export function settingsHelp(command: SettingCommand): string {
  const lines: string[] = [];
  for (const { group, settings } of SETTINGS) {
    const read = settings.filter((setting) => setting.commands.includes(command));
    if (read.length === 0) continue;
    lines.push(`  ${group}:`);
    for (const setting of read) {
      lines.push(`    ${setting.variables.join(', ')}`);
      lines.push(`        ${setting.meaning} (default: ${setting.defaultValue})`);
    }
  }
  return lines.join('\n');
}
