/**
 * The data governance simulator: a real HTTP server on 127.0.0.1 standing in for AWS DataZone's
 * `PostLineageEvent` (`docs/catalog-apis.md` C2), for tests and the demo (moto does not serve
 * DataZone). Point the SDK at it with `AWS_ENDPOINT_URL_DATAZONE={url}` (or the client's
 * `endpoint`) and any static credentials.
 *
 * `POST /v2/domains/{domainIdentifier}/lineage/events` (`data_governance.PostLineageEvent`):
 * - the request must be SigV4-signed for service `datazone` (an `Authorization: AWS4-HMAC-SHA256
 *   Credential=.../datazone/aws4_request` header; the signature itself is not checked): else 403
 *   `AccessDeniedException`;
 * - an unknown domain answers 404 `ResourceNotFoundException`;
 * - the body is the event's bytes: not JSON, not a RunEvent (`eventType`, `eventTime`,
 *   `run.runId`, `job.namespace`, `job.name`), or over 300,000 bytes answers 400 `ValidationException`;
 * - `Client-Token`: a token seen before with the same body answers the first response again and
 *   records nothing (idempotency); with another body, 409 `ConflictException`;
 * - else 200 `{"domainId", "id"}` and the event is recorded (`lineageEvents()`).
 *
 * Errors are REST JSON: the status, header `x-amzn-ErrorType: {Exception}` and body `{"message"}`.
 * Faults: `injectFault({status, times?, job?})` answers the next `times` matching requests
 * (default: every one while installed) with the exception of that status (401 `UnauthorizedException`,
 * 402 `ServiceQuotaExceededException`, 403 `AccessDeniedException`, 404 `ResourceNotFoundException`,
 * 409 `ConflictException`, 429 `ThrottlingException`, 500 `InternalServerException`); with `job`,
 * only events whose `job.name` contains it (a permission fault on one job).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One event as recorded. */
export interface ReceivedDataZoneEvent {
  domainId: string;
  id: string;
  clientToken: string | null;
  event: Record<string, unknown>;
}

/** A fault: the exception of `status` for matching requests. */
export interface DataZoneFault {
  status: 401 | 402 | 403 | 404 | 409 | 429 | 500;
  /** How many requests it answers; default: every matching request until `clearFaults()`. */
  times?: number;
  /** Only events whose `job.name` contains this text. */
  job?: string;
}

/** Options of `startDataZoneSimulator`. */
export interface DataZoneSimulatorOptions {
  /** Domains that exist (`dzd_...`); default `DEMO_DATAZONE_DOMAIN`. */
  domains?: string[];
  host?: string;
  port?: number;
  faults?: DataZoneFault[];
}

/** A running DataZone simulator. */
export interface DataZoneSimulator {
  /** Base URL, no trailing slash (the `AWS_ENDPOINT_URL_DATAZONE` to set). */
  url: string;
  domains: readonly string[];
  /** Every event recorded, in order (copies). */
  lineageEvents(): ReceivedDataZoneEvent[];
  /** Requests per API name (`data_governance.PostLineageEvent`), answered or not. */
  requestCounts(): Record<string, number>;
  injectFault(fault: DataZoneFault): void;
  clearFaults(): void;
  close(): Promise<void>;
}

/** The demo scenario's domain and project (`lineage-svc-simulator` prints them). */
export const DEMO_DATAZONE_DOMAIN = 'dzd_4k7q2x9m1v5b8n';
export const DEMO_DATAZONE_PROJECT = 'prj_6t3w8r1y5u0i';
/** The largest event DataZone accepts, in bytes. */
const MAX_EVENT_BYTES = 300_000;

const EXCEPTIONS: Record<DataZoneFault['status'] | 400, string> = {
  400: 'ValidationException',
  401: 'UnauthorizedException',
  402: 'ServiceQuotaExceededException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  409: 'ConflictException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
};

class DataZoneError extends Error {
  constructor(
    readonly status: keyof typeof EXCEPTIONS,
    message: string,
  ) {
    super(message);
  }
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
    ...headers,
  });
  response.end(text);
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The event of a body, or a ValidationException. */
function parseEvent(body: Buffer): Record<string, unknown> {
  if (body.length > MAX_EVENT_BYTES)
    throw new DataZoneError(400, `event is ${body.length} bytes; the limit is ${MAX_EVENT_BYTES}`);
  let event: Record<string, unknown>;
  try {
    event = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new DataZoneError(400, 'event is not valid JSON');
  }
  const run = event?.run as { runId?: unknown } | undefined;
  const job = event?.job as { namespace?: unknown; name?: unknown } | undefined;
  if (
    typeof event?.eventTime !== 'string' ||
    typeof run?.runId !== 'string' ||
    typeof job?.namespace !== 'string' ||
    typeof job?.name !== 'string'
  )
    throw new DataZoneError(
      400,
      'Only OpenLineage run events are supported (eventTime, run.runId, job.namespace, job.name)',
    );
  return event;
}

/** Starts the simulator (default 127.0.0.1, an ephemeral port). */
export async function startDataZoneSimulator(options: DataZoneSimulatorOptions = {}): Promise<DataZoneSimulator> {
  const domains = options.domains ?? [DEMO_DATAZONE_DOMAIN];
  const events: ReceivedDataZoneEvent[] = [];
  const tokens = new Map<string, { hash: string; answer: { domainId: string; id: string } }>();
  const counts: Record<string, number> = {};
  let faults: Array<DataZoneFault & { left: number }> = (options.faults ?? []).map((f) => ({
    ...f,
    left: f.times ?? Infinity,
  }));

  const postLineageEvent = (domainId: string, body: Buffer, request: IncomingMessage) => {
    const authorization = String(request.headers.authorization ?? '');
    if (!/^AWS4-HMAC-SHA256 Credential=[^/]+\/\d{8}\/[^/]+\/datazone\/aws4_request/.test(authorization))
      throw new DataZoneError(403, 'Missing or invalid SigV4 authentication for service datazone');
    if (!domains.includes(domainId)) throw new DataZoneError(404, `Domain ${domainId} not found`);
    const event = parseEvent(body);
    const jobName = (event.job as { name: string }).name;
    const fault = faults.find((f) => f.left > 0 && (f.job === undefined || jobName.includes(f.job)));
    if (fault) {
      fault.left -= 1;
      throw new DataZoneError(fault.status, `Simulated ${EXCEPTIONS[fault.status]} for job ${jobName}`);
    }
    const token = typeof request.headers['client-token'] === 'string' ? request.headers['client-token'] : null;
    const hash = createHash('sha256').update(body).digest('hex');
    if (token !== null) {
      const seen = tokens.get(`${domainId}\n${token}`);
      if (seen && seen.hash === hash) return seen.answer;
      if (seen) throw new DataZoneError(409, `Client-Token ${token} was used with a different request`);
    }
    const answer = { domainId, id: `le-${randomUUID().replaceAll('-', '').slice(0, 14)}` };
    if (token !== null) tokens.set(`${domainId}\n${token}`, { hash, answer });
    events.push({ domainId, id: answer.id, clientToken: token, event });
    return answer;
  };

  const server = createServer((request, response) => {
    void (async () => {
      const match = /^\/v2\/domains\/([^/]+)\/lineage\/events$/.exec((request.url ?? '').split('?')[0]!);
      if (request.method !== 'POST' || !match) {
        send(
          response,
          404,
          { message: `No route for ${request.method} ${request.url}` },
          {
            'x-amzn-errortype': 'UnknownOperationException',
          },
        );
        return;
      }
      const api = 'data_governance.PostLineageEvent';
      counts[api] = (counts[api] ?? 0) + 1;
      const body = await readBody(request);
      try {
        send(response, 200, postLineageEvent(decodeURIComponent(match[1]!), body, request));
      } catch (error) {
        const failure = error instanceof DataZoneError ? error : new DataZoneError(500, String(error));
        send(
          response,
          failure.status,
          { message: failure.message },
          {
            'x-amzn-errortype': EXCEPTIONS[failure.status],
          },
        );
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    domains,
    lineageEvents: () => events.map((e) => structuredClone(e)),
    requestCounts: () => ({ ...counts }),
    injectFault(fault) {
      faults.push({ ...fault, left: fault.times ?? Infinity });
    },
    clearFaults() {
      faults = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
