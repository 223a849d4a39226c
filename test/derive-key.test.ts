import { hkdfSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deriveKey, type KeyPurpose, keyInfo } from '../src/derive-key.js';

const PURPOSES: KeyPurpose[] = [
  'pageCursors',
  'consoleCsrf',
  'downloadLinks',
  'listenSecrets',
  'webhookSecrets',
];

describe('deriveKey', () => {
  const secret = randomBytes(32);

  it('is HKDF-SHA256 with an empty salt and the purpose as info, 32 bytes', () => {
    for (const purpose of PURPOSES) {
      const direct = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), keyInfo(purpose), 32));
      expect(deriveKey(secret, purpose).equals(direct)).toBe(true);
      expect(deriveKey(secret, purpose)).toHaveLength(32);
    }
  });

  it('gives each purpose its own key, none of them the secret', () => {
    const keys = PURPOSES.map((p) => deriveKey(secret, p).toString('hex'));
    expect(new Set(keys).size).toBe(PURPOSES.length);
    expect(keys).not.toContain(secret.toString('hex'));
    expect(new Set(PURPOSES.map(keyInfo)).size).toBe(PURPOSES.length);
  });

  it('depends on the secret, and reads a string secret as its UTF-8 bytes', () => {
    expect(deriveKey(randomBytes(32), 'pageCursors').equals(deriveKey(secret, 'pageCursors'))).toBe(false);
    const text = 'an operator secret of at least 32 bytes, as configured';
    expect(
      deriveKey(text, 'listenSecrets').equals(deriveKey(Buffer.from(text, 'utf8'), 'listenSecrets')),
    ).toBe(true);
  });

  it('keeps the info strings the sealed webhook secrets were made with', () => {
    // Changing this one would leave every sealed signing secret unopenable.
    expect(keyInfo('webhookSecrets')).toBe('healthspan webhook secrets v1');
  });
});
