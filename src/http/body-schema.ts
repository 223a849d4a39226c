import { z } from 'zod';
import { ApiError } from './errors.js';

/**
 * A JSON body parsed by its schema, or a `400 VALIDATION_ERROR` with zod's field errors and
 * `message` (which names the schema in plain words).
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, message: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const { formErrors, fieldErrors } = z.flattenError(parsed.error);
  throw ApiError.validation({ formErrors, fieldErrors: fieldErrors as Record<string, string[]> }, message);
}
