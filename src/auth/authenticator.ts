import { LRUCache } from 'lru-cache';
import type { ApiMode } from '../domain/mode.js';
import { AUTHENTICATOR_DEFAULTS } from '../fixed-defaults.js';
import type { AccountsRepository, StoredKey } from '../store/repositories/accounts.js';
import { hashApiKey, hashesEqual, looksLikeApiKey } from './api-keys.js';

export interface Principal {
  keyId: string;
  /** The credential the key's data belongs to (a sandbox credential in test mode). */
  partnerId: string;
  /** The `partnerId` a submission body must name: the live credential's id in both modes. */
  namedPartnerId: string;
  tenantId: string;
  mode: ApiMode;
}

export type AuthOutcome =
  | { ok: true; principal: Principal }
  | { ok: false; reason: 'missing' | 'invalid' | 'revoked' | 'expired' | 'inactive' };

export interface AuthenticatorOptions {
  /** How long a verified key is trusted without reading the database again. */
  cacheTtlMs?: number;
  /** How often the shared auth epoch is read; a revocation anywhere is seen within this. */
  epochCheckMs?: number;
  maxEntries?: number;
  /** The service clock, in milliseconds. */
  clock: () => number;
}

/**
 * Resolves a presented API key to its principal. Verified keys are cached so the database is
 * off the hot path; every revocation or tenant change bumps a shared epoch in the database,
 * and a changed epoch empties the cache, so revocation takes effect within `epochCheckMs`
 * in every process (immediately in the process that sees the change first).
 */
export class Authenticator {
  /** Verified keys by hash, each trusted for `cacheTtlMs` from its read on the service clock. */
  private readonly cache: LRUCache<string, StoredKey>;
  private epoch = -1;
  private epochCheckedAt = Number.NEGATIVE_INFINITY;
  private readonly epochCheckMs: number;
  private readonly clock: () => number;

  constructor(
    private readonly accounts: AccountsRepository,
    options: AuthenticatorOptions,
  ) {
    this.epochCheckMs = options.epochCheckMs ?? AUTHENTICATOR_DEFAULTS.epochCheckMs;
    this.clock = options.clock;
    this.cache = new LRUCache({
      max: options.maxEntries ?? AUTHENTICATOR_DEFAULTS.maxEntries,
      ttl: options.cacheTtlMs ?? AUTHENTICATOR_DEFAULTS.cacheTtlMs,
      // The service clock, read on every look-up (a resolution of 0: no timer per read), so a
      // test that moves it sees entries expire.
      perf: { now: this.clock },
      ttlResolution: 0,
    });
  }

  /** `knownHash`: the key's hash when the caller already has it (`hashApiKey(presented)`). */
  async authenticate(presented: string | undefined, knownHash?: string): Promise<AuthOutcome> {
    if (presented === undefined || presented === '') return { ok: false, reason: 'missing' };
    if (!looksLikeApiKey(presented)) return { ok: false, reason: 'invalid' };
    const hash = knownHash || hashApiKey(presented);
    const now = this.clock();
    await this.refreshEpoch(now);

    let key = this.cache.get(hash);
    if (!key) {
      const stored = await this.accounts.findKeyByHash(hash);
      // The index lookup is by hash; the final comparison is constant-time all the same.
      if (!stored || !hashesEqual(stored.keyHash, hash)) return { ok: false, reason: 'invalid' };
      key = stored;
      this.cache.set(hash, key);
    }
    if (key.revokedAt !== null) return { ok: false, reason: 'revoked' };
    if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now) return { ok: false, reason: 'expired' };
    if (!key.tenantActive) return { ok: false, reason: 'inactive' };
    return {
      ok: true,
      principal: {
        keyId: key.keyId,
        partnerId: key.partnerId,
        namedPartnerId: key.namedPartnerId,
        tenantId: key.tenantId,
        mode: key.mode,
      },
    };
  }

  /** Drops every cached key; used when this process itself changes keys or tenants. */
  invalidate(): void {
    this.cache.clear();
    this.epochCheckedAt = Number.NEGATIVE_INFINITY;
  }

  private async refreshEpoch(now: number): Promise<void> {
    if (now - this.epochCheckedAt < this.epochCheckMs) return;
    this.epochCheckedAt = now;
    const epoch = await this.accounts.authEpoch();
    if (epoch !== this.epoch) {
      this.cache.clear();
      this.epoch = epoch;
    }
  }
}
