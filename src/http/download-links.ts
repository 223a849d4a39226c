import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../derive-key.js';

/**
 * Signed, time-limited download links (decisions.md): the URL is the capability, so no API key
 * is needed. The signature is HMAC-SHA256 over the artifact id and the expiry, under a key derived
 * from the service's signing secret for links alone (never the secret itself).
 */
export class DownloadLinks {
  private readonly key: Buffer;

  constructor(
    secret: Buffer,
    private readonly baseUrl: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = deriveKey(secret, 'downloadLinks');
  }

  private signature(artifactId: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${artifactId}.${expires}`).digest('base64url');
  }

  issue(artifactId: string, now: Date): { downloadUrl: string; expiresAt: string } {
    const expires = Math.floor(now.getTime() / 1000) + this.ttlSeconds;
    const query = new URLSearchParams({
      expires: String(expires),
      signature: this.signature(artifactId, expires),
    });
    return {
      downloadUrl: `${this.baseUrl}/v1/artifacts/${artifactId}/content?${query.toString()}`,
      expiresAt: new Date(expires * 1000).toISOString(),
    };
  }

  verify(artifactId: string, expires: unknown, signature: unknown, now: Date): 'ok' | 'expired' | 'invalid' {
    if (typeof expires !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(expires))
      return 'invalid';
    const expected = Buffer.from(this.signature(artifactId, Number(expires)));
    const given = Buffer.from(signature);
    // Compare first, then check the time: an attacker learns nothing from which check failed.
    const valid = expected.length === given.length && timingSafeEqual(expected, given);
    if (!valid) return 'invalid';
    return Number(expires) * 1000 <= now.getTime() ? 'expired' : 'ok';
  }
}
