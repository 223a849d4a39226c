import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../../derive-key.js';
import { sha256Hex } from '../../hash.js';

/**
 * The console's secrets: one-time link tokens and session cookies are 256 random bits (stored
 * only as their SHA-256, like API keys: nothing to brute-force), and the CSRF token of a session
 * is a MAC of its id under a key derived from the service's signing secret.
 */
export function newSecret(): { value: string; hash: string } {
  const value = randomBytes(32).toString('base64url');
  return { value, hash: hashSecret(value) };
}

export function hashSecret(value: string): string {
  return sha256Hex(value);
}

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
