import { hkdfSync } from 'node:crypto';

/**
 * What a derived key is for. Each purpose is its own HKDF `info`, so a key derived for one can
 * never verify (or be) another, and no purpose ever uses the secret it is derived from.
 */
const INFO = {
  pageCursors: 'healthspan page cursors v1',
  consoleCsrf: 'healthspan console csrf v1',
  downloadLinks: 'healthspan download links v1',
  listenSecrets: 'healthspan listen secrets v1',
  webhookSecrets: 'healthspan webhook secrets v1',
  ledgerSubjects: 'subject',
  ledgerChain: 'chain',
} as const;

/**
 * The salts of the purposes that had one before this helper held them: the erasure ledger's keys
 * (a ledger written before must still verify). Every other purpose has the empty salt.
 */
const SALT: Partial<Record<keyof typeof INFO, string>> = {
  ledgerSubjects: 'healthspan erasure ledger',
  ledgerChain: 'healthspan erasure ledger',
};

export type KeyPurpose = keyof typeof INFO;

/** The HKDF `info` string of a purpose (exported for the tests and docs/decisions.md). */
export function keyInfo(purpose: KeyPurpose): string {
  return INFO[purpose];
}

/**
 * A 32-byte key for one purpose, HKDF-SHA256 (RFC 5869) of an operator secret. The salt is empty
 * (but for `SALT`'s): the secrets are already uniformly random (generated, or required at least 32
 * bytes), and an empty salt keeps the webhook secrets box opening what it sealed before this
 * helper existed.
 */
export function deriveKey(secret: Buffer | string, purpose: KeyPurpose): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, SALT[purpose] ?? Buffer.alloc(0), INFO[purpose], 32));
}
