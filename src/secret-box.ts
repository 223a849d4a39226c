import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { deriveKey } from './derive-key.js';

const VERSION = 'v1';

/**
 * Encryption at rest for webhook signing secrets, receiver API keys and the subject reference an
 * erasure shows back: AES-256-GCM with a key
 * derived (HKDF-SHA256) from the operator's master key, a random 96-bit nonce per value, and the
 * value's owner as associated data, so a sealed value copied to another partner's row does not
 * open. The database alone (a dump, a backup) therefore reveals no secret.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(masterKey: Buffer | string) {
    const material = typeof masterKey === 'string' ? Buffer.from(masterKey, 'utf8') : masterKey;
    if (material.length < 32) throw new Error('the webhook secrets key must be at least 32 bytes');
    this.key = deriveKey(material, 'webhookSecrets');
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), body]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  /** Throws when the value was altered, belongs to another context or another master key. */
  open(sealed: string, context: string): string {
    const [version, iv, tag, body, ...rest] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || body === undefined || rest.length > 0) {
      throw new Error('not a sealed value of this version');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}
