import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256Hex } from '../hash.js';

/** A recognisable prefix lets secret scanners and people spot a leaked key. */
export const API_KEY_PREFIX = 'hs_live_';
const SECRET_BYTES = 32;
const API_KEY_PATTERN = /^hs_live_[A-Za-z0-9_-]{43}$/;

export interface GeneratedKey {
  apiKey: string;
  hash: string;
  /** Safe to store and show: enough to recognise a key, useless for using it. */
  displayPrefix: string;
}

export function generateApiKey(): GeneratedKey {
  const apiKey = API_KEY_PREFIX + randomBytes(SECRET_BYTES).toString('base64url');
  return { apiKey, hash: hashApiKey(apiKey), displayPrefix: apiKey.slice(0, API_KEY_PREFIX.length + 6) };
}

/**
 * Keys carry 256 bits of randomness, so a fast unsalted hash is enough: there is nothing to
 * brute-force, and lookups by hash never compare the secret itself.
 */
export function hashApiKey(apiKey: string): string {
  return sha256Hex(apiKey);
}

export function looksLikeApiKey(candidate: string): boolean {
  return API_KEY_PATTERN.test(candidate);
}

export function hashesEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}
