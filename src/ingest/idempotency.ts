import stableStringify from 'fast-json-stable-stringify';
import type { AuditOrigin } from '../domain/audit.js';
import { sha256Hex } from '../hash.js';
import type {
  AcceptedSubmission,
  HeldClaim,
  IngestResult,
  TenantIngestCommand,
} from '../store/tenant-access.js';
import { inSpan } from '../telemetry/tracing.js';
import { readJsonText } from './read-json.js';

/** What ingest needs of the store: the account's writes (`TenantAccess.submissions`). */
export interface SubmissionLedger {
  ingest(command: TenantIngestCommand): Promise<IngestResult>;
  replayed(submissionId: string, origin: AuditOrigin): Promise<void>;
}

/**
 * What a request's idempotency is decided on, each hashed once: its key, and its body as
 * decoded (equal hashes are the same request without more work).
 */
export function idempotencyHashes(key: string, text: string): { keyHash: string; requestHash: string } {
  return { keyHash: sha256Hex(key), requestHash: sha256Hex(text) };
}

export type StoreOutcome =
  | ({ kind: 'accepted' | 'replayed' } & AcceptedSubmission)
  /** The key holds another body (`409`), or its submission was erased on request (`410`). */
  | { kind: 'refused'; refusal: { reason: 'mismatch' } | { reason: 'erased' } };

/** A request whose key another request holds, decided. */
export type Settled =
  | { kind: 'replayed'; accepted: AcceptedSubmission }
  | { kind: 'mismatch' }
  /** The key's submission was erased on request: a replay must not create it again. */
  | { kind: 'erased' };

/**
 * The decision on a request whose key another request holds: a replay when it sent the same
 * bytes, or the same JSON value (key order and whitespace do not matter; only compared when the
 * bytes differ, so off the hot path); a mismatch otherwise; `erased` when the key's submission
 * was erased on request.
 */
export function settleHeldKey(held: HeldClaim, body: unknown): Settled {
  if (held.erased) return { kind: 'erased' };
  if (held.sameRequest || sameJsonValue(held.originalBody ?? '', body)) {
    return { kind: 'replayed', accepted: held.accepted };
  }
  return { kind: 'mismatch' };
}

function sameJsonValue(storedText: string, body: unknown): boolean {
  const stored = readJsonText(storedText);
  return stored.ok && stableStringify(stored.value) === stableStringify(body);
}

/**
 * Stores a checked submission once per idempotency key: the store claims the key and writes the
 * submission with its first job in one durable commit, or answers with the claim that holds the
 * key. A replay is recorded in the audit trail before it is answered.
 */
export async function storeOnce(
  ledger: SubmissionLedger,
  command: TenantIngestCommand,
  body: unknown,
): Promise<StoreOutcome> {
  const written = await inSpan('ingest.commit', {}, () => ledger.ingest(command));
  if (written.kind === 'created') return { ...written, kind: 'accepted' };
  const settled = settleHeldKey(written.held, body);
  if (settled.kind !== 'replayed') return { kind: 'refused', refusal: { reason: settled.kind } };
  await ledger.replayed(settled.accepted.submissionId, {
    actor: { type: 'api_key', keyId: command.keyId },
    requestId: command.requestId,
    correlationId: command.correlationId,
  });
  return { ...settled.accepted, kind: 'replayed' };
}
