import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Signing of outbound `result.ready` callbacks (partner-api.md, "Events") and the matching
 * receiver helper for partners.
 *
 * Signature: `v1=` + lowercase hex HMAC-SHA256, keyed with the signing secret (its UTF-8 bytes,
 * `whsec_` prefix included), over `timestamp + "." + raw body bytes`.
 *
 * Every delivery is also signed as the Standard Webhooks specification defines
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>` of HMAC-SHA256 over
 * `id.timestamp.body`, keyed with the base64-decoded part of the `whsec_` secret), so the
 * `standardwebhooks` and `svix` libraries verify it with the same secret.
 */

export const EVENT_TYPE = 'result.ready';
export const SIGNATURE_VERSION = 'v1';
/** Receiver check from the spec's Limits table. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export const HEADER_EVENT = 'X-Healthspan-Event';
export const HEADER_DELIVERY_ID = 'X-Healthspan-Delivery-Id';
export const HEADER_EVENT_ID = 'X-Healthspan-Event-Id';
export const HEADER_TIMESTAMP = 'X-Healthspan-Timestamp';
export const HEADER_SIGNATURE = 'X-Healthspan-Signature';
/** Standard Webhooks' headers (https://www.standardwebhooks.com). */
export const HEADER_WEBHOOK_ID = 'webhook-id';
export const HEADER_WEBHOOK_TIMESTAMP = 'webhook-timestamp';
export const HEADER_WEBHOOK_SIGNATURE = 'webhook-signature';
const SECRET_PREFIX = 'whsec_';

const DIGITS = /^[0-9]{1,15}$/;

function bodyBytes(rawBody: Buffer | string): Buffer {
  return typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
}

/** `v1=` + lowercase hex HMAC-SHA256 of `timestamp + "." + rawBody` (exact bytes). */
export function signatureFor(secret: string, timestamp: string, rawBody: Buffer | string): string {
  const mac = createHmac('sha256', secret);
  mac.update(`${timestamp}.`, 'utf8');
  mac.update(bodyBytes(rawBody));
  return `${SIGNATURE_VERSION}=${mac.digest('hex')}`;
}

/**
 * The Standard Webhooks key of a `whsec_` secret: the bytes its base64 part encodes. Secrets
 * made before Standard Webhooks were written in base64url; Node's decoder reads both alphabets,
 * so they sign with the same bytes (`standardSecret` gives their standard spelling).
 */
export function standardKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}

/** The secret as Standard Webhooks libraries read it: `whsec_` + standard base64 of its key. */
export function standardSecret(secret: string): string {
  return `${SECRET_PREFIX}${standardKey(secret).toString('base64')}`;
}

/** `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` keyed with the secret's key bytes. */
export function standardSignatureFor(
  secret: string,
  id: string,
  timestamp: string,
  rawBody: Buffer | string,
): string {
  const mac = createHmac('sha256', standardKey(secret));
  mac.update(`${id}.${timestamp}.`, 'utf8');
  mac.update(bodyBytes(rawBody));
  return `v1,${mac.digest('base64')}`;
}

export interface SignedHeadersInput {
  /** The secret in effect: it signs `X-Healthspan-Signature` and, first, `webhook-signature`. */
  secret: string;
  /**
   * Secrets a receiver may already hold during a rotation (the next one, not yet in effect):
   * `webhook-signature` lists a signature for each, after the one in effect.
   */
  alsoSignWith?: readonly string[];
  eventId: string;
  /** New for every delivery attempt. */
  deliveryId: string;
  /** Unix seconds. */
  timestamp: number | string;
  /** The exact bytes that will be sent as the request body. */
  rawBody: Buffer | string;
}

/**
 * Headers for one delivery attempt. The optional receiver API key (`X-Api-Key` or a configured
 * header) is not part of the signature and is added by the caller.
 */
export function signedHeaders(input: SignedHeadersInput): Record<string, string> {
  const timestamp = String(input.timestamp);
  if (!DIGITS.test(timestamp)) {
    throw new RangeError(`webhook timestamp must be Unix seconds as decimal digits, got "${timestamp}"`);
  }
  return {
    'Content-Type': 'application/json',
    [HEADER_EVENT]: EVENT_TYPE,
    [HEADER_DELIVERY_ID]: input.deliveryId,
    [HEADER_EVENT_ID]: input.eventId,
    [HEADER_TIMESTAMP]: timestamp,
    [HEADER_SIGNATURE]: signatureFor(input.secret, timestamp, input.rawBody),
    // The event id: stable across retries, which Standard Webhooks receivers deduplicate on.
    [HEADER_WEBHOOK_ID]: input.eventId,
    [HEADER_WEBHOOK_TIMESTAMP]: timestamp,
    [HEADER_WEBHOOK_SIGNATURE]: [input.secret, ...(input.alsoSignWith ?? [])]
      .map((s) => standardSignatureFor(s, input.eventId, timestamp, input.rawBody))
      .join(' '),
  };
}

export type VerifyResult =
  | { ok: true; eventId: string; deliveryId: string; timestamp: number }
  | { ok: false; reason: 'missing_headers' | 'bad_timestamp' | 'stale' | 'bad_signature' };

export interface VerifyOptions {
  /** Current time; defaults to `new Date()`. */
  now?: Date;
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
 * Verify a `result.ready` delivery, following the spec's four receiver steps:
 * 1. build `X-Healthspan-Timestamp` + `"."` + the raw request body bytes;
 * 2. HMAC-SHA256 it with the signing secret;
 * 3. compare `v1=` + lowercase hex digest with `X-Healthspan-Signature` in constant time;
 * 4. reject when the timestamp differs from now by more than 300 seconds.
 *
 * Pass the raw body exactly as received (a `Buffer` from the request stream). Never verify a
 * re-serialised JSON value (`JSON.stringify(JSON.parse(body))`): key order, whitespace and number
 * or Unicode escaping may differ from the bytes that were signed, and the check then fails (or,
 * worse, the code verifies something other than what it processes).
 *
 * `secret` may be an array: during a secret rotation pass both the new and the old secret; a
 * delivery signed with any of them is accepted. Header names are matched case-insensitively.
 * Deduplicate on the returned `eventId` (stable across retries); `deliveryId` is new per attempt.
 */
export function verifyWebhook(
  rawBody: Buffer | string,
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

  const body = bodyBytes(rawBody);
  const secrets = (Array.isArray(secret) ? secret : [secret]).filter((s) => s.length > 0);
  let matched = false;
  for (const candidate of secrets) {
    // No early exit: every secret is tried, so timing does not reveal which one matched.
    if (constantTimeEqual(signatureFor(candidate, timestampHeader, body), signature)) matched = true;
  }
  if (!matched) return { ok: false, reason: 'bad_signature' };

  const timestamp = Number(timestampHeader);
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!(Math.abs(nowSeconds - timestamp) <= tolerance)) return { ok: false, reason: 'stale' };

  return { ok: true, eventId, deliveryId, timestamp };
}

/**
 * A new signing secret: `whsec_` + 32 random bytes in standard base64, a valid Standard Webhooks
 * secret (and, as a string, the key of `X-Healthspan-Signature`).
 */
export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}
