import type { IncomingHttpHeaders } from 'node:http';
import type { Principal } from '../auth/authenticator.js';
import type { Clock } from '../clock.js';
import type { AcceptedSubmission } from '../store/tenant-access.js';
import { type CheckRefusal, checkSubmission } from './check.js';
import { checksIdentity } from './checks-identity.js';
import { readHeaders } from './headers.js';
import { idempotencyHashes, type StoreOutcome, type SubmissionLedger, storeOnce } from './idempotency.js';
import { type JsonTextResult, readJsonText } from './read-json.js';

/** One `POST /v1/submissions` as ingest sees it: what was sent, and by whom. */
export interface SubmissionRequest {
  /** As Node hands them over (names in lower case). */
  headers: IncomingHttpHeaders;
  /** The body's bytes as received; undefined when the request had none. */
  body: Buffer | undefined;
  requestId: string;
  sender: Pick<Principal, 'partnerId' | 'namedPartnerId' | 'keyId'>;
}

export interface IngestDeps {
  /** The sender's account's writes (`TenantAccess.submissions`). */
  submissions: SubmissionLedger;
  clock: Clock;
}

/** Why a submission was not accepted; the HTTP layer maps each reason to its status and code. */
export type Refusal = CheckRefusal | Extract<StoreOutcome, { kind: 'refused' }>['refusal'];

export type IngestVerdict =
  | ({ kind: 'accepted' | 'replayed' } & AcceptedSubmission)
  | { kind: 'refused'; refusal: Refusal };

/**
 * Where a submission is accepted: the one way in. The body is read as JSON text (`read-json.ts`),
 * the headers are validated by their schema (`headers.ts`), the body by the contract's checks in
 * their order, and normalised (`check.ts`); then it is stored once per idempotency key
 * (`idempotency.ts`), with which checks it passed (`checks-identity.ts`). A `202` (accepted or replayed) means the submission and its first job are
 * durably committed.
 *
 * The answer to a body that is not JSON lists the reader's problems alone: there is no body to
 * report the headers' problems together with.
 */
export async function acceptSubmission(request: SubmissionRequest, deps: IngestDeps): Promise<IngestVerdict> {
  const text = request.body?.toString('utf8');
  const read: JsonTextResult = text === undefined ? { ok: true, value: undefined } : readJsonText(text);
  if (!read.ok) return { kind: 'refused', refusal: { reason: 'invalid', details: read.errors } };
  const headers = readHeaders(request.headers);
  const receivedAt = deps.clock();
  const checked = checkSubmission(
    read.value,
    { now: receivedAt, namedPartnerId: request.sender.namedPartnerId },
    headers.ok ? undefined : headers.fieldErrors,
  );
  if (!checked.ok) return { kind: 'refused', refusal: checked.refusal };
  // Checked means the headers passed too, and there was a body.
  if (!headers.ok || text === undefined) throw new Error('a checked submission without its headers or body');
  const { submission } = checked;
  const { keyHash, requestHash } = idempotencyHashes(headers.value['idempotency-key'], text);
  return storeOnce(
    deps.submissions,
    {
      partnerId: request.sender.partnerId,
      keyId: request.sender.keyId,
      idempotencyKeyHash: keyHash,
      requestHash,
      correlationId: headers.value['x-correlation-id'],
      requestId: request.requestId,
      partnerSubmissionId: submission.partnerSubmissionId,
      partnerSubjectId: submission.partnerSubjectId,
      originalBody: text,
      normalisedBody: checked.normalisedBody,
      documentCount: submission.reportDocuments?.length ?? 0,
      markerCount: submission.markers.length,
      receivedAt,
      // Stored in the same commit: the check step need not run these checks again.
      doorCheck: { checks: checksIdentity(), outcome: 'passed' },
    },
    read.value,
  );
}
