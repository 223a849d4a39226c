import {
  AUDIT_OUTCOMES,
  type AuditAction,
  type AuditOrigin,
  type AuditResourceType,
} from '../domain/audit.js';
import { INGEST_JOB_TYPE } from '../domain/statuses.js';
import type { Lease, NewJob } from '../jobs/types.js';
import { tracing } from '../telemetry/tracing.js';
import { artifactIdFor, newId, subjectIdFor } from './ids.js';
import type { PackKind } from './packing/dictionaries.js';

/**
 * The rows the store writes, each built in one place: whichever driver or statement writes a
 * job or a submission, its values come from here, so a column is added once.
 */

export const JOB_COLUMNS = [
  'id',
  'tenant_id',
  'submission_id',
  'type',
  'status',
  'payload',
  'correlation_id',
  'request_id',
  'attempts',
  'max_attempts',
  'run_at',
  'locked_until',
  'locked_by',
  'queued_at',
  'accepted_at',
  'started_at',
  'completed_at',
  'failed_at',
  'sla_deadline_at',
  'error_summary',
  'traceparent',
  'created_at',
  'updated_at',
] as const;

export const SUBMISSION_COLUMNS = [
  'id',
  'tenant_id',
  'partner_id',
  'subject_id',
  'partner_submission_id',
  'partner_subject_id',
  'status',
  'correlation_id',
  'request_id',
  'original_body',
  'normalised_body',
  'document_count',
  'marker_count',
  'received_at',
  'created_at',
  'updated_at',
  'door_checks',
  'door_outcome',
] as const;

export const IDEMPOTENCY_COLUMNS = [
  'partner_id',
  'key_hash',
  'request_hash',
  'submission_id',
  'job_id',
  'created_at',
  'expires_at',
] as const;

export const RESULT_COLUMNS = [
  'id',
  'tenant_id',
  'submission_id',
  'bundle',
  'created_at',
  'updated_at',
] as const;

export const ARTIFACT_COLUMNS = [
  'id',
  'tenant_id',
  'submission_id',
  'result_id',
  'type',
  'availability',
  'content_type',
  'file_name',
  'byte_size',
  'sha256',
  'generated_at',
  'created_at',
  'updated_at',
] as const;

export const AUDIT_COLUMNS = [
  'id',
  'tenant_id',
  'occurred_at',
  'action',
  'resource_type',
  'resource_id',
  'actor_type',
  'actor_id',
  'actor_key_id',
  'request_id',
  'correlation_id',
  'outcome',
] as const;

/** Packed JSON documents are bytes (`packing/packed-json.ts`); every other value is text or a number. */
type Value = string | number | Buffer | null;
export type JobRow = Record<(typeof JOB_COLUMNS)[number], Value>;
export type SubmissionRow = Record<(typeof SUBMISSION_COLUMNS)[number], Value>;
export type IdempotencyRow = Record<(typeof IDEMPOTENCY_COLUMNS)[number], Value>;
export type ResultRow = Record<(typeof RESULT_COLUMNS)[number], Value>;
export type ArtifactRow = Record<(typeof ARTIFACT_COLUMNS)[number], Value>;
export type AuditRow = Record<(typeof AUDIT_COLUMNS)[number], string | null>;

/** A new job's row: pending, or already running under `lease` with its first attempt counted. */
export function jobRow(job: NewJob & { id: string }, now: Date, lease: Lease | null): JobRow {
  const nowIso = now.toISOString();
  return {
    id: job.id,
    tenant_id: job.tenantId,
    submission_id: job.submissionId,
    type: job.type,
    status: lease ? 'running' : 'pending',
    payload: job.payload ? JSON.stringify(job.payload) : null,
    correlation_id: job.correlationId,
    request_id: job.requestId,
    attempts: lease ? 1 : 0,
    max_attempts: job.maxAttempts,
    run_at: job.runAt ?? nowIso,
    locked_until: lease ? new Date(now.getTime() + lease.leaseMs).toISOString() : null,
    locked_by: lease?.workerId ?? null,
    queued_at: nowIso,
    accepted_at: job.acceptedAt,
    started_at: lease ? nowIso : null,
    completed_at: null,
    failed_at: null,
    sla_deadline_at: job.slaDeadlineAt,
    error_summary: null,
    // The work enqueueing it: its trace goes on in the job (when tracing is on).
    traceparent: job.traceparent ?? tracing().traceparent() ?? null,
    created_at: nowIso,
    updated_at: nowIso,
  };
}

/**
 * What the door's checks found, stored with the submission: which checks ran (their
 * fingerprint) and that they passed, so the check step need not run the same checks again.
 */
export interface DoorCheck {
  checks: string;
  outcome: 'passed';
}

/** What an accepted submission stores, besides its ids. */
export interface SubmissionValues {
  tenantId: string;
  partnerId: string;
  partnerSubmissionId: string;
  partnerSubjectId: string;
  correlationId: string;
  requestId: string;
  originalBody: string;
  normalisedBody: string;
  documentCount: number;
  markerCount: number;
  /** Absent for rows written without the door's checks (store tests): checked in full later. */
  doorCheck?: DoorCheck;
}

/** Where a row's JSON documents get their stored form: the driver (`Driver` extends it). */
export interface DocumentStore {
  /**
   * A JSON document (a submission's body, as sent or normalised; a result bundle) as this
   * database stores it. PostgreSQL: packed (`packing/`), spending the service's CPU, which grows
   * by adding processes, to spare the shared server's and its storage. SQLite: the text, since
   * the one process would pay for packing itself, its door a third slower
   * (docs/performance-journal.md, 2026-11-29).
   */
  storedDocument(text: string, kind: PackKind): Buffer | string;
}

export function submissionRow(
  id: string,
  s: SubmissionValues,
  now: Date,
  docs: DocumentStore,
): SubmissionRow {
  const nowIso = now.toISOString();
  return {
    id,
    tenant_id: s.tenantId,
    partner_id: s.partnerId,
    subject_id: subjectIdFor(s.tenantId, s.partnerSubjectId),
    partner_submission_id: s.partnerSubmissionId,
    partner_subject_id: s.partnerSubjectId,
    status: 'received',
    correlation_id: s.correlationId,
    request_id: s.requestId,
    original_body: docs.storedDocument(s.originalBody, 'submission'),
    normalised_body: docs.storedDocument(s.normalisedBody, 'submission'),
    document_count: s.documentCount,
    marker_count: s.markerCount,
    received_at: nowIso,
    created_at: nowIso,
    updated_at: nowIso,
    door_checks: s.doorCheck?.checks ?? null,
    door_outcome: s.doorCheck?.outcome ?? null,
  };
}

/** A submission's first job: checking it, due now, with the submission's SLA deadline. */
export function firstJob(
  ids: { jobId: string; submissionId: string },
  s: SubmissionValues,
  policy: { slaSeconds: number; maxAttempts: number },
  now: Date,
): NewJob & { id: string } {
  return {
    id: ids.jobId,
    type: INGEST_JOB_TYPE,
    tenantId: s.tenantId,
    submissionId: ids.submissionId,
    correlationId: s.correlationId,
    requestId: s.requestId,
    acceptedAt: now.toISOString(),
    slaDeadlineAt: new Date(now.getTime() + policy.slaSeconds * 1000).toISOString(),
    maxAttempts: policy.maxAttempts,
  };
}

export function idempotencyRow(
  claim: { partnerId: string; keyHash: string; requestHash: string; submissionId: string; jobId: string },
  ttlMs: number,
  now: Date,
): IdempotencyRow {
  return {
    partner_id: claim.partnerId,
    key_hash: claim.keyHash,
    request_hash: claim.requestHash,
    submission_id: claim.submissionId,
    job_id: claim.jobId,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + ttlMs).toISOString(),
  };
}

export function resultRow(
  r: { id: string; tenantId: string; submissionId: string; bundleJson: string },
  now: Date,
  docs: DocumentStore,
): ResultRow {
  const nowIso = now.toISOString();
  return {
    id: r.id,
    tenant_id: r.tenantId,
    submission_id: r.submissionId,
    bundle: docs.storedDocument(r.bundleJson, 'result'),
    created_at: nowIso,
    updated_at: nowIso,
  };
}

/** A result's artifact of `type`, pending until the render step stores its bytes. */
export function pendingArtifactRow(result: ResultRow, type: string): ArtifactRow {
  return {
    id: artifactIdFor(String(result.id), type),
    tenant_id: result.tenant_id,
    submission_id: result.submission_id,
    result_id: result.id,
    type,
    availability: 'pending',
    content_type: null,
    file_name: null,
    byte_size: null,
    sha256: null,
    generated_at: null,
    created_at: result.created_at,
    updated_at: result.updated_at,
  };
}

/** What was done, to which resource: the rest of an audit event comes from its origin and the clock. */
export interface AuditEntry {
  action: AuditAction;
  resourceType: AuditResourceType;
  resourceId: string;
}

export function auditRow(tenantId: string, entry: AuditEntry, origin: AuditOrigin, now: Date): AuditRow {
  return {
    id: newId(),
    tenant_id: tenantId,
    occurred_at: now.toISOString(),
    action: entry.action,
    resource_type: entry.resourceType,
    resource_id: entry.resourceId,
    actor_type: origin.actor.type,
    actor_id: origin.actor.id ?? null,
    actor_key_id: origin.actor.keyId ?? null,
    request_id: origin.requestId,
    correlation_id: origin.correlationId ?? null,
    outcome: AUDIT_OUTCOMES[0],
  };
}
