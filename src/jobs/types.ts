/**
 * A job as the store keeps it and the queue runs it: the contract both sides import (River's
 * `rivertype`), so that neither `store/` nor `queue/` has to import the other for it.
 */

/** A job claimed by a worker: what its handler receives. */
export interface ClaimedJob {
  id: string;
  tenantId: string;
  submissionId: string | null;
  /** The job's kind, registered in the worker's `JobKinds`. */
  type: string;
  payload: Record<string, unknown> | null;
  correlationId: string | null;
  requestId: string | null;
  /** This attempt's number, 1-based (already counted when the job was claimed). */
  attempt: number;
  maxAttempts: number;
  acceptedAt: string;
  slaDeadlineAt: string | null;
  /** Lease owner: completion is fenced on it, so a worker that lost its lease cannot finish. */
  lockedBy: string;
  /** The trace of the work that enqueued it (W3C `traceparent`); null when tracing was off. */
  traceparent?: string | null;
}

export interface NewJob {
  /** Given when the caller needs the id before the insert (ingest answers with it). */
  id?: string;
  type: string;
  tenantId: string;
  submissionId: string | null;
  payload?: Record<string, unknown> | null;
  correlationId: string | null;
  requestId: string | null;
  acceptedAt: string;
  slaDeadlineAt: string | null;
  maxAttempts: number;
  runAt?: string;
  /** Unset: the active span's, when tracing is on (`rows.ts`). */
  traceparent?: string | null;
}

/** A claimed job's lease: who holds it and for how long from the claim. */
export interface Lease {
  workerId: string;
  leaseMs: number;
}
