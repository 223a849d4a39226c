import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { modeOfKey } from '../auth/api-keys.js';
import type { Config } from '../config.js';
import { presentedKey, presentedKeyHash } from './auth.js';
import { ApiError } from './errors.js';

/** Whether a request counted under a name of the caller's choosing went over the limit. */
export interface RateVerdict {
  limited: boolean;
  /** When the counter's window ends (0 when not limited). */
  retryAfterSeconds: number;
}

/**
 * Counts a request under `counter` in the same counters, window and store (Redis or not) as the
 * API's: `k:<mode>:<key hash>` is the key's own budget. The console's actions use it (issue 38).
 */
export type CountRequest = (request: FastifyRequest, counter: string) => Promise<RateVerdict>;

/** The counter a request was explicitly counted under (`CountRequest`), by request. */
const countedAs = new WeakMap<FastifyRequest, string>();

/** The counter of an API key's requests: the console counts a key's sessions' actions in it. */
export function keyCounter(mode: string, keyHash: string): string {
  return `k:${mode}:${keyHash}`;
}

/**
 * Per-API-key limits (so a test key's traffic never uses a live key's allowance) with the IETF draft headers (RateLimit-Limit / -Remaining / -Reset and
 * Retry-After). Requests without a key are limited per client address. With `REDIS_URL` the
 * counters live in Redis and are shared by every API process; without it, each process counts
 * its own. Should Redis stop answering, requests pass unlimited (and a warning is logged)
 * rather than fail: the limit protects capacity, it is not a security boundary. Returns what
 * counts other requests (the console's) in the same counters; undefined when limits are off.
 */
export async function installRateLimit(
  app: FastifyInstance,
  config: Pick<Config, 'rateLimitPerMinute'>,
  redis: Redis | undefined,
  /** A minute in a deployment; a test shortens it rather than wait a minute for a window to end. */
  windowMs = 60_000,
): Promise<CountRequest | undefined> {
  const perMinute = config.rateLimitPerMinute;
  if (perMinute <= 0) return undefined;
  const per = windowMs === 60_000 ? 'minute' : `${windowMs / 1000} seconds`;
  await app.register(rateLimit, {
    global: true,
    max: perMinute,
    timeWindow: windowMs,
    hook: 'onRequest',
    enableDraftSpec: true,
    ...(redis ? { redis, nameSpace: 'healthspan:rate-limit:', skipOnError: true } : {}),
    // By the matched route's template, never the request's spelling of the path: a percent-encoded
    // or absolute-form target reaches the same route and must count the same (issue 12).
    allowList: (request) =>
      !countedAs.has(request) &&
      (request.method === 'OPTIONS' || !(request.routeOptions.url ?? '').startsWith('/v1/')),
    keyGenerator: (request) => {
      const named = countedAs.get(request);
      if (named !== undefined) return named;
      const key = presentedKey(request);
      // The mode in the counter's name: test traffic is counted apart from live, by key.
      return key ? keyCounter(modeOfKey(key), presentedKeyHash(request, key)) : `ip:${request.ip}`;
    },
    // Key-less requests (signed-link downloads) are counted per address, and told so.
    errorResponseBuilder: (request, context) =>
      new ApiError(
        429,
        'RATE_LIMITED',
        `Too many requests ${presentedKey(request) ? 'for this API key' : 'from this address'} (limit ${context.max} per ${per}); retry after ${context.after}.`,
      ),
  });
  // Without options: the plugin's own store and settings, so the counters are the API's.
  const count = app.createRateLimit();
  return async (request, counter) => {
    countedAs.set(request, counter);
    const outcome = await count(request);
    return outcome.isAllowed || !outcome.isExceeded
      ? { limited: false, retryAfterSeconds: 0 }
      : { limited: true, retryAfterSeconds: outcome.ttlInSeconds };
  };
}

/** The Redis connection shared limits use; closed with the app. */
export async function connectRedis(app: FastifyInstance, url: string, logger: Logger): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1000,
    // Fail fast while disconnected: a request must never wait for Redis to come back.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  let warned = false;
  redis.on('error', (error: Error) => {
    if (!warned)
      logger.warn({ err: { message: error.message } }, 'rate-limit store (Redis) unavailable; not limiting');
    warned = true;
  });
  redis.on('ready', () => {
    if (warned) logger.info('rate-limit store (Redis) available again');
    warned = false;
  });
  app.addHook('onClose', async () => void redis.disconnect());
  try {
    await redis.connect();
  } catch {
    // Logged by the error handler; ioredis keeps reconnecting in the background.
  }
  return redis;
}
