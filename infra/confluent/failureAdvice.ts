/**
 * The wording of network and credential failures toward the platform and the catalogs, so that each
 * says what to change (issue 17, item 1; `docs/configuration.md`, "When a call fails"): the service
 * (`Confluent Cloud API`, `Kafka REST`, `Schema Registry`, `Databricks`, `BigQuery`...), the URL, and
 * the environment variable to change. A 401 (credentials rejected: the key or secret is wrong or
 * expired) is told apart from a 403 (authenticated but not permitted: the key lacks a role binding).
 */

/** Who answers at a base URL, and which settings point lineage-svc at it and authenticate it. */
export interface ServiceSettings {
  /** The service as a user knows it, e.g. `Confluent Cloud API`, `Kafka REST`, `Databricks`. */
  name: string;
  /** The variable that sets the base URL, e.g. `LINEAGE_SVC_STREAM_CLOUD_API_URL`; absent when discovered. */
  urlVariable?: string | undefined;
  /**
   * Where the URL comes from when no variable sets it, e.g. `the cluster's spec.http_endpoint in
   * cmk.clusters`; or how a variable can override it.
   */
  urlSource?: string | undefined;
  /**
   * The variables of the credentials, e.g. `LINEAGE_SVC_STREAM_CLOUD_API_KEY and
   * LINEAGE_SVC_STREAM_CLOUD_API_SECRET`, or `LINEAGE_SVC_LAKEHOUSE_TOKEN`.
   */
  credentialVariables: string;
  /** What stands in when those are unset, e.g. `the cloud key`. */
  credentialFallback?: string | undefined;
  /** The role bindings a 403 suggests, e.g. `CloudClusterAdmin, or DeveloperRead on the topics`. */
  roles?: string | undefined;
  /** What a 401 says is wrong or expired; default `key or secret` (`token` for bearer tokens). */
  credentialNoun?: string | undefined;
  /** Who a 403 says lacks the permission; default `the key` (`the token's user`, `the account`). */
  holder?: string | undefined;
  /** What a 403 says is lacking; default `a role binding` (`a grant`, `an IAM role`). */
  permission?: string | undefined;
}

/** The key and secret variables of a credential prefix: `{prefix}_KEY and {prefix}_SECRET`. */
export function keyAndSecret(prefix: string): string {
  return `${prefix}_KEY and ${prefix}_SECRET`;
}

/** What to change about the URL: `check LINEAGE_SVC_..._URL` or where the discovered URL comes from. */
export function urlAdvice(service: ServiceSettings): string {
  if (service.urlVariable) {
    return `check ${service.urlVariable}${service.urlSource ? ` (${service.urlSource})` : ''} and that this host can reach it`;
  }
  return `check that this host can reach it${service.urlSource ? ` (the URL is ${service.urlSource})` : ''}`;
}

/** The credential variables to set, with the fallback used when they are unset. */
function credentialAdvice(service: ServiceSettings): string {
  return `${service.credentialVariables}${service.credentialFallback ? ` (when unset, ${service.credentialFallback} is used)` : ''}`;
}

/**
 * A 401 (or `answer`, e.g. AWS's `HTTP 400 UnrecognizedClientException`): `Confluent Cloud API
 * rejected the credentials at {url} (HTTP 401): the key or secret is wrong or expired; set
 * LINEAGE_SVC_STREAM_CLOUD_API_KEY and LINEAGE_SVC_STREAM_CLOUD_API_SECRET`.
 */
export function credentialsRejected(service: ServiceSettings, url: string, answer = 'HTTP 401'): string {
  return (
    `${service.name} rejected the credentials at ${url} (${answer}): the ${service.credentialNoun ?? 'key or secret'} ` +
    `is wrong or expired; set ${credentialAdvice(service)}`
  );
}

/**
 * A 403 (or `answer`, e.g. AWS's `HTTP 400 AccessDeniedException`): `Kafka REST refused the request
 * at {url} (HTTP 403): the credentials are valid but the key lacks a role binding for this resource
 * (...); grant it, or set ... to credentials that have it`.
 */
export function notPermitted(service: ServiceSettings, url: string, answer = 'HTTP 403'): string {
  return (
    `${service.name} refused the request at ${url} (${answer}): the credentials are valid but ` +
    `${service.holder ?? 'the key'} lacks ${service.permission ?? 'a role binding'} for this resource` +
    `${service.roles ? ` (${service.roles})` : ''}; grant it, or set ${credentialAdvice(service)} to credentials that have it`
  );
}

/**
 * `{Service} is unreachable at {url} ({cause}; gave up after N attempts): check ...`; after one attempt
 * (a failure that no retry can mend, `isPermanentNetworkFailure`) it says it was not retried.
 */
export function unreachable(service: ServiceSettings, url: string, cause: string, attempts: number): string {
  const tries = attempts === 1 ? 'not retried' : `gave up after ${attempts} attempts`;
  return `${service.name} is unreachable at ${url} (${cause}; ${tries}): ${urlAdvice(service)}`;
}

/**
 * True for a network failure that only a change of address mends, so retrying is pointless: a host
 * name that does not resolve (`ENOTFOUND`), or a port that fetch refuses to connect to (`bad port`:
 * the ports the Fetch standard blocks, such as 1, 25 or 6000).
 */
export function isPermanentNetworkFailure(error: unknown): boolean {
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  const code = (cause as { code?: unknown } | undefined)?.code;
  return code === 'ENOTFOUND' || (cause instanceof Error && cause.message === 'bad port');
}

/** `{Service} gave no answer within {s} s at {url}: check ...`. */
export function noAnswer(service: ServiceSettings, url: string, seconds: number): string {
  return `${service.name} gave no answer within ${seconds} s at ${url}: ${urlAdvice(service)}`;
}

const NETWORK_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
};

/**
 * A network error in a few words: fetch's `fetch failed` says nothing, so the cause's code is
 * translated (`ECONNREFUSED` -> `connection refused`), or its message is used (TLS errors).
 */
export function networkCause(error: unknown): string {
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  const code = (cause as { code?: unknown } | undefined)?.code ?? (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && NETWORK_CODES[code]) return NETWORK_CODES[code]!;
  if (cause instanceof Error && cause.message) return cause.message;
  return error instanceof Error ? error.message : String(error);
}
