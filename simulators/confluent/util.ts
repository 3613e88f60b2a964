/**
 * Small deterministic helpers of the platform simulator: hashing, seeded randomness, opaque page
 * tokens and the v2-style list envelope (`{api_version, kind, metadata, data}`).
 */
import { HttpError } from './errors.js';

/** 32-bit FNV-1a hash of a string (deterministic across runs). */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A deterministic integer in [min, max] derived from `key`. */
export function pick(key: string, min: number, max: number): number {
  return min + (hash32(key) % (max - min + 1));
}

/** A deterministic lower-case alphanumeric string of `length` characters derived from `key`. */
export function token(key: string, length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  let h = hash32(key);
  for (let i = 0; i < length; i++) {
    if (i % 5 === 0) h = hash32(`${key}#${i}`);
    out += alphabet[h % alphabet.length];
    h = Math.floor(h / alphabet.length);
  }
  return out;
}

/** A deterministic RFC 4122-shaped UUID derived from `key`. */
export function uuidFrom(key: string): string {
  const hex = [0, 1, 2, 3].map((i) => hash32(`${key}/${i}`).toString(16).padStart(8, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Mulberry32 seeded PRNG: returns a function yielding floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface PageState {
  /** offset of the next item */
  o: number;
  /** page size fixed by the first request */
  s: number;
  /** fingerprint of the list's filters, so a token cannot be replayed on another list */
  f: string;
}

/** Encodes an opaque page token. */
export function encodePageToken(state: PageState): string {
  return Buffer.from(JSON.stringify(state), 'utf8').toString('base64url');
}

/** Decodes a page token made by `encodePageToken`; undefined when it is not one. */
export function decodePageToken(text: string): PageState | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (typeof value !== 'object' || value === null) return undefined;
    const v = value as Record<string, unknown>;
    if (typeof v.o !== 'number' || typeof v.s !== 'number' || typeof v.f !== 'string') return undefined;
    if (!Number.isInteger(v.o) || v.o < 0 || !Number.isInteger(v.s) || v.s < 1) return undefined;
    return { o: v.o, s: v.s, f: v.f };
  } catch {
    return undefined;
  }
}

/** How a v2-style list renders its `metadata` and empty `data`. Real APIs differ, so each list picks one. */
export interface ListStyle {
  /** `metadata.first` + `metadata.total_size` (cmk, org, srcm...) */
  firstAndTotal?: boolean;
  /** `metadata.self` (Flink SQL) */
  self?: boolean;
  /** On the last page: omit `next` (default), or send `""`. */
  lastNext?: 'omit' | 'empty';
  /** Empty list: `data: null` (default, as recorded for org/cmk/srcm/fcpm) or `data: []`. */
  emptyData?: 'null' | 'array';
}

/** Query-string parameters of a paginated request. */
export type Query = Record<string, string | string[] | undefined>;

/** First value of a query parameter. */
export function q1(query: Query, name: string): string | undefined {
  const v = query[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Paginates `items` the v2 way: `page_size` (default 10, at most 100 - larger values are clamped;
 * honored only on the first request) and an opaque `page_token`; `metadata.next` is the full URL of
 * the next page (with `page_token`), absent (or `""`) on the last page.
 * @param url the list's absolute URL without query (`{base}/cmk/v2/clusters`)
 * @param filters the query parameters to repeat on `next` (e.g. `environment`)
 * @throws HttpError 400 (v2 error body) on a bad `page_size` or `page_token`
 */
export function paginateV2<T, R>(
  items: readonly T[],
  render: (item: T) => R,
  query: Query,
  url: string,
  filters: Record<string, string | undefined>,
  envelope: { api_version: string; kind: string },
  style: ListStyle = { firstAndTotal: true },
  defaultPageSize = 10,
): Record<string, unknown> {
  const fingerprint = String(hash32(`${url}?${JSON.stringify(filters)}`));
  let offset = 0;
  let size = defaultPageSize;
  const tokenText = q1(query, 'page_token');
  if (tokenText !== undefined && tokenText !== '') {
    const state = decodePageToken(tokenText);
    if (state === undefined || state.f !== fingerprint) {
      throw new HttpError(400, 'v2', 'The page token is invalid or does not belong to this list', {
        code: 'invalid_page_token',
        parameter: 'page_token',
      });
    }
    offset = state.o;
    size = state.s;
  } else {
    const sizeText = q1(query, 'page_size');
    if (sizeText !== undefined && sizeText !== '') {
      const n = Number(sizeText);
      if (!Number.isInteger(n) || n < 1) {
        throw new HttpError(400, 'v2', `page_size must be a positive integer, got "${sizeText}"`, {
          code: 'invalid_page_size',
          parameter: 'page_size',
        });
      }
      size = Math.min(n, 100);
    }
  }
  const page = items.slice(offset, offset + size);
  const metadata: Record<string, unknown> = {};
  const filterQuery = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v !== undefined) filterQuery.set(k, v);
  const filterText = filterQuery.toString();
  if (style.self === true) metadata.self = filterText === '' ? url : `${url}?${filterText}`;
  if (style.firstAndTotal === true) {
    metadata.first = url;
    metadata.total_size = items.length;
  }
  if (offset + size < items.length) {
    const next = new URLSearchParams(filterQuery);
    next.set('page_size', String(size));
    next.set('page_token', encodePageToken({ o: offset + size, s: size, f: fingerprint }));
    metadata.next = `${url}?${next.toString()}`;
  } else if (style.lastNext === 'empty') {
    metadata.next = '';
  }
  const data = page.length === 0 && (style.emptyData ?? 'null') === 'null' ? null : page.map(render);
  return { api_version: envelope.api_version, kind: envelope.kind, metadata, data };
}

/** Masks a connector config value the way the platform does for secrets. */
export const MASK = '****************';

/** True for connector config keys whose values the platform masks. */
export function isSecretKey(key: string): boolean {
  return /(password|secret|api\.key|credentials|private\.key|access\.key|token)/i.test(key);
}

/** ISO timestamp without milliseconds. */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
