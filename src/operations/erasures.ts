import type { AuditOrigin } from '../domain/audit.js';
import { isUuid } from '../domain/ids.js';
import {
  type ErasureRecord,
  type KeysetPage,
  type KeysetPosition,
  LedgerUnavailableError,
  type TenantAccess,
} from '../store/tenant-access.js';

/**
 * Erasing a subject and reading erasures, for `DELETE /v1/subjects/{id}` and
 * `GET /v1/erasures/{id}`, the console's Erasures pages and the operator's `subjects erase` /
 * `erasures show` alike (docs/data-lifecycle.md).
 */

/** The longest subject reference a submission may carry, so the longest one may be erased. */
export const SUBJECT_MAX = 512;

/** Whether a subject reference may be erased: the API's rule, the console's and the CLI's. */
export function isSubjectReference(subject: unknown): subject is string {
  return typeof subject === 'string' && subject.length >= 1 && subject.length <= SUBJECT_MAX;
}

export type ErasureRequestOutcome =
  | { ok: true; erasure: ErasureRecord }
  | { ok: false; reason: 'bad_subject' }
  /**
   * The erasure ledger cannot take the entry just now (a full or read-only file system, the file
   * gone): nothing was recorded, the caller is told to try again after `retryAfterSeconds`;
   * `operatorMessage` says why and what to fix, for the operator's log and CLI only.
   */
  | { ok: false; reason: 'ledger_unavailable'; retryAfterSeconds: number; operatorMessage: string };

/** What a partner or a console user reads when an erasure cannot be recorded just now. */
export function ledgerUnavailableText(retryAfterSeconds: number): string {
  return `This erasure cannot be recorded just now, and nothing of it was recorded; try again in ${retryAfterSeconds} seconds.`;
}

/**
 * Requests the erasure of every submission of the subject in the account: the pending one when
 * it is still under way, a completed one of nothing when nothing is stored (audited
 * `subject.erasure_requested` with `origin`'s actor). Refused, recording nothing, while the
 * erasure ledger cannot take its entry.
 */
export async function requestErasure(
  erasures: TenantAccess['erasures'],
  subject: unknown,
  origin: AuditOrigin,
): Promise<ErasureRequestOutcome> {
  if (!isSubjectReference(subject)) return { ok: false, reason: 'bad_subject' };
  try {
    return { ok: true, erasure: await erasures.request(subject, origin) };
  } catch (error) {
    if (!(error instanceof LedgerUnavailableError)) throw error;
    return {
      ok: false,
      reason: 'ledger_unavailable',
      retryAfterSeconds: LedgerUnavailableError.retryAfterSeconds,
      operatorMessage: error.message,
    };
  }
}

/**
 * The erasure of this id as written in an address (any case), or undefined when it is not an id
 * or `find` (the account's, or the operator's of any account) has none of it.
 */
export async function readErasure(
  rawId: string,
  find: (erasureId: string) => Promise<ErasureRecord | undefined>,
): Promise<ErasureRecord | undefined> {
  return isUuid(rawId) ? find(rawId.toLowerCase()) : undefined;
}

/** A page of the account's erasures, newest first: `after` is the last one's (requestedAt, id). */
export function listErasures(
  erasures: TenantAccess['erasures'],
  page: { limit: number; after?: KeysetPosition | undefined },
): Promise<KeysetPage<ErasureRecord>> {
  return erasures.list({ limit: page.limit, after: page.after });
}
