/**
 * How extraction words and classifies platform failures: the warning of a failed extractor
 * (`docs/extraction.md`, "Phases": a failed or timed-out extractor adds a warning and contributes
 * nothing), and the two tests the phases use to keep warnings quiet or single.
 */
import { PlatformApiError } from './port.js';

/**
 * What a 401 or 403 warning says when the error carries no `advice` (a `PlatformPort` other than the
 * HTTP adapter): a 401 means the credentials were rejected, a 403 that they lack a permission.
 */
const AUTH_FALLBACK: Readonly<Record<401 | 403, string>> = {
  401: 'the API key or secret was rejected (wrong or expired)',
  403: 'the API key is not authorized for this resource',
};

/**
 * The warning for a failed extractor, e.g. `ConsumerGroups:lkc-1: kafka-rest.consumer-groups answered
 * 403: Kafka REST refused the request at {url} (HTTP 403): ...`. A 401 or 403 gives the error's
 * `advice`: the service, the URL and the variables to change (`infra/confluent/failureAdvice.ts`;
 * without advice, a 401 says the key was rejected and a 403 that it lacks access); on
 * `kafka-rest.topics` a 401 first says that a cluster-scoped key is needed. A 400 says the key may
 * lack access or the parameters are invalid; a 404 from Schema Registry, Stream Catalog or
 * `srcm.clusters` says Schema Registry may be disabled in `environmentId`. Errors that are not
 * `PlatformApiError`s (`src/extraction/port.ts`) read `{label}: failed: {message}`.
 * @param label the extractor, e.g. `KafkaAdmin:lkc-1`, `StreamCatalog:env-1`.
 * @param environmentId the environment named by the Schema Registry warning; `(unknown)` when absent.
 */
export function failureWarning(label: string, error: unknown, environmentId?: string): string {
  if (error instanceof PlatformApiError) {
    const { api, status } = error;
    if (error.failure === 'status') {
      if (status === 400)
        return `${label}: ${api} answered 400: the API key may lack access or the parameters are invalid`;
      if (status === 401 && api === 'kafka-rest.topics') {
        const hint = `${label}: ${api} answered 401: listing topics needs a cluster-scoped API key`;
        return error.advice
          ? `${hint}; ${error.advice}`
          : `${hint} (set LINEAGE_SVC_CLUSTER_API_KEY and LINEAGE_SVC_CLUSTER_API_SECRET)`;
      }
      if (
        status === 404 &&
        (api.startsWith('schema-registry.') || api.startsWith('catalog.') || api === 'srcm.clusters')
      ) {
        return `${label}: ${api} answered 404: Schema Registry may be disabled in environment ${environmentId ?? '(unknown)'}`;
      }
      if (status === 401 || status === 403)
        return `${label}: ${api} answered ${status}: ${error.advice ?? AUTH_FALLBACK[status]}`;
      return `${label}: ${api} answered ${status ?? 'an error'}`;
    }
    return `${label}: ${error.message}`;
  }
  return `${label}: failed: ${error instanceof Error ? error.message : String(error)}`;
}

/** True when `error` is a 404 answered by the API `api` (e.g. `kafka-rest.mirrors` on a cluster without Cluster Linking). */
export function isNotFound(error: unknown, api: string): boolean {
  return error instanceof PlatformApiError && error.api === api && error.failure === 'status' && error.status === 404;
}

/** True when two failures are the same authentication problem (401 or 403 both times): one warning is enough. */
export function sameAuthFailure(first: unknown, second: unknown): boolean {
  return (
    first instanceof PlatformApiError &&
    second instanceof PlatformApiError &&
    first.status === second.status &&
    (first.status === 401 || first.status === 403)
  );
}
