import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { sha256Hex } from '../hash.js';
import { presentedKey } from './auth.js';
import { ApiError } from './errors.js';

/**
 * Per-API-key limits with the IETF draft headers (RateLimit-Limit / -Remaining / -Reset and
 * Retry-After). Requests without a key are limited per client address. Counters live in this
 * process; a shared store arrives with the scale-out work.
 */
export async function installRateLimit(app: FastifyInstance, perMinute: number): Promise<void> {
  if (perMinute <= 0) return;
  await app.register(rateLimit, {
    global: true,
    max: perMinute,
    timeWindow: 60_000,
    hook: 'onRequest',
    enableDraftSpec: true,
    allowList: (request) => !request.url.startsWith('/v1/') || request.method === 'OPTIONS',
    keyGenerator: (request) => {
      const key = presentedKey(request);
      return key ? `k:${sha256Hex(key)}` : `ip:${request.ip}`;
    },
    errorResponseBuilder: (_request, context) =>
      new ApiError(
        429,
        'RATE_LIMITED',
        `Too many requests for this API key (limit ${context.max} per minute); retry after ${context.after}.`,
      ),
  });
}
