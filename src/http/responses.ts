import type { ZodOpenApiResponsesObject } from 'zod-openapi';
import { errorEnvelopeSchema } from './schemas.js';

const ERROR_DESCRIPTIONS: Record<string, string> = {
  '400':
    'VALIDATION_ERROR (details: formErrors / fieldErrors) or SUBMISSION_VALIDATION_ERROR (details: [{field, message}])',
  '401': 'INVALID_API_KEY: missing, invalid, revoked or expired key',
  '403': 'ACCOUNT_INACTIVE, or PARTNER_ID_MISMATCH when the body partnerId is not the key’s partner',
  '404': 'NOT_FOUND: unknown id, malformed id, or an id of another account',
  '409': 'IDEMPOTENCY_MISMATCH: Idempotency-Key reused with a different body',
  '413': 'PAYLOAD_TOO_LARGE: body over 1 MiB',
  '415': 'UNSUPPORTED_MEDIA_TYPE: body not sent as application/json',
  '429': 'RATE_LIMITED: too many requests for this key; see Retry-After',
  '500': 'INTERNAL_ERROR: unexpected failure',
};

const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': { description: 'Requests allowed per window', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in this window', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
} as const;

/** The error responses of an operation, each with the shared envelope. */
export function errorResponses(...statuses: string[]): ZodOpenApiResponsesObject {
  const out: ZodOpenApiResponsesObject = {};
  for (const status of statuses) {
    out[status as '400'] = {
      description: ERROR_DESCRIPTIONS[status] ?? 'Error',
      headers:
        status === '429'
          ? {
              ...RATE_LIMIT_HEADERS,
              'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } },
            }
          : undefined,
      content: { 'application/json': { schema: errorEnvelopeSchema } },
    };
  }
  return out;
}

export const rateLimitHeaders = RATE_LIMIT_HEADERS;
