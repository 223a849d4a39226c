import { z } from 'zod';
import { ApiError } from './errors.js';

/**
 * The query parameters every list route shares, and the reading of a list's query: strict (an
 * unknown parameter is a `400`, not silently ignored), each problem named `query.<param>` in
 * `details.fieldErrors`, the same envelope as a body's.
 */

export const MAX_PAGE = 200;

export const listLimit = z.coerce
  .number()
  .int()
  .min(1)
  .max(MAX_PAGE)
  .default(50)
  .meta({ description: `Items per page, 1 to ${MAX_PAGE} (default 50)` });

export const listCursor = z.string().min(1).max(512).optional().meta({
  description: 'nextCursor of the previous page, as it was given; the other filters must stay the same',
});

/** An ISO 8601 time with its offset (`Z` or `±hh:mm`). */
export function queryTime(description: string) {
  return z.iso.datetime({ offset: true }).optional().meta({ description });
}

const CURSOR_MESSAGE =
  'cursor is not valid here: pass nextCursor from the previous page as it is, with the same key and filters.';

/** A `400 VALIDATION_ERROR` naming one query parameter. */
export function queryError(param: string, message: string): ApiError {
  return ApiError.validation(
    { formErrors: [], fieldErrors: { [`query.${param}`]: [message] } },
    'The query parameters are not valid.',
  );
}

/** A cursor that was not issued for this account, mode, list and filter set, or was altered. */
export function cursorError(): ApiError {
  return queryError('cursor', CURSOR_MESSAGE);
}

/**
 * The query, parsed by a strict object schema, or a `400 VALIDATION_ERROR` naming each bad
 * parameter. `messages` words a parameter's problem for a partner (zod's own wording otherwise).
 */
export function parseListQuery<S extends z.ZodObject>(
  schema: S,
  query: unknown,
  messages: Readonly<Record<string, string>>,
): z.output<S> {
  const parsed = schema.safeParse(query ?? {});
  if (parsed.success) return parsed.data;
  const known = Object.keys(schema.shape).join(', ');
  const fieldErrors: Record<string, string[]> = {};
  const add = (name: string, message: string) => {
    const key = `query.${name}`;
    fieldErrors[key] = [...(fieldErrors[key] ?? []), message];
  };
  for (const issue of parsed.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const name of issue.keys)
        add(name, `${name} is not a parameter of this list (it takes ${known}).`);
      continue;
    }
    const name = issue.path.map(String).join('.');
    add(name, messages[name] ?? issue.message);
  }
  // One message per parameter: a value fails several checks at once (not a number, not whole).
  for (const key of Object.keys(fieldErrors)) fieldErrors[key] = [...new Set(fieldErrors[key])];
  throw ApiError.validation({ formErrors: [], fieldErrors }, 'The query parameters are not valid.');
}
