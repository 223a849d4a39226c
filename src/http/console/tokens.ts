import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../../derive-key.js';

/** The CSRF token of a session: a MAC of its id under a key derived from the service's signing secret. */
export class CsrfTokens {
  private readonly key: Buffer;

  constructor(secret: Buffer) {
    this.key = deriveKey(secret, 'consoleCsrf');
  }

  for(sessionId: string): string {
    return createHmac('sha256', this.key).update(sessionId).digest('base64url');
  }

  /** Whether `given` is the session's token (compared in constant time). */
  check(sessionId: string, given: unknown): boolean {
    if (typeof given !== 'string') return false;
    const expected = Buffer.from(this.for(sessionId));
    const actual = Buffer.from(given);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }
}
