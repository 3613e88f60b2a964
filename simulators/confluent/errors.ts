/**
 * Error answers of the platform simulator, in the envelope of each API family (they differ on the
 * real platform; see `docs/platform-apis.md` section 0, "Error body shapes"):
 *
 * - `v2` (org, cmk, fcpm, ksqldbcm, srcm, iam, tableflow, Flink SQL):
 *   `{"errors":[{"id","status":"404","code","title","detail","source":{}}]}`
 * - `kafka-rest`: `{"error_code":40403,"message":"..."}` (40101 auth, 40301 authz, 40403 unknown topic); 429
 *   is Jetty's HTML page
 * - `schema-registry` (also Stream Catalog): `{"error_code":40401,"message":"..."}`
 * - `connect`: `{"error":{"code":404,"message":"..."}}` (and the recorded
 *   `{"error_code":404,"message":"resource not found"}` for an unknown connector)
 * - `metrics`: `{"errors":[{"detail":"..."}]}`
 * - `ksqldb`: `{"@type":"generic_error","error_code":40100,"message":"..."}` / `statement_error` with
 *   `statementText`, `entities`
 */

/** The error envelope families. `admin` is the simulator's own `/_simulator` API. */
export type Family = 'v2' | 'kafka-rest' | 'schema-registry' | 'connect' | 'metrics' | 'ksqldb' | 'admin';

/** Extra details of an error answer. */
export interface ErrorDetails {
  /** v2 `code` (`resource_not_found`...) */
  code?: string;
  /** v2 `source.parameter` */
  parameter?: string;
  /** `error_code` for kafka-rest / schema-registry / ksqldb (default derived from the status) */
  errorCode?: number;
  /** replaces the whole body */
  body?: unknown;
  /** extra response headers */
  headers?: Record<string, string>;
  /** ksqlDB statement errors: the statement and the entities answered before it */
  statementText?: string;
  entities?: unknown[];
}

/** An error answer: thrown by handlers, rendered by the server's error handler. */
export class HttpError extends Error {
  readonly status: number;
  readonly family: Family;
  readonly details: ErrorDetails;

  constructor(status: number, family: Family, message: string, details: ErrorDetails = {}) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.family = family;
    this.details = details;
  }
}

const v2Titles: Record<number, [string, string]> = {
  400: ['bad_request', 'Bad Request'],
  401: ['user_unauthenticated', 'Authentication Required'],
  403: ['forbidden_access', 'Forbidden Access'],
  404: ['resource_not_found', 'Resource Not Found'],
  409: ['conflict', 'Conflict'],
  429: ['too_many_requests', 'Too Many Requests'],
  500: ['internal_server_error', 'Internal Server Error'],
  501: ['not_implemented', 'Not Implemented'],
  502: ['bad_gateway', 'Bad Gateway'],
  503: ['service_unavailable', 'Service Unavailable'],
  504: ['gateway_timeout', 'Gateway Timeout'],
};

/**
 * A new sequence of error ids: each call of the returned function answers the next 32-hex-digit id,
 * like the platform's (`5eed` then a counter: deterministic). Each simulator keeps its own sequence,
 * so that two simulators in one process answer the same ids for the same requests.
 */
export function errorIdSequence(): () => string {
  let seq = 0;
  return () => {
    seq = (seq + 1) % 0xffffffff;
    return `5eed${seq.toString(16).padStart(28, '0')}`;
  };
}

/** Default `error_code` of the kafka-rest family for an HTTP status. */
function kafkaRestCode(status: number): number {
  if (status === 401) return 40101;
  if (status === 403) return 40301;
  if (status === 503) return 50003;
  return status;
}

/** The Jetty DoSFilter page Kafka REST sends with a 429 (as in the official spec's example). */
export function kafkaRest429Html(uri: string): string {
  return (
    '<html> <head> <meta http-equiv="Content-Type" content="text/html;charset=utf-8"/> <title>Error 429 Too Many Requests</title> </head> ' +
    '<body> <h2>HTTP ERROR 429 Too Many Requests</h2> <table> ' +
    `<tr> <th>URI:</th> <td>${uri}</td> </tr> <tr> <th>STATUS:</th> <td>429</td> </tr> ` +
    '<tr> <th>MESSAGE:</th> <td>Too Many Requests</td> </tr> <tr> <th>SERVLET:</th> <td>default</td> </tr> </table> </body> </html>'
  );
}

/** A rendered error answer. */
export interface RenderedError {
  status: number;
  contentType: string;
  body: string;
  headers: Record<string, string>;
}

/**
 * Renders an error in its family's envelope.
 * @param uri the request path (only used by the Kafka REST 429 HTML page)
 * @param errorId the id of a `v2` error body (the server's own `errorIdSequence`)
 */
export function renderError(error: HttpError, uri: string, errorId: () => string): RenderedError {
  const { status, family, details } = error;
  const headers: Record<string, string> = { ...(details.headers ?? {}) };
  const json = (body: unknown): RenderedError => ({
    status,
    contentType: 'application/json',
    body: JSON.stringify(body),
    headers,
  });
  if (details.body !== undefined) {
    return typeof details.body === 'string'
      ? { status, contentType: 'text/plain; charset=utf-8', body: details.body, headers }
      : json(details.body);
  }
  switch (family) {
    case 'v2': {
      const [code, title] = v2Titles[status] ?? ['error', 'Error'];
      const entry: Record<string, unknown> = {
        id: errorId(),
        status: String(status),
        code: details.code ?? code,
        title,
        detail: error.message,
        source: details.parameter !== undefined ? { parameter: details.parameter } : {},
      };
      return json({ errors: [entry] });
    }
    case 'kafka-rest':
      if (status === 429) {
        return { status, contentType: 'text/html;charset=iso-8859-1', body: kafkaRest429Html(uri), headers };
      }
      return json({ error_code: details.errorCode ?? kafkaRestCode(status), message: error.message });
    case 'schema-registry':
      return json({ error_code: details.errorCode ?? status, message: error.message });
    case 'connect':
      if (details.errorCode !== undefined) return json({ error_code: details.errorCode, message: error.message });
      return json({ error: { code: status, message: error.message } });
    case 'metrics':
      return json({ errors: [{ detail: error.message }] });
    case 'ksqldb':
      if (details.statementText !== undefined) {
        return json({
          '@type': 'statement_error',
          error_code: details.errorCode ?? 40001,
          message: error.message,
          statementText: details.statementText,
          entities: details.entities ?? [],
        });
      }
      return json({ '@type': 'generic_error', error_code: details.errorCode ?? status * 100, message: error.message });
    case 'admin':
      return json({ error: error.message });
  }
}

/** The standard message of each family for 401/403/404/429/5xx answers produced by faults or auth. */
export function standardMessage(family: Family, status: number): string {
  if (status === 401) {
    if (family === 'kafka-rest') return 'Authentication failed';
    if (family === 'v2') return 'Valid authentication credentials must be provided';
    return 'Unauthorized';
  }
  if (status === 403) return family === 'kafka-rest' ? 'Request is not authorized' : 'Forbidden';
  if (status === 404) {
    if (family === 'kafka-rest' || family === 'schema-registry') return 'HTTP 404 Not Found';
    if (family === 'v2') return 'Resource Not Found';
    return 'Not Found';
  }
  if (status === 429) return 'Too Many Requests';
  if (status === 500) return 'Internal Server Error';
  if (status === 502) return 'Bad Gateway';
  if (status === 503) return family === 'kafka-rest' ? 'Service unavailable, please retry' : 'Service Unavailable';
  if (status === 504) return 'Gateway Timeout';
  return `HTTP ${status}`;
}
