import type { AuditEvent, AuditOrigin } from '../domain/audit.js';
import type { AuditQuery } from './repositories/audit.js';
import type { ErasureRecord } from './repositories/erasures.js';
import type { IngestCommand, IngestResult } from './repositories/ingest.js';
import type { ListenAnswer, ListenEvent, ListenPosition } from './repositories/listen.js';
import type { ResultExportSource, ResultRecord } from './repositories/results.js';
import type { SubmissionListPage, SubmissionListQuery } from './repositories/submission-list.js';
import type { SubmissionRecord } from './repositories/submissions.js';
import type { ArtifactRecreation, DownloadableArtifact } from './repositories/tenant-artifacts.js';

/**
 * The only part of the store the HTTP layer may import: data access bound to one account
 * (Medplum's `getRepoForLogin`, Svix's `secure_find`). Authentication puts one on each request;
 * every query it runs carries the account's predicate, so a route cannot read or write another
 * account's rows by forgetting one. Unscoped access (`Store.system`) is for workers, the CLI and
 * the authenticator, and never reaches a route.
 */
export interface TenantAccess {
  readonly tenantId: string;
  readonly submissions: {
    /** The submission with its result, counts and jobs, as of one moment; the read is audited. */
    get(submissionId: string, origin: AuditOrigin): Promise<SubmissionRecord | undefined>;
    /**
     * Stores a checked submission with its first job and idempotency claim (group commit), or
     * answers with the claim that holds its key (ingest decides on it).
     */
    ingest(command: TenantIngestCommand): Promise<IngestResult>;
    /** Records (audit) that a request was answered with the submission its key holds. */
    replayed(submissionId: string, origin: AuditOrigin): Promise<void>;
    /** A page of the account's submissions, newest first, metadata only; audited once per page. */
    list(query: SubmissionListQuery, origin: AuditOrigin): Promise<SubmissionListPage>;
  };
  readonly results: {
    /** The result; the read is audited. */
    get(resultId: string, origin: AuditOrigin): Promise<ResultRecord | undefined>;
    /**
     * The named result's id when it is this account's; with none named, the account's most
     * recently completed result's (the test events route).
     */
    locate(resultId: string | undefined): Promise<string | undefined>;
    /** What a standard export (FHIR) of the result is built from; audited as an export. */
    exportSource(resultId: string, origin: AuditOrigin): Promise<ResultExportSource | undefined>;
  };
  readonly artifacts: {
    downloadable(artifactId: string): Promise<DownloadableArtifact | undefined>;
    recreation(artifactId: string): Promise<ArtifactRecreation | undefined>;
    restore(artifactId: string, body: Buffer): Promise<void>;
    /** Records a download (before its bytes are sent). */
    downloaded(artifactId: string, origin: AuditOrigin): Promise<void>;
  };
  readonly erasures: {
    /** Requests the erasure of every submission of the subject (docs/data-lifecycle.md). */
    request(partnerSubjectId: string, origin: AuditOrigin): Promise<ErasureRecord>;
    get(erasureId: string): Promise<ErasureRecord | undefined>;
  };
  readonly audit: {
    /** The account's audit events, newest first. */
    list(query: AuditQuery): Promise<{ items: AuditEvent[]; more: boolean }>;
  };
  /** `healthspan listen` (the test events stream): a test account's events, its answers. */
  readonly listen: {
    /** Records (audit) that a key opened the stream. */
    started(keyId: string, origin: AuditOrigin): Promise<void>;
    /** Events after a position created before `settledBefore`, oldest first. */
    after(position: ListenPosition, settledBefore: Date, limit: number): Promise<ListenEvent[]>;
    /** Records a reported answer as a `listen` attempt; false when the event is not this account's. */
    recordAnswer(answer: ListenAnswer): Promise<boolean>;
  };
}

/** An ingest command of the account the access is bound to. */
export type TenantIngestCommand = Omit<IngestCommand, 'tenantId'>;

/** How authentication gets the `TenantAccess` of the account a verified key belongs to. */
export interface TenantGateway {
  forTenant(tenantId: string): TenantAccess;
}

/**
 * How a key-less download gets a `TenantAccess`: only for the account that owns the artifact a
 * verified signed link names.
 */
export interface ArtifactGateway {
  /** The access of the artifact's account, or undefined for an artifact that does not exist. */
  forArtifact(artifactId: string): Promise<TenantAccess | undefined>;
}

export type { AuditCursor, AuditQuery } from './repositories/audit.js';
export type { ErasureRecord } from './repositories/erasures.js';
export type { AcceptedSubmission, HeldClaim, IngestResult } from './repositories/ingest.js';
export type { ListenAnswer, ListenEvent, ListenPosition } from './repositories/listen.js';
export type { StoredSubmission } from './repositories/pipeline.js';
export type { ArtifactRecord, ResultExportSource, ResultRecord } from './repositories/results.js';
export type {
  SubmissionListPage,
  SubmissionListPosition,
  SubmissionListQuery,
  SubmissionListRecord,
} from './repositories/submission-list.js';
export type { JobRecord, SubmissionRecord } from './repositories/submissions.js';
export type { ArtifactRecreation, DownloadableArtifact } from './repositories/tenant-artifacts.js';
