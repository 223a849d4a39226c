import { createHmac } from 'node:crypto';
import { deriveKey } from '../derive-key.js';
import { HEADER_MODE, signedHeaders } from './signing.js';

/**
 * The listen secret of an API key: what `healthspan listen` forwards are signed with, so a
 * developer's receiver verifies them exactly as it verifies real deliveries.
 *
 * Derived, never stored: HMAC-SHA256 of the key's id under a key derived (HKDF, derive-key.ts)
 * from the webhook master key (the one that seals the endpoints' signing secrets,
 * `WEBHOOK_SECRETS_KEY` or its generated file) for this purpose alone, so it can be nothing else. So it is the same across restarts and processes
 * that share the master key (the developer configures it once), differs per key (revoking the
 * key retires it), and is never one of the account's endpoint signing secrets: the command that
 * prints it holds nothing that signs a real delivery.
 */
export class ListenSecrets {
  private readonly key: Buffer;

  constructor(masterKey: Buffer | string) {
    this.key = deriveKey(masterKey, 'listenSecrets');
  }

  /** `whsec_` + standard base64 of 32 bytes: a valid Standard Webhooks secret too. */
  secretFor(keyId: string): string {
    return `whsec_${createHmac('sha256', this.key).update(keyId, 'utf8').digest('base64')}`;
  }
}

/** One streamed event: what `healthspan listen` posts to the local URL, header for header. */
export interface ListenDelivery {
  eventId: string;
  deliveryId: string;
  /** Exactly the headers a real test-mode delivery carries (both signature schemes). */
  headers: Record<string, string>;
  /** The stored event body, the exact bytes a real delivery sends. */
  body: string;
}

export function listenDelivery(input: {
  secret: string;
  eventId: string;
  deliveryId: string;
  body: string;
  now: Date;
}): ListenDelivery {
  const headers = signedHeaders({
    secret: input.secret,
    eventId: input.eventId,
    deliveryId: input.deliveryId,
    timestamp: Math.floor(input.now.getTime() / 1000),
    rawBody: input.body,
  });
  return {
    eventId: input.eventId,
    deliveryId: input.deliveryId,
    // Only test events are streamed; real test-mode deliveries carry the same header.
    headers: { ...headers, [HEADER_MODE]: 'test' },
    body: input.body,
  };
}
