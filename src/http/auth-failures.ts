import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';

const WINDOW_MS = 60_000;
/** How long a key that worked from an address keeps working there while the address is limited. */
const KNOWN_GOOD_MS = 24 * 3_600_000;
const MAX_ENTRIES = 50_000;

/** Counts failed key checks per client address in fixed one-minute windows. */
export interface FailureStore {
  /** Failures so far in the address's current window, and ms until that window ends. */
  read(address: string, now: number): Promise<{ count: number; resetInMs: number }>;
  add(address: string, now: number): Promise<void>;
}

/** In this process only (the default, and the fallback when Redis is not configured). */
export class LocalFailureStore implements FailureStore {
  // Windows end on the caller's clock (`now`), checked here; the bound drops the least recent.
  private readonly windows = new LRUCache<string, { count: number; endsAt: number }>({ max: MAX_ENTRIES });

  async read(address: string, now: number) {
    const window = this.windows.get(address);
    if (!window || window.endsAt <= now) return { count: 0, resetInMs: 0 };
    return { count: window.count, resetInMs: window.endsAt - now };
  }

  async add(address: string, now: number) {
    const window = this.windows.get(address);
    if (window && window.endsAt > now) {
      window.count += 1;
      return;
    }
    this.windows.set(address, { count: 1, endsAt: now + WINDOW_MS });
  }
}

/** Shared by every API process through Redis; if Redis fails, nothing is limited (as the rate limit). */
export class RedisFailureStore implements FailureStore {
  constructor(private readonly redis: Redis) {}

  private key(address: string): string {
    return `healthspan:auth-failures:${address}`;
  }

  async read(address: string) {
    try {
      const [count, ttl] = await Promise.all([
        this.redis.get(this.key(address)),
        this.redis.pttl(this.key(address)),
      ]);
      return { count: Number(count ?? 0), resetInMs: Math.max(0, ttl) };
    } catch {
      return { count: 0, resetInMs: 0 };
    }
  }

  async add(address: string) {
    try {
      const key = this.key(address);
      await this.redis.multi().set(key, 0, 'PX', WINDOW_MS, 'NX').incr(key).exec();
    } catch {
      // Unlimited while Redis is away; the rate limit logs the outage.
    }
  }
}

/**
 * Slows key guessing and credential stuffing from one address without touching partners whose
 * keys work: after `perMinute` failed checks from an address within its window, further keys
 * from it are refused with `429` without being checked, except keys that already authenticated
 * from that address (in this process, within a day), which go on working.
 */
export class AuthFailureLimit {
  /** Until when a key that worked from an address goes on working there, by `address keyHash`. */
  private readonly knownGood = new LRUCache<string, number>({ max: MAX_ENTRIES });

  constructor(
    private readonly perMinute: number,
    private readonly store: FailureStore,
    private readonly clock: () => number,
  ) {}

  /** Milliseconds the address must wait before an unknown key is checked; 0 = check it now. */
  async waitMs(address: string, keyHash: string): Promise<number> {
    const now = this.clock();
    const goodUntil = this.knownGood.get(`${address} ${keyHash}`);
    if (goodUntil !== undefined && goodUntil > now) return 0;
    const { count, resetInMs } = await this.store.read(address, now);
    return count >= this.perMinute ? Math.max(1000, resetInMs) : 0;
  }

  failed(address: string): Promise<void> {
    return this.store.add(address, this.clock());
  }

  succeeded(address: string, keyHash: string): void {
    const entry = `${address} ${keyHash}`;
    const now = this.clock();
    // Refreshed at most twice a day per key and address: this runs on every authenticated request.
    const until = this.knownGood.get(entry);
    if (until !== undefined && until - now > KNOWN_GOOD_MS / 2) return;
    this.knownGood.set(entry, now + KNOWN_GOOD_MS);
  }
}
