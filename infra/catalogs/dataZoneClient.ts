/**
 * The data governance catalog's client: AWS DataZone over the official AWS SDK
 * (`@aws-sdk/client-datazone`), implementing `DataGovernanceCatalogPort`
 * (`src/catalogs/dataGovernance.ts`). Reference: `docs/catalog-apis.md` C2 (`PostLineageEvent`:
 * `POST /v2/domains/{domainIdentifier}/lineage/events`, REST JSON, SigV4 service `datazone`).
 *
 * Rules:
 * - region: the `region` option (the catalog gateway passes `AWS_REGION`, else
 *   `LINEAGE_SVC_DATALAKE_REGION`); when undefined, the SDK's own resolution (the shared config
 *   file's profile), and a call fails with `no region` when that finds none;
 * - endpoint: the `endpoint` option, else the SDK's resolution, which honors the standard
 *   `AWS_ENDPOINT_URL_DATAZONE` (and `AWS_ENDPOINT_URL`), so the simulator of
 *   `simulators/datazone/` can stand in;
 * - credentials: the `credentials` option, else the SDK's default chain; never in errors or logs;
 * - retries: the SDK's `standard` mode, at most `maxAttempts` = 4 attempts (throttling 429,
 *   `InternalServerException` 500, network errors), exponential backoff with jitter; 30 s per request;
 * - every failure is a `CatalogApiError` (`api` = `data_governance.PostLineageEvent`) whose
 *   `errorCode` is the DataZone exception name (`AccessDeniedException`,
 *   `ResourceNotFoundException`, `ValidationException`, `ConflictException`, ...) and `status` the
 *   HTTP status (`toCatalogApiError` of `./glueClient.ts`).
 *
 * The SDK is loaded on first use (`import()`).
 */
import type { DataZoneClient } from '@aws-sdk/client-datazone';
import type { DataGovernanceCatalogPort } from '../../src/catalogs/dataGovernance.js';
import type { Logger } from '../../src/logger.js';
import { toCatalogApiError } from './glueClient.js';

/** Options of `createDataZoneClient`. */
export interface DataZoneClientOptions {
  /** The domain (`LINEAGE_SVC_DATA_GOVERNANCE_DOMAIN_ID`). */
  domainId: string;
  /** Region, e.g. `eu-west-1`; undefined: the SDK's resolution. */
  region?: string | undefined;
  /** Endpoint override, e.g. `http://127.0.0.1:5000`; default: `AWS_ENDPOINT_URL_DATAZONE`, else AWS. */
  endpoint?: string | undefined;
  /** Static credentials; default: the SDK's default provider chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string | undefined } | undefined;
  /** Attempts per call including the first; default 4. */
  maxAttempts?: number;
  /** Per-request timeout in ms; default 30,000. */
  requestTimeoutMs?: number;
  logger?: Logger | undefined;
}

/** The client, with its accounting. */
export interface DataZoneCatalogClient extends DataGovernanceCatalogPort {
  /** Attempts per API name (`data_governance.PostLineageEvent`), retries included. */
  counts(): Record<string, number>;
  /** Closes the SDK client's connections. */
  destroy(): void;
}

type DataZoneSdk = typeof import('@aws-sdk/client-datazone');
let sdkPromise: Promise<DataZoneSdk> | undefined;
const loadSdk = (): Promise<DataZoneSdk> => (sdkPromise ??= import('@aws-sdk/client-datazone'));

/** A DataZone client over the AWS SDK (see the module comment). */
export function createDataZoneClient(options: DataZoneClientOptions): DataZoneCatalogClient {
  const maxAttempts = options.maxAttempts ?? 4;
  const counts: Record<string, number> = {};
  let client: Promise<DataZoneClient> | undefined;
  const clientOf = () =>
    (client ??= loadSdk().then(
      (sdk) =>
        new sdk.DataZoneClient({
          ...(options.region ? { region: options.region } : {}),
          retryMode: 'standard',
          maxAttempts,
          requestHandler: { requestTimeout: options.requestTimeoutMs ?? 30_000, connectionTimeout: 5_000 },
          ...(options.endpoint ? { endpoint: options.endpoint } : {}),
          ...(options.credentials ? { credentials: options.credentials } : {}),
        }),
    ));
  return {
    domainId: options.domainId,
    async postLineageEvent(event, clientToken) {
      const api = 'data_governance.PostLineageEvent';
      const what = `${event.job.namespace}:${event.job.name} (domain ${options.domainId})`;
      try {
        const [dataZone, sdk] = await Promise.all([clientOf(), loadSdk()]);
        const output = await dataZone.send(
          new sdk.PostLineageEventCommand({
            domainIdentifier: options.domainId,
            event: new TextEncoder().encode(JSON.stringify(event)),
            clientToken,
          }),
        );
        counts[api] = (counts[api] ?? 0) + (output.$metadata?.attempts ?? 1);
        return { id: output.id, domainId: output.domainId };
      } catch (error) {
        const attempts = (error as { $metadata?: { attempts?: number } })?.$metadata?.attempts ?? 1;
        counts[api] = (counts[api] ?? 0) + attempts;
        const mapped = /region is missing/i.test(String((error as Error)?.message))
          ? toCatalogApiError(api, what, { name: 'ConfigurationError', message: 'no region: set AWS_REGION' })
          : toCatalogApiError(api, what, error, maxAttempts, {
              name: 'Amazon DataZone',
              endpoint:
                options.endpoint ??
                process.env.AWS_ENDPOINT_URL_DATAZONE ??
                `https://datazone.${options.region ?? '{AWS_REGION}'}.api.aws`,
              endpointVariable: 'AWS_ENDPOINT_URL_DATAZONE',
              regionVariable: 'AWS_REGION',
              permissions: 'datazone:PostLineageEvent in the domain',
            });
        options.logger?.debug(
          { api, status: mapped.status, error_code: mapped.errorCode, failure: mapped.failure },
          'DataGovernance:CallFailed',
        );
        throw mapped;
      }
    },
    counts: () => ({ ...counts }),
    destroy() {
      void client?.then((c) => c.destroy());
      client = undefined;
    },
  };
}
