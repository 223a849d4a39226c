import { createHash } from 'node:crypto';

/** Lowercase hex SHA-256: key hashes, request hashes, artifact checksums. */
export function sha256Hex(data: string | Buffer | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
