import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { isUuid } from '../domain/ids.js';

export type ErrorCode =
  | 'BAD_REQUEST'
  | 'VALIDATION_ERROR'
  | 'SUBMISSION_VALIDATION_ERROR'
  | 'INVALID_API_KEY'
  | 'ACCOUNT_INACTIVE'
  | 'PARTNER_ID_MISMATCH'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'REQUEST_TIMEOUT'
  | 'EXPECTATION_FAILED'
  | 'IDEMPOTENCY_MISMATCH'
  | 'SUBMISSION_ERASED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'HEADERS_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'FORBIDDEN'
  | 'TEST_MODE_ONLY'
  | 'RESULT_NOT_READY'
  | 'WEBHOOK_NOT_CONFIGURED'
  | 'WEBHOOK_ENDPOINT_DISABLED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

export interface ValidationDetails {
  formErrors: string[];
  fieldErrors: Record<string, string[]>;
}

export type PanelDetails = Array<{ field: string; message: string }>;

/** Said by every refusal for a deactivated account: API calls and download links alike. */
export const ACCOUNT_INACTIVE_MESSAGE = 'This account is inactive. Contact the service operator.';

/**
 * `POST /v1/test/events` without a test callback: the partner sets one itself, or receives test
 * events through `healthspan listen` (the client package's command), without an operator.
 */
export const TEST_CALLBACK_NOT_CONFIGURED =
  'No callback URL is registered for test mode. Set one with this test key: PUT /v1/webhook-endpoint with {"url": "https://…"}. Or, to receive test events on your own machine, run npx healthspan listen --forward-to http://localhost:3000/webhooks (from @healthspan/client): it forwards each test result’s event as it is created.';

/** An error a partner is meant to see: its code, message and details reach the body as they are. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: ValidationDetails | PanelDetails,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  static validation(
    details: ValidationDetails,
    message = 'The request does not match the submission schema.',
  ) {
    return new ApiError(400, 'VALIDATION_ERROR', message, details);
  }

  static notFound(message = 'No such resource in this account.') {
    return new ApiError(404, 'NOT_FOUND', message);
  }

  static accountInactive() {
    return new ApiError(403, 'ACCOUNT_INACTIVE', ACCOUNT_INACTIVE_MESSAGE);
  }
}

export interface ErrorEnvelope {
  error: {
    code: string;
    message: string;
    requestId: string;
    correlationId?: string;
    details?: ValidationDetails | PanelDetails;
  };
}

export function envelope(request: FastifyRequest, error: ApiError): ErrorEnvelope {
  const body: ErrorEnvelope['error'] = { code: error.code, message: error.message, requestId: request.id };
  const correlationId = correlationIdOf(request);
  if (correlationId !== undefined) body.correlationId = correlationId;
  if (error.details !== undefined) body.details = error.details;
  return { error: body };
}

export function correlationIdOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['x-correlation-id'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value !== undefined && value.trim() !== '' ? value : undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The error code answered, for the request's log line. */
    errorCode: ErrorCode | null;
  }
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError): FastifyReply {
  request.errorCode = error.code;
  for (const [k, v] of Object.entries(error.headers)) reply.header(k, v);
  return reply.code(error.statusCode).type('application/json; charset=utf-8').send(envelope(request, error));
}

/** Fastify's `frameworkErrors`: errors before routing (a malformed path), in the envelope. */
export function sendFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  sendError(request, reply, fromFrameworkError(error));
}

/** Turns the framework's own errors (parsing, limits, plugins) into documented codes. */
function fromFrameworkError(error: FastifyError): ApiError {
  if (error instanceof ApiError) return error;
  const status = error.statusCode ?? 500;
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'PAYLOAD_TOO_LARGE', 'The request body is larger than the limit.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return ApiError.validation({
        formErrors: ['The request body is empty; send a JSON object.'],
        fieldErrors: {},
      });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return ApiError.validation({ formErrors: ['The request body is not valid JSON.'], fieldErrors: {} });
    case 'FST_ERR_BAD_URL':
      return new ApiError(400, 'BAD_REQUEST', 'The request path is not a valid URL path.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return ApiError.notFound();
    default:
      break;
  }
  if (status === 429) {
    return new ApiError(
      429,
      'RATE_LIMITED',
      'Too many requests for this API key; retry after the Retry-After delay.',
    );
  }
  if (status === 404) return ApiError.notFound();
  if (status >= 400 && status < 500) {
    return new ApiError(400, 'BAD_REQUEST', 'The request could not be read as HTTP.');
  }
  return new ApiError(
    500,
    'INTERNAL_ERROR',
    'Something went wrong on our side. Retry later; the request id helps support.',
  );
}

interface RouteShape {
  pattern: RegExp;
  methods: Set<string>;
}

/** Installs the error envelope on every error path, including unknown routes and methods. */
export function installErrorHandling(app: FastifyInstance): void {
  app.decorateRequest('errorCode', null);
  const routes: RouteShape[] = [];
  app.addHook('onRoute', (route) => {
    // Catch-all routes (the CORS preflight handler) say nothing about which methods a path has.
    if (route.url.includes('*')) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const source = route.url
      .split('/')
      .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    const pattern = new RegExp(`^${source}/?$`);
    const existing = routes.find((r) => r.pattern.source === pattern.source);
    if (existing) for (const m of methods) existing.methods.add(m);
    else routes.push({ pattern, methods: new Set(methods) });
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = fromFrameworkError(error);
    if (apiError.statusCode >= 500) {
      request.log.error({ err: error }, 'request failed');
    }
    if (apiError.code === 'RATE_LIMITED') {
      const retryAfter = reply.getHeader('retry-after');
      if (retryAfter !== undefined) reply.header('retry-after', retryAfter);
    }
    return sendError(request, reply, apiError);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const match = routes.find((r) => r.pattern.test(path));
    if (match && !match.methods.has(request.method)) {
      const allow = [...match.methods].filter((m) => m !== 'HEAD').join(', ');
      return sendError(
        request,
        reply,
        new ApiError(
          405,
          'METHOD_NOT_ALLOWED',
          `${request.method} is not supported here; use ${allow}.`,
          undefined,
          {
            allow,
          },
        ),
      );
    }
    return sendError(request, reply, ApiError.notFound('No such route.'));
  });
}

/**
 * The record a path id names in the caller's account, or `404` (ids that are not UUIDs
 * included): the one lookup-or-404 every read route uses (Svix's `secure_find`).
 */
export async function findOr404<T>(
  rawId: string,
  find: (id: string) => Promise<T | undefined>,
  message: string,
): Promise<T> {
  if (!isUuid(rawId)) throw ApiError.notFound(message);
  const found = await find(rawId.toLowerCase());
  if (!found) throw ApiError.notFound(message);
  return found;
}

const BODY_NOT_VALID = 'The request body is not valid.';

/**
 * The `400 VALIDATION_ERROR` of a request body zod refused: each problem under its field's dotted
 * path (a field the request does not have named as such), a problem of the body as a whole in
 * `formErrors`, `message` above them. Every route that reads a body answers with it.
 */
export function bodyError(error: z.ZodError, message = BODY_NOT_VALID): ApiError {
  const fieldErrors: Record<string, string[]> = {};
  const formErrors: string[] = [];
  const add = (name: string, text: string) => {
    fieldErrors[name] = [...(fieldErrors[name] ?? []), text];
  };
  for (const issue of error.issues) {
    const at = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const name = at ? `${at}.${key}` : key;
        add(name, `${name} is not a field of this request.`);
      }
    } else if (at === '') formErrors.push(issue.message);
    else add(at, issue.message);
  }
  return ApiError.validation({ formErrors, fieldErrors }, message);
}

/** A JSON body read by `schema` (no body reads as `{}`), or its `400` (`bodyError`). */
export function parseBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  message = BODY_NOT_VALID,
): z.output<S> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  throw bodyError(parsed.error, message);
}
