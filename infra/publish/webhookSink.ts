/**
 * The webhook sink of the change publisher (`services/publisher.ts`): each batch of CloudEvents is one
 * `POST` of a JSON array (CloudEvents batched JSON mode, `application/cloudevents-batch+json`),
 * signed the Standard Webhooks way when a secret is configured:
 *
 * - `webhook-id`: `lineage-{first position}-{last position}` of the batch (the same on a retry);
 * - `webhook-timestamp`: seconds since the epoch;
 * - `webhook-signature`: `v1,{base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}"}`, keyed
 *   with the base64-decoded bytes of `LINEAGE_SVC_PUBLISH_WEBHOOK_SECRET`, a Standard Webhooks secret
 *   (`whsec_` and the base64 of 24 to 64 random bytes; `webhookSecretKey`), so that the reference
 *   verifiers (the `standardwebhooks` libraries) accept it; `verifyWebhookSignature` checks one.
 *
 * Source: the Standard Webhooks specification, "Signature scheme" and "Symmetric signatures"
 * (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md).
 *
 * A 2xx answer acknowledges the batch. Anything else (a network error, a timeout, 5xx, 408, 429, ...)
 * is retried with exponential backoff and jitter (p-retry); other 4xx answers are not retried here
 * (the publisher pauses and sends the batch again from its checkpoint: nothing is skipped).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import pRetry, { AbortError } from 'p-retry';
import type { ChangeEvent, ChangeSink } from '../../services/publisher.js';

/** Retry policy of one batch: attempts and backoff bounds in milliseconds. */
export interface WebhookRetry {
  /** Retries after the first attempt. Default 8. */
  retries: number;
  /** First pause. Default 250 ms. */
  minTimeoutMilliseconds: number;
  /** Longest pause. Default 30,000 ms. */
  maxTimeoutMilliseconds: number;
}

/** Default retry policy (about two minutes of retries at most). */
export const DEFAULT_WEBHOOK_RETRY: WebhookRetry = {
  retries: 8,
  minTimeoutMilliseconds: 250,
  maxTimeoutMilliseconds: 30_000,
};

/** What the webhook sink needs. */
export interface WebhookSinkOptions {
  url: string;
  /** Standard Webhooks secret (`whsec_` + base64 of 24 to 64 bytes); unset: requests are not signed. */
  secret?: string | undefined;
  retry?: Partial<WebhookRetry>;
  /** Per-request timeout. Default 10,000 ms. */
  timeoutMilliseconds?: number;
  /** Called on each failed attempt that will be retried (logging). */
  onRetry?: (error: Error, attempt: number) => void;
}

/** The prefix of Standard Webhooks secrets. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/**
 * The HMAC key of a Standard Webhooks secret: the base64 after the optional `whsec_` prefix, decoded.
 * @throws Error when the rest is not base64 or does not decode to 24 to 64 bytes (the specification's
 *   range), saying how to make one
 */
export function webhookSecretKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0 || key.length < 24 || key.length > 64) {
    throw new Error(
      'LINEAGE_SVC_PUBLISH_WEBHOOK_SECRET must be a Standard Webhooks secret: whsec_ followed by the base64 of 24 to 64 ' +
        "random bytes (e.g. node -e \"console.log('whsec_' + require('crypto').randomBytes(32).toString('base64'))\")",
    );
  }
  return key;
}

/** `v1,{base64 HMAC-SHA256 of "{id}.{timestamp}.{body}"}`, keyed with `webhookSecretKey(secret)`. @throws as `webhookSecretKey` */
export function webhookSignature(secret: string, id: string, timestamp: string, body: string): string {
  return `v1,${createHmac('sha256', webhookSecretKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** True when one of the space-separated signatures of a `webhook-signature` header matches (constant time); false for an invalid secret. */
export function verifyWebhookSignature(
  secret: string,
  id: string,
  timestamp: string,
  body: string,
  header: string,
): boolean {
  let expected: Buffer;
  try {
    expected = Buffer.from(webhookSignature(secret, id, timestamp, body));
  } catch {
    return false;
  }
  return header.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** Statuses worth retrying besides 5xx. */
const RETRIED = new Set([408, 425, 429]);

/** Creates the sink. @throws when `secret` is not a Standard Webhooks secret (`webhookSecretKey`). */
export function createWebhookSink(options: WebhookSinkOptions): ChangeSink {
  if (options.secret !== undefined) webhookSecretKey(options.secret);
  const retry = { ...DEFAULT_WEBHOOK_RETRY, ...options.retry };
  const timeout = options.timeoutMilliseconds ?? 10_000;
  return {
    name: `webhook ${new URL(options.url).origin}`,
    async send(batch: readonly ChangeEvent[]) {
      if (batch.length === 0) return;
      const body = JSON.stringify(batch.map((event) => event.toJSON()));
      const id = `lineage-${String(batch[0]!.lineageposition)}-${String(batch[batch.length - 1]!.lineageposition)}`;
      await pRetry(
        async () => {
          const timestamp = String(Math.floor(Date.now() / 1000));
          const headers: Record<string, string> = {
            'content-type': 'application/cloudevents-batch+json; charset=utf-8',
            'webhook-id': id,
            'webhook-timestamp': timestamp,
          };
          if (options.secret) headers['webhook-signature'] = webhookSignature(options.secret, id, timestamp, body);
          const response = await fetch(options.url, {
            method: 'POST',
            headers,
            body,
            signal: AbortSignal.timeout(timeout),
          });
          await response.arrayBuffer().catch(() => undefined);
          if (response.ok) return;
          const error = new Error(`webhook answered ${response.status} to batch ${id}`);
          if (response.status >= 500 || RETRIED.has(response.status)) throw error;
          throw new AbortError(error);
        },
        {
          retries: retry.retries,
          minTimeout: retry.minTimeoutMilliseconds,
          maxTimeout: retry.maxTimeoutMilliseconds,
          randomize: true,
          onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
            if (retriesLeft > 0) options.onRetry?.(error, attemptNumber);
          },
        },
      );
    },
    async close() {},
  };
}
