import { hash } from 'node:crypto';

/** Lowercase hex SHA-256: key hashes, request hashes, artifact checksums. */
export function sha256Hex(data: string | Buffer | Uint8Array): string {
  // One-shot: no Hash object per call (two to four calls per request).
  return hash('sha256', data, 'hex');
}
