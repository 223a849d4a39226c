import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../hash.js';

/**
 * The console's one-time link tokens and session cookies: 256 random bits, stored only as their
 * SHA-256 (like API keys: nothing to brute-force). The operator's CLI makes links too, so they
 * live outside http/.
 */
export function newSecret(): { value: string; hash: string } {
  const value = randomBytes(32).toString('base64url');
  return { value, hash: hashSecret(value) };
}

export function hashSecret(value: string): string {
  return sha256Hex(value);
}
