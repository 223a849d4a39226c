import { createHmac, randomBytes } from 'node:crypto';

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
/** On test-mode deliveries only (docs/sandbox.md). */
export const HEADER_MODE = 'X-Healthspan-Mode';
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

/**
 * A new signing secret: `whsec_` + 32 random bytes in standard base64, a valid Standard Webhooks
 * secret (and, as a string, the key of `X-Healthspan-Signature`).
 */
export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}
