import { createHmac, timingSafeEqual } from 'node:crypto';
import type { components } from './generated/openapi.js';

/**
 * The receiver's side of `result.ready` callbacks: the contract's signature check (the spec's
 * four receiver steps on `X-Healthspan-Signature`) and a typed parser of the event body. Every
 * delivery is also a Standard Webhooks delivery (`webhook-*` headers): the `standardwebhooks`
 * package verifies those with the same secret.
 */

export const DEFAULT_TOLERANCE_SECONDS = 300;
const HEADER_EVENT_ID = 'X-Healthspan-Event-Id';
const HEADER_DELIVERY_ID = 'X-Healthspan-Delivery-Id';
const HEADER_TIMESTAMP = 'X-Healthspan-Timestamp';
const HEADER_SIGNATURE = 'X-Healthspan-Signature';
const DIGITS = /^[0-9]{1,15}$/;

/** `v1=` + lowercase hex HMAC-SHA256 of `timestamp + "." + body`, keyed with the whole secret. */
function signatureFor(secret: string, timestamp: string, body: Uint8Array): string {
  const mac = createHmac('sha256', secret);
  mac.update(`${timestamp}.`, 'utf8');
  mac.update(body);
  return `v1=${mac.digest('hex')}`;
}

export type VerifyResult =
  | { ok: true; eventId: string; deliveryId: string; timestamp: number }
  | { ok: false; reason: 'missing_headers' | 'bad_timestamp' | 'stale' | 'bad_signature' };

export interface VerifyOptions {
  /** Current time, as a `Date` or milliseconds since 1970 (`Date.now()`); defaults to the real time. */
  now?: Date | number;
  /** Allowed |now − timestamp| in seconds; defaults to 300. */
  toleranceSeconds?: number;
}

type HeaderBag = Record<string, string | string[] | undefined>;

/** Case-insensitive header read; a header repeated with different values counts as absent. */
function header(headers: HeaderBag, name: string): string | undefined {
  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    values.push(...(Array.isArray(value) ? value : [value]));
  }
  const first = values[0]?.trim();
  if (!first || values.some((v) => v.trim() !== first)) return undefined;
  return first;
}

function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  // Length is not secret (always `v1=` + 64 hex digits for a genuine signature).
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * `options.now` in milliseconds. Anything but a valid `Date` or a finite number is refused by
 * name: a JavaScript caller could pass a string or `Date.now()` into a field once typed `Date`.
 */
function nowMs(now: unknown): number {
  if (now === undefined) return Date.now();
  const ms = now instanceof Date ? now.getTime() : typeof now === 'number' ? now : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new TypeError(
      `verifyWebhook: options.now must be a Date or a number of milliseconds since 1970 (Date.now()), got ${
        now instanceof Date ? 'an invalid Date' : typeof now === 'number' ? String(now) : `a ${typeof now}`
      }.`,
    );
  }
  return ms;
}

/**
 * Verify a `result.ready` delivery, following the spec's four receiver steps:
 * 1. build `X-Healthspan-Timestamp` + `"."` + the raw request body bytes;
 * 2. HMAC-SHA256 it with the signing secret;
 * 3. compare `v1=` + lowercase hex digest with `X-Healthspan-Signature` in constant time;
 * 4. reject when the timestamp differs from now by more than 300 seconds.
 *
 * Pass the raw body exactly as received (a `Buffer` or `Uint8Array` from the request stream). Never verify a
 * re-serialised JSON value (`JSON.stringify(JSON.parse(body))`): key order, whitespace and number
 * or Unicode escaping may differ from the bytes that were signed, and the check then fails (or,
 * worse, the code verifies something other than what it processes).
 *
 * `secret` may be an array: during a secret rotation pass both the new and the old secret; a
 * delivery signed with any of them is accepted. Header names are matched case-insensitively.
 * Deduplicate on the returned `eventId` (stable across retries); `deliveryId` is new per attempt.
 */
export function verifyWebhook(
  rawBody: Uint8Array | string,
  headers: HeaderBag,
  secret: string | string[],
  options: VerifyOptions = {},
): VerifyResult {
  const timestampHeader = header(headers, HEADER_TIMESTAMP);
  const signature = header(headers, HEADER_SIGNATURE);
  const eventId = header(headers, HEADER_EVENT_ID);
  const deliveryId = header(headers, HEADER_DELIVERY_ID);
  if (!timestampHeader || !signature || !eventId || !deliveryId) {
    return { ok: false, reason: 'missing_headers' };
  }
  if (!DIGITS.test(timestampHeader)) return { ok: false, reason: 'bad_timestamp' };

  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const secrets = (Array.isArray(secret) ? secret : [secret]).filter((s) => s.length > 0);
  let matched = false;
  for (const candidate of secrets) {
    // No early exit: every secret is tried, so timing does not reveal which one matched.
    if (constantTimeEqual(signatureFor(candidate, timestampHeader, body), signature)) matched = true;
  }
  if (!matched) return { ok: false, reason: 'bad_signature' };

  const timestamp = Number(timestampHeader);
  const nowSeconds = Math.floor(nowMs(options.now) / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!(Math.abs(nowSeconds - timestamp) <= tolerance)) return { ok: false, reason: 'stale' };

  return { ok: true, eventId, deliveryId, timestamp };
}

/** The body of a `result.ready` event. */
export type ResultReadyEvent = components['schemas']['ResultReadyEvent'];

/**
 * The event of a verified delivery's raw body, checked to be a `result.ready` event; throws a
 * `TypeError` for anything else. Verify first: parse only what was signed.
 */
export function parseResultReadyEvent(rawBody: Uint8Array | string): ResultReadyEvent {
  const text =
    typeof rawBody === 'string' ? rawBody : new TextDecoder('utf-8', { fatal: true }).decode(rawBody);
  const value = JSON.parse(text) as Record<string, unknown>;
  const strings = ['resultId', 'submissionId', 'status', 'statusLabel', 'completedAt'] as const;
  if (value === null || typeof value !== 'object' || value.eventType !== 'result.ready') {
    throw new TypeError('not a result.ready event');
  }
  for (const key of strings) {
    if (typeof value[key] !== 'string') throw new TypeError(`result.ready event without ${key}`);
  }
  if (value.reportId !== undefined && typeof value.reportId !== 'string') {
    throw new TypeError('result.ready event with a reportId that is not a string');
  }
  return value as unknown as ResultReadyEvent;
}
