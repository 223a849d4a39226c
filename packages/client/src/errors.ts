/** What went wrong, as the API said it (`code`, `requestId`, `details`) or as the client saw it. */
export class HealthspanError extends Error {
  override readonly name = 'HealthspanError';

  constructor(
    message: string,
    /** The API's error code (`VALIDATION_ERROR`, `NOT_FOUND`, …), or `NETWORK_ERROR` / `TIMEOUT`. */
    readonly code: string,
    /** The HTTP status; 0 when no answer came. */
    readonly status: number,
    /** The request id to quote to support (`X-Request-Id`), when the API answered. */
    readonly requestId: string | undefined,
    /** Field errors and other details of the error envelope, when given. */
    readonly details: unknown,
    /** Seconds the API asked to wait (`Retry-After`), for a 429 or 503. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  /** Worth retrying with the same idempotency key: no answer, too many requests, a server error. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

interface Envelope {
  error?: { code?: unknown; message?: unknown; requestId?: unknown; details?: unknown };
}

/** The typed error of a non-2xx answer, from its error envelope (already parsed, or not). */
export function errorFrom(response: Response, body: unknown): HealthspanError {
  const e = (body as Envelope | undefined)?.error ?? {};
  const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
  return new HealthspanError(
    typeof e.message === 'string' ? e.message : `HTTP ${response.status}`,
    typeof e.code === 'string' ? e.code : `HTTP_${response.status}`,
    response.status,
    typeof e.requestId === 'string' ? e.requestId : (response.headers.get('x-request-id') ?? undefined),
    e.details,
    Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
  );
}

/** The typed error of a non-2xx answer whose body is still unread. */
export async function errorFromResponse(response: Response): Promise<HealthspanError> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    // Not the envelope (a proxy's page): the status and headers still say enough.
  }
  return errorFrom(response, body);
}

/** No answer came (refused, reset, DNS, TLS): status 0, retryable. */
export function networkError(error: unknown): HealthspanError {
  const message = error instanceof Error ? error.message : 'The request could not be sent.';
  return new HealthspanError(message, 'NETWORK_ERROR', 0, undefined, undefined);
}
