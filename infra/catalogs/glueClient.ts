/**
 * The datalake catalog's client: AWS Glue Data Catalog over the official AWS SDK
 * (`@aws-sdk/client-glue`), implementing `DatalakeCatalogPort` (`src/catalogs/datalake.ts`).
 * Reference: `docs/catalog-apis.md` C1 (`GetTable`, `UpdateTable`; AWS JSON 1.1, SigV4).
 *
 * Rules (`docs/specification.md`, "Errors", "Limits"; `docs/contract.md` section 3):
 * - region: `LINEAGE_SVC_DATALAKE_REGION` (`region`) for tables whose node has none; a table in
 *   another region is read through a client of that region (one SDK client per region, created on
 *   first use);
 * - endpoint: the `endpoint` option, else whatever the SDK resolves, which honors the standard
 *   `AWS_ENDPOINT_URL_GLUE` (and `AWS_ENDPOINT_URL`), so moto or LocalStack can stand in;
 * - credentials: the `credentials` option, else the SDK's default chain (environment variables,
 *   shared files, SSO, container and instance roles); they never appear in errors or logs;
 * - retries: the SDK's `standard` retry mode with at most `maxAttempts` = 4 attempts (the
 *   specification's "at most 3 retries"): throttling (`ThrottlingException`, 429), transient 5xx
 *   (`InternalServiceException`, ...) and network errors, exponential backoff with jitter;
 * - 30 s per request (`requestTimeoutMs`, the SDK's `requestTimeout`), 5 s to connect;
 * - every failure is a `CatalogApiError` (`api` = `datalake.{Operation}`) whose `errorCode` is the
 *   Glue exception name (`EntityNotFoundException`, `AccessDeniedException`,
 *   `ConcurrentModificationException`, ...) and `status` the HTTP status; `failure` is
 *   `retries_exhausted` when a retryable failure used every attempt, `timeout`, `network` (no
 *   answer, or no credentials found), else `status`.
 *
 * The SDK is loaded on first use (`import()`), so processes that never talk to Glue do not pay for
 * it. Note: SDK releases after January 2027 require Node 22; constructing a client on Node 20 prints
 * the SDK's one-time `NodeVersionSupportWarning`.
 */
import type { GlueClient, TableInput } from '@aws-sdk/client-glue';
import { CatalogApiError } from '../../src/catalogs/provider.js';
import type { DatalakeCatalogPort, GlueTable, GlueTableInput, GlueTableRef } from '../../src/catalogs/datalake.js';
import type { Logger } from '../../src/logger.js';
import { credentialsRejected, notPermitted, urlAdvice, type ServiceSettings } from '../confluent/failureAdvice.js';

/** Options of `createGlueClient`. */
export interface GlueClientOptions {
  /** Default region (`LINEAGE_SVC_DATALAKE_REGION`), e.g. `eu-west-1`. */
  region: string;
  /** Endpoint override, e.g. `http://127.0.0.1:5000`; default: the SDK's resolution (`AWS_ENDPOINT_URL_GLUE`, else AWS). */
  endpoint?: string | undefined;
  /** Static credentials; default: the SDK's default provider chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string | undefined } | undefined;
  /** Attempts per call including the first (SDK `standard` retry mode); default 4. */
  maxAttempts?: number;
  /** Per-request timeout in ms; default 30,000. */
  requestTimeoutMs?: number;
  logger?: Logger | undefined;
}

/** The client, with its accounting. */
export interface GlueCatalogClient extends DatalakeCatalogPort {
  /** Attempts per API name (`datalake.GetTable`, `datalake.UpdateTable`), retries included. */
  counts(): Record<string, number>;
  /** Closes the SDK clients' connections. */
  destroy(): void;
}

/** Default attempts: 1 + at most 3 retries (`docs/specification.md`, "Limits"). */
export const GLUE_MAX_ATTEMPTS = 4;

type GlueSdk = typeof import('@aws-sdk/client-glue');
let sdkPromise: Promise<GlueSdk> | undefined;
const loadSdk = (): Promise<GlueSdk> => (sdkPromise ??= import('@aws-sdk/client-glue'));

/** What an SDK error carries (service exceptions and transport errors alike). */
interface SdkError {
  name?: string;
  message?: string;
  code?: string;
  $fault?: 'client' | 'server';
  $retryable?: { throttling?: boolean } | undefined;
  $metadata?: { httpStatusCode?: number; attempts?: number };
}

const THROTTLING = new Set([
  'ThrottlingException',
  'TooManyRequestsException',
  'Throttling',
  'RequestLimitExceeded',
  'SlowDown',
]);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** AWS exceptions that mean the credentials were rejected (not a missing permission). */
const CREDENTIALS_REJECTED = new Set([
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
  'ExpiredTokenException',
  'ExpiredToken',
  'InvalidClientTokenId',
]);

/** An AWS service as error messages name it: its name, the endpoint called, and its variables. */
export interface AwsService {
  /** `AWS Glue`, `Amazon DataZone`. */
  name: string;
  /** The endpoint called (the override, else the regional endpoint). */
  endpoint: string;
  /** The variables that set the endpoint and region, e.g. `AWS_ENDPOINT_URL_GLUE`. */
  endpointVariable: string;
  regionVariable: string;
  /** The IAM permissions the calls need, e.g. `glue:GetTable and glue:UpdateTable`. */
  permissions: string;
}

/** The AWS credentials, as error messages name them. */
function awsSettings(service: AwsService): ServiceSettings {
  return {
    name: service.name,
    urlVariable: service.endpointVariable,
    urlSource: `or ${service.regionVariable} for the regional endpoint`,
    credentialVariables: 'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE)',
    credentialFallback: "the SDK's default chain (shared files, SSO, container and instance roles)",
    credentialNoun: 'access key, secret or session token',
    holder: 'the principal',
    permission: 'an IAM permission',
    roles: service.permissions,
  };
}

/**
 * What to change for an AWS failure, as `; {advice}`: rejected credentials, a missing IAM
 * permission (`AccessDeniedException`, 403), or an endpoint that cannot be reached; else nothing.
 */
function awsAdvice(service: AwsService | undefined, name: string, status: number | undefined, code?: string): string {
  if (!service) return '';
  const answer = `${status === undefined ? '' : `HTTP ${status} `}${name}`;
  if (CREDENTIALS_REJECTED.has(name) || status === 401)
    return `; ${credentialsRejected(awsSettings(service), service.endpoint, answer)}`;
  if (name === 'AccessDeniedException' || status === 403)
    return `; ${notPermitted(awsSettings(service), service.endpoint, answer)}`;
  if (status === undefined && (code === undefined || NETWORK_CODES.has(code)))
    return `; ${service.name} is unreachable at ${service.endpoint}: ${urlAdvice(awsSettings(service))}`;
  return '';
}

/**
 * Turns an SDK failure into a `CatalogApiError` (see the module comment). The message names the
 * API, the table and the Glue exception, never a credential; with `service`, rejected credentials,
 * missing permissions and unreachable endpoints also say what to change (the variables).
 */
export function toCatalogApiError(
  api: string,
  what: string,
  error: unknown,
  maxAttempts = GLUE_MAX_ATTEMPTS,
  service?: AwsService,
): CatalogApiError {
  const e = (error ?? {}) as SdkError;
  const name = e.name ?? 'Error';
  const status = e.$metadata?.httpStatusCode;
  const attempts = e.$metadata?.attempts ?? 1;
  const text =
    `${api} ${what}: ${name}: ${e.message ?? String(error)}` +
    (name === 'TimeoutError' ? '' : awsAdvice(service, name, status, e.code));
  if (name === 'TimeoutError' || e.code === 'ETIMEDOUT' || name === 'RequestTimeout')
    return new CatalogApiError(api, 'timeout', status, text, name);
  if (name === 'CredentialsProviderError')
    return new CatalogApiError(
      api,
      'network',
      undefined,
      `${api} ${what}: no AWS credentials found (${e.message ?? ''}); set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY ` +
        '(or AWS_PROFILE)',
      name,
    );
  const retryable =
    THROTTLING.has(name) ||
    e.$retryable !== undefined ||
    (status !== undefined && status >= 500) ||
    (status === undefined && (e.code === undefined || NETWORK_CODES.has(e.code)));
  if (retryable && attempts >= maxAttempts)
    return new CatalogApiError(api, 'retries_exhausted', status, `${text} (gave up after ${attempts} attempts)`, name);
  if (status === undefined) return new CatalogApiError(api, 'network', undefined, text, e.code ?? name);
  return new CatalogApiError(api, 'status', status, text, name);
}

/**
 * A Glue client over the AWS SDK (see the module comment). SDK clients are created lazily per
 * region; call `destroy()` when done to close their sockets.
 */
export function createGlueClient(options: GlueClientOptions): GlueCatalogClient {
  const maxAttempts = options.maxAttempts ?? GLUE_MAX_ATTEMPTS;
  const clients = new Map<string, Promise<GlueClient>>();
  const counts: Record<string, number> = {};

  const clientFor = (region: string): Promise<GlueClient> => {
    let client = clients.get(region);
    if (!client) {
      client = loadSdk().then(
        (sdk) =>
          new sdk.GlueClient({
            region,
            retryMode: 'standard',
            maxAttempts,
            requestHandler: { requestTimeout: options.requestTimeoutMs ?? 30_000, connectionTimeout: 5_000 },
            ...(options.endpoint ? { endpoint: options.endpoint } : {}),
            ...(options.credentials ? { credentials: options.credentials } : {}),
          }),
      );
      clients.set(region, client);
    }
    return client;
  };

  /** Runs one SDK command, counting attempts and mapping failures. */
  const call = async <T>(
    operation: string,
    ref: GlueTableRef,
    send: (client: GlueClient, sdk: GlueSdk) => Promise<T & { $metadata?: { attempts?: number } }>,
  ): Promise<T> => {
    const api = `datalake.${operation}`;
    const [client, sdk] = await Promise.all([clientFor(ref.region), loadSdk()]);
    try {
      const output = await send(client, sdk);
      counts[api] = (counts[api] ?? 0) + (output.$metadata?.attempts ?? 1);
      return output;
    } catch (error) {
      counts[api] = (counts[api] ?? 0) + ((error as SdkError)?.$metadata?.attempts ?? 1);
      const mapped = toCatalogApiError(api, `${ref.database}/${ref.table} (${ref.region})`, error, maxAttempts, {
        name: 'AWS Glue',
        endpoint: options.endpoint ?? process.env.AWS_ENDPOINT_URL_GLUE ?? `https://glue.${ref.region}.amazonaws.com`,
        endpointVariable: 'AWS_ENDPOINT_URL_GLUE',
        regionVariable: 'LINEAGE_SVC_DATALAKE_REGION',
        permissions: 'glue:GetTable, and glue:UpdateTable to push',
      });
      options.logger?.debug(
        { api, region: ref.region, status: mapped.status, error_code: mapped.errorCode, failure: mapped.failure },
        'Datalake:CallFailed',
      );
      throw mapped;
    }
  };

  return {
    region: options.region,
    async getTable(ref) {
      const output = await call('GetTable', ref, (client, sdk) =>
        client.send(new sdk.GetTableCommand({ DatabaseName: ref.database, Name: ref.table })),
      );
      if (!output.Table)
        throw new CatalogApiError(
          'datalake.GetTable',
          'invalid_response',
          200,
          `datalake.GetTable ${ref.database}/${ref.table}: answer has no Table`,
        );
      return output.Table as GlueTable;
    },
    async updateTable(ref, input: GlueTableInput, { versionId, skipArchive }) {
      await call('UpdateTable', ref, (client, sdk) =>
        client.send(
          new sdk.UpdateTableCommand({
            DatabaseName: ref.database,
            // Our TableInput is the SDK's, typed loosely for the fields copied through untouched.
            TableInput: input as unknown as TableInput,
            SkipArchive: skipArchive,
            ...(versionId ? { VersionId: versionId } : {}),
          }),
        ),
      );
    },
    counts: () => ({ ...counts }),
    destroy() {
      for (const client of clients.values()) void client.then((c) => c.destroy());
      clients.clear();
    },
  };
}
