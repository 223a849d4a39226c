import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiMode } from '../domain/mode.js';
import { sha256Hex } from '../hash.js';

/**
 * A recognisable prefix lets secret scanners and people spot a leaked key, and tells a test key
 * from a live one at a glance.
 */
export const API_KEY_PREFIXES: Readonly<Record<ApiMode, string>> = { live: 'hs_live_', test: 'hs_test_' };
const SECRET_BYTES = 32;
const API_KEY_PATTERN = /^hs_(live|test)_[A-Za-z0-9_-]{43}$/;

export interface GeneratedKey {
  apiKey: string;
  hash: string;
  /** Safe to store and show: enough to recognise a key, useless for using it. */
  displayPrefix: string;
}

export function generateApiKey(mode: ApiMode = 'live'): GeneratedKey {
  const prefix = API_KEY_PREFIXES[mode];
  const apiKey = prefix + randomBytes(SECRET_BYTES).toString('base64url');
  return { apiKey, hash: hashApiKey(apiKey), displayPrefix: apiKey.slice(0, prefix.length + 6) };
}

/** The mode a well-formed key names by its prefix (the database decides what it may do). */
export function modeOfKey(apiKey: string): ApiMode {
  return apiKey.startsWith(API_KEY_PREFIXES.test) ? 'test' : 'live';
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
