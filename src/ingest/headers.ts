import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';

/** Stripe's limit for idempotency keys; the contract only says at least one character. */
const HEADER_MAX = 255;

const required = (name: string) => `The ${name} header is required and must not be empty.`;

/**
 * A header a submission must carry: one to 255 characters, not only spaces. Each check stops the
 * header's checks (`abort`), so a header gets one message, as partners have always been told.
 */
function requiredHeader(name: string) {
  return z
    .string({ error: required(name) })
    .min(1, { error: required(name), abort: true })
    .refine((value) => value.trim() !== '', { error: required(name), abort: true })
    .max(HEADER_MAX, { error: `The ${name} header must be at most ${HEADER_MAX} characters.` });
}

/**
 * The headers of `POST /v1/submissions`: ingest validates a request's headers with this schema,
 * and the API description documents them from it (`http/routes/submissions.ts`), so the two
 * cannot drift apart. The blank check is a refinement, which the description leaves out.
 */
export const submissionHeadersSchema = z.object({
  'x-correlation-id': requiredHeader('x-correlation-id').meta({
    description: 'Your id for tracing this request across systems (required)',
  }),
  'idempotency-key': requiredHeader('idempotency-key').meta({
    description: 'Unique per logical submission; a retry with the same body returns the same ids (24 h)',
  }),
  'x-request-id': z
    .string()
    .optional()
    .meta({ description: 'Echoed on the response; generated when absent' }),
});

export type SubmissionHeaders = z.output<typeof submissionHeadersSchema>;

/** Compiled by zod into one generated function, as the body's schema is (`parseSubmission`). */
const compiledHeaders = z.compile(submissionHeadersSchema);

export type HeadersRead = { ok: true; value: SubmissionHeaders } | { ok: false; fieldErrors: FieldErrors };
type FieldErrors = Record<string, string[]>;

/** A header sent twice reaches Node as a list for a few names only; its first value counts. */
function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The request's submission headers, or their problems keyed `headers.<name>`: they are reported
 * together with the body's in one `VALIDATION_ERROR`.
 */
export function readHeaders(headers: IncomingHttpHeaders): HeadersRead {
  const result = compiledHeaders.safeParse({
    'x-correlation-id': first(headers['x-correlation-id']),
    'idempotency-key': first(headers['idempotency-key']),
    'x-request-id': first(headers['x-request-id']),
  });
  if (result.success) return { ok: true, value: result.data };
  const fieldErrors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const field = `headers.${String(issue.path[0])}`;
    fieldErrors[field] = [...(fieldErrors[field] ?? []), issue.message];
  }
  return { ok: false, fieldErrors };
}
