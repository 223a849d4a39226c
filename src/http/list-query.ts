import { z } from 'zod';
import { isUuid } from '../domain/ids.js';
import type { PageRead } from '../operations/page-read.js';
import type { KeysetPage, KeysetPosition } from '../store/tenant-access.js';
import type { CursorScope, PageCursors } from './cursor.js';
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

/** A filter by one of the partner's own references, matched exactly. */
export function queryReference(description: string) {
  return z.string().min(1).max(512).optional().meta({ description });
}

/** How a time parameter is written, as a partner reads it in a `400`. */
export const TIME_FORMAT = 'an ISO 8601 time with its offset, e.g. 2026-11-21T12:00:00Z (send + as %2B)';

/** The words for the parameters every list has (a list's own `messages` come first). */
const SHARED_MESSAGES: Readonly<Record<string, string>> = {
  limit: `limit must be a whole number from 1 to ${MAX_PAGE}.`,
  cursor: 'cursor must be nextCursor from the previous page, as it was given.',
  partnerSubmissionId: 'partnerSubmissionId must be 1 to 512 characters.',
  partnerSubjectId: 'partnerSubjectId must be 1 to 512 characters.',
};

/** The `400` words for a list's time parameters. */
export function timeMessages(...names: string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, `${name} must be ${TIME_FORMAT}.`]));
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
  messages: Readonly<Record<string, string>> = {},
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
    add(name, messages[name] ?? SHARED_MESSAGES[name] ?? issue.message);
  }
  // One message per parameter: a value fails several checks at once (not a number, not whole).
  for (const key of Object.keys(fieldErrors)) fieldErrors[key] = [...new Set(fieldErrors[key])];
  throw ApiError.validation({ formErrors: [], fieldErrors }, 'The query parameters are not valid.');
}

/**
 * The position a page starts after: none without a cursor; a `400` naming `cursor` for one not
 * issued for this scope or not holding a (time, id) position.
 */
export function cursorPosition(
  cursors: PageCursors,
  scope: CursorScope,
  cursor: string | undefined,
): KeysetPosition | undefined {
  if (cursor === undefined) return undefined;
  const value = cursors.decode(scope, cursor);
  const [at, id] = value ?? [];
  if (value?.length !== 2 || typeof at !== 'string' || !z.iso.datetime().safeParse(at).success)
    throw cursorError();
  if (typeof id !== 'string' || !isUuid(id)) throw cursorError();
  return { at, id };
}

/**
 * A list's time window (`after` inclusive, `before` exclusive) as dates, or a `400` naming the
 * second parameter when it is not later than the first.
 */
export function timeWindow(
  names: readonly [after: string, before: string],
  after: string | undefined,
  before: string | undefined,
): { after: Date | undefined; before: Date | undefined } {
  const from = after === undefined ? undefined : new Date(after);
  const to = before === undefined ? undefined : new Date(before);
  if (from && to && to <= from) throw queryError(names[1], `${names[1]} must be later than ${names[0]}.`);
  return { after: from, before: to };
}

/** A page request of one list, as its route has parsed it. */
export interface ListRequest {
  /** The list's name in its cursors' scope, e.g. `submissions`. */
  list: string;
  tenantId: string;
  limit: number;
  cursor: string | undefined;
  /** The list's filters other than its time window, as the request gave them. */
  filters?: Readonly<Record<string, string | undefined>>;
  /** Its time window, if it has one: the two parameters' names and values. */
  window?: {
    names: readonly [after: string, before: string];
    after: string | undefined;
    before: string | undefined;
  };
}

/** A page as every list answers it. */
export interface ListAnswer<I> {
  items: I[];
  nextCursor: string | null;
}

/**
 * One page of a list, the same steps for every list: the time window checked, the cursor's
 * scope built from the filters as the list applies them (times in UTC: the same walk gives the
 * same cursor), its position read (or a `400`), the page read, and the next cursor signed over
 * the same scope from the last item's position.
 */
export async function readList<R, I>(
  cursors: PageCursors,
  req: ListRequest,
  read: (q: PageRead) => Promise<KeysetPage<R>>,
  positionOf: (record: R) => KeysetPosition,
  present: (record: R) => I,
): Promise<ListAnswer<I>> {
  const { window } = req;
  const { after: from, before: to } = window
    ? timeWindow(window.names, window.after, window.before)
    : { after: undefined, before: undefined };
  const filters: Record<string, string | undefined> = { ...req.filters };
  if (window) {
    filters[window.names[0]] = from?.toISOString();
    filters[window.names[1]] = to?.toISOString();
  }
  const scope: CursorScope = { list: req.list, tenantId: req.tenantId, filters };
  const after = cursorPosition(cursors, scope, req.cursor);
  const page = await read({ limit: req.limit, after, from, to });
  const last = page.items.at(-1);
  const position = page.more && last ? positionOf(last) : undefined;
  return {
    items: page.items.map(present),
    nextCursor: position ? cursors.encode(scope, [position.at, position.id]) : null,
  };
}
