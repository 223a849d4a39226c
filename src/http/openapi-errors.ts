import { z } from 'zod';
import type { ZodOpenApiResponseObject, ZodOpenApiResponsesObject } from 'zod-openapi';
import {
  ACCOUNT_INACTIVE_MESSAGE,
  type ErrorCode,
  type PanelDetails,
  TEST_CALLBACK_NOT_CONFIGURED,
  type ValidationDetails,
} from './errors.js';
import { panelDetailsSchema, validationDetailsSchema } from './schemas.js';

/** What each error code means in general, its status, and an example of what it really says. */
interface CodeEntry {
  status: number;
  meaning: string;
  message: string;
  details?: ValidationDetails | PanelDetails;
}

export const ERROR_CODES: Readonly<Record<ErrorCode, CodeEntry>> = {
  BAD_REQUEST: {
    status: 400,
    meaning:
      'the request is not valid HTTP (malformed request line or headers, path not a valid URL path, no Host)',
    message: 'The request is not valid HTTP/1.1.',
  },
  VALIDATION_ERROR: {
    status: 400,
    meaning:
      'the body is not JSON or does not match the submission schema, a required header is missing, or a path or query parameter is out of range',
    message: 'The request does not match the submission schema.',
    details: {
      formErrors: [],
      fieldErrors: { 'subject.demographics.ageYears': ['ageYears must be between 0 and 120.'] },
    },
  },
  SUBMISSION_VALIDATION_ERROR: {
    status: 400,
    meaning: 'the 14-marker panel fails on count, codes, duplicates, units or ranges',
    message: 'The marker panel is not valid.',
    details: [{ field: 'markers[0].unit', message: 'unit for ALBUMIN must be g/L (sent "mg/dL")' }],
  },
  INVALID_API_KEY: {
    status: 401,
    meaning: 'the API key is missing, invalid, revoked or expired',
    message:
      'The API key sent in the X-Api-Key header is not accepted: it is mistyped, revoked or expired. Send a current key in the X-Api-Key header, or as Authorization: Bearer <key>.',
  },
  ACCOUNT_INACTIVE: {
    status: 403,
    meaning: 'the account was deactivated',
    message: ACCOUNT_INACTIVE_MESSAGE,
  },
  PARTNER_ID_MISMATCH: {
    status: 403,
    meaning: 'the body partnerId is not the partner the API key belongs to',
    message: 'partnerId does not match the partner this API key belongs to.',
  },
  FORBIDDEN: {
    status: 403,
    meaning: 'the download link is malformed, altered or expired',
    message: 'This download link is invalid or has expired; read the result again for a fresh link.',
  },
  TEST_MODE_ONLY: {
    status: 403,
    meaning: 'a test-mode operation called with a live key',
    message: 'This endpoint takes test keys (hs_test_…) only; live data never receives test events.',
  },
  NOT_FOUND: {
    status: 404,
    meaning: 'unknown or malformed id, or an id of another account',
    message: 'No such resource in this account.',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    meaning: 'the path exists but not with this method (the Allow header lists the methods)',
    message: 'DELETE is not supported here; use GET.',
  },
  REQUEST_TIMEOUT: {
    status: 408,
    meaning: 'the request headers or body did not arrive in time',
    message: 'The request was not received in time; send the whole request promptly.',
  },
  SUBMISSION_ERASED: {
    status: 410,
    meaning: 'the submission this Idempotency-Key created was erased on request (within the key’s 24 hours)',
    message:
      'The submission this Idempotency-Key created was erased on request. Use a new key to submit again.',
  },
  IDEMPOTENCY_MISMATCH: {
    status: 409,
    meaning: 'the Idempotency-Key was already used with a different body',
    message:
      'This Idempotency-Key was already used with a different body. Use a new key for a new submission.',
  },
  RESULT_NOT_READY: {
    status: 409,
    meaning: 'the result is not completed yet, or (no resultId given) no test result has completed',
    message: 'This result is not completed yet; send the event once it is.',
  },
  WEBHOOK_NOT_CONFIGURED: {
    status: 409,
    meaning: 'no callback URL is registered for this mode',
    message: TEST_CALLBACK_NOT_CONFIGURED,
  },
  WEBHOOK_ENDPOINT_DISABLED: {
    status: 409,
    meaning:
      'the callback endpoint is disabled (every attempt failed for WEBHOOK_DISABLE_AFTER); enable it first',
    message:
      'Your callback endpoint is disabled after failing for days: enable it (POST /v1/webhook-endpoint/enable) first.',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    meaning: 'the body is larger than the limit (1 MiB by default) or arrives in too many small pieces',
    message: 'The request body is larger than the 1048576-byte limit.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    meaning: 'the body is not sent as application/json in UTF-8',
    message: 'Send the body as application/json.',
  },
  EXPECTATION_FAILED: {
    status: 417,
    meaning: 'an Expect header other than 100-continue',
    message: 'Only the expectation 100-continue is supported.',
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    meaning: 'the request headers are larger than the server accepts',
    message: 'The request headers are larger than the server accepts.',
  },
  RATE_LIMITED: {
    status: 429,
    meaning: 'too many requests; wait for the Retry-After delay',
    message: 'Too many requests for this API key (limit 120 per minute); retry after 1 minute.',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    meaning: 'the database or the queue does not answer, or migrations are not applied',
    message: 'Not ready: database unavailable.',
  },
  INTERNAL_ERROR: {
    status: 500,
    meaning: 'an unexpected failure; retry later, quoting the request id',
    message: 'Something went wrong on our side. Retry later; the request id helps support.',
  },
};

/** Codes Node or the framework may answer on any route, before the route runs. */
export const ANY_ROUTE: readonly ErrorCode[] = [
  'BAD_REQUEST',
  'REQUEST_TIMEOUT',
  'EXPECTATION_FAILED',
  'HEADERS_TOO_LARGE',
  'INTERNAL_ERROR',
];

/** Answered by Node itself on the socket: no rate-limit headers, only the request id. */
const RAW_ANSWERS: readonly ErrorCode[] = ['REQUEST_TIMEOUT', 'EXPECTATION_FAILED', 'HEADERS_TOO_LARGE'];

const EXAMPLE_REQUEST_ID = '5f0d9a4e-2b7c-4c1e-9d3a-6a8f1e2b4c70';

export const headerDocs = {
  requestId: {
    'X-Request-Id': {
      description:
        'The request id (your x-request-id when it is 1 to 200 of A-Z a-z 0-9 . _ : @ -, else generated)',
      required: true,
      schema: { type: 'string' },
    },
  },
  rateLimit: {
    'RateLimit-Limit': {
      description: 'Requests allowed per window (sent when rate limiting is on)',
      schema: { type: 'integer' },
    },
    'RateLimit-Remaining': {
      description: 'Requests left in this window (sent when rate limiting is on)',
      schema: { type: 'integer' },
    },
    'RateLimit-Reset': {
      description: 'Seconds until the window resets (sent when rate limiting is on)',
      schema: { type: 'integer' },
    },
  },
  retryAfter: {
    'Retry-After': {
      description: 'Seconds to wait before retrying',
      required: true,
      schema: { type: 'integer' },
    },
  },
  wwwAuthenticate: {
    'WWW-Authenticate': {
      description: 'The authentication scheme: Bearer realm="healthspan"',
      required: true,
      schema: { type: 'string' },
    },
  },
} as const;

export interface OperationErrors {
  codes: readonly ErrorCode[];
  /** Whether the operation is under the rate limit (RateLimit-* headers and 429). */
  rateLimited: boolean;
  /** What a code means for this operation, where the general meaning would mislead. */
  meanings?: Partial<Record<ErrorCode, string>>;
  /** The message a code's example shows, where the operation words it differently. */
  messages?: Partial<Record<ErrorCode, string>>;
  /** Its `503` says when to try again (`Retry-After`): a dependency that is down for a while. */
  retryAfterOn503?: boolean;
}

/** Headers sent on every answer of an operation (successes included). */
export function successHeaders(rateLimited: boolean) {
  return { ...headerDocs.requestId, ...(rateLimited ? headerDocs.rateLimit : {}) };
}

const errorCore = z.object({
  message: z.string().meta({ description: 'Human-readable explanation' }),
  requestId: z.string().meta({ description: 'Echoed x-request-id, or one the service generated' }),
  correlationId: z.string().optional().meta({ description: 'Echoes x-correlation-id when supplied' }),
});

/** The error envelope with `code` limited to what one response can answer. */
export function errorEnvelopeFor(codes: readonly ErrorCode[]) {
  const code = z
    .enum(codes as [ErrorCode, ...ErrorCode[]])
    .meta({ description: 'Machine-readable error code' });
  const hasValidation = codes.includes('VALIDATION_ERROR');
  const hasPanel = codes.includes('SUBMISSION_VALIDATION_ERROR');
  const details =
    hasValidation && hasPanel
      ? z.union([validationDetailsSchema, panelDetailsSchema]).optional()
      : hasValidation
        ? validationDetailsSchema.optional()
        : hasPanel
          ? panelDetailsSchema.optional()
          : undefined;
  return z.object({ error: details ? errorCore.extend({ code, details }) : errorCore.extend({ code }) });
}

export function errorExample(code: ErrorCode, message = ERROR_CODES[code].message) {
  const entry = ERROR_CODES[code];
  return {
    error: {
      code,
      message,
      requestId: EXAMPLE_REQUEST_ID,
      ...(entry.details ? { details: entry.details } : {}),
    },
  };
}

/** The error responses of an operation: one per status, with its codes as an enum and an example each. */
export function errorResponses(op: OperationErrors): ZodOpenApiResponsesObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of op.codes) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: ZodOpenApiResponsesObject = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const raw = codes.every((c) => RAW_ANSWERS.includes(c));
    const response: ZodOpenApiResponseObject = {
      description: codes.map((c) => `${c}: ${op.meanings?.[c] ?? ERROR_CODES[c].meaning}`).join('; '),
      headers: {
        ...headerDocs.requestId,
        ...(op.rateLimited && !raw ? headerDocs.rateLimit : {}),
        ...(status === 429 || (status === 503 && op.retryAfterOn503) ? headerDocs.retryAfter : {}),
        ...(status === 401 ? headerDocs.wwwAuthenticate : {}),
      },
      content: {
        'application/json': {
          schema: errorEnvelopeFor(codes),
          examples: Object.fromEntries(
            codes.map((c) => [
              c,
              {
                summary: op.meanings?.[c] ?? ERROR_CODES[c].meaning,
                value: errorExample(c, op.messages?.[c]),
              },
            ]),
          ),
        },
      },
    };
    out[String(status) as '400'] = response;
  }
  return out;
}

/** An operation that needs an API key: the key check, the account check and the rate limit. */
export const KEYED_OPERATION: OperationErrors = {
  codes: [...ANY_ROUTE, 'INVALID_API_KEY', 'ACCOUNT_INACTIVE', 'RATE_LIMITED'],
  rateLimited: true,
  meanings: {
    RATE_LIMITED:
      'too many requests for this API key, or too many failed key checks from this address; wait for the Retry-After delay',
  },
};

/** An unauthenticated support route: not rate limited, only the errors of any route. */
export const SUPPORT_OPERATION: OperationErrors = { codes: ANY_ROUTE, rateLimited: false };
