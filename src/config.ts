/**
 * Configuration: one zod schema over every environment variable of `docs/specification.md`
 * ("Configuration") and of `docs/contract.md` (section 3), parsed once at start by `loadConfig(env)`.
 * Each invalid value gets its own message naming the variable; secrets are redacted by
 * `redactConfig` wherever configuration is printed or logged.
 *
 * Empty values count as unset. Durations are in seconds unless the name says otherwise.
 */
import { z } from 'zod';
import { ConfigurationError } from './errors.js';

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));

const url = (fallback?: string) =>
  optionalString
    .refine((value) => value === undefined || /^https?:\/\/[^\s/]+/.test(value), 'must be an http:// or https:// URL')
    .transform((value) => (value ?? fallback)?.replace(/\/+$/, ''));

const booleanFlag = (fallback: boolean) =>
  optionalString
    .refine((value) => value === undefined || /^(true|false|1|0|yes|no)$/i.test(value), 'must be true or false')
    .transform((value) => (value === undefined ? fallback : /^(true|1|yes)$/i.test(value)));

const port = (fallback: number) =>
  optionalString
    .refine(
      (value) => value === undefined || (/^\d+$/.test(value) && Number(value) <= 65535),
      'must be an integer from 0 to 65535',
    )
    .transform((value) => (value === undefined ? fallback : Number(value)));

/**
 * `LINEAGE_SVC_API_CORS_ORIGINS`: the origins a browser may call the API from, comma-separated
 * (`scheme://host[:port]`, no path; a trailing slash is dropped), or `*` for any origin. Unset: none
 * (CORS off, no CORS header is sent).
 */
const corsOrigins = optionalString
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((origin) => origin.trim().replace(/\/+$/, ''))
      .filter((origin) => origin !== ''),
  )
  .refine(
    (origins) => origins.every((origin) => origin === '*' || /^https?:\/\/[^\s/?#]+$/.test(origin)),
    'must be * or a comma-separated list of origins such as https://lineage.example.com',
  );

/** The roles an API key may hold (`docs/contract.md` section 4). */
export const API_ROLES = ['read', 'write', 'operate'] as const;
/** One role: `read` (every GET), `write` (graph writes, OpenLineage ingestion), `operate` (tasks, watchers, pushes). */
export type ApiRole = (typeof API_ROLES)[number];

/** One API key and the roles it holds. */
export interface ApiKeyEntry {
  key: string;
  roles: ApiRole[];
}

/**
 * The placeholder values of the example Secret and env files (`change-me`): refused as API keys, so
 * that a deployment whose real Secret was never created does not run with a key anyone can read.
 */
export const PLACEHOLDER_API_KEYS: ReadonlySet<string> = new Set(['change-me', 'changeme', 'replace-me']);

/** The message of a placeholder API key. */
const placeholderMessage =
  'is the placeholder "change-me" of the example files: set a key of your own (e.g. `openssl rand -hex 32`)';

/** `LINEAGE_SVC_API_KEY`: any key but a placeholder. */
const apiKey = optionalString.refine(
  (value) => value === undefined || !PLACEHOLDER_API_KEYS.has(value.toLowerCase()),
  placeholderMessage,
);

/**
 * `LINEAGE_SVC_API_KEYS`: keys with roles, comma-separated `KEY=ROLE[+ROLE...]` entries, e.g.
 * `k1=read,k2=read+write,k3=read+write+operate`. Keys may not contain `=`, `,` or whitespace.
 */
const apiKeys = optionalString
  .refine(
    (value) =>
      value === undefined ||
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== '')
        .every((entry) => /^[^=\s,]+=(read|write|operate)(\+(read|write|operate))*$/.test(entry)),
    'must be comma-separated KEY=ROLE[+ROLE] entries with roles read, write and operate',
  )
  .refine(
    (value) =>
      value === undefined ||
      value.split(',').every((entry) => !PLACEHOLDER_API_KEYS.has(entry.trim().split('=')[0]!.toLowerCase())),
    `holds a key that ${placeholderMessage}`,
  )
  .transform((value): ApiKeyEntry[] =>
    (value ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '')
      .map((entry) => {
        const at = entry.indexOf('=');
        const roles = [...new Set(entry.slice(at + 1).split('+'))] as ApiRole[];
        return { key: entry.slice(0, at), roles };
      }),
  );

/** A non-negative integer; `fallback` when unset. */
const count = (fallback: number, max: number) =>
  optionalString
    .refine(
      (value) => value === undefined || (/^\d+$/.test(value) && Number(value) <= max),
      `must be an integer from 0 to ${max}`,
    )
    .transform((value) => (value === undefined ? fallback : Number(value)));

/** A number of seconds, above 0 and at most `max`; `fallback` when unset. */
const seconds = (fallback: number, max: number) =>
  optionalString
    .refine(
      (value) => value === undefined || (Number.isFinite(Number(value)) && Number(value) > 0 && Number(value) <= max),
      `must be a number of seconds above 0 and at most ${max}`,
    )
    .transform((value) => (value === undefined ? fallback : Number(value)));

const saslMechanismSchema = optionalString
  .transform((value) => value?.toLowerCase())
  .refine(
    (value) => value === undefined || ['plain', 'scram-sha-256', 'scram-sha-512'].includes(value),
    'must be plain, scram-sha-256 or scram-sha-512',
  );

/** Log levels of `docs/specification.md` ("Configuration"), mapped to pino's. */
const LOG_LEVELS = { DEBUG: 'debug', INFO: 'info', WARNING: 'warn', WARN: 'warn', ERROR: 'error' } as const;

/** The storage backends (`LINEAGE_SVC_STORAGE__BACKEND`). */
export const STORAGE_BACKENDS = ['memory', 'file', 'sqlite', 'postgres', 'eventstoredb'] as const;

/**
 * The default backend: sqlite in `./.lineage-svc`, so that history is kept from the first run. This
 * departs on purpose from the specification's `memory` default (`docs/contract.md` section 3): an
 * event-sourced store that forgets at every exit would record each extraction as new. `memory` stays
 * available.
 */
export const DEFAULT_STORAGE_BACKEND = 'sqlite';
export type StorageBackend = (typeof STORAGE_BACKENDS)[number];

/** The variables, by name. Anything not listed here is ignored. */
export const EnvironmentSchema = z.object({
  LINEAGE_SVC_STREAM_CLOUD_API_KEY: optionalString,
  LINEAGE_SVC_STREAM_CLOUD_API_SECRET: optionalString,
  LINEAGE_SVC_CLUSTER_API_KEY: optionalString,
  LINEAGE_SVC_CLUSTER_API_SECRET: optionalString,
  LINEAGE_SVC_SCHEMA_REGISTRY_API_KEY: optionalString,
  LINEAGE_SVC_SCHEMA_REGISTRY_API_SECRET: optionalString,
  LINEAGE_SVC_FLINK_API_KEY: optionalString,
  LINEAGE_SVC_FLINK_API_SECRET: optionalString,
  LINEAGE_SVC_KSQLDB_API_KEY: optionalString,
  LINEAGE_SVC_KSQLDB_API_SECRET: optionalString,
  LINEAGE_SVC_TABLEFLOW_API_KEY: optionalString,
  LINEAGE_SVC_TABLEFLOW_API_SECRET: optionalString,
  LINEAGE_SVC_STREAM_CLOUD_API_URL: url('https://api.confluent.cloud'),
  LINEAGE_SVC_STREAM_TELEMETRY_API_URL: url('https://api.telemetry.confluent.cloud'),
  LINEAGE_SVC_STREAM_FLINK_API_URL: url(),
  LINEAGE_SVC_SCHEMA_REGISTRY_URL: url(),
  LINEAGE_SVC_ENABLE_METRICS: booleanFlag(false),
  LINEAGE_SVC_HEAP_GROWTH_PERCENT: count(50, 1000),
  LINEAGE_SVC_LOG_LEVEL: optionalString
    .refine(
      (value) => value === undefined || value.toUpperCase() in LOG_LEVELS,
      'must be DEBUG, INFO, WARNING or ERROR',
    )
    .transform((value) => LOG_LEVELS[(value ?? 'INFO').toUpperCase() as keyof typeof LOG_LEVELS]),
  LINEAGE_SVC_API_HOST: optionalString.transform((value) => value ?? '0.0.0.0'),
  LINEAGE_SVC_API_PORT: port(8000),
  LINEAGE_SVC_API_KEY: apiKey,
  LINEAGE_SVC_API_KEYS: apiKeys,
  LINEAGE_SVC_API_RATE_LIMIT_PER_MINUTE: count(1200, 1_000_000),
  LINEAGE_SVC_API_REQUEST_TIMEOUT_SECONDS: count(120, 86_400),
  LINEAGE_SVC_MIN_POLL_INTERVAL_SECONDS: seconds(10, 86_400),
  LINEAGE_SVC_MARQUEZ_MAX_LINEAGE_NODES: count(5_000, 10_000_000),
  LINEAGE_SVC_API_URL: url('http://127.0.0.1:8000'),
  LINEAGE_SVC_API_PUBLIC_URL: url(),
  LINEAGE_SVC_API_CORS_ORIGINS: corsOrigins,
  LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL: url(),
  LINEAGE_SVC_LAKEHOUSE_TOKEN: optionalString,
  LINEAGE_SVC_LAKEHOUSE_WAREHOUSE_ID: optionalString,
  LINEAGE_SVC_WAREHOUSE_PROJECT_ID: optionalString,
  LINEAGE_SVC_WAREHOUSE_LOCATION: optionalString,
  LINEAGE_SVC_WAREHOUSE_BIGQUERY_API_URL: url('https://bigquery.googleapis.com'),
  LINEAGE_SVC_WAREHOUSE_LINEAGE_API_URL: url('https://datalineage.googleapis.com'),
  LINEAGE_SVC_WAREHOUSE_DATAPLEX_API_URL: url('https://dataplex.googleapis.com'),
  LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN: optionalString,
  LINEAGE_SVC_DATALAKE_REGION: optionalString,
  LINEAGE_SVC_DATA_GOVERNANCE_DOMAIN_ID: optionalString,
  LINEAGE_SVC_DATA_GOVERNANCE_PROJECT_ID: optionalString,
  LINEAGE_SVC_STORAGE__BACKEND: optionalString
    .transform((value) => value?.toLowerCase() ?? DEFAULT_STORAGE_BACKEND)
    .refine((value) => (STORAGE_BACKENDS as readonly string[]).includes(value), {
      message: `must be one of ${STORAGE_BACKENDS.join(', ')}`,
    }),
  LINEAGE_SVC_STORAGE__PATH: optionalString.transform((value) => value ?? './.lineage-svc'),
  LINEAGE_SVC_STORAGE__URL: optionalString,
  LINEAGE_SVC_GRAPH_FILE: optionalString.transform((value) => value ?? './lineage_graph.json'),
  LINEAGE_SVC_OPENLINEAGE_KAFKA_BROKERS: optionalString,
  LINEAGE_SVC_OPENLINEAGE_KAFKA_TOPIC: optionalString.transform((value) => value ?? 'openlineage.events'),
  LINEAGE_SVC_OPENLINEAGE_KAFKA_GROUP_ID: optionalString.transform((value) => value ?? 'lineage-svc-openlineage'),
  LINEAGE_SVC_OPENLINEAGE_KAFKA_DEAD_LETTER_TOPIC: optionalString.transform(
    (value) => value ?? 'openlineage.events.dlq',
  ),
  LINEAGE_SVC_OPENLINEAGE_KAFKA_SSL: booleanFlag(false),
  LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_MECHANISM: optionalString
    .transform((value) => value?.toLowerCase())
    .refine(
      (value) => value === undefined || ['plain', 'scram-sha-256', 'scram-sha-512'].includes(value),
      'must be plain, scram-sha-256 or scram-sha-512',
    ),
  LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_USERNAME: optionalString,
  LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_PASSWORD: optionalString,
  LINEAGE_SVC_LEASE_SECONDS: seconds(30, 3600),
  LINEAGE_SVC_WATCHER_RESUME: booleanFlag(false),
  LINEAGE_SVC_PUBLISH_WEBHOOK_URL: url(),
  LINEAGE_SVC_PUBLISH_WEBHOOK_SECRET: optionalString,
  LINEAGE_SVC_PUBLISH_KAFKA_BROKERS: optionalString,
  LINEAGE_SVC_PUBLISH_KAFKA_TOPIC: optionalString.transform((value) => value ?? 'lineage-svc.changes'),
  LINEAGE_SVC_PUBLISH_KAFKA_SSL: booleanFlag(false),
  LINEAGE_SVC_PUBLISH_KAFKA_SASL_MECHANISM: saslMechanismSchema,
  LINEAGE_SVC_PUBLISH_KAFKA_SASL_USERNAME: optionalString,
  LINEAGE_SVC_PUBLISH_KAFKA_SASL_PASSWORD: optionalString,
});

/** Variables whose values are secrets: never printed, logged, stored in tasks or returned. */
export const SECRET_VARIABLES: ReadonlySet<string> = new Set([
  'LINEAGE_SVC_STREAM_CLOUD_API_SECRET',
  'LINEAGE_SVC_CLUSTER_API_SECRET',
  'LINEAGE_SVC_SCHEMA_REGISTRY_API_SECRET',
  'LINEAGE_SVC_FLINK_API_SECRET',
  'LINEAGE_SVC_KSQLDB_API_SECRET',
  'LINEAGE_SVC_TABLEFLOW_API_SECRET',
  'LINEAGE_SVC_API_KEY',
  'LINEAGE_SVC_API_KEYS',
  'LINEAGE_SVC_LAKEHOUSE_TOKEN',
  'LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN',
  'LINEAGE_SVC_STORAGE__URL',
  'LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_PASSWORD',
  'LINEAGE_SVC_PUBLISH_WEBHOOK_SECRET',
  'LINEAGE_SVC_PUBLISH_KAFKA_SASL_PASSWORD',
]);

/** A key and its secret (HTTP basic credentials toward the platform). */
export interface Credentials {
  key: string;
  secret: string;
}

/** The parsed configuration. */
export interface Config {
  stream: {
    cloudApiUrl: string;
    telemetryApiUrl: string;
    /** Flink SQL base URL override; discovered per region from `fcpm/v2/regions` when unset. */
    flinkApiUrl: string | undefined;
    /** Schema Registry / Stream Catalog base URL override; discovered from `srcm/v3/clusters` when unset. */
    schemaRegistryUrl: string | undefined;
    /** Per service; every one but `cluster` falls back to the cloud key. Undefined when not configured. */
    credentials: {
      cloud: Credentials | undefined;
      cluster: Credentials | undefined;
      schemaRegistry: Credentials | undefined;
      flink: Credentials | undefined;
      ksqldb: Credentials | undefined;
      tableflow: Credentials | undefined;
    };
  };
  enableMetrics: boolean;
  /**
   * `LINEAGE_SVC_HEAP_GROWTH_PERCENT`: how far V8's old generation may grow over what the last full
   * collection kept alive, in percent, in the commands that hold the projections; 0 leaves V8's own
   * factor. Default 50 (`limitHeapGrowth` in `infra/v8Heap.ts`).
   */
  heapGrowthPercent: number;
  /** pino level: `debug`, `info`, `warn` or `error`. */
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /**
   * The API's bind address and port, its key (authentication on when set), where clients find it,
   * and the origins allowed by CORS (empty: CORS off; `['*']`: any origin).
   */
  api: {
    host: string;
    port: number;
    key: string | undefined;
    url: string;
    corsOrigins: string[];
    /** `LINEAGE_SVC_API_KEYS`: keys with roles; `key` above holds every role. */
    keys: ApiKeyEntry[];
    /** Writes and ingestion calls per client (API key, else address) per minute; 0 turns the limit off. Default 1,200. */
    rateLimitPerMinute: number;
    /** Longest a request may take to arrive whole (headers and body), in seconds; 0 turns it off. Default 120. */
    requestTimeoutSeconds: number;
    /** Smallest `poll_interval_seconds` a watcher may be given through the API, in seconds. Default 10. */
    minPollIntervalSeconds: number;
    /**
     * `LINEAGE_SVC_MARQUEZ_MAX_LINEAGE_NODES`: the most datasets and jobs one answer of Marquez's
     * `GET /api/v1/lineage` may hold (a larger walk is refused with 400); 0 turns the limit off. Default 5,000.
     */
    marquezMaxLineageNodes: number;
    /**
     * `LINEAGE_SVC_API_PUBLIC_URL`: the base URL clients reach the API at (e.g. behind a proxy), without a
     * trailing slash; the OpenAPI document's `servers`. Unset: the bind address is used.
     */
    publicUrl: string | undefined;
  };
  lakehouse: { workspaceUrl: string | undefined; token: string | undefined; warehouseId: string | undefined };
  warehouse: {
    projectId: string | undefined;
    location: string | undefined;
    bigQueryApiUrl: string;
    lineageApiUrl: string;
    dataplexApiUrl: string;
    accessToken: string | undefined;
  };
  datalake: { region: string | undefined };
  dataGovernance: { domainId: string | undefined; projectId: string | undefined };
  /** The event store: `backend` (default `DEFAULT_STORAGE_BACKEND`), `path` for file and sqlite, `url` for the servers. */
  storage: { backend: StorageBackend; path: string; url: string | undefined };
  /** Graph file the API imports at start when its store holds no graph. */
  graphFile: string;
  /** The OpenLineage Kafka transport; `brokers` is empty when it is off. */
  openLineageKafka: {
    brokers: string[];
    topic: string;
    groupId: string;
    deadLetterTopic: string;
    ssl: boolean;
    sasl: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string } | undefined;
  };
  /** Several processes on one store (docs/architecture.md, "Several processes"). */
  processes: {
    /** Seconds a process's lease lasts after each renewal (renewed every third of it). Default 30. */
    leaseSeconds: number;
    /** Take over the watchers of a process whose lease expired, instead of stopping them. Default false. */
    resumeWatchers: boolean;
  };
  /** Where lineage changes are published as CloudEvents (both off by default). */
  publish: {
    /** Webhook receiving batches of CloudEvents; undefined: off. */
    webhookUrl: string | undefined;
    /** HMAC-SHA256 key signing each webhook request (`webhook-signature`); undefined: unsigned. */
    webhookSecret: string | undefined;
    /** Kafka brokers; empty: Kafka publication off. */
    kafkaBrokers: string[];
    /** Topic of the CloudEvents, keyed by graph id. Default `lineage-svc.changes`. */
    kafkaTopic: string;
    kafkaSsl: boolean;
    kafkaSasl:
      { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string } | undefined;
  };
}

/** Pairs of key and secret variables, by service. */
const CREDENTIAL_PAIRS = {
  cloud: 'LINEAGE_SVC_STREAM_CLOUD_API',
  cluster: 'LINEAGE_SVC_CLUSTER_API',
  schemaRegistry: 'LINEAGE_SVC_SCHEMA_REGISTRY_API',
  flink: 'LINEAGE_SVC_FLINK_API',
  ksqldb: 'LINEAGE_SVC_KSQLDB_API',
  tableflow: 'LINEAGE_SVC_TABLEFLOW_API',
} as const;

/** The parsed variables. */
type Variables = z.infer<typeof EnvironmentSchema>;
/** A Kafka SASL mechanism. */
type SaslMechanism = 'plain' | 'scram-sha-256' | 'scram-sha-512';

/** One clause per variable the schema rejects; secrets' values are not shown. */
function variableProblems(
  parsed: ReturnType<typeof EnvironmentSchema.safeParse>,
  env: Record<string, string | undefined>,
): string[] {
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0]);
      const shown = SECRET_VARIABLES.has(name) ? '' : ` (got ${JSON.stringify(env[name])})`;
      problems.push(`${name} ${issue.message}${shown}`);
    }
  }
  return problems;
}

/** Each service's credentials (the cloud key by default); a key without its secret, or the reverse, is a problem. */
function credentialsFrom(variables: Variables | undefined, problems: string[]): Config['stream']['credentials'] {
  const pair = (prefix: string): Credentials | undefined => {
    const key = variables?.[`${prefix}_KEY` as keyof typeof variables] as string | undefined;
    const secret = variables?.[`${prefix}_SECRET` as keyof typeof variables] as string | undefined;
    if ((key === undefined) !== (secret === undefined)) {
      problems.push(`${prefix}_KEY and ${prefix}_SECRET must be set together`);
      return undefined;
    }
    return key !== undefined && secret !== undefined ? { key, secret } : undefined;
  };
  const cloud = pair(CREDENTIAL_PAIRS.cloud);
  return {
    cloud,
    cluster: pair(CREDENTIAL_PAIRS.cluster),
    schemaRegistry: pair(CREDENTIAL_PAIRS.schemaRegistry) ?? cloud,
    flink: pair(CREDENTIAL_PAIRS.flink) ?? cloud,
    ksqldb: pair(CREDENTIAL_PAIRS.ksqldb) ?? cloud,
    tableflow: pair(CREDENTIAL_PAIRS.tableflow) ?? cloud,
  };
}

/** Variables that must go together: a storage URL for the server backends, SASL credentials with a SASL mechanism. */
function combinationProblems(variables: Variables): string[] {
  const problems: string[] = [];
  const backend = variables.LINEAGE_SVC_STORAGE__BACKEND as StorageBackend | undefined;
  if ((backend === 'postgres' || backend === 'eventstoredb') && !variables.LINEAGE_SVC_STORAGE__URL) {
    problems.push(`LINEAGE_SVC_STORAGE__URL must be set for the ${backend} backend`);
  }
  if (
    variables.LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_MECHANISM &&
    (!variables.LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_USERNAME || !variables.LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_PASSWORD)
  ) {
    problems.push(
      'LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_USERNAME and LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_PASSWORD must be set with a SASL mechanism',
    );
  }
  if (
    variables.LINEAGE_SVC_PUBLISH_KAFKA_SASL_MECHANISM &&
    (!variables.LINEAGE_SVC_PUBLISH_KAFKA_SASL_USERNAME || !variables.LINEAGE_SVC_PUBLISH_KAFKA_SASL_PASSWORD)
  ) {
    problems.push(
      'LINEAGE_SVC_PUBLISH_KAFKA_SASL_USERNAME and LINEAGE_SVC_PUBLISH_KAFKA_SASL_PASSWORD must be set with a SASL mechanism',
    );
  }
  return problems;
}

/** The platform's URLs and credentials, metrics and log settings, and the API's settings. */
function serviceSettings(
  variables: Variables,
  credentials: Config['stream']['credentials'],
): Pick<Config, 'stream' | 'enableMetrics' | 'heapGrowthPercent' | 'logLevel' | 'api'> {
  return {
    stream: {
      cloudApiUrl: variables.LINEAGE_SVC_STREAM_CLOUD_API_URL!,
      telemetryApiUrl: variables.LINEAGE_SVC_STREAM_TELEMETRY_API_URL!,
      flinkApiUrl: variables.LINEAGE_SVC_STREAM_FLINK_API_URL,
      schemaRegistryUrl: variables.LINEAGE_SVC_SCHEMA_REGISTRY_URL,
      credentials,
    },
    enableMetrics: variables.LINEAGE_SVC_ENABLE_METRICS,
    heapGrowthPercent: variables.LINEAGE_SVC_HEAP_GROWTH_PERCENT,
    logLevel: variables.LINEAGE_SVC_LOG_LEVEL,
    api: {
      host: variables.LINEAGE_SVC_API_HOST,
      port: variables.LINEAGE_SVC_API_PORT,
      key: variables.LINEAGE_SVC_API_KEY,
      url: variables.LINEAGE_SVC_API_URL!,
      corsOrigins: variables.LINEAGE_SVC_API_CORS_ORIGINS,
      keys: variables.LINEAGE_SVC_API_KEYS,
      rateLimitPerMinute: variables.LINEAGE_SVC_API_RATE_LIMIT_PER_MINUTE,
      requestTimeoutSeconds: variables.LINEAGE_SVC_API_REQUEST_TIMEOUT_SECONDS,
      minPollIntervalSeconds: variables.LINEAGE_SVC_MIN_POLL_INTERVAL_SECONDS,
      marquezMaxLineageNodes: variables.LINEAGE_SVC_MARQUEZ_MAX_LINEAGE_NODES,
      publicUrl: variables.LINEAGE_SVC_API_PUBLIC_URL,
    },
  };
}

/** The catalogs' settings: lakehouse, warehouse, data lake and data governance. */
function catalogSettings(
  variables: Variables,
): Pick<Config, 'lakehouse' | 'warehouse' | 'datalake' | 'dataGovernance'> {
  return {
    lakehouse: {
      workspaceUrl: variables.LINEAGE_SVC_LAKEHOUSE_WORKSPACE_URL,
      token: variables.LINEAGE_SVC_LAKEHOUSE_TOKEN,
      warehouseId: variables.LINEAGE_SVC_LAKEHOUSE_WAREHOUSE_ID,
    },
    warehouse: {
      projectId: variables.LINEAGE_SVC_WAREHOUSE_PROJECT_ID,
      location: variables.LINEAGE_SVC_WAREHOUSE_LOCATION,
      bigQueryApiUrl: variables.LINEAGE_SVC_WAREHOUSE_BIGQUERY_API_URL!,
      lineageApiUrl: variables.LINEAGE_SVC_WAREHOUSE_LINEAGE_API_URL!,
      dataplexApiUrl: variables.LINEAGE_SVC_WAREHOUSE_DATAPLEX_API_URL!,
      accessToken: variables.LINEAGE_SVC_WAREHOUSE_ACCESS_TOKEN,
    },
    datalake: { region: variables.LINEAGE_SVC_DATALAKE_REGION },
    dataGovernance: {
      domainId: variables.LINEAGE_SVC_DATA_GOVERNANCE_DOMAIN_ID,
      projectId: variables.LINEAGE_SVC_DATA_GOVERNANCE_PROJECT_ID,
    },
  };
}

/** Storage, the graph file and the OpenLineage Kafka consumer. */
function storageAndIngestSettings(variables: Variables): Pick<Config, 'storage' | 'graphFile' | 'openLineageKafka'> {
  const backend = variables.LINEAGE_SVC_STORAGE__BACKEND as StorageBackend | undefined;
  const saslMechanism = variables.LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_MECHANISM as SaslMechanism | undefined;
  return {
    storage: {
      backend: backend ?? DEFAULT_STORAGE_BACKEND,
      path: variables.LINEAGE_SVC_STORAGE__PATH,
      url: variables.LINEAGE_SVC_STORAGE__URL,
    },
    graphFile: variables.LINEAGE_SVC_GRAPH_FILE,
    openLineageKafka: {
      brokers: (variables.LINEAGE_SVC_OPENLINEAGE_KAFKA_BROKERS ?? '')
        .split(',')
        .map((broker) => broker.trim())
        .filter(Boolean),
      topic: variables.LINEAGE_SVC_OPENLINEAGE_KAFKA_TOPIC,
      groupId: variables.LINEAGE_SVC_OPENLINEAGE_KAFKA_GROUP_ID,
      deadLetterTopic: variables.LINEAGE_SVC_OPENLINEAGE_KAFKA_DEAD_LETTER_TOPIC,
      ssl: variables.LINEAGE_SVC_OPENLINEAGE_KAFKA_SSL,
      sasl: saslMechanism
        ? {
            mechanism: saslMechanism,
            username: variables.LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_USERNAME!,
            password: variables.LINEAGE_SVC_OPENLINEAGE_KAFKA_SASL_PASSWORD!,
          }
        : undefined,
    },
  };
}

/** Several processes on one store, and where lineage changes are published. */
function processAndPublishSettings(variables: Variables): Pick<Config, 'processes' | 'publish'> {
  const publishSasl = variables.LINEAGE_SVC_PUBLISH_KAFKA_SASL_MECHANISM as SaslMechanism | undefined;
  return {
    processes: {
      leaseSeconds: variables.LINEAGE_SVC_LEASE_SECONDS,
      resumeWatchers: variables.LINEAGE_SVC_WATCHER_RESUME,
    },
    publish: {
      webhookUrl: variables.LINEAGE_SVC_PUBLISH_WEBHOOK_URL,
      webhookSecret: variables.LINEAGE_SVC_PUBLISH_WEBHOOK_SECRET,
      kafkaBrokers: (variables.LINEAGE_SVC_PUBLISH_KAFKA_BROKERS ?? '')
        .split(',')
        .map((broker) => broker.trim())
        .filter(Boolean),
      kafkaTopic: variables.LINEAGE_SVC_PUBLISH_KAFKA_TOPIC,
      kafkaSsl: variables.LINEAGE_SVC_PUBLISH_KAFKA_SSL,
      kafkaSasl: publishSasl
        ? {
            mechanism: publishSasl,
            username: variables.LINEAGE_SVC_PUBLISH_KAFKA_SASL_USERNAME!,
            password: variables.LINEAGE_SVC_PUBLISH_KAFKA_SASL_PASSWORD!,
          }
        : undefined,
    },
  };
}

/**
 * Parses the configuration from environment variables (`process.env` by default). Pure.
 * @throws ConfigurationError whose message lists every invalid variable, one clause each, e.g.
 *   `LINEAGE_SVC_API_PORT must be an integer from 0 to 65535 (got "http")`.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvironmentSchema.safeParse(env);
  const problems = variableProblems(parsed, env);
  const variables = parsed.success ? parsed.data : undefined;
  const credentials = credentialsFrom(variables, problems);
  if (variables) problems.push(...combinationProblems(variables));
  if (problems.length > 0 || !variables) {
    throw new ConfigurationError(`invalid configuration: ${problems.join('; ')}`);
  }
  return {
    ...serviceSettings(variables, credentials),
    ...catalogSettings(variables),
    ...storageAndIngestSettings(variables),
    ...processAndPublishSettings(variables),
  };
}

/** The text that stands in for a secret. */
export const REDACTED = '[redacted]';

/**
 * A copy of the configuration that is safe to print or log: every secret replaced by `[redacted]`,
 * and any password in the storage URL too.
 */
export function redactConfig(config: Config): unknown {
  const hide = (value: string | undefined) => (value === undefined ? undefined : REDACTED);
  const hidePair = (credentials: Credentials | undefined) =>
    credentials ? { key: credentials.key, secret: REDACTED } : undefined;
  const { credentials } = config.stream;
  return {
    ...config,
    stream: {
      ...config.stream,
      credentials: {
        cloud: hidePair(credentials.cloud),
        cluster: hidePair(credentials.cluster),
        schemaRegistry: hidePair(credentials.schemaRegistry),
        flink: hidePair(credentials.flink),
        ksqldb: hidePair(credentials.ksqldb),
        tableflow: hidePair(credentials.tableflow),
      },
    },
    api: {
      ...config.api,
      key: hide(config.api.key),
      keys: config.api.keys.map((entry) => ({ ...entry, key: REDACTED })),
    },
    lakehouse: { ...config.lakehouse, token: hide(config.lakehouse.token) },
    warehouse: { ...config.warehouse, accessToken: hide(config.warehouse.accessToken) },
    storage: { ...config.storage, url: config.storage.url?.replace(/\/\/([^:/@]+):[^@]*@/, `//$1:${REDACTED}@`) },
    openLineageKafka: {
      ...config.openLineageKafka,
      sasl: config.openLineageKafka.sasl ? { ...config.openLineageKafka.sasl, password: REDACTED } : undefined,
    },
    publish: {
      ...config.publish,
      webhookSecret: hide(config.publish.webhookSecret),
      kafkaSasl: config.publish.kafkaSasl ? { ...config.publish.kafkaSasl, password: REDACTED } : undefined,
    },
  };
}

/** Paths pino must redact in every log line (secrets that may appear in logged objects). */
export const LOG_REDACT_PATHS = [
  'secret',
  '*.secret',
  'password',
  '*.password',
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
];
