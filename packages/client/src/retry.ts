import { HealthspanError } from './errors.js';

export interface RetryOptions {
  /** Attempts in all, the first included (default 4). */
  maxAttempts?: number;
  /** First delay; doubles per attempt, with jitter (default 250 ms). */
  baseDelayMs?: number;
  /** Longest delay between attempts, `Retry-After` included (default 30 s). */
  maxDelayMs?: number;
}

export const RETRY_DEFAULTS = { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 30_000 } as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` until it succeeds, a non-retryable error comes, or the attempts run out. A 429
 * or 503 waits what `Retry-After` asks (when that is within `maxDelayMs`; a longer wait is not
 * retried), anything else retryable backs off exponentially with full jitter.
 */
export async function withRetries<T>(attempt: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const maxAttempts = options.maxAttempts ?? RETRY_DEFAULTS.maxAttempts;
  const base = options.baseDelayMs ?? RETRY_DEFAULTS.baseDelayMs;
  const cap = options.maxDelayMs ?? RETRY_DEFAULTS.maxDelayMs;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof HealthspanError) || !error.retryable || n >= maxAttempts) throw error;
      const asked = error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
      if (asked !== undefined && asked > cap) throw error;
      await sleep(asked ?? Math.random() * Math.min(cap, base * 2 ** (n - 1)));
    }
  }
}
